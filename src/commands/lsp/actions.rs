//! Findings as the protocol's diagnostics, and the code actions on them: each fix as a quick
//! fix (unsafe ones labelled), suppression comments for a line or the file, and "fix all safe
//! problems", which runs `lint --fix`'s loop on the editor's text.

use std::collections::HashMap;
use std::path::Path;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeDescription,
    DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, NumberOrString, TextEdit, Url,
    WorkspaceEdit,
};

use super::FIX_ALL_KIND;
use super::document::{Document, Encoding};
use super::features::Context;
use super::workspace::Workspace;
use crate::check::diagnostic::Diagnostic;
use crate::check::engine;
use crate::check::fix::{self, Applicability, Fix};
use crate::check::rule::{Rule, Severity, UNUSED_SUPPRESSION};
use crate::commands::rule::upper_first;
use crate::skill::text::SourceText;
use crate::skill::{Skill, folder_name};

/// Where each rule is documented: `docs/rules.md`, one heading per rule.
pub(crate) const RULES_DOC: &str = "https://github.com/skillpkg/skillpkg/blob/main/docs/rules.md";

/// The link to a rule's documentation.
pub(crate) fn rule_url(rule: &Rule) -> Option<Url> {
    Url::parse(&format!(
        "{RULES_DOC}#{}-{}",
        rule.code.to_ascii_lowercase(),
        rule.name
    ))
    .ok()
}

/// The diagnostics of one open file: a SKILL.md's own, or those about another file of its
/// skill; a skillpkg.toml that cannot be read says why.
pub(crate) fn diagnostics_for(
    workspace: &Workspace,
    path: &Path,
    doc: &Document,
    encoding: Encoding,
) -> Vec<lsp_types::Diagnostic> {
    shown(workspace, path, doc, encoding)
        .into_iter()
        .map(|(_, shown)| shown)
        .collect()
}

/// [`diagnostics_for`], each with the finding it shows (none for a configuration error).
fn shown<'a>(
    workspace: &'a Workspace,
    path: &Path,
    doc: &Document,
    encoding: Encoding,
) -> Vec<(Option<&'a Diagnostic>, lsp_types::Diagnostic)> {
    let Some(index) = workspace.skill_of(path) else {
        return config_diagnostics(workspace, path, doc, encoding)
            .into_iter()
            .map(|shown| (None, shown))
            .collect();
    };
    let outcome = workspace.outcome(index);
    let skill = &outcome.checked.skill;
    // Offsets map back through the editor's own text: the linted skill keeps only the lines
    // its findings need, without the map of its `\r\n`s.
    let fresh = SourceText::from_string(doc.text.clone());
    let mut out = Vec::new();
    if skill.path == path {
        if let Some(error) = workspace.config_errors.get(path) {
            out.push((
                None,
                plain(
                    doc.line_range(0, encoding),
                    format!(
                        "{error}; this skill is checked with the default rules until it is fixed"
                    ),
                ),
            ));
        }
        let uri = Url::from_file_path(path).ok();
        for diagnostic in &outcome.checked.diagnostics {
            if diagnostic.file.is_none() {
                let converted = convert(diagnostic, &fresh, doc, uri.as_ref(), encoding);
                out.push((Some(diagnostic), converted));
            }
        }
    } else if let Ok(relative) = path.strip_prefix(&skill.dir) {
        let relative = crate::output::slash_path(relative);
        for diagnostic in &outcome.checked.diagnostics {
            if let Some(file) = &diagnostic.file
                && file.path == relative
            {
                let mut converted = convert(diagnostic, &fresh, doc, None, encoding);
                converted.range =
                    doc.line_range(file.line.map_or(0, |line| line.saturating_sub(1)), encoding);
                out.push((Some(diagnostic), converted));
            }
        }
    }
    out
}

/// A skillpkg.toml that cannot be read, on that file.
fn config_diagnostics(
    workspace: &Workspace,
    path: &Path,
    doc: &Document,
    encoding: Encoding,
) -> Vec<lsp_types::Diagnostic> {
    if path.file_name().is_none_or(|name| name != "skillpkg.toml") {
        return Vec::new();
    }
    let mut errors: Vec<&String> = workspace
        .config_errors
        .values()
        .filter(|error| error.contains(&path.display().to_string()))
        .collect();
    errors.sort();
    errors.dedup();
    errors
        .into_iter()
        .map(|error| plain(doc.line_range(0, encoding), error.clone()))
        .collect()
}

fn plain(range: lsp_types::Range, message: String) -> lsp_types::Diagnostic {
    lsp_types::Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("skillpkg".into()),
        message,
        ..lsp_types::Diagnostic::default()
    }
}

