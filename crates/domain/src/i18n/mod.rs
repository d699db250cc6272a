//! The languages of the consumer pages and emails: English, Spanish and German.
//!
//! Texts live in Fluent message catalogs (`locales/<lang>/*.ftl`), compiled into the binary and
//! parsed once. Which language a page is written in is decided per request (`web::language`)
//! and scoped to it like the request id: templates call [`t`], [`ta`] and [`html`], which read
//! [`current`]. An email is rendered inside [`sync_scope`] with the purchase's stored language.
//! The console is always English.
//!
//! Plurals come from Fluent's CLDR plural rules; numbers, money and dates are formatted here
//! with integer arithmetic ([`format`]), so no ICU data set is built in. Every language must
//! define the same message ids ([`check`], run at startup and by the tests); a message that is
//! still missing renders as `⟦id⟧`, which the page-walking test looks for.

pub mod format;

use std::collections::BTreeSet;
use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};

/// A language the shop is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    #[default]
    En,
    Es,
    De,
}

impl Lang {
    pub const ALL: [Lang; 3] = [Lang::En, Lang::Es, Lang::De];

    /// The BCP 47 code, as in `<html lang>`, the `lang` cookie and `?lang=`.
    pub fn code(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::Es => "es",
            Self::De => "de",
        }
    }

    /// The language's own name, for the switcher.
    pub fn name(self) -> &'static str {
        match self {
            Self::En => "English",
            Self::Es => "Español",
            Self::De => "Deutsch",
        }
    }

    /// The own name of the language with `code` (as stored with a purchase); English for a
    /// code the shop does not have.
    pub fn name_of(code: &str) -> &'static str {
        Self::parse(code).unwrap_or_default().name()
    }

    /// `es`, `ES`, `es-MX` → Spanish; a language the shop does not have → `None`.
    pub fn parse(tag: &str) -> Option<Self> {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or_default();
        Self::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(primary))
    }

    /// The best language for an `Accept-Language` header: the highest q-value among the
    /// languages the shop has (the first listed on a tie); `None` when none of them is
    /// acceptable. `q=0` means "not this one"; a malformed q-value counts as 1.
    pub fn negotiate(accept_language: &str) -> Option<Self> {
        let mut best: Option<(Self, u16)> = None;
        for item in accept_language.split(',').take(32) {
            let mut parts = item.split(';');
            let tag = parts.next().unwrap_or_default();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .next()
                .map_or(1000, parse_q);
            let Some(lang) = Self::parse(tag) else {
                continue;
            };
            if q > 0 && best.is_none_or(|(_, b)| q > b) {
                best = Some((lang, q));
            }
        }
        best.map(|(lang, _)| lang)
    }

    /// The message `id` in this language.
    pub fn t(self, id: &str) -> String {
        self.format(id, None)
    }

    /// The message `id` with its arguments.
    pub fn ta(self, id: &str, args: &[(&str, Arg)]) -> String {
        let mut fluent = FluentArgs::with_capacity(args.len());
        for (name, value) in args {
            fluent.set(*name, value.to_fluent());
        }
        self.format(id, Some(&fluent))
    }

    fn format(self, id: &str, args: Option<&FluentArgs<'_>>) -> String {
        let bundle = &CATALOGS.bundles[self as usize];
        let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) else {
            tracing::warn!(i18n.lang = self.code(), i18n.id = id, "message missing");
            return format!("⟦{id}⟧");
        };
        let mut errors = Vec::new();
        let text = bundle.format_pattern(pattern, args, &mut errors);
        if !errors.is_empty() {
            tracing::warn!(i18n.lang = self.code(), i18n.id = id, errors = ?errors, "message incomplete");
        }
        text.into_owned()
    }
}

/// `q=0.8` → 800, in thousandths; anything unreadable → 1000.
fn parse_q(raw: &str) -> u16 {
    let raw = raw.trim();
    let (whole, frac) = raw.split_once('.').unwrap_or((raw, ""));
    let whole: u16 = match whole {
        "0" => 0,
        "1" => 1000,
        _ => return 1000,
    };
    let mut thousandths = 0u16;
    for (i, digit) in frac.chars().take(3).enumerate() {
        let Some(d) = digit.to_digit(10) else {
            return 1000;
        };
        thousandths += u16::try_from(d).unwrap_or(0) * [100, 10, 1][i];
    }
    (whole + thousandths).min(1000)
}

