//! Edits of hand-written JSON files that leave every byte they do not change as it was.
//!
//! `publish --to claude-marketplace` adds or updates one plugin in a user's
//! `.claude-plugin/marketplace.json` and sets fields of a `plugin.json`. People write those files
//! by hand and review them in diffs, so re-serialising the document (keys reordered, indentation
//! changed, the final newline dropped) would bury a one-line change in noise. Instead the text is
//! scanned once, strictly (RFC 8259: no comments, no trailing commas, no duplicate keys in the
//! objects an edit reads), into the byte spans of its values, and an edit splices new text into
//! the spans it changes, indented and separated the way the neighbouring members are.
//!
//! The scanner keeps its own stack instead of recursing, refuses nesting deeper than
//! [`MAX_DEPTH`], and reads each byte a bounded number of times, so any input, however hostile,
//! costs time linear in its length.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::PrettyFormatter;

/// The deepest nesting of arrays and objects read: far beyond any manifest, and below the 128
/// at which `serde_json`, which reads the file again after the edit, gives up.
pub const MAX_DEPTH: usize = 100;

/// Why a document cannot be edited: not JSON, or not the expected shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct EditError {
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters (a byte order mark not counted).
    pub column: usize,
    pub message: String,
}

impl EditError {
    /// An error about the text at byte `offset`.
    fn at(text: &str, offset: usize, message: impl Into<String>) -> Self {
        let before = &text.as_bytes()[..offset.min(text.len())];
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |newline| newline + 1);
        // An editor shows no byte order mark: columns start after it.
        let line_start = if line_start == 0 && text.starts_with('\u{feff}') {
            3.min(before.len())
        } else {
            line_start
        };
        let column = before[line_start..]
            .iter()
            .filter(|byte| **byte & 0xC0 != 0x80)
            .count();
        Self {
            line: memchr::memchr_iter(b'\n', before).count() + 1,
            column: column + 1,
            message: message.into(),
        }
    }
}

/// How a document is written, as far as an edit follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The text starts with a UTF-8 byte order mark. RFC 8259 forbids writing one and many
    /// readers (JavaScript's `JSON.parse` among them) refuse it; edits keep it.
    pub bom: bool,
    /// Its lines end in CRLF; inserted lines do too.
    pub crlf: bool,
    /// One level of indentation, from its first indented line: spaces or a tab (two spaces
    /// when nothing is indented).
    pub indent: String,
    /// Its top-level value spans more than one line; inserted values are pretty-printed.
    pub multi_line: bool,
}

/// Checks that `text` is strict JSON and tells how it is laid out.
pub fn layout(text: &str) -> Result<Layout, EditError> {
    Ok(Document::scan(text)?.layout)
}

/// Sets fields of the object at `path` (object keys from the root; the object must exist), each
/// to a JSON value. An existing member's value is replaced in place, unless it already equals
/// the new value (compared as parsed values), in which case the text stays byte-identical; a
/// missing member is appended as the object's last, separated and indented like the object's
/// other members (one indentation unit deeper than the object's line when it is empty, inline
/// when the object is written on one line). Values are pretty-printed and indented to their depth
/// when their member sits on a line of its own, compact otherwise. Every byte outside the
/// replaced or inserted spans is unchanged.
pub fn set_fields(
    text: &str,
    path: &[&str],
    fields: &[(&str, &Value)],
) -> Result<String, EditError> {
    edit_members(text, fields, |document| document.object_at(path))
}

/// Adds or updates the element of the array at `array_path` (e.g. `["plugins"]`) whose string
/// member `key` (e.g. `"name"`) is `name`. An existing element has `fields` set as
/// [`set_fields`] sets them; otherwise a new object is appended as the array's last element,
/// holding `key: name` followed by `fields` in their order (or only `fields`, when they set `key`
/// themselves), laid out like the array's last element (inline when it is an inline object;
/// otherwise one member a line, pretty-printed; an empty array in a multi-line document opens
/// onto lines of its own). Returns the new text and whether the element existed. Two elements
/// with that name are an error.
pub fn upsert_element(
    text: &str,
    array_path: &[&str],
    key: &str,
    name: &str,
    fields: &[(&str, &Value)],
) -> Result<(String, bool), EditError> {
    let document = Document::scan(text)?;
    let array = document.array_at(array_path)?;
    let Some(index) = document.element(array, array_path, key, name)? else {
        let edit = document.append_element(array, key, name, fields);
        return Ok((edit.apply(text), false));
    };
    // Editing one element leaves the array's length alone: the element keeps its index.
    let edited = edit_members(text, fields, |document| {
        let array = document.array_at(array_path)?;
        let element = document.nodes[array].elements().get(index).copied();
        element.ok_or_else(|| document.error(document.nodes[array].start, "the element vanished"))
    })?;
    Ok((edited, true))
}

