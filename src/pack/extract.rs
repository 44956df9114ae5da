//! Safe extraction of `.skill` archives, for `unpack`, `install` and the registry server.
//!
//! Nothing is trusted. The container is audited record by record first ([`central::audit`]:
//! one record per entry, local and central names equal, no overlapping entries). Every name is
//! checked (UTF-8, no absolute paths, no `..`, no backslashes or control characters, no
//! duplicates, even ones that differ only in case), the skill's folder must be a valid skill
//! name, and only regular files are written (symlink, device and other special entries are
//! refused). Sizes are bounded before the first byte is written (the declared sizes against the
//! archive's own size and a total) and counted while decompressing, so an entry that expands
//! past what it declared is refused at once. Files go to a staging folder that is renamed into
//! place only when all of it succeeded, synced once per archive rather than once per file. A
//! staging folder left by a killed run is removed by the next run in the same folder.

use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::central::{self, AuditError};
use super::{archive, valid_skill_name};
use crate::fsx::set_mode;
use crate::interrupt;

/// Bounds on what an archive may expand to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Total uncompressed bytes.
    pub max_bytes: u64,
    /// Uncompressed bytes per byte of archive, beyond [`Limits::ratio_allowance`]: zip bombs
    /// reach thousands, real skills a few dozen.
    pub max_ratio: u64,
    /// Uncompressed bytes any archive may expand to whatever its ratio (a file of zeros is
    /// legitimate, and small).
    pub ratio_allowance: u64,
    pub max_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_bytes: 512 * 1024 * 1024,
            max_ratio: 200,
            ratio_allowance: 16 * 1024 * 1024,
            max_files: 20_000,
        }
    }
}

impl Limits {
    /// Checks that an archive of `archive_bytes` may expand to `expanded` bytes in `files`
    /// files. `package` asks the same question of what it wrote, so it never writes an archive
    /// that extraction refuses.
    pub(crate) fn admit(
        &self,
        archive_bytes: u64,
        expanded: u64,
        files: usize,
    ) -> Result<(), ExtractError> {
        if files > self.max_files {
            return Err(ExtractError::TooMany(self.max_files));
        }
        if expanded > self.max_bytes {
            return Err(ExtractError::TooBig(self.max_bytes));
        }
        let allowed = archive_bytes
            .saturating_mul(self.max_ratio)
            .saturating_add(self.ratio_allowance);
        if expanded > allowed {
            return Err(ExtractError::Ratio {
                expanded,
                archive: archive_bytes,
                ratio: self.max_ratio,
            });
        }
        Ok(())
    }
}

/// How to extract.
#[derive(Clone, Debug)]
pub struct Options {
    /// The folder name for a flat archive (SKILL.md at its root).
    pub fallback_name: String,
    /// Replace an existing folder of the same name.
    pub force: bool,
    pub limits: Limits,
    /// Sync the files to disk before the folder is renamed into place. Off for a folder that
    /// is read and thrown away (the registry's check of an upload).
    pub durable: bool,
}

impl Options {
    pub fn new(fallback_name: &str) -> Self {
        Self {
            fallback_name: fallback_name.to_owned(),
            force: false,
            limits: Limits::default(),
            durable: true,
        }
    }
}

