//! The lint engine: validate's and lint's rules over one skill, filtered by the command line's
//! and `skillpkg.toml`'s rule choices and by suppression comments, with fixes applied until the
//! text is stable ([`lint_file`]), and the rules across skills ([`across_skills`]). `lint`,
//! and any other front end (the fuzz properties, an editor), run this one engine, so they
//! cannot disagree.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use crate::agent::Target;
use crate::check::config::{Config, Level, Selector, lexical_absolute};
use crate::check::diagnostic::Diagnostic;
use crate::check::fix;
use crate::check::lint::{self, Bundle, set, suppress::Suppressions};
use crate::check::rule::{AMBIGUOUS_SCALAR, Rule, Severity};
use crate::check::{Checked, check_set, check_skill};
use crate::fsx;
use crate::skill::{Skill, folder_name, read_skill_file};

/// What the command line says about rules.
#[derive(Debug, Default)]
pub struct CliRules {
    pub select: Vec<Selector>,
    pub extend_select: Vec<Selector>,
    pub ignore: Vec<Selector>,
}

/// The rule settings for one skill: the command line's and its skillpkg.toml's.
pub struct Settings<'a> {
    pub cli: &'a CliRules,
    pub config: Option<Arc<Config>>,
}

impl Settings<'_> {
    /// The command line goes first: `--ignore` wins, and a rule named on its own in `--select`
    /// or `--extend-select` runs even if skillpkg.toml ignores it. Otherwise `--select` replaces
    /// the file's `select` (default: all), both `extend-select`s add, and the file's `ignore`
    /// removes.
    pub fn selected(&self, rule: &Rule) -> bool {
        let any = |selectors: &[Selector]| selectors.iter().any(|s| s.matches(rule));
        if any(&self.cli.ignore) {
            return false;
        }
        let named = |selectors: &[Selector]| {
            selectors
                .iter()
                .any(|s| matches!(s, Selector::Rule(named) if std::ptr::eq(*named, rule)))
        };
        if named(&self.cli.select) || named(&self.cli.extend_select) {
            return true;
        }
        let config = self.config.as_deref().map(|config| &config.lint);
        let base = if self.cli.select.is_empty() {
            config.and_then(|c| c.select.as_deref()).is_none_or(any)
        } else {
            any(&self.cli.select)
        };
        let on =
            base || any(&self.cli.extend_select) || config.is_some_and(|c| any(&c.extend_select));
        on && !config.is_some_and(|c| any(&c.ignore))
    }

    pub fn level(&self, rule: &Rule) -> Option<Level> {
        let config = self.config.as_deref()?;
        config
            .lint
            .levels
            .iter()
            .rev()
            .find(|(configured, _)| std::ptr::eq(*configured, rule))
            .map(|(_, level)| *level)
    }

    /// Drops findings of rules that are not selected, turned off, or ignored for their path;
    /// applies configured levels.
    pub fn filter(
        &self,
        diagnostics: &mut Vec<Diagnostic>,
        checked_path: &dyn Fn(&Diagnostic) -> PathBuf,
        cwd: &Path,
    ) {
        diagnostics.retain_mut(|diagnostic| {
            let rule = diagnostic.rule;
            if !self.selected(rule) {
                return false;
            }
            match self.level(rule) {
                Some(Level::Off) => return false,
                Some(level) => {
                    let severity = if level == Level::Error {
                        Severity::Error
                    } else {
                        Severity::Warning
                    };
                    if let Some(config) = &self.config {
                        diagnostic.severity = severity;
                        diagnostic.level_source = Some(format!(
                            "`{}` is set to \"{}\" in {}",
                            rule.name,
                            severity.as_str(),
                            config.path.display()
                        ));
                    }
                }
                None => {}
            }
            if let Some(config) = &self.config
                && !config.lint.per_path_ignores.is_empty()
            {
                let path = lexical_absolute(cwd, &checked_path(diagnostic));
                if let Ok(relative) = path.strip_prefix(&config.dir) {
                    for (glob, selectors) in &config.lint.per_path_ignores {
                        let skill_dir = relative.parent().unwrap_or(relative);
                        if (glob.is_match(relative)
                            || glob.is_match(skill_dir)
                            || relative.ancestors().any(|a| glob.is_match(a)))
                            && selectors.iter().any(|s| s.matches(rule))
                        {
                            return false;
                        }
                    }
                }
            }
            true
        });
    }
}

