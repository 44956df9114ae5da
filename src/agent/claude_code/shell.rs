//! Claude Code's inline shell: the commands a skill's body runs when the skill is invoked
//! (`` !`cmd` `` and ```` ```! ```` blocks), and the permission check that decides, before the
//! model sees anything, whether each may run. One scanner and one matcher, used by `lint`
//! (SK508) and `preview`, so that they give the same verdict.
//!
//! Ground truth: `docs/research/claude-code-captures.md` §8 (what runs, what aborts, the abort
//! message); the read-only commands and the rule syntax are Claude Code's, see `docs/agents.md`.

use std::fmt;
use std::ops::Range;

use crate::agent::js::is_js_space;

/// Byte ranges of the tools in an `allowed-tools` text: Claude Code splits it at spaces and
/// commas outside parentheses (`Bash(git add:*), Read`).
pub(crate) fn tool_ranges(text: &str) -> Vec<Range<usize>> {
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
pub(crate) fn split_tools(text: &str) -> Vec<String> {
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
/// `` !`cmd` `` where the `!` starts a line or follows whitespace (JavaScript's `\s`); the
/// command may span lines but holds no backtick. Where two overlap, the first is kept.
///
/// Linear in the text: where each inline command ends comes from one forward scan shared by
/// all of them, so a line of unclosed `` !` `` costs no more than its length.
pub(crate) fn inline_commands(text: &str) -> Vec<Inline> {
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
    let mut stop: Option<usize> = Some(0);
    let mut inline_end = 0;
    for (at, _) in text.match_indices("!`") {
        if text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| !is_js_space(c))
            || at < inline_end
            || inside_block(at)
        {
            continue;
        }
        let inner = at + 2;
        if stop.is_some_and(|stop| stop < inner) {
            stop = text[inner..].find('`').map(|len| inner + len);
        }
        let Some(end) = stop else {
            continue;
        };
        if end == inner {
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

/// Commands Claude Code 2.1.332 runs with any arguments, without an allow rule, because they
/// only read (`docs/agents.md`, "Inline shell"; `echo` is captured in
/// `docs/research/claude-code-captures.md` §8). `env`, `printenv`, `awk`, `tee` and the like are
/// not among them.
const READ_ONLY: &[&str] = &[
    "echo",
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "stat",
    "strings",
    "hexdump",
    "od",
    "nl",
    "id",
    "uname",
    "free",
    "df",
    "du",
    "locale",
    "groups",
    "nproc",
    "basename",
    "dirname",
    "realpath",
    "cut",
    "paste",
    "tr",
    "column",
    "tac",
    "rev",
    "fold",
    "expand",
    "unexpand",
    "fmt",
    "comm",
    "cmp",
    "numfmt",
    "readlink",
    "diff",
    "true",
    "false",
    "sleep",
    "type",
    "expr",
    "seq",
    "tsort",
    "pr",
    "cal",
    "uptime",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "tree",
    "file",
    "which",
    "hostname",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "base64",
    "test",
    "[",
    "jq",
    "uniq",
];

/// `git` subcommands that only read, when no global option comes before them.
const READ_ONLY_GIT: &[&str] = &[
    "diff",
    "log",
    "show",
    "shortlog",
    "status",
    "blame",
    "ls-files",
    "ls-remote",
    "merge-base",
    "rev-parse",
    "rev-list",
    "describe",
    "cat-file",
    "for-each-ref",
    "grep",
    "branch",
    "tag",
    "remote",
    "config",
    "stash",
    "reflog",
    "worktree",
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
    /// A part may not run: the whole invocation aborts with "Shell command permission check
    /// failed", and the model sees nothing of the skill.
    Aborts {
        /// The part of the command that failed.
        part: String,
        /// What `allowed-tools` would need for it to run.
        needs: Needs,
    },
}

/// What `allowed-tools` needs for a refused part to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Needs {
    /// A rule for its command: `Bash(first-word:*)`.
    Rule(String),
    /// A nested command or a redirection into a file: no rule short of `Bash` or `Bash(*)`
    /// lets it run.
    AnyBash,
}

impl fmt::Display for Needs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rule(rule) => write!(f, "Bash({rule})"),
            Self::AnyBash => f.write_str("Bash"),
        }
    }
}

