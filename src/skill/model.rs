//! The typed frontmatter: every key the open spec defines and every key Claude Code honours.
//!
//! Values are read the way Claude Code 2.1.332 reads them (YAML 1.2 core schema; a number or
//! boolean where text is expected is turned into text), and each one remembers that it was
//! coerced, so a rule can still say "quote it" for agents that are stricter. Every value keeps
//! the span of its key and of its value. Keys are in `docs/research/rendering-and-marketplaces.md`
//! A1.1 (v2.1.88 parser) and A1.2 (the documented table for current versions).

use std::ops::Range;

use super::yaml::{NodeId, NodeKind, Resolved, Yaml};

/// Where a frontmatter key comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyOrigin {
    /// One of the six keys of the Agent Skills specification.
    Spec,
    /// Honoured by Claude Code only; `since` is the first version that reads it, if known to be
    /// later than 2.1.88.
    ClaudeCode { since: Option<(u32, u32, u32)> },
}

/// A frontmatter key skillpkg knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KnownKey {
    pub name: &'static str,
    pub origin: KeyOrigin,
    /// What the value must be, for messages.
    pub expects: &'static str,
}

const fn spec(name: &'static str, expects: &'static str) -> KnownKey {
    KnownKey {
        name,
        origin: KeyOrigin::Spec,
        expects,
    }
}

const fn claude(name: &'static str, expects: &'static str) -> KnownKey {
    KnownKey {
        name,
        origin: KeyOrigin::ClaudeCode { since: None },
        expects,
    }
}

const fn claude_since(
    name: &'static str,
    since: (u32, u32, u32),
    expects: &'static str,
) -> KnownKey {
    KnownKey {
        name,
        origin: KeyOrigin::ClaudeCode { since: Some(since) },
        expects,
    }
}

/// Every key skillpkg knows, spec keys first.
pub(crate) const KNOWN_KEYS: &[KnownKey] = &[
    spec("name", "a string"),
    spec("description", "a string"),
    spec("license", "a string"),
    spec("compatibility", "a string"),
    spec("metadata", "a mapping of strings to strings"),
    spec("allowed-tools", "a space-separated string"),
    claude("when_to_use", "a string"),
    claude("argument-hint", "a string"),
    claude("arguments", "a space-separated string or a list of names"),
    claude("disable-model-invocation", "a boolean"),
    claude("user-invocable", "a boolean"),
    claude_since(
        "disallowed-tools",
        (2, 1, 152),
        "a string or a list of tools",
    ),
    claude("model", "a model name or `inherit`"),
    claude(
        "effort",
        "one of low, medium, high, xhigh, max, or an integer",
    ),
    claude("context", "`fork`"),
    claude("agent", "an agent type"),
    claude_since("background", (2, 1, 218), "a boolean"),
    claude("hooks", "a mapping of hook events"),
    claude("paths", "a glob string or a list of globs"),
    claude("shell", "`bash` or `powershell`"),
    claude("version", "a string"),
    claude_since("display-name", (2, 1, 186), "a string"),
    claude_since("display_name", (2, 1, 186), "a string"),
    claude_since("displayName", (2, 1, 186), "a string"),
    claude_since("default-enabled", (2, 1, 186), "a boolean"),
    claude_since("default_enabled", (2, 1, 186), "a boolean"),
    claude_since("defaultEnabled", (2, 1, 186), "a boolean"),
    claude_since("fallback", (2, 1, 186), "a value"),
];

/// Looks a key up in [`KNOWN_KEYS`].
pub(crate) fn known_key(name: &str) -> Option<&'static KnownKey> {
    KNOWN_KEYS.iter().find(|key| key.name == name)
}

/// A value and the byte range it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Range<usize>,
}

/// The value had a shape the key cannot take (a list where text is expected, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// What was found: "a list", "a mapping", "a number", …
    pub found: &'static str,
}

/// A frontmatter value as read for one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field<T> {
    /// The key's span.
    pub key: Range<usize>,
    /// The value's node and span (an empty span for `key:` with nothing after it).
    pub node: NodeId,
    pub span: Range<usize>,
    pub value: Result<T, Mismatch>,
    /// The value was a non-string scalar (a number, boolean or empty value) read as text, and
    /// what it resolved to; strict agents reject it unless quoted.
    pub coerced: Option<Resolved>,
}

/// One `metadata` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataEntry {
    pub key: Spanned<String>,
    /// The key was a number, boolean or empty value read as text.
    pub key_coerced: Option<Resolved>,
    pub value: NodeId,
}

