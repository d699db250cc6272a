//! Outgoing email: the [`Mailer`] that delivers through an SMTP relay or into a folder of `.eml`
//! files, and the messages the shop sends ([`OutgoingEmail`]), rendered from
//! `templates/mail/`.
//!
//! Callers (the outbox, mostly) build a message with one of the typed constructors and hand it
//! to [`Mailer::send`]; on failure [`MailError::retry`] says whether to try again later.
//! Nothing here logs or returns credentials, full addresses or message bodies.

mod dir;
mod error;
mod message;
mod smtp;

use std::fmt;
use std::sync::Arc;

use lettre::Message;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use rand::RngCore;

pub use crate::domain::AlertKind;
pub use error::{MailError, Retry};
pub use message::{Audience, MailBrand, OrderLink, OutgoingEmail, Receipt};
pub use smtp::{SmtpEndpoint, SmtpSecurity};

use crate::config::{DEFAULT_SHOP_NAME, MailSettings, MailTransport};
use dir::DirSender;
use smtp::{SmtpSender, Timeouts};

/// Sends [`OutgoingEmail`]s. Cheap to clone: clones share the transport.
#[derive(Clone)]
pub struct Mailer {
    from: Arc<Mailbox>,
    /// Whether `STOREFRONT_MAIL_FROM` named the sender; if not, each email carries the shop's
    /// name as it stood when the email was written ([`OutgoingEmail::sender_name`]).
    from_named: bool,
    /// The shop's support address: the Reply-To of customers' emails, so that a reply reaches
    /// a person. `None` when the shop has none.
    reply_to: Option<Arc<Mailbox>>,
    transport: Transport,
}

#[derive(Clone, Debug)]
enum Transport {
    Smtp(SmtpSender),
    Dir(DirSender),
}

/// Where mail goes and from whom; never the SMTP password.
impl fmt::Debug for Mailer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mailer")
            .field("from", &self.from.email.domain())
            .field("transport", &self.transport)
            .finish()
    }
}

impl Mailer {
    /// Checks the settings and prepares the transport; nothing is sent or connected yet.
    ///
    /// A sender given as a bare address is named after the shop (the email's
    /// [`OutgoingEmail::sender_name`], else [`DEFAULT_SHOP_NAME`]), the name customers see on
    /// the site and in the emails themselves.
    ///
    /// For SMTP this must run inside the Tokio runtime that will send the mail (lettre's pool
    /// spawns a task there); outside a runtime it returns [`MailError::Settings`]. For a folder,
    /// the folder is created if it is missing.
    pub fn new(settings: &MailSettings) -> Result<Self, MailError> {
        Self::with_timeouts(settings, Timeouts::default())
    }

    pub(crate) fn with_timeouts(
        settings: &MailSettings,
        timeouts: Timeouts,
    ) -> Result<Self, MailError> {
        let from: Mailbox = settings.from.parse().map_err(|_| {
            MailError::Settings(
                "STOREFRONT_MAIL_FROM must be an address like \"Shop <shop@example.com>\"".into(),
            )
        })?;
        let from_named = from.name.is_some();
        let reply_to = settings
            .support_email
            .as_ref()
            .map(|support| {
                support
                    .as_str()
                    .parse()
                    .map(|address| {
                        Arc::new(Mailbox::new(Some(DEFAULT_SHOP_NAME.to_string()), address))
                    })
                    .map_err(|_| {
                        MailError::Settings(
                            "STOREFRONT_SUPPORT_EMAIL is not an address the mailer can use".into(),
                        )
                    })
            })
            .transpose()?;
        let transport = match &settings.transport {
            MailTransport::Smtp(url) => Transport::Smtp(SmtpSender::new(
                SmtpEndpoint::parse(url.expose())?,
                timeouts,
            )?),
            MailTransport::Dir(path) => Transport::Dir(DirSender::new(path.clone())?),
        };
        Ok(Self {
            from: Arc::new(from),
            from_named,
            reply_to,
            transport,
        })
    }

