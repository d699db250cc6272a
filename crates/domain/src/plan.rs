//! How a plan is described to a consumer, honestly (Partner API spec section 2.4): a daily
//! allowance is never shown as a trip total, an empty fair-use text never reads as "unlimited",
//! and a detail upstream did not report is left out rather than shown as a placeholder.

use std::borrow::Cow;

use crate::Cents;
use crate::i18n::{Lang, msg};

/// When a plan's validity starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Activation {
    FirstInstall,
    FirstNetwork,
    /// A value the spec does not list: kept, shown as not understood.
    Other(String),
}

impl Activation {
    pub fn parse(raw: &str) -> Self {
        match raw {
            "first_install" => Self::FirstInstall,
            "first_network" => Self::FirstNetwork,
            other => Self::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::FirstInstall => "first_install",
            Self::FirstNetwork => "first_network",
            Self::Other(raw) => raw,
        }
    }

    /// When validity starts, as a message id (a sentence for the plan page).
    pub fn describe(&self) -> &'static str {
        match self {
            Self::FirstInstall => msg("activation-first-install"),
            Self::FirstNetwork => msg("activation-first-network"),
            Self::Other(_) => msg("activation-unknown"),
        }
    }

    /// When validity starts, in a few words for a plan card (a message id); `None` when not
    /// reported.
    pub fn short(&self) -> Option<&'static str> {
        match self {
            Self::FirstInstall => Some(msg("activation-short-first-install")),
            Self::FirstNetwork => Some(msg("activation-short-first-network")),
            Self::Other(_) => None,
        }
    }

    /// When to install, for the order page (a message id): a plan whose validity starts at
    /// installation loses days if installed early.
    pub fn install_advice(&self) -> &'static str {
        match self {
            Self::FirstInstall => msg("install-advice-first-install"),
            Self::FirstNetwork => msg("install-advice-first-network"),
            Self::Other(_) => UNKNOWN_INSTALL_ADVICE,
        }
    }
}

/// When to install, when the plan's activation policy is not known: the careful choice (a
/// message id).
pub const UNKNOWN_INSTALL_ADVICE: &str = msg("install-advice-unknown");

/// `1024` → `1 GB`, `1536` → `1.5 GB`, `500` → `500 MB`, `1500` → `1,500 MB` (spec 2.4: 1024 MB
/// is 1 GB). Gigabytes are shown only when one decimal says exactly how much the plan gives;
/// any other amount is shown in megabytes, so the label never rounds the allowance up or down.
pub fn format_data(mb: i64) -> String {
    if mb >= 1024 && (mb % 1024) * 10 % 1024 == 0 {
        let whole = group_thousands(mb / 1024);
        match (mb % 1024) * 10 / 1024 {
            0 => format!("{whole} GB"),
            tenths => format!("{whole}.{tenths} GB"),
        }
    } else {
        format!("{} MB", group_thousands(mb))
    }
}

/// `1500` → `1,500`: how the shop and the console write counts.
pub fn group_thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The data a plan gives over its whole validity: a daily allowance times the days. What
/// "most data" compares, so a daily plan is never ranked by one day's allowance.
pub fn total_data_mb(data_mb: i64, validity_days: i64, is_daily: bool) -> i64 {
    if is_daily {
        data_mb.saturating_mul(validity_days.max(0))
    } else {
        data_mb
    }
}

/// `1 day`, `7 days`, in `lang`.
pub fn days(lang: Lang, n: i64) -> String {
    lang.ta("days", &[("n", n.into())])
}

/// The allowance in words: "1 GB per day for 7 days" or "5 GB for 30 days", in `lang`.
pub fn describe_allowance(lang: Lang, data_mb: i64, validity_days: i64, is_daily: bool) -> String {
    let id = if is_daily {
        "allowance-daily"
    } else {
        "allowance"
    };
    lang.ta(
        id,
        &[
            ("data", lang.data(data_mb).into()),
            ("days", days(lang, validity_days).into()),
        ],
    )
}

/// The short validity label of a plan card.
pub fn describe_validity(lang: Lang, validity_days: i64) -> String {
    days(lang, validity_days)
}

/// The fair-use text as plain words; `None` when upstream gave none (which is not "unlimited":
/// the page then says nothing about fair use rather than promise anything). Upstream's text is
/// not trusted as markup: anything that looks like an HTML tag is taken out (a `<script>` or
/// `<style>` element with its content), so the consumer reads words rather than tags; the
/// page still escapes what is left.
pub fn describe_fair_use(fup: &str) -> Option<Cow<'_, str>> {
    let text = strip_tags(fup);
    (!text.trim().is_empty()).then_some(text)
}

/// At most `max` characters of `text`, cut at a word with `…` when it is longer.
pub fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    if text.chars().count() <= max {
        return Cow::Borrowed(text);
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let at_word = cut
        .rfind(char::is_whitespace)
        .map_or(cut.as_str(), |end| &cut[..end]);
    Cow::Owned(format!(
        "{}…",
        at_word.trim_end_matches(|c: char| c.is_whitespace() || ",;:.-".contains(c))
    ))
}

