//! Fixes: byte-range edits on a skill file's text, applied without re-serialising anything, so
//! formatting and comments survive.
//!
//! A fix is written against the normalised text (no BOM, `\n` line endings) that rules see, and
//! mapped back to the original bytes when applied: offsets move past the BOM and the removed
//! `\r`s, and inserted line breaks become `\r\n` in a file that uses them.

use std::collections::HashSet;
use std::ops::Range;

use serde::Serialize;

use super::Checked;
use super::diagnostic::Diagnostic;
use crate::skill::text::SourceText;

/// Whether a fix can be applied without a person looking at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Keeps the meaning for every agent: applied by `--fix`.
    Safe,
    /// Changes what some agent sees: applied only with `--unsafe-fixes`.
    Unsafe,
}

/// Replace `range` (in the normalised text) with `text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

/// A change that resolves a finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub applicability: Applicability,
    /// What it does, for people: "quote the value".
    pub message: String,
    pub edits: Vec<Edit>,
}

impl Fix {
    pub(crate) fn safe(message: impl Into<String>, edits: Vec<Edit>) -> Self {
        Self {
            applicability: Applicability::Safe,
            message: message.into(),
            edits,
        }
    }

    pub(crate) fn unsafe_(message: impl Into<String>, edits: Vec<Edit>) -> Self {
        Self {
            applicability: Applicability::Unsafe,
            message: message.into(),
            edits,
        }
    }

    /// One edit that replaces `range` with `text`.
    pub fn replace(
        applicability: Applicability,
        message: impl Into<String>,
        range: Range<usize>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            applicability,
            message: message.into(),
            edits: vec![Edit {
                range,
                text: text.into(),
            }],
        }
    }

    fn span(&self) -> Range<usize> {
        let start = self.edits.iter().map(|e| e.range.start).min().unwrap_or(0);
        let end = self.edits.iter().map(|e| e.range.end).max().unwrap_or(0);
        start..end
    }
}

/// Applies as many of `fixes` as do not overlap, in order of position, to `original` (the file's
/// bytes, which `source` was decoded from). Returns the new bytes and the indexes (into `fixes`)
/// of the fixes used.
pub fn apply(source: &SourceText, original: &[u8], fixes: &[&Fix]) -> (Vec<u8>, Vec<usize>) {
    let mut ordered: Vec<(usize, &Fix)> = fixes.iter().copied().enumerate().collect();
    ordered.sort_by_key(|(_, fix)| (fix.span().start, fix.span().end));
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut applied = Vec::new();
    let mut taken_until = 0;
    let mut first = true;
    for (index, fix) in ordered {
        let span = fix.span();
        // Two fixes touching the same bytes: keep the first; the next round re-checks the rest.
        if !first && span.start < taken_until {
            continue;
        }
        first = false;
        taken_until = span.end.max(taken_until);
        applied.push(index);
        for edit in &fix.edits {
            let start = source.original_edit_offset(edit.range.start);
            let end = source.original_edit_offset(edit.range.end);
            let text = if source.uses_crlf() {
                edit.text.replace('\n', "\r\n")
            } else {
                edit.text.clone()
            };
            edits.push((start..end, text));
        }
    }
    edits.sort_by_key(|(range, _)| (range.start, range.end));
    let mut out = Vec::with_capacity(original.len());
    let mut at = 0;
    for (range, text) in edits {
        if range.start < at {
            continue;
        }
        out.extend_from_slice(&original[at..range.start]);
        out.extend_from_slice(text.as_bytes());
        at = range.end;
    }
    out.extend_from_slice(&original[at..]);
    (out, applied)
}

/// Fixes are re-applied until nothing changes, at most this many rounds.
pub(crate) const MAX_FIX_ROUNDS: usize = 50;

/// When fixes interfere and are applied one at a time, at most this many rounds in all.
pub(crate) const MAX_SINGLE_FIXES: usize = 500;

/// The result of [`fix_until_stable`].
#[derive(Debug)]
pub struct Fixing<T> {
    /// The text after every fix that was kept.
    pub bytes: Vec<u8>,
    /// How many fixes were kept.
    pub fixed: usize,
    /// The analysis of `bytes`.
    pub checked: Checked,
    /// What else the analysis of `bytes` returned.
    pub extra: T,
    /// The rounds ran out with fixes left to apply: running again may fix more.
    pub exhausted: bool,
}

