//! `skillpkg install`: fetch skills from a registry, or exactly what skills.lock says, verified
//! and placed so that nothing a lockfile or a registry says can choose where they go.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{RegistryFlag, client_error};
use crate::agent::Target;
use crate::check::config::lexical_absolute;
use crate::commands::{ExitStatus, UserError};
use crate::fsx;
use crate::output::Printer;
use crate::pack::archive;
use crate::pack::extract::{self, Limits};
use crate::registry::client::Client;
use crate::registry::credentials;
use crate::registry::lockfile::{self, FILE_NAME as LOCKFILE, Locked, Lockfile, MARKER, Marker};

/// Install skills from the registry, or exactly what skills.lock says.
///
/// NAME@REQ takes a semver requirement (`pdf@^1.2`); a full version (`pdf@1.2.3`) is exact and
/// may be a yanked one. Each archive's SHA-256 and content digest are checked before anything
/// is written; the skill goes to the target agent's skills folder (.claude/skills/ for Claude
/// Code, .github/skills/ for Copilot, .agents/skills/ for the others) or --dir, and skills.lock
/// records it. With no names, everything in skills.lock is installed
/// and verified.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg install pdf-forms                 # the newest stable version, recorded in skills.lock
  skillpkg install pdf-forms@^1.2 notes@1.0.0
  skillpkg install                           # exactly what skills.lock says, verified
  skillpkg install --locked                  # in CI: fail rather than change skills.lock
  skillpkg install pdf-forms --global        # into your user-level skills")]
pub struct InstallArgs {
    /// Skills to install, each NAME or NAME@REQ (none: what skills.lock says)
    #[arg(value_name = "NAME[@REQ]")]
    pub names: Vec<String>,
    /// Which agent's skills folder to install into
    #[arg(
        long,
        short = 't',
        value_enum,
        value_name = "TARGET",
        default_value = "claude-code",
        hide_possible_values = true
    )]
    pub target: Target,
    /// Install into this folder instead
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Install into the target agent's user-level folder (~/.claude/skills, ~/.agents/skills,
    /// ~/.copilot/skills)
    #[arg(long, conflicts_with = "dir")]
    pub global: bool,
    /// Fail instead of changing skills.lock
    #[arg(long)]
    pub locked: bool,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn install(args: InstallArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let scope = Scope::new(args.global)?;
    let mut lock = Lockfile::read(&scope.lock).map_err(|error| UserError {
        message: error.to_string(),
        hints: vec![format!(
            "skills.lock is written by skillpkg install; restore it from version control, or delete it and install again"
        )],
    })?;
    let mut err = printer.status();
    if args.names.is_empty() {
        install_from_lock(&scope, &lock, &mut err)?;
        return Ok(ExitStatus::Success);
    }
    let dir = install_dir(&args, &scope)?;
    let registry = args.registry.resolve(Path::new("."))?;
    let client = Client::new(&registry, None).map_err(client_error)?;
    let to = Destination {
        client: &client,
        registry: &registry,
        scope: &scope,
        dir: &dir,
        locked: args.locked,
    };
    // Whatever was installed before a failure is still recorded, so no folder is left orphaned.
    let mut changed = false;
    for spec in &args.names {
        match install_one(&to, spec, &mut lock, &mut err) {
            Ok(one) => changed |= one,
            Err(error) => {
                if changed {
                    lock.write(&scope.lock)?;
                }
                return Err(error);
            }
        }
    }
    if changed {
        lock.write(&scope.lock)?;
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// Where a lockfile is and the root its folders are relative to: the project's `skills.lock`
/// in the current folder, or, for `--global`, the user's in skillpkg's config folder, whose
/// folders are relative to the home folder.
struct Scope {
    lock: PathBuf,
    root: PathBuf,
    global: bool,
}

impl Scope {
    fn new(global: bool) -> anyhow::Result<Self> {
        if !global {
            return Ok(Self {
                lock: PathBuf::from(LOCKFILE),
                root: std::env::current_dir()?,
                global,
            });
        }
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from)
            .filter(|home| home.is_absolute())
            .ok_or_else(|| anyhow::anyhow!("cannot find the home folder: set HOME"))?;
        let config = credentials::config_dir().ok_or_else(|| {
            anyhow::anyhow!("cannot find a config folder: set HOME or SKILLPKG_CONFIG_DIR")
        })?;
        // skillpkg's config folder also holds credentials: the user's eyes only.
        fsx::create_private_dir_all(&config)?;
        Ok(Self {
            lock: config.join(LOCKFILE),
            root: home,
            global,
        })
    }

    /// A folder relative to the root, as the user should see it.
    fn show(&self, relative: &Path) -> String {
        if self.global {
            self.root.join(relative).display().to_string()
        } else {
            relative.display().to_string()
        }
    }
}

/// Where `install` puts skills, and from where.
struct Destination<'a> {
    client: &'a Client,
    registry: &'a str,
    scope: &'a Scope,
    /// The skills folder, relative to the scope's root, `/`-separated and normalised.
    dir: &'a str,
    /// `--locked`: refuse to change skills.lock.
    locked: bool,
}

