//! `skillpkg.toml`: project settings, found by walking up from the checked skill.
//!
//! ```toml
//! # The clients these skills must load in; `--target` on the command line wins.
//! targets = ["agentskills", "claude-code"]
//!
//! [lint]
//! select = ["ALL"]              # rules to run: codes, names, code prefixes (`SK3`) or ALL
//! extend-select = []            # added to `select`
//! ignore = ["SK301"]            # removed from the selection
//!
//! [lint.rules]                  # per-rule level: "error", "warning" or "off"
//! placeholder-text = "error"
//!
//! [lint.per-path-ignores]       # globs relative to this file's folder
//! "legacy/**" = ["body-too-long"]
//! ```
//!
//! `registry = "https://skills.example.com"`, before any table, names the registry `publish`,
//! `install` and `search` use.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Deserialize;

use super::rule::{self, Rule};
use crate::agent::Target;
use crate::skill::text::SourceText;

/// The configuration file's name.
pub(crate) const FILE_NAME: &str = crate::skill::discover::CONFIG_FILE;

/// The largest `skillpkg.toml` read; a real one is a few hundred bytes.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A loaded `skillpkg.toml`.
#[derive(Clone, Debug)]
pub struct Config {
    /// As shown to the user (relative to the current folder).
    pub path: PathBuf,
    /// The folder it is in, absolute; per-path globs are relative to it.
    pub dir: PathBuf,
    pub targets: Option<Vec<Target>>,
    pub lint: LintConfig,
    /// The registry `publish`, `install` and friends use unless told otherwise.
    pub registry: Option<String>,
    /// Where `publish` sends skills when `--to` is not given (`[publish]`).
    pub publish: PublishConfig,
}

/// `[publish]`: the destinations `skillpkg publish` uses when `--to` names none, and their
/// settings, so that CI runs one command. Paths are relative to the file's folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PublishConfig {
    /// Destination names, each one of [`DESTINATIONS`].
    pub to: Vec<String>,
    /// The Claude Code marketplace's working copy (`--marketplace`).
    pub marketplace: Option<PathBuf>,
    /// The plugin the skills go in (`--plugin`).
    pub plugin: Option<String>,
    /// The static site's folder (`--site`).
    pub site: Option<PathBuf>,
    /// The Anthropic workspace (`--workspace`).
    pub workspace: Option<String>,
}

/// The destinations `publish --to` and `[publish] to` accept.
pub const DESTINATIONS: [&str; 4] = ["registry", "claude-marketplace", "well-known", "anthropic"];

impl PartialEq for Config {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.targets == other.targets
    }
}

/// Which rules run, and at what level.
#[derive(Clone, Debug, Default)]
pub struct LintConfig {
    pub select: Option<Vec<Selector>>,
    pub extend_select: Vec<Selector>,
    pub ignore: Vec<Selector>,
    pub levels: Vec<(&'static Rule, Level)>,
    pub per_path_ignores: Vec<(globset::GlobMatcher, Vec<Selector>)>,
}

/// A way to name rules: one rule, every code starting with a prefix, or all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    All,
    Rule(&'static Rule),
    Prefix(String),
}

impl Selector {
    pub fn matches(&self, rule: &Rule) -> bool {
        match self {
            Self::All => true,
            Self::Rule(selected) => std::ptr::eq(*selected, rule),
            Self::Prefix(prefix) => rule.code.starts_with(prefix.as_str()),
        }
    }
}

/// Parses a rule selector: `ALL`, a code, a kebab name or a code prefix.
pub(crate) fn parse_selector(text: &str) -> Result<Selector, String> {
    Selector::parse(text)
}

impl Selector {
    fn parse(text: &str) -> Result<Self, String> {
        if text.eq_ignore_ascii_case("ALL") {
            return Ok(Self::All);
        }
        if let Some(rule) = rule::find(text) {
            return Ok(Self::Rule(rule));
        }
        let upper = text.to_ascii_uppercase();
        if upper.len() >= 3
            && upper.starts_with("SK")
            && upper[2..].chars().all(|c| c.is_ascii_digit())
            && rule::ALL.iter().any(|rule| rule.code.starts_with(&upper))
        {
            return Ok(Self::Prefix(upper));
        }
        let suggestion = rule::ALL
            .iter()
            .map(|rule| (strsim::jaro_winkler(rule.name, text), rule.name))
            .filter(|(score, _)| *score > 0.85)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, name)| format!("; did you mean `{name}`?"))
            .unwrap_or_default();
        Err(format!(
            "unknown rule `{text}`{suggestion} (`skillpkg rule` lists them)"
        ))
    }
}

