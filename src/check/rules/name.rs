//! Rules about `name`.
//!
//! The spec: 1 to 64 characters, lowercase letters, digits and hyphens, no hyphen at either end
//! and none doubled, equal to the folder name. "Letters and digits" are Unicode under the open
//! spec and skills-ref (General Category L* and N*, which is what Python's `str.isalnum` means;
//! `char::is_alphanumeric` would also accept combining marks that skills-ref rejects) and ASCII
//! under claude.ai. Lengths count Unicode scalar values after NFKC, as skills-ref does.

use std::ops::Range;

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

use super::{Context, yaml_quote};
use crate::agent::claude_code::names;
use crate::agent::{Family, Target};
use crate::check::diagnostic::Diagnostic;
use crate::check::rule::{
    FOLDER_NOT_LOADED, NAME_EMPTY, NAME_FOLDER_MISMATCH, NAME_HYPHENS, NAME_INVALID_CHARS,
    NAME_MISSING, NAME_NOT_LOWERCASE, NAME_NOT_STRING, NAME_RESERVED_WORD, NAME_TOO_LONG,
};
use crate::skill::yaml::{NodeKind, Resolved};

/// The most characters a name may have.
pub(crate) const MAX_NAME_CHARS: usize = 64;

/// Words claude.ai refuses in a name.
const RESERVED_WORDS: &[&str] = &["anthropic", "claude"];

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    match cx.family() {
        Family::ClaudeCode { .. } => check_claude_code(cx, out),
        Family::SkillsRef => check_skills_ref(cx, out),
        Family::Spec | Family::ClaudeAi => check_spec(cx, out),
    }
}

fn missing(cx: &Context<'_>) -> Diagnostic {
    let diagnostic = Diagnostic::error(&NAME_MISSING, "the required key `name` is missing")
        .at(cx.open.clone())
        .label("frontmatter starts here");
    match cx
        .doc
        .entries
        .iter()
        .find(|(key, _)| super::keys::suggest(&key.value) == Some("name"))
    {
        Some((key, _)) => diagnostic
            .related(key.span.clone(), "did you mean `name`?")
            .help(format!("rename `{}` to `name`", key.value)),
        None => diagnostic.help(format!(
            "add `name: {}` (the folder name)",
            cx.skill.dir_name
        )),
    }
}

fn check_spec(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let from = out.len();
    check_spec_name(cx, out);
    if cx.target.warns_on_spec_limits() {
        // OpenClaw's loader warns about a name outside the spec, Codex and Gemini CLI say
        // nothing, and all three load the skill. Where they do not: Codex drops a name over
        // 64 characters, or one that is a list or mapping; Gemini CLI drops a skill without a
        // name (OpenClaw and Codex use the folder's).
        // Codex reads a number as its text but refuses a list or a mapping.
        let structured = matches!(
            cx.doc.name.as_deref().map(|field| &field.value),
            Some(Err(_))
        );
        let loads = |rule: &crate::check::rule::Rule| match cx.target {
            Target::Codex => {
                let dropped = std::ptr::eq(rule, &raw const NAME_TOO_LONG)
                    || (structured && std::ptr::eq(rule, &raw const NAME_NOT_STRING));
                !dropped
            }
            Target::GeminiCli => ![&raw const NAME_MISSING, &raw const NAME_EMPTY]
                .iter()
                .any(|missing| std::ptr::eq(rule, *missing)),
            _ => true,
        };
        let how = if cx.target == Target::OpenClaw {
            "warns about this and loads the skill"
        } else {
            "loads the skill all the same"
        };
        for diagnostic in &mut out[from..] {
            if diagnostic.severity == crate::check::rule::Severity::Error && loads(diagnostic.rule)
            {
                diagnostic.severity = crate::check::rule::Severity::Warning;
                diagnostic.note = Some(format!("{} {how}", cx.target.display()));
            }
        }
    }
}

fn check_spec_name(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(field) = &cx.doc.name else {
        out.push(missing(cx));
        return;
    };
    let span = field.span.clone();
    let name = match (&field.value, field.coerced) {
        (Err(mismatch), _) => {
            out.push(
                Diagnostic::error(
                    &NAME_NOT_STRING,
                    format!("`name` must be a string, but it is {}", mismatch.found),
                )
                .at(span)
                .help(format!("write `name: {}`", cx.skill.dir_name)),
            );
            return;
        }
        (Ok(_), Some(Resolved::Null)) => {
            out.push(empty(cx, span));
            return;
        }
        (Ok(value), Some(found)) => {
            out.push(
                Diagnostic::error(
                    &NAME_NOT_STRING,
                    format!(
                        "`name` is {found}, not text: strict YAML parsers read `{value}` as {found}"
                    ),
                )
                .at(span)
                .help(format!("quote it: `name: {}`", yaml_quote(value))),
            );
            return;
        }
        (Ok(value), None) => value,
    };
    if name.trim().is_empty() {
        out.push(empty(cx, span));
        return;
    }
    let folder = cx
        .target
        .name_is_folder()
        .then_some(cx.skill.dir_name.as_str());
    out.extend(check_name_text(name, folder, cx.target, span));
}

