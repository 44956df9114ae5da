//! Lint rules about the body: length, paths written in it, inline shell.

use super::LintContext;
use crate::agent::Target;
use crate::agent::claude_code::shell::{self, Needs, Permissions, Verdict};
use crate::check::diagnostic::Diagnostic;
use crate::check::fix::{Applicability, Edit, Fix};
use crate::check::rule::{
    ABSOLUTE_PATH, BACKSLASH_PATH, BODY_TOO_LONG, BODY_TOO_MANY_TOKENS, CLAUDE_ONLY_VARIABLE,
    INLINE_SHELL_NOT_ALLOWED, LEGACY_BASE_DIR,
};
use crate::skill::model::{SkillDoc, ToolList};

/// The spec's recommended maximum body length.
pub(super) const MAX_BODY_LINES: usize = 500;
/// The spec's recommended maximum body size, in estimated tokens.
pub(super) const MAX_BODY_TOKENS: usize = 5_000;
/// The estimate is a few per cent off a tokenizer's count: a body is reported only when it is
/// over the limit by more than a twentieth (5,250), not on the estimate's noise.
const TOKEN_MARGIN: usize = 20;

pub(super) fn check(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let body = cx.body();
    let lines = body.lines().count();
    if lines > MAX_BODY_LINES {
        let start_line = cx.source.position(cx.body_start).line;
        let range = cx.source.line_range(start_line + MAX_BODY_LINES);
        out.push(
            Diagnostic::warning(
                &BODY_TOO_LONG,
                format!(
                    "the body is {lines} lines long; the spec recommends at most {MAX_BODY_LINES}"
                ),
            )
            .at(range)
            .label(format!("line {} of the body", MAX_BODY_LINES + 1))
            .note("the whole body enters the context each time the skill runs")
            .help("move details into files under references/ and say when to read each"),
        );
    }
    // One finding for one problem: a body over both limits is reported once, as too long.
    let tokens = if body.contains("  ") || body.contains('\t') {
        crate::agent::estimate_tokens(&squeeze_spaces(body))
    } else {
        crate::agent::estimate_tokens(body)
    };
    if tokens > MAX_BODY_TOKENS + MAX_BODY_TOKENS / TOKEN_MARGIN && lines <= MAX_BODY_LINES {
        let first = cx.source.position(cx.body_start).line;
        out.push(
            Diagnostic::warning(
                &BODY_TOO_MANY_TOKENS,
                format!("the body is about {tokens} tokens; the spec recommends under {MAX_BODY_TOKENS}"),
            )
            .at(cx.source.line_range(first))
            .label("the body starts here")
            .note("estimated as one token per 4 ASCII characters plus one per other character, runs of spaces counted as one; Claude's tokenizer is not public")
            .help("move details into files under references/ and say when to read each"),
        );
    }
    let text = cx.text();
    // One fast scan decides whether the slower, precise ones are needed at all.
    if !path_triggers().is_match(text) {
        return;
    }
    absolute_paths(text, cx, out);
    // The body only: in the frontmatter a backslash may be a YAML escape, which a fix would
    // break.
    backslash_paths(text, cx.body_start, &cx.fences, out);
    legacy_base_dir(cx, out);
}

/// `legacy-base-dir`: where the agent itself must expand `{baseDir}` and will not: in an inline
/// shell command (run before the model sees the skill) and in `allowed-tools` (a rule that never
/// matches). In prose and code blocks the model reads it, next to the skill's folder that the
/// agent states ("Base directory for this skill: …"), and resolves it: no finding there. Once
/// for the file, at the first use, with one fix for every use.
fn legacy_base_dir(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    // In order and apart: `allowed-tools` (in the frontmatter), then the inline commands.
    let mut places: Vec<std::ops::Range<usize>> = Vec::new();
    if let Some(field) = cx.doc.and_then(|doc| doc.allowed_tools.as_deref()) {
        places.push(field.span.clone());
    }
    places.extend(
        shell::inline_commands(cx.body())
            .into_iter()
            .map(|inline| cx.body_start + inline.range.start..cx.body_start + inline.range.end),
    );
    let mut uses: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    for (at, _) in text.match_indices("{baseDir}") {
        if !super::in_ranges(&places, at) || talks_about(text, at, false) {
            continue;
        }
        let (start, written) = if at > 0 && text.as_bytes()[at - 1] == b'$' {
            (at - 1, "${baseDir}")
        } else {
            (at, "{baseDir}")
        };
        uses.push((start..at + "{baseDir}".len(), written));
    }
    let Some((first, written)) = uses.first().cloned() else {
        return;
    };
    let times = if uses.len() == 1 {
        String::new()
    } else {
        format!(" (used {} times)", uses.len())
    };
    let edits = uses
        .into_iter()
        .map(|(range, _)| Edit {
            range,
            text: "${CLAUDE_SKILL_DIR}".to_owned(),
        })
        .collect();
    out.push(
        Diagnostic::warning(
            &LEGACY_BASE_DIR,
            format!("`{written}`{times} is a legacy placeholder that Claude Code leaves as written where it runs commands itself"),
        )
        .at(first)
        .note("inline shell runs before the model sees the skill, and `allowed-tools` rules are matched as written; Claude Code substitutes `${CLAUDE_SKILL_DIR}` with the skill's folder")
        .fix(Fix::safe("replace each with `${CLAUDE_SKILL_DIR}`", edits)),
    );
}

