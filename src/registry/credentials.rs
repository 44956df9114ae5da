//! Registry tokens on disk: `credentials.toml` in skillpkg's config folder, one token per
//! registry URL.
//!
//! The file holds every registry's token, so it is treated as precious: a file skillpkg cannot
//! read is reported, never taken for "no token" and never overwritten (that would log the user
//! out of every other registry). Only a small regular file is read, so a mistake such as a
//! FIFO or `/dev/zero` in its place cannot hang or exhaust a command. The folder is created
//! 0700 and the file written 0600: nobody else on the machine reads the tokens.

use std::path::{Path, PathBuf};

/// Where skillpkg stores tokens, and how they are read.
const FILE_NAME: &str = "credentials.toml";

/// The largest credentials file read: far more than any number of tokens needs.
pub(crate) const MAX_BYTES: u64 = 1024 * 1024;

/// The credentials file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    /// Neither `SKILLPKG_CONFIG_DIR` nor a home folder is known.
    #[error("cannot find a config folder for credentials.toml: set HOME or SKILLPKG_CONFIG_DIR")]
    NoConfigFolder,
    /// Something other than a file (a folder, a FIFO, a device) is in its place.
    #[error(
        "{} is not a regular file; skillpkg keeps registry tokens there: move it away, then run `skillpkg login`",
        path.display()
    )]
    NotAFile { path: PathBuf },
    /// Larger than [`MAX_BYTES`]: not a file skillpkg wrote.
    #[error(
        "{} is larger than 1 MiB, so it is not a credentials file skillpkg wrote: move it away, then run `skillpkg login` for each registry",
        path.display()
    )]
    TooLarge { path: PathBuf },
    /// Not TOML, or not the shape skillpkg writes.
    #[error(
        "{} is broken ({message}); it holds the token of every registry, so skillpkg will not overwrite it: fix it, or move it away and run `skillpkg login` again for each registry",
        path.display()
    )]
    Broken { path: PathBuf, message: String },
    /// Reading or writing failed (the message names the path).
    #[error(transparent)]
    Io(std::io::Error),
}

/// skillpkg's folder for user settings: `$SKILLPKG_CONFIG_DIR`, else the platform's config
/// folder (`$XDG_CONFIG_HOME` or `~/.config` on Unix, `%APPDATA%` on Windows) plus `skillpkg`.
pub(crate) fn config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SKILLPKG_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    if cfg!(windows) {
        return std::env::var_os("APPDATA").map(|dir| PathBuf::from(dir).join("skillpkg"));
    }
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|dir| dir.join("skillpkg"))
}

/// The credentials file's path.
pub fn path() -> Result<PathBuf, CredentialsError> {
    config_dir()
        .map(|dir| dir.join(FILE_NAME))
        .ok_or(CredentialsError::NoConfigFolder)
}

/// The token for `registry`: `$SKILLPKG_TOKEN`, else the one `skillpkg login` stored, else
/// `None`. A credentials file that exists but cannot be read is an error, not "no token".
pub fn token(registry: &str) -> Result<Option<String>, CredentialsError> {
    if let Some(token) = std::env::var("SKILLPKG_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty())
    {
        return Ok(Some(token.trim().to_owned()));
    }
    stored_token(registry)
}

/// The token `skillpkg login` stored for `registry`, ignoring `SKILLPKG_TOKEN`: for requests to
/// a registry the user did not name (one a lockfile names).
pub fn stored_token(registry: &str) -> Result<Option<String>, CredentialsError> {
    let path = path()?;
    let Some(table) = read(&path)? else {
        return Ok(None);
    };
    Ok(table
        .get(registry.trim_end_matches('/'))
        .and_then(toml::Value::as_str)
        .map(str::to_owned))
}

/// Checks that the credentials file is absent or readable, so that `login` can refuse before
/// it asks for a token it could not store.
pub fn check() -> Result<(), CredentialsError> {
    read(&path()?).map(|_| ())
}

/// Stores `token` for `registry` beside the other registries' tokens, atomically, readable by
/// the user only; creates the config folder 0700. Refuses to replace a file it cannot read.
pub(crate) fn store_token(registry: &str, token: &str) -> Result<PathBuf, CredentialsError> {
    let path = path()?;
    let folder = crate::fsx::parent_or_dot(&path);
    crate::fsx::create_private_dir_all(folder).map_err(CredentialsError::Io)?;
    let mut table = read(&path)?.unwrap_or_default();
    table.insert(
        registry.trim_end_matches('/').to_owned(),
        toml::Value::String(token.to_owned()),
    );
    write(&path, &table)?;
    Ok(path)
}

/// Forgets the token stored for `registry`, atomically, keeping the others. Returns the file's
/// path when there was one to forget.
pub(crate) fn remove_token(registry: &str) -> Result<Option<PathBuf>, CredentialsError> {
    let path = path()?;
    let Some(mut table) = read(&path)? else {
        return Ok(None);
    };
    if table.remove(registry.trim_end_matches('/')).is_none() {
        return Ok(None);
    }
    write(&path, &table)?;
    Ok(Some(path))
}

/// Writes `table` to `path` atomically, readable by the user only.
fn write(path: &Path, table: &toml::Table) -> Result<(), CredentialsError> {
    let text = toml::to_string(table).map_err(|error| CredentialsError::Broken {
        path: path.to_path_buf(),
        message: error.to_string(),
    })?;
    crate::fsx::write_atomically(
        path,
        text.as_bytes(),
        ".credentials-",
        crate::fsx::Permissions::Mode(0o600),
    )
    .map_err(CredentialsError::Io)
}

/// The file's table of tokens, `None` when there is no file.
fn read(path: &Path) -> Result<Option<toml::Table>, CredentialsError> {
    // Opened without blocking and checked on the open handle, so that a FIFO swapped in after a
    // check cannot hang the read, and never read past the cap.
    let bytes = match crate::fsx::read_capped(path, MAX_BYTES) {
        Ok(bytes) => bytes,
        Err(error) => {
            return match error.kind() {
                std::io::ErrorKind::NotFound => Ok(None),
                std::io::ErrorKind::InvalidInput => Err(CredentialsError::NotAFile {
                    path: path.to_path_buf(),
                }),
                std::io::ErrorKind::FileTooLarge => Err(CredentialsError::TooLarge {
                    path: path.to_path_buf(),
                }),
                _ => Err(CredentialsError::Io(error)),
            };
        }
    };
    let broken = |message: String| CredentialsError::Broken {
        path: path.to_path_buf(),
        message,
    };
    let text = String::from_utf8(bytes).map_err(|_| broken("not UTF-8".into()))?;
    let table: toml::Table = toml::from_str(&text).map_err(|error| {
        let line = error
            .span()
            .map_or(1, |span| text[..span.start].matches('\n').count() + 1);
        broken(format!("line {line}: {}", error.message()))
    })?;
    if let Some((key, _)) = table.iter().find(|(_, value)| !value.is_str()) {
        return Err(broken(format!("the token for `{key}` is not a string")));
    }
    Ok(Some(table))
}
