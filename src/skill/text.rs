//! The text of a `SKILL.md`, normalised once and mapped back to the original bytes.
//!
//! Agents disagree about encodings and line endings: Python tools read with universal newlines,
//! JavaScript ones split on `\n`, and a UTF-8 byte-order mark hides the frontmatter from some of
//! them. skillpkg decodes the bytes once, strips one leading BOM (remembering that it was there),
//! and turns CRLF and lone CR into LF, so that every later stage works on one plain string.
//! Diagnostics must still point at the file the author sees, so this module keeps the offsets of
//! the removed bytes and answers "which line, column and original byte is this offset?".

use std::ops::Range;
use std::sync::OnceLock;

/// The UTF-8 encoding of U+FEFF, the byte-order mark.
const BOM: &str = "\u{feff}";

/// A position in the original file: 1-based line and 1-based column counted in Unicode scalar
/// values. A byte-order mark is not counted: editors do not show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// The bytes of a file were not UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidUtf8 {
    /// Byte offset of the first invalid sequence in the file.
    pub offset: usize,
    /// Where that is, counting lines and characters of the valid prefix.
    pub position: Position,
    /// The file decoded lossily (invalid sequences become U+FFFD), so that reports can still
    /// show the offending line.
    pub lossy: SourceText,
    /// The file starts with a UTF-16 byte-order mark.
    pub utf16: bool,
}

/// A decoded, normalised text and the map back to the original file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    text: String,
    bom: bool,
    /// Offsets in `text` of each `\n` that replaced a `\r\n` pair, in increasing order.
    crlf: Vec<usize>,
    /// Offsets in `text` of each `\n` that replaced a lone `\r`, in increasing order.
    lone_cr: Vec<usize>,
    line_starts: OnceLock<Vec<usize>>,
    /// For every block of [`BLOCK`] bytes, how many characters start before it: columns are
    /// then found without counting a long line from its start for every finding on it.
    char_blocks: OnceLock<Vec<usize>>,
    /// Runs of lines a text kept for reports no longer holds ([`Self::keep_lines`]), in order.
    /// Offsets and line numbers everywhere else stay those of the whole text.
    gaps: Vec<Gap>,
}

/// Whole lines dropped from a text kept for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Gap {
    /// Where they started in the whole text: byte offset and 0-based line.
    at: usize,
    line: usize,
    /// Where they were in the kept text: byte offset and 0-based line.
    stored: usize,
    stored_line: usize,
    /// How many bytes and lines they were.
    bytes: usize,
    lines: usize,
}

/// The block size of [`SourceText::char_blocks`].
const BLOCK: usize = 64;

