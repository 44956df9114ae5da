//! Claude Code plugin marketplaces: a repository with `.claude-plugin/marketplace.json` listing
//! plugins, each a folder with `.claude-plugin/plugin.json` and `skills/<skill>/SKILL.md`.
//!
//! The format and the rules applied here are in `docs/research/publishing.md` §2 (Claude Code's
//! documentation as of 2026-08 and runs of Claude Code 2.1.332 on 2026-12-01):
//!
//! - marketplace and plugin names are kebab-case; a marketplace may not take a name Anthropic
//!   reserves (`agent-skills`, `claude-plugins-official`, …), which Claude Code refuses when
//!   the marketplace is added (not when it is validated);
//! - a relative `source` starts with `./` and never contains `..`;
//! - the version Claude Code installs is `plugin.json`'s, else the entry's: skillpkg writes the
//!   same one to both, and installed plugins are cached by version, so a version's contents
//!   never change once published (a change needs a new version);
//! - an `archive` source is a zip over https with its sha256.
//!
//! `marketplace.json` and an existing `plugin.json` are edited in place
//! ([`super::json_edit`]): only the plugin's entry (or the fields skillpkg sets) change, every
//! other byte stays as the author wrote it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::json_edit;
use super::{Error, Outcome, Placed, Prepared, is_kebab_case};

/// Where the marketplace's manifest lives, inside its folder.
pub const MANIFEST: &str = ".claude-plugin/marketplace.json";

/// Marketplace names Claude Code reserves for Anthropic (its documentation, 2026-08).
pub const RESERVED_NAMES: [&str; 16] = [
    "claude-code-marketplace",
    "claude-code-plugins",
    "claude-plugins-official",
    "claude-plugins-community",
    "claude-community",
    "anthropic-marketplace",
    "anthropic-plugins",
    "agent-skills",
    "anthropic-agent-skills",
    "knowledge-work-plugins",
    "life-sciences",
    "claude-for-legal",
    "claude-for-financial-services",
    "financial-services-plugins",
    "first-party-plugins",
    "healthcare",
];

/// Names Claude Desktop refuses as well.
const DESKTOP_RESERVED: [&str; 3] = ["org", "org-provisioned", "unknown"];

/// Whether Claude Code would refuse `name` for a marketplace not hosted by Anthropic: a
/// reserved name, or one that impersonates Anthropic ("official" or "anthropic" with "claude"
/// or "plugins", such as `official-claude-plugins` or `anthropic-plugins-v2`).
pub fn reserved(name: &str) -> bool {
    let words: Vec<&str> = name.split('-').collect();
    let has = |word: &str| words.contains(&word);
    RESERVED_NAMES.contains(&name)
        || DESKTOP_RESERVED.contains(&name)
        || has("anthropic")
        || (has("official") && (has("claude") || has("plugins")))
}

/// How the plugin is referenced from `marketplace.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `"./plugins/<plugin>"`: the plugin folder in the marketplace repository.
    Path,
    /// `{"source":"archive","url":…,"sha256":…}`: a zip of the plugin written to
    /// `archives/<plugin>-<version>.zip`, to be served at `base_url`.
    Archive { base_url: String },
}

/// What to publish, and where.
#[derive(Clone, Debug)]
pub struct Options {
    /// The marketplace repository's working copy.
    pub dir: PathBuf,
    /// The plugin the skills go in.
    pub plugin: String,
    /// The plugin's version.
    pub version: semver::Version,
    /// The marketplace's name, when `marketplace.json` is created.
    pub name: Option<String>,
    /// The owner's name, when `marketplace.json` is created.
    pub owner: Option<String>,
    pub source: Source,
    /// Commit what was written and tag it `{plugin}--v{version}` when `dir` is in a git
    /// repository.
    pub git: bool,
    pub dry_run: bool,
}

