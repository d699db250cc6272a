//! The shop's own identity as typed values: its name, accent colour (only one that keeps white
//! text and the white page readable, WCAG AA), logo (a PNG or an SVG of bounded size), contact
//! and company details. The console and the `STOREFRONT_SHOP_*` defaults parse into these;
//! `shop::identity` stores and serves them.

use std::fmt;

/// The contrast WCAG 2 level AA asks of normal text.
pub const AA_CONTRAST: f64 = 4.5;
/// The largest logo the shop stores (it is sent with every first visit).
pub const MAX_LOGO_BYTES: usize = 256 * 1024;
/// The longest shop name: it must fit the header of a phone.
pub const MAX_NAME_CHARS: usize = 60;
/// The longest single-line detail (legal name, phone, registration number).
pub const MAX_LINE_CHARS: usize = 200;
/// The longest postal address.
pub const MAX_ADDRESS_CHARS: usize = 500;
/// The colour of the shop before its owner chooses one.
pub const DEFAULT_ACCENT: &str = "#0b5cad";

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BrandError {
    #[error("the shop name is empty")]
    EmptyName,
    #[error("the shop name is longer than {MAX_NAME_CHARS} characters")]
    LongName,
    #[error("{0} has a line break or a control character")]
    ControlCharacter(&'static str),
    #[error("{0} is too long")]
    TooLong(&'static str),
    #[error("the colour must be written like #0b5cad")]
    NotAColour,
    #[error(
        "the colour {colour} has a contrast of {ratio:.1}:1 with white; at least 4.5:1 is needed so text stays readable. Choose a darker colour"
    )]
    LowContrast { colour: String, ratio: f64 },
    #[error("the logo is larger than 256 KB")]
    LogoTooLarge,
    #[error("the logo is empty")]
    LogoEmpty,
    #[error("the logo must be a PNG or an SVG image")]
    LogoNotAnImage,
}

/// The shop's name as customers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopName(String);

impl ShopName {
    pub fn parse(raw: &str) -> Result<Self, BrandError> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(BrandError::EmptyName);
        }
        if name.chars().any(char::is_control) {
            return Err(BrandError::ControlCharacter("the shop name"));
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(BrandError::LongName);
        }
        Ok(Self(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ShopName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One line of text (empty allowed), trimmed, without control characters.
pub fn parse_line(what: &'static str, raw: &str) -> Result<String, BrandError> {
    let line = raw.trim();
    if line.chars().any(char::is_control) {
        return Err(BrandError::ControlCharacter(what));
    }
    if line.chars().count() > MAX_LINE_CHARS {
        return Err(BrandError::TooLong(what));
    }
    Ok(line.to_string())
}

/// A postal address: several lines (empty allowed), each trimmed, blank lines dropped.
pub fn parse_address(raw: &str) -> Result<String, BrandError> {
    if raw.chars().count() > MAX_ADDRESS_CHARS {
        return Err(BrandError::TooLong("the address"));
    }
    let lines: Vec<&str> = raw
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.iter().any(|l| l.chars().any(char::is_control)) {
        return Err(BrandError::ControlCharacter("the address"));
    }
    Ok(lines.join("\n"))
}

/// An sRGB colour, written `#rrggbb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Colour([u8; 3]);

impl Colour {
    pub const WHITE: Colour = Colour([255, 255, 255]);

    /// `#rrggbb` or `#rgb`, either case.
    pub fn parse(raw: &str) -> Result<Self, BrandError> {
        let hex = raw.trim().strip_prefix('#').ok_or(BrandError::NotAColour)?;
        let digits: Vec<u8> = hex
            .chars()
            .map(|c| c.to_digit(16).and_then(|d| u8::try_from(d).ok()))
            .collect::<Option<_>>()
            .ok_or(BrandError::NotAColour)?;
        match digits.as_slice() {
            [r, g, b] => Ok(Self([r * 17, g * 17, b * 17])),
            [r1, r2, g1, g2, b1, b2] => Ok(Self([r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2])),
            _ => Err(BrandError::NotAColour),
        }
    }

    /// WCAG 2 relative luminance.
    fn luminance(self) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let [r, g, b] = self.0;
        0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    }

    /// The WCAG 2 contrast ratio between two colours, from 1 to 21.
    pub fn contrast(self, other: Colour) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        let (light, dark) = if a > b { (a, b) } else { (b, a) };
        (light + 0.05) / (dark + 0.05)
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [r, g, b] = self.0;
        write!(f, "#{r:02x}{g:02x}{b:02x}")
    }
}

/// The accent colour: buttons (white text on it) and links (it on the white page). Both
/// pairs are the colour against white, so one check covers both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accent(Colour);

impl Accent {
    pub fn parse(raw: &str) -> Result<Self, BrandError> {
        let colour = Colour::parse(raw)?;
        let ratio = colour.contrast(Colour::WHITE);
        if ratio < AA_CONTRAST {
            return Err(BrandError::LowContrast {
                colour: colour.to_string(),
                ratio: (ratio * 10.0).floor() / 10.0,
            });
        }
        Ok(Self(colour))
    }

    pub fn colour(self) -> Colour {
        self.0
    }
}

