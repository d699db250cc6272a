//! Input rules of spec sections 2, 4 and 8, written out by hand (no regex crate): request
//! bodies, query strings, headers and path ids become typed values here or a precise 400.

use actix_web::HttpRequest;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use super::wire::{CheckoutRequest, MAX_AMOUNT_CENTS, OrderRequest, TopupRequest};

pub const DEFAULT_LIMIT: usize = 25;
pub const MAX_LIMIT: usize = 100;
const MAX_CURSOR_LEN: usize = 100;
const MAX_PATH_ID_LEN: usize = 100;

/// `^p[1-9][0-9]*-(base|[1-9][0-9]*)$`
pub fn is_plan_id(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('p') else {
        return false;
    };
    let Some((family, variant)) = rest.split_once('-') else {
        return false;
    };
    let positive = |t: &str| {
        t.starts_with(|c: char| ('1'..='9').contains(&c)) && t.bytes().all(|b| b.is_ascii_digit())
    };
    positive(family) && (variant == "base" || positive(variant))
}

/// `^[A-Za-z0-9._:-]{8,128}$`
pub fn is_idempotency_key(s: &str) -> bool {
    (8..=128).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// `^[A-Z]{2}$`
pub fn is_country_code(s: &str) -> bool {
    s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase())
}

/// A deliberately plain check (one `@`, a dotted domain, no spaces): enough to reject what a
/// JSON-schema `format: email` validator would, without pretending to implement RFC 5322.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    s.len() <= 254
        && !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// The `Idempotency-Key` header of the three POSTs.
pub fn idempotency_key(req: &HttpRequest) -> Result<String, ApiError> {
    let value = req
        .headers()
        .get("idempotency-key")
        .ok_or_else(|| ApiError::invalid("the Idempotency-Key header is required"))?;
    let key = value
        .to_str()
        .map_err(|_| ApiError::invalid("Idempotency-Key must be ASCII"))?;
    if !is_idempotency_key(key) {
        return Err(ApiError::invalid(
            "Idempotency-Key must be 8 to 128 characters from letters, digits, '.', '_', ':', '-'",
        ));
    }
    Ok(key.to_string())
}

/// A strict JSON body: `application/json`, valid JSON, no unknown properties, integers only.
pub fn json_body<T: DeserializeOwned>(req: &HttpRequest, body: &[u8]) -> Result<T, ApiError> {
    let content_type = req
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if mime != "application/json" {
        return Err(ApiError::invalid("the body must be application/json"));
    }
    serde_json::from_slice(body)
        .map_err(|e| ApiError::invalid(format!("the body is not a valid request: {e}")))
}

fn check_order_fields(plan_id: &str, expected: i64, reference: &str) -> Result<(), ApiError> {
    if !is_plan_id(plan_id) {
        return Err(ApiError::invalid(
            "planId must match ^p[1-9][0-9]*-(base|[1-9][0-9]*)$",
        ));
    }
    if !(0..=MAX_AMOUNT_CENTS).contains(&expected) {
        return Err(ApiError::invalid(
            "expectedPriceCents must be an integer from 0 to 9007199254740991",
        ));
    }
    if !(1..=100).contains(&char_len(reference)) {
        return Err(ApiError::invalid("reference must be 1 to 100 characters"));
    }
    Ok(())
}

pub fn order_request(req: &HttpRequest, body: &[u8]) -> Result<OrderRequest, ApiError> {
    let order: OrderRequest = json_body(req, body)?;
    check_order_fields(&order.plan_id, order.expected_price_cents, &order.reference)?;
    Ok(order)
}

pub fn checkout_request(req: &HttpRequest, body: &[u8]) -> Result<CheckoutRequest, ApiError> {
    let checkout: CheckoutRequest = json_body(req, body)?;
    check_order_fields(
        &checkout.plan_id,
        checkout.expected_price_cents,
        &checkout.reference,
    )?;
    if !is_email(&checkout.email) {
        return Err(ApiError::invalid("email must be an email address"));
    }
    Ok(checkout)
}

pub fn topup_request(req: &HttpRequest, body: &[u8]) -> Result<TopupRequest, ApiError> {
    let topup: TopupRequest = json_body(req, body)?;
    if !(1000..=100_000).contains(&topup.amount_cents) {
        return Err(ApiError::invalid(
            "amountCents must be an integer from 1000 to 100000",
        ));
    }
    Ok(topup)
}

