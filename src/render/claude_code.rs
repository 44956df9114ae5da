//! Claude Code's skill listing and skill invocation, as captured from 2.1.332 on the wire
//! (`docs/research/claude-code-captures.md`), and 2.1.88's rules from its source
//! (`docs/research/rendering-and-marketplaces.md` A2–A3).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::view::{Scope, SkillView};
use crate::agent::claude_code::listing::{self, CapStyle};
use crate::agent::claude_code::shell::{self, Inline, Permissions, PrefixTrie, Verdict};
use crate::agent::collate;

/// The listing's first line.
pub const HEADER: &str = "The following skills are available for use with the Skill tool:";

/// Which Claude Code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Version {
    /// 2.1.332, as captured.
    #[serde(rename = "2.1.332")]
    Current,
    /// 2.1.88, from its source.
    #[serde(rename = "2.1.88")]
    V2188,
}

/// What the model decides: where the listing goes, characters per token, default window and
/// effort (captures §2, §5, §6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Model {
    pub name: String,
    /// The "legacy" models: a `<system-reminder>` listing, 4 characters per token.
    pub legacy: bool,
    pub context_window: usize,
    pub effort: &'static str,
}

/// The models the captures name as legacy (§2).
const LEGACY: &[&str] = &[
    "claude-opus-4-0",
    "claude-opus-4-1",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-sonnet-4-0",
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
    "claude-haiku-4-5",
];

impl Model {
    /// The model called `name` (`claude-sonnet-4-5`, `claude-sonnet-4-5[1m]`, …).
    pub fn named(name: &str) -> Self {
        let (base, million) = match name.strip_suffix("[1m]") {
            Some(base) => (base, true),
            None => (name, false),
        };
        let legacy = base.starts_with("claude-3-")
            || LEGACY
                .iter()
                .any(|known| base == *known || base.starts_with(&format!("{known}-")));
        let context_window = if million || !legacy {
            1_000_000
        } else {
            200_000
        };
        Self {
            name: name.to_owned(),
            legacy,
            context_window,
            effort: if legacy { "high" } else { "medium" },
        }
    }

    pub fn chars_per_token(&self) -> usize {
        if self.legacy { 4 } else { 3 }
    }
}

/// How a skill's listing entry is overridden in settings (`skillOverrides`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Override {
    NameOnly,
    Off,
}

/// A skill's usage, from `skillUsage` in `~/.claude.json`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Usage {
    pub count: f64,
    /// Milliseconds since the Unix epoch.
    pub last_used: f64,
}

/// Everything that shapes the listing.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    pub version: Version,
    pub model: Model,
    pub context_window: usize,
    pub budget_fraction: f64,
    /// A fixed budget, like `SLASH_COMMAND_TOOL_CHAR_BUDGET`.
    pub budget: Option<usize>,
    /// Columns Claude Code's own skills take.
    pub reserve: usize,
    pub max_desc_chars: usize,
    pub usage: HashMap<String, Usage>,
    /// Now, in milliseconds since the Unix epoch, for usage decay.
    pub now: f64,
    pub overrides: HashMap<String, Override>,
}