/// `claude-only-variable`: `${CLAUDE_SKILL_DIR}` in the body, for `targets` (the skill's
/// targets that show it to the model as written). Once for the file, at the first use, with one
/// fix making every `${CLAUDE_SKILL_DIR}/…` path relative to the skill folder (none when a use
/// is not followed by `/`: `cd ${CLAUDE_SKILL_DIR}` has no relative spelling).
pub(super) fn check_claude_only_variables(
    cx: &LintContext<'_>,
    targets: &[Target],
    out: &mut Vec<Diagnostic>,
) {
    const VARIABLE: &str = "${CLAUDE_SKILL_DIR}";
    let text = cx.text();
    let body = cx.body();
    // Inline shell (`!`…``) is Claude Code's alone, and it runs from the project folder: there
    // the variable is what makes the path work, and no other agent runs it.
    let inline: Vec<std::ops::Range<usize>> = shell::inline_commands(body)
        .into_iter()
        .map(|inline| inline.range)
        .collect();
    let uses: Vec<usize> = body
        .match_indices(VARIABLE)
        .filter(|(at, _)| !super::in_ranges(&inline, *at))
        .map(|(at, _)| cx.body_start + at)
        .filter(|&at| !talks_about(text, at, false))
        .collect();
    let Some(&first) = uses.first() else {
        return;
    };
    let times = if uses.len() == 1 {
        String::new()
    } else {
        format!(" (used {} times)", uses.len())
    };
    let agents: Vec<&str> = targets.iter().map(|target| target.display()).collect();
    let mut diagnostic = Diagnostic::warning(
        &CLAUDE_ONLY_VARIABLE,
        format!(
            "`{VARIABLE}`{times} is expanded only by Claude Code; {} {} it to the model as written",
            agents.join(" and "),
            if agents.len() == 1 { "passes" } else { "pass" }
        ),
    )
    .at(first..first + VARIABLE.len())
    .help("write the path relative to the skill folder (`scripts/run.py`): agents resolve it from the skill's root, as the spec says; `allowed-tools` may keep `${CLAUDE_SKILL_DIR}`");
    let all_paths = uses
        .iter()
        .all(|&at| text[at + VARIABLE.len()..].starts_with('/'));
    if all_paths {
        let edits = uses
            .iter()
            .map(|&at| Edit {
                range: at..at + VARIABLE.len() + 1,
                text: String::new(),
            })
            .collect();
        diagnostic = diagnostic.fix(Fix::unsafe_(
            "make each path relative to the skill folder",
            edits,
        ));
    }
    out.push(diagnostic);
}

/// `text` with every run of spaces and tabs counted as one space: the padding of aligned tables
/// and diagrams costs a tokenizer far less than a character each.
fn squeeze_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let blank = c == ' ' || c == '\t';
        if !(blank && space) {
            out.push(if blank { ' ' } else { c });
        }
        space = blank;
    }
    out
}

/// Whether the sentence around `at`, up to it, talks about what is there rather than uses it:
/// a warning against it ("never", "don't", "instead of"), an explanation of a placeholder, or,
/// with `examples`, an example.
fn talks_about(text: &str, at: usize, examples: bool) -> bool {
    if examples && in_example_block(text, at) {
        return true;
    }
    let line = super::sentence_before(text, at).to_lowercase();
    [
        "never",
        "don't",
        "do not",
        "avoid",
        "instead of",
        "bad:",
        "wrong:",
        "legacy",
        "placeholder",
    ]
    .iter()
    .any(|word| line.contains(word))
        || (examples && ["e.g.", "example"].iter().any(|word| line.contains(word)))
}

