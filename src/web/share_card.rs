//! Share cards: the picture a link preview shows (Open Graph's `og:image`, Twitter's
//! `summary_large_image`) for each page on sale, drawn by the shop itself.
//!
//! A card is an SVG written here — the shop's name in its accent colour, the destination named
//! in the page's language and, for a plan, its allowance and price — rendered to a 1200×630 PNG
//! by `resvg` with the one font compiled into the binary (`assets/fonts/Inter-Bold.otf`, SIL
//! OFL 1.1): no system font is read and nothing is fetched.
//!
//! Each card's address names a hash of its SVG (`/share/en/3f9c…/plan-p1.png`), so any change
//! that shows on the card (a new price, a renamed region, a new accent colour) gives a new
//! address, the same on every replica and after a restart; the image at an address never
//! changes and is served with a year's cache lifetime. An address whose hash is no longer
//! current redirects to the current one. Rendered PNGs are kept in memory, at most
//! [`CACHED_CARDS`] of them (least recently used leaves first), and are only rendered for
//! cards that exist, so a crawler walking every plan in every language costs CPU, never
//! unbounded memory. Rendering runs on the blocking pool, off the async workers.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use actix_web::web::Bytes;
use actix_web::{HttpResponse, web};
use resvg::{tiny_skia, usvg};
use sha2::{Digest, Sha256};

use crate::catalog::Snapshot;
use crate::catalog::snapshot::path_segment;
use crate::domain::html::escape;
use crate::i18n::Lang;
use crate::shop::Identity;
use crate::web::AppState;
use crate::web::error::AppError;

/// The card's size: what Open Graph and Twitter's large card expect (1.91:1).
pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 630;

/// Rendered cards kept in memory at most (a card is some 20–60 KB).
pub const CACHED_CARDS: usize = 512;

/// A year: the image at an address never changes.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The card's font, compiled in: Inter Bold (SIL Open Font License 1.1, `assets/fonts/`).
const FONT: &[u8] = include_bytes!("../../assets/fonts/Inter-Bold.otf");
const FONT_FAMILY: &str = "Inter";

/// Which page a card is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// The shop itself: home, the lists, help and policy pages.
    Shop,
    /// A country (ISO code, upper case).
    Country(String),
    /// A region (its slug).
    Region(String),
    /// A plan (its id).
    Plan(String),
}

impl Subject {
    /// The card of the page at `path` (as on the wire, percent-encoded).
    pub fn of_page(path: &str) -> Self {
        let decoded = |rest: &str| {
            percent_encoding::percent_decode_str(rest)
                .decode_utf8()
                .ok()
                .map(|s| s.into_owned())
        };
        let one_segment = |prefix: &str| {
            path.strip_prefix(prefix)
                .filter(|rest| !rest.is_empty() && !rest.contains('/'))
                .and_then(decoded)
        };
        if let Some(code) = one_segment("/countries/") {
            Self::Country(code)
        } else if let Some(slug) = one_segment("/regions/") {
            Self::Region(slug)
        } else if let Some(id) = one_segment("/plans/") {
            Self::Plan(id)
        } else {
            Self::Shop
        }
    }

    /// The file name in the card's address: `shop.png`, `country-JP.png`, `plan-p%2F1.png`.
    fn file_name(&self) -> String {
        match self {
            Self::Shop => "shop.png".to_string(),
            Self::Country(code) => format!("country-{}.png", path_segment(code)),
            Self::Region(slug) => format!("region-{}.png", path_segment(slug)),
            Self::Plan(id) => format!("plan-{}.png", path_segment(id)),
        }
    }

    /// The subject named by a (decoded) file name.
    fn parse(file: &str) -> Option<Self> {
        let stem = file.strip_suffix(".png")?;
        if stem == "shop" {
            return Some(Self::Shop);
        }
        let (kind, key) = stem.split_once('-')?;
        if key.is_empty() {
            return None;
        }
        match kind {
            "country" => Some(Self::Country(key.to_string())),
            "region" => Some(Self::Region(key.to_string())),
            "plan" => Some(Self::Plan(key.to_string())),
            _ => None,
        }
    }
}

/// What a card shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// The shop's name, small, in the accent colour.
    pub shop: String,
    /// `#rrggbb`.
    pub accent: String,
    /// The big line: the destination or the shop's promise.
    pub title: String,
    /// Smaller lines under it (a plan's allowance).
    pub lines: Vec<String>,
    /// A price line in the accent colour (`$12.99`, `From $4.99`); empty for none.
    pub price: String,
}

