//! An open document: its text as the editor holds it, kept in step with incremental changes,
//! and the conversions between the protocol's positions (a line and a column in UTF-8 or UTF-16
//! code units, as negotiated) and byte offsets.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// How the protocol counts columns, as agreed at `initialize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    Utf16,
}

/// The text of one open document.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    pub text: String,
    pub version: i32,
    /// Byte offset of each line's start; lines end at `\n`, `\r\n` or a lone `\r`, as the
    /// protocol counts them.
    line_starts: Vec<usize>,
}

impl Document {
    pub(crate) fn new(text: String, version: i32) -> Self {
        let line_starts = line_starts(&text);
        Self {
            text,
            version,
            line_starts,
        }
    }

    /// Applies the editor's changes in order: a change with a range replaces that range, one
    /// without replaces the whole text. A range past the end is clamped to it, as the protocol
    /// asks of positions.
    pub(crate) fn apply(
        &mut self,
        changes: Vec<TextDocumentContentChangeEvent>,
        version: i32,
        encoding: Encoding,
    ) {
        for change in changes {
            let Some(range) = change.range else {
                self.text = change.text;
                self.line_starts = line_starts(&self.text);
                continue;
            };
            let start = self.offset(range.start, encoding);
            let end = self.offset(range.end, encoding).max(start);
            self.text.replace_range(start..end, &change.text);
            // Only the lines from the edited one on move (from the one before: a `\n`
            // inserted after a `\r` joins that line's ending).
            let line = (self.line_starts.partition_point(|&at| at <= start) - 1).saturating_sub(1);
            let from = self.line_starts[line];
            self.line_starts.truncate(line);
            self.line_starts.extend(
                line_starts(&self.text[from..])
                    .into_iter()
                    .map(|at| at + from),
            );
        }
        self.version = version;
    }

    /// The byte offset of a position; a column past the line's end is its end, a line past the
    /// last is the end of the text.
    pub(crate) fn offset(&self, position: Position, encoding: Encoding) -> usize {
        let Some(&start) = self.line_starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = self.line_end(position.line as usize);
        let line = &self.text[start..end];
        let wanted = position.character as usize;
        let mut units = 0;
        for (at, c) in line.char_indices() {
            if units >= wanted {
                return start + at;
            }
            units += match encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
        }
        end
    }

    /// The position of a byte offset (rounded down to a character boundary).
    pub(crate) fn position(&self, offset: usize, encoding: Encoding) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&at| at <= offset) - 1;
        let start = self.line_starts[line];
        // An offset inside a `\r\n` pair is the end of its line.
        let offset = offset.min(self.line_end(line).max(start));
        let prefix = &self.text[start..offset];
        let character = match encoding {
            Encoding::Utf8 => prefix.len(),
            Encoding::Utf16 => prefix.chars().map(char::len_utf16).sum(),
        };
        Position::new(to_u32(line), to_u32(character))
    }

    pub(crate) fn range(&self, span: std::ops::Range<usize>, encoding: Encoding) -> Range {
        Range::new(
            self.position(span.start, encoding),
            self.position(span.end.max(span.start), encoding),
        )
    }

    /// The range of a whole 0-based line, without its line ending.
    pub(crate) fn line_range(&self, line: usize, encoding: Encoding) -> Range {
        let Some(&start) = self.line_starts.get(line) else {
            let end = self.position(self.text.len(), encoding);
            return Range::new(end, end);
        };
        self.range(start..self.line_end(line), encoding)
    }

    /// The byte offset of a 0-based line's start.
    pub(crate) fn line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// Where a 0-based line's text ends (before its line ending).
    fn line_end(&self, line: usize) -> usize {
        let Some(&next) = self.line_starts.get(line + 1) else {
            return self.text.len();
        };
        let bytes = self.text.as_bytes();
        if next >= 2 && bytes[next - 1] == b'\n' && bytes[next - 2] == b'\r' {
            next - 2
        } else {
            next - 1
        }
    }

    /// The offset in the normalised text skillpkg's rules read (no byte-order mark, `\n` line
    /// endings) of a byte offset in this text.
    pub(crate) fn normalised(&self, offset: usize) -> usize {
        let bom = if self.text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let crlf = memchr::memmem::find_iter(&self.text.as_bytes()[..offset], b"\r\n").count();
        offset.saturating_sub(bom + crlf)
    }

    /// Asserts that the line index is the text's and that positions map back to offsets (for
    /// the fuzz target).
    pub(crate) fn check(&self) {
        assert_eq!(self.line_starts, line_starts(&self.text), "{:?}", self.text);
        for (offset, _) in self.text.char_indices() {
            let crlf = self.text.as_bytes().get(offset) == Some(&b'\n')
                && offset > 0
                && self.text.as_bytes()[offset - 1] == b'\r';
            if crlf {
                continue;
            }
            for encoding in [Encoding::Utf8, Encoding::Utf16] {
                let position = self.position(offset, encoding);
                assert_eq!(self.offset(position, encoding), offset, "{:?}", self.text);
            }
        }
    }

    /// The end of the whole text as a position.
    pub(crate) fn end(&self, encoding: Encoding) -> Position {
        self.position(self.text.len(), encoding)
    }
}

/// The byte offsets where lines start: 0, and after each `\n`, `\r\n` and lone `\r`.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let bytes = text.as_bytes();
    for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
            continue;
        }
        starts.push(at + 1);
    }
    starts
}

/// Positions are `u32` in the protocol; a document is far smaller than 4 GiB of lines.
pub(crate) fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(range: Option<Range>, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range,
            range_length: None,
            text: text.to_owned(),
        }
    }

    #[test]
    fn positions_count_utf16_units_and_every_line_ending() {
        let doc = Document::new("a😀b\r\ncd\reé\nf".to_owned(), 1);
        assert_eq!(doc.position(5, Encoding::Utf16), Position::new(0, 3));
        assert_eq!(doc.position(5, Encoding::Utf8), Position::new(0, 5));
        assert_eq!(doc.offset(Position::new(0, 3), Encoding::Utf16), 5);
        assert_eq!(doc.offset(Position::new(1, 0), Encoding::Utf16), 8);
        assert_eq!(doc.offset(Position::new(2, 1), Encoding::Utf16), 12);
        assert_eq!(doc.offset(Position::new(3, 0), Encoding::Utf16), 15);
        // Past the end of a line, and past the last line.
        assert_eq!(doc.offset(Position::new(1, 99), Encoding::Utf16), 10);
        assert_eq!(
            doc.offset(Position::new(9, 0), Encoding::Utf16),
            doc.text.len()
        );
        // Inside `\r\n`: the end of the line.
        assert_eq!(doc.position(7, Encoding::Utf16), Position::new(0, 4));
        assert_eq!(doc.normalised(8), 7);
    }

    #[test]
    fn incremental_changes_keep_the_line_index() {
        let mut doc = Document::new("one\ntwo\nthree\n".to_owned(), 1);
        let edits = vec![
            change(
                Some(Range::new(Position::new(1, 0), Position::new(1, 3))),
                "2\nand a half",
            ),
            change(
                Some(Range::new(Position::new(0, 3), Position::new(0, 3))),
                "!",
            ),
        ];
        doc.apply(edits, 2, Encoding::Utf16);
        assert_eq!(doc.text, "one!\n2\nand a half\nthree\n");
        assert_eq!(doc.line_starts, line_starts(&doc.text));
        assert_eq!(doc.version, 2);
        doc.apply(vec![change(None, "whole")], 3, Encoding::Utf16);
        assert_eq!((doc.text.as_str(), doc.line_starts.len()), ("whole", 1));
    }
}