/// Why an archive was refused.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("not a zip archive ({1})")]
    NotZip(String, String),
    #[error("the archive has an unsafe entry `{name}`: {reason}")]
    Unsafe { name: String, reason: String },
    #[error("the archive has `{0}` twice")]
    Duplicate(String),
    /// The container itself lies (see [`central::audit`]).
    #[error("the archive is malformed: {0}")]
    Malformed(String),
    #[error(
        "the archive holds more than one top-level folder (`{0}` and `{1}`); a skill archive holds one"
    )]
    TopLevel(String, String),
    #[error(
        "the archive's folder `{0}` is not a valid skill name (lowercase letters, digits and single hyphens)"
    )]
    BadFolder(String),
    #[error("the archive has no SKILL.md {0}")]
    NoSkill(String),
    #[error("the archive expands to more than {}; refusing it (a zip bomb?)", crate::fsx::size(*.0))]
    TooBig(u64),
    #[error(
        "the archive is {} but expands to {}, more than {ratio} times its size; refusing it (a zip bomb?)",
        crate::fsx::size(*.archive),
        crate::fsx::size(*.expanded)
    )]
    Ratio {
        expanded: u64,
        archive: u64,
        ratio: u64,
    },
    #[error("`{0}` expands to more than the size it declares; refusing it (a zip bomb?)")]
    Lies(String),
    #[error("`{0}` cannot be read from the archive: {1}")]
    Corrupt(String, String),
    #[error("the archive has more than {0} files")]
    TooMany(usize),
    #[error("`{0}` already exists; pass --force to replace it")]
    Exists(String),
    #[error("interrupted")]
    Interrupted,
    /// Reading the archive or writing the files failed: the machine's problem, not the
    /// archive's (a full disk, permissions).
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl From<AuditError> for ExtractError {
    fn from(error: AuditError) -> Self {
        match error {
            AuditError::Duplicate(name) => Self::Duplicate(name),
            AuditError::Io(error) if error.kind() == io::ErrorKind::UnexpectedEof => {
                Self::Malformed("it ends where its records say there is more".into())
            }
            AuditError::Io(error) => Self::Io(error),
            other => Self::Malformed(other.to_string()),
        }
    }
}

impl ExtractError {
    /// Whether the archive is at fault (refuse it), rather than the machine (report a failure):
    /// what the decompressor says about corrupt or truncated data is about the archive; a full
    /// disk, a quota or a file-size limit is not, and the same archive may unpack later.
    pub(crate) fn is_refusal(&self) -> bool {
        match self {
            Self::Io(error) => matches!(
                error.kind(),
                io::ErrorKind::InvalidData
                    | io::ErrorKind::InvalidInput
                    | io::ErrorKind::UnexpectedEof
            ),
            Self::Interrupted => false,
            _ => true,
        }
    }
}

/// A successful extraction.
#[derive(Debug)]
pub struct Extracted {
    /// The skill folder that was created.
    pub dir: PathBuf,
    /// Its name (the archive's top-level folder).
    pub name: String,
    /// Files written: (path inside the skill, size).
    pub files: Vec<(String, u64)>,
    /// The archive entry (its index in the central directory) each of `files` came from, in
    /// the same order: what reads a file back from the archive reads what was extracted.
    pub entries: Vec<usize>,
    /// The `h1:` digest of the files written (see [`archive::content_digest`]), hashed as they
    /// were decompressed.
    pub content_digest: String,
}

/// Checks an entry name and returns its parts.
fn parts(name: &str) -> Result<Vec<&str>, ExtractError> {
    let unsafe_ = |reason: &str| ExtractError::Unsafe {
        name: name.escape_debug().to_string(),
        reason: reason.to_owned(),
    };
    if name.starts_with('/') || name.starts_with('\\') || name.as_bytes().get(1) == Some(&b':') {
        return Err(unsafe_("an absolute path"));
    }
    if name.contains('\\') {
        return Err(unsafe_("a backslash in the path"));
    }
    if name.contains('\0') || name.chars().any(char::is_control) {
        return Err(unsafe_("a control character in the path"));
    }
    let parts: Vec<&str> = name.split('/').filter(|part| !part.is_empty()).collect();
    if parts.contains(&"..") {
        return Err(unsafe_("`..` leaves the extraction folder"));
    }
    if parts.contains(&".") || parts.is_empty() {
        return Err(unsafe_("an empty or `.` path component"));
    }
    if parts.iter().any(|part| part.len() > 255) {
        return Err(unsafe_(
            "a name longer than 255 bytes, more than file systems hold",
        ));
    }
    if let Some(reason) = parts.iter().find_map(|part| super::unportable(part)) {
        return Err(unsafe_(reason));
    }
    Ok(parts)
}

