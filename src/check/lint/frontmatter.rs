//! Lint rules about frontmatter values: ambiguous scalars, `allowed-tools`, arguments, `paths`.

use std::ops::Range;

use super::LintContext;
use crate::agent::Target;
use crate::agent::claude_code::shell::{Permissions, tool_ranges};
use crate::check::diagnostic::Diagnostic;
use crate::check::fix::{Applicability, Fix};
use crate::check::rule::{
    ALLOWED_TOOLS_TOO_BROAD, AMBIGUOUS_SCALAR, ARGUMENTS_WITHOUT_HINT, COMMAND_SHADOWED,
    INVALID_PATHS_GLOB, NOT_INVOCABLE, UNDECLARED_ARGUMENT, UNKNOWN_TOOL, UNUSED_ARGUMENT,
};
use crate::skill::model::{Field, ToolList};
use crate::skill::yaml::{self, Feature, NodeId, NodeKind, Style, Yaml};

/// Keys whose values are booleans or numbers by design: `yes` there means yes.
const NON_TEXT_KEYS: &[&str] = &[
    "disable-model-invocation",
    "user-invocable",
    "background",
    "effort",
    "hooks",
];

/// Claude Code's tools: as its documentation lists them (2.1.x), and as 2.1.332's package names
/// them (`sdk-tools.d.ts`, and the binary's `userFacingName`s).
pub(crate) const CLAUDE_CODE_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "EnterPlanMode",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "LSP",
    "ListMcpResourcesTool",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "PowerShell",
    "Read",
    "ReadMcpResourceTool",
    "Skill",
    "SlashCommand",
    "Task",
    "TaskOutput",
    "TodoRead",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Write",
    // Named in 2.1.332's own tool schemas (`sdk-tools.d.ts`) and user-facing names.
    "Artifact",
    "ClaudeDesign",
    "CronCreate",
    "CronDelete",
    "CronList",
    "EnterWorktree",
    "ExitWorktree",
    "ListAgents",
    "Monitor",
    "Projects",
    "ProposeGoal",
    "ProposeSkills",
    "PushNotification",
    "ReadMcpResourceDir",
    "ReadNotifications",
    "RefreshMcpTools",
    "RemoteTrigger",
    "ReportFindings",
    "ScheduleWakeup",
    "SendFeedback",
    "SendFile",
    "SendMessage",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskStop",
    "TaskUpdate",
    "Workflow",
];

pub(super) fn check(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let (Some(yaml), Some(doc)) = (cx.yaml, cx.doc) else {
        return;
    };
    for (key, node) in &doc.entries {
        if NON_TEXT_KEYS.contains(&key.value.as_str()) || !read_by_a_target(cx, &key.value) {
            continue;
        }
        ambiguous_scalars(cx, yaml, *node, &shortened(&key.value), 0, out);
    }
    for feature in yaml.features() {
        let (what, span) = match feature {
            Feature::Anchor(span) => ("an anchor", span),
            Feature::Alias(span) => ("an alias", span),
            Feature::Tag(span) => ("a tag", span),
            Feature::FlowCollection(_) => continue,
        };
        out.push(
            Diagnostic::warning(&AMBIGUOUS_SCALAR, format!("{what} in the frontmatter"))
                .at(span.clone())
                .note("skills-ref's strictyaml rejects anchors, aliases and tags, and simple frontmatter parsers read them as text")
                .help("write the value out in full"),
        );
    }
    if let Some(field) = &doc.allowed_tools {
        // Computed once, for the first broad entry: the body is scanned once.
        let mut narrow: Option<Option<Vec<String>>> = None;
        for (tool, span) in tool_items(cx, field) {
            let bare = tool.split('(').next().unwrap_or(&tool);
            // What Claude Code allows with it (`Bash()` everything, `Bash(*:*)` nothing).
            let everything = tool == "*"
                || (bare == "Bash" && Permissions::new(&[tool.as_str()]).allows_every_command());
            // Only when the instructions show that a few narrow rules would do: a skill whose
            // job is running many different commands needs `Bash`.
            if !everything {
                continue;
            }
            let Some(rules) = narrow.get_or_insert_with(|| narrow_rules(cx)).clone() else {
                continue;
            };
            out.push(
                Diagnostic::warning(
                    &ALLOWED_TOOLS_TOO_BROAD,
                    format!("`{tool}` in `allowed-tools` lets the skill run any command without asking, but it runs only {}", rules.iter().map(|rule| format!("`{rule}`")).collect::<Vec<_>>().join(", ")),
                )
                .at(span)
                .note("every command the instructions show starts with one of these")
                .help(format!("grant just those: `allowed-tools: {}`", rules.iter().map(|rule| format!("Bash({rule}:*)")).collect::<Vec<_>>().join(" "))),
            );
        }
    }
    if let (Some(disabled), Some(hidden)) = (&doc.disable_model_invocation, &doc.user_invocable)
        && disabled.value == Ok(true)
        && hidden.value == Ok(false)
    {
        out.push(
            Diagnostic::warning(&NOT_INVOCABLE, "nobody can invoke this skill")
                .at(hidden.span.clone())
                .related(disabled.span.clone(), "the model may not invoke it")
                .label("and the user cannot type it")
                .help("remove one of the two keys"),
        );
    }
    if let Some(Field {
        value: Ok(patterns),
        ..
    }) = doc.paths.as_deref()
    {
        for pattern in patterns {
            if let Err(error) = globset::Glob::new(&pattern.value) {
                let reason = error.kind().to_string();
                out.push(
                    Diagnostic::warning(
                        &INVALID_PATHS_GLOB,
                        format!("`paths` pattern `{}` is not a valid glob: {reason}", pattern.value),
                    )
                    .at(pattern.span.clone())
                    .note("Claude Code lists a `paths` skill only after a matching file is read; this pattern matches nothing"),
                );
            }
        }
    }
}