impl SourceText {
    /// Decodes `bytes` as UTF-8, strips one leading BOM and normalises line endings to `\n`.
    pub(crate) fn decode(bytes: Vec<u8>) -> Result<Self, Box<InvalidUtf8>> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Self::from_string(text)),
            Err(error) => {
                let offset = error.utf8_error().valid_up_to();
                let bytes = error.into_bytes();
                let utf16 = bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]);
                let lossy = Self::from_string(String::from_utf8_lossy(&bytes).into_owned());
                // The valid prefix decodes identically in the lossy text.
                let prefix = Self::from_string(
                    String::from_utf8(bytes[..offset].to_vec()).unwrap_or_default(),
                );
                let position = prefix.position(prefix.text.len());
                Err(Box::new(InvalidUtf8 {
                    offset,
                    position,
                    lossy,
                    utf16,
                }))
            }
        }
    }

    /// Normalises an already decoded string.
    pub(crate) fn from_string(mut text: String) -> Self {
        let bom = text.starts_with(BOM);
        if bom {
            text.drain(..BOM.len());
        }
        let mut crlf = Vec::new();
        let mut lone_cr = Vec::new();
        if text.contains('\r') {
            let mut normalised = String::with_capacity(text.len());
            let mut chars = text.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\r' {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                        crlf.push(normalised.len());
                    } else {
                        lone_cr.push(normalised.len());
                    }
                    normalised.push('\n');
                } else {
                    normalised.push(c);
                }
            }
            text = normalised;
        }
        Self {
            text,
            bom,
            crlf,
            lone_cr,
            line_starts: OnceLock::new(),
            char_blocks: OnceLock::new(),
            gaps: Vec::new(),
        }
    }

    /// The normalised text: no BOM, `\n` line endings. Of a text kept for reports
    /// ([`Self::keep_lines`]), the part before the first dropped line; [`Self::slice`] reads
    /// the kept lines after it.
    pub fn text(&self) -> &str {
        match self.gaps.first() {
            Some(gap) => &self.text[..gap.stored],
            None => &self.text,
        }
    }

    /// The text of `range` (offsets of the whole text): lines a text kept for reports dropped
    /// are left out.
    pub(crate) fn slice(&self, range: Range<usize>) -> &str {
        let start = self.floor_char_boundary(self.stored(range.start).min(self.text.len()));
        let end = self.floor_char_boundary(self.stored(range.end).min(self.text.len()));
        &self.text[start..end.max(start)]
    }

    /// The text exactly as decoded: the BOM and the original line endings put back.
    pub(crate) fn original(&self) -> String {
        if !self.bom && self.crlf.is_empty() && self.lone_cr.is_empty() {
            return self.text.clone();
        }
        let mut out = String::with_capacity(self.text.len() + self.crlf.len() + 3);
        if self.bom {
            out.push_str(BOM);
        }
        let (mut crlf, mut lone) = (self.crlf.iter().peekable(), self.lone_cr.iter().peekable());
        let mut last = 0;
        for (at, _) in self.text.match_indices('\n') {
            out.push_str(&self.text[last..at]);
            if crlf.peek() == Some(&&at) {
                crlf.next();
                out.push_str("\r\n");
            } else if lone.peek() == Some(&&at) {
                lone.next();
                out.push('\r');
            } else {
                out.push('\n');
            }
            last = at + 1;
        }
        out.push_str(&self.text[last..]);
        out
    }

    /// Whether the file started with a UTF-8 byte-order mark.
    pub(crate) fn had_bom(&self) -> bool {
        self.bom
    }

    /// Keeps only the lines that `keep` (offsets of the whole text) touch, to stop holding the
    /// texts of thousands of checked skills: a finding on line 500 keeps line 500, not the 499
    /// before it. Positions, lines and [`Self::slice`] keep answering in the whole text's
    /// offsets and line numbers for the kept lines; the text is for reports from then on (the
    /// map back to the original bytes is not kept).
    pub(crate) fn keep_lines(&mut self, keep: &[Range<usize>]) {
        debug_assert!(self.gaps.is_empty(), "a text is released once");
        let len = self.text.len();
        let starts = self.line_starts();
        let line_of = |offset: usize| starts.partition_point(|&start| start <= offset.min(len)) - 1;
        let mut blocks: Vec<(usize, usize)> = keep
            .iter()
            .map(|range| (line_of(range.start), line_of(range.end.max(range.start))))
            .collect();
        blocks.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(blocks.len());
        for (first, last) in blocks {
            match merged.last_mut() {
                Some(block) if first <= block.1 + 1 => block.1 = block.1.max(last),
                _ => merged.push((first, last)),
            }
        }
        // The end of a line, with its `\n`.
        let end_of = |line: usize| starts.get(line + 1).copied().unwrap_or(len);
        let kept: usize = merged
            .iter()
            .map(|&(first, last)| end_of(last) - starts[first])
            .sum();
        if kept == len {
            return;
        }
        let mut text = String::with_capacity(kept);
        let mut gaps = Vec::new();
        let (mut next, mut dropped_lines) = (0, 0);
        for (first, last) in merged {
            if first > next {
                gaps.push(Gap {
                    at: starts[next],
                    line: next,
                    stored: text.len(),
                    stored_line: next - dropped_lines,
                    bytes: starts[first] - starts[next],
                    lines: first - next,
                });
                dropped_lines += first - next;
            }
            text.push_str(&self.text[starts[first]..end_of(last)]);
            next = last + 1;
        }
        // The original bytes' map is for fixes, which are done by now.
        self.crlf = Vec::new();
        self.lone_cr = Vec::new();
        self.text = text;
        self.gaps = gaps;
        self.line_starts = OnceLock::new();
        self.char_blocks = OnceLock::new();
    }

    /// Where byte `offset` of the whole text is in the kept one (for an offset in dropped
    /// lines, where they were).
    fn stored(&self, offset: usize) -> usize {
        let after = self.gaps.partition_point(|gap| gap.at <= offset);
        match after.checked_sub(1).map(|index| &self.gaps[index]) {
            None => offset,
            Some(gap) if offset < gap.at + gap.bytes => gap.stored,
            Some(gap) => offset - (gap.at - gap.stored + gap.bytes),
        }
    }

    /// Where byte `stored` of the kept text is in the whole one.
    fn whole(&self, stored: usize) -> usize {
        let after = self.gaps.partition_point(|gap| gap.stored <= stored);
        match after.checked_sub(1).map(|index| &self.gaps[index]) {
            None => stored,
            Some(gap) => stored + (gap.at - gap.stored + gap.bytes),
        }
    }

    /// The 0-based line of the whole text that 0-based line `stored` of the kept one is.
    fn whole_line(&self, stored: usize) -> usize {
        let after = self.gaps.partition_point(|gap| gap.stored_line <= stored);
        match after.checked_sub(1).map(|index| &self.gaps[index]) {
            None => stored,
            Some(gap) => stored + (gap.line - gap.stored_line + gap.lines),
        }
    }

    /// The 0-based line of the kept text that 0-based line `line` of the whole one is, or
    /// the dropped lines' place (`Err`, as a byte offset of the whole text).
    fn stored_line(&self, line: usize) -> Result<usize, usize> {
        let after = self.gaps.partition_point(|gap| gap.line <= line);
        match after.checked_sub(1).map(|index| &self.gaps[index]) {
            None => Ok(line),
            Some(gap) if line < gap.line + gap.lines => Err(gap.at),
            Some(gap) => Ok(line - (gap.line - gap.stored_line + gap.lines)),
        }
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        })
    }

    /// How many characters start before byte `offset` (a UTF-8 continuation byte starts none).
    fn chars_before(&self, offset: usize) -> usize {
        let starts_char = |byte: &u8| byte & 0xC0 != 0x80;
        let bytes = self.text.as_bytes();
        let blocks = self.char_blocks.get_or_init(|| {
            let mut total = 0;
            let mut blocks = Vec::with_capacity(bytes.len() / BLOCK + 1);
            for chunk in bytes.chunks(BLOCK) {
                blocks.push(total);
                total += chunk.iter().filter(|byte| starts_char(byte)).count();
            }
            blocks.push(total);
            blocks
        });
        let block = offset / BLOCK;
        blocks[block]
            + bytes[block * BLOCK..offset]
                .iter()
                .filter(|byte| starts_char(byte))
                .count()
    }

    /// The byte offset in the original file of `offset` in the normalised text (the tests'
    /// view of the offset map; edits use [`Self::original_edit_offset`]).
    #[cfg(test)]
    fn original_offset(&self, offset: usize) -> usize {
        offset
            + self.crlf.partition_point(|&at| at <= offset)
            + if self.bom { BOM.len() } else { 0 }
    }

    /// Where an edit at `offset` in the normalised text goes in the original file: before the
    /// `\r` of a `\r\n` that the `\n` at `offset` replaced, so an edit never splits the pair.
    pub(crate) fn original_edit_offset(&self, offset: usize) -> usize {
        offset + self.crlf.partition_point(|&at| at < offset) + if self.bom { BOM.len() } else { 0 }
    }

    /// Whether the file had `\r\n` line endings; text inserted by a fix should use them too.
    pub(crate) fn uses_crlf(&self) -> bool {
        !self.crlf.is_empty()
    }

    /// Line and column of a byte offset in the normalised text.
    pub fn position(&self, offset: usize) -> Position {
        let offset = self.floor_char_boundary(self.stored(offset).min(self.text.len()));
        let starts = self.line_starts();
        let line_index = starts.partition_point(|&start| start <= offset) - 1;
        let start = starts[line_index];
        Position {
            line: self.whole_line(line_index) + 1,
            column: self.chars_before(offset) - self.chars_before(start) + 1,
        }
    }

    /// The text of a 1-based line, without its line ending.
    pub fn line(&self, line: usize) -> &str {
        let Ok(index) = self.stored_line(line.wrapping_sub(1)) else {
            return "";
        };
        let starts = self.line_starts();
        let Some(&start) = starts.get(index) else {
            return "";
        };
        let end = starts
            .get(index + 1)
            .map_or(self.text.len(), |&next| next - 1);
        &self.text[start..end]
    }

    /// The byte range of the 1-based line, without its line ending.
    pub(crate) fn line_range(&self, line: usize) -> Range<usize> {
        let index = match self.stored_line(line.wrapping_sub(1)) {
            Ok(index) => index,
            Err(at) => return at..at,
        };
        let starts = self.line_starts();
        let Some(&start) = starts.get(index) else {
            let end = self.whole(self.text.len());
            return end..end;
        };
        let end = starts
            .get(index + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let shift = self.whole(start) - start;
        start + shift..end + shift
    }

    fn floor_char_boundary(&self, mut offset: usize) -> usize {
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> SourceText {
        SourceText::decode(bytes.to_vec()).unwrap()
    }

    #[test]
    fn strips_one_bom_and_maps_offsets_back() {
        let source = decode(b"\xEF\xBB\xBF---\nname: x\n");
        assert!(source.had_bom());
        assert_eq!(source.text(), "---\nname: x\n");
        assert_eq!(source.original_offset(0), 3);
        assert_eq!(source.position(4), Position { line: 2, column: 1 });
    }

    #[test]
    fn the_original_text_comes_back_byte_for_byte() {
        for bytes in [
            &b"a\r\nb\rc\r\nd"[..],
            "\u{feff}---\r\nx: 1\r\n---\rbody\n".as_bytes(),
            b"plain\n",
            b"\r\r\n\n\r",
        ] {
            let source = decode(bytes);
            assert_eq!(source.original().as_bytes(), bytes);
        }
    }

    #[test]
    fn crlf_and_lone_cr_become_lf_but_keep_original_offsets() {
        let source = decode(b"a\r\nb\rc\r\nd");
        assert_eq!(source.text(), "a\nb\nc\nd");
        // 'd' is at normalised 6, original 8 (two CRs removed before it).
        assert_eq!(source.original_offset(6), 8);
        // The '\n' that replaced the first CRLF sits where the '\n' was, after the CR.
        assert_eq!(source.original_offset(1), 2);
        assert_eq!(source.original_offset(0), 0);
        assert_eq!(source.position(6), Position { line: 4, column: 1 });
        assert_eq!(source.line(2), "b");
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let source = decode("name: 技能-x\n".as_bytes());
        let offset = source.text().find('x').unwrap();
        assert_eq!(
            source.position(offset),
            Position {
                line: 1,
                column: 10
            }
        );
    }

    #[test]
    fn invalid_utf8_reports_the_first_bad_byte() {
        let error = SourceText::decode(b"---\nname: caf\xE9\n---\n".to_vec()).unwrap_err();
        assert_eq!(error.offset, 13);
        assert_eq!(
            error.position,
            Position {
                line: 2,
                column: 10
            }
        );
        assert!(error.lossy.text().contains('\u{fffd}'));
        assert!(!error.utf16);
    }

    #[test]
    fn kept_lines_answer_as_the_whole_text_did() {
        let whole = decode("---\nname: é\n---\nα\nbb\nccc\ndddd\neeeee\nlast".as_bytes());
        let mut kept = whole.clone();
        let ccc = whole.text().find("ccc").unwrap();
        let last = whole.text().find("last").unwrap();
        kept.keep_lines(&[0..3, ccc + 1..ccc + 2, last..last]);
        // The first line, ccc's and the last; the prefix before the first gap.
        assert_eq!(kept.text(), "---\n");
        assert_eq!(kept.slice(ccc..ccc + 3), "ccc");
        for offset in [0, 2, ccc, ccc + 2, last, last + 3] {
            assert_eq!(kept.position(offset), whole.position(offset), "{offset}");
        }
        for line in [1, 6, 9] {
            assert_eq!(kept.line(line), whole.line(line));
            assert_eq!(kept.line_range(line), whole.line_range(line));
        }
        // Dropped lines read as empty, where they were.
        assert_eq!(kept.line(2), "");
        assert_eq!(
            kept.line_range(7),
            whole.line_range(7).start..whole.line_range(7).start
        );
    }

    #[test]
    fn utf16_is_recognised() {
        let error = SourceText::decode(b"\xFF\xFE-\x00-\x00".to_vec()).unwrap_err();
        assert!(error.utf16);
        assert_eq!(error.offset, 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Keeping some lines changes no answer about them: positions, lines, line ranges and
        /// slices are those of the whole text.
        #[test]
        fn kept_lines_keep_their_answers(
            text in "[a-cé\n]{0,60}",
            keep in proptest::collection::vec((0usize..70, 0usize..8), 0..4),
        ) {
            let whole = SourceText::from_string(text.clone());
            let len = whole.text().len();
            let ranges: Vec<Range<usize>> = keep
                .iter()
                .map(|&(start, extra)| {
                    let start = whole.floor_char_boundary(start.min(len));
                    start..whole.floor_char_boundary((start + extra).min(len))
                })
                .collect();
            let mut kept = whole.clone();
            kept.keep_lines(&ranges);
            for range in &ranges {
                let first = whole.position(range.start).line;
                let last = whole.position(range.end).line;
                for line in first..=last {
                    proptest::prop_assert_eq!(kept.line(line), whole.line(line));
                    let span = whole.line_range(line);
                    proptest::prop_assert_eq!(kept.line_range(line), span.clone());
                    proptest::prop_assert_eq!(kept.slice(span.clone()), &text[span.clone()]);
                    for offset in span.start..=span.end {
                        if text.is_char_boundary(offset) {
                            proptest::prop_assert_eq!(kept.position(offset), whole.position(offset));
                        }
                    }
                }
            }
        }

        /// The offset map round-trips: the original comes back byte for byte, every offset of
        /// the normalised text points at the same character in the original (a `\r` where a
        /// line ending was normalised), and positions count lines and characters.
        #[test]
        fn the_offset_map_round_trips(
            bom in proptest::bool::ANY,
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("\r\n".to_owned()),
                    proptest::strategy::Just("\r".to_owned()),
                    proptest::strategy::Just("\n".to_owned()),
                    "[a-z ]{0,6}",
                    "\\PC{0,4}",
                ],
                0..40,
            ),
        ) {
            let body: String = pieces.concat();
            let input = if bom { format!("{BOM}{body}") } else { body.clone() };
            let source = SourceText::from_string(input.clone());
            proptest::prop_assert_eq!(source.original(), input.clone());
            proptest::prop_assert!(!source.text().contains('\r'));
            let text = source.text();
            let (mut line, mut column) = (1, 1);
            for (offset, c) in text.char_indices() {
                let original = source.original_edit_offset(offset);
                let there = input[original..].chars().next();
                if c == '\n' {
                    proptest::prop_assert!(matches!(there, Some('\n' | '\r')), "{offset}");
                } else {
                    proptest::prop_assert_eq!(there, Some(c), "{}", offset);
                }
                // The test-only map agrees with the edit map away from `\r\n` pairs.
                if c != '\n' {
                    proptest::prop_assert_eq!(source.original_offset(offset), original);
                }
                let position = source.position(offset);
                proptest::prop_assert_eq!((position.line, position.column), (line, column));
                if c == '\n' {
                    line += 1;
                    column = 1;
                } else {
                    column += 1;
                }
            }
            let end = source.position(text.len());
            proptest::prop_assert_eq!((end.line, end.column), (line, column));
        }
    }
}
