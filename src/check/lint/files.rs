//! Lint rules about the skill's files: what SKILL.md refers to, what it never mentions, scripts,
//! documents for people, placeholders and secrets.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::{Bundle, BundledFile, LintContext};
use crate::check::diagnostic::Diagnostic;
use crate::check::rule::{
    BROKEN_REFERENCE, EXTRANEOUS_DOCUMENT, NESTED_REFERENCE, PLACEHOLDER_TEXT,
    REFERENCE_WITHOUT_TOC, SCRIPT_MISSING_SHEBANG, SCRIPT_NOT_EXECUTABLE, SECRET_FILE,
    SECRET_IN_CONTENT, UNREFERENCED_FILE,
};
use crate::skill::Skill;
use crate::skill::secrets::secret_file_kind;

/// The folders the spec defines.
const RESOURCE_FOLDERS: [&str; 3] = ["scripts", "references", "assets"];

/// Documents for people that do not belong in a skill.
const EXTRANEOUS: &[&str] = &[
    "readme.md",
    "changelog.md",
    "install.md",
    "installation.md",
    "installation_guide.md",
    "quick_reference.md",
    "contributing.md",
];

/// Extensions of files that are meant to be run.
const SCRIPT_EXTENSIONS: &[&str] = &[
    "py", "sh", "bash", "zsh", "fish", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "lua",
];

/// A reference file longer than this needs a table of contents.
const TOC_THRESHOLD: usize = 100;

/// Findings that need only the file list.
pub(super) fn check_bundle(skill: &Skill, bundle: &Bundle, out: &mut Vec<Diagnostic>) {
    let _ = skill;
    for file in &bundle.files {
        let name = file.file_name();
        let lower = name.to_ascii_lowercase();
        if let Some(kind) = secret_file_kind(&lower) {
            out.push(
                Diagnostic::error(&SECRET_FILE, format!("`{}` looks like {kind}", file.path))
                    .in_file(file.path.clone(), None)
                    .note("every file in the skill folder ships with it")
                    .help("delete it from the skill; read secrets from the environment instead"),
            );
        }
        if file.folder() != Some("assets") && EXTRANEOUS.contains(&lower.as_str()) {
            out.push(
                Diagnostic::warning(&EXTRANEOUS_DOCUMENT, format!("`{}` is written for people; agents never read it", file.path))
                    .in_file(file.path.clone(), None)
                    .help("move what the agent needs into SKILL.md or references/, and keep the rest outside the skill folder"),
            );
        }
        if file.folder() == Some("scripts") && !file.is_hidden() {
            check_script(file, out);
        }
    }
}

fn check_script(file: &BundledFile, out: &mut Vec<Diagnostic>) {
    let name = file.file_name();
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    let text = file.text.as_deref().unwrap_or_default();
    let shebang = text.starts_with("#!");
    if shebang && !file.executable {
        out.push(
            Diagnostic::warning(
                &SCRIPT_NOT_EXECUTABLE,
                format!("`{}` has a shebang but is not executable", file.path),
            )
            .in_file(file.path.clone(), Some(1))
            .help(format!("run `chmod +x {}` and commit the mode", file.path)),
        );
    }
    let is_script = extension
        .as_deref()
        .is_some_and(|ext| SCRIPT_EXTENSIONS.contains(&ext));
    let module =
        name.starts_with('_') || (extension.as_deref() == Some("py") && !text.contains("__main__"));
    if is_script && !shebang && !module && file.text.is_some() {
        let interpreter = match extension.as_deref() {
            Some("py") => "python3",
            Some("js" | "mjs" | "cjs") => "node",
            Some("rb") => "ruby",
            Some("pl") => "perl",
            Some("php") => "php",
            Some("lua") => "lua",
            Some("ts") => "npx tsx",
            Some(shell) => shell,
            None => "sh",
        };
        out.push(
            Diagnostic::warning(
                &SCRIPT_MISSING_SHEBANG,
                format!("`{}` has no shebang line", file.path),
            )
            .in_file(file.path.clone(), Some(1))
            .help(format!("start it with `#!/usr/bin/env {interpreter}`")),
        );
    }
}

