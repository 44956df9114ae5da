//! Which file of a skill leads to which: one graph behind `broken-reference`,
//! `unreferenced-file` and `nested-reference`.
//!
//! A file is mentioned by another when that other file's text links to it, writes its path (from
//! the skill folder or from its own folder, with `{name}`, `<name>`, `$NAME` or `*` standing for
//! any part: `references/{lang}.md`), names it (`schema.json`), or, in code, imports it by its stem
//! (`import helpers`, `require("./lib/util")`). Every text file is followed, scripts and
//! configuration included. Each text is scanned once, and file names are looked up in maps, so a
//! skill costs the length of its texts, not texts × files.
//!
//! SKILL.md is where the agent starts. Files no agent is meant to be sent to (tests, build and
//! packaging files, changelogs and licences, other agents' metadata such as Codex's
//! `agents/openai.yaml`) are starts too: what they mention is not orphaned.

use std::collections::VecDeque;
use std::sync::OnceLock;

use regex::{Regex, RegexSet, RegexSetBuilder};

use super::Bundle;
use super::files::{Mention, mentions};

/// Hash maps keyed by a skill's own names and words: foldhash, several times faster than the
/// standard hasher for short keys; nothing here needs its resistance to chosen keys,
/// since every lookup is of a word of the skill itself and the maps are per skill.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

/// How many template paths of one skill are matched against its files; more are ignored.
const MAX_TEMPLATES: usize = 256;
/// A template path longer than this is prose.
const MAX_TEMPLATE: usize = 256;

/// Extensions of code, whose texts may import another file by its stem.
const CODE_EXTENSIONS: &[&str] = &[
    "py", "sh", "bash", "zsh", "js", "mjs", "cjs", "ts", "mts", "cts", "tsx", "jsx", "rb", "pl",
    "lua", "go", "rs", "php", "ps1",
];

/// The graph of a skill's files. Nodes are the bundled files (by their index in
/// [`Bundle::files`]), then SKILL.md, then one node per folder, per file name and per code stem:
/// a text that mentions a folder or a name gets one edge to that node, which leads on to the
/// files, so that no text costs more edges than it has words.
#[derive(Debug)]
pub(crate) struct Graph {
    /// How many bundled files there are: nodes below this are files.
    files: usize,
    /// For each node, how many texts were read on the way from SKILL.md (1: SKILL.md mentions
    /// it); `None` when SKILL.md does not lead to it.
    depth: Vec<Option<u32>>,
    /// For each node, the file whose text led to it (`None`: SKILL.md's text).
    parent: Vec<Option<usize>>,
    /// Whether the node is reached from SKILL.md or from a file no one need mention.
    reached: Vec<bool>,
    edges: Vec<Vec<usize>>,
    /// For each bundled file, whether it needs no mention: a test, a build file, a changelog…
    pub exempt: Vec<bool>,
    /// For each bundled file, whether a template path (`references/{topic}.md`) covers it.
    pub templated: Vec<bool>,
}

