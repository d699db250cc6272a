//! Walking a paginated list (`GET /plans`, `/balance/transactions`, `/orders`) page by page.
//!
//! The pager keeps the filters and limit of the first request and adds the previous
//! `nextCursor` (spec 4.1). Two guards turn a misbehaving upstream into an error instead of an
//! endless loop: a cursor seen before, and more pages than the configured cap.

use std::collections::HashSet;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use url::Url;

use super::error::{Class, ErrorKind, UpstreamError};
use super::models::Page;
use super::types::Cursor;

/// Where a pager's pages come from: the client (`PartnerClient`), or a test's stand-in.
pub trait PageSource {
    /// Pages one listing may have before the pager gives up.
    fn max_pages(&self) -> u32;

    /// One page: a GET of `url`, logged under the route `template`.
    fn fetch_page<T: DeserializeOwned>(
        &self,
        template: &'static str,
        url: Url,
    ) -> impl Future<Output = Result<Page<T>, UpstreamError>> + Send;
}

/// Pages of one listing from `S`. Made by `PartnerClient::*_pager`.
#[derive(Debug)]
pub struct Pager<T, S> {
    client: S,
    template: &'static str,
    /// The first page's URL: filters and limit, no cursor.
    first: Url,
    cursor: Option<Cursor>,
    seen: HashSet<String>,
    pages: u32,
    /// The page cap, when it is not the client's.
    cap: Option<u32>,
    done: bool,
    _items: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned, S: PageSource> Pager<T, S> {
    pub(crate) fn new(client: S, template: &'static str, first: Url) -> Self {
        Self {
            client,
            template,
            first,
            cursor: None,
            seen: HashSet::new(),
            pages: 0,
            cap: None,
            done: false,
            _items: PhantomData,
        }
    }

    /// This pager with a page cap of its own instead of the client's: for a walk that stores
    /// each page as it reads it (the books' local copy of the supplier's history), where a
    /// long listing is expected. Repeating cursors still stop it.
    pub fn with_page_cap(mut self, cap: u32) -> Self {
        self.cap = Some(cap);
        self
    }

    /// The next page's items, or `None` after the last page. After an error the pager stays
    /// where it was, so calling again retries the same page.
    pub async fn next_page(&mut self) -> Result<Option<Vec<T>>, UpstreamError> {
        if self.done {
            return Ok(None);
        }
        let cap = self.cap.unwrap_or_else(|| self.client.max_pages());
        if self.pages >= cap {
            return Err(pagination_error(format!("more than {cap} pages; stopped")));
        }
        let url = next_url(&self.first, self.cursor.as_ref());
        let page: Page<T> = self.client.fetch_page(self.template, url).await?;
        self.advance(page.next_cursor)?;
        Ok(Some(page.data))
    }

    /// Whether the last page has been read.
    pub fn finished(&self) -> bool {
        self.done
    }

    /// Every remaining item, in the order the pages arrived.
    pub async fn collect_all(mut self) -> Result<Vec<T>, UpstreamError> {
        let mut all = Vec::new();
        while let Some(items) = self.next_page().await? {
            all.extend(items);
        }
        Ok(all)
    }

    /// Records a fetched page's `nextCursor`.
    fn advance(&mut self, next: Option<Cursor>) -> Result<(), UpstreamError> {
        match next {
            None => self.done = true,
            Some(cursor) => {
                if !self.seen.insert(cursor.as_str().to_string()) {
                    return Err(pagination_error(
                        "nextCursor repeats an earlier cursor; stopped".to_string(),
                    ));
                }
                self.cursor = Some(cursor);
            }
        }
        self.pages += 1;
        Ok(())
    }
}

fn next_url(first: &Url, cursor: Option<&Cursor>) -> Url {
    let mut url = first.clone();
    if let Some(cursor) = cursor {
        url.query_pairs_mut().append_pair("cursor", cursor.as_str());
    }
    url
}

/// A listing that does not end properly is an upstream fault; `Unknown` because a later
/// attempt may well succeed, and nothing was changed upstream either way.
fn pagination_error(message: String) -> UpstreamError {
    UpstreamError::new(ErrorKind::Pagination, Class::Unknown, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::models::Plan;

    /// A source that must never be asked: these tests stop before any request.
    struct NoNetwork {
        max_pages: u32,
    }

    impl PageSource for NoNetwork {
        fn max_pages(&self) -> u32 {
            self.max_pages
        }

        async fn fetch_page<T: DeserializeOwned>(
            &self,
            _template: &'static str,
            _url: Url,
        ) -> Result<Page<T>, UpstreamError> {
            panic!("no request may be sent")
        }
    }

    fn pager(max_pages: u32) -> Pager<Plan, NoNetwork> {
        let first = Url::parse("https://h/api/v1/plans?limit=10&country=DE").expect("url");
        Pager::new(NoNetwork { max_pages }, "/plans", first)
    }

    fn cursor(s: &str) -> Option<Cursor> {
        Some(Cursor::parse(s).expect("cursor"))
    }

    #[test]
    fn later_pages_keep_the_filters_and_add_the_cursor() {
        let mut p = pager(10);
        assert_eq!(
            next_url(&p.first, p.cursor.as_ref()).query(),
            Some("limit=10&country=DE")
        );
        p.advance(cursor("abc")).expect("first");
        assert_eq!(
            next_url(&p.first, p.cursor.as_ref()).query(),
            Some("limit=10&country=DE&cursor=abc")
        );
        p.advance(cursor("def")).expect("second");
        assert_eq!(
            next_url(&p.first, p.cursor.as_ref()).query(),
            Some("limit=10&country=DE&cursor=def"),
            "the cursor is replaced, not appended twice"
        );
        p.advance(None).expect("last");
        assert!(p.done);
    }

    #[test]
    fn a_repeated_cursor_is_an_error() {
        let mut p = pager(10);
        p.advance(cursor("a")).expect("a");
        p.advance(cursor("b")).expect("b");
        let err = p.advance(cursor("a")).expect_err("loop");
        assert_eq!(err.kind(), ErrorKind::Pagination);
        assert!(!p.done);
    }

    #[tokio::test]
    async fn the_page_cap_is_an_error_and_no_request_is_sent() {
        let mut p = pager(2);
        p.advance(cursor("a")).expect("a");
        p.advance(cursor("b")).expect("b");
        let err = p.next_page().await.expect_err("cap");
        assert_eq!(err.kind(), ErrorKind::Pagination);
    }

    #[tokio::test]
    async fn a_pager_s_own_cap_replaces_the_client_s() {
        let mut p = pager(1000).with_page_cap(1);
        p.advance(cursor("a")).expect("a");
        let err = p.next_page().await.expect_err("its own cap");
        assert_eq!(err.kind(), ErrorKind::Pagination);
        assert!(err.to_string().contains("more than 1 pages"), "{err}");
    }

    #[tokio::test]
    async fn a_finished_pager_returns_none() {
        let mut p = pager(2);
        p.advance(None).expect("last");
        assert!(matches!(p.next_page().await, Ok(None)));
        assert!(matches!(p.collect_all().await, Ok(v) if v.is_empty()));
    }
}
