//! How Claude Code reads SKILL.md: its frontmatter (cut at the first `---`, then YAML, and when
//! that fails, a second attempt with risky values quoted) and the body line it shows when there
//! is no description. Ground truth: `docs/research/rendering-and-marketplaces.md` A1.1 and
//! `docs/research/claude-code-captures.md` §3.

use std::borrow::Cow;
use std::ops::Range;

use crate::agent::Target;
use crate::skill::frontmatter::{Region, Split};
use crate::skill::model::SkillDoc;
use crate::skill::text::SourceText;
use crate::skill::yaml::{self, Yaml};
use crate::skill::{Reading, Skill};

/// How `target` (a Claude Code version) reads `skill`: its reading of the file, and the typed
/// frontmatter after its cut at the first `---` and its quote-and-retry of broken YAML (`None`
/// when Claude Code ignores the frontmatter: missing, unclosed, unparsable even after the
/// retry, empty, or not a mapping). `None` altogether when the file is not text.
pub fn read(skill: &Skill, target: Target) -> Option<(Cow<'_, Reading>, Option<SkillDoc>)> {
    let source = skill.source().ok()?;
    let reading = skill.reading_as(target.reader())?;
    let doc = frontmatter(source, &reading);
    Some((reading, doc))
}

/// The typed frontmatter of `reading` as Claude Code takes it (see [`read`]).
fn frontmatter(source: &SourceText, reading: &Reading) -> Option<SkillDoc> {
    let Split::Found(region) = &reading.split else {
        return None;
    };
    if let Ok(yaml) = reading.yaml.as_ref()? {
        yaml.root()?;
        reading.doc.clone()
    } else {
        let retried = retry(source, region)?;
        retried.root()?;
        SkillDoc::from_yaml(&retried)
    }
}

/// Claude Code's fallback description: the first non-empty body line, leading `#`s removed,
/// cut to 97 characters and `...` when longer than 100 (captures §3).
pub(crate) fn fallback_line(body: &str) -> Option<String> {
    let line = body.lines().map(str::trim).find(|line| !line.is_empty())?;
    let text = line.trim_start_matches('#').trim();
    if text.is_empty() {
        return None;
    }
    if text.chars().count() > 100 {
        Some(format!("{}...", text.chars().take(97).collect::<String>()))
    } else {
        Some(text.to_owned())
    }
}

/// One line of the frontmatter as Claude Code's retry rewrote it.
struct LineMap {
    new_start: usize,
    original: Range<usize>,
    /// Where the quoted value starts, in the rewritten text and in the original.
    quoted: Option<(usize, usize)>,
}

/// Claude Code's second attempt at broken YAML: every top-level `key: value` line whose value
/// contains `{}[]*&#!|>%@` or a backtick, or `: `, and is not already quoted, is rewritten as
/// `key: "value"`, then parsed again (`docs/research/rendering-and-marketplaces.md` A1.1). Spans
/// of the result point into `source`.
pub fn retry(source: &SourceText, region: &Region) -> Option<Yaml> {
    let original = &source.text()[region.yaml.clone()];
    let mut rewritten = String::with_capacity(original.len() + 16);
    let mut lines = Vec::new();
    let mut offset = region.yaml.start;
    let mut changed = false;
    for line in original.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let new_start = rewritten.len();
        let mut quoted = None;
        match retry_quote(content) {
            Some((key, value)) => {
                changed = true;
                rewritten.push_str(key);
                rewritten.push_str(": ");
                let value_start = offset + content.len() - value.len();
                quoted = Some((rewritten.len(), value_start));
                rewritten.push_str(&yaml::double_quoted(value));
                rewritten.push_str(&line[content.len()..]);
            }
            None => rewritten.push_str(line),
        }
        lines.push(LineMap {
            new_start,
            original: offset..offset + content.len(),
            quoted,
        });
        offset += line.len();
    }
    if !changed {
        return None;
    }
    let mut yaml = yaml::parse(&rewritten, 0..rewritten.len()).ok()?;
    let end = region.yaml.end;
    yaml.map_offsets(|at| {
        let index = lines
            .partition_point(|line| line.new_start <= at)
            .saturating_sub(1);
        let Some(line) = lines.get(index) else {
            return end;
        };
        let within = at - line.new_start;
        let mapped = match line.quoted {
            Some((new_value, original_value)) if at >= new_value => {
                original_value + (at - new_value).saturating_sub(1)
            }
            _ => line.original.start + within,
        };
        mapped.min(line.original.end)
    });
    Some(yaml)
}

/// `^([a-zA-Z_-]+):` on one line: the key Claude Code's retry looks for, and what follows the
/// colon.
pub(crate) fn retry_key(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-')
    {
        return None;
    }
    Some((key, &line[colon + 1..]))
}

/// The key and value of a line Claude Code's retry would quote.
fn retry_quote(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = retry_key(line)?;
    let value = rest.trim_start();
    if value.len() == rest.len() || value.is_empty() {
        return None;
    }
    let quoted = (value.len() >= 2 && value.starts_with('"') && value.ends_with('"'))
        || (value.len() >= 2 && value.starts_with('\'') && value.ends_with('\''))
        || value == "\""
        || value == "'";
    let special = value.contains([
        '{', '}', '[', ']', '*', '&', '#', '!', '|', '>', '%', '@', '`',
    ]) || value.contains(": ");
    (!quoted && special).then_some((key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_takes_the_first_non_empty_line() {
        assert_eq!(
            fallback_line("\n\n# Heading acts as description\nx\n").as_deref(),
            Some("Heading acts as description")
        );
        let long = "x".repeat(120);
        let cut = fallback_line(&long).unwrap();
        assert_eq!(cut.chars().count(), 100);
        assert!(cut.ends_with("..."));
        assert_eq!(fallback_line("  \n"), None);
    }

    #[test]
    fn retry_quotes_lines_the_way_claude_code_does() {
        assert_eq!(
            retry_quote("description: Use when: x"),
            Some(("description", "Use when: x"))
        );
        assert_eq!(
            retry_quote("paths: src/**/*.py"),
            Some(("paths", "src/**/*.py"))
        );
        assert_eq!(retry_quote("description: \"quoted: x\""), None);
        assert_eq!(retry_quote("  nested: a: b"), None);
        assert_eq!(retry_quote("key2: a: b"), None);
        assert_eq!(retry_quote("name: plain"), None);
    }

    #[test]
    fn retried_spans_point_into_the_original_text() {
        let text = "---\nname: x\ndescription: Use when: the user asks\n---\n";
        let source = SourceText::from_string(text.into());
        let Split::Found(region) = crate::skill::frontmatter::split(
            text,
            false,
            crate::skill::frontmatter::Reader::SKILLPKG,
        ) else {
            panic!()
        };
        let yaml = retry(&source, &region).unwrap();
        let doc = SkillDoc::from_yaml(&yaml).unwrap();
        let description = doc.description.unwrap();
        assert_eq!(description.value.unwrap(), "Use when: the user asks");
        assert_eq!(&text[description.span], "Use when: the user asks");
        assert_eq!(&text[doc.name.unwrap().span], "x");
    }
}