impl Graph {
    /// Builds the graph of `bundle` whose SKILL.md is `text` (with `fences` its fenced code).
    pub(crate) fn build(bundle: &Bundle, text: &str, fences: &[std::ops::Range<usize>]) -> Self {
        let files = &bundle.files;
        let n = files.len();
        let skill_md = n;
        let mut nodes = Nodes::new(bundle);
        let mut templates = Templates::default();
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        edges[skill_md] = nodes.targets(text, "", fences, false, skill_md);
        // "Grep across `references/`", "browse the scripts/ folder": the whole folder is what
        // SKILL.md sends the agent to.
        for folder in searched_folders(text) {
            if let Some(node) = nodes.at(folder) {
                edges[skill_md].push(node);
            }
        }
        templates.collect(text, "", skill_md);
        for (index, file) in files.iter().enumerate() {
            let Some(content) = file.text.as_deref() else {
                continue;
            };
            let base = file.path.rsplit_once('/').map_or("", |(dir, _)| dir);
            edges[index] = nodes.targets(content, base, &[], is_code(&file.path), index);
            templates.collect(content, base, index);
        }
        // Template paths, matched against every file in one pass over the file list.
        let mut covered_by_template = vec![false; n];
        if let Some(set) = templates.compile() {
            for (index, file) in files.iter().enumerate() {
                for matched in &set.matches(&file.path) {
                    covered_by_template[index] = true;
                    let owner = templates.owners[matched];
                    if owner != index {
                        edges[owner].push(index);
                    }
                }
            }
        }
        edges.append(&mut nodes.edges);
        for list in &mut edges {
            list.sort_unstable();
            list.dedup();
        }
        let total = edges.len();
        let is_text = |node: usize| node <= n;

        // Breadth first from SKILL.md, counting only steps out of a text (0-1 BFS).
        let mut depth: Vec<Option<u32>> = vec![None; total];
        let mut parent: Vec<Option<usize>> = vec![None; total];
        let mut queue = VecDeque::new();
        depth[skill_md] = Some(0);
        queue.push_back(skill_md);
        while let Some(at) = queue.pop_front() {
            let here = depth[at].unwrap_or(0);
            let step = u32::from(is_text(at));
            let via = if at == skill_md {
                None
            } else if at < n {
                Some(at)
            } else {
                parent[at]
            };
            for &to in &edges[at] {
                if depth[to].is_none_or(|d| d > here + step) {
                    depth[to] = Some(here + step);
                    parent[to] = via;
                    if step == 0 {
                        queue.push_front(to);
                    } else {
                        queue.push_back(to);
                    }
                }
            }
        }
        let exempt: Vec<bool> = files.iter().map(|f| needs_no_mention(&f.path)).collect();
        let mut reached: Vec<bool> = depth.iter().map(Option::is_some).collect();
        let mut stack: Vec<usize> = (0..n).filter(|&at| exempt[at] && !reached[at]).collect();
        for &at in &stack {
            reached[at] = true;
        }
        while let Some(at) = stack.pop() {
            for &to in &edges[at] {
                if !reached[to] {
                    reached[to] = true;
                    stack.push(to);
                }
            }
        }
        Self {
            files: n,
            depth,
            parent,
            reached,
            edges,
            exempt,
            templated: covered_by_template,
        }
    }

    /// How many texts lead from SKILL.md to bundled file `at` (1: SKILL.md mentions it).
    pub(crate) fn depth(&self, at: usize) -> Option<u32> {
        self.depth[at]
    }

    /// Whether bundled file `at` is reached from SKILL.md or from a file no one need mention.
    #[cfg(test)]
    pub(crate) fn reached(&self, at: usize) -> bool {
        self.reached[at]
    }

    /// Unreached files that no other unreached file mentions, in order, each standing for the
    /// files it leads to: an orphaned folder of documents is reported once, at its top.
    pub(crate) fn orphans(&self, candidate: impl Fn(usize) -> bool) -> Vec<usize> {
        let total = self.edges.len();
        // What unreached files mention, through folders and names: one pass over the graph.
        let mut mentioned = vec![false; total];
        let mut stack: Vec<usize> = Vec::new();
        for at in (0..self.files).filter(|&at| !self.reached[at]) {
            for &to in &self.edges[at] {
                if !mentioned[to] && to != at {
                    mentioned[to] = true;
                    stack.push(to);
                }
            }
        }
        while let Some(at) = stack.pop() {
            if at < self.files {
                continue;
            }
            for &to in &self.edges[at] {
                if !mentioned[to] {
                    mentioned[to] = true;
                    stack.push(to);
                }
            }
        }
        let mut covered = self.reached.clone();
        let mut out = Vec::new();
        // Tops first; then whatever is left (files that only mention each other in a cycle).
        // Only a candidate stands for what it leads to: an orphan outside the folders checked
        // (`docs/x.md`) does not hide the orphans it links.
        let order = (0..self.files)
            .filter(|&at| !mentioned[at] && candidate(at))
            .chain((0..self.files).filter(|&at| mentioned[at] && candidate(at)));
        for at in order {
            if covered[at] {
                continue;
            }
            covered[at] = true;
            let mut stack = vec![at];
            while let Some(from) = stack.pop() {
                for &to in &self.edges[from] {
                    if !covered[to] {
                        covered[to] = true;
                        stack.push(to);
                    }
                }
            }
            out.push(at);
        }
        out.sort_unstable();
        out
    }

