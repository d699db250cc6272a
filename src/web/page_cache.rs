//! Rendered catalog pages, kept per catalog snapshot.
//!
//! A catalog page (home, destinations, regions, a country, a region) depends only on the
//! snapshot and a few parsed list options, and is the same for every visitor. Rendering one
//! and compressing it costs far more than answering from memory, so the first request renders
//! it once, gzips it once, and later requests get the stored bytes until the snapshot changes
//! (a sync or a pricing change swaps the snapshot and empties the cache). Each page carries a
//! strong `ETag` (a hash of its bytes), so a browser revisiting gets `304 Not Modified`.
//!
//! The cache is bounded in bytes, per language: each language keeps at most its budget of
//! stored pages (HTML and gzip together), and past it the least recently used page of that
//! language makes room. So junk in one language never evicts another's pages, a page
//! requested often stays, and a catalog larger than the budget keeps its busy pages. Callers
//! normalise the options in a key first (`web::shop`: an unknown sort or duration is the
//! default one), so a query parameter with endless values names a handful of pages, not
//! endless ones. Hits and renders are counted for `/metrics`.
//!
//! The least-recently-used order is a tick per use: a map from key to entry (with its last
//! tick) and an ordered map from tick to key, both under one short lock, O(log n) a request.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use actix_web::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderValue,
    IF_NONE_MATCH, VARY,
};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};

/// Bytes of catalog pages (HTML and gzip) one language keeps at most: a few hundred country
/// pages in each of their sorts.
pub const CATALOG_BYTES_PER_LANGUAGE: usize = 16 * 1024 * 1024;
/// Bytes of plan pages one language keeps at most.
pub const PLAN_BYTES_PER_LANGUAGE: usize = 8 * 1024 * 1024;

/// Catalog pages hold nothing private: shared caches may keep them briefly.
const CACHE_CONTROL_VALUE: &str = "public, max-age=60";

/// One rendered page: its HTML, the same gzipped, and its entity tag.
#[derive(Debug)]
pub struct CachedPage {
    html: Bytes,
    gzip: Option<Bytes>,
    etag: HeaderValue,
    content_type: &'static str,
}

impl CachedPage {
    /// Renders the stored form of `html`: gzip (when it compresses at all) and the tag.
    pub fn new(html: String) -> Self {
        Self::with_type(html, "text/html; charset=utf-8")
    }

    /// [`Self::new`] for a document of another type (the sitemaps' XML).
    pub fn with_type(html: String, content_type: &'static str) -> Self {
        let digest = Sha256::digest(html.as_bytes());
        let etag = HeaderValue::from_str(&format!("\"{}\"", hex::encode(&digest[..12])))
            .unwrap_or_else(|_| HeaderValue::from_static("\"0\""));
        let gzip = gzip(html.as_bytes()).filter(|z| z.len() < html.len());
        Self {
            html: Bytes::from(html),
            gzip: gzip.map(Bytes::from),
            etag,
            content_type,
        }
    }

    /// The answer to `req`: 304 when its `If-None-Match` names this page, else the page,
    /// gzipped when the client accepts gzip.
    pub fn respond(&self, req: &HttpRequest) -> HttpResponse {
        let common = |status: StatusCode| {
            let mut builder = HttpResponse::build(status);
            builder
                .insert_header((ETAG, self.etag.clone()))
                .insert_header((CACHE_CONTROL, HeaderValue::from_static(CACHE_CONTROL_VALUE)))
                .insert_header((VARY, HeaderValue::from_static("Accept-Encoding")));
            builder
        };
        if if_none_match(req, &self.etag) {
            return common(StatusCode::NOT_MODIFIED).finish();
        }
        let mut builder = common(StatusCode::OK);
        builder.insert_header((CONTENT_TYPE, HeaderValue::from_static(self.content_type)));
        match &self.gzip {
            Some(gzip) if accepts_gzip(req) => builder
                // Set here, so the compression middleware leaves the body alone.
                .insert_header((CONTENT_ENCODING, HeaderValue::from_static("gzip")))
                .body(gzip.clone()),
            _ => builder.body(self.html.clone()),
        }
    }
}

