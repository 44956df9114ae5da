//! Rules about the frontmatter's structure and YAML.

use std::borrow::Cow;
use std::ops::Range;

use super::{fallback_tail, yaml_quote};
use crate::agent::{Family, Target};
use crate::check::diagnostic::Diagnostic;
use crate::check::fix::{Applicability, Fix};
use crate::check::rule::{
    DUPLICATE_KEY, EMPTY_FRONTMATTER, FRONTMATTER_CUT, FRONTMATTER_NOT_MAPPING,
    MISSING_FRONTMATTER, STRICT_YAML, Severity, TAB_INDENTATION, UNCLOSED_FRONTMATTER, YAML_SYNTAX,
};
use crate::skill::frontmatter::{Region, Split};
use crate::skill::model::SkillDoc;
use crate::skill::text::SourceText;
use crate::skill::yaml::{Feature, Yaml, YamlError, YamlErrorKind};
use crate::skill::{Reading, Skill};

use super::Context;

/// The frontmatter parsed into a mapping, as this target reads it.
pub(super) struct Parsed<'a> {
    pub yaml: Cow<'a, Yaml>,
    pub doc: Cow<'a, SkillDoc>,
}

const CUT_NOTE: &str = "Claude Code and skills-ref end the frontmatter at the first `---` anywhere, even inside a quoted value";
const CUT_HELP: &str = "rephrase without `---` (an em dash `—` reads the same)";

/// Reports a `---` where an agent stops reading the frontmatter earlier than skillpkg does.
pub(super) fn check_cut(
    source: &SourceText,
    target: Target,
    reading: &Reading,
    canonical: &Reading,
    out: &mut Vec<Diagnostic>,
) {
    let text = source.text();
    match target.family() {
        Family::ClaudeCode { .. } | Family::SkillsRef => {
            let Some(theirs) = reading.region() else {
                return;
            };
            let agent = target.display();
            match canonical.region() {
                Some(ours) if theirs.close.start < ours.close.start => {
                    // skills-ref's verdict decides the severity once all its rules have run.
                    let severity = if target.family() == Family::SkillsRef {
                        Severity::Warning
                    } else {
                        Severity::Error
                    };
                    let what = cut_consequence(source, reading);
                    out.push(
                        Diagnostic::new(
                            &FRONTMATTER_CUT,
                            severity,
                            format!("{agent} ends the frontmatter at this `---`{what}"),
                        )
                        .at(theirs.close.clone())
                        .label("this agent cuts your frontmatter here")
                        .note(CUT_NOTE)
                        .help(CUT_HELP),
                    );
                }
                Some(_) => {}
                None => out.push(
                    Diagnostic::warning(
                        &FRONTMATTER_CUT,
                        format!(
                            "{agent} reads frontmatter up to this `---`, but its opening or closing line is not exactly `---`"
                        ),
                    )
                    .at(theirs.close.clone())
                    .label(format!("{agent} ends the frontmatter here"))
                    .help("put `---` alone on the first line and on the line that ends the frontmatter"),
                ),
            }
        }
        Family::Spec | Family::ClaudeAi => {
            let Some(ours) = canonical.region() else {
                return;
            };
            if let Some(at) = text[ours.yaml.clone()].find("---") {
                let start = ours.yaml.start + at;
                out.push(
                    Diagnostic::warning(
                        &FRONTMATTER_CUT,
                        "Claude Code and skills-ref end the frontmatter at this `---`",
                    )
                    .at(start..start + 3)
                    .label("these agents cut your frontmatter here")
                    .note(CUT_NOTE)
                    .help(CUT_HELP),
                );
            }
        }
    }
}

/// ", so it sees broken YAML" and the like.
fn cut_consequence(source: &SourceText, reading: &Reading) -> String {
    match &reading.yaml {
        Some(Err(_)) => ", so it sees broken YAML".into(),
        Some(Ok(_)) => {
            let Some(region) = reading.region() else {
                return String::new();
            };
            let text = source.text();
            let line_start = text[..region.close.start].rfind('\n').map_or(0, |i| i + 1);
            let kept = text[line_start..region.close.start].trim_end();
            if kept.is_empty() {
                String::new()
            } else {
                format!(", so it reads this line only as `{kept}`")
            }
        }
        None => String::new(),
    }
}

/// Under skills-ref, a cut is an error exactly when skills-ref's reading is invalid.
pub(super) fn settle_skills_ref_cut(out: &mut [Diagnostic]) {
    let invalid = out
        .iter()
        .any(|d| d.severity == Severity::Error && d.rule != &FRONTMATTER_CUT);
    if invalid {
        for diagnostic in out.iter_mut().filter(|d| d.rule == &FRONTMATTER_CUT) {
            diagnostic.severity = Severity::Error;
        }
    }
}