/// One linted skill.
pub(crate) struct Outcome {
    pub checked: Checked,
    pub suppressions: Suppressions,
    /// Fixes applied (or, with --diff, that would be).
    pub fixed: usize,
    /// With --diff: the unified diff.
    pub diff: Option<String>,
    /// The fix rounds ran out with fixes left: another `--fix` may fix more.
    pub exhausted: bool,
}

/// What to do with fixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FixMode {
    Off,
    Write { unsafe_fixes: bool },
    Diff { unsafe_fixes: bool },
}

/// A skill to lint: its file, its other files, its targets and its configuration.
pub(crate) type Job = (PathBuf, Vec<PathBuf>, Vec<Target>, Option<Arc<Config>>);

/// Lints one skill, fixing it when asked.
pub(crate) fn lint_file(
    path: &Path,
    files: &[PathBuf],
    targets: &[Target],
    settings: &Settings<'_>,
    mode: FixMode,
    cwd: &Path,
    keep_body: bool,
) -> anyhow::Result<Outcome> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir_name = folder_name(dir);
    let original =
        match read_skill_file(path).with_context(|| format!("cannot read {}", path.display()))? {
            Ok(bytes) => bytes,
            Err(target) => {
                // A link to nothing: reported as the skill's defect; nothing to fix or to read.
                let skill = Skill::broken_link(path.to_path_buf(), dir_name, target);
                let (checked, suppressions) =
                    analyse(skill, &Bundle::default(), targets, settings, cwd);
                return Ok(Outcome {
                    checked,
                    suppressions,
                    fixed: 0,
                    diff: None,
                    exhausted: false,
                });
            }
        };
    let bundle = Bundle::load(dir, files.to_vec());
    let allow = match mode {
        FixMode::Off => None,
        FixMode::Write { unsafe_fixes } | FixMode::Diff { unsafe_fixes } => Some(unsafe_fixes),
    };
    let fixing = fix::fix_until_stable(&original, allow, |bytes| {
        let skill = Skill::from_bytes(path.to_path_buf(), dir_name.clone(), bytes.to_vec());
        analyse(skill, &bundle, targets, settings, cwd)
    });
    let fix::Fixing {
        bytes: current,
        fixed,
        mut checked,
        extra: suppressions,
        exhausted,
    } = fixing;
    let diff = match mode {
        FixMode::Diff { .. } if current != original => {
            Some(unified_diff(path, &original, &current))
        }
        _ => None,
    };
    if let FixMode::Write { .. } = mode
        && current != original
    {
        // Through a link, the file it leads to is fixed: the link stays a link.
        let target = if fs_err::symlink_metadata(path).is_ok_and(|meta| meta.is_symlink()) {
            fs_err::canonicalize(path)?
        } else {
            path.to_path_buf()
        };
        fsx::write_atomically(&target, &current, ".skillpkg-fix-", fsx::Permissions::Keep)?;
    }
    // Keep what reports point at, and for Claude Code's listing the first body line (its
    // fallback description); drop the rest of the body.
    let fallback = keep_body.then(|| 0..fallback_line_end(&checked.skill));
    checked.release(fallback);
    Ok(Outcome {
        checked,
        suppressions,
        fixed,
        diff,
        exhausted,
    })
}

/// The end of the first non-empty body line, which Claude Code falls back to as description.
pub(crate) fn fallback_line_end(skill: &Skill) -> usize {
    let (Ok(source), Some(reading)) = (skill.source(), skill.reading()) else {
        return 0;
    };
    let body = skill.body(reading);
    let start = source.text().len() - body.len();
    let mut offset = start;
    for line in body.split_inclusive('\n') {
        offset += line.len();
        if !line.trim().is_empty() {
            return offset;
        }
    }
    offset
}

/// Validate's and lint's rules over one version of the text, filtered by the settings and the
/// suppressions.
pub fn analyse(
    skill: Skill,
    bundle: &Bundle,
    targets: &[Target],
    settings: &Settings<'_>,
    cwd: &Path,
) -> (Checked, Suppressions) {
    let mut checked = check_skill(skill, targets);
    let mut linted = lint::lint(&checked.skill, bundle, targets);
    // A value validate already reports needs no second finding.
    let reported: HashSet<Option<(usize, usize)>> = checked
        .diagnostics
        .iter()
        .map(|seen| seen.span.as_ref().map(|span| (span.start, span.end)))
        .collect();
    linted.retain(|found| {
        !std::ptr::eq(found.rule, &raw const AMBIGUOUS_SCALAR)
            || !reported.contains(&found.span.as_ref().map(|span| (span.start, span.end)))
    });
    checked.diagnostics.extend(linted);
    let skill_path = checked.skill.path.clone();
    let dir = checked.skill.dir.clone();
    let path_of = move |d: &Diagnostic| match &d.file {
        Some(file) => dir.join(&file.path),
        None => skill_path.clone(),
    };
    settings.filter(&mut checked.diagnostics, &path_of, cwd);
    let mut suppressions = lint::suppressions(&checked.skill);
    if let Ok(source) = checked.skill.source() {
        let source = source.clone();
        suppressions.apply(&mut checked.diagnostics, &source);
    }
    let mut unused = suppressions.unused(false);
    for diagnostic in &mut unused {
        diagnostic.targets.clone_from(&checked.targets);
    }
    settings.filter(&mut unused, &path_of, cwd);
    checked.diagnostics.extend(unused);
    checked.sort();
    (checked, suppressions)
}

