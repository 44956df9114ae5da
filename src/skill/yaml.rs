//! A small YAML tree that remembers where everything came from.
//!
//! A linter needs more than values: the span of every key and value, how a scalar was written
//! (plain, quoted, block), whether a collection used flow style, and where anchors, aliases and
//! tags appear (the reference validator's strictyaml refuses all of those). A serde
//! deserializer hides exactly that, so we build the tree from the events of `granit-parser`,
//! the pure-Rust YAML 1.2 parser underneath `serde-saphyr`. Duplicate keys are rejected here,
//! with both places reported.
//!
//! Aliases are kept as references to their anchor, never expanded, so a hostile frontmatter
//! cannot blow up memory ("billion laughs").

use std::collections::HashMap;
use std::ops::Range;

use granit_parser::{Event, Parser, ScalarStyle, StructureStyle};

/// Deeper nesting than this is refused; no skill needs it and it bounds the work.
const MAX_DEPTH: usize = 128;

/// Index of a node in [`Yaml::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeId(u32);

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// A scalar node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scalar {
    /// The value after YAML escape processing and line folding.
    pub value: String,
    pub style: Style,
    /// An explicit tag such as `!!str` was written.
    pub tagged: bool,
    /// The tag's suffix when it is a core-schema tag (`str` for `!!str`), else empty.
    pub core_tag: String,
}

/// What a plain scalar means under the YAML 1.2 core schema (what Claude Code's parser uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    Null,
    Bool(bool),
    Int,
    Float,
    Str,
}

impl Resolved {
    /// A short name for messages: "a number", "a boolean", …
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Self::Null => "an empty value",
            Self::Bool(_) => "a boolean",
            Self::Int | Self::Float => "a number",
            Self::Str => "a string",
        }
    }
}

impl std::fmt::Display for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

impl Scalar {
    /// Resolves the scalar under the YAML 1.2 core schema.
    pub fn resolve(&self) -> Resolved {
        if self.style != Style::Plain || self.tagged {
            return Resolved::Str;
        }
        resolve_plain(&self.value)
    }
}

fn resolve_plain(text: &str) -> Resolved {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Resolved::Float,
        _ => {}
    }
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if let Some(hex) = text.strip_prefix("0x") {
        return if digits(hex, 16) {
            Resolved::Int
        } else {
            Resolved::Str
        };
    }
    if let Some(octal) = text.strip_prefix("0o") {
        return if digits(octal, 8) {
            Resolved::Int
        } else {
            Resolved::Str
        };
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits(unsigned, 10) {
        return Resolved::Int;
    }
    // [0-9]+(\.[0-9]*)? or \.[0-9]+, then an optional exponent.
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => digits(fraction, 10),
        Some((whole, fraction)) => {
            digits(whole, 10) && (fraction.is_empty() || digits(fraction, 10))
        }
        None => digits(mantissa, 10),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e), 10));
    if mantissa_ok && exponent_ok && (mantissa.contains('.') || exponent.is_some()) {
        Resolved::Float
    } else {
        Resolved::Str
    }
}

/// `text` as a YAML scalar that every parser reads back as exactly `text`, a string: plain when
/// that is unambiguous, double-quoted otherwise. "Every parser" includes YAML 1.1 ones, where
/// `yes`, `off` and `1:30` are not strings, and strictyaml, which refuses flow-style look-alikes.
pub fn scalar(text: &str) -> String {
    if is_plain_safe(text) {
        text.to_owned()
    } else {
        double_quoted(text)
    }
}

/// `text` as a double-quoted YAML scalar, escaping what YAML does not allow raw.
pub(crate) fn double_quoted(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_yaml_printable(c) => out.push(c),
            c if u32::from(c) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08X}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// YAML's printable set (1.2 §5.1), less the characters some parsers treat as line breaks
/// (NEL, LS, PS) and the byte-order mark.
fn is_yaml_printable(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

fn is_plain_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let last = text.chars().next_back().unwrap_or(first);
    if first == ' ' || last == ' ' || last == ':' {
        return false;
    }
    // Indicators (YAML 1.2 §5.3) may not start a plain scalar, or change its meaning there.
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if text.contains(": ") || text.contains(" #") {
        return false;
    }
    if !text.chars().all(|c| c != '\t' && is_yaml_printable(c)) {
        return false;
    }
    !is_ambiguous_plain(text)
}