/// A list of tools, written as a string (`Read Bash(git:*)`) or a YAML list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolList {
    Text(String),
    List(Vec<Spanned<String>>),
}

/// `effort`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effort {
    Level(String),
    Tokens(i64),
}

/// The typed frontmatter of one reading of a `SKILL.md`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillDoc {
    /// Every top-level key in source order, with its span and value node.
    pub entries: Vec<(Spanned<String>, NodeId)>,
    pub name: Option<Box<Field<String>>>,
    pub description: Option<Box<Field<String>>>,
    pub license: Option<Box<Field<String>>>,
    pub compatibility: Option<Box<Field<String>>>,
    /// Entries of `metadata`; values keep their node so their type can be checked.
    pub metadata: Option<Box<Field<Vec<MetadataEntry>>>>,
    pub allowed_tools: Option<Box<Field<ToolList>>>,
    pub when_to_use: Option<Box<Field<String>>>,
    pub argument_hint: Option<Box<Field<String>>>,
    pub arguments: Option<Box<Field<Vec<Spanned<String>>>>>,
    pub disable_model_invocation: Option<Box<Field<bool>>>,
    pub user_invocable: Option<Box<Field<bool>>>,
    pub disallowed_tools: Option<Box<Field<ToolList>>>,
    pub model: Option<Box<Field<String>>>,
    pub effort: Option<Box<Field<Effort>>>,
    pub context: Option<Box<Field<String>>>,
    pub agent: Option<Box<Field<String>>>,
    pub background: Option<Box<Field<bool>>>,
    pub hooks: Option<Box<Field<NodeId>>>,
    pub paths: Option<Box<Field<Vec<Spanned<String>>>>>,
    pub shell: Option<Box<Field<String>>>,
    pub version: Option<Box<Field<String>>>,
}

impl SkillDoc {
    /// Drops all but what the rules across skills and the reports read once a skill's own
    /// checks are done: `name`, `description`, `when_to_use`, `disable-model-invocation`,
    /// `user-invocable` and `paths`. The keys in order, `metadata` and the rest are thousands of
    /// small strings over a large set of skills.
    pub(crate) fn keep_set_fields(&mut self) {
        let kept = Self {
            name: self.name.take(),
            description: self.description.take(),
            when_to_use: self.when_to_use.take(),
            disable_model_invocation: self.disable_model_invocation.take(),
            user_invocable: self.user_invocable.take(),
            paths: self.paths.take(),
            ..Self::default()
        };
        *self = kept;
    }

    /// Reads the typed fields out of a YAML mapping. Returns `None` when the root is not a
    /// mapping (or there is no root).
    pub(crate) fn from_yaml(yaml: &Yaml) -> Option<Self> {
        let root = yaml.root()?;
        let NodeKind::Mapping { entries, .. } = &yaml.resolve(root).kind else {
            return None;
        };
        let mut doc = Self::default();
        for &(key, value) in entries {
            let key_node = yaml.resolve(key);
            let key_text = match &key_node.kind {
                NodeKind::Scalar(scalar) => scalar.value.clone(),
                other => format!("<{}>", other.describe()),
            };
            let key_span = yaml.node(key).span.clone();
            let reader = FieldReader {
                yaml,
                key: key_span.clone(),
                node: value,
            };
            match key_text.as_str() {
                "name" => doc.name = Some(Box::new(reader.text())),
                "description" => doc.description = Some(Box::new(reader.text())),
                "license" => doc.license = Some(Box::new(reader.text())),
                "compatibility" => doc.compatibility = Some(Box::new(reader.text())),
                "metadata" => doc.metadata = Some(Box::new(reader.string_map())),
                "allowed-tools" => doc.allowed_tools = Some(Box::new(reader.tools())),
                "when_to_use" => doc.when_to_use = Some(Box::new(reader.text())),
                "argument-hint" => doc.argument_hint = Some(Box::new(reader.text())),
                "arguments" => doc.arguments = Some(Box::new(reader.words())),
                "disable-model-invocation" => {
                    doc.disable_model_invocation = Some(Box::new(reader.boolean()));
                }
                "user-invocable" => doc.user_invocable = Some(Box::new(reader.boolean())),
                "disallowed-tools" => doc.disallowed_tools = Some(Box::new(reader.tools())),
                "model" => doc.model = Some(Box::new(reader.text())),
                "effort" => doc.effort = Some(Box::new(reader.effort())),
                "context" => doc.context = Some(Box::new(reader.text())),
                "agent" => doc.agent = Some(Box::new(reader.text())),
                "background" => doc.background = Some(Box::new(reader.boolean())),
                "hooks" => doc.hooks = Some(Box::new(reader.mapping())),
                "paths" => doc.paths = Some(Box::new(reader.globs())),
                "shell" => doc.shell = Some(Box::new(reader.text())),
                "version" => doc.version = Some(Box::new(reader.text())),
                _ => {}
            }
            doc.entries.push((
                Spanned {
                    value: key_text,
                    span: key_span,
                },
                value,
            ));
        }
        Some(doc)
    }
}

