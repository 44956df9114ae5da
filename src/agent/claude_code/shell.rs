//! Claude Code's inline shell: the commands a skill's body runs when the skill is invoked
//! (`` !`cmd` `` and ```` ```! ```` blocks), and the permission check that decides, before the
//! model sees anything, whether each may run. One scanner and one matcher, used by `lint`
//! (SK508) and `preview`, so that they give the same verdict.
//!
//! Ground truth: `docs/research/claude-code-captures.md` §8 (what runs, what aborts, the abort
//! message); the read-only commands and the rule syntax are Claude Code's, see `docs/agents.md`.

use std::fmt;
use std::ops::Range;

/// Byte ranges of the tools in an `allowed-tools` text: Claude Code splits it at spaces and
/// commas outside parentheses (`Bash(git add:*), Read`).
pub fn tool_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 && (c.is_whitespace() || c == ',') => {
                if let Some(from) = start.take() {
                    out.push(from..at);
                }
                continue;
            }
            _ => {}
        }
        start.get_or_insert(at);
    }
    if let Some(from) = start {
        out.push(from..text.len());
    }
    out
}

/// The tools in an `allowed-tools` text (see [`tool_ranges`]).
pub fn split_tools(text: &str) -> Vec<String> {
    tool_ranges(text)
        .into_iter()
        .map(|range| text[range].to_owned())
        .collect()
}

/// One inline command of a skill's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inline {
    /// The whole match in the text: `` !`…` `` or the ```` ```!…``` ```` block.
    pub range: Range<usize>,
    /// The command, trimmed.
    pub command: String,
}

/// The inline commands of `text` (a skill's body), in order: ```` ```! ```` blocks, and
/// `` !`cmd` `` where the `!` starts the text or follows whitespace and the command does not
/// cross a line. Where two overlap, the first is kept.
///
/// Linear in the text: where each inline command ends comes from one forward scan shared by
/// all of them, so a line of unclosed `` !` `` costs no more than its length.
pub fn inline_commands(text: &str) -> Vec<Inline> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(at) = text[search..].find("```!") {
        let start = search + at;
        let after = start + 4;
        let Some(close) = text[after..].find("```") else {
            break;
        };
        let command = text[after..after + close].trim().to_owned();
        if !command.is_empty() {
            found.push(Inline {
                range: start..after + close + 3,
                command,
            });
        }
        search = after + close + 3;
    }
    let blocks: Vec<Range<usize>> = found.iter().map(|inline| inline.range.clone()).collect();
    let inside_block = |at: usize| {
        let after = blocks.partition_point(|range| range.start <= at);
        after > 0 && blocks[after - 1].contains(&at)
    };
    let bytes = text.as_bytes();
    let mut stop: Option<usize> = Some(0);
    let mut inline_end = 0;
    for (at, _) in text.match_indices("!`") {
        if (at > 0 && !(bytes[at - 1] as char).is_whitespace())
            || at < inline_end
            || inside_block(at)
        {
            continue;
        }
        let inner = at + 2;
        if stop.is_some_and(|stop| stop < inner) {
            stop = text[inner..].find(['`', '\n']).map(|len| inner + len);
        }
        let Some(end) = stop else {
            continue;
        };
        if bytes[end] != b'`' || end == inner {
            continue;
        }
        let command = text[inner..end].trim().to_owned();
        if !command.is_empty() {
            found.push(Inline {
                range: at..end + 1,
                command,
            });
            inline_end = end + 1;
        }
    }
    found.sort_by_key(|inline| inline.range.start);
    // An inline command whose closing backtick lies inside a ```! block (or the other way
    // round) overlaps it: the first of the two is kept.
    let mut kept_end = 0;
    found.retain(|inline| {
        let keep = inline.range.start >= kept_end;
        if keep {
            kept_end = inline.range.end;
        }
        keep
    });
    found
}

/// Commands Claude Code runs without an allow rule because they only read: captures §8 shows
/// `echo`; the others are Claude Code's read-only command set.
const READ_ONLY: &[&str] = &[
    "echo", "cat", "ls", "pwd", "head", "tail", "wc", "date", "whoami", "which", "grep", "rg",
    "find", "tree", "file", "stat", "du", "df", "uname", "env", "printenv", "basename", "dirname",
    "realpath", "sort", "uniq", "cut", "diff", "true", "false", "test", "jq",
];

/// Read-only `git` subcommands.
const READ_ONLY_GIT: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "branch",
    "rev-parse",
    "describe",
    "tag",
    "remote",
    "ls-files",
    "blame",
    "config",
];

/// Why one part of a command may run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A bare `Bash` in `allowed-tools` (or `Bash(*)`-like rules that allow everything).
    AnyBash,
    /// The `Bash(…)` rule with this text allows it.
    Rule(String),
    /// A read-only command, which needs no rule.
    ReadOnly,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AnyBash => f.write_str("allowed by Bash"),
            Self::Rule(rule) => write!(f, "allowed by Bash({rule})"),
            Self::ReadOnly => f.write_str("read-only"),
        }
    }
}

