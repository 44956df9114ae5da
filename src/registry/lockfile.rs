//! `skills.lock`: which skill `install` put in which folder, at which version, with which
//! digests.
//!
//! The lockfile is committed and shared, so it is input from anyone who can open a pull
//! request: nothing in it is trusted to choose a path. Every entry must name a valid skill
//! ([`crate::pack::valid_skill_name`]), its `dir` must be relative and stay inside the project
//! after normalisation (no `..` above the root, no absolute or drive paths, no backslashes, no
//! VCS folders), its registry must be an `http(s)` URL, its digests well-formed and its
//! requirement a semver requirement of at most [`MAX_REQUIREMENT_LEN`] characters; one bad entry
//! refuses the whole file, before anything is downloaded or written.
//!
//! An entry records the requirement it was installed with (`^1.2`, `*`, `=1.2.0`), which
//! `skillpkg update` follows. Lockfiles written before that field existed stay readable: an
//! entry without one is held at exactly its locked version (`=X`), so `update` never moves a
//! skill nobody said may move.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The lockfile's name.
pub(crate) const FILE_NAME: &str = "skills.lock";

/// The largest lockfile read: a thousand entries take about 400 KiB.
const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// The longest requirement an entry may record: `>=1.2.3-alpha.1, <2.0.0` is 24 characters.
pub(crate) const MAX_REQUIREMENT_LEN: usize = 256;

/// Folders an install may never write into.
const VCS_DIRS: [&str; 3] = [".git", ".hg", ".svn"];

