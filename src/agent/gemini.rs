//! Google Gemini CLI 0.61.0: where it finds skills, how it reads SKILL.md, which skills it
//! lists and what `activate_skill` returns.
//!
//! From the shipped bundle (`bundle/chunk-JDPZ4CE3.js`: `loadSkillsFromDir`,
//! `parseFrontmatter`, `parseSimpleFrontmatter`, `SkillManager.addSkillsWithPrecedence`,
//! `getFolderStructure`) and checked on the wire against the real CLI (docs/agents.md,
//! "Gemini CLI 0.61.0").

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::agent::collate;
use crate::agent::js::{is_js_space, js_trim};
use crate::skill::yaml::{self, NodeKind, Style};

/// Items `getFolderStructure` shows at most (files and folders together).
pub(crate) const MAX_ITEMS: usize = 200;
/// Folders `getFolderStructure` shows as `name/...` without reading them.
const IGNORED_FOLDERS: [&str; 4] = ["node_modules", ".git", "dist", "__pycache__"];

/// A skill as Gemini CLI loaded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Skill {
    /// Sanitised: `[:\\/<>*?"|]` become `-`; not trimmed.
    pub(crate) name: String,
    /// Exactly the YAML string (or the line scanner's text): not trimmed, not escaped.
    pub(crate) description: String,
    /// The file as found (symlinks not resolved).
    pub(crate) location: PathBuf,
    /// The text after the closing `---`, JavaScript-trimmed.
    pub(crate) body: String,
}

/// The skills folders Gemini CLI reads, lowest precedence first: `~/.gemini/skills`,
/// `~/.agents/skills`, then `<cwd>/.gemini/skills` and `<cwd>/.agents/skills` (the cwd only,
/// no ancestors). Builtin and extension skills are not modelled.
pub(crate) fn roots(cwd: Option<&Path>, home: Option<&Path>, user: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(home) = home {
        out.push(home.join(".gemini/skills"));
        out.push(home.join(".agents/skills"));
    }
    out.extend(user.iter().cloned());
    if let Some(cwd) = cwd {
        out.push(cwd.join(".gemini/skills"));
        out.push(cwd.join(".agents/skills"));
    }
    out
}

/// The names `skills.disabled` in `~/.gemini/settings.json` turns off (compared without case),
/// or `None` when `skills.enabled` is false (no skills at all).
pub(crate) fn disabled(home: &Path) -> Option<Vec<String>> {
    let Ok(text) =
        crate::fsx::read_text_capped(&home.join(".gemini/settings.json"), MAX_SETTINGS_BYTES)
    else {
        return Some(Vec::new());
    };
    let Ok(settings) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Some(Vec::new());
    };
    let skills = settings.get("skills");
    if skills.and_then(|s| s.get("enabled")) == Some(&serde_json::Value::Bool(false)) {
        return None;
    }
    Some(
        skills
            .and_then(|s| s.get("disabled"))
            .and_then(serde_json::Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(serde_json::Value::as_str)
                    .map(str::to_lowercase)
                    .collect()
            })
            .unwrap_or_default(),
    )
}

/// The most entries of one skills folder looked at.
const MAX_ENTRIES: usize = 100_000;

/// The largest settings file read.
const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

/// Loads the skills of `roots` as `SkillManager.discoverSkills` does: each root in turn, a
/// later skill of the same name (case-sensitive) replacing the earlier one's content at the
/// earlier one's position; then the disabled names (without case) removed.
pub(crate) fn load(roots: &[PathBuf], disabled: &[String]) -> Vec<Skill> {
    let mut skills: Vec<Skill> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for root in roots {
        for file in skill_files(root) {
            let Some(skill) = read(&file) else { continue };
            if let Some(&index) = at.get(&skill.name) {
                skills[index] = skill;
            } else {
                at.insert(skill.name.clone(), skills.len());
                skills.push(skill);
            }
        }
    }
    skills.retain(|skill| !disabled.contains(&skill.name.to_lowercase()));
    skills
}

