//! Lint rules about the skill's files: what SKILL.md refers to, what it never mentions, scripts,
//! documents for people, placeholders and secrets.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::graph::{self, Graph};
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

/// What one read by Claude Code 2.1.332's Read tool returns: the first 2,000 lines, and at most
/// 25,000 tokens (the binary's `esa=25000`; past it the tool asks to read in parts). A file
/// within both comes back whole, so a table of contents adds nothing; past either, the agent
/// sees only the top and needs one there. (Anthropic's guidance says 100 or 300 lines, but on
/// published skills every warning between 100 and 500 lines was judged noise.)
const READ_LINES: usize = 2_000;
const READ_TOKENS: usize = 25_000;

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
    }
}

/// `script-not-executable` and `script-missing-shebang`, for the scripts the instructions run
/// directly (`scripts/run.sh`, `./scripts/run.sh`, `${CLAUDE_SKILL_DIR}/scripts/run.sh`): one run
/// through an interpreter (`python3 scripts/run.py`, `uv run`, `bash`, `node`) needs neither, and
/// neither does a module that another script imports.
pub(super) fn check_scripts(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let run = run_directly(cx);
    for file in &cx.bundle.files {
        if file.folder() == Some("scripts") && !file.is_hidden() && run.contains(file.path.as_str())
        {
            check_script(file, out);
        }
    }
}

/// Words before a script's path that run it through an interpreter.
const INTERPRETERS: &[&str] = &[
    "python",
    "python3",
    "python2",
    "uv",
    "node",
    "bash",
    "sh",
    "zsh",
    "fish",
    "bun",
    "deno",
    "ruby",
    "perl",
    "php",
    "lua",
    "pwsh",
    "powershell",
    "-file",
    "tsx",
    "ts-node",
    "npx",
    "source",
    ".",
    "osascript",
    "rscript",
    "julia",
    "go",
    "java",
    "dotnet",
];

/// Runners whose `run` runs a script through them (`uv run x.py`, `bun run x.ts`).
const RUNNERS: &[&str] = &[
    "uv", "npm", "pnpm", "yarn", "bun", "deno", "go", "cargo", "poetry", "pipenv",
];