/// Whether some YAML parser would read the plain scalar `text` as something other than a
/// string: the 1.2 core schema's nulls, booleans and numbers, 1.1's `yes`/`no`/`on`/`off`/`y`/`n`,
/// and anything number-like (dates, `1:30`, `1_000`, versions such as `1.0`).
pub(crate) fn is_ambiguous_plain(text: &str) -> bool {
    if resolve_plain(text) != Resolved::Str {
        return true;
    }
    let lower = text.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "null" | "true" | "false"
    ) {
        return true;
    }
    let starts_like_number = text.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '.');
    starts_like_number
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '+' | '-'))
}

/// A node and the byte range it covers in the normalised file text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Range<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Scalar(Scalar),
    Sequence {
        items: Vec<NodeId>,
        flow: bool,
    },
    Mapping {
        entries: Vec<(NodeId, NodeId)>,
        flow: bool,
    },
    /// `*name`; the anchored node it refers to.
    Alias(NodeId),
}

impl NodeKind {
    /// A short name for messages.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Self::Scalar(scalar) => scalar.resolve().describe(),
            Self::Sequence { .. } => "a list",
            Self::Mapping { .. } => "a mapping",
            Self::Alias(_) => "an alias",
        }
    }
}

/// YAML features that strict parsers (strictyaml, used by `skills-ref`) refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Feature {
    FlowCollection(Range<usize>),
    Anchor(Range<usize>),
    Alias(Range<usize>),
    Tag(Range<usize>),
}

impl Feature {
    pub(crate) fn span(&self) -> Range<usize> {
        match self {
            Self::FlowCollection(span)
            | Self::Anchor(span)
            | Self::Alias(span)
            | Self::Tag(span) => span.clone(),
        }
    }
}

/// A parsed YAML document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Yaml {
    nodes: Vec<Node>,
    root: Option<NodeId>,
    features: Vec<Feature>,
}

impl Yaml {
    /// The root node; `None` for a document with no content (only comments or blanks).
    pub fn root(&self) -> Option<NodeId> {
        self.root
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The node, following aliases to their anchored node.
    pub fn resolve(&self, id: NodeId) -> &Node {
        let mut node = self.node(id);
        // An alias can only refer to an earlier node, so this terminates.
        while let NodeKind::Alias(target) = node.kind {
            node = self.node(target);
        }
        node
    }

    /// The scalar at `id` (after aliases), if it is one.
    pub fn scalar(&self, id: NodeId) -> Option<&Scalar> {
        match &self.resolve(id).kind {
            NodeKind::Scalar(scalar) => Some(scalar),
            _ => None,
        }
    }

    /// Flow collections, anchors, aliases and tags, in source order.
    pub(crate) fn features(&self) -> &[Feature] {
        &self.features
    }

    /// Rewrites every span through `map`: used when the text was rewritten before parsing and
    /// spans must point at the original.
    pub(crate) fn map_offsets(&mut self, map: impl Fn(usize) -> usize) {
        let remap = |span: &Range<usize>| {
            let start = map(span.start);
            start..map(span.end).max(start)
        };
        for node in &mut self.nodes {
            node.span = remap(&node.span);
        }
        for feature in &mut self.features {
            *feature = match feature {
                Feature::FlowCollection(span) => Feature::FlowCollection(remap(span)),
                Feature::Anchor(span) => Feature::Anchor(remap(span)),
                Feature::Alias(span) => Feature::Alias(remap(span)),
                Feature::Tag(span) => Feature::Tag(remap(span)),
            };
        }
    }
}

/// Why the YAML could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    pub kind: YamlErrorKind,
    /// Where the problem is, in the normalised file text.
    pub span: Range<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// The parser's own message, such as "mapping values are not allowed in this context".
    Syntax(String),
    /// A key appears twice in one mapping; `first` is the earlier occurrence.
    DuplicateKey {
        key: String,
        first: Range<usize>,
    },
    /// A second YAML document (`---` or `...` inside the frontmatter).
    ExtraDocument,
    TooDeep,
}

