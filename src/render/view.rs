//! A skill as an agent sees it: the few things listings and activation need, read once.

use std::path::{Path, PathBuf};

use crate::check::rules::{claude_code_fallback, claude_code_reading};
use crate::check::target::Target;
use crate::skill::frontmatter::Split;
use crate::skill::model::{SkillDoc, ToolList};
use crate::skill::{Reading, Skill};

/// Where a skill was found, for agents that rank user-level skills above project ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

/// One skill, ready to render.
#[derive(Clone, Debug)]
pub struct SkillView {
    pub scope: Scope,
    /// The skill's folder, absolute.
    pub dir: PathBuf,
    /// Its SKILL.md, absolute.
    pub file: PathBuf,
    /// The folder's name: Claude Code's name for the skill.
    pub dir_name: String,
    /// The normalised text of SKILL.md (no BOM, `\n` line endings).
    pub text: String,
    /// Files of the skill other than SKILL.md, relative, sorted.
    pub resources: Vec<String>,
    /// As Claude Code (the version given) reads it.
    pub claude: ClaudeView,
    /// As spec-following agents read it (whole-line `---` delimiters, strict YAML).
    pub spec: SpecView,
}

/// The frontmatter values Claude Code uses, after its cut and quote-and-retry.
#[derive(Clone, Debug, Default)]
#[allow(clippy::struct_excessive_bools)] // they are Claude Code's flags
pub struct ClaudeView {
    /// The description as text (numbers and booleans stringified); `None` when missing,
    /// empty or not a scalar, so the fallback applies.
    pub description: Option<String>,
    pub when_to_use: Option<String>,
    /// The first body line, `#`s stripped, cut to 100 characters.
    pub fallback: Option<String>,
    pub disable_model_invocation: bool,
    pub user_invocable: bool,
    pub paths: bool,
    pub fork: bool,
    pub arguments: Vec<String>,
    /// Each entry of `allowed-tools`.
    pub allowed_tools: Vec<String>,
    /// The body after the frontmatter, leading blank lines dropped.
    pub body: String,
}

/// The frontmatter as the spec reads it.
#[derive(Clone, Debug, Default)]
pub struct SpecView {
    pub name: Option<String>,
    pub description: Option<String>,
    /// The body after the frontmatter.
    pub body: String,
}