    /// Delivers one message: accepted by the relay, or written whole into the folder.
    pub async fn send(&self, message: &OutgoingEmail) -> Result<(), MailError> {
        let email = self.assemble(message)?;
        match &self.transport {
            Transport::Smtp(smtp) => smtp.send(email).await?,
            Transport::Dir(dir) => {
                let path = dir.send(email.formatted()).await?;
                tracing::debug!(mail.file = %path.display(), "mail written to folder");
            }
        }
        tracing::debug!(mail.to = ?message.to, "mail sent");
        Ok(())
    }

    /// `<128 bits@sender's domain>`: derived from the message's key when it has one (so a
    /// resend is the same message), random otherwise. lettre would use the machine's host
    /// name, which says nothing useful to recipients and leaks the container's name.
    fn message_id(&self, message: &OutgoingEmail) -> String {
        let mut bits = [0u8; 16];
        match &message.message_key {
            Some(key) => {
                use sha2::Digest;
                let digest = sha2::Sha256::digest(key.as_bytes());
                bits.copy_from_slice(&digest[..16]);
            }
            None => rand::rng().fill_bytes(&mut bits),
        }
        format!("<{}@{}>", hex::encode(bits), self.from.email.domain())
    }

    /// The full MIME message: multipart/alternative, text first (clients show the last part
    /// they can render, so HTML wins where supported). lettre adds Date and Message-ID and picks
    /// a transfer encoding per part (quoted-printable or base64 for non-ASCII text).
    fn assemble(&self, message: &OutgoingEmail) -> Result<Message, MailError> {
        let to = message
            .to
            .as_str()
            .parse()
            .map_err(|_| MailError::InvalidRecipient(message.to.clone()))?;
        let shop_name = message.sender_name.as_deref().unwrap_or(DEFAULT_SHOP_NAME);
        let from = if self.from_named {
            Mailbox::clone(&self.from)
        } else {
            Mailbox::new(Some(shop_name.to_string()), self.from.email.clone())
        };
        let mut builder = Message::builder()
            .message_id(Some(self.message_id(message)))
            .from(from);
        if message.audience == Audience::Customer {
            let own = message
                .reply_to
                .as_ref()
                .and_then(|support| support.as_str().parse().ok())
                .map(|address| Mailbox::new(Some(shop_name.to_string()), address));
            match (own, &self.reply_to) {
                (Some(support), _) => builder = builder.reply_to(support),
                (None, Some(support)) => {
                    let named = Mailbox::new(Some(shop_name.to_string()), support.email.clone());
                    builder = builder.reply_to(named);
                }
                (None, None) => {}
            }
        }
        if let Some(url) = &message.list_unsubscribe {
            builder = builder
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe"),
                    format!("<{url}>"),
                ))
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                    "List-Unsubscribe=One-Click".to_string(),
                ));
        }
        builder
            .to(Mailbox::new(None, to))
            .subject(message::single_line(&message.subject))
            .multipart(MultiPart::alternative_plain_html(
                message.text.clone(),
                message.html.clone(),
            ))
            .map_err(|e| MailError::Message(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::Secret;
    use crate::domain::Email;

    fn smtp_settings(url: &str) -> MailSettings {
        MailSettings {
            transport: MailTransport::Smtp(Secret::new(url.to_string())),
            from: "Shop <shop@example.com>".into(),
            support_email: None,
        }
    }

    fn message() -> OutgoingEmail {
        let url = url::Url::parse("https://shop.example.com/orders/1?token=t").expect("url");
        OutgoingEmail::esim_ready(
            Email::parse("jane@example.com").expect("ok"),
            &MailBrand::named("Shop"),
            &url,
            &message::Receipt::new(
                &crate::domain::PurchaseId::parse("p1").expect("id"),
                "P",
                crate::domain::Cents::new(100),
                0,
            ),
        )
        .expect("render")
    }

    /// The outbox keeps a `Mailer` in shared state and awaits `send` inside spawned tasks.
    #[test]
    fn mailer_errors_and_sends_cross_threads() {
        fn shareable<T: Send + Sync + 'static>() {}
        fn spawnable<F: std::future::Future + Send>(_: F) {}
        shareable::<Mailer>();
        shareable::<MailError>();
        shareable::<OutgoingEmail>();
        let dir = tempfile::tempdir().expect("tempdir");
        let mailer = Mailer::new(&MailSettings {
            transport: MailTransport::Dir(dir.path().to_path_buf()),
            from: "shop@example.com".into(),
            support_email: None,
        })
        .expect("mailer");
        let message = message();
        spawnable(mailer.send(&message));
    }

    /// A message sent again under its key (an outbox job run after a crash between the send
    /// and its record) is the same message: the same Message-ID. Without a key each send is a
    /// message of its own, and two keys never share one.
    #[tokio::test]
    async fn a_keyed_message_keeps_its_message_id_when_sent_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mailer = Mailer::new(&MailSettings {
            transport: MailTransport::Dir(dir.path().to_path_buf()),
            from: "shop@example.com".into(),
            support_email: None,
        })
        .expect("mailer");
        let sent_ids = |mailer: &Mailer, messages: Vec<OutgoingEmail>| {
            let mailer = mailer.clone();
            let dir = dir.path().to_path_buf();
            async move {
                for entry in std::fs::read_dir(&dir).expect("dir") {
                    std::fs::remove_file(entry.expect("entry").path()).expect("remove");
                }
                for message in &messages {
                    mailer.send(message).await.expect("sent");
                }
                let mut ids: Vec<String> = std::fs::read_dir(&dir)
                    .expect("dir")
                    .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("read"))
                    .map(|raw| {
                        raw.lines()
                            .find(|l| l.to_ascii_lowercase().starts_with("message-id:"))
                            .expect("a Message-ID")
                            .to_string()
                    })
                    .collect();
                ids.sort();
                ids.dedup();
                ids.len()
            }
        };
        let keyed = message().once_per("pur_1/email_esim_ready/7");
        assert_eq!(
            sent_ids(&mailer, vec![keyed.clone(), keyed.clone()]).await,
            1
        );
        let other = message().once_per("pur_1/email_esim_ready/8");
        assert_eq!(sent_ids(&mailer, vec![keyed, other]).await, 2);
        assert_eq!(sent_ids(&mailer, vec![message(), message()]).await, 2);
    }

    #[tokio::test]
    async fn debug_never_shows_the_smtp_password() {
        let mailer =
            Mailer::new(&smtp_settings("smtps://mailer:hunter2-pw@smtp.example.com")).expect("ok");
        let debug = format!("{mailer:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains("smtp.example.com"), "{debug}");
    }

    #[test]
    fn smtp_needs_a_runtime_and_says_so() {
        let err = Mailer::new(&smtp_settings("smtp://127.0.0.1:25?tls=none")).unwrap_err();
        assert!(matches!(err, MailError::Settings(_)), "{err}");
    }

    #[test]
    fn a_bad_sender_is_a_settings_error() {
        let settings = MailSettings {
            transport: MailTransport::Dir(std::env::temp_dir()),
            from: "not an address".into(),
            support_email: None,
        };
        assert!(matches!(
            Mailer::new(&settings),
            Err(MailError::Settings(_))
        ));
    }

    /// A server that accepts the connection and never says hello: the whole-send deadline turns
    /// it into a transient `Timeout` (lettre alone would wait forever for the greeting).
    #[tokio::test]
    async fn a_silent_server_times_out_as_transient() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let _hold = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                held.push(socket);
            }
        });
        let settings = smtp_settings(&format!("smtp://127.0.0.1:{port}?tls=none"));
        let timeouts = Timeouts {
            connect: Duration::from_secs(5),
            total: Duration::from_millis(300),
        };
        let mailer = Mailer::with_timeouts(&settings, timeouts).expect("mailer");
        let started = std::time::Instant::now();
        let err = mailer.send(&message()).await.unwrap_err();
        assert!(err.is_transient(), "{err:?}");
        assert!(matches!(err, MailError::Timeout), "{err:?}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