/// A collection being read: its children so far.
enum Frame {
    Sequence {
        start: usize,
        items: Vec<NodeId>,
        flow: bool,
        anchor: usize,
    },
    Mapping {
        start: usize,
        entries: Vec<(NodeId, NodeId)>,
        flow: bool,
        anchor: usize,
        pending_key: Option<NodeId>,
        seen: HashMap<String, Range<usize>>,
    },
}

/// Parses the YAML in `text[range]`. Spans in the result and in errors are offsets in `text`.
pub fn parse(text: &str, range: Range<usize>) -> Result<Yaml, YamlError> {
    parse_with(text, range, false)
}

/// [`parse`], but a key given twice in one mapping is kept twice (the mapping lists both, in
/// order), as parsers that let the last one win read it.
pub fn parse_allowing_duplicates(text: &str, range: Range<usize>) -> Result<Yaml, YamlError> {
    parse_with(text, range, true)
}

fn parse_with(text: &str, range: Range<usize>, duplicates: bool) -> Result<Yaml, YamlError> {
    let base = range.start;
    let options = granit_parser::options! { emit_anchor_events: true };
    let mut builder = Builder {
        duplicates,
        ..Builder::default()
    };
    for event in Parser::new_from_str_with_options(&text[range], options) {
        let offset = |marker: &granit_parser::Marker| base + marker.byte_offset().unwrap_or(0);
        let (event, span) = event.map_err(|error| YamlError {
            span: offset(error.marker())..offset(error.marker()),
            kind: YamlErrorKind::Syntax(error.info()),
        })?;
        let span_range = offset(&span.start)..offset(&span.end);
        if let Some(tag) = span.tag_span() {
            builder
                .yaml
                .features
                .push(Feature::Tag(offset(&tag.start)..offset(&tag.end)));
        }
        builder.event(event, span_range)?;
    }
    Ok(builder.yaml)
}

/// Turns parser events into a [`Yaml`] tree.
#[derive(Default)]
struct Builder {
    yaml: Yaml,
    /// Keys may repeat.
    duplicates: bool,
    stack: Vec<Frame>,
    anchors: HashMap<usize, NodeId>,
    documents: usize,
}

