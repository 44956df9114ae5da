//! Publish destinations beside skillpkg's own registry, and the sources `install` reads from
//! them: a Claude Code plugin marketplace ([`marketplace`]), a static site with the Agent Skills
//! discovery index ([`well_known`]) and Anthropic's Skills API ([`anthropic`]).
//!
//! Each destination takes skills that already went through the one pack pipeline
//! ([`crate::pack::build`]): validated for the targets the destination implies, their files
//! selected. Nothing here prints; the command layer reports what each returns.

pub mod anthropic;
pub mod fetch;
pub mod json_edit;
pub mod marketplace;
pub mod well_known;

use std::path::PathBuf;

use crate::pack::select::PackFile;

/// A skill ready to publish: valid for the destination's targets, its files selected.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The skill's folder.
    pub dir: PathBuf,
    /// Its name (the frontmatter `name`, which is also its folder's name everywhere).
    pub name: String,
    /// Its frontmatter `description`, as the YAML gives it.
    pub description: String,
    /// The version published.
    pub version: semver::Version,
    /// The files to publish, sorted by path, SKILL.md among them.
    pub files: Vec<PackFile>,
    /// Their total size in bytes.
    pub total: u64,
}

/// What publishing to a destination did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Something was written or sent.
    Published,
    /// The destination already had exactly this; nothing changed.
    Unchanged,
}

/// Why a destination refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The destination refuses this publish as asked (exit 1): what and what to do.
    #[error("{message}")]
    Refused { message: String, hint: String },
    /// A setup, input or I/O problem (exit 2).
    #[error("{message}")]
    Failed { message: String, hint: String },
}

