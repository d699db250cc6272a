//! What the shop needs to write to consumers: the mail transport and the shop's public
//! address (for the private order links) and name. The consumer emails themselves are
//! outbox jobs (`orders::jobs::email`); the owners' alert emails use it too.

use url::Url;

use crate::mail::Mailer;

/// What the outbox needs to write to consumers.
#[derive(Clone)]
pub struct Notifier {
    pub mailer: Mailer,
    pub public_url: Url,
    /// The shop's identity as emails present it (read when each email is written).
    pub identity: std::sync::Arc<crate::shop::ShopIdentity>,
}
