//! The download cache: every archive `install` and `update` download, kept by its SHA-256 in
//! the user's cache folder, so that installing a version again (in another project, after a
//! `remove`, in a fresh checkout) downloads nothing.
//!
//! The cache is trusted for nothing. An archive is stored under the SHA-256 it was verified to
//! have (`archives/sha256/ab/abcdef….skill`), written to a temporary file in the same folder and
//! renamed, so a reader sees all of it or none. It is checked again on every use: it must be a
//! regular file no larger than the archive may be, and what is copied out of it must hash to the
//! name it is stored under; one that does not is deleted and downloaded again. Writing to the
//! cache is best effort: a cache that cannot be written only costs a download next time.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

/// The cache's folder and what it holds.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
}

/// What [`Cache::copy_verified`] found.
#[derive(Debug)]
pub enum Lookup {
    /// The archive was copied out and its SHA-256 matches.
    Hit,
    /// The cache does not hold it.
    Miss,
    /// The cache held something else under that name (damaged, replaced, not a regular file,
    /// too large); it was deleted. The reason, for a note.
    Discarded(String),
}

impl Cache {
    /// The cache in `dir`.
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The user's cache: `$SKILLPKG_CACHE_DIR`, else the platform's cache folder plus `skillpkg`
    /// (`$XDG_CACHE_HOME` or `~/.cache` on Linux and other Unixes, `~/Library/Caches` on macOS,
    /// `%LOCALAPPDATA%` on Windows). `None` when there is no such folder (no home folder).
    pub fn from_env() -> Option<Self> {
        if let Some(dir) = std::env::var_os("SKILLPKG_CACHE_DIR").filter(|dir| !dir.is_empty()) {
            return Some(Self::new(PathBuf::from(dir)));
        }
        let absolute = |name: &str| {
            std::env::var_os(name)
                .map(PathBuf::from)
                .filter(|dir| dir.is_absolute())
        };
        let platform = if cfg!(windows) {
            absolute("LOCALAPPDATA").map(|dir| dir.join("skillpkg").join("cache"))
        } else if cfg!(target_os = "macos") {
            absolute("HOME").map(|home| home.join("Library/Caches/skillpkg"))
        } else {
            absolute("XDG_CACHE_HOME")
                .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
                .map(|dir| dir.join("skillpkg"))
        };
        platform.map(Self::new)
    }

    /// The cache's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the archive with `sha256` is kept; `None` unless `sha256` is 64 lowercase hex
    /// digits, so that nothing but a checksum ever becomes a path.
    pub fn path(&self, sha256: &str) -> Option<PathBuf> {
        let hex = sha256.len() == 64
            && sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        hex.then(|| {
            self.dir
                .join("archives")
                .join("sha256")
                .join(&sha256[..2])
                .join(format!("{sha256}.skill"))
        })
    }

    /// Copies the archive with `sha256` into `into` (from its start) if the cache holds it, it is
    /// a regular file of at most `max_bytes`, and what was copied hashes to `sha256`. Anything
    /// else under that name is deleted ([`Lookup::Discarded`]) and `into` emptied again.
    pub fn copy_verified(
        &self,
        sha256: &str,
        max_bytes: u64,
        into: &mut std::fs::File,
    ) -> std::io::Result<Lookup> {
        let Some(path) = self.path(sha256) else {
            return Ok(Lookup::Miss);
        };
        let reason = match copy_hashing(&path, max_bytes, into) {
            Ok(got) if got == sha256 => return Ok(Lookup::Hit),
            Ok(got) => format!("its SHA-256 is {got}"),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Lookup::Miss),
            Err(error) => error.to_string(),
        };
        into.set_len(0)?;
        std::io::Seek::rewind(into)?;
        match fs_err::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            // A folder put there: take it away too, it can only be in the way.
            Err(_) => fs_err::remove_dir_all(&path)?,
        }
        Ok(Lookup::Discarded(format!(
            "{} did not match its name ({reason}); it was deleted",
            path.display()
        )))
    }

    /// Stores the file at `archive`, already verified to hash to `sha256`: copied to a temporary
    /// file beside its place in the cache and renamed there.
    pub fn store(&self, sha256: &str, archive: &Path) -> std::io::Result<()> {
        let Some(path) = self.path(sha256) else {
            return Ok(());
        };
        let folder = crate::fsx::parent_or_dot(&path);
        fs_err::create_dir_all(folder)?;
        let mut temp = tempfile::Builder::new()
            .prefix(".download-")
            .tempfile_in(folder)
            .map_err(|error| {
                std::io::Error::new(
                    error.kind(),
                    format!("cannot write in {}: {error}", folder.display()),
                )
            })?;
        std::io::copy(&mut fs_err::File::open(archive)?, &mut temp)?;
        temp.flush()?;
        crate::fsx::set_mode(temp.path(), 0o644)?;
        temp.persist(&path).map_err(|error| {
            std::io::Error::new(
                error.error.kind(),
                format!("cannot write {}: {}", path.display(), error.error),
            )
        })?;
        Ok(())
    }
}