/// Whether the lines just before the one `at` is on introduce an example or show one's output
/// ("For example:", "Example output", "Verified on …"): the paths in it are the example's.
/// Looks back at most [`super::CONTEXT_BYTES`].
fn in_example_block(text: &str, at: usize) -> bool {
    let mut from = at.saturating_sub(super::CONTEXT_BYTES);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = &text[from..at];
    before.rsplit('\n').skip(1).take(3).any(|line| {
        let line = line.trim().to_lowercase();
        line.contains("example")
            || line.contains("e.g.")
            || line.starts_with("verified on")
            || line.starts_with("sample")
            || line.ends_with("output:")
    })
}

/// Anything the path rules below could flag.
fn path_triggers() -> &'static regex::Regex {
    static PATTERN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    PATTERN.get_or_init(|| {
        regex::Regex::new(r"/home/|/Users/|/root/|:\\|scripts\\|references\\|assets\\|\{baseDir\}")
            .expect("a valid pattern")
    })
}

/// Paths longer than this are not paths (and are not quoted back in a message).
const MAX_PATH: usize = 1024;

/// Where paths end, found by one forward scan shared by every path in a run: the end found
/// for a start is the end for every later start before it.
struct PathEnds<'a> {
    text: &'a str,
    /// The end found last, and the start it was searched from.
    cached: Option<(usize, usize)>,
}

impl<'a> PathEnds<'a> {
    fn new(text: &'a str) -> Self {
        Self { text, cached: None }
    }

    /// The end of a path that starts at `start`: up to whitespace, a quote, a backtick or `)`.
    fn end(&mut self, start: usize) -> usize {
        if let Some((from, end)) = self.cached
            && from <= start
            && start <= end
        {
            return end;
        }
        let end = path_end(self.text, start);
        self.cached = Some((start, end));
        end
    }
}

/// Whether an absolute `path` points at the skill's own files (`/Users/ann/.claude/skills/pdf/…`,
/// `/home/ann/work/pdf/scripts/fill.py` for the skill's `scripts/fill.py`): a path that breaks
/// on every other machine. Standard locations (`C:\\Program Files\\…`), a container's or a
/// server's folders and examples are not the skill's business.
fn points_at_skill(path: &str, cx: &LintContext<'_>) -> bool {
    let path = path.replace('\\', "/");
    let folder = format!("/{}/", cx.skill.dir_name);
    if path.contains("/.claude/skills/")
        || (!cx.skill.dir_name.is_empty() && path.contains(&folder))
    {
        return true;
    }
    path.match_indices('/')
        .any(|(at, _)| at + 1 < path.len() && cx.bundle.get(&path[at + 1..]).is_some())
}

/// Account names that stand for anyone (`/home/user`, `/Users/you`) or for a server's or
/// container's default account (`/home/ubuntu`, `/home/runner`): a path under them is an
/// illustration or someone else's machine, not the author's own home.
const ANYONE: &[&str] = &[
    "user",
    "username",
    "users",
    "you",
    "your",
    "yourname",
    "your-name",
    "your_name",
    "youruser",
    "your-username",
    "your_username",
    "me",
    "name",
    "myname",
    "myuser",
    "example",
    "someone",
    "somebody",
    "shared",
    "public",
    "default",
    "guest",
    "ubuntu",
    "ec2-user",
    "runner",
    "node",
    "app",
    "vagrant",
    "pi",
    "admin",
    "dev",
    "developer",
    "john",
    "jane",
    "johndoe",
    "jdoe",
    "foo",
    "vscode",
    "codespace",
    "linuxbrew",
    "agent",
    "coder",
    "jovyan",
    "gitpod",
    "circleci",
    "jenkins",
    "docker",
];

/// Whether the sentence before `at` puts the path on another machine (a server, a container, a
/// host reached over `ssh`): a home folder there is that machine's, not the author's.
fn elsewhere(text: &str, at: usize) -> bool {
    let sentence = super::sentence_before(text, at).to_lowercase();
    [
        "server",
        "remote",
        "ssh ",
        "container",
        "docker",
        "vm ",
        "virtual machine",
        "host ",
    ]
    .iter()
    .any(|word| sentence.contains(word))
}

