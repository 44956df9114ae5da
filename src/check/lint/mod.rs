//! The rules `lint` adds to `validate`'s: does the skill work well, not only load?
//!
//! Lint rules look at more than SKILL.md: the skill's other files (a [`Bundle`], read once) and,
//! for the set rules, every skill at once. They run once per skill, not per target, except the
//! Claude Code rules, which run per Claude Code target because each version behaves differently.
//! Findings then go through the same reporters as `validate`'s.

pub(crate) mod body;
mod description;
mod files;
pub(crate) mod frontmatter;
mod graph;
pub mod set;
pub mod suppress;

pub use description::PLACEHOLDER_DESCRIPTION;

use std::ops::Range;
use std::path::{Path, PathBuf};

use super::diagnostic::Diagnostic;
use super::rule::{Applies, Rule};
use crate::agent::{Family, Target};
use crate::skill::Skill;
use crate::skill::frontmatter::Split;
use crate::skill::model::SkillDoc;
use crate::skill::text::SourceText;
use crate::skill::yaml::Yaml;

/// Files larger than this are not read for text rules (placeholders, secrets, references).
const MAX_TEXT_BYTES: u64 = 1024 * 1024;

/// A file of the skill other than SKILL.md.
#[derive(Clone, Debug)]
pub struct BundledFile {
    /// Relative to the skill folder, with `/` separators.
    pub path: String,
    pub full: PathBuf,
    /// Only known for files under `scripts/`.
    pub executable: bool,
    /// The text, when the file is UTF-8 text of a readable size.
    pub text: Option<String>,
}

impl BundledFile {
    /// The top-level folder it is in (`scripts`, …), if any.
    pub fn folder(&self) -> Option<&str> {
        self.path.split_once('/').map(|(folder, _)| folder)
    }

    pub fn file_name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    /// Hidden, or inside a hidden folder.
    pub(crate) fn is_hidden(&self) -> bool {
        self.path.split('/').any(|part| part.starts_with('.'))
    }
}

/// Every file of a skill except its SKILL.md.
#[derive(Clone, Debug, Default)]
pub struct Bundle {
    pub files: Vec<BundledFile>,
}

