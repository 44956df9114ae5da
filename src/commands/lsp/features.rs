//! What the editor asks about a SKILL.md: hovers, completion, the outline and the code lens.
//! Each answer reads the editor's text afresh and asks the `agent` layer what the agent does,
//! the same functions `lint` and `preview` use.

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use lsp_types::{
    CodeLens, Command, CompletionItem, CompletionItemKind, CompletionResponse, DocumentSymbol,
    DocumentSymbolResponse, Hover, HoverContents, MarkupContent, MarkupKind, SymbolKind,
    TextDocumentPositionParams, Url,
};
use regex::Regex;

use super::document::{Document, Encoding};
use super::workspace::Workspace;
use super::{Documents, PREVIEW_COMMAND, is_skill_file};
use crate::agent::claude_code::shell::{self, Permissions, Verdict};
use crate::agent::claude_code::{Version, arguments};
use crate::agent::{KeyUse, Target};
use crate::skill::model::{KNOWN_KEYS, KeyOrigin, known_key};
use crate::skill::text::SourceText;
use crate::skill::{Reading, Skill, folder_name};

/// What every request reads.
pub(crate) struct Context<'a> {
    pub workspace: &'a Workspace,
    pub documents: &'a Documents,
    pub encoding: Encoding,
    /// The editor takes versioned edits (`documentChanges`), which it refuses for another
    /// version of the file.
    pub document_changes: bool,
    /// The editor resolves a code action's edit on demand (`codeAction/resolve`).
    pub resolve_edits: bool,
}

/// An open SKILL.md, read afresh from the editor's text.
struct Open<'a> {
    path: PathBuf,
    doc: &'a Document,
    skill: Skill,
    /// Its index in the workspace, when the workspace knows it.
    index: Option<usize>,
}

impl Open<'_> {
    fn source(&self) -> Option<&SourceText> {
        self.skill.source().ok()
    }

    fn reading(&self) -> Option<&Reading> {
        self.skill.reading()
    }

    fn targets(&self, cx: &Context<'_>) -> Vec<Target> {
        match self.index {
            Some(index) => cx.workspace.job(index).2.clone(),
            None => crate::commands::common::default_targets(
                self.path.parent().unwrap_or(Path::new(".")),
            ),
        }
    }

    /// Where the Markdown body starts in the normalised text.
    fn body_start(&self) -> usize {
        self.reading()
            .and_then(Reading::region)
            .map_or(0, |region| region.body)
    }
}

fn open<'a>(cx: &Context<'a>, uri: &Url) -> Option<Open<'a>> {
    let path = uri.to_file_path().ok()?;
    if !is_skill_file(&path) {
        return None;
    }
    let doc = cx.documents.get(&path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let skill = Skill::from_bytes(path.clone(), folder_name(dir), doc.text.as_bytes().to_vec());
    let index = cx.workspace.skill_of(&path);
    Some(Open {
        path,
        doc,
        skill,
        index,
    })
}

fn markdown(value: String, range: Option<lsp_types::Range>) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range,
    }
}

/// A fenced block that holds `text` whatever backticks it has.
pub(crate) fn fenced(text: &str) -> String {
    let mut fence = "```".to_owned();
    while text.contains(&fence) {
        fence.push('`');
    }
    format!("{fence}text\n{text}\n{fence}")
}

pub(crate) fn hover(cx: &Context<'_>, params: &TextDocumentPositionParams) -> Option<Hover> {
    let open = open(cx, &params.text_document.uri)?;
    let source = open.source()?;
    let at = open
        .doc
        .normalised(open.doc.offset(params.position, cx.encoding));
    let (text, span) =
        frontmatter_hover(cx, &open, at).or_else(|| body_hover(cx, &open, source, at))?;
    let range = super::actions::range_of(source, open.doc, &span, cx.encoding);
    Some(markdown(text, Some(range)))
}

