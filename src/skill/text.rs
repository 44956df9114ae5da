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
        }
    }

    /// The normalised text: no BOM, `\n` line endings.
    pub fn text(&self) -> &str {
        &self.text
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

    /// Drops everything after the line that contains `offset`. Offsets before it keep their
    /// meaning; used to stop holding the bodies of thousands of checked skills.
    pub(crate) fn truncate_after_line_of(&mut self, offset: usize) {
        if offset >= self.text.len() {
            return;
        }
        let end = self.text[offset..]
            .find('\n')
            .map_or(self.text.len(), |i| offset + i + 1);
        self.text.truncate(end);
        self.text.shrink_to_fit();
        self.crlf.retain(|&at| at < end);
        self.lone_cr.retain(|&at| at < end);
        self.line_starts = OnceLock::new();
        self.char_blocks = OnceLock::new();
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
        let offset = self.floor_char_boundary(offset.min(self.text.len()));
        let starts = self.line_starts();
        let line_index = starts.partition_point(|&start| start <= offset) - 1;
        let start = starts[line_index];
        Position {
            line: line_index + 1,
            column: self.chars_before(offset) - self.chars_before(start) + 1,
        }
    }

    /// The text of a 1-based line, without its line ending.
    pub fn line(&self, line: usize) -> &str {
        let starts = self.line_starts();
        let Some(&start) = starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let end = starts.get(line).map_or(self.text.len(), |&next| next - 1);
        &self.text[start..end]
    }

    /// The byte range of the 1-based line, without its line ending.
    pub(crate) fn line_range(&self, line: usize) -> Range<usize> {
        let starts = self.line_starts();
        let Some(&start) = starts.get(line.wrapping_sub(1)) else {
            return self.text.len()..self.text.len();
        };
        let end = starts.get(line).map_or(self.text.len(), |&next| next - 1);
        start..end
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
    fn truncation_keeps_earlier_positions() {
        let mut source = decode(b"a\r\nbb\r\nccc\r\n");
        let before = source.position(4);
        source.truncate_after_line_of(3);
        assert_eq!(source.text(), "a\nbb\n");
        assert_eq!(source.position(4), before);
        assert_eq!(source.original_offset(2), 3);
        assert_eq!(source.original_offset(4), 6);
    }

    #[test]
    fn utf16_is_recognised() {
        let error = SourceText::decode(b"\xFF\xFE-\x00-\x00".to_vec()).unwrap_err();
        assert!(error.utf16);
        assert_eq!(error.offset, 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

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