/// What happened to one entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum EntryStatus {
    Full,
    /// Cut by the per-entry cap (or 2.1.88's share): the model sees `kept` of `total` units.
    Cut {
        kept: usize,
        total: usize,
    },
    /// Listed by name only: the model loses the whole description.
    NameOnly {
        lost: usize,
        reason: String,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct EntryReport {
    pub name: String,
    pub scope: Scope,
    #[serde(flatten)]
    pub status: EntryStatus,
}

/// The listing and what it cost.
#[derive(Clone, Debug, Serialize)]
pub struct Index {
    /// Exactly the text the model receives.
    #[serde(skip)]
    pub text: String,
    /// Where it goes.
    pub placement: String,
    pub budget: usize,
    pub budget_source: String,
    /// Columns the listing takes with Claude Code's own skills (`reserve`) counted.
    pub used: usize,
    pub reserve: usize,
    pub chars: usize,
    pub tokens: usize,
    pub entries: Vec<EntryReport>,
    /// Skills left out, and why.
    pub left_out: Vec<(String, String)>,
}

struct Line {
    name: String,
    scope: Scope,
    /// The capped entry text; `None` for a name-only override.
    text: Option<String>,
    /// Units before the cap.
    total: usize,
    priority: f64,
}

/// The listing of `skills` as Claude Code shows it.
pub fn index(skills: &[SkillView], options: &IndexOptions) -> Index {
    let mut left_out = Vec::new();
    let mut lines = listed(skills, options, &mut left_out);
    let (budget, budget_source) = budget(options);
    let mut entries: Vec<EntryReport> = lines
        .iter()
        .map(|line| EntryReport {
            name: line.name.clone(),
            scope: line.scope,
            status: match &line.text {
                None => EntryStatus::NameOnly {
                    lost: line.total,
                    reason: "skillOverrides: name-only".into(),
                },
                Some(text) if listing::utf16_len(text) < line.total => EntryStatus::Cut {
                    kept: listing::utf16_len(text).saturating_sub(1),
                    total: line.total,
                },
                Some(_) => EntryStatus::Full,
            },
        })
        .collect();
    let used = match options.version {
        Version::Current => hand_back(&mut lines, &mut entries, budget, options.reserve),
        Version::V2188 => equal_share(&mut lines, &mut entries, budget, options.reserve),
    };
    let body: Vec<String> = lines
        .iter()
        .map(|line| match &line.text {
            Some(text) => format!("- {}: {text}", line.name),
            None => format!("- {}", line.name),
        })
        .collect();
    let slice = format!("{HEADER}\n\n{}", body.join("\n"));
    let legacy = options.model.legacy || options.version == Version::V2188;
    let (text, placement) = if legacy {
        (
            format!("<system-reminder>\n{slice}\n</system-reminder>"),
            "a <system-reminder> text block in the first user message".to_owned(),
        )
    } else {
        (
            slice,
            "part of a system-role message after the first user message, between the agent types and today's date".to_owned(),
        )
    };
    Index {
        chars: text.chars().count(),
        tokens: crate::agent::estimate_tokens(&text),
        text,
        placement,
        budget,
        budget_source,
        used,
        reserve: options.reserve,
        entries,
        left_out,
    }
}

/// The skills Claude Code lists, in its order, with their capped text.
fn listed(
    skills: &[SkillView],
    options: &IndexOptions,
    left_out: &mut Vec<(String, String)>,
) -> Vec<Line> {
    let style = match options.version {
        Version::Current => CapStyle::Current,
        Version::V2188 => CapStyle::V2188,
    };
    let cap = match options.version {
        Version::Current => options.max_desc_chars,
        Version::V2188 => listing::CAP_2188,
    };
    let mut order: Vec<&SkillView> = skills.iter().collect();
    match options.version {
        // User-level skills first, each group in ICU order (captures §3).
        Version::Current => order.sort_by(|a, b| {
            a.scope
                .cmp(&b.scope)
                .then_with(|| collate::compare(&a.dir_name, &b.dir_name))
        }),
        // 2.1.88: the order the folders were read in.
        Version::V2188 => order.sort_by_key(|skill| skill.scope),
    }
    let mut seen = std::collections::HashSet::new();
    let mut lines = Vec::new();
    for skill in order {
        let name = &skill.dir_name;
        if !seen.insert(name.clone()) {
            left_out.push((
                name.clone(),
                "a user-level skill of the same name wins".into(),
            ));
            continue;
        }
        let claude = &skill.claude;
        if claude.disable_model_invocation {
            left_out.push((name.clone(), "disable-model-invocation: true".into()));
            continue;
        }
        if claude.paths && options.version == Version::Current {
            left_out.push((
                name.clone(),
                "`paths`: listed only after the model reads a matching file".into(),
            ));
            continue;
        }
        let over = options.overrides.get(name).copied();
        if over == Some(Override::Off) {
            left_out.push((name.clone(), "skillOverrides: off".into()));
            continue;
        }
        let description = claude
            .description
            .clone()
            .or_else(|| claude.fallback.clone())
            .unwrap_or_default();
        let raw = listing::entry_text(&description, claude.when_to_use.as_deref(), style);
        let total = listing::utf16_len(&raw);
        let priority = options.usage.get(name).map_or(0.0, |usage| {
            let days = (options.now - usage.last_used) / 86_400_000.0;
            usage.count * 0.5f64.powf(days / 7.0).max(0.1)
        });
        lines.push(Line {
            name: name.clone(),
            scope: skill.scope,
            text: (over != Some(Override::NameOnly)).then(|| listing::capped(&raw, cap)),
            total,
            priority,
        });
    }
    lines
}

fn budget(options: &IndexOptions) -> (usize, String) {
    if let Some(budget) = options.budget {
        return (
            budget,
            "--budget, like SLASH_COMMAND_TOOL_CHAR_BUDGET".to_owned(),
        );
    }
    let per_token = match options.version {
        Version::Current => options.model.chars_per_token(),
        Version::V2188 => 4,
    };
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let budget = ((options.context_window * per_token) as f64 * options.budget_fraction)
        .floor()
        .max(1.0) as usize;
    (
        budget,
        format!(
            "{} tokens × {per_token} characters per token × {} = {budget}",
            options.context_window, options.budget_fraction
        ),
    )
}

fn full_width(line: &Line) -> usize {
    match &line.text {
        Some(text) => listing::width(&format!("- {}: {text}", line.name)),
        None => listing::width(&format!("- {}", line.name)),
    }
}

/// 2.1.332: everything fits, or names for all and whole descriptions handed back by usage
/// priority (ties in listing order), skipping what does not fit (captures §5).
fn hand_back(
    lines: &mut [Line],
    entries: &mut [EntryReport],
    budget: usize,
    reserve: usize,
) -> usize {
    // Claude Code's own 11 bundled skills and its 2 prompt commands share the separators.
    let separators = (lines.len() + 11 + 2).saturating_sub(1);
    let builtins: usize = listing::BUILTIN_ENTRIES
        .iter()
        .map(|(name, text)| listing::width(&format!("- {name}: {text}")))
        .sum();
    let full: usize = lines.iter().map(full_width).sum::<usize>() + builtins + separators + reserve;
    if full <= budget {
        return full;
    }
    let bare = |name: &str| listing::width(&format!("- {name}"));
    let mut used = lines.iter().map(|line| bare(&line.name)).sum::<usize>()
        + listing::BUILTIN_ENTRIES
            .iter()
            .map(|(name, _)| bare(name))
            .sum::<usize>()
        + separators
        + reserve;
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&a, &b| lines[b].priority.total_cmp(&lines[a].priority));
    let mut keep = vec![false; lines.len()];
    for index in order {
        let Some(text) = &lines[index].text else {
            continue;
        };
        let extra = listing::width(&format!(": {text}"));
        if used + extra <= budget {
            used += extra;
            keep[index] = true;
        }
    }
    for (index, line) in lines.iter_mut().enumerate() {
        if !keep[index] && line.text.is_some() {
            entries[index].status = EntryStatus::NameOnly {
                lost: line.total,
                reason: "over budget: the description did not fit".into(),
            };
            line.text = None;
        }
    }
    // The prompt commands get theirs back last, when there is room.
    for (name, text) in listing::BUILTIN_ENTRIES {
        let extra = listing::width(&format!(": {text}"));
        let _ = name;
        if used + extra <= budget {
            used += extra;
        }
    }
    used
}