/// A level set for a rule in the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Off,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    targets: Option<Vec<toml::Spanned<String>>>,
    lint: Option<LintFile>,
    registry: Option<String>,
    publish: Option<PublishFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublishFile {
    #[serde(default)]
    to: Vec<toml::Spanned<String>>,
    marketplace: Option<PathBuf>,
    plugin: Option<String>,
    site: Option<PathBuf>,
    workspace: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LintFile {
    select: Option<Vec<toml::Spanned<String>>>,
    #[serde(default)]
    extend_select: Vec<toml::Spanned<String>>,
    #[serde(default)]
    ignore: Vec<toml::Spanned<String>>,
    #[serde(default)]
    rules: std::collections::BTreeMap<toml::Spanned<String>, toml::Spanned<String>>,
    #[serde(default)]
    per_path_ignores: std::collections::BTreeMap<toml::Spanned<String>, Vec<toml::Spanned<String>>>,
}

/// The JSON Schema of `skillpkg.toml` (draft 07, which taplo and Even Better TOML read), built
/// from what [`Config::parse`] accepts: the keys of its file types, every target's name, every
/// rule's code and name, the levels. `docs/skillpkg.schema.json` is this, written out; a test
/// keeps the two equal and checks each key against the parser.
pub fn json_schema() -> serde_json::Value {
    use serde_json::json;
    let targets: Vec<&str> = Target::ALL.iter().map(|target| target.name()).collect();
    let names: Vec<&str> = rule::ALL.iter().map(|rule| rule.name).collect();
    // Codes in any case; prefixes (`SK3`, `SK30`) of existing codes only.
    let codes: Vec<&str> = rule::ALL.iter().map(|rule| &rule.code[2..]).collect();
    let mut prefixes: Vec<&str> = rule::ALL
        .iter()
        .flat_map(|rule| (3..rule.code.len()).map(move |end| &rule.code[2..end]))
        .collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    let code_pattern = format!("^[Ss][Kk]({})$", codes.join("|"));
    let prefix_pattern = format!("^[Ss][Kk]({})$", prefixes.join("|"));
    let selectors = |description: &str| {
        json!({
            "description": description,
            "type": "array",
            "items": { "$ref": "#/definitions/selector" }
        })
    };
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://github.com/skillpkg/skillpkg/blob/main/docs/skillpkg.schema.json",
        "title": "skillpkg.toml",
        "description": "skillpkg's project settings, found by walking up from each skill's folder (docs/config.md).",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "targets": {
                "description": "The agents these skills must load in; `--target` on the command line wins.",
                "type": "array",
                "minItems": 1,
                "items": { "enum": targets }
            },
            "registry": {
                "description": "The registry `publish`, `install`, `search`, `info`, `yank` and `owner` use, unless --registry or SKILLPKG_REGISTRY says otherwise: an http:// or https:// URL.",
                "type": "string"
            },
            "publish": publish_schema(),
            "lint": {
                "description": "Which lint rules run, and at what level.",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "select": selectors("The rules to run (replaces the default, every rule); `--select` replaces this."),
                    "extend-select": selectors("Rules to run as well."),
                    "ignore": selectors("Rules not to run."),
                    "rules": {
                        "description": "A level per rule, by code or name.",
                        "type": "object",
                        "propertyNames": { "$ref": "#/definitions/rule" },
                        "additionalProperties": { "enum": ["error", "warning", "warn", "off"] }
                    },
                    "per-path-ignores": {
                        "description": "Rules not to run on files matching a glob, relative to this file's folder.",
                        "type": "object",
                        "additionalProperties": {
                            "type": "array",
                            "items": { "$ref": "#/definitions/selector" }
                        }
                    }
                }
            }
        },
        "definitions": {
            "rule": {
                "description": "A rule's code (SK303, any case) or name (broken-reference); `skillpkg rule` lists them.",
                "anyOf": [
                    { "enum": names },
                    { "type": "string", "pattern": code_pattern }
                ]
            },
            "selector": {
                "description": "A rule, a code prefix (SK3), or ALL.",
                "anyOf": [
                    { "$ref": "#/definitions/rule" },
                    { "type": "string", "pattern": prefix_pattern },
                    { "type": "string", "pattern": "^[Aa][Ll][Ll]$" }
                ]
            }
        }
    })
}