fn empty(cx: &Context<'_>, span: Range<usize>) -> Diagnostic {
    Diagnostic::error(&NAME_EMPTY, "`name` is empty")
        .at(span)
        .help(format!(
            "write `name: {}` (the folder name)",
            cx.skill.dir_name
        ))
}

/// The name rules of the spec (and claude.ai's stricter ones), for a name that is text.
/// `folder` is the folder name to compare with, when there is one.
pub(crate) fn check_name_text(
    name: &str,
    folder: Option<&str>,
    target: Target,
    span: Range<usize>,
) -> Vec<Diagnostic> {
    let ascii_only = target.family() == Family::ClaudeAi;
    let normalised: String = name.nfkc().collect();
    let mut out = Vec::new();
    let at = |diagnostic: Diagnostic| diagnostic.at(span.clone());
    let suggestion = suggest_name(name, ascii_only);
    let chars = normalised.chars().count();
    if chars > MAX_NAME_CHARS {
        out.push(at(Diagnostic::error(
            &NAME_TOO_LONG,
            format!("`name` is {chars} characters long; the limit is {MAX_NAME_CHARS}"),
        )));
    }
    if normalised.to_lowercase() != normalised {
        out.push(
            at(Diagnostic::error(
                &NAME_NOT_LOWERCASE,
                format!("`name` must be lowercase: `{name}`"),
            ))
            .help(format!("use `{suggestion}`")),
        );
    }
    let invalid: Vec<char> = dedup(normalised.chars().filter(|&c| {
        if ascii_only {
            !(c.is_ascii_alphanumeric() || c == '-')
        } else {
            !(is_letter_or_digit(c) || c == '-')
        }
    }));
    if !invalid.is_empty() {
        let allowed = if ascii_only {
            "only lowercase ASCII letters (a-z), digits and hyphens are allowed"
        } else {
            "only lowercase letters, digits and hyphens are allowed"
        };
        let listed: Vec<String> = invalid.iter().map(|&c| describe_char(c)).collect();
        let mut diagnostic = at(Diagnostic::error(
            &NAME_INVALID_CHARS,
            format!("`name` contains {}; {allowed}", listed.join(", ")),
        ))
        .help(format!("use `{suggestion}`"));
        if ascii_only && invalid.iter().any(|c| !c.is_ascii()) {
            diagnostic = diagnostic.note("claude.ai uploads accept ASCII names only");
        }
        out.push(diagnostic);
    }
    let edge = normalised.starts_with('-') || normalised.ends_with('-');
    let doubled = normalised.contains("--");
    if edge || doubled {
        let message = match (edge, doubled) {
            (true, true) => "`name` starts or ends with a hyphen and has two hyphens in a row",
            (true, false) => "`name` cannot start or end with a hyphen",
            _ => "`name` cannot contain two hyphens in a row",
        };
        out.push(at(Diagnostic::error(&NAME_HYPHENS, message)).help(format!("use `{suggestion}`")));
    }
    if ascii_only {
        let lower = normalised.to_lowercase();
        if let Some(word) = RESERVED_WORDS.iter().find(|word| lower.contains(*word)) {
            out.push(
                at(Diagnostic::error(
                    &NAME_RESERVED_WORD,
                    format!("`name` contains the reserved word `{word}`"),
                ))
                .note("claude.ai uploads and the Skills API reject names containing `anthropic` or `claude`"),
            );
        }
    }
    if let Some(folder) = folder {
        let folder_normalised: String = folder.nfkc().collect();
        if folder_normalised != normalised {
            out.push(
                at(Diagnostic::error(
                    &NAME_FOLDER_MISMATCH,
                    format!("`name` is `{name}` but the skill's folder is `{folder}`"),
                ))
                .help(format!("rename the folder to `{name}`, or set `name: {folder}`"))
                .note("the spec requires the name to equal the folder name; Claude Code lists the skill under its folder name"),
            );
        }
    }
    out
}

/// skills-ref's `_validate_name`, with its Python semantics.
fn check_skills_ref(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(field) = &cx.doc.name else {
        out.push(missing(cx));
        return;
    };
    let span = field.span.clone();
    // strictyaml reads every scalar as text.
    let raw = match &cx.yaml.resolve(field.node).kind {
        NodeKind::Scalar(scalar) => scalar.value.as_str(),
        other => {
            out.push(
                Diagnostic::error(
                    &NAME_NOT_STRING,
                    format!(
                        "`name` must be a non-empty string, but it is {}",
                        other.describe()
                    ),
                )
                .at(span),
            );
            return;
        }
    };
    let stripped = python_strip(raw);
    if stripped.is_empty() {
        out.push(empty(cx, span));
        return;
    }
    out.extend(check_name_text(
        stripped,
        Some(&cx.skill.dir_name),
        cx.target,
        span,
    ));
}

