//! Which skills Claude Code finds: the entries of a skills folder (`~/.claude/skills`,
//! `<project>/.claude/skills`) that it lists, and the folder it names as a skill's base directory.
//!
//! This is the agent's own discovery, not skillpkg's tree walk: `validate` and `lint` look for
//! every SKILL.md below a path (an author's repository holds skills anywhere), while `preview`
//! shows what the agent started in a project would list. Ground truth:
//! `docs/research/claude-code-conformance.md` (recorded against the real 2.1.332 by
//! `conformance/run`).

use std::path::{Path, PathBuf};

/// The skills folder of a Claude Code project or home folder.
pub(crate) const SKILLS_DIR: &str = ".claude/skills";

/// The legacy commands folder of a Claude Code project or home folder.
pub(crate) const COMMANDS_DIR: &str = ".claude/commands";

/// The most entries of one skills folder looked at, so a hostile folder cannot make a preview
/// read without end.
const MAX_ENTRIES: usize = 100_000;

/// One skill (or legacy command) Claude Code found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// The file to read.
    pub file: PathBuf,
    /// The skill's folder as Claude Code names it (its base directory): the path as reached,
    /// links not resolved.
    pub dir: PathBuf,
    /// The name in the listing: the folder's name, or a command's path joined with `:`.
    pub name: String,
    /// A plain `.md` legacy command, which has no base directory.
    pub command: bool,
}

/// The skills Claude Code lists from the skills folder `root`, in no particular order: each
/// entry of `root` that is a folder (or a link to one) holding a regular `SKILL.md` (or a link
/// to one), named exactly so. Nothing deeper is looked at.
pub(crate) fn skills_in(root: &Path) -> Vec<Found> {
    let Ok(entries) = fs_err::read_dir(root) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.take(MAX_ENTRIES).flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let dir = entry.path();
        // `metadata` follows links: a link to a folder counts as the folder.
        if !fs_err::metadata(&dir).is_ok_and(|meta| meta.is_dir()) {
            continue;
        }
        let file = dir.join("SKILL.md");
        if !fs_err::metadata(&file).is_ok_and(|meta| meta.is_file()) {
            continue;
        }
        found.push(Found {
            file,
            dir,
            name,
            command: false,
        });
    }
    found
}

/// The deepest folder looked at below a commands folder.
const MAX_COMMAND_DEPTH: usize = 32;

/// The legacy commands of the commands folder `root` (`.claude/commands`): every `*.md` below it
/// (hidden ones too, links followed), named by its path joined with `:` without `.md`; a folder
/// that holds a `skill.md` in any case is one skill named by its path instead, and its other
/// `.md` files are not commands. Each file counts once, however many links reach it.
pub(crate) fn commands_in(root: &Path) -> Vec<Found> {
    let mut found = Vec::new();
    let mut seen_dirs = std::collections::HashSet::new();
    let mut seen_files = std::collections::HashSet::new();
    let mut budget = MAX_ENTRIES;
    commands_below(
        root,
        &[],
        &mut found,
        &mut seen_dirs,
        &mut seen_files,
        &mut budget,
    );
    found
}

fn commands_below(
    dir: &Path,
    parts: &[String],
    found: &mut Vec<Found>,
    seen_dirs: &mut std::collections::HashSet<PathBuf>,
    seen_files: &mut std::collections::HashSet<PathBuf>,
    budget: &mut usize,
) {
    if parts.len() > MAX_COMMAND_DEPTH {
        return;
    }
    // A folder reached twice through links is read once.
    let Ok(real) = fs_err::canonicalize(dir) else {
        return;
    };
    if !seen_dirs.insert(real) {
        return;
    }
    let Ok(entries) = fs_err::read_dir(dir) else {
        return;
    };
    let mut names: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        if let Ok(name) = entry.file_name().into_string() {
            names.push(name);
        }
    }
    names.sort();
    let is_file = |name: &str| fs_err::metadata(dir.join(name)).is_ok_and(|meta| meta.is_file());
    let skill_file = names
        .iter()
        // Only `*.md` files are looked at (case-sensitively), so `SKILL.MD` does not count.
        .find(|name| name.eq_ignore_ascii_case("skill.md") && is_markdown(name) && is_file(name));
    match skill_file {
        Some(file) if !parts.is_empty() => {
            if unseen(&dir.join(file), seen_files) {
                found.push(Found {
                    file: dir.join(file),
                    dir: dir.to_path_buf(),
                    name: parts.join(":"),
                    command: false,
                });
            }
        }
        _ => {
            for name in names.iter().filter(|name| is_markdown(name)) {
                let file = dir.join(name);
                if is_file(name) && unseen(&file, seen_files) {
                    let mut path = parts.to_vec();
                    path.push(name.strip_suffix(".md").unwrap_or(name).to_owned());
                    found.push(Found {
                        file,
                        dir: dir.to_path_buf(),
                        name: path.join(":"),
                        command: true,
                    });
                }
            }
        }
    }
    for name in &names {
        let child = dir.join(name);
        if fs_err::metadata(&child).is_ok_and(|meta| meta.is_dir()) {
            let mut path = parts.to_vec();
            path.push(name.clone());
            commands_below(&child, &path, found, seen_dirs, seen_files, budget);
        }
    }
}

