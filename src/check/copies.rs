//! Copies of one skill are one skill.
//!
//! Repositories ship the same skill several times: a symbolic link farm
//! (`.gemini/skills/pdf/SKILL.md -> ../../../skills/pdf/SKILL.md`), an install copy beside its
//! source (`skills/pdf` and `.agents/skills/pdf`), a copy in a plugin beside a standalone one.
//! Each copy is loaded by a different agent, or by none, so they clash with nothing; and the
//! same text checked once per copy would report each problem once per copy. So a skill file
//! reached twice (through a link) is checked once, and so is the same `SKILL.md` in a folder
//! another agent loads ([`crate::check::load_group`]). Two identical skills that one agent
//! loads together are both kept: that agent sees both, and `duplicate-name` says so.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::check::AsChecked;

/// For each skill of `checked`, the index of the skill it is a copy of (`None` for a skill in
/// its own right). `links` holds the skill files the walk found to be symbolic links.
pub(crate) fn copies_of<T: AsChecked>(
    checked: &[T],
    links: &std::collections::HashSet<PathBuf>,
) -> Vec<Option<usize>> {
    let mut of = vec![None; checked.len()];
    let path = |index: usize| checked[index].checked().skill.path.as_path();
    let linked = |index: usize| links.contains(path(index));
    // Which copy stands for the others: a link's target rather than the link, then the one
    // fewest hidden folders deep (the source rather than an agent's install copy), then the
    // first in path order.
    let rank = |index: usize| (linked(index), hidden_depth(path(index)), index);

    // One file reached through links: only when some skill file is a link.
    if checked
        .iter()
        .any(|item| links.contains(&item.checked().skill.path))
    {
        let mut by_file: HashMap<FileKey, Vec<usize>> = HashMap::new();
        for index in 0..checked.len() {
            if let Some(key) = file_key(path(index)) {
                by_file.entry(key).or_default().push(index);
            }
        }
        for members in by_file.into_values().filter(|members| members.len() > 1) {
            let first = *members
                .iter()
                .min_by_key(|&&index| rank(index))
                .expect("two");
            for index in members.into_iter().filter(|&index| index != first) {
                of[index] = Some(first);
            }
        }
    }

    // The same bytes in another agent's folder.
    let mut by_digest: HashMap<&[u8; 32], Vec<usize>> = HashMap::new();
    for (index, item) in checked.iter().enumerate() {
        let skill = &item.checked().skill;
        if of[index].is_none() && skill.link_target().is_none() {
            by_digest.entry(skill.digest()).or_default().push(index);
        }
    }
    for members in by_digest.into_values().filter(|members| members.len() > 1) {
        let first = *members
            .iter()
            .min_by_key(|&&index| rank(index))
            .expect("two");
        let home = crate::check::load_group(path(first));
        for index in members {
            if index != first && crate::check::load_group(path(index)) != home {
                of[index] = Some(first);
            }
        }
    }
    of
}

/// How many hidden folders (`.agents`, `.gemini`, …) the path passes through.
fn hidden_depth(path: &Path) -> usize {
    path.parent()
        .into_iter()
        .flat_map(Path::components)
        .filter(|part| {
            matches!(part, std::path::Component::Normal(name)
                if name.to_str().is_some_and(|name| name.starts_with('.') && name.len() > 1))
        })
        .count()
}

/// What makes two paths one file.
#[cfg(unix)]
type FileKey = (u64, u64);
#[cfg(not(unix))]
type FileKey = PathBuf;

/// The file `path` leads to, links followed; `None` when there is none.
#[cfg(unix)]
fn file_key(path: &Path) -> Option<FileKey> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = fs_err::metadata(path).ok()?;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_key(path: &Path) -> Option<FileKey> {
    std::fs::canonicalize(path).ok()
}

/// The skill files of `skills` that are links to another of them, each with the index of the
/// skill it is (the link's target, or the first of several links to one file). They are left
/// out before anything reads them: one file is checked once, and fixed once, through its own
/// path (a fix written to the link's path would replace the link with a copy).
pub(crate) fn linked_copies(
    skills: &[PathBuf],
    links: &std::collections::HashSet<PathBuf>,
) -> Vec<Option<usize>> {
    let mut of = vec![None; skills.len()];
    if !skills.iter().any(|path| links.contains(path)) {
        return of;
    }
    let rank = |index: usize| {
        (
            links.contains(&skills[index]),
            hidden_depth(&skills[index]),
            index,
        )
    };
    let mut by_file: HashMap<FileKey, Vec<usize>> = HashMap::new();
    for (index, path) in skills.iter().enumerate() {
        if let Some(key) = file_key(path) {
            by_file.entry(key).or_default().push(index);
        }
    }
    for members in by_file.into_values().filter(|members| members.len() > 1) {
        let first = *members
            .iter()
            .min_by_key(|&&index| rank(index))
            .expect("two");
        for index in members.into_iter().filter(|&index| index != first) {
            of[index] = Some(first);
        }
    }
    of
}