fn frontmatter_hover(
    cx: &Context<'_>,
    open: &Open<'_>,
    at: usize,
) -> Option<(String, Range<usize>)> {
    let doc = open.reading()?.doc.as_ref()?;
    let targets = open.targets(cx);
    for (key, _) in &doc.entries {
        if key.span.contains(&at) {
            return Some((key_hover(&key.value, &targets), key.span.clone()));
        }
    }
    for field in [&doc.description, &doc.when_to_use].into_iter().flatten() {
        if field.span.contains(&at) || (field.span.is_empty() && field.span.start == at) {
            return Some((listing_hover(cx, open, &targets), field.span.clone()));
        }
    }
    None
}

/// A frontmatter key: what it takes, and what each agent does with it.
fn key_hover(name: &str, targets: &[Target]) -> String {
    let known = known_key(name);
    let mut out = String::new();
    if let Some(known) = known {
        let origin = match known.origin {
            KeyOrigin::Spec => "an Agent Skills spec key".to_owned(),
            KeyOrigin::ClaudeCode { since: None } => "a Claude Code key".to_owned(),
            KeyOrigin::ClaudeCode {
                since: Some((major, minor, patch)),
            } => format!("a Claude Code key, read since {major}.{minor}.{patch}"),
        };
        let _ = writeln!(
            out,
            "**`{name}`**: {origin}. Its value: {}.\n",
            known.expects
        );
    } else {
        let _ = write!(
            out,
            "**`{name}`** is not a frontmatter key any agent reads."
        );
        if let Some(suggestion) = crate::check::rules::keys_suggest(name) {
            let _ = write!(out, " Did you mean `{suggestion}`?");
        }
        out.push_str("\n\n");
    }
    for (use_, what) in [
        (KeyUse::Reads, "Read by"),
        (KeyUse::Ignores, "Ignored by"),
        (KeyUse::Rejects, "Refused by"),
    ] {
        let agents: Vec<String> = Target::ALL
            .iter()
            .filter(|target| target.key_use(known) == use_)
            .map(|target| {
                let name = target.display();
                if targets.contains(target) {
                    format!("**{name}**")
                } else {
                    name.to_owned()
                }
            })
            .collect();
        if !agents.is_empty() {
            let _ = writeln!(out, "- {what}: {}", agents.join(", "));
        }
    }
    let checked: Vec<&str> = targets.iter().map(|target| target.name()).collect();
    let _ = write!(
        out,
        "\nThis skill is checked for {} (in bold above).",
        checked.join(", ")
    );
    out
}

/// The description: the exact line Claude Code lists, its cost, and the budget's verdict.
fn listing_hover(cx: &Context<'_>, open: &Open<'_>, targets: &[Target]) -> String {
    let Some(index) = open.index else {
        return "This file is not a skill skillpkg found in the workspace.".to_owned();
    };
    let window = cx.workspace.context_window;
    let Some(line) =
        crate::check::lint::set::listing_line(cx.workspace.listing_facts(), index, window)
    else {
        return "Claude Code does not list this skill: `disable-model-invocation: true` or \
                `paths` keeps it out of the listing the model reads."
            .to_owned();
    };
    let mut out = String::from("**What Claude Code 2.1.332 lists for this skill**\n\n");
    out.push_str(&fenced(&line.line));
    let _ = write!(
        out,
        "\n\nThis line costs **{} columns** of the listing budget",
        group(line.columns)
    );
    if line.capped {
        out.push_str(", after the per-entry cap cut the text at 1,536 UTF-16 units");
    }
    out.push_str(".\n\n");
    let of = match &line.listing {
        Some(listing) if listing.ends_with(".claude/skills") => {
            format!("The listing of `{}`", listing.display())
        }
        Some(listing) => format!(
            "The listing of the plugin `{}`",
            listing.file_name().map_or_else(
                || listing.display().to_string(),
                |name| name.to_string_lossy().into_owned()
            )
        ),
        None => "This skill is in no `.claude/skills` folder or plugin here; a listing of it \
                 alone"
            .to_owned(),
    };
    let verdict = if line.kept {
        "the description is **kept**"
    } else {
        "over budget, so Claude Code **drops this description** and lists the name alone"
    };
    let members = if line.listing.is_some() {
        format!(
            " ({} {})",
            line.members,
            if line.members == 1 { "skill" } else { "skills" }
        )
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "{of}{members} needs {} of {} columns at a {}-token context window, Claude Code's own \
         skills included: {verdict}.",
        group(line.needed),
        group(line.budget),
        group(window),
    );
    if !targets.iter().any(|target| target.is_claude_code()) {
        out.push_str("\n\n(This skill is not checked for Claude Code.)");
    }
    out
}