impl SkillView {
    /// Reads `skill` (found in `scope`) for rendering. `target` picks the Claude Code version
    /// whose reading is used. Without `bodies`, the text and bodies are left empty (a listing
    /// needs neither). `None` when SKILL.md is not UTF-8.
    pub fn new(
        skill: &Skill,
        scope: Scope,
        target: Target,
        resources: Vec<String>,
        bodies: bool,
    ) -> Option<Self> {
        let source = skill.source().ok()?;
        let dir = absolute(&skill.dir);
        let file_name = skill
            .path
            .file_name()
            .map_or_else(|| "SKILL.md".into(), ToOwned::to_owned);
        let claude_target = if target.is_claude_code() {
            target
        } else {
            Target::ClaudeCode
        };
        let mut claude = claude_code_reading(skill, claude_target)
            .map(|(reading, doc)| claude_view(skill, &reading, doc.as_ref()))
            .unwrap_or_default();
        let mut spec = skill
            .reading()
            .map(|reading| spec_view(skill, reading))
            .unwrap_or_default();
        if !bodies {
            claude.body = String::new();
            spec.body = String::new();
        }
        Some(Self {
            scope,
            file: dir.join(file_name),
            dir,
            dir_name: skill.dir_name.clone(),
            text: if bodies {
                source.text().to_owned()
            } else {
                String::new()
            },
            resources,
            claude,
            spec,
        })
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn text(field: Option<&crate::skill::model::Field<String>>) -> Option<String> {
    field.and_then(|field| field.value.as_ref().ok()).cloned()
}

fn claude_view(skill: &Skill, reading: &Reading, doc: Option<&SkillDoc>) -> ClaudeView {
    let body = skill.body(reading);
    let description = doc
        .and_then(|doc| text(doc.description.as_ref()))
        .filter(|text| !text.trim().is_empty());
    let flag = |field: Option<&crate::skill::model::Field<bool>>| {
        field.is_some_and(|f| f.value == Ok(true))
    };
    let allowed_tools = match doc
        .and_then(|doc| doc.allowed_tools.as_ref())
        .map(|f| &f.value)
    {
        Some(Ok(ToolList::Text(text))) => split_tools(text),
        Some(Ok(ToolList::List(items))) => items
            .iter()
            .flat_map(|item| split_tools(&item.value))
            .collect(),
        _ => Vec::new(),
    };
    ClaudeView {
        description,
        when_to_use: doc.and_then(|doc| text(doc.when_to_use.as_ref())),
        fallback: claude_code_fallback(body),
        disable_model_invocation: flag(doc.and_then(|doc| doc.disable_model_invocation.as_ref())),
        user_invocable: doc
            .and_then(|doc| doc.user_invocable.as_ref())
            .is_none_or(|field| field.value != Ok(false)),
        paths: doc.and_then(|doc| doc.paths.as_ref()).is_some(),
        fork: doc
            .and_then(|doc| doc.context.as_ref())
            .and_then(|field| field.value.as_deref().ok())
            == Some("fork"),
        arguments: doc
            .and_then(|doc| doc.arguments.as_ref())
            .and_then(|field| field.value.as_ref().ok())
            .map(|names| names.iter().map(|name| name.value.clone()).collect())
            .unwrap_or_default(),
        allowed_tools,
        body: body.trim_start_matches(['\n', '\r']).to_owned(),
    }
}

fn spec_view(skill: &Skill, reading: &Reading) -> SpecView {
    let doc = match &reading.split {
        Split::Found(_) => reading.doc.as_ref(),
        _ => None,
    };
    SpecView {
        name: doc
            .and_then(|doc| text(doc.name.as_ref()))
            .map(|name| name.trim().to_owned()),
        description: doc
            .and_then(|doc| text(doc.description.as_ref()))
            .map(|description| description.trim().to_owned())
            .filter(|description| !description.is_empty()),
        body: skill.body(reading).to_owned(),
    }
}

/// Claude Code's split of a tool list: spaces and commas outside parentheses.
pub fn split_tools(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 && (c.is_whitespace() || c == ',') => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Strings by prefix: which of them `text` starts with, found in one walk along `text`. Each
/// string keeps the smallest index it was inserted with.
#[derive(Clone, Debug)]
pub struct PrefixTrie {
    /// Node 0 is the root.
    nodes: Vec<TrieNode>,
}

#[derive(Clone, Debug, Default)]
struct TrieNode {
    /// By byte: the child's node.
    children: Vec<(u8, usize)>,
    /// The smallest index of a string that ends here.
    first: Option<usize>,
}

impl Default for PrefixTrie {
    fn default() -> Self {
        Self {
            nodes: vec![TrieNode::default()],
        }
    }
}

impl PrefixTrie {
    pub fn insert(&mut self, key: &str, index: usize) {
        let mut node = 0;
        for &byte in key.as_bytes() {
            let found = self.nodes[node]
                .children
                .iter()
                .find(|(b, _)| *b == byte)
                .map(|&(_, child)| child);
            node = found.unwrap_or_else(|| {
                self.nodes.push(TrieNode::default());
                let child = self.nodes.len() - 1;
                self.nodes[node].children.push((byte, child));
                child
            });
        }
        let first = &mut self.nodes[node].first;
        *first = Some(first.map_or(index, |seen| seen.min(index)));
    }

    /// Every inserted string that `text` starts with, as (length, index), shortest first.
    pub fn prefixes_of<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
        let root = self.nodes[0].first.map(|index| (0, index));
        let mut node = 0;
        let walked = text
            .as_bytes()
            .iter()
            .enumerate()
            .map_while(move |(at, &byte)| {
                let &(_, child) = self.nodes[node].children.iter().find(|(b, _)| *b == byte)?;
                node = child;
                Some(self.nodes[node].first.map(|index| (at + 1, index)))
            });
        root.into_iter().chain(walked.flatten())
    }
}

/// Claude Code's `Bash(…)` permission rules, for finding which rule allows a command in time
/// linear in the command: `prefix:*` and `prefix*` allow what starts with `prefix` (trimmed at
/// its end), anything else only the exact command. Rules are held in a byte trie, so a skill
/// with thousands of rules and thousands of commands costs their total length, not their
/// product.
#[derive(Clone, Debug, Default)]
pub struct BashRules {
    exact: std::collections::HashMap<String, usize>,
    prefixes: PrefixTrie,
}

impl BashRules {
    /// The rules, in order: a rule's index is its position in `rules`.
    pub fn new<'a>(rules: impl IntoIterator<Item = &'a str>) -> Self {
        let mut out = Self::default();
        for (index, rule) in rules.into_iter().enumerate() {
            match rule.strip_suffix(":*").or_else(|| rule.strip_suffix('*')) {
                Some(prefix) => out.prefixes.insert(prefix.trim_end(), index),
                None => {
                    out.exact.entry(rule.to_owned()).or_insert(index);
                }
            }
        }
        out
    }

    /// The index of the first rule that allows `command`, if any.
    pub fn first_match(&self, command: &str) -> Option<usize> {
        let exact = self.exact.get(command).copied();
        let prefix = self
            .prefixes
            .prefixes_of(command)
            .map(|(_, index)| index)
            .min();
        match (exact, prefix) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (found, other) => found.or(other),
        }
    }
}