/// 2.1.88: an equal share of what is left for every description, names only under 20 columns.
fn equal_share(
    lines: &mut [Line],
    entries: &mut [EntryReport],
    budget: usize,
    reserve: usize,
) -> usize {
    let full: usize =
        lines.iter().map(full_width).sum::<usize>() + lines.len().saturating_sub(1) + reserve;
    if full <= budget || lines.is_empty() {
        return full;
    }
    let overhead: usize = lines
        .iter()
        .map(|line| listing::width(&line.name) + 4)
        .sum::<usize>()
        + lines.len().saturating_sub(1);
    let share = budget.saturating_sub(reserve + overhead) / lines.len();
    for (index, line) in lines.iter_mut().enumerate() {
        let Some(text) = &line.text else { continue };
        if share < 20 {
            entries[index].status = EntryStatus::NameOnly {
                lost: line.total,
                reason: format!("over budget: a share of {share} columns is under 20"),
            };
            line.text = None;
        } else if listing::width(text) > share {
            let cut = truncate_width(text, share);
            entries[index].status = EntryStatus::Cut {
                kept: listing::utf16_len(&cut).saturating_sub(1),
                total: line.total,
            };
            line.text = Some(cut);
        }
    }
    lines.iter().map(full_width).sum::<usize>() + lines.len().saturating_sub(1) + reserve
}

