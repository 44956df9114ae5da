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

/// One skill Claude Code found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// The SKILL.md to read.
    pub file: PathBuf,
    /// The skill's folder as Claude Code names it (its base directory).
    pub dir: PathBuf,
    /// The folder's name: the skill's name in the listing.
    pub name: String,
}

/// The skills Claude Code lists from the skills folder `root`, in no particular order: each
/// entry of `root` that is a folder (or a link to one) holding a regular `SKILL.md` (or a link
/// to one), named exactly so. Nothing deeper is looked at.
pub(crate) fn skills_in(root: &Path) -> Vec<Found> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.take(MAX_ENTRIES).flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let dir = entry.path();
        // `metadata` follows links: a link to a folder counts as the folder.
        if !std::fs::metadata(&dir).is_ok_and(|meta| meta.is_dir()) {
            continue;
        }
        let file = dir.join("SKILL.md");
        if !std::fs::metadata(&file).is_ok_and(|meta| meta.is_file()) {
            continue;
        }
        found.push(Found { file, dir, name });
    }
    found
}

/// The skills folder of the project or home folder `folder`, if there is one.
pub(crate) fn skills_dir_of(folder: &Path) -> Option<PathBuf> {
    let dir = folder.join(SKILLS_DIR);
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
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::create_dir_all(skills.join("d/SKILL.md")).unwrap();
        let mut names: Vec<String> = skills_in(skills).into_iter().map(|f| f.name).collect();
        names.sort();
        assert_eq!(names, ["a"]);
    }
}
