//! The JSON report: a stable, documented schema (`"version": 1`).
//!
//! ```json
//! { "version": 1,
//!   "tool": { "name": "skillpkg", "version": "0.1.0" },
//!   "skills": [ { "path", "file", "name", "targets", "valid", "errors", "warnings",
//!                 "diagnostics": [ { "code", "name", "severity", "message", "file",
//!                                    "line", "column", "end_line", "end_column",
//!                                    "label", "help", "note", "related", "targets",
//!                                    "level_source" (only when configuration set the level),
//!                                    "fix": null | { "applicability", "message",
//!                                             "edits": [ { "line", "column", "end_line",
//!                                                          "end_column", "text" } ] } } ] } ],
//!   "summary": { "skills", "valid", "invalid", "errors", "warnings" } }
//! ```
//!
//! Lines and columns are 1-based; columns count Unicode scalar values; `end_column` is
//! exclusive. A finding about the whole file has `null` positions. `file` is the file a finding
//! is about: the skill's SKILL.md, or another of its files (then `column` is 1, or `null` with
//! `line` when it is about the whole file).

use std::io::{self, Write};

use serde::Serialize;

use super::{Report, Summary};
use crate::agent::Target;
use crate::check::Checked;
use crate::check::diagnostic::{Diagnostic, Location};
use crate::check::fix::Applicability;
use crate::check::rule::Severity;
use crate::skill::text::SourceText;

/// The schema version; bumped only on incompatible changes.
pub(super) const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    tool: Tool,
    skills: Vec<SkillJson<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct SkillJson<'a> {
    path: String,
    file: String,
    name: Option<&'a str>,
    targets: &'a [Target],
    valid: bool,
    errors: usize,
    warnings: usize,
    diagnostics: Vec<DiagnosticJson<'a>>,
}

#[derive(Serialize)]
struct DiagnosticJson<'a> {
    code: &'static str,
    name: &'static str,
    severity: Severity,
    message: &'a str,
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
    label: Option<&'a str>,
    help: Option<&'a str>,
    note: Option<&'a str>,
    related: Vec<RelatedJson<'a>>,
    targets: &'a [Target],
    fix: Option<FixJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    level_source: Option<&'a str>,
}

#[derive(Serialize)]
struct FixJson<'a> {
    applicability: Applicability,
    message: &'a str,
    edits: Vec<EditJson<'a>>,
}

#[derive(Serialize)]
struct EditJson<'a> {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    text: &'a str,
}

#[derive(Serialize)]
struct RelatedJson<'a> {
    message: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

pub(super) fn print(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    let document = Document {
        version: SCHEMA_VERSION,
        tool: Tool {
            name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
        },
        skills: report.checked.iter().map(skill).collect(),
        summary: report.summary(),
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

fn skill(item: &Checked) -> SkillJson<'_> {
    let file = item.skill.path.display().to_string();
    let name = item
        .skill
        .reading()
        .and_then(|reading| reading.doc.as_ref())
        .and_then(|doc| doc.name.as_deref())
        .and_then(|field| field.value.as_deref().ok());
    SkillJson {
        path: item.skill.dir.display().to_string(),
        name,
        targets: &item.targets,
        valid: item.is_valid(),
        errors: item.count(Severity::Error),
        warnings: item.count(Severity::Warning),
        diagnostics: item
            .diagnostics
            .iter()
            .map(|diagnostic| diagnostic_json(item, diagnostic))
            .collect(),
        file,
    }
}

fn diagnostic_json<'a>(item: &'a Checked, diagnostic: &'a Diagnostic) -> DiagnosticJson<'a> {
    let source = item.skill.display_source();
    let location = item.location_of(diagnostic);
    let file = item.path_of(diagnostic).display().to_string();
    DiagnosticJson {
        code: diagnostic.rule.code,
        name: diagnostic.rule.name,
        severity: diagnostic.severity,
        message: &diagnostic.message,
        file,
        line: location.map(|at| at.start.line),
        column: location.map(|at| at.start.column),
        end_line: location.map(|at| at.end.line),
        end_column: location.map(|at| at.end.column),
        label: diagnostic.label.as_deref(),
        help: diagnostic.help.as_deref(),
        note: diagnostic.note.as_deref(),
        related: diagnostic
            .related
            .iter()
            .map(|related| {
                let at = Location::of(source, &related.span);
                RelatedJson {
                    message: &related.message,
                    line: at.start.line,
                    column: at.start.column,
                    end_line: at.end.line,
                    end_column: at.end.column,
                }
            })
            .collect(),
        targets: &diagnostic.targets,
        fix: diagnostic.fix.as_ref().map(|fix| fix_json(fix, source)),
        level_source: diagnostic.level_source.as_deref(),
    }
}

fn fix_json<'a>(fix: &'a crate::check::fix::Fix, source: &SourceText) -> FixJson<'a> {
    FixJson {
        applicability: fix.applicability,
        message: &fix.message,
        edits: fix
            .edits
            .iter()
            .map(|edit| {
                let at = Location::of(source, &edit.range);
                EditJson {
                    line: at.start.line,
                    column: at.start.column,
                    end_line: at.end.line,
                    end_column: at.end.column,
                    text: &edit.text,
                }
            })
            .collect(),
    }
}
