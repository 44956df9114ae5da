//! Rules about `description`: the text a model reads to decide when to use the skill.

use std::ops::Range;

use super::keys::suggest;
use super::name::python_strip;
use super::{Context, yaml_quote};
use crate::agent::Family;
use crate::check::diagnostic::Diagnostic;
use crate::check::rule::{
    DESCRIPTION_ANGLE_BRACKETS, DESCRIPTION_EMPTY, DESCRIPTION_MISSING, DESCRIPTION_NOT_STRING,
    DESCRIPTION_TOO_LONG,
};
use crate::skill::yaml::{NodeKind, Resolved};

/// The most characters a description may have.
pub(super) const MAX_DESCRIPTION_CHARS: usize = 1024;

const WRITE_ONE: &str = "write a `description:` that says what the skill does and when to use it";
const ADD_ONE: &str = "add a `description:` that says what the skill does and when to use it";

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    match cx.family() {
        Family::ClaudeCode { .. } => check_claude_code(cx, out),
        Family::SkillsRef => check_skills_ref(cx, out),
        Family::Spec | Family::ClaudeAi => check_spec(cx, out),
    }
}

fn missing(cx: &Context<'_>) -> Diagnostic {
    near_miss(
        cx,
        Diagnostic::error(
            &DESCRIPTION_MISSING,
            "the required key `description` is missing",
        )
        .at(cx.open.clone())
        .label("frontmatter starts here"),
    )
}

/// Points at a key that looks like a misspelt `description`, or says how to add one.
fn near_miss(cx: &Context<'_>, diagnostic: Diagnostic) -> Diagnostic {
    match cx
        .doc
        .entries
        .iter()
        .find(|(key, _)| suggest(&key.value) == Some("description"))
    {
        Some((key, _)) => diagnostic
            .related(key.span.clone(), "did you mean `description`?")
            .help(format!("rename `{}` to `description`", key.value)),
        None => diagnostic.help(ADD_ONE),
    }
}

fn empty(span: Range<usize>) -> Diagnostic {
    Diagnostic::error(&DESCRIPTION_EMPTY, "`description` is empty")
        .at(span)
        .help(WRITE_ONE)
}

fn too_long(chars: usize, span: Range<usize>) -> Diagnostic {
    Diagnostic::error(
        &DESCRIPTION_TOO_LONG,
        format!("`description` is {chars} characters long; the limit is {MAX_DESCRIPTION_CHARS}"),
    )
    .at(span)
    .help("keep what the skill does and when to use it; move details into the body")
}

fn check_spec(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(field) = &cx.doc.description else {
        out.push(missing(cx));
        return;
    };
    let span = field.span.clone();
    let description = match (&field.value, field.coerced) {
        (Err(mismatch), _) => {
            out.push(
                Diagnostic::error(
                    &DESCRIPTION_NOT_STRING,
                    format!(
                        "`description` must be a string, but it is {}",
                        mismatch.found
                    ),
                )
                .at(span)
                .help("write the description as text; quote it if it starts with `[` or `{`"),
            );
            return;
        }
        (Ok(_), Some(Resolved::Null)) => {
            out.push(empty(span));
            return;
        }
        (Ok(value), Some(found)) => {
            out.push(
                Diagnostic::error(
                    &DESCRIPTION_NOT_STRING,
                    format!("`description` is {found}, not text: strict YAML parsers read `{value}` as {found}"),
                )
                .at(span)
                .help(format!("quote it: `description: {}`", yaml_quote(value))),
            );
            return;
        }
        (Ok(value), None) => value,
    };
    if description.trim().is_empty() {
        out.push(empty(span));
        return;
    }
    let chars = description.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        let mut diagnostic = too_long(chars, span.clone());
        if cx.target.warns_on_spec_limits() {
            // OpenClaw's loader warns about a long description and loads the skill; Codex cuts
            // it to 1,024 characters, Gemini CLI keeps it whole.
            diagnostic.severity = crate::check::rule::Severity::Warning;
            diagnostic.note = Some(match cx.target {
                crate::agent::Target::Codex => {
                    "Codex cuts it to its first 1,021 characters and `...`".into()
                }
                crate::agent::Target::OpenClaw => {
                    "OpenClaw warns about this and loads the skill".into()
                }
                _ => format!("{} loads it whole", cx.target.display()),
            });
        }
        out.push(diagnostic);
    }
    if cx.family() == Family::ClaudeAi && description.contains(['<', '>']) {
        let source = cx.text(&span);
        let at = source
            .find(['<', '>'])
            .map_or(span.clone(), |i| span.start + i..span.start + i + 1);
        out.push(
            Diagnostic::error(
                &DESCRIPTION_ANGLE_BRACKETS,
                "`description` contains an angle bracket: claude.ai rejects XML tags in descriptions",
            )
            .at(at)
            .label("angle bracket")
            .help("describe it in words, e.g. \"an <input> file\" as \"an input file\""),
        );
    }
}

/// skills-ref's `_validate_description`: every scalar is text, blank is empty, and the length
/// counts the raw value, surrounding spaces included.
fn check_skills_ref(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(field) = &cx.doc.description else {
        out.push(missing(cx));
        return;
    };
    let span = field.span.clone();
    let raw = match &cx.yaml.resolve(field.node).kind {
        NodeKind::Scalar(scalar) => scalar.value.as_str(),
        other => {
            out.push(
                Diagnostic::error(
                    &DESCRIPTION_NOT_STRING,
                    format!(
                        "`description` must be a non-empty string, but it is {}",
                        other.describe()
                    ),
                )
                .at(span),
            );
            return;
        }
    };
    if python_strip(raw).is_empty() {
        out.push(empty(span));
        return;
    }
    let chars = raw.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        out.push(too_long(chars, span));
    }
}

/// Claude Code loads a skill without a usable description, showing its first body line.
fn check_claude_code(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let fallback = || cx.fallback_note();
    let Some(field) = &cx.doc.description else {
        out.push(near_miss(
            cx,
            Diagnostic::warning(&DESCRIPTION_MISSING, "the skill has no `description`")
                .at(cx.open.clone())
                .label("frontmatter starts here")
                .note(fallback()),
        ));
        return;
    };
    let span = field.span.clone();
    match (&field.value, field.coerced) {
        (Err(mismatch), _) => out.push(
            Diagnostic::warning(
                &DESCRIPTION_NOT_STRING,
                format!(
                    "`description` is {}, which Claude Code drops",
                    mismatch.found
                ),
            )
            .at(span)
            .note(fallback())
            .help("write the description as text; quote it if it starts with `[` or `{`"),
        ),
        (Ok(_), Some(Resolved::Null)) => out.push(claude_code_empty(span, fallback())),
        (Ok(value), None) if value.trim().is_empty() => {
            out.push(claude_code_empty(span, fallback()));
        }
        _ => {}
    }
}

fn claude_code_empty(span: Range<usize>, fallback: String) -> Diagnostic {
    Diagnostic::warning(&DESCRIPTION_EMPTY, "`description` is empty")
        .at(span)
        .note(fallback)
        .help(WRITE_ONE)
}
