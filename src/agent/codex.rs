//! OpenAI Codex CLI 0.171.0: where it finds skills, how it reads SKILL.md, which skills it
//! lists, its catalog budget and its `$name` mentions.
//!
//! Every rule here was checked on the wire against the real Codex 0.171.0 (docs/agents.md,
//! "Codex CLI 0.171.0"; the research notes behind it list the inputs). The YAML repair step
//! (§ "Frontmatter") is a model fitted to 120 probes: Codex's own source for it is not public.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::skill::yaml::{self, NodeKind, Style, Yaml};

/// The longest name Codex keeps, in characters; a longer one drops the skill.
pub(crate) const MAX_NAME_CHARS: usize = 64;
/// The longest description Codex keeps whole, in characters; a longer one is cut to
/// `MAX_DESCRIPTION_CHARS - 3` characters followed by `...`.
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Directory levels read below a skills root: `root/1/2/3/4/5/6/SKILL.md` is found, depth 7 not.
pub(crate) const MAX_DEPTH: usize = 6;
/// Directories read per root at most (from Codex's source; not run).
pub(crate) const MAX_DIRS_PER_ROOT: usize = 2000;
/// The context window of Codex 0.171.0's default model, `gpt-6.2-sol`, in tokens.
pub(crate) const DEFAULT_CONTEXT_WINDOW: usize = 500_000;

/// Where a skills root comes from. The listing groups skills in the order System, Admin, Repo,
/// User; the roots table numbers roots in scan order instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[expect(
    dead_code,
    reason = "System and Admin roots ($CODEX_HOME/skills/.system, /etc/codex/skills) are not read, but they order the listing"
)]
pub(crate) enum Scope {
    System,
    Admin,
    Repo,
    User,
}

/// A folder Codex scans for skills.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Root {
    /// Canonical: a symlinked root shows its target in the roots table.
    pub(crate) path: PathBuf,
    pub(crate) scope: Scope,
}

/// A skill Codex loaded.
#[derive(Clone, Debug)]
pub(crate) struct Skill {
    pub(crate) name: String,
    /// Whitespace collapsed and capped.
    pub(crate) description: String,
    /// Index into [`Catalog::roots`].
    pub(crate) root: usize,
    /// The path below the root as walked (symlinked folders keep the link's name), `/`-separated.
    pub(crate) relative: String,
    /// The file as walked.
    pub(crate) file: PathBuf,
    /// `agents/openai.yaml` does not say `policy.allow_implicit_invocation: false`.
    pub(crate) listed: bool,
    /// The whole file, as read.
    pub(crate) text: String,
}

/// Every skill Codex loads, in listing order, and the files it dropped with the reason.
#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    pub(crate) roots: Vec<Root>,
    pub(crate) skills: Vec<Skill>,
    pub(crate) dropped: Vec<(String, String)>,
}

/// The skills roots of a Codex run, in scan order.
///
/// `cwd` is the folder Codex runs in; `home` its HOME (`CODEX_HOME` is `HOME/.codex`); `user`
/// extra user-level roots. Order: `<cwd>/.codex/skills` (Repo; the cwd only, never an
/// ancestor), `$CODEX_HOME/skills` (User), `$HOME/.agents/skills` (User), then `.agents/skills`
/// in every folder from the project root (the nearest ancestor holding `.git`, else the cwd)
/// down to the cwd (Repo). The bundled `.system` root is left out (as with
/// `-c skills.bundled.enabled=false`), and `/etc/codex/skills` is not read.
pub(crate) fn roots(cwd: Option<&Path>, home: Option<&Path>, user: &[PathBuf]) -> Vec<Root> {
    let mut out = Vec::new();
    if let Some(cwd) = cwd {
        out.push((cwd.join(".codex/skills"), Scope::Repo));
    }
    if let Some(home) = home {
        out.push((home.join(".codex/skills"), Scope::User));
        out.push((home.join(".agents/skills"), Scope::User));
    }
    out.extend(user.iter().map(|dir| (dir.clone(), Scope::User)));
    if let Some(cwd) = cwd {
        let top = cwd
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(cwd);
        let mut chain: Vec<&Path> = cwd.ancestors().take_while(|dir| *dir != top).collect();
        chain.push(top);
        chain.reverse();
        out.extend(
            chain
                .into_iter()
                .map(|dir| (dir.join(".agents/skills"), Scope::Repo)),
        );
    }
    let mut seen = HashSet::new();
    out.into_iter()
        .filter_map(|(path, scope)| {
            let path = std::fs::canonicalize(&path).ok()?;
            (path.is_dir() && seen.insert(path.clone())).then_some(Root { path, scope })
        })
        .collect()
}