impl Default for Accent {
    fn default() -> Self {
        Self::parse(DEFAULT_ACCENT).expect("the default accent passes its own check")
    }
}

impl fmt::Display for Accent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What kind of image a logo is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogoKind {
    Png,
    Svg,
}

impl LogoKind {
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Svg => "image/svg+xml",
        }
    }

    /// The stored name of the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Svg => "svg",
        }
    }

    pub fn from_stored(raw: &str) -> Option<Self> {
        match raw {
            "png" => Some(Self::Png),
            "svg" => Some(Self::Svg),
            _ => None,
        }
    }
}

/// A logo the shop may store: a PNG (by its signature) or an SVG document, at most
/// [`MAX_LOGO_BYTES`]. An SVG can carry script; it is only ever served from its own route
/// with a policy that runs none (see `web::brand`), and pages show it through `<img>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Logo {
    kind: LogoKind,
    bytes: Vec<u8>,
}

impl fmt::Debug for Logo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Logo")
            .field("kind", &self.kind)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

impl Logo {
    pub fn parse(bytes: Vec<u8>) -> Result<Self, BrandError> {
        if bytes.is_empty() {
            return Err(BrandError::LogoEmpty);
        }
        if bytes.len() > MAX_LOGO_BYTES {
            return Err(BrandError::LogoTooLarge);
        }
        if bytes.starts_with(PNG_SIGNATURE) {
            return Ok(Self {
                kind: LogoKind::Png,
                bytes,
            });
        }
        let text = std::str::from_utf8(&bytes).map_err(|_| BrandError::LogoNotAnImage)?;
        let text = text.trim_start_matches('\u{feff}').trim_start();
        let starts_as_xml = text.starts_with('<');
        if starts_as_xml && text.contains("<svg") && text.trim_end().ends_with('>') {
            Ok(Self {
                kind: LogoKind::Svg,
                bytes,
            })
        } else {
            Err(BrandError::LogoNotAnImage)
        }
    }

    /// A stored logo, as it was checked when saved; `None` if the row does not hold one.
    pub fn from_stored(kind: &str, bytes: Vec<u8>) -> Option<Self> {
        let logo = Self::parse(bytes).ok()?;
        (LogoKind::from_stored(kind) == Some(logo.kind)).then_some(logo)
    }

    pub fn kind(&self) -> LogoKind {
        self.kind
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_matches_wcag_examples() {
        let black = Colour::parse("#000").unwrap();
        assert!((black.contrast(Colour::WHITE) - 21.0).abs() < 0.01);
        // #767676 is the lightest grey that passes AA on white.
        assert!(Accent::parse("#767676").is_ok());
        assert!(matches!(
            Accent::parse("#777777"),
            Err(BrandError::LowContrast { .. })
        ));
        assert!(matches!(
            Accent::parse("#ffcc00"),
            Err(BrandError::LowContrast { .. })
        ));
        assert_eq!(Accent::parse("#0B5CAD").unwrap().to_string(), "#0b5cad");
        assert_eq!(Accent::parse(" #06c ").unwrap().to_string(), "#0066cc");
    }

    #[test]
    fn colours_refuse_anything_else() {
        for bad in [
            "",
            "0b5cad",
            "#0b5ca",
            "#gggggg",
            "red",
            "#0b5cad;}",
            "url(x)",
        ] {
            assert_eq!(Colour::parse(bad), Err(BrandError::NotAColour), "{bad}");
        }
    }

    #[test]
    fn logos_are_png_or_svg_of_bounded_size() {
        let mut png = PNG_SIGNATURE.to_vec();
        png.extend_from_slice(&[0; 16]);
        assert_eq!(Logo::parse(png).unwrap().kind(), LogoKind::Png);
        let svg = b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".to_vec();
        assert_eq!(Logo::parse(svg).unwrap().kind(), LogoKind::Svg);
        assert_eq!(
            Logo::parse(b"GIF89a....".to_vec()),
            Err(BrandError::LogoNotAnImage)
        );
        assert_eq!(
            Logo::parse(b"<html><script>1</script></html>".to_vec()),
            Err(BrandError::LogoNotAnImage)
        );
        assert_eq!(Logo::parse(Vec::new()), Err(BrandError::LogoEmpty));
        let mut big = PNG_SIGNATURE.to_vec();
        big.resize(MAX_LOGO_BYTES + 1, 0);
        assert_eq!(Logo::parse(big), Err(BrandError::LogoTooLarge));
    }

    #[test]
    fn names_and_lines_are_single_lines() {
        assert_eq!(
            ShopName::parse("  Globe Data ").unwrap().as_str(),
            "Globe Data"
        );
        assert_eq!(ShopName::parse(" "), Err(BrandError::EmptyName));
        assert!(ShopName::parse("a\nb").is_err());
        assert!(ShopName::parse(&"x".repeat(61)).is_err());
        assert!(parse_line("the phone", "+49 30\r\n1").is_err());
        assert_eq!(
            parse_address(" Main St 1 \r\n\r\n 10115 Berlin ").unwrap(),
            "Main St 1\n10115 Berlin"
        );
    }
}
