//! The SMTP transport: parsing `STOREFRONT_SMTP_URL` into an endpoint, and building lettre's
//! pooled async transport from it.
//!
//! We parse the URL ourselves instead of calling lettre's `from_url` because lettre treats a bare
//! `smtp://host` as *unencrypted*; here a bare `smtp://` means STARTTLS **required**, and plain
//! text has to be asked for by name. Accepted forms:
//!
//! | URL | security | default port |
//! |---|---|---|
//! | `smtps://user:pass@host[:port]` | implicit TLS (SMTPS) | 465 |
//! | `smtp://user:pass@host[:port]` | STARTTLS required | 587 |
//! | `smtp://…?tls=required` | STARTTLS required (lettre's spelling) | 587 |
//! | `smtp://…?tls=opportunistic` | STARTTLS if offered, else plain: open to downgrade | 587 |
//! | `smtp://host[:port]?tls=none` | plain text, for a local relay or a test server | 25 |
//!
//! `user:pass@` is optional and percent-encoded (`p%40ss` for `p@ss`). A path segment sets the
//! EHLO name (`smtp://host/shop.example.com`), as in lettre. Any other query parameter, a `tls`
//! value on `smtps://`, or a user without a password is refused, so a typo cannot silently
//! weaken the connection. Error messages never repeat the URL: it holds the password.

use std::fmt;
use std::time::Duration;

use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::transport::smtp::{AsyncSmtpTransport, PoolConfig};
use lettre::{AsyncTransport, Message, Tokio1Executor};
use url::{Host, Url};

use super::MailError;
use crate::config::Secret;

/// How the connection to the relay is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpSecurity {
    /// TLS from the first byte (`smtps://`).
    ImplicitTls,
    /// Plain connect, then STARTTLS; fail if the server does not offer it.
    StartTlsRequired,
    /// STARTTLS when offered, plain otherwise.
    StartTlsOpportunistic,
    /// No encryption at all.
    None,
}

/// A parsed `STOREFRONT_SMTP_URL`. `Debug` shows where mail goes, never the password.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpEndpoint {
    pub host: String,
    pub port: u16,
    pub security: SmtpSecurity,
    pub hello_name: Option<String>,
    user: Option<String>,
    password: Option<Secret<String>>,
}

impl fmt::Debug for SmtpEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpEndpoint")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("hello_name", &self.hello_name)
            .field("authenticated", &self.user.is_some())
            .finish()
    }
}

