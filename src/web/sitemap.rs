//! `/sitemap.xml`: every page on sale, and the help and policy pages, in every shop language,
//! for search engines.
//!
//! A page exists once per language: `?lang=xx` in the address (the language switcher's links,
//! so crawlers can reach every language by links too), and the bare address as `x-default`,
//! answered in the visitor's negotiated language. Each entry names its alternates with
//! `hreflang`, so a search engine shows the German page to German searchers.
//!
//! `/sitemap.xml` is an index of the parts `/sitemaps/{lang}-{n}.xml`, one language each and at
//! most [`MAX_URLS`] addresses each (the protocol's limit), so a catalog of any size fits. Both
//! are built from the current catalog snapshot (`lastmod` is its last good sync) and kept in
//! the page cache until the snapshot changes. `/robots.txt` names the index.

use std::fmt::Write as _;

use actix_web::{HttpRequest, HttpResponse, web};

use crate::catalog::Snapshot;
use crate::catalog::snapshot::path_segment;
use crate::domain::html::escape;
use crate::i18n::Lang;
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::seo::Addresses;

/// Addresses per sitemap file at most (the sitemaps protocol allows 50,000).
pub const MAX_URLS: usize = 50_000;

/// The help pages, always on the shop.
const HELP: [&str; 3] = ["/help/compatibility", "/help/installation", "/help/refunds"];

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/sitemap.xml", web::get().to(index))
        .route("/sitemaps/{name}", web::get().to(part));
}

/// The paths of every page on sale, without a language: home, the lists, each country and
/// region with something on sale, each sellable plan and the help pages.
pub fn paths(snap: &Snapshot) -> Vec<String> {
    let mut paths: Vec<String> = ["/", "/countries", "/regions"]
        .into_iter()
        .map(str::to_string)
        .collect();
    paths.extend(
        snap.destinations()
            .iter()
            .map(|d| format!("/countries/{}", path_segment(&d.code))),
    );
    paths.extend(
        snap.listed_regions()
            .map(|r| format!("/regions/{}", path_segment(&r.slug))),
    );
    paths.extend(
        snap.plans()
            .iter()
            .filter(|p| p.is_sellable())
            .map(|p| format!("/plans/{}", path_segment(&p.id))),
    );
    paths.extend(HELP.iter().map(|p| (*p).to_string()));
    paths.extend(crate::shop::legal::Document::ALL.map(|d| d.href()));
    paths
}

/// `https://shop.example` without a trailing slash.
pub fn origin(state: &AppState) -> String {
    state
        .settings
        .public_url
        .as_str()
        .trim_end_matches('/')
        .to_string()
}

/// The day of the snapshot's last good sync (`YYYY-MM-DD`), if there was one.
fn lastmod(snap: &Snapshot) -> Option<String> {
    let ms = snap.last_good_sync.as_ref()?.finished_at_ms;
    crate::domain::clock::utc(ms).map(|t| t.date().to_string())
}

/// How many pages [`paths`] lists, counted without building them.
fn page_count(snap: &Snapshot) -> usize {
    3 + snap.destinations().len()
        + snap.listed_regions().count()
        + snap.plans().iter().filter(|p| p.is_sellable()).count()
        + HELP.len()
        + crate::shop::legal::Document::ALL.len()
}

/// How many parts each language's pages fill.
fn parts(pages: usize) -> usize {
    pages.div_ceil(MAX_URLS).max(1)
}

fn render_index(origin: &str, snap: &Snapshot) -> String {
    let count = parts(page_count(snap));
    let lastmod = lastmod(snap);
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for lang in Lang::ALL {
        for n in 1..=count {
            let _ = write!(
                xml,
                "<sitemap><loc>{}</loc>",
                escape(&format!("{origin}/sitemaps/{}-{n}.xml", lang.code()))
            );
            if let Some(day) = &lastmod {
                let _ = write!(xml, "<lastmod>{day}</lastmod>");
            }
            xml.push_str("</sitemap>\n");
        }
    }
    xml.push_str("</sitemapindex>\n");
    xml
}

/// Part `n` (from 1) of `lang`'s pages; `None` past the last part.
fn render_part(origin: &str, snap: &Snapshot, lang: Lang, n: usize) -> Option<String> {
    let paths = paths(snap);
    debug_assert_eq!(
        paths.len(),
        page_count(snap),
        "page_count counts what paths lists"
    );
    if n == 0 || n > parts(paths.len()) {
        return None;
    }
    let lastmod = lastmod(snap);
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
         xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n",
    );
    for path in paths.iter().skip((n - 1) * MAX_URLS).take(MAX_URLS) {
        let addresses = Addresses::new(origin, path);
        let _ = write!(xml, "<url><loc>{}</loc>", escape(&addresses.in_lang(lang)));
        if let Some(day) = &lastmod {
            let _ = write!(xml, "<lastmod>{day}</lastmod>");
        }
        for (hreflang, href) in addresses.alternates() {
            let _ = write!(
                xml,
                "<xhtml:link rel=\"alternate\" hreflang=\"{hreflang}\" href=\"{}\"/>",
                escape(&href)
            );
        }
        xml.push_str("</url>\n");
    }
    xml.push_str("</urlset>\n");
    Some(xml)
}

/// `de-2.xml` → (German, 2).
fn parse_part(name: &str) -> Option<(Lang, usize)> {
    let (code, n) = name.strip_suffix(".xml")?.split_once('-')?;
    let lang = Lang::ALL.into_iter().find(|l| l.code() == code)?;
    let n = n
        .parse()
        .ok()
        .filter(|n: &usize| n.to_string().len() <= 6)?;
    Some((lang, n))
}

const XML: &str = "application/xml; charset=utf-8";

pub async fn index(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, AppError> {
    let snap = state.catalog.snapshot();
    let origin = origin(&state);
    let page = state
        .pages
        .get_or_render_as(snap.generation(), "xml", "sitemap", XML, || {
            Ok::<_, AppError>(render_index(&origin, &snap))
        })?;
    Ok(page.respond(&req))
}

pub async fn part(
    state: web::Data<AppState>,
    req: HttpRequest,
    name: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let (lang, n) = parse_part(&name).ok_or(AppError::NotFound)?;
    let snap = state.catalog.snapshot();
    // Only parts that exist reach the cache, so its keys are bounded by the catalog.
    if n > parts(page_count(&snap)) {
        return Err(AppError::NotFound);
    }
    let origin = origin(&state);
    let key = format!("sitemap-{}-{n}", lang.code());
    let page = state
        .pages
        .get_or_render_as(snap.generation(), "xml", &key, XML, || {
            render_part(&origin, &snap, lang, n).ok_or(AppError::NotFound)
        })?;
    Ok(page.respond(&req))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names_are_a_language_and_a_number() {
        assert_eq!(parse_part("de-2.xml"), Some((Lang::De, 2)));
        assert_eq!(parse_part("en-1.xml"), Some((Lang::En, 1)));
        assert_eq!(parse_part("fr-1.xml"), None);
        assert_eq!(parse_part("en-1"), None);
        assert_eq!(parse_part("en-x.xml"), None);
        assert_eq!(parse_part("en-99999999999.xml"), None);
    }

    #[test]
    fn a_language_fills_as_many_parts_as_its_pages_need() {
        assert_eq!(parts(0), 1);
        assert_eq!(parts(MAX_URLS), 1);
        assert_eq!(parts(MAX_URLS + 1), 2);
    }
}
