//! Rules about the other keys: `compatibility`, `license`, `metadata`, `allowed-tools`, and
//! the keys Claude Code honours, type-checked under `claude-code`.

use super::{Context, yaml_quote};
use crate::agent::Family;
use crate::check::diagnostic::Diagnostic;
use crate::check::fix::{Applicability, Fix};
use crate::check::rule::{
    COMPATIBILITY_LENGTH, INVALID_FIELD_TYPE, INVALID_FIELD_VALUE, METADATA_VALUE, Severity,
};
use crate::skill::model::{Effort, Field, known_key};
use crate::skill::yaml::{NodeKind, Resolved};

/// The most characters `compatibility` may have.
pub(super) const MAX_COMPATIBILITY_CHARS: usize = 500;

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    compatibility(cx, out);
    match cx.family() {
        Family::Spec | Family::ClaudeAi => {
            text_type(out, "license", cx.doc.license.as_deref());
            if !cx.target.structured_metadata() {
                metadata(cx, out);
            }
            wrong_type(
                out,
                "allowed-tools",
                cx.doc.allowed_tools.as_deref(),
                Severity::Error,
            );
        }
        Family::ClaudeCode { modern } => claude_code(cx, out, modern),
        Family::SkillsRef => {}
    }
}

/// "`license` must be a string, but it is a list".
fn wrong_type<T>(
    out: &mut Vec<Diagnostic>,
    key: &str,
    field: Option<&Field<T>>,
    severity: Severity,
) {
    let Some(field) = field else { return };
    if let Err(mismatch) = &field.value {
        let expects = known_key(key).map_or("a string", |known| known.expects);
        out.push(
            Diagnostic::new(
                &INVALID_FIELD_TYPE,
                severity,
                format!("`{key}` must be {expects}, but it is {}", mismatch.found),
            )
            .at(field.span.clone()),
        );
    }
}

/// A text field: wrong types are errors; numbers and booleans are warnings ("quote it").
fn text_type(out: &mut Vec<Diagnostic>, key: &str, field: Option<&Field<String>>) {
    let Some(field) = field else { return };
    wrong_type(out, key, Some(field), Severity::Error);
    if let (Ok(value), Some(found)) = (&field.value, field.coerced) {
        let diagnostic = if found == Resolved::Null {
            Diagnostic::warning(&INVALID_FIELD_TYPE, format!("`{key}` is empty"))
                .help(format!("remove `{key}:` or give it a value"))
        } else {
            Diagnostic::warning(&INVALID_FIELD_TYPE, format!("`{key}` is {found}, not text"))
                .help(format!("quote it: `{key}: {}`", yaml_quote(value)))
        };
        out.push(diagnostic.at(field.span.clone()));
    }
}

fn compatibility(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(field) = &cx.doc.compatibility else {
        return;
    };
    let span = field.span.clone();
    let too_long = |chars: usize, severity: Severity| {
        Diagnostic::new(
            &COMPATIBILITY_LENGTH,
            severity,
            format!(
                "`compatibility` is {chars} characters long; the limit is {MAX_COMPATIBILITY_CHARS}"
            ),
        )
        .at(span.clone())
        .help("say briefly what the skill needs: a product, system packages, network access")
    };
    match cx.family() {
        Family::Spec | Family::ClaudeAi => {
            text_type(out, "compatibility", Some(field));
            if let (Ok(value), None) = (&field.value, field.coerced) {
                let chars = value.chars().count();
                if chars == 0 {
                    out.push(
                        Diagnostic::error(&COMPATIBILITY_LENGTH, "`compatibility` is empty")
                            .at(span)
                            .help("remove it, or say what the skill needs; the spec requires 1 to 500 characters"),
                    );
                } else if chars > MAX_COMPATIBILITY_CHARS {
                    out.push(too_long(chars, Severity::Error));
                }
            }
        }
        // skills-ref: any scalar is text, an empty one is fine, at most 500 characters.
        Family::SkillsRef => match &cx.yaml.resolve(field.node).kind {
            NodeKind::Scalar(scalar) => {
                let chars = scalar.value.chars().count();
                if chars > MAX_COMPATIBILITY_CHARS {
                    out.push(too_long(chars, Severity::Error));
                }
            }
            other => out.push(
                Diagnostic::error(
                    &INVALID_FIELD_TYPE,
                    format!(
                        "`compatibility` must be a string, but it is {}",
                        other.describe()
                    ),
                )
                .at(span),
            ),
        },
        Family::ClaudeCode { .. } => {
            if let Ok(value) = &field.value {
                let chars = value.chars().count();
                if chars > MAX_COMPATIBILITY_CHARS {
                    out.push(too_long(chars, Severity::Warning));
                }
            }
        }
    }
}

