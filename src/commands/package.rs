//! `skillpkg package` and `skillpkg unpack`.

use std::collections::HashMap;
use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::common::{self, TargetArgs};
use super::{ExitStatus, Refusal, UserError};
use crate::agent::Target;
use crate::agent::claude_ai::MAX_UPLOAD_BYTES as CLAUDE_AI_MAX_BYTES;
use crate::check::config::ConfigFinder;
use crate::check::rule::Kind;
use crate::output::{self, Format, Printer, Report};
use crate::pack::archive;
use crate::pack::build::{self, BuildError};
use crate::pack::extract;
use crate::pack::select::PackFile;
use crate::skill::Skill;

/// Pack skills into reproducible `.skill` archives.
///
/// Validates the skill for its targets first and refuses when it has errors. Packs every file
/// under the skill folder except .git and other VCS folders, .DS_Store, __pycache__, *.pyc,
/// node_modules, the root evals/, what .gitignore and .skillignore ignore, and hidden files
/// (a `!` line in .skillignore brings one back). Files that look like secrets (.env, *.pem,
/// id_rsa, …) stop it unless .skillignore names them with `!`. The same files give the same
/// bytes on every machine.
#[derive(Debug, clap::Args)]
#[expect(
    clippy::doc_markdown,
    reason = "`--help` text, where backticks would show"
)]
#[command(after_help = "Examples:
  skillpkg package skills/pdf-forms          # dist/pdf-forms-1.0.0.skill in the project root
  skillpkg package                           # the skill in the current folder
  skillpkg package skills/* --out-dir dist   # every skill, one archive each
  skillpkg package . --list                  # what would be packed, nothing written
  skillpkg package . --layout flat -o site/pdf-forms.skill")]
pub struct PackageArgs {
    /// Skill folders (or their SKILL.md files) [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Where to write the archive, when packing one skill
    #[arg(long, short = 'o', value_name = "FILE", conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,

    /// The folder to write archives into, each named <name>-<version>.skill (or <name>.skill)
    /// [default: dist/ in the project root: the nearest folder above the skill with a
    /// skillpkg.toml, else the repository root, else the folder holding the skill]
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Print what would be packed, and write nothing
    #[arg(long)]
    pub list: bool,

    #[command(flatten)]
    pub targets: TargetArgs,

    /// folder: every entry under one folder named after the skill (claude.ai, the Skills API);
    /// flat: SKILL.md at the root (the `skills` installer, .well-known indexes)
    #[arg(long, value_enum, default_value = "folder", value_name = "LAYOUT")]
    pub layout: Layout,

    /// The upload limit checked for the claude-ai target, in bytes (uncompressed)
    #[arg(long, value_name = "BYTES", default_value_t = CLAUDE_AI_MAX_BYTES)]
    pub max_size: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Layout {
    Folder,
    Flat,
}

/// Extract a `.skill` archive safely.
///
/// Refuses absolute paths, `..`, symbolic links, devices, duplicate entries, more than one
/// top-level folder, a missing SKILL.md and archives that expand too much (counted while
/// extracting). Writes to a temporary folder first; an existing folder is replaced only with
/// --force.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg unpack pdf-forms-1.0.0.skill                   # into ./pdf-forms/
  skillpkg unpack pdf-forms.skill --dir .claude/skills    # where Claude Code finds it
  skillpkg unpack pdf-forms.skill --force                 # replace the folder")]
pub struct UnpackArgs {
    /// The archive
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The folder to extract into (the skill's folder is created inside it) [default: .]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Replace an existing skill folder
    #[arg(long)]
    pub force: bool,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn run(args: PackageArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let given = super::common::paths_or_here(&args.paths);
    let paths = skills_in(&given, printer)?;
    if args.output.is_some() && paths.len() > 1 {
        return Err(UserError {
            message: format!(
                "--output names one archive, but {} skills were given",
                paths.len()
            ),
            hints: vec!["pass --out-dir for several skills, or package them one at a time".into()],
        }
        .into());
    }
    let mut written = HashMap::new();
    if paths.len() == 1 {
        return pack_one(&args, &paths[0], &cwd, printer, &mut written)
            .map(|()| ExitStatus::Success);
    }
    // Several skills: each is packed or refused on its own, and the worst outcome decides.
    let mut status = ExitStatus::Success;
    for path in &paths {
        if let Err(error) = pack_one(&args, path, &cwd, printer, &mut written) {
            if super::is_broken_pipe(&error) {
                return Err(error);
            }
            super::report_error(&error, printer)?;
            let failed = super::ErrorKind::of(&error).exit_status();
            if failed.code() > status.code() {
                status = failed;
            }
        }
    }
    Ok(status)
}

/// The skills to pack: each path that is a skill (its folder or its SKILL.md), and the skills
/// found under a folder that is not one (`package skills`). Among several paths, a file that is
/// no SKILL.md (a README beside the skills, from `skills/*`) is passed over with a note.
fn skills_in(given: &[PathBuf], printer: Printer) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut passed_over = Vec::new();
    for path in given {
        if path.is_dir() && skill_file(path).is_none() {
            let threads = crate::parallel::threads_for(std::slice::from_ref(path));
            let found = crate::skill::discover::walk(std::slice::from_ref(path), threads);
            let skills = super::common::without_fragments(&[], found.skills);
            if skills.is_empty() {
                // `locate` says what is wrong with it.
                out.push(path.clone());
            }
            out.extend(
                skills
                    .into_iter()
                    .filter_map(|skill| skill.parent().map(Path::to_path_buf)),
            );
        } else if given.len() > 1
            && path.is_file()
            && !path
                .file_name()
                .is_some_and(|name| name.eq_ignore_ascii_case("SKILL.md"))
        {
            passed_over.push(path.clone());
        } else {
            out.push(path.clone());
        }
    }
    if !passed_over.is_empty() {
        let mut err = printer.status();
        writeln!(
            err,
            "note: passed over {}: not skills",
            super::common::quoted(&passed_over)
        )?;
        err.flush()?;
    }
    Ok(out)
}

/// Validates, selects and writes (or, with --list, lists) the skill at `path`.
fn pack_one(
    args: &PackageArgs,
    path: &Path,
    cwd: &Path,
    printer: Printer,
    written: &mut HashMap<PathBuf, PathBuf>,
) -> anyhow::Result<()> {
    let (dir, skill, targets) = locate(Some(path), &args.targets.given(), cwd)?;

    // 1. Validate: a skill that does not load is never packed.
    let validated = build::validate(skill, &targets)
        .map_err(|error| refused(error, cwd, printer, "package"))?;
    let name = &validated.name;

    // 2. Select the files, never the archive itself.
    let output = args.output.clone().unwrap_or_else(|| {
        let file = match &validated.version {
            Some(version) => format!("{name}-{version}.skill"),
            None => format!("{name}.skill"),
        };
        let folder = args
            .out_dir
            .clone()
            .unwrap_or_else(|| relative_to(&project_root(&dir, cwd).join("dist"), cwd));
        folder.join(file)
    });
    let selection = build::select(&dir, Some(&output), &targets, args.max_size)
        .map_err(|error| refused(error, cwd, printer, "package"))?;
    let (files, total) = (&selection.files, selection.total);
    if args.list {
        return print_list(name, files, total, printer);
    }
    // Two skills of one name in one run would write one archive over the other.
    if let Some(first) = written.get(&lexical(&cwd.join(&output))) {
        return Err(Refusal::new(
            format!(
                "`{}` would be written to {}, where `{}` was just packed; nothing was packed",
                dir.display(),
                output.display(),
                first.display()
            ),
            &["give the skills different names, or package them one at a time with -o"],
        )
        .into());
    }

    // 3. Write it: a temporary file beside the output, renamed into place.
    let prefix = match args.layout {
        Layout::Folder => format!("{name}/"),
        Layout::Flat => String::new(),
    };
    let summary = write_with_progress(&output, &prefix, &selection)
        .map_err(|error| refused(error, cwd, printer, "package"))?;

    written.insert(lexical(&cwd.join(&output)), dir.clone());
    let mut out = printer.stdout();
    writeln!(out, "{}", output.display())?;
    out.flush()?;
    let mut err = printer.status();
    let green = anstyle::AnsiColor::Green.on_default().bold();
    writeln!(
        err,
        "{green}Packed{green:#} `{name}`: {} {}, {} ({} unpacked)\n  sha256 {}\n  content {}",
        files.len(),
        output::plural(files.len(), "file", "files"),
        crate::fsx::size(summary.bytes),
        crate::fsx::size(total),
        summary.sha256,
        summary.content_digest
    )?;
    err.flush()?;
    Ok(())
}

/// The skill file of the folder `dir`: its SKILL.md, or a lowercase skill.md.
fn skill_file(dir: &Path) -> Option<PathBuf> {
    ["SKILL.md", "skill.md"]
        .iter()
        .map(|name| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The project a skill in `dir` belongs to, whose `dist/` archives go into by default: the
/// nearest folder with a `skillpkg.toml` or a repository root, from the skill folder up (a
/// skill that is a repository of its own keeps its archives in its `dist/`, which packing
/// leaves out), else the folder holding the skill, or the project around an agent's skills
/// folder (`proj` for `proj/.claude/skills/pdf`), never the agent's folder itself. Resolved as
/// written: a symbolic link to a skill elsewhere belongs to the project it is in.
fn project_root(dir: &Path, cwd: &Path) -> PathBuf {
    let skill = lexical(&cwd.join(dir));
    for folder in skill.ancestors() {
        if folder.join(crate::check::config::FILE_NAME).is_file()
            || crate::check::folder_facts(folder).repository
        {
            return folder.to_path_buf();
        }
    }
    let parent = skill.parent().unwrap_or(&skill);
    let agents_folder = parent.file_name().is_some_and(|name| name == "skills")
        && parent
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|name| name.to_string_lossy().starts_with('.'));
    match parent.parent().and_then(Path::parent) {
        Some(project) if agents_folder => project.to_path_buf(),
        _ => parent.to_path_buf(),
    }
}

/// `path` with `.` and `..` resolved as written, without following symbolic links.
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` as seen from `base` when both are absolute: `dist`, `../../dist`. A path that shares
/// nothing with `base` is kept absolute.
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let base = lexical(base);
    let mut common = 0;
    for (a, b) in path.components().zip(base.components()) {
        if a != b {
            break;
        }
        common += 1;
    }
    // Only the root in common: an absolute path reads better than a climb to `/`.
    if common <= 1 {
        return path.to_path_buf();
    }
    let mut relative = PathBuf::new();
    for _ in base.components().skip(common) {
        relative.push("..");
    }
    for part in path.components().skip(common) {
        relative.push(part);
    }
    if relative.as_os_str().is_empty() {
        relative.push(".");
    }
    relative
}

/// The skill folder, its SKILL.md read, and its targets (`cli` when it names any, else
/// skillpkg.toml's, else the default). `path` is the folder or its SKILL.md (`.` when `None`).
pub(crate) fn locate(
    path: Option<&Path>,
    cli: &[Target],
    cwd: &Path,
) -> anyhow::Result<(PathBuf, Skill, Vec<Target>)> {
    let path = path.unwrap_or(Path::new("."));
    if !path.exists() {
        return Err(UserError {
            message: format!("`{}` does not exist", path.display()),
            hints: vec!["pass a skill's folder (the folder that holds its SKILL.md)".into()],
        }
        .into());
    }
    let dir = if path.is_file() {
        if !path
            .file_name()
            .is_some_and(|name| name.eq_ignore_ascii_case("SKILL.md"))
        {
            return Err(UserError {
                message: format!("`{}` is not a SKILL.md", path.display()),
                hints: vec!["pass the skill's folder, or its SKILL.md".into()],
            }
            .into());
        }
        path.parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    } else {
        path.to_path_buf()
    };
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    let Some(skill_file) = skill_file(&dir) else {
        return Err(UserError {
            message: format!(
                "`{}` has no SKILL.md, so it is not a skill folder",
                dir.display()
            ),
            hints: vec!["pass the skill's folder; `skillpkg init NAME` creates one".into()],
        }
        .into());
    };
    let skill = Skill::load(&skill_file)
        .with_context(|| format!("cannot read {}", skill_file.display()))?;
    let config = if cli.is_empty() {
        ConfigFinder::new(cwd.to_path_buf())
            .for_dir(&dir)
            .map_err(|error| UserError {
                message: error.to_string(),
                hints: vec![],
            })?
    } else {
        None
    };
    let targets = common::targets_for(cli, config.as_deref(), &dir);

    Ok((dir, skill, targets))
}

fn print_list(name: &str, files: &[PackFile], total: u64, printer: Printer) -> anyhow::Result<()> {
    let mut out = printer.stdout();
    let width = files
        .iter()
        .map(|file| file.size.to_string().len())
        .max()
        .unwrap_or(1);
    for file in files {
        let mode = if file.executable { "0755" } else { "0644" };
        writeln!(out, "{mode}  {:>width$}  {}", file.size, file.path)?;
    }
    out.flush()?;
    let mut err = printer.status();
    writeln!(
        err,
        "`{name}`: {} {}, {}",
        files.len(),
        output::plural(files.len(), "file", "files"),
        crate::fsx::size(total)
    )?;
    err.flush()?;
    Ok(())
}

/// A progress bar on a terminal, for bundles worth waiting for (never under CI).
fn progress_bar(total: u64) -> Option<indicatif::ProgressBar> {
    if total < 8 * 1024 * 1024
        || !std::io::stderr().is_terminal()
        || std::env::var_os("CI").is_some()
    {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} packing {bytes}/{total_bytes} [{bar:30}] {eta}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(bar)
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn unpack(args: UnpackArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let parent = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let fallback = args.file.file_stem().map_or_else(
        || "skill".to_owned(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    let options = extract::Options {
        force: args.force,
        ..extract::Options::new(&fallback)
    };
    match extract::extract(&args.file, &parent, &options) {
        Ok(extracted) => {
            let mut out = printer.stdout();
            writeln!(out, "{}", extracted.dir.display())?;
            out.flush()?;
            let mut err = printer.status();
            let green = anstyle::AnsiColor::Green.on_default().bold();
            writeln!(
                err,
                "{green}Unpacked{green:#} `{}`: {} {}",
                extracted.name,
                extracted.files.len(),
                output::plural(extracted.files.len(), "file", "files")
            )?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
        Err(extract::ExtractError::Interrupted) => Ok(ExitStatus::Error),
        Err(error) if error.is_refusal() => {
            let hint = match &error {
                extract::ExtractError::Exists(_) => {
                    "pass --force to replace it, or --dir to unpack elsewhere"
                }
                _ => "nothing was written; ask the archive's author for a clean one",
            };
            Err(Refusal::new(format!("{}: {error}", args.file.display()), &[hint]).into())
        }
        Err(error) => {
            Err(anyhow::Error::new(error).context(format!("cannot unpack {}", args.file.display())))
        }
    }
}

/// Writes the archive through [`build::write`], with a progress bar on a terminal.
pub(crate) fn write_with_progress(
    output: &Path,
    prefix: &str,
    selection: &build::Selection,
) -> Result<archive::Summary, BuildError> {
    let bar = progress_bar(selection.total);
    let report = |done: u64| {
        if let Some(bar) = &bar {
            bar.set_position(done);
        }
    };
    let summary = build::write(output, prefix, selection, &report);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    summary
}

/// A build error as the command's error: a refusal (exit 1) after printing the diagnostics of
/// an invalid skill, or the I/O error it is (exit 2). `command` is `package` or `publish`.
pub(crate) fn refused(
    error: BuildError,
    cwd: &Path,
    printer: Printer,
    command: &str,
) -> anyhow::Error {
    let done = if command == "publish" {
        "published"
    } else {
        "packed"
    };
    let again = format!("then {command} again");
    let (message, hint) = match error {
        BuildError::Io(error) => return error,
        BuildError::Invalid(checked) => {
            let report = Report {
                checked: std::slice::from_ref(&*checked),
                root: output::repo_root(cwd),
                kind: Kind::Validate,
            };
            if let Err(error) = output::print(Format::Human, &report, printer) {
                return error.into();
            }
            (
                format!("the skill has errors; nothing was {done}"),
                format!("fix them, {again}"),
            )
        }
        BuildError::UnportableName(name) => (
            format!("{}; nothing was {done}", BuildError::UnportableName(name)),
            format!("rename the skill (its folder and its `name`), {again}"),
        ),
        error => (error.to_string(), error.hint().to_owned()),
    };
    Refusal::new(message, &[hint.as_str()]).into()
}
