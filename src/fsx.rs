//! Small file-system helpers shared by the commands: Unix modes, durable renames, and writing a
//! file so that readers see the old one or the new one, never half of it.

use std::io::{self, Write as _};
use std::path::Path;

/// Sets a Unix mode; elsewhere does nothing.
#[cfg(unix)]
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// Sets a Unix mode; elsewhere does nothing.
#[cfg(not(unix))]
pub fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Makes a rename in `folder` durable where the platform allows it; failure only costs
/// durability.
pub fn sync_folder(folder: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = std::fs::File::open(folder) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = folder;
}

/// The folder a relative or absolute file path lives in (`.` for a bare name).
pub fn parent_or_dot(path: &Path) -> &Path {
    path.parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
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
pub fn write_atomically(
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
pub fn create_private_dir_all(path: &Path) -> io::Result<()> {
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
