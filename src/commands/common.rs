//! What the commands that look at skills share, written once: the paths they look at (`.` by
//! default), what is wrong with those paths, the skills found there (each once), and the targets
//! each skill is checked for (the command line's, else the nearest `skillpkg.toml`'s, else the
//! default).

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use super::UserError;
use crate::agent::{DEFAULT_TARGETS, Target};
use crate::check::config::{Config, ConfigError};
use crate::output::{Format, Printer, print_error};
use crate::skill::discover;

/// The arguments of the commands that check skills (`validate`, `lint`): where to look, the
/// agents to check for, how to report.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Skill folders, SKILL.md files, or any folders to search for skills [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub targets: TargetArgs,

    /// Output format: human (stderr), concise, json, github or sarif (stdout)
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub format: Format,

    /// Check skills `skillpkg install` put here too (they are skipped, like vendored code,
    /// unless named on the command line)
    #[arg(long)]
    pub include_installed: bool,

    /// Check again each time a file under the paths changes, clearing the screen between
    /// runs; stop with Ctrl-C
    #[arg(long, short = 'w')]
    pub watch: bool,
}

/// `--target`, for every command that checks skills for agents.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TargetArgs {
    /// A client the skills must load in; repeat for several [default: from skillpkg.toml, else
    /// where a skill lives: the agent whose folder it is in (.claude/skills: claude-code,
    /// .gemini/skills: gemini-cli, .agents/skills: codex and gemini-cli, …) or the agents of
    /// its plugin (Claude Code, Codex, Gemini CLI), whichever is nearer, else agentskills]
    #[arg(
        long = "target",
        short = 't',
        value_enum,
        value_name = "TARGET",
        hide_possible_values = true
    )]
    pub targets: Vec<Target>,
}

impl TargetArgs {
    /// The targets given, each once, in the order given (see [`cli_targets`]).
    pub(crate) fn given(&self) -> Vec<Target> {
        cli_targets(&self.targets)
    }
}

/// The paths given, or the current folder when none is.
pub(crate) fn paths_or_here(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    }
}

/// Prints what is wrong with `paths` (missing, a file that is not a SKILL.md), each with its
/// hint; `true` when anything is, and the command should exit 2.
pub(crate) fn path_problems(paths: &[PathBuf], printer: Printer) -> io::Result<bool> {
    let problems = discover::check_paths(paths);
    if problems.is_empty() {
        return Ok(false);
    }
    let mut err = printer.stderr();
    for problem in &problems {
        print_error(&mut err, &problem.to_string(), problem.hint().as_slice())?;
    }
    err.flush()?;
    Ok(true)
}

/// `skills` found under `paths`, each once: the same skill reached through two of the paths is
/// kept at its first place.
pub(crate) fn each_once(paths: &[PathBuf], mut skills: Vec<PathBuf>) -> Vec<PathBuf> {
    if paths.len() > 1 {
        let mut seen = std::collections::HashSet::new();
        skills.retain(|path| {
            seen.insert(fs_err::canonicalize(path).unwrap_or_else(|_| path.clone()))
        });
    }
    skills
}

/// Drops the SKILL.md files a walk found that are fragments, not skills: no frontmatter, and
/// the text starts with an HTML comment (`<!--flavor:…-->` blocks a build script splices into
/// the real SKILL.md). A file named on the command line is always checked.
pub(crate) fn without_fragments(paths: &[PathBuf], mut skills: Vec<PathBuf>) -> Vec<PathBuf> {
    skills.retain(|skill| {
        paths.iter().any(|named| named == skill) || !crate::skill::discover::is_fragment(skill)
    });
    skills
}

