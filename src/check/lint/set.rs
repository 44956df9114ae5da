//! Lint rules across a set of skills: near-duplicate descriptions, and the listing budget.

use std::collections::HashMap;

use crate::agent::claude_code::listing::{self, CapStyle, Entry};
use crate::agent::claude_code::reading::fallback_line;
use crate::agent::{Family, Target};
use crate::check::diagnostic::Diagnostic;
use crate::check::rule::{LISTING_OVER_BUDGET, SIMILAR_DESCRIPTIONS};
use crate::check::{AsChecked, Checked};

/// Two descriptions at least this similar are near-duplicates: the larger of the Jaccard
/// similarity of their word 3-grams and their word-level edit similarity (one minus the words
/// inserted, deleted or replaced, per word of the longer one).
pub(crate) const SIMILARITY: f64 = 0.8;
const HASHES: usize = 64;
const BANDS: usize = 16;
const ROWS: usize = HASHES / BANDS;
/// The words of a description compared (a valid description has at most 1,024 characters).
const MAX_WORDS: usize = 256;
/// The longest descriptions, in words, compared by edit distance; longer ones are compared by
/// their shared phrases (a few edits leave most of a long text's 3-grams intact).
const EDITED: usize = 128;
/// A word pair found in more descriptions than this is a set phrase ("use when the", a shared
/// template's words), not evidence that two descriptions are alike: it makes no candidates.
const RARE: usize = 32;
/// How many later members of a `MinHash` bucket, and how many of the descriptions sharing rare
/// word pairs, each description is compared with: a bound on the work per description.
const NEIGHBOURS: usize = 48;
/// The most `MinHash` signatures one description is compared with.
const SIGNATURES: usize = 64;
/// Into how many parts the word-pair lists are built, one after the other.
const PARTS: usize = 4;

/// The description as skillpkg reads it, if it is text.
fn description(item: &Checked) -> Option<&str> {
    let doc = item.skill.reading()?.doc.as_ref()?;
    doc.description.as_deref()?.value.as_deref().ok()
}

fn description_span(item: &Checked) -> Option<std::ops::Range<usize>> {
    let doc = item.skill.reading()?.doc.as_ref()?;
    doc.description.as_deref().map(|field| field.span.clone())
}

/// 64-bit mixing (splitmix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// FNV-1a of a string.
fn hash(text: &str) -> u64 {
    text.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
    })
}

/// The description's words, lowercased and hashed, in order (at most [`MAX_WORDS`]).
fn words(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(MAX_WORDS)
        .map(|word| hash(&word.to_lowercase()))
        .collect()
}

/// Sorted, deduplicated hashes of the `n`-word windows of `words` (the whole when shorter).
fn grams(words: &[u64], n: usize) -> Vec<u64> {
    let mut out: Vec<u64> = if words.len() < n {
        vec![words.iter().fold(0, |acc, &w| mix(acc ^ w))]
    } else {
        words
            .windows(n)
            .map(|window| window.iter().fold(0, |acc, &w| mix(acc ^ w)))
            .collect()
    };
    out.sort_unstable();
    out.dedup();
    out
}

/// The description's word 3-grams, hashed, sorted and deduplicated.
#[cfg(test)]
fn shingles(text: &str) -> Vec<u64> {
    grams(&words(text), 3)
}

fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - both;
    if union == 0 {
        0.0
    } else {
        #[expect(
            clippy::cast_precision_loss,
            reason = "shingle counts are far below 2^52: the conversion is exact"
        )]
        let ratio = both as f64 / union as f64;
        ratio
    }
}

/// How much each word of a set of descriptions says: `(1 + ln((n + 1) / (df + 1)))²`, where `df`
/// is the number of the `n` descriptions that use it. Words every description uses ("use",
/// "when", a shared template's) weigh least; the words that say what a skill does weigh most,
/// so that "Audit reports …" and "Migrate reports …" are not alike however much else they
/// share. In a set of two every word weighs about the same.
fn weights(lists: &[Option<Vec<u64>>]) -> HashMap<u64, f64> {
    let mut df: HashMap<u64, usize> = HashMap::new();
    let mut seen: Vec<u64> = Vec::new();
    for words in lists.iter().flatten() {
        seen.clone_from(words);
        seen.sort_unstable();
        seen.dedup();
        for &word in &seen {
            *df.entry(word).or_default() += 1;
        }
    }
    let n = lists.iter().flatten().count();
    #[expect(
        clippy::cast_precision_loss,
        reason = "counts of descriptions are far below 2^52"
    )]
    df.into_iter()
        .map(|(word, count)| {
            let idf = 1.0 + ((n + 1) as f64 / (count + 1) as f64).ln();
            (word, idf * idf)
        })
        .collect()
}