/// Loads every skill under `roots`, in Codex's listing order: by scope (System, Admin, Repo,
/// User), then by name in byte order, then by path.
pub(crate) fn load(roots: Vec<Root>) -> Catalog {
    let mut catalog = Catalog::default();
    let mut seen = HashSet::new();
    for (index, root) in roots.iter().enumerate() {
        for (file, relative) in walk(&root.path) {
            if !seen.insert(file.clone()) {
                continue;
            }
            let folder = file
                .parent()
                .and_then(Path::file_name)
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            match read(&file, &folder) {
                Ok((name, description, text)) => catalog.skills.push(Skill {
                    listed: allows_implicit(file.parent().unwrap_or(&root.path)),
                    name,
                    description,
                    root: index,
                    relative,
                    file,
                    text,
                }),
                Err(why) => catalog.dropped.push((relative, why)),
            }
        }
    }
    catalog.skills.sort_by(|a, b| {
        (roots[a.root].scope, a.name.as_bytes(), &a.file).cmp(&(
            roots[b.root].scope,
            b.name.as_bytes(),
            &b.file,
        ))
    });
    catalog.roots = roots;
    catalog
}

/// The `SKILL.md` files below `root`, breadth first: every regular file named exactly
/// `SKILL.md` (a symlinked `SKILL.md` is ignored) in the root and in folders up to
/// [`MAX_DEPTH`] levels below it. Entries whose name starts with `.` are skipped; symlinked
/// folders are followed and keep the link's path. Returns each file with its path below the
/// root.
fn walk(root: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut queue = std::collections::VecDeque::from([(root.to_path_buf(), String::new(), 0)]);
    let mut visited = HashSet::new();
    let mut dirs = 0;
    while let Some((dir, relative, depth)) = queue.pop_front() {
        if dirs >= MAX_DIRS_PER_ROOT {
            break;
        }
        dirs += 1;
        if let Ok(real) = std::fs::canonicalize(&dir)
            && !visited.insert(real)
        {
            continue;
        }
        let Ok(entries) = fs_err::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).take(100_000).collect();
        entries.sort_by_key(fs_err::DirEntry::file_name);
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let below = if relative.is_empty() {
                name.clone()
            } else {
                format!("{relative}/{name}")
            };
            if name == "SKILL.md" && kind.is_file() {
                out.push((path, below));
            } else if depth < MAX_DEPTH && (kind.is_dir() || (kind.is_symlink() && path.is_dir())) {
                queue.push_back((path, below, depth + 1));
            }
        }
    }
    out
}

/// Whether the skill's `agents/openai.yaml` lets Codex list it: only
/// `policy: {allow_implicit_invocation: false}` hides it (it can still be `$`-mentioned).
fn allows_implicit(dir: &Path) -> bool {
    let Ok(text) = crate::fsx::read_text_capped(&dir.join("agents/openai.yaml"), 1024 * 1024)
    else {
        return true;
    };
    let Ok(doc) = yaml::parse(&text, 0..text.len()) else {
        return true;
    };
    let Some(policy) = doc.root().and_then(|root| value_of(&doc, root, "policy")) else {
        return true;
    };
    let Some(allow) = value_of(&doc, policy, "allow_implicit_invocation") else {
        return true;
    };
    doc.scalar(allow)
        .is_none_or(|scalar| !(scalar.style == Style::Plain && scalar.value == "false"))
}