/// What a publish did (or, for a dry run, would do).
#[derive(Clone, Debug)]
pub struct Report {
    pub outcome: Outcome,
    /// The marketplace's name.
    pub marketplace: String,
    /// Whether `marketplace.json` was created.
    pub created: bool,
    /// Whether the plugin was already listed.
    pub existed: bool,
    /// `marketplace.json` before (empty when created) and after.
    pub before: String,
    pub after: String,
    /// The files and folders written, relative to the marketplace folder.
    pub written: Vec<String>,
    /// The tag created, and the command that pushes it; `None` outside git or with `git: false`.
    pub tag: Option<Tag>,
}

/// A git tag made for the publish.
#[derive(Clone, Debug)]
pub struct Tag {
    pub name: String,
    /// The commit made for the publish, or `None` when nothing needed committing.
    pub commit: Option<String>,
    pub push: String,
    /// The tag existed already, on another commit, and was left there.
    pub elsewhere: bool,
}

/// A zip of the plugin: its path in the marketplace and its bytes.
type Archive = (PathBuf, Vec<u8>);

/// The marketplace as read: its text and what skillpkg needs from it.
struct Manifest {
    text: String,
    name: String,
    /// The plugin's entry, if listed.
    entry: Option<serde_json::Map<String, Value>>,
    /// Whether it has a `description` (or `metadata.description`).
    described: bool,
}

/// Publishes `skills` as one plugin of the marketplace at `options.dir`.
pub fn publish(skills: &[Prepared], options: &Options) -> Result<Report, Error> {
    check_names(skills, options)?;
    let manifest_path = options.dir.join(MANIFEST);
    let existing = read_manifest(&manifest_path, &options.plugin)?;
    let created = existing.is_none();
    let manifest = match existing {
        Some(manifest) => manifest,
        None => new_manifest(options)?,
    };
    if reserved(&manifest.name) {
        return Err(Error::refused(
            format!(
                "{}: the marketplace name `{}` is reserved for Anthropic's marketplaces; Claude Code refuses to add it",
                manifest_path.display(),
                manifest.name
            ),
            "rename the marketplace (its `name` in marketplace.json)",
        ));
    }
    let relative = plugin_folder(manifest.entry.as_ref(), options, &manifest_path)?;
    let plugin_dir = options.dir.join(&relative);
    super::check_no_links(&options.dir, &relative)?;
    let plugin_json_path = plugin_dir.join(".claude-plugin/plugin.json");
    let is_archive = matches!(options.source, Source::Archive { .. });
    // An archive source's plugin.json lives in the zip only.
    let plugin_json = if is_archive {
        None
    } else {
        super::read_json_text(&plugin_json_path)?
    };
    let listed_version = listed_version(manifest.entry.as_ref(), plugin_json.as_deref())?;
    let plugin_json_after = plugin_manifest(plugin_json.as_deref(), skills, options, &manifest)?;
    let (archive, source) = archive_source(skills, options, &plugin_json_after, &relative)?;
    check_paths(skills, options, &relative, archive.as_ref())?;
    let same_contents = match &archive {
        Some((path, bytes)) => {
            crate::fsx::read_capped(&options.dir.join(path), bytes.len() as u64 + 1)
                .is_ok_and(|have| have == *bytes)
        }
        None => skills_match(&plugin_dir, skills)?,
    };
    check_version(listed_version.as_ref(), options, same_contents)?;
    let fields = entry_fields(skills, options, &manifest, source);
    let field_refs: Vec<(&str, &Value)> = fields.iter().map(|(key, value)| (*key, value)).collect();
    let (after, existed) = json_edit::upsert_element(
        &manifest.text,
        &["plugins"],
        "name",
        &options.plugin,
        &field_refs,
    )
    .map_err(|error| invalid_json(&manifest_path, &error))?;
    // `claude plugin validate --strict` fails a marketplace without a description.
    let after = if manifest.described {
        after
    } else {
        let description = Value::String(format!(
            "Agent Skills from {}",
            owner_name(&manifest).as_str().unwrap_or_default()
        ));
        json_edit::set_fields(&after, &[], &[("description", &description)])
            .map_err(|error| invalid_json(&manifest_path, &error))?
    };
    let unchanged = !created
        && after == manifest.text
        && same_contents
        && (is_archive || plugin_json.as_deref() == Some(plugin_json_after.as_str()));
    let mut report = Report {
        outcome: if unchanged {
            Outcome::Unchanged
        } else {
            Outcome::Published
        },
        marketplace: manifest.name.clone(),
        created,
        existed,
        before: if created {
            String::new()
        } else {
            manifest.text.clone()
        },
        after: after.clone(),
        written: Vec::new(),
        tag: None,
    };
    if options.dry_run {
        return Ok(report);
    }
    if !unchanged {
        report.written = write(
            skills,
            options,
            &relative,
            &plugin_json_after,
            archive.as_ref(),
            &after,
        )?;
    }
    if options.git && !unchanged {
        report.tag = git_tag(options, &report.written)?;
    }
    Ok(report)
}