/// One minus the weighted word-level edit distance of `a` and `b` (each word with its weight)
/// per weight of the heavier: "groups the failures … at random" and "groups failures …
/// randomly" are three light edits apart. Replacing a word costs the heavier of the two, adding
/// or removing one its weight. Pairs that cannot reach [`SIMILARITY`] are cut short (0).
fn edit_similarity(a: &[(u64, f64)], b: &[(u64, f64)]) -> f64 {
    // The distance table is the product of the lengths: longer descriptions are compared by
    // their shared phrases alone.
    if a.len() > EDITED || b.len() > EDITED {
        return 0.0;
    }
    let total = |words: &[(u64, f64)]| words.iter().map(|&(_, weight)| weight).sum::<f64>();
    let (left, right) = (total(a), total(b));
    let heavier = left.max(right);
    if heavier <= 0.0 {
        return 0.0;
    }
    let budget = (1.0 - SIMILARITY) * heavier;
    // Every edit changes the total by at most its cost; and a word of one that the other lacks
    // costs at least its weight to remove or replace.
    if (left - right).abs() > budget || unmatched(a, b) > budget {
        return 0.0;
    }
    // Levenshtein over words with adjacent exchanges (optimal string alignment), a row at a
    // time: exchanging two words costs the heavier of them, as replacing one would.
    let mut before: Vec<f64> = Vec::new();
    let mut row: Vec<f64> = Vec::with_capacity(b.len() + 1);
    row.push(0.0);
    for &(_, weight) in b {
        let last = row[row.len() - 1];
        row.push(last + weight);
    }
    let mut next: Vec<f64> = vec![0.0; b.len() + 1];
    let mut best_before = 0.0;
    for (i, &(word, weight)) in a.iter().enumerate() {
        next[0] = row[0] + weight;
        let mut best = next[0];
        for (j, &(other, other_weight)) in b.iter().enumerate() {
            let replace = row[j]
                + if word == other {
                    0.0
                } else {
                    weight.max(other_weight)
                };
            let mut cell = replace.min(next[j] + other_weight).min(row[j + 1] + weight);
            if i > 0 && j > 0 && word == b[j - 1].0 && a[i - 1].0 == other && word != other {
                cell = cell.min(before[j - 1] + weight.max(other_weight));
            }
            next[j + 1] = cell;
            best = best.min(cell);
        }
        // Every later cell comes from this row or, by an exchange, the one before it, and
        // costs at least as much.
        if best > budget && best_before > budget {
            return 0.0;
        }
        best_before = best;
        std::mem::swap(&mut before, &mut row);
        std::mem::swap(&mut row, &mut next);
        if next.len() != b.len() + 1 {
            next = vec![0.0; b.len() + 1];
        }
    }
    1.0 - row[b.len()] / heavier
}

/// A lower bound of the weighted edit distance: the heavier of the weights of the words of `a`
/// that `b` lacks and of those of `b` that `a` lacks, counted with repetition.
fn unmatched(left: &[(u64, f64)], right: &[(u64, f64)]) -> f64 {
    let sorted = |words: &[(u64, f64)]| {
        let mut words = words.to_vec();
        words.sort_unstable_by_key(|&(word, _)| word);
        words
    };
    let (left, right) = (sorted(left), sorted(right));
    let (mut at_left, mut at_right) = (0, 0);
    let (mut only_left, mut only_right) = (0.0, 0.0);
    loop {
        match (left.get(at_left), right.get(at_right)) {
            (Some(here), Some(there)) if here.0 == there.0 => {
                at_left += 1;
                at_right += 1;
            }
            (Some(here), Some(there)) if here.0 < there.0 => {
                only_left += here.1;
                at_left += 1;
            }
            (Some(_) | None, Some(there)) => {
                only_right += there.1;
                at_right += 1;
            }
            (Some(here), None) => {
                only_left += here.1;
                at_left += 1;
            }
            (None, None) => break,
        }
    }
    f64::max(only_left, only_right)
}

/// What is compared of one description.
struct Compared {
    /// Its words, as [`Vocabulary`] ids.
    words: Vec<u32>,
    trigrams: Vec<u64>,
}

/// The words of a set of descriptions, each by a dense id with its hash and weight: a
/// description's words then cost four bytes each rather than sixteen.
struct Vocabulary {
    hashes: Vec<u64>,
    weights: Vec<f64>,
}

impl Vocabulary {
    /// Each word of `lists`, numbered, and the hashes of `lists` as those numbers.
    fn new(lists: Vec<Option<Vec<u64>>>) -> (Self, Vec<Option<Vec<u32>>>) {
        let weights = weights(&lists);
        let mut vocabulary = Self {
            hashes: Vec::with_capacity(weights.len()),
            weights: Vec::with_capacity(weights.len()),
        };
        let mut ids: HashMap<u64, u32> = HashMap::with_capacity(weights.len());
        let numbered = lists
            .into_iter()
            .map(|words| {
                let words = words?;
                Some(
                    words
                        .iter()
                        .map(|&word| {
                            *ids.entry(word).or_insert_with(|| {
                                vocabulary.hashes.push(word);
                                vocabulary
                                    .weights
                                    .push(weights.get(&word).copied().unwrap_or(1.0));
                                small(vocabulary.hashes.len() - 1)
                            })
                        })
                        .collect(),
                )
            })
            .collect();
        (vocabulary, numbered)
    }

    /// The hashes of `words` into `out`.
    fn hashes_of(&self, words: &[u32], out: &mut Vec<u64>) {
        out.clear();
        out.extend(words.iter().map(|&id| self.hashes[id as usize]));
    }

    /// `words` with their hashes and weights, into `out`.
    fn weighed(&self, words: &[u32], out: &mut Vec<(u64, f64)>) {
        out.clear();
        out.extend(
            words
                .iter()
                .map(|&id| (self.hashes[id as usize], self.weights[id as usize])),
        );
    }
}