impl Verdict {
    pub fn runs(&self) -> bool {
        matches!(self, Self::Runs(_))
    }

    /// What `allowed-tools` needs, when the command aborts.
    pub fn needs(&self) -> Option<&Needs> {
        match self {
            Self::Runs(_) => None,
            Self::Aborts { needs, .. } => Some(needs),
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Runs(reasons) if reasons.is_empty() => f.write_str("nothing to run"),
            Self::Runs(reasons) => {
                for (index, reason) in reasons.iter().enumerate() {
                    if index > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{reason}")?;
                }
                Ok(())
            }
            Self::Aborts { .. } => f.write_str("aborts"),
        }
    }
}

impl serde::Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A skill's `allowed-tools`, as the permission check reads its `Bash` entries.
#[derive(Clone, Debug, Default)]
pub struct Permissions {
    /// A bare `Bash`.
    any: bool,
    /// The index of a `Bash(*)`, which allows everything, nested commands and redirections
    /// included.
    star: Option<usize>,
    /// The text inside each `Bash(…)`, in order.
    rules: Vec<String>,
    matcher: BashRules,
}

impl Permissions {
    /// From the entries of `allowed-tools` (`Bash(echo:*)`, `Bash`, `Read`, …), with variables
    /// such as `${CLAUDE_SKILL_DIR}` as the caller has them.
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
        // `Bash()` is read as a bare `Bash`.
        let any =
            tools.iter().any(|tool| tool.as_ref() == "Bash") || rules.iter().any(String::is_empty);
        let star = rules.iter().position(|rule| rule == "*");
        let matcher = BashRules::new(rules.iter().map(String::as_str));
        Self {
            any,
            star,
            rules,
            matcher,
        }
    }

    /// Whether these permissions let every simple command run without asking: a bare `Bash`,
    /// `Bash()`, `Bash(*)`, or another rule that matches any command.
    pub fn allows_every_command(&self) -> bool {
        self.any || self.star.is_some() || self.matcher.first_match("\u{1}").is_some()
    }

    /// Whether Claude Code lets `command` run: every part of it (split at line breaks, `;`,
    /// `|`, `||`, `&&` and `&`) must be read-only or allowed by a rule. A nested command
    /// (`$(…)`, `<(…)`) or a redirection into a file needs `Bash` or `Bash(*)`, whatever other
    /// rule matches.
    pub fn verdict(&self, command: &str) -> Verdict {
        if self.any {
            return Verdict::Runs(vec![Reason::AnyBash]);
        }
        let mut reasons: Vec<Reason> = Vec::new();
        for part in parts(command) {
            let nested = has_substitution(part);
            let writes = !redirects_nowhere(&part.split_whitespace().collect::<Vec<_>>());
            let reason = if nested || writes {
                match self.star {
                    Some(index) => Reason::Rule(self.rules[index].clone()),
                    None => {
                        return Verdict::Aborts {
                            part: part.to_owned(),
                            needs: Needs::AnyBash,
                        };
                    }
                }
            } else if let Some(index) = self.matcher.first_match(part) {
                Reason::Rule(self.rules[index].clone())
            } else if is_read_only(part) {
                Reason::ReadOnly
            } else {
                let first = part.split_whitespace().next().unwrap_or_default();
                return Verdict::Aborts {
                    part: part.to_owned(),
                    needs: Needs::Rule(format!("{first}:*")),
                };
            };
            if reasons.last() != Some(&reason) {
                reasons.push(reason);
            }
        }
        Verdict::Runs(reasons)
    }
}

/// The simple commands of `command`: split at line breaks, `;`, `|`, `||`, `&&` and a
/// background `&` (not the `&` of `2>&1` or `&>`), trimmed, empty ones dropped.
fn parts(command: &str) -> impl Iterator<Item = &str> {
    let bytes = command.as_bytes();
    let mut cuts = Vec::new();
    for (at, &byte) in bytes.iter().enumerate() {
        let cut = match byte {
            b'\n' | b';' | b'|' => true,
            b'&' => {
                let before = at.checked_sub(1).map(|i| bytes[i]);
                let after = bytes.get(at + 1).copied();
                before != Some(b'>') && before != Some(b'<') && after != Some(b'>')
            }
            _ => false,
        };
        if cut {
            cuts.push(at);
        }
    }
    let mut start = 0;
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    for cut in cuts {
        pieces.push(&command[start..cut]);
        start = cut + 1;
    }
    pieces.push(&command[start..]);
    pieces
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
}

