//! `skillpkg validate`: do these skills load in the agents they target?

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;

use super::ExitStatus;
use super::common::{self, CheckArgs};
use crate::agent::Target;
use crate::check::config::{ConfigError, ConfigFinder};
use crate::check::{Checked, check_set, check_skill};
use crate::output::{self, Printer, Report, print_error};
use crate::parallel;
use crate::skill::{Skill, discover};

/// Check that skills load in the agents they target.
///
/// Finds every SKILL.md under the given paths (hidden folders such as .claude/skills included;
/// .git, node_modules and git-ignored paths skipped), reads each one as every target reads it,
/// and reports every problem. Exit status: 0 when no skill has errors (warnings allowed), 1 when
/// any skill has errors, 2 on usage or I/O errors.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Targets: agentskills (the open spec), skills-ref (the reference validator's \
verdicts), claude-code, claude-code@2.1.88, claude-ai (uploads and the Skills API), codex, \
gemini-cli, opencode, copilot, goose.\n\nWithout --target, each skill is checked for the \
`targets = [...]` of the nearest skillpkg.toml above it; else where it lives decides: the agent \
whose folder it is in (.claude/skills, .gemini/skills, .agents/skills, …) or the agents of its \
plugin, whichever is nearer; a ClawHub package is openclaw's; else agentskills. A SKILL.md that \
is another one through a link, or the same file in another agent's folder, is checked once.\n\n\
Examples:\n  skillpkg validate                           # every skill under the current folder\n  \
skillpkg validate skills/pdf-forms -t claude-code -t codex\n  \
skillpkg validate --format github           # annotations on a pull request\n  \
skillpkg validate --format sarif > skillpkg.sarif"
)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub check: CheckArgs,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn run(args: ValidateArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    if args.check.watch {
        return super::watch::watch(&args.check.paths, printer, || check(&args, printer));
    }
    check(&args, printer)
}

/// One run of `validate`.
fn check(args: &ValidateArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let paths = common::paths_or_here(&args.check.paths);
    if common::path_problems(&paths, printer)? {
        return Ok(ExitStatus::Error);
    }
    let cli_targets = args.check.targets.given();
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let threads = crate::parallel::threads_for(&paths);

    let found = discover::walk(&paths, threads);
    let mut skills = common::without_fragments(&paths, common::each_once(&paths, found.skills));
    let installed = common::without_installed(&paths, &mut skills, &args.check);
    // Only installed skills: an empty report (machine formats still get their document).
    if skills.is_empty() && found.errors.is_empty() && installed == 0 {
        return Err(common::no_skills(&paths).into());
    }

    let finder = ConfigFinder::with_walk(cwd.clone(), &paths, &found.config_dirs);
    let (mut jobs, config_errors) = targets_per_skill(skills, &cli_targets, &finder);
    // A SKILL.md Claude Code loads only as part of the skill around it is no skill of its own.
    let parts = common::parts_of_skills(&jobs);
    let mut index = 0;
    jobs.retain(|(path, _)| {
        let part = parts[index] && !paths.contains(path);
        index += 1;
        !part
    });
    if !config_errors.is_empty() {
        common::config_problems(
            config_errors,
            "fix skillpkg.toml, or pass --target to override it",
            printer,
        )?;
        return Ok(ExitStatus::Error);
    }

    common::verbose_plan(
        printer,
        &paths,
        jobs.iter().map(|(_, targets)| targets.as_slice()),
    )?;
    let results =
        parallel::map_in_order(&jobs, threads, |(path, targets)| check_file(path, targets));
    let mut checked = Vec::with_capacity(results.len());
    let mut read_errors = Vec::new();
    for result in results {
        match result {
            Ok(item) => checked.push(item),
            Err(error) => read_errors.push(error),
        }
    }
    let copies = crate::check::copies::drop_copies(&mut checked, &found.links);
    check_set(&mut checked);

    let report = Report {
        checked: &checked,
        root: output::repo_root(&cwd),
        kind: crate::check::rule::Kind::Validate,
    };
    output::print(args.check.format, &report, printer)?;
    common::note_installed(installed, printer)?;
    common::note_copies(&copies, printer)?;

    if !found.errors.is_empty() || !read_errors.is_empty() {
        let mut err = printer.stderr();
        for error in &found.errors {
            print_error(&mut err, &error.to_string(), &[])?;
        }
        for error in &read_errors {
            print_error(&mut err, &format!("{error:#}"), &[])?;
        }
        err.flush()?;
        return Ok(ExitStatus::Error);
    }
    Ok(if checked.iter().all(Checked::is_valid) {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// Targets per skill: the command line's, else the nearest skillpkg.toml's, else the default.
fn targets_per_skill(
    skills: Vec<PathBuf>,
    cli_targets: &[Target],
    finder: &ConfigFinder,
) -> (Vec<(PathBuf, Vec<Target>)>, Vec<ConfigError>) {
    let mut errors = Vec::new();
    let mut jobs = Vec::with_capacity(skills.len());
    for path in skills {
        // skillpkg.toml is read only when the command line names no target.
        let config = if cli_targets.is_empty() {
            match finder.for_dir(path.parent().unwrap_or(&path)) {
                Ok(config) => config,
                Err(error) => {
                    errors.push(error);
                    continue;
                }
            }
        } else {
            None
        };
        let targets = common::targets_for(
            cli_targets,
            config.as_deref(),
            path.parent().unwrap_or(&path),
        );
        jobs.push((path, targets));
    }
    (jobs, errors)
}

/// Reads and checks one skill file, keeping only the text its findings point at.
fn check_file(path: &std::path::Path, targets: &[Target]) -> anyhow::Result<Checked> {
    let skill = Skill::load(path).context("cannot read the skill file")?;
    let mut checked = check_skill(skill, targets);
    checked.release(None);
    Ok(checked)
}
