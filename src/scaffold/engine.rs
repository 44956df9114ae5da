//! The placeholder syntax of `templates/`: deliberately small, and strict.
//!
//! - `{{name}}` inserts a value; `{{description | yaml}}` inserts it as a YAML scalar, quoted
//!   when a parser could read it as anything but that text.
//! - `{{#if FLAG}}`, `{{#else}}` and `{{/if}}`, each alone on its line, keep or drop the lines
//!   between them; blocks nest.
//! - `{{> NAME}}`, alone on its line, inserts the partial `NAME` (rendered with the same values).
//!
//! Anything else between `{{` and `}}` is an error, as is a value or flag the caller did not
//! define, so a typo in a template fails its test instead of reaching a user's SKILL.md.

use std::collections::BTreeMap;

use crate::skill::yaml;

/// The most partials that may nest; more means a partial includes itself.
const MAX_PARTIAL_DEPTH: usize = 8;

/// Looks up a partial's source by name.
pub(crate) type Partials<'a> = &'a dyn Fn(&str) -> Option<&'a str>;

/// What a template is rendered with.
#[derive(Default)]
pub struct Context<'a> {
    /// Values for `{{key}}`; a key mapped to `None` is known but unset (using it is an error).
    pub values: BTreeMap<&'static str, Option<String>>,
    /// Flags for `{{#if flag}}`.
    pub flags: BTreeMap<&'static str, bool>,
    /// Where `{{> name}}` finds its text.
    pub partials: Option<Partials<'a>>,
}

/// A mistake in a template, at a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct Error {
    pub line: usize,
    pub message: String,
}

/// Renders `source` with `cx`.
pub fn render(source: &str, cx: &Context<'_>) -> Result<String, Error> {
    let mut out = String::with_capacity(source.len());
    render_into(source, cx, 0, &mut out)?;
    Ok(out)
}

struct Block {
    line: usize,
    keep: bool,
    outer_keep: bool,
    in_else: bool,
}

fn render_into(
    source: &str,
    cx: &Context<'_>,
    depth: usize,
    out: &mut String,
) -> Result<(), Error> {
    let mut blocks: Vec<Block> = Vec::new();
    for (index, raw) in source.split_inclusive('\n').enumerate() {
        let line = index + 1;
        let error = |message: String| Error { line, message };
        let keep = blocks.last().is_none_or(|block| block.keep);
        let trimmed = raw.trim();
        if let Some(flag) = directive(trimmed, "#if ") {
            let value = *cx
                .flags
                .get(flag)
                .ok_or_else(|| error(format!("unknown flag `{flag}` in `{trimmed}`")))?;
            blocks.push(Block {
                line,
                keep: keep && value,
                outer_keep: keep,
                in_else: false,
            });
        } else if trimmed == "{{#else}}" {
            let block = blocks
                .last_mut()
                .filter(|block| !block.in_else)
                .ok_or_else(|| error("`{{#else}}` without an open `{{#if …}}`".into()))?;
            block.in_else = true;
            block.keep = block.outer_keep && !block.keep;
        } else if trimmed == "{{/if}}" {
            blocks
                .pop()
                .ok_or_else(|| error("`{{/if}}` without an open `{{#if …}}`".into()))?;
        } else if let Some(name) = directive(trimmed, "> ") {
            if !keep {
                continue;
            }
            if depth >= MAX_PARTIAL_DEPTH {
                return Err(error(format!(
                    "partials nest deeper than {MAX_PARTIAL_DEPTH}"
                )));
            }
            let partial = cx
                .partials
                .and_then(|find| find(name))
                .ok_or_else(|| error(format!("unknown partial `{name}`")))?;
            render_into(partial, cx, depth + 1, out).map_err(|inner| {
                error(format!(
                    "in partial `{name}`, line {}: {}",
                    inner.line, inner.message
                ))
            })?;
        } else if keep {
            substitute(raw, cx, out).map_err(error)?;
        }
    }
    match blocks.last() {
        Some(block) => Err(Error {
            line: block.line,
            message: "`{{#if …}}` is never closed with `{{/if}}`".into(),
        }),
        None => Ok(()),
    }
}

/// The argument of a whole-line directive such as `{{#if scripts}}`.
fn directive<'s>(trimmed: &'s str, prefix: &str) -> Option<&'s str> {
    let inner = trimmed.strip_prefix("{{")?.strip_suffix("}}")?;
    let argument = inner.strip_prefix(prefix)?.trim();
    (!argument.is_empty()).then_some(argument)
}

