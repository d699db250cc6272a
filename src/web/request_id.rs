//! A random id for every request: in the `X-Request-Id` answer header, on every log line of the
//! request and on every error page, so a consumer's report can be matched to the log.

use std::fmt;

use rand::RngCore;

#[derive(Clone, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    pub fn generate() -> Self {
        let mut bytes = [0u8; 8];
        rand::rng().fill_bytes(&mut bytes);
        Self(hex::encode(bytes))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

tokio::task_local! {
    static CURRENT: RequestId;
}

/// Runs `fut` with `id` as the current request id.
pub async fn scope<F: Future>(id: RequestId, fut: F) -> F::Output {
    CURRENT.scope(id, fut).await
}

/// The id of the request being served, or `-` outside a request.
pub fn current() -> String {
    CURRENT
        .try_with(|id| id.0.clone())
        .unwrap_or_else(|_| "-".to_string())
}
