//! Synthetic installation details for fulfilled orders: an ICCID with a valid Luhn check digit,
//! an LPA activation code, its QR code as SVG, and (on every other eSIM) a universal link.
//!
//! Values derive from the eSIM's sequence number so a run is reproducible; they are sandbox
//! fakes and cannot be installed for real connectivity (spec section 1).

use qrcode::QrCode;
use qrcode::render::svg;

use super::catalog::SplitMix64;
use super::wire::Installation;

pub const SMDP_HOST: &str = "smdp.sandbox.invalid";

/// The Luhn check digit for `digits` (the payload without its check digit).
pub fn luhn_check_digit(digits: &str) -> u32 {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 0 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    (10 - sum % 10) % 10
}

pub fn luhn_valid(number: &str) -> bool {
    if number.len() < 2 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let (payload, check) = number.split_at(number.len() - 1);
    check.parse::<u32>().ok() == Some(luhn_check_digit(payload))
}

/// Builds the installation of eSIM number `seq` (1-based). Odd numbers get a 19-digit ICCID
/// and no universal link; even numbers a 20-digit ICCID and an https link, so clients meet
/// both shapes.
pub fn installation(esim_id: &str, seq: u64) -> Result<Installation, qrcode::types::QrError> {
    let mut rng = SplitMix64::new(seq.wrapping_mul(0x5851_F42D_4C95_7F2D));
    let body_len = if seq % 2 == 1 { 16 } else { 17 };
    // 89 (telecom) + 01 (country) + digits, then the Luhn digit: 19 or 20 digits in total.
    let mut payload = String::from("8901");
    while payload.len() < body_len + 2 {
        payload.push(char::from(b'0' + u8::try_from(rng.below(10)).unwrap_or(0)));
    }
    let iccid = format!("{payload}{}", luhn_check_digit(&payload));
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let matching_id: String = (0..20)
        .map(|i| {
            if i > 0 && i % 5 == 0 {
                '-'
            } else {
                char::from(*rng.pick(ALPHABET))
            }
        })
        .collect();
    let activation_code = format!("LPA:1${SMDP_HOST}${matching_id}");
    let qr_code_svg = QrCode::new(activation_code.as_bytes())?
        .render::<svg::Color<'_>>()
        .min_dimensions(200, 200)
        .build();
    let universal_link = seq
        .is_multiple_of(2)
        .then(|| crate::domain::esim::apple_setup_link(&activation_code))
        .flatten();
    Ok(Installation {
        esim_id: esim_id.to_string(),
        iccid,
        activation_code,
        qr_code_svg,
        universal_link,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_luhn_numbers() {
        assert!(luhn_valid("79927398713"));
        assert!(!luhn_valid("79927398710"));
        assert!(luhn_valid("89014103211118510720"));
    }

    #[test]
    fn installation_shapes_alternate() {
        let a = installation("esim_1", 1).expect("qr fits");
        let b = installation("esim_2", 2).expect("qr fits");
        assert_eq!(a.iccid.len(), 19);
        assert_eq!(b.iccid.len(), 20);
        assert!(a.universal_link.is_none());
        assert!(
            b.universal_link
                .as_deref()
                .is_some_and(|l| l.starts_with("https://"))
        );
        assert!(a.activation_code.starts_with("LPA:1$smdp.sandbox.invalid$"));
        assert!(a.qr_code_svg.contains("<svg"));
    }

    proptest! {
        #[test]
        fn every_iccid_passes_luhn(seq in 1u64..1_000_000) {
            let inst = installation("e", seq).expect("qr fits");
            prop_assert!(inst.iccid.starts_with("89"));
            prop_assert!(inst.iccid.len() == 19 || inst.iccid.len() == 20);
            prop_assert!(luhn_valid(&inst.iccid));
        }
    }
}