/// Whether any of the skill's targets reads the value of `key`: how parsers type a value no
/// agent reads (an unknown key, `metadata` where no target looks at it, a Claude Code key for
/// Codex) changes nothing. `metadata` is read by claude.ai uploads (which keep its values) and
/// by OpenClaw (its `openclaw` block).
fn read_by_a_target(cx: &LintContext<'_>, key: &str) -> bool {
    use crate::skill::model::KeyOrigin;
    match crate::skill::model::known_key(key).map(|known| known.origin) {
        None => false,
        Some(KeyOrigin::ClaudeCode { .. }) => {
            cx.targets.iter().any(|target| target.is_claude_code())
        }
        Some(KeyOrigin::Spec) if key == "metadata" => cx
            .targets
            .iter()
            .any(|target| matches!(target, Target::ClaudeAi | Target::OpenClaw)),
        Some(KeyOrigin::Spec) => true,
    }
}

/// `text`, cut to its first 80 characters (with `…`): a key path quoted in a message stays
/// short however long the keys, so messages cost no more than the findings.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Plain scalars that YAML parsers disagree about, anywhere under `node`.
fn ambiguous_scalars(
    cx: &LintContext<'_>,
    yaml: &Yaml,
    node: NodeId,
    key: &str,
    depth: usize,
    out: &mut Vec<Diagnostic>,
) {
    if depth > 8 {
        return;
    }
    let resolved = yaml.node(node);
    match &resolved.kind {
        NodeKind::Scalar(scalar) => {
            // An empty value is YAML's null to every parser that reads YAML: nothing to quote.
            if scalar.style != Style::Plain || scalar.tagged || scalar.value.is_empty() {
                return;
            }
            let Some(why) = disagreement(&scalar.value) else {
                return;
            };
            let span = resolved.span.clone();
            let mut diagnostic = Diagnostic::warning(
                &AMBIGUOUS_SCALAR,
                format!(
                    "`{key}: {}` reads differently in different YAML parsers",
                    scalar.value
                ),
            )
            .at(span.clone())
            .note(why)
            .help(format!(
                "quote it: `{}`",
                yaml::double_quoted(&scalar.value)
            ));
            // Quoting a null (`~`, `null`) would turn "no value" into text: report, never fix.
            let null = matches!(scalar.value.as_str(), "~" | "null" | "Null" | "NULL");
            if !null && cx.text().get(span.clone()) == Some(scalar.value.as_str()) {
                diagnostic = diagnostic.fix(Fix::replace(
                    Applicability::Safe,
                    "quote the value",
                    span,
                    yaml::double_quoted(&scalar.value),
                ));
            }
            out.push(diagnostic);
        }
        NodeKind::Sequence { items, .. } => {
            for item in items {
                ambiguous_scalars(cx, yaml, *item, key, depth + 1, out);
            }
        }
        NodeKind::Mapping { entries, .. } => {
            for (entry_key, value) in entries {
                let name = yaml.scalar(*entry_key).map_or_else(
                    || key.to_owned(),
                    |scalar| shortened(&format!("{key}.{}", shortened(&scalar.value))),
                );
                ambiguous_scalars(cx, yaml, *value, &name, depth + 1, out);
            }
        }
        NodeKind::Alias(_) => {}
    }
}

/// `1.50` as JavaScript prints the number: trailing zeros and a bare point dropped.
fn js_number(text: &str) -> String {
    let trimmed = text.trim_end_matches('0');
    trimmed.strip_suffix('.').unwrap_or(trimmed).to_owned()
}

/// `1.50` as Python prints the float: trailing zeros dropped, one kept after the point.
fn py_number(text: &str) -> String {
    let trimmed = text.trim_end_matches('0');
    if trimmed.ends_with('.') {
        format!("{trimmed}0")
    } else {
        trimmed.to_owned()
    }
}