/// Analyses `original` with `analyse` and, when `allow_unsafe` is given (`Some(false)`: safe
/// fixes only), applies the fixes it offers, round after round, until none is left: at most
/// [`MAX_FIX_ROUNDS`] rounds of every fix that does not overlap another, then, if fixes turn
/// out to interfere, one fix per round (at most [`MAX_SINGLE_FIXES`] in all).
///
/// After each round the findings are counted again. A round after which a finding its fixes
/// were for occurs as often as before is undone: with several fixes in it, the fixes may have
/// undone each other, so the run goes on one fix at a time; with one, the fix is broken (it
/// leaves its own finding), and that finding's fix is never applied again in this pass. A
/// broken fix thus never rewrites the file round after round.
///
/// Which fixes a pass refuses depends on the text it refused them on, so a fix refused early
/// may work once others have been applied. When a pass refused fixes and changed the text, a
/// fresh pass starts from its result (at most [`MAX_FIX_PASSES`]), until a pass changes
/// nothing: running the whole again on the result is then exactly that last pass, so it changes
/// nothing either.
pub fn fix_until_stable<T>(
    original: &[u8],
    allow_unsafe: Option<bool>,
    mut analyse: impl FnMut(&[u8]) -> (Checked, T),
) -> Fixing<T> {
    let mut current = original.to_vec();
    let mut fixed = 0;
    for _ in 0..MAX_FIX_PASSES {
        let (mut pass, refused_any) = fix_pass(&current, allow_unsafe, &mut analyse);
        fixed += pass.fixed;
        if pass.exhausted || !refused_any || pass.bytes == current {
            pass.fixed = fixed;
            return pass;
        }
        current = std::mem::take(&mut pass.bytes);
    }
    let (checked, extra) = analyse(&current);
    Fixing {
        bytes: current,
        fixed,
        checked,
        extra,
        exhausted: true,
    }
}

/// A fresh pass of [`fix_until_stable`] starts when the last refused fixes and changed the
/// text, at most this many times.
pub(crate) const MAX_FIX_PASSES: usize = 8;

/// One pass of [`fix_until_stable`], and whether it refused any fix.
fn fix_pass<T>(
    original: &[u8],
    allow_unsafe: Option<bool>,
    analyse: &mut impl FnMut(&[u8]) -> (Checked, T),
) -> (Fixing<T>, bool) {
    let mut current = original.to_vec();
    let mut fixed = 0;
    let mut rounds = 0;
    let mut one_at_a_time = false;
    let mut refused: HashSet<FindingKey> = HashSet::new();
    let mut last: Option<Round> = None;
    loop {
        let (checked, extra) = analyse(&current);
        let counts = occurrences(&checked);
        if let Some(round) = last.take() {
            let stubborn: Vec<FindingKey> = round
                .findings
                .into_iter()
                .filter(|(key, before)| counts.get(key).copied().unwrap_or(0) >= *before)
                .map(|(key, _)| key)
                .collect();
            if !stubborn.is_empty() {
                current = round.before;
                fixed -= round.applied;
                if round.applied > 1 {
                    one_at_a_time = true;
                } else {
                    refused.extend(stubborn);
                }
                continue;
            }
        }
        let limit = if one_at_a_time {
            MAX_SINGLE_FIXES
        } else {
            MAX_FIX_ROUNDS
        };
        // A finding this pass may still fix: its fix is allowed and has not been refused.
        let wanted = |d: &Diagnostic| {
            d.fix.as_ref().is_some_and(|fix| {
                allow_unsafe == Some(true) || fix.applicability == Applicability::Safe
            }) && !refused.contains(&finding_key(d))
        };
        let mut fixable: Vec<&Diagnostic> = if allow_unsafe.is_some() && rounds < limit {
            checked.diagnostics.iter().filter(|d| wanted(d)).collect()
        } else {
            Vec::new()
        };
        if one_at_a_time {
            fixable.truncate(1);
        }
        let applicable: Vec<&Fix> = fixable.iter().filter_map(|d| d.fix.as_ref()).collect();
        let next = match (applicable.is_empty(), checked.skill.source()) {
            (false, Ok(source)) => Some(apply(source, &current, &applicable)),
            _ => None,
        };
        match next {
            Some((bytes, applied)) if bytes != current && !applied.is_empty() => {
                let mut findings: Vec<(FindingKey, usize)> = Vec::new();
                let mut seen = HashSet::new();
                for &index in &applied {
                    let key = finding_key(fixable[index]);
                    if seen.insert(key.clone()) {
                        let count = counts.get(&key).copied().unwrap_or(0);
                        findings.push((key, count));
                    }
                }
                fixed += applied.len();
                last = Some(Round {
                    before: std::mem::replace(&mut current, bytes),
                    applied: applied.len(),
                    findings,
                });
                rounds += 1;
            }
            _ => {
                let exhausted = allow_unsafe.is_some()
                    && rounds >= limit
                    && checked.diagnostics.iter().any(wanted);
                let fixing = Fixing {
                    bytes: current,
                    fixed,
                    checked,
                    extra,
                    exhausted,
                };
                return (fixing, !refused.is_empty());
            }
        }
    }
}