/// The range in `doc` of a span of the normalised text `source`.
pub(crate) fn range_of(
    source: &SourceText,
    doc: &Document,
    span: &std::ops::Range<usize>,
    encoding: Encoding,
) -> lsp_types::Range {
    let start = source.original_edit_offset(span.start);
    let end = source.original_edit_offset(span.end.max(span.start));
    doc.range(start..end, encoding)
}

/// One finding as the protocol's diagnostic.
fn convert(
    diagnostic: &Diagnostic,
    source: &SourceText,
    doc: &Document,
    uri: Option<&Url>,
    encoding: Encoding,
) -> lsp_types::Diagnostic {
    let range = match &diagnostic.span {
        Some(span) => range_of(source, doc, span, encoding),
        None => doc.line_range(0, encoding),
    };
    let mut message = diagnostic.message.clone();
    if let Some(help) = &diagnostic.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    if let Some(note) = &diagnostic.note {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    if let Some(fix) = &diagnostic.fix {
        message.push_str(match fix.applicability {
            Applicability::Safe => "\nfix: ",
            Applicability::Unsafe => "\nfix (unsafe): ",
        });
        message.push_str(&fix.message);
    }
    let related = uri.map(|uri| {
        diagnostic
            .related
            .iter()
            .map(|related| DiagnosticRelatedInformation {
                location: lsp_types::Location {
                    uri: uri.clone(),
                    range: range_of(source, doc, &related.span, encoding),
                },
                message: related.message.clone(),
            })
            .collect::<Vec<_>>()
    });
    lsp_types::Diagnostic {
        range,
        severity: Some(match diagnostic.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(diagnostic.rule.code.into())),
        code_description: rule_url(diagnostic.rule).map(|href| CodeDescription { href }),
        source: Some("skillpkg".into()),
        message,
        related_information: related.filter(|related| !related.is_empty()),
        tags: std::ptr::eq(diagnostic.rule, &raw const UNUSED_SUPPRESSION)
            .then(|| vec![DiagnosticTag::UNNECESSARY]),
        data: None,
    }
}

/// The code actions for a range of an open file.
pub(crate) fn code_actions(
    cx: &Context<'_>,
    params: &CodeActionParams,
) -> Vec<CodeActionOrCommand> {
    let Ok(path) = params.text_document.uri.to_file_path() else {
        return Vec::new();
    };
    let (Some(doc), Some(index)) = (cx.documents.get(&path), cx.workspace.skill_of(&path)) else {
        return Vec::new();
    };
    let outcome = cx.workspace.outcome(index);
    let skill_file = outcome.checked.skill.path == path;
    let uri = &Versioned {
        uri: &params.text_document.uri,
        version: cx.document_changes.then_some(doc.version),
    };
    let wanted = |kind: &CodeActionKind| {
        params.context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|asked| kind.as_str().starts_with(asked.as_str()))
        })
    };
    // The editor's text read afresh: the linted skill keeps only the lines its findings need.
    let dir = path.parent().unwrap_or(Path::new("."));
    let fresh = Skill::from_bytes(path.clone(), folder_name(dir), doc.text.as_bytes().to_vec());
    let source = fresh.display_source();
    let mut actions = Vec::new();
    if wanted(&CodeActionKind::QUICKFIX) {
        let mut offered = std::collections::HashSet::new();
        for (diagnostic, shown) in shown(cx.workspace, &path, doc, cx.encoding) {
            let Some(diagnostic) = diagnostic else {
                continue;
            };
            if !overlaps(&shown.range, &params.range) {
                continue;
            }
            if skill_file && let Some(fix) = &diagnostic.fix {
                actions.push(fix_action(fix, source, doc, uri, &shown, cx.encoding));
            }
            // A load error cannot be suppressed (`validate` fails on it): no comment to offer.
            if skill_file
                && !diagnostic.is_load_error()
                && offered.insert((diagnostic.rule.code, shown.range.start.line))
            {
                actions.extend(suppressions(
                    diagnostic,
                    &fresh,
                    doc,
                    uri,
                    &shown,
                    cx.encoding,
                ));
            }
        }
    }
    if skill_file
        && wanted(&CodeActionKind::new(FIX_ALL_KIND))
        && let Some(action) = fix_all(cx, index, &path, doc, uri)
    {
        actions.push(action);
    }
    actions
        .into_iter()
        .map(CodeActionOrCommand::CodeAction)
        .collect()
}

/// Whether a finding is on the lines asked about: editors ask with the cursor's position, which
/// may be anywhere on the finding's line.
fn overlaps(finding: &lsp_types::Range, asked: &lsp_types::Range) -> bool {
    finding.start.line <= asked.end.line && asked.start.line <= finding.end.line
}

