//! What a version's web page says about its files, worked out once when it is published: the
//! file list, the frontmatter, the line Claude Code's skill listing gives it and what `lint`
//! finds. A page view then costs a lookup, not a lint run.
//!
//! Nothing here re-implements an agent: the listing line is [`crate::render::claude_code`]'s
//! (what `skillpkg preview` prints), the findings are [`crate::check::engine`]'s (what
//! `skillpkg lint` reports).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::agent::Target;
use crate::agent::claude_code::{DEFAULT_MODEL, Model};
use crate::check::engine::{self, CliRules, FixMode, Settings};
use crate::render::claude_code::{self, EntryStatus, IndexOptions};
use crate::render::view::{Scope, SkillView};
use crate::skill::Skill;
use crate::skill::yaml::NodeKind;

/// The targets a published skill is linted for: the open spec, and Claude Code, whose
/// listing the page shows.
pub(crate) const LINT_TARGETS: &[Target] = &[Target::AgentSkills, Target::ClaudeCode];

/// Everything a version's page shows that comes from its files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Review {
    /// Every file, SKILL.md included, sorted by path.
    pub files: Vec<FileEntry>,
    /// The frontmatter's top-level keys in order, each with its value as text.
    pub frontmatter: Vec<(String, String)>,
    pub listing: ListingLine,
    pub findings: Vec<Finding>,
}

/// One file of the archive.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileEntry {
    /// Relative to the skill's folder, `/`-separated.
    pub path: String,
    pub size: u64,
    pub executable: bool,
    /// The archive entry it was extracted from (its index in the central directory): the file
    /// page reads exactly what `install` writes, never a look-alike found by name.
    #[serde(default)]
    pub entry: Option<usize>,
}

/// The skill's entry in Claude Code's skill listing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ListingLine {
    /// The line exactly as the model gets it; `None` when Claude Code does not list the skill.
    pub line: Option<String>,
    /// Its length in characters, and its estimated tokens.
    pub chars: usize,
    pub tokens: usize,
    /// Why the line is not the whole description, or why the skill is not listed.
    pub note: Option<String>,
    /// Which Claude Code and model this is.
    pub agent: String,
}

/// One lint finding.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Finding {
    pub code: String,
    pub name: String,
    /// `error` or `warning`.
    pub severity: String,
    pub message: String,
    /// The file it is about (SKILL.md unless another) and the line, when it has one.
    pub file: String,
    pub line: Option<usize>,
}

/// Reviews the skill unpacked in `dir` (its SKILL.md loaded as `skill`), whose files are
/// `files` (relative paths and sizes), extracted from the archive entries `entries`.
pub(crate) fn review(
    dir: &Path,
    skill: &Skill,
    files: &[(String, u64)],
    entries: &[usize],
) -> Review {
    let mut entries: Vec<FileEntry> = files
        .iter()
        .enumerate()
        .map(|(at, (path, size))| FileEntry {
            executable: fs_err::metadata(dir.join(path))
                .is_ok_and(|metadata| crate::pack::select::is_executable(&metadata)),
            path: path.clone(),
            size: *size,
            entry: entries.get(at).copied(),
        })
        .collect();
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let others: Vec<String> = entries
        .iter()
        .map(|file| file.path.clone())
        .filter(|path| path != "SKILL.md")
        .collect();
    Review {
        frontmatter: frontmatter(skill),
        listing: listing_line(skill, others.clone()),
        findings: findings(dir, &others),
        files: entries,
    }
}

/// The frontmatter's keys in source order: a scalar as its value, anything else as written.
fn frontmatter(skill: &Skill) -> Vec<(String, String)> {
    let (Ok(source), Some(reading)) = (skill.source(), skill.reading()) else {
        return Vec::new();
    };
    let (Some(Ok(yaml)), Some(doc)) = (&reading.yaml, &reading.doc) else {
        return Vec::new();
    };
    doc.entries
        .iter()
        .map(|(key, value)| {
            let node = yaml.resolve(*value);
            let text = match &node.kind {
                NodeKind::Scalar(scalar) => scalar.value.clone(),
                _ => source
                    .text()
                    .get(node.span.clone())
                    .unwrap_or_default()
                    .trim()
                    .to_owned(),
            };
            (key.value.clone(), text)
        })
        .collect()
}

/// The skill's line in Claude Code's listing, as `skillpkg preview` renders it for the
/// default model with no other skills and no settings.
fn listing_line(skill: &Skill, resources: Vec<String>) -> ListingLine {
    let model = Model::named(DEFAULT_MODEL);
    let agent = format!("Claude Code 2.1.332 with {}", model.name);
    let Some(view) = SkillView::new(skill, Scope::Project, Target::ClaudeCode, resources, false)
    else {
        return ListingLine {
            note: Some("SKILL.md is not UTF-8: Claude Code cannot read it".into()),
            agent,
            ..ListingLine::default()
        };
    };
    let index = claude_code::index(&[view], &IndexOptions::new(model));
    let line = index
        .text
        .lines()
        .find(|line| line.starts_with("- "))
        .map(str::to_owned);
    let note = match (index.left_out.first(), index.entries.first()) {
        (Some((_, why)), _) => Some(format!("not listed: {why}")),
        (None, Some(entry)) => match &entry.status {
            EntryStatus::Full => None,
            EntryStatus::Cut { kept, total } => Some(format!(
                "cut: the model sees {kept} of {total} characters of the description, then `…`"
            )),
            EntryStatus::NameOnly { lost, reason } => Some(format!(
                "name only: the model loses all {lost} characters of the description ({reason})"
            )),
        },
        (None, None) => None,
    };
    ListingLine {
        chars: line.as_deref().map_or(0, |line| line.chars().count()),
        tokens: line.as_deref().map_or(0, crate::agent::estimate_tokens),
        line,
        note,
        agent,
    }
}

/// What `skillpkg lint --target agentskills,claude-code` finds in the skill in `dir`, with
/// no configuration.
fn findings(dir: &Path, others: &[String]) -> Vec<Finding> {
    let files: Vec<_> = others.iter().map(|path| dir.join(path)).collect();
    let cli = CliRules::default();
    let settings = Settings {
        cli: &cli,
        config: None,
    };
    let Ok(outcome) = engine::lint_file(
        &dir.join("SKILL.md"),
        &files,
        LINT_TARGETS,
        &settings,
        FixMode::Off,
        dir,
        false,
    ) else {
        return Vec::new();
    };
    let checked = outcome.checked;
    checked
        .diagnostics
        .iter()
        .map(|diagnostic| Finding {
            code: diagnostic.rule.code.to_owned(),
            name: diagnostic.rule.name.to_owned(),
            severity: diagnostic.severity.as_str().to_owned(),
            message: diagnostic.message.clone(),
            file: diagnostic
                .file
                .as_ref()
                .map_or_else(|| "SKILL.md".to_owned(), |file| file.path.clone()),
            line: checked
                .location_of(diagnostic)
                .map(|location| location.start.line),
        })
        .collect()
}
