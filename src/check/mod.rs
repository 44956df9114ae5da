//! Checking skills: rules, targets, configuration and the findings they produce.
//!
//! [`check_skill`] runs the rules for every requested target and merges what they say: the same
//! finding raised by two targets is reported once, at the higher severity, listing both targets.
//! [`check_set`] then runs the rules that compare skills with each other.

pub mod config;
pub(crate) mod copies;
pub mod diagnostic;
pub mod engine;
pub mod fix;
pub mod lint;
pub mod rule;
pub mod rules;

use std::collections::HashMap;

use crate::agent::Target;
use diagnostic::Diagnostic;
use rule::Severity;

use crate::skill::Skill;

/// A skill and everything found about it.
#[derive(Clone, Debug)]
pub struct Checked {
    pub skill: Skill,
    /// The targets it was checked against.
    pub targets: Vec<Target>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == severity)
            .count()
    }

    /// No error for any target.
    pub fn is_valid(&self) -> bool {
        self.count(Severity::Error) == 0
    }

    /// The file a finding is about: SKILL.md, or another file of the skill.
    pub(crate) fn path_of(&self, diagnostic: &Diagnostic) -> std::path::PathBuf {
        match &diagnostic.file {
            Some(file) => self.skill.dir.join(&file.path),
            None => self.skill.path.clone(),
        }
    }

    /// Where a finding is, in lines and columns of its file; a finding about a line of another
    /// file points at the line's start.
    pub(crate) fn location_of(&self, diagnostic: &Diagnostic) -> Option<diagnostic::Location> {
        match &diagnostic.file {
            Some(file) => file.line.map(|line| {
                let at = crate::skill::text::Position { line, column: 1 };
                diagnostic::Location { start: at, end: at }
            }),
            None => diagnostic.location(self.skill.display_source()),
        }
    }

    /// Drops what neither the reports nor the rules across skills read once the skill's own
    /// checks are done: the lines no finding points at (other than `also`), and more
    /// ([`Skill::release_body`]).
    pub(crate) fn release(&mut self, also: Option<std::ops::Range<usize>>) {
        let mut keep = self.reported();
        keep.extend(also);
        self.skill.release_body(&keep);
        self.diagnostics.shrink_to_fit();
    }

    /// What a report shows of the skill file: for each finding, from the first to the last
    /// text it points at (one snippet shows them all).
    fn reported(&self) -> Vec<std::ops::Range<usize>> {
        self.diagnostics
            .iter()
            .filter_map(|d| {
                let spans = d.span.iter().chain(d.related.iter().map(|r| &r.span));
                let start = spans.clone().map(|span| span.start).min()?;
                let end = spans.map(|span| span.end.max(span.start)).max()?;
                Some(start..end)
            })
            .collect()
    }

    /// Sorts findings by file (SKILL.md first), position (file-level first), then severity,
    /// then code, and keeps one of findings that say the same thing at the same place (two
    /// checks, or two copies of one file, that found it each).
    pub fn sort(&mut self) {
        self.diagnostics.sort_by(|a, b| {
            let file = |d: &Diagnostic| d.file.as_ref().map(|f| (f.path.clone(), f.line));
            let position = |d: &Diagnostic| d.span.as_ref().map(|span| (span.start, span.end));
            file(a)
                .cmp(&file(b))
                .then(position(a).cmp(&position(b)))
                .then(b.severity.cmp(&a.severity))
                .then(a.rule.code.cmp(b.rule.code))
        });
        let mut seen = std::collections::HashSet::new();
        self.diagnostics
            .retain(|d| seen.insert((d.place(), d.message.clone())));
    }
}

