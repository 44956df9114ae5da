//! `skillpkg preview`: exactly what the model sees, for every agent.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::{ExitStatus, UserError, common};
use crate::agent::Target;
use crate::agent::claude_code::{discovery, listing};
use crate::output::Printer;
use crate::render::agents;
use crate::render::claude_code::{
    self, IndexOptions, InvokeOptions, Invoker, Model, Override, Usage, Version,
};
use crate::render::view::{Scope, SkillView};
use crate::skill::{Skill, discover};

/// The session id used unless `--session-id` is given, so output is reproducible.
pub(crate) const SESSION_ID: &str = "00000000-0000-4000-8000-000000000000";

/// Show exactly what the model sees: the skill listing, or a skill's invocation.
///
/// Renders the listing of the skills found under the paths as the target agent builds it,
/// with its budget and truncation (Claude Code 2.1.332 as captured on the wire; 2.1.88; the
/// reference `to-prompt`; the agentskills.io client guide; Codex; Gemini CLI; OpenCode;
/// Copilot; Goose). With --invoke, renders what the agent sends when the skill runs, with
/// arguments substituted. Text output: the model's bytes on stdout, the report on stderr.
/// Inline shell commands are never run unless --exec is given.
#[derive(Debug, clap::Args)]
#[expect(
    clippy::doc_markdown,
    reason = "the doc comments are `--help` text, where backticks would show"
)]
#[command(after_help = "Examples:
  skillpkg preview                                   # Claude Code's listing for this project
  skillpkg preview --home ~                          # with your own user skills and settings
  skillpkg preview --target codex skills/            # what Codex lists
  skillpkg preview --invoke pdf-forms --args form.pdf   # the prompt the model gets
  skillpkg preview --format json > listing.json")]
pub struct PreviewArgs {
    /// Projects (a folder holding .claude/ is read as Claude Code started there reads it: its
    /// skills and legacy commands, and those of the folders above it up to the repository's
    /// top), skills folders, or any folders to search for skills [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// User-level skills (like ~/.claude/skills): listed before project skills, and a
    /// user-level skill wins a name clash
    #[arg(long = "user", value_name = "DIR")]
    pub user: Vec<PathBuf>,