/// One entry to extract, as surveyed.
struct Planned {
    index: usize,
    parts: Vec<String>,
    is_dir: bool,
    /// The uncompressed size its record declares.
    size: u64,
}

/// What extraction will write, checked before anything is: every name, every entry's kind, the
/// layout. Returns the entries, the skill's folder name and how many leading parts to strip.
fn survey<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    records: &[central::Record],
    archive: &Path,
    fallback_name: &str,
) -> Result<(Vec<Planned>, String, usize), ExtractError> {
    let mut plan = Vec::with_capacity(records.len());
    let mut seen = HashSet::new();
    let mut tops = std::collections::BTreeSet::new();
    let mut root_files = Vec::new();
    for (index, record) in records.iter().enumerate() {
        let entry = zip.by_index_raw(index).map_err(|error| {
            ExtractError::NotZip(archive.display().to_string(), error.to_string())
        })?;
        // The reader must see the entry the audit checked: a second end record hidden in a
        // comment could point it at another directory.
        if entry.name_raw() != record.name.as_slice()
            || entry.header_start() != record.offset
            || entry.compressed_size() != record.compressed
            || entry.size() != record.size
        {
            return Err(ExtractError::Malformed(
                "its central directory reads differently from its records".into(),
            ));
        }
        let name = std::str::from_utf8(&record.name).map_err(|_| ExtractError::Unsafe {
            name: String::from_utf8_lossy(&record.name).into_owned(),
            reason: "a name that is not UTF-8".into(),
        })?;
        if record.flags & 1 != 0 {
            return Err(ExtractError::Unsafe {
                name: name.to_owned(),
                reason: "it is encrypted".into(),
            });
        }
        let parts: Vec<String> = parts(name)?.into_iter().map(str::to_owned).collect();
        let mode = entry.unix_mode().unwrap_or(0);
        let kind = mode & 0o170_000;
        let is_dir = entry.is_dir();
        if !is_dir && kind != 0 && kind != 0o100_000 {
            let what = if kind == 0o120_000 {
                "a symbolic link"
            } else {
                "not a regular file"
            };
            return Err(ExtractError::Unsafe {
                name: name.to_owned(),
                reason: what.to_owned(),
            });
        }
        if !seen.insert(parts.join("/").to_lowercase()) {
            return Err(ExtractError::Duplicate(name.to_owned()));
        }
        if !is_dir {
            if parts.len() == 1 {
                root_files.push(parts[0].clone());
            } else {
                tops.insert(parts[0].clone());
            }
        }
        plan.push(Planned {
            index,
            parts,
            is_dir,
            size: record.size,
        });
    }
    file_and_folder(&plan)?;
    // The flat layout has SKILL.md at the root; the folder layout one top-level folder.
    let flat = root_files.iter().any(|name| name == "SKILL.md");
    let mut folders = tops.into_iter();
    let (name, strip) = match (folders.next(), folders.next()) {
        _ if flat => (flat_name(zip, &plan, fallback_name)?, 0),
        (Some(first), Some(second)) => return Err(ExtractError::TopLevel(first, second)),
        (Some(folder), None) if !root_files.is_empty() => {
            return Err(ExtractError::TopLevel(folder, root_files[0].clone()));
        }
        (Some(folder), None) => (folder, 1),
        (None, _) => return Err(ExtractError::NoSkill("(it holds no folder)".into())),
    };
    if !valid_skill_name(&name) {
        return Err(ExtractError::BadFolder(name.escape_debug().to_string()));
    }
    // Folder entries too must be inside the skill's folder, not re-rooted into it.
    if strip == 1
        && let Some(stray) = plan.iter().find(|planned| planned.parts[0] != name)
    {
        return Err(ExtractError::TopLevel(name, stray.parts[0].clone()));
    }
    Ok((plan, name, strip))
}