/// Claude Code's permission verdict on one inline command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every part of it may run; why, part by part (repeats next to each other merged).
    Runs(Vec<Reason>),
    /// A part needs a rule it lacks: the whole invocation aborts with "Shell command permission
    /// check failed", and the model sees nothing of the skill.
    Aborts,
}

impl Verdict {
    pub fn runs(&self) -> bool {
        matches!(self, Self::Runs(_))
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Runs(reasons) => {
                for (index, reason) in reasons.iter().enumerate() {
                    if index > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{reason}")?;
                }
                Ok(())
            }
            Self::Aborts => f.write_str("aborts"),
        }
    }
}

impl serde::Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The rule that would let `command` run: `Bash(first-word:*)`.
pub fn rule_needed(command: &str) -> String {
    let first = command.split_whitespace().next().unwrap_or_default();
    format!("Bash({first}:*)")
}

/// A skill's `allowed-tools`, as the permission check reads its `Bash` entries.
#[derive(Clone, Debug, Default)]
pub struct Permissions {
    /// A bare `Bash`, or a rule that allows every command.
    any: bool,
    /// The text inside each `Bash(…)`, in order.
    rules: Vec<String>,
    matcher: BashRules,
}

impl Permissions {
    /// From the entries of `allowed-tools` (`Bash(echo:*)`, `Bash`, `Read`, …), as written
    /// (`${CLAUDE_SKILL_DIR}` and the like not expanded).
    pub fn new<S: AsRef<str>>(tools: &[S]) -> Self {
        let rules: Vec<String> = tools
            .iter()
            .filter_map(|tool| {
                tool.as_ref()
                    .strip_prefix("Bash(")?
                    .strip_suffix(')')
                    .map(str::to_owned)
            })
            .collect();
        let any = tools.iter().any(|tool| tool.as_ref() == "Bash")
            || rules.iter().any(|rule| rule == "*:*");
        let matcher = BashRules::new(rules.iter().map(String::as_str));
        Self {
            any,
            rules,
            matcher,
        }
    }

    /// Whether Claude Code lets `command` run: every part of it (split at line breaks, `;`,
    /// `|` and `&&`) must be read-only or allowed by a rule; a part that redirects output
    /// (`>`) writes a file, so only a rule allows it.
    pub fn verdict(&self, command: &str) -> Verdict {
        if self.any {
            return Verdict::Runs(vec![Reason::AnyBash]);
        }
        let mut reasons: Vec<Reason> = Vec::new();
        for part in command
            .split(['\n', ';', '|'])
            .flat_map(|part| part.split("&&"))
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let reason = if let Some(index) = self.matcher.first_match(part) {
                Reason::Rule(self.rules[index].clone())
            } else if is_read_only(part) {
                Reason::ReadOnly
            } else {
                return Verdict::Aborts;
            };
            if reasons.last() != Some(&reason) {
                reasons.push(reason);
            }
        }
        Verdict::Runs(reasons)
    }
}

/// Whether one part of a command (no `;`, `|` or `&&` in it) only reads.
fn is_read_only(part: &str) -> bool {
    if part.contains('>') {
        return false;
    }
    let mut words = part.split_whitespace();
    let first = words.next().unwrap_or_default();
    READ_ONLY.contains(&first)
        || (first == "git" && words.next().is_some_and(|sub| READ_ONLY_GIT.contains(&sub)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_split_at_spaces_and_commas_outside_parentheses() {
        assert_eq!(
            split_tools("Bash(git add:*), Read  Bash(a, b)"),
            ["Bash(git add:*)", "Read", "Bash(a, b)"]
        );
    }

    #[test]
    fn inline_commands_as_claude_code_finds_them() {
        let text = "!`echo a` x!`echo no` \n```!\nls\n```\n!`unclosed\n!`` !`b`";
        let found: Vec<String> = inline_commands(text)
            .into_iter()
            .map(|inline| inline.command)
            .collect();
        assert_eq!(found, ["echo a", "ls", "b"]);
    }

    #[test]
    fn verdicts() {
        let none = Permissions::new::<&str>(&[]);
        assert_eq!(none.verdict("echo hi").to_string(), "read-only");
        assert_eq!(
            none.verdict("git branch --show-current"),
            Verdict::Runs(vec![Reason::ReadOnly])
        );
        assert_eq!(none.verdict("git push"), Verdict::Aborts);
        assert_eq!(none.verdict("echo hi > f"), Verdict::Aborts);
        assert_eq!(none.verdict("touch x && echo y"), Verdict::Aborts);
        let some = Permissions::new(&["Read", "Bash(touch:*)", "Bash(npm run test)"]);
        assert_eq!(
            some.verdict("touch x && echo y | cat").to_string(),
            "allowed by Bash(touch:*), read-only"
        );
        assert!(some.verdict("npm run test").runs());
        assert!(!some.verdict("npm run test2").runs());
        assert_eq!(
            Permissions::new(&["Bash"]).verdict("rm -rf x").to_string(),
            "allowed by Bash"
        );
        assert_eq!(rule_needed("touch a b"), "Bash(touch:*)");
    }
}