/// Checks one skill against `targets`.
pub fn check_skill(skill: Skill, targets: &[Target]) -> Checked {
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    // Where each finding is, so that merging stays linear in the findings.
    let mut seen_at: HashMap<diagnostic::Place, Vec<usize>> = HashMap::new();
    for &target in targets {
        let before = diagnostics.len();
        for mut found in rules::check(&skill, target) {
            found.targets = vec![target];
            // Merge only with findings of other targets: one target may raise the same rule
            // twice at one place on purpose. A merged finding keeps the highest severity and
            // lists the targets that raised it at that severity.
            let key = found.place();
            let earlier = seen_at.get(&key).and_then(|indexes| {
                indexes.iter().copied().find(|&index| {
                    index < before
                        && diagnostics[index].rule == found.rule
                        && !diagnostics[index].targets.contains(&target)
                })
            });
            match earlier {
                Some(index) if found.severity > diagnostics[index].severity => {
                    diagnostics[index] = found;
                }
                Some(index) if found.severity == diagnostics[index].severity => {
                    diagnostics[index].targets.push(target);
                }
                Some(_) => {}
                None => {
                    seen_at.entry(key).or_default().push(diagnostics.len());
                    diagnostics.push(found);
                }
            }
        }
    }
    let mut checked = Checked {
        skill,
        targets: targets.to_vec(),
        diagnostics,
    };
    checked.sort();
    checked
}

/// Runs the rules that compare skills; `checked` must be in the order findings are reported.
pub fn check_set<T: AsChecked>(checked: &mut [T]) {
    drop_house_keys(checked);
    rules::set::check_duplicate_names(checked);
    for item in checked {
        item.checked_mut().sort();
    }
}

/// Drops the `unknown-key` findings about a collection's own convention
/// ([`rules::set::drop_house_keys`]): a finding of the skill itself that only the whole set can
/// judge, so it runs on each skill's own findings before the rules across skills.
pub(crate) fn drop_house_keys<T: AsChecked>(checked: &mut [T]) {
    rules::set::drop_house_keys(checked);
}

/// A checked skill, alone or in a larger record: the rules across skills read and extend it
/// in place, so that a command need not copy ten thousand records to run them.
pub trait AsChecked {
    fn checked(&self) -> &Checked;
    fn checked_mut(&mut self) -> &mut Checked;
}

impl AsChecked for Checked {
    fn checked(&self) -> &Checked {
        self
    }

    fn checked_mut(&mut self) -> &mut Checked {
        self
    }
}

/// The Claude Code plugin a skill file belongs to: the nearest folder above its own, at most
/// eight up, that holds `.claude-plugin/plugin.json` or that a plugin marketplace above it
/// (`.claude-plugin/marketplace.json`) names as a plugin's `source` (a repository can be both a
/// marketplace and, at its root, a plugin), and that loads the skill: from its `skills/` folder,
/// or from the paths its `skills` entry lists. Claude Code installs and lists each plugin on its
/// own and names its skills `plugin:name`, so two plugins' skills never clash.
pub(crate) fn plugin_of(skill_file: &std::path::Path) -> Option<std::path::PathBuf> {
    let dir = without_dots(skill_file.parent()?);
    cached(&PLUGIN_OF, &dir, || find_plugin(&dir))
}

/// [`plugin_of`] for the skill folder `dir` (without `.` parts). Each candidate plugin root is
/// one of `dir`'s ancestors, looked up in the manifests' indexes: the work is the depth of the
/// folder, however many plugins a marketplace lists.
fn find_plugin(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let loads = |root: &std::path::Path, declared: &[std::path::PathBuf]| {
        dir.starts_with(root)
            && (dir.parent() == Some(root.join("skills").as_path())
                || declared
                    .iter()
                    .any(|path| dir == path || dir.parent() == Some(path.as_path())))
    };
    let mut best: Option<std::path::PathBuf> = None;
    let mut consider = |root: std::path::PathBuf| {
        if best
            .as_ref()
            .is_none_or(|seen| root.as_os_str().len() > seen.as_os_str().len())
        {
            best = Some(root);
        }
    };
    for folder in dir.ancestors().skip(1).take(8) {
        let facts = folder_facts(folder);
        if facts.claude_plugin {
            let manifest = folder.join(".claude-plugin/plugin.json");
            let declared: Vec<std::path::PathBuf> = read_json(&manifest)
                .map(|json| declared_skills(folder, json.get("skills")))
                .unwrap_or_default()
                .iter()
                .map(|path| without_dots(path))
                .collect();
            let root = without_dots(folder);
            if loads(&root, &declared) {
                consider(root);
            }
        }
        if facts.claude_marketplace {
            let index = marketplace_plugins(&folder.join(".claude-plugin/marketplace.json"));
            for ancestor in dir.ancestors().skip(1) {
                if let Some(declared) = index.get(ancestor)
                    && loads(ancestor, declared)
                {
                    consider(ancestor.to_path_buf());
                }
            }
        }
        // Not past the repository: a manifest above it is someone else's.
        if facts.repository {
            break;
        }
    }
    best
}

