//! How a search matches and ranks, apart from any database, so that every store answers alike.
//!
//! A query is split into words (at whitespace and commas), lowercased; a skill matches when
//! **every** word occurs in its name, its description or its keywords (`metadata.keywords` in
//! SKILL.md), as a part of a word or whole. Matches are ranked by:
//!
//! 1. the exact name (the words joined by `-` are the name: `team finance` finds `team-finance`
//!    first), then a name that starts with them;
//! 2. text relevance: per word, a name part equal to it counts most, then a name that contains
//!    it, a keyword, a whole word of the description, and a part of a description's word least;
//! 3. downloads, most first;
//! 4. the name, alphabetically, so that equal skills keep one order across pages.
//!
//! Lowercasing is Rust's (full Unicode), done once when a skill is stored ([`text`]) and once
//! per query, so a database only has to find one lowercase string inside another.

use std::cmp::Reverse;

/// The most words a query may have: each is one more pass over every candidate.
pub const MAX_WORDS: usize = 16;

/// A parsed search query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    words: Vec<String>,
    /// The words joined by `-`: the name that matches exactly.
    joined: String,
}

impl Query {
    /// The query's words, lowercased, each once, in the order given.
    pub fn new(text: &str) -> Self {
        let mut words: Vec<String> = Vec::new();
        for word in text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|word| !word.is_empty())
        {
            let word = word.to_lowercase();
            if !words.contains(&word) {
                words.push(word);
            }
        }
        let joined = words.join("-");
        Self { words, joined }
    }

    pub fn words(&self) -> &[String] {
        &self.words
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// Why a query is refused, if it is.
pub fn problem(query: &Query) -> Option<String> {
    let count = query.words.len();
    (count > MAX_WORDS)
        .then(|| format!("a search has at most {MAX_WORDS} words; this one has {count}"))
}

/// What a store keeps to search a skill by: its name, description and keywords, lowercased,
/// one per line. A word has no whitespace, so it never matches across two of them.
pub fn text(name: &str, description: &str, keywords: &str) -> String {
    let flat = |text: &str| text.replace(['\n', '\r'], " ").to_lowercase();
    format!("{}\n{}\n{}", flat(name), flat(description), flat(keywords))
}

/// A skill that matched, with what ranks it: its name, description and keywords lowercased.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub description: String,
    pub keywords: String,
    pub downloads: u64,
}

impl Candidate {
    /// A candidate from its fields as written (lowercased here, as [`text`] stores them).
    pub fn new(name: &str, description: &str, keywords: &str, downloads: u64) -> Self {
        let stored = text(name, description, keywords);
        let mut lines = stored.splitn(3, '\n');
        let mut next = || lines.next().unwrap_or_default().to_owned();
        Self {
            name: next(),
            description: next(),
            keywords: next(),
            downloads,
        }
    }
}

/// Whether every word of `query` occurs in `search_text` (as made by [`text`]). Stores may
/// filter some other way, but must agree with this.
pub fn matches(query: &Query, search_text: &str) -> bool {
    query
        .words
        .iter()
        .all(|word| search_text.contains(word.as_str()))
}

/// How well `candidate` answers `query`: compare two with [`Ord`], best first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    tier: u8,
    relevance: Reverse<u32>,
    downloads: Reverse<u64>,
    name: String,
}

/// The rank of `candidate` (lowercase, as [`Candidate`] makes it) for `query`.
pub fn rank(query: &Query, candidate: &Candidate) -> Rank {
    rank_parts(
        query,
        &candidate.name,
        &candidate.description,
        &candidate.keywords,
        candidate.downloads,
    )
}

/// The rank of a skill for `query` from its stored search text (see [`text`]), read in place:
/// only the name is copied.
pub fn rank_text(query: &Query, search_text: &str, downloads: u64) -> Rank {
    let mut lines = search_text.splitn(3, '\n');
    let (name, description, keywords) = (
        lines.next().unwrap_or_default(),
        lines.next().unwrap_or_default(),
        lines.next().unwrap_or_default(),
    );
    rank_parts(query, name, description, keywords, downloads)
}

/// The names on one page (`offset`, `per_page`) of `ranks`, best first. Only that page is
/// sorted: the ranks before it are partitioned off, not ordered.
pub fn page(mut ranks: Vec<Rank>, offset: usize, per_page: usize) -> Vec<String> {
    let end = offset.saturating_add(per_page).min(ranks.len());
    if offset >= end {
        return Vec::new();
    }
    if end < ranks.len() {
        ranks.select_nth_unstable(end);
        ranks.truncate(end);
    }
    if offset > 0 {
        ranks.select_nth_unstable(offset);
    }
    let mut shown = ranks.split_off(offset);
    shown.sort_unstable();
    shown.into_iter().map(|rank| rank.name).collect()
}

fn rank_parts(
    query: &Query,
    name: &str,
    description: &str,
    keywords: &str,
    downloads: u64,
) -> Rank {
    let tier = if query.is_empty() {
        2
    } else if name == query.joined {
        0
    } else if name.starts_with(&query.joined) {
        1
    } else {
        2
    };
    let relevance = query
        .words
        .iter()
        .map(|word| word_relevance(word, name, keywords, description))
        .sum();
    Rank {
        tier,
        relevance: Reverse(relevance),
        downloads: Reverse(downloads),
        name: name.to_owned(),
    }
}