/// The scripts some text of the skill runs directly (its path starts a command) and none runs
/// through an interpreter: where the instructions show both, the agent follows the interpreter.
fn run_directly<'a>(cx: &'a LintContext<'_>) -> BTreeSet<&'a str> {
    let mut out = BTreeSet::new();
    let mut interpreted_somewhere = BTreeSet::new();
    let texts = std::iter::once((cx.text(), "", "SKILL.md")).chain(
        cx.bundle.files.iter().filter_map(|file| {
            let base = file.path.rsplit_once('/').map_or("", |(dir, _)| dir);
            file.text
                .as_deref()
                .map(|text| (text, base, file.path.as_str()))
        }),
    );
    for (text, base, path) in texts {
        // Where commands are: code blocks of a document; everywhere in a shell script.
        let shell = [".sh", ".bash", ".zsh"]
            .iter()
            .any(|ext| path.ends_with(ext));
        let fences = if shell {
            Vec::new()
        } else {
            super::fences(text, 0)
        };
        for mention in mentions(text, base, &[]) {
            let Some(path) = mention.path.as_deref() else {
                continue;
            };
            let Some(file) = cx.bundle.get(path) else {
                continue;
            };
            if !path.starts_with("scripts/") {
                continue;
            }
            let line_before = super::line_before(text, mention.range.start);
            // "`./scripts/x.py --all`": a code span that starts by running the script.
            let runs_in_code_span = ["`./", "`${CLAUDE_SKILL_DIR}/", "`{baseDir}/"]
                .iter()
                .any(|start| line_before.ends_with(start));
            let before = line_before
                .trim_end_matches("./")
                .trim_end_matches("${CLAUDE_SKILL_DIR}/")
                .trim_end_matches("{baseDir}/")
                .trim_end_matches(['"', '\''])
                .trim_end();
            let before = before.trim_end_matches("./");
            let previous = before
                .rsplit(|c: char| c.is_whitespace())
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            let in_code = shell || super::in_ranges(&fences, mention.range.start);
            // "Run `scripts/inspect.py <deck>`": inline code right after a verb of running.
            let told_to_run = before.strip_suffix('`').is_some_and(|prose| {
                let verb = prose
                    .trim_end()
                    .rsplit(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                ["run", "execute", "invoke", "call", "launch"].contains(&verb.as_str())
            });
            let starts_command = before.ends_with("!`")
                || told_to_run
                || runs_in_code_span
                || (in_code
                    && (before.is_empty()
                        || before.ends_with(['(', '|', ';', '&', '$'])
                        || previous == "$"
                        || previous == "&&"
                        || previous == "then"
                        || previous == "do"
                        || previous == "exec"));
            // "Run scripts/x.sh" in prose is no interpreter; `uv run scripts/x.py` is.
            let before_run = before
                .trim_end_matches(|c: char| !c.is_whitespace())
                .trim_end()
                .rsplit(char::is_whitespace)
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            let interpreted = INTERPRETERS
                .iter()
                .any(|word| previous == *word || previous.ends_with(&format!("/{word}")))
                || (previous == "run" && RUNNERS.contains(&before_run.as_str()));
            if interpreted {
                interpreted_somewhere.insert(file.path.as_str());
            } else if starts_command {
                out.insert(file.path.as_str());
            }
        }
    }
    out.retain(|path| !interpreted_somewhere.contains(path));
    out
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
    // A module another script imports has no shebang, unless it is executable: then running it
    // directly is its purpose, and without one the shell runs Python as shell commands.
    let module = !(cfg!(unix) && file.executable)
        && (name.starts_with('_')
            || (extension.as_deref() == Some("py") && !text.contains("__main__")));
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
pub(super) struct Mention {
    /// Byte range in the text it was found in.
    pub range: Range<usize>,
    /// Relative to the skill folder, normalised; `None` when it leaves the skill folder.
    pub path: Option<String>,
    /// As written.
    pub written: String,
    pub link: bool,
}

/// Links and resource paths in `text`, resolving links against `base` (the folder of the file,
/// relative to the skill folder; empty for SKILL.md).
pub(super) fn mentions(text: &str, base: &str, fences: &[Range<usize>]) -> Vec<Mention> {
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
pub(super) fn normalise(path: &str) -> Option<String> {
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

/// Files in the resource folders that lint expects to be mentioned.
fn tracked(file: &BundledFile) -> bool {
    file.folder()
        .is_some_and(|folder| RESOURCE_FOLDERS.contains(&folder))
        && !file.is_hidden()
        && !graph::needs_no_mention(&file.path)
}

/// Whether `path` ends in `.ext`, ignoring case.
fn has_extension(path: &str, ext: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, found)| found.eq_ignore_ascii_case(ext))
}

/// Words that make a file name a placeholder (`scripts/your_script.py`, `script_name.py`).
const PLACEHOLDER_WORDS: &[&str] = &[
    "example",
    "your",
    "my",
    "foo",
    "bar",
    "baz",
    "xxx",
    "name",
    "filename",
    "placeholder",
];

/// Whether the file name of `written` is a placeholder rather than a name.
fn is_placeholder_path(written: &str) -> bool {
    let name = written
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(written);
    let stem = name.split('.').next().unwrap_or(name).to_ascii_lowercase();
    stem.split(['_', '-'])
        .any(|word| PLACEHOLDER_WORDS.contains(&word))
}

/// Whether the sentence around `at`, up to it, introduces an example (`e.g.`, `for example`):
/// paths there illustrate, they do not refer.
fn in_example(text: &str, at: usize, end: usize) -> bool {
    let before = super::sentence_before(text, at).to_lowercase();
    let rest = super::line_after(text, end);
    let end = rest.find('.').unwrap_or(rest.len());
    let after = rest[..end].to_lowercase();
    ["example", "e.g.", "for instance"]
        .iter()
        .any(|word| before.contains(word))
        || ["would be", "could be", "might be"]
            .iter()
            .any(|word| after.contains(word))
}

/// The text of the context files at the root of the plugin a skill is in (`GEMINI.md`,
/// `AGENTS.md`, `CLAUDE.md`), each read up to 1 MiB; empty outside a plugin.
fn plugin_context(dir: &std::path::Path) -> String {
    let Some(root) = plugin_root(dir) else {
        return String::new();
    };
    ["GEMINI.md", "AGENTS.md", "CLAUDE.md"]
        .iter()
        .filter_map(|name| crate::fsx::read_text_capped(&root.join(name), 1024 * 1024).ok())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `at` is in a fenced block of shell commands (or one with no language).
fn in_shell_fence(cx: &LintContext<'_>, at: usize) -> bool {
    let text = cx.text();
    // The fences are sorted and apart: the one that may hold `at` is found by bisection.
    let after = cx.fences.partition_point(|fence| fence.start <= at);
    after
        .checked_sub(1)
        .map(|index| &cx.fences[index])
        .filter(|fence| fence.contains(&at))
        .is_some_and(|fence| {
            let language = super::fence_language(&text[fence.clone()]);
            ["", "bash", "sh", "shell", "zsh", "console"].contains(&language.as_str())
        })
}

/// The folders beside a skill's (other skills), at most [`MAX_SIBLINGS`] of them.
fn sibling_folders(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Some(parent) = dir.parent() else {
        return Vec::new();
    };
    let Ok(entries) = fs_err::read_dir(parent) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path != dir)
        .take(MAX_SIBLINGS)
        .collect()
}

/// How many missing paths of one skill are looked for on disk.
const MAX_DISK_CHECKS: usize = 64;

/// The folder of the file a linked `SKILL.md` leads to, when that is another folder.
fn linked_folder(skill_file: &std::path::Path) -> Option<std::path::PathBuf> {
    if !fs_err::symlink_metadata(skill_file).ok()?.is_symlink() {
        return None;
    }
    let target = fs_err::canonicalize(skill_file).ok()?;
    target.parent().map(std::path::Path::to_path_buf)
}

/// Whether the line holds a drawing of a folder tree (`├── references/x.md`): its paths are
/// relative to the tree's top, which is seldom the skill.
fn in_tree_drawing(text: &str, at: usize) -> bool {
    super::line_before(text, at).contains(['├', '└', '│'])
}

/// A link whose last part has no extension and no trailing `/` (`internal-wiki/runbook`): a
/// page of some site or wiki, not a file.
fn extensionless(written: &str) -> bool {
    !written.ends_with('/') && !written.rsplit('/').next().unwrap_or(written).contains('.')
}

/// A command in a shell block that runs `scripts/x.sh` (or `./scripts/x.sh`) in a skill with
/// no such top folder at all: the user's project's script (a runbook's
/// `./scripts/smoke-test.sh`, a "common commands" block's `python scripts/train.py`), not one
/// the skill forgot to ship. Prose and links are still checked.
fn project_command(cx: &LintContext<'_>, mention: &Mention) -> bool {
    let rest = mention
        .written
        .strip_prefix("./")
        .unwrap_or(mention.written.as_str());
    let top = rest.split('/').next().unwrap_or(rest);
    in_shell_fence(cx, mention.range.start)
        && !cx
            .bundle
            .files
            .iter()
            .any(|file| file.path.split('/').next() == Some(top) && file.path.contains('/'))
}

/// A "path" that is only dots and slashes (`...` in `![](...)`): syntax shown, not a file.
fn not_a_path(written: &str) -> bool {
    written.chars().all(|c| matches!(c, '.' | '/'))
}

/// Whether `at` is in a fenced block of Markdown or plain text: an example of what to write
/// (a template, a sample table), whose paths are the example's, not the skill's.
fn in_document_fence(cx: &LintContext<'_>, at: usize) -> bool {
    let text = cx.text();
    let after = cx.fences.partition_point(|fence| fence.start <= at);
    after
        .checked_sub(1)
        .map(|index| &cx.fences[index])
        .filter(|fence| fence.contains(&at))
        .is_some_and(|fence| {
            let language = super::fence_language(&text[fence.clone()]);
            ["markdown", "md", "text", "txt", "plaintext", "mdx"].contains(&language.as_str())
        })
}

/// Whether the command on the line writes the path at `at` rather than reads it: after `>`,
/// `>>`, `tee`, `touch`, `mkdir`, `-o`/`--output`, or as the last of `cp`'s or `mv`'s paths.
/// Such a path is in the user's project, made by the command.
fn written_by_command(text: &str, at: usize) -> bool {
    let before = super::line_before(text, at);
    let trimmed = before.trim_end_matches(['`', '"', '\'', ' ']);
    let last_word = trimmed.rsplit([' ', '`', '(']).next().unwrap_or("");
    if trimmed.ends_with('>')
        || matches!(
            last_word,
            "tee" | "touch" | "mkdir" | "-p" | "-o" | "--output" | "--out" | "--output-dir"
        )
        || before.ends_with("--output=")
        || before.ends_with("--out=")
    {
        return true;
    }
    // `cp scripts/a.sh scripts/b.sh`: the second path is where the copy goes.
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    words
        .iter()
        .rposition(|word| matches!(word.trim_start_matches(['`', '(']), "cp" | "mv" | "install"))
        .is_some_and(|command| {
            words[command + 1..]
                .iter()
                .any(|word| !word.starts_with('-'))
        })
}

/// How many sibling folders, and how many missing paths, the sibling-skill check looks at.
const MAX_SIBLINGS: usize = 1_000;
const MAX_SIBLING_CHECKS: usize = 32;

/// Whether the line, before `at`, changes folder (`cd ~/repo && ./scripts/x.sh`): the path is
/// then somewhere else, not in the skill.
fn after_cd(text: &str, at: usize) -> bool {
    let line = super::line_before(text, at);
    line.starts_with("cd ")
        || line.contains(" cd ")
        || line.contains("\"cd ")
        || line.contains("(cd ")
}

/// The Claude Code plugin folder around a skill: the folder holding the `skills/` folder the
/// skill is in, or the plugin that loads it from elsewhere ([`crate::check::plugin_of`]).
fn plugin_root(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let parent = dir.parent()?;
    if parent.file_name().is_some_and(|name| name == "skills")
        && let Some(root) = parent.parent()
    {
        return Some(root.to_path_buf());
    }
    crate::check::plugin_of(&dir.join("SKILL.md"))
}

/// A list of documents rather than a document: named like one, or mostly links.
fn is_catalogue(file: &BundledFile) -> bool {
    let name = file.file_name().to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name);
    if [
        "index",
        "readme",
        "toc",
        "contents",
        "catalog",
        "catalogue",
        "overview",
        "summary",
        "map",
        "navigation",
    ]
    .contains(&stem)
    {
        return true;
    }
    let Some(text) = file.text.as_deref() else {
        return false;
    };
    let (mut lines, mut linking) = (0usize, 0usize);
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        lines += 1;
        if line.contains("](") || line.contains(".md`") {
            linking += 1;
        }
    }
    linking >= 5 && linking * 3 >= lines
}

