//! A consumer's email address, parsed once at the edge.
//!
//! Deliberately a plain structural check (one `@`, a non-empty local part, a dotted domain, no
//! spaces or control characters, RFC 5321 lengths), not a full RFC 5322 grammar: the address is
//! proven by the mail actually arriving. `Debug` masks the local part because full addresses must
//! not reach logs.
//!
//! [`Email::suggestion`] is the one rule for "did you mean …?": a mistyped domain of a well-known
//! mail provider (`gmial.con`) or a mistyped top-level domain (`.con`), so a checkout can offer
//! the likely address before the eSIM is sent to nobody.

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

/// Mail providers whose domains are mistyped often enough to be worth a question, the most
/// common first (a typo as close to two of them gets the first).
const KNOWN_DOMAINS: &[&str] = &[
    "gmail.com",
    "yahoo.com",
    "hotmail.com",
    "outlook.com",
    "icloud.com",
    "aol.com",
    "live.com",
    "msn.com",
    "me.com",
    "mac.com",
    "googlemail.com",
    "protonmail.com",
    "proton.me",
    "gmx.de",
    "gmx.net",
    "web.de",
    "t-online.de",
    "yahoo.de",
    "yahoo.es",
    "yahoo.fr",
    "yahoo.co.uk",
    "hotmail.de",
    "hotmail.es",
    "hotmail.fr",
    "hotmail.co.uk",
    "outlook.de",
    "outlook.es",
    "live.de",
    "orange.fr",
    "free.fr",
    "comcast.net",
    "verizon.net",
];

/// Top-level domains typed wrong, with the one meant.
const TLD_TYPOS: &[(&str, &str)] = &[
    ("con", "com"),
    ("cmo", "com"),
    ("ocm", "com"),
    ("cpm", "com"),
    ("comm", "com"),
    ("vom", "com"),
    ("xom", "com"),
    ("cim", "com"),
    ("cm", "com"),
    ("om", "com"),
    ("nte", "net"),
    ("ent", "net"),
    ("nett", "net"),
    ("ogr", "org"),
    ("rog", "org"),
    ("orgg", "org"),
];

impl Email {
    /// The address the customer most likely meant, when its domain looks like a typo of a
    /// well-known provider's (edit distance up to 2; 1 for names of four or five letters such
    /// as `gmail`; none for shorter ones such as `aol`, one edit away from real domains) or its
    /// top-level domain is a common typo (`.con`, `.cmo`); `None` for an address that looks as
    /// meant. The local part is kept as typed.
    pub fn suggestion(&self) -> Option<Email> {
        let (local, domain) = self.0.rsplit_once('@')?;
        let domain = domain.to_lowercase();
        if KNOWN_DOMAINS.contains(&domain.as_str()) {
            return None;
        }
        let fixed_tld = match domain.rsplit_once('.') {
            Some((name, tld)) => TLD_TYPOS
                .iter()
                .find(|(typo, _)| *typo == tld)
                .map_or_else(|| domain.clone(), |(_, meant)| format!("{name}.{meant}")),
            None => domain.clone(),
        };
        let nearest = KNOWN_DOMAINS
            .iter()
            .map(|known| (known, edit_distance(&fixed_tld, known)))
            .filter(|(known, distance)| {
                let name_len = known.split('.').next().map_or(0, str::len);
                *distance
                    <= match name_len {
                        0..=3 => 0,
                        4..=5 => 1,
                        _ => 2,
                    }
            })
            .min_by_key(|(_, distance)| *distance)
            .map(|(known, _)| (*known).to_string());
        let meant = nearest.or_else(|| (fixed_tld != domain).then_some(fixed_tld))?;
        Email::parse(format!("{local}@{meant}")).ok()
    }
}

/// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // rows[i][j]: the distance between the first i chars of a and the first j of b.
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
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

    fn suggested(typed: &str) -> Option<String> {
        Email::parse(typed)
            .expect("valid")
            .suggestion()
            .map(|e| e.as_str().to_string())
    }

    #[test]
    fn common_domain_typos_get_the_meant_address() {
        for (typed, meant) in [
            ("name@gmial.con", "name@gmail.com"),
            ("name@gmail.con", "name@gmail.com"),
            ("name@gmai.com", "name@gmail.com"),
            ("Jane.Doe@hotmial.com", "Jane.Doe@hotmail.com"),
            ("x@yaho.com", "x@yahoo.com"),
            ("x@outlok.com", "x@outlook.com"),
            ("x@GMAIL.CMO", "x@gmail.com"),
            ("x@icloud.co", "x@icloud.com"),
            ("x@example.con", "x@example.com"),
            ("x@example.ogr", "x@example.org"),
        ] {
            assert_eq!(suggested(typed).as_deref(), Some(meant), "{typed}");
        }
    }

    #[test]
    fn addresses_that_look_as_meant_get_no_question() {
        for typed in [
            "name@gmail.com",
            "name@GMail.com",
            "name@example.com",
            "name@gmx.de",
            "name@company.co",
            "name@mx.com",
            "name@aon.at",
            "name@mail.example.org",
        ] {
            assert_eq!(suggested(typed), None, "{typed}");
        }
    }

    #[test]
    fn edit_distance_counts_swaps_as_one() {
        assert_eq!(edit_distance("gmial", "gmail"), 1);
        assert_eq!(edit_distance("gmial.con", "gmail.com"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn debug_masks_the_local_part() {
        let email = Email::parse("jane.doe@example.com").expect("valid");
        assert_eq!(format!("{email:?}"), "Email(j***@example.com)");
    }
}