/// Installs one `NAME[@REQ]` and records it in `lock`; says whether `lock` changed.
fn install_one(
    to: &Destination<'_>,
    spec: &str,
    lock: &mut Lockfile,
    err: &mut impl Write,
) -> anyhow::Result<bool> {
    let (name, requirement) = match spec.split_once('@') {
        Some((name, requirement)) => (name, Some(requirement)),
        None => (spec, None),
    };
    // The folder is named by what the user asked for, never by what the registry answers.
    if !crate::pack::valid_skill_name(name) {
        return Err(UserError {
            message: format!("`{name}` is not a skill name"),
            hints: vec!["skill names are lowercase letters, digits and single hyphens".into()],
        }
        .into());
    }
    let skill = to.client.info(name).map_err(client_error)?;
    if skill.name != name {
        return Err(UserError {
            message: format!(
                "asked for `{name}`, the registry answered with `{}`; nothing was installed",
                skill.name.escape_debug()
            ),
            hints: vec!["report it to the registry's operator".into()],
        }
        .into());
    }
    let chosen = skill.choose(requirement).ok_or_else(|| UserError {
        message: format!(
            "no version of `{name}` matches `{}`",
            requirement.unwrap_or("*")
        ),
        hints: vec![format!("`skillpkg info {name}` lists its versions")],
    })?;
    let entry = Locked {
        name: name.to_owned(),
        version: chosen.version.clone(),
        requirement: None,
        registry: to.registry.to_owned(),
        sha256: chosen.checksum.clone(),
        digest: chosen.digest.clone(),
        dir: to.dir.to_owned(),
    };
    entry.check().map_err(|reason| UserError {
        message: format!("the registry's answer for `{name}` is not usable: {reason}"),
        hints: vec!["nothing was installed; report it to the registry's operator".into()],
    })?;
    let existing = lock
        .skills
        .iter()
        .position(|locked| locked.name == entry.name && locked.folder() == entry.folder());
    let changed = existing.is_none_or(|index| lock.skills[index] != entry);
    if changed && to.locked {
        return Err(UserError {
            message: format!(
                "{}@{} is not what skills.lock records, and --locked forbids changing it",
                entry.name, entry.version
            ),
            hints: vec!["run without --locked to update skills.lock".into()],
        }
        .into());
    }
    let previous = existing.map(|index| lock.skills[index].clone());
    let placed = place(
        to.client,
        &entry,
        &to.scope.root,
        previous.as_ref(),
        Some(chosen.size),
        !to.scope.global,
    )?;
    match existing {
        Some(index) => lock.skills[index] = entry.clone(),
        None => lock.skills.push(entry.clone()),
    }
    let shown = to.scope.show(&entry.folder());
    match placed {
        Placed::Installed => writeln!(
            err,
            "Installed {}@{} into {shown}",
            entry.name, entry.version
        )?,
        Placed::UpToDate => writeln!(
            err,
            "{}@{} is already installed in {shown}",
            entry.name, entry.version
        )?,
    }
    Ok(changed)
}