/// `metadata`: string keys to string values.
fn metadata(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(field) = &cx.doc.metadata else {
        return;
    };
    let Ok(entries) = &field.value else {
        wrong_type(out, "metadata", Some(field), Severity::Error);
        return;
    };
    for entry in entries {
        let key = &entry.key;
        if let Some(found) = entry.key_coerced {
            out.push(
                Diagnostic::warning(
                    &METADATA_VALUE,
                    format!("`metadata` key `{}` is {found}, not text", key.value),
                )
                .at(key.span.clone())
                .help(format!("quote it: `{}:`", yaml_quote(&key.value))),
            );
        }
        let node = cx.yaml.resolve(entry.value);
        let span = cx.yaml.node(entry.value).span.clone();
        match &node.kind {
            NodeKind::Scalar(scalar) => match scalar.resolve() {
                Resolved::Str => {}
                Resolved::Null => out.push(
                    Diagnostic::warning(
                        &METADATA_VALUE,
                        format!("`metadata.{}` is empty, not a string", key.value),
                    )
                    .at(key.span.clone())
                    .help(format!("write `{}: \"\"` or remove it", key.value)),
                ),
                found => {
                    let mut diagnostic = Diagnostic::warning(
                        &METADATA_VALUE,
                        format!(
                            "`metadata.{}` is {}; metadata values must be strings",
                            key.value,
                            found.describe()
                        ),
                    )
                    .at(span.clone())
                    .note("strict parsers read it as a number or boolean: `1.10` becomes 1.1")
                    .help(format!(
                        "quote it: `{}: {}`",
                        key.value,
                        yaml_quote(&scalar.value)
                    ));
                    // Only a value written exactly as it reads can be quoted in place.
                    if cx.source.text().get(span.clone()) == Some(scalar.value.as_str()) {
                        diagnostic = diagnostic.fix(Fix::replace(
                            Applicability::Safe,
                            "quote the value",
                            span.clone(),
                            yaml_quote(&scalar.value),
                        ));
                    }
                    out.push(diagnostic);
                }
            },
            other => out.push(
                Diagnostic::error(
                    &METADATA_VALUE,
                    format!(
                        "`metadata.{}` is {}; metadata values must be strings",
                        key.value,
                        other.describe()
                    ),
                )
                .at(span)
                .note("clients that read metadata as a map of strings (e.g. Go `map[string]string`) reject the skill")
                .help("flatten it into separate string keys, or write it as one string"),
            ),
        }
    }
}

/// Claude Code's own keys: types and allowed values.
fn claude_code(cx: &Context<'_>, out: &mut Vec<Diagnostic>, modern: bool) {
    claude_code_types(cx, out);
    claude_code_booleans(cx, out, modern);
    claude_code_choices(cx, out, modern);
    claude_code_arguments(cx, out);
}

fn claude_code_types(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let doc = cx.doc;
    let error = Severity::Error;
    wrong_type(out, "allowed-tools", doc.allowed_tools.as_deref(), error);
    wrong_type(
        out,
        "disallowed-tools",
        doc.disallowed_tools.as_deref(),
        error,
    );
    // 2.1.332 reads these two with JavaScript's `String(…)` (seen in its binary:
    // `String(z["argument-hint"])`): a list still loads, as its items joined by commas.
    for (key, field) in [
        ("when_to_use", doc.when_to_use.as_deref()),
        ("argument-hint", doc.argument_hint.as_deref()),
    ] {
        let Some(field) = field else { continue };
        if let Err(mismatch) = &field.value {
            // A list of words loads, as the words joined by commas: the form Claude Code's own
            // documentation shows (`argument-hint: [file]`). Only a mapping is lost.
            if mismatch.found.contains("list") {
                continue;
            }
            out.push(
                Diagnostic::error(
                    &INVALID_FIELD_TYPE,
                    format!("`{key}` must be a string, but it is {}", mismatch.found),
                )
                .at(field.span.clone()),
            );
        }
    }
    wrong_type(out, "arguments", doc.arguments.as_deref(), error);
    wrong_type(out, "model", doc.model.as_deref(), error);
    wrong_type(out, "effort", doc.effort.as_deref(), error);
    wrong_type(out, "context", doc.context.as_deref(), error);
    wrong_type(out, "agent", doc.agent.as_deref(), error);
    wrong_type(out, "hooks", doc.hooks.as_deref(), error);
    wrong_type(out, "paths", doc.paths.as_deref(), error);
    wrong_type(out, "shell", doc.shell.as_deref(), error);
    wrong_type(out, "version", doc.version.as_deref(), Severity::Warning);
    if let Some(field) = &doc.metadata
        && field.value.is_err()
    {
        out.push(
            Diagnostic::warning(
                &INVALID_FIELD_TYPE,
                "Claude Code drops a `metadata` value that is not a mapping",
            )
            .at(field.span.clone()),
        );
    }
}