/// Reads the value of one key into a typed [`Field`].
struct FieldReader<'a> {
    yaml: &'a Yaml,
    key: Range<usize>,
    node: NodeId,
}

impl FieldReader<'_> {
    fn field<T>(&self, value: Result<T, Mismatch>, coerced: Option<Resolved>) -> Field<T> {
        Field {
            key: self.key.clone(),
            node: self.node,
            span: self.yaml.node(self.node).span.clone(),
            value,
            coerced,
        }
    }

    fn mismatch(&self) -> Mismatch {
        Mismatch {
            found: self.yaml.resolve(self.node).kind.describe(),
        }
    }

    /// Text; a number, boolean or empty value is read as its text and marked as coerced.
    fn text(&self) -> Field<String> {
        match self.yaml.scalar(self.node) {
            Some(scalar) => {
                let resolved = scalar.resolve();
                let coerced = (resolved != Resolved::Str).then_some(resolved);
                self.field(Ok(scalar.value.clone()), coerced)
            }
            None => self.field(Err(self.mismatch()), None),
        }
    }

    fn string_map(&self) -> Field<Vec<MetadataEntry>> {
        match &self.yaml.resolve(self.node).kind {
            NodeKind::Mapping { entries, .. } => {
                let entries = entries
                    .iter()
                    .map(|&(key, value)| {
                        let scalar = self.yaml.scalar(key);
                        let text = scalar.map_or_else(
                            || format!("<{}>", self.yaml.resolve(key).kind.describe()),
                            |scalar| scalar.value.clone(),
                        );
                        let key_coerced = scalar
                            .map(super::yaml::Scalar::resolve)
                            .filter(|resolved| *resolved != Resolved::Str);
                        MetadataEntry {
                            key: Spanned {
                                value: text,
                                span: self.yaml.node(key).span.clone(),
                            },
                            key_coerced,
                            value,
                        }
                    })
                    .collect();
                self.field(Ok(entries), None)
            }
            _ => self.field(Err(self.mismatch()), None),
        }
    }

    fn mapping(&self) -> Field<NodeId> {
        match &self.yaml.resolve(self.node).kind {
            NodeKind::Mapping { .. } => self.field(Ok(self.node), None),
            _ => self.field(Err(self.mismatch()), None),
        }
    }

    /// The items of a list of scalars, or `None` if an item is not a scalar.
    fn scalar_items(&self, items: &[NodeId]) -> Option<Vec<Spanned<String>>> {
        items
            .iter()
            .map(|&item| {
                self.yaml.scalar(item).map(|scalar| Spanned {
                    value: scalar.value.clone(),
                    span: self.yaml.node(item).span.clone(),
                })
            })
            .collect()
    }

    fn tools(&self) -> Field<ToolList> {
        match &self.yaml.resolve(self.node).kind {
            NodeKind::Scalar(scalar) => self.field(Ok(ToolList::Text(scalar.value.clone())), None),
            NodeKind::Sequence { items, .. } => match self.scalar_items(items) {
                Some(list) => self.field(Ok(ToolList::List(list)), None),
                None => self.field(
                    Err(Mismatch {
                        found: "a list with nested values",
                    }),
                    None,
                ),
            },
            _ => self.field(Err(self.mismatch()), None),
        }
    }

    /// A space-separated string or a list, as Claude Code reads `arguments`.
    fn words(&self) -> Field<Vec<Spanned<String>>> {
        match &self.yaml.resolve(self.node).kind {
            NodeKind::Scalar(scalar) => {
                let start = self.yaml.node(self.node).span.start;
                let words = split_words(&scalar.value, start);
                self.field(Ok(words), None)
            }
            NodeKind::Sequence { items, .. } => match self.scalar_items(items) {
                Some(list) => self.field(Ok(list), None),
                None => self.field(
                    Err(Mismatch {
                        found: "a list with nested values",
                    }),
                    None,
                ),
            },
            _ => self.field(Err(self.mismatch()), None),
        }
    }

    /// A comma-separated string or a list, as Claude Code reads `paths`.
    fn globs(&self) -> Field<Vec<Spanned<String>>> {
        match &self.yaml.resolve(self.node).kind {
            NodeKind::Scalar(scalar) => {
                let span = self.yaml.node(self.node).span.clone();
                let globs = scalar
                    .value
                    .split(',')
                    .map(str::trim)
                    .filter(|glob| !glob.is_empty())
                    .map(|glob| Spanned {
                        value: glob.to_owned(),
                        span: span.clone(),
                    })
                    .collect();
                self.field(Ok(globs), None)
            }
            NodeKind::Sequence { items, .. } => match self.scalar_items(items) {
                Some(list) => self.field(Ok(list), None),
                None => self.field(
                    Err(Mismatch {
                        found: "a list with nested values",
                    }),
                    None,
                ),
            },
            _ => self.field(Err(self.mismatch()), None),
        }
    }

    /// Claude Code's booleans: `true`/`false`, and since 2.1.218 `yes/no/on/off/1/0` in any case.
    fn boolean(&self) -> Field<bool> {
        let Some(scalar) = self.yaml.scalar(self.node) else {
            return self.field(Err(self.mismatch()), None);
        };
        match parse_claude_bool(&scalar.value) {
            Some(value) => self.field(Ok(value), None),
            None => self.field(
                Err(Mismatch {
                    found: scalar.resolve().describe(),
                }),
                None,
            ),
        }
    }

    fn effort(&self) -> Field<Effort> {
        let Some(scalar) = self.yaml.scalar(self.node) else {
            return self.field(Err(self.mismatch()), None);
        };
        let value = scalar.value.trim();
        match value.parse::<i64>() {
            Ok(tokens) => self.field(Ok(Effort::Tokens(tokens)), None),
            Err(_) => self.field(Ok(Effort::Level(value.to_owned())), None),
        }
    }
}

