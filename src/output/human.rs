//! rustc-style diagnostics: the offending line, a caret, notes and help.

use std::io::{self, Write};
use std::ops::Range;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use super::{Report, Summary, plural};
use crate::agent::Target;
use crate::check::Checked;
use crate::check::diagnostic::Diagnostic;
use crate::check::fix::Applicability;
use crate::check::rule::Severity;
use crate::skill::text::SourceText;

pub(super) fn print(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    let renderer = Renderer::styled();
    let all_targets = report.targets();
    for item in report.checked {
        for diagnostic in &item.diagnostics {
            let text = render(item, diagnostic, &all_targets, &renderer);
            writeln!(out, "{text}\n")?;
        }
    }
    Ok(())
}

/// Renders one diagnostic.
fn render(
    item: &Checked,
    diagnostic: &Diagnostic,
    all_targets: &[Target],
    renderer: &Renderer,
) -> String {
    let level = match diagnostic.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let mut title = diagnostic.message.clone();
    // With several targets, say which ones a finding belongs to when not all.
    if all_targets.len() > 1 && diagnostic.targets.len() < all_targets.len() {
        let names: Vec<&str> = diagnostic
            .targets
            .iter()
            .map(|target| target.name())
            .collect();
        title = format!("{title} [{}]", names.join(", "));
    }
    let path = item.path_of(diagnostic).display().to_string();
    let source = item.skill.display_source();
    let title = level.primary_title(title).id(diagnostic.rule.code);
    let mut column_fix = None;
    let mut group: Group<'_> = match (&diagnostic.span, &diagnostic.file) {
        (Some(span), _) if on_a_long_line(source, span) => {
            let (snippet, shown) = window(source, &path, span, diagnostic);
            // The window starts mid-line, so the renderer counts the column from there: the
            // real one goes back into its `path:line:column` once rendered.
            let at = source.position(span.start);
            column_fix = Some((
                format!("{path}:{}:{shown}", at.line),
                format!("{path}:{}:{}", at.line, at.column),
            ));
            title.element(snippet)
        }
        (Some(span), _) => title.element(snippet(source, &path, span, diagnostic)),
        (None, Some(file)) => match file.line {
            Some(line) => title.element(Origin::path(path).line(line)),
            None => title.element(Origin::path(path)),
        },
        (None, None) => title.element(Origin::path(path)),
    };
    if let Some(note) = &diagnostic.note {
        group = group.element(Level::NOTE.message(note.as_str()));
    }
    if let Some(source) = &diagnostic.level_source {
        group = group.element(Level::NOTE.message(source.as_str()));
    }
    if let Some(help) = &diagnostic.help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    if let Some(fix) = &diagnostic.fix {
        let how = match fix.applicability {
            Applicability::Safe => "`skillpkg lint --fix`",
            Applicability::Unsafe => "`skillpkg lint --fix --unsafe-fixes`",
        };
        group = group.element(Level::HELP.message(format!("{how} can {}", fix.message)));
    }
    let out = renderer.render(&[group]);
    match column_fix {
        Some((shown, real)) => out.replacen(&shown, &real, 1),
        None => out,
    }
}

/// The lines around a diagnostic's spans, with the spans moved to match.
fn snippet<'a>(
    source: &'a SourceText,
    path: &str,
    span: &Range<usize>,
    diagnostic: &'a Diagnostic,
) -> Snippet<'a, annotate_snippets::Annotation<'a>> {
    let spans = std::iter::once(span).chain(diagnostic.related.iter().map(|related| &related.span));
    let first_line = spans
        .clone()
        .map(|span| source.position(span.start).line)
        .min()
        .unwrap_or(1);
    let last_line = spans
        .map(|span| source.position(span.end.max(span.start)).line)
        .max()
        .unwrap_or(first_line);
    let start = source.line_range(first_line).start;
    let end = source.line_range(last_line).end.max(start);
    let text = source.slice(start..end);
    let local = |span: &Range<usize>| {
        let from = span.start.clamp(start, end) - start;
        let to = span.end.clamp(start, end) - start;
        from..to.max(from)
    };
    let mut primary = AnnotationKind::Primary.span(local(span));
    if let Some(label) = &diagnostic.label {
        primary = primary.label(label.as_str());
    }
    let mut snippet = Snippet::source(text)
        .line_start(first_line)
        .path(path.to_owned())
        .annotation(primary);
    for related in &diagnostic.related {
        snippet = snippet.annotation(
            AnnotationKind::Context
                .span(local(&related.span))
                .label(related.message.as_str()),
        );
    }
    snippet
}