/// What identifies a finding across rounds of fixes: its rule's code and its message (its span
/// moves).
type FindingKey = (&'static str, String);

/// One round of fixes, as [`fix_until_stable`] checks it afterwards.
struct Round {
    /// The text before the round.
    before: Vec<u8>,
    /// How many fixes it applied.
    applied: usize,
    /// The findings those fixes were for, with how often each occurred before.
    findings: Vec<(FindingKey, usize)>,
}

fn finding_key(diagnostic: &Diagnostic) -> FindingKey {
    (diagnostic.rule.code, diagnostic.message.clone())
}

/// How often each finding occurs in `checked`.
fn occurrences(checked: &Checked) -> std::collections::HashMap<FindingKey, usize> {
    let mut counts = std::collections::HashMap::new();
    for diagnostic in &checked.diagnostics {
        *counts.entry(finding_key(diagnostic)).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(range: Range<usize>, text: &str) -> Fix {
        Fix::replace(Applicability::Safe, "x", range, text)
    }

    #[test]
    fn edits_land_on_the_original_bytes_of_a_crlf_file_with_a_bom() {
        let original = b"\xEF\xBB\xBFa: b c\r\nd: e\r\n".to_vec();
        let source = SourceText::decode(original.clone()).unwrap();
        // Quote `b c` (normalised 3..6) and insert a line after line 1.
        let quote = fix(3..6, "\"b c\"");
        let insert = fix(7..7, "x: y\n");
        let (out, applied) = apply(&source, &original, &[&insert, &quote]);
        assert_eq!(applied, [1, 0]);
        assert_eq!(out, b"\xEF\xBB\xBFa: \"b c\"\r\nx: y\r\nd: e\r\n");
    }

    #[test]
    fn overlapping_fixes_keep_the_first() {
        let original = b"abcdef".to_vec();
        let source = SourceText::decode(original.clone()).unwrap();
        let (out, applied) = apply(
            &source,
            &original,
            &[&fix(1..4, "X"), &fix(2..5, "Y"), &fix(5..6, "Z")],
        );
        assert_eq!((out.as_slice(), applied), (b"aXeZ".as_slice(), vec![0, 2]));
    }

    use crate::agent::Target;
    use crate::check::check_skill;
    use crate::check::rule::AMBIGUOUS_SCALAR;
    use crate::skill::Skill;

    /// Runs the fix loop over `original` with skillpkg's own rules plus one extra finding per
    /// round, made by `extra`, and counts the analyses.
    fn fix_with(
        original: &[u8],
        extra: impl Fn(&[u8]) -> Option<Diagnostic>,
    ) -> (Fixing<()>, usize) {
        fix_with_all(original, |bytes| extra(bytes).into_iter().collect())
    }

    /// [`fix_with`] with any number of extra findings per round.
    fn fix_with_all(
        original: &[u8],
        extra: impl Fn(&[u8]) -> Vec<Diagnostic>,
    ) -> (Fixing<()>, usize) {
        let mut analyses = 0;
        let fixing = fix_until_stable(original, Some(false), |bytes| {
            analyses += 1;
            let skill = Skill::from_bytes("s/SKILL.md".into(), "s".into(), bytes.to_vec());
            let mut checked = check_skill(skill, &[Target::AgentSkills]);
            checked.diagnostics.extend(extra(bytes));
            (checked, ())
        });
        (fixing, analyses)
    }

    #[test]
    fn a_fix_that_leaves_its_finding_is_undone_and_not_tried_again() {
        let original = b"---\nname: s\ndescription: A skill. Use when testing.\n---\nbody\n";
        // A finding that any number of inserted quotes never resolves.
        let stubborn = |_: &[u8]| {
            Some(
                Diagnostic::warning(&AMBIGUOUS_SCALAR, "stubborn")
                    .at(4..8)
                    .fix(Fix::replace(Applicability::Safe, "quote", 8..8, "\"\"")),
            )
        };
        let (fixing, analyses) = fix_with(original, stubborn);
        assert_eq!(fixing.bytes, original, "the file is left as it was");
        assert_eq!(fixing.fixed, 0);
        assert!(analyses <= 3, "{analyses} rounds");
    }

    #[test]
    fn a_fix_that_resolves_its_finding_is_kept() {
        let original = b"---\nname: s\ndescription: A skill. Use when testing.\n---\nbody\n";
        let once = |bytes: &[u8]| {
            (!bytes.ends_with(b"!\n")).then(|| {
                Diagnostic::warning(&AMBIGUOUS_SCALAR, "no bang")
                    .at(0..3)
                    .fix(Fix::replace(
                        Applicability::Safe,
                        "bang",
                        bytes.len() - 1..bytes.len() - 1,
                        "!",
                    ))
            })
        };
        let (fixing, _) = fix_with(original, once);
        assert!(fixing.bytes.ends_with(b"body!\n"));
        assert_eq!(fixing.fixed, 1);
    }

    #[test]
    fn a_fix_refused_early_is_tried_again_once_others_have_landed_so_fixing_twice_is_fixing_once() {
        // Found by the lint_fix fuzzer: a fix refused on the first text works once another fix
        // has landed, so a second `--fix` used to change the file again.
        let original = b"---\nname: s\ndescription: A skill. Use when testing.\n---\nbody\n";
        let has = |bytes: &[u8], marker: &[u8]| bytes.windows(2).any(|w| w == marker);
        let finding = |message: &'static str, bytes: &[u8], marker: &'static str| {
            let end = bytes.len() - 1;
            Diagnostic::warning(&AMBIGUOUS_SCALAR, message)
                .at(0..3)
                .fix(Fix::replace(Applicability::Safe, message, end..end, marker))
        };
        let extra = |bytes: &[u8]| {
            let mut found = Vec::new();
            // Resolved only when `%%` is already there: alone, first, it is refused.
            if !(has(bytes, b"@@") && has(bytes, b"%%")) {
                found.push(finding("needs the other first", bytes, "@@"));
            }
            if !has(bytes, b"%%") {
                found.push(finding("the other", bytes, "%%"));
            }
            // Never resolved: makes the first round fail, so fixes go one at a time.
            found.push(finding("stubborn", bytes, "!!"));
            found
        };
        let (once, _) = fix_with_all(original, extra);
        assert!(!once.exhausted);
        assert!(
            has(&once.bytes, b"@@") && has(&once.bytes, b"%%"),
            "{:?}",
            String::from_utf8_lossy(&once.bytes)
        );
        assert!(!has(&once.bytes, b"!!"));
        assert_eq!(once.fixed, 2);
        let (twice, _) = fix_with_all(&once.bytes, extra);
        assert_eq!(twice.bytes, once.bytes);
        assert_eq!(twice.fixed, 0);
    }

    #[test]
    fn fixes_that_never_run_out_stop_after_the_rounds_and_say_so() {
        // Each fix resolves its finding and makes a new one: the rounds run out, and the caller
        // is told that running again may fix more.
        let original = b"---\nname: s\ndescription: A skill. Use when testing.\n---\nbody\n";
        let endless = |bytes: &[u8]| {
            let end = bytes.len() - 1;
            Some(
                Diagnostic::warning(&AMBIGUOUS_SCALAR, format!("{} bytes", bytes.len()))
                    .at(0..3)
                    .fix(Fix::replace(Applicability::Safe, "bang", end..end, "!")),
            )
        };
        let (fixing, analyses) = fix_with(original, endless);
        assert!(fixing.exhausted);
        assert_eq!(fixing.fixed, MAX_FIX_ROUNDS);
        assert_eq!(analyses, MAX_FIX_ROUNDS + 1);
    }
}
