//! `skillpkg validate`: do these skills load in the agents they target?

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use anyhow::Context as _;

use super::{ExitStatus, UserError};
use crate::check::config::{ConfigError, ConfigFinder};
use crate::check::target::{DEFAULT_TARGETS, Target};
use crate::check::{Checked, check_set, check_skill};
use crate::output::{self, Format, Printer, Report};
use crate::skill::{Skill, discover};

/// Check that skills load in the agents they target.
///
/// Finds every SKILL.md under the given paths (hidden folders such as .claude/skills included;
/// .git, node_modules and git-ignored paths skipped), reads each one as every target reads it,
/// and reports every problem. Exit status: 0 when no skill has errors (warnings allowed), 1 when
/// any skill has errors, 2 on usage or I/O errors.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Targets: agentskills (the open spec, default), skills-ref (the reference \
validator's verdicts), claude-code, claude-code@2.1.88, claude-ai (uploads and the Skills API), \
codex, gemini-cli, opencode, copilot, goose.\n\nA skillpkg.toml found by walking up from a skill \
can set `targets = [...]`; --target overrides it."
)]
pub struct ValidateArgs {
    /// Skill folders, SKILL.md files, or any folders to search for skills [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// A client the skills must load in; repeat for several [default: agentskills]
    #[arg(
        long = "target",
        short = 't',
        value_enum,
        value_name = "TARGET",
        hide_possible_values = true
    )]
    pub targets: Vec<Target>,

    /// Output format: human (stderr), concise, json, github or sarif (stdout)
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub format: Format,
}

/// Everything the parallel walk collects.
#[derive(Default)]
struct Collected {
    checked: Vec<Checked>,
    config_errors: Vec<ConfigError>,
    read_errors: Vec<anyhow::Error>,
}

pub fn run(args: ValidateArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths
    };
    let problems = discover::check_paths(&paths);
    if !problems.is_empty() {
        let mut err = printer.stderr();
        for problem in &problems {
            print_error(&mut err, &problem.to_string(), problem.hint())?;
        }
        return Ok(ExitStatus::Error);
    }
    let mut targets: Vec<Target> = Vec::new();
    for target in args.targets {
        if !targets.contains(&target) {
            targets.push(target);
        }
    }

    let (collected, walk_errors) = collect(&paths, &targets);
    let Collected {
        mut checked,
        mut config_errors,
        read_errors,
    } = collected;
    if !config_errors.is_empty() {
        config_errors.sort_by_key(ToString::to_string);
        config_errors.dedup();
        let mut err = printer.stderr();
        for error in &config_errors {
            let hint = "fix skillpkg.toml, or pass --target to override it";
            print_error(&mut err, &error.to_string(), Some(hint))?;
        }
        return Ok(ExitStatus::Error);
    }
    checked.sort_by(|a, b| a.skill.path.cmp(&b.skill.path));
    if paths.len() > 1 {
        // The same skill reached through two of the given paths is reported once.
        let mut seen = std::collections::HashSet::new();
        checked.retain(|item| {
            seen.insert(
                fs_err::canonicalize(&item.skill.path).unwrap_or_else(|_| item.skill.path.clone()),
            )
        });
    }
    if checked.is_empty() && read_errors.is_empty() && walk_errors.is_empty() {
        let shown: Vec<String> = paths
            .iter()
            .map(|path| format!("`{}`", path.display()))
            .collect();
        return Err(UserError {
            message: format!("no SKILL.md found in {}", shown.join(", ")),
            hints: vec![
                "a skill is a folder that holds a SKILL.md; pass that folder, the file, or a folder containing skills".into(),
            ],
        }
        .into());
    }
    check_set(&mut checked);

    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let report = Report {
        checked: &checked,
        root: output::repo_root(&cwd),
    };
    output::print(args.format, &report, printer)?;

    if !walk_errors.is_empty() || !read_errors.is_empty() {
        let mut err = printer.stderr();
        for error in &walk_errors {
            print_error(&mut err, &error.to_string(), None)?;
        }
        for error in &read_errors {
            print_error(&mut err, &format!("{error:#}"), None)?;
        }
        return Ok(ExitStatus::Error);
    }
    Ok(if checked.iter().all(Checked::is_valid) {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// Walks `paths` and checks every skill found, on the walker's threads. `targets` from the
/// command line win over `skillpkg.toml`.
fn collect(paths: &[PathBuf], targets: &[Target]) -> (Collected, Vec<discover::DiscoverError>) {
    let finder = ConfigFinder::default();
    let collected = Mutex::new(Collected::default());
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let visit = |path: PathBuf| {
        let path = discover::tidy(path);
        let targets = if targets.is_empty() {
            let dir = path.parent().unwrap_or(&path);
            match finder.for_dir(dir) {
                Ok(config) => config
                    .and_then(|config| config.targets.clone())
                    .unwrap_or_else(|| DEFAULT_TARGETS.to_vec()),
                Err(error) => {
                    lock(&collected).config_errors.push(error);
                    return;
                }
            }
        } else {
            targets.to_vec()
        };
        match Skill::load(&path) {
            Ok(skill) => {
                let checked = check_skill(skill, &targets);
                lock(&collected).checked.push(checked);
            }
            Err(error) => lock(&collected)
                .read_errors
                .push(anyhow::Error::new(error).context("cannot read the skill file")),
        }
    };
    let walk_errors = discover::walk(paths, threads, &visit);
    let collected = collected
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    (collected, walk_errors)
}

fn lock(collected: &Mutex<Collected>) -> std::sync::MutexGuard<'_, Collected> {
    collected.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `error: message` and an optional `hint:` line, styled like every other error.
fn print_error(out: &mut impl Write, message: &str, hint: Option<&str>) -> std::io::Result<()> {
    let red = anstyle::AnsiColor::Red.on_default().bold();
    writeln!(out, "{red}error{red:#}: {message}")?;
    if let Some(hint) = hint {
        let cyan = anstyle::AnsiColor::Cyan.on_default().bold();
        writeln!(out, "  {cyan}hint{cyan:#}: {hint}")?;
    }
    Ok(())
}