    /// The file whose text led to bundled file `at` (`None`: SKILL.md's).
    pub(crate) fn parent_file(&self, at: usize) -> Option<usize> {
        self.parent[at]
    }
}

/// Whether `path` is a file no instructions need to mention: tests, build and packaging files,
/// changelogs, licences, other agents' metadata, and caches.
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "the name is lowercased first"
)]
pub(crate) fn needs_no_mention(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let folders = lower.split('/').rev().skip(1);
    let stem = name.split('.').next().unwrap_or(name);
    let in_folder = |names: &[&str]| folders.clone().any(|f| names.contains(&f));
    // Documents the agent reads: `references/specs/` is no test folder there.
    let documents = lower.starts_with("references/");
    in_folder(&["tests", "test", "__tests__", "node_modules", "__pycache__"])
        || (!documents && in_folder(&["spec", "specs", "fixtures"])) || name.starts_with("test_")
        || name.starts_with('.')
        || ["_test.", ".test.", ".spec.", "_spec."]
            .iter()
            .any(|part| name.contains(part))
        || matches!(
            name,
            "conftest.py"
                | "__init__.py"
                | "package.json"
                | "package-lock.json"
                | "yarn.lock"
                | "pnpm-lock.yaml"
                | "bun.lock"
                | "bun.lockb"
                | "deno.json"
                | "deno.lock"
                | "pyproject.toml"
                | "setup.py"
                | "setup.cfg"
                | "pipfile"
                | "pipfile.lock"
                | "uv.lock"
                | "poetry.lock"
                | "cargo.toml"
                | "cargo.lock"
                | "go.mod"
                | "go.sum"
                | "makefile"
                | "justfile"
                | "gemfile"
                | "gemfile.lock"
                | "dockerfile"
                | "biome.json"
                | "openai.yaml"
                | "plugin.json"
                | "marketplace.json"
                | "manifest.json"
                | "skill.json"
        )
        || name.starts_with("requirements") && name.ends_with(".txt")
        || name.starts_with("tsconfig")
        || name.starts_with("eslint.config")
        || name.ends_with(".pyc")
        || name.ends_with(".d.ts")
        || name.ends_with(".lock")
        || matches!(
            stem,
            "changelog"
                | "license"
                | "licence"
                | "copying"
                | "authors"
                | "contributors"
                | "readme"
        )
        // As reference documents, `history.md` or `notice.md` are the agent's reading.
        || (!documents && matches!(stem, "changes" | "history" | "notice"))
        || [
            "changelog",
            "evolution-log",
            "release-notes",
            "release_notes",
        ]
        .iter()
        .any(|log| stem.contains(log))
        || (in_folder(&["agents"]) && (name.ends_with(".yaml") || name.ends_with(".yml")))
}

fn is_code(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| {
        CODE_EXTENSIONS
            .iter()
            .any(|code| code.eq_ignore_ascii_case(ext))
    })
}

