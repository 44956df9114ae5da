//! Lint rules about frontmatter values: ambiguous scalars, `allowed-tools`, arguments, `paths`.

use std::ops::Range;

use super::LintContext;
use crate::agent::Target;
use crate::agent::claude_code::shell::{Permissions, tool_ranges};
use crate::check::diagnostic::Diagnostic;
use crate::check::fix::{Applicability, Edit, Fix};
use crate::check::rule::{
    ALLOWED_TOOLS_FORMAT, ALLOWED_TOOLS_TOO_BROAD, AMBIGUOUS_SCALAR, ARGUMENTS_WITHOUT_HINT,
    COMMAND_SHADOWED, INVALID_PATHS_GLOB, NOT_INVOCABLE, UNDECLARED_ARGUMENT, UNKNOWN_TOOL,
    UNUSED_ARGUMENT,
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

/// Claude Code's tools, as its documentation lists them (2.1.x).
const CLAUDE_CODE_TOOLS: &[&str] = &[
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
];

pub(super) fn check(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let (Some(yaml), Some(doc)) = (cx.yaml, cx.doc) else {
        return;
    };
    for (key, node) in &doc.entries {
        if NON_TEXT_KEYS.contains(&key.value.as_str()) {
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
        tools_format(cx, yaml, field, out);
        for (tool, span) in tool_items(cx, field) {
            let bare = tool.split('(').next().unwrap_or(&tool);
            // What Claude Code allows with it (`Bash()` everything, `Bash(*:*)` nothing).
            let everything = tool == "*"
                || (bare == "Bash" && Permissions::new(&[tool.as_str()]).allows_every_command());
            if everything {
                out.push(
                    Diagnostic::warning(
                        &ALLOWED_TOOLS_TOO_BROAD,
                        format!("`{tool}` in `allowed-tools` lets the skill run any command without asking"),
                    )
                    .at(span)
                    .help("grant the commands the skill runs, e.g. `Bash(python3 ${CLAUDE_SKILL_DIR}/scripts/run.py:*)` or `Bash(git status:*)`"),
                );
            }
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
    }) = &doc.paths
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
            if scalar.style != Style::Plain
                || scalar.tagged
                || scalar.value.is_empty()
                || !yaml::is_ambiguous_plain(&scalar.value)
            {
                return;
            }
            let span = resolved.span.clone();
            let mut diagnostic = Diagnostic::warning(
                &AMBIGUOUS_SCALAR,
                format!(
                    "`{key}: {}` reads differently in different YAML parsers",
                    scalar.value
                ),
            )
            .at(span.clone())
            .note(ambiguity_note(&scalar.value))
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

fn ambiguity_note(value: &str) -> String {
    let lower = value.to_ascii_lowercase();
    if matches!(lower.as_str(), "yes" | "no" | "on" | "off" | "y" | "n") {
        format!("YAML 1.1 parsers (PyYAML, many Go and Ruby libraries) read `{value}` as a boolean")
    } else if matches!(lower.as_str(), "~" | "null") {
        format!("YAML parsers read `{value}` as an empty value, not text")
    } else if matches!(lower.as_str(), "true" | "false") {
        format!("YAML parsers read `{value}` as a boolean")
    } else {
        format!("some YAML parsers read `{value}` as a number or a date (`1.10` becomes 1.1)")
    }
}

/// `allowed-tools` as a YAML list or with commas: the spec wants one space-separated string.
fn tools_format(
    cx: &LintContext<'_>,
    yaml: &Yaml,
    field: &Field<ToolList>,
    out: &mut Vec<Diagnostic>,
) {
    let items: Vec<String> = tool_items(cx, field)
        .into_iter()
        .map(|(tool, _)| tool)
        .collect();
    let joined = items.join(" ");
    match &field.value {
        Ok(ToolList::List(_)) => {
            let node = yaml.node(field.node);
            let range = field.key.end..node.span.end;
            let mut diagnostic = Diagnostic::warning(
                &ALLOWED_TOOLS_FORMAT,
                "`allowed-tools` is a YAML list; the spec defines a space-separated string",
            )
            .at(field.span.clone())
            .help(format!("write `allowed-tools: {}`", yaml::scalar(&joined)));
            // Only when nothing but the list is replaced: no comments inside it.
            let replaced = cx.text().get(range.clone()).unwrap_or_default();
            if !items.is_empty() && replaced.starts_with(':') && !replaced.contains('#') {
                diagnostic = diagnostic.fix(Fix::safe(
                    "write the list as a space-separated string",
                    vec![Edit {
                        range,
                        text: format!(": {}", yaml::scalar(&joined)),
                    }],
                ));
            }
            out.push(diagnostic);
        }
        Ok(ToolList::Text(text)) if has_separating_comma(text) => {
            let mut diagnostic = Diagnostic::warning(
                &ALLOWED_TOOLS_FORMAT,
                "`allowed-tools` is comma-separated; the spec defines a space-separated string",
            )
            .at(field.span.clone())
            .help(format!("write `allowed-tools: {}`", yaml::scalar(&joined)));
            if cx.text().get(field.span.clone()) == Some(text.as_str()) {
                diagnostic = diagnostic.fix(Fix::replace(
                    Applicability::Safe,
                    "separate the tools with spaces",
                    field.span.clone(),
                    yaml::scalar(&joined),
                ));
            }
            out.push(diagnostic);
        }
        _ => {}
    }
}

fn has_separating_comma(text: &str) -> bool {
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return true,
            _ => {}
        }
    }
    false
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
            .and_then(|doc| doc.name.as_ref())
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
    if doc.argument_hint.is_none()
        && let Some((at, text)) = placeholders.iter().find(|(_, text)| {
            text.starts_with("$ARGUMENTS") || text[1..].starts_with(|c: char| c.is_ascii_digit())
        })
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
    }) = &doc.arguments
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
        assert!(has_separating_comma("Read, Write"));
        assert!(!has_separating_comma("Bash(a,b) Read"));
    }

    #[test]
    fn finds_placeholders() {
        let body =
            "Use $ARGUMENTS and $ARGUMENTS[1], $2, $file, ${CLAUDE_SKILL_DIR}, \\$3, $1x, $HOME.";
        let found: Vec<&str> = placeholders(body).into_iter().map(|(_, t)| t).collect();
        assert_eq!(found, ["$ARGUMENTS", "$ARGUMENTS[1]", "$2", "$file"]);
    }
}
