//! Checking skills: rules, targets, configuration and the findings they produce.
//!
//! [`check_skill`] runs the rules for every requested target and merges what they say: the same
//! finding raised by two targets is reported once, at the higher severity, listing both targets.
//! [`check_set`] then runs the rules that compare skills with each other.

pub mod config;
pub mod diagnostic;
pub mod engine;
pub mod fix;
pub mod lint;
pub mod rule;
pub mod rules;

use std::collections::HashMap;

use crate::agent::Target;
use diagnostic::Diagnostic;
use rule::Severity;

use crate::skill::Skill;

/// A skill and everything found about it.
#[derive(Clone, Debug)]
pub struct Checked {
    pub skill: Skill,
    /// The targets it was checked against.
    pub targets: Vec<Target>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == severity)
            .count()
    }

    /// No error for any target.
    pub fn is_valid(&self) -> bool {
        self.count(Severity::Error) == 0
    }

    /// The file a finding is about: SKILL.md, or another file of the skill.
    pub(crate) fn path_of(&self, diagnostic: &Diagnostic) -> std::path::PathBuf {
        match &diagnostic.file {
            Some(file) => self.skill.dir.join(&file.path),
            None => self.skill.path.clone(),
        }
    }

    /// Where a finding is, in lines and columns of its file; a finding about a line of another
    /// file points at the line's start.
    pub(crate) fn location_of(&self, diagnostic: &Diagnostic) -> Option<diagnostic::Location> {
        match &diagnostic.file {
            Some(file) => file.line.map(|line| {
                let at = crate::skill::text::Position { line, column: 1 };
                diagnostic::Location { start: at, end: at }
            }),
            None => diagnostic.location(self.skill.display_source()),
        }
    }

    /// Where the last text a finding points at ends: what a report needs of the skill file.
    pub(crate) fn reported_end(&self) -> usize {
        self.diagnostics
            .iter()
            .flat_map(|d| d.span.iter().chain(d.related.iter().map(|r| &r.span)))
            .map(|span| span.end)
            .max()
            .unwrap_or(0)
    }

    /// Sorts findings by file (SKILL.md first), position (file-level first), then severity,
    /// then code.
    pub fn sort(&mut self) {
        self.diagnostics.sort_by(|a, b| {
            let file = |d: &Diagnostic| d.file.as_ref().map(|f| (f.path.clone(), f.line));
            let position = |d: &Diagnostic| d.span.as_ref().map(|span| (span.start, span.end));
            file(a)
                .cmp(&file(b))
                .then(position(a).cmp(&position(b)))
                .then(b.severity.cmp(&a.severity))
                .then(a.rule.code.cmp(b.rule.code))
        });
    }
}

/// Checks one skill against `targets`.
pub fn check_skill(skill: Skill, targets: &[Target]) -> Checked {
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    // Where each finding is, so that merging stays linear in the findings.
    let mut seen_at: HashMap<diagnostic::Place, Vec<usize>> = HashMap::new();
    for &target in targets {
        let before = diagnostics.len();
        for mut found in rules::check(&skill, target) {
            found.targets = vec![target];
            // Merge only with findings of other targets: one target may raise the same rule
            // twice at one place on purpose. A merged finding keeps the highest severity and
            // lists the targets that raised it at that severity.
            let key = found.place();
            let earlier = seen_at.get(&key).and_then(|indexes| {
                indexes.iter().copied().find(|&index| {
                    index < before
                        && diagnostics[index].rule == found.rule
                        && !diagnostics[index].targets.contains(&target)
                })
            });
            match earlier {
                Some(index) if found.severity > diagnostics[index].severity => {
                    diagnostics[index] = found;
                }
                Some(index) if found.severity == diagnostics[index].severity => {
                    diagnostics[index].targets.push(target);
                }
                Some(_) => {}
                None => {
                    seen_at.entry(key).or_default().push(diagnostics.len());
                    diagnostics.push(found);
                }
            }
        }
    }
    let mut checked = Checked {
        skill,
        targets: targets.to_vec(),
        diagnostics,
    };
    checked.sort();
    checked
}

/// Runs the rules that compare skills; `checked` must be in the order findings are reported.
pub fn check_set(checked: &mut [Checked]) {
    rules::set::check_duplicate_names(checked);
    for item in checked {
        item.sort();
    }
}