impl Weigh for CachedPage {
    fn bytes(&self) -> usize {
        self.html.len() + self.gzip.as_ref().map_or(0, Bytes::len)
    }
}

fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 4),
        // Stored once and sent many times: worth the best compression.
        flate2::Compression::best(),
    );
    encoder.write_all(bytes).ok()?;
    encoder.finish().ok()
}

/// Whether `If-None-Match` lists `etag` (or is `*`). Weak tags compare weakly, as RFC 9110
/// asks for this header.
fn if_none_match(req: &HttpRequest, etag: &HeaderValue) -> bool {
    let Ok(ours) = etag.to_str() else {
        return false;
    };
    req.headers()
        .get_all(IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == ours)
}

/// Whether the request's `Accept-Encoding` allows gzip: listed (or `*`) with a non-zero
/// quality, and not refused by name.
pub fn accepts_gzip(req: &HttpRequest) -> bool {
    let mut gzip = None;
    let mut any = None;
    for item in req
        .headers()
        .get_all(ACCEPT_ENCODING)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
    {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let allowed = parts
            .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
            .all(|q| positive_quality(q.trim()));
        match name.as_str() {
            "gzip" | "x-gzip" => gzip = Some(allowed),
            "*" => any = Some(allowed),
            _ => {}
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// Whether a `q=` value (`0`, `0.5`, `1.000`…) is above zero; anything malformed is not.
fn positive_quality(q: &str) -> bool {
    !q.is_empty()
        && q.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && q.bytes().any(|b| (b'1'..=b'9').contains(&b))
}

/// What a stored page costs the cache, in bytes.
pub trait Weigh {
    fn bytes(&self) -> usize;
}

/// How a cache has been used since start (for `/metrics` and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Requests answered from a stored page.
    pub hits: u64,
    /// Pages rendered (a miss, or a page not kept).
    pub renders: u64,
    /// Pages kept now, all languages.
    pub pages: usize,
    /// Their bytes, all languages.
    pub bytes: usize,
}

/// The pages of the current snapshot, by language and key.
#[derive(Debug)]
pub struct PageCache {
    pages: Generations<CachedPage>,
}

impl Default for PageCache {
    fn default() -> Self {
        Self::with_budget(CATALOG_BYTES_PER_LANGUAGE)
    }
}

impl PageCache {
    /// A cache keeping at most `bytes_per_language` of pages in each language.
    pub fn with_budget(bytes_per_language: usize) -> Self {
        Self {
            pages: Generations::new(bytes_per_language),
        }
    }

    /// The page `key` in `language` of snapshot `generation`: from the cache, or rendered by
    /// `render` (and kept, evicting that language's least recently used pages if need be).
    pub fn get_or_render<E>(
        &self,
        generation: u64,
        language: &str,
        key: &str,
        render: impl FnOnce() -> Result<String, E>,
    ) -> Result<Arc<CachedPage>, E> {
        self.pages
            .get_or_make(generation, language, key, || render().map(CachedPage::new))
    }

    /// [`Self::get_or_render`] for a document of type `content_type`.
    pub fn get_or_render_as<E>(
        &self,
        generation: u64,
        language: &str,
        key: &str,
        content_type: &'static str,
        render: impl FnOnce() -> Result<String, E>,
    ) -> Result<Arc<CachedPage>, E> {
        self.pages.get_or_make(generation, language, key, || {
            render().map(|body| CachedPage::with_type(body, content_type))
        })
    }

    /// How many pages are kept now (for tests and metrics).
    pub fn len(&self) -> usize {
        self.pages.stats().pages
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn stats(&self) -> CacheStats {
        self.pages.stats()
    }
}

/// Values of one snapshot generation, by language and key, each language within its budget.
#[derive(Debug)]
struct Generations<P> {
    pages: Mutex<Pages<P>>,
    budget: usize,
    hits: AtomicU64,
    renders: AtomicU64,
}

#[derive(Debug)]
struct Pages<P> {
    generation: u64,
    /// Counts uses: the later a page's tick, the more recently it was used.
    tick: u64,
    languages: HashMap<String, Lru<P>>,
}

/// One language's pages in least-recently-used order.
#[derive(Debug)]
struct Lru<P> {
    by_key: HashMap<String, Entry<P>>,
    by_tick: BTreeMap<u64, String>,
    bytes: usize,
}

#[derive(Debug)]
struct Entry<P> {
    page: Arc<P>,
    bytes: usize,
    tick: u64,
}

impl<P> Default for Lru<P> {
    fn default() -> Self {
        Self {
            by_key: HashMap::new(),
            by_tick: BTreeMap::new(),
            bytes: 0,
        }
    }
}

impl<P> Lru<P> {
    fn touch(&mut self, key: &str, tick: u64) -> Option<Arc<P>> {
        let entry = self.by_key.get_mut(key)?;
        self.by_tick.remove(&entry.tick);
        entry.tick = tick;
        self.by_tick.insert(tick, key.to_string());
        Some(Arc::clone(&entry.page))
    }

    /// Keeps `page` under `key` unless it alone is over `budget`, then evicts the least
    /// recently used pages until the language is within it.
    fn insert(&mut self, key: &str, page: Arc<P>, bytes: usize, tick: u64, budget: usize) {
        if bytes > budget || self.by_key.contains_key(key) {
            return;
        }
        self.by_key
            .insert(key.to_string(), Entry { page, bytes, tick });
        self.by_tick.insert(tick, key.to_string());
        self.bytes += bytes;
        while self.bytes > budget {
            let Some((_, oldest)) = self.by_tick.pop_first() else {
                break;
            };
            if let Some(gone) = self.by_key.remove(&oldest) {
                self.bytes -= gone.bytes;
            }
        }
    }
}

impl<P: Weigh> Generations<P> {
    fn new(budget: usize) -> Self {
        Self {
            pages: Mutex::new(Pages {
                generation: 0,
                tick: 0,
                languages: HashMap::new(),
            }),
            budget,
            hits: AtomicU64::new(0),
            renders: AtomicU64::new(0),
        }
    }

    fn get_or_make<E>(
        &self,
        generation: u64,
        language: &str,
        key: &str,
        make: impl FnOnce() -> Result<P, E>,
    ) -> Result<Arc<P>, E> {
        if let Some(page) = self.lookup(generation, language, key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(page);
        }
        // Made outside the lock: two first requests may both make it; one copy is kept.
        self.renders.fetch_add(1, Ordering::Relaxed);
        let page = Arc::new(make()?);
        let bytes = page.bytes() + key.len();
        let mut pages = self.lock();
        if pages.generation == generation {
            pages.tick += 1;
            let tick = pages.tick;
            pages
                .languages
                .entry(language.to_string())
                .or_default()
                .insert(key, Arc::clone(&page), bytes, tick, self.budget);
        }
        Ok(page)
    }

    fn lookup(&self, generation: u64, language: &str, key: &str) -> Option<Arc<P>> {
        let mut pages = self.lock();
        if pages.generation != generation {
            // Another snapshot: its pages are stale (a later generation is never replaced
            // by an earlier one still finishing a request).
            if pages.generation > generation {
                return None;
            }
            pages.generation = generation;
            pages.languages.clear();
        }
        pages.tick += 1;
        let tick = pages.tick;
        pages.languages.get_mut(language)?.touch(key, tick)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pages<P>> {
        // A panic while holding the lock leaves maps that are still whole.
        self.pages.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stats(&self) -> CacheStats {
        let pages = self.lock();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            renders: self.renders.load(Ordering::Relaxed),
            pages: pages.languages.values().map(|l| l.by_key.len()).sum(),
            bytes: pages.languages.values().map(|l| l.bytes).sum(),
        }
    }
}

/// A page that is the same for every visitor but for one per-visitor value (a form's CSRF
/// token), kept per snapshot: rendered once with [`SLOT`] where the value goes, split there,
/// and each half compressed once. A request only joins the halves around its value. A page
/// rendered without the slot (no form on it) is kept whole and takes no value.
///
/// The gzip form is one deflate stream: the first half compressed and flushed to a byte
/// boundary, the value as a stored (uncompressed) block, the second half compressed on its
/// own; only the CRC is computed per request. The value is never compressed, so it cannot be
/// guessed through the compressed length (BREACH).
#[derive(Debug)]
pub struct SlottedPage {
    before: Bytes,
    after: Bytes,
    /// Raw deflate of `before`, ending in a sync flush.
    deflated_before: Bytes,
    /// Raw deflate of `after`, ending in the final block.
    deflated_after: Bytes,
    /// Whether the page has the slot (else `after` is empty and no value goes in).
    slotted: bool,
}

/// What a page is rendered with in place of its per-visitor value: letters and dashes only,
/// so it comes out of the template's escaping unchanged.
pub const SLOT: &str = "per-visitor-value-slot-e1c5b7a2d9f04c36";

/// A rendered page that cannot be kept as a [`SlottedPage`].
#[derive(Debug, thiserror::Error)]
pub enum SlotError {
    #[error("the page holds its per-visitor slot more than once")]
    Repeated,
    #[error("the page could not be compressed")]
    Compress,
}

impl SlottedPage {
    pub fn new(html: &str) -> Result<Self, SlotError> {
        let (before, after, slotted) = match html.split_once(SLOT) {
            Some((before, after)) => (before, after, true),
            None => (html, "", false),
        };
        if after.contains(SLOT) {
            return Err(SlotError::Repeated);
        }
        let deflated_before = deflate(before.as_bytes(), flate2::FlushCompress::Sync);
        let deflated_after = deflate(after.as_bytes(), flate2::FlushCompress::Finish);
        Ok(Self {
            before: Bytes::copy_from_slice(before.as_bytes()),
            after: Bytes::copy_from_slice(after.as_bytes()),
            deflated_before: Bytes::from(deflated_before.ok_or(SlotError::Compress)?),
            deflated_after: Bytes::from(deflated_after.ok_or(SlotError::Compress)?),
            slotted,
        })
    }

    /// The page with `value` in its slot, gzipped when `gzip` and `value` fits one stored
    /// block (64 KiB; a CSRF token is 128 bytes), else plain.
    pub fn body(&self, value: &str, gzip: bool) -> Bytes {
        let value = if self.slotted { value.as_bytes() } else { b"" };
        if !gzip || value.len() > usize::from(u16::MAX) {
            let mut body = Vec::with_capacity(self.before.len() + value.len() + self.after.len());
            body.extend_from_slice(&self.before);
            body.extend_from_slice(value);
            body.extend_from_slice(&self.after);
            return Bytes::from(body);
        }
        let len = u16::try_from(value.len()).unwrap_or(u16::MAX);
        let mut crc = flate2::Crc::new();
        crc.update(&self.before);
        crc.update(value);
        crc.update(&self.after);
        let mut body = Vec::with_capacity(
            10 + self.deflated_before.len() + 5 + value.len() + self.deflated_after.len() + 8,
        );
        // The gzip header: deflate, no name or time, unknown OS.
        body.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
        body.extend_from_slice(&self.deflated_before);
        // A stored block, not the last: BFINAL 0, BTYPE 00, padded to the byte; LEN, NLEN.
        body.push(0);
        body.extend_from_slice(&len.to_le_bytes());
        body.extend_from_slice(&(!len).to_le_bytes());
        body.extend_from_slice(value);
        body.extend_from_slice(&self.deflated_after);
        body.extend_from_slice(&crc.sum().to_le_bytes());
        body.extend_from_slice(&crc.amount().to_le_bytes());
        Bytes::from(body)
    }

    /// The answer to `req` with `value` in the slot: gzipped when the client accepts gzip, and
    /// never compressed again by the middleware.
    pub fn respond(&self, req: &HttpRequest, value: &str, status: StatusCode) -> HttpResponse {
        let gzip = accepts_gzip(req) && (!self.slotted || value.len() <= usize::from(u16::MAX));
        let mut builder = HttpResponse::build(status);
        builder
            .insert_header((
                CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ))
            .insert_header((VARY, HeaderValue::from_static("Accept-Encoding")))
            // Set either way, so the compression middleware leaves the body alone.
            .insert_header((
                CONTENT_ENCODING,
                HeaderValue::from_static(if gzip { "gzip" } else { "identity" }),
            ));
        builder.body(self.body(value, gzip))
    }
}

impl Weigh for SlottedPage {
    fn bytes(&self) -> usize {
        self.before.len()
            + self.after.len()
            + self.deflated_before.len()
            + self.deflated_after.len()
    }
}

/// Raw deflate of `bytes`, ending with `flush` (a sync flush leaves the stream open at a byte
/// boundary; finish writes the final block).
fn deflate(bytes: &[u8], flush: flate2::FlushCompress) -> Option<Vec<u8>> {
    let mut compress = flate2::Compress::new(flate2::Compression::best(), false);
    let mut out = Vec::with_capacity(bytes.len() / 3 + 64);
    loop {
        let consumed = usize::try_from(compress.total_in()).ok()?;
        let status = compress
            .compress_vec(&bytes[consumed..], &mut out, flush)
            .ok()?;
        let done = usize::try_from(compress.total_in()).ok()? == bytes.len()
            && (status == flate2::Status::StreamEnd
                || (flush != flate2::FlushCompress::Finish && out.len() < out.capacity()));
        if done {
            return Some(out);
        }
        out.reserve(out.capacity().max(1024));
    }
}

/// The slotted pages of the current snapshot, by language and key.
#[derive(Debug)]
pub struct SlottedCache {
    pages: Generations<SlottedPage>,
}

impl Default for SlottedCache {
    fn default() -> Self {
        Self::with_budget(PLAN_BYTES_PER_LANGUAGE)
    }
}

impl SlottedCache {
    /// A cache keeping at most `bytes_per_language` of pages in each language.
    pub fn with_budget(bytes_per_language: usize) -> Self {
        Self {
            pages: Generations::new(bytes_per_language),
        }
    }

    /// The page `key` in `language` of snapshot `generation`: from the cache, or rendered by
    /// `render` (with [`SLOT`] in place of the per-visitor value) and kept as
    /// [`PageCache::get_or_render`] keeps pages.
    pub fn get_or_render<E: From<SlotError>>(
        &self,
        generation: u64,
        language: &str,
        key: &str,
        render: impl FnOnce() -> Result<String, E>,
    ) -> Result<Arc<SlottedPage>, E> {
        self.pages.get_or_make(generation, language, key, || {
            Ok(SlottedPage::new(&render()?)?)
        })
    }

    pub fn len(&self) -> usize {
        self.pages.stats().pages
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn stats(&self) -> CacheStats {
        self.pages.stats()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use actix_web::test::TestRequest;

    use super::*;

    fn req(headers: &[(&str, &str)]) -> HttpRequest {
        let mut r = TestRequest::default();
        for (name, value) in headers {
            r = r.insert_header((*name, *value));
        }
        r.to_http_request()
    }

    #[test]
    fn gzip_is_chosen_by_accept_encoding_and_its_quality() {
        for (header, expected) in [
            ("gzip", true),
            ("GZIP", true),
            ("deflate, gzip;q=0.5", true),
            ("br;q=1.0, gzip;q=0.8, *;q=0.1", true),
            ("*", true),
            ("gzip;q=0", false),
            ("gzip;q=0.000", false),
            ("*, gzip;q=0", false),
            ("br", false),
            ("identity", false),
            ("gzip;q=zero", false),
        ] {
            assert_eq!(
                accepts_gzip(&req(&[("accept-encoding", header)])),
                expected,
                "{header}"
            );
        }
        assert!(!accepts_gzip(&req(&[])));
    }

    #[actix_web::test]
    async fn the_page_is_served_gzipped_plain_or_not_modified() {
        let html = "<!doctype html><p>".to_string() + &"Plan 1 GB · 7 days ".repeat(200);
        let page = CachedPage::new(html.clone());

        let zipped = page.respond(&req(&[("accept-encoding", "gzip")]));
        assert_eq!(zipped.status(), StatusCode::OK);
        assert_eq!(
            zipped.headers().get(CONTENT_ENCODING).map(|v| v.as_bytes()),
            Some(&b"gzip"[..])
        );
        let body = actix_web::body::to_bytes(zipped.into_body())
            .await
            .expect("body");
        let mut unzipped = String::new();
        flate2::read::GzDecoder::new(&body[..])
            .read_to_string(&mut unzipped)
            .expect("gzip");
        assert_eq!(unzipped, html);

        let plain = page.respond(&req(&[]));
        let etag = plain.headers().get(ETAG).cloned().expect("etag");
        let body = actix_web::body::to_bytes(plain.into_body())
            .await
            .expect("body");
        assert_eq!(body, html.as_bytes());

        let etag = etag.to_str().expect("ascii");
        for header in [
            etag.to_string(),
            format!("W/{etag}"),
            format!("\"x\", {etag}"),
            "*".to_string(),
        ] {
            let again = page.respond(&req(&[("if-none-match", header.as_str())]));
            assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{header}");
            assert_eq!(
                again.headers().get(ETAG).and_then(|v| v.to_str().ok()),
                Some(etag)
            );
        }
        let other = page.respond(&req(&[("if-none-match", "\"other\"")]));
        assert_eq!(other.status(), StatusCode::OK);
    }

    #[test]
    fn a_page_is_rendered_once_per_generation() {
        let cache = PageCache::default();
        let mut renders = 0;
        let mut get = |generation: u64, key: &str| {
            cache
                .get_or_render(generation, "en", key, || {
                    renders += 1;
                    Ok::<_, ()>(format!("{generation}:{key}"))
                })
                .expect("rendered")
        };
        let first = get(1, "country/US");
        let again = get(1, "country/US");
        assert!(Arc::ptr_eq(&first, &again));
        get(1, "country/FR");
        // A new snapshot: rendered again, and the old pages are gone.
        let newer = get(2, "country/US");
        assert!(!Arc::ptr_eq(&first, &newer));
        // A request still holding the older snapshot does not evict the newer pages.
        get(1, "country/US");
        get(2, "country/US");
        assert_eq!(renders, 4);
        assert_eq!(cache.len(), 1);
    }

    /// A page of `size` random letters: it compresses poorly, so a stored page weighs about
    /// 1.6 times `size`.
    fn junk(i: usize, size: usize) -> String {
        let mut state = u64::try_from(i)
            .unwrap_or(0)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            | 1;
        (0..size)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                char::from(b'a' + u8::try_from(state % 26).unwrap_or(0))
            })
            .collect()
    }

    #[test]
    fn junk_keys_evict_the_least_recently_used_pages_and_the_busy_ones_stay() {
        let budget = 64 * 1024;
        let cache = PageCache::with_budget(budget);
        let get = |language: &str, key: &str, i: usize| {
            cache
                .get_or_render(1, language, key, || Ok::<_, ()>(junk(i, 2 * 1024)))
                .expect("rendered")
        };
        get("en", "home", 0);
        get("de", "home", 0);
        for i in 1..=1_000 {
            get("en", &format!("country/US?junk={i}"), i);
            // The home page is asked for now and then: it stays.
            if i % 10 == 0 {
                get("en", "home", 0);
            }
        }
        let stats = cache.stats();
        assert_eq!(
            stats.renders,
            1 + 1 + 1_000,
            "the home pages were rendered once each"
        );
        assert_eq!(stats.hits, 100);
        assert!(
            stats.bytes <= 2 * budget,
            "each language within its budget: {stats:?}"
        );
        assert!(stats.pages < 40, "{stats:?}");
        // Another language's page was not pushed out by the junk.
        get("de", "home", 0);
        assert_eq!(cache.stats().hits, 101);
        // A page over the whole budget is served but not kept.
        let big = cache
            .get_or_render(1, "en", "huge", || Ok::<_, ()>(junk(7, budget + 1)))
            .expect("rendered");
        assert_eq!(big.html.len(), budget + 1);
        assert!(cache.stats().bytes <= 2 * budget);
    }

    fn gunzip(body: &[u8]) -> String {
        let mut out = String::new();
        flate2::read::GzDecoder::new(body)
            .read_to_string(&mut out)
            .expect("valid gzip");
        out
    }

    #[test]
    fn a_slotted_page_joins_its_halves_around_each_value_plain_and_gzipped() {
        let html = format!(
            "<!doctype html><p>{}<input value=\"{SLOT}\"><p>{}",
            "Plan 1 GB · 7 days ".repeat(300),
            "Buy now ".repeat(200)
        );
        let page = SlottedPage::new(&html).expect("one slot");
        for token in ["a".repeat(64), "0123abcd".repeat(8), String::new()] {
            let expected = html.replace(SLOT, &token);
            assert_eq!(page.body(&token, false), expected.as_bytes());
            let zipped = page.body(&token, true);
            assert!(zipped.len() < expected.len() / 4, "compressed");
            // `GzDecoder` checks the CRC and the length in the trailer.
            assert_eq!(gunzip(&zipped), expected);
            // The value itself is stored as it is: never compressed.
            assert!(token.is_empty() || zipped.windows(64).any(|w| w == token.as_bytes()));
        }
        assert!(SlottedPage::new(&format!("{SLOT}{SLOT}")).is_err());
        // A page without a form takes no value.
        let whole = "<p>sold out</p>".repeat(50);
        let page = SlottedPage::new(&whole).expect("no slot is fine");
        assert_eq!(page.body("token", false), whole.as_bytes());
        assert_eq!(gunzip(&page.body("token", true)), whole);
    }

    #[actix_web::test]
    async fn a_slotted_page_is_never_compressed_by_the_middleware() {
        let page = SlottedPage::new(&format!("<p>{SLOT}</p>")).expect("one slot");
        let plain = page.respond(&req(&[("accept-encoding", "br")]), "t", StatusCode::OK);
        assert_eq!(
            plain.headers().get(CONTENT_ENCODING).map(|v| v.as_bytes()),
            Some(&b"identity"[..])
        );
        let zipped = page.respond(&req(&[("accept-encoding", "gzip")]), "t", StatusCode::OK);
        assert_eq!(
            zipped.headers().get(CONTENT_ENCODING).map(|v| v.as_bytes()),
            Some(&b"gzip"[..])
        );
        let body = actix_web::body::to_bytes(zipped.into_body())
            .await
            .expect("body");
        assert_eq!(gunzip(&body), "<p>t</p>");
    }

    #[test]
    fn a_render_error_is_returned_and_nothing_is_kept() {
        let cache = PageCache::default();
        let err = cache.get_or_render(1, "en", "k", || Err::<String, _>("boom"));
        assert_eq!(err.map(|_| ()), Err("boom"));
        assert!(cache.is_empty());
    }
}