/// `similar-descriptions`. Candidate pairs come two ways, neither comparing every pair:
/// `MinHash` with banding over word 3-grams (descriptions that share most phrases), and word
/// pairs that few descriptions use (descriptions a few edits apart share most of those). Each
/// candidate is then compared exactly.
pub(crate) fn similar_descriptions<T: AsChecked>(checked: &mut [T]) {
    let lists: Vec<Option<Vec<u64>>> = checked
        .iter()
        .map(|item| {
            description(item.checked())
                .filter(|text| text.split_whitespace().count() >= 3)
                .map(words)
        })
        .collect();
    let (vocabulary, lists) = Vocabulary::new(lists);
    // Only skills one agent loads together are compared: the model never sees the others side
    // by side.
    let groups = group_numbers(checked);
    let mut best: Vec<Option<(f64, usize)>> = vec![None; checked.len()];
    // Copies of one description are 100% the same: each is matched with the first, and only
    // the first goes on to be compared with the rest, however many copies a generator made.
    let mut copy = vec![false; lists.len()];
    let mut first_of: HashMap<(u32, &[u32]), usize> = HashMap::new();
    for (index, words) in lists.iter().enumerate() {
        let Some(words) = words else { continue };
        match first_of.get(&(groups[index], words.as_slice())) {
            Some(&first) => {
                best[index] = Some((1.0, first));
                if best[first].is_none() {
                    best[first] = Some((1.0, index));
                }
                copy[index] = true;
            }
            None => {
                first_of.insert((groups[index], words), index);
            }
        }
    }
    drop(first_of);
    let mut hashes = Vec::new();
    let compared: Vec<Option<Compared>> = lists
        .into_iter()
        .zip(copy)
        .map(|(words, copy)| {
            let words = words.filter(|_| !copy)?;
            vocabulary.hashes_of(&words, &mut hashes);
            Some(Compared {
                trigrams: grams(&hashes, 3),
                words,
            })
        })
        .collect();
    let mut index = Candidates::new(&compared, &groups, &vocabulary);
    let mut others = Vec::new();
    let (mut left_weighed, mut right_weighed) = (Vec::new(), Vec::new());
    for (a, left) in compared.iter().enumerate() {
        let Some(left) = left else { continue };
        index.of(a, &mut others);
        left_weighed.clear();
        for &b in &others {
            if groups[a] != groups[b] {
                continue;
            }
            let Some(right) = &compared[b] else { continue };
            // Sharing most phrases settles it; the edit distance is for the rest.
            let shared = jaccard(&left.trigrams, &right.trigrams);
            let score = if shared >= SIMILARITY {
                shared
            } else {
                if left_weighed.is_empty() {
                    vocabulary.weighed(&left.words, &mut left_weighed);
                }
                vocabulary.weighed(&right.words, &mut right_weighed);
                edit_similarity(&left_weighed, &right_weighed)
            };
            if score < SIMILARITY {
                continue;
            }
            for (me, other) in [(a, b), (b, a)] {
                if best[me].is_none_or(|(seen, _)| score > seen) {
                    best[me] = Some((score, other));
                }
            }
        }
    }
    drop(index);
    let names: Vec<String> = checked
        .iter()
        .map(|item| item.checked().skill.path.display().to_string())
        .collect();
    for (index, found) in best.into_iter().enumerate() {
        let Some((score, other)) = found else {
            continue;
        };
        let item = checked[index].checked_mut();
        let mut diagnostic = Diagnostic::warning(
            &SIMILAR_DESCRIPTIONS,
            format!(
                "the description is {:.0}% the same as that of `{}`",
                score * 100.0,
                names[other]
            ),
        )
        .note("the model chooses a skill by its description; it cannot tell these two apart")
        .help("say what makes each skill different, and when to use one rather than the other");
        if let Some(span) = description_span(item) {
            diagnostic = diagnostic.at(span);
        }
        diagnostic.targets.clone_from(&item.targets);
        item.diagnostics.push(diagnostic);
    }
}

/// Each skill's load group ([`crate::check::load_group`]) as a small number.
fn group_numbers<T: AsChecked>(checked: &[T]) -> Vec<u32> {
    let mut numbers: HashMap<std::path::PathBuf, u32> = HashMap::new();
    checked
        .iter()
        .map(|item| {
            let next = small(numbers.len());
            *numbers
                .entry(crate::check::load_group(&item.checked().skill.path))
                .or_insert(next)
        })
        .collect()
}