    /// The home folder the agent would run with: for Claude Code, its .claude/skills and
    /// .claude/commands are the user's, and its .claude/settings.json and .claude.json are read
    /// as Claude Code reads them; for codex, .codex/skills and .agents/skills; for gemini-cli,
    /// .gemini/skills, .agents/skills and .gemini/settings.json [default: none: no user skills
    /// or settings are read; pass ~ for yours]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// The agent whose view to render: claude-code, claude-code@2.1.88, skills-ref,
    /// agentskills, codex, gemini-cli, opencode, copilot or goose (not openclaw: its prompt
    /// has not been captured)
    #[arg(
        long,
        short = 't',
        value_enum,
        value_name = "TARGET",
        default_value = "claude-code",
        hide_possible_values = true
    )]
    pub target: Target,

    /// Claude Code's model: where the listing goes, the budget and the effort
    #[arg(long, value_name = "MODEL", default_value = crate::agent::claude_code::DEFAULT_MODEL)]
    pub model: String,

    /// The model's context window in tokens [default: the model's]
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<usize>,

    /// The share of the context window for the listing (skillListingBudgetFraction)
    #[arg(long, value_name = "FRACTION")]
    pub budget_fraction: Option<f64>,

    /// A fixed listing budget in columns, like SLASH_COMMAND_TOOL_CHAR_BUDGET
    #[arg(long, value_name = "CHARS")]
    pub budget: Option<usize>,

    /// Columns Claude Code's own skills take from the budget [default: 6040 for 2.1.332, 0
    /// for 2.1.88]
    #[arg(long, value_name = "CHARS")]
    pub reserve: Option<usize>,

    /// The per-entry cap (skillListingMaxDescChars) [default: 1536]
    #[arg(long, value_name = "UNITS")]
    pub max_desc_chars: Option<usize>,

    /// A Claude Code ~/.claude.json whose `skillUsage` orders who keeps a description
    #[arg(long, value_name = "FILE")]
    pub usage: Option<PathBuf>,

    /// A Claude Code settings.json (skillOverrides, skillListingMaxDescChars,
    /// skillListingBudgetFraction)
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,

    /// Render the invocation of this skill (its folder name) instead of the listing
    #[arg(long, value_name = "NAME")]
    pub invoke: Option<String>,

    /// The arguments typed after the skill's name (or given to the Skill tool); may start
    /// with `-`
    #[arg(
        long,
        value_name = "TEXT",
        requires = "invoke",
        allow_hyphen_values = true
    )]
    pub args: Option<String>,

    /// Which invocation of the skill in the session this is, each with these arguments: from
    /// the second on, Claude Code sends a note that the skill is already loaded instead of its
    /// content
    #[arg(long, value_name = "N", default_value_t = 1, requires = "invoke")]
    pub invocation_index: usize,

    /// Claude Code's `<total_tokens>` reminder, which legacy models get after a tool result:
    /// the tokens left, which depend on the conversation so far [default: not shown]
    #[arg(long, value_name = "TOKENS", requires = "invoke")]
    pub tokens_left: Option<u64>,

    /// Who invokes it: the model (the Skill tool) or the user (`/name args`)
    #[arg(
        long = "as",
        value_enum,
        value_name = "WHO",
        default_value = "model",
        requires = "invoke"
    )]
    pub invoker: InvokerArg,

    /// ${CLAUDE_SESSION_ID}
    #[arg(long, value_name = "ID", default_value = SESSION_ID)]
    pub session_id: String,

    /// ${CLAUDE_PROJECT_DIR} and the working folder of --exec [default: the current folder]
    #[arg(long, value_name = "DIR")]
    pub project_dir: Option<PathBuf>,

    /// ${CLAUDE_EFFORT} [default: the model's: medium, or high for legacy models]
    #[arg(long, value_name = "LEVEL")]
    pub effort: Option<String>,

    /// Run inline shell commands (!`cmd` and ```! blocks) as Claude Code would, instead of
    /// showing markers
    #[arg(long, requires = "invoke")]
    pub exec: bool,

    /// text: the model's bytes on stdout, the report on stderr; json: both as one document
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    pub format: PreviewFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InvokerArg {
    Model,
    User,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PreviewFormat {
    Text,
    Json,
}

pub fn run(args: PreviewArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let paths = common::paths_or_here(&args.paths);
    if common::path_problems(&paths, printer)? {
        return Ok(ExitStatus::Error);
    }
    // A user folder that does not exist is normal (no user skills yet): the agent lists none
    // from it, and so does preview.
    let mut args = args;
    let (user, missing): (Vec<PathBuf>, Vec<PathBuf>) = std::mem::take(&mut args.user)
        .into_iter()
        .partition(|dir| dir.exists());
    args.user = user;
    if !missing.is_empty() {
        let mut err = printer.status();
        for dir in &missing {
            writeln!(
                err,
                "note: `{}` does not exist: no user skills from it",
                dir.display()
            )?;
        }
        err.flush()?;
    }
    if common::path_problems(&args.user, printer)? {
        return Ok(ExitStatus::Error);
    }
    if let Some(home) = &args.home
        && !home.is_dir()
    {
        return Err(UserError {
            message: format!("--home `{}` is not a folder", home.display()),
            hints: vec!["pass the folder Claude Code would use as HOME".into()],
        }
        .into());
    }
    if args.target == Target::OpenClaw {
        // validate and lint know how OpenClaw reads a skill; what it sends the model has not
        // been captured, and preview renders only what it can render exactly.
        return Err(UserError {
            message: "preview cannot render OpenClaw's prompt yet: nobody has captured what it \
                      sends the model"
                .into(),
            hints: vec![
                "`skillpkg validate --target openclaw` and `skillpkg lint --target openclaw` \
                 check skills as OpenClaw reads them"
                    .into(),
            ],
        }
        .into());
    }
    if matches!(args.target, Target::Codex | Target::GeminiCli) {
        return super::preview_agent::run(&args, &paths, printer);
    }
    let invoking = args.invoke.is_some();
    let model = Model::named(&args.model);
    let version = if args.target == Target::ClaudeCode2188 {
        Version::V2188
    } else {
        Version::Current
    };
    let (skills, options) = if args.target.is_claude_code() {
        let (sources, projects) = claude_sources(&args, &paths);
        let skills = load_sources(&sources, args.target, invoking)?;
        let (options, warnings) = index_options(&args, &projects, model.clone(), version)?;
        if !warnings.is_empty() {
            let mut err = printer.stderr();
            for warning in &warnings {
                writeln!(err, "warning: {warning}")?;
            }
            err.flush()?;
        }
        (skills, Some(options))
    } else {
        let mut skills = load(&args.user, Scope::User, args.target, invoking)?;
        skills.extend(load(&paths, Scope::Project, args.target, invoking)?);
        (skills, None)
    };
    if let Some(name) = &args.invoke {
        let no_overrides = HashMap::new();
        let overrides = options
            .as_ref()
            .map_or(&no_overrides, |options| &options.overrides);
        return invoke(
            &args, &skills, name, &model, version, &cwd, overrides, printer,
        );
    }
    if skills.is_empty() && args.format == PreviewFormat::Text {
        nothing_to_preview(&paths, printer)?;
        return Ok(ExitStatus::Success);
    }
    let Some(options) = options else {
        let index = agents::index(args.target, &skills);
        print_agent_index(&args, &index, printer)?;
        return Ok(ExitStatus::Success);
    };
    let index = claude_code::index(&skills, &options);
    print_claude_index(&args, &index, &options, printer)?;
    Ok(ExitStatus::Success)
}

/// Says on stderr that the agent would list no skill from `paths`.
pub(super) fn nothing_to_preview(paths: &[PathBuf], printer: Printer) -> std::io::Result<()> {
    let mut err = printer.status();
    writeln!(
        err,
        "note: no skills found in {}: nothing to preview (a skill is a folder holding a \
         SKILL.md; `skillpkg init NAME` creates one)",
        common::quoted(paths)
    )?;
    err.flush()
}

/// Where Claude Code's skills come from: a skills or commands folder read as the agent reads
/// it, or any other folder walked as `validate` walks it (an author's repository, which no
/// agent reads as such).
#[derive(Clone, Debug)]
enum Origin {
    Skills(PathBuf),
    Commands(PathBuf),
    Walk(PathBuf),
}

/// One source and where it comes in the listing.
#[derive(Clone, Debug)]
struct Source {
    origin: Origin,
    scope: Scope,
    /// The listing's group: user skills, each project folder nearest first, other paths, then
    /// legacy commands all together.
    group: usize,
    /// Within the commands group, who wins a name: user, then the nearest project folder.
    tiebreak: usize,
}

/// The listing group of legacy commands, after every skill.
const COMMANDS_GROUP: usize = usize::MAX;

/// The folders Claude Code reads, in its order: the user's skills (`--user` folders and the
/// home folder's), then for a project (a path holding `.claude/`) its skills folder and those of
/// the folders above it up to the repository's top level, then any other path walked, then the
/// legacy commands of the home folder and of the project folders.
fn claude_sources(args: &PreviewArgs, paths: &[PathBuf]) -> (Vec<Source>, Vec<PathBuf>) {
    let mut sources = Vec::new();
    let mut commands = Vec::new();
    let mut projects = Vec::new();
    let source = |origin, scope, group, tiebreak| Source {
        origin,
        scope,
        group,
        tiebreak,
    };
    for dir in &args.user {
        let origin = match discovery::skills_dir_of(dir) {
            Some(skills) => Origin::Skills(skills),
            None if dir.join("SKILL.md").is_file() => Origin::Walk(dir.clone()),
            None => Origin::Skills(dir.clone()),
        };
        sources.push(source(origin, Scope::User, 0, 0));
    }
    // Where the upward walk stops: the home folder Claude Code would have.
    let home = args
        .home
        .clone()
        .or_else(std::env::home_dir)
        .map(|home| fs_err::canonicalize(&home).unwrap_or(home));
    if let Some(home) = &args.home {
        if let Some(dir) = discovery::skills_dir_of(home) {
            sources.push(source(Origin::Skills(dir), Scope::User, 0, 0));
        }
        if let Some(dir) = discovery::commands_dir_of(home) {
            commands.push(source(
                Origin::Commands(dir),
                Scope::User,
                COMMANDS_GROUP,
                0,
            ));
        }
    }
    let mut group = 1;
    for path in paths {
        let named_skills = path.file_name().is_some_and(|name| name == "skills")
            && path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|name| name == ".claude");
        // The folder as the working folder Claude Code would see: links resolved, no `..`.
        let start = fs_err::canonicalize(path).unwrap_or_else(|_| path.clone());
        let folders = discovery::project_folders(&start, home.as_deref());
        let has_claude = |folder: &Path| {
            discovery::skills_dir_of(folder).is_some()
                || discovery::commands_dir_of(folder).is_some()
        };
        // A project: the path holds `.claude/`, or (run with no path) a folder above it does.
        let project = path.join(".claude").is_dir()
            || (args.paths.is_empty() && folders.iter().any(|folder| has_claude(folder)));
        if project {
            projects.push(start.clone());
            for folder in folders {
                if let Some(dir) = discovery::skills_dir_of(&folder) {
                    sources.push(source(Origin::Skills(dir), Scope::Project, group, 0));
                    group += 1;
                }
                if let Some(dir) = discovery::commands_dir_of(&folder) {
                    let tiebreak = commands.len() + 1;
                    commands.push(source(
                        Origin::Commands(dir),
                        Scope::Project,
                        COMMANDS_GROUP,
                        tiebreak,
                    ));
                }
            }
        } else if named_skills {
            sources.push(source(
                Origin::Skills(path.clone()),
                Scope::Project,
                group,
                0,
            ));
            group += 1;
        } else {
            sources.push(source(Origin::Walk(path.clone()), Scope::Project, group, 0));
            group += 1;
        }
    }
    sources.extend(commands);
    (sources, projects)
}