/// What one agent loads together with a skill, among which names must differ: the Claude Code
/// plugin that loads it ([`plugin_of`]) or the agent's skills folder it is in
/// ([`crate::agent::agent_root`]), whichever is nearer; for a skill in neither, the folder that
/// holds it and its siblings (a catalog such as a repository's `skills/`, which `npx skills
/// add` installs at once, each skill in a folder named by its `name`). Copies of one skill in
/// several agents' folders, or in a plugin and beside it, are in different groups: no agent
/// loads two of them. A package published to ClawHub (OpenClaw's registry) is installed alone.
pub(crate) fn load_group(skill_file: &std::path::Path) -> std::path::PathBuf {
    let dir = without_dots(skill_file.parent().unwrap_or(std::path::Path::new("")));
    cached(&LOAD_GROUP, &dir.clone(), || {
        find_load_group(skill_file, dir)
    })
}

fn find_load_group(skill_file: &std::path::Path, dir: std::path::PathBuf) -> std::path::PathBuf {
    // A package published to ClawHub is installed on its own.
    if crate::agent::clawhub_package(&dir) == Some(crate::agent::ClawHub::Published) {
        return dir;
    }
    let agent = crate::agent::agent_root(&dir).map(|(root, _)| root.to_path_buf());
    let plugin = plugin_of(skill_file);
    match (agent, plugin) {
        (Some(agent), Some(plugin)) => {
            if agent.as_os_str().len() >= plugin.as_os_str().len() {
                agent
            } else {
                plugin
            }
        }
        (Some(root), None) | (None, Some(root)) => root,
        (None, None) => dir
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default(),
    }
}

/// What a folder holds that says which agents load the skills below it.
#[derive(Clone, Copy, Debug, Default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "five independent facts about one folder, each a file that is there or not"
)]
pub(crate) struct FolderFacts {
    /// `.claude-plugin/plugin.json`: a Claude Code plugin.
    pub claude_plugin: bool,
    /// `.claude-plugin/marketplace.json`: a Claude Code plugin marketplace.
    pub claude_marketplace: bool,
    /// `.codex-plugin/`: a Codex plugin.
    pub codex_plugin: bool,
    /// `gemini-extension.json`: a Gemini CLI extension.
    pub gemini_extension: bool,
    /// `.git`: the top of a repository.
    pub repository: bool,
}

/// The [`FolderFacts`] of `folder`, looked up once per run: skills share their ancestors, so
/// ten thousand skills cost their distinct folders' lookups, not ten thousand walks.
pub(crate) fn folder_facts(folder: &std::path::Path) -> FolderFacts {
    cached(&FOLDER_FACTS, folder, || FolderFacts {
        claude_plugin: folder.join(".claude-plugin/plugin.json").is_file(),
        claude_marketplace: folder.join(".claude-plugin/marketplace.json").is_file(),
        codex_plugin: folder.join(".codex-plugin").exists(),
        gemini_extension: folder.join("gemini-extension.json").is_file(),
        repository: folder.join(".git").exists(),
    })
}

/// A cache for the whole run, keyed by path: the plugin and marketplace facts every skill
/// below a folder shares.
type PathCache<T> =
    std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, T>>>;

static FOLDER_FACTS: PathCache<FolderFacts> = std::sync::OnceLock::new();
static JSON_FILES: PathCache<Option<std::sync::Arc<serde_json::Value>>> =
    std::sync::OnceLock::new();
static MARKETPLACES: PathCache<std::sync::Arc<PluginIndex>> = std::sync::OnceLock::new();
static PLUGIN_OF: PathCache<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
static LOAD_GROUP: PathCache<std::path::PathBuf> = std::sync::OnceLock::new();

/// Forgets what [`folder_facts`] and the plugin manifests said: a process that outlives one run
/// (the language server) calls it when files may have changed.
pub(crate) fn forget_folders() {
    fn clear<T>(cache: &PathCache<T>) {
        if let Some(cache) = cache.get() {
            cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clear();
        }
    }
    clear(&FOLDER_FACTS);
    clear(&JSON_FILES);
    clear(&MARKETPLACES);
    clear(&PLUGIN_OF);
    clear(&LOAD_GROUP);
}