/// The rules across skills, then the suppressions they leave unused.
pub(crate) fn across_skills(
    outcomes: &mut [Outcome],
    jobs: &[Job],
    cli: &CliRules,
    context_window: usize,
    cwd: &Path,
) {
    let found = set_findings(outcomes, context_window);
    // Outcomes and jobs line up except where a skill could not be read.
    let configs: HashMap<&Path, &Option<Arc<Config>>> = jobs
        .iter()
        .map(|(path, _, _, config)| (path.as_path(), config))
        .collect();
    for (outcome, found) in outcomes.iter_mut().zip(found) {
        let settings = Settings {
            cli,
            config: configs
                .get(outcome.checked.skill.path.as_path())
                .and_then(|c| (*c).clone()),
        };
        finish_across(outcome, found, &settings, cwd);
    }
}

/// What the rules across skills find in each skill, before its settings and suppressions:
/// a function of each skill's [`set::SetKey`] alone, so a caller that keeps it need not run
/// them again while no key changes.
pub(crate) fn set_findings(
    outcomes: &mut [Outcome],
    context_window: usize,
) -> Vec<Vec<Diagnostic>> {
    crate::check::drop_house_keys(outcomes);
    // The set rules run on the outcomes in place, each skill's earlier findings set aside
    // (a copy of ten thousand records would cost lint a tenth of its memory): what they leave
    // is theirs alone (they also sort it).
    let mut own: Vec<Vec<Diagnostic>> = outcomes
        .iter_mut()
        .map(|outcome| std::mem::take(&mut outcome.checked.diagnostics))
        .collect();
    check_set(outcomes);
    set::similar_descriptions(outcomes);
    set::listing_budget(outcomes, context_window);
    outcomes
        .iter_mut()
        .zip(&mut own)
        .map(|(outcome, own)| {
            std::mem::replace(&mut outcome.checked.diagnostics, std::mem::take(own))
        })
        .collect()
}

/// One skill's findings across skills, filtered by its settings and suppressions, added to its
/// own, with the suppressions that only those could have used reported when still unused.
pub(crate) fn finish_across(
    outcome: &mut Outcome,
    mut found: Vec<Diagnostic>,
    settings: &Settings<'_>,
    cwd: &Path,
) {
    let skill_path = outcome.checked.skill.path.clone();
    settings.filter(&mut found, &|_| skill_path.clone(), cwd);
    if let Ok(source) = outcome.checked.skill.source() {
        outcome.suppressions.apply(&mut found, source);
    }
    let earlier: HashSet<(String, Option<(usize, usize)>)> = outcome
        .suppressions
        .unused(false)
        .into_iter()
        .map(|early| (early.message, early.span.map(|span| (span.start, span.end))))
        .collect();
    let mut unused = outcome.suppressions.unused(true);
    unused.retain(|late| {
        !earlier.contains(&(
            late.message.clone(),
            late.span.as_ref().map(|span| (span.start, span.end)),
        ))
    });
    for diagnostic in &mut unused {
        diagnostic.targets.clone_from(&outcome.checked.targets);
    }
    settings.filter(&mut unused, &|_| skill_path.clone(), cwd);
    found.extend(unused);
    outcome.checked.diagnostics.extend(found);
    outcome.checked.sort();
}

impl crate::check::AsChecked for Outcome {
    fn checked(&self) -> &Checked {
        &self.checked
    }

    fn checked_mut(&mut self) -> &mut Checked {
        &mut self.checked
    }
}

fn unified_diff(path: &Path, before: &[u8], after: &[u8]) -> String {
    let before = String::from_utf8_lossy(before);
    let after = String::from_utf8_lossy(after);
    let shown = path
        .to_string_lossy()
        .replace(std::path::MAIN_SEPARATOR, "/");
    similar::TextDiff::from_lines(before.as_ref(), after.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(&shown, &shown)
        .to_string()
}
