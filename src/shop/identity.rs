//! The shop's identity: name, accent colour, logo, contact and company details. The owner
//! sets it in the console (audited); until then the shop runs on its defaults
//! (`STOREFRONT_SHOP_NAME`, `STOREFRONT_SUPPORT_EMAIL`). Pages, emails and receipts read it
//! from memory ([`ShopIdentity::current`]), never from the database per request: a change
//! reloads this process at once, other replicas on the `NOTIFY` that the change sends
//! (PostgreSQL) and otherwise at their next check of the stored version.

use std::sync::{Arc, RwLock};

use tokio::sync::watch;

use crate::config::Settings;
use crate::db::identity::{self as q, IdentityRow, IdentityTexts};
use crate::db::{Db, DbError, now_ms};
use crate::domain::Email;
use crate::domain::brand::{
    Accent, BrandError, Logo, LogoKind, ShopName, parse_address, parse_line,
};
use crate::domain::clock::{ConsoleZone, UnknownZone};
use crate::mail::MailBrand;
use crate::staff::Admin;

/// What the shop is called and how it presents itself, as of one version.
#[derive(Debug, Clone)]
pub struct Identity {
    pub name: ShopName,
    pub accent: Accent,
    pub support_email: Option<Email>,
    pub support_phone: String,
    pub legal_name: String,
    /// Lines separated by `\n`.
    pub address: String,
    /// A company registration or VAT number, as the owner writes it.
    pub registration: String,
    pub logo: Option<Logo>,
    /// The zone the console shows its times in.
    pub time_zone: ConsoleZone,
    /// 0 for the defaults; raised by every change.
    pub version: i64,
    /// A short hash of the theme and of the logo: their addresses change with their content,
    /// so browsers may keep each for good.
    theme_tag: String,
    logo_tag: Option<String>,
}

/// The first 8 hex digits of the SHA-256 of `bytes`.
fn tag(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(bytes)[..4])
}

impl Identity {
    /// The identity of a shop with no settings at all.
    pub fn built_in() -> Self {
        Self::defaults(&Defaults {
            name: ShopName::parse(crate::config::DEFAULT_SHOP_NAME)
                .expect("the default name is valid"),
            support_email: None,
            time_zone: ConsoleZone::default(),
        })
    }

    /// The identity before the owner saved one.
    fn defaults(defaults: &Defaults) -> Self {
        Self {
            name: defaults.name.clone(),
            accent: Accent::default(),
            support_email: defaults.support_email.clone(),
            support_phone: String::new(),
            legal_name: String::new(),
            address: String::new(),
            registration: String::new(),
            logo: None,
            time_zone: defaults.time_zone.clone(),
            version: 0,
            theme_tag: String::new(),
            logo_tag: None,
        }
        .tagged()
    }

    /// The stored identity; a value that no longer parses (a hand-edited row) falls back to
    /// its default rather than stopping the shop.
    fn from_row(row: IdentityRow, defaults: &Defaults) -> Self {
        let logo = match (row.logo_kind.as_deref(), row.logo) {
            (Some(kind), Some(bytes)) => Logo::from_stored(kind, bytes),
            _ => None,
        };
        Self {
            name: ShopName::parse(&row.name).unwrap_or_else(|_| defaults.name.clone()),
            accent: Accent::parse(&row.accent).unwrap_or_default(),
            support_email: if row.support_email.is_empty() {
                None
            } else {
                Email::parse(&row.support_email).ok()
            },
            support_phone: row.support_phone,
            legal_name: row.legal_name,
            address: row.address,
            registration: row.registration,
            logo,
            time_zone: if row.time_zone.is_empty() {
                defaults.time_zone.clone()
            } else {
                ConsoleZone::parse(&row.time_zone).unwrap_or_else(|_| defaults.time_zone.clone())
            },
            version: row.version,
            theme_tag: String::new(),
            logo_tag: None,
        }
        .tagged()
    }

    /// The identity stored in `row` (read in the caller's transaction), or this one when the
    /// owner never saved one: what a document issued now names as its seller.
    pub fn as_stored(&self, row: Option<IdentityRow>) -> Self {
        match row {
            Some(row) => Self::from_row(
                row,
                &Defaults {
                    name: self.name.clone(),
                    support_email: self.support_email.clone(),
                    time_zone: self.time_zone.clone(),
                },
            ),
            None => self.clone(),
        }
    }

