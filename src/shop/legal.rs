//! The shop's legal and policy texts: terms, privacy notice, refund and withdrawal policy and
//! imprint, one per language. Each starts as a built-in draft with the owner's identity filled
//! in, shown with a "not yet reviewed" banner; the owner edits (or simply reviews) it in the
//! console, which stores it with a version that rises on every change. The buyer's consent at
//! checkout names the terms version it was given to ([`TermsConsent`]).
//!
//! Texts are Markdown, rendered by `pulldown-cmark` and then sanitised by `ammonia`: whatever
//! the owner writes, the page gets no script, no style and no event handler, so the strict CSP
//! holds. Pages read the texts from memory ([`ShopLegal::text`]); a change reloads this
//! process at once and other replicas on the identity's `NOTIFY` (PostgreSQL) or at their next
//! check of the stored versions.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use tokio::sync::watch;

use crate::db::legal::{self as q, LegalRow};
use crate::db::{Db, DbError, now_ms};
use crate::i18n::Lang;
use crate::shop::Identity;
use crate::staff::Admin;

/// The longest text the console accepts, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The version of a text that was never edited: its draft.
pub const DRAFT_VERSION: i64 = 1;

/// One of the shop's legal texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Document {
    Terms,
    Privacy,
    Refunds,
    Imprint,
}

impl Document {
    pub const ALL: [Document; 4] = [
        Document::Terms,
        Document::Privacy,
        Document::Refunds,
        Document::Imprint,
    ];

    /// The name in addresses and in the database.
    pub fn slug(self) -> &'static str {
        match self {
            Self::Terms => "terms",
            Self::Privacy => "privacy",
            Self::Refunds => "refunds-and-withdrawal",
            Self::Imprint => "imprint",
        }
    }

    pub fn parse(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.slug() == slug)
    }

    /// The public page.
    pub fn href(self) -> String {
        format!("/{}", self.slug())
    }

    /// The message id of its title on the shop's pages.
    pub fn title_id(self) -> &'static str {
        match self {
            Self::Terms => "legal-terms-title",
            Self::Privacy => "legal-privacy-title",
            Self::Refunds => "legal-refunds-title",
            Self::Imprint => "legal-imprint-title",
        }
    }

    /// Its name in the console (English).
    pub fn console_name(self) -> &'static str {
        match self {
            Self::Terms => "Terms and conditions",
            Self::Privacy => "Privacy notice",
            Self::Refunds => "Refund and withdrawal policy",
            Self::Imprint => "Imprint",
        }
    }

    /// The built-in draft in `lang`, with `{shop}`, `{operator}` and the other identity
    /// fields still to fill in.
    fn draft_source(self, lang: Lang) -> &'static str {
        match (lang, self) {
            (Lang::En, Self::Terms) => include_str!("legal_drafts/en/terms.md"),
            (Lang::En, Self::Privacy) => include_str!("legal_drafts/en/privacy.md"),
            (Lang::En, Self::Refunds) => include_str!("legal_drafts/en/refunds.md"),
            (Lang::En, Self::Imprint) => include_str!("legal_drafts/en/imprint.md"),
            (Lang::De, Self::Terms) => include_str!("legal_drafts/de/terms.md"),
            (Lang::De, Self::Privacy) => include_str!("legal_drafts/de/privacy.md"),
            (Lang::De, Self::Refunds) => include_str!("legal_drafts/de/refunds.md"),
            (Lang::De, Self::Imprint) => include_str!("legal_drafts/de/imprint.md"),
            (Lang::Es, Self::Terms) => include_str!("legal_drafts/es/terms.md"),
            (Lang::Es, Self::Privacy) => include_str!("legal_drafts/es/privacy.md"),
            (Lang::Es, Self::Refunds) => include_str!("legal_drafts/es/refunds.md"),
            (Lang::Es, Self::Imprint) => include_str!("legal_drafts/es/imprint.md"),
        }
    }

    /// The built-in draft in `lang` with `identity` filled in; a detail the owner has not
    /// given yet reads as a bracketed gap (`[address]`), easy to spot and to fill.
    pub fn draft(self, lang: Lang, identity: &Identity) -> String {
        let gap = |what: &str| format!("[{what}]");
        let (address, registration, email, phone) = match lang {
            Lang::En => ("address", "registration or VAT number", "email", "phone"),
            Lang::De => ("Anschrift", "Register- oder USt-IdNr.", "E-Mail", "Telefon"),
            Lang::Es => (
                "dirección",
                "número de registro o NIF",
                "correo",
                "teléfono",
            ),
        };
        let or_gap = |value: &str, what: &str| {
            if value.trim().is_empty() {
                gap(what)
            } else {
                value.to_string()
            }
        };
        self.draft_source(lang)
            .replace("{shop}", identity.name.as_str())
            .replace("{operator}", identity.operator())
            .replace("{address}", &or_gap(&identity.address_line(), address))
            .replace(
                "{registration}",
                &or_gap(&identity.registration, registration),
            )
            .replace(
                "{email}",
                &identity
                    .support_email
                    .as_ref()
                    .map_or_else(|| gap(email), |e| e.as_str().to_string()),
            )
            .replace("{phone}", &or_gap(&identity.support_phone, phone))
    }
}