impl Card {
    /// The card for `subject` in `lang`, from the catalog and the shop's identity; `None` when
    /// the catalog has no such country, region or sellable plan.
    pub fn of(subject: &Subject, snap: &Snapshot, shop: &Identity, lang: Lang) -> Option<Self> {
        let from = |price: Option<crate::domain::Cents>| {
            price
                .map(|p| lang.ta("share-card-from", &[("price", lang.money(p).into())]))
                .unwrap_or_default()
        };
        let (title, lines, price) = match subject {
            Subject::Shop => (
                shop.name.as_str().to_string(),
                vec![lang.t("home-title")],
                String::new(),
            ),
            Subject::Country(code) => {
                let d = snap.destination(code)?;
                let price = from(d.from_price.or(d.covering_from));
                (
                    lang.ta("esim-for", &[("name", d.name_in(lang).to_string().into())]),
                    Vec::new(),
                    price,
                )
            }
            Subject::Region(slug) => {
                let r = snap.region(slug).filter(|r| r.plans > 0)?;
                (
                    lang.ta("esim-for", &[("name", r.name_in(lang).to_string().into())]),
                    Vec::new(),
                    from(r.from_price),
                )
            }
            Subject::Plan(id) => {
                let plan = snap.plan(id).filter(|p| p.is_sellable())?;
                let labels = plan.labels_in(lang);
                let price = if labels.price_note.is_empty() {
                    labels.price.clone()
                } else {
                    format!("{} · {}", labels.price, labels.price_note)
                };
                (
                    lang.ta("esim-for", &[("name", labels.name.clone().into())]),
                    vec![plan.allowance(lang)],
                    price,
                )
            }
        };
        Some(Self {
            shop: shop.name.as_str().to_string(),
            accent: shop.accent.to_string(),
            title,
            lines,
            price,
        })
    }

    /// The card as an SVG document; every text is escaped, so no name can break it.
    pub fn svg(&self) -> String {
        let accent = escape(&self.accent);
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
             viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"{FONT_FAMILY}\" font-weight=\"700\">\
             <rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>\
             <rect width=\"{WIDTH}\" height=\"24\" fill=\"{accent}\"/>\
             <rect y=\"{}\" width=\"{WIDTH}\" height=\"12\" fill=\"{accent}\"/>",
            HEIGHT - 12
        );
        let mut text = |x: u32, y: u32, size: u32, fill: &str, content: &str| {
            svg.push_str(&format!(
                "<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\" fill=\"{fill}\">{}</text>",
                escape(&clean(content))
            ));
        };
        text(80, 130, fitted(&self.shop, 44), &accent, &self.shop);
        let title_size = fitted(&self.title, 88);
        text(80, 300, title_size, "#111827", &self.title);
        let mut y = 300 + 90;
        for line in &self.lines {
            text(80, y, fitted(line, 48), "#374151", line);
            y += 64;
        }
        if !self.price.is_empty() {
            text(80, 540, fitted(&self.price, 64), &accent, &self.price);
        }
        svg.push_str("</svg>");
        svg
    }

    /// A short hash of the card's SVG: what its address names.
    pub fn version(&self) -> String {
        hex::encode(&Sha256::digest(self.svg().as_bytes())[..6])
    }
}

/// `text` without control characters (which XML cannot carry) and cut to a length a card can
/// show.
fn clean(text: &str) -> String {
    const MAX_CHARS: usize = 70;
    let kept: String = text.chars().filter(|c| !c.is_control()).collect();
    if kept.chars().count() <= MAX_CHARS {
        kept
    } else {
        let mut cut: String = kept.chars().take(MAX_CHARS - 1).collect();
        cut.push('…');
        cut
    }
}

/// A font size (px) at most `max` at which `text` fits the card's 1040 px of width: Inter
/// Bold's characters average about 0.6 em.
fn fitted(text: &str, max: u32) -> u32 {
    let chars = clean(text).chars().count().max(1) as u32;
    (1040 * 10 / (6 * chars)).clamp(24, max)
}

/// The fonts every card is drawn with: the compiled-in one only.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static FONTS: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    Arc::clone(FONTS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        db.set_sans_serif_family(FONT_FAMILY);
        Arc::new(db)
    }))
}

/// Why a card could not be drawn (a fault of this module, never of the visitor).
#[derive(Debug, thiserror::Error)]
pub enum CardError {
    #[error("the card's SVG does not parse: {0}")]
    Svg(#[from] usvg::Error),
    #[error("the card's PNG could not be encoded: {0}")]
    Png(String),
}

/// Draws `svg` as a 1200×630 PNG.
pub fn render_png(svg: &str) -> Result<Vec<u8>, CardError> {
    let options = usvg::Options {
        font_family: FONT_FAMILY.to_string(),
        fontdb: fonts(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)?;
    let mut pixmap = tiny_skia::Pixmap::new(WIDTH, HEIGHT)
        .ok_or_else(|| CardError::Png("no pixmap of the card's size".to_string()))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| CardError::Png(e.to_string()))
}

/// The address of a page's card (`/share/de/3f9c…/country-JP.png`), same-site. A subject the
/// catalog does not have (a plan no longer on sale) gets the shop's card.
pub fn href(subject: &Subject, snap: &Snapshot, shop: &Identity, lang: Lang) -> String {
    let (subject, card) = match Card::of(subject, snap, shop, lang) {
        Some(card) => (subject.clone(), card),
        None => {
            let card = Card::of(&Subject::Shop, snap, shop, lang);
            match card {
                Some(card) => (Subject::Shop, card),
                None => return String::new(),
            }
        }
    };
    address(&subject, &card, lang)
}

fn address(subject: &Subject, card: &Card, lang: Lang) -> String {
    format!(
        "/share/{}/{}/{}",
        lang.code(),
        card.version(),
        subject.file_name()
    )
}

/// Rendered cards by address, least recently used evicted first.
#[derive(Debug, Default)]
pub struct ShareCards {
    inner: Mutex<Lru>,
}

#[derive(Debug, Default)]
struct Lru {
    tick: u64,
    entries: HashMap<String, (u64, Bytes)>,
    order: BTreeMap<u64, String>,
}

impl ShareCards {
    fn get(&self, key: &str) -> Option<Bytes> {
        let mut lru = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        lru.tick += 1;
        let tick = lru.tick;
        let (old, png) = {
            let entry = lru.entries.get_mut(key)?;
            let old = std::mem::replace(&mut entry.0, tick);
            (old, entry.1.clone())
        };
        lru.order.remove(&old);
        lru.order.insert(tick, key.to_string());
        Some(png)
    }

