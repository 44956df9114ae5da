//! Which files of a skill go into its archive.
//!
//! Everything under the skill folder, except: the default exclusions (`.git`, `.hg`, `.svn`,
//! `.DS_Store`, `__pycache__`, `*.pyc`, `node_modules`, the root `evals/`), what `.gitignore`
//! files ignore, what `.skillignore` ignores (gitignore syntax; a `!` negation brings a file
//! back), and hidden files unless a `.skillignore` negation names them. Files that look like
//! secrets stop the packing unless `.skillignore` includes them explicitly. `*.skill` archives
//! and the folder the archive is written to are never packed. Symlinks to files inside the skill
//! are packed as those files when the target itself would be packed; any other link is an error
//! or, when its target is excluded, left out. FIFOs, sockets and devices are refused.

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
    /// A file skillpkg must not read: an ignore file that is a FIFO, a device or too large.
    #[error("{0}")]
    Unreadable(String),
    /// A FIFO, socket or device: its "content" is not a file's.
    #[error("`{path}` is {kind}; a skill holds only regular files")]
    NotRegular { path: String, kind: &'static str },
    /// A name an archive cannot carry safely, which `unpack` would refuse.
    #[error("`{path}` has {reason} in its name, which is not portable; unpack refuses such names")]
    BadName { path: String, reason: &'static str },
    #[error(
        "`{0}` and `{1}` differ only in case; case-insensitive file systems (and unpack) keep one"
    )]
    CaseClash(String, String),
    /// What is left after the exclusions holds no `SKILL.md`.
    #[error("no SKILL.md would be packed: {0}")]
    NoSkillFile(String),
    #[error("the skill has more than {0} files; unpack refuses archives that large")]
    TooMany(usize),
    #[error("the skill is {}; unpack refuses archives that expand past {}", crate::fsx::size(*.0), crate::fsx::size(*.1))]
    TooBig(u64, u64),
}

impl SelectError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            Self::Secrets(_) => {
                "remove them, or add `!<file>` lines to .skillignore if they must ship"
            }
            Self::Link { .. } => "replace the link with the file itself",
            Self::Read { .. } => "check the permissions",
            Self::NotRegular { .. } => "remove it, or add it to .skillignore",
            Self::Unreadable(_) => "replace it with a regular file, or remove it",
            Self::BadName { .. } | Self::CaseClash(..) => "rename the file",
            Self::NoSkillFile(_) => {
                "name the skill file SKILL.md, and make sure .skillignore and .gitignore do not exclude it"
            }
            Self::TooMany(_) | Self::TooBig(..) => {
                "move large or generated files out of the skill, or add them to .skillignore"
            }
        }
    }
}

fn list(paths: &[String]) -> String {
    let quoted: Vec<String> = paths.iter().map(|p| format!("`{p}`")).collect();
    quoted.join(", ")
}

/// The files of the skill in `dir`, sorted by path.
pub fn select(dir: &Path) -> Result<Vec<PackFile>, SelectError> {
    select_except(dir, None)
}

/// The files of the skill in `dir`, sorted by path, leaving out `output` (the file an archive
/// is being written to) and every `*.skill` archive, so that a skill never packs its own
/// packages. (The temporary file an archive is written to first is hidden, so never packed.)
///
/// A symbolic link is packed as the file it points to, and only if that file would be packed
/// itself: the hidden-file rule, the VCS and default exclusions and the ignore files apply to
/// the target as well as to the link, and a link to a secret is refused like the secret (so
/// `notes.txt -> .env` cannot ship `.env` under a harmless name). Whatever `unpack` would refuse
/// (no `SKILL.md`, names with control characters or backslashes, names that differ only in
/// case, too many files or bytes) is refused here, before an archive is written.
pub(crate) fn select_except(
    dir: &Path,
    output: Option<&Path>,
) -> Result<Vec<PackFile>, SelectError> {
    let root = fs_err::canonicalize(dir).map_err(|error| SelectError::Read {
        path: dir.display().to_string(),
        message: error.to_string(),
    })?;
    let output = output.and_then(|file| std::fs::canonicalize(file).ok());
    // The walker reads ignore files itself: refuse one that would hang it or fill memory.
    if let Some(error) = crate::fsx::unsafe_ignore_file_above(&root) {
        return Err(SelectError::Unreadable(error.to_string()));
    }
    let refused = std::sync::Arc::new(std::sync::Mutex::new(None));
    let record = refused.clone();
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
            if !is_dir && output.as_deref() == Some(entry.path()) {
                return false;
            }
            if is_dir && let Some(error) = crate::fsx::unsafe_ignore_file(entry.path()) {
                if let Ok(mut first) = record.lock() {
                    first.get_or_insert(error.to_string());
                }
                return false;
            }
            !(name == ".DS_Store" || name.ends_with(".pyc") || is_archive(&name) && !is_dir)
        });
    let mut files = Vec::new();
    let mut links = Vec::new();
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
        let relative = checked_relative(&root, full)?;
        if kind.is_symlink() {
            links.push((relative, full.to_path_buf()));
            continue;
        }
        if !kind.is_file() {
            return Err(SelectError::NotRegular {
                path: relative,
                kind: crate::fsx::describe(kind),
            });
        }
        let metadata = fs_err::metadata(full).map_err(|error| SelectError::Read {
            path: relative.clone(),
            message: error.to_string(),
        })?;
        let name = relative.rsplit('/').next().unwrap_or(&relative);
        if crate::skill::secrets::looks_secret(name)
            && !skillignore.matched(&relative, false).is_whitelist()
        {
            secrets.push(relative);
            continue;
        }
        files.push(PackFile {
            executable: is_executable(&metadata),
            size: metadata.len(),
            path: relative,
            source: full.to_path_buf(),
        });
    }
    if let Some(error) = refused.lock().ok().and_then(|mut first| first.take()) {
        return Err(SelectError::Unreadable(error));
    }
    // Links last: each is packed only when its target was selected in its own right.
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut linked = follow_links(&root, links, &files, &skillignore, &mut secrets)?;
    if !secrets.is_empty() {
        return Err(SelectError::Secrets(secrets));
    }
    files.append(&mut linked);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    check_unpackable(&files, &root)?;
    Ok(files)
}