/// Parses a boolean as Claude Code 2.1.218 and later do.
pub(crate) fn parse_claude_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// Splits on whitespace, keeping the span of each word (exact for plain one-line values).
fn split_words(text: &str, start: usize) -> Vec<Spanned<String>> {
    let mut words = Vec::new();
    let mut offset = 0;
    for word in text.split_whitespace() {
        let at = text[offset..].find(word).map_or(offset, |i| offset + i);
        words.push(Spanned {
            value: word.to_owned(),
            span: start + at..start + at + word.len(),
        });
        offset = at + word.len();
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::yaml;

    fn doc(text: &str) -> SkillDoc {
        SkillDoc::from_yaml(&yaml::parse(text, 0..text.len()).unwrap()).unwrap()
    }

    #[test]
    fn reads_spec_and_claude_code_keys_with_spans() {
        let text = "name: pdf\ndescription: 12\nuser-invocable: no\nallowed-tools:\n  - Read\n";
        let doc = doc(text);
        let name = doc.name.unwrap();
        assert_eq!(name.value.unwrap(), "pdf");
        assert_eq!(&text[name.span], "pdf");
        let description = doc.description.unwrap();
        assert_eq!(description.value.unwrap(), "12");
        assert_eq!(description.coerced, Some(Resolved::Int));
        assert_eq!(doc.user_invocable.unwrap().value, Ok(false));
        let Ok(ToolList::List(tools)) = doc.allowed_tools.unwrap().value else {
            panic!()
        };
        assert_eq!(tools[0].value, "Read");
        assert_eq!(doc.entries.len(), 4);
    }

    #[test]
    fn a_list_where_text_is_expected_is_a_mismatch() {
        let doc = doc("description: [a, b]\n");
        assert_eq!(
            doc.description.unwrap().value,
            Err(Mismatch { found: "a list" })
        );
    }

    #[test]
    fn arguments_keep_word_spans() {
        let text = "arguments: topic  count\n";
        let doc = doc(text);
        let words = doc.arguments.unwrap().value.unwrap();
        assert_eq!(words.len(), 2);
        assert_eq!(&text[words[1].span.clone()], "count");
    }

    #[test]
    fn not_a_mapping_has_no_doc() {
        let text = "- a\n- b\n";
        assert!(SkillDoc::from_yaml(&yaml::parse(text, 0..text.len()).unwrap()).is_none());
    }
}