impl Error {
    pub(crate) fn refused(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::Refused {
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub(crate) fn failed(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::Failed {
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// What to do about it ("" when nothing useful can be said).
    pub fn hint(&self) -> &str {
        match self {
            Self::Refused { hint, .. } | Self::Failed { hint, .. } => hint,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Self {
        Self::failed(error.to_string(), "")
    }
}

/// The largest file a destination's own files (an index, a manifest) may be when read back.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a JSON file a destination edits or merges (a marketplace.json, a plugin.json, an
/// index): `None` when it does not exist; a regular file of at most [`MAX_MANIFEST_BYTES`]
/// of UTF-8, else an error naming it.
pub(crate) fn read_json_text(path: &std::path::Path) -> Result<Option<String>, Error> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(Error::failed(
                format!("cannot read {}: {error}", path.display()),
                "",
            ));
        }
        Ok(meta) if !meta.is_file() => {
            return Err(Error::failed(
                format!("{} is not a regular file", path.display()),
                "replace it with the JSON file it should be",
            ));
        }
        Ok(_) => {}
    }
    crate::fsx::read_text_capped(path, MAX_MANIFEST_BYTES)
        .map(Some)
        .map_err(|error| Error::failed(error.to_string(), "it must be UTF-8 JSON of at most 4 MiB"))
}

/// Whether `name` is kebab-case: lowercase ASCII letters and digits in words joined by single
/// hyphens, 1 to 64 characters (the plugin and marketplace name rule, and the skill name rule).
pub fn is_kebab_case(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// One file to place in a folder: its `/`-separated path inside it, where to read it, and
/// whether it is executable.
#[derive(Clone, Debug)]
pub(crate) struct Placed<'a> {
    pub path: String,
    pub source: &'a std::path::Path,
    pub executable: bool,
}

impl<'a> Placed<'a> {
    /// The selected files of a skill, each under `prefix` (`""` or `skills/name/`).
    pub(crate) fn of(skill: &'a Prepared, prefix: &str) -> Vec<Self> {
        skill
            .files
            .iter()
            .map(|file| Self {
                path: format!("{prefix}{}", file.path),
                source: &file.source,
                executable: file.executable,
            })
            .collect()
    }
}

/// Whether the folder `dest` holds exactly `files`, byte for byte (and nothing else). A
/// symbolic link, a file too large or one that cannot be read counts as a difference.
pub(crate) fn folder_matches(
    dest: &std::path::Path,
    files: &[Placed<'_>],
) -> std::io::Result<bool> {
    if !dest.is_dir() {
        return Ok(false);
    }
    let mut seen = 0usize;
    let mut pending = vec![(dest.to_path_buf(), String::new())];
    let wanted: std::collections::HashMap<&str, &Placed<'_>> = files
        .iter()
        .map(|file| (file.path.as_str(), file))
        .collect();
    while let Some((dir, prefix)) = pending.pop() {
        for entry in fs_err::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Ok(false);
            };
            let path = format!("{prefix}{name}");
            if kind.is_dir() {
                pending.push((entry.path(), format!("{path}/")));
                continue;
            }
            let Some(file) = wanted.get(path.as_str()) else {
                return Ok(false);
            };
            if !kind.is_file() {
                return Ok(false);
            }
            let cap = crate::pack::extract::Limits::default().max_bytes;
            let (Ok(have), Ok(want)) = (
                crate::fsx::read_capped(&entry.path(), cap),
                crate::fsx::read_capped(file.source, cap),
            ) else {
                return Ok(false);
            };
            if have != want || is_executable(&entry.path()) != file.executable {
                return Ok(false);
            }
            seen += 1;
        }
    }
    Ok(seen == files.len())
}

#[cfg(unix)]
fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    fs_err::metadata(path).is_ok_and(|meta| meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &std::path::Path) -> bool {
    false
}

/// Refuses to write `relative` under `root` when it, or a folder on the way below `root`, is
/// a symbolic link (which could point anywhere), or passes through a `.git` folder. `root`
/// itself, which the user named, may be a link.
pub(crate) fn check_no_links(
    root: &std::path::Path,
    relative: &std::path::Path,
) -> Result<(), Error> {
    let mut here = root.to_path_buf();
    for component in relative.components() {
        let std::path::Component::Normal(part) = component else {
            return Err(Error::refused(
                format!("`{}` leaves {}", relative.display(), root.display()),
                "",
            ));
        };
        if part == ".git" {
            return Err(Error::refused(
                format!(
                    "`{}` is inside a .git folder; skillpkg does not write there",
                    relative.display()
                ),
                "",
            ));
        }
        here.push(part);
        if std::fs::symlink_metadata(&here).is_ok_and(|meta| meta.file_type().is_symlink()) {
            return Err(Error::refused(
                format!(
                    "{} is a symbolic link; skillpkg does not write through links",
                    here.display()
                ),
                "replace it with a folder (or file), then publish again",
            ));
        }
    }
    Ok(())
}

/// Removes what interrupted runs of [`replace_folder`] left beside `dest`.
fn sweep(parent: &std::path::Path) {
    let Ok(entries) = fs_err::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if (name.starts_with(".skillpkg-new-") || name.starts_with(".skillpkg-old-"))
            && entry.file_type().is_ok_and(|kind| kind.is_dir())
        {
            let _ = fs_err::remove_dir_all(entry.path());
        }
    }
}

/// Replaces the folder `dest` with one holding exactly `files`: they are copied into a new
/// folder beside it, which then takes its place, so a reader sees the old folder or the new
/// one, and an interrupted run leaves at most a `.skillpkg-` folder beside it.
pub(crate) fn replace_folder(dest: &std::path::Path, files: &[Placed<'_>]) -> std::io::Result<()> {
    let parent = crate::fsx::parent_or_dot(dest);
    fs_err::create_dir_all(parent)?;
    sweep(parent);
    let staging = tempfile::Builder::new()
        .prefix(".skillpkg-new-")
        .tempdir_in(parent)?;
    let cap = crate::pack::extract::Limits::default().max_bytes;
    for file in files {
        let target = staging.path().join(&file.path);
        fs_err::create_dir_all(crate::fsx::parent_or_dot(&target))?;
        let bytes = crate::fsx::read_capped(file.source, cap)?;
        fs_err::write(&target, bytes)?;
        crate::fsx::set_mode(&target, if file.executable { 0o755 } else { 0o644 })?;
    }
    crate::fsx::set_mode(staging.path(), 0o755)?;
    let old = if dest.exists() {
        let old = tempfile::Builder::new()
            .prefix(".skillpkg-old-")
            .tempdir_in(parent)?;
        let place = old.path().join("old");
        fs_err::rename(dest, &place)?;
        Some(old)
    } else {
        None
    };
    let staged = staging.keep();
    if let Err(error) = fs_err::rename(&staged, dest) {
        let _ = fs_err::remove_dir_all(&staged);
        if let Some(old) = &old {
            let _ = fs_err::rename(old.path().join("old"), dest);
        }
        return Err(error);
    }
    crate::fsx::sync_folder(parent);
    drop(old);
    Ok(())
}