/// Whether `path` leads into a named person's home folder (`/home/alice/…`, `/Users/bob/…`,
/// `C:\Users\carol\…`), which exists only on that person's machine.
fn into_named_home(path: &str) -> bool {
    let path = path.replace('\\', "/");
    let rest = path
        .strip_prefix("/home/")
        .or_else(|| path.strip_prefix("/Users/"))
        .or_else(|| {
            let (drive, rest) = path.split_once(':')?;
            (drive.len() == 1)
                .then_some(rest)?
                .strip_prefix("/Users/")
                .or_else(|| rest.strip_prefix("/users/"))
        });
    let Some(rest) = rest else {
        return false;
    };
    let Some((owner, below)) = rest.split_once('/') else {
        return false;
    };
    let lower = owner.to_ascii_lowercase();
    !below.is_empty()
        && owner.chars().any(char::is_alphanumeric)
        && owner
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !ANYONE.contains(&lower.as_str())
        && !lower.starts_with("your")
}

fn absolute_paths(text: &str, cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    // Each path once, where it first appears.
    let from = out.len();
    absolute_paths_each(text, cx, out);
    let mut seen = std::collections::HashSet::new();
    let mut index = 0;
    out.retain(|diagnostic| {
        index += 1;
        index <= from || seen.insert(diagnostic.message.clone())
    });
}

fn absolute_paths_each(text: &str, cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let bytes = text.as_bytes();
    for prefix in ["/home/", "/Users/", "/root/"] {
        let mut ends = PathEnds::new(text);
        for (at, _) in text.match_indices(prefix) {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            if before.is_some_and(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'~' | b'}' | b'_' | b'-')
            }) {
                continue;
            }
            let end = ends.end(at);
            if end - at > MAX_PATH {
                continue;
            }
            let end = trim_punctuation(text, at, end);
            let path = &text[at..end];
            if (points_at_skill(path, cx) || (into_named_home(path) && !elsewhere(text, at)))
                && !talks_about(text, at, true)
            {
                out.push(absolute(at..end, path));
            }
        }
    }
    // `C:\…` and `C:/Users/…`
    let mut ends = PathEnds::new(text);
    for (at, _) in text
        .match_indices(":\\")
        .chain(text.match_indices(":/Users/"))
    {
        if at == 0 || !bytes[at - 1].is_ascii_alphabetic() {
            continue;
        }
        if at >= 2 && (bytes[at - 2].is_ascii_alphanumeric()) {
            continue;
        }
        let start = at - 1;
        let end = ends.end(start);
        if end - start > MAX_PATH {
            continue;
        }
        let end = trim_punctuation(text, start, end);
        let path = &text[start..end];
        if (points_at_skill(path, cx) || (into_named_home(path) && !elsewhere(text, start)))
            && !talks_about(text, start, true)
        {
            out.push(absolute(start..end, path));
        }
    }
}

fn trim_punctuation(text: &str, start: usize, end: usize) -> usize {
    start
        + text[start..end]
            .trim_end_matches(['.', ',', ';', ':'])
            .len()
}

fn absolute(range: std::ops::Range<usize>, path: &str) -> Diagnostic {
    Diagnostic::warning(
        &ABSOLUTE_PATH,
        format!("`{path}` is an absolute path on one machine"),
    )
    .at(range)
    .note("it exists on the author's machine only; everyone else's agent finds nothing there")
    .help("use a path relative to the skill folder (or `${CLAUDE_SKILL_DIR}/…`), or `~/…` for the user's own home")
}

/// The end of a path that starts at `start`: up to whitespace, a quote, a backtick or `)`.
fn path_end(text: &str, start: usize) -> usize {
    text[start..]
        .find(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '`' | '"' | '\'' | '(' | ')' | '[' | ']' | '>' | '<' | '|'
                )
        })
        .map_or(text.len(), |len| start + len)
        .max(start)
}

/// Resource paths written with backslashes, from `from` on.
fn backslash_paths(
    text: &str,
    from: usize,
    fences: &[std::ops::Range<usize>],
    out: &mut Vec<Diagnostic>,
) {
    let bytes = text.as_bytes();
    for folder in ["scripts\\", "references\\", "assets\\"] {
        let mut ends = PathEnds::new(text);
        for (at, _) in text[from..].match_indices(folder) {
            let at = from + at;
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            // Written for Windows on purpose: in a PowerShell or batch block, or on a line that
            // says it is the Windows way.
            if for_windows(text, at, fences) || not_for_a_shell(text, at, fences) {
                continue;
            }
            let end = ends.end(at);
            if end - at > MAX_PATH {
                continue;
            }
            let path = text[at..end].trim_end_matches(['.', ',', ';', ':']);
            if path.len() <= folder.len() {
                continue;
            }
            let range = at..at + path.len();
            let fixed = path.replace('\\', "/");
            out.push(
                Diagnostic::warning(&BACKSLASH_PATH, format!("`{path}` uses backslashes"))
                    .at(range.clone())
                    .note("agents run commands in POSIX shells, where `\\` is an escape; `/` works everywhere")
                    .fix(Fix::replace(Applicability::Safe, format!("write `{fixed}`"), range, fixed)),
            );
        }
    }
}

