//! Safe extraction of `.skill` archives, for `unpack`, `install` and the registry server.
//!
//! Nothing is trusted: every name is checked (no absolute paths, no `..`, no backslashes, no
//! duplicates, even ones that differ only in case), only regular files are written (symlink,
//! device and other special entries are refused), sizes are counted while decompressing rather
//! than read from headers, and both the total size and each entry's compression ratio are
//! bounded. Files go to a temporary folder that is renamed into place only when all of it
//! succeeded.

use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::archive;
use crate::fsx::set_mode;

/// Bounds on what an archive may expand to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Total uncompressed bytes.
    pub max_bytes: u64,
    /// Uncompressed bytes per compressed byte, for any entry (zip bombs reach thousands).
    pub max_ratio: u64,
    pub max_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_bytes: 512 * 1024 * 1024,
            max_ratio: 200,
            max_files: 20_000,
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
    #[error("the archive has duplicate entries: {declared} entries, {distinct} distinct names")]
    Duplicates { declared: usize, distinct: usize },
    #[error(
        "the archive holds more than one top-level folder (`{0}` and `{1}`); a skill archive holds one"
    )]
    TopLevel(String, String),
    #[error("the archive has no SKILL.md {0}")]
    NoSkill(String),
    #[error("the archive expands to more than {0} bytes; refusing it (a zip bomb?)")]
    TooBig(u64),
    #[error(
        "`{name}` expands more than {ratio} times its compressed size; refusing it (a zip bomb?)"
    )]
    Ratio { name: String, ratio: u64 },
    #[error("the archive has more than {0} files")]
    TooMany(usize),
    #[error("`{0}` already exists; pass --force to replace it")]
    Exists(String),
    #[error("{0}")]
    Io(#[from] io::Error),
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
    /// The `h1:` digest of the files written (see [`archive::content_digest`]), hashed as they
    /// were decompressed.
    pub content_digest: String,
}

/// Checks an entry name and returns its parts.
fn parts(name: &str) -> Result<Vec<&str>, ExtractError> {
    let unsafe_ = |reason: &str| ExtractError::Unsafe {
        name: name.to_owned(),
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
    Ok(parts)
}

/// What extraction will write, checked before anything is: every name, every entry's kind, the
/// layout. Returns the entries, the skill's folder name and how many leading parts to strip.
#[allow(clippy::type_complexity)]
fn survey<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    archive: &Path,
    fallback_name: &str,
) -> Result<(Vec<(usize, Vec<String>, bool)>, String, usize), ExtractError> {
    let mut plan: Vec<(usize, Vec<String>, bool)> = Vec::new();
    let mut seen = HashSet::new();
    let mut tops = std::collections::BTreeSet::new();
    let mut root_files = Vec::new();
    for index in 0..zip.len() {
        let entry = zip.by_index_raw(index).map_err(|error| {
            ExtractError::NotZip(archive.display().to_string(), error.to_string())
        })?;
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let parts: Vec<String> = parts(&name)?.into_iter().map(str::to_owned).collect();
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
                name,
                reason: what.to_owned(),
            });
        }
        if !seen.insert(parts.join("/").to_lowercase()) {
            return Err(ExtractError::Duplicate(name));
        }
        if !is_dir {
            if parts.len() == 1 {
                root_files.push(parts[0].clone());
            } else {
                tops.insert(parts[0].clone());
            }
        }
        plan.push((index, parts, is_dir));
    }
    // The flat layout has SKILL.md at the root; the folder layout one top-level folder.
    let flat = root_files.iter().any(|name| name == "SKILL.md");
    let mut folders = tops.into_iter();
    let (name, strip) = match (folders.next(), folders.next()) {
        _ if flat => (fallback_name.to_owned(), 0),
        (Some(first), Some(second)) => return Err(ExtractError::TopLevel(first, second)),
        (Some(folder), None) if !root_files.is_empty() => {
            return Err(ExtractError::TopLevel(folder, root_files[0].clone()));
        }
        (Some(folder), None) => (folder, 1),
        (None, _) => return Err(ExtractError::NoSkill("(it holds no folder)".into())),
    };
    Ok((plan, name, strip))
}