/// Copies `line` to `out`, replacing each `{{key}}` or `{{key | filter}}`.
fn substitute(line: &str, cx: &Context<'_>, out: &mut String) -> Result<(), String> {
    let mut rest = line;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| "`{{` is never closed with `}}`".to_owned())?;
        let expression = after[..end].trim();
        if expression.starts_with(['#', '/', '>']) {
            return Err(format!("`{{{{{expression}}}}}` must be alone on its line"));
        }
        let (key, filter) = match expression.split_once('|') {
            Some((key, filter)) => (key.trim(), Some(filter.trim())),
            None => (expression, None),
        };
        let value = cx
            .values
            .get(key)
            .ok_or_else(|| format!("unknown value `{key}`"))?
            .as_deref()
            .ok_or_else(|| {
                format!("`{key}` is not set here; wrap its line in `{{{{#if {key}}}}}`")
            })?;
        match filter {
            None => out.push_str(value),
            Some("yaml") => out.push_str(&yaml::scalar(value)),
            Some(other) => return Err(format!("unknown filter `{other}`; the only one is `yaml`")),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx<'a>() -> Context<'a> {
        let mut cx = Context::default();
        cx.values.insert("name", Some("demo".into()));
        cx.values.insert("description", Some("Does: things".into()));
        cx.values.insert("license", None);
        cx.flags.insert("on", true);
        cx.flags.insert("off", false);
        cx
    }

    #[test]
    fn values_and_the_yaml_filter() {
        let out = render(
            "name: {{name}}\ndescription: {{ description | yaml }}\n",
            &cx(),
        );
        assert_eq!(out.unwrap(), "name: demo\ndescription: \"Does: things\"\n");
    }

    #[test]
    fn blocks_keep_or_drop_whole_lines_and_nest() {
        let source = "a\n{{#if on}}\nb\n  {{#if off}}\nc\n  {{#else}}\nd\n  {{/if}}\n{{#else}}\ne\n{{/if}}\n{{#if off}}\n{{#if on}}\nf\n{{/if}}\n{{#else}}\ng\n{{/if}}\n";
        assert_eq!(render(source, &cx()).unwrap(), "a\nb\nd\ng\n");
    }

    #[test]
    fn partials_render_with_the_same_values() {
        let find = |name: &str| (name == "footer").then_some("-- {{name}}\n");
        let mut cx = cx();
        cx.partials = Some(&find);
        assert_eq!(render("x\n{{> footer}}\n", &cx).unwrap(), "x\n-- demo\n");
        let err = render("{{> header}}\n", &cx).unwrap_err();
        assert_eq!(err.to_string(), "line 1: unknown partial `header`");
    }

    #[test]
    fn a_partial_that_includes_itself_is_an_error() {
        let find = |_: &str| Some("{{> me}}\n");
        let mut cx = cx();
        cx.partials = Some(&find);
        assert!(
            render("{{> me}}\n", &cx)
                .unwrap_err()
                .message
                .contains("deeper than")
        );
    }

    #[test]
    fn mistakes_are_errors_with_their_line() {
        let cases = [
            ("{{nmae}}\n", "line 1: unknown value `nmae`"),
            (
                "\n{{license}}\n",
                "line 2: `license` is not set here; wrap its line in `{{#if license}}`",
            ),
            (
                "{{name | upper}}\n",
                "line 1: unknown filter `upper`; the only one is `yaml`",
            ),
            ("{{name\n", "line 1: `{{` is never closed with `}}`"),
            (
                "{{#if nope}}\n{{/if}}\n",
                "line 1: unknown flag `nope` in `{{#if nope}}`",
            ),
            (
                "x {{#if on}}\n",
                "line 1: `{{#if on}}` must be alone on its line",
            ),
            (
                "{{#if on}}\n",
                "line 1: `{{#if …}}` is never closed with `{{/if}}`",
            ),
            ("{{/if}}\n", "line 1: `{{/if}}` without an open `{{#if …}}`"),
            (
                "{{#if on}}\n{{#else}}\n{{#else}}\n{{/if}}\n",
                "line 3: `{{#else}}` without an open `{{#if …}}`",
            ),
        ];
        for (source, expected) in cases {
            assert_eq!(
                render(source, &cx()).unwrap_err().to_string(),
                expected,
                "{source:?}"
            );
        }
    }

    #[test]
    fn text_without_placeholders_is_unchanged() {
        let source = "plain { braces } and ${CLAUDE_SKILL_DIR}\nno newline at the end";
        assert_eq!(render(source, &cx()).unwrap(), source);
    }
}