/// `skills.lock`.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lockfile {
    pub version: u32,
    #[serde(default, rename = "skill", skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<Locked>,
}

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Locked {
    pub name: String,
    pub version: String,
    /// The semver requirement asked for (`^1.2`, `*`, `=1.2.0`); `None` in lockfiles written
    /// before it was recorded, which [`Locked::requirement`] reads as exactly `version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    pub registry: String,
    /// SHA-256 of the archive, hex.
    pub sha256: String,
    /// `h1:` content digest.
    pub digest: String,
    /// The folder it was installed into, relative to the project root, `/`-separated.
    pub dir: String,
    /// Where it came from when not from a registry: `well-known` (then `registry` is the
    /// site's URL) or `claude-marketplace` (then `registry` is the marketplace's git URL or
    /// folder, and `plugin` names the plugin). `sha256` is then the served artifact's, or for
    /// files read one by one, that of the `.skill` archive skillpkg packs from them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

/// `source` of an entry installed from a site's discovery index.
pub const SOURCE_WELL_KNOWN: &str = "well-known";
/// `source` of an entry installed from a Claude Code plugin marketplace.
pub const SOURCE_MARKETPLACE: &str = "claude-marketplace";

/// Why a lockfile cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Lockfile {
    /// An empty lockfile.
    pub fn new() -> Self {
        Self {
            version: 1,
            skills: Vec::new(),
        }
    }

    /// Parses and checks a lockfile's text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let lock: Self = toml::from_str(text).map_err(|error| error.message().to_owned())?;
        if lock.version != 1 {
            return Err(format!(
                "version {} is not one this skillpkg reads (1); it was written by a newer skillpkg",
                lock.version
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (index, entry) in lock.skills.iter().enumerate() {
            let label = || {
                format!(
                    "entry {} (`{}`)",
                    index + 1,
                    entry
                        .name
                        .escape_debug()
                        .to_string()
                        .chars()
                        .take(80)
                        .collect::<String>()
                )
            };
            entry
                .check()
                .map_err(|reason| format!("{}: {reason}", label()))?;
            let dir = normalise_dir(&entry.dir).unwrap_or_default();
            if !seen.insert((entry.name.clone(), dir)) {
                return Err(format!(
                    "{}: the skill is listed twice for one folder",
                    label()
                ));
            }
        }
        Ok(lock)
    }

    /// Reads the lockfile at `path` (capped, a regular file); a missing file is an empty lock.
    pub fn read(path: &Path) -> Result<Self, LockError> {
        let text = match crate::fsx::read_text_capped(path, MAX_BYTES) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Self::new()),
            Err(error) => {
                return Err(LockError::Invalid {
                    path: path.display().to_string(),
                    message: error.to_string(),
                });
            }
        };
        Self::parse(&text).map_err(|message| LockError::Invalid {
            path: path.display().to_string(),
            message,
        })
    }

    /// Writes the lockfile atomically, entries sorted by folder and name, readable by all (a
    /// project file, committed and shared).
    pub fn write(&self, path: &Path) -> Result<(), LockError> {
        let mut sorted = self.clone();
        sorted.version = 1;
        sorted
            .skills
            .sort_by(|a, b| (&a.dir, &a.name).cmp(&(&b.dir, &b.name)));
        let body = toml::to_string(&sorted).map_err(|error| LockError::Invalid {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
        let text = format!("# Written by skillpkg (install, update, remove); do not edit.\n{body}");
        crate::fsx::write_atomically(
            path,
            text.as_bytes(),
            ".skills.lock-",
            crate::fsx::Permissions::Mode(0o644),
        )?;
        Ok(())
    }

    /// The entry for `name` in `dir`, if any.
    pub fn find(&self, name: &str, dir: &str) -> Option<&Locked> {
        let dir = normalise_dir(dir).ok()?;
        self.skills
            .iter()
            .find(|entry| entry.name == name && normalise_dir(&entry.dir).ok() == Some(dir.clone()))
    }
}

impl Locked {
    /// Checks every field; the reason when one is wrong.
    pub fn check(&self) -> Result<(), String> {
        if !crate::pack::valid_skill_name(&self.name) {
            return Err(
                "`name` is not a valid skill name (lowercase letters, digits and single hyphens)"
                    .into(),
            );
        }
        if super::api::parse_version(&self.version).is_err() {
            return Err(format!(
                "`version` {:?} is not a semantic version",
                self.version
            ));
        }
        if let Some(requirement) = &self.requirement {
            check_requirement(requirement)?;
        }
        let url = self.registry.starts_with("https://") || self.registry.starts_with("http://");
        if self.registry.len() > 2048 || self.registry.chars().any(char::is_control) {
            return Err("`registry` is not an http(s) URL".into());
        }
        match (self.source.as_deref(), &self.plugin) {
            (None | Some(SOURCE_WELL_KNOWN), None) if url => {}
            (None | Some(SOURCE_WELL_KNOWN), None) => {
                return Err("`registry` is not an http(s) URL".into());
            }
            (Some(SOURCE_MARKETPLACE), Some(plugin))
                if crate::pack::valid_skill_name(plugin) && !self.registry.is_empty() => {}
            (Some(SOURCE_MARKETPLACE), _) => {
                return Err(
                    "a `claude-marketplace` entry needs its `plugin` and `registry`".into(),
                );
            }
            (Some(other), _) if other != SOURCE_WELL_KNOWN && other != SOURCE_MARKETPLACE => {
                return Err(format!(
                    "`source` {:?} is not `{SOURCE_WELL_KNOWN}` or `{SOURCE_MARKETPLACE}`",
                    other.escape_debug().to_string()
                ));
            }
            _ => return Err("`plugin` belongs to `claude-marketplace` entries only".into()),
        }
        let hex = |text: &str| {
            text.len() == 64
                && text
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if !hex(&self.sha256) {
            return Err("`sha256` is not 64 lowercase hex digits".into());
        }
        if !self.digest.starts_with("h1:") || self.digest.len() != 47 {
            return Err("`digest` is not an `h1:` content digest".into());
        }
        normalise_dir(&self.dir).map(|_| ())
    }

    /// The requirement `update` follows: the recorded one, or exactly the locked version when
    /// none is recorded (a lockfile from before requirements were recorded).
    pub fn requirement(&self) -> String {
        self.requirement
            .clone()
            .unwrap_or_else(|| format!("={}", self.version))
    }

    /// The folder the skill is in, relative to the project root.
    pub fn folder(&self) -> PathBuf {
        let dir = normalise_dir(&self.dir).unwrap_or_else(|_| ".".into());
        Path::new(&dir).join(&self.name)
    }
}

/// Why `requirement` cannot be recorded, if it cannot: longer than [`MAX_REQUIREMENT_LEN`], or
/// not a semver requirement (`^1.2`, `~1.4`, `>=1, <2`, `*`, `=1.2.0`).
pub(crate) fn check_requirement(requirement: &str) -> Result<(), String> {
    if requirement.len() > MAX_REQUIREMENT_LEN {
        return Err(format!(
            "`requirement` is longer than {MAX_REQUIREMENT_LEN} characters"
        ));
    }
    if requirement.trim().is_empty() || semver::VersionReq::parse(requirement).is_err() {
        return Err(format!(
            "`requirement` {:?} is not a semver requirement such as ^1.2, ~1.4, * or =1.2.0",
            requirement
                .escape_debug()
                .to_string()
                .chars()
                .take(80)
                .collect::<String>()
        ));
    }
    Ok(())
}

/// `dir` normalised (`/`-separated, no `.` or empty parts, `..` resolved), or why it cannot be
/// a folder inside the project: absolute, a drive or UNC path, a backslash or control
/// character, `..` above the root, a VCS folder. The project root itself is `.`.
pub(crate) fn normalise_dir(dir: &str) -> Result<String, String> {
    if dir.is_empty() {
        return Err("`dir` is empty".into());
    }
    if dir.len() > 1024 {
        return Err("`dir` is too long".into());
    }
    if dir.starts_with('/') || dir.starts_with('~') || dir.as_bytes().get(1) == Some(&b':') {
        return Err(format!("`dir` {dir:?} is not relative to the project"));
    }
    if dir.contains('\\') || dir.chars().any(char::is_control) {
        return Err(format!(
            "`dir` {:?} has a backslash or a control character",
            dir.escape_debug().to_string()
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in dir.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("`dir` {dir:?} leaves the project"));
                }
            }
            part if VCS_DIRS.contains(&part.to_ascii_lowercase().as_str()) => {
                return Err(format!("`dir` {dir:?} is inside a version-control folder"));
            }
            part => {
                if let Some(reason) = crate::pack::unportable(part) {
                    return Err(format!("`dir` {dir:?} has {reason} in `{part}`"));
                }
                parts.push(part);
            }
        }
    }
    Ok(if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    })
}