/// `cache`'s value for `key`, computed by `compute` the first time (outside the lock: two
/// threads may both compute it, and either result is the same).
fn cached<T: Clone>(cache: &PathCache<T>, key: &std::path::Path, compute: impl FnOnce() -> T) -> T {
    use std::sync::PoisonError;
    let cache = cache.get_or_init(std::sync::Mutex::default);
    if let Some(found) = cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(key)
    {
        return found.clone();
    }
    let value = compute();
    cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(key.to_path_buf(), value.clone());
    value
}

/// `path` without its `.` parts (`./plugins/x` is `plugins/x`), so that paths compare.
fn without_dots(path: &std::path::Path) -> std::path::PathBuf {
    path.components()
        .filter(|part| !matches!(part, std::path::Component::CurDir))
        .collect()
}

/// A JSON file of at most 8 MiB, read and parsed once per run.
fn read_json(path: &std::path::Path) -> Option<std::sync::Arc<serde_json::Value>> {
    cached(&JSON_FILES, path, || {
        crate::fsx::read_capped(path, 8 * 1024 * 1024)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .map(std::sync::Arc::new)
    })
}

/// A folder inside `root` that `relative` names, or `None` when it would leave `root`: nothing
/// a manifest says chooses a path elsewhere.
fn inside(root: &std::path::Path, relative: &str) -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(relative);
    let escapes = path.components().any(|part| {
        matches!(
            part,
            std::path::Component::ParentDir
                | std::path::Component::RootDir
                | std::path::Component::Prefix(_)
        )
    });
    (!escapes).then(|| root.join(path))
}

/// The skill folders a plugin's `skills` entry lists (a path or a list of paths).
fn declared_skills(
    root: &std::path::Path,
    entry: Option<&serde_json::Value>,
) -> Vec<std::path::PathBuf> {
    let paths: Vec<&str> = match entry {
        Some(serde_json::Value::String(one)) => vec![one.as_str()],
        Some(serde_json::Value::Array(many)) => {
            many.iter().filter_map(serde_json::Value::as_str).collect()
        }
        _ => Vec::new(),
    };
    paths
        .into_iter()
        .filter_map(|path| inside(root, path))
        .collect()
}

/// The local plugins a marketplace file names (`"source": "./plugins/x"`), each folder (without
/// `.` parts) with the skill folders its entry lists.
fn marketplace_plugins(path: &std::path::Path) -> std::sync::Arc<PluginIndex> {
    cached(&MARKETPLACES, path, || {
        let mut index = PluginIndex::new();
        for (root, declared) in read_marketplace(path) {
            index
                .entry(without_dots(&root))
                .or_default()
                .extend(declared.iter().map(|path| without_dots(path)));
        }
        std::sync::Arc::new(index)
    })
}

/// A plugin's folder and the skill folders its manifest or marketplace entry lists.
type Plugin = (std::path::PathBuf, Vec<std::path::PathBuf>);

/// A marketplace's plugins by folder.
type PluginIndex = std::collections::HashMap<std::path::PathBuf, Vec<std::path::PathBuf>>;

fn read_marketplace(path: &std::path::Path) -> Vec<Plugin> {
    let root = path
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap_or(std::path::Path::new("."));
    let Some(json) = read_json(path) else {
        return Vec::new();
    };
    let base = json
        .pointer("/metadata/pluginRoot")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let mut found = Vec::new();
    for plugin in json
        .get("plugins")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(source) = plugin.get("source").and_then(serde_json::Value::as_str) else {
            continue;
        };
        let relative = if source.starts_with("./") || base.is_empty() {
            source.to_owned()
        } else {
            format!("{base}/{source}")
        };
        let Some(folder) = inside(root, &relative) else {
            continue;
        };
        let mut declared = declared_skills(&folder, plugin.get("skills"));
        if let Some(json) = read_json(&folder.join(".claude-plugin/plugin.json")) {
            declared.extend(declared_skills(&folder, json.get("skills")));
        }
        found.push((folder, declared));
    }
    found
}