/// Link targets and paths longer than this are prose, not paths (and are not looked at, nor
/// quoted back in findings).
const MAX_LINK_TARGET: usize = 256;

/// A path a text refers to.
#[derive(Clone, Debug)]
struct Mention {
    /// Byte range in the text it was found in.
    range: Range<usize>,
    /// Relative to the skill folder, normalised; `None` when it leaves the skill folder.
    path: Option<String>,
    /// As written.
    written: String,
    link: bool,
}

/// Links and resource paths in `text`, resolving links against `base` (the folder of the file,
/// relative to the skill folder; empty for SKILL.md).
fn mentions(text: &str, base: &str, fences: &[Range<usize>]) -> Vec<Mention> {
    let mut out = Vec::new();
    // One scan finds every candidate; the loops below look at each kind.
    let hits: Vec<(usize, &str)> = mention_pattern()
        .find_iter(text)
        .map(|found| (found.start(), found.as_str()))
        .collect();
    links(text, base, fences, &hits, &mut out);
    // Resource paths written out: `scripts/x.py`, `${CLAUDE_SKILL_DIR}/references/y.md`.
    // Where the link targets are, merged into disjoint ranges (they were found in order).
    let mut link_ranges: Vec<Range<usize>> = Vec::with_capacity(out.len());
    for range in out.iter().map(|m| m.range.clone()) {
        match link_ranges.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => link_ranges.push(range),
        }
    }
    let bytes = text.as_bytes();
    for folder in RESOURCE_FOLDERS {
        let prefix = format!("{folder}/");
        // Where the run of path characters ends, shared by every mention inside one run (so
        // `./scripts/./scripts/…` costs its length, not its square).
        let mut run: Option<(usize, usize)> = None;
        for &(at, _) in hits.iter().filter(|(_, hit)| *hit == prefix) {
            let before = text[..at].chars().next_back();
            let allowed_before = match before {
                None => true,
                Some('/') => {
                    text[..at].ends_with("${CLAUDE_SKILL_DIR}/")
                        || text[..at].ends_with("{baseDir}/")
                        || (text[..at].ends_with("./") && !text[..at].ends_with("../"))
                }
                Some(c) => c.is_whitespace() || "`\"'([{<=,:".contains(c),
            };
            if !allowed_before {
                continue;
            }
            let from = at + prefix.len();
            let end = match run {
                Some((start, end)) if start <= from && from <= end => end,
                _ => {
                    let end = text[from..]
                        .find(|c: char| {
                            !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
                        })
                        .map_or(text.len(), |len| from + len);
                    run = Some((from, end));
                    end
                }
            };
            if end - at > MAX_LINK_TARGET {
                continue;
            }
            let next = bytes.get(end).copied();
            if next.is_some_and(|b| matches!(b, b'<' | b'{' | b'$' | b'[' | b'*')) {
                continue;
            }
            let written = text[at..end].trim_end_matches(['.', ',', ':', ';']);
            if written.trim_end_matches('/') == folder || super::in_ranges(&link_ranges, at) {
                continue;
            }
            out.push(Mention {
                range: at..at + written.len(),
                path: normalise(written),
                written: written.to_owned(),
                link: false,
            });
        }
    }
    out
}

/// Markdown links `](target)` among `hits`, outside `fences`, resolved against `base`.
fn links(
    text: &str,
    base: &str,
    fences: &[Range<usize>],
    hits: &[(usize, &str)],
    out: &mut Vec<Mention>,
) {
    // Markdown links: `](target)`. Where each target ends is found with one forward scan
    // shared by all of them, so a line of unclosed `[a](` costs no more than its length.
    let mut stop: Option<usize> = Some(0);
    for &(at, _) in hits.iter().filter(|(_, hit)| *hit == "](") {
        if super::in_ranges(fences, at) {
            continue;
        }
        let start = at + 2;
        if stop.is_some_and(|stop| stop < start) {
            stop = text[start..].find([')', '\n']).map(|len| start + len);
        }
        let Some(end) = stop else {
            continue;
        };
        let len = end - start;
        if len > MAX_LINK_TARGET {
            continue;
        }
        let raw = text[start..start + len].trim();
        let raw = raw
            .strip_prefix('<')
            .and_then(|r| r.strip_suffix('>'))
            .unwrap_or(raw);
        let target = raw.split_once(' ').map_or(raw, |(target, _)| target);
        let target = target.split(['#', '?']).next().unwrap_or_default();
        if target.is_empty()
            || target.contains("://")
            || target.starts_with(['/', '~', '$', '{'])
            || target.starts_with("mailto:")
            || target.starts_with("data:")
            || target.starts_with("tel:")
            || target.contains(['*', '<', '{'])
        {
            continue;
        }
        let decoded = target.replace("%20", " ");
        let joined = if base.is_empty() {
            decoded.clone()
        } else {
            format!("{base}/{decoded}")
        };
        let offset = start + text[start..start + len].find(target).unwrap_or(0);
        out.push(Mention {
            range: offset..offset + target.len(),
            path: normalise(&joined),
            written: target.to_owned(),
            link: true,
        });
    }
}