/// A text as the shop shows it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegalText {
    pub document: Document,
    pub lang: Lang,
    /// Markdown.
    pub body: String,
    /// False while the text is the built-in draft or the owner has not confirmed it: the shop
    /// shows a banner over it.
    pub reviewed: bool,
    pub version: i64,
    /// When the owner last changed it; `None` for the built-in draft.
    pub updated_at_ms: Option<i64>,
}

impl LegalText {
    /// The text as safe HTML.
    pub fn html(&self) -> String {
        render_markdown(&self.body)
    }
}

/// `markdown` as HTML that can go into a page as it is: `pulldown-cmark` renders it (raw HTML
/// in it is kept only as far as `ammonia` allows: no script, style, event handler or
/// `javascript:` link), and top-level headings become second-level ones, since the page's own
/// title is its only `<h1>`.
pub fn render_markdown(markdown: &str) -> String {
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
    let demote = |level: HeadingLevel| match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        other => other,
    };
    let events = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Event::Start(Tag::Heading {
            level: demote(level),
            id,
            classes,
            attrs,
        }),
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(demote(level))),
        other => other,
    });
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(&html)
        .to_string()
}

/// The buyer agreed to version `version` of the terms in the language they bought in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermsConsent {
    pub version: i64,
}

/// Why a text was not saved.
#[derive(Debug, thiserror::Error)]
pub enum LegalError {
    #[error("the text is empty")]
    Empty,
    #[error("the text is longer than {} KB", MAX_BODY_BYTES / 1024)]
    TooLong,
    #[error(transparent)]
    Database(#[from] DbError),
}

/// The stored texts by document and language.
type Stored = HashMap<(Document, Lang), LegalRow>;

/// The texts every page reads, and the console's changes to them.
pub struct ShopLegal {
    db: Db,
    stored: RwLock<Arc<Stored>>,
    generation: RwLock<i64>,
    woken: tokio::sync::Notify,
}

impl ShopLegal {
    /// No stored texts yet; call [`ShopLegal::reload`] to read them.
    pub fn new(db: Db) -> Self {
        Self {
            db,
            stored: RwLock::new(Arc::new(HashMap::new())),
            generation: RwLock::new(0),
            woken: tokio::sync::Notify::new(),
        }
    }

