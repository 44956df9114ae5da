//! `skillpkg lint`: will these skills work well? `validate`'s rules plus the lint catalogue,
//! with configuration, suppressions and fixes.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::ExitStatus;
use super::common::{self, CheckArgs};
use crate::check::Checked;
use crate::check::config::{ConfigFinder, Selector};
use crate::check::engine::{self, CliRules, FixMode, Job, Outcome, Settings};
use crate::check::rule::{self, Kind, Rule};
use crate::output::{self, Format, Printer, Report, plural, print_error};
use crate::parallel;
use crate::skill::discover;

/// Check that skills will work well: `validate`'s rules plus the lint catalogue.
///
/// Runs every rule `validate` runs and the lint rules (`skillpkg rule` lists them all): body
/// length, trigger phrases, file references, scripts, `allowed-tools`, secrets, near-duplicate
/// descriptions, Claude Code's listing budget… Rules are chosen with --select/--ignore or
/// `[lint]` in skillpkg.toml, silenced in SKILL.md with `<!-- skillpkg-disable-next-line CODE
/// -->`, and many can be fixed with --fix. Exit status: 0 when no errors remain (warnings too
/// with --deny-warnings), 1 otherwise, 2 on usage or I/O errors.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Rules are named by code (SK303), name (broken-reference), code prefix \
(SK3) or ALL. Configuration (skillpkg.toml, found walking up):\n\n  [lint]\n  select = [\"ALL\"]\n  \
ignore = [\"SK301\"]\n  [lint.rules]\n  placeholder-text = \"error\"\n  [lint.per-path-ignores]\n  \
\"legacy/**\" = [\"body-too-long\"]\n\nExamples:\n  skillpkg lint                            # every skill under the current folder\n  \
skillpkg lint skills/pdf-forms --fix     # apply the safe fixes\n  \
skillpkg lint --diff --unsafe-fixes      # show every fix, write nothing\n  \
skillpkg lint --select SK3 --ignore SK304\n  \
skillpkg lint --statistics               # which rules fire how often"
)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is an independent command-line flag"
)]
pub struct LintArgs {
    #[command(flatten)]
    pub check: CheckArgs,

    /// Run only these rules (replaces `select` in skillpkg.toml)
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub select: Vec<Selector>,

    /// Run these rules as well
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub extend_select: Vec<Selector>,

    /// Do not run these rules
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub ignore: Vec<Selector>,

    /// Apply safe fixes to the files
    #[arg(long, conflicts_with = "watch")]
    pub fix: bool,

    /// Apply unsafe fixes too (with --fix or --diff)
    #[arg(long)]
    pub unsafe_fixes: bool,

    /// Print the fixes as a unified diff instead of writing them; exit 1 when there are any
    #[arg(long, conflicts_with_all = ["fix", "watch"])]
    pub diff: bool,

    /// Print how often each rule fired instead of the findings
    #[arg(long)]
    pub statistics: bool,

    /// Exit 0 even when errors remain
    #[arg(long, conflicts_with = "deny_warnings")]
    pub exit_zero: bool,

    /// Exit 1 when warnings remain, too
    #[arg(long)]
    pub deny_warnings: bool,

    /// The context window (tokens) for Claude Code's listing budget [default: that of
    /// `preview`'s default model]
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<usize>,
}

/// The context window for Claude Code's listing budget: the flag's, else that of the model
/// `preview` assumes, so that the two agree.
fn context_window(args: &LintArgs) -> usize {
    args.context_window.unwrap_or_else(|| {
        crate::agent::claude_code::Model::named(crate::agent::claude_code::DEFAULT_MODEL)
            .context_window
    })
}