/// Leaves out the skills `skillpkg install` wrote: their folder holds its marker and a
/// `skills.lock` records the folder (the project's, found walking up from it, or the user's for
/// `install --global`). They are someone else's code, which `install --locked` replaces, so
/// they are neither the author's to fix nor a duplicate of the author's own; a copy of one made
/// by hand keeps the marker but no lockfile records it, so it is checked. A skill named on the
/// command line, by its folder or its SKILL.md however spelt, is always kept. Returns how many
/// were left out (none with `--include-installed`).
pub(crate) fn without_installed(
    paths: &[PathBuf],
    skills: &mut Vec<PathBuf>,
    args: &CheckArgs,
) -> usize {
    if args.include_installed {
        return 0;
    }
    let canonical = |path: &Path| fs_err::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let named: Vec<PathBuf> = paths.iter().map(|path| canonical(path)).collect();
    let mut locks = InstalledFolders::default();
    let before = skills.len();
    skills.retain(|skill| {
        let folder = skill.parent().unwrap_or(Path::new("."));
        if !folder.join(crate::registry::lockfile::MARKER).is_file() {
            return true;
        }
        let (folder, file) = (canonical(folder), canonical(skill));
        named.iter().any(|named| *named == folder || *named == file) || !locks.records(&folder)
    });
    before - skills.len()
}

/// The folders the `skills.lock` files near some skills record, each lockfile read once.
#[derive(Default)]
struct InstalledFolders {
    /// Lockfile path → the folders it records, canonical.
    read: std::collections::HashMap<PathBuf, Vec<PathBuf>>,
}

impl InstalledFolders {
    /// Whether a `skills.lock` records `folder` (canonical): one in a folder above it, up to the
    /// repository root, or the user's own.
    fn records(&mut self, folder: &Path) -> bool {
        use crate::registry::lockfile::FILE_NAME;
        let mut candidates: Vec<(PathBuf, PathBuf)> = Vec::new();
        for dir in folder.ancestors().skip(1).take(32) {
            let lock = dir.join(FILE_NAME);
            if lock.is_file() {
                candidates.push((lock, dir.to_path_buf()));
            }
            if crate::check::folder_facts(dir).repository {
                break;
            }
        }
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from);
        if let (Some(config), Some(home)) = (crate::registry::credentials::config_dir(), home) {
            candidates.push((config.join(FILE_NAME), home));
        }
        candidates.into_iter().any(|(lock, root)| {
            self.read
                .entry(lock.clone())
                .or_insert_with(|| recorded_folders(&lock, &root))
                .iter()
                .any(|recorded| recorded == folder)
        })
    }
}

/// The folders `lock` records, relative to `root`, canonical; none when it cannot be read.
fn recorded_folders(lock: &Path, root: &Path) -> Vec<PathBuf> {
    let Ok(lockfile) = crate::registry::lockfile::Lockfile::read(lock) else {
        return Vec::new();
    };
    lockfile
        .skills
        .iter()
        .map(|entry| {
            let folder = root.join(entry.folder());
            fs_err::canonicalize(&folder).unwrap_or(folder)
        })
        .collect()
}

/// Says on stderr that `skipped` installed skills were left out, and how to check them.
pub(crate) fn note_installed(skipped: usize, printer: Printer) -> io::Result<()> {
    if skipped == 0 {
        return Ok(());
    }
    let mut err = printer.status();
    writeln!(
        err,
        "note: skipped {skipped} installed {} (folders `skillpkg install` manages); pass \
         --include-installed to check {}",
        crate::output::plural(skipped, "skill", "skills"),
        crate::output::plural(skipped, "it", "them"),
    )?;
    err.flush()
}

/// Leaves out of `skills` the skill files that are links to another of them
/// ([`crate::check::copies::linked_copies`]), returning each with the file it is.
pub(crate) fn without_linked_copies(
    skills: &mut Vec<PathBuf>,
    links: &std::collections::HashSet<PathBuf>,
) -> Vec<(PathBuf, PathBuf)> {
    let of = crate::check::copies::linked_copies(skills, links);
    let linked: Vec<(PathBuf, PathBuf)> = of
        .iter()
        .enumerate()
        .filter_map(|(index, original)| {
            original.map(|original| (skills[index].clone(), skills[original].clone()))
        })
        .collect();
    let mut index = 0;
    skills.retain(|_| {
        index += 1;
        of[index - 1].is_none()
    });
    linked
}

