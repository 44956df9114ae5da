//! The skills the language server knows: every skill under the editor's workspace folders (and
//! the folders of skills opened from elsewhere), each linted by the one engine `skillpkg lint`
//! runs, with the editor's unsaved text in place of the file's, then the rules across skills
//! over all of them.
//!
//! A change re-lints only the skill it touches; the rules across skills then run again over
//! every skill's kept findings (not their text), as `lint` runs them after its own pass, so an
//! edit costs one skill's lint plus a pass over every skill's frontmatter facts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::check::config::{Config, ConfigFinder};
use crate::check::diagnostic::Diagnostic;
use crate::check::engine::{self, CliRules, Job, Outcome, Settings};
use crate::check::lint::suppress::Suppressions;
use crate::check::lint::{Bundle, set};
use crate::commands::common;
use crate::skill::{Skill, discover, folder_name, read_file};

/// Text the editor holds for a path, in place of the file's.
pub(crate) trait Overlay: Sync {
    fn text(&self, path: &Path) -> Option<&str>;
}

/// The largest other file whose text the rules read ([`Bundle::load`]'s cap).
const MAX_TEXT_BYTES: usize = 1024 * 1024;

/// What one skill's own checks left, before the rules across skills add theirs.
struct Own {
    diagnostics: Vec<Diagnostic>,
    suppressions: Suppressions,
}

pub(crate) struct Workspace {
    cwd: PathBuf,
    roots: Vec<PathBuf>,
    cli: CliRules,
    pub context_window: usize,
    /// Every skill's lint outcome, with the rules across skills applied; in path order, as
    /// `lint` reports them.
    outcomes: Vec<Outcome>,
    /// In step with `outcomes`: the skill's file, targets and configuration (no files: the
    /// rules across skills read none).
    jobs: Vec<Job>,
    /// In step with `outcomes`: the skill's other files.
    files: Vec<Vec<PathBuf>>,
    own: Vec<Own>,
    /// Skill folder to index.
    by_dir: HashMap<PathBuf, usize>,
    /// Skill files whose skillpkg.toml could not be read, with why: they are linted with the
    /// defaults, and the error is shown on them.
    pub config_errors: HashMap<PathBuf, String>,
    /// In step with `outcomes`: what the rules across skills found in each, before its
    /// settings and suppressions, and what they read of it ([`set::SetKey`]). While no key
    /// changes, an edit re-runs none of them.
    raw_set: Vec<Vec<Diagnostic>>,
    keys: Vec<set::SetKey>,
    /// In step with `outcomes`: what the listing hover reads of each skill.
    facts: Vec<set::ListingFacts>,
    /// A key changed since the rules across skills last ran: the findings shown for the
    /// changed skills are their own only, until [`Workspace::settle`].
    pub set_stale: bool,
}

impl Workspace {
    pub(crate) fn new(cwd: PathBuf, context_window: usize) -> Self {
        Self {
            cwd,
            roots: Vec::new(),
            cli: CliRules::default(),
            context_window,
            outcomes: Vec::new(),
            jobs: Vec::new(),
            files: Vec::new(),
            own: Vec::new(),
            by_dir: HashMap::new(),
            config_errors: HashMap::new(),
            raw_set: Vec::new(),
            keys: Vec::new(),
            facts: Vec::new(),
            set_stale: false,
        }
    }

    pub(crate) fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    pub(crate) fn set_roots(&mut self, roots: Vec<PathBuf>) {
        self.roots = roots;
    }

    /// Adds a folder to search for skills (a skill opened from outside the workspace brings
    /// its skills folder, so that its siblings count for the rules across skills).
    pub(crate) fn add_root(&mut self, root: PathBuf) {
        if !self.roots.iter().any(|known| root.starts_with(known)) {
            self.roots.retain(|known| !known.starts_with(&root));
            self.roots.push(root);
        }
    }

