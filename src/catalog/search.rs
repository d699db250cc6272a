//! Finding a destination by what a traveller types, in any shop language: the country's name
//! in English, Spanish or German, its ISO code, another name or demonym ("USA", "Holland",
//! "German", "japonés"), ignoring case and accents, and forgiving one slip ("Japna") in a word
//! of five letters or more.
//!
//! The index is built once per catalog snapshot ([`SearchIndex::build`]) from every name the
//! snapshot gives its destinations and listed regions; a query only scans it. Matches rank
//! exact > prefix > inside a name > one edit away, and a typo is looked for only when nothing
//! is spelled exactly, so "Gambia" does not also offer Zambia.

use std::collections::{HashMap, HashSet};

use crate::domain::countries;
use crate::domain::plan::search_key;

/// What a term leads to: a destination or a region, by its index in the snapshot's lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Destination(usize),
    Region(usize),
}

/// How a term may match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TermKind {
    /// A name: exact, prefix, inside, one edit away.
    Name,
    /// Another name or demonym: exact, prefix (three letters typed or more), one edit away.
    Alias,
    /// An ISO code: exact only ("j" is no hint of Japan).
    Code,
}

#[derive(Debug, Clone)]
struct Term {
    /// Folded as by [`search_key`].
    key: String,
    kind: TermKind,
    target: Target,
}

/// How well a query matched, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    Exact,
    Prefix,
    Inside,
    Typo,
}

/// The shortest word (in letters) a typo is forgiven in.
const TYPO_MIN_CHARS: usize = 5;

/// Every searchable term of one snapshot.
#[derive(Debug, Default)]
pub struct SearchIndex {
    terms: Vec<Term>,
}

impl SearchIndex {
    /// An index of `destinations` (code, names in every language) and `regions` (names in
    /// every language); each is found under its position in the given list.
    pub fn build<'a>(
        destinations: impl IntoIterator<Item = (&'a str, &'a [String])>,
        regions: impl IntoIterator<Item = &'a [String]>,
    ) -> Self {
        let mut terms = Vec::new();
        let mut seen: HashSet<(String, Target)> = HashSet::new();
        let mut push = |key: String, kind: TermKind, target: Target| {
            if !key.is_empty() && seen.insert((key.clone(), target)) {
                terms.push(Term { key, kind, target });
            }
        };
        let mut codes = HashMap::new();
        for (i, (code, names)) in destinations.into_iter().enumerate() {
            let target = Target::Destination(i);
            push(code.to_ascii_lowercase(), TermKind::Code, target);
            for name in names {
                push(search_key(name.trim()), TermKind::Name, target);
            }
            codes.insert(code.to_ascii_uppercase(), target);
        }
        for (alias, code) in countries::all_aliases() {
            if let Some(&target) = codes.get(code) {
                push(alias.to_string(), TermKind::Alias, target);
            }
        }
        for (i, names) in regions.into_iter().enumerate() {
            for name in names {
                push(search_key(name.trim()), TermKind::Name, Target::Region(i));
            }
        }
        Self { terms }
    }

    /// Each target matching `query` once, with its best rank, in no particular order.
    pub fn find(&self, query: &str) -> Vec<(Rank, Target)> {
        let key = search_key(query.trim());
        if key.is_empty() {
            return Vec::new();
        }
        let mut best: HashMap<Target, Rank> = HashMap::new();
        let note = |best: &mut HashMap<Target, Rank>, target, rank: Rank| {
            best.entry(target)
                .and_modify(|r| *r = (*r).min(rank))
                .or_insert(rank);
        };
        for term in &self.terms {
            let rank = match term.kind {
                _ if term.key == key => Some(Rank::Exact),
                TermKind::Code => None,
                TermKind::Alias if key.chars().count() >= 3 && term.key.starts_with(&key) => {
                    Some(Rank::Prefix)
                }
                TermKind::Alias => None,
                TermKind::Name if term.key.starts_with(&key) => Some(Rank::Prefix),
                TermKind::Name if term.key.contains(&key) => Some(Rank::Inside),
                TermKind::Name => None,
            };
            if let Some(rank) = rank {
                note(&mut best, term.target, rank);
            }
        }
        if !best.values().any(|r| *r == Rank::Exact) && key.chars().count() >= TYPO_MIN_CHARS {
            for term in self.terms.iter().filter(|t| t.kind != TermKind::Code) {
                let near = std::iter::once(term.key.as_str())
                    .chain(term.key.split([' ', '-']))
                    .filter(|word| word.chars().count() >= TYPO_MIN_CHARS)
                    .any(|word| within_one_edit(&key, word));
                if near {
                    note(&mut best, term.target, Rank::Typo);
                }
            }
        }
        best.into_iter()
            .map(|(target, rank)| (rank, target))
            .collect()
    }
}

/// `a` and `b` differ by at most one edit: a letter added, dropped, changed, or two
/// neighbours swapped ("japna" → "japan").
fn within_one_edit(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[start..], &b[start..]);
    match (ra.len(), rb.len()) {
        (0, 0) => true,
        (x, y) if x == y => {
            ra[1..] == rb[1..] || (x >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        (x, y) if x > y => ra[1..] == *rb,
        _ => *ra == rb[1..],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_edit_is_a_letter_added_dropped_changed_or_two_swapped() {
        assert!(within_one_edit("japna", "japan"));
        assert!(within_one_edit("japn", "japan"));
        assert!(within_one_edit("jappan", "japan"));
        assert!(within_one_edit("jopan", "japan"));
        assert!(within_one_edit("japan", "japan"));
        assert!(within_one_edit("ajpan", "japan"));
        assert!(!within_one_edit("jpna", "japan"));
        assert!(!within_one_edit("napaj", "japan"));
        assert!(!within_one_edit("austria", "australia"));
    }

    #[test]
    fn ranks_exact_then_prefix_then_inside_then_typos_only_without_an_exact_match() {
        let names = |n: &[&str]| n.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        let gm = names(&["Gambia"]);
        let zm = names(&["Zambia", "Sambia"]);
        let jp = names(&["Japan", "Japón"]);
        let index = SearchIndex::build(
            [
                ("GM", gm.as_slice()),
                ("ZM", zm.as_slice()),
                ("JP", jp.as_slice()),
            ],
            [],
        );
        let find = |q: &str| {
            let mut found = index.find(q);
            found.sort();
            found
        };
        assert_eq!(find("GAMBIA"), [(Rank::Exact, Target::Destination(0))]);
        assert_eq!(find("jap"), [(Rank::Prefix, Target::Destination(2))]);
        assert_eq!(find("pon"), [(Rank::Inside, Target::Destination(2))]);
        assert_eq!(find("Japna"), [(Rank::Typo, Target::Destination(2))]);
        assert_eq!(
            find("ambia"),
            [
                (Rank::Inside, Target::Destination(0)),
                (Rank::Inside, Target::Destination(1))
            ]
        );
        // Four letters: too short to guess at.
        assert!(find("jpan").is_empty());
        // A code only exactly.
        assert_eq!(find("jp"), [(Rank::Exact, Target::Destination(2))]);
        assert!(find("z").iter().all(|(r, _)| *r != Rank::Exact));
    }
}
