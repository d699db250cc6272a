//! How a plan is described to a consumer, honestly (Partner API spec section 2.4): a daily
//! allowance is never shown as a trip total, an empty fair-use text never reads as "unlimited",
//! and a value upstream did not report says so.

use std::fmt::Write;

/// When a plan's validity starts.
#[derive(Debug, Clone, PartialEq, Eq)]
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

    pub fn describe(&self) -> &'static str {
        match self {
            Self::FirstInstall => "Validity starts when you install the eSIM.",
            Self::FirstNetwork => {
                "Validity starts when the eSIM first connects to a network in the destination."
            }
            Self::Other(_) => "When validity starts was not reported. Ask us before you buy.",
        }
    }
}

/// `1024` → `1 GB`, `1536` → `1.5 GB`, `500` → `500 MB`. Fractions of a GB are truncated to
/// two decimals, never rounded up: the label must not promise more than the plan gives.
pub fn format_data(mb: i64) -> String {
    if mb < 1024 {
        return format!("{mb} MB");
    }
    let whole = mb / 1024;
    let hundredths = (mb % 1024) * 100 / 1024;
    let mut out = whole.to_string();
    if hundredths > 0 {
        let frac = format!("{hundredths:02}");
        let _ = write!(out, ".{}", frac.trim_end_matches('0'));
    }
    out.push_str(" GB");
    out
}

fn days(n: i64) -> String {
    if n == 1 {
        "1 day".to_string()
    } else {
        format!("{n} days")
    }
}

/// The allowance in words: "1 GB per day for 7 days" or "5 GB for 30 days".
pub fn describe_allowance(data_mb: i64, validity_days: i64, is_daily: bool) -> String {
    let data = format_data(data_mb);
    if is_daily {
        format!("{data} per day for {}", days(validity_days))
    } else {
        format!("{data} for {}", days(validity_days))
    }
}

/// The short validity label of a plan card.
pub fn describe_validity(validity_days: i64) -> String {
    days(validity_days)
}

/// The fair-use text, or an explicit note that none was given (never "unlimited").
pub fn describe_fair_use(fup: &str) -> &str {
    if fup.trim().is_empty() {
        "No fair-use details provided."
    } else {
        fup
    }
}

pub fn describe_network_type(network_type: Option<&str>) -> &str {
    match network_type {
        Some(t) if !t.trim().is_empty() => t,
        _ => "not reported",
    }
}

pub fn describe_networks(networks: Option<&[String]>) -> String {
    match networks {
        None => "not reported".to_string(),
        Some([]) => "none listed".to_string(),
        Some(list) => list.join(", "),
    }
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
    fn data_is_shown_in_binary_gigabytes_without_rounding_up() {
        assert_eq!(format_data(1024), "1 GB");
        assert_eq!(format_data(3072), "3 GB");
        assert_eq!(format_data(1536), "1.5 GB");
        assert_eq!(format_data(1100), "1.07 GB");
        assert_eq!(format_data(1023), "1023 MB");
        assert_eq!(format_data(500), "500 MB");
        assert_eq!(format_data(0), "0 MB");
        assert_eq!(format_data(10 * 1024 + 1), "10 GB");
    }

    #[test]
    fn a_daily_plan_is_never_shown_as_a_trip_total() {
        assert_eq!(describe_allowance(1024, 7, true), "1 GB per day for 7 days");
        assert_eq!(describe_allowance(1024, 7, false), "1 GB for 7 days");
        assert_eq!(describe_allowance(512, 1, false), "512 MB for 1 day");
    }

    #[test]
    fn missing_details_are_said_to_be_missing() {
        assert_eq!(describe_fair_use(""), "No fair-use details provided.");
        assert_eq!(describe_fair_use("  "), "No fair-use details provided.");
        assert_eq!(
            describe_fair_use("512 kbps after 2 GB"),
            "512 kbps after 2 GB"
        );
        assert_eq!(describe_network_type(None), "not reported");
        assert_eq!(describe_network_type(Some("5G")), "5G");
        assert_eq!(describe_networks(None), "not reported");
        assert_eq!(describe_networks(Some(&[])), "none listed");
        assert_eq!(
            describe_networks(Some(&["Orange".to_string(), "SFR".to_string()])),
            "Orange, SFR"
        );
        assert_eq!(Activation::parse("first_install"), Activation::FirstInstall);
        assert!(
            Activation::parse("first_network")
                .describe()
                .contains("first connects")
        );
        assert_eq!(Activation::parse("on_purchase").as_str(), "on_purchase");
        assert!(
            Activation::parse("on_purchase")
                .describe()
                .contains("not reported")
        );
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
        fn a_gb_label_never_exceeds_the_allowance(mb in 0i64..10_000_000) {
            let label = format_data(mb);
            if let Some(gb) = label.strip_suffix(" GB") {
                let (whole, frac) = gb.split_once('.').unwrap_or((gb, ""));
                let hundredths: i64 = format!("{frac:0<2}").parse().expect("digits");
                let shown_mb_x100 = (whole.parse::<i64>().expect("digits") * 100 + hundredths) * 1024;
                prop_assert!(shown_mb_x100 <= mb * 100);
            } else {
                prop_assert_eq!(label, format!("{mb} MB"));
            }
        }
    }
}