    fn stored(&self) -> Arc<Stored> {
        match self.stored.read() {
            Ok(guard) => Arc::clone(&guard),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// A number that changes with every stored text: part of the cache key of the pages that
    /// show a text.
    pub fn generation(&self) -> i64 {
        match self.generation.read() {
            Ok(guard) => *guard,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }

    /// `document` in `lang` as the shop shows it, the draft filled in from `identity` until
    /// the owner stored one.
    pub fn text(&self, document: Document, lang: Lang, identity: &Identity) -> LegalText {
        match self.stored().get(&(document, lang)) {
            Some(row) => LegalText {
                document,
                lang,
                body: row.body.clone(),
                reviewed: row.reviewed,
                version: row.version,
                updated_at_ms: Some(row.updated_at_ms),
            },
            None => LegalText {
                document,
                lang,
                body: document.draft(lang, identity),
                reviewed: false,
                version: DRAFT_VERSION,
                updated_at_ms: None,
            },
        }
    }

    /// The consent a buyer gives by ticking "I agree to the terms" on a page in `lang`.
    pub fn terms_consent(&self, lang: Lang) -> TermsConsent {
        let version = self
            .stored()
            .get(&(Document::Terms, lang))
            .map_or(DRAFT_VERSION, |row| row.version);
        TermsConsent { version }
    }

    /// Reads the stored texts into memory.
    pub async fn reload(&self) -> Result<(), DbError> {
        let rows = self.db.run(q::all).await?;
        let generation = rows.iter().map(|r| r.version).sum();
        let stored: Stored = rows
            .into_iter()
            .filter_map(|row| {
                let key = (Document::parse(&row.document)?, Lang::parse(&row.language)?);
                Some((key, row))
            })
            .collect();
        match self.stored.write() {
            Ok(mut guard) => *guard = Arc::new(stored),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(stored),
        }
        match self.generation.write() {
            Ok(mut guard) => *guard = generation,
            Err(poisoned) => *poisoned.into_inner() = generation,
        }
        Ok(())
    }

    /// Another replica may have changed a text: check now.
    pub fn wake(&self) {
        self.woken.notify_one();
    }

    /// Reloads whenever the stored versions differ from the ones served: on a wake-up and
    /// every 15 seconds, until `shutdown` turns true.
    pub async fn run_periodic(self: Arc<Self>, shutdown: watch::Receiver<bool>) {
        super::follow(
            "legal texts",
            &self.woken,
            shutdown,
            || async { Ok::<_, DbError>(self.db.run(q::generation).await? != self.generation()) },
            || self.reload(),
        )
        .await;
    }

    /// Stores the owner's `body` for `document` in `lang`: written by the owner, it counts as
    /// reviewed. Audited; the new version.
    pub async fn save(
        &self,
        by: &Admin,
        client_addr: &str,
        document: Document,
        lang: Lang,
        body: &str,
    ) -> Result<i64, LegalError> {
        let body = body.replace("\r\n", "\n");
        if body.trim().is_empty() {
            return Err(LegalError::Empty);
        }
        if body.len() > MAX_BODY_BYTES {
            return Err(LegalError::TooLong);
        }
        let details = format!("{} ({}) edited", document.console_name(), lang.name());
        let action = crate::staff::action::LEGAL_TEXT_EDITED;
        self.store(by, client_addr, (document, lang), body, (action, details))
            .await
    }

    /// Confirms the text `document` in `lang` as shown now (the draft with the identity
    /// filled in, or the stored text), so the banner goes. Audited; the new version.
    pub async fn mark_reviewed(
        &self,
        by: &Admin,
        client_addr: &str,
        document: Document,
        lang: Lang,
        identity: &Identity,
    ) -> Result<i64, LegalError> {
        let body = self.text(document, lang, identity).body;
        let details = format!(
            "{} ({}) marked as reviewed",
            document.console_name(),
            lang.name()
        );
        let action = crate::staff::action::LEGAL_TEXT_REVIEWED;
        self.store(by, client_addr, (document, lang), body, (action, details))
            .await
    }

    async fn store(
        &self,
        by: &Admin,
        client_addr: &str,
        (document, lang): (Document, Lang),
        body: String,
        (action, details): (&'static str, String),
    ) -> Result<i64, LegalError> {
        let (by, client) = (by.clone(), client_addr.to_string());
        let version = self
            .db
            .run(move |conn| {
                let now = now_ms();
                conn.write_tx(|conn| {
                    let version = q::save(conn, document.slug(), lang.code(), &body, true, now)?;
                    by.audit(
                        conn,
                        action,
                        Some(document.slug()),
                        &client,
                        &format!("{details}, now version {version}"),
                        now,
                    )?;
                    Ok::<_, DbError>(version)
                })
            })
            .await?;
        self.reload().await?;
        Ok(version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_keeps_its_structure_and_loses_anything_active() {
        let html = render_markdown(
            "# Terms\n\nSee [policy](/refunds-and-withdrawal) and **this**.\n\n\
             <script>alert(1)</script><p style=\"color:red\" onclick=\"x()\">hi</p>\n\n\
             [bad](javascript:alert(1))",
        );
        assert!(html.contains("<h2>Terms</h2>"), "{html}");
        assert!(html.contains("href=\"/refunds-and-withdrawal\""), "{html}");
        assert!(html.contains("<strong>this</strong>"), "{html}");
        for active in ["<script", "style=", "onclick", "javascript:", "<h1"] {
            assert!(!html.contains(active), "{active} in {html}");
        }
    }

    #[test]
    fn every_draft_names_the_operator_and_leaves_no_placeholder() {
        let identity = Identity::built_in();
        for lang in Lang::ALL {
            for document in Document::ALL {
                let draft = document.draft(lang, &identity);
                assert!(!draft.contains('{'), "{document:?} {lang:?}: {draft}");
                assert!(draft.contains(identity.operator()), "{document:?} {lang:?}");
            }
        }
    }
}
