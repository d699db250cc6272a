//! Paged lists: which page an address asks for and the addresses of its neighbours, with the
//! list's filters kept.

/// Where a paged list is: page numbers count from 1, in the address and on the page alike
/// (`?page=2` is "Page 2"). No number, or 0, is the first page; numbers past
/// [`Pager::MAX_PAGE`] are that page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pager {
    /// This page's number, from 1.
    pub number: u32,
}

impl Pager {
    pub const MAX_PAGE: u32 = 10_000;

    pub fn from_query(page: Option<u32>) -> Self {
        Self {
            number: page.unwrap_or(1).clamp(1, Self::MAX_PAGE),
        }
    }

    /// How many rows come before this page, at `size` rows a page.
    pub fn offset(self, size: u32) -> u64 {
        u64::from(self.number - 1) * u64::from(size)
    }

    /// The previous page's address, on every page but the first.
    pub fn previous_href(self, path: &str, filters: &[(&str, Option<&str>)]) -> Option<String> {
        (self.number > 1).then(|| list_href(path, filters, self.number - 1))
    }

    /// The next page's address, when there is more to show.
    pub fn next_href(
        self,
        path: &str,
        filters: &[(&str, Option<&str>)],
        has_more: bool,
    ) -> Option<String> {
        has_more.then(|| list_href(path, filters, self.number.saturating_add(1)))
    }
}

/// A list page's address with its filters (the absent ones left out) and its page number
/// (left out for the first page).
pub fn list_href(path: &str, filters: &[(&str, Option<&str>)], page: u32) -> String {
    let mut params = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in filters {
        if let Some(value) = value {
            params.append_pair(name, value);
        }
    }
    if page > 1 {
        params.append_pair("page", &page.to_string());
    }
    let params = params.finish();
    if params.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{params}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_count_from_one_in_the_address_and_on_the_page() {
        let filters = [("country", Some("US")), ("region", None)];
        let first = Pager::from_query(None);
        assert_eq!(first, Pager::from_query(Some(0)));
        assert_eq!(first.number, 1);
        assert_eq!(first.offset(50), 0);
        assert_eq!(first.previous_href("/admin/catalog", &filters), None);
        assert_eq!(
            first.next_href("/admin/catalog", &filters, true).as_deref(),
            Some("/admin/catalog?country=US&page=2")
        );
        let second = Pager::from_query(Some(2));
        assert_eq!(second.offset(50), 50);
        assert_eq!(
            second.previous_href("/admin/catalog", &filters).as_deref(),
            Some("/admin/catalog?country=US"),
            "the first page's address has no number"
        );
        assert_eq!(second.next_href("/admin/catalog", &filters, false), None);
        assert_eq!(Pager::from_query(Some(u32::MAX)).number, Pager::MAX_PAGE);
    }
}