/// Where to find, for each description, the later ones worth comparing it with: those in one
/// of its `MinHash` buckets whose signatures mostly agree, and those sharing a rare word pair.
///
/// Buckets and word-pair lists are runs of sorted flat arrays rather than hash maps of vectors:
/// over 10,000 descriptions that is a few megabytes instead of tens, and no allocation per
/// bucket.
struct Candidates {
    /// Each description's `MinHash` signature, `HASHES` values in a row (32 bits suffice to
    /// estimate agreement).
    signatures: Vec<u32>,
    /// (band key, description), sorted: a run of one key is a bucket, in description order.
    banded: Vec<(u64, u32)>,
    /// (description, where its entry is in `banded`, the end of that bucket), for buckets of
    /// more than one, sorted: each description's buckets are one run.
    memberships: Vec<(u32, u32, u32)>,
    /// The descriptions using each rare word pair (one used by at most `RARE`), pair after
    /// pair.
    rare_docs: Vec<u32>,
    /// (description, start, end) in `rare_docs` of each rare pair it uses, sorted.
    rare: Vec<(u32, u32, u32)>,
    /// Whether `b` is already a candidate of `a`, and whether its signature was compared.
    stamp: Vec<usize>,
    estimated: Vec<usize>,
    shared: HashMap<usize, usize>,
}

/// `usize` as the `u32` the flat arrays hold: sets of skills, and their word pairs, are far
/// fewer than 2³² (each skill is a file read from disk).
fn small(n: usize) -> u32 {
    u32::try_from(n).expect("fewer than 2^32 descriptions and word pairs")
}

/// The runs of equal first fields of a sorted slice, as (start, end).
fn runs<K: PartialEq, V>(sorted: &[(K, V)]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= sorted.len() {
            return None;
        }
        let key = &sorted[start].0;
        let end = start + sorted[start..].partition_point(|(other, _)| other == key);
        let run = (start, end);
        start = end;
        Some(run)
    })
}

impl Candidates {
    /// `groups[i]` is description `i`'s load group: candidates come only from its own.
    fn new(compared: &[Option<Compared>], groups: &[u32], vocabulary: &Vocabulary) -> Self {
        let seeds: Vec<u64> = (1..=HASHES as u64).map(mix).collect();
        let band_seeds: Vec<u64> = (0..BANDS as u64).map(|band| mix(band ^ 0xB4D5)).collect();
        let mut signatures = vec![0u32; compared.len() * HASHES];
        // Sized once: grown by doubling, these would hold up to twice what they need.
        let described = compared.iter().flatten().count();
        let mut banded = Vec::with_capacity(described * BANDS);
        let mut signature = [u64::MAX; HASHES];
        for (index, item) in compared.iter().enumerate() {
            let Some(item) = item else { continue };
            signature.fill(u64::MAX);
            for &shingle in &item.trigrams {
                for (slot, seed) in signature.iter_mut().zip(&seeds) {
                    *slot = (*slot).min(mix(shingle ^ seed));
                }
            }
            let group = mix(u64::from(groups[index]) ^ 0x6A09_E667);
            for (band, seed) in band_seeds.iter().enumerate() {
                let key = signature[band * ROWS..(band + 1) * ROWS]
                    .iter()
                    .fold(*seed ^ group, |acc, &h| mix(acc ^ h));
                banded.push((key, small(index)));
            }
            for (slot, value) in signatures[index * HASHES..(index + 1) * HASHES]
                .iter_mut()
                .zip(signature)
            {
                // The high half: the low bits of a minimum are the least evenly spread.
                *slot = u32::try_from(value >> 32).unwrap_or(u32::MAX);
            }
        }
        banded.sort_unstable();
        let shared_buckets = runs(&banded)
            .filter(|(start, end)| end - start > 1)
            .map(|(start, end)| end - start)
            .sum();
        let mut memberships = Vec::with_capacity(shared_buckets);
        for (start, end) in runs(&banded) {
            if end - start > 1 {
                for (offset, &(_, doc)) in banded[start..end].iter().enumerate() {
                    memberships.push((doc, small(start + offset), small(end)));
                }
            }
        }
        memberships.sort_unstable();
        let (rare, rare_docs) = rare_pairs(compared, groups, vocabulary);
        Self {
            signatures,
            banded,
            memberships,
            rare_docs,
            rare,
            stamp: vec![usize::MAX; compared.len()],
            estimated: vec![usize::MAX; compared.len()],
            shared: HashMap::new(),
        }
    }

    /// The entries of `list` (sorted by description) that belong to description `a`.
    fn own(list: &[(u32, u32, u32)], a: usize) -> &[(u32, u32, u32)] {
        let a = small(a);
        let start = list.partition_point(|entry| entry.0 < a);
        let end = start + list[start..].partition_point(|entry| entry.0 == a);
        &list[start..end]
    }