fn value_of(doc: &Yaml, map: yaml::NodeId, key: &str) -> Option<yaml::NodeId> {
    match &doc.resolve(map).kind {
        NodeKind::Mapping { entries, .. } => entries
            .iter()
            .find(|(k, _)| doc.scalar(*k).is_some_and(|s| s.value == key))
            .map(|(_, v)| *v),
        _ => None,
    }
}

/// Reads one SKILL.md as Codex does: its name, its description and the whole text, or why it
/// is dropped. `folder` is the name of the folder holding the file (the name fallback).
pub(crate) fn read(file: &Path, folder: &str) -> Result<(String, String, String), String> {
    let bytes = crate::fsx::read_capped(file, crate::skill::MAX_SKILL_FILE_BYTES)
        .map_err(|error| format!("cannot read: {error}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())?;
    let (name, description) = parse(&text, folder)?;
    Ok((name, description, text))
}

/// The name and description Codex takes from a SKILL.md's text.
pub(crate) fn parse(text: &str, folder: &str) -> Result<(String, String), String> {
    let yaml = frontmatter(text)
        .ok_or("no frontmatter (the first line must be `---`, and a later line `---` closes it)")?;
    let fields = fields(yaml)
        .or_else(|_| fields(&repair(yaml)))
        .map_err(|why| format!("the frontmatter is not read: {why}"))?;
    let name = collapse(fields.name.as_deref().unwrap_or_default());
    let name = if name.is_empty() {
        folder.to_owned()
    } else {
        name
    };
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "the name is longer than {MAX_NAME_CHARS} characters"
        ));
    }
    let description = collapse(fields.description.as_deref().unwrap_or_default());
    if description.is_empty() {
        return Err("no description".into());
    }
    Ok((name, cap(&description)))
}

/// The frontmatter's YAML: the first line, trimmed, must be `---`; the next line that trims to
/// `---` closes it. A byte-order mark, `...` as the closing line, no closing line or an empty
/// frontmatter give none.
pub(crate) fn frontmatter(text: &str) -> Option<&str> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim() != "---" {
        return None;
    }
    let start = first.len();
    let mut at = start;
    for line in lines {
        if line.trim() == "---" {
            let yaml = &text[start..at];
            return (!yaml.trim().is_empty()).then_some(yaml);
        }
        at += line.len();
    }
    None
}