/// How YAML parsers disagree about a plain scalar, or `None` when every parser reads it the same
/// (`12876` is a number and `1.0.0` text everywhere; `true` and `null` too). The disagreements
/// are YAML 1.1's (`PyYAML`, Go's `yaml.v2`, Ruby's `Psych`) against YAML 1.2's core schema (yaml@2,
/// which Claude Code and most JavaScript tools use).
fn disagreement(value: &str) -> Option<String> {
    let lower = value.to_ascii_lowercase();
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let unsigned = value.strip_prefix(['+', '-']).unwrap_or(value);
    if matches!(lower.as_str(), "yes" | "no" | "on" | "off" | "y" | "n") {
        return Some(format!(
            "YAML 1.1 parsers (PyYAML, Go's yaml.v2) read `{value}` as a boolean; YAML 1.2 parsers as text"
        ));
    }
    if unsigned.len() > 1 && unsigned.starts_with('0') && digits(unsigned) {
        return Some(format!(
            "YAML 1.1 parsers read `{value}` as an octal number, YAML 1.2 parsers as a decimal one"
        ));
    }
    if lower.starts_with("0o") && digits(&lower[2..]) {
        return Some(format!(
            "YAML 1.2 parsers read `{value}` as an octal number, YAML 1.1 parsers as text"
        ));
    }
    if unsigned.contains('_')
        && unsigned.starts_with(|c: char| c.is_ascii_digit())
        && unsigned
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'_' || b == b'.')
    {
        return Some(format!(
            "YAML 1.1 parsers read `{value}` as a number, YAML 1.2 parsers as text"
        ));
    }
    // YAML 1.1's base 60: `[1-9][0-9_]*(:[0-5]?[0-9])+`, as in `1:30`.
    let mut parts = unsigned.split(':');
    let head = parts.next().unwrap_or_default();
    let mut rest = parts.peekable();
    if rest.peek().is_some()
        && digits(head)
        && !head.starts_with('0')
        && rest.all(|part| {
            digits(part) && part.len() <= 2 && part.parse::<u32>().is_ok_and(|n| n < 60)
        })
    {
        return Some(format!(
            "YAML 1.1 parsers read `{value}` as a base-60 number; YAML 1.2 parsers as text"
        ));
    }
    let date = value.get(..4).is_some_and(digits)
        && value.get(4..5) == Some("-")
        && value.get(5..7).is_some_and(digits)
        && value.get(7..8) == Some("-")
        && value.get(8..10).is_some_and(digits);
    if date {
        return Some(format!(
            "YAML 1.1 parsers read `{value}` as a date, YAML 1.2 parsers as text"
        ));
    }
    // A number whose text changes when read: `1.0` and `2.50` come back as `1` and `2.5` from
    // JavaScript parsers (Claude Code's) and as `1.0` and `2.5` from Python's.
    if let Some((whole, fraction)) = unsigned.split_once('.')
        && digits(whole)
        && digits(fraction)
        && fraction.ends_with('0')
    {
        return Some(format!(
            "YAML parsers read `{value}` as a number, which JavaScript prints as `{}` and Python as `{}`",
            js_number(unsigned),
            py_number(unsigned)
        ));
    }
    if let Some((mantissa, exponent)) = lower.split_once('e')
        && !mantissa.contains('.')
        && digits(unsigned.split(['e', 'E']).next().unwrap_or_default())
        && digits(exponent.strip_prefix(['+', '-']).unwrap_or(exponent))
    {
        return Some(format!(
            "YAML 1.2 parsers read `{value}` as a number, YAML 1.1 parsers as text"
        ));
    }
    None
}

/// What one simple command needs.
enum Rule {
    /// Not a command (a keyword, an option continued from a line above, a blank).
    None,
    /// Code given inline (`python3 -c …`, `eval`): no narrow rule covers it.
    Arbitrary,
    /// A `Bash(…:*)` rule's prefix.
    Narrow(String),
}

/// Shell words that are not programs.
const SHELL_WORDS: &[&str] = &[
    "for", "while", "until", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac",
    "function", "in", "{", "}", "(", ")", "[[", "]]", "[", "]", "time", "!", "return", "exit",
    "local", "export", "set", "unset", "shift", "break", "continue", "true", "false", "echo",
    "printf", "cd", "read", "test", "source", ".", "command", "which", "type", "def", "class",
    "import", "from", "let", "const", "var",
];