/// The price of one day of a plan that costs `total` for `days` days, to the nearest cent;
/// `None` for a plan of one day or less (its price is the day's).
pub fn per_day(total: Cents, days: i64) -> Option<Cents> {
    (days > 1).then(|| Cents::new((total.get() + days / 2) / days))
}

/// Tags that sit inside a run of words; any other tag separates words.
const INLINE_TAGS: &[&str] = &[
    "a", "abbr", "b", "code", "em", "font", "i", "mark", "s", "small", "span", "strong", "sub",
    "sup", "u",
];

/// `text` without its HTML-looking tags: a `<` that opens a tag name (or `/`, `!`, `?`) and
/// its closing `>`. A `<` that opens nothing ("speed < 1 Mbps") is text and stays.
fn strip_tags(text: &str) -> Cow<'_, str> {
    if !text.contains('<') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut removed = false;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let opens_tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        let Some(close) = after.find('>').filter(|_| opens_tag) else {
            out.push_str(&rest[..=open]);
            rest = after;
            continue;
        };
        out.push_str(&rest[..open]);
        let tag = &after[..close];
        rest = &after[close + 1..];
        removed = true;
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        if !tag.starts_with('/') && (name == "script" || name == "style") {
            // The element's content is code, not words: skip to its end tag.
            let end = format!("</{name}");
            rest = match rest.to_ascii_lowercase().find(&end) {
                Some(at) => rest[at..].find('>').map_or("", |gt| &rest[at + gt + 1..]),
                None => "",
            };
        }
        if !INLINE_TAGS.contains(&name.as_str()) {
            out.push(' ');
        }
    }
    if !removed {
        return Cow::Borrowed(text);
    }
    out.push_str(rest);
    Cow::Owned(out.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The reported technology ("5G"); `None` when upstream gave none.
pub fn describe_network_type(network_type: Option<&str>) -> Option<&str> {
    network_type.map(str::trim).filter(|t| !t.is_empty())
}

/// The reported network names, comma-separated; `None` when upstream listed none (null or an
/// empty list alike: the consumer has nothing to read either way).
pub fn describe_networks(networks: Option<&[String]>) -> Option<String> {
    let names: Vec<&str> = networks
        .unwrap_or_default()
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// Folds a name for search: lower case, Latin diacritics removed ("Curaçao" → "curacao").
/// Other scripts are kept as they are, so "日本" still finds 日本.
pub fn search_key(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars().flat_map(char::to_lowercase) {
        match fold_accent(ch) {
            Some(plain) => out.push_str(plain),
            None => out.push(ch),
        }
    }
    out
}

fn fold_accent(ch: char) -> Option<&'static str> {
    Some(match ch {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'č' | 'ĉ' | 'ċ' => "c",
        'ď' | 'đ' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => "e",
        'ğ' | 'ģ' => "g",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
        'ķ' => "k",
        'ł' | 'ľ' | 'ļ' => "l",
        'ñ' | 'ń' | 'ň' | 'ņ' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'œ' => "oe",
        'ř' => "r",
        'ś' | 'š' | 'ş' | 'ș' => "s",
        'ß' => "ss",
        'ť' | 'ţ' | 'ț' => "t",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
        'ý' | 'ÿ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        '’' => "'",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn data_is_shown_in_gigabytes_only_when_one_decimal_is_exact() {
        assert_eq!(format_data(1024), "1 GB");
        assert_eq!(format_data(3072), "3 GB");
        assert_eq!(format_data(1536), "1.5 GB");
        assert_eq!(format_data(2560), "2.5 GB");
        assert_eq!(format_data(51200), "50 GB");
        assert_eq!(format_data(1500), "1,500 MB");
        assert_eq!(format_data(1100), "1,100 MB");
        assert_eq!(format_data(1023), "1,023 MB");
        assert_eq!(format_data(500), "500 MB");
        assert_eq!(format_data(0), "0 MB");
        assert_eq!(format_data(10 * 1024 + 1), "10,241 MB");
        assert_eq!(format_data(1024 * 1024), "1,024 GB");
    }

    #[test]
    fn total_data_counts_every_day_of_a_daily_plan() {
        assert_eq!(total_data_mb(500, 30, true), 15_000);
        assert_eq!(total_data_mb(51_200, 90, false), 51_200);
        assert_eq!(total_data_mb(i64::MAX, 2, true), i64::MAX);
    }

    #[test]
    fn a_daily_plan_is_never_shown_as_a_trip_total() {
        let en = Lang::En;
        assert_eq!(
            describe_allowance(en, 1024, 7, true),
            "1 GB per day for 7 days"
        );
        assert_eq!(describe_allowance(en, 1024, 7, false), "1 GB for 7 days");
        assert_eq!(describe_allowance(en, 512, 1, false), "512 MB for 1 day");
        assert_eq!(
            describe_allowance(Lang::Es, 1536, 7, true),
            "1,5 GB al día durante 7 días"
        );
        assert_eq!(
            describe_allowance(Lang::De, 1024, 1, false),
            "1 GB für 1 Tag"
        );
        assert_eq!(
            describe_allowance(Lang::De, 1024, 30, true),
            "1 GB pro Tag für 30 Tage"
        );
    }

    #[test]
    fn missing_details_are_left_out() {
        assert_eq!(describe_fair_use(""), None);
        assert_eq!(describe_fair_use("  "), None);
        assert_eq!(
            describe_fair_use("512 kbps after 2 GB").as_deref(),
            Some("512 kbps after 2 GB")
        );
        assert_eq!(describe_network_type(None), None);
        assert_eq!(describe_network_type(Some(" ")), None);
        assert_eq!(describe_network_type(Some("5G")), Some("5G"));
        assert_eq!(describe_networks(None), None);
        assert_eq!(describe_networks(Some(&[])), None);
        assert_eq!(describe_networks(Some(&[" ".to_string()])), None);
        assert_eq!(
            describe_networks(Some(&["Orange".to_string(), "SFR".to_string()])).as_deref(),
            Some("Orange, SFR")
        );
        assert_eq!(Activation::parse("first_install"), Activation::FirstInstall);
        // Installing early burns the days of a plan that starts at installation.
        assert!(
            Lang::En
                .t(Activation::FirstInstall.install_advice())
                .contains("install it when you arrive")
        );
        assert!(
            !Lang::En
                .t(Activation::FirstInstall.install_advice())
                .contains("before you travel")
        );
        assert!(
            Lang::En
                .t(Activation::FirstNetwork.install_advice())
                .contains("install it now")
        );
        assert!(
            Lang::En
                .t(Activation::parse("first_network").describe())
                .contains("first connects")
        );
        assert_eq!(Activation::parse("on_purchase").as_str(), "on_purchase");
        assert!(
            Lang::En
                .t(Activation::parse("on_purchase").describe())
                .contains("not reported")
        );
    }

    #[test]
    fn fair_use_markup_is_read_as_words() {
        assert_eq!(
            describe_fair_use(
                "Speeds <b>may</b> drop to 1 Mbps after 3 GB & video is limited to 480p <script>alert(1)</script>"
            )
            .as_deref(),
            Some("Speeds may drop to 1 Mbps after 3 GB & video is limited to 480p")
        );
        assert_eq!(
            describe_fair_use("Line one.<br/>Line <EM>two</EM>.<p>Three").as_deref(),
            Some("Line one. Line two. Three")
        );
        assert_eq!(
            describe_fair_use("<style>p{}</style>1 GB then 128 kbps<SCRIPT src=x></SCRIPT>")
                .as_deref(),
            Some("1 GB then 128 kbps")
        );
        // A `<` that opens no tag is text.
        assert_eq!(
            describe_fair_use("Speed < 1 Mbps when 3 <5").as_deref(),
            Some("Speed < 1 Mbps when 3 <5")
        );
        assert_eq!(
            describe_fair_use("a <b unclosed").as_deref(),
            Some("a <b unclosed")
        );
        assert_eq!(describe_fair_use("<b></b> <i> </i>"), None);
        assert_eq!(describe_fair_use("<script>never closed"), None);
    }

    #[test]
    fn long_texts_are_shortened_at_a_word() {
        assert_eq!(shorten("Speed is reduced", 40), "Speed is reduced");
        assert_eq!(
            shorten(
                "Speed is reduced to 128 kbps after 90% of the allowance.",
                30
            ),
            "Speed is reduced to 128 kbps…"
        );
        assert!(shorten(&"x".repeat(50), 10).chars().count() <= 10);
    }

    #[test]
    fn a_daily_price_is_the_total_over_the_days() {
        assert_eq!(per_day(Cents::new(3_669), 7), Some(Cents::new(524)));
        assert_eq!(per_day(Cents::new(700), 7), Some(Cents::new(100)));
        assert_eq!(per_day(Cents::new(3_669), 1), None);
        assert_eq!(per_day(Cents::new(3_669), 0), None);
    }

    #[test]
    fn search_keys_ignore_case_and_accents_but_keep_other_scripts() {
        assert_eq!(search_key("Curaçao"), "curacao");
        assert_eq!(search_key("Côte d’Ivoire"), "cote d'ivoire");
        assert_eq!(search_key("RÉUNION"), "reunion");
        assert_eq!(search_key("Türkiye"), "turkiye");
        assert_eq!(search_key("São Tomé and Príncipe"), "sao tome and principe");
        assert_eq!(search_key("日本"), "日本");
    }

    proptest! {
        #[test]
        fn a_data_label_is_exactly_the_allowance(mb in 0i64..10_000_000) {
            let label = format_data(mb);
            let number = |text: &str| text.replace(',', "");
            if let Some(gb) = label.strip_suffix(" GB") {
                let (whole, tenths) = number(gb)
                    .split_once('.')
                    .map_or((number(gb), 0), |(w, t)| (w.to_string(), t.parse().expect("digit")));
                let whole: i64 = whole.parse().expect("digits");
                prop_assert_eq!((whole * 10 + tenths) * 1024, mb * 10);
            } else {
                let shown = label.strip_suffix(" MB").map(number);
                prop_assert_eq!(shown, Some(mb.to_string()));
            }
        }
    }
}