/// A value handed to a message: text as it is, or a number plural rules select on.
#[derive(Debug, Clone)]
pub enum Arg {
    Text(String),
    Number(i64),
}

impl Arg {
    fn to_fluent(&self) -> FluentValue<'static> {
        match self {
            Self::Text(s) => FluentValue::from(s.clone()),
            // Plural selection only: a shown number is passed as text, already formatted.
            Self::Number(n) => FluentValue::from(*n),
        }
    }
}

impl From<&str> for Arg {
    fn from(s: &str) -> Self {
        Self::Text(s.to_string())
    }
}
impl From<&String> for Arg {
    fn from(s: &String) -> Self {
        Self::Text(s.clone())
    }
}
impl From<String> for Arg {
    fn from(s: String) -> Self {
        Self::Text(s)
    }
}
impl From<i64> for Arg {
    fn from(n: i64) -> Self {
        Self::Number(n)
    }
}
impl From<usize> for Arg {
    fn from(n: usize) -> Self {
        Self::Number(i64::try_from(n).unwrap_or(i64::MAX))
    }
}
impl From<&usize> for Arg {
    fn from(n: &usize) -> Self {
        Self::from(*n)
    }
}
impl From<&&str> for Arg {
    fn from(s: &&str) -> Self {
        Self::Text((*s).to_string())
    }
}
impl From<&&String> for Arg {
    fn from(s: &&String) -> Self {
        Self::Text((*s).clone())
    }
}
impl From<&i64> for Arg {
    fn from(n: &i64) -> Self {
        Self::Number(*n)
    }
}

/// The catalogs of one language, as compiled in: `(file name, text)`.
type Sources = [(&'static str, &'static str); 4];

const SOURCES: [Sources; 3] = [
    [
        ("shop.ftl", include_str!("../../../../locales/en/shop.ftl")),
        (
            "order.ftl",
            include_str!("../../../../locales/en/order.ftl"),
        ),
        ("mail.ftl", include_str!("../../../../locales/en/mail.ftl")),
        (
            "receipt.ftl",
            include_str!("../../../../locales/en/receipt.ftl"),
        ),
    ],
    [
        ("shop.ftl", include_str!("../../../../locales/es/shop.ftl")),
        (
            "order.ftl",
            include_str!("../../../../locales/es/order.ftl"),
        ),
        ("mail.ftl", include_str!("../../../../locales/es/mail.ftl")),
        (
            "receipt.ftl",
            include_str!("../../../../locales/es/receipt.ftl"),
        ),
    ],
    [
        ("shop.ftl", include_str!("../../../../locales/de/shop.ftl")),
        (
            "order.ftl",
            include_str!("../../../../locales/de/order.ftl"),
        ),
        ("mail.ftl", include_str!("../../../../locales/de/mail.ftl")),
        (
            "receipt.ftl",
            include_str!("../../../../locales/de/receipt.ftl"),
        ),
    ],
];

struct Catalogs {
    bundles: Vec<FluentBundle<FluentResource>>,
    /// What is wrong with the catalogs as compiled in; empty when nothing.
    problems: Vec<String>,
}

static CATALOGS: LazyLock<Catalogs> = LazyLock::new(load);