/// Path parameter `id`: 1 to 100 characters.
pub fn path_id(id: &str) -> Result<&str, ApiError> {
    if (1..=MAX_PATH_ID_LEN).contains(&char_len(id)) {
        Ok(id)
    } else {
        Err(ApiError::invalid("id must be 1 to 100 characters"))
    }
}

/// The query parameters of the list endpoints. Unknown or repeated parameters are refused:
/// a client that sends `page=2` or `limit` twice has a bug it should learn about here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    pub cursor: Option<String>,
    pub limit: usize,
    pub country: Option<String>,
    pub region: Option<String>,
}

pub fn list_query(req: &HttpRequest, allow_filters: bool) -> Result<ListQuery, ApiError> {
    let mut q = ListQuery {
        limit: DEFAULT_LIMIT,
        ..ListQuery::default()
    };
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in url::form_urlencoded::parse(req.query_string().as_bytes()) {
        if seen.iter().any(|s| *s == name) {
            return Err(ApiError::invalid(format!(
                "query parameter {name} is given twice"
            )));
        }
        seen.push(name.to_string());
        match name.as_ref() {
            "cursor" => {
                if value.is_empty() || char_len(&value) > MAX_CURSOR_LEN {
                    return Err(ApiError::invalid("cursor must be 1 to 100 characters"));
                }
                q.cursor = Some(value.into_owned());
            }
            "limit" => {
                let limit: usize = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_LIMIT).contains(n) && !value.starts_with('+'))
                    .ok_or_else(|| ApiError::invalid("limit must be an integer from 1 to 100"))?;
                q.limit = limit;
            }
            "country" if allow_filters => {
                if !is_country_code(&value) {
                    return Err(ApiError::invalid("country must match ^[A-Z]{2}$"));
                }
                q.country = Some(value.into_owned());
            }
            "region" if allow_filters => {
                if !(1..=80).contains(&char_len(&value)) {
                    return Err(ApiError::invalid("region must be 1 to 80 characters"));
                }
                q.region = Some(value.into_owned());
            }
            other => {
                return Err(ApiError::invalid(format!(
                    "unknown query parameter {other}"
                )));
            }
        }
    }
    Ok(q)
}

/// Endpoints without query parameters refuse any.
pub fn no_query(req: &HttpRequest) -> Result<(), ApiError> {
    if req.query_string().is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid("this endpoint takes no query parameters"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plan_id_pattern() {
        for ok in ["p1-base", "p10-7", "p123-15", "p9-100"] {
            assert!(is_plan_id(ok), "{ok}");
        }
        for bad in [
            "", "p0-base", "p1-0", "p01-base", "P1-base", "p1-", "p-base", "p1-base ", "p1-7-7",
            "p1_base", "p1-Base", "p1-07", "x1-base",
        ] {
            assert!(!is_plan_id(bad), "{bad}");
        }
    }

    #[test]
    fn idempotency_key_pattern() {
        assert!(is_idempotency_key("abcd-123"));
        assert!(is_idempotency_key("A.b_c:d-0"));
        assert!(!is_idempotency_key("short"));
        assert!(!is_idempotency_key("has space here"));
        assert!(!is_idempotency_key("slash/not/ok"));
        assert!(!is_idempotency_key(&"a".repeat(129)));
        assert!(is_idempotency_key(&"a".repeat(128)));
    }

    #[test]
    fn email_check() {
        assert!(is_email("ana@example.com"));
        assert!(!is_email("ana@example"));
        assert!(!is_email("ana example@x.com"));
        assert!(!is_email("@x.com"));
        assert!(!is_email("a@b@c.com"));
    }

    proptest! {
        #[test]
        fn generated_plan_ids_always_match(family in 1u64..1_000_000, days in 1u64..1000) {
            let base = format!("p{family}-base");
            let variant = format!("p{family}-{days}");
            prop_assert!(is_plan_id(&base));
            prop_assert!(is_plan_id(&variant));
        }

        #[test]
        fn keys_outside_the_alphabet_are_refused(key in "[A-Za-z0-9._:-]{8,20}[ /@#]") {
            prop_assert!(!is_idempotency_key(&key));
        }
    }
}