/// The resource folders a sentence of `text` tells the agent to search or browse as a whole:
/// `references/` (or `scripts/`, `assets/`) beside a verb of looking through ("grep", "search",
/// "browse", "explore", "look in", "list") or "all"/"any" files. Each sentence is read once.
fn searched_folders(text: &str) -> Vec<&'static str> {
    const VERBS: &[&str] = &[
        "grep",
        "search",
        "browse",
        "explore",
        "look in",
        "look through",
        "list ",
        "scan",
        "all files",
        "any file",
        "every file",
        "files in",
        "files under",
        "the docs in",
    ];
    let mut found = Vec::new();
    for folder in ["references", "scripts", "assets"] {
        let marker = format!("{folder}/");
        let searched = text.match_indices(&marker).any(|(at, _)| {
            // The folder alone (`references/`, not `references/api.md`).
            let alone = !text[at + marker.len()..]
                .starts_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
            alone && {
                let sentence = format!(
                    "{} {}",
                    super::sentence_before(text, at),
                    super::line_after(text, at + marker.len())
                )
                .to_lowercase();
                VERBS.iter().any(|verb| sentence.contains(verb))
            }
        });
        if searched {
            found.push(folder);
        }
    }
    found
}

/// The nodes past the files: folders, file names and code stems, each leading to its files.
struct Nodes<'a> {
    bundle: &'a Bundle,
    /// The first node index past SKILL.md.
    first: usize,
    folders: HashMap<&'a str, usize>,
    folder_names: HashMap<&'a str, Vec<usize>>,
    names: HashMap<&'a str, usize>,
    /// Whether some file's name has no `.` (`Makefile`): only then are plain words looked up.
    dotless_names: bool,
    stems: HashMap<&'a str, usize>,
    /// Files by their path without its extension (`scripts/check` for `scripts/check.py`).
    extensionless: HashMap<&'a str, usize>,
    /// The edges of the nodes past SKILL.md, from `first` on.
    edges: Vec<Vec<usize>>,
}

impl<'a> Nodes<'a> {
    fn new(bundle: &'a Bundle) -> Self {
        let first = bundle.files.len() + 1;
        let mut nodes = Self {
            bundle,
            first,
            folders: HashMap::default(),
            folder_names: HashMap::default(),
            names: HashMap::default(),
            dotless_names: false,
            stems: HashMap::default(),
            extensionless: HashMap::default(),
            edges: Vec::new(),
        };
        for (index, file) in bundle.files.iter().enumerate() {
            // The file's folders, innermost first, each leading to what is directly in it.
            let mut child = index;
            let mut path = file.path.as_str();
            while let Some((folder, _)) = path.rsplit_once('/') {
                let (node, new) = nodes.folder(folder);
                nodes.edges[node - first].push(child);
                if !new {
                    break;
                }
                child = node;
                path = folder;
            }
            if let Some((without, _)) = file.path.rsplit_once('.')
                && !without.ends_with('/')
            {
                nodes.extensionless.entry(without).or_insert(index);
            }
            let name = file.file_name();
            nodes.dotless_names |= !name.contains('.');
            let node = nodes.node_for(name, true);
            nodes.edges[node - first].push(index);
            if is_code(name)
                && let Some((stem, _)) = name.rsplit_once('.')
                && stem.len() >= 2
            {
                let node = nodes.node_for(stem, false);
                nodes.edges[node - first].push(index);
            }
        }
        nodes
    }

    /// The node of `folder`, and whether it is new.
    fn folder(&mut self, folder: &'a str) -> (usize, bool) {
        if let Some(&node) = self.folders.get(folder) {
            return (node, false);
        }
        let node = self.first + self.edges.len();
        self.edges.push(Vec::new());
        self.folders.insert(folder, node);
        // Named alone, only a folder inside another one: every SKILL.md says `references`.
        if let Some((_, name)) = folder.rsplit_once('/') {
            self.folder_names.entry(name).or_default().push(node);
        }
        (node, true)
    }

    fn node_for(&mut self, key: &'a str, name: bool) -> usize {
        let map = if name {
            &mut self.names
        } else {
            &mut self.stems
        };
        if let Some(&node) = map.get(key) {
            return node;
        }
        let node = self.first + self.edges.len();
        map.insert(key, node);
        self.edges.push(Vec::new());
        node
    }

