//! Finding skill files in the paths the user names.
//!
//! A path may be a `SKILL.md`, a skill folder or any tree. Skills live in hidden folders
//! (`.claude/skills`, `.agents/skills`, `.github/skills`), so hidden folders are walked; version
//! control folders, `node_modules` and git-ignored paths are not. The walk runs on several
//! threads and hands each skill file to the caller as soon as it is found, so reading and
//! checking overlap with the walk; callers sort afterwards for stable output.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use ignore::{ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use super::FileName;

/// The name of skillpkg's configuration file, which discovery notes where it finds (the
/// settings of the skills below it come from there).
pub(crate) const CONFIG_FILE: &str = "skillpkg.toml";

/// How many folders below another skill's folder a `SKILL.md` may be and still be looked at as
/// that skill's part.
pub(crate) const MAX_PART_DEPTH: usize = 8;

/// Folders never walked into.
const SKIPPED_DIRS: &[&str] = &[".git", ".hg", ".svn", "node_modules"];

/// Folders of test data: a `SKILL.md` below one (inside the paths walked) is a test's input,
/// often broken on purpose, not a skill anyone loads. Named on the command line, or walked
/// from inside, it is checked.
const TEST_DATA_DIRS: &[&str] = &[
    "fixtures",
    "test-fixtures",
    "test_fixtures",
    "__fixtures__",
    "testdata",
    "test-data",
    "test_data",
];

/// Whether `path`, below the walked root `root`, passes through a folder of test data.
fn in_test_data(path: &Path, roots: &[PathBuf]) -> bool {
    let below = roots
        .iter()
        .filter_map(|root| path.strip_prefix(root).ok())
        .min_by_key(|rest| rest.as_os_str().len())
        .unwrap_or(path);
    below
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .any(|part| {
            matches!(part, std::path::Component::Normal(name)
                if name.to_str().is_some_and(|name| TEST_DATA_DIRS.contains(&name)))
        })
}

/// Why a path could not be used.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("`{}` does not exist", .0.display())]
    Missing(PathBuf),
    #[error("`{}` is a file, but not a SKILL.md", .0.display())]
    NotSkillFile(PathBuf),
    #[error("{0}")]
    Walk(#[from] ignore::Error),
    /// An ignore file that cannot be read safely; its folder was not searched.
    #[error("{0}; the folder holding it was not searched")]
    IgnoreFile(std::io::Error),
}

impl DiscoverError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Self::Missing(_) => Some("check the spelling, or run from the folder that holds it"),
            Self::NotSkillFile(_) => {
                Some("pass a skill folder, a SKILL.md file, or any folder that contains skills")
            }
            Self::Walk(_) => None,
            Self::IgnoreFile(_) => Some("replace it with a regular file, or remove it"),
        }
    }
}

/// Checks that every path exists and that files are skill files; returns every problem.
pub(crate) fn check_paths(paths: &[PathBuf]) -> Vec<DiscoverError> {
    paths
        .iter()
        .filter_map(|path| match fs_err::metadata(path) {
            Err(_) => Some(DiscoverError::Missing(path.clone())),
            Ok(meta) if meta.is_file() && !is_skill_file(path) => {
                Some(DiscoverError::NotSkillFile(path.clone()))
            }
            Ok(_) => None,
        })
        .collect()
}

fn is_skill_file(path: &Path) -> bool {
    path.file_name().and_then(FileName::classify).is_some()
}