/// The file `install` writes into each skill folder it installs: proof that the folder is
/// skillpkg's to replace, and a record of what it held. Hidden, so agents, `lint` and `package`
/// pass over it.
pub const MARKER: &str = ".skillpkg-installed";

/// What [`MARKER`] records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    pub name: String,
    pub version: String,
    /// The content digest of the folder as installed, the marker left out.
    pub digest: String,
}

impl Marker {
    /// The marker in the skill folder `folder`, when there is a readable one.
    pub fn read(folder: &Path) -> Option<Self> {
        let text = crate::fsx::read_text_capped(&folder.join(MARKER), 64 * 1024).ok()?;
        toml::from_str(&text).ok()
    }

    /// Writes the marker into `folder` and syncs it.
    pub fn write(&self, folder: &Path) -> std::io::Result<()> {
        let body = toml::to_string(self).map_err(std::io::Error::other)?;
        let text = format!(
            "# Written by skillpkg install: this folder is managed by skillpkg, which replaces it\n# only while its files are as installed. Do not edit.\n{body}"
        );
        let path = folder.join(MARKER);
        fs_err::write(&path, text)?;
        fs_err::File::open(&path)?.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, dir: &str) -> String {
        format!(
            "version = 1\n[[skill]]\nname = \"{name}\"\nversion = \"1.0.0\"\nregistry = \"http://127.0.0.1:1\"\nsha256 = \"{}\"\ndigest = \"h1:{}=\"\ndir = \"{dir}\"\n",
            "a".repeat(64),
            "A".repeat(43)
        )
    }

