//! `skillpkg publish`: validate and pack skills through the one pack pipeline, then hand them to
//! each destination: the registry, a Claude Code marketplace, a well-known site, the Skills API.

use std::io::{IsTerminal as _, Write};
use std::path::PathBuf;

use super::{RegistryFlag, client_error, destination_error, required_token};
use crate::agent::{Target, claude_ai};
use crate::check::config::PublishConfig;
use crate::commands::package;
use crate::commands::{ExitStatus, Refusal, UserError};
use crate::output::{Printer, plural};
use crate::pack::build;
use crate::publish::{Prepared, anthropic, marketplace, well_known};
use crate::registry::client::{Client, ClientError};

/// The `--help` heading of the marketplace's options.
const MARKETPLACE: &str = "Claude Code marketplace (--to claude-marketplace)";

/// Where `publish` sends skills.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
#[expect(
    clippy::doc_markdown,
    reason = "`--help` text, where backticks would show"
)]
pub enum Destination {
    /// skillpkg's registry (--registry)
    Registry,
    /// A Claude Code plugin marketplace's working copy (--marketplace DIR)
    ClaudeMarketplace,
    /// A static site with the Agent Skills discovery index (--site DIR)
    WellKnown,
    /// Anthropic's Skills API (ANTHROPIC_API_KEY)
    Anthropic,
}

impl Destination {
    /// The target whose client consumes what this destination publishes, checked on top of
    /// the project's.
    fn target(self) -> Option<Target> {
        match self {
            Self::Registry => None,
            Self::ClaudeMarketplace => Some(Target::ClaudeCode),
            Self::WellKnown => Some(Target::AgentSkills),
            Self::Anthropic => Some(Target::ClaudeAi),
        }
    }
}

/// How a marketplace entry points at the plugin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SourceKind {
    /// The plugin folder in the marketplace (`"source": "./plugins/NAME"`)
    #[default]
    Path,
    /// A zip of the plugin with its sha256, for marketplaces that host zips (needs --archive-url)
    Archive,
}