impl Bundle {
    /// Reads what the text rules need from `files`, which are inside `dir`: the text of each
    /// (open, read, close), and the mode of scripts only.
    pub fn load(dir: &Path, files: Vec<PathBuf>) -> Self {
        let mut files: Vec<BundledFile> = files
            .into_iter()
            .filter_map(|full| {
                let relative = full.strip_prefix(dir).ok()?;
                let path = relative
                    .iter()
                    .map(|part| part.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                let (text, executable) = read_text(&full, path.starts_with("scripts/"));
                Some(BundledFile {
                    path,
                    full,
                    executable,
                    text,
                })
            })
            .collect();
        // Sorted as strings, the order `get` and `contains` search in (`Path`'s own order puts
        // `a/b` before `a-b`, which once hid files from both).
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Self { files }
    }

    pub fn get(&self, path: &str) -> Option<&BundledFile> {
        self.files
            .binary_search_by(|file| file.path.as_str().cmp(path))
            .ok()
            .map(|index| &self.files[index])
    }

    /// Whether a file is `path` with an extension added (`scripts/check` for
    /// `scripts/check.py`).
    pub fn contains_with_extension(&self, path: &str) -> bool {
        let prefix = format!("{path}.");
        let at = self
            .files
            .partition_point(|file| file.path.as_str() < prefix.as_str());
        self.files.get(at).is_some_and(|file| {
            file.path
                .strip_prefix(&prefix)
                .is_some_and(|extension| !extension.contains('/'))
        })
    }

    /// Whether `path` (relative, `/`-separated) is a file or a folder of the skill.
    pub fn contains(&self, path: &str) -> bool {
        let path = path.trim_end_matches('/');
        if path.is_empty() || path == "SKILL.md" || self.get(path).is_some() {
            return true;
        }
        let prefix = format!("{path}/");
        let at = self
            .files
            .partition_point(|file| file.path.as_str() < prefix.as_str());
        self.files
            .get(at)
            .is_some_and(|file| file.path.starts_with(&prefix))
    }
}

/// The file's text when it is UTF-8 without NUL bytes and at most [`MAX_TEXT_BYTES`] long, and,
/// when asked, whether it is executable.
fn read_text(path: &Path, mode: bool) -> (Option<String>, bool) {
    use std::io::Read as _;
    // Only regular files: a FIFO would block the read, a link to a device never end it.
    let Ok(file) = crate::fsx::open_regular(path) else {
        return (None, false);
    };
    let executable = mode
        && file
            .metadata()
            .is_ok_and(|metadata| is_executable(&metadata));
    let mut bytes = Vec::new();
    if file
        .take(MAX_TEXT_BYTES + 1)
        .read_to_end(&mut bytes)
        .is_err()
        || bytes.len() as u64 > MAX_TEXT_BYTES
        || bytes[..bytes.len().min(8192)].contains(&0)
    {
        return (None, executable);
    }
    (String::from_utf8(bytes).ok(), executable)
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    true
}

/// What lint rules look at.
pub(crate) struct LintContext<'a> {
    pub skill: &'a Skill,
    pub source: &'a SourceText,
    pub bundle: &'a Bundle,
    /// The frontmatter as skillpkg reads it, when it parsed.
    pub yaml: Option<&'a Yaml>,
    pub doc: Option<&'a SkillDoc>,
    /// Where the body starts in the text.
    pub body_start: usize,
    /// Fenced code blocks in the body, as byte ranges of the text.
    pub fences: Vec<Range<usize>>,
    /// The targets the skill is checked for.
    pub targets: &'a [Target],
}

impl LintContext<'_> {
    pub(crate) fn text(&self) -> &str {
        self.source.text()
    }

    pub(crate) fn body(&self) -> &str {
        &self.source.text()[self.body_start..]
    }

    pub(crate) fn in_fence(&self, offset: usize) -> bool {
        in_ranges(&self.fences, offset)
    }
}

/// Runs every lint rule over one skill for `targets`.
pub fn lint(skill: &Skill, bundle: &Bundle, targets: &[Target]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if skill.link_target().is_some() {
        return out;
    }
    files::check_bundle(skill, bundle, &mut out);
    let Ok(source) = skill.source() else {
        return tag(out, targets);
    };
    let Some(reading) = skill.reading() else {
        return tag(out, targets);
    };
    let (_, body_start) = layout(skill);
    let yaml = reading
        .yaml
        .as_ref()
        .and_then(|parsed| parsed.as_ref().ok());
    let cx = LintContext {
        skill,
        source,
        bundle,
        yaml,
        doc: reading.doc.as_ref(),
        body_start,
        fences: fences(source.text(), body_start),
        targets,
    };
    frontmatter::check(&cx, &mut out);
    description::check(&cx, &mut out);
    body::check(&cx, &mut out);
    files::check_references(&cx, &mut out);
    files::check_scripts(&cx, &mut out);
    files::check_tables_of_contents(&cx, &mut out);
    files::check_placeholders(&cx, &mut out);
    files::check_secrets(&cx, &mut out);
    let mut tagged = tag(out, targets);
    let mut index = Index::default();
    for (at, diagnostic) in tagged.iter().enumerate() {
        index.entry(place(diagnostic)).or_default().push(at);
    }
    for &target in targets {
        if target.family() == (Family::ClaudeCode { modern: true })
            || target.family() == (Family::ClaudeCode { modern: false })
        {
            let mut found = Vec::new();
            description::check_claude_code(&cx, target, &mut found);
            body::check_claude_code(&cx, target, &mut found);
            frontmatter::check_claude_code(&cx, target, &mut found);
            for mut diagnostic in found {
                diagnostic.targets = vec![target];
                merge(&mut tagged, &mut index, diagnostic, target);
            }
        }
    }
    let leaving: Vec<Target> = targets
        .iter()
        .copied()
        .filter(|target| target.leaves_claude_skill_dir())
        .collect();
    if !leaving.is_empty() {
        let mut found = Vec::new();
        body::check_claude_only_variables(&cx, &leaving, &mut found);
        for mut diagnostic in found {
            diagnostic.targets.clone_from(&leaving);
            tagged.push(diagnostic);
        }
    }
    tagged
}

