//! The rules `validate` runs, grouped by what they look at.
//!
//! [`check`] runs every rule for one target over one skill, in the order an agent would fail:
//! the file itself, the frontmatter's structure, its YAML, then keys and values. A later stage
//! runs only when the earlier one left something to look at, so a broken file gets one clear
//! error rather than a cascade. Rules never print; they push [`Diagnostic`]s.

mod description;
mod fields;
mod file;
mod frontmatter;
mod keys;
pub(crate) use keys::suggest as keys_suggest;
pub mod name;
pub mod set;

use std::ops::Range;

use super::diagnostic::Diagnostic;
use crate::agent::{Family, Target};
use crate::skill::model::SkillDoc;
use crate::skill::text::SourceText;
use crate::skill::yaml::Yaml;
use crate::skill::{Reading, Skill};

/// What every rule needs to know about the skill it looks at.
pub struct Context<'a> {
    pub skill: &'a Skill,
    pub source: &'a SourceText,
    pub target: Target,
    /// The skill as this target reads it.
    pub reading: &'a Reading,
    pub yaml: &'a Yaml,
    pub doc: &'a SkillDoc,
    /// The opening `---`, where findings about missing keys point.
    pub open: Range<usize>,
}

impl Context<'_> {
    pub(crate) fn family(&self) -> Family {
        self.target.family()
    }

    /// The text of a span of the file.
    pub(crate) fn text(&self, span: &Range<usize>) -> &str {
        &self.source.text()[span.clone()]
    }

    /// "Claude Code falls back to the first body line: "…"".
    pub(crate) fn fallback_note(&self) -> String {
        format!(
            "Claude Code {}",
            fallback_tail(
                crate::agent::claude_code::reading::fallback_line(self.skill.body(self.reading))
                    .as_deref()
            )
        )
    }
}

/// Runs every single-skill rule for `target` over `skill`.
pub fn check(skill: &Skill, target: Target) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    file::check_file_name(skill, target, &mut out);
    if let Some(link) = skill.link_target() {
        out.push(file::broken_link(link));
        return out;
    }
    let source = match skill.source() {
        Ok(source) => source,
        Err(invalid) => {
            out.push(file::invalid_utf8(invalid));
            return out;
        }
    };
    file::check_bom(source, target, &mut out);
    let (Some(reading), Some(canonical)) = (skill.reading_as(target.reader()), skill.reading())
    else {
        return out;
    };
    frontmatter::check_cut(source, target, &reading, canonical, &mut out);
    if let Some(parsed) = frontmatter::check(skill, source, target, &reading, &mut out) {
        let open = reading.region().map_or(0..3, |region| region.open.clone());
        let cx = Context {
            skill,
            source,
            target,
            reading: &reading,
            yaml: &parsed.yaml,
            doc: &parsed.doc,
            open,
        };
        if target == Target::SkillsRef {
            frontmatter::check_strict_yaml(&cx, &mut out);
        }
        keys::check(&cx, &mut out);
        name::check(&cx, &mut out);
        description::check(&cx, &mut out);
        fields::check(&cx, &mut out);
    }
    if target == Target::SkillsRef {
        frontmatter::settle_skills_ref_cut(&mut out);
    }
    out
}

/// What Claude Code shows instead of a description, as the end of a sentence whose subject is
/// Claude Code: "falls back to the first body line: "…"".
fn fallback_tail(fallback: Option<&str>) -> String {
    match fallback {
        Some(text) => format!("falls back to the first body line: \"{text}\""),
        None => "has no body line to fall back to and shows no description".into(),
    }
}

/// Quotes `value` as a YAML double-quoted string.
fn yaml_quote(value: &str) -> String {
    crate::skill::yaml::double_quoted(value)
}