/// Whether `part` runs a nested command: `$(…)` or backticks (also inside double quotes), or,
/// outside quotes, any other parenthesis: a process substitution `<(…)`, a subshell, a group.
/// Arithmetic, `$((…))` closed by `))` with no parenthesis inside, is not one.
fn has_substitution(part: &str) -> bool {
    let bytes = part.as_bytes();
    let mut quote: Option<u8> = None;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        match (quote, byte) {
            (Some(b'\''), b'\'') | (Some(b'"'), b'"') => quote = None,
            (Some(b'\''), _) => {}
            (None, b'\'' | b'"') => quote = Some(byte),
            (_, b'\\') => at += 1,
            (_, b'$') if bytes.get(at + 1) == Some(&b'(') => {
                if bytes.get(at + 2) != Some(&b'(') {
                    return true;
                }
                // `$((`: arithmetic when the next parenthesis starts `))`.
                let inner = &part[at + 3..];
                match inner.find(['(', ')']) {
                    Some(close) if inner[close..].starts_with("))") => {
                        at += 3 + close + 2;
                        continue;
                    }
                    _ => return true,
                }
            }
            (_, b'`') | (None, b'(' | b')') => return true,
            _ => {}
        }
        at += 1;
    }
    false
}

/// Whether one part of a command (no `;`, `|` or `&&` in it) only reads: a read-only command
/// whose arguments keep it so, writing nowhere but `/dev/null` or another descriptor.
fn is_read_only(part: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    let Some((&first, args)) = words.split_first() else {
        return true;
    };
    if !redirects_nowhere(&words) {
        return false;
    }
    let has = |flags: &[&str]| {
        args.iter().any(|arg| {
            flags
                .iter()
                .any(|flag| arg == flag || arg.starts_with(&format!("{flag}=")))
        })
    };
    let positional = || args.iter().any(|arg| !arg.starts_with('-'));
    match first {
        "pwd" | "whoami" => args.is_empty(),
        "cd" => args.len() <= 1,
        "find" => !has(&[
            "-delete",
            "-exec",
            "-execdir",
            "-ok",
            "-okdir",
            "-fprint",
            "-fprint0",
            "-fls",
            "-fprintf",
            "-files0-from",
        ]),
        // `date -s` sets the clock: every operand must be a `+format`.
        "date" => args.iter().all(|arg| arg.starts_with('+')),
        // `-o FILE` writes; `--compress-program` runs one.
        "sort" => !has_option(args, &['o'], &["output", "compress-program"]),
        // `-o FILE` writes the listing to a file.
        "tree" => !has_option(args, &['o'], &[]),
        // `--pre` runs a command on every file searched.
        "rg" => !has_option(args, &[], &["pre"]),
        // A file operand to `uniq` is its output file.
        "uniq" => !positional(),
        "jq" => !has_option(
            args,
            &['f', 'L'],
            &[
                "from-file",
                "rawfile",
                "slurpfile",
                "argfile",
                "library-path",
                "run-tests",
            ],
        ),
        "git" => git_reads_only(args),
        _ => READ_ONLY.contains(&first),
    }
}

/// Whether `args` hold one of the options: a short one anywhere in a cluster (`-no`, `-oFILE`),
/// or a long one, whole or abbreviated as GNU tools accept (`--outp=x` is `--output=x`).
fn has_option(args: &[&str], short: &[char], long: &[&str]) -> bool {
    args.iter().any(|arg| {
        if let Some(name) = arg.strip_prefix("--") {
            let name = name.split('=').next().unwrap_or_default();
            !name.is_empty() && long.iter().any(|option| option.starts_with(name))
        } else if let Some(cluster) = arg.strip_prefix('-') {
            cluster.chars().any(|c| short.contains(&c))
        } else {
            false
        }
    })
}