/// The files glob `["SKILL.md", "*/SKILL.md"]` finds in `root`: the root's own `SKILL.md`,
/// then each folder's (not dot-folders nor `node_modules`; symlinks to folders and files
/// followed). Gemini's own order within a folder is not stable (usually descending by folder
/// name); this gives that usual order.
pub(crate) fn skill_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if !root.is_dir() {
        return out;
    }
    let own = root.join("SKILL.md");
    if own.is_file() {
        out.push(own);
    }
    let Ok(entries) = fs_err::read_dir(root) else {
        return out;
    };
    let mut folders: Vec<(Vec<u16>, PathBuf)> = entries
        .filter_map(Result::ok)
        .take(MAX_ENTRIES)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            (!name.starts_with('.') && name != "node_modules" && path.join("SKILL.md").is_file())
                .then(|| (name.encode_utf16().collect(), path.join("SKILL.md")))
        })
        .collect();
    folders.sort_by(|a, b| b.0.cmp(&a.0));
    out.extend(folders.into_iter().map(|(_, file)| file));
    out
}

/// One SKILL.md, or `None` when Gemini CLI skips it. The file is read as UTF-8 with invalid
/// bytes replaced.
pub(crate) fn read(file: &Path) -> Option<Skill> {
    let bytes = crate::fsx::read_capped(file, crate::skill::MAX_SKILL_FILE_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let (yaml, body) = split(&text)?;
    let (name, description) = parse_frontmatter(yaml)?;
    Some(Skill {
        name: sanitise(&name),
        description,
        location: file.to_path_buf(),
        body: js_trim(body).to_owned(),
    })
}

/// `FRONTMATTER_REGEX = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?/`: the frontmatter
/// and the body. The file must start with `---` and a line break (no byte-order mark, no
/// trailing spaces); the first later line that *starts* with `---` closes it, and the body is
/// what follows that line's break (empty when `---` is followed by anything else).
pub(crate) fn split(text: &str) -> Option<(&str, &str)> {
    let start = if text.starts_with("---\n") {
        4
    } else if text.starts_with("---\r\n") {
        5
    } else {
        return None;
    };
    let close = start + text[start..].find("\n---")?;
    let end = if close > start && text.as_bytes()[close - 1] == b'\r' {
        close - 1
    } else {
        close
    };
    let after = &text[close + 4..];
    let body = after
        .strip_prefix("\r\n")
        .or_else(|| after.strip_prefix('\n'))
        .unwrap_or("");
    Some((&text[start..end], body))
}

/// `parseFrontmatter`: js-yaml first; when that fails or `name` and `description` are not both
/// strings, the line scanner.
pub(crate) fn parse_frontmatter(yaml: &str) -> Option<(String, String)> {
    js_yaml_strings(yaml).or_else(|| scan(yaml))
}

/// `name` and `description` when js-yaml loads the frontmatter and both are strings.
fn js_yaml_strings(text: &str) -> Option<(String, String)> {
    if text.chars().any(is_non_printable) {
        return None;
    }
    let doc = yaml::parse(text, 0..text.len()).ok()?;
    let root = doc.root()?;
    let NodeKind::Mapping { entries, .. } = &doc.resolve(root).kind else {
        return None;
    };
    let mut name = None;
    let mut description = None;
    for (key, value) in entries {
        if let NodeKind::Scalar(scalar) = &doc.node(*value).kind
            && scalar.tagged
            && scalar.core_tag != "str"
        {
            // js-yaml throws on unknown tags; core tags other than !!str give no string.
            return None;
        }
        let Some(key) = doc.scalar(*key) else {
            continue;
        };
        let slot = match key.value.as_str() {
            "name" => &mut name,
            "description" => &mut description,
            _ => continue,
        };
        *slot = match &doc.resolve(*value).kind {
            NodeKind::Scalar(scalar) if is_js_string(scalar) => Some(scalar.value.clone()),
            _ => None,
        };
    }
    Some((name?, description?))
}

/// js-yaml's `PATTERN_NON_PRINTABLE`: what makes `load` throw.
fn is_non_printable(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{7F}'..='\u{84}' | '\u{86}'..='\u{9F}' | '\u{FFFE}' | '\u{FFFF}')
}

/// Whether js-yaml's default schema reads the scalar as a string: quoted, block, `!!str`, or
/// plain and not a null, boolean, integer, float or timestamp.
fn is_js_string(scalar: &yaml::Scalar) -> bool {
    if scalar.tagged {
        return scalar.core_tag == "str";
    }
    if scalar.style != Style::Plain {
        return true;
    }
    let v = scalar.value.as_str();
    !(matches!(
        v,
        "" | "~"
            | "null"
            | "Null"
            | "NULL"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
    ) || js_int(v)
        || js_float(v)
        || js_timestamp(v))
}

/// js-yaml 4's `resolveYamlInteger`.
fn js_int(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let based = |digits: &str, ok: fn(char) -> bool| {
        digits.chars().any(|c| c != '_')
            && digits.chars().all(|c| c == '_' || ok(c))
            && !digits.ends_with('_')
    };
    if body == "0" {
        return true;
    }
    if let Some(rest) = body.strip_prefix("0b") {
        return based(rest, |c| matches!(c, '0' | '1'));
    }
    if let Some(rest) = body.strip_prefix("0x") {
        return based(rest, |c| c.is_ascii_hexdigit());
    }
    if let Some(rest) = body.strip_prefix("0o") {
        return based(rest, |c| matches!(c, '0'..='7'));
    }
    !body.starts_with('_') && based(body, |c| c.is_ascii_digit())
}

/// js-yaml 4's `YAML_FLOAT_PATTERN` (and no trailing `_`).
fn js_float(text: &str) -> bool {
    if text.ends_with('_') {
        return false;
    }
    if matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    let exponent_ok = |e: &str| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
    };
    let split_exp = |s: &str| match s.find(['e', 'E']) {
        Some(at) => (s[..at].to_owned(), Some(s[at + 1..].to_owned())),
        None => (s.to_owned(), None),
    };
    // `.[0-9_]+` with an optional exponent, unsigned only.
    if let Some(rest) = text.strip_prefix('.') {
        let (digits, exp) = split_exp(rest);
        return !digits.is_empty()
            && digits.chars().all(|c| c.is_ascii_digit() || c == '_')
            && exp.as_deref().is_none_or(exponent_ok);
    }
    let (mantissa, exp) = split_exp(unsigned);
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole.to_owned(), Some(fraction.to_owned())),
        None => (mantissa.clone(), None),
    };
    whole.starts_with(|c: char| c.is_ascii_digit())
        && whole.chars().all(|c| c.is_ascii_digit() || c == '_')
        && fraction
            .as_deref()
            .is_none_or(|f| f.chars().all(|c| c.is_ascii_digit() || c == '_'))
        && exp.as_deref().is_none_or(exponent_ok)
}

