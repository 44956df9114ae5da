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
/// within one Claude Code plugin, or among the skills outside any plugin: Claude Code names a
/// plugin's skills `plugin:name`, so two plugins may each have a `setup`.
pub(crate) fn check_duplicate_names<T: AsChecked>(checked: &mut [T]) {
    let mut first_by_name: HashMap<(Option<std::path::PathBuf>, String), usize> = HashMap::new();
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
        let key = (crate::check::plugin_of(&item.skill.path), name);
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