/// The rule one simple command (a pipeline's part) needs.
fn command_rule(segment: &str) -> Rule {
    let mut words = segment.split_whitespace().peekable();
    // `X=1 cmd`, and `X=$(cmd …)` whose command is what runs.
    while let Some(word) = words.peek() {
        if let Some((_, value)) = word.split_once('=')
            && !word.starts_with('-')
        {
            if let Some(inner) = value.strip_prefix("$(") {
                let rest: Vec<&str> = std::iter::once(inner).chain(words.skip(1)).collect();
                return command_rule(&rest.join(" "));
            }
            words.next();
        } else {
            break;
        }
    }
    // `if pgrep x; then`, `! grep …`, `time make`: the command follows the keyword.
    while words.peek().is_some_and(|word| {
        matches!(
            *word,
            "if" | "while" | "until" | "then" | "do" | "else" | "elif" | "!" | "time"
        )
    }) {
        words.next();
    }
    let Some(program) = words.next() else {
        return Rule::None;
    };
    // `"$DH" new`, `$APPLY check`, `${RUN}`: a program only known when it runs.
    if program
        .trim_start_matches(['"', '\'', '('])
        .starts_with('$')
        && !program.starts_with("$(")
    {
        return Rule::Arbitrary;
    }
    let program = program
        .trim_start_matches(['(', '$'])
        .trim_start_matches('(');
    if program.is_empty()
        || SHELL_WORDS.contains(&program)
        || program.starts_with(['-', '"', '\'', '}', ')', '<', '>', '`'])
        || program.starts_with(|c: char| c.is_ascii_digit())
        // `N`, `PROMPT`: a placeholder or a variable's name, not a program.
        || !program.chars().any(|c| c.is_ascii_lowercase())
        || !program
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '$' | '{' | '}' | '~'))
    {
        return Rule::None;
    }
    // `env X=1 cmd`, `/usr/bin/env bash`: what runs is what follows (options and
    // assignments skipped, however many `env`s).
    let mut program = program;
    while program.rsplit('/').next() == Some("env") {
        match words.find(|word| !word.starts_with('-') && !word.contains('=')) {
            Some(next) => program = next,
            None => return Rule::None,
        }
    }
    // `/usr/bin/python3` is `python3`.
    let base = program.rsplit('/').next().unwrap_or(program);
    let program = if RUNS_ANYTHING.contains(&base) {
        base
    } else {
        program
    };
    // `siteMap`, `proxyHistory`: an argument shown on its own, not a program.
    if program.chars().any(|c| c.is_ascii_uppercase()) && !program.contains(['/', '.']) {
        return Rule::None;
    }
    // `{baseUrl}/api/v1`: a template, not a program.
    if program.starts_with('{') {
        return Rule::None;
    }
    // `report-OWNER-YYYYMMDD.md`, `plan.json`: a file shown in a block, not a program.
    let lower = program.to_ascii_lowercase();
    if [
        ".md", ".json", ".yaml", ".yml", ".txt", ".csv", ".html", ".log", ".xml", ".toml",
    ]
    .iter()
    .any(|ext| lower.ends_with(ext))
    {
        return Rule::None;
    }
    // What Claude Code runs without asking (`head`, `jq`, `grep`, `git status`) needs no rule.
    if matches!(
        Permissions::new::<&str>(&[]).verdict(segment.trim()),
        crate::agent::claude_code::shell::Verdict::Runs(_)
    ) {
        return Rule::None;
    }
    if !RUNS_ANYTHING.contains(&program) {
        return Rule::Narrow(program.to_owned());
    }
    let rest: Vec<&str> = words.collect();
    interpreter_rule(program, &rest, segment)
}

/// The rule for an interpreter or runner `program` (one of [`RUNS_ANYTHING`]) given
/// `rest_words`: it counts with what it runs (`python3 scripts/x.py`, `uv run x`,
/// `python3 -m json.tool`). Options before that (`uv run --with …`) make the rule guesswork.
fn interpreter_rule(program: &str, rest_words: &[&str], segment: &str) -> Rule {
    if let [flag, module, ..] = rest_words
        && *flag == "-m"
    {
        return Rule::Narrow(format!("{program} -m {module}"));
    }
    let first_is_run = rest_words
        .first()
        .is_some_and(|word| *word == "run" || *word == "exec");
    let after_run = if first_is_run {
        &rest_words[1..]
    } else {
        rest_words
    };
    if after_run
        .first()
        .is_some_and(|word| word.starts_with('-') && *word != "-")
    {
        return Rule::Arbitrary;
    }
    let mut rest = rest_words.iter().copied();
    let Some(mut what) = rest.next() else {
        return Rule::Arbitrary;
    };
    // A heredoc or a redirect feeds it code written inline; a variable names a script only
    // known when it runs.
    let unquoted = what.trim_start_matches(['"', '\'']);
    if what.starts_with('<') || unquoted.starts_with('$') {
        return Rule::Arbitrary;
    }
    if what == "run" || what == "exec" {
        let Some(next) = rest.next() else {
            return Rule::Arbitrary;
        };
        return Rule::Narrow(format!("{program} {what} {next}"));
    }
    if segment
        .split_whitespace()
        .any(|word| word == "-c" || word == "-e")
    {
        return Rule::Arbitrary;
    }
    what = what.trim_matches(['"', '\'']);
    Rule::Narrow(format!("{program} {what}"))
}

/// Programs that run whatever they are given: a rule for them is as broad as `Bash`.
const RUNS_ANYTHING: &[&str] = &[
    "eval",
    "exec",
    "xargs",
    "env",
    "sudo",
    "sh",
    "bash",
    "zsh",
    "python",
    "python3",
    "node",
    "uv",
    "npx",
    "bunx",
    "bun",
    "deno",
    "ruby",
    "perl",
    "pwsh",
    "powershell",
    // Wrappers that run the command they are given: `doppler run --command=…`,
    // `op run -- …`, `timeout 60 make`.
    "doppler",
    "op",
    "aws-vault",
    "dotenv",
    "timeout",
    "nohup",
    "nice",
    "watch",
    "stdbuf",
];

/// Whether an argument placeholder asks the user for arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    /// `$ARGUMENTS`, `$ARGUMENTS[0]`, or `$1` inside a command shown in inline code.
    Yes,
    /// A lone `$N` in prose: an argument, or a price.
    Maybe,
    /// Money (`$25,000`), a spreadsheet cell (`B$6`), a shell block's own `$1`, or the
    /// placeholder named in a sentence about placeholders.
    No,
}