/// Checks that the frontmatter exists, parses and is a mapping; returns it when it is.
pub(super) fn check<'a>(
    skill: &Skill,
    source: &SourceText,
    target: Target,
    reading: &'a Reading,
    out: &mut Vec<Diagnostic>,
) -> Option<Parsed<'a>> {
    let region = match &reading.split {
        Split::Missing => {
            if !(source.had_bom() && reading.reader.bom_hides_frontmatter) {
                out.push(missing(skill, source, target, reading));
            }
            return None;
        }
        Split::Unclosed { open } => {
            out.push(
                Diagnostic::error(&UNCLOSED_FRONTMATTER, "the frontmatter is never closed")
                    .at(open.clone())
                    .label("opened here")
                    .help("add a line containing only `---` after the last key"),
            );
            return None;
        }
        Split::Found(region) => region,
    };
    let fallback = || fallback_tail(claude_code_fallback(skill, reading).as_deref());
    let yaml: Cow<'a, Yaml> = match reading.yaml.as_ref()? {
        Ok(yaml) => Cow::Borrowed(yaml),
        Err(error) => {
            if target.is_claude_code() {
                if let Some(retried) = crate::agent::claude_code::reading::retry(source, region) {
                    // Claude Code quotes the values itself and parses again: the skill loads as
                    // written, so for Claude Code it is no finding; the targets that refuse it
                    // report it.
                    push_unless_syntax(out, yaml_error(source, region, error, Severity::Warning));
                    Cow::Owned(retried)
                } else {
                    out.push(yaml_error(source, region, error, Severity::Error).note(format!(
                        "Claude Code cannot parse it even after quoting values, so it ignores the whole frontmatter and {}",
                        fallback()
                    )));
                    return None;
                }
            } else if recovered_by(target, skill, source) {
                // The agent reads the skill anyway (its own repair or fallback).
                push_unless_syntax(out, yaml_error(source, region, error, Severity::Warning));
                return None;
            } else {
                out.push(yaml_error(source, region, error, Severity::Error));
                return None;
            }
        }
    };
    if yaml.root().is_none() {
        let diagnostic = if target.is_claude_code() {
            Diagnostic::warning(
                &EMPTY_FRONTMATTER,
                format!(
                    "the frontmatter is empty: Claude Code lists the skill as `{}`",
                    skill.dir_name
                ),
            )
            .note(format!("Claude Code {}", fallback()))
        } else {
            Diagnostic::error(&EMPTY_FRONTMATTER, "the frontmatter is empty")
        };
        out.push(
            diagnostic
                .at(region.open.clone())
                .label("frontmatter starts here")
                .help(format!(
                    "add `name: {}` and a `description:` that says what the skill does and when to use it",
                    skill.dir_name
                )),
        );
        return None;
    }
    let doc = match &yaml {
        Cow::Borrowed(_) => reading.doc.as_ref().map(Cow::Borrowed),
        Cow::Owned(yaml) => SkillDoc::from_yaml(yaml).map(Cow::Owned),
    };
    let Some(doc) = doc else {
        let root = yaml.root().map(|root| yaml.node(root));
        let found = root.map_or("nothing", |node| node.kind.describe());
        let span = root.map_or(region.yaml.clone(), |node| node.span.clone());
        let mut diagnostic = Diagnostic::error(
            &FRONTMATTER_NOT_MAPPING,
            format!("the frontmatter must be a mapping of keys to values, but it is {found}"),
        )
        .at(span)
        .label("expected `key: value` lines")
        .help("write each setting as `key: value` on its own line, starting with `name:` and `description:`");
        if target.is_claude_code() {
            diagnostic = diagnostic.note(format!("Claude Code ignores it and {}", fallback()));
        }
        out.push(diagnostic);
        return None;
    };
    Some(Parsed { yaml, doc })
}

/// Whether `target` loads the skill although its YAML does not parse, and how: Gemini CLI
/// falls back to reading the `name:` and `description:` lines (the only keys it uses), Codex quotes the values that
/// break YAML and parses again (`docs/agents.md`).
fn recovered_by(target: Target, skill: &Skill, source: &SourceText) -> bool {
    match target {
        Target::GeminiCli => crate::agent::gemini::split(source.text())
            .and_then(|(yaml, _)| crate::agent::gemini::scan(yaml))
            .is_some_and(|(name, description)| {
                !name.trim().is_empty() && !description.trim().is_empty()
            }),
        Target::Codex => crate::agent::codex::parse(source.text(), &skill.dir_name).is_ok(),
        _ => false,
    }
}