/// js-yaml's timestamp type: `YYYY-MM-DD`, or a date and time.
fn js_timestamp(text: &str) -> bool {
    static DATE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static TIME: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let date = DATE.get_or_init(|| {
        regex::Regex::new(r"^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$").expect("valid")
    });
    let time = TIME.get_or_init(|| {
        regex::Regex::new(r"^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?$").expect("valid")
    });
    date.is_match(text) || time.is_match(text)
}

/// `parseSimpleFrontmatter`: the last `name:` line's trimmed rest, and the last
/// `description:` line's trimmed rest plus each following line that starts with a space or
/// tab and has content, trimmed, joined by single spaces (empty parts dropped). Keys may be
/// indented. Both must be present.
pub(crate) fn scan(yaml: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = split_js_lines(yaml);
    let mut name = None;
    let mut description = None;
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        if let Some(rest) = key_rest(line, "name") {
            name = Some(js_trim(rest).to_owned());
        } else if let Some(rest) = key_rest(line, "description") {
            let mut parts = vec![js_trim(rest).to_owned()];
            while let Some(next) = lines.get(index + 1) {
                let content = next.trim_start_matches([' ', '\t']);
                if content.len() == next.len() || !content.starts_with(|c: char| !is_js_space(c)) {
                    break;
                }
                parts.push(js_trim(next).to_owned());
                index += 1;
            }
            parts.retain(|part| !part.is_empty());
            description = Some(parts.join(" "));
        }
        index += 1;
    }
    Some((name?, description?))
}

/// `content.split(/\r?\n/)`.
fn split_js_lines(text: &str) -> Vec<&str> {
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect()
}

/// The rest of `line` for `/^\s*KEY:\s*(.*)$/`; `.` does not match `\r`, `\u2028` or `\u2029`.
fn key_rest<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let body = line.trim_start_matches(is_js_space);
    let rest = body.strip_prefix(key)?.strip_prefix(':')?;
    let rest = rest.trim_start_matches(is_js_space);
    (!rest.contains(['\r', '\u{2028}', '\u{2029}'])).then_some(rest)
}

/// `name.replace(/[:\\/<>*?"|]/g, "-")`.
pub(crate) fn sanitise(name: &str) -> String {
    name.chars()
        .map(|c| {
            if matches!(c, ':' | '\\' | '/' | '<' | '>' | '*' | '?' | '"' | '|') {
                '-'
            } else {
                c
            }
        })
        .collect()
}