impl SmtpEndpoint {
    pub fn parse(raw: &str) -> Result<Self, MailError> {
        let bad = |problem: &str| MailError::Settings(format!("STOREFRONT_SMTP_URL {problem}"));
        let url = Url::parse(raw).map_err(|e| bad(&format!("is not a URL ({e})")))?;

        let mut tls: Option<String> = None;
        for (key, value) in url.query_pairs() {
            match key.as_ref() {
                "tls" if tls.is_none() => tls = Some(value.into_owned()),
                "tls" => return Err(bad("sets `tls` more than once")),
                _ => return Err(bad(&format!("has an unknown parameter `{key}`"))),
            }
        }
        let (security, default_port) = match (url.scheme(), tls.as_deref()) {
            ("smtps", None) => (SmtpSecurity::ImplicitTls, 465),
            ("smtps", Some(_)) => {
                return Err(bad("uses smtps://, which is always TLS: remove `tls=`"));
            }
            ("smtp", None | Some("required")) => (SmtpSecurity::StartTlsRequired, 587),
            ("smtp", Some("opportunistic")) => (SmtpSecurity::StartTlsOpportunistic, 587),
            ("smtp", Some("none")) => (SmtpSecurity::None, 25),
            ("smtp", Some(other)) => {
                return Err(bad(&format!(
                    "has tls={other:?}; use `required`, `opportunistic` or `none`"
                )));
            }
            (other, _) => {
                return Err(bad(&format!(
                    "has scheme {other:?}; use smtp:// or smtps://"
                )));
            }
        };
        // `Host::Ipv6` unbracketed: lettre hands the host to the socket resolver as it is.
        let host = match url.host() {
            Some(Host::Domain(d)) if !d.is_empty() => d.to_string(),
            Some(Host::Ipv4(ip)) => ip.to_string(),
            Some(Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err(bad("has no host")),
        };
        let port = url.port().unwrap_or(default_port);

        let hello_name = match url.path().trim_matches('/') {
            "" => None,
            name if name.contains('/') => {
                return Err(bad("has a path with `/`; the path is only the EHLO name"));
            }
            name => Some(name.to_string()),
        };
        if url.fragment().is_some() {
            return Err(bad(
                "has a `#` fragment; percent-encode `#` in the password as %23",
            ));
        }

        let (user, password) = match (url.username(), url.password()) {
            ("", None) => (None, None),
            ("", Some(_)) => return Err(bad("has a password without a user")),
            (_, None) => return Err(bad("has a user without a password")),
            (user, Some(password)) => (
                Some(percent_decode(user).ok_or_else(|| bad("has a malformed user name"))?),
                Some(Secret::new(
                    percent_decode(password).ok_or_else(|| bad("has a malformed password"))?,
                )),
            ),
        };
        Ok(Self {
            host,
            port,
            security,
            hello_name,
            user,
            password,
        })
    }

    pub fn is_authenticated(&self) -> bool {
        self.user.is_some()
    }
}

/// `%XX` decoding for the URL's user info (no `+` → space: that rule is for query strings).
/// `None` on a broken escape or bytes that are not UTF-8.
fn percent_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Network limits. lettre's own `timeout` only bounds the TCP connect in its async transport
/// (reads and writes wait forever), so `total` bounds one whole `send`: a server that stops
/// answering, or trickles a byte at a time, cannot hold an outbox worker.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    pub connect: Duration,
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            total: Duration::from_secs(60),
        }
    }
}

/// An SMTP client. Cloning is cheap (lettre keeps its state behind an `Arc`).
#[derive(Clone)]
pub(crate) struct SmtpSender {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    endpoint: SmtpEndpoint,
    timeouts: Timeouts,
}

impl fmt::Debug for SmtpSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpSender")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