/// Sorts `candidates` best first.
pub fn sort(query: &Query, candidates: Vec<Candidate>) -> Vec<Candidate> {
    let mut ranked: Vec<(Rank, Candidate)> = candidates
        .into_iter()
        .map(|candidate| (rank(query, &candidate), candidate))
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0));
    ranked.into_iter().map(|(_, candidate)| candidate).collect()
}

fn word_relevance(word: &str, name: &str, keywords: &str, description: &str) -> u32 {
    let mut score = 0;
    if name.split('-').any(|part| part == word) {
        score += 8;
    } else if name.contains(word) {
        score += 5;
    }
    let keyword_parts = || {
        keywords
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|part| !part.is_empty())
    };
    if keyword_parts().any(|part| part == word) {
        score += 4;
    } else if keywords.contains(word) {
        score += 2;
    }
    let whole_word = description
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .any(|part| part == word);
    if whole_word {
        score += 2;
    } else if description.contains(word) {
        score += 1;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::{Candidate, Query, matches, problem, sort, text};

    fn candidate(name: &str, description: &str, keywords: &str, downloads: u64) -> Candidate {
        Candidate::new(name, description, keywords, downloads)
    }

    #[test]
    fn words_are_split_lowercased_and_kept_once() {
        let query = Query::new("  Team, FINANCE team\tÄrger ");
        assert_eq!(query.words(), ["team", "finance", "ärger"]);
        assert!(Query::new(" , ").is_empty());
        let long = Query::new(&"w ".repeat(17));
        assert!(problem(&long).is_none(), "repeated words count once");
        let many = (0..17)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            problem(&Query::new(&many))
                .unwrap()
                .contains("at most 16 words")
        );
    }

    #[test]
    fn every_word_must_match_somewhere() {
        let stored = text(
            "team-reports",
            "Builds the weekly FINANCE digest.",
            "ledger, Ärger",
        );
        assert!(matches(&Query::new("team finance"), &stored));
        assert!(matches(&Query::new("ledger reports"), &stored));
        assert!(
            matches(&Query::new("ärger"), &stored),
            "Unicode lowercasing"
        );
        assert!(!matches(&Query::new("team marketing"), &stored));
        assert!(matches(&Query::new(""), &stored));
        // Words never match across name, description and keywords.
        assert!(!matches(&Query::new("digest.ledger"), &stored));
    }

    #[test]
    fn exact_name_then_prefix_then_relevance_then_downloads_then_name() {
        let query = Query::new("team finance");
        let ranked = sort(
            &query,
            vec![
                candidate("budget", "Team finance questions.", "", 1000),
                candidate("finance-team", "Shared notes.", "team", 5),
                candidate("team-finance-extra", "More.", "", 0),
                candidate("team-finance", "The one.", "", 0),
                candidate("alpha", "Team finance questions.", "", 1000),
                candidate("zeta", "Team finance questions.", "", 3000),
            ],
        );
        let names: Vec<&str> = ranked.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "team-finance",
                "team-finance-extra",
                "finance-team",
                "zeta",
                "alpha",
                "budget"
            ]
        );
    }

    /// A page picked by partitioning is that page of the fully sorted list, for every offset.
    #[test]
    fn a_page_is_the_same_slice_of_the_sorted_list() {
        let query = Query::new("team finance");
        let candidates: Vec<Candidate> = (0..37)
            .map(|i| {
                let words = ["team", "finance", "notes", "team finance"];
                candidate(
                    &format!("skill-{}", (i * 7919) % 37),
                    &format!("About {}.", words[i % 4]),
                    words[(i / 4) % 4],
                    (i as u64 * 31) % 5,
                )
            })
            .collect();
        let sorted: Vec<String> = sort(&query, candidates.clone())
            .into_iter()
            .map(|c| c.name)
            .collect();
        for per_page in [1, 5, 20, 40] {
            for offset in [0, 1, 3, 19, 20, 36, 37, 50] {
                let ranks = candidates.iter().map(|c| super::rank(&query, c)).collect();
                let expected: Vec<String> =
                    sorted.iter().skip(offset).take(per_page).cloned().collect();
                assert_eq!(
                    super::page(ranks, offset, per_page),
                    expected,
                    "{offset}+{per_page}"
                );
            }
        }
        let text = text("Team-Finance", "Quarterly.", "");
        assert_eq!(
            super::rank_text(&query, &text, 3),
            super::rank(&query, &Candidate::new("Team-Finance", "Quarterly.", "", 3))
        );
    }

    #[test]
    fn a_name_part_outranks_a_description_word() {
        let query = Query::new("pdf");
        let ranked = sort(
            &query,
            vec![
                candidate("documents", "Reads PDF files.", "", 100),
                candidate("pdf-tools", "Tools.", "", 0),
                candidate("reports", "Writes reports.", "pdf", 0),
            ],
        );
        let names: Vec<&str> = ranked.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["pdf-tools", "reports", "documents"]);
    }
}