/// Refuses a path that is a file in one entry and a folder in another (`a` and `a/b`): no
/// file system can hold both.
fn file_and_folder(plan: &[Planned]) -> Result<(), ExtractError> {
    let mut folders = HashSet::new();
    for planned in plan {
        let folder_parts = if planned.is_dir {
            planned.parts.len()
        } else {
            planned.parts.len() - 1
        };
        for end in 1..=folder_parts {
            folders.insert(planned.parts[..end].join("/").to_lowercase());
        }
    }
    match plan
        .iter()
        .filter(|planned| !planned.is_dir)
        .find(|planned| folders.contains(&planned.parts.join("/").to_lowercase()))
    {
        Some(both) => Err(ExtractError::Unsafe {
            name: both.parts.join("/"),
            reason: "it is both a file and a folder in the archive".into(),
        }),
        None => Ok(()),
    }
}

/// The folder name for a flat archive: the `name` in its SKILL.md when that is a valid skill
/// name (agents compare the two), else `fallback` (the archive's file name) when that is.
fn flat_name<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    plan: &[Planned],
    fallback: &str,
) -> Result<String, ExtractError> {
    let skill_md = plan
        .iter()
        .find(|planned| !planned.is_dir && planned.parts == ["SKILL.md"]);
    let declared = skill_md.and_then(|planned| {
        let mut bytes = Vec::new();
        zip.by_index(planned.index)
            .ok()?
            .take(crate::skill::MAX_SKILL_FILE_BYTES)
            .read_to_end(&mut bytes)
            .ok()?;
        let skill =
            crate::skill::Skill::from_bytes(PathBuf::from("SKILL.md"), String::new(), bytes);
        let doc = skill.reading()?.doc.as_ref()?;
        let name = doc.name.as_deref()?.value.as_ref().ok()?.trim().to_owned();
        valid_skill_name(&name).then_some(name)
    });
    match declared {
        Some(name) => Ok(name),
        None if valid_skill_name(fallback) => Ok(fallback.to_owned()),
        None => Err(ExtractError::BadFolder(fallback.escape_debug().to_string())),
    }
}

/// What staging folders end with; the ending also marks them for clean-up by a later run.
const STAGING_SUFFIXES: [&str; 2] = [".unpack", ".install"];

/// A hidden folder beside where something will go, to build it in and rename it into place:
/// named `.<name>.<pid>.<random><suffix>`, removed when dropped, when the process is
/// interrupted ([`interrupt`]), or, if the process was killed outright, by the next run that
/// stages in the same folder.
#[derive(Debug)]
pub(crate) struct Staging {
    dir: tempfile::TempDir,
    /// `None` once committed.
    cleanup: Option<interrupt::Cleanup>,
}

