//! Every `STOREFRONT_*` setting the code reads is documented in README's configuration table,
//! and every setting the table documents is read by the code: an operator never meets a setting
//! they cannot look up, nor sets one that does nothing.

use std::collections::BTreeSet;

/// The names (without `STOREFRONT_`) that `src/config` reads: the string literals naming a
/// variable, outside its tests.
fn read_by_code() -> BTreeSet<String> {
    let source = include_str!("../../src/config/mod.rs");
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    let mut names = BTreeSet::new();
    for piece in code.split('"').skip(1).step_by(2) {
        let is_name = piece.len() > 2
            && piece
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && piece.as_bytes()[0].is_ascii_uppercase();
        if is_name && piece != "STOREFRONT_" {
            names.insert(piece.to_string());
        }
    }
    names
}

/// The names README's configuration table documents: every `` `STOREFRONT_X` `` in the first
/// cell of a table row (a cell may name two, `A` / `B` or `A` or `B`).
fn documented() -> BTreeSet<String> {
    let readme = include_str!("../../README.md");
    let mut names = BTreeSet::new();
    for line in readme.lines().filter(|l| l.starts_with("| `STOREFRONT_")) {
        let first_cell = line.split('|').nth(1).unwrap_or_default();
        for piece in first_cell.split('`').skip(1).step_by(2) {
            if let Some(name) = piece.strip_prefix("STOREFRONT_") {
                names.insert(name.to_string());
            }
        }
    }
    names
}

#[test]
fn every_setting_read_is_documented_and_every_documented_setting_is_read() {
    let code = read_by_code();
    let docs = documented();
    assert!(code.len() > 20, "the scan finds the settings: {code:?}");
    let undocumented: Vec<_> = code.difference(&docs).collect();
    assert!(
        undocumented.is_empty(),
        "read by src/config but missing from README's table: {undocumented:?}"
    );
    let unread: Vec<_> = docs.difference(&code).collect();
    assert!(
        unread.is_empty(),
        "in README's table but never read by src/config: {unread:?}"
    );
}