    #[test]
    fn a_sound_lock_parses() {
        let lock = Lockfile::parse(&entry("pdf", ".claude/skills")).unwrap();
        assert_eq!(lock.skills[0].folder(), Path::new(".claude/skills/pdf"));
        assert!(Lockfile::parse(&entry("pdf", ".")).is_ok());
        assert!(Lockfile::parse(&entry("pdf", "a/../b/./c")).is_ok());
    }

    #[test]
    fn entries_that_would_leave_the_project_are_refused() {
        for dir in [
            "/etc",
            "../../x",
            "a/../../x",
            "~/.ssh",
            "C:/x",
            "a\\\\..\\\\..",
            ".git",
            "a/.GIT/hooks",
            "",
            "a/../C:/win",
            "./C:x",
            ".git.",
            "a/.git /hooks",
            "nul/x",
        ] {
            let error = Lockfile::parse(&entry("pdf", dir)).unwrap_err();
            assert!(error.contains("`dir`"), "{dir}: {error}");
        }
        for name in [".git", ".ssh", "-rf", "CON", "con", "a/b", "..", ""] {
            let error = Lockfile::parse(&entry(name, ".claude/skills")).unwrap_err();
            assert!(error.contains("not a valid skill name"), "{name}: {error}");
        }
    }

    #[test]
    fn a_skill_twice_in_one_folder_is_refused() {
        let twice = format!(
            "{}{}",
            entry("pdf", "a"),
            entry("pdf", "./a").replace("version = 1\n", "")
        );
        assert!(Lockfile::parse(&twice).unwrap_err().contains("twice"));
    }

    #[test]
    fn a_lock_without_requirements_holds_each_skill_at_its_version() {
        let lock = Lockfile::parse(&entry("pdf", ".claude/skills")).unwrap();
        assert_eq!(lock.skills[0].requirement, None);
        assert_eq!(lock.skills[0].requirement(), "=1.0.0");
    }

    #[test]
    fn a_recorded_requirement_is_checked_and_kept() {
        let with = |requirement: &str| {
            entry("pdf", "a").replace(
                "version = \"1.0.0\"\n",
                &format!("version = \"1.0.0\"\nrequirement = {requirement:?}\n"),
            )
        };
        for good in ["^1.2", "~1.4", "*", "=1.2.0", ">=1, <2", "1.2.0"] {
            let lock = Lockfile::parse(&with(good)).unwrap();
            assert_eq!(lock.skills[0].requirement(), good);
        }
        let long = format!(">={}", "1".repeat(MAX_REQUIREMENT_LEN));
        for bad in [
            "",
            " ",
            "latest",
            "^1.2; rm -rf /",
            "1.2.3.4",
            long.as_str(),
        ] {
            let error = Lockfile::parse(&with(bad)).unwrap_err();
            assert!(error.contains("`requirement`"), "{bad}: {error}");
        }
        // What is written is read back the same, the requirement beside the version.
        let lock = Lockfile::parse(&with("^1.2")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        lock.write(&path).unwrap();
        let text = fs_err::read_to_string(&path).unwrap();
        assert!(
            text.contains("version = \"1.0.0\"\nrequirement = \"^1.2\"\n"),
            "{text}"
        );
        assert_eq!(Lockfile::read(&path).unwrap(), lock);
    }

    #[test]
    fn normalising_keeps_what_stays_inside() {
        assert_eq!(
            normalise_dir("./.claude//skills/").unwrap(),
            ".claude/skills"
        );
        assert_eq!(normalise_dir("a/..").unwrap(), ".");
    }
}