/// Lines longer than this are shown as a window around the finding: rendering the whole line
/// for each of many findings on it would make the report grow with their product.
const LONG_LINE: usize = 1024;

/// How much of a long line is shown on either side of the finding, in bytes.
const WINDOW: usize = 120;

/// Whether `span` starts on a line longer than [`LONG_LINE`].
fn on_a_long_line(source: &SourceText, span: &Range<usize>) -> bool {
    let line = source.position(span.start).line;
    source.line_range(line).len() > LONG_LINE
}

/// A piece of the long line around `span`, and the column the renderer will count for it.
fn window<'a>(
    source: &'a SourceText,
    path: &str,
    span: &Range<usize>,
    diagnostic: &'a Diagnostic,
) -> (Snippet<'a, annotate_snippets::Annotation<'a>>, usize) {
    let line = source.position(span.start).line;
    let range = source.line_range(line);
    // Offsets within the line from here on.
    let text = source.slice(range.clone());
    let start = span.start.saturating_sub(range.start);
    let end = span.end.max(span.start).saturating_sub(range.start);
    let mut from = start.saturating_sub(WINDOW);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = end.saturating_add(WINDOW).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    let local = start.clamp(from, to) - from..end.clamp(from, to) - from;
    let mut primary = AnnotationKind::Primary.span(local.start..local.end.max(local.start));
    if let Some(label) = &diagnostic.label {
        primary = primary.label(label.as_str());
    }
    let shown = text[from..start.clamp(from, to)].chars().count() + 1;
    let snippet = Snippet::source(&text[from..to])
        .line_start(line)
        .path(path.to_owned())
        .annotation(primary);
    (snippet, shown)
}

/// "Checked 3 skills against agentskills: 2 valid, 1 with errors (2 errors, 1 warning)."
pub(super) fn print_summary(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    // Nothing was checked (every skill file failed to read; the errors say why).
    if report.checked.is_empty() {
        return Ok(());
    }
    let Summary {
        skills,
        valid,
        invalid,
        errors,
        warnings,
    } = report.summary();
    let targets: Vec<&str> = report
        .targets()
        .iter()
        .map(|target| target.name())
        .collect();
    let verb = match report.kind {
        crate::check::rule::Kind::Validate => "Checked",
        crate::check::rule::Kind::Lint => "Linted",
    };
    let checked = format!(
        "{verb} {skills} {} against {}",
        plural(skills, "skill", "skills"),
        targets.join(", ")
    );
    let style = if errors > 0 {
        anstyle::AnsiColor::Red.on_default().bold()
    } else if warnings > 0 {
        anstyle::AnsiColor::Yellow.on_default().bold()
    } else {
        anstyle::AnsiColor::Green.on_default().bold()
    };
    let counts = match (errors, warnings) {
        (0, 0) => "no problems".to_owned(),
        (0, w) => format!("{w} {}", plural(w, "warning", "warnings")),
        (e, 0) => format!("{e} {}", plural(e, "error", "errors")),
        (e, w) => format!(
            "{e} {}, {w} {}",
            plural(e, "error", "errors"),
            plural(w, "warning", "warnings")
        ),
    };
    let verdict = if invalid == 0 {
        if skills == 1 {
            "valid".to_owned()
        } else {
            format!("all {valid} valid")
        }
    } else {
        format!("{valid} valid, {invalid} with errors")
    };
    let fixes = |applicability| {
        report
            .checked
            .iter()
            .flat_map(|item| &item.diagnostics)
            .filter(|d| {
                d.fix
                    .as_ref()
                    .is_some_and(|fix| fix.applicability == applicability)
            })
            .count()
    };
    let (safe, unsafe_) = (fixes(Applicability::Safe), fixes(Applicability::Unsafe));
    let fixable = match (report.kind, safe, unsafe_) {
        (crate::check::rule::Kind::Validate, ..) | (_, 0, 0) => String::new(),
        (_, safe, 0) => format!(" {safe} fixable with `skillpkg lint --fix`."),
        (_, 0, unsafe_) => {
            format!(" {unsafe_} fixable with `skillpkg lint --fix --unsafe-fixes`.")
        }
        (_, safe, unsafe_) => format!(
            " {safe} fixable with `skillpkg lint --fix` ({unsafe_} more with `--unsafe-fixes`)."
        ),
    };
    writeln!(
        out,
        "{style}{checked}: {verdict} ({counts}).{style:#}{fixable}"
    )
}