/// The skills of `sources` as Claude Code finds them, in source order (each folder sorted by
/// name), a file reached twice (through links) kept only the first time.
fn load_sources(
    sources: &[Source],
    target: Target,
    invoke: bool,
) -> anyhow::Result<Vec<SkillView>> {
    let mut views = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for source in sources {
        let found = match &source.origin {
            Origin::Walk(path) => {
                for mut view in load(std::slice::from_ref(path), source.scope, target, invoke)? {
                    view.group = source.group;
                    views.push(view);
                }
                continue;
            }
            Origin::Skills(dir) => {
                let mut found = discovery::skills_in(dir);
                found.sort_by(|a, b| crate::agent::collate::compare(&a.name, &b.name));
                // Resolving links takes a system call per path component: on every core.
                let real =
                    crate::parallel::map_in_order(&found, crate::parallel::cores(), |skill| {
                        std::fs::canonicalize(&skill.file).ok()
                    });
                let mut real = real.into_iter();
                found.retain(|_| real.next().flatten().is_some_and(|real| seen.insert(real)));
                found
            }
            Origin::Commands(dir) => discovery::commands_in(dir),
        };
        // A project's skills folder can hold thousands: read them on every core, in order.
        let loaded = crate::parallel::map_in_order(&found, crate::parallel::cores(), |skill| {
            let mut loaded = Skill::load(&skill.file).ok()?;
            loaded.dir.clone_from(&skill.dir);
            loaded.dir_name.clone_from(&skill.name);
            let mut view = SkillView::new(&loaded, source.scope, target, Vec::new(), invoke)?;
            view.dir = std::path::absolute(&skill.dir).unwrap_or_else(|_| skill.dir.clone());
            view.group = source.group;
            view.tiebreak = source.tiebreak;
            if skill.command {
                view.as_command();
            }
            Some(view)
        });
        views.extend(loaded.into_iter().flatten());
    }
    Ok(views)
}