/// For each skill, whether it is a part of another rather than a skill: a `SKILL.md` in a
/// folder below another skill's folder, checked only for Claude Code, which loads one
/// `SKILL.md` per entry of a skills folder and never one nested deeper; or one in another
/// skill's `assets/`, `templates/`, `examples/` or `samples/`, whatever the targets. Such a file
/// is a document of the skill around it (a sub-guide it links, a sample or template it ships),
/// checked as one of its files.
pub(crate) fn parts_of_skills(skills: &[(PathBuf, Vec<Target>)]) -> Vec<bool> {
    let dirs: std::collections::HashSet<&Path> = skills
        .iter()
        .filter_map(|(path, _)| path.parent())
        .collect();
    skills
        .iter()
        .map(|(path, targets)| {
            let claude_only =
                !targets.is_empty() && targets.iter().all(|target| target.is_claude_code());
            let mut above = path
                .parent()
                .into_iter()
                .flat_map(Path::ancestors)
                .skip(1)
                .take(crate::skill::discover::MAX_PART_DEPTH);
            // Under another skill's `assets/`, `templates/` or `examples/`, a SKILL.md is that
            // skill's material (a sample it tests, a template it copies) for every agent.
            let in_material = path
                .parent()
                .into_iter()
                .flat_map(Path::ancestors)
                .skip(1)
                .take(crate::skill::discover::MAX_PART_DEPTH)
                .any(|dir| {
                    dir.file_name()
                        .and_then(|name| name.to_str())
                        .is_some_and(|name| {
                            matches!(name, "assets" | "templates" | "examples" | "samples")
                        })
                        && dir.parent().is_some_and(|parent| dirs.contains(parent))
                });
            in_material || (claude_only && above.any(|dir| dirs.contains(dir)))
        })
        .collect()
}

/// Says on stderr how many skills were left out as copies of others, and with `--verbose`
/// which, each beside the skill it copies.
pub(crate) fn note_copies(copies: &[(PathBuf, PathBuf)], printer: Printer) -> io::Result<()> {
    if copies.is_empty() {
        return Ok(());
    }
    let mut err = printer.status();
    writeln!(
        err,
        "note: {} {} the same SKILL.md as another skill (through a link, or in another agent's \
         folder), checked once as {}",
        copies.len(),
        crate::output::plural(copies.len(), "skill is", "skills are"),
        crate::output::plural(copies.len(), "that skill", "those skills"),
    )?;
    err.flush()?;
    let mut out = printer.verbose();
    for (copy, original) in copies {
        writeln!(out, "  {} is {}", copy.display(), original.display())?;
    }
    out.flush()
}

/// With `--verbose`: how many skills were found under `paths`, and the targets each group was
/// checked for (from the command line, skillpkg.toml or where the skill lives).
pub(crate) fn verbose_plan<'a>(
    printer: Printer,
    paths: &[PathBuf],
    targets: impl Iterator<Item = &'a [Target]>,
) -> io::Result<()> {
    if printer.verbosity() != crate::output::Verbosity::Verbose {
        return Ok(());
    }
    let mut groups: Vec<(String, usize)> = Vec::new();
    let mut total = 0;
    for list in targets {
        total += 1;
        let names: Vec<&str> = list.iter().map(|target| target.name()).collect();
        let key = names.join(", ");
        match groups.iter_mut().find(|(seen, _)| *seen == key) {
            Some((_, count)) => *count += 1,
            None => groups.push((key, 1)),
        }
    }
    let mut out = printer.verbose();
    writeln!(
        out,
        "found {total} {} under {}",
        crate::output::plural(total, "skill", "skills"),
        quoted(paths)
    )?;
    for (targets, count) in groups {
        writeln!(out, "  {count} checked for {targets}")?;
    }
    out.flush()
}