/// Refuses a version the marketplace already lists with other contents, or one below it.
fn check_version(
    listed: Option<&semver::Version>,
    options: &Options,
    same_contents: bool,
) -> Result<(), Error> {
    if let Some(listed) = listed {
        if *listed == options.version && !same_contents {
            return Err(Error::refused(
                format!(
                    "plugin `{}` {} is already in the marketplace with other contents",
                    options.plugin, options.version
                ),
                "bump the version: Claude Code caches an installed plugin by version, so users of this version would never see the change",
            ));
        }
        if *listed > options.version {
            return Err(Error::refused(
                format!(
                    "the marketplace has plugin `{}` at {listed}, newer than {}",
                    options.plugin, options.version
                ),
                "publish a version above the one listed",
            ));
        }
    }
    Ok(())
}

/// Refuses names Claude Code would: a plugin and skills that are not kebab-case.
fn check_names(skills: &[Prepared], options: &Options) -> Result<(), Error> {
    if !is_kebab_case(&options.plugin) {
        return Err(Error::refused(
            format!(
                "`{}` cannot name a plugin: Claude Code wants kebab-case names (lowercase letters, digits and single hyphens, at most 64 characters)",
                options.plugin
            ),
            "pass --plugin NAME with a kebab-case name",
        ));
    }
    if let Some(name) = &options.name
        && !is_kebab_case(name)
    {
        return Err(Error::refused(
            format!("`{name}` cannot name a marketplace: Claude Code wants kebab-case names"),
            "pass --marketplace-name with a kebab-case name",
        ));
    }
    for skill in skills {
        if !is_kebab_case(&skill.name) {
            return Err(Error::refused(
                format!(
                    "`{}` cannot name a skill in a plugin: Claude Code wants kebab-case names",
                    skill.name
                ),
                "rename the skill (its folder and its `name`)",
            ));
        }
    }
    Ok(())
}

/// Reads `marketplace.json` when it exists: its name and the plugin's entry.
fn read_manifest(path: &Path, plugin: &str) -> Result<Option<Manifest>, Error> {
    let Some(text) = super::read_json_text(path)? else {
        return Ok(None);
    };
    let value: Value = serde_json::from_str(&text).map_err(|error| {
        Error::failed(
            format!(
                "{}:{}:{}: {error}",
                path.display(),
                error.line(),
                error.column()
            ),
            "fix the JSON, then publish again",
        )
    })?;
    let shape = |what: &str| {
        Error::failed(
            format!("{}: {what}", path.display()),
            "a marketplace.json needs `name`, `owner` and a `plugins` array (https://code.claude.com/docs/en/plugin-marketplaces)",
        )
    };
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| shape("`name` is missing or not a string"))?
        .to_owned();
    let plugins = value
        .get("plugins")
        .and_then(Value::as_array)
        .ok_or_else(|| shape("`plugins` is missing or not an array"))?;
    let mut entry = None;
    for plugin_entry in plugins {
        if plugin_entry.get("name").and_then(Value::as_str) == Some(plugin) {
            if entry.is_some() {
                return Err(shape(&format!("plugin `{plugin}` is listed twice")));
            }
            entry = plugin_entry.as_object().cloned();
        }
    }
    let described =
        value.get("description").is_some() || value.pointer("/metadata/description").is_some();
    Ok(Some(Manifest {
        text,
        name,
        entry,
        described,
    }))
}