impl Staging {
    /// Creates a staging folder in `parent` (`suffix` is `.unpack` or `.install`), first removing
    /// the ones killed runs left there.
    pub(crate) fn new(parent: &Path, name: &str, suffix: &str) -> io::Result<Self> {
        debug_assert!(STAGING_SUFFIXES.contains(&suffix));
        remove_stale_staging(parent);
        let dir = tempfile::Builder::new()
            .prefix(&format!(".{name}.{}.", std::process::id()))
            .suffix(suffix)
            .tempdir_in(parent)?;
        let cleanup = interrupt::Cleanup::register(dir.path());
        Ok(Self {
            dir,
            cleanup: Some(cleanup),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Gives up the folder: it is no longer removed (it has been renamed into place).
    pub(crate) fn keep(self) -> PathBuf {
        self.dir.keep()
    }

    /// Runs `finish` on the staging folder (the renames that put what was staged into place)
    /// unless a signal has arrived, holding Ctrl-C's clean-up off until the renames are done
    /// (see [`interrupt::Cleanup::commit`]): an interrupted run leaves either the old state or
    /// the new one, never half of each. [`ExtractError::Interrupted`] when the signal came first.
    pub(crate) fn commit<T>(
        &mut self,
        finish: impl FnOnce(&Path) -> io::Result<T>,
    ) -> Result<T, ExtractError> {
        let path = self.dir.path().to_path_buf();
        match self.cleanup.take() {
            Some(cleanup) => match cleanup.commit(|| finish(&path)) {
                Some(result) => result.map_err(ExtractError::Io),
                None => Err(ExtractError::Interrupted),
            },
            None => finish(&path).map_err(ExtractError::Io),
        }
    }
}

/// Removes staging folders that killed runs left in `parent` (see [`Staging`]): only those
/// whose process is gone, so a concurrent run's work is left alone.
pub(crate) fn remove_stale_staging(parent: &Path) {
    let Ok(entries) = fs_err::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(inner) = STAGING_SUFFIXES.iter().find_map(|suffix| {
            name.strip_prefix('.')
                .and_then(|rest| rest.strip_suffix(suffix))
        }) else {
            continue;
        };
        // `<name>.<pid>.<random>`: skill names have no dots.
        let pid = inner
            .split('.')
            .nth(1)
            .and_then(|pid| pid.parse::<u32>().ok());
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if let Some(pid) = pid
            && is_dir
            && !process_alive(pid)
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // EPERM means it exists but belongs to someone else.
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    // Without a cheap check, a folder is assumed to be someone's work in progress.
    true
}

/// Extracts `archive` into `parent`, as the folder named by the archive's top-level folder (or
/// `options.fallback_name` for an archive with SKILL.md at its root).
pub fn extract(
    archive: &Path,
    parent: &Path,
    options: &Options,
) -> Result<Extracted, ExtractError> {
    let limits = options.limits;
    let mut file = crate::fsx::open_regular(archive)?;
    let archive_len = file.metadata()?.len();
    let records = central::audit(&mut io::BufReader::new(&mut file), archive_len)?;
    if records.len() > limits.max_files {
        return Err(ExtractError::TooMany(limits.max_files));
    }
    let mut zip = zip::ZipArchive::new(file)
        .map_err(|error| ExtractError::NotZip(archive.display().to_string(), error.to_string()))?;
    if zip.len() != records.len() {
        return Err(ExtractError::Malformed(format!(
            "it has {} records but {} distinct entries",
            records.len(),
            zip.len()
        )));
    }
    let (plan, name, strip) = survey(&mut zip, &records, archive, &options.fallback_name)?;
    let has_skill = plan.iter().any(|planned| {
        !planned.is_dir && planned.parts.len() == strip + 1 && planned.parts[strip] == "SKILL.md"
    });
    if !has_skill {
        let place = if strip == 1 {
            format!("directly inside `{name}/`")
        } else {
            "at its root".to_owned()
        };
        return Err(ExtractError::NoSkill(place));
    }
    // Every entry is held to its declared size below, so this bounds what is ever written.
    let declared = plan
        .iter()
        .fold(0u64, |sum, planned| sum.saturating_add(planned.size));
    limits.admit(archive_len, declared, plan.len())?;
    let destination = parent.join(&name);
    if destination.exists() && !options.force {
        return Err(ExtractError::Exists(destination.display().to_string()));
    }
    fs_err::create_dir_all(parent)?;
    let staging = Staging::new(parent, &name, ".unpack")?;

    let (files, hashes) = write_entries(&mut zip, archive, &plan, strip, staging.path())?;
    set_mode(staging.path(), 0o755)?;
    if options.durable {
        sync_tree(staging.path(), &files)?;
    }
    // With --force, the old folder is moved aside (and removed afterwards), not deleted first:
    // an interruption leaves the old folder or the new one.
    let aside = if destination.exists() {
        Some(Staging::new(parent, &name, ".unpack")?)
    } else {
        None
    };
    let mut staging = staging;
    staging.commit(|staged| {
        if let Some(aside) = &aside {
            fs_err::rename(&destination, aside.path().join("previous"))?;
        }
        fs_err::rename(staged, &destination)
    })?;
    let _ = staging.keep();
    drop(aside);
    if options.durable {
        crate::fsx::sync_folder(parent);
    }
    let mut files = files;
    files.sort();
    let (files, entries) = files
        .into_iter()
        .map(|(path, size, index)| ((path, size), index))
        .unzip();
    let content_digest =
        archive::content_digest(hashes.iter().map(|(path, sha)| (path.as_str(), sha)));
    Ok(Extracted {
        dir: destination,
        name,
        files,
        entries,
        content_digest,
    })
}

/// Streams every planned entry into `staging`, holding each to its declared size; returns the
/// files written (path, size, archive entry) and their SHA-256s.
#[expect(
    clippy::type_complexity,
    reason = "the files written and their hashes, returned together once"
)]
fn write_entries<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    archive: &Path,
    plan: &[Planned],
    strip: usize,
    staging: &Path,
) -> Result<(Vec<(String, u64, usize)>, Vec<(String, [u8; 32])>), ExtractError> {
    let mut files = Vec::new();
    let mut hashes: Vec<(String, [u8; 32])> = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut made = HashSet::new();
    for planned in plan {
        if interrupt::interrupted() {
            return Err(ExtractError::Interrupted);
        }
        let relative = planned.parts[strip..].join("/");
        if relative.is_empty() {
            continue;
        }
        let path = staging.join(&relative);
        if planned.is_dir {
            fs_err::create_dir_all(&path)?;
            continue;
        }
        let mut entry = zip.by_index(planned.index).map_err(|error| {
            ExtractError::NotZip(archive.display().to_string(), error.to_string())
        })?;
        if let Some(folder) = path.parent()
            && made.insert(folder.to_path_buf())
        {
            fs_err::create_dir_all(folder)?;
        }
        let executable = entry.unix_mode().is_some_and(|mode| mode & 0o111 != 0);
        let mut out = fs_err::File::create(&path)?;
        let mut written = 0u64;
        let mut hash = Sha256::new();
        loop {
            // A read error is the archive's (bad data, a wrong checksum); a write error ours.
            let n = entry
                .read(&mut buffer)
                .map_err(|error| ExtractError::Corrupt(relative.clone(), error.to_string()))?;
            if n == 0 {
                break;
            }
            written += n as u64;
            if written > planned.size {
                return Err(ExtractError::Lies(relative));
            }
            out.write_all(&buffer[..n])?;
            hash.update(&buffer[..n]);
        }
        drop(out);
        set_mode(&path, if executable { 0o755 } else { 0o644 })?;
        hashes.push((relative.clone(), hash.finalize().into()));
        files.push((relative, written, planned.index));
    }
    Ok((files, hashes))
}