/// The frontmatter's YAML range (if any) and where the body starts, as skillpkg reads the file.
fn layout(skill: &Skill) -> (Option<Range<usize>>, usize) {
    match skill.reading().map(|reading| &reading.split) {
        Some(Split::Found(region)) => (Some(region.yaml.clone()), region.body),
        _ => (None, 0),
    }
}

/// The suppression comments of a skill.
pub fn suppressions(skill: &Skill) -> suppress::Suppressions {
    let Ok(source) = skill.source() else {
        return suppress::Suppressions::default();
    };
    let (frontmatter, body_start) = layout(skill);
    let fences = fences(source.text(), body_start);
    suppress::Suppressions::new(suppress::parse(source, frontmatter, body_start, &fences))
}

/// Target-independent findings belong to every target.
fn tag(out: Vec<Diagnostic>, targets: &[Target]) -> Vec<Diagnostic> {
    out.into_iter()
        .map(|mut diagnostic| {
            debug_assert!(
                diagnostic.rule.applies == Applies::All,
                "{}",
                diagnostic.rule.code
            );
            diagnostic.targets = targets.to_vec();
            diagnostic
        })
        .collect()
}

/// Where findings are, by place and message: merging looks up, never scans.
type Index = std::collections::HashMap<(crate::check::diagnostic::Place, String), Vec<usize>>;

fn place(diagnostic: &Diagnostic) -> (crate::check::diagnostic::Place, String) {
    (diagnostic.place(), diagnostic.message.clone())
}

/// Adds a finding of one target, merging it with the same finding of another.
fn merge(all: &mut Vec<Diagnostic>, index: &mut Index, found: Diagnostic, target: Target) {
    let key = place(&found);
    let seen = index
        .get(&key)
        .and_then(|at| at.iter().copied().find(|&at| all[at].rule == found.rule));
    if let Some(at) = seen {
        all[at].targets.push(target);
    } else {
        index.entry(key).or_default().push(all.len());
        all.push(found);
    }
}

/// Fenced code blocks (```` ``` ```` or `~~~`) in the body, as byte ranges of the text.
pub(crate) fn fences(text: &str, body_start: usize) -> Vec<Range<usize>> {
    // Only a line whose first `` ` `` or `~` starts a marker after blanks can open or close a
    // fence: each line is looked at from that character on, found by memchr.
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut open: Option<(usize, &[u8])> = None;
    let mut at = body_start;
    while let Some(found) = memchr::memchr2(b'`', b'~', &bytes[at..]) {
        let first = at + found;
        let line_start = memchr::memrchr(b'\n', &bytes[at..first]).map_or(at, |i| at + i + 1);
        let line_end =
            memchr::memchr(b'\n', &bytes[first..]).map_or(bytes.len(), |i| first + i + 1);
        let marker = [b"```".as_slice(), b"~~~"]
            .into_iter()
            .find(|marker| bytes[first..].starts_with(marker));
        if let Some(marker) = marker
            && text[line_start..first].chars().all(char::is_whitespace)
        {
            match open {
                None => open = Some((line_start, marker)),
                Some((start, opened)) if opened == marker => {
                    out.push(start..line_end);
                    open = None;
                }
                Some(_) => {}
            }
        }
        at = line_end;
    }
    if let Some((start, _)) = open {
        out.push(start..text.len());
    }
    out
}

