//! Small file-system helpers shared by the commands: Unix modes, durable renames, writing a
//! file so that readers see the old one or the new one, never half of it, and reading a file
//! that may be hostile.
//!
//! A skill is a folder someone else wrote, often a git checkout: git commits symbolic links,
//! so `SKILL.md` can point at `/dev/zero` or a FIFO. Every read of a file skillpkg did not write
//! goes through [`open_regular`] or [`read_capped`], which refuse anything but a regular file
//! (without blocking on a FIFO) and never read past a cap.

use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::path::Path;

/// Sets a Unix mode; elsewhere does nothing.
#[cfg(unix)]
pub(crate) fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// Sets a Unix mode; elsewhere does nothing.
#[cfg(not(unix))]
pub(crate) fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Makes a rename in `folder` durable where the platform allows it; failure only costs
/// durability.
pub(crate) fn sync_folder(folder: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = std::fs::File::open(folder) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = folder;
}

/// The folder a relative or absolute file path lives in (`.` for a bare name).
pub(crate) fn parent_or_dot(path: &Path) -> &Path {
    path.parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Opens `path` for reading if it is a regular file (after following links), without blocking
/// on a FIFO or a device; anything else is an [`io::ErrorKind::InvalidInput`] error that names
/// the path and what it is.
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Opening a FIFO for reading waits for a writer; O_NONBLOCK returns at once. It changes
    // nothing for regular files, which are all that is read from the handle.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits().cast_signed());
    }
    let file = options.open(path).map_err(|error| {
        io::Error::new(
            error.kind(),
            format!("failed to open file `{}`: {error}", path.display()),
        )
    })?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(not_regular(path, kind));
    }
    Ok(file)
}

/// The error for a path that is not a regular file.
pub(crate) fn not_regular(path: &Path, kind: std::fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is {}, not a regular file; skillpkg reads only regular files",
            path.display(),
            describe(kind)
        ),
    )
}

/// What kind of file system entry `kind` is, for messages.
pub(crate) fn describe(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Reads the regular file at `path` whole, refusing it when it is longer than `max` bytes (an
/// [`io::ErrorKind::FileTooLarge`] error naming the path and the cap). Never reads more than
/// `max + 1` bytes, whatever the file says its size is.
pub(crate) fn read_capped(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("cannot read {}: {error}", path.display()),
            )
        })?;
    if bytes.len() as u64 > max {
        return Err(too_large(path, max));
    }
    Ok(bytes)
}

/// The ignore files a directory walker reads itself (the `ignore` crate opens them without
/// skillpkg's checks): `.gitignore`, `.skillignore`, and a repository's `.git/info/exclude`.
pub(crate) const IGNORE_FILES: [&str; 3] = [".gitignore", ".skillignore", ".git/info/exclude"];

/// The most an ignore file may hold.
pub(crate) const MAX_IGNORE_BYTES: u64 = 1024 * 1024;

/// Why an ignore file in `dir` (see [`IGNORE_FILES`]) must not be read: it is not a regular file
/// (a FIFO would hang the walk, a link to `/dev/zero` fill memory) or is larger than
/// [`MAX_IGNORE_BYTES`]. `None` when all of them are missing or fine.
pub(crate) fn unsafe_ignore_file(dir: &Path) -> Option<io::Error> {
    IGNORE_FILES.iter().find_map(|name| {
        let path = dir.join(name);
        match fs_err::metadata(&path) {
            Ok(metadata) if !metadata.is_file() => Some(not_regular(&path, metadata.file_type())),
            Ok(metadata) if metadata.len() > MAX_IGNORE_BYTES => {
                Some(too_large(&path, MAX_IGNORE_BYTES))
            }
            _ => None,
        }
    })
}

/// [`unsafe_ignore_file`] for `dir` and every folder above it, which a walker that honours
/// parent ignore files reads too.
pub(crate) fn unsafe_ignore_file_above(dir: &Path) -> Option<io::Error> {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    absolute.ancestors().find_map(unsafe_ignore_file)
}

