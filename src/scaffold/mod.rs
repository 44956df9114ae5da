//! Skill templates (`templates/`, embedded at build time) and rendering them into files.
//!
//! A template is a folder `templates/<name>/` with a `template.toml` (its one-line summary and
//! the resource folders it creates by default), a `SKILL.md`, and optionally its own
//! `scripts/`, `references/` and `assets/`. A resource folder the template does not have comes
//! from `templates/_common/`, so every template can create every folder. `partials/` holds text
//! that `{{> name}}` inserts, looked up in the template first, then in `_common`. The syntax is
//! in [`engine`].
//!
//! Rendering only produces file contents; writing them is the `init` command's job.

pub mod engine;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/templates.rs"));
}

/// The template `skillpkg init` uses unless told otherwise.
pub(crate) const DEFAULT_TEMPLATE: &str = "basic";

/// The folder holding what templates share.
const COMMON: &str = "_common";

/// A resource folder a skill can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum Resource {
    /// `scripts/`: code the agent runs.
    Scripts,
    /// `references/`: documents the agent reads when it needs them.
    References,
    /// `assets/`: files the agent uses by path (templates, images), without reading them whole.
    Assets,
}

impl Resource {
    pub const ALL: [Self; 3] = [Self::Scripts, Self::References, Self::Assets];

    /// The folder name, which is also the name used on the command line and in templates.
    pub fn folder(self) -> &'static str {
        match self {
            Self::Scripts => "scripts",
            Self::References => "references",
            Self::Assets => "assets",
        }
    }
}

/// An embedded template.
#[derive(Debug)]
pub struct Template {
    pub name: &'static str,
    /// One line: what the template is for.
    pub summary: String,
    /// The resource folders it creates unless `--resources` says otherwise.
    pub resources: Vec<Resource>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    summary: String,
    resources: Vec<String>,
}

/// Every template, by name. Embedded templates are checked by the test suite, so a malformed
/// one is a build defect and panics here.
pub fn templates() -> &'static [Template] {
    static TEMPLATES: OnceLock<Vec<Template>> = OnceLock::new();
    TEMPLATES.get_or_init(|| {
        embedded::FILES
            .iter()
            .filter_map(|(path, text)| {
                let name = path.strip_suffix("/template.toml")?;
                let manifest: Manifest = toml::from_str(text)
                    .unwrap_or_else(|error| panic!("templates/{path}: {error}"));
                let resources = manifest
                    .resources
                    .iter()
                    .map(|folder| {
                        Resource::ALL
                            .into_iter()
                            .find(|resource| resource.folder() == folder)
                            .unwrap_or_else(|| {
                                panic!("templates/{path}: unknown resource {folder}")
                            })
                    })
                    .collect();
                Some(Template {
                    name,
                    summary: manifest.summary,
                    resources,
                })
            })
            .collect()
    })
}

/// The template called `name`.
pub fn find(name: &str) -> Option<&'static Template> {
    templates().iter().find(|template| template.name == name)
}

/// What a skill is generated from.
#[derive(Debug, Clone)]
pub struct Values {
    pub name: String,
    pub description: String,
    pub license: Option<String>,
    pub year: i32,
    pub resources: Vec<Resource>,
}

/// A generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// Relative to the skill folder, with `/` separators.
    pub path: String,
    pub contents: String,
    /// Whether to mark it executable: it starts with a shebang.
    pub executable: bool,
}

/// A template that does not render; always a defect in `templates/`.
#[derive(Debug, thiserror::Error)]
#[error("templates/{path}: {source}")]
pub struct RenderError {
    pub path: String,
    pub source: engine::Error,
}

/// The title used in headings: `pdf-form-filler` → `Pdf form filler`.
pub fn title(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Renders `template` with `values`: SKILL.md plus one folder per chosen resource, sorted by
/// path.
pub fn render(template: &Template, values: &Values) -> Result<Vec<File>, RenderError> {
    let mut cx = engine::Context::default();
    cx.values.insert("name", Some(values.name.clone()));
    cx.values.insert("title", Some(title(&values.name)));
    cx.values
        .insert("description", Some(values.description.clone()));
    cx.values.insert("license", values.license.clone());
    cx.values.insert("year", Some(values.year.to_string()));
    for resource in Resource::ALL {
        cx.flags
            .insert(resource.folder(), values.resources.contains(&resource));
    }
    cx.flags.insert("resources", !values.resources.is_empty());
    cx.flags.insert("license", values.license.is_some());
    let find_partial = |name: &str| {
        let file = format!("partials/{name}.md");
        source(template.name, &file).or_else(|| source(COMMON, &file))
    };
    cx.partials = Some(&find_partial);

    let mut sources: BTreeMap<String, (&str, &str)> = BTreeMap::new();
    sources.insert(
        "SKILL.md".to_owned(),
        (
            template.name,
            source(template.name, "SKILL.md").unwrap_or_default(),
        ),
    );
    for resource in &values.resources {
        let folder = resource.folder();
        let own = files_in(template.name, folder);
        let files = if own.is_empty() {
            files_in(COMMON, folder)
        } else {
            own
        };
        for (path, text) in files {
            let from = if path.starts_with(COMMON) {
                COMMON
            } else {
                template.name
            };
            let relative = path[from.len() + 1..].to_owned();
            sources.insert(relative, (from, text));
        }
    }

    sources
        .into_iter()
        .map(|(path, (from, text))| {
            let contents =
                engine::render(&text.replace("\r\n", "\n"), &cx).map_err(|source| RenderError {
                    path: format!("{from}/{path}"),
                    source,
                })?;
            Ok(File {
                executable: contents.starts_with("#!"),
                path,
                contents,
            })
        })
        .collect()
}

fn source(template: &str, file: &str) -> Option<&'static str> {
    embedded::FILES
        .iter()
        .find(|(path, _)| {
            path.strip_prefix(template)
                .and_then(|rest| rest.strip_prefix('/'))
                == Some(file)
        })
        .map(|(_, text)| *text)
}

/// The embedded files under `templates/<template>/<folder>/`, as (path, text).
fn files_in(template: &str, folder: &str) -> Vec<(&'static str, &'static str)> {
    let prefix = format!("{template}/{folder}/");
    embedded::FILES
        .iter()
        .filter(|(path, _)| path.starts_with(&prefix))
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_has_a_skill_md_and_a_summary() {
        let names: Vec<&str> = templates().iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            ["basic", "reference", "script", "template-fill", "workflow"]
        );
        for template in templates() {
            assert!(
                source(template.name, "SKILL.md").is_some(),
                "{}",
                template.name
            );
            assert!(!template.summary.is_empty());
        }
        assert!(find(DEFAULT_TEMPLATE).is_some());
    }

    #[test]
    fn every_resource_folder_has_a_common_example() {
        for resource in Resource::ALL {
            assert_eq!(files_in(COMMON, resource.folder()).len(), 1, "{resource:?}");
        }
    }

    #[test]
    fn titles_are_sentence_case() {
        assert_eq!(title("pdf-form-filler"), "Pdf form filler");
        assert_eq!(title("ñandú"), "Ñandú");
        assert_eq!(title("x"), "X");
    }
}
