//! How search engines see the shop's pages: one canonical address per page and language, the
//! page's other languages as `hreflang` alternates, and the redirects that fold variants of an
//! address (case, a trailing slash) into the one address.
//!
//! Languages are distinct addresses by `?lang=xx`, not a path prefix: the language switcher's
//! links already are `?lang=xx` (crawlers reach every language by links), a language added
//! later needs no new routes, and the bare address stays what it has always been — the page in
//! the visitor's negotiated language, which is exactly what `x-default` means. So a page at
//! `/countries/JP`:
//! - asked as `/countries/JP?lang=de` is German, canonical `…/countries/JP?lang=de`;
//! - asked bare it is in the visitor's language, canonical `…/countries/JP` (the `x-default`);
//! - names `?lang=en`, `?lang=es`, `?lang=de` and the bare address as its alternates.
//!
//! Other query parameters (a sort, `?from=` of a plan page) never enter a canonical address.
//! The sitemap ([`super::sitemap`]) lists the same addresses through [`Addresses`].

use std::sync::Arc;

use crate::catalog::{ShopPlan, Snapshot};
use crate::i18n::Lang;

/// Where a request is: what its page's head and links name.
#[derive(Debug, Clone)]
pub struct Here {
    /// The shop's public origin, `https://shop.example` (no trailing slash).
    pub origin: Arc<str>,
    /// The path as asked, percent-encoded as on the wire.
    pub path: String,
    /// A GET (or HEAD): the page can be asked for again by a link.
    pub same_page: bool,
    /// The address names the language (`?lang=`).
    pub lang_in_url: bool,
    /// The catalog the page shows, for its share card (`None` outside the app).
    pub catalog: Option<Arc<Snapshot>>,
}

tokio::task_local! {
    static HERE: Here;
}

/// Runs `fut` (one request) knowing where it is.
pub async fn scope<F: Future>(here: Here, fut: F) -> F::Output {
    HERE.scope(here, fut).await
}

/// Where the current request is; `None` outside one (a test rendering a template).
pub fn here() -> Option<Here> {
    HERE.try_with(Clone::clone).ok()
}

/// Whether the page being rendered can be asked for again by a link (true outside a request).
pub fn same_page() -> bool {
    HERE.try_with(|h| h.same_page).unwrap_or(true)
}

/// A page's addresses in every language.
#[derive(Debug, Clone, Copy)]
pub struct Addresses<'a> {
    origin: &'a str,
    path: &'a str,
}

impl<'a> Addresses<'a> {
    pub fn new(origin: &'a str, path: &'a str) -> Self {
        Self { origin, path }
    }

    /// The page in `lang`: `…/countries/JP?lang=de`.
    pub fn in_lang(self, lang: Lang) -> String {
        format!("{}{}?lang={}", self.origin, self.path, lang.code())
    }

    /// The page in the visitor's language: `…/countries/JP`.
    pub fn x_default(self) -> String {
        format!("{}{}", self.origin, self.path)
    }

    /// Every alternate as (`hreflang`, address): each language, then `x-default`.
    pub fn alternates(self) -> Vec<(&'static str, String)> {
        let mut all: Vec<(&'static str, String)> = Lang::ALL
            .into_iter()
            .map(|lang| (lang.code(), self.in_lang(lang)))
            .collect();
        all.push(("x-default", self.x_default()));
        all
    }
}

/// Whether a search engine should index the page at `path`: the pages on sale, the help pages
/// and the policy pages. Orders, checkout answers, search results and the console are not.
pub fn indexable(path: &str) -> bool {
    matches!(
        path,
        "/" | "/countries" | "/regions" | crate::catalog::choice::GLOBAL_HREF
    ) || ["/countries/", "/regions/", "/help/"]
        .iter()
        .any(|prefix| path.starts_with(prefix))
        || path.starts_with("/plans/") && path != "/plans/choose"
        || crate::shop::legal::Document::ALL
            .iter()
            .any(|d| d.href() == path)
}

/// What a page's `<head>` says to search engines and to link previews (Open Graph, Twitter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The page's one address; also its `og:url`.
    pub canonical: String,
    /// (`hreflang`, address), each language and `x-default`.
    pub alternates: Vec<(&'static str, String)>,
    /// The page's share card ([`super::share_card`]), absolute: `og:image`.
    pub image: Option<String>,
    /// `og:locale` of the page's language, and `og:locale:alternate` of the others.
    pub locale: &'static str,
    pub locale_alternates: Vec<&'static str>,
}

/// The head of the page being rendered: `None` unless it is an indexable page got with GET
/// (the answer to a form has no address of its own).
pub fn head() -> Option<Head> {
    let here = here()?;
    if !here.same_page || !indexable(&here.path) {
        return None;
    }
    let lang = crate::i18n::current();
    let addresses = Addresses::new(&here.origin, &here.path);
    let image = here.catalog.as_ref().map(|snap| {
        let subject = super::share_card::Subject::of_page(&here.path);
        let shop = crate::web::pages::identity();
        format!(
            "{}{}",
            here.origin,
            super::share_card::href(&subject, snap, &shop, lang)
        )
    });
    Some(Head {
        canonical: if here.lang_in_url {
            addresses.in_lang(lang)
        } else {
            addresses.x_default()
        },
        alternates: addresses.alternates(),
        image,
        locale: og_locale(lang),
        locale_alternates: Lang::ALL
            .into_iter()
            .filter(|other| *other != lang)
            .map(og_locale)
            .collect(),
    })
}

/// A language as Open Graph names a locale (`language_TERRITORY`).
pub fn og_locale(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en_US",
        Lang::Es => "es_ES",
        Lang::De => "de_DE",
    }
}

