//! A consumer's email address, parsed once at the edge.
//!
//! Deliberately a plain structural check (one `@`, a non-empty local part, a dotted domain, no
//! spaces or control characters, RFC 5321 lengths), not a full RFC 5322 grammar: the address is
//! proven by the mail actually arriving. `Debug` masks the local part because full addresses must
//! not reach logs.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Email(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmailError {
    #[error("email address must be 3 to 254 characters")]
    Length,
    #[error("email address must contain exactly one @ with text on both sides")]
    Shape,
    #[error("email address must not contain spaces or control characters")]
    Character,
    #[error("email address domain must contain a dot and no empty labels")]
    Domain,
}

impl Email {
    pub fn parse(value: impl Into<String>) -> Result<Self, EmailError> {
        let value = value.into();
        if !(3..=254).contains(&value.chars().count()) {
            return Err(EmailError::Length);
        }
        if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(EmailError::Character);
        }
        let (local, domain) = value.split_once('@').ok_or(EmailError::Shape)?;
        if local.is_empty() || local.chars().count() > 64 || domain.contains('@') {
            return Err(EmailError::Shape);
        }
        if !domain.contains('.') || domain.split('.').any(str::is_empty) {
            return Err(EmailError::Domain);
        }
        Ok(Self(value))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Email {
    type Error = EmailError;
    fn try_from(value: String) -> Result<Self, EmailError> {
        Self::parse(value)
    }
}

impl From<Email> for String {
    fn from(value: Email) -> String {
        value.0
    }
}

impl Email {
    /// `j***@example.com`: enough to tell addresses apart, not enough to contact anyone.
    pub fn masked(&self) -> String {
        let (local, domain) = self.0.split_once('@').unwrap_or(("", &self.0));
        let first = local.chars().next().unwrap_or('?');
        format!("{first}***@{domain}")
    }
}

impl fmt::Debug for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Email({})", self.masked())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_addresses() {
        for ok in ["a@b.co", "jane.doe+shop@example.com", "x@sub.example.org"] {
            assert!(Email::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn rejects_malformed_addresses() {
        assert_eq!(Email::parse("ab"), Err(EmailError::Length));
        assert_eq!(Email::parse("no-at-sign.com"), Err(EmailError::Shape));
        assert_eq!(Email::parse("@example.com"), Err(EmailError::Shape));
        assert_eq!(Email::parse("a@b@example.com"), Err(EmailError::Shape));
        assert_eq!(Email::parse("a b@example.com"), Err(EmailError::Character));
        assert_eq!(Email::parse("a@localhost"), Err(EmailError::Domain));
        assert_eq!(Email::parse("a@example..com"), Err(EmailError::Domain));
        assert_eq!(Email::parse("a@example.com."), Err(EmailError::Domain));
        assert_eq!(
            Email::parse(format!("{}@example.com", "a".repeat(65))),
            Err(EmailError::Shape)
        );
    }

    #[test]
    fn debug_masks_the_local_part() {
        let email = Email::parse("jane.doe@example.com").expect("valid");
        assert_eq!(format!("{email:?}"), "Email(j***@example.com)");
    }
}