/// `1234567` as `1,234,567`.
fn group(value: usize) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Variables Claude Code substitutes in a skill's text.
fn variable_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"\$\{CLAUDE_[A-Z_]+\}|\$ARGUMENTS(?:\[\d+\])?|\$\d+|\$[A-Za-z_][A-Za-z0-9_]*")
            .expect("a valid pattern")
    })
}

/// The arguments the hovers expand variables with.
const EXAMPLE_ARGS: &str = "report.pdf \"Q3 summary\"";

fn body_hover(
    cx: &Context<'_>,
    open: &Open<'_>,
    source: &SourceText,
    at: usize,
) -> Option<(String, Range<usize>)> {
    let start = open.body_start();
    if at < start {
        return None;
    }
    let text = source.text();
    let body = &text[start..];
    let relative = at - start;
    let targets = open.targets(cx);
    let doc = open.reading().and_then(|reading| reading.doc.as_ref());
    // A variable first: inside an inline command it is the more precise answer.
    for found in variable_pattern().find_iter(body) {
        if found.range().contains(&relative) {
            let text = variable_hover(open, doc, found.as_str(), &targets)?;
            return Some((text, found.start() + start..found.end() + start));
        }
    }
    for inline in shell::inline_commands(body) {
        if inline.range.contains(&relative) {
            let tools = crate::check::lint::body::allowed_tools(doc);
            let verdict = Permissions::new(&tools).verdict(&inline.command);
            let mut out = format!(
                "**Inline shell**: when the skill is invoked, Claude Code runs `{}` and puts its \
                 output here, before the model reads anything. skillpkg never runs it \
                 (`skillpkg preview --invoke {} --exec` does).\n\n",
                inline.command.replace('`', "'"),
                open.skill.dir_name
            );
            match &verdict {
                Verdict::Runs(_) => {
                    let _ = write!(
                        out,
                        "Claude Code's permission check: **it runs** ({verdict})."
                    );
                }
                Verdict::Aborts { part, needs } => {
                    let _ = write!(
                        out,
                        "Claude Code's permission check: **it fails** on `{part}`, and the whole \
                         invocation aborts (\"Shell command permission check failed\"): the \
                         model sees nothing of the skill. `allowed-tools` needs `{needs}`."
                    );
                }
            }
            let others: Vec<&str> = targets
                .iter()
                .filter(|target| target.leaves_claude_skill_dir())
                .map(|target| target.display())
                .collect();
            if !others.is_empty() {
                let _ = write!(
                    out,
                    "\n\n{}: the model sees it as written.",
                    others.join(", ")
                );
            }
            return Some((out, inline.range.start + start..inline.range.end + start));
        }
    }
    link_hover(open, body, relative)
        .map(|(text, range)| (text, range.start + start..range.end + start))
}