/// Removes the copies from `items`, returning each copy's path with the path of the skill it
/// copies.
pub(crate) fn drop_copies<T: AsChecked>(
    items: &mut Vec<T>,
    links: &std::collections::HashSet<PathBuf>,
) -> Vec<(PathBuf, PathBuf)> {
    let of = copies_of(items, links);
    if of.iter().all(Option::is_none) {
        return Vec::new();
    }
    let copied: Vec<(PathBuf, PathBuf)> = of
        .iter()
        .enumerate()
        .filter_map(|(index, original)| {
            original.map(|original| {
                (
                    items[index].checked().skill.path.clone(),
                    items[original].checked().skill.path.clone(),
                )
            })
        })
        .collect();
    let mut index = 0;
    items.retain(|_| {
        let keep = of[index].is_none();
        index += 1;
        keep
    });
    copied
}

/// Splits `items` into the skills in their own right and the copies (in their order), with
/// each copy's path beside the path of the skill it copies.
pub(crate) fn split_copies<T: AsChecked>(
    items: Vec<T>,
    links: &std::collections::HashSet<PathBuf>,
) -> (Vec<T>, Vec<T>, Vec<(PathBuf, PathBuf)>) {
    let of = copies_of(&items, links);
    let pairs: Vec<(PathBuf, PathBuf)> = of
        .iter()
        .enumerate()
        .filter_map(|(index, original)| {
            original.map(|original| {
                (
                    items[index].checked().skill.path.clone(),
                    items[original].checked().skill.path.clone(),
                )
            })
        })
        .collect();
    let (mut kept, mut copied) = (Vec::new(), Vec::new());
    for (item, original) in items.into_iter().zip(of) {
        match original {
            None => kept.push(item),
            Some(_) => copied.push(item),
        }
    }
    (kept, copied, pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Checked;
    use crate::skill::Skill;

    fn checked(path: &str, text: &str) -> Checked {
        let path = PathBuf::from(path);
        let dir = path
            .parent()
            .and_then(Path::file_name)
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        Checked {
            skill: Skill::from_bytes(path, dir, text.as_bytes().to_vec()),
            targets: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    #[test]
    fn the_same_skill_in_another_agents_folder_is_a_copy_of_its_source() {
        let text = "---\nname: pdf\ndescription: Fills PDF forms.\n---\n";
        let items = [
            checked("repo/.agents/skills/pdf/SKILL.md", text),
            checked("repo/.gemini/skills/pdf/SKILL.md", text),
            checked("repo/skills/pdf/SKILL.md", text),
            checked("repo/skills/other/SKILL.md", "---\nname: other\n---\n"),
        ];
        let of = copies_of(&items, &std::collections::HashSet::new());
        // The source, outside any hidden folder, stands for its copies.
        assert_eq!(of, [Some(2), Some(2), None, None]);
    }

    #[test]
    fn identical_skills_one_agent_loads_together_are_both_kept() {
        let text = "---\nname: pdf\ndescription: Fills PDF forms.\n---\n";
        let items = [
            checked("repo/.claude/skills/pdf/SKILL.md", text),
            checked("repo/.claude/skills/pdf-copy/SKILL.md", text),
        ];
        let of = copies_of(&items, &std::collections::HashSet::new());
        assert_eq!(of, [None, None]);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_another_skill_file_is_that_skill() {
        let tmp = tempfile::tempdir().unwrap();
        let source = tmp.path().join("skills/pdf");
        let farm = tmp.path().join(".gemini/skills/pdf");
        fs_err::create_dir_all(&source).unwrap();
        fs_err::create_dir_all(&farm).unwrap();
        fs_err::write(source.join("SKILL.md"), "---\nname: pdf\n---\n").unwrap();
        std::os::unix::fs::symlink("../../../skills/pdf/SKILL.md", farm.join("SKILL.md")).unwrap();
        let link = farm.join("SKILL.md");
        let mut items = vec![
            checked(link.to_str().unwrap(), "---\nname: pdf\n---\n"),
            checked(
                source.join("SKILL.md").to_str().unwrap(),
                "---\nname: pdf\n---\n",
            ),
        ];
        let links = std::collections::HashSet::from([link.clone()]);
        let dropped = drop_copies(&mut items, &links);
        assert_eq!(dropped, [(link, source.join("SKILL.md"))]);
        assert_eq!(items.len(), 1);
    }
}