impl Builder {
    fn event(&mut self, event: Event<'_>, span: Range<usize>) -> Result<(), YamlError> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(YamlError {
                        kind: YamlErrorKind::ExtraDocument,
                        span,
                    });
                }
                Ok(())
            }
            Event::Anchor(..) => {
                self.yaml.features.push(Feature::Anchor(span));
                Ok(())
            }
            Event::Alias(id) => {
                self.yaml.features.push(Feature::Alias(span.clone()));
                let Some(&target) = self.anchors.get(&id) else {
                    return Err(YamlError {
                        kind: YamlErrorKind::Syntax("unknown anchor".into()),
                        span,
                    });
                };
                self.node(NodeKind::Alias(target), 0, span)
            }
            Event::Scalar(value, style, anchor, tag) => {
                let style = match style {
                    ScalarStyle::Plain => Style::Plain,
                    ScalarStyle::SingleQuoted => Style::SingleQuoted,
                    ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                    ScalarStyle::Literal => Style::Literal,
                    ScalarStyle::Folded => Style::Folded,
                };
                // An empty plain value (`key:`) arrives as "~" with an empty span.
                let value = if style == Style::Plain && span.is_empty() {
                    String::new()
                } else {
                    value.into_owned()
                };
                let core_tag = tag
                    .as_ref()
                    .filter(|tag| tag.handle() == "tag:yaml.org,2002:")
                    .map(|tag| tag.suffix().to_owned())
                    .unwrap_or_default();
                let scalar = Scalar {
                    value,
                    style,
                    tagged: tag.is_some(),
                    core_tag,
                };
                self.node(NodeKind::Scalar(scalar), anchor, span)
            }
            Event::SequenceStart(style, anchor, _) => {
                let flow = style == StructureStyle::Flow;
                self.open(
                    Frame::Sequence {
                        start: span.start,
                        items: Vec::new(),
                        flow,
                        anchor,
                    },
                    flow,
                    span,
                )
            }
            Event::MappingStart(style, anchor, _) => {
                let flow = style == StructureStyle::Flow;
                self.open(
                    Frame::Mapping {
                        start: span.start,
                        entries: Vec::new(),
                        flow,
                        anchor,
                        pending_key: None,
                        seen: HashMap::new(),
                    },
                    flow,
                    span,
                )
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(&span),
            // Stream and document ends, comments, unresolved aliases (not enabled) and events
            // added by future parser versions carry nothing the tree needs.
            _ => Ok(()),
        }
    }

    fn open(&mut self, frame: Frame, flow: bool, span: Range<usize>) -> Result<(), YamlError> {
        if flow {
            self.yaml
                .features
                .push(Feature::FlowCollection(span.clone()));
        }
        self.stack.push(frame);
        if self.stack.len() > MAX_DEPTH {
            return Err(YamlError {
                kind: YamlErrorKind::TooDeep,
                span,
            });
        }
        Ok(())
    }

    fn close(&mut self, end_event: &Range<usize>) -> Result<(), YamlError> {
        let (kind, anchor, start, flow) = match self.stack.pop() {
            Some(Frame::Sequence {
                start,
                items,
                flow,
                anchor,
            }) => (NodeKind::Sequence { items, flow }, anchor, start, flow),
            Some(Frame::Mapping {
                start,
                entries,
                flow,
                anchor,
                ..
            }) => (NodeKind::Mapping { entries, flow }, anchor, start, flow),
            None => return Ok(()),
        };
        // A flow collection ends at its bracket; a block one at its last child (its end event
        // sits on the next line).
        let end = if flow {
            end_event.end
        } else {
            last_child_end(&self.yaml, &kind).unwrap_or(start)
        };
        self.node(kind, anchor, start..end.max(start))
    }

    /// Adds a finished node and attaches it to the collection being read.
    fn node(&mut self, kind: NodeKind, anchor: usize, span: Range<usize>) -> Result<(), YamlError> {
        let id = NodeId(u32::try_from(self.yaml.nodes.len()).unwrap_or(u32::MAX));
        self.yaml.nodes.push(Node { kind, span });
        if anchor != 0 {
            self.anchors.insert(anchor, id);
        }
        match self.stack.last_mut() {
            None => self.yaml.root = Some(id),
            Some(Frame::Sequence { items, .. }) => items.push(id),
            Some(Frame::Mapping {
                entries,
                pending_key,
                seen,
                ..
            }) => {
                if let Some(key) = pending_key.take() {
                    entries.push((key, id));
                    return Ok(());
                }
                let key = &self.yaml.nodes[id.0 as usize];
                if let NodeKind::Scalar(scalar) = &key.kind {
                    let identity = format!("{:?}:{}", scalar.resolve(), scalar.value);
                    if let Some(first) = seen.get(&identity).filter(|_| !self.duplicates) {
                        return Err(YamlError {
                            kind: YamlErrorKind::DuplicateKey {
                                key: scalar.value.clone(),
                                first: first.clone(),
                            },
                            span: key.span.clone(),
                        });
                    }
                    seen.insert(identity, key.span.clone());
                }
                *pending_key = Some(id);
            }
        }
        Ok(())
    }
}