/// Cuts `text` to `columns` terminal columns, the last one being `…`.
fn truncate_width(text: &str, columns: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let width = listing::width(c.encode_utf8(&mut [0; 4]));
        if used + width > columns.saturating_sub(1) {
            break;
        }
        used += width;
        out.push(c);
    }
    out.push('…');
    out
}

/// How a skill is invoked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Invoker {
    /// The model calls the Skill tool.
    Model,
    /// The user types `/name args`.
    User,
}

/// The values substitution needs.
#[derive(Clone, Debug)]
pub struct InvokeOptions {
    pub version: Version,
    pub invoker: Invoker,
    /// `None`: no arguments were given at all.
    pub args: Option<String>,
    pub session_id: String,
    pub project_dir: String,
    pub effort: String,
    /// Runs an inline shell command (the command, the working folder) and returns what the
    /// model would see in its place; `None` shows markers instead. The command layer supplies
    /// it: rendering never runs anything itself.
    pub exec: Option<fn(&str, &str) -> String>,
}

/// One block of a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Block {
    /// `text` or `tool_result`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: String,
    /// Shown to the user in the transcript (the skill content is not).
    pub visible: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// A message the agent sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: &'static str,
    /// Who gets it: the main conversation, or the forked sub-agent.
    pub to: &'static str,
    pub content: Vec<Block>,
}

/// An inline shell command and what Claude Code does with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShellCommand {
    /// The whole match, `` !`…` `` or the ```` ```! ```` block.
    pub pattern: String,
    pub command: String,
    /// Whether it runs and why (shown as `read-only`, `allowed by Bash(…)`, or `aborts`).
    pub verdict: Verdict,
    /// The rule `allowed-tools` would need, when it aborts.
    pub needs: Option<String>,
}

/// What invoking a skill sends.
#[derive(Clone, Debug, Serialize)]
pub struct Invocation {
    pub messages: Vec<Message>,
    pub shell: Vec<ShellCommand>,
    /// Why nothing is sent, when Claude Code refuses.
    pub refused: Option<String>,
    /// The placeholders substituted, for the report.
    pub substituted: bool,
}