/// How the placeholder `text` at `at` in `body` reads.
fn ask(cx: &LintContext<'_>, body: &str, at: usize, text: &str) -> Ask {
    let line = super::line_before(body, at);
    // A heading that names it ("### Using $ARGUMENTS"), an example of another file in a
    // Markdown or YAML block, or a sentence saying it is unused: not a use.
    let rest = super::line_after(body, at + text.len());
    if line.trim_start().starts_with('#')
        || in_example_fence(cx, cx.body_start + at)
        || rest.trim_start().starts_with("(unused")
    {
        return Ask::No;
    }
    let in_code = line.matches('`').count() % 2 == 1;
    // The code span around it: the placeholder alone in it is named, in a sentence about
    // placeholders ("`$ARGUMENTS` expands to…"), or used ("read `$ARGUMENTS[0]`").
    // The code span, when `at` is in one: placeholders alone in it (`$ARGUMENTS`,
    // `$1 $2 $3`) are named; with a command around them they are used.
    let span_alone = in_code && {
        let opened = line.rfind('`').map_or(0, |at| at + 1);
        let after = &body[at..];
        let closed = after.find('`').unwrap_or(after.len());
        let span = format!("{}{}", &line[opened..], &after[..closed]);
        span.split_whitespace()
            .all(|word| word.starts_with('$') || word == "…" || word == "...")
    };
    if in_code && span_alone {
        let sentence = format!(
            "{}{}",
            super::sentence_before(body, at),
            super::line_after(body, at + text.len())
        )
        .to_lowercase();
        // A table row naming it (`| `$ARGUMENTS` | all arguments |`) documents it too.
        let about = line.trim_start().starts_with('|')
            || [
                "placeholder",
                "substitut",
                "expand",
                "variable",
                "replaced",
                "syntax",
                "format",
                "not `$",
                "$arguments`,",
                "`$0`",
                "`$1`,",
            ]
            .iter()
            .any(|word| sentence.contains(word));
        if about {
            return Ask::No;
        }
    }
    if text.starts_with("$ARGUMENTS") {
        return Ask::Yes;
    }
    let digits = &text[1..];
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return Ask::No;
    }
    let after = body[at + text.len()..].chars().take(2).collect::<String>();
    let money = digits.len() > 1
        || (after.starts_with([',', '.', '-'])
            && after[1..].starts_with(|c: char| c.is_ascii_digit()));
    let cell = body[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if money || cell || cx.in_fence(cx.body_start + at) {
        return Ask::No;
    }
    if in_code && !span_alone {
        // `awk '{print $1}'`: the field of another tool's program, not an argument.
        let span = line.rsplit('`').next().unwrap_or(line);
        if ["awk", "sed", "perl", "'{", "\"{"]
            .iter()
            .any(|tool| span.contains(tool))
        {
            return Ask::No;
        }
        // `git checkout $1` in backticks is a command using the first argument.
        return Ask::Yes;
    }
    if in_code || !priced(line, rest) {
        Ask::Maybe
    } else {
        Ask::No
    }
}

/// Whether a `$N` in prose, with `before` and `after` it on its line, is money: a unit or a
/// range right after it (`$5/mo`, `$2K`, `$0–$2K`), or a line about prices ("plans cost",
/// "per month", "budget").
fn priced(before: &str, after: &str) -> bool {
    if after.starts_with(['–', '—', '/', '+', '%', 'k', 'K', 'm', 'M', 'b', 'B']) {
        return true;
    }
    let line = format!("{before}{after}").to_lowercase();
    [
        "cost", "price", "pricing", "plan", "trial", "month", "/mo", "year", "budget", "pay",
        "fee", "credit", "charge", "spend", "usd", "dollar", "cent", "revenue", "mrr", "arr",
        "salary", "invoice", "discount",
    ]
    .iter()
    .any(|word| line.contains(word))
}

/// Whether `offset` (in the text) is in a fenced block of Markdown, YAML or plain text: an
/// example of another file, such as a SKILL.md the skill teaches how to write.
fn in_example_fence(cx: &LintContext<'_>, offset: usize) -> bool {
    let text = cx.text();
    let after = cx.fences.partition_point(|fence| fence.start <= offset);
    after
        .checked_sub(1)
        .map(|index| &cx.fences[index])
        .filter(|fence| fence.contains(&offset))
        .is_some_and(|fence| {
            let language = super::fence_language(&text[fence.clone()]);
            ["markdown", "md", "yaml", "yml", "text", "txt", "mdx"].contains(&language.as_str())
        })
}