/// The schema of `[publish]`.
fn publish_schema() -> serde_json::Value {
    serde_json::json!({
        "description": "Where `skillpkg publish` sends skills when --to names no destination, and each destination's settings (docs/config.md).",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "to": {
                "description": "The destinations, in order.",
                "type": "array",
                "items": { "enum": DESTINATIONS }
            },
            "marketplace": {
                "description": "claude-marketplace: the marketplace repository's working copy, relative to this file.",
                "type": "string"
            },
            "plugin": {
                "description": "claude-marketplace: the plugin the skills are published in (kebab-case).",
                "type": "string"
            },
            "site": {
                "description": "well-known: the static site's folder, relative to this file.",
                "type": "string"
            },
            "workspace": {
                "description": "anthropic: the workspace id sent as anthropic-workspace-id.",
                "type": "string"
            }
        }
    })
}

/// Why a configuration file could not be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
}

impl Config {
    /// Parses the text of a configuration file.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let source = SourceText::from_string(text.to_owned());
        let invalid = |offset: usize, message: String| {
            let position = source.position(offset);
            ConfigError::Invalid {
                path: path.to_path_buf(),
                line: position.line,
                column: position.column,
                message,
            }
        };
        let file: ConfigFile = toml::from_str(text).map_err(|error| {
            let offset = error.span().map_or(0, |span| span.start);
            invalid(offset, error.message().trim_end().to_owned())
        })?;
        let targets = match file.targets {
            None => None,
            Some(names) if names.is_empty() => {
                return Err(invalid(
                    0,
                    "`targets` is empty; name at least one target or remove the key".into(),
                ));
            }
            Some(names) => Some(
                names
                    .into_iter()
                    .map(|name| {
                        let span = name.span();
                        name.into_inner()
                            .parse::<Target>()
                            .map_err(|error| invalid(span.start, error.to_string()))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let selectors = |names: Vec<toml::Spanned<String>>| {
            names
                .into_iter()
                .map(|name| {
                    let span = name.span();
                    Selector::parse(name.get_ref()).map_err(|message| invalid(span.start, message))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let mut lint = LintConfig::default();
        if let Some(file) = file.lint {
            lint.select = file.select.map(&selectors).transpose()?;
            lint.extend_select = selectors(file.extend_select)?;
            lint.ignore = selectors(file.ignore)?;
            for (name, level) in file.rules {
                let span = name.span();
                let rule = rule::find(name.get_ref()).ok_or_else(|| {
                    invalid(
                        span.start,
                        format!(
                            "unknown rule `{}` (`skillpkg rule` lists them)",
                            name.get_ref()
                        ),
                    )
                })?;
                let level_span = level.span();
                let level = match level.get_ref().as_str() {
                    "error" => Level::Error,
                    "warning" | "warn" => Level::Warning,
                    "off" => Level::Off,
                    other => {
                        return Err(invalid(
                            level_span.start,
                            format!(
                                "unknown level `{other}` (expected \"error\", \"warning\" or \"off\")"
                            ),
                        ));
                    }
                };
                lint.levels.push((rule, level));
            }
            for (pattern, names) in file.per_path_ignores {
                let span = pattern.span();
                let glob = globset::GlobBuilder::new(pattern.get_ref())
                    .literal_separator(true)
                    .build()
                    .map_err(|error| {
                        invalid(
                            span.start,
                            format!("invalid glob `{}`: {}", pattern.get_ref(), error.kind()),
                        )
                    })?;
                lint.per_path_ignores
                    .push((glob.compile_matcher(), selectors(names)?));
            }
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let publish = publish_config(file.publish, &dir, &invalid)?;
        Ok(Self {
            path: path.to_path_buf(),
            dir,
            targets,
            lint,
            registry: file.registry,
            publish,
        })
    }
}

/// `[publish]`, its destinations checked and its folders made relative to `dir`.
fn publish_config(
    file: Option<PublishFile>,
    dir: &Path,
    invalid: &dyn Fn(usize, String) -> ConfigError,
) -> Result<PublishConfig, ConfigError> {
    let mut publish = PublishConfig::default();
    let Some(file) = file else {
        return Ok(publish);
    };
    for name in file.to {
        if !DESTINATIONS.contains(&name.get_ref().as_str()) {
            return Err(invalid(
                name.span().start,
                format!(
                    "unknown destination `{}` (expected one of {})",
                    name.get_ref(),
                    DESTINATIONS.join(", ")
                ),
            ));
        }
        publish.to.push(name.into_inner());
    }
    publish.marketplace = file.marketplace.map(|folder| dir.join(folder));
    publish.site = file.site.map(|folder| dir.join(folder));
    publish.plugin = file.plugin;
    publish.workspace = file.workspace;
    Ok(publish)
}

/// Finds the nearest `skillpkg.toml` above a folder, remembering what it found per folder.
///
/// Folders inside a tree that was just walked need no file-system call: the walk saw every
/// `skillpkg.toml` there. Only folders above the walked roots are looked at on disk.
#[derive(Debug)]
pub(crate) struct ConfigFinder {
    /// Relative folders are resolved against this.
    cwd: PathBuf,
    /// Walked roots (absolute) and the folders in them that hold a configuration file.
    walked: Vec<PathBuf>,
    known: HashSet<PathBuf>,
    cache: Mutex<HashMap<PathBuf, Option<Arc<Config>>>>,
}

impl ConfigFinder {
    /// A finder that resolves relative folders against `cwd` and knows nothing in advance.
    pub(crate) fn new(cwd: PathBuf) -> Self {
        Self::with_walk(cwd, &[], &HashSet::new())
    }

    /// A finder that trusts a walk of `roots`, which found configuration files in `config_dirs`.
    pub(crate) fn with_walk(
        cwd: PathBuf,
        roots: &[PathBuf],
        config_dirs: &HashSet<PathBuf>,
    ) -> Self {
        let walked = roots
            .iter()
            .map(|root| lexical_absolute(&cwd, root))
            .filter(|root| root.is_dir())
            .collect();
        let known = config_dirs
            .iter()
            .map(|dir| lexical_absolute(&cwd, dir))
            .collect();
        Self {
            cwd,
            walked,
            known,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `folder` holds a configuration file.
    fn has_config(&self, folder: &Path) -> bool {
        if self.walked.iter().any(|root| folder.starts_with(root)) {
            self.known.contains(folder)
        } else {
            folder.join(FILE_NAME).is_file()
        }
    }

    /// The configuration that applies to `dir`: the nearest `skillpkg.toml` in `dir` or above.
    pub(crate) fn for_dir(&self, dir: &Path) -> Result<Option<Arc<Config>>, ConfigError> {
        let start = lexical_absolute(&self.cwd, dir);
        let mut visited = Vec::new();
        let mut current = Some(start.as_path());
        let found = loop {
            let Some(folder) = current else { break None };
            if let Some(cached) = self.lock().get(folder) {
                break cached.clone();
            }
            visited.push(folder.to_path_buf());
            if self.has_config(folder) {
                let candidate = folder.join(FILE_NAME);
                // Shown to the user: relative to where they are, like every other path.
                let shown = candidate.strip_prefix(&self.cwd).unwrap_or(&candidate);
                let text = crate::fsx::read_text_capped(&candidate, MAX_CONFIG_BYTES).map_err(
                    |error| ConfigError::Read {
                        path: shown.to_path_buf(),
                        message: error.to_string(),
                    },
                )?;
                let mut config = Config::parse(shown, &text)?;
                config.dir = folder.to_path_buf();
                break Some(Arc::new(config));
            }
            current = folder.parent();
        };
        let mut cache = self.lock();
        for folder in visited {
            cache.insert(folder, found.clone());
        }
        Ok(found)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Option<Arc<Config>>>> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `dir` made absolute against `cwd`, with `.` and `..` resolved by name (no file-system calls).
pub(crate) fn lexical_absolute(cwd: &Path, dir: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in cwd.join(dir).components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl std::str::FromStr for Selector {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_selector(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_targets() {
        let config = Config::parse(
            Path::new("skillpkg.toml"),
            "targets = [\"claude-code\", \"claude-ai\"]\n",
        )
        .unwrap();
        assert_eq!(
            config.targets,
            Some(vec![Target::ClaudeCode, Target::ClaudeAi])
        );
    }

    #[test]
    fn unknown_target_points_at_it() {
        let error =
            Config::parse(Path::new("skillpkg.toml"), "\ntargets = [\"claude\"]\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "skillpkg.toml:2:12: unknown target `claude` (expected one of: agentskills, skills-ref, claude-code, claude-code@2.1.88, claude-ai, codex, gemini-cli, opencode, copilot, goose, openclaw)"
        );
    }

    #[test]
    fn unknown_keys_and_bad_toml_are_errors() {
        let error = Config::parse(Path::new("skillpkg.toml"), "target = []\n").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("skillpkg.toml:1:1: unknown field `target`"),
            "{error}"
        );
        assert!(Config::parse(Path::new("skillpkg.toml"), "targets = [\n").is_err());
    }

    #[test]
    fn finder_trusts_the_walk_inside_walked_roots() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        fs_err::create_dir_all(root.join("skills/a")).unwrap();
        fs_err::write(
            root.join("skills").join(FILE_NAME),
            "targets = [\"codex\"]\n",
        )
        .unwrap();
        // The walk "found" no configuration, so the file on disk is not read.
        let blind = ConfigFinder::with_walk(
            tmp.path().into(),
            std::slice::from_ref(&root),
            &HashSet::new(),
        );
        assert_eq!(blind.for_dir(&root.join("skills/a")).unwrap(), None);
        let seen = HashSet::from([root.join("skills")]);
        let finder = ConfigFinder::with_walk(tmp.path().into(), std::slice::from_ref(&root), &seen);
        let config = finder.for_dir(&root.join("skills/a")).unwrap().unwrap();
        assert_eq!(config.targets, Some(vec![Target::Codex]));
    }

    #[test]
    fn finder_walks_up_and_caches() {
        let tmp = tempfile::tempdir().unwrap();
        let nested = tmp.path().join("a/b/c");
        fs_err::create_dir_all(&nested).unwrap();
        fs_err::write(
            tmp.path().join("a").join(FILE_NAME),
            "targets = [\"codex\"]\n",
        )
        .unwrap();
        let finder = ConfigFinder::new(tmp.path().join("elsewhere"));
        let config = finder.for_dir(&nested).unwrap().unwrap();
        assert_eq!(config.targets, Some(vec![Target::Codex]));
        assert!(finder.lock().contains_key(&tmp.path().join("a/b")));
        assert_eq!(
            finder.for_dir(&tmp.path().join("a/b")).unwrap(),
            Some(config)
        );
    }
}