    /// Puts into `out` the later descriptions worth comparing with `a`.
    fn of(&mut self, a: usize, out: &mut Vec<usize>) {
        out.clear();
        // The later members of each of its buckets, nearest first, taken from every bucket in
        // turn: a bucket of thousands (a generator's copies) is one cluster of near-duplicates,
        // and the next few members stand for the rest. At most SIGNATURES signatures are
        // compared for one description, however dense the set, which keeps the work linear.
        let buckets = Self::own(&self.memberships, a);
        let mut budget = SIGNATURES;
        'rounds: for round in 1..=NEIGHBOURS {
            let mut any = false;
            for &(_, at, end) in buckets {
                let at = at as usize + round;
                if at >= end as usize {
                    continue;
                }
                any = true;
                let b = self.banded[at].1 as usize;
                if self.estimated[b] == a {
                    continue;
                }
                if budget == 0 {
                    break 'rounds;
                }
                budget -= 1;
                self.estimated[b] = a;
                // The share of equal MinHash values estimates the similarity: skip pairs far
                // below the threshold (their edit similarity is checked below if they share
                // rare pairs).
                let agree = self.signatures[a * HASHES..(a + 1) * HASHES]
                    .iter()
                    .zip(&self.signatures[b * HASHES..(b + 1) * HASHES])
                    .filter(|(x, y)| x == y)
                    .count();
                if agree * 10 >= HASHES * 6 {
                    self.stamp[b] = a;
                    out.push(b);
                }
            }
            if !any {
                break;
            }
        }
        // Those sharing the most rare word pairs with it, a few at most.
        self.shared.clear();
        let rare = Self::own(&self.rare, a);
        for &(_, start, end) in rare {
            for &b in &self.rare_docs[start as usize..end as usize] {
                let b = b as usize;
                if b > a && self.stamp[b] != a {
                    *self.shared.entry(b).or_default() += 1;
                }
            }
        }
        let wanted = rare.len().min(6);
        let mut ranked: Vec<(usize, usize)> = self
            .shared
            .iter()
            .filter(|&(_, &count)| count * 3 >= wanted)
            .map(|(&b, &count)| (count, b))
            .collect();
        ranked.sort_unstable_by(|x, y| y.cmp(x));
        out.extend(ranked.into_iter().take(NEIGHBOURS).map(|(_, b)| b));
    }
}

/// The rare word pairs (those at most [`RARE`] descriptions of one group use): for each pair a
/// run of `rare_docs` holding its descriptions, and `(description, start, end)` of each pair a
/// description uses, sorted.
fn rare_pairs(
    compared: &[Option<Compared>],
    groups: &[u32],
    vocabulary: &Vocabulary,
) -> (Vec<(u32, u32, u32)>, Vec<u32>) {
    // Which descriptions use each word pair: the list of every (pair, description) is the
    // largest thing here, so it is made a part at a time, by the pairs' top hash bits (the
    // parts, each sorted, are then in the order the whole list would be).
    let mut rare = Vec::new();
    let mut rare_docs = Vec::new();
    let mut hashes = Vec::new();
    // The part of a pair: its hash scaled to 0..PARTS, so that the parts keep hash order.
    let part_of =
        |pair: u64| usize::try_from((u128::from(pair) * PARTS as u128) >> 64).expect("below PARTS");
    // A pair is counted within its description's group: rare there is what matters.
    let pairs = |index: usize, hashes: &mut Vec<u64>| {
        compared[index].as_ref().map_or_else(Vec::new, |item| {
            vocabulary.hashes_of(&item.words, hashes);
            let group = mix(u64::from(groups[index]) ^ 0xBB67_AE85);
            let mut pairs = grams(hashes, 2);
            for pair in &mut pairs {
                *pair = mix(*pair ^ group);
            }
            pairs
        })
    };
    let mut sizes = [0usize; PARTS];
    for index in 0..compared.len() {
        for pair in pairs(index, &mut hashes) {
            sizes[part_of(pair)] += 1;
        }
    }
    for (part, size) in sizes.into_iter().enumerate() {
        let mut postings = Vec::with_capacity(size);
        for index in 0..compared.len() {
            postings.extend(
                pairs(index, &mut hashes)
                    .into_iter()
                    .filter(|&pair| part_of(pair) == part)
                    .map(|pair| (pair, small(index))),
            );
        }
        postings.sort_unstable();
        let in_rare = runs(&postings)
            .filter(|(start, end)| end - start <= RARE)
            .map(|(start, end)| end - start)
            .sum();
        rare.reserve_exact(in_rare);
        rare_docs.reserve_exact(in_rare);
        for (start, end) in runs(&postings) {
            // Past the cap the list is useless: a set phrase, not evidence.
            if end - start <= RARE {
                let first = small(rare_docs.len());
                rare_docs.extend(postings[start..end].iter().map(|&(_, doc)| doc));
                let last = small(rare_docs.len());
                for &(_, doc) in &postings[start..end] {
                    rare.push((doc, first, last));
                }
            }
        }
    }
    rare.sort_unstable();
    (rare, rare_docs)
}

/// The listing a skill is in: the Claude Code plugin that loads it (each plugin is installed,
/// and listed, on its own), or the `.claude/skills` folder it is in. `None` for a skill in any
/// other folder: such skills are installed one by one, in no known company.
fn listing_of(item: &Checked) -> Option<std::path::PathBuf> {
    crate::check::plugin_of(&item.skill.path).or_else(|| {
        let folder = item.skill.path.parent()?.parent()?;
        let in_claude =
            folder.file_name()? == "skills" && folder.parent()?.file_name()? == ".claude";
        in_claude.then(|| folder.to_path_buf())
    })
}

/// `listing-over-budget`, for the skills checked under a Claude Code target: once per listing
/// (a plugin's skills, or a `.claude/skills` folder's), on the first skill it affects. Skills
/// in no listing are not checked.
pub(crate) fn listing_budget<T: AsChecked>(checked: &mut [T], context_window: usize) {
    // Each listing's members, found in one pass.
    let mut listings: std::collections::BTreeMap<std::path::PathBuf, Vec<usize>> =
        std::collections::BTreeMap::new();
    for (index, item) in checked.iter().enumerate() {
        if let Some(key) = listing_of(item.checked()) {
            listings.entry(key).or_default().push(index);
        }
    }
    for target in [Target::ClaudeCode, Target::ClaudeCode2188] {
        let style = match target.family() {
            Family::ClaudeCode { modern: true } => CapStyle::Current,
            _ => CapStyle::V2188,
        };
        for (key, members) in &listings {
            over_budget(checked, members, key, target, style, context_window);
        }
    }
}