fn load() -> Catalogs {
    let mut problems = Vec::new();
    let mut bundles = Vec::with_capacity(Lang::ALL.len());
    let mut ids: Vec<BTreeSet<String>> = Vec::new();
    for lang in Lang::ALL {
        let langid = lang.code().parse().unwrap_or_default();
        let mut bundle = FluentBundle::new_concurrent(vec![langid]);
        // No Unicode isolation marks around arguments: pages and emails are left-to-right.
        bundle.set_use_isolating(false);
        let mut lang_ids = BTreeSet::new();
        for (file, text) in SOURCES[lang as usize] {
            let resource = match FluentResource::try_new(text.to_string()) {
                Ok(resource) => resource,
                Err((resource, errors)) => {
                    problems.push(format!("{}/{file}: {errors:?}", lang.code()));
                    resource
                }
            };
            lang_ids.extend(message_ids(text));
            if let Err(errors) = bundle.add_resource(resource) {
                problems.push(format!("{}/{file}: {errors:?}", lang.code()));
            }
        }
        ids.push(lang_ids);
        bundles.push(bundle);
    }
    for (lang, lang_ids) in Lang::ALL.iter().zip(&ids).skip(1) {
        for missing in ids[0].difference(lang_ids) {
            problems.push(format!("{}: no message {missing}", lang.code()));
        }
        for extra in lang_ids.difference(&ids[0]) {
            problems.push(format!(
                "{}: {extra} is not an English message",
                lang.code()
            ));
        }
    }
    Catalogs { bundles, problems }
}

/// The ids of the messages `ftl` defines: each line that starts with an identifier and `=`
/// (terms start with `-`, comments with `#`, continuation lines with a space).
fn message_ids(ftl: &str) -> impl Iterator<Item = String> + '_ {
    ftl.lines().filter_map(|line| {
        let (id, _) = line.split_once('=')?;
        let id = id.trim_end();
        let first = id.chars().next()?;
        (first.is_ascii_alphabetic()
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .then(|| id.to_string())
    })
}

/// Every message id, as the English catalogs define them (all languages have the same,
/// [`check`]).
pub fn ids() -> Vec<String> {
    SOURCES[0]
        .iter()
        .flat_map(|(_, text)| message_ids(text))
        .collect()
}

/// Whether `id` is a message of every language.
pub fn has_message(id: &str) -> bool {
    CATALOGS.bundles.iter().all(|b| b.has_message(id))
}

/// Parses the catalogs and says what is wrong with them: a syntax error, a message one
/// language has and another lacks. Startup refuses to serve with any.
pub fn check() -> Result<(), Vec<String>> {
    if CATALOGS.problems.is_empty() {
        Ok(())
    } else {
        Err(CATALOGS.problems.clone())
    }
}

tokio::task_local! {
    static CURRENT: Lang;
}

/// Runs `fut` (one request) with `lang` as the language its pages are written in.
pub async fn scope<F: Future>(lang: Lang, fut: F) -> F::Output {
    CURRENT.scope(lang, fut).await
}

/// Runs `f` (rendering an email) with `lang` as the current language.
pub fn sync_scope<R>(lang: Lang, f: impl FnOnce() -> R) -> R {
    CURRENT.sync_scope(lang, f)
}

/// The language of the page being rendered; English outside any scope (the console, jobs).
pub fn current() -> Lang {
    CURRENT.try_with(|l| *l).unwrap_or_default()
}

/// The message `id` in the current language.
pub fn t(id: &str) -> String {
    current().t(id)
}

/// The message `id` with one argument.
pub fn ta(id: &str, name: &str, value: impl Into<Arg>) -> String {
    current().ta(id, &[(name, value.into())])
}

/// The message `id` with two arguments.
pub fn ta2(
    id: &str,
    name: &str,
    value: impl Into<Arg>,
    name2: &str,
    value2: impl Into<Arg>,
) -> String {
    current().ta(id, &[(name, value.into()), (name2, value2.into())])
}

/// The message `id`, which holds markup of its own (`<strong>`, links): its arguments are
/// escaped before they go in, so the result is safe to write into HTML as it is.
pub fn html(id: &str) -> String {
    current().t(id)
}

/// [`html`] with one argument, escaped the way askama escapes.
pub fn html_a(id: &str, name: &str, value: impl AsRef<str>) -> String {
    current().ta(
        id,
        &[(name, Arg::Text(crate::html::escape(value.as_ref())))],
    )
}

/// [`html`] with two arguments, escaped.
pub fn html_a2(
    id: &str,
    name: &str,
    value: impl AsRef<str>,
    name2: &str,
    value2: impl AsRef<str>,
) -> String {
    current().ta(
        id,
        &[
            (name, Arg::Text(crate::html::escape(value.as_ref()))),
            (name2, Arg::Text(crate::html::escape(value2.as_ref()))),
        ],
    )
}

