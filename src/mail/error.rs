//! Everything that can go wrong while building or sending an email, and whether trying again
//! later can help.
//!
//! The outbox only needs one decision per failure: keep the job and retry with backoff
//! ([`Retry::Transient`]), or record a definitive failure ([`Retry::Permanent`]). The variants
//! keep enough detail for an admin (the SMTP reply code, the I/O error) but never the SMTP URL,
//! credentials, the server's reply text (it often quotes the full recipient address) or the
//! message body (it holds the private order link).

use std::io;
use std::path::PathBuf;

use crate::domain::Email;

/// Whether a failed delivery may succeed if the same message is sent again later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// The message is fine; the server, the network, the disk or our credentials are not (yet).
    Transient,
    /// This message will never be accepted as it is: a 5xx reply, an undeliverable address.
    Permanent,
}

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The mail settings cannot work (bad SMTP URL, unusable sender). Only [`super::Mailer::new`]
    /// returns this; the text never contains the URL itself.
    #[error("mail settings: {0}")]
    Settings(String),
    /// A template failed to render: a bug, the same input would fail again.
    #[error("could not render the {template} email: {source}")]
    Render {
        template: &'static str,
        #[source]
        source: askama::Error,
    },
    /// The recipient passed our own check but is not an address SMTP can carry.
    /// `Email`'s `Debug` masks the local part, so this is safe to log.
    #[error("the recipient {0:?} is not a deliverable mail address")]
    InvalidRecipient(Email),
    /// lettre refused to assemble the message.
    #[error("could not assemble the message: {0}")]
    Message(String),
    /// Refused, reset, unreachable, DNS failure.
    #[error("could not reach the SMTP server: {0}")]
    Connection(String),
    /// A TLS failure lettre reports as such. Handshake failures on connect (a bad certificate,
    /// a server that does not speak TLS) come back from lettre as connection errors instead.
    #[error("TLS with the SMTP server failed: {0}")]
    Tls(String),
    #[error("the SMTP server did not answer in time")]
    Timeout,
    /// 530/534/535/538: the server wants other credentials or a safer channel. A 5xx code, but it
    /// is the configuration that is wrong, not this message: once fixed, the retry succeeds.
    #[error("the SMTP server refused our credentials (reply {code})")]
    Authentication { code: u16 },
    /// A 4xx reply: greylisting, a full queue, a rate limit.
    #[error("the SMTP server deferred the message (reply {code})")]
    Deferred { code: u16 },
    /// A 5xx reply other than authentication: unknown mailbox, policy rejection.
    #[error("the SMTP server rejected the message (reply {code})")]
    Rejected { code: u16 },
    /// An unparseable reply or another client-side protocol failure.
    #[error("unexpected SMTP conversation: {0}")]
    Protocol(String),
    /// The mail folder could not be written (missing permissions, disk full).
    #[error("could not write a message into {}: {source}", dir.display())]
    Write {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl MailError {
    /// How an outbox should treat this failure.
    pub fn retry(&self) -> Retry {
        match self {
            Self::Connection(_)
            | Self::Tls(_)
            | Self::Timeout
            | Self::Authentication { .. }
            | Self::Deferred { .. }
            | Self::Protocol(_)
            | Self::Write { .. } => Retry::Transient,
            Self::Settings(_)
            | Self::Render { .. }
            | Self::InvalidRecipient(_)
            | Self::Message(_)
            | Self::Rejected { .. } => Retry::Permanent,
        }
    }

    pub fn is_transient(&self) -> bool {
        self.retry() == Retry::Transient
    }

    pub fn is_permanent(&self) -> bool {
        self.retry() == Retry::Permanent
    }

    /// Classifies a lettre SMTP error. Reply text is dropped on purpose (see the module docs).
    pub(crate) fn from_smtp(err: &lettre::transport::smtp::Error) -> Self {
        if let Some(code) = err.status() {
            let code = u16::from(code);
            return match code {
                530 | 534 | 535 | 538 => Self::Authentication { code },
                400..=499 => Self::Deferred { code },
                _ => Self::Rejected { code },
            };
        }
        if err.is_timeout() {
            Self::Timeout
        } else if err.is_tls() {
            Self::Tls(err.to_string())
        } else if err.is_response() || err.is_client() {
            Self::Protocol(err.to_string())
        } else {
            // Connection, network and transport-shutdown errors: nothing reached the server.
            Self::Connection(err.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_separates_the_message_from_the_environment() {
        for transient in [
            MailError::Timeout,
            MailError::Connection("refused".into()),
            MailError::Deferred { code: 451 },
            MailError::Authentication { code: 535 },
        ] {
            assert_eq!(transient.retry(), Retry::Transient, "{transient}");
            assert!(transient.is_transient());
        }
        for permanent in [
            MailError::Rejected { code: 550 },
            MailError::InvalidRecipient(Email::parse("a@b.co").expect("valid")),
        ] {
            assert_eq!(permanent.retry(), Retry::Permanent, "{permanent}");
            assert!(permanent.is_permanent());
        }
    }

    #[test]
    fn recipient_errors_mask_the_address() {
        let err = MailError::InvalidRecipient(Email::parse("jane.doe@example.com").expect("ok"));
        assert!(!err.to_string().contains("jane.doe"), "{err}");
    }
}
