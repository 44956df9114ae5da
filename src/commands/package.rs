//! `skillpkg package` and `skillpkg unpack`.

use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::{ExitStatus, UserError};
use crate::check::config::ConfigFinder;
use crate::check::rule::Kind;
use crate::check::target::{DEFAULT_TARGETS, Target};
use crate::check::{Checked, check_skill};
use crate::fsx;
use crate::output::{self, Format, Printer, Report, print_error};
use crate::pack::archive;
use crate::pack::extract::{self, Limits};
use crate::pack::select::{self, PackFile};
use crate::skill::{FileName, Skill};

/// claude.ai's upload limit, uncompressed (`docs/research/spec-and-refs.md` §3.7).
pub const CLAUDE_AI_MAX_BYTES: u64 = 30 * 1024 * 1024;

/// Pack a skill into a reproducible `.skill` archive.
///
/// Validates the skill for its targets first and refuses when it has errors. Packs every file
/// under the skill folder except .git and other VCS folders, .DS_Store, __pycache__, *.pyc,
/// node_modules, the root evals/, what .gitignore and .skillignore ignore, and hidden files
/// (a `!` line in .skillignore brings one back). Files that look like secrets (.env, *.pem,
/// id_rsa, …) stop it unless .skillignore names them with `!`. The same files give the same
/// bytes on every machine.
#[derive(Debug, clap::Args)]
#[allow(clippy::doc_markdown)] // `--help` text, where backticks would show
pub struct PackageArgs {
    /// The skill folder (or its SKILL.md) [default: .]
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// Where to write the archive [default: dist/<name>-<version>.skill, or dist/<name>.skill]
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Print what would be packed, and write nothing
    #[arg(long)]
    pub list: bool,

    /// A client the skill must load in; repeat for several [default: from skillpkg.toml, else
    /// agentskills]
    #[arg(
        long = "target",
        short = 't',
        value_enum,
        value_name = "TARGET",
        hide_possible_values = true
    )]
    pub targets: Vec<Target>,

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
#[allow(clippy::doc_markdown)] // `--help` text, where backticks would show
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