fn mention_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN
        .get_or_init(|| Regex::new(r"\]\(|scripts/|references/|assets/").expect("a valid pattern"))
}

/// `a/./b/../c` → `a/c`; `None` when it climbs out of the skill folder.
fn normalise(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// Files in the resource folders that lint expects SKILL.md to mention.
fn tracked(file: &BundledFile) -> bool {
    file.folder()
        .is_some_and(|folder| RESOURCE_FOLDERS.contains(&folder))
        && !file.is_hidden()
        && !file.path.contains("__pycache__/")
        && !has_extension(&file.path, "pyc")
}

/// Whether `path` ends in `.ext`, ignoring case.
fn has_extension(path: &str, ext: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, found)| found.eq_ignore_ascii_case(ext))
}

/// Whether `name` appears in `text` as a whole token.
fn names(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'))
            && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'))
    })
}

pub(super) fn check_references(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    let found = mentions(text, "", &cx.fences);
    let mut broken_seen = BTreeSet::new();
    for mention in &found {
        let exists = match &mention.path {
            Some(path) => cx.bundle.contains(path),
            None => cx.skill.dir.join(&mention.written).exists(),
        };
        if !exists && broken_seen.insert((mention.written.clone(), mention.range.start)) {
            out.push(
                Diagnostic::warning(
                    &BROKEN_REFERENCE,
                    format!("`{}` does not exist", mention.written),
                )
                .at(mention.range.clone())
                .label(if mention.link {
                    "link to a missing file"
                } else {
                    "no such file in the skill"
                })
                .help("fix the path, or add the file"),
            );
        }
    }

    // What SKILL.md covers: mentioned paths and folders, and file names.
    let covered_by = |file: &BundledFile, mentions: &[Mention], text: &str| {
        mentions
            .iter()
            .filter_map(|m| m.path.as_deref())
            .any(|path| {
                file.path == path
                    || (!path.is_empty() && file.path.starts_with(&format!("{path}/")))
            })
            || (file.file_name().contains('.') && names(text, file.file_name()))
    };
    let tracked: Vec<&BundledFile> = cx.bundle.files.iter().filter(|f| tracked(f)).collect();
    let mut reached: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    for file in &tracked {
        if covered_by(file, &found, text) {
            reached.insert(&file.path, None);
        }
    }
    // One level further: files mentioned by a file SKILL.md reaches.
    let mut via: BTreeMap<&str, &str> = BTreeMap::new();
    for file in tracked
        .iter()
        .filter(|f| reached.contains_key(f.path.as_str()))
    {
        let Some(content) = file.text.as_deref() else {
            continue;
        };
        let base = file.path.rsplit_once('/').map_or("", |(dir, _)| dir);
        let nested = mentions(content, base, &[]);
        for other in &tracked {
            if other.path != file.path
                && !reached.contains_key(other.path.as_str())
                && (covered_by(other, &nested, content)
                    || (other.folder() == Some("scripts")
                        && names(content, stem(other.file_name()))))
            {
                via.entry(&other.path).or_insert(&file.path);
            }
        }
    }
    for file in tracked {
        if reached.contains_key(file.path.as_str()) {
            continue;
        }
        match via.get(file.path.as_str()) {
            Some(parent) if file.folder() == Some("references") && has_extension(&file.path, "md") => out.push(
                Diagnostic::warning(&NESTED_REFERENCE, format!("`{}` is reached only through `{parent}`", file.path))
                    .in_file(file.path.clone(), None)
                    .note("agents often read part of a referenced file and miss what it points to; keep references one level deep")
                    .help("link it from SKILL.md, saying when to read it"),
            ),
            Some(_) => {}
            None => out.push(
                Diagnostic::warning(&UNREFERENCED_FILE, format!("SKILL.md never mentions `{}`", file.path))
                    .in_file(file.path.clone(), None)
                    .note("the agent only knows about files the instructions mention")
                    .help("say in SKILL.md what it is for and when to use it, or delete it"),
            ),
        }
    }
}

