//! Reading an eSIM activation code (`LPA:1$<SM-DP+ address>$<matching id>`, GSMA SGP.22) for
//! people who must type it by hand, checking links before they become buttons, and the one-tap
//! install link built from the code when the supplier gives none.
//!
//! iPhones on iOS 17.4 or later open Apple's eSIM setup page
//! (`https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=<code>`) in the system's
//! installer, with the plan filled in. Android has no such web link (installing from a link
//! needs a carrier app), so an Android phone is shown the code to paste first. Which phone asks
//! is read from its `User-Agent` ([`Device`]): only the order of what the page shows depends
//! on it, so a wrong guess costs a scroll, never the installation.

/// The parts of an `LPA:1$…` activation code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivationParts {
    pub smdp_address: String,
    pub matching_id: String,
}

/// The SM-DP+ address and matching id, when the code has the standard shape.
pub fn parse_activation_code(code: &str) -> Option<ActivationParts> {
    let rest = code.trim().strip_prefix("LPA:1$")?;
    let mut parts = rest.split('$');
    let smdp_address = parts.next()?.trim();
    let matching_id = parts.next().unwrap_or("").trim();
    if smdp_address.is_empty() {
        return None;
    }
    Some(ActivationParts {
        smdp_address: smdp_address.to_string(),
        matching_id: matching_id.to_string(),
    })
}

/// Only an `https://` link may become an install button: anything else (`javascript:`,
/// `data:`) from upstream is dropped.
pub fn safe_install_link(link: &str) -> Option<&str> {
    let url = url::Url::parse(link.trim()).ok()?;
    (url.scheme() == "https" && url.has_host()).then_some(link.trim())
}

/// Apple's eSIM setup host: a link to it opens the installer on an iPhone.
pub const APPLE_SETUP_PREFIX: &str =
    "https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=";

/// Apple's one-tap install link for `code`, when it is a standard `LPA:1$…` code (anything
/// else would open an installer that cannot use it). The code is percent-encoded whole, so
/// `$`, `+` or `&` in a matching id reach the installer as they are.
pub fn apple_setup_link(code: &str) -> Option<String> {
    let code = code.trim();
    parse_activation_code(code)?;
    let encoded: String = url::form_urlencoded::byte_serialize(code.as_bytes()).collect();
    Some(format!("{APPLE_SETUP_PREFIX}{encoded}"))
}

/// Whether `link` is Apple's eSIM setup link (which only an iPhone can use).
pub fn is_apple_setup_link(link: &str) -> bool {
    link.starts_with(APPLE_SETUP_PREFIX)
}

/// The kind of device a page is shown on, as far as its `User-Agent` tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    /// An iPhone or iPad: Apple's setup link installs with one tap.
    Apple,
    /// An Android phone or tablet: the code is pasted in Settings.
    Android,
    /// A computer, or a browser that does not say: the QR code is for the phone beside it.
    Other,
}

impl Device {
    pub fn from_user_agent(user_agent: &str) -> Self {
        // Android browsers name Linux and Android; some iPad browsers name only Macintosh
        // (they are then treated as a computer and shown the QR code first).
        if user_agent.contains("Android") {
            Self::Android
        } else if user_agent.contains("iPhone") || user_agent.contains("iPad") {
            Self::Apple
        } else {
            Self::Other
        }
    }

    /// `apple`, `android` or `other`: the page's `data-device`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Apple => "apple",
            Self::Android => "android",
            Self::Other => "other",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `carddata` an installer reads back from a setup link.
    fn carddata(link: &str) -> Option<String> {
        let url = url::Url::parse(link).ok()?;
        assert_eq!(url.host_str(), Some("esimsetup.apple.com"));
        assert_eq!(url.path(), "/esim_qrcode_provisioning");
        url.query_pairs()
            .find(|(k, _)| k == "carddata")
            .map(|(_, v)| v.into_owned())
    }

    #[test]
    fn the_setup_link_gives_the_installer_the_same_code() {
        for code in [
            "LPA:1$smdp.example.com$ABC-123",
            "LPA:1$rsp.example.net$K2-1X9+Z&Q=1$",
            "LPA:1$smdp.example.com$",
            "LPA:1$smdp.example.com$ÄÖ 12",
        ] {
            let link = apple_setup_link(code).expect("a standard code has a link");
            assert!(is_apple_setup_link(&link));
            assert_eq!(carddata(&link).as_deref(), Some(code), "{link}");
            assert!(safe_install_link(&link).is_some());
        }
        // Surrounding space is not part of the code.
        let link = apple_setup_link("  LPA:1$smdp.example.com$X1 \n").expect("trimmed");
        assert_eq!(
            carddata(&link).as_deref(),
            Some("LPA:1$smdp.example.com$X1")
        );
    }

    #[test]
    fn only_standard_codes_get_a_setup_link() {
        assert_eq!(apple_setup_link("hello"), None);
        assert_eq!(apple_setup_link("LPA:1$$X"), None);
        assert_eq!(apple_setup_link(""), None);
    }

    #[test]
    fn devices_by_user_agent() {
        let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
        let ipad = "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/125.0 Mobile/15E148 Safari/604.1";
        let pixel = "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
        let mac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
        let linux = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
        assert_eq!(Device::from_user_agent(iphone), Device::Apple);
        assert_eq!(Device::from_user_agent(ipad), Device::Apple);
        assert_eq!(Device::from_user_agent(pixel), Device::Android);
        assert_eq!(Device::from_user_agent(mac), Device::Other);
        assert_eq!(Device::from_user_agent(linux), Device::Other);
        assert_eq!(Device::from_user_agent(""), Device::Other);
    }

    #[test]
    fn standard_codes_split_into_address_and_matching_id() {
        assert_eq!(
            parse_activation_code("LPA:1$smdp.example.com$ABC-123"),
            Some(ActivationParts {
                smdp_address: "smdp.example.com".into(),
                matching_id: "ABC-123".into()
            })
        );
        assert_eq!(
            parse_activation_code("LPA:1$smdp.example.com$"),
            Some(ActivationParts {
                smdp_address: "smdp.example.com".into(),
                matching_id: String::new()
            })
        );
        assert_eq!(parse_activation_code("LPA:1$$X"), None);
        assert_eq!(parse_activation_code("hello"), None);
    }

    #[test]
    fn only_https_links_become_buttons() {
        assert!(safe_install_link("https://esimsetup.apple.com/x?carddata=LPA:1$a$b").is_some());
        assert!(safe_install_link("javascript:alert(1)").is_none());
        assert!(safe_install_link("http://plain.example").is_none());
        assert!(safe_install_link("data:text/html,hi").is_none());
    }
}