fn variable_hover(
    open: &Open<'_>,
    doc: Option<&crate::skill::model::SkillDoc>,
    token: &str,
    targets: &[Target],
) -> Option<String> {
    let leave: Vec<&str> = targets
        .iter()
        .filter(|target| target.leaves_claude_skill_dir())
        .map(|target| target.display())
        .collect();
    let as_written = if leave.is_empty() {
        String::new()
    } else {
        format!("\n\n{}: the model sees it as written.", leave.join(", "))
    };
    let dir = std::path::absolute(open.path.parent().unwrap_or(Path::new("."))).unwrap_or_default();
    let text = match token {
        "${CLAUDE_SKILL_DIR}" => format!(
            "**`${{CLAUDE_SKILL_DIR}}`**: Claude Code replaces it with the skill's folder, here \
             `{}`.{as_written}",
            dir.display()
        ),
        "${CLAUDE_SESSION_ID}" => format!(
            "**`${{CLAUDE_SESSION_ID}}`**: Claude Code replaces it with the session's id (a \
             UUID).{as_written}"
        ),
        "${CLAUDE_PROJECT_DIR}" => format!(
            "**`${{CLAUDE_PROJECT_DIR}}`**: Claude Code 2.1.332 replaces it with the project \
             folder it runs in (2.1.88 leaves it).{as_written}"
        ),
        "${CLAUDE_EFFORT}" => format!(
            "**`${{CLAUDE_EFFORT}}`**: Claude Code 2.1.332 replaces it with the effort level \
             (`effort`, else the model's: medium, or high for legacy models).{as_written}"
        ),
        token if token.starts_with("${") => format!(
            "**`{token}`** is not a variable Claude Code substitutes: the model sees it as \
             written."
        ),
        token => {
            let names: Vec<String> = doc
                .and_then(|doc| doc.arguments.as_deref())
                .and_then(|field| field.value.as_ref().ok())
                .map(|names| names.iter().map(|name| name.value.clone()).collect())
                .unwrap_or_default();
            let declared = names.iter().any(|name| token[1..] == *name);
            let numbered = token.starts_with("$ARGUMENTS")
                || token[1..].starts_with(|c: char| c.is_ascii_digit());
            if !declared && !numbered {
                return None;
            }
            let (expanded, _) = arguments::substitute_arguments(
                token,
                Some(EXAMPLE_ARGS),
                &names,
                Version::Current,
            );
            let what = if token == "$ARGUMENTS" {
                "everything typed after the skill's name (or the Skill tool's `args`)".to_owned()
            } else if declared {
                "the argument `arguments` names here, by its position".to_owned()
            } else {
                "one argument, counted from 0, split as a shell would".to_owned()
            };
            format!(
                "**`{token}`**: Claude Code replaces it with {what}. \
                 `/{} {EXAMPLE_ARGS}` makes it `{}`.\n\nWhen the text uses none of `$ARGUMENTS`, \
                 `$N` or the declared names, Claude Code appends `ARGUMENTS: …` to it instead.",
                open.skill.dir_name,
                expanded.replace('`', "'")
            )
        }
    };
    Some(text)
}

/// A Markdown link or image: where it points, and whether that is there.
fn link_hover(open: &Open<'_>, body: &str, at: usize) -> Option<(String, Range<usize>)> {
    let options = pulldown_cmark::Options::ENABLE_TABLES;
    for (event, range) in pulldown_cmark::Parser::new_ext(body, options).into_offset_iter() {
        let destination = match &event {
            pulldown_cmark::Event::Start(
                pulldown_cmark::Tag::Link { dest_url, .. }
                | pulldown_cmark::Tag::Image { dest_url, .. },
            ) if range.contains(&at) => dest_url.to_string(),
            _ => continue,
        };
        let dir = open.path.parent().unwrap_or(Path::new("."));
        return Some((link_target(dir, &destination), range));
    }
    None
}

fn link_target(dir: &Path, destination: &str) -> String {
    let is_url = destination.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && scheme.len() > 1
    });
    if is_url || destination.starts_with('#') || destination.is_empty() {
        return format!("**Link** to `{destination}`: not a file of the skill.");
    }
    let path = destination
        .split(['#', '?'])
        .next()
        .unwrap_or(destination)
        .replace("%20", " ");
    let relative = Path::new(&path);
    let escapes = relative.is_absolute()
        || relative
            .components()
            .try_fold(0_i32, |depth, part| match part {
                std::path::Component::ParentDir => (depth > 0).then_some(depth - 1),
                std::path::Component::Normal(_) => Some(depth + 1),
                _ => Some(depth),
            })
            .is_none();
    if escapes {
        return format!(
            "**Link** to `{path}`: outside the skill's folder, so it is not packaged with the \
             skill and the agent may not find it."
        );
    }
    let full = dir.join(relative);
    match fs_err::symlink_metadata(&full) {
        Ok(meta) if meta.is_dir() => format!("**Link** to `{path}`: a folder of the skill."),
        Ok(meta) if meta.is_file() => format!(
            "**Link** to `{path}`: the file exists ({} bytes).",
            group(usize::try_from(meta.len()).unwrap_or(usize::MAX))
        ),
        Ok(_) => format!("**Link** to `{path}`: a symbolic link or special file."),
        Err(_) => format!(
            "**Link** to `{path}`: **no such file** in the skill's folder (`broken-reference`)."
        ),
    }
}