/// Whether the text at `at` is written for Windows: inside a PowerShell, `cmd` or batch fence,
/// or on a line that names Windows or PowerShell.
fn for_windows(text: &str, at: usize, fences: &[std::ops::Range<usize>]) -> bool {
    let after = fences.partition_point(|fence| fence.start <= at);
    let in_windows_fence = after
        .checked_sub(1)
        .map(|index| &fences[index])
        .filter(|fence| fence.contains(&at))
        .is_some_and(|fence| {
            let language = super::fence_language(&text[fence.clone()]);
            [
                "powershell",
                "pwsh",
                "ps1",
                "ps",
                "cmd",
                "bat",
                "batch",
                "doscon",
            ]
            .contains(&language.as_str())
        });
    let line = format!(
        "{}{}",
        super::line_before(text, at),
        super::line_after(text, at)
    )
    .to_lowercase();
    in_windows_fence || line.contains("windows") || line.contains("powershell")
}

/// Whether the text at `at` is no path for a shell: inside a fence of a file format whose paths
/// are Windows-style by convention (an `MSBuild` project's `Include="src\**\*.cs"`), or in a
/// sentence that shows it as what not to do.
fn not_for_a_shell(text: &str, at: usize, fences: &[std::ops::Range<usize>]) -> bool {
    let after = fences.partition_point(|fence| fence.start <= at);
    let in_project_file = after
        .checked_sub(1)
        .map(|index| &fences[index])
        .filter(|fence| fence.contains(&at))
        .is_some_and(|fence| {
            let language = super::fence_language(&text[fence.clone()]);
            [
                "xml", "csproj", "msbuild", "props", "targets", "vbproj", "fsproj", "sln",
            ]
            .contains(&language.as_str())
        });
    let line = super::line_before(text, at).to_lowercase();
    in_project_file
        || talks_about(text, at, false)
        || line.contains("bad")
        || line.contains("anti-pattern")
        || line.contains("wrong")
}

/// Claude Code only: inline shell commands that would abort the invocation. The body and
/// `allowed-tools` are Claude Code's reading of the file (its frontmatter ends at the first
/// `---`), as `preview` renders them.
pub(super) fn check_claude_code(cx: &LintContext<'_>, target: Target, out: &mut Vec<Diagnostic>) {
    let Some((reading, doc)) = crate::agent::claude_code::reading::read(cx.skill, target) else {
        return;
    };
    let body = cx.skill.body(&reading);
    let body_start = cx.text().len() - body.len();
    let permissions = Permissions::new(&allowed_tools(doc.as_ref()));
    for inline in shell::inline_commands(body) {
        let verdict = permissions.verdict(&inline.command);
        let Verdict::Aborts { part, needs } = verdict else {
            continue;
        };
        let command = inline.command;
        let help = match needs {
            Needs::Rule(_) => format!("add `{needs}` to `allowed-tools`"),
            Needs::AnyBash => format!(
                "`{part}` runs a nested command or writes a file, which no rule short of `Bash` or `Bash(*)` allows; move it into a script the skill runs with a `Bash(…)` rule"
            ),
        };
        out.push(
            Diagnostic::error(
                &INLINE_SHELL_NOT_ALLOWED,
                format!("Claude Code will refuse to run `{command}` and abort the skill"),
            )
            .at(body_start + inline.range.start..body_start + inline.range.end)
            .note("inline shell runs before the model sees the skill; a command that is not read-only needs a `Bash(…)` rule in `allowed-tools`, or the whole invocation fails with \"Shell command permission check failed\"")
            .help(help),
        );
    }
}

/// The entries of `allowed-tools`, with `${CLAUDE_SKILL_DIR}` left as written.
pub(crate) fn allowed_tools(doc: Option<&SkillDoc>) -> Vec<String> {
    let Some(field) = doc.and_then(|doc| doc.allowed_tools.as_deref()) else {
        return Vec::new();
    };
    match &field.value {
        Ok(ToolList::Text(text)) => shell::split_tools(text),
        Ok(ToolList::List(items)) => items
            .iter()
            .flat_map(|item| shell::split_tools(&item.value))
            .collect(),
        Err(_) => Vec::new(),
    }
}