/// Claude Code lists a skill under its folder name; `name` is only a display label (which
/// 2.1.332 shows beside the folder's when it is clean). 2.1.332 also refuses some folder names.
fn check_claude_code(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let folder = &cx.skill.dir_name;
    let current = cx.target != Target::ClaudeCode2188;
    let refused = current && !folder.is_empty() && !names::is_accepted_folder(folder);
    if refused {
        out.push(
            Diagnostic::error(
                &FOLDER_NOT_LOADED,
                format!("Claude Code does not load a skill from the folder `{folder}`"),
            )
            .at(cx.open.clone())
            .note("its folder names may not have invisible characters, `<` or `>`, spaces other than single plain ones inside, or a `:` at either end or beside a space")
            .help("rename the folder (lowercase letters, digits and hyphens work everywhere)"),
        );
    }
    // A `name` that differs from the folder is not reported: Claude Code names the skill after
    // its folder (the model and the user both call the folder's name) and shows `name` only
    // as a label beside it, so the difference costs nothing (benches/realworld: every such
    // warning on published skills was judged one no maintainer would act on).
}

/// A letter or digit in Python's `str.isalnum` sense: General Category L* or N*.
fn is_letter_or_digit(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
            | GeneralCategory::DecimalNumber
            | GeneralCategory::LetterNumber
            | GeneralCategory::OtherNumber
    )
}

/// Python's `str.strip()`: whitespace as `str.isspace` defines it.
pub(crate) fn python_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// A name that passes the rules, derived from `name`: `My PDF Tool` → `my-pdf-tool`.
pub(crate) fn suggest_name(name: &str, ascii_only: bool) -> String {
    let mut out = String::new();
    for c in name.nfkd() {
        if get_general_category(c) == GeneralCategory::NonspacingMark && ascii_only {
            continue;
        }
        let keep = if ascii_only {
            c.is_ascii_alphanumeric()
        } else {
            is_letter_or_digit(c)
        };
        if keep {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let normalised: String = out.nfkc().collect();
    let limited: String = normalised
        .trim_matches('-')
        .chars()
        .take(MAX_NAME_CHARS)
        .collect();
    let out = limited.trim_end_matches('-');
    if out.is_empty() {
        "my-skill".to_owned()
    } else {
        out.to_owned()
    }
}

fn describe_char(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        '\t' => "a tab".to_owned(),
        c if c.is_control() || c.is_whitespace() => format!("U+{:04X}", u32::from(c)),
        c => format!("`{c}`"),
    }
}

fn dedup(chars: impl Iterator<Item = char>) -> Vec<char> {
    let mut out = Vec::new();
    for c in chars {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(name: &str, folder: &str, target: Target) -> Vec<&'static str> {
        check_name_text(name, Some(folder), target, 0..0)
            .iter()
            .map(|d| d.rule.name)
            .collect()
    }

    #[test]
    fn spec_names() {
        assert!(codes("pdf-tools", "pdf-tools", Target::AgentSkills).is_empty());
        assert!(codes("技能", "技能", Target::AgentSkills).is_empty());
        assert!(codes("мой-навык", "мой-навык", Target::AgentSkills).is_empty());
        assert_eq!(
            codes("НАВЫК", "НАВЫК", Target::AgentSkills),
            ["name-not-lowercase"]
        );
        assert_eq!(
            codes("my_skill", "my_skill", Target::AgentSkills),
            ["name-invalid-chars"]
        );
        assert_eq!(codes("-pdf", "-pdf", Target::AgentSkills), ["name-hyphens"]);
        assert_eq!(codes("a--b", "a--b", Target::AgentSkills), ["name-hyphens"]);
        assert_eq!(
            codes("pdf", "other", Target::AgentSkills),
            ["name-folder-mismatch"]
        );
        assert_eq!(
            codes(&"a".repeat(65), &"a".repeat(65), Target::AgentSkills),
            ["name-too-long"]
        );
        // Devanagari vowel signs are combining marks: not letters for Python's isalnum.
        assert_eq!(
            codes("हिन्दी", "हिन्दी", Target::AgentSkills),
            ["name-invalid-chars"]
        );
        // NFKC: decomposed name, composed folder.
        assert!(codes("cafe\u{301}", "café", Target::AgentSkills).is_empty());
    }

    #[test]
    fn claude_ai_names_are_ascii_without_reserved_words() {
        assert_eq!(
            codes("café", "café", Target::ClaudeAi),
            ["name-invalid-chars"]
        );
        assert_eq!(
            codes("claude-helper", "claude-helper", Target::ClaudeAi),
            ["name-reserved-word"]
        );
        assert!(codes("pdf-tools", "pdf-tools", Target::ClaudeAi).is_empty());
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest_name("My PDF Tool", false), "my-pdf-tool");
        assert_eq!(suggest_name("my__skill--", false), "my-skill");
        assert_eq!(suggest_name("Café Crème", true), "cafe-creme");
        assert_eq!(suggest_name("技能", false), "技能");
        assert_eq!(suggest_name("!!!", false), "my-skill");
    }
}