/// The skill `activate_skill({name})` returns: the tool's schema only takes a listed name
/// exactly; the lookup is then without case, first in listing order.
pub(crate) fn activated<'a>(skills: &'a [Skill], name: &str) -> Result<&'a Skill, String> {
    if !skills.iter().any(|skill| skill.name == name) {
        return Err("params/name must be equal to one of the allowed values".into());
    }
    let lower = name.to_lowercase();
    skills
        .iter()
        .find(|skill| skill.name.to_lowercase() == lower)
        .ok_or_else(|| format!("Skill \"{name}\" not found"))
}

/// A folder read by `readFullStructure`.
struct Folder {
    name: String,
    files: Vec<String>,
    folders: Vec<usize>,
    ignored: bool,
    more_files: bool,
    more_folders: bool,
}

impl Folder {
    fn new(name: &str, ignored: bool) -> Self {
        Self {
            name: name.to_owned(),
            files: Vec::new(),
            folders: Vec::new(),
            ignored,
            more_files: false,
            more_folders: false,
        }
    }
}

/// A folder as `getFolderStructure` shows it: breadth first, at most [`MAX_ITEMS`] items; in
/// each folder its files, then its folders, each sorted by `localeCompare`; symlinks not
/// shown; `node_modules`, `.git`, `dist` and `__pycache__` shown as `name/...`.
pub(crate) fn folder_structure(dir: &Path) -> String {
    let folders = read_structure(dir);
    let mut lines = Vec::new();
    format_structure(&folders, 0, "", true, true, &mut lines);
    let mut summary = format!("Showing up to {MAX_ITEMS} items (files + folders).");
    if truncated(&folders, 0) {
        let _ = write!(
            summary,
            " Folders or files indicated with ... contain more items not shown, were ignored, or the display limit ({MAX_ITEMS} items) was reached."
        );
    }
    let dir = dir.to_string_lossy();
    let slash = if dir.ends_with('/') { "" } else { "/" };
    format!("{summary}\n\n{dir}{slash}\n{}", lines.join("\n"))
}

/// `readFullStructure`: the folders, the root first.
fn read_structure(dir: &Path) -> Vec<Folder> {
    let mut folders = vec![Folder::new("", false)];
    let mut queue = std::collections::VecDeque::from([(0usize, dir.to_path_buf())]);
    let mut count = 0;
    while let Some((id, path)) = queue.pop_front() {
        if count >= MAX_ITEMS {
            continue;
        }
        let Ok(read) = fs_err::read_dir(&path) else {
            continue;
        };
        let mut entries: Vec<(String, std::fs::FileType)> = read
            .filter_map(Result::ok)
            .filter_map(|e| {
                Some((
                    e.file_name().to_string_lossy().into_owned(),
                    e.file_type().ok()?,
                ))
            })
            .collect();
        entries.sort_by(|a, b| collate::compare(&a.0, &b.0));
        for (name, kind) in &entries {
            if kind.is_file() {
                if count >= MAX_ITEMS {
                    folders[id].more_files = true;
                    break;
                }
                folders[id].files.push(name.clone());
                count += 1;
            }
        }
        for (name, kind) in &entries {
            if kind.is_dir() {
                if count >= MAX_ITEMS {
                    folders[id].more_folders = true;
                    break;
                }
                let ignored = IGNORED_FOLDERS.contains(&name.as_str());
                folders.push(Folder::new(name, ignored));
                let child = folders.len() - 1;
                folders[id].folders.push(child);
                count += 1;
                if !ignored {
                    queue.push_back((child, path.join(name)));
                }
            }
        }
    }
    folders
}

fn truncated(folders: &[Folder], id: usize) -> bool {
    let folder = &folders[id];
    folder.more_files
        || folder.more_folders
        || folder.ignored
        || folder
            .folders
            .iter()
            .any(|&child| truncated(folders, child))
}