/// Completion: frontmatter keys and their values, file paths in links, and Claude Code's
/// variables in the body.
pub(crate) fn completion(
    cx: &Context<'_>,
    params: &TextDocumentPositionParams,
) -> Option<CompletionResponse> {
    let open = open(cx, &params.text_document.uri)?;
    let offset = open.doc.offset(params.position, cx.encoding);
    let line_start = open.doc.line_start(params.position.line as usize);
    let before = &open.doc.text[line_start..offset];
    let at = open.doc.normalised(offset);
    let in_frontmatter = open
        .reading()
        .and_then(Reading::region)
        .is_some_and(|region| region.yaml.start <= at && at <= region.yaml.end);
    let items = if in_frontmatter {
        frontmatter_items(cx, &open, before, line_start)
    } else {
        body_items(cx, &open, before)
    };
    Some(CompletionResponse::Array(items))
}

fn frontmatter_items(
    cx: &Context<'_>,
    open: &Open<'_>,
    before: &str,
    line_start: usize,
) -> Vec<CompletionItem> {
    static KEY: OnceLock<Regex> = OnceLock::new();
    static VALUE: OnceLock<Regex> = OnceLock::new();
    static ITEM: OnceLock<Regex> = OnceLock::new();
    let key = KEY.get_or_init(|| Regex::new(r"^[A-Za-z_-]*$").expect("a valid pattern"));
    let value =
        VALUE.get_or_init(|| Regex::new(r"^([A-Za-z_-]+):[ \t]*(.*)$").expect("a valid pattern"));
    let item = ITEM.get_or_init(|| Regex::new(r"^[ \t]+-[ \t]*\S*$").expect("a valid pattern"));
    let targets = open.targets(cx);
    if key.is_match(before) {
        let present: Vec<&str> = open
            .reading()
            .and_then(|reading| reading.doc.as_ref())
            .map(|doc| {
                doc.entries
                    .iter()
                    .map(|(key, _)| key.value.as_str())
                    .collect()
            })
            .unwrap_or_default();
        return KNOWN_KEYS
            .iter()
            .filter(|known| !present.contains(&known.name))
            .map(|known| {
                let reads = targets
                    .iter()
                    .any(|target| target.key_use(Some(known)) == KeyUse::Reads);
                CompletionItem {
                    label: known.name.to_owned(),
                    kind: Some(CompletionItemKind::PROPERTY),
                    detail: Some(known.expects.to_owned()),
                    documentation: Some(lsp_types::Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: key_hover(known.name, &targets),
                    })),
                    insert_text: Some(format!("{}: ", known.name)),
                    // Keys this skill's agents read first.
                    sort_text: Some(format!("{}{}", u8::from(!reads), known.name)),
                    ..CompletionItem::default()
                }
            })
            .collect();
    }
    let (name, typed) = if let Some(captures) = value.captures(before) {
        (captures[1].to_owned(), captures[2].to_owned())
    } else if item.is_match(before) {
        // A list item: the key is the last top-level one above.
        let text = &open.doc.text[..line_start];
        let above = text
            .lines()
            .rev()
            .find(|line| line.starts_with(|c: char| c.is_ascii_alphabetic()))
            .and_then(|line| line.split_once(':'))
            .map(|(key, _)| key.trim().to_owned())
            .unwrap_or_default();
        (above, String::new())
    } else {
        return Vec::new();
    };
    let values = values_for(&name, &typed, open);
    values
        .into_iter()
        .map(|(label, detail)| CompletionItem {
            label,
            kind: Some(CompletionItemKind::VALUE),
            detail: detail.map(str::to_owned),
            ..CompletionItem::default()
        })
        .collect()
}