fn fix_action(
    fix: &Fix,
    source: &SourceText,
    doc: &Document,
    uri: &Versioned<'_>,
    shown: &lsp_types::Diagnostic,
    encoding: Encoding,
) -> CodeAction {
    let edits = fix
        .edits
        .iter()
        .map(|edit| TextEdit {
            range: range_of(source, doc, &edit.range, encoding),
            new_text: if source.uses_crlf() {
                edit.text.replace('\n', "\r\n")
            } else {
                edit.text.clone()
            },
        })
        .collect();
    let title = match fix.applicability {
        Applicability::Safe => upper_first(&fix.message),
        Applicability::Unsafe => format!(
            "{} (unsafe: changes what an agent sees; review it)",
            upper_first(&fix.message)
        ),
    };
    CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![shown.clone()]),
        edit: Some(one_file(uri, edits)),
        is_preferred: Some(fix.applicability == Applicability::Safe),
        ..CodeAction::default()
    }
}

/// The file an action edits, with the version the edit was made for when the editor can
/// refuse an edit of another version (`documentChanges`).
pub(crate) struct Versioned<'a> {
    pub uri: &'a Url,
    pub version: Option<i32>,
}

fn one_file(to: &Versioned<'_>, edits: Vec<TextEdit>) -> WorkspaceEdit {
    match to.version {
        Some(version) => WorkspaceEdit {
            document_changes: Some(lsp_types::DocumentChanges::Edits(vec![
                lsp_types::TextDocumentEdit {
                    text_document: lsp_types::OptionalVersionedTextDocumentIdentifier {
                        uri: to.uri.clone(),
                        version: Some(version),
                    },
                    edits: edits.into_iter().map(lsp_types::OneOf::Left).collect(),
                },
            ])),
            ..WorkspaceEdit::default()
        },
        None => WorkspaceEdit {
            changes: Some(HashMap::from([(to.uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        },
    }
}

/// "Suppress on this line" (where a comment can go on the line before) and "in this file".
fn suppressions(
    diagnostic: &Diagnostic,
    skill: &Skill,
    doc: &Document,
    uri: &Versioned<'_>,
    shown: &lsp_types::Diagnostic,
    encoding: Encoding,
) -> Vec<CodeAction> {
    let code = diagnostic.rule.code;
    let eol = if doc.text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let region = skill
        .reading()
        .and_then(|reading| reading.region().cloned());
    let source = skill.display_source();
    let mut actions = Vec::new();
    let action = |title: String, at: usize, text: String| CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![shown.clone()]),
        edit: Some(one_file(
            uri,
            vec![TextEdit {
                range: doc.range(at..at, encoding),
                new_text: text,
            }],
        )),
        ..CodeAction::default()
    };
    if let Some(span) = &diagnostic.span {
        let line = shown.range.start.line as usize;
        let line_start = doc.line_start(line);
        let line_text = &doc.text[line_start..];
        let indent: String = line_text
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        let in_frontmatter = region.as_ref().is_some_and(|region| {
            region.yaml.contains(&span.start) || span.start == region.yaml.end
        });
        let comment = if in_frontmatter {
            // Only before a line that starts a top-level entry: inside a multi-line value the
            // comment would become part of it.
            let starts_entry = indent.is_empty()
                && skill
                    .reading()
                    .and_then(|reading| reading.doc.as_ref())
                    .is_some_and(|doc_| {
                        doc_.entries.iter().any(|(key, _)| {
                            source.original_edit_offset(key.span.start) == line_start
                        })
                    });
            starts_entry.then(|| format!("# skillpkg-disable-next-line {code}{eol}"))
        } else {
            let body_start = region.as_ref().map_or(0, |region| region.body);
            let text = source.text();
            let fences = crate::check::lint::fences(text, body_start);
            let normalised = doc.normalised(line_start);
            // Not where a comment would become text the model reads: in a fenced or indented
            // code block, or inside another HTML comment.
            let before = &text[body_start.min(normalised)..normalised];
            let in_comment = before
                .rfind("<!--")
                .is_some_and(|open| before.rfind("-->").is_none_or(|close| close < open));
            let indented_code = indent.starts_with('\t') || indent.len() >= 4;
            (!crate::check::lint::in_ranges(&fences, normalised) && !in_comment && !indented_code)
                .then(|| format!("{indent}<!-- skillpkg-disable-next-line {code} -->{eol}"))
        };
        if let Some(comment) = comment {
            actions.push(action(
                format!("Suppress {code} ({}) on this line", diagnostic.rule.name),
                line_start,
                comment,
            ));
        }
    }
    let (at, comment) = match &region {
        Some(region) => (
            source.original_edit_offset(region.yaml.start),
            format!("# skillpkg-disable-file {code}{eol}"),
        ),
        // Without frontmatter (or with an unclosed one), at the end: the start of the file
        // is where an agent looks for `---`.
        None if doc.text.is_empty() || doc.text.ends_with('\n') || doc.text.ends_with('\r') => (
            doc.text.len(),
            format!("<!-- skillpkg-disable-file {code} -->{eol}"),
        ),
        None => (
            doc.text.len(),
            format!("{eol}<!-- skillpkg-disable-file {code} -->{eol}"),
        ),
    };
    actions.push(action(
        format!("Suppress {code} ({}) in this file", diagnostic.rule.name),
        at,
        comment,
    ));
    actions
}

/// "Fix all safe problems in this file", when the file has a safe fix. An editor that
/// resolves actions gets it without its edit, which `codeAction/resolve` computes
/// ([`resolve_fix_all`]): the fix loop then runs only when the action is chosen.
fn fix_all(
    cx: &Context<'_>,
    index: usize,
    path: &Path,
    doc: &Document,
    uri: &Versioned<'_>,
) -> Option<CodeAction> {
    let outcome = cx.workspace.outcome(index);
    let safe = outcome
        .checked
        .diagnostics
        .iter()
        .filter(|diagnostic| {
            diagnostic.file.is_none()
                && diagnostic
                    .fix
                    .as_ref()
                    .is_some_and(|fix| fix.applicability == Applicability::Safe)
        })
        .count();
    if safe == 0 {
        return None;
    }
    let mut action = CodeAction {
        title: "Fix all safe problems in this file".to_owned(),
        kind: Some(CodeActionKind::new(FIX_ALL_KIND)),
        ..CodeAction::default()
    };
    if cx.resolve_edits {
        action.data = Some(serde_json::json!({ "uri": uri.uri, "version": doc.version }));
        return Some(action);
    }
    let (fixed, edit) = fix_all_edit(cx, index, path, doc, uri)?;
    action.title = fix_all_title(fixed);
    action.edit = Some(edit);
    Some(action)
}

fn fix_all_title(fixed: usize) -> String {
    format!(
        "Fix all safe problems in this file ({fixed} {})",
        crate::output::plural(fixed, "fix", "fixes")
    )
}

/// Every safe fix, applied round after round as `lint --fix` does, as one edit of the file.
fn fix_all_edit(
    cx: &Context<'_>,
    index: usize,
    path: &Path,
    doc: &Document,
    uri: &Versioned<'_>,
) -> Option<(usize, WorkspaceEdit)> {
    let (_, _, targets, _) = cx.workspace.job(index);
    let bundle = cx.workspace.bundle(index, cx.documents);
    let settings = cx.workspace.settings(index);
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir_name = folder_name(dir);
    let fixing = fix::fix_until_stable(doc.text.as_bytes(), Some(false), |bytes| {
        let skill = Skill::from_bytes(path.to_path_buf(), dir_name.clone(), bytes.to_vec());
        engine::analyse(skill, &bundle, targets, &settings, cx.workspace.cwd())
    });
    if fixing.fixed == 0 {
        return None;
    }
    let text = String::from_utf8(fixing.bytes).ok()?;
    let whole = lsp_types::Range::new(lsp_types::Position::new(0, 0), doc.end(cx.encoding));
    let edit = one_file(
        uri,
        vec![TextEdit {
            range: whole,
            new_text: text,
        }],
    );
    Some((fixing.fixed, edit))
}

/// `codeAction/resolve` of "fix all": the edit, for the version of the file the action was
/// offered for; `Err` when the file changed since.
pub(crate) fn resolve_fix_all(
    cx: &Context<'_>,
    mut action: CodeAction,
) -> anyhow::Result<CodeAction> {
    let data = action.data.take().unwrap_or_default();
    let uri = data["uri"]
        .as_str()
        .and_then(|uri| Url::parse(uri).ok())
        .ok_or_else(|| anyhow::anyhow!("not an action skillpkg offered"))?;
    let version = data["version"].as_i64();
    let path = uri
        .to_file_path()
        .map_err(|()| anyhow::anyhow!("`{uri}` is not a file"))?;
    let doc = cx
        .documents
        .get(&path)
        .ok_or_else(|| anyhow::anyhow!("{} is not open", path.display()))?;
    if version != Some(i64::from(doc.version)) {
        return Err(ContentModified.into());
    }
    let index = cx
        .workspace
        .skill_of(&path)
        .ok_or_else(|| anyhow::anyhow!("{} is in no skill", path.display()))?;
    let to = Versioned {
        uri: &uri,
        version: cx.document_changes.then_some(doc.version),
    };
    if let Some((fixed, edit)) = fix_all_edit(cx, index, &path, doc, &to) {
        action.title = fix_all_title(fixed);
        action.edit = Some(edit);
    }
    Ok(action)
}

/// The file changed between the offer of an action and its resolution.
#[derive(Debug, thiserror::Error)]
#[error("the file changed since the action was offered")]
pub(crate) struct ContentModified;