/// The narrow `Bash(…)` rules that would cover every command the body shows (in shell code
/// blocks and inline `!` commands), when there are at most three: `git`, or an interpreter with
/// its script (`python3 scripts/run.py`). `None` when the commands are many, or run arbitrary
/// code.
fn narrow_rules(cx: &LintContext<'_>) -> Option<Vec<String>> {
    let mut rules: Vec<String> = Vec::new();
    // Inline shell (`` !`cmd` ``), as Claude Code finds it.
    let inline: Vec<String> = crate::agent::claude_code::shell::inline_commands(cx.body())
        .into_iter()
        .map(|found| found.command)
        .collect();
    // Each block's lines: a heredoc or a continued line ends with its block.
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    // SKILL.md's own blocks: reference documents also show commands the skill's tools run for
    // the user, and on published skills counting them lost more real findings than it saved.
    let text = cx.text();
    for fence in &cx.fences {
        let block = &text[fence.clone()];
        let language = super::fence_language(block);
        let body = block.lines().skip(1).filter(|line| {
            !line.trim_start().starts_with("```") && !line.trim_start().starts_with("~~~")
        });
        if language.is_empty() {
            // A block with no language is shell only where it reads as commands: pseudocode
            // (`next_action != same_action`, `a -> b`) is not run.
            let lines: Vec<&str> = body.collect();
            let pseudocode = lines.iter().any(|line| {
                [" != ", " == ", " -> ", " → ", " := ", " <- "]
                    .iter()
                    .any(|mark| line.contains(mark))
            });
            if !pseudocode {
                blocks.push(lines);
            }
        } else if ["bash", "sh", "shell", "zsh", "!"].contains(&language.as_str()) {
            blocks.push(body.collect());
        } else if language == "console" {
            // A terminal session: commands after the prompt, output otherwise.
            blocks.push(
                body.filter(|line| line.trim_start().starts_with("$ "))
                    .collect(),
            );
        }
    }
    for command in &inline {
        blocks.push(vec![command.as_str()]);
    }
    for block in blocks {
        if !block_rules(cx, &block, &mut rules) {
            return None;
        }
    }
    // A rule naming `{baseDir}` is one the agent must expand before it can match.
    if rules
        .iter()
        .any(|rule| rule.contains("{baseDir}") || rule.contains('$'))
    {
        return None;
    }
    // Code in another language for the agent to run, or a request to write and run its own
    // script: the skill needs a shell for more than the commands it shows.
    let writes_code = cx.fences.iter().any(|fence| {
        let language = super::fence_language(&text[fence.clone()]);
        [
            "python",
            "py",
            "python3",
            "javascript",
            "js",
            "typescript",
            "ts",
            "ruby",
            "rb",
            "node",
        ]
        .contains(&language.as_str())
    });
    let body = cx.body().to_lowercase();
    let writes_scripts = [
        "write a script",
        "write and run",
        "write your own script",
        "create a script",
        "write a python",
        "write a small script",
        "inline script",
        "ad-hoc script",
    ]
    .iter()
    .any(|phrase| body.contains(phrase));
    if writes_code || writes_scripts {
        return None;
    }
    (!rules.is_empty()).then_some(rules)
}

/// Adds to `rules` what the commands of one block need; `false` when one cannot be narrowed
/// or there are too many.
fn block_rules(cx: &LintContext<'_>, block: &[&str], rules: &mut Vec<String>) -> bool {
    const MAX_RULES: usize = 3;
    let mut heredoc: Option<String> = None;
    let mut continued = false;
    for &line in block {
        let line = line.trim();
        // A heredoc's body and a line continued from the one before are not commands.
        if let Some(delimiter) = &heredoc {
            if line == delimiter {
                heredoc = None;
            }
            continue;
        }
        let was_continued = std::mem::replace(&mut continued, line.ends_with('\\'));
        if was_continued {
            continue;
        }
        // `<<<` is a here-string and `$((1 << 2))` arithmetic: neither opens a heredoc.
        if let Some((_, rest)) = line.split_once("<<")
            && !rest.starts_with('<')
            && !line.contains("((")
        {
            let delimiter = rest
                .trim_start_matches(['-', '~'])
                .trim()
                .trim_matches(['\'', '"'])
                .split_whitespace()
                .next()
                .unwrap_or_default();
            if !delimiter.is_empty() {
                heredoc = Some(delimiter.trim_matches(['\'', '"']).to_owned());
            }
        }
        let line = line.trim_start_matches("$ ").trim();
        if line.starts_with('#') {
            continue;
        }
        // `cmd  # blocks until done; then …`: what follows ` #` is a comment, not commands.
        let line = line
            .split_once(" #")
            .map_or(line, |(command, _)| command)
            .trim_end();
        // A command substituted inside another (`--root "$(plugin-root)"`) runs too.
        let segments = line.split(['|', ';', '&']).flat_map(|segment| {
            segment
                .split("$(")
                .map(|part| part.trim_end_matches([')', '"']))
        });
        for segment in segments {
            match command_rule(segment) {
                Rule::None => {}
                Rule::Arbitrary => return false,
                // A path to a script this skill does not have: the rule cannot be written.
                Rule::Narrow(rule)
                    if rule.split_whitespace().any(|word| {
                        let path = word
                            .trim_start_matches("./")
                            .trim_start_matches("${CLAUDE_SKILL_DIR}/")
                            .trim_start_matches("{baseDir}/");
                        path.starts_with("scripts/") && cx.bundle.get(path).is_none()
                    }) =>
                {
                    return false;
                }
                Rule::Narrow(rule) => {
                    if !rules.contains(&rule) {
                        rules.push(rule);
                        if rules.len() > MAX_RULES {
                            return false;
                        }
                    }
                }
            }
        }
    }
    true
}