/// Sets `fields` one at a time in the object `locate` finds, scanning the text afresh for each
/// (a handful of fields: the cost stays a small multiple of the text's length).
fn edit_members(
    text: &str,
    fields: &[(&str, &Value)],
    locate: impl Fn(&Document<'_>) -> Result<usize, EditError>,
) -> Result<String, EditError> {
    if fields.is_empty() {
        locate(&Document::scan(text)?)?;
    }
    let mut edited = text.to_owned();
    for &(key, value) in fields {
        let document = Document::scan(&edited)?;
        let object = locate(&document)?;
        if let Some(edit) = document.set_member(object, key, value)? {
            edited = edit.apply(&edited);
        }
    }
    Ok(edited)
}

/// A value's span, and what is inside it.
#[derive(Debug)]
struct Node {
    start: usize,
    /// One past its last byte.
    end: usize,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// A number, `true`, `false` or `null`.
    Scalar,
    String,
    Object(Vec<Member>),
    /// The elements' node indices.
    Array(Vec<usize>),
}

#[derive(Debug)]
struct Member {
    /// Decoded.
    key: String,
    /// The key's opening quote.
    key_start: usize,
    /// One past the key's closing quote.
    key_end: usize,
    /// The value's node index.
    value: usize,
}

impl Node {
    fn members(&self) -> &[Member] {
        match &self.kind {
            Kind::Object(members) => members,
            _ => &[],
        }
    }

    fn elements(&self) -> &[usize] {
        match &self.kind {
            Kind::Array(elements) => elements,
            _ => &[],
        }
    }
}

/// One pass over the text, building the nodes.
struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    nodes: Vec<Node>,
    /// The first `:` between a key and its value (with the whitespace around it) on one line.
    colon: Option<(usize, usize)>,
    /// The first `,` between two members or elements (with the whitespace around it) on one
    /// line.
    comma: Option<(usize, usize)>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, pos: usize) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            pos,
            nodes: Vec::new(),
            colon: None,
            comma: None,
        }
    }

    fn error(&self, message: impl Into<String>) -> EditError {
        EditError::at(self.text, self.pos, message)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// What is at the current position, for an error message.
    fn found(&self) -> String {
        let rest = self.text.get(self.pos..).unwrap_or_default();
        if rest.starts_with("//") || rest.starts_with("/*") {
            return "a comment (JSON has none)".to_owned();
        }
        match rest.chars().next() {
            None => "the end of the document".to_owned(),
            Some(first) if first.is_control() || first == '\u{feff}' => {
                format!("U+{:04X}", u32::from(first))
            }
            Some(first) if first.is_alphanumeric() => {
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric())
                    .take(16)
                    .collect();
                format!("`{word}`")
            }
            Some(first) => format!("`{first}`"),
        }
    }

    /// Scans the value at the current position with everything nested in it, iteratively: the
    /// stack of open arrays and objects is `open`, capped at [`MAX_DEPTH`].
    fn value(&mut self) -> Result<(), EditError> {
        let mut open: Vec<usize> = Vec::new();
        loop {
            self.whitespace();
            let index = self.nodes.len();
            let start = self.pos;
            let kind = match self.peek() {
                Some(b'{') => Kind::Object(Vec::new()),
                Some(b'[') => Kind::Array(Vec::new()),
                Some(b'"') => {
                    self.string(None)?;
                    Kind::String
                }
                _ => {
                    self.scalar()?;
                    Kind::Scalar
                }
            };
            let container = matches!(kind, Kind::Object(_) | Kind::Array(_));
            self.nodes.push(Node {
                start,
                end: self.pos,
                kind,
            });
            if let Some(&parent) = open.last() {
                self.attach(parent, index);
            }
            if container {
                if open.len() == MAX_DEPTH {
                    return Err(self.error(format!(
                        "arrays and objects nested deeper than {MAX_DEPTH} levels"
                    )));
                }
                open.push(index);
                self.pos += 1;
                self.whitespace();
                if self.opened(index)? {
                    continue;
                }
            }
            if !self.close_until_next(&mut open)? {
                return Ok(());
            }
        }
    }

    /// Makes node `child` the value of `parent`'s last member, or its last element.
    fn attach(&mut self, parent: usize, child: usize) {
        match &mut self.nodes[parent].kind {
            Kind::Object(members) => {
                if let Some(member) = members.last_mut() {
                    member.value = child;
                }
            }
            Kind::Array(elements) => elements.push(child),
            Kind::Scalar | Kind::String => {}
        }
    }

    /// Just inside the opening bracket of `container`: whether a value follows (an object's
    /// first key is scanned here).
    fn opened(&mut self, container: usize) -> Result<bool, EditError> {
        if matches!(self.nodes[container].kind, Kind::Array(_)) {
            return Ok(self.peek() != Some(b']'));
        }
        if self.peek() == Some(b'}') {
            return Ok(false);
        }
        self.key(container)?;
        Ok(true)
    }

    /// After a value: closes the arrays and objects that end here, and returns whether another
    /// value follows (after a `,`, and for an object the next key) or the outermost one closed.
    fn close_until_next(&mut self, open: &mut Vec<usize>) -> Result<bool, EditError> {
        while let Some(&top) = open.last() {
            let before = self.pos;
            self.whitespace();
            let object = matches!(self.nodes[top].kind, Kind::Object(_));
            match (self.peek(), object) {
                (Some(b','), _) => {
                    self.pos += 1;
                    self.whitespace();
                    if self.comma.is_none() && !self.bytes[before..self.pos].contains(&b'\n') {
                        self.comma = Some((before, self.pos));
                    }
                    if object {
                        self.key(top)?;
                    } else if self.peek() == Some(b']') {
                        return Err(self
                            .error("expected a value after `,` (JSON allows no trailing comma)"));
                    }
                    return Ok(true);
                }
                (Some(b'}'), true) | (Some(b']'), false) => {
                    self.pos += 1;
                    self.nodes[top].end = self.pos;
                    open.pop();
                }
                (_, true) => {
                    return Err(self.error(format!(
                        "expected `,` or `}}` after an object member, found {}",
                        self.found()
                    )));
                }
                (_, false) => {
                    return Err(self.error(format!(
                        "expected `,` or `]` after an array element, found {}",
                        self.found()
                    )));
                }
            }
        }
        Ok(false)
    }

    /// A member's key and its `:`, added to `object` (its value follows).
    fn key(&mut self, object: usize) -> Result<(), EditError> {
        match self.peek() {
            Some(b'"') => {}
            Some(b'}') => {
                return Err(
                    self.error("expected a member name after `,` (JSON allows no trailing comma)")
                );
            }
            _ => {
                return Err(self.error(format!(
                    "expected a member name (a string in double quotes), found {}",
                    self.found()
                )));
            }
        }
        let key_start = self.pos;
        let mut key = String::new();
        self.string(Some(&mut key))?;
        let key_end = self.pos;
        self.whitespace();
        if self.peek() != Some(b':') {
            return Err(self.error(format!(
                "expected `:` after a member name, found {}",
                self.found()
            )));
        }
        self.pos += 1;
        self.whitespace();
        if self.colon.is_none() && !self.bytes[key_end..self.pos].contains(&b'\n') {
            self.colon = Some((key_end, self.pos));
        }
        if let Kind::Object(members) = &mut self.nodes[object].kind {
            members.push(Member {
                key,
                key_start,
                key_end,
                value: usize::MAX,
            });
        }
        Ok(())
    }

    /// The string at the current position (its opening quote), decoded into `out` if given.
    fn string(&mut self, mut out: Option<&mut String>) -> Result<(), EditError> {
        let open = self.pos;
        self.pos += 1;
        loop {
            let chunk = self.pos;
            let Some(stop) = self.bytes[chunk..]
                .iter()
                .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
            else {
                return Err(EditError::at(self.text, open, "unterminated string"));
            };
            self.pos += stop;
            // Both ends are at ASCII bytes, so on character boundaries.
            if let Some(out) = out.as_deref_mut() {
                out.push_str(&self.text[chunk..self.pos]);
            }
            match self.bytes[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => {
                    let decoded = self.escape()?;
                    if let Some(out) = out.as_deref_mut() {
                        out.push(decoded);
                    }
                }
                control => {
                    return Err(self.error(format!(
                        "control character U+{control:04X} in a string (JSON needs it escaped: \
                         `\\n`, `\\t`, `\\u00XX`)"
                    )));
                }
            }
        }
    }

    /// The escape at the current position (its backslash).
    fn escape(&mut self) -> Result<char, EditError> {
        let backslash = self.pos;
        let decoded = match self.bytes.get(backslash + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 2;
                return self.unicode_escape(backslash);
            }
            _ => {
                let what = self.text[backslash + 1..].chars().next();
                return Err(self.error(match what {
                    Some(what) if !what.is_control() => {
                        format!("invalid escape `\\{what}` in a string")
                    }
                    _ => "invalid escape in a string".to_owned(),
                }));
            }
        };
        self.pos += 2;
        Ok(decoded)
    }

    /// A `\u` escape, `backslash` its start, the position just after the `u`: a UTF-16 code
    /// unit, and for a high surrogate the low one that must follow.
    fn unicode_escape(&mut self, backslash: usize) -> Result<char, EditError> {
        let high = self.hex4()?;
        let lone = |scanner: &Self, unit: u32| {
            EditError::at(
                scanner.text,
                backslash,
                format!("lone surrogate `\\u{unit:04X}` in a string (not a Unicode character)"),
            )
        };
        let code = match high {
            0xD800..=0xDBFF => {
                if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                    return Err(lone(self, high));
                }
                self.pos += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(lone(self, high));
                }
                0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(lone(self, high)),
            _ => high,
        };
        char::from_u32(code).ok_or_else(|| lone(self, code))
    }

    /// Four hex digits.
    fn hex4(&mut self) -> Result<u32, EditError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .filter(|digits| digits.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| self.error("expected four hex digits after `\\u`"))?;
        let code = digits.iter().fold(0, |code, &digit| {
            // A hex digit: `to_digit` cannot fail.
            code * 16 + char::from(digit).to_digit(16).unwrap_or(0)
        });
        self.pos += 4;
        Ok(code)
    }

    /// `true`, `false`, `null` or a number.
    fn scalar(&mut self) -> Result<(), EditError> {
        let rest = &self.bytes[self.pos..];
        for word in ["true", "false", "null"] {
            if rest.starts_with(word.as_bytes()) {
                self.pos += word.len();
                return Ok(());
            }
        }
        if matches!(rest.first(), Some(b'-' | b'0'..=b'9')) {
            return self.number();
        }
        Err(self.error(format!("expected a value, found {}", self.found())))
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, finite as a double.
    fn number(&mut self) -> Result<(), EditError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
                    return Err(EditError::at(
                        self.text,
                        start,
                        "a number cannot start with `0` followed by more digits",
                    ));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("expected a digit after `-`")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !self.digits() {
                return Err(self.error("expected a digit after the decimal point"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !self.digits() {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        if !self.text[start..self.pos]
            .parse::<f64>()
            .is_ok_and(f64::is_finite)
        {
            return Err(EditError::at(
                self.text,
                start,
                "the number is too large for a double-precision float",
            ));
        }
        Ok(())
    }

    /// Skips ASCII digits; whether there was one.
    fn digits(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos > start
    }
}

/// A scanned document: its nodes (the top-level value first) and how it is written.
struct Document<'a> {
    text: &'a str,
    nodes: Vec<Node>,
    layout: Layout,
    newline: &'static str,
    /// What goes between a key and its value where the object gives no example.
    colon: String,
    /// What goes between two inline members or elements where the container gives no example.
    comma: String,
}

/// A change: `text` in place of the bytes `start..end`.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

impl Edit {
    fn apply(&self, text: &str) -> String {
        [&text[..self.start], self.text.as_str(), &text[self.end..]].concat()
    }
}

/// Where a new member or element goes, and the text around it.
struct Slot {
    start: usize,
    end: usize,
    before: String,
    after: String,
    /// The indentation of the new item's line, when it has a line of its own.
    indent: Option<String>,
}

/// How a new object is written: `{` open member separator member … close `}`.
struct ObjectStyle {
    open: String,
    separator: String,
    colon: String,
    close: String,
    /// The indentation of the members' lines, when each has one of its own.
    indent: Option<String>,
}

impl<'a> Document<'a> {
    fn scan(text: &'a str) -> Result<Self, EditError> {
        let bom = text.starts_with('\u{feff}');
        let mut scanner = Scanner::new(text, if bom { '\u{feff}'.len_utf8() } else { 0 });
        scanner.whitespace();
        scanner.value()?;
        scanner.whitespace();
        if scanner.pos < text.len() {
            return Err(scanner.error(format!(
                "expected the end of the document after its top-level value, found {}",
                scanner.found()
            )));
        }
        let root = &scanner.nodes[0];
        let multi_line = text.as_bytes()[root.start..root.end].contains(&b'\n');
        let crlf = memchr::memchr(b'\n', text.as_bytes())
            .is_some_and(|newline| newline > 0 && text.as_bytes()[newline - 1] == b'\r');
        let colon = scanner.colon.map_or_else(
            || if multi_line { ": " } else { ":" }.to_owned(),
            |(start, end)| text[start..end].to_owned(),
        );
        let comma = scanner.comma.map_or_else(
            || if colon.ends_with(' ') { ", " } else { "," }.to_owned(),
            |(start, end)| text[start..end].to_owned(),
        );
        Ok(Self {
            text,
            nodes: scanner.nodes,
            layout: Layout {
                bom,
                crlf,
                indent: indent_unit(text),
                multi_line,
            },
            newline: if crlf { "\r\n" } else { "\n" },
            colon,
            comma,
        })
    }

    fn error(&self, offset: usize, message: impl Into<String>) -> EditError {
        EditError::at(self.text, offset, message)
    }

    /// The node at `path`, each step a member of an object.
    fn value_at(&self, path: &[&str]) -> Result<usize, EditError> {
        let mut node = 0;
        for (depth, key) in path.iter().enumerate() {
            node = self.object_at_node(node, &path[..depth])?;
            node = match self.member(node, key)? {
                Some(member) => member.value,
                None => {
                    return Err(self.error(
                        self.nodes[node].start,
                        format!("{} has no `{key}` member", object_name(&path[..depth])),
                    ));
                }
            };
        }
        Ok(node)
    }

    fn object_at(&self, path: &[&str]) -> Result<usize, EditError> {
        self.object_at_node(self.value_at(path)?, path)
    }

    /// `node` (at `path`) if it is an object.
    fn object_at_node(&self, node: usize, path: &[&str]) -> Result<usize, EditError> {
        match self.nodes[node].kind {
            Kind::Object(_) => Ok(node),
            _ => Err(self.error(
                self.nodes[node].start,
                format!(
                    "expected {} to be an object, found {}",
                    value_name(path),
                    self.kind_name(node)
                ),
            )),
        }
    }

    fn array_at(&self, path: &[&str]) -> Result<usize, EditError> {
        let node = self.value_at(path)?;
        match self.nodes[node].kind {
            Kind::Array(_) => Ok(node),
            _ => Err(self.error(
                self.nodes[node].start,
                format!(
                    "expected {} to be an array, found {}",
                    value_name(path),
                    self.kind_name(node)
                ),
            )),
        }
    }

    fn kind_name(&self, node: usize) -> &'static str {
        let node = &self.nodes[node];
        match node.kind {
            Kind::Object(_) => "an object",
            Kind::Array(_) => "an array",
            Kind::String => "a string",
            Kind::Scalar => match self.text.as_bytes()[node.start] {
                b't' | b'f' => "a boolean",
                b'n' => "null",
                _ => "a number",
            },
        }
    }

    /// The member `key` of `object`, the object refused if any key appears in it twice.
    fn member(&self, object: usize, key: &str) -> Result<Option<&Member>, EditError> {
        let mut seen = HashSet::new();
        let mut found = None;
        for member in self.nodes[object].members() {
            if !seen.insert(member.key.as_str()) {
                return Err(self.error(
                    member.key_start,
                    format!(
                        "`{}` appears twice in this object",
                        member.key.escape_debug()
                    ),
                ));
            }
            if member.key == key {
                found = Some(member);
            }
        }
        Ok(found)
    }

    /// The index of the element of `array` (at `path`) whose member `key` is the string `name`.
    fn element(
        &self,
        array: usize,
        path: &[&str],
        key: &str,
        name: &str,
    ) -> Result<Option<usize>, EditError> {
        let mut found = None;
        for (index, &element) in self.nodes[array].elements().iter().enumerate() {
            if !matches!(self.nodes[element].kind, Kind::Object(_)) {
                continue;
            }
            let Some(member) = self.member(element, key)? else {
                continue;
            };
            let value = &self.nodes[member.value];
            if !matches!(value.kind, Kind::String) || self.decode(value.start)? != name {
                continue;
            }
            if found.is_some() {
                return Err(self.error(
                    self.nodes[element].start,
                    format!(
                        "a second element of {} has `{key}` `{}`",
                        value_name(path),
                        name.escape_debug()
                    ),
                ));
            }
            found = Some(index);
        }
        Ok(found)
    }

    /// The string whose opening quote is at `start`, decoded.
    fn decode(&self, start: usize) -> Result<String, EditError> {
        let mut decoded = String::new();
        Scanner::new(self.text, start).string(Some(&mut decoded))?;
        Ok(decoded)
    }

    /// The start of the line holding byte `offset`, and its leading whitespace.
    fn line_indent(&self, offset: usize) -> (usize, &'a str) {
        let line_start =
            memchr::memrchr(b'\n', &self.text.as_bytes()[..offset]).map_or(0, |at| at + 1);
        let line = &self.text[line_start..];
        let width = line
            .bytes()
            .take_while(|byte| matches!(byte, b' ' | b'\t'))
            .count();
        (line_start, &line[..width])
    }

    /// The indentation of the line holding byte `offset` in a multi-line document, when nothing
    /// but that indentation precedes it there.
    fn own_line(&self, offset: usize) -> Option<&'a str> {
        let (line_start, indent) = self.line_indent(offset);
        (self.layout.multi_line && line_start + indent.len() == offset).then_some(indent)
    }

    /// The text between `member`'s key and its value (`: ` most often).
    fn colon_of(&self, member: &Member) -> &str {
        let gap = &self.text[member.key_end..self.nodes[member.value].start];
        if gap.contains('\n') { &self.colon } else { gap }
    }

    /// `value` as JSON: pretty-printed with the document's indentation unit and every line after
    /// the first indented by `indent`, or compact without one.
    fn render(&self, value: &Value, indent: Option<&str>) -> String {
        let Some(indent) = indent else {
            return value.to_string();
        };
        let mut pretty = Vec::new();
        let formatter = PrettyFormatter::with_indent(self.layout.indent.as_bytes());
        value
            .serialize(&mut serde_json::Serializer::with_formatter(
                &mut pretty,
                formatter,
            ))
            .expect("a JSON value always serialises");
        String::from_utf8_lossy(&pretty).replace('\n', &format!("{}{indent}", self.newline))
    }

    /// Where an item goes after the items of `container` (each its start and end): after the
    /// last one, separated as the last two are (or as the first is from the opening bracket),
    /// or alone inside an empty container, on a line of its own in a multi-line document.
    fn slot(&self, container: usize, items: &[(usize, usize)]) -> Slot {
        let node = &self.nodes[container];
        let (Some(&(first, _)), Some(&(last_start, last_end))) = (items.first(), items.last())
        else {
            let (open, close) = (node.start + 1, node.end - 1);
            if !self.layout.multi_line {
                return Slot {
                    start: open,
                    end: close,
                    before: String::new(),
                    after: String::new(),
                    indent: None,
                };
            }
            let (_, outer) = self.line_indent(node.start);
            let inner = format!("{outer}{}", self.layout.indent);
            return Slot {
                start: open,
                end: close,
                before: format!("{}{inner}", self.newline),
                after: format!("{}{outer}", self.newline),
                indent: Some(inner),
            };
        };
        let separator = if let [.., (_, previous_end), _] = items {
            self.text[*previous_end..last_start].to_owned()
        } else {
            let gap = &self.text[node.start + 1..first];
            if gap.contains('\n') {
                format!(",{gap}")
            } else {
                self.comma.clone()
            }
        };
        // The indentation of the item's line: its leading whitespace only (a comma-first
        // layout puts `,` there too).
        let indent = separator.rfind('\n').map(|newline| {
            let line = &separator[newline + 1..];
            line[..line.len() - line.trim_start().len()].to_owned()
        });
        Slot {
            start: last_end,
            end: last_end,
            before: separator,
            after: String::new(),
            indent,
        }
    }

    /// The edit that sets member `key` of `object` to `value`; none when it already has it.
    fn set_member(
        &self,
        object: usize,
        key: &str,
        value: &Value,
    ) -> Result<Option<Edit>, EditError> {
        if let Some(member) = self.member(object, key)? {
            let old = &self.nodes[member.value];
            let same = serde_json::from_str::<Value>(&self.text[old.start..old.end])
                .is_ok_and(|old| old == *value);
            if same {
                return Ok(None);
            }
            return Ok(Some(Edit {
                start: old.start,
                end: old.end,
                text: self.render(value, self.own_line(member.key_start)),
            }));
        }
        let members = self.nodes[object].members();
        let items: Vec<_> = members
            .iter()
            .map(|member| (member.key_start, self.nodes[member.value].end))
            .collect();
        let slot = self.slot(object, &items);
        let colon = members
            .last()
            .map_or(self.colon.as_str(), |member| self.colon_of(member));
        let text = [
            slot.before.as_str(),
            &Value::from(key).to_string(),
            colon,
            &self.render(value, slot.indent.as_deref()),
            &slot.after,
        ]
        .concat();
        Ok(Some(Edit {
            start: slot.start,
            end: slot.end,
            text,
        }))
    }

    /// The edit that appends a new element `{key: name, fields…}` to `array`.
    fn append_element(
        &self,
        array: usize,
        key: &str,
        name: &str,
        fields: &[(&str, &Value)],
    ) -> Edit {
        let elements = self.nodes[array].elements();
        let items: Vec<_> = elements
            .iter()
            .map(|&element| (self.nodes[element].start, self.nodes[element].end))
            .collect();
        let slot = self.slot(array, &items);
        let name = Value::from(name);
        let mut members: Vec<(&str, &Value)> = Vec::new();
        if !fields.iter().any(|&(field, _)| field == key) {
            members.push((key, &name));
        }
        for &(field, value) in fields {
            match members.iter_mut().find(|(existing, _)| *existing == field) {
                Some(member) => member.1 = value,
                None => members.push((field, value)),
            }
        }
        let style = self.element_style(elements.last().copied(), slot.indent.as_deref());
        let text = [
            slot.before.as_str(),
            &self.render_object(&members, &style),
            &slot.after,
        ]
        .concat();
        Edit {
            start: slot.start,
            end: slot.end,
            text,
        }
    }

    /// How a new element is written after `last` (the array's last element, if any) on a line
    /// indented by `indent` (or inline, without one): like `last` when that is an inline object,
    /// one member a line when the element has a line of its own, compact otherwise.
    fn element_style(&self, last: Option<usize>, indent: Option<&str>) -> ObjectStyle {
        let template = last.map(|last| &self.nodes[last]);
        let members = template.map_or(&[][..], Node::members);
        if let (Some(template), [first, rest @ ..]) = (template, members)
            && !self.text[template.start..template.end].contains('\n')
        {
            let last = rest.last().unwrap_or(first);
            let separator = match rest.first() {
                Some(second) => &self.text[self.nodes[first.value].end..second.key_start],
                None => &self.comma,
            };
            return ObjectStyle {
                open: self.text[template.start + 1..first.key_start].to_owned(),
                separator: separator.to_owned(),
                colon: self.colon_of(first).to_owned(),
                close: self.text[self.nodes[last.value].end..template.end - 1].to_owned(),
                indent: None,
            };
        }
        let Some(indent) = indent else {
            return ObjectStyle {
                open: String::new(),
                separator: self.comma.clone(),
                colon: self.colon.clone(),
                close: String::new(),
                indent: None,
            };
        };
        // Members indented as the last element's are, or one unit deeper than the element.
        let inner = members
            .first()
            .and_then(|first| self.own_line(first.key_start))
            .map_or_else(|| format!("{indent}{}", self.layout.indent), str::to_owned);
        let colon = members
            .first()
            .map_or(self.colon.as_str(), |first| self.colon_of(first));
        ObjectStyle {
            open: format!("{}{inner}", self.newline),
            separator: format!(",{}{inner}", self.newline),
            colon: colon.to_owned(),
            close: format!("{}{indent}", self.newline),
            indent: Some(inner),
        }
    }

    fn render_object(&self, members: &[(&str, &Value)], style: &ObjectStyle) -> String {
        if members.is_empty() {
            return "{}".to_owned();
        }
        let mut out = String::from("{");
        out.push_str(&style.open);
        for (index, (key, value)) in members.iter().enumerate() {
            if index > 0 {
                out.push_str(&style.separator);
            }
            out.push_str(&Value::from(*key).to_string());
            out.push_str(&style.colon);
            out.push_str(&self.render(value, style.indent.as_deref()));
        }
        out.push_str(&style.close);
        out.push('}');
        out
    }
}

