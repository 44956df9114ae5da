//! A skill as an agent sees it: the few things listings and activation need, read once.

use std::path::{Path, PathBuf};

use crate::agent::Target;
use crate::agent::claude_code::reading::{self as claude_reading, fallback_line};
use crate::agent::claude_code::shell::split_tools;
use crate::agent::claude_code::skill_file;
use crate::skill::frontmatter::Split;
use crate::skill::model::{SkillDoc, ToolList};
use crate::skill::{Reading, Skill};

/// Where a skill was found, for agents that rank user-level skills above project ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

/// One skill, ready to render.
#[derive(Clone, Debug)]
pub struct SkillView {
    pub scope: Scope,
    /// Where its source comes in Claude Code's listing (user skills, then each project
    /// folder, nearest first, then legacy commands); ties broken by `tiebreak`.
    pub group: usize,
    pub tiebreak: usize,
    /// A plain `.md` legacy command (`.claude/commands`): no base directory, and
    /// `Custom command` when it has no text.
    pub command: bool,
    /// The skill's folder, absolute.
    pub dir: PathBuf,
    /// Its SKILL.md, absolute.
    pub file: PathBuf,
    /// The folder's name: Claude Code's name for the skill.
    pub dir_name: String,
    /// The normalised text of SKILL.md (no BOM, `\n` line endings).
    pub text: String,
    /// Files of the skill other than SKILL.md, relative, sorted.
    pub resources: Vec<String>,
    /// As Claude Code (the version given) reads it.
    pub claude: ClaudeView,
    /// As spec-following agents read it (whole-line `---` delimiters, strict YAML).
    pub spec: SpecView,
}

/// The frontmatter values Claude Code uses, after its cut and quote-and-retry.
#[derive(Clone, Debug, Default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "they are Claude Code's flags"
)]
pub struct ClaudeView {
    /// The description as text (numbers and booleans stringified); `None` when missing,
    /// empty or not a scalar, so the fallback applies.
    pub description: Option<String>,
    pub when_to_use: Option<String>,
    /// The frontmatter `name` as text, when Claude Code keeps it (2.1.332).
    pub name: Option<String>,
    /// The body has no line of text, so the fallback is Claude Code's default (2.1.332).
    pub no_text: bool,
    /// The first body line, `#`s stripped, cut to 100 characters.
    pub fallback: Option<String>,
    pub disable_model_invocation: bool,
    pub user_invocable: bool,
    pub paths: bool,
    pub fork: bool,
    pub arguments: Vec<String>,
    /// Each entry of `allowed-tools`.
    pub allowed_tools: Vec<String>,
    /// The body after the frontmatter, leading blank lines dropped.
    pub body: String,
}

/// The frontmatter as the spec reads it.
#[derive(Clone, Debug, Default)]
pub struct SpecView {
    pub name: Option<String>,
    pub description: Option<String>,
    /// The body after the frontmatter.
    pub body: String,
}

