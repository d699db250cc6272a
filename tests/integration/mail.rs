//! The mail module end to end: messages written into a folder and delivered to a real SMTP
//! server, read back with an independent MIME parser (Python's `email` package), and the
//! classification of delivery failures.
//!
//! The SMTP server is Python 3's standard-library `smtpd` (deprecated but present up to 3.11):
//! no TLS, which is exactly what lets us check that plain text happens only when the URL says
//! `tls=none`. Recipients starting with `reject` get a 550 after DATA, `defer` a 451. Where
//! `smtpd` is missing (Python 3.12+), the SMTP tests say so loudly and pass, except with
//! `CI=true`, where they fail (the same rule as the PostgreSQL tests).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use storefront::config::{MailSettings, MailTransport, Secret};
use storefront::domain::{Cents, Email};
use storefront::mail::{AlertKind, MailBrand, MailError, Mailer, OutgoingEmail, Receipt, Retry};
use url::Url;

const FROM: &str = "Tokyo eSIM 東京 <shop@example.com>";

/// Accepts mail on argv[2] (an ephemeral port without it), prints the port, and stores each message (with the
/// envelope recipients prepended as `X-Envelope-To`) as a file in argv[1].
const SMTP_SERVER: &str = r#"
import asyncore, os, smtpd, sys, uuid
out = sys.argv[1]
class Server(smtpd.SMTPServer):
    def process_message(self, peer, mailfrom, rcpttos, data, **kwargs):
        if any(r.startswith("reject") for r in rcpttos):
            return "550 5.1.1 Mailbox unavailable"
        if any(r.startswith("defer") for r in rcpttos):
            return "451 4.3.0 Try again later"
        name = os.path.join(out, uuid.uuid4().hex)
        with open(name + ".tmp", "wb") as f:
            f.write(b"X-Envelope-To: " + ",".join(rcpttos).encode() + b"\r\n" + data)
        os.rename(name + ".tmp", name + ".eml")
port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
server = Server(("127.0.0.1", port), None, decode_data=False)
print(server.socket.getsockname()[1], flush=True)
asyncore.loop()
"#;

/// Prints a JSON summary of the message in argv[1], decoded the way a mail client would.
const PARSE_EML: &str = r#"
import email, email.policy, json, sys
with open(sys.argv[1], "rb") as f:
    msg = email.message_from_binary_file(f, policy=email.policy.default)
parts = [{"type": p.get_content_type(), "body": p.get_content()} for p in msg.iter_parts()]
print(json.dumps({
    "from": str(msg["From"]), "to": str(msg["To"]), "subject": str(msg["Subject"]),
    "envelope_to": msg["X-Envelope-To"], "message_id": msg["Message-ID"], "date": msg["Date"],
    "reply_to": str(msg["Reply-To"]) if msg["Reply-To"] else None,
    "type": msg.get_content_type(), "parts": parts,
    "defects": [str(d) for d in msg.defects] + [str(d) for p in msg.iter_parts() for d in p.defects],
}))
"#;

pub(crate) struct SmtpServer {
    child: Child,
    port: u16,
    inbox: tempfile::TempDir,
}

