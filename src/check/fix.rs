//! Fixes: byte-range edits on a skill file's text, applied without re-serialising anything, so
//! formatting and comments survive.
//!
//! A fix is written against the normalised text (no BOM, `\n` line endings) that rules see, and
//! mapped back to the original bytes when applied: offsets move past the BOM and the removed
//! `\r`s, and inserted line breaks become `\r\n` in a file that uses them.

use std::ops::Range;

use serde::Serialize;

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
    pub fn safe(message: impl Into<String>, edits: Vec<Edit>) -> Self {
        Self {
            applicability: Applicability::Safe,
            message: message.into(),
            edits,
        }
    }

    pub fn unsafe_(message: impl Into<String>, edits: Vec<Edit>) -> Self {
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
}