pub(super) fn check_references(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let text = cx.text();
    let mut found = mentions(text, "", &cx.fences);
    // In the order written, so that a path written twice is reported where it first appears.
    found.sort_by_key(|mention| mention.range.start);
    let mut broken_seen = BTreeSet::new();
    // Where relative paths also resolve when SKILL.md is a link into another folder: the
    // author wrote them for the file's own folder.
    let linked_dir = linked_folder(&cx.skill.path);
    let mut disk_checks = 0;
    let mut plugin: Option<Option<std::path::PathBuf>> = None;
    let mut siblings: Option<Vec<std::path::PathBuf>> = None;
    let mut sibling_checks = 0;
    for mention in &found {
        let exists = match &mention.path {
            Some(path) => {
                cx.bundle.contains(path)
                    || cx.bundle.contains_with_extension(path)
                    // `references\guide.md` is `backslash-path`'s to report, once, with its fix.
                    || (path.contains('\\') && cx.bundle.contains(&path.replace('\\', "/")))
            }
            None => cx.skill.dir.join(&mention.written).exists(),
        };
        // Each path is judged once, where it first appears.
        if exists || !broken_seen.insert(mention.written.clone()) {
            continue;
        }
        // The file list is what the walk kept; a file `.gitignore` leaves out (a committed
        // file in an ignored folder), a nested skill's file or the folder of a linked SKILL.md
        // is still on disk. Looked up for the first few missing paths only.
        if disk_checks < MAX_DISK_CHECKS {
            disk_checks += 1;
            let written = mention.written.trim_end_matches('/');
            let on_disk =
                |dir: &std::path::Path| fs_err::symlink_metadata(dir.join(written)).is_ok();
            if (mention.path.is_some() && on_disk(&cx.skill.dir))
                || linked_dir.as_deref().is_some_and(on_disk)
            {
                continue;
            }
        }
        if not_a_path(&mention.written)
            || in_tree_drawing(text, mention.range.start)
            || (mention.link && extensionless(&mention.written))
            || project_command(cx, mention)
            || (!mention.link && in_document_fence(cx, mention.range.start))
            || (!mention.link && mention.written.ends_with('/'))
            || written_by_command(text, mention.range.start)
        {
            continue;
        }
        // In prose, a path with no extension is as often words (`references/appendix`).
        let prose_words = !mention.link
            && !in_shell_fence(cx, mention.range.start)
            && !mention
                .written
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .contains('.')
            && !mention.written.ends_with('/');
        if is_placeholder_path(&mention.written)
            || prose_words
            || (mention.link && !mention.written.contains(['/', '.']))
            || in_example(text, mention.range.start, mention.range.end)
            || after_cd(text, mention.range.start)
        {
            continue;
        }
        // `scripts/x` run from the plugin's folder: Claude Code plugins often keep shared
        // scripts there.
        let root = plugin.get_or_insert_with(|| plugin_root(&cx.skill.dir));
        // Another skill beside this one has the file: the text sends the agent to that skill
        // ("use the schematics skill: `scripts/generate.py`"). Checked for the first few only.
        let in_sibling = sibling_checks < MAX_SIBLING_CHECKS && {
            sibling_checks += 1;
            siblings
                .get_or_insert_with(|| sibling_folders(&cx.skill.dir))
                .iter()
                .any(|sibling| sibling.join(&mention.written).is_file())
        };
        if root
            .as_ref()
            .is_some_and(|root| root.join(&mention.written).exists())
            || in_sibling
        {
            continue;
        }
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

    let graph = Graph::build(cx.bundle, text, &cx.fences);
    extraneous_documents(cx, &graph, out);
    unreferenced_files(cx, &graph, out);
    nested_references(cx, &graph, out);
}

/// `extraneous-document`.
fn extraneous_documents(cx: &LintContext<'_>, graph: &Graph, out: &mut Vec<Diagnostic>) {
    let files = &cx.bundle.files;
    // Documents for people: what SKILL.md never sends the agent to (a README beside a test
    // suite is the suite's business).
    for (at, file) in files.iter().enumerate() {
        let lower = file.path.to_ascii_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let in_tests = lower
            .split('/')
            .any(|part| ["tests", "test", "fixtures", "node_modules"].contains(&part));
        // Only among the agent's documents: a README at the root or in `docs/` is the
        // folder's page for people browsing the repository, and no agent loads it.
        let among_references = lower
            .strip_prefix("references/")
            .is_some_and(|rest| !rest.contains('/'));
        if EXTRANEOUS.contains(&name)
            && among_references
            && graph.depth(at).is_none()
            && !in_tests
            && !file.is_hidden()
        {
            out.push(
                Diagnostic::warning(&EXTRANEOUS_DOCUMENT, format!("`{}` is written for people, among the agent's reference files", file.path))
                    .in_file(file.path.clone(), None)
                    .note("SKILL.md does not send the agent to it; an agent browsing references/ finds it beside the documents written for it")
                    .help("move what the agent needs into SKILL.md or a reference it links, and the rest to the skill's root README or outside the skill"),
            );
        }
    }
}

/// `unreferenced-file`.
fn unreferenced_files(cx: &LintContext<'_>, graph: &Graph, out: &mut Vec<Diagnostic>) {
    let files = &cx.bundle.files;
    // The plugin's own context files (`GEMINI.md` can `@`-import a skill's reference): their
    // words, read once.
    let mut context: Option<BTreeSet<String>> = None;
    for at in graph.orphans(|at| tracked(&files[at])) {
        let file = &files[at];
        let context = context.get_or_insert_with(|| {
            plugin_context(&cx.skill.dir)
                .split(|c: char| c.is_whitespace() || "()[]<>`'\"@".contains(c))
                .map(|word| word.rsplit('/').next().unwrap_or(word).to_owned())
                .collect()
        });
        if context.contains(file.file_name()) {
            continue;
        }
        out.push(
            Diagnostic::warning(&UNREFERENCED_FILE, format!("nothing leads to `{}`", file.path))
                .in_file(file.path.clone(), None)
                .note("no link, path or name in SKILL.md, or in any file it leads to, points at it; the agent will never know it is there")
                .help("say in SKILL.md (or a file it links) what it is for and when to use it, or delete it"),
        );
    }
}

/// `nested-reference`.
fn nested_references(cx: &LintContext<'_>, graph: &Graph, out: &mut Vec<Diagnostic>) {
    let files = &cx.bundle.files;
    // One extra step only (SKILL.md → a → b), and once for the skill. A large tree of
    // documents, or one where many are reached through others, is a designed hierarchy of
    // indexes: the agent is meant to walk it.
    // A file a template path covers (`references/{topic}.md`) is reached as one of a set.
    let references: Vec<usize> = (0..files.len())
        .filter(|&at| {
            files[at].folder() == Some("references")
                && has_extension(&files[at].path, "md")
                && !graph.exempt[at]
                && !graph.templated[at]
        })
        .collect();
    let deeper = references
        .iter()
        .filter(|&&at| graph.depth(at).is_some_and(|depth| depth >= 2))
        .count();
    let designed = references.len() > MAX_FLAT_REFERENCES || deeper > MAX_NESTED_REFERENCES;
    let mut nested: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &at in &references {
        if graph.depth(at) == Some(2)
            && let Some(parent) = graph.parent_file(at)
            && !is_catalogue(&files[parent])
        {
            nested.entry(parent).or_default().push(at);
        }
    }
    if designed || nested.is_empty() {
        return;
    }
    let leaves: Vec<usize> = nested.values().flatten().copied().collect();
    let parents: Vec<usize> = nested.keys().copied().collect();
    let top = parents[0];
    let mut named: Vec<String> = leaves
        .iter()
        .take(3)
        .map(|&at| format!("`{}`", files[at].path))
        .collect();
    if leaves.len() > 3 {
        named.push(format!("and {} more", leaves.len() - 3));
    }
    let count = if leaves.len() == 1 {
        "a reference file".to_owned()
    } else {
        format!("{} reference files", leaves.len())
    };
    let through: Vec<String> = parents
        .iter()
        .take(3)
        .map(|&at| format!("`{}`", files[at].path))
        .collect();
    out.push(
        Diagnostic::warning(
            &NESTED_REFERENCE,
            format!("{count} SKILL.md never mentions {} reached only through {}: {}", if leaves.len() == 1 { "is" } else { "are" }, through.join(", "), named.join(", ")),
        )
        .in_file(files[top].path.clone(), None)
        .note("agents often read part of a referenced file and miss what it points to; keep references one level deep")
        .help("link them from SKILL.md, saying when to read each"),
    );
}

/// A skill with more reference documents than this, or more than so many of them reached
/// through others, organises them on purpose.
const MAX_FLAT_REFERENCES: usize = 30;
const MAX_NESTED_REFERENCES: usize = 10;

/// `reference-without-toc`.
pub(super) fn check_tables_of_contents(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    for file in &cx.bundle.files {
        if file.folder() == Some("references")
            && has_extension(&file.path, "md")
            && let Some(content) = &file.text
        {
            let lines = content.lines().count();
            let tokens = crate::agent::estimate_tokens(content);
            if (lines > READ_LINES || tokens > READ_TOKENS) && !has_toc(content) {
                let size = if lines > READ_LINES {
                    format!("{lines} lines")
                } else {
                    format!("about {tokens} tokens")
                };
                out.push(
                    Diagnostic::warning(
                        &REFERENCE_WITHOUT_TOC,
                        format!("`{}` is {size} long, more than one read returns, and does not start with a table of contents", file.path),
                    )
                    .in_file(file.path.clone(), Some(1))
                    .note(format!("Claude Code's Read tool returns at most the first {READ_LINES} lines, and a file over {READ_TOKENS} tokens only in parts; the agent reads the top first and decides from it what else to read"))
                    .help("add a `## Contents` list of its sections near the top"),
                );
            }
        }
    }
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
        Regex::new(r"\bTODO[:(]|\[TODO\b|\bFIXME[:(]|\bTBD:|\bXXX:|(?i:lorem ipsum dolor)")
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

/// Files meant to hold placeholders: templates and assets the skill fills in or copies.
fn is_template(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.starts_with("assets/") || lower.contains("template") || lower.contains("scaffold")
}

/// Whether the placeholder at `at` is talked about rather than left over: in code (a fence or
/// backticks), in quotes, or in a sentence that tells someone to find, remove or replace it.
fn mentions_placeholder(text: &str, at: usize, fences: &[Range<usize>]) -> bool {
    if super::in_ranges(fences, at) {
        return true;
    }
    // `TODO/FIXME`, `FIXME, TODO`: the markers named as a kind of comment; `ADR-XXX:` a
    // numbering pattern.
    let before_marker = text[..at].chars().next_back();
    if before_marker.is_some_and(|c| matches!(c, '/' | ',' | '-')) {
        return true;
    }
    // `TODO/FIXME/HACK`, `TODO, FIXME`: the first of a list of markers.
    let word_end = text[at..]
        .find(|c: char| !c.is_ascii_alphabetic())
        .map_or(text.len(), |end| at + end);
    if text[word_end..].starts_with(['/', ',']) {
        return true;
    }
    // `[TODO LIST](…)`: the title of a page linked to.
    if text[at..].starts_with("[TODO") && super::line_after(text, at).contains("](") {
        return true;
    }
    // `// TODO: …` in prose: a code comment shown or offered, not a note to the author.
    let head = text[..at].trim_end_matches(' ');
    if head.ends_with("//") || head.ends_with("/*") {
        return true;
    }
    let line = super::line_before(text, at);
    if line.matches('`').count() % 2 == 1
        || line.matches('"').count() % 2 == 1
        || line.trim_start().starts_with("//")
        || line.trim_start().starts_with('#') && !line.trim_start().starts_with("# ")
    {
        return true;
    }
    let sentence = super::sentence_before(text, at).to_lowercase();
    [
        "remove",
        "replace",
        "delete",
        "grep",
        "search",
        "check",
        "flag",
        "find",
        "detect",
        "no ",
        "without",
        "leftover",
        "left over",
        "mark",
        "avoid",
        "never",
        "don't",
        "e.g.",
        "example",
        "comment",
        "marker",
        "add ",
        "leave ",
        "insert",
        "not ",
    ]
    .iter()
    .any(|word| sentence.contains(word))
}

/// Whether the skill is about to-do lists, whose `TODO:` lines are its subject, not leftovers.
fn about_todos(cx: &LintContext<'_>) -> bool {
    let Some(doc) = cx.doc else { return false };
    let text = |field: Option<&crate::skill::model::Field<String>>| {
        field
            .and_then(|field| field.value.as_ref().ok())
            .map(|value| value.to_lowercase())
            .unwrap_or_default()
    };
    let name = text(doc.name.as_deref());
    let description = text(doc.description.as_deref());
    ["todo", "to-do", "checklist", "task list"]
        .iter()
        .any(|word| name.contains(word) || description.contains(word))
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
    let about_todos = about_todos(cx);
    let text = cx.text();
    let mut lines = BTreeSet::new();
    // A description that starts with placeholder text (init's `"TODO: …"`) is left over,
    // however it is quoted: the quotes are YAML's, not a quotation.
    if let Some(field) = cx.doc.and_then(|doc| doc.description.as_deref())
        && let Ok(value) = &field.value
        && let Some(found) = pattern.find(value.trim_start())
        && found.start() == 0
    {
        lines.insert(cx.source.position(field.span.start).line);
        out.push(placeholder(found.as_str()).at(field.span.clone()));
    }
    for found in pattern.find_iter(text) {
        if mentions_placeholder(text, found.start(), &cx.fences)
            || (about_todos && found.as_str().contains("TODO"))
        {
            continue;
        }
        if lines.insert(cx.source.position(found.start()).line) {
            out.push(placeholder(found.as_str()).at(found.range()));
        }
    }
    for file in &cx.bundle.files {
        let (true, false, Some(content)) =
            (is_prose(&file.path), is_template(&file.path), &file.text)
        else {
            continue;
        };
        let fences = super::fences(content, 0);
        let mut seen = BTreeSet::new();
        let mut lines = LineCounter::new(content);
        for found in pattern.find_iter(content) {
            if mentions_placeholder(content, found.start(), &fences)
                || (about_todos && found.as_str().contains("TODO"))
            {
                continue;
            }
            let line = lines.line(found.start());
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

/// Whether an `sk-` match is text rather than a key: OpenAI and Anthropic keys are random
/// letters of both cases and digits, so a run of words with no capital or no digit
/// (`sk-learn-feature-pipeline-service-…`, a long service or package name) is a name.
fn is_name_not_key(text: &str) -> bool {
    let Some(body) = text.strip_prefix("sk-") else {
        return false;
    };
    let body = body
        .strip_prefix("ant-")
        .or_else(|| body.strip_prefix("proj-"))
        .or_else(|| body.strip_prefix("svcacct-"))
        .unwrap_or(body);
    let upper = body.chars().any(|c| c.is_ascii_uppercase());
    let lower = body.chars().any(|c| c.is_ascii_lowercase());
    let digit = body.chars().any(|c| c.is_ascii_digit());
    !(upper && lower && digit)
}

/// Whether a match is an obvious example: `AKIAIOSFODNN7EXAMPLE`, `sk-ant-xxxx…`, a run like
/// `A1B2C3D4E5` or `abcdef`, a private key header with no key after it, or an `sk-` name that
/// is words ([`is_name_not_key`]).
fn is_example(text: &str, after: &str) -> bool {
    if is_name_not_key(text) {
        return true;
    }
    // `xoxb-your-token`, `ghp_your_token_here`, `sk-test-dummy…`: a stand-in, in words.
    let lower = text.to_ascii_lowercase();
    if [
        "your",
        "token",
        "here",
        "dummy",
        "fake",
        "sample",
        "placeholder",
        "redacted",
        "xxxx",
    ]
    .iter()
    .any(|word| lower.contains(word))
    {
        return true;
    }
    let upper = text.to_ascii_uppercase();
    let tail: Vec<char> = text.chars().rev().take(20).collect();
    if upper.contains("EXAMPLE") || tail.iter().collect::<BTreeSet<_>>().len() <= 4 {
        return true;
    }
    // Six characters in a row that step by one (`ABCDEF`, `123456`), or letters and digits
    // that both step (`A1B2C3`).
    let bytes = text.as_bytes();
    let steps = |stride: usize| {
        bytes.windows(stride * 5 + 1).any(|window| {
            (0..5).all(|i| window[(i + 1) * stride] == window[i * stride].wrapping_add(1))
        })
    };
    if steps(1) || steps(2) {
        return true;
    }
    if text.contains("PRIVATE KEY") {
        // Real keys follow with base64 lines; a placeholder with `...` or nothing. `after`
        // starts past the header; a key in JSON has `\n` for its line breaks.
        let body: String = after
            .split(['\n', '\\'])
            .map(|line| line.strip_prefix('n').unwrap_or(line))
            .filter(|line| !line.trim().is_empty())
            .take(2)
            .collect::<Vec<_>>()
            .join("");
        let base64 = body
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
            .count();
        // A body cut short (`MIIEvQ...`) is an illustration of the format.
        return base64 < 40 || body.contains("...") || body.contains('…');
    }
    false
}

/// Line numbers of byte offsets met in increasing order, counted as they go: each byte of the
/// text is looked at once.
struct LineCounter<'a> {
    text: &'a str,
    at: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            at: 0,
            line: 1,
        }
    }

    /// The line of `offset`; offsets are met in increasing order.
    fn line(&mut self, offset: usize) -> usize {
        let (from, base) = if offset >= self.at {
            (self.at, self.line)
        } else {
            (0, 1)
        };
        self.line = base + self.text[from..offset].matches('\n').count();
        self.at = offset;
        self.line
    }
}

pub(super) fn check_secrets(cx: &LintContext<'_>, out: &mut Vec<Diagnostic>) {
    let pattern = secret_pattern();
    for captures in pattern.captures_iter(cx.text()) {
        let found = captures.get(0).expect("the whole match");
        if is_example(found.as_str(), super::window_after(cx.text(), found.end())) {
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
        let mut lines = LineCounter::new(content);
        for captures in pattern.captures_iter(content) {
            let found = captures.get(0).expect("the whole match");
            if is_example(found.as_str(), super::window_after(content, found.end())) {
                continue;
            }
            let line = lines.line(found.start());
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
    fn a_long_name_with_sk_is_no_key_and_a_key_is() {
        let name = "sk-learn-feature-engineering-pipeline-service-for-tabular-data";
        assert!(secret_pattern().is_match(name));
        assert!(is_example(name, ""));
        let key = format!("sk-proj-{}", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7".repeat(2));
        assert!(secret_pattern().is_match(&key));
        assert!(!is_example(&key, ""));
    }

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
        assert!(secret_pattern().is_match(example) && is_example(example, ""));
        assert!(is_example(&format!("sk-ant-api03-{}", "x".repeat(50)), ""));
        assert!(is_example("AIzaSyA1B2C3D4E5F6G7H8I9J0", ""));
        let header = "-----BEGIN PRIVATE KEY-----";
        assert!(is_example(
            header,
            &format!("{header}\n...\n-----END PRIVATE KEY-----")
        ));
        let real = format!(
            "{header}\n{}\n",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".repeat(2)
        );
        assert!(!is_example(header, &real));
        assert!(!secret_pattern().is_match("sk-ant-..."));
    }

    #[test]
    fn tables_of_contents() {
        assert!(has_toc("# API\n\n## Contents\n- a\n"));
        assert!(has_toc("# API\n- [A](#a)\n- [B](#b)\n- [C](#c)\n"));
        assert!(!has_toc("# API\n\nSome prose.\n"));
    }
}
