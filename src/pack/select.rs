//! Which files of a skill go into its archive.
//!
//! Everything under the skill folder, except: the default exclusions (`.git`, `.hg`, `.svn`,
//! `.DS_Store`, `__pycache__`, `*.pyc`, `node_modules`, the root `evals/`), what `.gitignore`
//! files ignore, what `.skillignore` ignores (gitignore syntax; a `!` negation brings a file
//! back), and hidden files unless a `.skillignore` negation names them. Files that look like
//! secrets stop the packing unless `.skillignore` includes them explicitly. Symlinks to files
//! inside the skill are packed as those files; any other link is an error.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Folders never packed, at any depth.
const EXCLUDED_DIRS: &[&str] = &[".git", ".hg", ".svn", "__pycache__", "node_modules"];

/// One file to pack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackFile {
    /// Relative to the skill folder, `/`-separated.
    pub path: String,
    /// Where to read it (a symlink's target).
    pub source: PathBuf,
    pub size: u64,
    pub executable: bool,
}

/// Why a skill cannot be packed.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    #[error("{} looks like {}: packing it would publish it", list(.0), if .0.len() == 1 { "a secret" } else { "secrets" })]
    Secrets(Vec<String>),
    #[error("`{path}` is a symbolic link {reason}")]
    Link { path: String, reason: String },
    #[error("cannot read `{path}`: {message}")]
    Read { path: String, message: String },
}

fn list(paths: &[String]) -> String {
    let quoted: Vec<String> = paths.iter().map(|p| format!("`{p}`")).collect();
    quoted.join(", ")
}

/// Endings of private keys and certificate stores.
pub const KEY_EXTENSIONS: [&str; 7] = [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk"];
/// SSH private keys' usual names.
pub const SSH_KEYS: [&str; 4] = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];
/// Files that hold credentials by convention.
pub const CREDENTIAL_FILES: [&str; 6] = [
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".htpasswd",
    "credentials.json",
    "service-account.json",
];
/// Endings that mark a file as an example, not the real thing (`.env.example`).
pub const EXAMPLE_SUFFIXES: [&str; 4] = [".example", ".sample", ".template", ".dist"];

/// Whether a file name looks like a secret (`.env*`, keys, certificates, credentials). Broader
/// than lint's check, by prefix: packing is where a leak would ship.
pub fn looks_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let example = EXAMPLE_SUFFIXES
        .iter()
        .any(|suffix| lower.ends_with(suffix));
    (lower.starts_with(".env") && !example)
        || KEY_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
        || SSH_KEYS.iter().any(|key| lower.starts_with(key))
        || CREDENTIAL_FILES.contains(&lower.as_str())
}

/// The files of the skill in `dir`, sorted by path.
pub fn select(dir: &Path) -> Result<Vec<PackFile>, SelectError> {
    let root = fs_err::canonicalize(dir).map_err(|error| SelectError::Read {
        path: dir.display().to_string(),
        message: error.to_string(),
    })?;
    let skillignore = load_skillignore(&root);
    let walk_root = root.clone();
    let mut builder = WalkBuilder::new(&root);
    builder
        .hidden(true)
        .ignore(false)
        .git_global(false)
        .git_ignore(true)
        .git_exclude(false)
        .require_git(false)
        .parents(true)
        .follow_links(false)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .add_custom_ignore_filename(".skillignore")
        .filter_entry(move |entry| {
            let name = entry.file_name().to_string_lossy();
            let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
            if is_dir && EXCLUDED_DIRS.contains(&name.as_ref()) {
                return false;
            }
            if is_dir && name == "evals" && entry.path().parent() == Some(walk_root.as_path()) {
                return false;
            }
            !(name == ".DS_Store" || name.ends_with(".pyc"))
        });
    let mut files = Vec::new();
    let mut secrets = Vec::new();
    for entry in builder.build() {
        let entry = entry.map_err(|error| SelectError::Read {
            path: dir.display().to_string(),
            message: error.to_string(),
        })?;
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            continue;
        }
        let full = entry.path();
        let relative = relative(&root, full);
        let (source, metadata) = if kind.is_symlink() {
            resolve_link(&root, full, &relative)?
        } else {
            let metadata = fs_err::metadata(full).map_err(|error| SelectError::Read {
                path: relative.clone(),
                message: error.to_string(),
            })?;
            (full.to_path_buf(), metadata)
        };
        let name = relative.rsplit('/').next().unwrap_or(&relative);
        if looks_secret(name) && !skillignore.matched(&relative, false).is_whitelist() {
            secrets.push(relative);
            continue;
        }
        files.push(PackFile {
            executable: is_executable(&metadata),
            size: metadata.len(),
            path: relative,
            source,
        });
    }
    if !secrets.is_empty() {
        return Err(SelectError::Secrets(secrets));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn relative(root: &Path, full: &Path) -> String {
    full.strip_prefix(root)
        .unwrap_or(full)
        .iter()
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The root `.skillignore`, to tell an explicit inclusion from the default.
fn load_skillignore(root: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(root);
    let _ = builder.add(root.join(".skillignore"));
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// A link's target, when it is a file inside the skill.
fn resolve_link(
    root: &Path,
    full: &Path,
    relative: &str,
) -> Result<(PathBuf, std::fs::Metadata), SelectError> {
    let link = |reason: &str| SelectError::Link {
        path: relative.to_owned(),
        reason: reason.to_owned(),
    };
    let target = match std::fs::canonicalize(full) {
        Ok(target) => target,
        Err(error) if error.raw_os_error() == Some(40) => return Err(link("in a loop")),
        Err(_) => return Err(link("to a file that does not exist")),
    };
    if !target.starts_with(root) {
        return Err(link(&format!(
            "to `{}`, outside the skill folder; only files inside it are packed",
            target.display()
        )));
    }
    let metadata = fs_err::metadata(&target).map_err(|_| link("to a file that cannot be read"))?;
    if metadata.is_dir() {
        return Err(link(
            "to a folder; copy the folder into the skill, or remove the link",
        ));
    }
    Ok((target, metadata))
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    false
}