impl SkillView {
    /// Reads `skill` (found in `scope`) for rendering. `target` picks the Claude Code version
    /// whose reading is used. Without `bodies`, the text and bodies are left empty (a listing
    /// needs neither). `None` when SKILL.md is not UTF-8.
    pub fn new(
        skill: &Skill,
        scope: Scope,
        target: Target,
        resources: Vec<String>,
        bodies: bool,
    ) -> Option<Self> {
        let source = skill.source().ok()?;
        let dir = absolute(&skill.dir);
        let file_name = skill
            .path
            .file_name()
            .map_or_else(|| "SKILL.md".into(), ToOwned::to_owned);
        let claude_target = if target.is_claude_code() {
            target
        } else {
            Target::ClaudeCode
        };
        let mut claude = claude_reading::read(skill, claude_target)
            .map(|(reading, doc)| claude_view(skill, &reading, doc.as_ref()))
            .unwrap_or_default();
        if claude_target != Target::ClaudeCode2188 {
            current_claude_view(skill, &mut claude);
        }
        let mut spec = skill
            .reading()
            .map(|reading| spec_view(skill, reading))
            .unwrap_or_default();
        if !bodies {
            claude.body = String::new();
            spec.body = String::new();
        }
        Some(Self {
            scope,
            group: match scope {
                Scope::User => 0,
                Scope::Project => 1,
            },
            tiebreak: 0,
            command: false,
            file: dir.join(file_name),
            dir,
            dir_name: skill.dir_name.clone(),
            text: if bodies {
                source.text().to_owned()
            } else {
                String::new()
            },
            resources,
            claude,
            spec,
        })
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn text(field: Option<&crate::skill::model::Field<String>>) -> Option<String> {
    field.and_then(|field| field.value.as_ref().ok()).cloned()
}

fn claude_view(skill: &Skill, reading: &Reading, doc: Option<&SkillDoc>) -> ClaudeView {
    let body = skill.body(reading);
    let description = doc
        .and_then(|doc| text(doc.description.as_deref()))
        .filter(|text| !text.trim().is_empty());
    let flag = |field: Option<&crate::skill::model::Field<bool>>| {
        field.is_some_and(|f| f.value == Ok(true))
    };
    let allowed_tools = match doc
        .and_then(|doc| doc.allowed_tools.as_deref())
        .map(|f| &f.value)
    {
        Some(Ok(ToolList::Text(text))) => split_tools(text),
        Some(Ok(ToolList::List(items))) => items
            .iter()
            .flat_map(|item| split_tools(&item.value))
            .collect(),
        _ => Vec::new(),
    };
    ClaudeView {
        description,
        when_to_use: doc.and_then(|doc| text(doc.when_to_use.as_deref())),
        name: None,
        no_text: false,
        fallback: fallback_line(body),
        disable_model_invocation: flag(doc.and_then(|doc| doc.disable_model_invocation.as_deref())),
        user_invocable: doc
            .and_then(|doc| doc.user_invocable.as_deref())
            .is_none_or(|field| field.value != Ok(false)),
        paths: doc.and_then(|doc| doc.paths.as_deref()).is_some(),
        fork: doc
            .and_then(|doc| doc.context.as_deref())
            .and_then(|field| field.value.as_deref().ok())
            == Some("fork"),
        arguments: doc
            .and_then(|doc| doc.arguments.as_deref())
            .and_then(|field| field.value.as_ref().ok())
            .map(|names| names.iter().map(|name| name.value.clone()).collect())
            .unwrap_or_default(),
        allowed_tools,
        body: body.trim_start_matches(['\n', '\r']).to_owned(),
    }
}

/// What Claude Code 2.1.332 takes from the file as written (line endings and all), read the
/// way it reads it: its split, Bun's YAML typing and JavaScript's `String()`.
fn current_claude_view(skill: &Skill, claude: &mut ClaudeView) {
    let Ok(source) = skill.source() else {
        return;
    };
    let file = skill_file::read(&source.original());
    claude.description = skill_file::description(file.get("description").as_ref());
    claude.when_to_use = skill_file::text_of(file.get("when_to_use").as_ref());
    claude.name = skill_file::text_of(file.get("name").as_ref())
        .filter(|name| name.chars().map(char::len_utf16).sum::<usize>() <= 256);
    claude.no_text = skill_file::fallback(&file.body, "").is_empty();
    claude.fallback = Some(skill_file::fallback(&file.body, "Skill"));
    claude.paths = skill_file::conditional(file.get("paths").as_ref());
    claude.disable_model_invocation =
        skill_file::flag(file.get("disable-model-invocation").as_ref()) == Some(true);
    claude.user_invocable = skill_file::flag(file.get("user-invocable").as_ref()) != Some(false);
    claude.fork =
        matches!(file.get("context"), Some(skill_file::Js::Str(ref context)) if context == "fork");
    claude.arguments = skill_file::argument_names(file.get("arguments").as_ref());
    claude.allowed_tools = match file.get("allowed-tools") {
        Some(skill_file::Js::Str(text)) => split_tools(&text),
        Some(skill_file::Js::List(items)) => items
            .iter()
            .filter_map(|item| match item {
                skill_file::Js::Str(text) => Some(split_tools(text)),
                _ => None,
            })
            .flatten()
            .collect(),
        _ => Vec::new(),
    };
    claude.body = file.body;
}

impl SkillView {
    /// Marks the view as a plain legacy command: its fallback text is Claude Code's for
    /// commands, and its frontmatter `name` is not used.
    pub fn as_command(&mut self) {
        self.command = true;
        self.claude.name = None;
        if self.claude.no_text {
            self.claude.fallback = Some("Custom command".into());
        }
    }
}

fn spec_view(skill: &Skill, reading: &Reading) -> SpecView {
    let doc = match &reading.split {
        Split::Found(_) => reading.doc.as_ref(),
        _ => None,
    };
    SpecView {
        name: doc
            .and_then(|doc| text(doc.name.as_deref()))
            .map(|name| name.trim().to_owned()),
        description: doc
            .and_then(|doc| text(doc.description.as_deref()))
            .map(|description| description.trim().to_owned())
            .filter(|description| !description.is_empty()),
        body: skill.body(reading).to_owned(),
    }
}