/// Booleans: `true`/`false`, and since 2.1.218 `yes/no/on/off/1/0`; 2.1.88 reads only `true`.
fn claude_code_booleans(cx: &Context<'_>, out: &mut Vec<Diagnostic>, modern: bool) {
    let doc = cx.doc;
    for (key, field) in [
        ("disable-model-invocation", &doc.disable_model_invocation),
        ("user-invocable", &doc.user_invocable),
        ("background", &doc.background),
    ] {
        let Some(field) = field else { continue };
        let raw = cx
            .yaml
            .scalar(field.node)
            .map(|scalar| scalar.value.as_str());
        match (&field.value, raw) {
            (Err(_), raw) => out.push(
                Diagnostic::error(
                    &INVALID_FIELD_VALUE,
                    format!(
                        "`{key}` must be true or false, but it is {}",
                        raw.map_or_else(|| "not a scalar".to_owned(), |raw| format!("`{raw}`"))
                    ),
                )
                .at(field.span.clone())
                .note("Claude Code ignores the setting; it also accepts yes/no, on/off and 1/0"),
            ),
            (Ok(true), Some(raw)) if !modern && raw.trim() != "true" => out.push(
                Diagnostic::warning(
                    &INVALID_FIELD_VALUE,
                    format!(
                        "Claude Code 2.1.88 reads only `true` as true; `{raw}` means false there"
                    ),
                )
                .at(field.span.clone())
                .help(format!("write `{key}: true`")),
            ),
            _ => {}
        }
    }
}

/// `effort`, `context` and `shell` take one of a few values.
fn claude_code_choices(cx: &Context<'_>, out: &mut Vec<Diagnostic>, modern: bool) {
    let doc = cx.doc;
    if let Some(field) = &doc.effort
        && let Ok(Effort::Level(level)) = &field.value
    {
        let levels: &[&str] = if modern {
            &["low", "medium", "high", "xhigh", "max"]
        } else {
            &["low", "medium", "high", "max"]
        };
        if !levels.contains(&level.as_str()) {
            out.push(
                Diagnostic::error(
                    &INVALID_FIELD_VALUE,
                    format!(
                        "`effort` must be one of {} or an integer, but it is `{level}`",
                        levels.join(", ")
                    ),
                )
                .at(field.span.clone())
                .note("Claude Code ignores an invalid effort"),
            );
        }
    }
    if let Some(field) = &doc.context
        && let Ok(context) = &field.value
        && context != "fork"
    {
        out.push(
            Diagnostic::error(
                &INVALID_FIELD_VALUE,
                format!("`context` must be `fork`, but it is `{context}`"),
            )
            .at(field.span.clone())
            .note("any other value runs the skill inline; remove `context` for that")
            .help("write `context: fork` to run the skill as a sub-agent"),
        );
    }
    if let Some(field) = &doc.shell
        && let Ok(shell) = &field.value
        && shell != "bash"
        && shell != "powershell"
    {
        out.push(
            Diagnostic::error(
                &INVALID_FIELD_VALUE,
                format!("`shell` must be `bash` or `powershell`, but it is `{shell}`"),
            )
            .at(field.span.clone()),
        );
    }
}

/// Argument names that Claude Code drops.
fn claude_code_arguments(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    if let Some(field) = &cx.doc.arguments
        && let Ok(names) = &field.value
    {
        for name in names
            .iter()
            .filter(|name| name.value.chars().all(|c| c.is_ascii_digit()))
        {
            out.push(
                Diagnostic::warning(
                    &INVALID_FIELD_VALUE,
                    format!(
                        "Claude Code drops the argument name `{}`: numeric names clash with `${}`",
                        name.value, name.value
                    ),
                )
                .at(name.span.clone())
                .help("use a word, such as `count`"),
            );
        }
    }
}