/// `formatStructure`.
fn format_structure(
    folders: &[Folder],
    id: usize,
    indent: &str,
    last: bool,
    root: bool,
    out: &mut Vec<String>,
) {
    let folder = &folders[id];
    let connector = if last { "└───" } else { "├───" };
    if !root || folder.ignored {
        out.push(format!(
            "{indent}{connector}{}/{}",
            folder.name,
            if folder.ignored { "..." } else { "" }
        ));
    }
    let inner = if root {
        String::new()
    } else {
        format!("{indent}{}", if last { "    " } else { "│   " })
    };
    let no_folders = folder.folders.is_empty() && !folder.more_folders;
    for (index, file) in folder.files.iter().enumerate() {
        let last_file = index + 1 == folder.files.len() && no_folders;
        out.push(format!(
            "{inner}{}{file}",
            if last_file {
                "└───"
            } else {
                "├───"
            }
        ));
    }
    if folder.more_files {
        out.push(format!(
            "{inner}{}...",
            if no_folders {
                "└───"
            } else {
                "├───"
            }
        ));
    }
    for (index, &child) in folder.folders.iter().enumerate() {
        let last_folder = index + 1 == folder.folders.len() && !folder.more_folders;
        format_structure(folders, child, &inner, last_folder, false, out);
    }
    if folder.more_folders {
        out.push(format!("{inner}└───..."));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters() {
        assert_eq!(
            split("---\nname: a\n---\nBody\n"),
            Some(("name: a", "Body\n"))
        );
        assert_eq!(
            split("---\r\nname: a\r\n---\r\nB\r\n"),
            Some(("name: a", "B\r\n"))
        );
        assert_eq!(split("---\nname: a\n---x\nB"), Some(("name: a", "")));
        assert_eq!(split("\u{feff}---\nname: a\n---\n"), None);
        assert_eq!(split("---  \nname: a\n---\n"), None);
        assert_eq!(split("---\nname: a\n...\n"), None);
    }

    #[test]
    fn yaml_then_scanner() {
        let p = |y: &str| parse_frontmatter(y);
        assert_eq!(
            p("name: a\ndescription: \"  padded  \""),
            Some(("a".into(), "  padded  ".into()))
        );
        assert_eq!(
            p("name: a\ndescription: first\n  second\n\n  third"),
            Some(("a".into(), "first second\nthird".into()))
        );
        assert_eq!(
            p("name: 123\ndescription: d"),
            Some(("123".into(), "d".into()))
        );
        assert_eq!(
            p("name: a\ndescription: a: b"),
            Some(("a".into(), "a: b".into()))
        );
        assert_eq!(
            p("name: a\ndescription: !custom thing"),
            Some(("a".into(), "!custom thing".into()))
        );
        assert_eq!(
            p("name: a\ndescription: [a, b]"),
            Some(("a".into(), "[a, b]".into()))
        );
        assert_eq!(
            p("name: a\ndescription: 2024-01-01"),
            Some(("a".into(), "2024-01-01".into()))
        );
        assert_eq!(
            p("name: \"x\"\ndescription:"),
            Some(("\"x\"".into(), String::new()))
        );
        assert_eq!(
            p("name: a\ndescription: \"\""),
            Some(("a".into(), String::new()))
        );
        assert_eq!(
            p("name: a\nmetadata:\n  name: b\ndescription: x: y"),
            Some(("b".into(), "x: y".into()))
        );
        assert_eq!(p("Name: a\ndescription: d"), None);
        assert_eq!(p("description: d"), None);
    }

    #[test]
    fn scalars_js_yaml_reads_as_strings() {
        let plain = |v: &str| yaml::Scalar {
            value: v.into(),
            style: Style::Plain,
            tagged: false,
            core_tag: String::new(),
        };
        for text in [
            "1_000",
            "0x1F",
            "0o17",
            "017",
            "1e3",
            "1.50",
            ".5",
            "0.",
            "+12",
            "true",
            "~",
            "2024-01-01",
        ] {
            assert!(!is_js_string(&plain(text)), "{text}");
        }
        for text in ["-.5", "0o8", "0xg", "yes", "on", "1:30", "0b", "hello"] {
            assert!(is_js_string(&plain(text)), "{text}");
        }
    }

    #[test]
    fn sanitises_names() {
        assert_eq!(sanitise("a:b/c\\d<e>f*g?h\"i|j"), "a-b-c-d-e-f-g-h-i-j");
        assert_eq!(sanitise("  My  Skill  "), "  My  Skill  ");
    }

    #[test]
    fn activation_needs_a_listed_name() {
        let skill = |name: &str| Skill {
            name: name.into(),
            description: String::new(),
            location: PathBuf::from("/x/SKILL.md"),
            body: name.into(),
        };
        let skills = [skill("Clash"), skill("clash")];
        assert_eq!(
            activated(&skills, "clash").map(|s| s.body.as_str()),
            Ok("Clash")
        );
        assert!(activated(&skills, "CLASH").is_err());
    }
}