    fn tagged(mut self) -> Self {
        self.theme_tag = tag(self.theme_css().as_bytes());
        self.logo_tag = self.logo.as_ref().map(|l| tag(l.bytes()));
        self
    }

    /// Whether `requested` names the current theme (`theme.{tag}.css`).
    pub fn is_current_theme(&self, requested: &str) -> bool {
        requested == self.theme_tag
    }

    /// Whether `requested` names the current logo (`logo.{tag}.{kind}`).
    pub fn is_current_logo(&self, requested: &str) -> bool {
        self.logo_tag.as_deref() == Some(requested)
    }

    /// The stylesheet carrying the accent colour, named by its content.
    pub fn theme_href(&self) -> String {
        format!("/brand/theme.{}.css", self.theme_tag)
    }

    /// The stylesheet's body: the colour as the custom property `style.css` uses.
    pub fn theme_css(&self) -> String {
        format!(":root {{ --accent: {}; }}\n", self.accent)
    }

    /// Where the logo is served, if there is one.
    pub fn logo_href(&self) -> Option<String> {
        let (logo, tag) = (self.logo.as_ref()?, self.logo_tag.as_ref()?);
        Some(format!("/brand/logo.{tag}.{}", logo.kind().as_str()))
    }

    /// The logo's content type, for the favicon link.
    pub fn logo_type(&self) -> Option<&'static str> {
        self.logo.as_ref().map(|l| l.kind().content_type())
    }

    /// Who runs the shop: the legal name, or the shop's name until one is given.
    pub fn operator(&self) -> &str {
        if self.legal_name.is_empty() {
            self.name.as_str()
        } else {
            &self.legal_name
        }
    }

    pub fn address_lines(&self) -> Vec<&str> {
        self.address.lines().collect()
    }

    /// The address on one line, for footers.
    pub fn address_line(&self) -> String {
        self.address_lines().join(", ")
    }

    /// The company details in one line each, for page and email footers: the legal name and
    /// address, the registration number, the contact. Empty parts are left out.
    pub fn company_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let address = self.address_line();
        match (self.legal_name.is_empty(), address.is_empty()) {
            (false, false) => lines.push(format!("{} · {address}", self.legal_name)),
            (false, true) => lines.push(self.legal_name.clone()),
            (true, false) => lines.push(address),
            (true, true) => {}
        }
        if !self.registration.is_empty() {
            lines.push(self.registration.clone());
        }
        let contact: Vec<&str> = self
            .support_email
            .as_ref()
            .map(Email::as_str)
            .into_iter()
            .chain((!self.support_phone.is_empty()).then_some(self.support_phone.as_str()))
            .collect();
        if !contact.is_empty() {
            lines.push(contact.join(" · "));
        }
        lines
    }

    /// How emails present the shop.
    pub fn mail_brand(&self) -> MailBrand {
        MailBrand {
            name: self.name.as_str().to_string(),
            accent: self.accent.to_string(),
            footer: self.company_lines(),
            reply_to: self.support_email.clone(),
        }
    }

    /// The details as the console's form shows them.
    pub fn form(&self) -> IdentityForm {
        IdentityForm {
            name: self.name.to_string(),
            accent: self.accent.to_string(),
            support_email: self
                .support_email
                .as_ref()
                .map(|e| e.as_str().to_string())
                .unwrap_or_default(),
            support_phone: self.support_phone.clone(),
            legal_name: self.legal_name.clone(),
            address: self.address.clone(),
            registration: self.registration.clone(),
        }
    }
}

/// The identity the shop starts with, from its settings.
#[derive(Debug, Clone)]
struct Defaults {
    name: ShopName,
    support_email: Option<Email>,
    time_zone: ConsoleZone,
}

/// The console's identity form, as typed.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct IdentityForm {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub accent: String,
    #[serde(default)]
    pub support_email: String,
    #[serde(default)]
    pub support_phone: String,
    #[serde(default)]
    pub legal_name: String,
    #[serde(default)]
    pub address: String,
    #[serde(default)]
    pub registration: String,
}