/// The values a key takes, for completion.
fn values_for(key: &str, typed: &str, open: &Open<'_>) -> Vec<(String, Option<&'static str>)> {
    let words =
        |list: &[&'static str]| list.iter().map(|word| ((*word).to_owned(), None)).collect();
    match key {
        "context" => vec![(
            "fork".to_owned(),
            Some("run the skill in a forked sub-agent"),
        )],
        "effort" => words(&["low", "medium", "high", "xhigh", "max"]),
        "shell" => words(&["bash", "powershell"]),
        "disable-model-invocation"
        | "user-invocable"
        | "background"
        | "default-enabled"
        | "default_enabled"
        | "defaultEnabled" => words(&["true", "false"]),
        "model" => {
            let mut models: Vec<(String, Option<&'static str>)> =
                ["inherit", "sonnet", "opus", "haiku"]
                    .iter()
                    .map(|alias| ((*alias).to_owned(), Some("alias")))
                    .collect();
            models.push((
                crate::agent::claude_code::DEFAULT_MODEL.to_owned(),
                Some("preview's default model"),
            ));
            models.extend(
                crate::agent::claude_code::LEGACY
                    .iter()
                    .map(|model| ((*model).to_owned(), Some("legacy model"))),
            );
            models
        }
        "allowed-tools" | "disallowed-tools" => {
            // After the tools already written on the line.
            let _ = typed;
            crate::check::lint::frontmatter::CLAUDE_CODE_TOOLS
                .iter()
                .map(|tool| ((*tool).to_owned(), Some("Claude Code tool")))
                .chain(std::iter::once((
                    "Bash(git:*)".to_owned(),
                    Some("one command's prefix"),
                )))
                .collect()
        }
        "name" => vec![(open.skill.dir_name.clone(), Some("the folder's name"))],
        _ => Vec::new(),
    }
}

fn body_items(cx: &Context<'_>, open: &Open<'_>, before: &str) -> Vec<CompletionItem> {
    static LINK: OnceLock<Regex> = OnceLock::new();
    let link = LINK.get_or_init(|| Regex::new(r"\]\(([^)\s]*)$").expect("a valid pattern"));
    if let Some(captures) = link.captures(before) {
        let typed = &captures[1];
        let Some(index) = open.index else {
            return Vec::new();
        };
        let dir = open.path.parent().unwrap_or(Path::new("."));
        return cx
            .workspace
            .files(index)
            .iter()
            .filter_map(|file| file.strip_prefix(dir).ok())
            .map(crate::output::slash_path)
            .filter(|path| {
                path.starts_with(typed) && !path.split('/').any(|part| part.starts_with('.'))
            })
            .map(|path| CompletionItem {
                label: path.clone(),
                kind: Some(CompletionItemKind::FILE),
                ..CompletionItem::default()
            })
            .collect();
    }
    if before.ends_with('$') || before.ends_with("${") {
        let dollar = if before.ends_with("${") { "${" } else { "$" };
        return [
            ("$ARGUMENTS", "everything typed after the skill's name"),
            ("$ARGUMENTS[0]", "the first argument"),
            ("$0", "the first argument"),
            ("${CLAUDE_SKILL_DIR}", "the skill's folder"),
            ("${CLAUDE_SESSION_ID}", "the session's id"),
            ("${CLAUDE_PROJECT_DIR}", "the project folder (2.1.332)"),
            ("${CLAUDE_EFFORT}", "the effort level (2.1.332)"),
        ]
        .iter()
        .filter(|(label, _)| label.starts_with(dollar))
        .map(|(label, detail)| CompletionItem {
            label: (*label).to_owned(),
            kind: Some(CompletionItemKind::VARIABLE),
            detail: Some((*detail).to_owned()),
            insert_text: Some(label[dollar.len()..].to_owned()),
            ..CompletionItem::default()
        })
        .collect();
    }
    Vec::new()
}

/// The outline: the frontmatter with its keys, then the body's headings, nested by level.
pub(crate) fn symbols(cx: &Context<'_>, uri: &Url) -> Option<DocumentSymbolResponse> {
    let open = open(cx, uri)?;
    let source = open.source()?;
    let range = |span: Range<usize>| super::actions::range_of(source, open.doc, &span, cx.encoding);
    let mut out = Vec::new();
    if let Some(reading) = open.reading()
        && let Some(region) = reading.region()
    {
        let children: Vec<DocumentSymbol> = reading
            .doc
            .iter()
            .flat_map(|doc| doc.entries.iter())
            .map(|(key, _)| {
                symbol(
                    key.value.clone(),
                    SymbolKind::PROPERTY,
                    range(key.span.clone()),
                    range(key.span.clone()),
                    None,
                )
            })
            .collect();
        let whole = region.open.start..region.close.end;
        out.push(symbol(
            "frontmatter".into(),
            SymbolKind::NAMESPACE,
            range(whole),
            range(region.open.clone()),
            Some(children),
        ));
    }
    let start = open.body_start();
    let body = &source.text()[start..];
    let mut headings: Vec<(u32, String, Range<usize>)> = Vec::new();
    let mut current: Option<(u32, String, Range<usize>)> = None;
    for (event, span) in pulldown_cmark::Parser::new(body).into_offset_iter() {
        match event {
            pulldown_cmark::Event::Start(pulldown_cmark::Tag::Heading { level, .. }) => {
                current = Some((level as u32, String::new(), span));
            }
            pulldown_cmark::Event::Text(text) | pulldown_cmark::Event::Code(text) => {
                if let Some((_, name, _)) = &mut current {
                    name.push_str(&text);
                }
            }
            pulldown_cmark::Event::End(pulldown_cmark::TagEnd::Heading(_)) => {
                headings.extend(current.take());
            }
            _ => {}
        }
    }
    // Each heading's section runs to the next heading of its level or above.
    let mut sections: Vec<(u32, DocumentSymbol)> = Vec::new();
    for (index, (level, name, span)) in headings.iter().enumerate() {
        let end = headings[index + 1..]
            .iter()
            .find(|(next, _, _)| next <= level)
            .map_or(body.len(), |(_, _, next)| next.start);
        let name = if name.trim().is_empty() {
            "(empty heading)".to_owned()
        } else {
            name.trim().to_owned()
        };
        sections.push((
            *level,
            symbol(
                name,
                SymbolKind::STRING,
                range(start + span.start..start + end.max(span.end)),
                range(start + span.start..start + span.start + body[span.clone()].trim_end().len()),
                None,
            ),
        ));
    }
    out.extend(nest(sections));
    Some(DocumentSymbolResponse::Nested(out))
}

/// Headings in order, each put under the nearest earlier heading of a lower level.
fn nest(sections: Vec<(u32, DocumentSymbol)>) -> Vec<DocumentSymbol> {
    let mut roots: Vec<DocumentSymbol> = Vec::new();
    let mut stack: Vec<(u32, DocumentSymbol)> = Vec::new();
    let close = |stack: &mut Vec<(u32, DocumentSymbol)>, roots: &mut Vec<DocumentSymbol>| {
        if let Some((_, done)) = stack.pop() {
            match stack.last_mut() {
                Some((_, parent)) => parent.children.get_or_insert_with(Vec::new).push(done),
                None => roots.push(done),
            }
        }
    };
    for (level, section) in sections {
        while stack.last().is_some_and(|(open, _)| *open >= level) {
            close(&mut stack, &mut roots);
        }
        stack.push((level, section));
    }
    while !stack.is_empty() {
        close(&mut stack, &mut roots);
    }
    roots
}

#[expect(
    deprecated,
    reason = "`deprecated` is a field the protocol still requires"
)]
fn symbol(
    name: String,
    kind: SymbolKind,
    range: lsp_types::Range,
    selection_range: lsp_types::Range,
    children: Option<Vec<DocumentSymbol>>,
) -> DocumentSymbol {
    DocumentSymbol {
        name,
        detail: None,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children,
    }
}

/// "Preview what the model sees", above a SKILL.md's first line.
pub(crate) fn code_lenses(cx: &Context<'_>, uri: &Url) -> Option<Vec<CodeLens>> {
    let path = uri.to_file_path().ok()?;
    if !is_skill_file(&path) || cx.documents.get(&path).is_none() {
        return None;
    }
    let top = lsp_types::Range::new(
        lsp_types::Position::new(0, 0),
        lsp_types::Position::new(0, 0),
    );
    Some(vec![CodeLens {
        range: top,
        command: Some(Command {
            title: "Preview what the model sees".into(),
            command: PREVIEW_COMMAND.into(),
            arguments: Some(vec![serde_json::Value::String(uri.to_string())]),
        }),
        data: None,
    }])
}