/// Whether the SKILL.md at `path` is a fragment rather than a skill: it has no frontmatter and
/// its first non-blank line is an HTML comment, with no `---` frontmatter right after the
/// comments. Reads at most the first 4 KiB.
pub(crate) fn is_fragment(path: &Path) -> bool {
    use std::io::Read as _;
    let Ok(file) = crate::fsx::open_regular(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(4096);
    if file.take(4096).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if text.starts_with("---") || !text.starts_with("<!--") {
        return false;
    }
    // A banner comment above real frontmatter (`<!-- synced by … -->` then `---`) is a skill
    // whose frontmatter agents miss, which SK004 reports, not a fragment.
    let mut rest = text;
    while let Some(comment) = rest.strip_prefix("<!--") {
        let Some(end) = comment.find("-->") else {
            return true;
        };
        rest = comment[end + 3..].trim_start();
    }
    !rest.starts_with("---")
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Found {
    /// Skill files, sorted by path.
    pub skills: Vec<PathBuf>,
    /// Folders that hold a `skillpkg.toml`, as walked.
    pub config_dirs: HashSet<PathBuf>,
    /// Errors met on the way (unreadable folders and the like); the walk goes on past them.
    pub errors: Vec<DiscoverError>,
    /// Every other file and symlink seen, when asked for ([`walk_with_files`]); unsorted.
    pub files: Vec<PathBuf>,
    /// The skill files that are symbolic links (the walk does not follow links to folders, so
    /// only these can be a skill reached twice).
    pub links: HashSet<PathBuf>,
}

/// Walks `paths` on `threads` threads and returns every skill file (sorted by path) and every
/// folder holding a `skillpkg.toml`.
pub fn walk(paths: &[PathBuf], threads: usize) -> Found {
    walk_inner(paths, threads, false)
}

/// [`walk`], also collecting every other file it passes (what `lint` checks besides SKILL.md).
pub(crate) fn walk_with_files(paths: &[PathBuf], threads: usize) -> Found {
    walk_inner(paths, threads, true)
}

fn walk_inner(paths: &[PathBuf], threads: usize, files: bool) -> Found {
    if paths.is_empty() {
        return Found::default();
    }
    // The walker reads ignore files itself, in every folder it enters and above the paths it
    // starts from: one that is a FIFO or a device would hang it or fill memory.
    let mut refused = Vec::new();
    let mut usable = Vec::new();
    for path in paths {
        let folder = if path.is_dir() {
            path.as_path()
        } else {
            path.parent().unwrap_or(Path::new("."))
        };
        match crate::fsx::unsafe_ignore_file_above(folder) {
            Some(error) => refused.push(DiscoverError::IgnoreFile(error)),
            None => usable.push(path.clone()),
        }
    }
    let Some((first, rest)) = usable.split_first() else {
        return Found {
            errors: refused,
            ..Found::default()
        };
    };
    let skipped = std::sync::Arc::new(Mutex::new(refused));
    let record = skipped.clone();
    let mut builder = WalkBuilder::new(first);
    for path in rest {
        builder.add(path);
    }
    builder
        .hidden(false)
        .ignore(false)
        .git_global(false)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .parents(true)
        .follow_links(false)
        .threads(threads)
        .filter_entry(move |entry| {
            let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
            if is_dir
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| SKIPPED_DIRS.contains(&name))
            {
                return false;
            }
            if is_dir && let Some(error) = crate::fsx::unsafe_ignore_file(entry.path()) {
                record
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(DiscoverError::IgnoreFile(error));
                return false;
            }
            true
        });
    let sink = Mutex::new(Found::default());
    let roots: Vec<PathBuf> = usable.clone();
    if threads <= 1 {
        // One skill, say: the walk on this thread, with no workers to start and join.
        let mut visitor = Visitor {
            sink: &sink,
            found: Found::default(),
            files,
            roots: &roots,
        };
        for entry in builder.build() {
            visitor.visit(entry);
        }
    } else {
        builder.build_parallel().visit(&mut VisitorBuilder {
            sink: &sink,
            files,
            roots: &roots,
        });
    }
    let mut found = sink.into_inner().unwrap_or_else(PoisonError::into_inner);
    found
        .errors
        .append(&mut skipped.lock().unwrap_or_else(PoisonError::into_inner));
    found.skills = found.skills.into_iter().map(tidy).collect();
    found.skills.sort();
    found.config_dirs = found.config_dirs.into_iter().map(tidy).collect();
    found.files = found.files.into_iter().map(tidy).collect();
    found
}

/// Makes one [`Visitor`] per walker thread.
struct VisitorBuilder<'a> {
    sink: &'a Mutex<Found>,
    files: bool,
    roots: &'a [PathBuf],
}

impl<'s> ParallelVisitorBuilder<'s> for VisitorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            sink: self.sink,
            found: Found::default(),
            files: self.files,
            roots: self.roots,
        })
    }
}

/// One walker thread's findings, handed over once when the thread is done.
struct Visitor<'a> {
    sink: &'a Mutex<Found>,
    found: Found,
    files: bool,
    roots: &'a [PathBuf],
}

impl ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> WalkState {
        match entry {
            Ok(entry) => {
                if entry.file_type().is_none_or(|kind| kind.is_dir()) {
                    return WalkState::Continue;
                }
                if is_skill_file(entry.path()) {
                    if in_test_data(entry.path(), self.roots) {
                        return WalkState::Continue;
                    }
                    if entry.path_is_symlink() {
                        self.found.links.insert(tidy(entry.path().to_path_buf()));
                    }
                    self.found.skills.push(entry.into_path());
                } else {
                    if entry.file_name() == CONFIG_FILE {
                        let dir = entry.path().parent().unwrap_or(Path::new("."));
                        self.found.config_dirs.insert(dir.to_path_buf());
                    }
                    if self.files {
                        self.found.files.push(entry.into_path());
                    }
                }
            }
            Err(error) => self.found.errors.push(DiscoverError::Walk(error)),
        }
        WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let mut sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
        sink.skills.append(&mut self.found.skills);
        sink.files.append(&mut self.found.files);
        sink.config_dirs.extend(self.found.config_dirs.drain());
        sink.links.extend(self.found.links.drain());
        sink.errors.append(&mut self.found.errors);
    }
}