    /// Finds every skill under the roots again, with fresh configuration, and lints them all.
    pub(crate) fn reload(&mut self, overlay: &dyn Overlay) {
        crate::check::forget_folders();
        let roots: Vec<PathBuf> = self
            .roots
            .iter()
            .filter(|root| root.is_dir())
            .cloned()
            .collect();
        let threads = crate::parallel::threads_for(&roots);
        let found = discover::walk_with_files(&roots, threads);
        let skills = common::without_fragments(&roots, common::each_once(&roots, found.skills));
        let finder = ConfigFinder::with_walk(self.cwd.clone(), &roots, &found.config_dirs);
        self.config_errors.clear();
        let mut planned = Vec::with_capacity(skills.len());
        for path in skills {
            let dir = path.parent().unwrap_or(&path).to_path_buf();
            let config = match finder.for_dir(&dir) {
                Ok(config) => config,
                Err(error) => {
                    self.config_errors.insert(path.clone(), error.to_string());
                    None
                }
            };
            let targets = common::targets_for(&[], config.as_deref(), &dir);
            planned.push((path, targets, config, dir));
        }
        // As `lint` does: a SKILL.md Claude Code loads only as part of the skill around it is
        // one of that skill's files.
        let targeted: Vec<(PathBuf, Vec<crate::agent::Target>)> = planned
            .iter()
            .map(|(path, targets, _, _)| (path.clone(), targets.clone()))
            .collect();
        let parts = common::parts_of_skills(&targeted);
        let mut other_files = found.files;
        let mut index = 0;
        planned.retain(|(path, _, _, _)| {
            let part = parts[index];
            index += 1;
            if part {
                other_files.push(path.clone());
            }
            !part
        });
        let skill_paths: Vec<PathBuf> = planned.iter().map(|(path, ..)| path.clone()).collect();
        let files = crate::commands::lint::files_per_skill(&skill_paths, other_files);
        let jobs: Vec<_> = planned
            .into_iter()
            .zip(files)
            .map(|((path, targets, config, dir), files)| ((path, files, targets, config), dir))
            .collect();
        let analysed =
            crate::parallel::map_in_order(&jobs, threads, |((path, files, targets, config), _)| {
                analyse(
                    path,
                    files,
                    targets,
                    config.as_ref(),
                    &self.cli,
                    &self.cwd,
                    overlay,
                )
            });
        self.outcomes.clear();
        self.jobs.clear();
        self.files.clear();
        self.own.clear();
        self.by_dir.clear();
        for (((path, files, targets, config), dir), outcome) in jobs.into_iter().zip(analysed) {
            let Some(outcome) = outcome else { continue };
            self.by_dir.insert(dir, self.outcomes.len());
            self.own.push(Own {
                diagnostics: outcome.checked.diagnostics.clone(),
                suppressions: outcome.suppressions.clone(),
            });
            self.outcomes.push(outcome);
            self.jobs.push((path, Vec::new(), targets, config));
            self.files.push(files);
        }
        self.keys = self
            .outcomes
            .iter()
            .map(|o| set::set_key(&o.checked))
            .collect();
        self.facts = self
            .outcomes
            .iter()
            .map(|o| set::listing_facts(&o.checked))
            .collect();
        self.across_skills();
    }

    /// Lints skills again (their text or files changed), then the rules across skills; the
    /// skills in `relist` have their folder listed again first (a file came or went).
    pub(crate) fn relint(&mut self, indexes: &[usize], relist: &[usize], overlay: &dyn Overlay) {
        for &index in relist {
            let path = self.jobs[index].0.clone();
            let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
            let found = discover::walk_with_files(std::slice::from_ref(&dir), 1);
            let mut files = crate::commands::lint::files_per_skill(&found.skills, found.files);
            if let Some(own) = found.skills.iter().position(|skill| *skill == path) {
                self.files[index] = std::mem::take(&mut files[own]);
            }
        }
        for &index in indexes {
            let (path, _, targets, config) = &self.jobs[index];
            let Some(outcome) = analyse(
                path,
                &self.files[index],
                targets,
                config.as_ref(),
                &self.cli,
                &self.cwd,
                overlay,
            ) else {
                continue;
            };
            self.own[index] = Own {
                diagnostics: outcome.checked.diagnostics.clone(),
                suppressions: outcome.suppressions.clone(),
            };
            let key = set::set_key(&outcome.checked);
            if key != self.keys[index] {
                self.keys[index] = key;
                self.facts[index] = set::listing_facts(&outcome.checked);
                self.set_stale = true;
            }
            self.outcomes[index] = outcome;
        }
        if self.set_stale {
            // The changed skills show their own findings until `settle`.
            return;
        }
        // Nothing the rules across skills read changed: their findings stand, and only the
        // changed skills' settings and suppressions are applied to them again.
        for &index in indexes {
            let settings = Settings {
                cli: &self.cli,
                config: self.jobs[index].3.clone(),
            };
            let found = self.raw_set[index].clone();
            engine::finish_across(&mut self.outcomes[index], found, &settings, &self.cwd);
        }
    }