/// A new `marketplace.json`: the name given (else the folder's, made kebab-case), the owner
/// given (else git's `user.name`), a description, no plugins yet.
fn new_manifest(options: &Options) -> Result<Manifest, Error> {
    let name = if let Some(name) = &options.name {
        name.clone()
    } else {
        let folder = std::path::absolute(&options.dir)?
            .file_name()
            .map(|name| name.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let kebab: String = folder
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|word| !word.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        if !is_kebab_case(&kebab) {
            return Err(Error::failed(
                format!(
                    "{} does not exist, and the folder's name cannot name a marketplace",
                    options.dir.join(MANIFEST).display()
                ),
                "pass --marketplace-name NAME (kebab-case)",
            ));
        }
        kebab
    };
    let owner = options
        .owner
        .clone()
        .or_else(|| git_config(&options.dir, "user.name"))
        .or_else(|| std::env::var("USER").ok().filter(|user| !user.is_empty()))
        .unwrap_or_else(|| name.clone());
    let value = json!({
        "name": name,
        "owner": { "name": owner },
        "description": format!("Agent Skills from {owner}, published with skillpkg"),
        "plugins": [],
    });
    let mut text = to_pretty(&value);
    text.push('\n');
    Ok(Manifest {
        text,
        name,
        entry: None,
        described: true,
    })
}

/// JSON with two-space indentation and the keys in the order given.
fn to_pretty(value: &Value) -> String {
    // serde_json's maps are sorted; the order of a new file's keys is written out by hand.
    let mut out = String::from("{\n");
    if let Some(object) = value.as_object() {
        let order = [
            "$schema",
            "name",
            "version",
            "description",
            "owner",
            "author",
            "plugins",
        ];
        let mut keys: Vec<&String> = object.keys().collect();
        keys.sort_by_key(|key| {
            order
                .iter()
                .position(|known| known == key)
                .unwrap_or(order.len())
        });
        for (index, key) in keys.iter().enumerate() {
            let rendered = serde_json::to_string_pretty(&object[key.as_str()]).unwrap_or_default();
            let rendered = rendered.replace('\n', "\n  ");
            let comma = if index + 1 == keys.len() { "" } else { "," };
            let _ = writeln!(
                out,
                "  {}: {rendered}{comma}",
                Value::String((*key).clone())
            );
        }
    }
    out.push('}');
    out
}

/// The plugin's folder relative to the marketplace: the entry's `./` source when it has one,
/// else `plugins/<plugin>`. A source that leaves the marketplace, or is not a local path, is
/// refused.
fn plugin_folder(
    entry: Option<&serde_json::Map<String, Value>>,
    options: &Options,
    manifest_path: &Path,
) -> Result<PathBuf, Error> {
    let default = PathBuf::from("plugins").join(&options.plugin);
    let Some(source) = entry.and_then(|entry| entry.get("source")) else {
        return Ok(default);
    };
    match source {
        Value::String(path) => {
            let Some(rest) = path.strip_prefix("./") else {
                return Err(Error::refused(
                    format!(
                        "{}: plugin `{}` has source `{path}`, which does not start with `./`",
                        manifest_path.display(),
                        options.plugin
                    ),
                    "make the source a path from the marketplace root such as ./plugins/NAME",
                ));
            };
            let relative = PathBuf::from(rest);
            if rest.split('/').any(|part| part == "..") || relative.is_absolute() {
                return Err(Error::refused(
                    format!(
                        "{}: plugin `{}` has source `{path}`, which contains `..`",
                        manifest_path.display(),
                        options.plugin
                    ),
                    "Claude Code refuses sources that leave the marketplace; point it inside",
                ));
            }
            Ok(relative)
        }
        Value::Object(object)
            if object.get("source").and_then(Value::as_str) == Some("archive") =>
        {
            Ok(default)
        }
        _ => Err(Error::refused(
            format!(
                "{}: plugin `{}` comes from another source ({}); skillpkg writes local and archive sources only",
                manifest_path.display(),
                options.plugin,
                serde_json::to_string(source).unwrap_or_default()
            ),
            "publish under another --plugin name, or change the entry's source to ./plugins/NAME",
        )),
    }
}

/// The version the marketplace lists for the plugin: `plugin.json`'s, which Claude Code
/// installs, else the entry's.
fn listed_version(
    entry: Option<&serde_json::Map<String, Value>>,
    plugin_json: Option<&str>,
) -> Result<Option<semver::Version>, Error> {
    let from_plugin = plugin_json
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .and_then(|value| {
            value
                .get("version")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    let from_entry = entry
        .and_then(|entry| entry.get("version"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(version) = from_plugin.or(from_entry) else {
        return Ok(None);
    };
    semver::Version::parse(&version).map(Some).map_err(|_| {
        Error::refused(
            format!("the marketplace lists the plugin at version `{version}`, which is not semver"),
            "fix the version in plugin.json and marketplace.json",
        )
    })
}

/// Whether every skill's folder in the plugin already holds exactly its files.
fn skills_match(plugin_dir: &Path, skills: &[Prepared]) -> Result<bool, Error> {
    for skill in skills {
        let dest = plugin_dir.join("skills").join(&skill.name);
        if !super::folder_matches(&dest, &Placed::of(skill, ""))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The plugin's description: the skill's for a plugin of one skill, else a list of them.
fn plugin_description(skills: &[Prepared]) -> String {
    if let [skill] = skills {
        return skill.description.clone();
    }
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    format!("Agent Skills: {}", names.join(", "))
}

/// `plugin.json` after the publish: an existing one with `name`, `version` (and `description`
/// when it has none) set, every other byte kept; else a new one.
fn plugin_manifest(
    existing: Option<&str>,
    skills: &[Prepared],
    options: &Options,
    manifest: &Manifest,
) -> Result<String, Error> {
    let version = Value::String(options.version.to_string());
    let name = Value::String(options.plugin.clone());
    if let Some(text) = existing {
        let value: Option<Value> = serde_json::from_str(text).ok();
        let mut fields = vec![("name", &name), ("version", &version)];
        let description = Value::String(plugin_description(skills));
        let has = |key: &str| value.as_ref().and_then(|value| value.get(key)).is_some();
        // `claude plugin validate --strict` warns when either is missing.
        if !has("description") {
            fields.push(("description", &description));
        }
        let author = json!({ "name": owner_name(manifest) });
        if !has("author") {
            fields.push(("author", &author));
        }
        return json_edit::set_fields(text, &[], &fields).map_err(|error| {
            Error::failed(
                format!("plugin.json: {error}"),
                "fix the JSON, then publish again",
            )
        });
    }
    let owner = owner_name(manifest);
    let value = json!({
        "$schema": "https://json.schemastore.org/claude-code-plugin-manifest.json",
        "name": options.plugin,
        "version": options.version.to_string(),
        "description": plugin_description(skills),
        "author": { "name": owner },
    });
    let mut text = to_pretty(&value);
    text.push('\n');
    Ok(text)
}

/// The marketplace owner's name, else the marketplace's.
fn owner_name(manifest: &Manifest) -> Value {
    serde_json::from_str::<Value>(&manifest.text)
        .ok()
        .and_then(|value| value.get("owner").cloned())
        .and_then(|owner| owner.get("name").cloned())
        .filter(Value::is_string)
        .unwrap_or_else(|| Value::String(manifest.name.clone()))
}

/// For `Source::Archive`: the zip's path in the marketplace and its bytes, and the entry's
/// source object; for `Source::Path`, the `./` path.
fn archive_source(
    skills: &[Prepared],
    options: &Options,
    plugin_json: &str,
    relative: &Path,
) -> Result<(Option<Archive>, Value), Error> {
    let Source::Archive { base_url } = &options.source else {
        // The folder the entry already names, else plugins/<plugin>.
        let path = relative.to_string_lossy().replace('\\', "/");
        let path = if path.is_empty() || path == "." {
            "./".to_owned()
        } else {
            format!("./{path}")
        };
        return Ok((None, Value::String(path)));
    };
    let scratch = tempfile::tempdir()?;
    let manifest = scratch.path().join("plugin.json");
    fs_err::write(&manifest, plugin_json)?;
    let mut files = vec![crate::pack::select::PackFile {
        path: ".claude-plugin/plugin.json".into(),
        source: manifest,
        size: plugin_json.len() as u64,
        executable: false,
    }];
    for skill in skills {
        files.extend(
            skill
                .files
                .iter()
                .map(|file| crate::pack::select::PackFile {
                    path: format!("skills/{}/{}", skill.name, file.path),
                    ..file.clone()
                }),
        );
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut bytes = Vec::new();
    let summary =
        crate::pack::archive::write(&mut bytes, "", &files, crate::parallel::cores(), &|_| {})?;
    let file_name = format!("{}-{}.zip", options.plugin, options.version);
    let url = format!("{}/{file_name}", base_url.trim_end_matches('/'));
    let source = json!({ "source": "archive", "url": url, "sha256": summary.sha256 });
    Ok((
        Some((PathBuf::from("archives").join(file_name), bytes)),
        source,
    ))
}

/// Refuses to write through a symbolic link, or into `.git`, anywhere below the marketplace.
fn check_paths(
    skills: &[Prepared],
    options: &Options,
    relative: &Path,
    archive: Option<&Archive>,
) -> Result<(), Error> {
    let mut paths = vec![PathBuf::from(MANIFEST)];
    if let Some((path, _)) = archive {
        paths.push(path.clone());
    } else {
        paths.push(relative.join(".claude-plugin/plugin.json"));
        for skill in skills {
            paths.push(relative.join("skills").join(&skill.name));
        }
    }
    for path in paths {
        super::check_no_links(&options.dir, &path)?;
    }
    Ok(())
}

/// The entry's fields skillpkg sets, in the order a new entry lists them.
fn entry_fields(
    skills: &[Prepared],
    options: &Options,
    manifest: &Manifest,
    source: Value,
) -> Vec<(&'static str, Value)> {
    let mut fields = vec![
        ("name", Value::String(options.plugin.clone())),
        ("source", source),
        ("description", Value::String(plugin_description(skills))),
        ("version", Value::String(options.version.to_string())),
    ];
    // An author's own description of an existing entry is kept.
    if manifest
        .entry
        .as_ref()
        .is_some_and(|entry| entry.contains_key("description"))
    {
        fields.retain(|(key, _)| *key != "description");
    }
    fields
}

/// Writes the skills' folders, `plugin.json`, the archive and `marketplace.json` (last, so a
/// run stopped half-way never lists what is not there). Returns what was written.
fn write(
    skills: &[Prepared],
    options: &Options,
    relative: &Path,
    plugin_json: &str,
    archive: Option<&Archive>,
    manifest: &str,
) -> Result<Vec<String>, Error> {
    let mut written = Vec::new();
    let show = |path: &Path| path.to_string_lossy().replace('\\', "/");
    if let Some((path, bytes)) = archive {
        let full = options.dir.join(path);
        fs_err::create_dir_all(crate::fsx::parent_or_dot(&full))?;
        crate::fsx::write_atomically(
            &full,
            bytes,
            ".skillpkg-",
            crate::fsx::Permissions::Mode(0o644),
        )?;
        written.push(show(path));
    } else {
        let plugin_dir = options.dir.join(relative);
        for skill in skills {
            let folder = relative.join("skills").join(&skill.name);
            super::replace_folder(
                &plugin_dir.join("skills").join(&skill.name),
                &Placed::of(skill, ""),
            )?;
            written.push(show(&folder));
        }
        let path = relative.join(".claude-plugin/plugin.json");
        let full = options.dir.join(&path);
        fs_err::create_dir_all(crate::fsx::parent_or_dot(&full))?;
        crate::fsx::write_atomically(
            &full,
            plugin_json.as_bytes(),
            ".skillpkg-",
            crate::fsx::Permissions::Mode(0o644),
        )?;
        written.push(show(&path));
    }
    let path = options.dir.join(MANIFEST);
    fs_err::create_dir_all(crate::fsx::parent_or_dot(&path))?;
    crate::fsx::write_atomically(
        &path,
        manifest.as_bytes(),
        ".skillpkg-",
        crate::fsx::Permissions::Mode(0o644),
    )?;
    written.push(MANIFEST.to_owned());
    Ok(written)
}

fn invalid_json(path: &Path, error: &json_edit::EditError) -> Error {
    Error::failed(
        format!("{}:{error}", path.display()),
        "fix the JSON, then publish again",
    )
}

/// `git config KEY` in `dir`, if set.
fn git_config(dir: &Path, key: &str) -> Option<String> {
    let output = git(dir, &["config", "--get", key]).ok()?;
    Some(output).filter(|value| !value.is_empty())
}

/// Runs git in `dir` and returns its trimmed stdout, or its stderr as the error.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|error| format!("cannot run git: {error}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
    }
}

/// Commits `written` (only those paths) and tags the commit `{plugin}--v{version}`, when the
/// marketplace is in a git repository. Never pushes. An existing tag on the same commit is
/// fine; on another one, refused.
fn git_tag(options: &Options, written: &[String]) -> Result<Option<Tag>, Error> {
    let dir = &options.dir;
    if git(dir, &["rev-parse", "--is-inside-work-tree"]).as_deref() != Ok("true") {
        return Ok(None);
    }
    let name = format!("{}--v{}", options.plugin, options.version);
    let fail = |what: &str, detail: String| {
        Error::failed(
            format!("{what} in {}: {detail}", dir.display()),
            format!("the files are written; commit them and run `git tag {name}` yourself"),
        )
    };
    let mut commit = None;
    if !written.is_empty() {
        let mut add = vec!["add", "-A", "--"];
        add.extend(written.iter().map(String::as_str));
        git(dir, &add).map_err(|detail| fail("git add failed", detail))?;
        let staged = git(dir, &["diff", "--cached", "--quiet", "--"]).is_err();
        if staged {
            let message = format!("Publish {} {}", options.plugin, options.version);
            let mut args = vec!["commit", "--quiet", "-m", &message, "--"];
            args.extend(written.iter().map(String::as_str));
            git(dir, &args).map_err(|detail| fail("git commit failed", detail))?;
            commit = Some(
                git(dir, &["rev-parse", "--short", "HEAD"])
                    .map_err(|detail| fail("git rev-parse failed", detail))?,
            );
        }
    }
    let head =
        git(dir, &["rev-parse", "HEAD"]).map_err(|detail| fail("git rev-parse failed", detail))?;
    // A tag that exists already is never moved: it may have been pushed.
    let moved =
        if let Ok(tagged) = git(dir, &["rev-parse", &format!("refs/tags/{name}^{{commit}}")]) {
            tagged != head
        } else {
            git(dir, &["tag", &name]).map_err(|detail| fail("git tag failed", detail))?;
            false
        };
    Ok(Some(Tag {
        push: format!(
            "git -C {} push origin HEAD refs/tags/{name}",
            shell_quote(&dir.display().to_string())
        ),
        name,
        commit,
        elsewhere: moved,
    }))
}

/// `text` quoted for a POSIX shell when it needs it.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '-' | '_' | ':' | '+'))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_and_impersonations_are_refused() {
        for name in [
            "agent-skills",
            "claude-plugins-official",
            "anthropic-plugins-v2",
            "official-claude-plugins",
            "anthropic-tools",
            "org",
            "healthcare",
        ] {
            assert!(reserved(name), "{name}");
        }
        for name in ["my-skills", "claude-skills-by-ann", "acme-plugins"] {
            assert!(!reserved(name), "{name}");
        }
        assert!(!reserved("acme-official-tools"));
    }

    #[test]
    fn shell_quote_quotes_what_needs_it() {
        assert_eq!(shell_quote("/tmp/mkt"), "/tmp/mkt");
        assert_eq!(shell_quote("/tmp/my mkt"), "'/tmp/my mkt'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