fn over_budget<T: AsChecked>(
    checked: &mut [T],
    members: &[usize],
    key: &std::path::Path,
    target: Target,
    style: CapStyle,
    context_window: usize,
) {
    // Listing order, as Claude Code builds it.
    let mut members: Vec<(String, usize, Entry)> = members
        .iter()
        .map(|&index| (index, checked[index].checked()))
        .filter(|(_, item)| item.targets.contains(&target))
        .filter_map(|(index, item)| {
            let entry = entry(item, style)?;
            Some((item.skill.dir_name.clone(), index, entry))
        })
        .collect();
    // Claude Code's order: ICU root collation of the folder names (2.1.88 read order is the
    // walk's, which is sorted by path).
    if style == CapStyle::Current {
        members.sort_by(|a, b| crate::agent::collate::compare(&a.0, &b.0));
    }
    let entries: Vec<Entry> = members.iter().map(|(_, _, entry)| entry.clone()).collect();
    let result = match style {
        CapStyle::Current => listing::over_budget_current(
            &entries,
            listing::budget(context_window, listing::chars_per_token(context_window)),
            listing::BUNDLED_RESERVE,
        ),
        CapStyle::V2188 => listing::over_budget_2188(&entries, listing::budget(context_window, 4)),
    };
    let Some(result) = result else { return };
    let Some(&first) = result.affected.first() else {
        return;
    };
    let mut named: Vec<String> = result
        .affected
        .iter()
        .take(5)
        .map(|&position| format!("`{}`", members[position].0))
        .collect();
    if result.affected.len() > 5 {
        named.push(format!("and {} more", result.affected.len() - 5));
    }
    let count = result.affected.len();
    let what = match result.share {
        None | Some(0) => format!("lists {count} of them by name only, without their descriptions"),
        Some(share) => format!("cuts the descriptions of {count} of them to {share} columns"),
    };
    let of = if key.ends_with(".claude/skills") {
        format!("`{}`", key.display())
    } else {
        // The repository's own root is the empty path when it was walked as `.`.
        let key = if key.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            key
        };
        let named = fs_err::canonicalize(key).unwrap_or_else(|_| key.to_path_buf());
        let name = named.file_name().map_or_else(
            || named.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        format!("the plugin `{name}`")
    };
    let index = members[first].1;
    let item = checked[index].checked_mut();
    let mut diagnostic = Diagnostic::warning(
        &LISTING_OVER_BUDGET,
        format!(
            "the listing of {of} ({} {}) is over its budget: {} {what}",
            entries.len(),
            if entries.len() == 1 { "skill" } else { "skills" },
            target.display(),
        ),
    )
    .note(format!(
        "the listing needs {} columns; the budget at a {context_window}-token context window is {}{}; affected: {}",
        result.needed,
        result.budget,
        if style == CapStyle::Current { ", and descriptions are dropped whole, in listing order, when the model has no usage history" } else { "" },
        named.join(", ")
    ))
    .help("shorten the descriptions, or split the skills across plugins");
    if let Some(span) = description_span(item) {
        diagnostic = diagnostic.at(span);
    }
    diagnostic.targets = vec![target];
    item.diagnostics.push(diagnostic);
}

/// Everything of one skill the rules across skills read, beside its path and targets: while no
/// skill's key changes, their findings stay the same (a language server re-runs them only when
/// one does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetKey {
    frontmatter: bool,
    name: Option<Box<crate::skill::model::Field<String>>>,
    description: Option<Box<crate::skill::model::Field<String>>>,
    when_to_use: Option<Box<crate::skill::model::Field<String>>>,
    disable_model_invocation: Option<Box<crate::skill::model::Field<bool>>>,
    user_invocable: Option<Box<crate::skill::model::Field<bool>>>,
    paths: Option<Box<crate::skill::model::Field<Vec<crate::skill::model::Spanned<String>>>>>,
    /// The body's first line, Claude Code's description when there is none.
    fallback: Option<String>,
}

pub(crate) fn set_key(item: &Checked) -> SetKey {
    let reading = item.skill.reading();
    let doc = reading.and_then(|reading| reading.doc.as_ref());
    SetKey {
        frontmatter: reading.is_some_and(|reading| {
            matches!(reading.split, crate::skill::frontmatter::Split::Found(_))
        }),
        name: doc.and_then(|doc| doc.name.clone()),
        description: doc.and_then(|doc| doc.description.clone()),
        when_to_use: doc.and_then(|doc| doc.when_to_use.clone()),
        disable_model_invocation: doc.and_then(|doc| doc.disable_model_invocation.clone()),
        user_invocable: doc.and_then(|doc| doc.user_invocable.clone()),
        paths: doc.and_then(|doc| doc.paths.clone()),
        fallback: reading.and_then(|reading| fallback_line(item.skill.body(reading))),
    }
}