    /// The nodes `text` (in folder `base`) mentions, other than `own`.
    fn targets(
        &self,
        text: &str,
        base: &str,
        fences: &[std::ops::Range<usize>],
        code: bool,
        own: usize,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        for Mention { path, written, .. } in mentions(text, base, fences) {
            let from_root = super::files::normalise(&written);
            if let Some(node) = [path, from_root]
                .into_iter()
                .flatten()
                .find_map(|path| self.at(&path))
            {
                out.push(node);
            }
        }
        // Most words of prose can name nothing here: only those that can are hashed, and each
        // once.
        let folders = !self.folder_names.is_empty();
        let stems = code && !self.stems.is_empty();
        let mut seen: HashSet<&str> = HashSet::default();
        // Without names lacking a `.`, nested folders or code stems, only dotted words can
        // name something, and they are found from their dots.
        let every_word = self.dotless_names || folders || stems;
        let dotted = (!every_word).then(|| dotted_words(text));
        let all = every_word.then(|| words(text));
        for word in dotted
            .into_iter()
            .flatten()
            .chain(all.into_iter().flatten())
        {
            let name = word
                .as_bytes()
                .iter()
                .rposition(|&b| b == b'/')
                .map_or(word, |slash| &word[slash + 1..]);
            let as_name = self.dotless_names || name.as_bytes().contains(&b'.');
            let as_folder = folders && name.len() >= 4;
            if !(as_name || as_folder || stems) || !seen.insert(word) {
                continue;
            }
            if as_name && let Some(&node) = self.names.get(name) {
                out.push(node);
            }
            if as_folder && let Some(found) = self.folder_names.get(name) {
                out.extend(found.iter().copied());
            }
            if stems {
                for part in word.split(['/', '.']) {
                    if let Some(&node) = self.stems.get(part) {
                        out.push(node);
                    }
                }
            }
        }
        out.retain(|&at| at != own);
        out
    }

    /// The node of the file or folder at `path`.
    fn at(&self, path: &str) -> Option<usize> {
        let path = path.trim_end_matches('/');
        if path.is_empty() {
            return None;
        }
        self.bundle
            .files
            .binary_search_by(|file| file.path.as_str().cmp(path))
            .ok()
            .or_else(|| self.folders.get(path).copied())
            .or_else(|| self.extensionless.get(path).copied())
    }
}

/// Runs of path characters (letters, digits, `_-./`) in `text`, without trailing punctuation.
/// A byte scan: most of a text is ASCII, and only other characters are decoded.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            // Skip to a word's start, then to its end.
            let mut start = None;
            while at < bytes.len() {
                let (is_path, len) = path_char(text, at);
                if is_path && start.is_none() {
                    start = Some(at);
                } else if !is_path && start.is_some() {
                    break;
                }
                at += len;
            }
            let start = start?;
            let word = text[start..at].trim_end_matches(['.', '-', '/']);
            if !word.is_empty() {
                return Some(word);
            }
        }
    })
}

/// The words of `text`, as [`words`] gives them, whose last part has a `.` (`schema.json`,
/// `lib/util.py`): found from each `.`, without looking at the words between.
fn dotted_words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(offset) = memchr::memchr(b'.', &bytes[from..]) {
            let dot = from + offset;
            // The word around the dot: it starts after the last word looked at ended.
            let mut start = dot;
            while let Some(c) = text[..start].chars().next_back()
                && (c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
            {
                start -= c.len_utf8();
            }
            let mut end = dot;
            while end < bytes.len() {
                let (is_path, len) = path_char(text, end);
                if !is_path {
                    break;
                }
                end += len;
            }
            from = end;
            let word = text[start..end].trim_end_matches(['.', '-', '/']);
            let name = word.rsplit('/').next().unwrap_or(word);
            if name.contains('.') {
                return Some(word);
            }
        }
        None
    })
}