/// The messages Claude Code sends when `skill` is invoked.
pub fn invoke(skill: &SkillView, options: &InvokeOptions) -> Invocation {
    let name = &skill.dir_name;
    if options.invoker == Invoker::User && !skill.claude.user_invocable {
        let message = format!(
            "This skill can only be invoked by Claude, not directly by users. Ask Claude to use the \"{name}\" skill for you."
        );
        return Invocation {
            messages: Vec::new(),
            shell: Vec::new(),
            refused: Some(message),
            substituted: false,
        };
    }
    let dir = slash(&skill.dir);
    let content = format!(
        "Base directory for this skill: {dir}\n\n{}",
        skill.claude.body
    );
    let (mut text, substituted) = substitute_arguments(
        &content,
        options.args.as_deref(),
        &skill.claude.arguments,
        options.version,
    );
    text = substitute_variables(&text, &dir, options);
    let (text, shell) = inline_shell(&text, &skill.claude.allowed_tools, &dir, options);
    let mut messages = Vec::new();
    if let Some(abort) = shell.iter().find(|command| !command.verdict.runs()) {
        let message = format!(
            "Shell command permission check failed for pattern \"{}\": {} needs approval, and Claude Code does not ask for commands in skills.",
            abort.pattern, abort.command
        );
        if options.invoker == Invoker::Model {
            messages.push(Message {
                role: "user",
                to: "main",
                content: vec![Block {
                    kind: "tool_result",
                    text: message.clone(),
                    visible: true,
                    is_error: true,
                }],
            });
        }
        return Invocation {
            messages,
            shell,
            refused: Some(message),
            substituted,
        };
    }
    let content_block = Block {
        kind: "text",
        text,
        visible: false,
        is_error: false,
    };
    if skill.claude.fork {
        messages.extend(forked(name, content_block, options));
        return Invocation {
            messages,
            shell,
            refused: None,
            substituted,
        };
    }
    let mut blocks = match options.invoker {
        Invoker::Model => vec![Block {
            kind: "tool_result",
            text: format!("Launching skill: {name}"),
            visible: true,
            is_error: false,
        }],
        Invoker::User => metadata(name, options.args.as_deref()),
    };
    blocks.push(content_block);
    messages.push(Message {
        role: "user",
        to: "main",
        content: blocks,
    });
    Invocation {
        messages,
        shell,
        refused: None,
        substituted,
    }
}

/// `context: fork`: the content is a sub-agent's first message; the main conversation gets the
/// completion notice (captures §9), whose result is the sub-agent's answer.
fn forked(name: &str, content: Block, options: &InvokeOptions) -> Vec<Message> {
    let mut result = if options.invoker == Invoker::User {
        metadata(name, options.args.as_deref())
    } else {
        Vec::new()
    };
    result.push(Block {
        kind: if options.invoker == Invoker::Model {
            "tool_result"
        } else {
            "text"
        },
        text: format!(
            "Skill \"{name}\" completed (forked execution).\n\nResult:\n⟨the sub-agent's final answer⟩"
        ),
        visible: true,
        is_error: false,
    });
    vec![
        Message {
            role: "user",
            to: "sub-agent",
            content: vec![content],
        },
        Message {
            role: "user",
            to: "main",
            content: result,
        },
    ]
}

/// The metadata block of a typed command (captures §7): each line ends in `\n`.
fn metadata(name: &str, args: Option<&str>) -> Vec<Block> {
    let mut text = format!(
        "<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n"
    );
    if let Some(args) = args.filter(|args| !args.is_empty()) {
        let _ = writeln!(text, "<command-args>{args}</command-args>");
    }
    vec![Block {
        kind: "text",
        text,
        visible: true,
        is_error: false,
    }]
}

