//! Where the database is: a SQLite file or a PostgreSQL connection string. The settings parse
//! it; the query layer opens it. A PostgreSQL URL may hold a password, so it is a [`Secret`]
//! and prints without one.

use std::fmt;
use std::path::PathBuf;

use url::Url;

use crate::secret::Secret;

/// Which database the shop keeps its records in.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A SQLite file (`sqlite://relative/path` or `sqlite:///absolute/path`).
    Sqlite(PathBuf),
    /// A PostgreSQL connection string; it may hold a password, so it is kept secret.
    Postgres(Secret<String>),
}

impl DatabaseUrl {
    pub fn parse(raw: &str) -> Result<Self, String> {
        let (scheme, rest) = raw.split_once("://").ok_or_else(|| {
            format!(
                "{:?} is not a URL (use sqlite://PATH or postgres://…)",
                redact_url(raw)
            )
        })?;
        match scheme {
            "sqlite" => {
                let path = rest.split('?').next().unwrap_or_default();
                if path.is_empty() {
                    return Err(
                        "sqlite:// needs a file path, e.g. sqlite://data/storefront.db".into(),
                    );
                }
                Ok(Self::Sqlite(PathBuf::from(path)))
            }
            "postgres" | "postgresql" => {
                Url::parse(raw).map_err(|e| format!("not a valid PostgreSQL URL: {e}"))?;
                Ok(Self::Postgres(Secret::new(raw.to_string())))
            }
            other => Err(format!(
                "unsupported scheme {other:?} (use sqlite:// or postgres://)"
            )),
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Shows where the database is without any password.
impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            Self::Postgres(url) => f.write_str(&redact_url(url.expose())),
        }
    }
}

/// A URL with any user name and password replaced, for messages and logs.
fn redact_url(raw: &str) -> String {
    match Url::parse(raw) {
        Ok(mut url) if url.has_host() => {
            if !url.username().is_empty() || url.password().is_some() {
                let _ = url.set_username("[redacted]");
                let _ = url.set_password(None);
            }
            url.set_query(None);
            url.to_string()
        }
        _ => raw
            .split_once("://")
            .map(|(scheme, _)| format!("{scheme}://…"))
            .unwrap_or_else(|| "…".to_string()),
    }
}