    /// Runs the rules across skills if a change left them stale; whether it did.
    pub(crate) fn settle(&mut self) -> bool {
        if !self.set_stale {
            return false;
        }
        self.across_skills();
        true
    }

    /// The rules across skills, over every skill's own findings.
    fn across_skills(&mut self) {
        for (outcome, own) in self.outcomes.iter_mut().zip(&self.own) {
            outcome.checked.diagnostics.clone_from(&own.diagnostics);
            outcome.suppressions = own.suppressions.clone();
        }
        self.raw_set = engine::set_findings(&mut self.outcomes, self.context_window);
        for (index, outcome) in self.outcomes.iter_mut().enumerate() {
            let settings = Settings {
                cli: &self.cli,
                config: self.jobs[index].3.clone(),
            };
            engine::finish_across(outcome, self.raw_set[index].clone(), &settings, &self.cwd);
        }
        self.set_stale = false;
    }

    /// Every skill's [`set::ListingFacts`], for the listing hover.
    pub(crate) fn listing_facts(&self) -> &[set::ListingFacts] {
        &self.facts
    }

    /// The skill a file belongs to: the nearest skill folder above it (its SKILL.md included).
    /// A SKILL.md belongs only to the skill of its own folder (one nested in another skill's
    /// `references/` is not the outer skill's).
    pub(crate) fn skill_of(&self, path: &Path) -> Option<usize> {
        if super::is_skill_file(path) {
            return path.parent().and_then(|dir| self.by_dir.get(dir).copied());
        }
        path.ancestors()
            .skip(1)
            .find_map(|dir| self.by_dir.get(dir).copied())
    }

    pub(crate) fn outcome(&self, index: usize) -> &Outcome {
        &self.outcomes[index]
    }

    pub(crate) fn job(&self, index: usize) -> &Job {
        &self.jobs[index]
    }

    /// The skill's other files (paths on disk).
    pub(crate) fn files(&self, index: usize) -> &[PathBuf] {
        &self.files[index]
    }

    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub(crate) fn settings(&self, index: usize) -> Settings<'_> {
        Settings {
            cli: &self.cli,
            config: self.jobs[index].3.clone(),
        }
    }

    /// The skill's bundle of other files, with the editor's text for open ones.
    pub(crate) fn bundle(&self, index: usize, overlay: &dyn Overlay) -> Bundle {
        let dir = self.jobs[index].0.parent().unwrap_or(Path::new("."));
        bundle(dir, &self.files[index], overlay)
    }
}

fn bundle(dir: &Path, files: &[PathBuf], overlay: &dyn Overlay) -> Bundle {
    let mut bundle = Bundle::load(dir, files.to_vec());
    for file in &mut bundle.files {
        if let Some(text) = overlay.text(&file.full) {
            file.text = (text.len() <= MAX_TEXT_BYTES).then(|| text.to_owned());
        }
    }
    bundle
}

/// Lints one skill as `skillpkg lint` would, reading the editor's text where it has one; `None`
/// when its file can be read neither way.
fn analyse(
    path: &Path,
    files: &[PathBuf],
    targets: &[crate::agent::Target],
    config: Option<&std::sync::Arc<Config>>,
    cli: &CliRules,
    cwd: &Path,
    overlay: &dyn Overlay,
) -> Option<Outcome> {
    let bytes = match overlay.text(path) {
        Some(text) => text.as_bytes().to_vec(),
        None => read_file(path).ok()?,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let bundle = bundle(dir, files, overlay);
    let skill = Skill::from_bytes(path.to_path_buf(), folder_name(dir), bytes);
    let settings = Settings {
        cli,
        config: config.cloned(),
    };
    let (mut checked, suppressions) = engine::analyse(skill, &bundle, targets, &settings, cwd);
    // Keep what the findings point at and Claude Code's fallback description, as `lint` does.
    let fallback = 0..engine::fallback_line_end(&checked.skill);
    checked.release(Some(fallback));
    Some(Outcome {
        checked,
        suppressions,
        fixed: 0,
        diff: None,
        exhausted: false,
    })
}