/// `reference-without-toc`.
pub(super) fn check_tables_of_contents(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    for file in &cx.bundle.files {
        if file.folder() == Some("references")
            && has_extension(&file.path, "md")
            && let Some(content) = &file.text
        {
            let lines = content.lines().count();
            if lines > TOC_THRESHOLD && !has_toc(content) {
                out.push(
                    Diagnostic::warning(
                        &REFERENCE_WITHOUT_TOC,
                        format!("`{}` is {lines} lines long and does not start with a table of contents", file.path),
                    )
                    .in_file(file.path.clone(), Some(1))
                    .note("agents often read only the top of a long file")
                    .help("add a `## Contents` list of its sections near the top"),
                );
            }
        }
    }
}

fn stem(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

/// A `Contents` heading, or three or more links to sections, in the first 40 lines.
fn has_toc(text: &str) -> bool {
    let mut anchor_links = 0;
    for line in text.lines().take(40) {
        let trimmed = line.trim();
        if trimmed.starts_with('#') {
            let heading = trimmed.trim_start_matches('#').trim().to_lowercase();
            if heading.contains("contents") || heading == "toc" || heading == "index" {
                return true;
            }
        }
        if (trimmed.starts_with('-')
            || trimmed.starts_with('*')
            || trimmed.starts_with(|c: char| c.is_ascii_digit()))
            && trimmed.contains("](#")
        {
            anchor_links += 1;
        }
    }
    anchor_links >= 3
}

fn placeholder_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"\bTODO[:(]|\[TODO\b|\bFIXME\b|\bTBD:|\bXXX:|(?i:lorem ipsum)|\bPLACEHOLDER\b")
            .expect("a valid pattern")
    })
}

/// Text files whose content reaches the model or the user as prose.
fn is_prose(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".txt", ".rst"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// The finding for placeholder text `found`, placed by the caller.
fn placeholder(found: &str) -> Diagnostic {
    Diagnostic::warning(
        &PLACEHOLDER_TEXT,
        format!("`{}` looks like text left from a template", found.trim()),
    )
    .help("finish or remove it before sharing the skill")
}

pub(super) fn check_placeholders(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let pattern = placeholder_pattern();
    let text = cx.text();
    let mut lines = BTreeSet::new();
    for found in pattern.find_iter(text) {
        if lines.insert(cx.source.position(found.start()).line) {
            out.push(placeholder(found.as_str()).at(found.range()));
        }
    }
    for file in &cx.bundle.files {
        let (true, Some(content)) = (is_prose(&file.path), &file.text) else {
            continue;
        };
        let mut seen = BTreeSet::new();
        for found in pattern.find_iter(content) {
            let line = content[..found.start()].matches('\n').count() + 1;
            if seen.insert(line) {
                out.push(placeholder(found.as_str()).in_file(file.path.clone(), Some(line)));
            }
        }
    }
}

fn secret_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(concat!(
            r"(?P<aws>\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)",
            r"|(?P<github>\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{40,})\b)",
            r"|(?P<anthropic>\bsk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_-]{40,})",
            r"|(?P<openai>\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{40,})",
            r"|(?P<google>\bAIza[0-9A-Za-z_-]{35}\b)",
            r"|(?P<slack>\bxox[baprs]-[0-9A-Za-z-]{10,})",
            r"|(?P<private>-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----)",
        ))
        .expect("a valid pattern")
    })
}