/// What the listing hover needs of one skill, computed once per change of it: the listing it
/// is in, its entry (`None`: not listed), and whether it is checked for Claude Code.
#[derive(Clone, Debug)]
pub(crate) struct ListingFacts {
    listing: Option<std::path::PathBuf>,
    entry: Option<Entry>,
    claude_code: bool,
}

pub(crate) fn listing_facts(item: &Checked) -> ListingFacts {
    ListingFacts {
        listing: listing_of(item),
        entry: entry(item, CapStyle::Current),
        claude_code: item.targets.contains(&Target::ClaudeCode),
    }
}

/// One skill's line in Claude Code 2.1.332's listing and what the budget does with it, as
/// [`listing_budget`] computes it: an editor shows it when the author points at the
/// description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ListingLine {
    /// The line as listed: `- name: text`, the text sanitised and cut at the per-entry cap.
    pub line: String,
    /// Terminal columns the line costs in the budget.
    pub columns: usize,
    /// The per-entry cap cut the text.
    pub capped: bool,
    /// The listing it is in (a `.claude/skills` folder or a plugin), if any.
    pub listing: Option<std::path::PathBuf>,
    /// Skills in that listing (this one alone when it is in none).
    pub members: usize,
    pub budget: usize,
    /// Columns the whole listing needs, Claude Code's own skills included.
    pub needed: usize,
    /// The budget keeps the description (names are never dropped).
    pub kept: bool,
}

/// [`ListingLine`] for the skill `index` of `facts` (every skill's [`ListingFacts`], in the
/// order the rules see them), or `None` when Claude Code does not list it
/// (`disable-model-invocation`, or `paths`).
pub(crate) fn listing_line(
    facts: &[ListingFacts],
    index: usize,
    context_window: usize,
) -> Option<ListingLine> {
    let style = CapStyle::Current;
    let item = facts.get(index)?;
    let own = item.entry.clone()?;
    let mut members: Vec<(usize, &Entry)> = match &item.listing {
        Some(key) => facts
            .iter()
            .enumerate()
            .filter(|&(other, candidate)| {
                other == index || (candidate.claude_code && candidate.listing.as_ref() == Some(key))
            })
            .filter_map(|(other, candidate)| Some((other, candidate.entry.as_ref()?)))
            .collect(),
        None => vec![(index, &own)],
    };
    members.sort_by(|a, b| crate::agent::collate::compare(&a.1.name, &b.1.name));
    let position = members.iter().position(|member| member.0 == index)?;
    let entries: Vec<Entry> = members
        .into_iter()
        .map(|(_, entry)| entry.clone())
        .collect();
    let budget = listing::budget(context_window, listing::chars_per_token(context_window));
    let result = listing::over_budget_current(&entries, budget, listing::BUNDLED_RESERVE);
    let needed = listing::needed_current(&entries, listing::BUNDLED_RESERVE);
    let line = format!("- {}: {}", own.name, own.text);
    // Cut text ends in `…` at exactly the cap (a text that long ending in `…` is rare).
    let capped = own.text.ends_with('…') && listing::utf16_len(&own.text) == style.cap();
    Some(ListingLine {
        columns: listing::width(&line),
        line,
        capped,
        listing: item.listing.clone(),
        members: entries.len(),
        budget,
        needed,
        kept: result.is_none_or(|result| !result.affected.contains(&position)),
    })
}