/// The skills under `paths`, read for rendering, in path order.
fn load(
    paths: &[PathBuf],
    scope: Scope,
    target: Target,
    invoke: bool,
) -> anyhow::Result<Vec<SkillView>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let threads = crate::parallel::threads_for(paths);
    // A listing needs neither the other files nor the bodies; an invocation needs both.
    let found = if invoke {
        discover::walk_with_files(paths, threads)
    } else {
        discover::walk(paths, threads)
    };
    let mut resources: HashMap<PathBuf, Vec<String>> = HashMap::new();
    let dirs: std::collections::HashSet<PathBuf> = found
        .skills
        .iter()
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    for file in found.files {
        if let Some(owner) = file.ancestors().skip(1).find(|dir| dirs.contains(*dir))
            && let Ok(relative) = file.strip_prefix(owner)
        {
            resources
                .entry(owner.to_path_buf())
                .or_default()
                .push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
    let jobs: Vec<(PathBuf, Vec<String>)> = found
        .skills
        .iter()
        .map(|path| {
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let mut files = resources.remove(&dir).unwrap_or_default();
            files.sort();
            (path.clone(), files)
        })
        .collect();
    let loaded = crate::parallel::map_in_order(&jobs, threads, |(path, files)| {
        let skill = Skill::load(path).with_context(|| format!("cannot read {}", path.display()))?;
        let bodies = invoke || target == Target::GeminiCli;
        Ok::<_, anyhow::Error>(SkillView::new(&skill, scope, target, files.clone(), bodies))
    });
    let mut views = Vec::with_capacity(loaded.len());
    for view in loaded {
        if let Some(view) = view? {
            views.push(view);
        }
    }
    Ok(views)
}

/// The listing settings of a Claude Code settings file.
struct ClaudeSettings {
    overrides: HashMap<String, Override>,
    max_desc_chars: Option<usize>,
    budget_fraction: Option<f64>,
}

/// Reads the keys the listing depends on, with Claude Code's schema: `skillOverrides` values
/// are `on`, `name-only`, `user-invocable-only` or `off`; `skillListingMaxDescChars` a positive
/// integer; `skillListingBudgetFraction` a number above 0, at most 1. A value outside it makes
/// Claude Code ignore the whole file (recorded in `docs/research/claude-code-conformance.md`);
/// the error says which.
fn claude_settings(settings: &serde_json::Value) -> Result<ClaudeSettings, String> {
    let mut read = ClaudeSettings {
        overrides: HashMap::new(),
        max_desc_chars: None,
        budget_fraction: None,
    };
    if let Some(value) = settings.get("skillOverrides") {
        let map = value
            .as_object()
            .ok_or("`skillOverrides` is not an object")?;
        for (name, value) in map {
            let over = match value.as_str() {
                Some("on") => Override::On,
                Some("name-only") => Override::NameOnly,
                Some("user-invocable-only") => Override::UserInvocableOnly,
                Some("off") => Override::Off,
                _ => {
                    return Err(format!(
                        "`skillOverrides.{name}` is {value}, not \"on\", \"name-only\", \"user-invocable-only\" or \"off\""
                    ));
                }
            };
            read.overrides.insert(name.clone(), over);
        }
    }
    if let Some(value) = settings.get("skillListingMaxDescChars") {
        let cap = value.as_u64().filter(|&cap| cap > 0).ok_or_else(|| {
            format!("`skillListingMaxDescChars` is {value}, not a positive integer")
        })?;
        read.max_desc_chars = Some(usize::try_from(cap).unwrap_or(usize::MAX));
    }
    if let Some(value) = settings.get("skillListingBudgetFraction") {
        let fraction = value
            .as_f64()
            .filter(|&f| f > 0.0 && f <= 1.0)
            .ok_or_else(|| {
                format!(
                    "`skillListingBudgetFraction` is {value}, not a number above 0 and at most 1"
                )
            })?;
        read.budget_fraction = Some(fraction);
    }
    Ok(read)
}

fn index_options(
    args: &PreviewArgs,
    projects: &[PathBuf],
    model: Model,
    version: Version,
) -> anyhow::Result<(IndexOptions, Vec<String>)> {
    let mut overrides = HashMap::new();
    let mut warnings = Vec::new();
    let mut max_desc_chars = listing::CAP_CURRENT;
    let mut fraction = 0.01;
    let from_home = |relative: &str| {
        args.home
            .as_ref()
            .map(|home| home.join(relative))
            .filter(|path| path.is_file())
    };
    // Claude Code's settings files, the later winning each key: the user's, the project's, the
    // project's local one; then --settings.
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    if let Some(user) = from_home(".claude/settings.json") {
        files.push((user, false));
    }
    for root in projects.iter().take(1) {
        for name in [".claude/settings.json", ".claude/settings.local.json"] {
            let path = root.join(name);
            if path.is_file() {
                files.push((path, false));
            }
        }
    }
    if let Some(path) = &args.settings {
        files.push((path.clone(), true));
    }
    let usage_file = args.usage.clone().or_else(|| from_home(".claude.json"));
    for (path, given) in &files {
        let settings = match read_json(path) {
            Ok(settings) => settings,
            Err(error) if !given => {
                warnings.push(format!(
                    "{error:#}; Claude Code ignores a settings file it cannot read, so this one is ignored"
                ));
                continue;
            }
            Err(error) => return Err(error),
        };
        match claude_settings(&settings) {
            Ok(read) => {
                overrides.extend(read.overrides);
                max_desc_chars = read.max_desc_chars.unwrap_or(max_desc_chars);
                fraction = read.budget_fraction.unwrap_or(fraction);
            }
            Err(problem) => warnings.push(format!(
                "{}: {problem}; Claude Code ignores a settings file with a value its schema refuses, so this one is ignored",
                path.display()
            )),
        }
    }
    let mut usage = HashMap::new();
    if let Some(path) = &usage_file {
        let file = read_json(path)?;
        if let Some(map) = file.get("skillUsage").and_then(|v| v.as_object()) {
            for (name, value) in map {
                let count = value
                    .get("usageCount")
                    .and_then(serde_json::Value::as_f64)
                    .unwrap_or(0.0);
                let last_used = value
                    .get("lastUsedAt")
                    .and_then(serde_json::Value::as_f64)
                    .unwrap_or(0.0);
                usage.insert(name.clone(), Usage { count, last_used });
            }
        }
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "milliseconds since 1970 are far below 2^52: exact in f64"
    )]
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |elapsed| elapsed.as_millis() as f64);
    Ok((
        IndexOptions {
            version,
            context_window: args.context_window.unwrap_or(model.context_window),
            model,
            budget_fraction: args.budget_fraction.unwrap_or(fraction),
            budget: args.budget,
            reserve: args.reserve.unwrap_or(match version {
                Version::Current => listing::BUNDLED_RESERVE,
                Version::V2188 => 0,
            }),
            max_desc_chars: args.max_desc_chars.unwrap_or(max_desc_chars),
            usage,
            now,
            overrides,
        },
        warnings,
    ))
}