/// Whether every redirection among `words` goes to `/dev/null` or duplicates a descriptor
/// (`2>&1`); any other output redirection writes a file.
fn redirects_nowhere(words: &[&str]) -> bool {
    let mut words = words.iter().peekable();
    while let Some(word) = words.next() {
        let Some(at) = word.find('>') else {
            continue;
        };
        let target = word[at..].trim_start_matches(['>', '|']);
        let target = if target.is_empty() {
            words.next().copied().unwrap_or_default()
        } else {
            target
        };
        let descriptor = target.strip_prefix('&').is_some_and(|rest| {
            !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        });
        if !(descriptor || target == "/dev/null") {
            return false;
        }
    }
    true
}

/// Whether a `git` command (its arguments after `git`) only reads: a read-only subcommand
/// first (no global option such as `-C` before it), in a form that does not write.
fn git_reads_only(args: &[&str]) -> bool {
    let Some((&sub, rest)) = args.split_first() else {
        return false;
    };
    if !READ_ONLY_GIT.contains(&sub) {
        return false;
    }
    let listing = rest.iter().any(|arg| matches!(*arg, "-l" | "--list"));
    let positional = rest.iter().any(|arg| !arg.starts_with('-'));
    // Options that write a file or run a program: `--output`, an external diff or text
    // conversion, a pager or upload program.
    let writes_output = rest.iter().any(|arg| {
        let Some(name) = arg.strip_prefix("--") else {
            return false;
        };
        let name = name.split('=').next().unwrap_or_default();
        name.len() >= 3 && "output".starts_with(name)
            || matches!(
                name,
                "ext-diff" | "textconv" | "upload-pack" | "open-files-in-pager"
            )
    }) || (matches!(sub, "grep") && has_option(rest, &['O'], &[]))
        || (matches!(sub, "ls-remote") && has_option(rest, &['u'], &[]));
    match sub {
        "branch" => {
            !rest.iter().any(|arg| {
                matches!(
                    *arg,
                    "-d" | "-D"
                        | "-m"
                        | "-M"
                        | "-c"
                        | "-C"
                        | "--delete"
                        | "--move"
                        | "--copy"
                        | "-u"
                        | "--set-upstream-to"
                        | "--unset-upstream"
                        | "-f"
                        | "--force"
                        | "--edit-description"
                )
            }) && (!positional
                || listing
                || rest
                    .iter()
                    .any(|arg| arg.starts_with("--merged") || arg.starts_with("--no-merged")))
        }
        "tag" => !positional || listing,
        "remote" => rest.iter().all(|arg| matches!(*arg, "-v" | "--verbose")),
        "config" => rest.first() == Some(&"--get"),
        "stash" => matches!(rest.first(), Some(&"list" | &"show")),
        "reflog" => matches!(rest.first(), None | Some(&"show" | &"list")),
        "worktree" => rest.first() == Some(&"list"),
        _ => !writes_output,
    }
}