/// The skill's listing entry, or `None` when Claude Code does not list it.
fn entry(item: &Checked, style: CapStyle) -> Option<Entry> {
    let reading = item.skill.reading()?;
    let doc = reading.doc.as_ref();
    if doc
        .and_then(|doc| doc.disable_model_invocation.as_deref())
        .is_some_and(|field| field.value == Ok(true))
    {
        return None;
    }
    if doc.and_then(|doc| doc.paths.as_deref()).is_some() {
        return None;
    }
    let description = doc
        .and_then(|doc| doc.description.as_deref())
        .and_then(|field| field.value.as_ref().ok())
        .filter(|text| !text.trim().is_empty())
        .cloned()
        .or_else(|| fallback_line(item.skill.body(reading)))
        .unwrap_or_default();
    let when_to_use = doc
        .and_then(|doc| doc.when_to_use.as_deref())
        .and_then(|field| field.value.as_ref().ok())
        .map(String::as_str);
    let text = listing::entry_text(&description, when_to_use, style);
    Some(Entry {
        name: item.skill.dir_name.clone(),
        text: listing::capped(&text, style.cap()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_words_apart_is_similar() {
        let texts = [
            "Triages flaky test runs: reruns the suite, groups the failures by their error message and reports which tests fail at random. Use when CI is red for no clear reason.",
            "Triages flaky test runs: reruns the suite, groups failures by their error message and reports which tests fail randomly. Use when CI is red for no clear reason.",
            "Triages flaky test runs. Use when CI is red.",
        ];
        let lists: Vec<Option<Vec<u64>>> = texts.iter().map(|text| Some(words(text))).collect();
        let weights = weights(&lists);
        let weighted: Vec<Vec<(u64, f64)>> = lists
            .iter()
            .flatten()
            .map(|words| words.iter().map(|w| (*w, weights[w])).collect())
            .collect();
        let (a, b, c) = (&weighted[0], &weighted[1], &weighted[2]);
        let score = edit_similarity(a, b);
        assert!(score > SIMILARITY && score < 0.95, "{score}");
        let trigrams = |text: &str| grams(&words(text), 3);
        assert!(jaccard(&trigrams(texts[0]), &trigrams(texts[1])) < SIMILARITY);
        assert!(edit_similarity(a, c) < 0.01, "too different in length");
        assert!((edit_similarity(a, a) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_words_that_say_what_a_skill_does_weigh_most() {
        // Forty descriptions from one template: only the task differs (and a word or two).
        let tasks = ["audit", "migrate", "review", "convert"];
        let nouns = ["reports", "schemas", "charts", "logs", "tickets"];
        let mut texts = Vec::new();
        for (index, verb) in tasks.iter().cycle().take(40).enumerate() {
            let noun = nouns[index % nouns.len()];
            texts.push(format!("{verb} {noun} and report what needs attention. Use when the user asks to {verb} {noun}, mentions {noun} files, or wants a summary of field data."));
        }
        texts.push("audit reports and report what needs attention. Use when the user asks to audit reports, mentions reports files, or wants a summary of the field data.".to_owned());
        let lists: Vec<Option<Vec<u64>>> = texts.iter().map(|text| Some(words(text))).collect();
        let weights = weights(&lists);
        let weighted = |index: usize| -> Vec<(u64, f64)> {
            words(&texts[index])
                .iter()
                .map(|w| (*w, weights[w]))
                .collect()
        };
        // 0 is "audit reports"; the last adds one common word.
        assert!(edit_similarity(&weighted(0), &weighted(40)) > SIMILARITY);
        // 1 is "migrate schemas", 5 "migrate reports": another task.
        for other in [1, 5] {
            let score = edit_similarity(&weighted(0), &weighted(other));
            assert!(score < SIMILARITY, "{} {score}", texts[other]);
        }
    }

    #[test]
    fn jaccard_of_shingles() {
        let a = shingles("Formats release notes from git tags. Use when asked for a changelog.");
        let b = shingles("Formats release notes from git tags. Use when asked for a change log.");
        let c = shingles("Profiles CSV files and reports empty columns. Use for data checks.");
        assert!(jaccard(&a, &a) > 0.99);
        assert!(jaccard(&a, &b) > 0.6);
        assert!(jaccard(&a, &c) < 0.1);
    }

    /// Thousands of copies of one long description (a generator's output) cost linear work:
    /// four times the skills take at most 6.25 times as long (quadratic would be 16 times).
    #[test]
    fn a_cluster_of_identical_descriptions_is_linear() {
        let text = "Formats release notes from merged pull requests, grouped by label. ".repeat(4);
        let skills = |n: usize| -> Vec<Checked> {
            (0..n)
                .map(|index| {
                    // Three words that differ between neighbours: the edit distance decides.
                    let tag = index % 5;
                    let bytes = format!("---\nname: s{index}\ndescription: Tag{tag} {text} tag{tag} and t{tag}.\n---\nBody.\n");
                    let skill = crate::skill::Skill::from_bytes(
                        std::path::PathBuf::from(format!("s{index}/SKILL.md")),
                        format!("s{index}"),
                        bytes.into_bytes(),
                    );
                    crate::check::check_skill(skill, &[crate::agent::Target::AgentSkills])
                })
                .collect()
        };
        let time = |n: usize| {
            (0..3)
                .map(|_| {
                    let mut checked = skills(n);
                    let started = std::time::Instant::now();
                    similar_descriptions(&mut checked);
                    let elapsed = started.elapsed();
                    assert!(
                        checked
                            .iter()
                            .all(|item| item.diagnostics.iter().any(|d| d.rule.code == "SK602"))
                    );
                    elapsed
                })
                .min()
                .unwrap()
        };
        let (small, large) = (time(500), time(2000));
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
        assert!(
            ratio <= 6.25,
            "4x the skills took {ratio:.1}x as long ({small:?} -> {large:?})"
        );
    }

    /// Long descriptions that share a long preamble and differ in their last quarter are not
    /// "100% the same": no part of either is left out of the comparison.
    #[test]
    fn a_shared_preamble_is_not_the_whole_description() {
        let words = |prefix: &str, n: usize| {
            (0..n)
                .map(|i| format!("{prefix}{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let preamble = words("w", 130);
        let one = format!("{preamble} {}", words("a", 45));
        let two = format!("{preamble} {}", words("b", 45));
        let mut checked: Vec<Checked> = [one, two]
            .iter()
            .enumerate()
            .map(|(index, text)| {
                let bytes = format!("---\nname: s{index}\ndescription: {text}\n---\nBody.\n");
                let skill = crate::skill::Skill::from_bytes(
                    std::path::PathBuf::from(format!("s{index}/SKILL.md")),
                    format!("s{index}"),
                    bytes.into_bytes(),
                );
                crate::check::check_skill(skill, &[crate::agent::Target::AgentSkills])
            })
            .collect();
        similar_descriptions(&mut checked);
        let found: Vec<&str> = checked
            .iter()
            .flat_map(|item| &item.diagnostics)
            .filter(|d| d.rule.code == "SK602")
            .map(|d| d.message.as_str())
            .collect();
        assert!(found.is_empty(), "{found:?}");
    }
}