/// The links to pack: each as the file it points to, when that file was selected (`files`,
/// sorted) in its own right. A link to a secret is added to `secrets`.
fn follow_links(
    root: &Path,
    links: Vec<(String, PathBuf)>,
    files: &[PackFile],
    skillignore: &Gitignore,
    secrets: &mut Vec<String>,
) -> Result<Vec<PackFile>, SelectError> {
    let mut linked = Vec::new();
    for (relative, full) in links {
        let (target, metadata) = resolve_link(root, &full, &relative)?;
        let target_relative = checked_relative(root, &target)?;
        let target_name = target_relative
            .rsplit('/')
            .next()
            .unwrap_or(&target_relative);
        if crate::skill::secrets::looks_secret(target_name)
            && !skillignore.matched(&target_relative, false).is_whitelist()
        {
            secrets.push(format!("{relative} (a link to {target_relative})"));
            continue;
        }
        let selected = files
            .binary_search_by(|file| file.path.as_str().cmp(&target_relative))
            .is_ok();
        if !selected {
            continue;
        }
        linked.push(PackFile {
            executable: is_executable(&metadata),
            size: metadata.len(),
            path: relative,
            source: target,
        });
    }
    Ok(linked)
}

/// A `.skill` archive, by its name.
fn is_archive(name: &str) -> bool {
    name.len() > ".skill".len()
        && name
            .get(name.len() - ".skill".len()..)
            .is_some_and(|end| end.eq_ignore_ascii_case(".skill"))
}

/// Refuses a selection of the skill in `root` that `unpack` would refuse.
fn check_unpackable(files: &[PackFile], root: &Path) -> Result<(), SelectError> {
    let limits = crate::pack::extract::Limits::default();
    if files.len() > limits.max_files {
        return Err(SelectError::TooMany(limits.max_files));
    }
    let total = files.iter().map(|file| file.size).sum::<u64>();
    if total > limits.max_bytes {
        return Err(SelectError::TooBig(total, limits.max_bytes));
    }
    let mut seen: std::collections::HashMap<String, &str> =
        std::collections::HashMap::with_capacity(files.len());
    // Every folder a file lies in, by its lower-case path: a file `A` beside a folder `a/` is one
    // name twice on a case-insensitive file system, and unpack refuses it.
    let mut folders: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    for file in files {
        if let Some(first) = seen.insert(file.path.to_lowercase(), &file.path) {
            return Err(SelectError::CaseClash(first.to_owned(), file.path.clone()));
        }
        for (end, _) in file.path.match_indices('/') {
            let folder = &file.path[..end];
            folders.entry(folder.to_lowercase()).or_insert(folder);
        }
    }
    for file in files {
        if let Some(folder) = folders.get(&file.path.to_lowercase()) {
            return Err(SelectError::CaseClash(
                file.path.clone(),
                (*folder).to_owned(),
            ));
        }
    }
    if files.iter().any(|file| file.path == "SKILL.md") {
        return Ok(());
    }
    let reason = if files
        .iter()
        .any(|file| file.path.eq_ignore_ascii_case("SKILL.md"))
    {
        "the skill file must be spelt `SKILL.md`, which is what agents and unpack look for"
    } else if root.join("SKILL.md").is_file() {
        "SKILL.md is excluded by .skillignore or .gitignore"
    } else {
        "the skill folder has no SKILL.md"
    };
    Err(SelectError::NoSkillFile(reason.to_owned()))
}

/// `full`'s path inside `root`, `/`-separated, refusing names an archive cannot carry safely.
fn checked_relative(root: &Path, full: &Path) -> Result<String, SelectError> {
    let inside = full.strip_prefix(root).unwrap_or(full);
    let mut parts = Vec::new();
    for part in inside {
        let Some(part) = part.to_str() else {
            return Err(SelectError::BadName {
                path: inside.to_string_lossy().into_owned(),
                reason: "bytes that are not UTF-8",
            });
        };
        parts.push(part);
    }
    let relative = parts.join("/");
    let reason = if relative.chars().any(char::is_control) {
        Some("a control character (such as a line break)")
    } else if relative.contains('\\') {
        Some("a backslash")
    } else {
        parts.iter().find_map(|part| super::unportable(part))
    };
    match reason {
        Some(reason) => Err(SelectError::BadName {
            path: relative.escape_debug().to_string(),
            reason,
        }),
        None => Ok(relative),
    }
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
        Err(error) if crate::fsx::is_link_loop(&error) => return Err(link("in a loop")),
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
    if !metadata.is_file() {
        return Err(link(&format!(
            "to {}; a skill holds only regular files",
            crate::fsx::describe(metadata.file_type())
        )));
    }
    Ok((target, metadata))
}

/// Whether any execute bit is set (always false where files have none).
#[cfg(unix)]
pub(crate) fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
pub(crate) fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    false
}