/// The model's text, then a line break when it does not end with one (so a terminal prompt
/// starts on its own line; the JSON format has the exact text).
pub(super) fn print_text(out: &mut dyn Write, text: &str) -> std::io::Result<()> {
    out.write_all(text.as_bytes())?;
    if !text.is_empty() && !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn read_json(path: &Path) -> anyhow::Result<serde_json::Value> {
    let text = crate::fsx::read_text_capped(path, 64 * 1024 * 1024)?;
    serde_json::from_str(&text).map_err(|error| {
        UserError {
            message: format!("{}: not valid JSON: {error}", path.display()),
            hints: vec![],
        }
        .into()
    })
}

fn print_claude_index(
    args: &PreviewArgs,
    index: &claude_code::Index,
    options: &IndexOptions,
    printer: Printer,
) -> anyhow::Result<()> {
    let version = match options.version {
        Version::Current => "2.1.332",
        Version::V2188 => "2.1.88",
    };
    if args.format == PreviewFormat::Json {
        let role = if index.text.starts_with("<system-reminder>") {
            "user"
        } else {
            "system"
        };
        let document = serde_json::json!({
            "version": 1,
            "target": args.target,
            "claude_code": version,
            "model": options.model,
            "messages": [{ "role": role, "content": [{ "type": "text", "text": index.text, "visible": false }] }],
            "report": index,
        });
        let mut out = printer.stdout();
        serde_json::to_writer_pretty(&mut out, &document)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    let mut out = printer.stdout();
    print_text(&mut out, &index.text)?;
    out.flush()?;
    let mut err = printer.status();
    let bold = anstyle::Style::new().bold();
    writeln!(
        err,
        "{bold}Claude Code {version}, {}{bold:#}: {}",
        options.model.name, index.placement
    )?;
    writeln!(
        err,
        "  budget: {} columns ({})",
        index.budget, index.budget_source
    )?;
    writeln!(
        err,
        "  used: {} columns ({} of them Claude Code's own skills, not shown); the listing above is {} characters, about {} tokens",
        index.used, index.reserve, index.chars, index.tokens
    )?;
    for (name, why) in &index.left_out {
        writeln!(err, "  left out: {name} ({why})")?;
    }
    for entry in &index.entries {
        match &entry.status {
            claude_code::EntryStatus::Full => {}
            claude_code::EntryStatus::Cut { kept, total } => writeln!(
                err,
                "  cut: {}: the model sees {kept} of {total} characters, then `…`",
                entry.name
            )?,
            claude_code::EntryStatus::NameOnly { lost, reason } => writeln!(
                err,
                "  name only: {}: the model loses all {lost} characters of its description ({reason})",
                entry.name
            )?,
        }
    }
    err.flush()?;
    Ok(())
}

fn print_agent_index(
    args: &PreviewArgs,
    index: &agents::AgentIndex,
    printer: Printer,
) -> anyhow::Result<()> {
    if args.format == PreviewFormat::Json {
        let document = serde_json::json!({
            "version": 1,
            "target": args.target,
            "messages": [{ "role": "system", "content": [{ "type": "text", "text": index.text, "visible": false }] }],
            "report": {
                "placement": index.placement,
                "budget": null,
                "chars": index.text.chars().count(),
                "tokens": crate::agent::estimate_tokens(&index.text),
                "left_out": index.left_out,
            },
        });
        let mut out = printer.stdout();
        serde_json::to_writer_pretty(&mut out, &document)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    let mut out = printer.stdout();
    print_text(&mut out, &index.text)?;
    out.flush()?;
    let mut err = printer.status();
    let bold = anstyle::Style::new().bold();
    writeln!(
        err,
        "{bold}{}{bold:#}: {}",
        args.target.display(),
        index.placement
    )?;
    writeln!(
        err,
        "  no listing budget; {} characters, about {} tokens",
        index.text.chars().count(),
        crate::agent::estimate_tokens(&index.text)
    )?;
    for (name, why) in &index.left_out {
        writeln!(err, "  left out: {name} ({why})")?;
    }
    err.flush()?;
    Ok(())
}

#[expect(
    clippy::too_many_arguments,
    reason = "the pieces of one preview run, each needed here"
)]
fn invoke(
    args: &PreviewArgs,
    skills: &[SkillView],
    name: &str,
    model: &Model,
    version: Version,
    cwd: &Path,
    overrides: &HashMap<String, Override>,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let Some(skill) = find_skill(skills, name) else {
        let names: Vec<&str> = skills.iter().map(|skill| skill.dir_name.as_str()).collect();
        return Err(UserError {
            message: format!("no skill called `{name}` was found"),
            hints: vec![format!(
                "found: {}",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )],
        }
        .into());
    };
    if args.target.is_claude_code()
        && version == Version::Current
        && let Some(refusal) = refusal(skill, overrides.get(&skill.dir_name), args.invoker)
    {
        return print_refusal(args, skill, &refusal, printer);
    }
    if !args.target.is_claude_code() {
        let text = agents::activate(args.target, skill);
        if args.format == PreviewFormat::Json {
            let document = serde_json::json!({
                "version": 1,
                "target": args.target,
                "messages": [{ "role": "tool", "content": [{ "type": "text", "text": text, "visible": false }] }],
            });
            let mut out = printer.stdout();
            serde_json::to_writer_pretty(&mut out, &document)?;
            writeln!(out)?;
            out.flush()?;
        } else {
            let mut out = printer.stdout();
            print_text(&mut out, &text)?;
            out.flush()?;
        }
        return Ok(ExitStatus::Success);
    }
    let project = args
        .project_dir
        .clone()
        .unwrap_or_else(|| cwd.to_path_buf());
    let project = std::path::absolute(&project).unwrap_or(project);
    let options = InvokeOptions {
        version,
        invoker: match args.invoker {
            InvokerArg::Model => Invoker::Model,
            InvokerArg::User => Invoker::User,
        },
        args: Some(match args.invoker {
            // The typed line is trimmed before it is split into name and arguments.
            InvokerArg::User => {
                crate::agent::js::js_trim(args.args.as_deref().unwrap_or_default()).to_owned()
            }
            InvokerArg::Model => args.args.clone().unwrap_or_default(),
        }),
        invocation_index: args.invocation_index,
        tokens_left: args.tokens_left.filter(|_| model.legacy),
        launched_as: (name != skill.dir_name).then(|| name.to_owned()),
        session_id: args.session_id.clone(),
        project_dir: project.to_string_lossy().replace('\\', "/"),
        effort: args
            .effort
            .clone()
            .unwrap_or_else(|| model.effort.to_owned()),
        exec: args.exec.then_some(run_inline as fn(&str, &str) -> String),
    };
    let invocation = claude_code::invoke(skill, &options);
    if args.format == PreviewFormat::Json {
        let document = serde_json::json!({
            "version": 1,
            "target": args.target,
            "skill": skill.dir_name,
            "invoked_by": options.invoker,
            "messages": invocation.messages,
            "shell": invocation.shell,
            "refused": invocation.refused,
        });
        let mut out = printer.stdout();
        serde_json::to_writer_pretty(&mut out, &document)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(if invocation.refused.is_some() {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        });
    }
    print_invocation(skill, &options, &invocation, printer)
}

/// The skill called `name`: the first of that name in Claude Code's order, as in the listing;
/// else the first whose frontmatter `name` it is.
fn find_skill<'a>(skills: &'a [SkillView], name: &str) -> Option<&'a SkillView> {
    let mut order: Vec<&SkillView> = skills.iter().collect();
    order.sort_by(|a, b| {
        a.group
            .cmp(&b.group)
            .then_with(|| crate::agent::collate::compare(&a.dir_name, &b.dir_name))
            .then_with(|| a.tiebreak.cmp(&b.tiebreak))
            .then_with(|| a.scope.cmp(&b.scope))
    });
    order
        .iter()
        .find(|skill| skill.dir_name == name)
        .or_else(|| {
            order
                .iter()
                .find(|skill| skill.spec.name.as_deref() == Some(name))
        })
        .copied()
}