/// Whether the character at byte `at` of `text` is a path character, and its length.
fn path_char(text: &str, at: usize) -> (bool, usize) {
    let byte = text.as_bytes()[at];
    if byte.is_ascii() {
        return (
            byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.' | b'/'),
            1,
        );
    }
    let c = text[at..]
        .chars()
        .next()
        .unwrap_or(char::REPLACEMENT_CHARACTER);
    (c.is_alphanumeric(), c.len_utf8())
}

/// Template paths (`references/{lang}.md`) found in the texts, and which text wrote each.
#[derive(Default)]
struct Templates {
    patterns: Vec<String>,
    /// The node of the text that wrote each pattern (SKILL.md's is past the files).
    owners: Vec<usize>,
    seen: HashSet<(String, usize)>,
}

impl Templates {
    fn collect(&mut self, text: &str, base: &str, owner: usize) {
        // A template path has a placeholder beside a `/`: most texts have none, and skip the
        // scan.
        if !["/{", "}/", "/<", ">/", "/*", "*/", "/$"]
            .iter()
            .any(|pair| text.contains(pair))
        {
            return;
        }
        for found in template_pattern().find_iter(text) {
            if self.patterns.len() >= MAX_TEMPLATES {
                return;
            }
            let written = found.as_str();
            // Prose, not a path: nor is it compiled into the set.
            if written.len() > MAX_TEMPLATE {
                continue;
            }
            let written = written
                .strip_prefix("${CLAUDE_SKILL_DIR}/")
                .or_else(|| written.strip_prefix("{baseDir}/"))
                .unwrap_or(written);
            if !written.contains(['{', '<', '$', '*']) || !written.contains('/') {
                continue;
            }
            for prefix in [base, ""] {
                let Some(regex) = to_regex(prefix, written) else {
                    continue;
                };
                if self.seen.insert((regex.clone(), owner)) {
                    self.patterns.push(regex);
                    self.owners.push(owner);
                }
                if base.is_empty() {
                    break;
                }
            }
        }
    }

    fn compile(&self) -> Option<RegexSet> {
        if self.patterns.is_empty() {
            return None;
        }
        RegexSetBuilder::new(&self.patterns)
            .size_limit(8 << 20)
            .build()
            .ok()
    }
}

/// A path with `{x}`, `<x>`, `$X`, `${X}` or `*` parts, at least one `/`, and nothing else.
fn template_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        let part = r"(?:[A-Za-z0-9_.\-]|\{[A-Za-z0-9_\-|]{1,40}\}|<[A-Za-z0-9_\-| ]{1,40}>|\$\{?[A-Za-z_][A-Za-z0-9_]{0,40}\}?|\*{1,2})+";
        Regex::new(&format!("{part}(?:/{part})+")).expect("a valid pattern")
    })
}

/// An anchored regex matching the bundled paths `written` (in folder `base`) stands for.
fn to_regex(base: &str, written: &str) -> Option<String> {
    let written = written.trim_start_matches("./");
    // Some folder or name must be written out: `{dir}/{id}.md` could be any file.
    let literal = written
        .split('/')
        .any(|part| !part.is_empty() && part != ".." && !part.contains(['{', '<', '$', '*']));
    if !literal {
        return None;
    }
    let mut parts: Vec<String> = Vec::new();
    for part in base.split('/').filter(|p| !p.is_empty()) {
        parts.push(regex::escape(part));
    }
    for part in written.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            "**" => parts.push(".*".to_owned()),
            part => parts.push(part_regex(part)),
        }
    }
    if parts.is_empty() || parts.iter().all(|p| p == "[^/]*" || p == ".*") {
        return None;
    }
    Some(format!("^{}$", parts.join("/")))
}