/// Runs of Unicode `White_Space` become one space; the ends are trimmed.
pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A description over [`MAX_DESCRIPTION_CHARS`] characters: the first 1021 and `...`.
pub(crate) fn cap(text: &str) -> String {
    if text.chars().count() <= MAX_DESCRIPTION_CHARS {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(MAX_DESCRIPTION_CHARS - 3).collect();
    out.push_str("...");
    out
}

#[derive(Debug, Default)]
struct Fields {
    name: Option<String>,
    description: Option<String>,
}

/// The frontmatter read as `serde_yaml` 0.9 reads it into Codex's struct: `name` and
/// `description` optional strings (a plain non-string scalar gives its source text; null,
/// `~` and empty give none), `metadata` a mapping; other keys ignored. A syntax error, a
/// duplicate key, a raw control character or a list or mapping where a string is expected is
/// an error.
fn fields(text: &str) -> Result<Fields, String> {
    if let Some(c) = text.chars().find(|&c| !is_printable(c)) {
        return Err(format!("control character U+{:04X}", u32::from(c)));
    }
    libyaml_only_errors(text)?;
    // libyaml reads NEL, LS and PS as line breaks.
    let text = &text.replace(['\u{85}', '\u{2028}', '\u{2029}'], "\n");
    let doc = yaml::parse(text, 0..text.len()).map_err(|error| format!("{:?}", error.kind))?;
    let root = doc.root().ok_or("empty")?;
    let NodeKind::Mapping { entries, .. } = &doc.resolve(root).kind else {
        return Err("not a mapping".into());
    };
    let mut out = Fields::default();
    for (key, value) in entries {
        let Some(key) = doc.scalar(*key) else {
            continue;
        };
        match key.value.as_str() {
            "name" => out.name = string(&doc, *value)?,
            "description" => out.description = string(&doc, *value)?,
            "metadata" => match &doc.resolve(*value).kind {
                NodeKind::Mapping { entries, .. } => {
                    for (key, value) in entries {
                        if doc
                            .scalar(*key)
                            .is_some_and(|k| k.value == "short-description")
                        {
                            string(&doc, *value)?;
                        }
                    }
                }
                NodeKind::Scalar(scalar) if is_null(scalar) => {}
                _ => return Err("`metadata` is not a mapping".into()),
            },
            _ => {}
        }
    }
    Ok(out)
}

fn is_null(scalar: &yaml::Scalar) -> bool {
    scalar.style == Style::Plain
        && !scalar.tagged
        && matches!(scalar.value.as_str(), "" | "~" | "null" | "Null" | "NULL")
}

fn string(doc: &Yaml, id: yaml::NodeId) -> Result<Option<String>, String> {
    match &doc.resolve(id).kind {
        NodeKind::Scalar(scalar) if is_null(scalar) => Ok(None),
        NodeKind::Scalar(scalar) => Ok(Some(scalar.value.clone())),
        other => Err(format!("{} where a string is expected", other.describe())),
    }
}

/// What libyaml (`serde_yaml` 0.9) refuses and the YAML 1.2 parser here accepts: a tab where a
/// block scalar's indentation is still being read ("found a tab character where an
/// indentation space is expected"), and a `\\u`/`\\U` escape of a UTF-16 surrogate in a
/// double-quoted scalar (libyaml does not pair them).
fn libyaml_only_errors(text: &str) -> Result<(), String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        index += 1;
        let indent = line.len() - line.trim_start_matches(' ').len();
        let Some((_, value)) = split_key(line).or_else(|| {
            line.trim_start()
                .strip_prefix("- ")
                .map(|rest| ("", rest.trim_start()))
        }) else {
            continue;
        };
        if value.starts_with('"') && surrogate_escape(value) {
            return Err("a \\u escape of a UTF-16 surrogate".into());
        }
        if !value.starts_with(['|', '>']) {
            continue;
        }
        let header = value.split(" #").next().unwrap_or_default().trim_end();
        if header.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        let mut block: Option<usize> = None;
        while let Some(next) = lines.get(index) {
            let spaces = next.len() - next.trim_start_matches(' ').len();
            let rest = &next[spaces..];
            let below = block.is_none_or(|n| spaces < n);
            if below && rest.starts_with('\t') {
                return Err("a tab in a block scalar's indentation".into());
            }
            if !rest.is_empty() {
                if spaces <= indent {
                    break;
                }
                block.get_or_insert(spaces);
            }
            index += 1;
        }
    }
    Ok(())
}