/// Copies the regular file at `path` (not a link to one: the cache only ever holds files) into
/// `into`, refusing it past `max_bytes`; its SHA-256.
fn copy_hashing(path: &Path, max_bytes: u64, into: &mut std::fs::File) -> std::io::Result<String> {
    let kind = fs_err::symlink_metadata(path)?.file_type();
    if !kind.is_file() {
        return Err(crate::fsx::not_regular(path, kind));
    }
    let file = crate::fsx::open_regular(path)?;
    let mut reader = file.take(max_bytes.saturating_add(1));
    let mut hasher = Sha256::new();
    let mut copied: u64 = 0;
    let mut buffer = vec![0_u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        copied += n as u64;
        if copied > max_bytes {
            return Err(crate::fsx::too_large(path, max_bytes));
        }
        hasher.update(&buffer[..n]);
        into.write_all(&buffer[..n])?;
    }
    Ok(crate::pack::archive::hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(bytes: &[u8]) -> String {
        crate::pack::archive::hex(&Sha256::digest(bytes))
    }

    #[test]
    fn only_checksums_become_paths() {
        let cache = Cache::new(PathBuf::from("/c"));
        let good = "ab".repeat(32);
        assert_eq!(
            cache.path(&good).unwrap(),
            Path::new("/c/archives/sha256/ab").join(format!("{good}.skill"))
        );
        for bad in ["", "../../etc/passwd", &"AB".repeat(32), &"a".repeat(63)] {
            assert_eq!(cache.path(bad), None, "{bad}");
        }
    }

    #[test]
    fn what_is_stored_is_found_and_what_was_altered_is_discarded() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let bytes = b"an archive".to_vec();
        let sha256 = sha(&bytes);
        let source = dir.path().join("download.skill");
        fs_err::write(&source, &bytes).unwrap();
        let out = dir.path().join("out.skill");
        let lookup = |max| {
            let mut into = std::fs::File::create(&out).unwrap();
            cache.copy_verified(&sha256, max, &mut into).unwrap()
        };
        assert!(matches!(lookup(100), Lookup::Miss));
        cache.store(&sha256, &source).unwrap();
        assert!(matches!(lookup(100), Lookup::Hit));
        assert_eq!(fs_err::read(&out).unwrap(), bytes);
        // Larger than the archive may be: discarded, not read whole.
        assert!(matches!(lookup(4), Lookup::Discarded(_)));
        assert!(matches!(lookup(100), Lookup::Miss));
        cache.store(&sha256, &source).unwrap();
        fs_err::write(cache.path(&sha256).unwrap(), b"something else").unwrap();
        match lookup(100) {
            Lookup::Discarded(reason) => assert!(reason.contains("did not match"), "{reason}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(fs_err::read(&out).unwrap(), b"", "nothing of it is kept");
        assert!(!cache.path(&sha256).unwrap().exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_in_the_cache_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let secret = dir.path().join("secret");
        fs_err::write(&secret, b"secret").unwrap();
        let sha256 = sha(b"secret");
        let path = cache.path(&sha256).unwrap();
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&secret, &path).unwrap();
        let mut into = std::fs::File::create(dir.path().join("out")).unwrap();
        assert!(matches!(
            cache.copy_verified(&sha256, 100, &mut into).unwrap(),
            Lookup::Discarded(_)
        ));
        assert!(secret.exists() && fs_err::symlink_metadata(&path).is_err());
    }
}