/// Makes the files under `root` durable: one `syncfs` where the platform has it, else one
/// `fsync` per file.
fn sync_tree(root: &Path, files: &[(String, u64, usize)]) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = files;
        let handle = fs_err::File::open(root)?;
        rustix::fs::syncfs(&handle).map_err(io::Error::from)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        for (relative, _, _) in files {
            fs_err::File::open(root.join(relative))?.sync_all()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(parts("a/SKILL.md").is_ok());
        for bad in ["/etc/passwd", "a/../../x", "C:\\x", "a\\b", "./a", ""] {
            assert!(parts(bad).is_err(), "{bad}");
        }
    }

    /// The digest hashed while extracting is the one the packer wrote.
    #[test]
    fn the_extracted_digest_is_the_packers() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("demo");
        fs_err::create_dir_all(skill.join("scripts")).unwrap();
        fs_err::write(
            skill.join("SKILL.md"),
            "---\nname: demo\ndescription: Demo.\n---\n",
        )
        .unwrap();
        fs_err::write(skill.join("scripts/run.py"), "print('hi')\n".repeat(5000)).unwrap();
        let files = crate::pack::select::select(&skill).unwrap();
        let archive_path = dir.path().join("demo.skill");
        let summary = archive::write(
            fs_err::File::create(&archive_path).unwrap(),
            "demo/",
            &files,
            1,
            &|_| {},
        )
        .unwrap();
        let extracted = extract(
            &archive_path,
            &dir.path().join("out"),
            &Options::new("demo"),
        )
        .unwrap();
        assert_eq!(extracted.content_digest, summary.content_digest);
        assert_eq!(extracted.files.len(), 2);
    }
}