/// The tools of `allowed-tools`, split as Claude Code splits them (on spaces and commas outside
/// parentheses), each with its span (the value's span when the text cannot be mapped).
fn tool_items(cx: &LintContext<'_>, field: &Field<ToolList>) -> Vec<(String, Range<usize>)> {
    match &field.value {
        Ok(ToolList::List(items)) => items
            .iter()
            .flat_map(|item| {
                tool_ranges(&item.value).into_iter().map(|found| {
                    (
                        item.value[found.clone()].to_owned(),
                        super::span_in_value(cx.text(), &item.span, &item.value, found),
                    )
                })
            })
            .collect(),
        Ok(ToolList::Text(text)) => {
            // Whether the value is written as it reads, compared once for all its tools.
            let plain = cx.text().get(field.span.clone()) == Some(text.as_str());
            tool_ranges(text)
                .into_iter()
                .map(|found| {
                    let span = if plain {
                        field.span.start + found.start..field.span.start + found.end
                    } else {
                        field.span.clone()
                    };
                    (text[found].to_owned(), span)
                })
                .collect()
        }
        Err(_) => Vec::new(),
    }
}

/// A legacy command beside the skill with its name, which Claude Code hides behind the skill.
fn check_shadowed_command(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    // Where it is, whatever way it was named (`.` from inside the skill).
    let dir = fs_err::canonicalize(&cx.skill.dir).unwrap_or_else(|_| cx.skill.dir.clone());
    let in_skills_folder = dir
        .parent()
        .filter(|skills| skills.file_name().is_some_and(|name| name == "skills"))
        .and_then(std::path::Path::parent)
        .filter(|claude| claude.file_name().is_some_and(|name| name == ".claude"));
    let Some(claude) = in_skills_folder else {
        return;
    };
    let name = &cx.skill.dir_name;
    let command = claude.join("commands").join(format!("{name}.md"));
    if fs_err::metadata(&command).is_ok_and(|meta| meta.is_file()) {
        // The `name` value, or else the start of the file (an empty span: nothing to slice).
        let span = cx
            .doc
            .and_then(|doc| doc.name.as_deref())
            .map_or(0..0, |field| field.span.clone());
        out.push(
            Diagnostic::warning(
                &COMMAND_SHADOWED,
                format!("the legacy command `.claude/commands/{name}.md` has this skill's name"),
            )
            .at(span)
            .note(format!("Claude Code lists commands beside skills, and the skill wins: the command is neither listed nor runnable as `/{name}`"))
            .help("rename or remove one of them (a skill can do everything a command can)"),
        );
    }
}

/// Claude Code only: tool names, and `$ARGUMENTS` placeholders.
pub(super) fn check_claude_code(cx: &LintContext<'_>, _target: Target, out: &mut Vec<Diagnostic>) {
    check_shadowed_command(cx, out);
    let Some(doc) = cx.doc else {
        return;
    };
    if let Some(field) = &doc.allowed_tools {
        for (tool, span) in tool_items(cx, field) {
            let name = tool.split('(').next().unwrap_or(&tool);
            if name == "*"
                || name.starts_with("mcp__")
                || name.contains(':')
                || CLAUDE_CODE_TOOLS.contains(&name)
            {
                continue;
            }
            let mut diagnostic = Diagnostic::warning(
                &UNKNOWN_TOOL,
                format!("Claude Code has no tool named `{name}`"),
            )
            .at(span)
            .note(
                "an unknown tool in `allowed-tools` is ignored, so the permission is never granted",
            );
            if let Some(close) = CLAUDE_CODE_TOOLS
                .iter()
                .filter(|known| {
                    strsim::damerau_levenshtein(
                        &known.to_ascii_lowercase(),
                        &name.to_ascii_lowercase(),
                    ) <= 2
                        || known.eq_ignore_ascii_case(name)
                })
                .min_by_key(|known| strsim::damerau_levenshtein(known, name))
            {
                diagnostic = diagnostic.help(format!("did you mean `{close}`?"));
            }
            out.push(diagnostic);
        }
    }
    arguments(cx, out);
}

fn arguments(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let Some(doc) = cx.doc else {
        return;
    };
    let body = cx.body();
    let placeholders = placeholders(body);
    let asking: Vec<(&(usize, &str), Ask)> = placeholders
        .iter()
        .map(|found| (found, ask(cx, body, found.0, found.1)))
        .filter(|(_, ask)| *ask != Ask::No)
        .collect();
    // A lone `$5` in prose is as often a price ("minimum $5"), which Claude Code leaves as
    // written when no fifth word is typed: two different indexes (`$1` and `$2`) are needed
    // to read such words as arguments.
    let indexes: std::collections::BTreeSet<&str> = asking
        .iter()
        .filter(|(_, ask)| *ask == Ask::Maybe)
        .map(|((_, text), _)| *text)
        .collect();
    let first = asking
        .iter()
        .find(|(_, ask)| *ask == Ask::Yes || indexes.len() >= 2)
        .map(|(found, _)| *found);
    // The hint is shown where the user types the skill's name; a skill only the model may
    // invoke has nobody to show it to.
    let user_invocable = doc
        .user_invocable
        .as_deref()
        .is_none_or(|field| field.value != Ok(false));
    if doc.argument_hint.is_none()
        && user_invocable
        && let Some((at, text)) = first
    {
        let start = cx.body_start + at;
        let mut diagnostic = Diagnostic::warning(
            &ARGUMENTS_WITHOUT_HINT,
            format!("the body uses `{text}`, but the frontmatter has no `argument-hint`"),
        )
        .at(start..start + text.len())
        .help("add `argument-hint:` describing what to type after the skill's name, e.g. `argument-hint: [file] [format]`");
        if cx.in_fence(start) {
            diagnostic = diagnostic.note("Claude Code substitutes it even inside code blocks; write `\\$` to keep a literal `$`");
        } else {
            diagnostic = diagnostic
                .note("Claude Code replaces it with what the user typed after `/skill-name`");
        }
        out.push(diagnostic);
    }
    let Some(Field {
        value: Ok(names), ..
    }) = doc.arguments.as_deref()
    else {
        return;
    };
    let used: std::collections::HashSet<&str> =
        placeholders.iter().map(|(_, text)| &text[1..]).collect();
    let declared: std::collections::HashSet<&str> =
        names.iter().map(|name| name.value.as_str()).collect();
    for name in names {
        if !used.contains(name.value.as_str()) {
            out.push(
                Diagnostic::warning(
                    &UNUSED_ARGUMENT,
                    format!(
                        "argument `{}` is declared but `${}` never appears in the body",
                        name.value, name.value
                    ),
                )
                .at(name.span.clone())
                .help(format!(
                    "use `${}` where the value belongs, or remove it from `arguments`",
                    name.value
                )),
            );
        }
    }
    for (at, found) in &placeholders {
        let word = &found[1..];
        let is_name = word.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
        if is_name && !declared.contains(word) {
            let start = cx.body_start + at;
            out.push(
                Diagnostic::warning(
                    &UNDECLARED_ARGUMENT,
                    format!("`{found}` is not one of the declared `arguments`"),
                )
                .at(start..start + found.len())
                .note("Claude Code leaves it as literal text")
                .help(format!("add `{word}` to `arguments`, or write `\\{found}`")),
            );
        }
    }
}

