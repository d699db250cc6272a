//! Which part of the catalog an owner named in a console form: a country by code or name, a
//! region by slug or name, a plan by id. The pricing rules and the promotion codes scope
//! themselves with it; the console lists plans in [`natural_order`].

use super::Snapshot;

/// The country an owner typed: its code in any case ("jp") or its name ("Japan"), among the
/// countries that have local plans.
pub fn country_named(snap: &Snapshot, typed: &str) -> Option<String> {
    let code = typed.to_ascii_uppercase();
    snap.plans()
        .iter()
        .find(|p| p.country_code == code || p.country_name.eq_ignore_ascii_case(typed))
        .map(|p| p.country_code.clone())
}

/// The region an owner typed: its slug or its name, in any case.
pub fn region_named(snap: &Snapshot, typed: &str) -> Option<String> {
    snap.regions()
        .iter()
        .find(|r| r.slug.eq_ignore_ascii_case(typed) || r.name.eq_ignore_ascii_case(typed))
        .map(|r| r.slug.clone())
}

/// A part of the catalog an owner named in a scope form.
pub enum Named {
    Region(String),
    Country(String),
    Plan(String),
}

/// The part of the catalog a scope form's kind and value name: `None` for the kind
/// `everything` (which names no part), the owner's mistake in words otherwise (`choose` when
/// the kind is none of them).
pub fn named_scope(
    snap: &Snapshot,
    kind: &str,
    value: &str,
    everything: &str,
    choose: &str,
) -> Result<Option<Named>, String> {
    let value = value.trim();
    match kind {
        _ if kind == everything => Ok(None),
        "region" if let Some(slug) = region_named(snap, value) => Ok(Some(Named::Region(slug))),
        "country" if let Some(code) = country_named(snap, value) => Ok(Some(Named::Country(code))),
        "plan" if snap.plan(value).is_some() => Ok(Some(Named::Plan(value.to_string()))),
        "region" | "country" | "plan" => {
            Err(format!("There is no {kind} {value:?} in the catalog."))
        }
        _ => Err(choose.to_string()),
    }
}

/// What the "applies to" field suggests as the owner types: every country with local plans and
/// every region, by code or slug, with its name.
pub fn scope_suggestions(snap: &Snapshot) -> Vec<(String, String)> {
    let mut countries: Vec<(String, String)> = snap
        .plans()
        .iter()
        .map(|p| (p.country_code.clone(), p.country_name.clone()))
        .collect();
    countries.sort();
    countries.dedup();
    countries.extend(
        snap.regions()
            .iter()
            .map(|r| (r.slug.clone(), format!("{} (region)", r.name))),
    );
    countries
}

/// Plan ids as a person counts them: `p2` before `p10`, digits compared as numbers.
pub fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for ((digits_a, x), (digits_b, y)) in ca.iter().zip(cb.iter()) {
        let order = if *digits_a && *digits_b {
            let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
            x.len().cmp(&y.len()).then_with(|| x.cmp(y))
        } else {
            x.cmp(y)
        };
        if order.is_ne() {
            return order;
        }
    }
    ca.len().cmp(&cb.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::natural_order;

    #[test]
    fn plan_ids_sort_as_numbers() {
        let mut ids = vec![
            "p10-base", "p2-base", "p1-30", "p1-7", "p11-base", "p1-base",
        ];
        ids.sort_by(|a, b| natural_order(a, b));
        assert_eq!(
            ids,
            [
                "p1-7", "p1-30", "p1-base", "p2-base", "p10-base", "p11-base"
            ]
        );
    }
}