/// Why Claude Code 2.1.332 refuses to invoke `skill`, and how the refusal reaches the model:
/// a `paths` skill before a matching file was read is unknown; a skill switched off in
/// `skillOverrides` is refused (for the model also when it is user-invocable only).
fn refusal(skill: &SkillView, over: Option<&Override>, invoker: InvokerArg) -> Option<Refusal> {
    let name = &skill.dir_name;
    if skill.claude.paths || !crate::agent::claude_code::names::is_accepted_folder(name) {
        return Some(match invoker {
            InvokerArg::Model => Refusal::ToolError(format!(
                "<tool_use_error>Unknown skill: {name}</tool_use_error>"
            )),
            InvokerArg::User => Refusal::Local(format!(
                "no command `/{name}` is available yet: Claude Code lists a skill with `paths` only after a matching file is read, and sends `/{name}` as plain text until then"
            )),
        });
    }
    match (over, invoker) {
        (Some(Override::Off | Override::UserInvocableOnly), InvokerArg::Model) => {
            Some(Refusal::ToolError(format!(
                "<tool_use_error>Skill {name} is disabled for model invocation in skillOverrides settings</tool_use_error>"
            )))
        }
        (Some(Override::Off), InvokerArg::User) => Some(Refusal::Local(format!(
            "Skill \"{name}\" is disabled via skillOverrides. Remove the override from your settings to run it. If your organization set it, only an admin can remove it."
        ))),
        _ => None,
    }
}