/// [`read_capped`], as UTF-8 text ([`io::ErrorKind::InvalidData`] naming the path otherwise).
pub(crate) fn read_text_capped(path: &Path, max: u64) -> io::Result<String> {
    String::from_utf8(read_capped(path, max)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

/// The error for a file over a read cap.
pub(crate) fn too_large(path: &Path, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "{} is larger than {} bytes, the most skillpkg reads of such a file",
            path.display(),
            max
        ),
    )
}

/// What an atomically written file's permissions become.
#[derive(Clone, Copy, Debug)]
pub enum Permissions {
    /// This Unix mode (ignored elsewhere).
    Mode(u32),
    /// Those of the file being replaced, which must exist.
    Keep,
}

/// Writes `bytes` to a temporary file beside `path` (`prefix` starts its name), sets its
/// permissions, syncs it, renames it over `path` and syncs the folder.
pub(crate) fn write_atomically(
    path: &Path,
    bytes: &[u8],
    prefix: &str,
    permissions: Permissions,
) -> io::Result<()> {
    let folder = parent_or_dot(path);
    let with_path = |error: io::Error| {
        io::Error::new(
            error.kind(),
            format!("cannot write {}: {error}", path.display()),
        )
    };
    let mut temp = tempfile::Builder::new()
        .prefix(prefix)
        .tempfile_in(folder)
        .map_err(with_path)?;
    match permissions {
        Permissions::Mode(mode) => set_mode(temp.path(), mode)?,
        Permissions::Keep => {
            fs_err::set_permissions(temp.path(), fs_err::metadata(path)?.permissions())?;
        }
    }
    temp.write_all(bytes).map_err(with_path)?;
    temp.as_file().sync_all().map_err(with_path)?;
    temp.persist(path).map_err(|error| with_path(error.error))?;
    sync_folder(folder);
    Ok(())
}

/// Creates `path` and any missing parents readable by the user only (0700 on Unix), for
/// folders that hold secrets. A folder that exists already keeps its mode: it may be shared.
pub(crate) fn create_private_dir_all(path: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path).map_err(|error| {
        io::Error::new(
            error.kind(),
            format!("cannot create {}: {error}", path.display()),
        )
    })
}

/// Whether `error` says symbolic links point at each other in a loop: `ELOOP` on Unix (40 on
/// Linux, 62 on macOS and the BSDs), `ERROR_CANT_RESOLVE_FILENAME` on Windows.
pub fn is_link_loop(error: &std::io::Error) -> bool {
    #[cfg(unix)]
    let code = rustix::io::Errno::LOOP.raw_os_error();
    #[cfg(windows)]
    let code = 1921;
    #[cfg(not(any(unix, windows)))]
    let code = i32::MIN;
    error.raw_os_error() == Some(code)
}

/// A size as people read it: `896 bytes`, `1.5 KiB`, `12.3 MiB`, `1.2 GiB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if bytes < 1024 {
        return format!("{bytes} {}", if bytes == 1 { "byte" } else { "bytes" });
    }
    #[expect(clippy::cast_precision_loss, reason = "one decimal is shown")]
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_as_people_write_them() {
        let shown: Vec<String> = [
            0,
            1,
            896,
            1023,
            1024,
            1536,
            10 * 1024 * 1024 + 300 * 1024,
            3 << 30,
            5 << 40,
        ]
        .into_iter()
        .map(super::size)
        .collect();
        assert_eq!(
            shown,
            [
                "0 bytes",
                "1 byte",
                "896 bytes",
                "1023 bytes",
                "1.0 KiB",
                "1.5 KiB",
                "10.3 MiB",
                "3.0 GiB",
                "5120.0 GiB"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_loop_is_recognised_on_this_system() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(dir.path().join("b"), dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("b")).unwrap();
        let error = std::fs::canonicalize(dir.path().join("a")).unwrap_err();
        assert!(super::is_link_loop(&error), "{error:?}");
        let missing = std::fs::canonicalize(dir.path().join("c")).unwrap_err();
        assert!(!super::is_link_loop(&missing));
    }
}
