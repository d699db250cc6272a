//! Reading an eSIM activation code (`LPA:1$<SM-DP+ address>$<matching id>`, GSMA SGP.22) for
//! people who must type it by hand, and checking links before they become buttons.

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

#[cfg(test)]
mod tests {
    use super::*;

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