/// The part of a page-cache key that keeps a page asked with `?lang=` apart from the same page
/// in a negotiated language: their canonical addresses differ.
pub fn cache_variant() -> &'static str {
    if HERE.try_with(|h| h.lang_in_url).unwrap_or(false) {
        "&lang-in-url"
    } else {
        ""
    }
}

/// Where a GET for `path` that no route answered belongs, if it is a variant of an address:
/// the same path without its trailing slash(es).
pub fn folded(path: &str) -> Option<&str> {
    let trimmed = path.trim_end_matches('/');
    (trimmed.len() < path.len() && !trimmed.is_empty()).then_some(trimmed)
}

// ---- structured data (schema.org, as JSON-LD) ----------------------------------------------

/// A page's structured data as the `<script type="application/ld+json">` element that carries
/// it. Such a script is a data block: browsers never execute it, so the CSP's `script-src`
/// (no `unsafe-inline`) does not apply to it. `<`, `>` and `&` are written as JSON escapes, so
/// no text of the catalog or the owner can close the element.
pub fn json_ld(items: &[serde_json::Value]) -> String {
    let graph = serde_json::json!({
        "@context": "https://schema.org",
        "@graph": items,
    });
    let text = graph
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    format!("<script type=\"application/ld+json\">{text}</script>")
}

fn origin() -> String {
    HERE.try_with(|h| h.origin.to_string()).unwrap_or_default()
}

/// `BreadcrumbList` of `crumbs` (label, same-site path), the page itself last.
pub fn breadcrumbs(crumbs: &[(&str, &str)]) -> serde_json::Value {
    let origin = origin();
    let items: Vec<serde_json::Value> = crumbs
        .iter()
        .enumerate()
        .map(|(i, (name, path))| {
            serde_json::json!({
                "@type": "ListItem",
                "position": i + 1,
                "name": name,
                "item": format!("{origin}{path}"),
            })
        })
        .collect();
    serde_json::json!({ "@type": "BreadcrumbList", "itemListElement": items })
}

/// `ItemList` of the plans a listing offers, each by its page.
pub fn plan_list(name: &str, plans: &[&ShopPlan], lang: Lang) -> serde_json::Value {
    let origin = origin();
    let items: Vec<serde_json::Value> = plans
        .iter()
        .enumerate()
        .map(|(i, plan)| {
            let labels = plan.labels_in(lang);
            serde_json::json!({
                "@type": "ListItem",
                "position": i + 1,
                "name": plan.title(lang),
                "url": format!("{origin}{}", labels.href),
            })
        })
        .collect();
    serde_json::json!({
        "@type": "ItemList",
        "name": name,
        "numberOfItems": items.len(),
        "itemListElement": items,
    })
}

/// `Product` with its `Offer` for a plan's page: the price charged (USD), whether it can be
/// bought now, and the shop as the seller.
pub fn plan_product(plan: &ShopPlan, lang: Lang, on_sale: bool) -> serde_json::Value {
    let origin = origin();
    let shop = crate::web::pages::identity();
    let url = format!("{origin}{}", plan.labels_in(lang).href);
    let mut product = serde_json::json!({
        "@type": "Product",
        "name": plan.title(lang),
        "description": description(plan, lang),
        "sku": plan.id,
        "category": "eSIM",
        "brand": { "@type": "Brand", "name": shop.name.as_str() },
        "url": url,
    });
    // A plan not on sale has no offer (and names no price anywhere on its page).
    if let Some(price) = plan.price.filter(|_| plan.is_sellable()) {
        product["offers"] = serde_json::json!({
            "@type": "Offer",
            "url": url,
            "price": price.plain(),
            "priceCurrency": "USD",
            "availability": if on_sale {
                "https://schema.org/InStock"
            } else {
                "https://schema.org/OutOfStock"
            },
            "seller": { "@type": "Organization", "name": shop.name.as_str() },
        });
    }
    product
}

