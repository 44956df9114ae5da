//! What `install`, `update`, `remove` and `list` share: the project they act on (its root and
//! its `skills.lock`, or the user's for `--global`), and how they report (people's text, or one
//! JSON document on stdout whose fields `docs/install.md` documents).
//!
//! The project root is found as cargo and uv find theirs: the nearest folder, from the current
//! one up to the filesystem root, that holds a `skills.lock` or a `skillpkg.toml`; the current
//! folder when none does. Folders in the lockfile are relative to that root, wherever in the
//! project the command runs.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::commands::UserError;
use crate::fsx;
use crate::output::Printer;
use crate::registry::credentials;
use crate::registry::lockfile::{FILE_NAME as LOCKFILE, Locked, Lockfile};

/// The file that marks a project root besides `skills.lock`.
const CONFIG_FILE: &str = "skillpkg.toml";

/// How `install`, `update`, `remove` and `list` report: as every registry command does
/// (their JSON documents carry `"version": 1` and are described in docs/install.md).
pub use super::Format as OutputFormat;

/// Where a lockfile is and the root its folders are relative to: the project's `skills.lock`
/// (see the module docs), or, for `--global`, the user's in skillpkg's config folder, whose
/// folders are relative to the home folder.
pub(super) struct Scope {
    /// The lockfile, as the user should see it: relative to the current folder in a project.
    pub lock: PathBuf,
    /// The root the lockfile's folders are relative to, absolute.
    pub root: PathBuf,
    /// The way from the current folder to `root` (empty in the root itself, `../..` two folders
    /// down); unused for `--global`.
    up: PathBuf,
    /// The current folder, absolute.
    pub cwd: PathBuf,
    pub global: bool,
}

impl Scope {
    pub(super) fn new(global: bool) -> anyhow::Result<Self> {
        let cwd = std::env::current_dir()
            .map_err(|error| anyhow::anyhow!("cannot read the current folder: {error}"))?;
        if !global {
            let root = project_root(&cwd);
            let up: PathBuf = cwd
                .strip_prefix(&root)
                .unwrap_or(Path::new(""))
                .components()
                .map(|_| "..")
                .collect();
            return Ok(Self {
                lock: up.join(LOCKFILE),
                root,
                up,
                cwd,
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
            up: PathBuf::new(),
            cwd,
            global,
        })
    }

    /// A folder relative to the root, as the user should see it: relative to the current
    /// folder in a project, absolute for `--global`.
    pub(super) fn show(&self, relative: &Path) -> String {
        if self.global {
            self.root.join(relative).display().to_string()
        } else {
            self.up.join(relative).display().to_string()
        }
    }

    /// The lockfile's absolute path, for JSON.
    pub(super) fn lock_absolute(&self) -> PathBuf {
        if self.global {
            self.lock.clone()
        } else {
            self.root.join(LOCKFILE)
        }
    }

    /// Reads the lockfile (a missing one is empty), or says how to recover from a bad one.
    pub(super) fn read_lock(&self) -> anyhow::Result<Lockfile> {
        Lockfile::read(&self.lock).map_err(|error| {
            UserError {
                message: error.to_string(),
                hints: vec![
                    "skills.lock is written by skillpkg install; restore it from version control, or delete it and install again".into(),
                ],
            }
            .into()
        })
    }

    /// The start of every JSON document these commands print.
    pub(super) fn json_head(&self, command: &'static str) -> JsonHead {
        JsonHead {
            version: 1,
            command,
            root: self.root.display().to_string(),
            lockfile: self.lock_absolute().display().to_string(),
        }
    }
}

/// The nearest folder from `cwd` up that holds a `skills.lock` or a `skillpkg.toml` (whatever
/// kind of file it is: a lockfile that is not a regular file is reported when read, not passed
/// over); `cwd` when none does.
pub(super) fn project_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| {
            [LOCKFILE, CONFIG_FILE]
                .iter()
                .any(|name| fs_err::symlink_metadata(dir.join(name)).is_ok())
        })
        .unwrap_or(cwd)
        .to_path_buf()
}

/// The names from the command line that `lock` records, each once, in order; an unknown one is
/// a usage error naming the lockfile.
pub(super) fn known_names<'a>(
    names: &'a [String],
    lock: &Lockfile,
    scope: &Scope,
) -> anyhow::Result<Vec<&'a str>> {
    let mut known: Vec<&str> = Vec::new();
    for name in names {
        if !lock.skills.iter().any(|entry| entry.name == *name) {
            return Err(UserError {
                message: format!(
                    "`{}` is not installed: {} does not record it",
                    name.escape_debug(),
                    scope.lock.display()
                ),
                hints: vec!["`skillpkg list` shows the installed skills".into()],
            }
            .into());
        }
        if !known.contains(&name.as_str()) {
            known.push(name);
        }
    }
    Ok(known)
}

/// The fields every JSON document starts with.
#[derive(Debug, Serialize)]
pub(super) struct JsonHead {
    /// The schema's version: 1.
    pub version: u32,
    /// `install`, `update`, `remove` or `list`.
    pub command: &'static str,
    /// The project root (the home folder for `--global`), absolute.
    pub root: String,
    /// The lockfile, absolute.
    pub lockfile: String,
}

/// An installed skill as JSON: what its lock entry says.
#[derive(Debug, Serialize)]
pub(super) struct SkillJson {
    pub name: String,
    pub version: String,
    /// The requirement `update` follows (`=VERSION` for entries that record none).
    pub requirement: String,
    /// The folder, relative to the root, `/`-separated.
    pub folder: String,
    pub registry: String,
    pub sha256: String,
    pub digest: String,
}

impl From<&Locked> for SkillJson {
    fn from(entry: &Locked) -> Self {
        Self {
            name: entry.name.clone(),
            version: entry.version.clone(),
            requirement: entry.requirement(),
            folder: crate::output::slash_path(&entry.folder()),
            registry: entry.registry.clone(),
            sha256: entry.sha256.clone(),
            digest: entry.digest.clone(),
        }
    }
}

/// Prints `document` as pretty JSON on stdout.
pub(super) fn print_json(document: &impl Serialize, printer: Printer) -> anyhow::Result<()> {
    let mut out = printer.stdout();
    serde_json::to_writer_pretty(&mut out, document)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Prints `warning: MESSAGE` on stderr (kept with `--quiet`: it is something that went wrong).
pub(super) fn warn(printer: Printer, message: &str) -> std::io::Result<()> {
    let yellow = anstyle::AnsiColor::Yellow.on_default().bold();
    let mut err = printer.stderr();
    writeln!(err, "{yellow}warning{yellow:#}: {message}")?;
    err.flush()
}

/// Whether a byte progress bar may be drawn: human output, not `--quiet`, stderr a terminal,
/// not under CI.
pub(super) fn progress_wanted(format: OutputFormat, printer: Printer) -> bool {
    use std::io::IsTerminal as _;
    format == OutputFormat::Human
        && printer.verbosity() != crate::output::Verbosity::Quiet
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_nearest_folder_with_a_lockfile_or_config() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let deep = root.join("src/deep");
        fs_err::create_dir_all(&deep).unwrap();
        assert_eq!(project_root(&deep), deep, "none: the current folder");
        fs_err::write(root.join("skillpkg.toml"), "").unwrap();
        assert_eq!(project_root(&deep), root);
        fs_err::write(root.join("src/skills.lock"), "version = 1\n").unwrap();
        assert_eq!(project_root(&deep), root.join("src"));
        assert_eq!(project_root(&root), root);
    }
}