/// The number of entries the end-of-central-directory record declares.
fn declared_entries(archive: &Path) -> io::Result<Option<usize>> {
    use std::io::{Seek, SeekFrom};
    let mut file = fs_err::File::open(archive)?;
    let length = file.seek(SeekFrom::End(0))?;
    let tail = length.min(65_557);
    file.seek(SeekFrom::Start(length - tail))?;
    let mut buffer = Vec::with_capacity(usize::try_from(tail).unwrap_or(0));
    file.read_to_end(&mut buffer)?;
    let Some(at) = buffer
        .windows(4)
        .rposition(|window| window == [0x50, 0x4b, 0x05, 0x06])
    else {
        return Ok(None);
    };
    let total = buffer
        .get(at + 10..at + 12)
        .map(|bytes| u16::from_le_bytes([bytes[0], bytes[1]]));
    // 0xFFFF means zip64, whose own record the reader has already checked.
    Ok(total.filter(|&count| count != 0xFFFF).map(usize::from))
}

/// Extracts `archive` into `parent`, as the folder named by the archive's top-level folder (or
/// `fallback_name` for an archive with SKILL.md at its root).
pub fn extract(
    archive: &Path,
    parent: &Path,
    fallback_name: &str,
    force: bool,
    limits: Limits,
) -> Result<Extracted, ExtractError> {
    let file = fs_err::File::open(archive)?;
    let mut zip = zip::ZipArchive::new(file.into_parts().0)
        .map_err(|error| ExtractError::NotZip(archive.display().to_string(), error.to_string()))?;
    if zip.len() > limits.max_files {
        return Err(ExtractError::TooMany(limits.max_files));
    }
    // The zip reader keeps one entry per name, so count the central directory's own records.
    if let Some(declared) = declared_entries(archive)?
        && declared != zip.len()
    {
        return Err(ExtractError::Duplicates {
            declared,
            distinct: zip.len(),
        });
    }
    let (plan, name, strip) = survey(&mut zip, archive, fallback_name)?;
    let has_skill = plan
        .iter()
        .any(|(_, parts, _)| parts.len() == strip + 1 && parts[strip] == "SKILL.md");
    if !has_skill {
        let place = if strip == 1 {
            format!("directly inside `{name}/`")
        } else {
            "at its root".to_owned()
        };
        return Err(ExtractError::NoSkill(place));
    }
    parts(&name)?;
    let destination = parent.join(&name);
    if destination.exists() && !force {
        return Err(ExtractError::Exists(destination.display().to_string()));
    }
    fs_err::create_dir_all(parent)?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".unpack")
        .tempdir_in(parent)?;

    // Second pass: stream every file out, counting what it really expands to.
    let mut total = 0u64;
    let mut files = Vec::new();
    let mut hashes: Vec<(String, [u8; 32])> = Vec::new();
    for (index, parts, is_dir) in &plan {
        let mut entry = zip.by_index(*index).map_err(|error| {
            ExtractError::NotZip(archive.display().to_string(), error.to_string())
        })?;
        let relative = parts[strip..].join("/");
        if relative.is_empty() {
            continue;
        }
        let path = staging.path().join(&relative);
        if *is_dir || entry.is_dir() {
            fs_err::create_dir_all(&path)?;
            continue;
        }
        if let Some(folder) = path.parent() {
            fs_err::create_dir_all(folder)?;
        }
        let compressed = entry.compressed_size().max(1);
        let executable = entry.unix_mode().is_some_and(|mode| mode & 0o111 != 0);
        let mut out = fs_err::File::create(&path)?;
        let mut buffer = vec![0u8; 64 * 1024];
        let mut written = 0u64;
        let mut hash = Sha256::new();
        loop {
            let n = entry.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            written += n as u64;
            total += n as u64;
            if total > limits.max_bytes {
                return Err(ExtractError::TooBig(limits.max_bytes));
            }
            if written > 1024 * 1024 && written / compressed > limits.max_ratio {
                return Err(ExtractError::Ratio {
                    name: entry.name().to_owned(),
                    ratio: limits.max_ratio,
                });
            }
            out.write_all(&buffer[..n])?;
            hash.update(&buffer[..n]);
        }
        out.sync_all()?;
        set_mode(&path, if executable { 0o755 } else { 0o644 })?;
        hashes.push((relative.clone(), hash.finalize().into()));
        files.push((relative, written));
    }
    set_mode(staging.path(), 0o755)?;
    if destination.exists() {
        fs_err::remove_dir_all(&destination)?;
    }
    fs_err::rename(staging.path(), &destination)?;
    let _ = staging.keep();
    files.sort();
    let content_digest =
        archive::content_digest(hashes.iter().map(|(path, sha)| (path.as_str(), sha)));
    Ok(Extracted {
        dir: destination,
        name,
        files,
        content_digest,
    })
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
            "demo",
            false,
            Limits::default(),
        )
        .unwrap();
        assert_eq!(extracted.content_digest, summary.content_digest);
        assert_eq!(extracted.files.len(), 2);
    }
}