    fn put(&self, key: String, png: Bytes) {
        let mut lru = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        lru.tick += 1;
        let tick = lru.tick;
        if let Some((old, _)) = lru.entries.insert(key.clone(), (tick, png)) {
            lru.order.remove(&old);
        }
        lru.order.insert(tick, key);
        while lru.entries.len() > CACHED_CARDS {
            let Some((_, oldest)) = lru.order.pop_first() else {
                break;
            };
            lru.entries.remove(&oldest);
        }
    }

    /// How many cards are kept now.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entries
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/share/{lang}/{version}/{file}", web::get().to(card));
}

/// `GET /share/{lang}/{version}/{file}`: the card's PNG.
pub async fn card(
    state: web::Data<AppState>,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, AppError> {
    let (lang, version, file) = path.into_inner();
    let lang = Lang::ALL
        .into_iter()
        .find(|l| l.code() == lang)
        .ok_or(AppError::NotFound)?;
    let subject = Subject::parse(&file).ok_or(AppError::NotFound)?;
    let snap = state.catalog.snapshot();
    let shop = state.identity.current();
    let card = Card::of(&subject, &snap, &shop, lang).ok_or(AppError::NotFound)?;
    let current = address(&subject, &card, lang);
    if card.version() != version {
        // An address of an earlier card: the page now names this one.
        return Ok(HttpResponse::Found()
            .insert_header((LOCATION, current))
            .insert_header((CACHE_CONTROL, "public, max-age=60"))
            .finish());
    }
    let png = match state.share_cards.get(&current) {
        Some(png) => png,
        None => {
            let svg = card.svg();
            let png = web::block(move || render_png(&svg))
                .await
                .map_err(AppError::internal)?
                .map_err(AppError::internal)?;
            let png = Bytes::from(png);
            state.share_cards.put(current, png.clone());
            png
        }
    };
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "image/png"))
        .insert_header((CACHE_CONTROL, IMMUTABLE))
        .body(png))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_names_its_card() {
        assert_eq!(Subject::of_page("/"), Subject::Shop);
        assert_eq!(Subject::of_page("/help/refunds"), Subject::Shop);
        assert_eq!(
            Subject::of_page("/countries/JP"),
            Subject::Country("JP".into())
        );
        assert_eq!(
            Subject::of_page("/plans/p%2F1"),
            Subject::Plan("p/1".into())
        );
        assert_eq!(Subject::of_page("/countries/"), Subject::Shop);
        assert_eq!(
            Subject::parse("plan-p1.png"),
            Some(Subject::Plan("p1".into()))
        );
        assert_eq!(Subject::parse("shop.png"), Some(Subject::Shop));
        assert_eq!(Subject::parse("country-.png"), None);
        assert_eq!(Subject::parse("city-x.png"), None);
    }

    #[test]
    fn the_cache_keeps_the_most_recently_used_cards() {
        let cards = ShareCards::default();
        for i in 0..CACHED_CARDS + 10 {
            cards.put(format!("k{i}"), Bytes::from_static(b"png"));
            // The first card stays in use.
            assert!(cards.get("k0").is_some(), "k0 after {i}");
        }
        assert_eq!(cards.len(), CACHED_CARDS);
        assert!(cards.get("k1").is_none());
        assert!(cards.get(&format!("k{}", CACHED_CARDS + 9)).is_some());
    }

    #[test]
    fn long_and_odd_text_still_fits_and_parses() {
        let card = Card {
            shop: "A & B <Data>".into(),
            accent: "#0a7d5a".into(),
            title: "eSIM for ".to_string() + &"Very long name ".repeat(10),
            lines: vec!["3 GB\u{0} a day".into()],
            price: "$1.00".into(),
        };
        let svg = card.svg();
        assert!(svg.contains("A &#38; B &#60;Data&#62;"), "{svg}");
        assert!(!svg.contains('\u{0}'));
        assert!(usvg::Tree::from_str(&svg, &usvg::Options::default()).is_ok());
    }
}