/// Where the last child of a collection ends.
fn last_child_end(yaml: &Yaml, kind: &NodeKind) -> Option<usize> {
    let last = match kind {
        NodeKind::Sequence { items, .. } => items.last().copied(),
        NodeKind::Mapping { entries, .. } => entries.last().map(|&(_, value)| value),
        NodeKind::Scalar(_) | NodeKind::Alias(_) => None,
    }?;
    Some(yaml.node(last).span.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_stay_plain_only_when_every_parser_agrees() {
        for plain in [
            "Formats notes. Use when asked.",
            "MIT",
            "a:b",
            "x#y",
            "技能",
            "Apache-2.0",
        ] {
            assert_eq!(scalar(plain), plain);
        }
        for (text, quoted) in [
            ("yes", r#""yes""#),
            ("Off", r#""Off""#),
            ("1.0", r#""1.0""#),
            ("2026-01-31", r#""2026-01-31""#),
            ("Use when: asked", r#""Use when: asked""#),
            ("x #y z", r#""x #y z""#),
            ("[draft]", r#""[draft]""#),
            ("*star", r#""*star""#),
            ("\"hi\" \\o/", r#""\"hi\" \\o/""#),
            ("a\nb\tc\u{7f}\u{feff}", r#""a\nb\tc\u007F\uFEFF""#),
            ("", r#""""#),
            (" padded", r#"" padded""#),
        ] {
            assert_eq!(scalar(text), quoted, "{text:?}");
        }
    }

    fn parse_all(text: &str) -> Result<Yaml, YamlError> {
        parse(text, 0..text.len())
    }

    fn mapping(yaml: &Yaml) -> Vec<(String, &Node)> {
        let NodeKind::Mapping { entries, .. } = &yaml.node(yaml.root().unwrap()).kind else {
            panic!("not a mapping");
        };
        entries
            .iter()
            .map(|&(k, v)| (yaml.scalar(k).unwrap().value.clone(), yaml.node(v)))
            .collect()
    }

    #[test]
    fn keeps_spans_and_styles() {
        let text = "name: \"quoted\"\nempty:\nlist:\n  - a\n";
        let yaml = parse_all(text).unwrap();
        let entries = mapping(&yaml);
        assert_eq!(entries[0].0, "name");
        assert_eq!(&text[entries[0].1.span.clone()], "\"quoted\"");
        let NodeKind::Scalar(empty) = &entries[1].1.kind else {
            panic!()
        };
        assert_eq!(empty.value, "");
        assert_eq!(empty.resolve(), Resolved::Null);
        assert!(matches!(
            entries[2].1.kind,
            NodeKind::Sequence { flow: false, .. }
        ));
    }

    #[test]
    fn duplicate_keys_point_at_both() {
        let text = "name: a\ndescription: d\nname: b\n";
        let error = parse_all(text).unwrap_err();
        let YamlErrorKind::DuplicateKey { key, first } = error.kind else {
            panic!()
        };
        assert_eq!(key, "name");
        assert_eq!(first, 0..4);
        assert_eq!(error.span, 23..27);
    }

    #[test]
    fn unquoted_colon_is_a_syntax_error_at_the_colon() {
        let text = "description: Use when: x\n";
        let error = parse_all(text).unwrap_err();
        assert!(matches!(error.kind, YamlErrorKind::Syntax(_)));
        assert_eq!(&text[error.span.start..=error.span.start], ":");
    }

    #[test]
    fn records_strict_yaml_features_without_expanding_aliases() {
        let text = "a: &x [1, 2]\nb: *x\nc: !!str 3\n";
        let yaml = parse_all(text).unwrap();
        let kinds: Vec<_> = yaml.features().iter().map(std::mem::discriminant).collect();
        assert_eq!(kinds.len(), 4);
        let entries = mapping(&yaml);
        assert!(matches!(entries[1].1.kind, NodeKind::Alias(_)));
        assert!(matches!(
            yaml.resolve(yaml.root().unwrap()).kind,
            NodeKind::Mapping { .. }
        ));
    }

    #[test]
    fn resolves_core_schema_plain_scalars() {
        for (text, expected) in [
            ("123", Resolved::Int),
            ("-0x1", Resolved::Str),
            ("0x1F", Resolved::Int),
            ("1.0", Resolved::Float),
            ("1e3", Resolved::Float),
            (".5", Resolved::Float),
            ("1.", Resolved::Float),
            ("yes", Resolved::Str),
            ("True", Resolved::Bool(true)),
            ("~", Resolved::Null),
            ("1.2.3", Resolved::Str),
            ("-", Resolved::Str),
        ] {
            assert_eq!(resolve_plain(text), expected, "{text}");
        }
    }

    #[test]
    fn refuses_deep_nesting() {
        let text = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(parse_all(&text).unwrap_err().kind, YamlErrorKind::TooDeep);
    }

    #[test]
    fn a_second_document_is_an_error() {
        let error = parse_all("a: 1\n--- b\n").unwrap_err();
        assert_eq!(error.kind, YamlErrorKind::ExtraDocument);
    }
}