impl SmtpSender {
    /// Must run inside a Tokio runtime: lettre's pool (compiled in through the `pool` feature,
    /// even at size 0) spawns its reaper task here.
    pub(crate) fn new(endpoint: SmtpEndpoint, timeouts: Timeouts) -> Result<Self, MailError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(MailError::Settings(
                "the SMTP mailer must be created inside the Tokio runtime that sends mail".into(),
            ));
        }
        let tls_parameters = || {
            TlsParameters::new(endpoint.host.clone())
                .map_err(|e| MailError::Settings(format!("TLS for the SMTP host: {e}")))
        };
        let tls = match endpoint.security {
            SmtpSecurity::ImplicitTls => Tls::Wrapper(tls_parameters()?),
            SmtpSecurity::StartTlsRequired => Tls::Required(tls_parameters()?),
            SmtpSecurity::StartTlsOpportunistic => Tls::Opportunistic(tls_parameters()?),
            SmtpSecurity::None => Tls::None,
        };
        // `builder_dangerous` only means "no TLS preset": we always set `tls` explicitly above.
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&endpoint.host)
            .port(endpoint.port)
            .tls(tls)
            .timeout(Some(timeouts.connect))
            // No connection reuse: a pool of size 0 closes (QUIT) every connection after its
            // message. When our `total` deadline cancels a send midway, lettre cannot know the
            // connection is mid-conversation and would park it; the next message could then be
            // written into the previous one's DATA, to the wrong recipient. One handshake per
            // message costs nothing at a shop's transactional volume. A cancelled DATA never
            // ends with its final `.`, so the server discards it; a deadline that fires after
            // the `.` may mean the mail went out and the retry sends it twice (at least once).
            .pool_config(PoolConfig::new().max_size(0).min_idle(0));
        if let Some(name) = &endpoint.hello_name {
            builder = builder.hello_name(ClientId::Domain(name.clone()));
        }
        if let (Some(user), Some(password)) = (&endpoint.user, &endpoint.password) {
            builder =
                builder.credentials(Credentials::new(user.clone(), password.expose().clone()));
        }
        Ok(Self {
            transport: builder.build(),
            endpoint,
            timeouts,
        })
    }

    pub(crate) async fn send(&self, message: Message) -> Result<(), MailError> {
        match tokio::time::timeout(self.timeouts.total, self.transport.send(message)).await {
            Ok(Ok(_response)) => Ok(()),
            Ok(Err(err)) => Err(MailError::from_smtp(&err)),
            Err(_elapsed) => Err(MailError::Timeout),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> SmtpEndpoint {
        SmtpEndpoint::parse(raw).unwrap_or_else(|e| panic!("{raw}: {e}"))
    }

    fn refused(raw: &str) -> String {
        match SmtpEndpoint::parse(raw) {
            Ok(e) => panic!("{raw} was accepted as {e:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn bare_smtp_requires_starttls() {
        let e = parse("smtp://mailer:s3cret@mail.example.com");
        assert_eq!(e.security, SmtpSecurity::StartTlsRequired);
        assert_eq!(e.port, 587);
        assert_eq!(e.host, "mail.example.com");
        assert!(e.is_authenticated());
        assert_eq!(
            parse("smtp://mail.example.com:2525?tls=required").security,
            SmtpSecurity::StartTlsRequired
        );
    }

    #[test]
    fn smtps_is_implicit_tls_on_465() {
        let e = parse("smtps://u:p@mail.example.com");
        assert_eq!((e.security, e.port), (SmtpSecurity::ImplicitTls, 465));
        assert!(refused("smtps://mail.example.com?tls=none").contains("always TLS"));
    }

    #[test]
    fn plain_text_only_when_asked_for() {
        let e = parse("smtp://127.0.0.1:2525?tls=none");
        assert_eq!((e.security, e.port), (SmtpSecurity::None, 2525));
        assert_eq!(parse("smtp://relay.internal?tls=none").port, 25);
        assert_eq!(
            parse("smtp://relay.internal?tls=opportunistic").security,
            SmtpSecurity::StartTlsOpportunistic
        );
    }

    #[test]
    fn typos_and_odd_shapes_are_refused() {
        assert!(refused("smtp://h.example?tls=nnone").contains("tls="));
        assert!(refused("smtp://h.example?tsl=none").contains("`tsl`"));
        assert!(refused("smtp://h.example?tls=none&tls=required").contains("more than once"));
        assert!(refused("http://h.example").contains("scheme"));
        assert!(refused("smtp://user@h.example").contains("without a password"));
        assert!(refused("smtp://h.example/a/b").contains("EHLO"));
        assert!(refused("smtp://h.example?tls=none#x").contains("fragment"));
    }

    #[test]
    fn credentials_are_percent_decoded_and_never_shown() {
        let e = parse("smtp://mailer%40shop:p%40ss%2Fw%3Ard@mail.example.com/shop.example.com");
        assert_eq!(e.user.as_deref(), Some("mailer@shop"));
        assert_eq!(
            e.password.as_ref().map(|p| p.expose().as_str()),
            Some("p@ss/w:rd")
        );
        assert_eq!(e.hello_name.as_deref(), Some("shop.example.com"));
        let debug = format!("{e:?}");
        assert!(
            !debug.contains("p@ss") && !debug.contains("p%40ss"),
            "{debug}"
        );
        assert!(!debug.contains("mailer"), "{debug}");
    }

    #[test]
    fn errors_do_not_repeat_the_url() {
        let message = refused("smtp://mailer:hunter2-secret@h.example?bogus=1");
        assert!(!message.contains("hunter2"), "{message}");
        let message = refused("smtp://mailer:hunter2-secret@h.example:99999");
        assert!(!message.contains("hunter2"), "{message}");
    }

    #[test]
    fn ipv6_hosts_lose_their_brackets() {
        assert_eq!(parse("smtp://[::1]:2525?tls=none").host, "::1");
    }

    #[test]
    fn percent_decoding_rejects_broken_escapes() {
        assert_eq!(percent_decode("a%2"), None);
        assert_eq!(percent_decode("a%zz"), None);
        assert_eq!(percent_decode("%E4%B8%AD").as_deref(), Some("中"));
    }
}