fn surrogate_escape(quoted: &str) -> bool {
    let mut chars = quoted.chars().skip(1);
    while let Some(c) = chars.next() {
        match c {
            '"' => return false,
            '\\' => {
                let width = match chars.next() {
                    Some('u') => 4,
                    Some('U') => 8,
                    _ => continue,
                };
                let hex: String = chars.by_ref().take(width).collect();
                if u32::from_str_radix(&hex, 16).is_ok_and(|v| (0xD800..=0xDFFF).contains(&v)) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// libyaml's printable set: what may appear raw in a YAML stream.
fn is_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Codex's one retry when the frontmatter does not parse: each `KEY: VALUE` line (nested ones
/// too, not lines inside a `|` or `>` block) loses its trailing comment (from the first ` #` or
/// tab-`#`, even inside quotes) and, unless the value starts with a quote or a block
/// indicator, has the value double-quoted when it holds `: ` (or colon-tab), starts with `@`
/// or a backtick, or starts with `[` or `{` without being a whole flow collection.
pub(crate) fn repair(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut block: Option<usize> = None;
    for line in yaml.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let ending = &line[content.len()..];
        let indent = content.len() - content.trim_start_matches([' ', '\t']).len();
        if let Some(parent) = block {
            if content.trim().is_empty() || indent > parent {
                out.push_str(line);
                continue;
            }
            block = None;
        }
        let Some((head, value)) = split_key(content) else {
            out.push_str(line);
            continue;
        };
        let cut = value
            .find(" #")
            .into_iter()
            .chain(value.find("\t#"))
            .min()
            .map_or(value, |at| &value[..at]);
        let value = cut.trim();
        if value.starts_with(['|', '>']) {
            block = Some(indent);
            out.push_str(line);
            continue;
        }
        if value.starts_with(['"', '\'']) || !needs_quotes(value) {
            out.push_str(line);
            continue;
        }
        out.push_str(head);
        out.push('"');
        out.push_str(&value.replace('\\', "\\\\").replace('"', "\\\""));
        out.push('"');
        out.push_str(ending);
    }
    out
}

/// `INDENT KEY:` (the key plain or quoted, spaces allowed before the colon) and the value after
/// the colon and its space or tab, for a line of that form.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let body = line.trim_start_matches([' ', '\t']);
    let start = line.len() - body.len();
    let key_end = match body.chars().next()? {
        quote @ ('"' | '\'') => body[1..].find(quote).map(|at| at + 2)?,
        '#' | '-' | '?' | ':' => return None,
        _ => body.find(':')?,
    };
    let after = body[key_end..].trim_start_matches(' ');
    let rest = after.strip_prefix(':')?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let value = rest.trim_start_matches([' ', '\t']);
    let head_len = line.len() - value.len();
    let _ = start;
    Some((&line[..head_len], value))
}

fn needs_quotes(value: &str) -> bool {
    if value.contains(": ") || value.contains(":\t") || value.starts_with(['@', '`']) {
        return true;
    }
    if value.starts_with(['[', '{']) {
        // Whether it parses as a `serde_yaml::Value` on its own: an integer that needs 128
        // bits (over `u64`, under `i64`) does not.
        let whole = yaml::parse(value, 0..value.len()).ok().is_some_and(|doc| {
            doc.root().is_some_and(|root| {
                let node = doc.node(root);
                matches!(
                    node.kind,
                    NodeKind::Sequence { flow: true, .. } | NodeKind::Mapping { flow: true, .. }
                ) && !has_wide_int(&doc, root)
            })
        });
        return !whole;
    }
    false
}

fn has_wide_int(doc: &Yaml, id: yaml::NodeId) -> bool {
    match &doc.node(id).kind {
        NodeKind::Scalar(scalar) => {
            scalar.style == Style::Plain && !scalar.tagged && is_wide_int(&scalar.value)
        }
        NodeKind::Sequence { items, .. } => items.iter().any(|&item| has_wide_int(doc, item)),
        NodeKind::Mapping { entries, .. } => entries
            .iter()
            .any(|&(key, value)| has_wide_int(doc, key) || has_wide_int(doc, value)),
        NodeKind::Alias(_) => false,
    }
}

/// `serde_yaml` 0.9 reads these as `u128`/`i128`, which `serde_yaml::Value` refuses.
fn is_wide_int(text: &str) -> bool {
    let (negative, body) = match text.strip_prefix('-') {
        Some(body) => (true, body),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = body.strip_prefix("0b") {
        (2, d)
    } else {
        (10, body)
    };
    let Ok(value) = u128::from_str_radix(digits, radix) else {
        return false;
    };
    if digits.starts_with(['+', '-']) {
        return false;
    }
    if negative {
        value > 1u128 << 63 && value <= 1u128 << 127
    } else {
        value > u128::from(u64::MAX)
    }
}

/// Codex's catalog budget in tokens: 2% of the model's context window.
pub(crate) fn budget(context_window: usize) -> usize {
    context_window.saturating_mul(2) / 100
}

/// Bytes of the roots table the budget does not charge for [inferred].
pub(crate) const FREE_ROOTS_BYTES: usize = 142;

/// The tokens left for skill lines when the roots table takes `table_bytes` (its lines with
/// their line breaks): a long roots table shortens the descriptions. [inferred: fitted to 11
/// runs of one 130-skill catalog under roots of growing path length, one and two roots; the
/// deduction is `ceil((table_bytes - 142) / 4)` tokens, none below 142 bytes.]
pub(crate) fn skills_limit(limit: usize, table_bytes: usize) -> usize {
    limit.saturating_sub(table_bytes.saturating_sub(FREE_ROOTS_BYTES).div_ceil(4))
}

/// The tokens a listing line costs: its UTF-8 bytes with the line break, divided by 4,
/// rounded up.
fn cost(bytes: usize) -> usize {
    (bytes + 1).div_ceil(4)
}

/// How many characters of each description fit `limit` tokens; `None` leaves the skill out.
///
/// `entries` are (the line without its description, `- NAME: (file: …)`, and the
/// description), in listing order. If every full line fits, all are whole. Otherwise, if
/// every minimum line fits, the tokens left are shared out one character at a time,
/// round-robin, while each added character's cost still fits (no mark shows the cut).
/// Otherwise minimum lines are kept in order while they fit and the rest are left out.
pub(crate) fn fit(entries: &[(String, &str)], limit: usize) -> Vec<Option<usize>> {
    let full: usize = entries
        .iter()
        .map(|(min, description)| {
            if description.is_empty() {
                cost(min.len())
            } else {
                cost(min.len() + description.len() + 1)
            }
        })
        .sum();
    if full <= limit {
        return entries
            .iter()
            .map(|(_, description)| Some(description.chars().count()))
            .collect();
    }
    let minimum: usize = entries.iter().map(|(min, _)| cost(min.len())).sum();
    if minimum > limit {
        let mut used = 0;
        return entries
            .iter()
            .map(|(min, _)| {
                let line = cost(min.len());
                (used + line <= limit).then(|| {
                    used += line;
                    0
                })
            })
            .collect();
    }
    let mut left = limit - minimum;
    let chars: Vec<Vec<usize>> = entries
        .iter()
        .map(|(_, description)| description.chars().map(char::len_utf8).collect())
        .collect();
    let mut kept = vec![0usize; entries.len()];
    let mut bytes = vec![0usize; entries.len()];
    let mut extra = vec![0usize; entries.len()];
    loop {
        let mut changed = false;
        for (index, (min, _)) in entries.iter().enumerate() {
            let Some(&next) = chars[index].get(kept[index]) else {
                continue;
            };
            let base = cost(min.len());
            let now = cost(min.len() + bytes[index] + next + 1) - base;
            let delta = now - extra[index];
            if delta <= left {
                kept[index] += 1;
                bytes[index] += next;
                extra[index] = now;
                left -= delta;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    kept.into_iter().map(Some).collect()
}

/// The skill a `$name` mention injects: names are made of `[A-Za-z0-9_:-]` and match the
/// frontmatter-derived name byte for byte; a name shared by two skills injects nothing. Skills
/// hidden from the listing by their `openai.yaml` policy can still be mentioned.
pub(crate) fn mentioned<'a>(catalog: &'a Catalog, name: &str) -> Result<&'a Skill, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-'))
    {
        return Err(format!(
            "`${name}` is not a mention Codex reads (a name of letters, digits, `_`, `:` and `-`)"
        ));
    }
    let mut found = catalog.skills.iter().filter(|skill| skill.name == name);
    match (found.next(), found.next()) {
        (Some(skill), None) => Ok(skill),
        (Some(_), Some(_)) => Err(format!(
            "two or more skills are named `{name}`: Codex injects none of them"
        )),
        (None, _) => Err(format!(
            "no skill named `{name}` (Codex matches the `name`, not the folder)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(yaml: &str) -> Result<(String, String), String> {
        parse(&format!("---\n{yaml}\n---\nbody\n"), "folder")
    }

    #[test]
    fn delimiters() {
        assert_eq!(frontmatter("---\nname: x\n---\n"), Some("name: x\n"));
        assert_eq!(
            frontmatter("  ---  \r\nname: x\r\n --- \r\n"),
            Some("name: x\r\n")
        );
        assert_eq!(frontmatter("\u{feff}---\nname: x\n---\n"), None);
        assert_eq!(frontmatter("---\nname: x\n...\n"), None);
        assert_eq!(frontmatter("---\n---\n"), None);
    }

    #[test]
    fn names() {
        let ok = |yaml: &str| parsed(&format!("{yaml}\ndescription: d")).map(|(name, _)| name);
        assert_eq!(ok("name: \"My  Skill\\tX\""), Ok("My Skill X".into()));
        assert_eq!(ok("name: ~"), Ok("folder".into()));
        assert_eq!(ok(""), Ok("folder".into()));
        assert_eq!(ok("name: 1.50"), Ok("1.50".into()));
        assert_eq!(ok("name: {a: 1}"), Ok("{a: 1}".into()));
        assert!(ok("name: [a, b]").is_err());
        assert_eq!(
            ok(&format!("name: {}", "n".repeat(64))).map(|n| n.len()),
            Ok(64)
        );
        assert!(ok(&format!("name: {}", "n".repeat(65))).is_err());
    }

    #[test]
    fn descriptions() {
        let ok = |yaml: &str| parsed(&format!("name: n\n{yaml}")).map(|(_, d)| d);
        assert_eq!(
            ok("description: Alpha  skill\n  second line."),
            Ok("Alpha skill second line.".into())
        );
        assert!(ok("description:").is_err());
        assert!(ok("description: \"  \"").is_err());
        assert!(ok("").is_err());
        assert_eq!(ok("description: a: b"), Ok("a: b".into()));
        assert_eq!(ok("description: @x"), Ok("@x".into()));
        assert_eq!(ok("description: [a: b]"), Ok("[a: b]".into()));
        assert_eq!(ok("description: a: \"b # c\""), Ok("a: \"b".into()));
        assert_eq!(ok("description: !custom thing"), Ok("thing".into()));
        assert!(ok("description: [a, b]").is_err());
        assert!(ok("description: | x: y").is_err());
        assert!(ok("description: a\ndescription: b").is_err());
        assert!(ok("description: a\u{7}b").is_err());
        assert_eq!(ok("foo: a: b\ndescription: good"), Ok("good".into()));
        let long = ok(&format!("description: {}", "a".repeat(1025))).unwrap();
        assert_eq!(long, format!("{}...", "a".repeat(1021)));
        assert_eq!(
            ok(&format!("description: {}", "é".repeat(1024)))
                .unwrap()
                .chars()
                .count(),
            1024
        );
        assert_eq!(
            ok("description: [123456789012345678901, two]"),
            Ok("[123456789012345678901, two]".into())
        );
        assert!(ok("description: \"\\uD83D\\uDE00\"").is_err());
        assert!(ok("description: |\n  a \u{2029} b").is_err());
        assert!(ok("description: >+\n  \t notes").is_err());
        assert_eq!(ok("description: |\n  a\n  \tb"), Ok("a b".into()));
        assert_eq!(ok("description: \"a\\x7fb\""), Ok("a\u{7f}b".into()));
    }

    #[test]
    fn budget_shares_out_characters() {
        let entries: Vec<(String, &str)> = vec![
            ("- a: (file: r0/a/SKILL.md)".into(), "aaaaaaaaaaaaaaaaaaaa"),
            ("- b: (file: r0/b/SKILL.md)".into(), "bb"),
        ];
        assert_eq!(fit(&entries, 100), vec![Some(20), Some(2)]);
        assert_eq!(fit(&entries, 16), vec![Some(4), Some(2)]);
        assert_eq!(fit(&entries, 7), vec![Some(0), None]);
        assert_eq!(budget(DEFAULT_CONTEXT_WINDOW), 10_000);
        assert_eq!(skills_limit(10_000, 103), 10_000);
        assert_eq!(skills_limit(10_000, 181), 9_990);
        assert_eq!(skills_limit(10_000, 421), 9_930);
    }
}