fn secret_kind(captures: &regex::Captures<'_>) -> &'static str {
    for (group, kind) in [
        ("aws", "an AWS access key"),
        ("github", "a GitHub token"),
        ("anthropic", "an Anthropic API key"),
        ("openai", "an OpenAI API key"),
        ("google", "a Google API key"),
        ("slack", "a Slack token"),
        ("private", "a private key"),
    ] {
        if captures.name(group).is_some() {
            return kind;
        }
    }
    "a secret"
}

/// Whether a match is an obvious example (`AKIAIOSFODNN7EXAMPLE`, `sk-ant-xxxx…`).
fn is_example(text: &str) -> bool {
    let upper = text.to_ascii_uppercase();
    let tail: Vec<char> = text.chars().rev().take(20).collect();
    upper.contains("EXAMPLE") || tail.iter().collect::<BTreeSet<_>>().len() <= 4
}

pub(super) fn check_secrets(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let pattern = secret_pattern();
    for captures in pattern.captures_iter(cx.text()) {
        let found = captures.get(0).expect("the whole match");
        if is_example(found.as_str()) {
            continue;
        }
        out.push(
            Diagnostic::error(
                &SECRET_IN_CONTENT,
                format!("this looks like {}", secret_kind(&captures)),
            )
            .at(found.range())
            .help("remove it and revoke it; read secrets from the environment instead"),
        );
    }
    for file in &cx.bundle.files {
        let Some(content) = &file.text else { continue };
        for captures in pattern.captures_iter(content) {
            let found = captures.get(0).expect("the whole match");
            if is_example(found.as_str()) {
                continue;
            }
            let line = content[..found.start()].matches('\n').count() + 1;
            out.push(
                Diagnostic::error(
                    &SECRET_IN_CONTENT,
                    format!(
                        "`{}` contains what looks like {}",
                        file.path,
                        secret_kind(&captures)
                    ),
                )
                .in_file(file.path.clone(), Some(line))
                .help("remove it and revoke it; read secrets from the environment instead"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_links_and_resource_paths() {
        let text = "See [guide](references/guide.md#top) and `scripts/run.py --help`, \
                    ${CLAUDE_SKILL_DIR}/assets/t.md, src/scripts/no.py, [web](https://x.y), \
                    [up](../other/SKILL.md), scripts/<name>.py, scripts/.";
        let found: Vec<(String, Option<String>)> = mentions(text, "", &[])
            .into_iter()
            .map(|m| (m.written, m.path))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "references/guide.md".to_owned(),
                    Some("references/guide.md".to_owned())
                ),
                ("../other/SKILL.md".to_owned(), None),
                (
                    "scripts/run.py".to_owned(),
                    Some("scripts/run.py".to_owned())
                ),
                ("assets/t.md".to_owned(), Some("assets/t.md".to_owned())),
            ]
        );
    }

    #[test]
    fn links_in_a_reference_resolve_against_its_folder() {
        let found = mentions("[b](b.md) [c](../assets/c.txt)", "references", &[]);
        let paths: Vec<Option<String>> = found.into_iter().map(|m| m.path).collect();
        assert_eq!(
            paths,
            [
                Some("references/b.md".to_owned()),
                Some("assets/c.txt".to_owned())
            ]
        );
    }

    #[test]
    fn secrets_and_examples() {
        let key = format!("sk-ant-api03-{}", "Ab1".repeat(30));
        assert!(secret_pattern().is_match(&key));
        assert!(secret_pattern().is_match("-----BEGIN OPENSSH PRIVATE KEY-----"));
        let example = "AKIAIOSFODNN7EXAMPLE";
        assert!(secret_pattern().is_match(example) && is_example(example));
        assert!(is_example(&format!("sk-ant-api03-{}", "x".repeat(50))));
        assert!(!secret_pattern().is_match("sk-ant-..."));
    }

    #[test]
    fn tables_of_contents() {
        assert!(has_toc("# API\n\n## Contents\n- a\n"));
        assert!(has_toc("# API\n- [A](#a)\n- [B](#b)\n- [C](#c)\n"));
        assert!(!has_toc("# API\n\nSome prose.\n"));
    }
}