/// `*.md`, case-sensitively as Claude Code's file search globs it (`README.MD` is not one).
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "Claude Code's glob is case-sensitive"
)]
fn is_markdown(name: &str) -> bool {
    name.ends_with(".md")
}

/// Whether the file behind `path` has not been seen yet (and now has).
fn unseen(path: &Path, seen: &mut std::collections::HashSet<PathBuf>) -> bool {
    fs_err::canonicalize(path).is_ok_and(|real| seen.insert(real))
}

/// The folders whose `.claude` Claude Code reads as project folders when started in `cwd`: `cwd`
/// and each folder above it, up to and including the repository's top level (the first with a
/// `.git`), or up to `/` outside a repository; never the home folder or anything above it.
pub(crate) fn project_folders(cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for folder in cwd.ancestors() {
        if home.is_some_and(|home| home == folder) {
            break;
        }
        folders.push(folder.to_path_buf());
        if folder.join(".git").exists() {
            break;
        }
    }
    folders
}

/// The skills folder of the project or home folder `folder`, if there is one.
pub(crate) fn skills_dir_of(folder: &Path) -> Option<PathBuf> {
    let dir = folder.join(SKILLS_DIR);
    dir.is_dir().then_some(dir)
}

/// The commands folder of the project or home folder `folder`, if there is one.
pub(crate) fn commands_dir_of(folder: &Path) -> Option<PathBuf> {
    let dir = folder.join(COMMANDS_DIR);
    dir.is_dir().then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_one_level_down_holding_skill_md_count() {
        let root = tempfile::tempdir().unwrap();
        let skills = root.path();
        for (path, text) in [
            ("a/SKILL.md", "x"),
            ("group/b/SKILL.md", "x"),
            ("c/skill.md", "x"),
            ("SKILL.md", "x"),
        ] {
            let path = skills.join(path);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, text).unwrap();
        }
        fs_err::create_dir_all(skills.join("d/SKILL.md")).unwrap();
        let mut names: Vec<String> = skills_in(skills).into_iter().map(|f| f.name).collect();
        names.sort();
        assert_eq!(names, ["a"]);
    }

    #[test]
    fn commands_are_named_by_their_path() {
        let root = tempfile::tempdir().unwrap();
        for path in [
            "top.md",
            "README.MD",
            ".hidden.md",
            "sub/deeper/cmd4.md",
            "dir/SKILL.md",
            "dir/ignored.md",
            "dir/inner/kept.md",
        ] {
            let path = root.path().join(path);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, "x").unwrap();
        }
        let mut found: Vec<(String, bool)> = commands_in(root.path())
            .into_iter()
            .map(|f| (f.name, f.command))
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                (".hidden".to_owned(), true),
                ("dir".to_owned(), false),
                ("dir:inner:kept".to_owned(), true),
                ("sub:deeper:cmd4".to_owned(), true),
                ("top".to_owned(), true),
            ]
        );
    }

    #[test]
    fn project_folders_stop_at_the_repository_or_home() {
        let root = tempfile::tempdir().unwrap();
        let deep = root.path().join("repo/sub/deeper");
        fs_err::create_dir_all(&deep).unwrap();
        fs_err::create_dir_all(root.path().join("repo/.git")).unwrap();
        let folders = project_folders(&deep, None);
        assert_eq!(folders.last().unwrap(), &root.path().join("repo"));
        assert_eq!(folders.len(), 3);
        let home = root.path().join("repo/sub");
        assert_eq!(project_folders(&deep, Some(&home)), vec![deep]);
    }
}