/// Strings by prefix: which of them `text` starts with, found in one walk along `text`. Each
/// string keeps the smallest index it was inserted with.
#[derive(Clone, Debug)]
pub(crate) struct PrefixTrie {
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
    pub(crate) fn insert(&mut self, key: &str, index: usize) {
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
    pub(crate) fn prefixes_of<'a>(
        &'a self,
        text: &'a str,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
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
pub(crate) struct BashRules {
    exact: std::collections::HashMap<String, usize>,
    /// Plain prefixes (`ls*` allows `lsof`).
    prefixes: PrefixTrie,
    /// Prefixes that must end at a word's end (`git:*` and `git *` allow `git` and `git …`,
    /// never `gitx`).
    words: PrefixTrie,
}

impl BashRules {
    /// The rules, in order: a rule's index is its position in `rules`.
    pub(crate) fn new<'a>(rules: impl IntoIterator<Item = &'a str>) -> Self {
        let mut out = Self::default();
        for (index, rule) in rules.into_iter().enumerate() {
            if let Some(prefix) = rule.strip_suffix(":*").or_else(|| rule.strip_suffix(" *")) {
                // Claude Code refuses an empty prefix (`Bash(:*)`): that rule matches nothing.
                let prefix = prefix.trim_end();
                if !prefix.is_empty() {
                    out.words.insert(prefix, index);
                }
            } else if let Some(prefix) = rule.strip_suffix('*') {
                out.prefixes.insert(prefix.trim_end(), index);
            } else {
                out.exact.entry(rule.to_owned()).or_insert(index);
            }
        }
        out
    }

    /// The index of the first rule that allows `command`, if any.
    pub(crate) fn first_match(&self, command: &str) -> Option<usize> {
        let exact = self.exact.get(command).copied();
        let plain = self.prefixes.prefixes_of(command).map(|(_, index)| index);
        // A prefix is a byte prefix of `command` and valid UTF-8, so `len` is a char boundary.
        let words = self
            .words
            .prefixes_of(command)
            .filter(|&(len, _)| {
                command[len..].is_empty() || command[len..].starts_with(char::is_whitespace)
            })
            .map(|(_, index)| index);
        exact.into_iter().chain(plain).chain(words).min()
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
        let text = "!`echo a` x!`echo no` \n```!\nls\n```\n!``\u{a0}!`b\nc` (!`no`";
        let found: Vec<String> = inline_commands(text)
            .into_iter()
            .map(|inline| inline.command)
            .collect();
        assert_eq!(found, ["echo a", "ls", "b\nc"]);
    }

    #[test]
    fn verdicts() {
        let aborts = |part: &str, needs: Needs| Verdict::Aborts {
            part: part.into(),
            needs,
        };
        let none = Permissions::new::<&str>(&[]);
        assert_eq!(none.verdict("echo hi").to_string(), "read-only");
        assert_eq!(
            none.verdict("git branch --show-current"),
            Verdict::Runs(vec![Reason::ReadOnly])
        );
        assert_eq!(
            none.verdict("git push"),
            aborts("git push", Needs::Rule("git:*".into()))
        );
        assert_eq!(
            none.verdict("echo hi > f"),
            aborts("echo hi > f", Needs::AnyBash)
        );
        assert_eq!(
            none.verdict("echo x && touch y"),
            aborts("touch y", Needs::Rule("touch:*".into()))
        );
        assert_eq!(
            none.verdict("echo ok & touch x")
                .needs()
                .map(ToString::to_string)
                .as_deref(),
            Some("Bash(touch:*)")
        );
        assert_eq!(none.verdict(";").to_string(), "nothing to run");
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
        // `Bash(*)` allows what no other rule can, wherever it stands in the list.
        for tools in [["Bash(echo:*)", "Bash(*)"], ["Bash(*)", "Bash(echo:*)"]] {
            assert!(
                Permissions::new(&tools).verdict("echo $(date) > f").runs(),
                "{tools:?}"
            );
        }
        // A plain prefix is not hidden by a word-bounded rule with the same prefix.
        for tools in [["Bash(git:*)", "Bash(git*)"], ["Bash(git*)", "Bash(git:*)"]] {
            assert!(
                Permissions::new(&tools).verdict("gitx foo").runs(),
                "{tools:?}"
            );
        }
        // As the real agent: `Bash()` is a bare `Bash`; `Bash(:*)` and `Bash(*:*)` match nothing.
        assert!(Permissions::new(&["Bash()"]).allows_every_command());
        assert!(!Permissions::new(&["Bash(:*)"]).allows_every_command());
        assert!(!Permissions::new(&["Bash(*:*)"]).allows_every_command());
    }

    #[test]
    fn nested_commands_and_arithmetic() {
        for nested in [
            "echo $(date)",
            "echo \"$(date)\"",
            "cat <(touch x)",
            "echo $((touch x) )",
            "(echo sub)",
            "echo `date`",
        ] {
            assert!(has_substitution(nested), "{nested}");
        }
        for plain in ["echo $((6*7))", "echo '$(date)'", "echo \"(x)\"", "ls -la"] {
            assert!(!has_substitution(plain), "{plain}");
        }
    }

    #[test]
    fn options_that_write_or_run_programs() {
        for refused in [
            "sort -o out in",
            "sort -oout in",
            "sort -no out",
            "sort --outp=x in",
            "tree -o out",
            "rg --pre=./x pattern",
            "git grep -Ocat x",
            "git ls-remote --upload-pack=./x .",
            "git diff --output=x",
            "git log --ext-diff",
        ] {
            assert!(!is_read_only(refused), "{refused}");
        }
        for allowed in [
            "sort -n in",
            "git diff --output-indicator-new=x",
            "rg -n pattern",
            "git log -3 --oneline",
        ] {
            assert!(is_read_only(allowed), "{allowed}");
        }
    }
}