fn slash(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Splits arguments the way the `shell-quote` package does: quotes group, `\` escapes, `$VAR`
/// stays literal. `None` when a quote is never closed.
pub fn shell_words(args: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => current.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            escaped @ ('"' | '\\' | '$' | '`') => current.push(escaped),
                            other => {
                                current.push('\\');
                                current.push(other);
                            }
                        },
                        other => current.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            other => {
                in_word = true;
                current.push(other);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Some(words)
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` and declared `$name`s (A3.1, captures §6–7). Returns the
/// text and whether anything matched; appends `ARGUMENTS:` when nothing did.
pub fn substitute_arguments(
    content: &str,
    args: Option<&str>,
    names: &[String],
    version: Version,
) -> (String, bool) {
    let Some(args) = args else {
        return (content.to_owned(), false);
    };
    let parsed =
        shell_words(args).unwrap_or_else(|| args.split_whitespace().map(str::to_owned).collect());
    let names = Names::new(names);
    let out = match version {
        Version::Current => substitute_once(content, args, &parsed, &names),
        Version::V2188 => substitute_passes(content, args, &parsed, &names),
    };
    let matched = out != content;
    if !matched && !args.is_empty() {
        return (format!("{content}\n\nARGUMENTS: {args}"), false);
    }
    (out, matched)
}

/// Names with characters other than word characters longer than this are not substituted:
/// finding them would cost their length at every `$` (a name like `x$x$…` matches at each).
const MAX_ODD_NAME: usize = 256;

/// The declared argument names, for finding which one follows a `$` without trying each: a
/// name made of word characters can only match the whole word after the `$`, so it is looked
/// up; the others are found by walking a trie along the text.
struct Names {
    /// Word-character names: the first index of each.
    words: HashMap<String, usize>,
    /// The other names.
    others: PrefixTrie,
}

impl Names {
    fn new(names: &[String]) -> Self {
        let mut words = HashMap::new();
        let mut others = PrefixTrie::default();
        for (index, name) in names.iter().enumerate() {
            if !name.is_empty() && name.chars().all(is_word) {
                words.entry(name.clone()).or_insert(index);
            } else if name.len() <= MAX_ODD_NAME {
                others.insert(name, index);
            }
        }
        Self { words, others }
    }

    /// The first name (by index) that `rest` starts with, followed by neither `[` nor a word
    /// character; its length and index.
    fn find(&self, rest: &str) -> Option<(usize, usize)> {
        let followed_well = |len: usize| {
            let after = &rest[len..];
            !after.starts_with('[') && !after.chars().next().is_some_and(is_word)
        };
        let word = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
        let by_word = self
            .words
            .get(&rest[..word])
            .filter(|_| followed_well(word))
            .map(|&index| (word, index));
        let other = self
            .others
            .prefixes_of(rest)
            .filter(|&(len, _)| rest.is_char_boundary(len) && followed_well(len))
            .min_by_key(|&(_, index)| index);
        match (by_word, other) {
            (Some(a), Some(b)) => Some(if a.1 < b.1 { a } else { b }),
            (found, other) => found.or(other),
        }
    }
}

/// The length of `[N]` at the start of `text` (digits between brackets), if it is there;
/// counted, not searched for, so unclosed brackets cost nothing.
fn index_brackets(text: &str) -> Option<usize> {
    let inner = text.strip_prefix('[')?;
    let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && inner.as_bytes().get(digits) == Some(&b']')).then_some(digits)
}

/// What follows `$` at `rest`: the placeholder's length and its value (`None`: stays literal).
fn placeholder<'a>(
    rest: &str,
    args: &'a str,
    parsed: &'a [String],
    names: &Names,
    missing_empty: bool,
) -> Option<(usize, Option<&'a str>)> {
    if let Some(after) = rest.strip_prefix("ARGUMENTS") {
        if let Some(end) = index_brackets(after) {
            let inner = &after[1..];
            let index: usize = inner[..end].parse().ok()?;
            let value = parsed
                .get(index)
                .map(String::as_str)
                .or(missing_empty.then_some(""));
            return Some(("ARGUMENTS".len() + end + 2, value));
        }
        return Some(("ARGUMENTS".len(), Some(args)));
    }
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        if rest[digits..].chars().next().is_some_and(is_word) {
            return None;
        }
        let index: usize = rest[..digits].parse().ok()?;
        let value = parsed
            .get(index)
            .map(String::as_str)
            .or(missing_empty.then_some(""));
        return Some((digits, value));
    }
    names
        .find(rest)
        .map(|(len, index)| (len, Some(parsed.get(index).map_or("", String::as_str))))
}

/// 2.1.332: one pass, so values are never re-expanded; `\$` escapes; a missing index stays.
fn substitute_once(content: &str, args: &str, parsed: &[String], names: &Names) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find(['$', '\\']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("\\\\") {
            out.push_str("\\\\");
            rest = after;
            continue;
        }
        if let Some(after) = tail.strip_prefix("\\$") {
            if placeholder(after, args, parsed, names, false).is_some() {
                out.push('$');
                rest = after;
            } else {
                out.push('\\');
                rest = &tail[1..];
            }
            continue;
        }
        if let Some(after) = tail.strip_prefix('\\') {
            out.push('\\');
            rest = after;
            continue;
        }
        let after = &tail[1..];
        match placeholder(after, args, parsed, names, false) {
            Some((len, Some(value))) => {
                out.push_str(value);
                rest = &after[len..];
            }
            Some((len, None)) => {
                out.push('$');
                out.push_str(&after[..len]);
                rest = &after[len..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// 2.1.88: named, indexed, shorthand, then full, each pass over the last one's output; missing
/// indexes become empty; no escapes.
fn substitute_passes(content: &str, args: &str, parsed: &[String], names: &Names) -> String {
    let pass = |text: &str, accept: &dyn Fn(&str) -> Option<(usize, String)>| {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some((len, value)) = accept(after) {
                out.push_str(&value);
                rest = &after[len..];
            } else {
                out.push('$');
                rest = after;
            }
        }
        out.push_str(rest);
        out
    };
    let mut text = pass(content, &|rest| {
        names
            .find(rest)
            .map(|(len, index)| (len, parsed.get(index).cloned().unwrap_or_default()))
    });
    text = pass(&text, &|rest| {
        let inner = rest.strip_prefix("ARGUMENTS[")?;
        let end = inner.find(|c: char| !c.is_ascii_digit())?;
        if !inner[end..].starts_with(']') {
            return None;
        }
        let index: usize = inner[..end].parse().ok()?;
        Some((
            "ARGUMENTS[".len() + end + 1,
            parsed.get(index).cloned().unwrap_or_default(),
        ))
    });
    text = pass(&text, &|rest| {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || rest[digits..].chars().next().is_some_and(is_word) {
            return None;
        }
        let index: usize = rest[..digits].parse().ok()?;
        Some((digits, parsed.get(index).cloned().unwrap_or_default()))
    });
    pass(&text, &|rest| {
        rest.starts_with("ARGUMENTS")
            .then(|| ("ARGUMENTS".len(), args.to_owned()))
    })
}

/// `${CLAUDE_SKILL_DIR}`, `${CLAUDE_SESSION_ID}`, and in 2.1.332 `${CLAUDE_PROJECT_DIR}` and
/// `${CLAUDE_EFFORT}`; anything else stays literal.
fn substitute_variables(text: &str, dir: &str, options: &InvokeOptions) -> String {
    let mut out = text
        .replace("${CLAUDE_SKILL_DIR}", dir)
        .replace("${CLAUDE_SESSION_ID}", &options.session_id);
    if options.version == Version::Current {
        out = out
            .replace("${CLAUDE_PROJECT_DIR}", &options.project_dir)
            .replace("${CLAUDE_EFFORT}", &options.effort);
    }
    out
}

/// Inline commands (`` !`cmd` `` and ```` ```! ```` blocks): markers (or, with `exec`, their
/// output) in place of each, and the verdict on each. The rules in `allowed-tools` get the same
/// variable substitution as the text, so `Bash(${CLAUDE_SKILL_DIR}/run.sh)` still matches.
fn inline_shell(
    text: &str,
    allowed: &[String],
    dir: &str,
    options: &InvokeOptions,
) -> (String, Vec<ShellCommand>) {
    let tools: Vec<String> = allowed
        .iter()
        .map(|tool| substitute_variables(tool, dir, options))
        .collect();
    let permissions = Permissions::new(&tools);
    let mut commands = Vec::new();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for Inline { range, command } in shell::inline_commands(text) {
        let verdict = permissions.verdict(&command);
        out.push_str(&text[at..range.start]);
        let replacement = match options.exec {
            Some(run) if verdict.runs() => run(&command, &options.project_dir),
            _ => format!("⟦shell: {command}⟧"),
        };
        out.push_str(&replacement);
        at = range.end;
        commands.push(ShellCommand {
            pattern: text[range].to_owned(),
            needs: (!verdict.runs()).then(|| shell::rule_needed(&command)),
            command,
            verdict,
        });
    }
    out.push_str(&text[at..]);
    (out, commands)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_as_shell_quote() {
        assert_eq!(
            shell_words("first \"second arg\"").unwrap(),
            ["first", "second arg"]
        );
        assert_eq!(
            shell_words("$1 'a b' $ARGUMENTS extra").unwrap(),
            ["$1", "a b", "$ARGUMENTS", "extra"]
        );
        assert_eq!(shell_words("a\\ b").unwrap(), ["a b"]);
        assert_eq!(shell_words("'open"), None);
        assert_eq!(shell_words("").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn substitution_as_captured() {
        let body = "Full: $ARGUMENTS\nIndex2: $ARGUMENTS[2]\nOne: $1\nTwo: $2\nEscaped: \\$1\nEscapedArgs: \\$ARGUMENTS\nDouble: \\\\$1\n";
        let (out, matched) =
            substitute_arguments(body, Some("first \"second arg\""), &[], Version::Current);
        assert!(matched);
        assert_eq!(
            out,
            "Full: first \"second arg\"\nIndex2: $ARGUMENTS[2]\nOne: second arg\nTwo: $2\nEscaped: $1\nEscapedArgs: $ARGUMENTS\nDouble: \\\\second arg\n"
        );
        let names = vec!["topic".to_owned(), "count".to_owned()];
        let body = "Topic: $topic\nCount: $count\nTopicIdx: $topic[0]\nTopicWord: $topicx\nEsc: \\$topic\nFull: $ARGUMENTS\nZero: $0\n";
        let (out, _) = substitute_arguments(
            body,
            Some("$1 'a b' $ARGUMENTS extra"),
            &names,
            Version::Current,
        );
        assert_eq!(
            out,
            "Topic: $1\nCount: a b\nTopicIdx: $topic[0]\nTopicWord: $topicx\nEsc: $topic\nFull: $1 'a b' $ARGUMENTS extra\nZero: $1\n"
        );
        // No arguments: `$ARGUMENTS` is empty, indexes stay.
        let (out, _) =
            substitute_arguments("A: $ARGUMENTS\nB: $0\n", Some(""), &[], Version::Current);
        assert_eq!(out, "A: \nB: $0\n");
        // Nothing matched: the arguments are appended.
        let (out, matched) = substitute_arguments("Plain.\n", Some("hello"), &[], Version::Current);
        assert_eq!(
            (out.as_str(), matched),
            ("Plain.\n\n\nARGUMENTS: hello", false)
        );
        // 2.1.88 empties missing indexes and re-expands values.
        let (out, _) = substitute_arguments("$1 $0", Some("x $1y"), &[], Version::V2188);
        assert_eq!(out, "$1y x");
        let (out, _) = substitute_arguments("[$2]", Some("x"), &[], Version::V2188);
        assert_eq!(out, "[]");
    }

    #[test]
    fn models() {
        assert!(!Model::named("claude-opus-5-5").legacy);
        assert_eq!(Model::named("claude-opus-5-5").context_window, 1_000_000);
        let sonnet = Model::named("claude-sonnet-4-5");
        assert!(sonnet.legacy);
        assert_eq!((sonnet.context_window, sonnet.effort), (200_000, "high"));
        assert_eq!(
            Model::named("claude-sonnet-4-5[1m]").context_window,
            1_000_000
        );
        assert!(Model::named("claude-3-5-haiku-20241022").legacy);
    }
}