/// Reports what a recovered YAML error still means for the target (a tab, a key given twice),
/// but not the syntax error itself, which the target got past.
fn push_unless_syntax(out: &mut Vec<Diagnostic>, diagnostic: Diagnostic) {
    if !std::ptr::eq(diagnostic.rule, &raw const YAML_SYNTAX) {
        out.push(diagnostic);
    }
}

fn claude_code_fallback(skill: &Skill, reading: &Reading) -> Option<String> {
    crate::agent::claude_code::reading::fallback_line(skill.body(reading))
}

fn missing(skill: &Skill, source: &SourceText, target: Target, reading: &Reading) -> Diagnostic {
    let text = source.text();
    let first_line = source.line_range(1);
    let leading_blank = text.starts_with(['\n', ' ', '\t']);
    let dashes_later = text
        .lines()
        .skip(1)
        .take(5)
        .any(|line| line.trim_end() == "---");
    let fallback = fallback_tail(claude_code_fallback(skill, reading).as_deref());
    let diagnostic = if target.is_claude_code() && leading_blank && dashes_later {
        // The author wrote frontmatter, but not at the very start: Claude Code ignores it.
        Diagnostic::error(
            &MISSING_FRONTMATTER,
            "Claude Code sees no frontmatter: the opening `---` is not on the first line",
        )
        .note(format!(
            "Claude Code ignores `name` and `description` and {fallback}"
        ))
    } else if target.is_claude_code() {
        Diagnostic::warning(
            &MISSING_FRONTMATTER,
            format!(
                "SKILL.md has no frontmatter: Claude Code lists the skill as `{}`",
                skill.dir_name
            ),
        )
        .note(format!("Claude Code {fallback}"))
    } else {
        Diagnostic::error(
            &MISSING_FRONTMATTER,
            "SKILL.md does not start with YAML frontmatter",
        )
    };
    let diagnostic = diagnostic
        .at(first_line.start..first_line.end.max(first_line.start))
        .label("expected `---` here");
    if leading_blank && dashes_later {
        diagnostic
            .help("remove what comes before the opening `---`: it must be the very first line")
    } else {
        diagnostic
            .help("start the file with `---`, then `name:` and `description:` lines, then `---`")
    }
}

/// Turns a YAML error into a diagnostic with the most useful hint available.
fn yaml_error(
    source: &SourceText,
    region: &Region,
    error: &YamlError,
    severity: Severity,
) -> Diagnostic {
    let text = source.text();
    match &error.kind {
        YamlErrorKind::DuplicateKey { key, first } => Diagnostic::new(
            &DUPLICATE_KEY,
            severity,
            format!("duplicate key `{key}` in the frontmatter"),
        )
        .at(error.span.clone())
        .label("defined again here")
        .related(first.clone(), "first defined here")
        .help("keep only one of them"),
        YamlErrorKind::ExtraDocument => Diagnostic::new(
            &YAML_SYNTAX,
            severity,
            "invalid YAML: a document marker inside the frontmatter",
        )
        .at(error.span.clone())
        .label("YAML starts a second document here")
        .help("the frontmatter ends at a line containing only `---`; remove this marker or quote the text around it"),
        YamlErrorKind::TooDeep => Diagnostic::new(
            &YAML_SYNTAX,
            severity,
            "invalid YAML: the frontmatter is nested too deeply",
        )
        .at(error.span.clone()),
        YamlErrorKind::Syntax(message) => {
            if let Some(tab) = indentation_tab(text, region.yaml.start, error.span.start) {
                return Diagnostic::new(
                    &TAB_INDENTATION,
                    severity,
                    "the frontmatter is indented with a tab",
                )
                .at(tab..tab + 1)
                .label("tab")
                .note("YAML does not allow tabs for indentation")
                .help("indent with spaces");
            }
            let at = error.span.start.min(text.len());
            let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
            let end = if text[at..end].contains('\n') { at } else { end };
            let diagnostic = Diagnostic::new(&YAML_SYNTAX, severity, format!("invalid YAML: {message}"))
                .at(at..end)
                .label(message.clone());
            if let Some(bracket) = unclosed_bracket(text, region.yaml.start, at) {
                let opened = &text[bracket..=bracket];
                return diagnostic
                    .related(bracket..bracket + 1, format!("this `{opened}` is never closed"))
                    .note(format!("a value that starts with `{opened}` is a YAML list or mapping"))
                    .help("close it, or quote the value if it is text");
            }
            match unquoted_colon_fix(text, at) {
                Some((line, range, quoted)) => diagnostic
                    .note("a `: ` inside an unquoted value starts a new key")
                    .help(format!("quote the value: `{line}`"))
                    .fix(Fix::replace(Applicability::Safe, "quote the value", range, quoted)),
                None => diagnostic,
            }
        }
    }
}