/// Why the identity was not saved.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// A value the owner can correct; shown beside the form.
    #[error(transparent)]
    Invalid(#[from] BrandError),
    #[error("the support email is not an address like support@example.com")]
    BadSupportEmail,
    #[error(transparent)]
    UnknownZone(#[from] UnknownZone),
    #[error(transparent)]
    Database(#[from] DbError),
}

impl IdentityForm {
    /// The form as the texts to store, each checked.
    fn parse(&self) -> Result<IdentityTexts, IdentityError> {
        let support_email = match self.support_email.trim() {
            "" => String::new(),
            raw => Email::parse(raw)
                .map_err(|_| IdentityError::BadSupportEmail)?
                .as_str()
                .to_string(),
        };
        Ok(IdentityTexts {
            name: ShopName::parse(&self.name)?.to_string(),
            accent: Accent::parse(&self.accent)?.to_string(),
            support_email,
            support_phone: parse_line("the phone number", &self.support_phone)?,
            legal_name: parse_line("the legal name", &self.legal_name)?,
            address: parse_address(&self.address)?,
            registration: parse_line("the registration number", &self.registration)?,
        })
    }
}

/// The identity every page and email reads, and the console's changes to it.
pub struct ShopIdentity {
    db: Db,
    defaults: Defaults,
    current: RwLock<Arc<Identity>>,
    woken: tokio::sync::Notify,
}

impl ShopIdentity {
    /// The defaults of `settings`; call [`ShopIdentity::reload`] to read the stored identity.
    pub fn new(db: Db, settings: &Settings) -> Self {
        let defaults = Defaults {
            name: settings.shop_name.clone(),
            support_email: settings.mail.support_email.clone(),
            time_zone: settings.time_zone.clone(),
        };
        let current = RwLock::new(Arc::new(Identity::defaults(&defaults)));
        Self {
            db,
            defaults,
            current,
            woken: tokio::sync::Notify::new(),
        }
    }

    /// The identity to show now.
    pub fn current(&self) -> Arc<Identity> {
        match self.current.read() {
            Ok(guard) => Arc::clone(&guard),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Reads the stored identity into memory.
    pub async fn reload(&self) -> Result<Arc<Identity>, DbError> {
        let row = self.db.run(q::find).await?;
        let identity = Arc::new(match row {
            Some(row) => Identity::from_row(row, &self.defaults),
            None => Identity::defaults(&self.defaults),
        });
        match self.current.write() {
            Ok(mut guard) => *guard = Arc::clone(&identity),
            Err(poisoned) => *poisoned.into_inner() = Arc::clone(&identity),
        }
        Ok(identity)
    }

    /// Another replica changed the identity: check now.
    pub fn wake(&self) {
        self.woken.notify_one();
    }

    /// Reloads whenever the stored version differs from the one served: on a wake-up and
    /// every 15 seconds, until `shutdown` turns true.
    pub async fn run_periodic(self: Arc<Self>, shutdown: watch::Receiver<bool>) {
        super::follow(
            "shop identity",
            &self.woken,
            shutdown,
            || async { Ok::<_, DbError>(self.db.run(q::version).await? != self.current().version) },
            || self.reload(),
        )
        .await;
    }

    /// Saves the owner's details (the logo stays), audited with what changed, and reloads.
    pub async fn save(
        &self,
        by: &Admin,
        client_addr: &str,
        form: &IdentityForm,
    ) -> Result<(), IdentityError> {
        let texts = form.parse()?;
        let before = self.current().form();
        let changes = describe_changes(&before, form_of(&texts));
        let (by, client) = (by.clone(), client_addr.to_string());
        self.db
            .run(move |conn| {
                let now = now_ms();
                conn.write_tx(|conn| {
                    q::save_texts(conn, &texts, now)?;
                    by.audit(
                        conn,
                        crate::staff::action::SHOP_IDENTITY_SAVED,
                        Some("shop"),
                        &client,
                        &changes,
                        now,
                    )
                })
            })
            .await?;
        self.reload().await?;
        Ok(())
    }

    /// Stores `logo` as the shop's logo, audited, and reloads. The details are saved first
    /// if the owner never saved them, so the row exists.
    pub async fn set_logo(
        &self,
        by: &Admin,
        client_addr: &str,
        logo: Logo,
    ) -> Result<(), IdentityError> {
        let texts = self.current().form().parse()?;
        let (by, client) = (by.clone(), client_addr.to_string());
        self.db
            .run(move |conn| {
                let now = now_ms();
                conn.write_tx(|conn| {
                    if q::find(conn)?.is_none() {
                        q::save_texts(conn, &texts, now)?;
                    }
                    q::set_logo(conn, Some((logo.kind().as_str(), logo.bytes())), now)?;
                    by.audit(
                        conn,
                        crate::staff::action::SHOP_LOGO_SET,
                        Some("shop"),
                        &client,
                        &format!(
                            "{} logo, {} bytes",
                            match logo.kind() {
                                LogoKind::Png => "PNG",
                                LogoKind::Svg => "SVG",
                            },
                            logo.bytes().len()
                        ),
                        now,
                    )
                })
            })
            .await?;
        self.reload().await?;
        Ok(())
    }

    /// Makes `raw` (an IANA zone name) the zone of the console's times, audited, and reloads.
    /// The details are saved first if the owner never saved them, so the row exists.
    pub async fn set_time_zone(
        &self,
        by: &Admin,
        client_addr: &str,
        raw: &str,
    ) -> Result<(), IdentityError> {
        let zone = ConsoleZone::parse(raw)?;
        let before = self.current().time_zone.name().to_string();
        let texts = self.current().form().parse()?;
        let (by, client) = (by.clone(), client_addr.to_string());
        self.db
            .run(move |conn| {
                let now = now_ms();
                conn.write_tx(|conn| {
                    if q::find(conn)?.is_none() {
                        q::save_texts(conn, &texts, now)?;
                    }
                    q::set_time_zone(conn, zone.name(), now)?;
                    by.audit(
                        conn,
                        crate::staff::action::CONSOLE_TIME_ZONE_SET,
                        Some("shop"),
                        &client,
                        &format!("{before} → {}", zone.name()),
                        now,
                    )
                })
            })
            .await?;
        self.reload().await?;
        Ok(())
    }

    /// Removes the logo, audited; false when there was none.
    pub async fn remove_logo(&self, by: &Admin, client_addr: &str) -> Result<bool, DbError> {
        if self.current().logo.is_none() {
            return Ok(false);
        }
        let (by, client) = (by.clone(), client_addr.to_string());
        self.db
            .run(move |conn| {
                let now = now_ms();
                conn.write_tx(|conn| {
                    q::set_logo(conn, None, now)?;
                    by.audit(
                        conn,
                        crate::staff::action::SHOP_LOGO_REMOVED,
                        Some("shop"),
                        &client,
                        "logo removed",
                        now,
                    )
                })
            })
            .await?;
        self.reload().await?;
        Ok(true)
    }
}

fn form_of(texts: &IdentityTexts) -> IdentityForm {
    IdentityForm {
        name: texts.name.clone(),
        accent: texts.accent.clone(),
        support_email: texts.support_email.clone(),
        support_phone: texts.support_phone.clone(),
        legal_name: texts.legal_name.clone(),
        address: texts.address.clone(),
        registration: texts.registration.clone(),
    }
}

/// "name: A → B; colour: … " for the audit log; "no change" when nothing differs.
fn describe_changes(before: &IdentityForm, after: IdentityForm) -> String {
    let pairs = [
        ("name", &before.name, &after.name),
        ("colour", &before.accent, &after.accent),
        ("support email", &before.support_email, &after.support_email),
        ("support phone", &before.support_phone, &after.support_phone),
        ("legal name", &before.legal_name, &after.legal_name),
        ("address", &before.address, &after.address),
        ("registration", &before.registration, &after.registration),
    ];
    let changed: Vec<String> = pairs
        .iter()
        .filter(|(_, b, a)| b != a)
        .map(|(what, b, a)| {
            let show = |v: &str| {
                if v.is_empty() {
                    "(none)".to_string()
                } else {
                    v.replace('\n', ", ")
                }
            };
            format!("{what}: {} → {}", show(b), show(a))
        })
        .collect();
    if changed.is_empty() {
        "no change".to_string()
    } else {
        changed.join("; ")
    }
}