/// How far back or ahead the context rules look from a finding: a sentence or a line longer
/// than this is read only this far, so that a line of ten thousand paths costs its length,
/// not its square.
pub(crate) const CONTEXT_BYTES: usize = 400;

/// The text before `at` on its line, at most [`CONTEXT_BYTES`] of it.
pub(crate) fn line_before(text: &str, at: usize) -> &str {
    let mut from = at.saturating_sub(CONTEXT_BYTES);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let window = &text[from..at];
    window
        .rfind('\n')
        .map_or(window, |found| &window[found + 1..])
}

/// The text after `end` on its line, at most [`CONTEXT_BYTES`] of it.
pub(crate) fn line_after(text: &str, end: usize) -> &str {
    let window = window_after(text, end);
    window.find('\n').map_or(window, |found| &window[..found])
}

/// Up to [`CONTEXT_BYTES`] of `text` after `end`.
pub(crate) fn window_after(text: &str, end: usize) -> &str {
    let mut to = (end + CONTEXT_BYTES).min(text.len());
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    &text[end..to]
}

/// The language of a fenced block (its opening line, without the fence): `bash`, or empty.
pub(crate) fn fence_language(block: &str) -> String {
    block
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .trim_start_matches(['`', '~'])
        .trim()
        .to_ascii_lowercase()
}

/// The sentence `at` is in, up to `at`: from the last line break, `;` or `. ` before it (and
/// at most [`CONTEXT_BYTES`]).
pub(crate) fn sentence_before(text: &str, at: usize) -> &str {
    let line = line_before(text, at);
    let start_of_line = at - line.len();
    let start = line
        .rfind(';')
        .map_or(start_of_line, |found| start_of_line + found + 1);
    let start = text[start..at]
        .rfind(". ")
        .map_or(start, |found| start + found + 2);
    &text[start..at]
}

/// Whether `offset` is in one of `ranges`, which are sorted and do not overlap.
pub(crate) fn in_ranges(ranges: &[Range<usize>], offset: usize) -> bool {
    let after = ranges.partition_point(|range| range.start <= offset);
    after > 0 && ranges[after - 1].contains(&offset)
}

/// Whether a rule runs for these targets.
pub fn applies(rule: &Rule, targets: &[Target]) -> bool {
    match rule.applies {
        Applies::All => true,
        Applies::ClaudeCode => targets.iter().any(|t| t.is_claude_code()),
    }
}

/// The byte range of `needle` found at `offset` of a plain, one-line scalar whose value starts
/// at `value_start`; the whole value span otherwise.
pub(crate) fn span_in_value(
    source: &str,
    value_span: &Range<usize>,
    value: &str,
    found: Range<usize>,
) -> Range<usize> {
    let raw = source.get(value_span.clone()).unwrap_or_default();
    if raw == value {
        value_span.start + found.start..value_span.start + found.end
    } else {
        value_span.clone()
    }
}

#[cfg(test)]
mod tests {
    /// Fenced code, line by line: what [`super::fences`] finds faster.
    fn fences_by_lines(text: &str, body_start: usize) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        let mut open: Option<(usize, &str)> = None;
        let mut offset = body_start;
        for line in text[body_start..].split_inclusive('\n') {
            let trimmed = line.trim_start();
            let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
            match (open, marker) {
                (None, Some(marker)) => open = Some((offset, marker)),
                (Some((start, opened)), Some(marker)) if marker == opened => {
                    out.push(start..offset + line.len());
                    open = None;
                }
                _ => {}
            }
            offset += line.len();
        }
        if let Some((start, _)) = open {
            out.push(start..text.len());
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        #[test]
        fn fences_are_found_as_line_by_line(
            text in "([ \t\u{a0}x`~é]{0,6}\n?){0,12}",
            start in 0usize..20,
        ) {
            let mut start = start.min(text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            // The body starts at a line start.
            start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            proptest::prop_assert_eq!(super::fences(&text, start), fences_by_lines(&text, start));
        }
    }
}