/// `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` and `$name` placeholders in `body` (not escaped, not
/// `${…}`), with their offsets.
fn placeholders(body: &str) -> Vec<(usize, &str)> {
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    for (at, _) in body.match_indices('$') {
        if at > 0 && bytes[at - 1] == b'\\' {
            continue;
        }
        let rest = &body[at + 1..];
        let len = if let Some(after) = rest.strip_prefix("ARGUMENTS") {
            // `[` digits `]`: counted, not searched for, so unclosed brackets cost nothing.
            let digits = after
                .strip_prefix('[')
                .map(|inner| (inner, inner.bytes().take_while(u8::is_ascii_digit).count()));
            match digits {
                Some((inner, end)) if end > 0 && inner.as_bytes().get(end) == Some(&b']') => {
                    "ARGUMENTS".len() + end + 2
                }
                _ => "ARGUMENTS".len(),
            }
        } else if rest.starts_with(|c: char| c.is_ascii_digit()) {
            rest.chars().take_while(char::is_ascii_digit).count()
        } else if rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .count()
        } else {
            continue;
        };
        // `$1abc` is not a placeholder (Claude Code requires no word character after `$N`).
        let next = rest[len..].chars().next();
        if next.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        out.push((at, &body[at..=at + len]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_tools_like_claude_code() {
        let text = "Bash(git add:*), Read  Write";
        let parts: Vec<&str> = tool_ranges(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(parts, ["Bash(git add:*)", "Read", "Write"]);
    }

    #[test]
    fn only_values_yaml_parsers_read_differently() {
        for same in [
            "12876", "1.0.0", "1.5", "true", "null", "0", "v1", "0x1F", "-3",
        ] {
            assert_eq!(disagreement(same), None, "{same}");
        }
        for differs in [
            "yes",
            "Off",
            "y",
            "0755",
            "0o17",
            "1_000",
            "1:30",
            "2024-01-15",
            "1e3",
            "1.0",
            "2.50",
        ] {
            assert!(disagreement(differs).is_some(), "{differs}");
        }
    }

    #[test]
    fn commands_and_the_rules_they_need() {
        let narrow = |segment: &str| match command_rule(segment) {
            Rule::Narrow(rule) => Some(rule),
            _ => None,
        };
        assert_eq!(narrow("gh api repos/x --jq .name").as_deref(), Some("gh"));
        assert_eq!(
            narrow("python3 scripts/run.py --in a").as_deref(),
            Some("python3 scripts/run.py")
        );
        assert_eq!(
            narrow("uv run scripts/x.py").as_deref(),
            Some("uv run scripts/x.py")
        );
        assert_eq!(narrow("X=$(gh pr list)").as_deref(), Some("gh"));
        // Read-only commands need no rule; keywords, arguments and placeholders are no commands.
        for none in [
            "head -n 5",
            "jq .",
            "done",
            "--flag",
            "proxyHistory",
            "PROMPT",
            "2>",
        ] {
            assert!(matches!(command_rule(none), Rule::None), "{none}");
        }
        assert!(matches!(
            command_rule("python3 -c 'print(1)'"),
            Rule::Arbitrary
        ));
    }

    #[test]
    fn finds_placeholders() {
        let body =
            "Use $ARGUMENTS and $ARGUMENTS[1], $2, $file, ${CLAUDE_SKILL_DIR}, \\$3, $1x, $HOME.";
        let found: Vec<&str> = placeholders(body).into_iter().map(|(_, t)| t).collect();
        assert_eq!(found, ["$ARGUMENTS", "$ARGUMENTS[1]", "$2", "$file"]);
    }
}