/// How Claude Code refuses an invocation.
enum Refusal {
    /// The model's Skill call gets an error result.
    ToolError(String),
    /// Typed by the user: nothing is sent; the message is shown.
    Local(String),
}

fn print_refusal(
    args: &PreviewArgs,
    skill: &SkillView,
    refusal: &Refusal,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let (messages, reason) = match refusal {
        Refusal::ToolError(text) => (
            serde_json::json!([{ "role": "user", "to": "main", "content": [
                { "type": "tool_result", "text": text, "visible": true, "is_error": true }
            ] }]),
            text.clone(),
        ),
        Refusal::Local(text) => (serde_json::json!([]), text.clone()),
    };
    if args.format == PreviewFormat::Json {
        let document = serde_json::json!({
            "version": 1,
            "target": args.target,
            "skill": skill.dir_name,
            "invoked_by": match args.invoker {
                InvokerArg::Model => "model",
                InvokerArg::User => "user",
            },
            "messages": messages,
            "shell": [],
            "refused": reason,
        });
        let mut out = printer.stdout();
        serde_json::to_writer_pretty(&mut out, &document)?;
        writeln!(out)?;
        out.flush()?;
    } else {
        let mut err = printer.stderr();
        writeln!(err, "  refused: {reason}")?;
        err.flush()?;
    }
    Ok(ExitStatus::Failure)
}