/// `paths` as messages name them: "`a`, `b`".
pub(crate) fn quoted<P: AsRef<Path>>(paths: &[P]) -> String {
    paths
        .iter()
        .map(|path| format!("`{}`", path.as_ref().display()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error for paths that hold no skill.
pub(crate) fn no_skills(paths: &[PathBuf]) -> UserError {
    UserError {
        message: format!("no SKILL.md found in {}", quoted(paths)),
        hints: vec![
            "a skill is a folder that holds a SKILL.md; pass that folder, the file, or a folder containing skills".into(),
        ],
    }
}

/// The command line's targets, each once, in the order given.
pub(crate) fn cli_targets(targets: &[Target]) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::with_capacity(targets.len());
    for &target in targets {
        if !out.contains(&target) {
            out.push(target);
        }
    }
    out
}

/// The targets a skill in `dir` is checked for: `cli` (see [`cli_targets`]) when it names any,
/// else its `skillpkg.toml`'s, else where it lives says ([`default_targets`]).
pub(crate) fn targets_for(cli: &[Target], config: Option<&Config>, dir: &Path) -> Vec<Target> {
    if !cli.is_empty() {
        return cli.to_vec();
    }
    config
        .and_then(|config| config.targets.clone())
        .unwrap_or_else(|| default_targets(dir))
}

/// How many folders up from a skill [`default_targets`] looks.
const LOCATION_DEPTH: usize = 8;

/// The targets of a skill in `dir` that nothing names targets for: where it lives decides.
/// A ClawHub package (its `_meta.json` or `.clawhub/origin.json` beside SKILL.md) is OpenClaw's.
/// Otherwise the nearest of these, walking up from the folder holding the skill's folder: an agent's
/// skills folder (`.claude/skills` for Claude Code, `.gemini/skills` for Gemini CLI,
/// `.agents/skills` for Codex and Gemini CLI, …: [`crate::agent::agent_root`]), or a plugin
/// manifest (`.claude-plugin/plugin.json` or `marketplace.json` for Claude Code,
/// `.codex-plugin/` for Codex, `gemini-extension.json` for Gemini CLI). So a skill in a
/// repository's `.gemini/skills` is Gemini CLI's even when the repository is also a Claude Code
/// plugin. Otherwise the open spec. A repository that also publishes its skills elsewhere
/// (claude.ai uploads, `npx skills add`) says so with `targets` in `skillpkg.toml`.
/// Looks up to the repository root, at most [`LOCATION_DEPTH`] folders.
pub(crate) fn default_targets(dir: &Path) -> Vec<Target> {
    let absolute;
    let dir = if dir.is_absolute() {
        dir
    } else {
        absolute = std::env::current_dir().unwrap_or_default().join(dir);
        &absolute
    };
    // A ClawHub package is OpenClaw's, wherever it is.
    if crate::agent::clawhub_package(dir).is_some() {
        return vec![Target::OpenClaw];
    }
    let agent = crate::agent::agent_root(dir);
    // From the folder holding the skill's folder up: a skill folder is no plugin of its own.
    for folder in dir.ancestors().skip(1).take(LOCATION_DEPTH) {
        if let Some((root, targets)) = agent
            && root == folder
        {
            return targets.to_vec();
        }
        // The agents whose plugin manifests are here: a plugin for Claude Code and Codex is
        // checked for both.
        let facts = crate::check::folder_facts(folder);
        let mut found = Vec::new();
        if facts.claude_plugin || facts.claude_marketplace {
            found.push(Target::ClaudeCode);
        }
        if facts.codex_plugin {
            found.push(Target::Codex);
        }
        if facts.gemini_extension {
            found.push(Target::GeminiCli);
        }
        if !found.is_empty() {
            return found;
        }
        if facts.repository {
            break;
        }
    }
    DEFAULT_TARGETS.to_vec()
}

/// Prints each broken `skillpkg.toml` once, with `hint`.
pub(crate) fn config_problems(
    mut errors: Vec<ConfigError>,
    hint: &str,
    printer: Printer,
) -> io::Result<()> {
    errors.sort_by_key(ToString::to_string);
    errors.dedup();
    let mut err = printer.stderr();
    for error in &errors {
        print_error(&mut err, &error.to_string(), &[hint])?;
    }
    err.flush()
}
