//! Text placed into HTML outside a template (a translated sentence with a value in it, the
//! sandbox's hosted pages) is escaped by the same escaper the templates use, so the two never
//! disagree on what is safe.

/// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML content or a quoted attribute.
pub fn escape(text: &str) -> String {
    // Askama's escape filter cannot fail; its `Result` is the filter calling convention.
    match askama::filters::escape(text, askama::filters::Html) {
        Ok(safe) => safe.to_string(),
        Err(never) => match never {},
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_quotes_and_keeps_the_rest() {
        assert_eq!(
            escape(r#"<a href="x">Tom & Jerry's</a> ünï"#),
            "&#60;a href=&#34;x&#34;&#62;Tom &#38; Jerry&#39;s&#60;/a&#62; ünï"
        );
        assert_eq!(escape(""), "");
    }
}