impl SmtpServer {
    /// Whether this machine's Python has `smtpd`; if not, says so loudly (and fails in CI).
    pub(crate) fn available() -> bool {
        let has_smtpd = Command::new("python3")
            .args(["-W", "ignore", "-c", "import asyncore, smtpd"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !has_smtpd {
            let message = "SMTP tests need python3 with the stdlib smtpd module (Python <= 3.11)";
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
            eprintln!("SKIPPED: {message}");
        }
        has_smtpd
    }

    /// `None` when this machine's Python has no `smtpd` (after a loud message; fails in CI).
    fn start() -> Option<Self> {
        Self::start_on(0)
    }

    /// A server on `port` (0: any free one), or `None` as for [`SmtpServer::available`].
    pub(crate) fn start_on(port: u16) -> Option<Self> {
        if !Self::available() {
            return None;
        }
        let inbox = tempfile::tempdir().expect("inbox dir");
        let mut child = Command::new("python3")
            .args(["-W", "ignore", "-c", SMTP_SERVER])
            .arg(inbox.path())
            .arg(port.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs (the SMTP tests need Python 3.11's smtpd)");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("port line");
        let port = line.trim().parse().unwrap_or_else(|_| {
            let _ = child.kill();
            panic!("the SMTP server did not print its port: {line:?}")
        });
        Some(Self { child, port, inbox })
    }

    fn url(&self, query: &str) -> String {
        format!("smtp://127.0.0.1:{}{query}", self.port)
    }

    pub(crate) fn received(&self) -> Vec<PathBuf> {
        eml_files(self.inbox.path())
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn eml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("dir entry").path())
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

pub(crate) fn parse_eml(path: &Path) -> Value {
    let output = Command::new("python3")
        .args(["-c", PARSE_EML])
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let parsed: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(parsed["defects"], serde_json::json!([]), "{parsed:#}");
    parsed
}

pub(crate) fn part<'a>(parsed: &'a Value, content_type: &str) -> &'a str {
    parsed["parts"]
        .as_array()
        .and_then(|parts| parts.iter().find(|p| p["type"] == content_type))
        .and_then(|p| p["body"].as_str())
        .unwrap_or_else(|| panic!("no {content_type} part in {parsed:#}"))
}

fn settings(transport: MailTransport) -> MailSettings {
    MailSettings {
        transport,
        from: FROM.into(),
        support_email: None,
    }
}

fn dir_mailer(dir: &Path) -> Mailer {
    Mailer::new(&settings(MailTransport::Dir(dir.to_path_buf()))).expect("folder mailer")
}

fn smtp_mailer(url: String) -> Mailer {
    Mailer::new(&settings(MailTransport::Smtp(Secret::new(url)))).expect("smtp mailer")
}

fn consumer() -> Email {
    Email::parse("jane.doe@example.com").expect("valid")
}

fn order_url() -> Url {
    Url::parse("https://shop.example.com/orders/pur_01HX?token=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5")
        .expect("url")
}

const PLAN: &str = "日本 Japan 10 GB · 30 days";

/// The receipt of a purchase ordered on 2026-11-22 (UTC).
fn receipt(plan: &str, cents: i64) -> Receipt {
    Receipt::new(
        &as_id("3fa29c1e0b7d44aa1234"),
        plan,
        Cents::new(cents),
        1_795_334_400_000,
    )
}

#[tokio::test]
async fn the_folder_receives_one_parseable_multipart_message() {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("data/mail");
    let mailer = dir_mailer(&dir);
    let mail = OutgoingEmail::payment_received(
        consumer(),
        &MailBrand::named("Tokyo eSIM 東京"),
        &order_url(),
        &receipt(PLAN, 123_456),
    )
    .expect("render");
    mailer.send(&mail).await.expect("written");

    let files = eml_files(&dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let parsed = parse_eml(&files[0]);
    assert_eq!(parsed["from"], FROM);
    assert_eq!(parsed["to"], "jane.doe@example.com");
    assert_eq!(parsed["subject"], "Payment received – Tokyo eSIM 東京");
    assert_eq!(parsed["type"], "multipart/alternative");
    assert!(parsed["date"].is_string(), "{parsed:#}");
    let message_id = parsed["message_id"].as_str().expect("Message-ID");
    assert!(message_id.ends_with("@example.com>"), "{message_id}");
    let types: Vec<_> = parsed["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|p| p["type"].clone())
        .collect();
    assert_eq!(types, ["text/plain", "text/html"]);
    for content_type in ["text/plain", "text/html"] {
        let body = part(&parsed, content_type);
        assert!(body.contains("$1,234.56"), "{body}");
        assert!(body.contains("日本 Japan 10 GB"), "{body}");
        assert!(body.contains("Tokyo eSIM 東京"), "{body}");
        // A receipt: the short order number to quote, and the day of the order.
        assert!(body.contains("SF-3FA2-9C1E"), "{body}");
        assert!(body.contains("22 Nov 2026"), "{body}");
    }

    // A second message gets its own file; nothing half-written is left behind.
    mailer.send(&mail).await.expect("written");
    let files = eml_files(&dir);
    assert_eq!(files.len(), 2);
    assert_ne!(files[0], files[1]);
    assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 2);
}

/// With a support address, a customer who presses Reply writes to it; alerts to the shop's own
/// people keep the sender. A sender given as a bare address carries the shop's name, the name
/// the email itself and the site use.
#[tokio::test]
async fn customers_replies_go_to_the_support_address_under_the_shop_s_name() {
    let root = tempfile::tempdir().expect("tempdir");
    let mailer = Mailer::new(&MailSettings {
        transport: MailTransport::Dir(root.path().to_path_buf()),
        from: "shop@example.com".into(),
        support_email: Some(Email::parse("help@example.com").expect("valid")),
    })
    .expect("mailer");
    let shop = "Globe Data";
    let ready = OutgoingEmail::esim_ready(
        consumer(),
        &MailBrand::named(shop),
        &order_url(),
        &receipt(PLAN, 1_000),
    )
    .expect("render");
    mailer.send(&ready).await.expect("written");
    let details = Url::parse("https://shop.example.com/admin/wallet").expect("url");
    let ops = Email::parse("ops@example.com").expect("valid");
    let alert = OutgoingEmail::alert(ops, AlertKind::LowBalance, "Wallet at $12.00", &details)
        .expect("render");
    mailer.send(&alert).await.expect("written");

    let mut parsed: Vec<_> = eml_files(root.path())
        .iter()
        .map(|p| parse_eml(p))
        .collect();
    parsed.sort_by_key(|m| m["to"].as_str().map(str::to_owned));
    let (customer, staff) = (&parsed[0], &parsed[1]);
    assert_eq!(customer["to"], "jane.doe@example.com");
    assert_eq!(customer["from"], format!("{shop} <shop@example.com>"));
    assert_eq!(customer["reply_to"], format!("{shop} <help@example.com>"));
    assert!(
        part(customer, "text/plain").starts_with(shop),
        "the same name in the body"
    );
    assert_eq!(staff["reply_to"], Value::Null, "{staff:#}");

    // Without a support address, no Reply-To; a sender with its own name keeps it.
    let plain = dir_mailer(&root.path().join("plain"));
    plain.send(&ready).await.expect("written");
    let parsed = parse_eml(&eml_files(&root.path().join("plain"))[0]);
    assert_eq!(parsed["reply_to"], Value::Null);
    assert_eq!(parsed["from"], FROM);
}

#[tokio::test]
async fn the_esim_ready_email_carries_the_private_link_and_nothing_to_install_with() {
    let root = tempfile::tempdir().expect("tempdir");
    let mailer = dir_mailer(root.path());
    let url = order_url();
    let mail = OutgoingEmail::esim_ready(
        consumer(),
        &MailBrand::named("Shop"),
        &url,
        &receipt(PLAN, 1_000),
    )
    .expect("render");
    mailer.send(&mail).await.expect("written");

    let files = eml_files(root.path());
    let parsed = parse_eml(&files[0]);
    let text = part(&parsed, "text/plain");
    let html = part(&parsed, "text/html");
    assert!(text.contains(url.as_str()), "{text}");
    assert!(
        html.contains(&format!("href=\"{}\"", url.as_str())),
        "{html}"
    );
    for body in [text, html] {
        let lower = body.to_ascii_lowercase();
        // An LPA activation code, an SM-DP+ address, a QR image or an ICCID-like digit run.
        for banned in [
            "lpa:",
            "sm-dp",
            "smdp",
            "<svg",
            "<img",
            "data:image",
            "matching id",
        ] {
            assert!(!lower.contains(banned), "{banned} in {body}");
        }
        let longest_digit_run = body
            .split(|c: char| !c.is_ascii_digit())
            .map(str::len)
            .max()
            .unwrap_or(0);
        assert!(longest_digit_run < 15, "an ICCID-like number in {body}");
    }
}

#[tokio::test]
async fn hostile_plan_names_are_escaped_in_the_html_part() {
    let root = tempfile::tempdir().expect("tempdir");
    let mailer = dir_mailer(root.path());
    let hostile = r#"<img src=x onerror=alert(1)> "Asia" & more </td></table> 中国"#;
    let mail = OutgoingEmail::order_refunded(
        consumer(),
        &MailBrand::named("Shop"),
        &order_url(),
        &receipt(hostile, 599),
        "Upstream said <b>no</b> & closed",
    )
    .expect("render");
    mailer.send(&mail).await.expect("written");

    let parsed = parse_eml(&eml_files(root.path())[0]);
    let html = part(&parsed, "text/html");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("<b>no</b>"), "{html}");
    assert!(!html.contains("</td></table> 中国"), "{html}");
    assert!(
        html.contains("&#60;img src=x onerror=alert(1)&#62;"),
        "{html}"
    );
    assert!(html.contains("&#38; more"), "{html}");
    assert!(html.contains("中国"), "{html}");
    assert!(html.contains("$5.99"), "{html}");
    // The text part is plain text: shown as written, nothing to escape.
    assert!(part(&parsed, "text/plain").contains(hostile));
}

#[tokio::test]
async fn smtp_delivers_to_a_real_server_when_the_url_asks_for_plain_text() {
    let Some(server) = SmtpServer::start() else {
        return;
    };
    let mailer = smtp_mailer(server.url("?tls=none"));
    let admin = Email::parse("ops@example.com").expect("valid");
    let details = Url::parse("https://shop.example.com/admin/wallet").expect("url");
    let alert = OutgoingEmail::alert(
        admin,
        AlertKind::LowBalance,
        "Wallet balance is $12.00",
        &details,
    )
    .expect("render");
    let ready = OutgoingEmail::esim_ready(
        consumer(),
        &MailBrand::named("Shop 商店"),
        &order_url(),
        &receipt(PLAN, 1_000),
    )
    .expect("render");

    // Clones share the transport and may send concurrently.
    let clone = mailer.clone();
    let (a, b) = tokio::join!(clone.send(&alert), mailer.send(&ready));
    a.expect("alert delivered");
    b.expect("eSIM email delivered");

    let mut delivered: Vec<_> = server.received().iter().map(|p| parse_eml(p)).collect();
    delivered.sort_by_key(|m| m["to"].as_str().map(str::to_owned));
    assert_eq!(delivered.len(), 2);
    let (consumer_mail, admin_mail) = (&delivered[0], &delivered[1]);
    assert_eq!(consumer_mail["envelope_to"], "jane.doe@example.com");
    assert_eq!(
        consumer_mail["subject"],
        "Your eSIM is ready to install – Shop 商店"
    );
    assert_eq!(consumer_mail["from"], FROM);
    assert!(part(consumer_mail, "text/plain").contains(order_url().as_str()));
    assert_eq!(admin_mail["envelope_to"], "ops@example.com");
    assert_eq!(
        admin_mail["subject"],
        "[Alert] Low wallet balance: Wallet balance is $12.00"
    );
    assert!(part(admin_mail, "text/html").contains(details.as_str()));
}

#[tokio::test]
async fn smtp_rejections_are_permanent_and_deferrals_transient() {
    let Some(server) = SmtpServer::start() else {
        return;
    };
    let mailer = smtp_mailer(server.url("?tls=none"));
    let to = |address: &str| {
        OutgoingEmail::esim_ready(
            Email::parse(address).expect("valid"),
            &MailBrand::named("Shop"),
            &order_url(),
            &receipt(PLAN, 1_000),
        )
        .expect("render")
    };

    let err = mailer.send(&to("reject@example.com")).await.unwrap_err();
    assert!(matches!(err, MailError::Rejected { code: 550 }), "{err:?}");
    assert_eq!(err.retry(), Retry::Permanent);

    let err = mailer.send(&to("defer@example.com")).await.unwrap_err();
    assert!(matches!(err, MailError::Deferred { code: 451 }), "{err:?}");
    assert_eq!(err.retry(), Retry::Transient);

    // Neither message's address leaks into the error text.
    assert!(!err.to_string().contains("defer@"), "{err}");
    assert!(server.received().is_empty());
}

#[tokio::test]
async fn without_tls_none_a_plain_server_gets_nothing() {
    let Some(server) = SmtpServer::start() else {
        return;
    };
    let mail = OutgoingEmail::esim_ready(
        consumer(),
        &MailBrand::named("Shop"),
        &order_url(),
        &receipt(PLAN, 1_000),
    )
    .expect("render");

    // smtp:// alone means STARTTLS required; this server does not offer it.
    let err = smtp_mailer(server.url("")).send(&mail).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    // smtps:// expects TLS from the first byte and gets a plain-text greeting.
    let err = smtp_mailer(format!("smtps://127.0.0.1:{}", server.port))
        .send(&mail)
        .await
        .unwrap_err();
    // (lettre reports a failed handshake on connect as a connection error.)
    assert!(
        matches!(err, MailError::Tls(_) | MailError::Connection(_)),
        "{err:?}"
    );
    assert!(err.is_transient());

    assert!(server.received().is_empty());
}

#[tokio::test]
async fn a_closed_port_is_a_transient_connection_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let mailer = smtp_mailer(format!(
        "smtp://mailer:hunter2-secret@127.0.0.1:{port}?tls=none"
    ));
    let mail = OutgoingEmail::esim_ready(
        consumer(),
        &MailBrand::named("Shop"),
        &order_url(),
        &receipt(PLAN, 1_000),
    )
    .expect("render");
    let err = mailer.send(&mail).await.unwrap_err();
    assert!(matches!(err, MailError::Connection(_)), "{err:?}");
    assert_eq!(err.retry(), Retry::Transient);
    for shown in [err.to_string(), format!("{err:?}"), format!("{mailer:?}")] {
        assert!(!shown.contains("hunter2"), "{shown}");
    }
}

#[test]
fn malformed_smtp_urls_are_refused_at_start_without_echoing_the_password() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let _guard = runtime.enter();
    for url in [
        "smtp://mailer:hunter2-secret@mail.example.com?tls=nope",
        "smtps://mailer:hunter2-secret@mail.example.com?tls=none",
        "smtp://mailer:hunter2-secret@mail.example.com?timeout=5",
    ] {
        let err =
            Mailer::new(&settings(MailTransport::Smtp(Secret::new(url.into())))).expect_err(url);
        assert!(matches!(err, MailError::Settings(_)), "{err:?}");
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }
}
use crate::fixtures::as_id;