/// Removes a leading `./` so that paths print the way people type them.
fn tidy(path: PathBuf) -> PathBuf {
    match path.strip_prefix(".") {
        Ok(rest) if !rest.as_os_str().is_empty() => rest.to_path_buf(),
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(root: &Path) -> Vec<String> {
        let found = walk(&[root.to_path_buf()], 2);
        // The walk on one thread finds the same.
        let alone = walk(&[root.to_path_buf()], 1);
        assert_eq!(alone.skills, found.skills);
        assert_eq!(alone.config_dirs, found.config_dirs);
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        let mut out: Vec<String> = found
            .skills
            .into_iter()
            .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn finds_hidden_skills_and_skips_vcs_dependencies_and_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for dir in [
            ".claude/skills/a",
            ".git/x",
            "node_modules/pkg",
            "build/gen",
            "skills/b",
            "skills/c",
        ] {
            fs_err::create_dir_all(root.join(dir)).unwrap();
        }
        for file in [
            ".claude/skills/a/SKILL.md",
            ".git/x/SKILL.md",
            "node_modules/pkg/SKILL.md",
            "build/gen/SKILL.md",
            "skills/b/skill.md",
            "skills/c/SKILL.md",
            "skills/c/README.md",
        ] {
            fs_err::write(root.join(file), "---\n---\n").unwrap();
        }
        fs_err::write(root.join(".gitignore"), "build/\n").unwrap();
        assert_eq!(
            found(root),
            [
                ".claude/skills/a/SKILL.md",
                "skills/b/skill.md",
                "skills/c/SKILL.md"
            ]
        );
    }

    #[test]
    fn skill_files_in_test_data_are_no_skills_unless_walked_from_there() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for dir in [
            "skills/a",
            "tools/test-fixtures/broken",
            "skills/a/tests/fixtures/x",
        ] {
            fs_err::create_dir_all(root.join(dir)).unwrap();
            fs_err::write(root.join(dir).join("SKILL.md"), "---\n---\n").unwrap();
        }
        assert_eq!(found(root), ["skills/a/SKILL.md"]);
        // Walked from inside, or from the folder itself, a fixture is checked.
        let inside = root.join("tools/test-fixtures");
        assert_eq!(found(&inside), ["broken/SKILL.md"]);
        let fixture = root.join("skills/a/tests/fixtures/x");
        assert_eq!(found(&fixture), ["SKILL.md"]);
    }

    #[test]
    fn a_banner_above_the_frontmatter_is_no_fragment() {
        let tmp = tempfile::tempdir().unwrap();
        let file = |text: &str| {
            let path = tmp.path().join("SKILL.md");
            fs_err::write(&path, text).unwrap();
            is_fragment(&path)
        };
        assert!(file("<!--flavor:studio-->\nOnly the parts to splice in.\n"));
        assert!(!file(
            "<!-- Synced by a script. -->\n---\nname: x\ndescription: y\n---\n"
        ));
        assert!(!file("<!-- a --> <!-- b -->\n\n---\nname: x\n---\n"));
        assert!(!file("---\nname: x\n---\n"));
    }

    #[test]
    fn paths_are_checked_before_walking() {
        let tmp = tempfile::tempdir().unwrap();
        let readme = tmp.path().join("README.md");
        fs_err::write(&readme, "x").unwrap();
        let errors = check_paths(&[tmp.path().join("nope"), readme, tmp.path().to_path_buf()]);
        assert_eq!(errors.len(), 2);
        assert!(matches!(errors[0], DiscoverError::Missing(_)));
        assert!(matches!(errors[1], DiscoverError::NotSkillFile(_)));
    }

    #[test]
    fn tidy_strips_dot_slash() {
        assert_eq!(
            tidy(PathBuf::from("./a/SKILL.md")),
            PathBuf::from("a/SKILL.md")
        );
        assert_eq!(tidy(PathBuf::from(".")), PathBuf::from("."));
        assert_eq!(tidy(PathBuf::from(".claude/x")), PathBuf::from(".claude/x"));
    }
}