/// The shop as an `Organization` (its identity from the console), with the `WebSite` and its
/// search.
pub fn shop_organization() -> Vec<serde_json::Value> {
    let origin = origin();
    let shop = crate::web::pages::identity();
    let mut org = serde_json::json!({
        "@type": "Organization",
        "@id": format!("{origin}/#shop"),
        "name": shop.name.as_str(),
        "url": format!("{origin}/"),
    });
    if !shop.legal_name.is_empty() {
        org["legalName"] = shop.legal_name.clone().into();
    }
    if let Some(logo) = shop.logo_href() {
        org["logo"] = format!("{origin}{logo}").into();
    }
    if let Some(email) = &shop.support_email {
        org["email"] = email.as_str().into();
    }
    if !shop.support_phone.is_empty() {
        org["telephone"] = shop.support_phone.clone().into();
    }
    if !shop.address.is_empty() {
        org["address"] = shop.address_line().into();
    }
    if !shop.registration.is_empty() {
        org["vatID"] = shop.registration.clone().into();
    }
    let site = serde_json::json!({
        "@type": "WebSite",
        "name": shop.name.as_str(),
        "url": format!("{origin}/"),
        "publisher": { "@id": format!("{origin}/#shop") },
        "potentialAction": {
            "@type": "SearchAction",
            "target": format!("{origin}/search?q={{query}}"),
            "query-input": "required name=query",
        },
    });
    vec![org, site]
}

/// A plan page's title in search results: "Japan eSIM — 3 GB a day for 7 days, $12.99".
pub fn plan_search_title(plan: &ShopPlan, lang: Lang) -> String {
    let labels = plan.labels_in(lang);
    if !plan.is_sellable() || labels.price.is_empty() {
        return plan.title(lang);
    }
    lang.ta(
        "plan-search-title",
        &[
            ("name", labels.name.clone().into()),
            ("allowance", plan.allowance(lang).into()),
            ("price", labels.price.clone().into()),
        ],
    )
}

/// What the head of a listing (a country's, a region's, the global plans') says: its
/// description, and its plans as an `ItemList` with the breadcrumb.
pub struct ListingHead {
    pub description: String,
    pub structured: String,
}

impl ListingHead {
    /// The head of the listing `name` at the end of `crumbs`, offering `plans`.
    pub fn new(name: &str, crumbs: &[(&str, &str)], plans: &[&ShopPlan]) -> Self {
        let lang = crate::i18n::current();
        Self {
            description: listing_description(name, plans, lang),
            structured: json_ld(&[plan_list(name, plans, lang), breadcrumbs(crumbs)]),
        }
    }
}

/// What a listing says in search results: how many plans, from what price.
pub fn listing_description(name: &str, plans: &[&ShopPlan], lang: Lang) -> String {
    let from = plans
        .iter()
        .filter(|p| p.is_sellable())
        .filter_map(|p| p.price)
        .min();
    match from {
        Some(price) => lang.ta(
            "listing-description",
            &[
                ("name", name.to_string().into()),
                ("count", plans.len().into()),
                ("price", lang.money(price).into()),
            ],
        ),
        None => lang.t("meta-description"),
    }
}

/// What a plan's page says in search results: the destination, the allowance and the price.
pub fn description(plan: &ShopPlan, lang: Lang) -> String {
    let labels = plan.labels_in(lang);
    if !plan.is_sellable() {
        return plan.title(lang);
    }
    lang.ta(
        "plan-description",
        &[
            ("name", labels.name.clone().into()),
            ("allowance", plan.allowance(lang).into()),
            ("price", labels.price.clone().into()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_and_the_bare_address_are_alternates() {
        let a = Addresses::new("https://shop.example", "/countries/JP");
        assert_eq!(
            a.in_lang(Lang::De),
            "https://shop.example/countries/JP?lang=de"
        );
        assert_eq!(
            a.alternates().last(),
            Some(&("x-default", "https://shop.example/countries/JP".to_string()))
        );
        assert_eq!(a.alternates().len(), Lang::ALL.len() + 1);
    }

    #[test]
    fn only_pages_on_sale_and_help_are_indexable() {
        for path in [
            "/",
            "/countries/JP",
            "/regions/europe",
            "/plans/p1",
            "/help/refunds",
        ] {
            assert!(indexable(path), "{path}");
        }
        for path in [
            "/orders/x",
            "/plans/choose",
            "/search",
            "/admin",
            "/lost-link",
            "/checkout",
        ] {
            assert!(!indexable(path), "{path}");
        }
    }

    #[test]
    fn a_trailing_slash_folds_into_the_address_without_it() {
        assert_eq!(folded("/countries/JP/"), Some("/countries/JP"));
        assert_eq!(folded("/regions//"), Some("/regions"));
        assert_eq!(folded("/"), None);
        assert_eq!(folded("/countries"), None);
    }
}
