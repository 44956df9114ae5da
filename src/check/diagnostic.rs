//! The one diagnostic type every rule returns and every reporter prints.

use std::ops::Range;

use super::fix::Fix;
use super::rule::{Rule, Severity};
use crate::agent::Target;
use crate::skill::text::{Position, SourceText};

/// Another place in the same file that explains a finding ("first defined here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub span: Range<usize>,
    pub message: String,
}

/// A file of the skill other than SKILL.md that a finding is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRef {
    /// Relative to the skill folder, with `/` separators.
    pub path: String,
    /// 1-based line, when the finding is about one line of it.
    pub line: Option<usize>,
}

/// Where a finding is: its rule's code, its span and the file (and line) it is about. Findings
/// of different targets at one place are merged into one.
pub(crate) type Place = (
    &'static str,
    Option<(usize, usize)>,
    Option<(String, Option<usize>)>,
);

/// A finding about one skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: &'static Rule,
    pub severity: Severity,
    pub message: String,
    /// Byte range in the skill file's normalised text; `None` when the finding is about the file
    /// as a whole.
    pub span: Option<Range<usize>>,
    /// Short text under the primary span.
    pub label: Option<String>,
    pub related: Vec<Related>,
    /// What to do about it.
    pub help: Option<String>,
    /// Background: which agent does what.
    pub note: Option<String>,
    /// The targets under which this finding was raised.
    pub targets: Vec<Target>,
    /// A change that resolves it.
    pub fix: Option<Fix>,
    /// Set when the finding is about another file of the skill; `span` is then `None`.
    pub file: Option<FileRef>,
    /// Why the severity is what it is, when configuration set it.
    pub level_source: Option<String>,
}

impl Diagnostic {
    /// Whether the finding is one `validate` fails on: the skill does not load in a target (its
    /// YAML does not parse, it has no frontmatter, …). A suppression comment cannot hide it,
    /// so `lint` fails wherever `validate` does.
    pub fn is_load_error(&self) -> bool {
        self.severity == Severity::Error && self.rule.kind == super::rule::Kind::Validate
    }

    /// Where it is, as a key for merging findings without comparing each with every other.
    pub fn place(&self) -> Place {
        (
            self.rule.code,
            self.span.as_ref().map(|span| (span.start, span.end)),
            self.file
                .as_ref()
                .map(|file| (file.path.clone(), file.line)),
        )
    }

    pub fn new(rule: &'static Rule, severity: Severity, message: impl Into<String>) -> Self {
        Self {
            rule,
            severity,
            message: message.into(),
            span: None,
            label: None,
            related: Vec::new(),
            help: None,
            note: None,
            targets: Vec::new(),
            fix: None,
            file: None,
            level_source: None,
        }
    }

    /// An error of `rule`.
    pub fn error(rule: &'static Rule, message: impl Into<String>) -> Self {
        Self::new(rule, Severity::Error, message)
    }

    /// A warning of `rule`.
    pub fn warning(rule: &'static Rule, message: impl Into<String>) -> Self {
        Self::new(rule, Severity::Warning, message)
    }

    #[must_use]
    pub fn at(mut self, span: Range<usize>) -> Self {
        self.span = Some(span);
        self
    }

    #[must_use]
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    #[must_use]
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    #[must_use]
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    #[must_use]
    pub(crate) fn related(mut self, span: Range<usize>, message: impl Into<String>) -> Self {
        self.related.push(Related {
            span,
            message: message.into(),
        });
        self
    }

    #[must_use]
    pub fn fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    /// About `path` (relative to the skill folder), optionally one line of it.
    #[must_use]
    pub(crate) fn in_file(mut self, path: impl Into<String>, line: Option<usize>) -> Self {
        self.file = Some(FileRef {
            path: path.into(),
            line,
        });
        self.span = None;
        self
    }

    /// Where the finding starts and ends in the original file, if it has a span.
    pub fn location(&self, source: &SourceText) -> Option<Location> {
        self.span.as_ref().map(|span| Location::of(source, span))
    }
}

/// A span resolved to lines and columns of the original file (1-based; the end column is
/// exclusive, as in SARIF and rustc's JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub start: Position,
    pub end: Position,
}

impl Location {
    pub fn of(source: &SourceText, span: &Range<usize>) -> Self {
        Self {
            start: source.position(span.start),
            end: source.position(span.end.max(span.start)),
        }
    }
}