/// What the walk found: the jobs, and errors met on the way.
struct Plan {
    jobs: Vec<Job>,
    walk_errors: Vec<discover::DiscoverError>,
    /// Installed skills left out.
    installed: usize,
    /// The skill files that are symbolic links.
    links: std::collections::HashSet<PathBuf>,
    /// The skill files that are links to another skill's file, left out, each with that file.
    linked: Vec<(PathBuf, PathBuf)>,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn run(args: LintArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    if args.check.watch {
        return super::watch::watch(&args.check.paths, printer, || check(&args, printer));
    }
    check(&args, printer)
}

/// One run of `lint`.
fn check(args: &LintArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let threads = parallel::threads_for(&common::paths_or_here(&args.check.paths));
    let mut plan = match plan(args, printer, &cwd, threads)? {
        Ok(plan) => plan,
        Err(status) => return Ok(status),
    };
    let mode = match (args.fix, args.diff) {
        (true, _) => FixMode::Write {
            unsafe_fixes: args.unsafe_fixes,
        },
        (false, true) => FixMode::Diff {
            unsafe_fixes: args.unsafe_fixes,
        },
        _ => FixMode::Off,
    };
    let Linted {
        outcomes,
        copied,
        errors,
        mut copies,
    } = lint_jobs(args, &mut plan.jobs, &plan.links, mode, &cwd, threads);
    copies.splice(0..0, std::mem::take(&mut plan.linked));

    // A copy is fixed like its source (they stay the same), and counted; it is not reported.
    let every = || outcomes.iter().chain(&copied);
    let fixed: usize = every().map(|o| o.fixed).sum();
    let exhausted: Vec<PathBuf> = every()
        .filter(|o| o.exhausted)
        .map(|o| o.checked.skill.path.clone())
        .collect();
    let fixed_files = every().filter(|o| o.fixed > 0).count();
    let failed_io = !errors.is_empty() || !plan.walk_errors.is_empty();
    if let FixMode::Diff { .. } = mode {
        let all: Vec<&Outcome> = every().collect();
        print_diffs(&all, fixed, fixed_files, printer)?;
        report_errors(printer, &plan.walk_errors, &errors)?;
        common::note_installed(plan.installed, printer)?;
        common::note_copies(&copies, printer)?;
        return Ok(if failed_io {
            ExitStatus::Error
        } else if fixed > 0 && !args.exit_zero {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        });
    }

    let checked: Vec<Checked> = outcomes.into_iter().map(|o| o.checked).collect();
    let report = Report {
        checked: &checked,
        root: output::repo_root(&cwd),
        kind: Kind::Lint,
    };
    if args.statistics {
        print_statistics(&checked, printer)?;
    } else {
        output::print(args.check.format, &report, printer)?;
    }
    if mode != FixMode::Off && args.check.format == Format::Human {
        let mut err = printer.status();
        writeln!(
            err,
            "Fixed {fixed} {} in {fixed_files} {}.",
            plural(fixed, "problem", "problems"),
            plural(fixed_files, "file", "files")
        )?;
        err.flush()?;
        // A warning, which --quiet keeps.
        let mut err = printer.stderr();
        for path in &exhausted {
            writeln!(
                err,
                "warning: stopped fixing {} before every fix was applied (the rounds of fixes \
                 ran out); run `skillpkg lint --fix` again to fix more",
                path.display()
            )?;
        }
        err.flush()?;
    }
    report_errors(printer, &plan.walk_errors, &errors)?;
    common::note_installed(plan.installed, printer)?;
    common::note_copies(&copies, printer)?;
    if failed_io {
        return Ok(ExitStatus::Error);
    }
    let summary = report.summary();
    let failed = summary.errors > 0 || (args.deny_warnings && summary.warnings > 0);
    Ok(if failed && !args.exit_zero {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// What linting the jobs gave.
struct Linted {
    /// The skills in their own right, with the rules across skills applied.
    outcomes: Vec<Outcome>,
    /// The copies of those skills (the same SKILL.md in another agent's folder): linted and
    /// fixed, not reported ([`crate::check::copies`]).
    copied: Vec<Outcome>,
    /// The skills that could not be read.
    errors: Vec<anyhow::Error>,
    /// Each copy's path with its original's.
    copies: Vec<(PathBuf, PathBuf)>,
}

/// Lints every job (fixing as `mode` says), sets the copies apart, then runs the rules across
/// skills.
fn lint_jobs(
    args: &LintArgs,
    jobs: &mut [Job],
    links: &std::collections::HashSet<PathBuf>,
    mode: FixMode,
    cwd: &Path,
    threads: usize,
) -> Linted {
    let cli = CliRules {
        select: args.select.clone(),
        extend_select: args.extend_select.clone(),
        ignore: args.ignore.clone(),
    };
    let keep_bodies = jobs
        .iter()
        .any(|(_, _, targets, _)| targets.iter().any(|t| t.is_claude_code()));
    let results = parallel::map_in_order(jobs, threads, |(path, files, targets, config)| {
        let settings = Settings {
            cli: &cli,
            config: config.clone(),
        };
        engine::lint_file(path, files, targets, &settings, mode, cwd, keep_bodies)
    });
    // Each skill's other files were for its own checks; the rules across skills need only
    // the skill files and their settings.
    for (_, files, _, _) in jobs.iter_mut() {
        *files = Vec::new();
    }
    let mut outcomes = Vec::with_capacity(results.len());
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(outcome) => outcomes.push(outcome),
            Err(error) => errors.push(error),
        }
    }
    let (mut outcomes, copied, pairs) = crate::check::copies::split_copies(outcomes, links);
    engine::across_skills(&mut outcomes, jobs, &cli, context_window(args), cwd);
    Linted {
        outcomes,
        copied,
        errors,
        copies: pairs,
    }
}

/// Lints the skill in `dir` as `skillpkg lint DIR` would (its skillpkg.toml's rules and
/// targets, or `targets` when given), for `publish`: what it found, nothing printed. Placeholder
/// text is always looked for, whatever `select` says (a level of "off" still silences it).
pub(crate) fn lint_one(
    dir: &Path,
    targets: &[crate::agent::Target],
    cwd: &Path,
    printer: Printer,
) -> anyhow::Result<Checked> {
    let args = LintArgs {
        check: CheckArgs {
            paths: vec![dir.to_path_buf()],
            targets: common::TargetArgs {
                targets: targets.to_vec(),
            },
            format: Format::Human,
            include_installed: true,
            watch: false,
        },
        select: Vec::new(),
        extend_select: vec![Selector::Rule(&rule::PLACEHOLDER_TEXT)],
        ignore: Vec::new(),
        fix: false,
        unsafe_fixes: false,
        diff: false,
        statistics: false,
        exit_zero: false,
        deny_warnings: false,
        context_window: None,
    };
    let Ok(mut plan) = plan(&args, printer, cwd, 1)? else {
        anyhow::bail!("cannot lint {}", dir.display())
    };
    let Linted {
        outcomes,
        copied,
        mut errors,
        ..
    } = lint_jobs(&args, &mut plan.jobs, &plan.links, FixMode::Off, cwd, 1);
    if let Some(error) = errors.pop() {
        return Err(error);
    }
    // The skill asked for is checked even where another skill in the walk has its text.
    let outcomes: Vec<Outcome> = outcomes.into_iter().chain(copied).collect();
    let folder = |path: &Path| fs_err::canonicalize(path).unwrap_or_else(|_| cwd.join(path));
    let wanted = folder(dir);
    outcomes
        .into_iter()
        .map(|outcome| outcome.checked)
        .find(|checked| {
            checked
                .skill
                .path
                .parent()
                .is_some_and(|parent| folder(parent) == wanted)
        })
        .ok_or_else(|| anyhow::anyhow!("cannot lint {}: no SKILL.md found", dir.display()))
}

/// Finds the skills, their files, targets and configuration; `Err` is the exit status when
/// something was reported instead.
fn plan(
    args: &LintArgs,
    printer: Printer,
    cwd: &Path,
    threads: usize,
) -> anyhow::Result<Result<Plan, ExitStatus>> {
    let paths = common::paths_or_here(&args.check.paths);
    if common::path_problems(&paths, printer)? {
        return Ok(Err(ExitStatus::Error));
    }
    // A SKILL.md given by name is linted with its folder: the rules need the other files.
    let roots: Vec<PathBuf> = paths
        .iter()
        .map(|path| {
            if path.is_file() {
                path.parent().map_or_else(PathBuf::new, Path::to_path_buf)
            } else {
                path.clone()
            }
        })
        .map(|path| {
            if path.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                path
            }
        })
        .collect();
    let found = discover::walk_with_files(&roots, threads);
    let mut skills = common::without_fragments(&roots, common::each_once(&roots, found.skills));
    let installed = common::without_installed(&paths, &mut skills, &args.check);
    // Only installed skills: an empty report (machine formats still get their document).
    if skills.is_empty() && found.errors.is_empty() && installed == 0 {
        return Err(common::no_skills(&paths).into());
    }
    // A link to another skill's file is that skill: read, checked and fixed once, there.
    let linked = common::without_linked_copies(&mut skills, &found.links);
    let finder = ConfigFinder::with_walk(cwd.to_path_buf(), &roots, &found.config_dirs);
    let cli_targets = args.check.targets.given();
    let mut planned = Vec::with_capacity(skills.len());
    let mut config_errors = Vec::new();
    for path in skills {
        match finder.for_dir(path.parent().unwrap_or(&path)) {
            Ok(config) => {
                let targets = common::targets_for(
                    &cli_targets,
                    config.as_deref(),
                    path.parent().unwrap_or(&path),
                );
                planned.push((path, targets, config));
            }
            Err(error) => config_errors.push(error),
        }
    }
    let jobs = jobs_with_files(planned, found.files, &paths);
    if !config_errors.is_empty() {
        common::config_problems(
            config_errors,
            "fix skillpkg.toml: lint reads its [lint] table even when --target is given",
            printer,
        )?;
        return Ok(Err(ExitStatus::Error));
    }
    common::verbose_plan(
        printer,
        &paths,
        jobs.iter().map(|(_, _, targets, _)| targets.as_slice()),
    )?;
    Ok(Ok(Plan {
        jobs,
        walk_errors: found.errors,
        installed,
        links: found.links,
        linked,
    }))
}

/// Each planned skill with its other files: those under its folder and not under another
/// skill's. A SKILL.md that Claude Code loads only as part of the skill around it
/// ([`common::parts_of_skills`]) is one of that skill's files, unless `named` names it.
fn jobs_with_files(
    mut planned: Vec<Planned>,
    mut other_files: Vec<PathBuf>,
    named: &[PathBuf],
) -> Vec<Job> {
    let targeted: Vec<(PathBuf, Vec<crate::agent::Target>)> = planned
        .iter()
        .map(|(path, targets, _)| (path.clone(), targets.clone()))
        .collect();
    let parts = common::parts_of_skills(&targeted);
    drop(targeted);
    let mut index = 0;
    planned.retain(|(path, _, _)| {
        let part = parts[index] && !named.contains(path);
        index += 1;
        if part {
            other_files.push(path.clone());
        }
        !part
    });
    let skill_paths: Vec<PathBuf> = planned.iter().map(|(path, _, _)| path.clone()).collect();
    let files = files_per_skill(&skill_paths, other_files);
    planned
        .into_iter()
        .zip(files)
        .map(|((path, targets, config), files)| (path, files, targets, config))
        .collect()
}

/// A skill's file, targets and configuration, before its other files are known.
type Planned = (
    PathBuf,
    Vec<crate::agent::Target>,
    Option<std::sync::Arc<crate::check::config::Config>>,
);

/// `--diff`: the diffs on stdout, a count on stderr.
fn print_diffs(
    outcomes: &[&Outcome],
    fixed: usize,
    fixed_files: usize,
    printer: Printer,
) -> anyhow::Result<()> {
    let mut out = printer.stdout();
    for outcome in outcomes {
        if let Some(diff) = &outcome.diff {
            out.write_all(diff.as_bytes())?;
        }
    }
    out.flush()?;
    let mut err = printer.status();
    if fixed == 0 {
        writeln!(err, "No fixes to apply.")?;
    } else {
        writeln!(
            err,
            "Would fix {fixed} {} in {fixed_files} {} (run with `--fix` to apply).",
            plural(fixed, "problem", "problems"),
            plural(fixed_files, "file", "files")
        )?;
    }
    err.flush()?;
    Ok(())
}

fn report_errors(
    printer: Printer,
    walk: &[discover::DiscoverError],
    read: &[anyhow::Error],
) -> anyhow::Result<()> {
    if walk.is_empty() && read.is_empty() {
        return Ok(());
    }
    let mut err = printer.stderr();
    for error in walk {
        print_error(&mut err, &error.to_string(), &[])?;
    }
    for error in read {
        print_error(&mut err, &format!("{error:#}"), &[])?;
    }
    err.flush()?;
    Ok(())
}

/// `--statistics`: one line per rule that fired, most frequent first.
fn print_statistics(checked: &[Checked], printer: Printer) -> anyhow::Result<()> {
    let mut counts: BTreeMap<&str, (usize, &Rule)> = BTreeMap::new();
    for item in checked {
        for diagnostic in &item.diagnostics {
            counts
                .entry(diagnostic.rule.code)
                .or_insert((0, diagnostic.rule))
                .0 += 1;
        }
    }
    let mut rows: Vec<(usize, &Rule)> = counts.into_values().collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.code.cmp(b.1.code)));
    let mut out = printer.stdout();
    for (count, rule) in rows {
        let fixable = if rule.fix == rule::Fixable::No {
            ""
        } else {
            " [*]"
        };
        writeln!(out, "{count:>6}  {}  {}{fixable}", rule.code, rule.name)?;
    }
    out.flush()?;
    Ok(())
}

/// Gives each skill the files under its folder that are not under a nested skill's folder.
pub(crate) fn files_per_skill(skills: &[PathBuf], files: Vec<PathBuf>) -> Vec<Vec<PathBuf>> {
    let dirs: HashMap<PathBuf, usize> = skills
        .iter()
        .enumerate()
        .map(|(index, path)| (path.parent().unwrap_or(Path::new("")).to_path_buf(), index))
        .collect();
    let mut out = vec![Vec::new(); skills.len()];
    for file in files {
        let owner = file.ancestors().skip(1).find_map(|dir| dirs.get(dir));
        if let Some(&index) = owner {
            out[index].push(file);
        }
    }
    out
}