/// Names a message id chosen in code (a status's headline): the identity, so the catalog
/// check finds every id the code can ask for.
pub const fn msg(id: &'static str) -> &'static str {
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogs_parse_and_every_language_has_every_message() {
        assert_eq!(check(), Ok(()));
    }

    /// Every literal id the templates and the code ask for (`t("…")`, `ta("…"`, `msg("…")`
    /// and the like) is a message of every language.
    #[test]
    fn every_message_the_code_asks_for_exists() {
        // The workspace: this crate is crates/domain.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        let mut dirs = vec![
            root.join("templates"),
            root.join("src"),
            root.join("crates"),
        ];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("readable").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if !path.ends_with("src/i18n/mod.rs") {
                    // This file names the calls it looks for.
                    files.push(path);
                }
            }
        }
        let mut asked = 0;
        let mut missing = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for call in [
                "t(\"",
                "ta(\"",
                "ta2(\"",
                "html(\"",
                "html_a(\"",
                "html_a2(\"",
                "msg(\"",
            ] {
                for (at, _) in text.match_indices(call) {
                    let before = text[..at].chars().last().unwrap_or(' ');
                    if before.is_ascii_alphanumeric() || before == '_' {
                        continue;
                    }
                    let rest = &text[at + call.len()..];
                    let id = rest.split('"').next().unwrap_or_default();
                    if id.is_empty() || id.contains(' ') || id == "no-such-message" {
                        continue;
                    }
                    asked += 1;
                    if !has_message(id) {
                        missing.push(format!("{}: {id}", file.display()));
                    }
                }
            }
        }
        assert!(asked > 200, "the scan found only {asked} ids");
        assert!(missing.is_empty(), "{missing:#?}");
    }

    #[test]
    fn accept_language_honours_q_values() {
        assert_eq!(Lang::negotiate("de-DE,de;q=0.9,en;q=0.8"), Some(Lang::De));
        assert_eq!(Lang::negotiate("fr-FR, es;q=0.5, en;q=0.4"), Some(Lang::Es));
        assert_eq!(Lang::negotiate("en;q=0.2, de;q=0.7"), Some(Lang::De));
        assert_eq!(Lang::negotiate("es-419"), Some(Lang::Es));
        assert_eq!(Lang::negotiate("fr, it"), None);
        assert_eq!(Lang::negotiate("de;q=0, en;q=0.1"), Some(Lang::En));
        assert_eq!(Lang::negotiate("*"), None);
        assert_eq!(Lang::negotiate(""), None);
    }

    #[test]
    fn plurals_follow_each_language() {
        assert_eq!(Lang::En.ta("days", &[("n", 1i64.into())]), "1 day");
        assert_eq!(Lang::En.ta("days", &[("n", 7i64.into())]), "7 days");
        assert_eq!(Lang::Es.ta("days", &[("n", 1i64.into())]), "1 día");
        assert_eq!(Lang::Es.ta("days", &[("n", 30i64.into())]), "30 días");
        assert_eq!(Lang::De.ta("days", &[("n", 1i64.into())]), "1 Tag");
        assert_eq!(Lang::De.ta("days", &[("n", 7i64.into())]), "7 Tage");
    }

    #[test]
    fn a_missing_message_is_marked_not_hidden() {
        assert_eq!(Lang::De.t("no-such-message"), "⟦no-such-message⟧");
    }

    #[test]
    fn arguments_of_markup_messages_are_escaped() {
        let text = sync_scope(Lang::En, || {
            html_a("help-write-to-html", "address", "<b>@example.com")
        });
        assert!(text.contains("&#60;b&#62;@example.com"), "{text}");
        assert!(!text.contains("<b>"), "{text}");
    }

    #[test]
    fn the_scope_decides_the_language() {
        assert_eq!(sync_scope(Lang::Es, current), Lang::Es);
        assert_eq!(current(), Lang::En);
    }
}