/// `skillpkg install` with no names: exactly what skills.lock says, every digest verified.
fn install_from_lock(scope: &Scope, lock: &Lockfile, err: &mut impl Write) -> anyhow::Result<()> {
    if lock.skills.is_empty() {
        return Err(UserError {
            message: format!(
                "nothing to install: {} lists no skills",
                scope.lock.display()
            ),
            hints: vec!["name the skills: `skillpkg install NAME`".into()],
        }
        .into());
    }
    for entry in &lock.skills {
        let client = Client::new(&entry.registry, None).map_err(client_error)?;
        let placed = place(
            &client,
            entry,
            &scope.root,
            Some(entry),
            None,
            !scope.global,
        )?;
        let shown = scope.show(&entry.folder());
        match placed {
            Placed::Installed => writeln!(
                err,
                "Installed {}@{} into {shown} (verified against skills.lock)",
                entry.name, entry.version
            )?,
            Placed::UpToDate => writeln!(
                err,
                "{}@{} is already installed in {shown} (its files match skills.lock)",
                entry.name, entry.version
            )?,
        }
    }
    err.flush()?;
    Ok(())
}

/// The skills folder to install into, relative to the scope's root and normalised: `--dir`
/// (which must be inside the project, since skills.lock records folders relative to it), else
/// the target agent's project or user folder.
fn install_dir(args: &InstallArgs, scope: &Scope) -> anyhow::Result<String> {
    let Some(dir) = &args.dir else {
        return Ok(if scope.global {
            args.target.user_install_dir()
        } else {
            args.target.install_dir()
        }
        .to_owned());
    };
    let outside = || UserError {
        message: format!(
            "`{}` is outside the project ({}); skills.lock records folders inside it",
            dir.display(),
            scope.root.display()
        ),
        hints: vec![
            "pass a folder inside the project, or --global for the user-level folder".into(),
        ],
    };
    let absolute = lexical_absolute(&scope.root, dir);
    let relative = absolute.strip_prefix(&scope.root).map_err(|_| outside())?;
    let text = relative
        .to_str()
        .ok_or_else(outside)?
        .replace(std::path::MAIN_SEPARATOR, "/");
    let text = if text.is_empty() {
        ".".to_owned()
    } else {
        text
    };
    lockfile::normalise_dir(&text).map_err(|reason| {
        UserError {
            message: format!("cannot install into `{}`: {reason}", dir.display()),
            hints: vec![],
        }
        .into()
    })
}

/// What [`place`] did.
enum Placed {
    Installed,
    /// The folder already holds exactly these files: nothing was downloaded.
    UpToDate,
}

/// What is at an install's destination, and whether skillpkg may replace it.
enum Present {
    Nothing,
    /// It holds exactly the files to install.
    UpToDate,
    /// skillpkg installed it and nobody changed it since: it may be replaced.
    Ours,
}

/// Whether the folder at `destination` may be replaced by `entry`: only with proof that
/// skillpkg installed it and nobody has changed it since (its files match the digest of its
/// marker, or of `previous`, what skills.lock recorded for it). Anything else (a folder the
/// user made, a link, an installed skill someone edited) is refused.
fn check_present(
    destination: &Path,
    shown: &str,
    entry: &Locked,
    previous: Option<&Locked>,
) -> anyhow::Result<Present> {
    let metadata = match fs_err::symlink_metadata(destination) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Present::Nothing),
        Err(error) => return Err(error.into()),
    };
    let current = if metadata.is_dir() {
        archive::folder_digest(destination, &[MARKER, ".DS_Store"], &Limits::default())?
    } else {
        None
    };
    if current.as_deref() == Some(entry.digest.as_str()) {
        return Ok(Present::UpToDate);
    }
    let marker = Marker::read(destination).filter(|marker| marker.name == entry.name);
    let ours = current.as_ref().is_some_and(|current| {
        marker
            .as_ref()
            .is_some_and(|marker| &marker.digest == current)
            || previous.is_some_and(|previous| &previous.digest == current)
    });
    if ours {
        return Ok(Present::Ours);
    }
    let message = if marker.is_some() {
        format!("`{shown}` was changed since skillpkg installed it; nothing was replaced")
    } else {
        format!("`{shown}` exists and was not installed by skillpkg; nothing was changed")
    };
    Err(UserError {
        message,
        hints: vec![
            "move it away (or delete it to reinstall), or install into another folder with --dir"
                .into(),
        ],
    }
    .into())
}

