//! Rules across the whole set of checked skills.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

use crate::check::AsChecked;
use crate::check::diagnostic::Diagnostic;
use crate::check::rule::DUPLICATE_NAME;

/// Flags every skill whose name was already taken by an earlier skill in the set.
///
/// A skill's name is its frontmatter `name` when that is text, otherwise its folder name (which
/// is what agents fall back to). Names are compared after NFKC, as the name rules compare them,
/// among the skills one agent loads together ([`crate::check::load_group`]): one plugin (Claude
/// Code names a plugin's skills `plugin:name`, so two plugins may each have a `setup`), one
/// agent's skills folder, or one catalog folder. Copies of a skill for several agents clash
/// with nothing.
pub(crate) fn check_duplicate_names<T: AsChecked>(checked: &mut [T]) {
    let mut first_by_name: HashMap<(std::path::PathBuf, String), usize> = HashMap::new();
    let mut found = Vec::new();
    for (index, item) in checked.iter().enumerate() {
        let item = item.checked();
        // A SKILL.md without frontmatter is reported as such (SK004); it is no skill to clash
        // with (build-time fragments are often named SKILL.md).
        let has_frontmatter = item.skill.reading().is_some_and(|reading| {
            matches!(reading.split, crate::skill::frontmatter::Split::Found(_))
        });
        if !has_frontmatter {
            continue;
        }
        let field = item
            .skill
            .reading()
            .and_then(|reading| reading.doc.as_ref())
            .and_then(|doc| doc.name.as_deref())
            .filter(|field| {
                field
                    .value
                    .as_ref()
                    .is_ok_and(|name| !name.trim().is_empty())
            });
        let (name, span) = match field {
            Some(field) => (
                field
                    .value
                    .as_deref()
                    .unwrap_or_default()
                    .trim()
                    .nfkc()
                    .collect::<String>(),
                Some(field.span.clone()),
            ),
            None => (item.skill.dir_name.nfkc().collect(), None),
        };
        let key = (crate::check::load_group(&item.skill.path), name);
        match first_by_name.get(&key) {
            Some(&first) => found.push((index, first, key.1, span)),
            None => {
                first_by_name.insert(key, index);
            }
        }
    }
    for (index, first, name, span) in found {
        let first_path = checked[first].checked().skill.path.display().to_string();
        let item = checked[index].checked_mut();
        let mut diagnostic = Diagnostic::error(
            &DUPLICATE_NAME,
            format!("another skill is also named `{name}`: {first_path}"),
        )
        .help("rename one of them (and its folder); agents identify skills by name and drop or shadow one");
        if let Some(span) = span {
            diagnostic = diagnostic.at(span).label("same name as another skill");
        }
        diagnostic.targets.clone_from(&item.targets);
        item.diagnostics.push(diagnostic);
    }
}

/// How many skills of one load group must share an unknown key for it to be the collection's
/// own convention (`source:` or `author:` on every skill of a catalog) rather than a slip.
const HOUSE_KEY_SKILLS: usize = 3;

/// Drops `unknown-key` warnings about a key that is no misspelling and that at least
/// [`HOUSE_KEY_SKILLS`] skills one agent loads together ([`crate::check::load_group`]) use:
/// a convention the collection keeps on purpose (its own validator may require it), which
/// every agent ignores. A misspelt key (`descripton`) is reported however many skills share it.
pub(crate) fn drop_house_keys<T: AsChecked>(checked: &mut [T]) {
    let own_key = |item: &crate::check::Checked, diagnostic: &Diagnostic| -> Option<String> {
        // Only where agents ignore it: a target that refuses the skill for it (skills-ref,
        // claude.ai) keeps it an error, however many skills share it.
        if !std::ptr::eq(diagnostic.rule, &raw const crate::check::rule::UNKNOWN_KEY)
            || diagnostic.label.as_deref() != Some(super::keys::OWN_KEY_LABEL)
            || diagnostic.severity != crate::check::rule::Severity::Warning
        {
            return None;
        }
        let span = diagnostic.span.clone()?;
        let source = item.skill.source().ok()?;
        source.text().get(span).map(str::to_owned)
    };
    let mut users: HashMap<(std::path::PathBuf, String), usize> = HashMap::new();
    let groups: Vec<std::path::PathBuf> = checked
        .iter()
        .map(|item| crate::check::load_group(&item.checked().skill.path))
        .collect();
    for (item, group) in checked.iter().zip(&groups) {
        let item = item.checked();
        let mut keys: Vec<String> = item
            .diagnostics
            .iter()
            .filter_map(|diagnostic| own_key(item, diagnostic))
            .collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            *users.entry((group.clone(), key)).or_default() += 1;
        }
    }
    if users.values().all(|&count| count < HOUSE_KEY_SKILLS) {
        return;
    }
    for (item, group) in checked.iter_mut().zip(groups) {
        let item = item.checked_mut();
        let keep: Vec<bool> = item
            .diagnostics
            .iter()
            .map(|diagnostic| {
                own_key(item, diagnostic).is_none_or(|key| {
                    users.get(&(group.clone(), key)).copied().unwrap_or(0) < HOUSE_KEY_SKILLS
                })
            })
            .collect();
        let mut index = 0;
        item.diagnostics.retain(|_| {
            let kept = keep[index];
            index += 1;
            kept
        });
    }
}