/// One path part, its placeholders turned into `[^/]*`.
fn part_regex(part: &str) -> String {
    static PLACEHOLDER: OnceLock<Regex> = OnceLock::new();
    let placeholder = PLACEHOLDER.get_or_init(|| {
        Regex::new(r"\{[^}]*\}|<[^>]*>|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\*+")
            .expect("a valid pattern")
    });
    let mut out = String::new();
    let mut last = 0;
    for found in placeholder.find_iter(part) {
        out.push_str(&regex::escape(&part[last..found.start()]));
        out.push_str("[^/]*");
        last = found.end();
    }
    out.push_str(&regex::escape(&part[last..]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::lint::BundledFile;

    fn bundle(files: &[(&str, &str)]) -> Bundle {
        let mut files: Vec<BundledFile> = files
            .iter()
            .map(|(path, text)| BundledFile {
                path: (*path).to_owned(),
                full: path.into(),
                executable: false,
                text: Some((*text).to_owned()),
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Bundle { files }
    }

    fn paths(bundle: &Bundle, at: &[usize]) -> Vec<String> {
        at.iter().map(|&i| bundle.files[i].path.clone()).collect()
    }

    #[test]
    fn templates_names_imports_and_exemptions() {
        let b = bundle(&[
            ("references/python.md", "See [util](../scripts/util.py)"),
            ("references/go.md", ""),
            (
                "scripts/run.py",
                "from helpers import x\nload('schema.json')",
            ),
            ("scripts/helpers.py", ""),
            ("scripts/util.py", ""),
            ("assets/schema.json", ""),
            ("scripts/test_run.py", "import orphan_tested"),
            ("scripts/orphan_tested.py", ""),
            ("CHANGELOG.md", ""),
            ("references/old/notes.md", "[x](older.md)"),
            ("references/old/older.md", ""),
        ]);
        let g = Graph::build(
            &b,
            "Read references/{lang}.md, then run `scripts/run.py`.",
            &[],
        );
        let unreached: Vec<usize> = (0..b.files.len()).filter(|&i| !g.reached(i)).collect();
        assert_eq!(
            paths(&b, &unreached),
            ["references/old/notes.md", "references/old/older.md"]
        );
        assert_eq!(paths(&b, &g.orphans(|_| true)), ["references/old/notes.md"]);
        let util = b
            .files
            .iter()
            .position(|f| f.path == "scripts/util.py")
            .unwrap();
        assert_eq!(g.depth(util), Some(2));
    }

    #[test]
    fn words_are_runs_of_path_characters() {
        let slow = |text: &str| -> Vec<String> {
            text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
                .map(|word| word.trim_end_matches(['.', '-', '/']))
                .filter(|word| !word.is_empty())
                .map(str::to_owned)
                .collect()
        };
        for text in [
            "",
            "...",
            "Run `scripts/run.py`, then read references/a-b.md. Done.",
            "naïve café—über/straße ٣٤ 漢字.md “quoted/” e\u{301}x",
            "a/ -b- ./c/. ../d",
            "trailing-word",
            "a.b.c. x.y/z w/x.y... .hidden ..",
            "end. Next sentence.Then schema.json, lib/util.py; e.g. v1.2",
        ] {
            let fast: Vec<&str> = words(text).collect();
            assert_eq!(fast, slow(text), "{text:?}");
            let dotted: Vec<String> = slow(text)
                .into_iter()
                .filter(|word| word.rsplit('/').next().unwrap_or(word).contains('.'))
                .collect();
            assert_eq!(dotted_words(text).collect::<Vec<_>>(), dotted, "{text:?}");
        }
    }

    #[test]
    fn folders_and_paths_from_the_skill_folder() {
        let b = bundle(&[
            ("references/a/one.md", ""),
            ("references/a-b.md", ""),
            ("references/guide.md", "see references/a-b.md"),
        ]);
        let g = Graph::build(&b, "[all](references/a/) and [g](references/guide.md)", &[]);
        assert!((0..3).all(|i| g.reached(i)));
        assert_eq!(
            (0..3).map(|i| g.depth(i)).collect::<Vec<_>>(),
            [Some(2), Some(1), Some(1)]
        );
    }
}