/// The indentation unit of `text`: the leading whitespace of its first indented line (a tab, or
/// that line's spaces), two spaces when no line is indented.
fn indent_unit(text: &str) -> String {
    for line in text.split('\n').skip(1) {
        let width = line
            .bytes()
            .take_while(|byte| matches!(byte, b' ' | b'\t'))
            .count();
        if width > 0 && !matches!(line.as_bytes().get(width), None | Some(b'\r')) {
            if line.starts_with('\t') {
                return "\t".to_owned();
            }
            return " ".repeat(line.bytes().take_while(|&byte| byte == b' ').count());
        }
    }
    "  ".to_owned()
}

/// The value at `path`, for a message.
fn value_name(path: &[&str]) -> String {
    if path.is_empty() {
        "the top-level value".to_owned()
    } else {
        format!("`{}`", path.join("."))
    }
}

/// The object at `path`, for a message.
fn object_name(path: &[&str]) -> String {
    if path.is_empty() {
        "the top-level object".to_owned()
    } else {
        format!("`{}`", path.join("."))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, json};

    use super::*;

    /// Idiosyncratic but valid: four-space indent, an inline object, keys in no order.
    const MARKETPLACE: &str = r#"{
    "name": "acme-tools",
    "owner": {"name": "Acme", "email": "tools@acme.example"},
    "metadata": {
        "description": "Acme's plugins",
        "version": "2.0.0"
    },
    "plugins": [
        {
            "name": "lint-helper",
            "source": "./plugins/lint-helper",
            "version": "1.2.0",
            "description": "Lints things"
        },
        {
            "source": "./plugins/deploy",
            "name": "deploy",
            "keywords": ["ci", "release"]
        }
    ]
}
"#;

    /// [`MARKETPLACE`]'s last element, and after it what adding `new-skill` gives.
    const LAST: &str = r#"            "keywords": ["ci", "release"]
        }
    ]"#;
    const ADDED: &str = r#"            "keywords": ["ci", "release"]
        },
        {
            "name": "new-skill",
            "source": "./plugins/new-skill",
            "version": "0.1.0"
        }
    ]"#;

    fn crlf(text: &str) -> String {
        text.replace('\n', "\r\n")
    }

    /// `text` with each four leading spaces a tab.
    fn tabs(text: &str) -> String {
        text.split('\n')
            .map(|line| {
                let spaces = line.bytes().take_while(|&byte| byte == b' ').count();
                ["\t".repeat(spaces / 4).as_str(), &line[spaces / 4 * 4..]].concat()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn upsert(text: &str, name: &str, fields: &[(&str, &Value)]) -> (String, bool) {
        upsert_element(text, &["plugins"], "name", name, fields).unwrap()
    }

    fn add_new_skill(text: &str) -> (String, bool) {
        let (source, version) = (json!("./plugins/new-skill"), json!("0.1.0"));
        upsert(
            text,
            "new-skill",
            &[("source", &source), ("version", &version)],
        )
    }

    #[test]
    fn updating_a_version_changes_only_its_span() {
        let version = json!("1.3.0");
        for text in [MARKETPLACE.to_owned(), crlf(MARKETPLACE), tabs(MARKETPLACE)] {
            let (edited, existed) = upsert(&text, "lint-helper", &[("version", &version)]);
            assert!(existed);
            assert_eq!(edited, text.replacen("\"1.2.0\"", "\"1.3.0\"", 1));
        }
    }

    #[test]
    fn a_new_entry_is_laid_out_like_the_others() {
        assert_eq!(
            add_new_skill(MARKETPLACE),
            (MARKETPLACE.replace(LAST, ADDED), false)
        );
        assert_eq!(
            add_new_skill(&crlf(MARKETPLACE)),
            (crlf(&MARKETPLACE.replace(LAST, ADDED)), false)
        );
        assert_eq!(
            add_new_skill(&tabs(MARKETPLACE)),
            (tabs(&MARKETPLACE.replace(LAST, ADDED)), false)
        );
        // The new entry is found the second time.
        let (added, _) = add_new_skill(MARKETPLACE);
        assert_eq!(add_new_skill(&added), (added, true));
    }

    #[test]
    fn a_missing_field_is_appended_after_the_last_member() {
        let version = json!("0.5.0");
        let (edited, existed) = upsert(MARKETPLACE, "deploy", &[("version", &version)]);
        assert!(existed);
        assert_eq!(
            edited,
            MARKETPLACE.replace(
                r#""keywords": ["ci", "release"]"#,
                "\"keywords\": [\"ci\", \"release\"],\n            \"version\": \"0.5.0\""
            )
        );
        let (edited, _) = upsert(&crlf(MARKETPLACE), "deploy", &[("version", &version)]);
        assert_eq!(
            edited,
            crlf(&MARKETPLACE.replace(
                r#""keywords": ["ci", "release"]"#,
                "\"keywords\": [\"ci\", \"release\"],\n            \"version\": \"0.5.0\""
            ))
        );
    }

    #[test]
    fn an_inline_object_stays_inline() {
        let url = json!("https://acme.example");
        assert_eq!(
            set_fields(MARKETPLACE, &["owner"], &[("url", &url)]).unwrap(),
            MARKETPLACE.replace(
                r#""tools@acme.example"}"#,
                r#""tools@acme.example", "url": "https://acme.example"}"#
            )
        );
    }

    #[test]
    fn values_are_pretty_printed_at_their_depth() {
        let tags = json!(["a", "b"]);
        assert_eq!(
            set_fields(MARKETPLACE, &[], &[("tags", &tags)]).unwrap(),
            MARKETPLACE.replace(
                "    ]\n}",
                "    ],\n    \"tags\": [\n        \"a\",\n        \"b\"\n    ]\n}"
            )
        );
        let metadata = json!({"description": "New", "version": "3.0.0"});
        let edited = set_fields(&tabs(MARKETPLACE), &[], &[("metadata", &metadata)]).unwrap();
        assert_eq!(
            edited,
            tabs(&MARKETPLACE.replace(
                "\"Acme's plugins\",\n        \"version\": \"2.0.0\"",
                "\"New\",\n        \"version\": \"3.0.0\""
            ))
        );
    }

    #[test]
    fn an_equal_value_leaves_the_text_byte_identical() {
        let (old, new) = (json!("1.2.0"), json!("2.0.0"));
        assert_eq!(
            upsert(MARKETPLACE, "lint-helper", &[("version", &old)]),
            (MARKETPLACE.to_owned(), true)
        );
        let escaped = MARKETPLACE.replace("\"1.2.0\"", r#""1.2\u002e0""#);
        assert_eq!(
            upsert(&escaped, "lint-helper", &[("version", &old)]),
            (escaped.clone(), true)
        );
        assert_eq!(
            set_fields(&crlf(MARKETPLACE), &["metadata"], &[("version", &new)]).unwrap(),
            crlf(MARKETPLACE)
        );
        let keywords = json!(["ci", "release"]);
        assert_eq!(
            upsert(MARKETPLACE, "deploy", &[("keywords", &keywords)]).0,
            MARKETPLACE
        );
        let (one, one_float) = (json!(1), json!(1.0));
        let text = "{\"a\": 1.0e0}";
        assert_eq!(set_fields(text, &[], &[("a", &one_float)]).unwrap(), text);
        assert_eq!(set_fields(text, &[], &[("a", &one)]).unwrap(), "{\"a\": 1}");
    }

    #[test]
    fn empty_containers_open_onto_lines_of_their_own() {
        let version = json!("1.0.0");
        let text = "{\n  \"name\": \"m\",\n  \"plugins\": []\n}\n";
        assert_eq!(
            upsert(text, "x", &[("version", &version)]),
            (
                "{\n  \"name\": \"m\",\n  \"plugins\": [\n    {\n      \"name\": \"x\",\n      \
                 \"version\": \"1.0.0\"\n    }\n  ]\n}\n"
                    .to_owned(),
                false
            )
        );
        let (description, one) = (json!("d"), json!(1));
        let text = "{\n\t\"metadata\": { }\n}";
        assert_eq!(
            set_fields(
                text,
                &["metadata"],
                &[("version", &one), ("description", &description)]
            )
            .unwrap(),
            "{\n\t\"metadata\": {\n\t\t\"version\": 1,\n\t\t\"description\": \"d\"\n\t}\n}"
        );
    }

    #[test]
    fn a_single_line_document_stays_on_one_line() {
        let version = json!("1.0.0");
        let text = r#"{"name":"m","plugins":[{"name":"a","version":"1"}]}"#;
        assert_eq!(
            upsert(text, "b", &[("version", &version)]).0,
            r#"{"name":"m","plugins":[{"name":"a","version":"1"},{"name":"b","version":"1.0.0"}]}"#
        );
        assert_eq!(
            upsert("{\"plugins\": []}\n", "x", &[("version", &version)]).0,
            "{\"plugins\": [{\"name\": \"x\", \"version\": \"1.0.0\"}]}\n"
        );
        let owner = json!({"name": "Acme", "url": "https://acme.example"});
        assert_eq!(
            set_fields(r#"{"a":1}"#, &[], &[("owner", &owner)]).unwrap(),
            r#"{"a":1,"owner":{"name":"Acme","url":"https://acme.example"}}"#
        );
    }

    #[test]
    fn a_comma_first_layout_gets_valid_json() {
        // Found by the fuzzer: the indentation taken from `\n    ,    ` kept the comma.
        let text = "{\n    \"plugins\": [\n        {\n            \"name\": \"a\"\n        }\n    ,    {\n            \"name\": \"b\"\n        }  ]\n}\n";
        let (edited, existed) = add_new_skill(text);
        assert!(!existed);
        let value: Value = serde_json::from_str(&edited).unwrap();
        assert_eq!(value["plugins"][2]["name"], "new-skill");
        let (again, existed) = add_new_skill(&edited);
        assert!(existed);
        assert_eq!(again, edited);
    }

    #[test]
    fn inline_elements_get_an_inline_sibling() {
        let version = json!("1.0.0");
        let text = "{\n  \"plugins\": [\n    { \"name\": \"a\", \"source\": \"./a\" }\n  ]\n}";
        assert_eq!(
            upsert(text, "x", &[("version", &version)]).0,
            "{\n  \"plugins\": [\n    { \"name\": \"a\", \"source\": \"./a\" },\n    \
             { \"name\": \"x\", \"version\": \"1.0.0\" }\n  ]\n}"
        );
        // Fields that set the key themselves choose its place.
        let name = json!("x");
        assert_eq!(
            upsert(text, "x", &[("version", &version), ("name", &name)]).0,
            "{\n  \"plugins\": [\n    { \"name\": \"a\", \"source\": \"./a\" },\n    \
             { \"version\": \"1.0.0\", \"name\": \"x\" }\n  ]\n}"
        );
    }

    #[test]
    fn keys_match_decoded() {
        let version = json!("1.0.0");
        let text = r#"{"\u0070lugins": [{"n\u0061me": "\u0078", "version": "0.1.0"}]}"#;
        assert_eq!(
            upsert(text, "x", &[("version", &version)]),
            (text.replace("0.1.0", "1.0.0"), true)
        );
        let text = r#"{"\ud83d\ude00": {}}"#;
        assert_eq!(
            set_fields(text, &["😀"], &[("v", &version)]).unwrap(),
            r#"{"\ud83d\ude00": {"v": "1.0.0"}}"#
        );
    }

    #[test]
    fn the_layout_is_reported() {
        let text = "\u{feff}{\r\n    \"plugins\": []\r\n}\r\n";
        assert_eq!(
            layout(text).unwrap(),
            Layout {
                bom: true,
                crlf: true,
                indent: "    ".to_owned(),
                multi_line: true,
            }
        );
        let (edited, _) = upsert(text, "x", &[]);
        assert_eq!(
            edited,
            "\u{feff}{\r\n    \"plugins\": [\r\n        {\r\n            \"name\": \"x\"\r\n        \
             }\r\n    ]\r\n}\r\n"
        );
        assert_eq!(
            layout("{}").unwrap(),
            Layout {
                bom: false,
                crlf: false,
                indent: "  ".to_owned(),
                multi_line: false,
            }
        );
    }

    /// Checks that each text is refused with its error (`line L, column C: message`).
    fn assert_refused(cases: &[(&str, &str)]) {
        for &(text, expected) in cases {
            assert_eq!(layout(text).unwrap_err().to_string(), expected, "{text:?}");
        }
    }

    #[test]
    fn structural_errors_name_their_place_and_what_was_expected() {
        assert_refused(&[
            (
                r#"{"a": 1,}"#,
                "line 1, column 9: expected a member name after `,` (JSON allows no trailing comma)",
            ),
            (
                "[1, 2,\n]",
                "line 2, column 1: expected a value after `,` (JSON allows no trailing comma)",
            ),
            (
                r#"{"a": 1} x"#,
                "line 1, column 10: expected the end of the document after its top-level value, \
                 found `x`",
            ),
            (
                "{\"a\": 1 // note\n}",
                "line 1, column 9: expected `,` or `}` after an object member, found a comment \
                 (JSON has none)",
            ),
            (
                "/* c */ {}",
                "line 1, column 1: expected a value, found a comment (JSON has none)",
            ),
            (
                r#"{"a" 1}"#,
                "line 1, column 6: expected `:` after a member name, found `1`",
            ),
            (
                r#"{"a": 1 "b": 2}"#,
                "line 1, column 9: expected `,` or `}` after an object member, found `\"`",
            ),
            (
                "[1 2]",
                "line 1, column 4: expected `,` or `]` after an array element, found `2`",
            ),
            (
                "{a: 1}",
                "line 1, column 2: expected a member name (a string in double quotes), found `a`",
            ),
            (
                r#"{"a": tru}"#,
                "line 1, column 7: expected a value, found `tru`",
            ),
            ("['a']", "line 1, column 2: expected a value, found `'`"),
            (
                "",
                "line 1, column 1: expected a value, found the end of the document",
            ),
            (
                "\u{feff}{,}",
                "line 1, column 2: expected a member name (a string in double quotes), found `,`",
            ),
            (
                "{}\u{feff}",
                "line 1, column 3: expected the end of the document after its top-level value, \
                 found U+FEFF",
            ),
        ]);
    }

    #[test]
    fn string_errors_name_their_place_and_what_was_expected() {
        let lone = "in a string (not a Unicode character)";
        assert_refused(&[
            (r#"["abc"#, "line 1, column 2: unterminated string"),
            (
                r#""\x""#,
                "line 1, column 2: invalid escape `\\x` in a string",
            ),
            (
                r#""\u12""#,
                "line 1, column 4: expected four hex digits after `\\u`",
            ),
            (
                r#""\ud800""#,
                &format!("line 1, column 2: lone surrogate `\\uD800` {lone}"),
            ),
            (
                r#""\udc00x""#,
                &format!("line 1, column 2: lone surrogate `\\uDC00` {lone}"),
            ),
            (
                r#""\ud800\u0041""#,
                &format!("line 1, column 2: lone surrogate `\\uD800` {lone}"),
            ),
            (
                "\"a\tb\"",
                "line 1, column 3: control character U+0009 in a string (JSON needs it escaped: \
                 `\\n`, `\\t`, `\\u00XX`)",
            ),
        ]);
    }

    #[test]
    fn number_errors_name_their_place_and_what_was_expected() {
        let zero = "a number cannot start with `0` followed by more digits";
        assert_refused(&[
            ("01", &format!("line 1, column 1: {zero}")),
            ("[-01]", &format!("line 1, column 2: {zero}")),
            // Columns count characters.
            ("{\n  \"é\": 01\n}", &format!("line 2, column 8: {zero}")),
            (
                "1.",
                "line 1, column 3: expected a digit after the decimal point",
            ),
            ("-", "line 1, column 2: expected a digit after `-`"),
            ("1e+", "line 1, column 4: expected a digit in the exponent"),
            (".5", "line 1, column 1: expected a value, found `.`"),
            ("+1", "line 1, column 1: expected a value, found `+`"),
            (
                "1e400",
                "line 1, column 1: the number is too large for a double-precision float",
            ),
        ]);
    }

    #[test]
    fn valid_json_is_accepted() {
        for text in [
            "0",
            "-0.5e-3",
            "1E+2",
            "\"\"",
            r#""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#,
            " \t\r\n{ } ",
            "[[], {}, null, true, false]",
            "\u{feff}[]",
            "123456789012345678901234567890",
        ] {
            assert!(layout(text).is_ok(), "{text:?}");
        }
    }

    #[test]
    fn nesting_is_capped() {
        let deep = |levels: usize| ["[".repeat(levels), "]".repeat(levels)].concat();
        assert!(layout(&deep(MAX_DEPTH)).is_ok());
        assert_eq!(
            layout(&deep(MAX_DEPTH + 1)).unwrap_err().to_string(),
            "line 1, column 101: arrays and objects nested deeper than 100 levels"
        );
        // Far deeper input fails as fast, without exhausting the stack.
        assert!(layout(&"{\"a\":".repeat(1_000_000)).is_err());
    }

    #[test]
    fn documents_of_the_wrong_shape_are_refused() {
        let version = json!("1.0.0");
        let fields: &[(&str, &Value)] = &[("version", &version)];
        let refused = |text: &str, path: &[&str]| {
            let error = upsert_element(text, path, "name", "x", fields).unwrap_err();
            (error.line, error.column, error.message)
        };
        let cases: &[(&str, &[&str], usize, usize, &str)] = &[
            (
                r#"{"name": "m"}"#,
                &["plugins"],
                1,
                1,
                "the top-level object has no `plugins` member",
            ),
            (
                r#"{"plugins": {}}"#,
                &["plugins"],
                1,
                13,
                "expected `plugins` to be an array, found an object",
            ),
            (
                "[]",
                &["plugins"],
                1,
                1,
                "expected the top-level value to be an object, found an array",
            ),
            (
                r#"{"a": 1}"#,
                &["a", "b"],
                1,
                7,
                "expected `a` to be an object, found a number",
            ),
            (r#"{"a": {}}"#, &["a", "b"], 1, 7, "`a` has no `b` member"),
            (
                r#"{"plugins": [], "plugins": []}"#,
                &["plugins"],
                1,
                17,
                "`plugins` appears twice in this object",
            ),
            (
                "{\"plugins\": [{\"name\": \"x\"},\n {\"name\": \"x\"}]}",
                &["plugins"],
                2,
                2,
                "a second element of `plugins` has `name` `x`",
            ),
            (
                r#"{"plugins": [{"name": "y", "name": "x"}]}"#,
                &["plugins"],
                1,
                28,
                "`name` appears twice in this object",
            ),
        ];
        for &(text, path, line, column, message) in cases {
            assert_eq!(
                refused(text, path),
                (line, column, message.to_owned()),
                "{text:?}"
            );
        }
        let error = set_fields("true", &[], fields).unwrap_err();
        assert_eq!(
            error.message,
            "expected the top-level value to be an object, found a boolean"
        );
        // Elements that are not objects, or whose name is not a string, are not matches.
        let (edited, existed) = upsert(r#"{"plugins": [1, {"name": 2}]}"#, "x", fields);
        assert!(!existed);
        assert_eq!(
            edited,
            r#"{"plugins": [1, {"name": 2}, {"name": "x", "version": "1.0.0"}]}"#
        );
    }

    /// Any JSON value whose numbers survive a round trip through text.
    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            (any::<i32>(), 0..8_i32).prop_map(|(units, halvings)| {
                Value::from(f64::from(units) / f64::from(2_i32.pow(halvings.unsigned_abs())))
            }),
            "\\PC{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                members(inner).prop_map(Value::Object),
            ]
        })
    }

    fn members(values: impl Strategy<Value = Value>) -> impl Strategy<Value = Map<String, Value>> {
        prop::collection::btree_map("\\PC{0,6}", values, 0..5)
            .prop_map(|members| members.into_iter().collect())
    }

    /// `value` pretty-printed with `indent`, or compact without one.
    fn written(value: &Value, indent: Option<&str>) -> String {
        let Some(indent) = indent else {
            return value.to_string();
        };
        let mut text = Vec::new();
        let formatter = PrettyFormatter::with_indent(indent.as_bytes());
        value
            .serialize(&mut serde_json::Serializer::with_formatter(
                &mut text, formatter,
            ))
            .unwrap();
        String::from_utf8(text).unwrap()
    }

    /// Pieces of JSON, valid and not, that random documents are made of.
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\n",
        "\"a\"",
        "\"\\u00e9\"",
        "\"\\ud800\"",
        "\"\\ud83d\\ude00\"",
        "\"\\x\"",
        "\"\t\"",
        "1",
        "-0",
        "01",
        "1.5",
        "2.",
        "1e400",
        "-1e-400",
        "0e99999999999999999999",
        "123456789012345678901234567890",
        "true",
        "nul",
        "//",
    ];

    proptest! {
        /// The scanner accepts exactly what `serde_json` accepts: a JSON document with a piece
        /// of JSON, valid or not, put in somewhere.
        #[test]
        fn the_scanner_agrees_with_serde_json(
            value in json_value(),
            at: prop::sample::Index,
            piece in prop::sample::select(PIECES),
        ) {
            let mut text = value.to_string();
            let mut at = at.index(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, piece);
            prop_assert_eq!(
                layout(&text).is_ok(),
                serde_json::from_str::<Value>(&text).is_ok(),
                "{:?}", text
            );
        }

        #[test]
        fn set_fields_sets_those_fields_and_nothing_else(
            mut root in members(json_value()),
            inner in members(json_value()),
            nested: bool,
            indent in prop::sample::select(vec![Some("  "), Some("    "), Some("\t"), None]),
            crlf: bool,
            final_newline: bool,
            picks in prop::collection::vec(
                (any::<prop::sample::Index>(), any::<bool>(), "\\PC{0,6}", json_value()),
                0..4,
            ),
        ) {
            let path: &[&str] = if nested { &["inner"] } else { &[] };
            if nested {
                root.insert("inner".to_owned(), Value::Object(inner));
            }
            let mut text = written(&Value::Object(root.clone()), indent);
            if final_newline {
                text.push('\n');
            }
            if crlf {
                text = text.replace('\n', "\r\n");
            }
            let mut expected = root;
            let target = if nested {
                expected.get_mut("inner").and_then(Value::as_object_mut).unwrap()
            } else {
                &mut expected
            };
            let mut fields = Vec::new();
            for (index, existing, new_key, value) in &picks {
                let key = match target.keys().nth(index.index(target.len().max(1))) {
                    Some(key) if *existing => key.clone(),
                    _ => new_key.clone(),
                };
                target.insert(key.clone(), value.clone());
                fields.push((key, value));
            }
            let fields: Vec<(&str, &Value)> =
                fields.iter().map(|(key, value)| (key.as_str(), *value)).collect();
            let edited = set_fields(&text, path, &fields).unwrap();
            prop_assert_eq!(serde_json::from_str::<Value>(&edited).unwrap(), Value::Object(expected));
            prop_assert_eq!(edited.ends_with('\n'), final_newline);
            if crlf {
                prop_assert!(!edited.replace("\r\n", "").contains('\n'));
            }
            if indent.is_none() {
                prop_assert!(!edited.trim_end().contains('\n'));
            }
            // Setting them again changes nothing.
            prop_assert_eq!(set_fields(&edited, path, &fields).unwrap(), edited);
        }
    }
}