/// Refuses `folder` when, through a symbolic link, it lies outside `root`: a link committed to
/// the project (`vendor -> ../../.config/…`) must not let an install write elsewhere. Checked
/// on the deepest part of `folder` that exists, before and after it is created.
fn check_inside(root: &Path, folder: &Path, shown: &str) -> anyhow::Result<()> {
    let real_root = fs_err::canonicalize(root)?;
    let mut existing = folder;
    while !existing.exists() {
        match existing.parent() {
            Some(parent) => existing = parent,
            None => return Ok(()),
        }
    }
    let real = fs_err::canonicalize(existing)?;
    if real.starts_with(&real_root) {
        return Ok(());
    }
    Err(UserError {
        message: format!(
            "`{shown}` leads to `{}` through a symbolic link, outside the project; nothing was installed",
            real.display()
        ),
        hints: vec![
            "skills.lock and --dir may only name folders inside the project; replace the link with a folder".into(),
        ],
    }
    .into())
}

/// Installs `entry` into `root/entry.dir/entry.name`: downloads it, checks its `sha256` and
/// `digest`, extracts it into a staging folder with a [`Marker`], and renames it into place.
///
/// A folder already there is replaced only as [`check_present`] allows, checked before the
/// download and again just before the swap. With `contained` (a project's install), the folder
/// must stay inside `root` even through symbolic links ([`check_inside`]).
///
/// `size` is the archive's size as the registry announced it, when known; the download is
/// refused past it.
fn place(
    client: &Client,
    entry: &Locked,
    root: &Path,
    previous: Option<&Locked>,
    size: Option<u64>,
    contained: bool,
) -> anyhow::Result<Placed> {
    let name = entry.name.as_str();
    let relative_folder = entry
        .folder()
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let folder = root.join(&relative_folder);
    let destination = root.join(entry.folder());
    let shown = entry.folder().display().to_string();
    let limits = Limits::default();
    if contained {
        check_inside(root, &folder, &relative_folder.display().to_string())?;
    }
    let present = check_present(&destination, &shown, entry, previous)?;
    if matches!(present, Present::UpToDate) {
        return Ok(Placed::UpToDate);
    }
    fs_err::create_dir_all(&folder)?;
    if contained {
        check_inside(root, &folder, &relative_folder.display().to_string())?;
    }
    let mut staging = extract::Staging::new(&folder, name, ".install")?;
    let archive_file = staging.path().join("download.skill");
    let mut download = fs_err::File::create(&archive_file)?;
    let got = match size {
        Some(size) => client.download_at_most(name, &entry.version, size, download.file_mut()),
        None => client.download(name, &entry.version, download.file_mut()),
    }
    .map_err(client_error)?;
    drop(download);
    if got != entry.sha256 {
        return Err(UserError {
            message: format!("the download of {name} does not match its checksum (expected {}, got {got}); nothing was installed", entry.sha256),
            hints: vec!["the archive was altered on the way or on the registry; report it to the registry's operator".into()],
        }
        .into());
    }
    let options = extract::Options {
        limits,
        ..extract::Options::new(name)
    };
    let extracted = extract::extract(&archive_file, &staging.path().join("out"), &options)
        .map_err(|error| UserError {
            message: format!("{name}: {error}"),
            hints: vec!["nothing was installed".into()],
        })?;
    if extracted.name != name {
        return Err(UserError {
            message: format!(
                "the archive holds `{}`, not `{name}`; nothing was installed",
                extracted.name
            ),
            hints: vec![],
        }
        .into());
    }
    let got = &extracted.content_digest;
    if *got != entry.digest {
        return Err(UserError { message: format!("the contents of {name} do not match their digest (expected {}, got {got}); nothing was installed", entry.digest), hints: vec![] }.into());
    }
    Marker {
        name: name.to_owned(),
        version: entry.version.clone(),
        digest: got.clone(),
    }
    .write(&extracted.dir)?;
    // Swap, with Ctrl-C held off: the old folder moves into the staging folder (removed with
    // it), the new one in; first, the old one must still be as it was (edits made during the
    // download are not lost).
    let new = extracted.dir.clone();
    staging
        .commit(|staged| {
            match check_present(&destination, &shown, entry, previous) {
                Ok(Present::Nothing) => {}
                Ok(_) => fs_err::rename(&destination, staged.join("previous"))?,
                Err(error) => return Ok(Err(error)),
            }
            fs_err::rename(&new, &destination)?;
            Ok(Ok(()))
        })
        .map_err(|error| anyhow::anyhow!("{name}: {error}"))??;
    fsx::sync_folder(&folder);
    Ok(Placed::Installed)
}