/// The first tab used for indentation in the frontmatter, up to the line of the error.
fn indentation_tab(text: &str, yaml_start: usize, error_at: usize) -> Option<usize> {
    let end = text[error_at.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| error_at + i);
    let mut line_start = yaml_start;
    for line in text[yaml_start..end].split('\n') {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some(tab) = line[..indent].find('\t') {
            return Some(line_start + tab);
        }
        line_start += line.len() + 1;
    }
    None
}

/// A flow bracket (`[` or `{`) opened on an earlier line than `error_at` and still open there.
/// Brackets count where YAML opens a flow collection: at the start of a value, or inside one.
fn unclosed_bracket(text: &str, yaml_start: usize, error_at: usize) -> Option<usize> {
    let error_line_start = text[..error_at.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let mut open: Vec<usize> = Vec::new();
    let mut quote: Option<char> = None;
    let mut value_start = true;
    for (offset, c) in text[yaml_start..error_at.min(text.len())].char_indices() {
        let at = yaml_start + offset;
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '[' | '{' if value_start || !open.is_empty() => {
                open.push(at);
                value_start = true;
            }
            ']' | '}' if !open.is_empty() => {
                open.pop();
            }
            '"' | '\'' if value_start && !open.is_empty() => quote = Some(c),
            ',' if !open.is_empty() => value_start = true,
            '\n' | ':' | '-' => value_start = true,
            ' ' | '\t' => {}
            _ => value_start = false,
        }
    }
    open.last().copied().filter(|&at| at < error_line_start)
}

/// For a syntax error at a `:` inside a plain value: the line with the value quoted, the value's
/// range and its quoted form.
fn unquoted_colon_fix(text: &str, at: usize) -> Option<(String, Range<usize>, String)> {
    if text.as_bytes().get(at) != Some(&b':') {
        return None;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = &text[line_start..line_end];
    let (key, value) = line.split_once(": ")?;
    let value = value.trim();
    if key.trim().is_empty()
        || value.is_empty()
        || value.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!'])
        || line_start + key.len() >= at
    {
        return None;
    }
    let value = value.split(" #").next().unwrap_or(value).trim_end();
    let after_key = line_start + key.len() + 2;
    let start = after_key + text[after_key..].find(value)?;
    let quoted = yaml_quote(value);
    Some((
        format!("{key}: {quoted}"),
        start..start + value.len(),
        quoted,
    ))
}

/// Under skills-ref: flow collections, anchors, aliases and tags, which strictyaml refuses.
pub(super) fn check_strict_yaml(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for feature in cx.yaml.features() {
        let (message, label, help) = match feature {
            Feature::FlowCollection(_) => (
                "skills-ref (strictyaml) rejects flow-style collections such as `[a, b]`",
                "flow style",
                "write a block list (one `- item` per line); for `allowed-tools`, a space-separated string",
            ),
            Feature::Anchor(_) => (
                "skills-ref (strictyaml) rejects YAML anchors",
                "anchor",
                "write the value out instead of using an anchor",
            ),
            Feature::Alias(_) => (
                "skills-ref (strictyaml) rejects YAML aliases",
                "alias",
                "write the value out instead of using an alias",
            ),
            Feature::Tag(_) => (
                "skills-ref (strictyaml) rejects YAML tags",
                "tag",
                "remove the tag; quote the value if it must stay text",
            ),
        };
        out.push(
            Diagnostic::error(&STRICT_YAML, message)
                .at(feature.span())
                .label(label)
                .help(help),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquoted_colon_fix_quotes_the_value() {
        let text = "description: Use when: the \"user\" asks\n";
        let at = text.find(": the").unwrap();
        let (line, range, quoted) = unquoted_colon_fix(text, at).unwrap();
        assert_eq!(line, r#"description: "Use when: the \"user\" asks""#);
        assert_eq!(&text[range], r#"Use when: the "user" asks"#);
        assert_eq!(quoted, r#""Use when: the \"user\" asks""#);
    }

    #[test]
    fn finds_the_unclosed_bracket_before_an_error() {
        let text = "name: [bad\ndescription: x\n";
        let error_at = text.find("n: x").unwrap() + 1;
        assert_eq!(unclosed_bracket(text, 0, error_at), Some(6));
        assert_eq!(unclosed_bracket("name: a [b\nc: d\n", 0, 14), None);
        assert_eq!(unclosed_bracket("a: [x, \"]\"\nb: c\n", 0, 15), Some(3));
    }

    #[test]
    fn finds_tabs_in_indentation_only() {
        let text = "a: 1\nb:\n\tc: 2\n";
        assert_eq!(indentation_tab(text, 0, text.len() - 1), Some(8));
        assert_eq!(indentation_tab("a: x\ty\n", 0, 3), None);
    }
}