/// An invocation as text: the text blocks on stdout, the rest of it on stderr.
fn print_invocation(
    skill: &SkillView,
    options: &InvokeOptions,
    invocation: &claude_code::Invocation,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let mut out = printer.stdout();
    for message in &invocation.messages {
        for block in message.content.iter().filter(|block| block.kind == "text") {
            write!(out, "{}", block.text)?;
        }
    }
    out.flush()?;
    let mut err = printer.status();
    let bold = anstyle::Style::new().bold();
    writeln!(
        err,
        "{bold}{} invoked by the {}{bold:#}",
        skill.dir_name,
        match options.invoker {
            Invoker::Model => "model (Skill tool)",
            Invoker::User => "user",
        }
    )?;
    for message in &invocation.messages {
        for block in &message.content {
            if block.kind == "tool_result" {
                writeln!(
                    err,
                    "  tool result{}: {:?}",
                    if block.is_error { " (error)" } else { "" },
                    block.text
                )?;
            }
        }
        if message.to == "sub-agent" {
            writeln!(
                err,
                "  context: fork: the text above is the first message of a sub-agent"
            )?;
        }
    }
    for command in &invocation.shell {
        match &command.needs {
            Some(rule) => writeln!(
                err,
                "  shell `{}`: aborts the invocation; `allowed-tools` needs `{rule}`",
                command.command
            )?,
            None => writeln!(
                err,
                "  shell `{}`: runs ({})",
                command.command, command.verdict
            )?,
        }
    }
    if let Some(reason) = &invocation.refused {
        writeln!(err, "  refused: {reason}")?;
        err.flush()?;
        return Ok(ExitStatus::Failure);
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// The longest an inline command may run, as in Claude Code.
const INLINE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// How long output is still read after bash has exited, for what a command it started in the
/// background prints; then the process group is killed.
const INLINE_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// The most of an inline command's output kept; the rest is read and dropped, so the command
/// never blocks on a full pipe.
const MAX_INLINE_OUTPUT: usize = 16 * 1024 * 1024;

/// Runs an inline command as Claude Code would: bash, `cwd` as the working folder, stdout and
/// stderr into one pipe (interleaved as written), two minutes at most, output trimmed.
///
/// The output is read while the command runs, so one that prints more than a pipe holds never
/// waits for a reader. The command runs in its own process group, killed when the time is up or
/// when bash has exited and something it left in the background still holds the output.
fn run_inline(command: &str, cwd: &str) -> String {
    use std::io::Read as _;
    use std::os::unix::process::CommandExt as _;
    use std::process::{Command, Stdio};
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::Instant;

    let spawned = std::io::pipe().and_then(|(reader, writer)| {
        let mut bash = Command::new("bash");
        bash.arg("-c")
            .arg(command)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(writer.try_clone()?)
            .stderr(writer)
            .process_group(0);
        let child = bash.spawn()?;
        // `bash` holds the pipe's write ends until it is dropped: the reader's end of file
        // must come from the command alone.
        drop(bash);
        Ok((child, reader))
    });
    let (mut child, mut reader) = match spawned {
        Ok(spawned) => spawned,
        Err(error) => return format!("⟦shell: could not start bash in {cwd}: {error}⟧"),
    };
    let group = rustix::process::Pid::from_child(&child);
    let kill_group = || {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    };
    let (sender, receiver) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buffer = vec![0; 64 * 1024];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    if sender.send(buffer[..read].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let deadline = Instant::now() + INLINE_TIMEOUT;
    let mut output = Vec::new();
    let mut exited_at: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if now >= deadline {
            kill_group();
            let _ = child.wait();
            return "⟦shell: timed out after 2 minutes⟧".into();
        }
        if exited_at.is_none() && matches!(child.try_wait(), Ok(Some(_))) {
            exited_at = Some(now);
        }
        if exited_at.is_some_and(|at| now.duration_since(at) >= INLINE_GRACE) {
            // Something bash started in the background still holds the output.
            kill_group();
            break;
        }
        match receiver.recv_timeout(std::time::Duration::from_millis(10)) {
            Ok(chunk) => {
                let room = MAX_INLINE_OUTPUT.saturating_sub(output.len());
                output.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                let _ = child.wait();
                break;
            }
        }
    }
    let _ = child.wait();
    String::from_utf8_lossy(&output).trim().to_owned()
}