#[allow(clippy::needless_pass_by_value)] // every command's `run` takes its arguments
pub fn run(args: PackageArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let (dir, skill, targets) = locate(&args, &cwd)?;

    // 1. Validate: a skill that does not load is never packed.
    let checked = check_skill(skill, &targets);
    let name = skill_name(&checked);
    if !checked.is_valid() {
        let report = Report {
            checked: std::slice::from_ref(&checked),
            root: output::repo_root(&cwd),
            kind: Kind::Validate,
        };
        output::print(Format::Human, &report, printer)?;
        let mut err = printer.stderr();
        print_error(
            &mut err,
            "the skill has errors; nothing was packed",
            &["fix them, then package again"],
        )?;
        err.flush()?;
        return Ok(ExitStatus::Failure);
    }

    // A name the spec allows (`café`) may still be one no archive can carry: unpack, the
    // registry and Windows refuse it as a folder name.
    if !crate::pack::valid_skill_name(&name) {
        let mut err = printer.stderr();
        print_error(
            &mut err,
            &format!(
                "`{name}` cannot name the skill's folder in an archive: unpack and registries \
                 accept lowercase ASCII letters, digits and single hyphens, and no name Windows \
                 reserves for a device (`con`, `nul`, `com1`); nothing was packed",
                name = name.escape_debug()
            ),
            &["rename the skill (its folder and its `name`), then package again"],
        )?;
        err.flush()?;
        return Ok(ExitStatus::Failure);
    }

    // 2. Select the files, never the archive itself.
    let output = args.output.clone().unwrap_or_else(|| {
        let file = match version(&checked) {
            Some(version) => format!("{name}-{version}.skill"),
            None => format!("{name}.skill"),
        };
        PathBuf::from("dist").join(file)
    });
    let files = match select::select_except(&dir, Some(&output)) {
        Ok(files) => files,
        Err(error) => {
            let mut err = printer.stderr();
            print_error(&mut err, &error.to_string(), &[error.hint()])?;
            err.flush()?;
            return Ok(ExitStatus::Failure);
        }
    };
    let total: u64 = files.iter().map(|file| file.size).sum();
    if let Some(refusal) = claude_ai_checks(&targets, &files, total, args.max_size) {
        let mut err = printer.stderr();
        print_error(
            &mut err,
            &refusal,
            &["claude.ai and the Skills API would refuse the upload"],
        )?;
        err.flush()?;
        return Ok(ExitStatus::Failure);
    }
    if args.list {
        print_list(&files, total, printer)?;
        return Ok(ExitStatus::Success);
    }

    // 3. Write it: a temporary file beside the output, renamed into place.
    let prefix = match args.layout {
        Layout::Folder => format!("{name}/"),
        Layout::Flat => String::new(),
    };
    let summary = match write_archive(&output, &prefix, &files, total) {
        Ok(summary) => summary,
        Err(error) => match error.downcast::<Unpackable>() {
            Ok(refused) => {
                let mut err = printer.stderr();
                print_error(&mut err, &refused.to_string(), &[Unpackable::HINT])?;
                err.flush()?;
                return Ok(ExitStatus::Failure);
            }
            Err(error) => return Err(error),
        },
    };

    let mut out = printer.stdout();
    writeln!(out, "{}", output.display())?;
    out.flush()?;
    let mut err = printer.stderr();
    let green = anstyle::AnsiColor::Green.on_default().bold();
    writeln!(
        err,
        "{green}Packed{green:#} `{name}`: {} {}, {} bytes ({} unpacked)\n  sha256 {}\n  content {}",
        files.len(),
        output::plural(files.len(), "file", "files"),
        summary.bytes,
        total,
        summary.sha256,
        summary.content_digest
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// An archive that was written but would be refused when unpacked; nothing was kept.
#[derive(Debug, thiserror::Error)]
#[error("the archive would be refused when unpacked: {0}")]
pub(crate) struct Unpackable(extract::ExtractError);

impl Unpackable {
    pub(crate) const HINT: &str = "move large, highly compressible files (data, logs) out of the skill, or add them to .skillignore";
}

/// Writes the archive to a temporary file beside `output` and renames it into place, unless
/// unpacking it would be refused ([`Unpackable`]).
pub(crate) fn write_archive(
    output: &Path,
    prefix: &str,
    files: &[PackFile],
    total: u64,
) -> anyhow::Result<archive::Summary> {
    let folder = fsx::parent_or_dot(output);
    fs_err::create_dir_all(folder)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".skillpkg-package-")
        .tempfile_in(folder)
        .with_context(|| format!("cannot write in {}", folder.display()))?;
    // Ctrl-C removes the half-written archive.
    let cleanup = crate::interrupt::Cleanup::register(temp.path());
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let bar = progress_bar(total);
    let summary = {
        let writer = std::io::BufWriter::with_capacity(256 * 1024, temp.as_file_mut());
        let report = |done: u64| {
            if let Some(bar) = &bar {
                bar.set_position(done);
            }
        };
        archive::write(writer, prefix, files, threads, &report)?
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // Never write an archive that unpack, install or a registry would refuse as a bomb.
    Limits::default()
        .admit(summary.bytes, total, files.len())
        .map_err(Unpackable)?;
    temp.as_file().sync_all()?;
    fsx::set_mode(temp.path(), 0o644)?;
    cleanup
        .commit(|| temp.persist(output))
        .ok_or_else(|| anyhow::anyhow!("interrupted"))?
        .with_context(|| format!("cannot write {}", output.display()))?;

    Ok(summary)
}

/// The skill folder, its SKILL.md read, and its targets (the command line's, else
/// skillpkg.toml's, else the default).
pub(crate) fn locate(
    args: &PackageArgs,
    cwd: &Path,
) -> anyhow::Result<(PathBuf, Skill, Vec<Target>)> {
    let path = args.path.clone().unwrap_or_else(|| PathBuf::from("."));
    let dir = if path.is_file() {
        path.parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    } else {
        path.clone()
    };
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    let skill_file = ["SKILL.md", "skill.md"]
        .iter()
        .map(|name| dir.join(name))
        .find(|candidate| candidate.is_file());
    let Some(skill_file) = skill_file else {
        return Err(UserError {
            message: format!("`{}` has no SKILL.md", dir.display()),
            hints: vec!["pass the skill's folder".into()],
        }
        .into());
    };
    let skill = Skill::load(&skill_file)
        .with_context(|| format!("cannot read {}", skill_file.display()))?;
    let targets = if args.targets.is_empty() {
        ConfigFinder::new(cwd.to_path_buf())
            .for_dir(&dir)
            .map_err(|error| UserError {
                message: error.to_string(),
                hints: vec![],
            })?
            .and_then(|config| config.targets.clone())
            .unwrap_or_else(|| DEFAULT_TARGETS.to_vec())
    } else {
        args.targets.clone()
    };

    Ok((dir, skill, targets))
}

/// The name the archive is known by: the valid frontmatter name, else the folder's.
pub(crate) fn skill_name(checked: &Checked) -> String {
    checked
        .skill
        .reading()
        .and_then(|reading| reading.doc.as_ref())
        .and_then(|doc| doc.name.as_ref())
        .and_then(|field| field.value.as_ref().ok())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty() && !name.contains(['/', '\\']))
        .unwrap_or_else(|| checked.skill.dir_name.clone())
}

/// `metadata.version`, else `version`.
pub(crate) fn version(checked: &Checked) -> Option<String> {
    let reading = checked.skill.reading()?;
    let doc = reading.doc.as_ref()?;
    let yaml = reading.yaml.as_ref()?.as_ref().ok()?;
    let from_metadata = doc
        .metadata
        .as_ref()
        .and_then(|field| field.value.as_ref().ok())
        .and_then(|entries| {
            entries
                .iter()
                .find(|entry| entry.key.value == "version")
                .and_then(|entry| yaml.scalar(entry.value))
                .map(|scalar| scalar.value.clone())
        });
    from_metadata
        .or_else(|| {
            doc.version
                .as_ref()
                .and_then(|field| field.value.as_ref().ok())
                .cloned()
        })
        .map(|version| version.trim().to_owned())
        .filter(|version| {
            !version.is_empty()
                && version
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
        })
}

/// What claude.ai would refuse (`docs/research/spec-and-refs.md` §3.7).
fn claude_ai_checks(
    targets: &[Target],
    files: &[PackFile],
    total: u64,
    max: u64,
) -> Option<String> {
    if !targets.contains(&Target::ClaudeAi) {
        return None;
    }
    if total > max {
        return Some(format!(
            "the skill is {total} bytes unpacked; claude.ai accepts at most {max}"
        ));
    }
    let nested: Vec<&str> = files
        .iter()
        .filter(|file| {
            file.path.contains('/')
                && FileName::classify(std::ffi::OsStr::new(
                    file.path.rsplit('/').next().unwrap_or_default(),
                ))
                .is_some()
        })
        .map(|file| file.path.as_str())
        .collect();
    if !nested.is_empty() {
        return Some(format!(
            "the archive would hold more than one SKILL.md ({}); claude.ai requires exactly one",
            nested.join(", ")
        ));
    }
    if files
        .iter()
        .any(|file| file.path == ".claude-plugin/plugin.json")
    {
        return Some("the skill holds `.claude-plugin/plugin.json`; claude.ai refuses plugin manifests in a skill".into());
    }
    None
}

fn print_list(files: &[PackFile], total: u64, printer: Printer) -> anyhow::Result<()> {
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
    let mut err = printer.stderr();
    writeln!(
        err,
        "{} {}, {total} bytes",
        files.len(),
        if files.len() == 1 { "file" } else { "files" }
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

#[allow(clippy::needless_pass_by_value)] // every command's `run` takes its arguments
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
            let mut err = printer.stderr();
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
        Err(extract::ExtractError::Io(error)) => {
            Err(anyhow::Error::new(error).context(format!("cannot unpack {}", args.file.display())))
        }
        Err(error) => {
            let mut err = printer.stderr();
            let hint = match &error {
                extract::ExtractError::Exists(_) => {
                    "pass --force to replace it, or --dir to unpack elsewhere"
                }
                _ => "nothing was written; ask the archive's author for a clean one",
            };
            print_error(
                &mut err,
                &format!("{}: {error}", args.file.display()),
                &[hint],
            )?;
            err.flush()?;
            Ok(ExitStatus::Failure)
        }
    }
}