/// Validate, package and publish skills (registry, marketplace, site or Skills API)
///
/// The destinations: skillpkg's registry (the default), a Claude Code plugin marketplace, a
/// static site with the Agent Skills discovery index, or Anthropic's Skills API. Each destination first validates the skills for the agent that consumes it (claude-code,
/// agentskills, claude-ai) as well as the project's targets, and packs them through the one
/// pipeline `skillpkg package` uses. Publishing the same version twice changes nothing and
/// says so; the same version with other contents is refused (versions are immutable).
/// `[publish]` in skillpkg.toml can name the destinations and their settings, so that CI runs
/// one command.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:
  skillpkg publish skills/pdf-forms                  # to the registry, the version SKILL.md gives
  skillpkg publish skills/pdf-forms --version 1.2.0
  skillpkg publish . --dry-run                       # everything but the upload
  skillpkg publish skills/* --to claude-marketplace --marketplace ../mkt --plugin pdf
  skillpkg publish skills/* --to well-known --site public
  skillpkg publish skills/pdf-forms --to anthropic     # with ANTHROPIC_API_KEY set",
    disable_version_flag = true
)]
#[expect(
    clippy::doc_markdown,
    reason = "`--help` text, where backticks would show"
)]
pub struct PublishArgs {
    /// The skill folders [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Where to publish; repeat for several [default: `to` in skillpkg.toml's [publish], else registry]
    #[arg(long = "to", value_enum, value_name = "DESTINATION")]
    pub to: Vec<Destination>,
    /// The version [default: metadata.version, else version, in SKILL.md]
    #[arg(long = "version", id = "skill_version", value_name = "SEMVER")]
    pub version: Option<String>,
    /// Do everything except writing or uploading; needs no network
    #[arg(long)]
    pub dry_run: bool,
    /// Publish even when `skillpkg lint` reports errors or placeholder text (TODO:, lorem
    /// ipsum…); the skill must still be valid
    #[arg(long)]
    pub no_lint: bool,
    #[command(flatten)]
    pub registry: RegistryFlag,
    /// The marketplace repository's working copy [default: `marketplace` in [publish]]
    #[arg(
        long,
        value_name = "DIR",
        help_heading = MARKETPLACE
    )]
    pub marketplace: Option<PathBuf>,
    /// The plugin to publish the skills in, kebab-case [default: `plugin` in [publish], else
    /// the skill's name when there is one skill]
    #[arg(
        long,
        value_name = "NAME",
        help_heading = MARKETPLACE
    )]
    pub plugin: Option<String>,
    /// The marketplace's name, when its marketplace.json is created [default: the folder's name]
    #[arg(
        long,
        value_name = "NAME",
        help_heading = MARKETPLACE
    )]
    pub marketplace_name: Option<String>,
    /// The marketplace's owner, when its marketplace.json is created [default: git's user.name]
    #[arg(
        long,
        value_name = "NAME",
        help_heading = MARKETPLACE
    )]
    pub owner: Option<String>,
    /// How the marketplace entry points at the plugin
    #[arg(
        long,
        value_enum,
        default_value_t,
        help_heading = MARKETPLACE
    )]
    pub source: SourceKind,
    /// With --source archive: the https:// URL the marketplace's archives/ folder is served at
    #[arg(
        long,
        value_name = "URL",
        help_heading = MARKETPLACE
    )]
    pub archive_url: Option<String>,
    /// Do not commit and tag `{plugin}--v{version}` when the marketplace is a git repository
    #[arg(
        long,
        help_heading = MARKETPLACE
    )]
    pub no_git: bool,
    /// The static site's folder; the index goes in DIR/.well-known/agent-skills/ [default:
    /// `site` in [publish]]
    #[arg(
        long,
        value_name = "DIR",
        help_heading = "Static site (--to well-known)"
    )]
    pub site: Option<PathBuf>,
    /// The workspace to publish in, sent as anthropic-workspace-id [default: `workspace` in
    /// [publish], else the API key's]. The key comes from ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL
    /// changes the API's address
    #[arg(
        long,
        value_name = "ID",
        help_heading = "Anthropic Skills API (--to anthropic)"
    )]
    pub workspace: Option<String>,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn publish(args: PublishArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let config = project_config(&paths[0], &cwd)?;
    let settings = config
        .as_ref()
        .map(|config| config.publish.clone())
        .unwrap_or_default();
    let destinations = destinations(&args, &settings)?;
    let plan = Plan::new(
        &args,
        &settings,
        &destinations,
        paths.len(),
        config.as_deref(),
        &paths[0],
    )?;
    let implied: Vec<Target> = destinations.iter().filter_map(|d| d.target()).collect();
    // The discovery index carries no version: a skill published only there needs none.
    let needs_version = destinations
        .iter()
        .any(|destination| *destination != Destination::WellKnown);
    let max_upload = claude_ai::MAX_UPLOAD_BYTES;
    let mut skills = Vec::new();
    for path in &paths {
        skills.push(prepare(
            path,
            &implied,
            max_upload,
            needs_version,
            &args,
            &cwd,
            printer,
        )?);
    }
    let mut names = std::collections::HashSet::new();
    for skill in &skills {
        if !names.insert(skill.name.as_str()) {
            return Err(UserError {
                message: format!("two of the skills given are named `{}`", skill.name),
                hints: vec!["publish each skill once".into()],
            }
            .into());
        }
    }
    let mut status = ExitStatus::Success;
    for destination in destinations {
        let result = match destination {
            Destination::Registry => publish_registry(&skills, &args, printer),
            Destination::ClaudeMarketplace => publish_marketplace(&skills, &plan, &args, printer),
            Destination::WellKnown => publish_well_known(&skills, &plan, &args, printer),
            Destination::Anthropic => publish_anthropic(&skills, &plan, &args, printer),
        };
        if result? != ExitStatus::Success {
            status = ExitStatus::Failure;
        }
    }
    Ok(status)
}

/// The nearest skillpkg.toml above `path`.
fn project_config(
    path: &std::path::Path,
    cwd: &std::path::Path,
) -> anyhow::Result<Option<std::sync::Arc<crate::check::config::Config>>> {
    let dir = if path.is_file() {
        crate::fsx::parent_or_dot(path).to_path_buf()
    } else {
        path.to_path_buf()
    };
    crate::check::config::ConfigFinder::new(cwd.to_path_buf())
        .for_dir(&dir)
        .map_err(|error| {
            UserError {
                message: error.to_string(),
                hints: vec![],
            }
            .into()
        })
}

/// `--to`, else `[publish] to`, else the registry; each once, in order.
fn destinations(args: &PublishArgs, settings: &PublishConfig) -> anyhow::Result<Vec<Destination>> {
    use clap::ValueEnum as _;
    let mut wanted = args.to.clone();
    if wanted.is_empty() {
        for name in &settings.to {
            wanted.push(
                Destination::from_str(name, false).map_err(|message| UserError {
                    message,
                    hints: vec![],
                })?,
            );
        }
    }
    if wanted.is_empty() {
        wanted.push(Destination::Registry);
    }
    let mut seen = Vec::new();
    wanted.retain(|destination| {
        let new = !seen.contains(destination);
        seen.push(*destination);
        new
    });
    Ok(wanted)
}

/// Each destination's settings, checked before any skill is read.
struct Plan {
    marketplace: Option<marketplace::Options>,
    site: Option<PathBuf>,
    anthropic: Option<anthropic::Options>,
    state_file: PathBuf,
}

impl Plan {
    fn new(
        args: &PublishArgs,
        settings: &PublishConfig,
        destinations: &[Destination],
        count: usize,
        config: Option<&crate::check::config::Config>,
        first: &std::path::Path,
    ) -> anyhow::Result<Self> {
        let missing = |what: &str, hint: &str| -> anyhow::Error {
            UserError {
                message: what.to_owned(),
                hints: vec![hint.to_owned()],
            }
            .into()
        };
        let mut plan = Self {
            marketplace: None,
            site: None,
            anthropic: None,
            state_file: config
                .map_or_else(
                    || {
                        crate::fsx::parent_or_dot(&std::path::absolute(first).unwrap_or_default())
                            .to_path_buf()
                    },
                    |config| config.dir.clone(),
                )
                .join(anthropic::STATE_FILE),
        };
        if destinations.contains(&Destination::ClaudeMarketplace) {
            let dir = args.marketplace.clone().or_else(|| settings.marketplace.clone()).ok_or_else(|| {
                missing(
                    "--to claude-marketplace needs the marketplace's folder",
                    "pass --marketplace DIR (a working copy of the marketplace repository), or set `marketplace` in skillpkg.toml's [publish]",
                )
            })?;
            let plugin = args.plugin.clone().or_else(|| settings.plugin.clone());
            let plugin = match plugin {
                Some(plugin) => plugin,
                None if count == 1 => String::new(),
                None => {
                    return Err(missing(
                        "several skills go in one plugin, which needs a name",
                        "pass --plugin NAME, or set `plugin` in skillpkg.toml's [publish]",
                    ));
                }
            };
            let source = match (args.source, &args.archive_url) {
                (SourceKind::Path, _) => marketplace::Source::Path,
                (SourceKind::Archive, Some(url)) if url.starts_with("https://") => {
                    marketplace::Source::Archive {
                        base_url: url.clone(),
                    }
                }
                (SourceKind::Archive, Some(url)) => {
                    return Err(missing(
                        &format!("--archive-url {url} is not an https:// URL"),
                        "Claude Code downloads archive sources over https only",
                    ));
                }
                (SourceKind::Archive, None) => {
                    return Err(missing(
                        "--source archive needs --archive-url",
                        "pass the https:// URL the marketplace's archives/ folder will be served at",
                    ));
                }
            };
            plan.marketplace = Some(marketplace::Options {
                dir,
                plugin,
                version: semver::Version::new(0, 0, 0),
                name: args.marketplace_name.clone(),
                owner: args.owner.clone(),
                source,
                git: !args.no_git,
                dry_run: args.dry_run,
            });
        }
        if destinations.contains(&Destination::WellKnown) {
            plan.site = Some(
                args.site
                    .clone()
                    .or_else(|| settings.site.clone())
                    .ok_or_else(|| {
                        missing(
                            "--to well-known needs the site's folder",
                            "pass --site DIR, or set `site` in skillpkg.toml's [publish]",
                        )
                    })?,
            );
        }
        if destinations.contains(&Destination::Anthropic) {
            let workspace = args
                .workspace
                .clone()
                .or_else(|| settings.workspace.clone());
            plan.anthropic = Some(anthropic::Options::from_env(workspace));
        }
        Ok(plan)
    }
}

/// Validates, lints and selects one skill, and settles its version.
fn prepare(
    path: &std::path::Path,
    implied: &[Target],
    max_upload: u64,
    needs_version: bool,
    args: &PublishArgs,
    cwd: &std::path::Path,
    printer: Printer,
) -> anyhow::Result<Prepared> {
    let (dir, skill, mut targets) = package::locate(Some(path), &[], cwd)?;
    for target in implied {
        if !targets.contains(target) {
            targets.push(*target);
        }
    }
    let refused = |error| package::refused(error, cwd, printer, "publish");
    let validated = build::validate(skill, &targets).map_err(refused)?;
    let name = validated.name.clone();
    if !args.no_lint {
        lint_gate(&dir, &targets, cwd, printer)?;
    }
    let version = args
        .version
        .clone()
        .or_else(|| validated.version.clone())
        .or_else(|| (!needs_version).then(|| "0.0.0".to_owned()))
        .ok_or_else(|| UserError {
            message: format!("`{name}` has no version"),
            hints: vec!["pass --version 1.0.0, or set `metadata.version` in SKILL.md".into()],
        })?;
    let version = semver::Version::parse(&version).map_err(|_| UserError {
        message: format!("`{version}` is not a semantic version"),
        hints: vec!["use MAJOR.MINOR.PATCH, such as 1.0.0".into()],
    })?;
    if let (Some(given), Some(written)) = (&args.version, &validated.version)
        && given != written
    {
        let mut err = printer.stderr();
        writeln!(
            err,
            "warning: publishing `{name}` as {given}, but SKILL.md says version {written}; the files keep SKILL.md as written"
        )?;
        err.flush()?;
    }
    let description = validated
        .checked
        .skill
        .reading()
        .and_then(|reading| reading.doc.as_ref())
        .and_then(|doc| doc.description.as_deref())
        .and_then(|field| field.value.as_ref().ok())
        .map(|text| text.trim().to_owned())
        .unwrap_or_default();
    let selection = build::select(&dir, None, &targets, max_upload).map_err(refused)?;
    Ok(Prepared {
        dir,
        name,
        description,
        version,
        total: selection.total,
        files: selection.files,
    })
}

/// Packs each skill as a `.skill` and uploads it to the registry.
fn publish_registry(
    skills: &[Prepared],
    args: &PublishArgs,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let registry = args.registry.resolve(&skills[0].dir)?;
    let token = if args.dry_run {
        None
    } else {
        Some(required_token(&registry)?)
    };
    for skill in skills {
        let (name, version) = (&skill.name, &skill.version);
        let selection = build::Selection {
            files: skill.files.clone(),
            total: skill.total,
        };
        let refused = |error| package::refused(error, &cwd, printer, "publish");
        let temp = tempfile::Builder::new()
            .prefix("skillpkg-publish-")
            .tempdir()?;
        let archive_path = temp.path().join(format!("{name}-{version}.skill"));
        let summary = package::write_with_progress(&archive_path, &format!("{name}/"), &selection)
            .map_err(refused)?;
        let files = &selection.files;
        let mut err = printer.status();
        writeln!(
            err,
            "Packed `{name}` {version}: {} {}, {}, sha256 {}",
            files.len(),
            plural(files.len(), "file", "files"),
            crate::fsx::size(summary.bytes),
            summary.sha256
        )?;
        err.flush()?;
        let Some(token) = &token else {
            writeln!(err, "Dry run: would publish {name}@{version} to {registry}")?;
            err.flush()?;
            continue;
        };
        let bytes = fs_err::read(&archive_path)?;
        let client = Client::new(&registry, Some(token.clone())).map_err(client_error)?;
        let bar = upload_bar(&format!("{name}@{version}"), bytes.len() as u64);
        let result = client.publish(
            name,
            &version.to_string(),
            &bytes,
            &summary.sha256,
            &|sent| {
                if let Some(bar) = &bar {
                    bar.set_position(sent);
                }
            },
        );
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        report_publish(name, version, result, printer)?;
    }
    Ok(ExitStatus::Success)
}

/// One version for the plugin: --version, else the one every skill gives.
fn plugin_version(skills: &[Prepared]) -> anyhow::Result<semver::Version> {
    let first = &skills[0].version;
    if let Some(other) = skills.iter().find(|skill| skill.version != *first) {
        return Err(UserError {
            message: format!(
                "the skills give different versions (`{}` {first}, `{}` {}), and a plugin has one",
                skills[0].name, other.name, other.version
            ),
            hints: vec!["pass --version for the plugin".into()],
        }
        .into());
    }
    Ok(first.clone())
}

fn publish_marketplace(
    skills: &[Prepared],
    plan: &Plan,
    args: &PublishArgs,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let Some(options) = &plan.marketplace else {
        return Ok(ExitStatus::Success);
    };
    let mut options = options.clone();
    if options.plugin.is_empty() {
        options.plugin.clone_from(&skills[0].name);
    }
    options.version = plugin_version(skills)?;
    let report = marketplace::publish(skills, &options).map_err(destination_error)?;
    let mut err = printer.status();
    let what = format!("plugin `{}` {}", options.plugin, options.version);
    let place = options.dir.display();
    if report.outcome == crate::publish::Outcome::Unchanged {
        writeln!(
            err,
            "{what} is already in marketplace `{}` ({place}), with the same contents; nothing changed",
            report.marketplace
        )?;
    } else {
        let verb = match (args.dry_run, report.existed) {
            (true, _) => "Dry run: would publish",
            (false, true) => "Updated",
            (false, false) => "Added",
        };
        let created = if report.created {
            " (created its marketplace.json)"
        } else {
            ""
        };
        writeln!(
            err,
            "{verb} {what} in marketplace `{}` ({place}){created}",
            report.marketplace
        )?;
        let diff = similar::TextDiff::from_lines(&report.before, &report.after);
        let header = format!("{}", options.dir.join(marketplace::MANIFEST).display());
        write!(
            err,
            "{}",
            diff.unified_diff()
                .context_radius(2)
                .header(&header, &header)
        )?;
    }
    if let Some(tag) = &report.tag {
        if tag.elsewhere {
            writeln!(
                err,
                "warning: the tag {} already exists on another commit; it was left as it is",
                tag.name
            )?;
        }
        match &tag.commit {
            Some(commit) => writeln!(
                err,
                "Committed {commit} and tagged it {}; nothing was pushed. To publish it: {}",
                tag.name, tag.push
            )?,
            None => writeln!(
                err,
                "Tagged {}; nothing was pushed. To publish it: {}",
                tag.name, tag.push
            )?,
        }
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

fn publish_well_known(
    skills: &[Prepared],
    plan: &Plan,
    args: &PublishArgs,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let Some(site) = &plan.site else {
        return Ok(ExitStatus::Success);
    };
    let report = well_known::publish(skills, site, args.dry_run).map_err(destination_error)?;
    let mut err = printer.status();
    for skill in &report.skills {
        let entry = &skill.entry;
        if skill.outcome == crate::publish::Outcome::Unchanged {
            writeln!(
                err,
                "`{}` is already on the site ({}), with the same contents; nothing changed",
                skill.name,
                site.display()
            )?;
        } else {
            let verb = if args.dry_run {
                "Dry run: would publish"
            } else {
                "Published"
            };
            writeln!(
                err,
                "{verb} `{}` to {} as {} {} ({})",
                skill.name,
                site.join(well_known::INDEX).display(),
                entry.kind,
                entry.url,
                entry.digest
            )?;
        }
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

fn publish_anthropic(
    skills: &[Prepared],
    plan: &Plan,
    args: &PublishArgs,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let Some(options) = &plan.anthropic else {
        return Ok(ExitStatus::Success);
    };
    for skill in skills {
        let published = anthropic::publish(skill, options, &plan.state_file, args.dry_run)
            .map_err(anthropic_error)?;
        let mut err = printer.status();
        let what = format!("`{}` {}", skill.name, skill.version);
        if published.outcome == crate::publish::Outcome::Unchanged {
            writeln!(
                err,
                "{what} is already published to the Skills API, with the same contents; nothing changed"
            )?;
        } else if args.dry_run {
            if published.lookup_first {
                writeln!(
                    err,
                    "Dry run: no skill id is recorded in {}; would first look for a skill named `{}` (GET /v1/skills?source=custom), and add a version to it if found",
                    plan.state_file.display(),
                    skill.name
                )?;
            }
            for request in &published.requests {
                writeln!(err, "Dry run: would send {request}")?;
            }
        } else {
            let id = published.skill_id.as_deref().unwrap_or("?");
            let version = published.version_id.as_deref().unwrap_or("?");
            let verb = if published.created {
                "Created skill"
            } else {
                "Added a version to skill"
            };
            writeln!(
                err,
                "{verb} {id} ({what}), version {version}; recorded in {}",
                plan.state_file.display()
            )?;
            let mut out = printer.stdout();
            writeln!(out, "{id}")?;
            out.flush()?;
        }
        err.flush()?;
    }
    Ok(ExitStatus::Success)
}

/// Refuses a skill that `skillpkg lint` finds errors or placeholder text in, after printing
/// those findings: a published skill is installed by people who cannot fix it.
fn lint_gate(
    dir: &std::path::Path,
    targets: &[crate::agent::Target],
    cwd: &std::path::Path,
    printer: Printer,
) -> anyhow::Result<()> {
    use crate::check::rule::Severity;
    let mut checked = crate::commands::lint::lint_one(dir, targets, cwd, printer)?;
    let blocking = |diagnostic: &crate::check::diagnostic::Diagnostic| {
        diagnostic.severity == Severity::Error
            || diagnostic.rule.code == crate::check::rule::PLACEHOLDER_TEXT.code
    };
    let warnings = checked.diagnostics.iter().filter(|d| !blocking(d)).count();
    checked.diagnostics.retain(blocking);
    if checked.diagnostics.is_empty() {
        if warnings > 0 {
            let mut err = printer.status();
            writeln!(
                err,
                "note: `skillpkg lint` reports {warnings} {} (not blocking)",
                plural(warnings, "warning", "warnings")
            )?;
            err.flush()?;
        }
        return Ok(());
    }
    let report = crate::output::Report {
        checked: std::slice::from_ref(&checked),
        root: crate::output::repo_root(cwd),
        kind: crate::check::rule::Kind::Lint,
    };
    crate::output::print(crate::output::Format::Human, &report, printer)?;
    Err(Refusal::new(
        "`skillpkg lint` reports errors or placeholder text; nothing was published",
        &[
            "fix them (`skillpkg lint --fix` fixes some), then publish again",
            "or pass --no-lint to publish it as it is",
        ],
    )
    .into())
}

/// A byte progress bar for the upload, on a terminal outside CI.
fn upload_bar(what: &str, total: u64) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "uploading {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_owned());
    Some(bar)
}

/// Prints what the registry said about a publish, and picks the exit status.
fn report_publish(
    name: &str,
    version: &semver::Version,
    result: Result<crate::registry::api::Published, ClientError>,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let mut err = printer.status();
    match result {
        Ok(published) => {
            let mut out = printer.stdout();
            writeln!(out, "{}", published.url)?;
            out.flush()?;
            writeln!(err, "Published {name}@{version} ({})", published.digest)?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
        Err(ClientError::Status {
            status: 409,
            detail,
        }) if detail.contains("already published with this checksum") => {
            writeln!(
                err,
                "{name}@{version} is already published, with the same contents"
            )?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
        Err(ClientError::Status {
            status: 409,
            detail,
        }) => {
            Err(Refusal::new(detail, &["bump the version in SKILL.md, or pass --version"]).into())
        }
        Err(error) => Err(client_error(error)),
    }
}

fn anthropic_error(error: anthropic::Error) -> anyhow::Error {
    destination_error(error.into())
}
