//! Lint rules across a set of skills: near-duplicate descriptions, and the listing budget.

use std::collections::HashMap;

use crate::agent::claude_code::listing::{self, CapStyle, Entry};
use crate::agent::claude_code::reading::fallback_line;
use crate::agent::{Family, Target};
use crate::check::Checked;
use crate::check::diagnostic::Diagnostic;
use crate::check::rule::{LISTING_OVER_BUDGET, SIMILAR_DESCRIPTIONS};

/// Two descriptions with at least this Jaccard similarity (of word 3-grams) are near-duplicates.
pub(crate) const SIMILARITY: f64 = 0.8;
const HASHES: usize = 64;
const BANDS: usize = 16;
const ROWS: usize = HASHES / BANDS;

/// The description as skillpkg reads it, if it is text.
fn description(item: &Checked) -> Option<&str> {
    let doc = item.skill.reading()?.doc.as_ref()?;
    doc.description.as_ref()?.value.as_deref().ok()
}

fn description_span(item: &Checked) -> Option<std::ops::Range<usize>> {
    let doc = item.skill.reading()?.doc.as_ref()?;
    doc.description.as_ref().map(|field| field.span.clone())
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

/// The description's word 3-grams, hashed, sorted and deduplicated.
fn shingles(text: &str) -> Vec<u64> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut out: Vec<u64> = if words.len() < 3 {
        vec![hash(&words.join(" "))]
    } else {
        words
            .windows(3)
            .map(|window| hash(&window.join(" ")))
            .collect()
    };
    out.sort_unstable();
    out.dedup();
    out
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
        // Shingle counts are far below 2^52: the conversion is exact.
        #[expect(
            clippy::cast_precision_loss,
            reason = "shingle counts are far below 2^52: the conversion is exact"
        )]
        let ratio = both as f64 / union as f64;
        ratio
    }
}

/// `similar-descriptions`: `MinHash` with banding finds candidate pairs without comparing every
/// pair; candidates are then compared exactly.
pub(crate) fn similar_descriptions(checked: &mut [Checked]) {
    let sets: Vec<Option<Vec<u64>>> = checked
        .iter()
        .map(|item| {
            description(item)
                .filter(|text| text.split_whitespace().count() >= 3)
                .map(shingles)
        })
        .collect();
    let seeds: Vec<u64> = (1..=HASHES as u64).map(mix).collect();
    let mut buckets: HashMap<(usize, u64), Vec<usize>> = HashMap::new();
    let mut signatures: Vec<Vec<u64>> = vec![Vec::new(); checked.len()];
    for (index, set) in sets.iter().enumerate() {
        let Some(set) = set else { continue };
        let mut signature = vec![u64::MAX; HASHES];
        for &shingle in set {
            for (slot, seed) in signature.iter_mut().zip(&seeds) {
                *slot = (*slot).min(mix(shingle ^ seed));
            }
        }
        for band in 0..BANDS {
            let key = signature[band * ROWS..(band + 1) * ROWS]
                .iter()
                .fold(0u64, |acc, &h| mix(acc ^ h));
            buckets.entry((band, key)).or_default().push(index);
        }
        signatures[index] = signature;
    }
    // Each skill's candidates are the other members of its buckets; a stamp per skill says
    // whether it was already compared with the current one.
    let mut keys_of: Vec<Vec<(usize, u64)>> = vec![Vec::new(); checked.len()];
    for (key, members) in &buckets {
        if members.len() > 1 {
            for &member in members {
                keys_of[member].push(*key);
            }
        }
    }
    let mut best: Vec<Option<(f64, usize)>> = vec![None; checked.len()];
    let mut stamp: Vec<usize> = vec![usize::MAX; checked.len()];
    for a in 0..checked.len() {
        for key in &keys_of[a] {
            for &b in &buckets[key] {
                if b <= a || stamp[b] == a {
                    continue;
                }
                stamp[b] = a;
                // The share of equal MinHash values estimates the similarity: skip pairs far
                // below the threshold before comparing exactly.
                let agree = signatures[a]
                    .iter()
                    .zip(&signatures[b])
                    .filter(|(x, y)| x == y)
                    .count();
                if agree * 10 < HASHES * 6 {
                    continue;
                }
                let (Some(left), Some(right)) = (&sets[a], &sets[b]) else {
                    continue;
                };
                let score = jaccard(left, right);
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
    }
    let names: Vec<String> = checked
        .iter()
        .map(|item| item.skill.path.display().to_string())
        .collect();
    for (index, found) in best.into_iter().enumerate() {
        let Some((score, other)) = found else {
            continue;
        };
        let item = &mut checked[index];
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
pub(crate) fn listing_budget(checked: &mut [Checked], context_window: usize) {
    // Each listing's members, found in one pass.
    let mut listings: std::collections::BTreeMap<std::path::PathBuf, Vec<usize>> =
        std::collections::BTreeMap::new();
    for (index, item) in checked.iter().enumerate() {
        if let Some(key) = listing_of(item) {
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

fn over_budget(
    checked: &mut [Checked],
    members: &[usize],
    key: &std::path::Path,
    target: Target,
    style: CapStyle,
    context_window: usize,
) {
    // Listing order, as Claude Code builds it.
    let mut members: Vec<(String, usize, Entry)> = members
        .iter()
        .map(|&index| (index, &checked[index]))
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
        let named = fs_err::canonicalize(key).unwrap_or_else(|_| key.to_path_buf());
        let name = named.file_name().map_or_else(
            || named.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        format!("the plugin `{name}`")
    };
    let index = members[first].1;
    let item = &mut checked[index];
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

/// The skill's listing entry, or `None` when Claude Code does not list it.
fn entry(item: &Checked, style: CapStyle) -> Option<Entry> {
    let reading = item.skill.reading()?;
    let doc = reading.doc.as_ref();
    if doc
        .and_then(|doc| doc.disable_model_invocation.as_ref())
        .is_some_and(|field| field.value == Ok(true))
    {
        return None;
    }
    if doc.and_then(|doc| doc.paths.as_ref()).is_some() {
        return None;
    }
    let description = doc
        .and_then(|doc| doc.description.as_ref())
        .and_then(|field| field.value.as_ref().ok())
        .filter(|text| !text.trim().is_empty())
        .cloned()
        .or_else(|| fallback_line(item.skill.body(reading)))
        .unwrap_or_default();
    let when_to_use = doc
        .and_then(|doc| doc.when_to_use.as_ref())
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
    fn jaccard_of_shingles() {
        let a = shingles("Formats release notes from git tags. Use when asked for a changelog.");
        let b = shingles("Formats release notes from git tags. Use when asked for a change log.");
        let c = shingles("Profiles CSV files and reports empty columns. Use for data checks.");
        assert!(jaccard(&a, &a) > 0.99);
        assert!(jaccard(&a, &b) > 0.6);
        assert!(jaccard(&a, &c) < 0.1);
    }
}
