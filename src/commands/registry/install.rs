//! `skillpkg install`: fetch skills from a registry, or exactly what skills.lock says, verified
//! and placed so that nothing a lockfile or a registry says can choose where they go.
//!
//! [`place`] is the one way a skill reaches its folder, for `install` and `update` alike: from
//! the download cache when it holds the archive, else downloaded (with a byte progress bar on a
//! terminal), checked against its SHA-256 and content digest, extracted into a staging folder
//! and renamed into place.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::project::{self, OutputFormat, Scope, SkillJson};
use super::{RegistryFlag, client_error};
use crate::agent::Target;
use crate::check::config::lexical_absolute;
use crate::commands::{ExitStatus, Refusal, UserError};
use crate::fsx;
use crate::output::Printer;
use crate::pack::archive;
use crate::pack::extract::{self, Limits};
use crate::registry::cache::{Cache, Lookup};
use crate::registry::client::Client;
use crate::registry::lockfile::{self, Locked, Lockfile, MARKER, Marker};

/// Install skills from the registry, or exactly what skills.lock says.
///
/// NAME@REQ takes a semver requirement (`pdf@^1.2`), which skills.lock records for `skillpkg
/// update`; a full version (`pdf@1.2.3`) is exact (recorded as `=1.2.3`) and may be a yanked
/// one. Each archive's SHA-256 and content digest are checked before anything is written; the
/// skill goes to the target agent's skills folder (.claude/skills/ for Claude Code,
/// .github/skills/ for Copilot, .agents/skills/ for the others) or --dir, and skills.lock
/// records it. With no names, everything in skills.lock is installed and verified.
///
/// skills.lock is the one in the project root: the nearest folder, from here up, that holds a
/// skills.lock or a skillpkg.toml (else this folder). Archives are kept in the download cache
/// ($SKILLPKG_CACHE_DIR, else the user's cache folder), so installing a version again
/// downloads nothing.
#[derive(Debug, clap::Args)]
#[expect(
    clippy::doc_markdown,
    reason = "`--help` text, where backticks would show"
)]
#[command(after_help = "Examples:
  skillpkg install pdf-forms                 # the newest stable version, recorded in skills.lock
  skillpkg install pdf-forms@^1.2 notes@1.0.0
  skillpkg install                           # exactly what skills.lock says, verified
  skillpkg install --locked                  # in CI: fail rather than change skills.lock
  skillpkg install pdf-forms --global        # into your user-level skills
  skillpkg install pdf-forms --format json   # what was installed, as JSON on stdout
  skillpkg install --from https://skills.example.com            # every skill the site's index offers
  skillpkg install --from-marketplace ../my-marketplace pdf-tools  # a plugin's skills")]
pub struct InstallArgs {
    /// Skills to install, each NAME or NAME@REQ (none: what skills.lock says)
    #[arg(value_name = "NAME[@REQ]")]
    pub names: Vec<String>,
    /// Which agent's skills folder to install into
    #[arg(
        long,
        short = 't',
        value_enum,
        value_name = "TARGET",
        default_value = "claude-code",
        hide_possible_values = true
    )]
    pub target: Target,
    /// Install into this folder instead
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Install into the target agent's user-level folder (~/.claude/skills, ~/.agents/skills,
    /// ~/.copilot/skills)
    #[arg(long, conflicts_with = "dir")]
    pub global: bool,
    /// Fail instead of changing skills.lock
    #[arg(long)]
    pub locked: bool,
    /// human: what happened, on stderr; json: one document on stdout (see docs/install.md)
    #[arg(
        long,
        value_enum,
        default_value = "human",
        value_name = "FORMAT",
        hide_possible_values = true
    )]
    pub format: OutputFormat,
    /// Install from a site's Agent Skills discovery index
    /// (URL/.well-known/agent-skills/index.json) instead of the registry; with no NAME, every
    /// skill it offers. Each file is checked against the index's digest
    #[arg(long, value_name = "URL", conflicts_with = "from_marketplace")]
    pub from: Option<String>,
    /// Install a plugin's skills (NAME is the plugin, or one of its skills) from a Claude Code
    /// plugin marketplace: a folder or a git URL
    #[arg(long, value_name = "DIR_OR_GIT_URL")]
    pub from_marketplace: Option<String>,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn install(args: InstallArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let scope = Scope::new(args.global)?;
    let mut lock = scope.read_lock()?;
    let fetch = Fetch::new(args.format, printer);
    let mut report = Report::new(args.format, printer);
    if args.from.is_some() || args.from_marketplace.is_some() {
        let dir = install_dir(&args, &scope)?;
        super::install_from::install(&args, &scope, &mut lock, &dir, &mut report)?;
        return report.finish(&scope, "install");
    }
    if args.names.is_empty() {
        install_from_lock(&scope, &lock, &fetch, &mut report)?;
        return report.finish(&scope, "install");
    }
    let dir = install_dir(&args, &scope)?;
    let registry = args.registry.resolve(Path::new("."))?;
    let client = client_for(&registry, args.registry.registry.as_deref())?;
    let to = Destination {
        client: &client,
        registry: &registry,
        scope: &scope,
        dir: &dir,
        locked: args.locked,
        fetch: &fetch,
    };
    // Whatever was installed before a failure is still recorded, so no folder is left orphaned.
    let mut changed = false;
    for spec in &args.names {
        match install_one(&to, spec, &mut lock, &mut report) {
            Ok(one) => changed |= one,
            Err(error) => {
                if changed {
                    lock.write(&scope.lock)?;
                }
                return Err(error);
            }
        }
    }
    if changed {
        lock.write(&scope.lock)?;
    }
    report.finish(&scope, "install")
}

/// The client for a registry that install, update and list read from; `flag` is `--registry`
/// when the command has it (see [`super::reader`] for which token goes along).
pub(super) fn client_for(registry: &str, flag: Option<&str>) -> anyhow::Result<Client> {
    super::reader(registry, flag)
}

/// What `install` and `update` did, told as it happens (people) or as one document at the end
/// (JSON).
pub(super) struct Report {
    format: OutputFormat,
    printer: Printer,
    skills: Vec<ChangeJson>,
    warnings: Vec<String>,
    /// `update --dry-run`: nothing was written.
    pub dry_run: Option<bool>,
}

/// One skill in the JSON of `install` and `update`.
#[derive(Debug, Serialize)]
pub(super) struct ChangeJson {
    #[serde(flatten)]
    pub skill: SkillJson,
    /// The version skills.lock recorded for this folder before, if any.
    pub previous: Option<String>,
    /// install: `installed` or `unchanged`; update: `updated` or `up-to-date`.
    pub action: &'static str,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    #[serde(flatten)]
    head: project::JsonHead,
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_run: Option<bool>,
    skills: &'a [ChangeJson],
    warnings: &'a [String],
}

impl Report {
    pub(super) fn new(format: OutputFormat, printer: Printer) -> Self {
        Self {
            format,
            printer,
            skills: Vec::new(),
            warnings: Vec::new(),
            dry_run: None,
        }
    }

    /// Tells people `line` (nothing in JSON, or with `--quiet`).
    pub(super) fn say(&self, line: &str) -> std::io::Result<()> {
        if self.format == OutputFormat::Json {
            return Ok(());
        }
        let mut err = self.printer.status();
        writeln!(err, "{line}")?;
        err.flush()
    }

    /// Prints a warning at once, and keeps it for the JSON document.
    pub(super) fn warn(&mut self, message: String) -> std::io::Result<()> {
        project::warn(self.printer, &message)?;
        self.warnings.push(message);
        Ok(())
    }

    /// Keeps `entry` (as now recorded) for the JSON document.
    pub(super) fn record(&mut self, entry: &Locked, previous: Option<&str>, action: &'static str) {
        self.skills.push(ChangeJson {
            skill: entry.into(),
            previous: previous.map(str::to_owned),
            action,
        });
    }

    /// Tells what [`place`] did with `entry`; `from_lock` says that skills.lock chose it.
    pub(super) fn placed(
        &mut self,
        scope: &Scope,
        entry: &Locked,
        previous: Option<&str>,
        placed: &Placed,
        from_lock: bool,
    ) -> std::io::Result<()> {
        let shown = scope.show(&entry.folder());
        let (name, version) = (&entry.name, &entry.version);
        let (line, action) = match (placed, from_lock) {
            (Placed::Installed, false) => (
                format!("Installed {name}@{version} into {shown}"),
                "installed",
            ),
            (Placed::Installed, true) => (
                format!("Installed {name}@{version} into {shown} (verified against skills.lock)"),
                "installed",
            ),
            (Placed::UpToDate, false) => (
                format!("{name}@{version} is already installed in {shown}"),
                "unchanged",
            ),
            (Placed::UpToDate, true) => (
                format!(
                    "{name}@{version} is already installed in {shown} (its files match skills.lock)"
                ),
                "unchanged",
            ),
        };
        self.say(&line)?;
        self.record(entry, previous, action);
        Ok(())
    }

    /// Prints the JSON document, when that is the format.
    pub(super) fn finish(self, scope: &Scope, command: &'static str) -> anyhow::Result<ExitStatus> {
        if self.format == OutputFormat::Json {
            let document = ReportJson {
                head: scope.json_head(command),
                dry_run: self.dry_run,
                skills: &self.skills,
                warnings: &self.warnings,
            };
            project::print_json(&document, self.printer)?;
        }
        Ok(ExitStatus::Success)
    }
}

/// Where `install` puts skills, and from where.
struct Destination<'a> {
    client: &'a Client,
    registry: &'a str,
    scope: &'a Scope,
    /// The skills folder, relative to the scope's root, `/`-separated and normalised.
    dir: &'a str,
    /// `--locked`: refuse to change skills.lock.
    locked: bool,
    fetch: &'a Fetch,
}

/// The requirement skills.lock records for what the user typed after `@`: `*` for nothing, `=X`
/// for a full version (exact, as on the command line), else the requirement as typed.
fn recorded_requirement(name: &str, requirement: Option<&str>) -> anyhow::Result<String> {
    let Some(text) = requirement.map(str::trim) else {
        return Ok("*".into());
    };
    if let Ok(version) = semver::Version::parse(text.strip_prefix('=').unwrap_or(text).trim()) {
        return Ok(format!("={version}"));
    }
    lockfile::check_requirement(text).map_err(|_| UserError {
        message: format!(
            "`{name}@{}` does not name a version: `{}` is not a semver requirement",
            text.escape_debug(),
            text.escape_debug()
        ),
        hints: vec![
            "write NAME@^1.2, NAME@~1.4, NAME@'>=1, <2' or an exact version NAME@1.2.0".into(),
        ],
    })?;
    Ok(text.to_owned())
}

/// Whether `to` is a lower version than `from` (both as skills.lock records them).
pub(super) fn is_downgrade(from: &str, to: &str) -> bool {
    match (semver::Version::parse(from), semver::Version::parse(to)) {
        (Ok(from), Ok(to)) => to < from,
        _ => false,
    }
}

/// Installs one `NAME[@REQ]` and records it in `lock`; says whether `lock` changed.
fn install_one(
    to: &Destination<'_>,
    spec: &str,
    lock: &mut Lockfile,
    report: &mut Report,
) -> anyhow::Result<bool> {
    let (name, requirement) = match spec.split_once('@') {
        Some((name, requirement)) => (name, Some(requirement)),
        None => (spec, None),
    };
    // The folder is named by what the user asked for, never by what the registry answers.
    if !crate::pack::valid_skill_name(name) {
        return Err(UserError {
            message: format!("`{name}` is not a skill name"),
            hints: vec!["skill names are lowercase letters, digits and single hyphens".into()],
        }
        .into());
    }
    let recorded = recorded_requirement(name, requirement)?;
    let skill = to.client.info(name).map_err(client_error)?;
    if skill.name != name {
        return Err(UserError {
            message: format!(
                "asked for `{name}`, the registry answered with `{}`; nothing was installed",
                skill.name.escape_debug()
            ),
            hints: vec!["report it to the registry's operator".into()],
        }
        .into());
    }
    let chosen = skill.choose(Some(&recorded)).ok_or_else(|| UserError {
        message: format!(
            "no version of `{name}` matches `{}`",
            requirement.unwrap_or("*")
        ),
        hints: vec![format!("`skillpkg info {name}` lists its versions")],
    })?;
    let entry = Locked {
        name: name.to_owned(),
        version: chosen.version.clone(),
        requirement: Some(recorded),
        registry: to.registry.to_owned(),
        sha256: chosen.checksum.clone(),
        digest: chosen.digest.clone(),
        dir: to.dir.to_owned(),
        source: None,
        plugin: None,
    };
    entry.check().map_err(|reason| UserError {
        message: format!("the registry's answer for `{name}` is not usable: {reason}"),
        hints: vec!["nothing was installed; report it to the registry's operator".into()],
    })?;
    let existing = lock
        .skills
        .iter()
        .position(|locked| locked.name == entry.name && locked.folder() == entry.folder());
    let changed = existing.is_none_or(|index| lock.skills[index] != entry);
    if changed && to.locked {
        return Err(UserError {
            message: format!(
                "{}@{} is not what skills.lock records, and --locked forbids changing it",
                entry.name, entry.version
            ),
            hints: vec!["run without --locked to update skills.lock".into()],
        }
        .into());
    }
    let previous = existing.map(|index| lock.skills[index].clone());
    if let Some(previous) = &previous
        && is_downgrade(&previous.version, &entry.version)
    {
        report.warn(format!(
            "downgrading {name} {} → {}",
            previous.version, entry.version
        ))?;
    }
    if chosen.yanked {
        report.warn(format!(
            "{name}@{} is yanked: its publisher withdrew it; installing it because it was asked for exactly",
            entry.version
        ))?;
    }
    let placed = place(
        to.client,
        &entry,
        to.scope,
        previous.as_ref(),
        Some(chosen.size),
        to.fetch,
    )?;
    match existing {
        Some(index) => lock.skills[index] = entry.clone(),
        None => lock.skills.push(entry.clone()),
    }
    let previous = previous.map(|previous| previous.version);
    report.placed(to.scope, &entry, previous.as_deref(), &placed, false)?;
    Ok(changed)
}

/// `skillpkg install` with no names: exactly what skills.lock says, every digest verified.
fn install_from_lock(
    scope: &Scope,
    lock: &Lockfile,
    fetch: &Fetch,
    report: &mut Report,
) -> anyhow::Result<()> {
    if lock.skills.is_empty() {
        return Err(UserError {
            message: format!(
                "nothing to install: {} lists no skills",
                scope.lock.display()
            ),
            hints: vec!["name the skills: `skillpkg install NAME`".into()],
        }
        .into());
    }
    for entry in &lock.skills {
        if entry.source.is_some() {
            let placed = super::install_from::from_lock(entry, scope, report)?;
            report.placed(scope, entry, Some(&entry.version), &placed, true)?;
            continue;
        }
        let client = client_for(&entry.registry, None)?;
        let placed = place(&client, entry, scope, Some(entry), None, fetch)?;
        report.placed(scope, entry, Some(&entry.version), &placed, true)?;
    }
    Ok(())
}

/// The skills folder to install into, relative to the scope's root and normalised: `--dir`
/// (relative to the current folder, and inside the project, since skills.lock records folders
/// relative to its root), else the target agent's project or user folder.
fn install_dir(args: &InstallArgs, scope: &Scope) -> anyhow::Result<String> {
    let Some(dir) = &args.dir else {
        return Ok(if scope.global {
            args.target.user_install_dir()
        } else {
            args.target.install_dir()
        }
        .to_owned());
    };
    let outside = || UserError {
        message: format!(
            "`{}` is outside the project ({}); skills.lock records folders inside it",
            dir.display(),
            scope.root.display()
        ),
        hints: vec![
            "pass a folder inside the project, or --global for the user-level folder".into(),
        ],
    };
    let absolute = lexical_absolute(&scope.cwd, dir);
    let relative = absolute.strip_prefix(&scope.root).map_err(|_| outside())?;
    let text = relative
        .to_str()
        .ok_or_else(outside)?
        .replace(std::path::MAIN_SEPARATOR, "/");
    let text = if text.is_empty() {
        ".".to_owned()
    } else {
        text
    };
    lockfile::normalise_dir(&text).map_err(|reason| {
        UserError {
            message: format!("cannot install into `{}`: {reason}", dir.display()),
            hints: vec![],
        }
        .into()
    })
}

/// How archives are obtained: from the download cache, else from the registry, with a byte
/// progress bar when people are watching.
pub(super) struct Fetch {
    cache: Option<Cache>,
    bar: bool,
    printer: Printer,
}

impl Fetch {
    pub(super) fn new(format: OutputFormat, printer: Printer) -> Self {
        Self {
            cache: Cache::from_env(),
            bar: project::progress_wanted(format, printer),
            printer,
        }
    }

    fn note(&self, line: &str) -> std::io::Result<()> {
        let mut err = self.printer.status();
        writeln!(err, "note: {line}")?;
        err.flush()
    }

    /// Writes the archive of `entry` into `into` (empty) and returns its SHA-256, and whether
    /// it came from the cache. `size` is the size the registry announced, when known.
    fn archive(
        &self,
        client: &Client,
        entry: &Locked,
        size: Option<u64>,
        into: &mut std::fs::File,
    ) -> anyhow::Result<(String, bool)> {
        let limit = size.unwrap_or(Limits::default().max_bytes);
        if let Some(cache) = &self.cache {
            match cache.copy_verified(&entry.sha256, limit, into) {
                Ok(Lookup::Hit) => return Ok((entry.sha256.clone(), true)),
                Ok(Lookup::Miss) => {}
                Ok(Lookup::Discarded(reason)) => self.note(&format!(
                    "the cached archive of {}@{}: {reason}; downloading it again",
                    entry.name, entry.version
                ))?,
                Err(error) => {
                    self.note(&format!(
                        "cannot read the download cache ({error}); downloading {}@{}",
                        entry.name, entry.version
                    ))?;
                    into.set_len(0)?;
                    std::io::Seek::rewind(into)?;
                }
            }
        }
        let size = match size {
            Some(size) => size,
            None => announced_size(client, entry)?,
        };
        let bar = self.bar.then(|| download_bar(entry, size));
        let got = client.download_with_progress(&entry.name, &entry.version, size, into, &|n| {
            if let Some(bar) = &bar {
                bar.set_position(n);
            }
        });
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        Ok((got.map_err(client_error)?, false))
    }

    /// Keeps a verified download in the cache; a cache that cannot be written is only noted.
    fn remember(&self, sha256: &str, archive: &Path) -> std::io::Result<()> {
        let Some(cache) = &self.cache else {
            return Ok(());
        };
        if let Err(error) = cache.store(sha256, archive) {
            self.note(&format!(
                "the download was not kept in the cache ({}): {error}",
                cache.dir().display()
            ))?;
        }
        Ok(())
    }
}

/// The size the registry announces for the archive of `entry`.
fn announced_size(client: &Client, entry: &Locked) -> anyhow::Result<u64> {
    let skill = client.info(&entry.name).map_err(client_error)?;
    skill
        .versions
        .iter()
        .find(|version| version.version == entry.version)
        .map(|version| version.size)
        .ok_or_else(|| {
            Refusal::new(
                format!(
                    "{} has no version {} of `{}`; nothing was installed",
                    client.base(),
                    entry.version,
                    entry.name
                ),
                &["`skillpkg info NAME` lists its versions"],
            )
            .into()
        })
}

/// A byte progress bar for a download.
fn download_bar(entry: &Locked, total: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "downloading {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("{}@{}", entry.name, entry.version));
    bar
}

/// What [`place`] did.
pub(super) enum Placed {
    Installed,
    /// The folder already holds exactly these files: nothing was downloaded.
    UpToDate,
}

/// What is at an install's destination, and whether skillpkg may replace it.
pub(super) enum Present {
    Nothing,
    /// It holds exactly the files to install.
    UpToDate,
    /// skillpkg installed it and nobody changed it since: it may be replaced.
    Ours,
}

/// What is at a skill's folder, as far as skillpkg can prove.
pub(super) enum Ownership {
    Nothing,
    /// Its files are exactly `entry`'s.
    Matches,
    /// skillpkg installed it and nobody changed it since (its files match its marker's digest,
    /// or the one skills.lock recorded).
    Ours,
    /// skillpkg installed it, and its files were changed since.
    Changed,
    /// Something skillpkg did not install: a folder the user made, a link, a file.
    Foreign,
}

/// What is at `destination`, compared with `entry` and `previous` (what skills.lock recorded
/// for that folder).
pub(super) fn ownership(
    destination: &Path,
    entry: &Locked,
    previous: Option<&Locked>,
) -> anyhow::Result<Ownership> {
    let metadata = match fs_err::symlink_metadata(destination) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Ownership::Nothing);
        }
        Err(error) => return Err(error.into()),
    };
    let current = if metadata.is_dir() {
        archive::folder_digest(destination, &[MARKER, ".DS_Store"], &Limits::default())?
    } else {
        None
    };
    if current.as_deref() == Some(entry.digest.as_str()) {
        return Ok(Ownership::Matches);
    }
    let marker = Marker::read(destination).filter(|marker| marker.name == entry.name);
    let ours = current.as_ref().is_some_and(|current| {
        marker
            .as_ref()
            .is_some_and(|marker| &marker.digest == current)
            || previous.is_some_and(|previous| &previous.digest == current)
    });
    Ok(if ours {
        Ownership::Ours
    } else if marker.is_some() {
        Ownership::Changed
    } else {
        Ownership::Foreign
    })
}

/// Whether the folder at `destination` may be replaced by `entry`: only with proof that
/// skillpkg installed it and nobody has changed it since ([`ownership`]). Anything else (a
/// folder the user made, a link, an installed skill someone edited) is refused.
fn check_present(
    destination: &Path,
    shown: &str,
    entry: &Locked,
    previous: Option<&Locked>,
) -> anyhow::Result<Present> {
    let message = match ownership(destination, entry, previous)? {
        Ownership::Nothing => return Ok(Present::Nothing),
        Ownership::Matches => return Ok(Present::UpToDate),
        Ownership::Ours => return Ok(Present::Ours),
        Ownership::Changed => {
            format!("`{shown}` was changed since skillpkg installed it; nothing was replaced")
        }
        Ownership::Foreign => {
            format!("`{shown}` exists and was not installed by skillpkg; nothing was changed")
        }
    };
    Err(UserError {
        message,
        hints: vec![
            "move it away (or delete it to reinstall), or install into another folder with --dir"
                .into(),
        ],
    }
    .into())
}

/// Refuses `folder` when, through a symbolic link, it lies outside `root`: a link committed to
/// the project (`vendor -> ../../.config/…`) must not let an install write elsewhere. Checked
/// on the deepest part of `folder` that exists, before and after it is created.
pub(super) fn check_inside(root: &Path, folder: &Path, shown: &str) -> anyhow::Result<()> {
    let real_root = fs_err::canonicalize(root)?;
    let mut existing = folder;
    while !existing.exists() {
        match existing.parent() {
            Some(parent) => existing = parent,
            None => return Ok(()),
        }
    }
    let real = fs_err::canonicalize(existing)?;
    if real.starts_with(&real_root) {
        return Ok(());
    }
    Err(UserError {
        message: format!(
            "`{shown}` leads to `{}` through a symbolic link, outside the project; nothing was changed",
            real.display()
        ),
        hints: vec![
            "skills.lock and --dir may only name folders inside the project; replace the link with a folder".into(),
        ],
    }
    .into())
}

/// Installs `entry` into `entry.dir/entry.name` under the scope's root: takes its archive from
/// the cache or downloads it, checks its `sha256` and `digest`, extracts it into a staging
/// folder with a [`Marker`], and renames it into place (the folder it replaces moves into the
/// staging folder, removed with it), so the folder is always the old one or the new one.
///
/// A folder already there is replaced only as [`check_present`] allows, checked before the
/// download and again just before the swap. In a project (not `--global`), the folder must
/// stay inside the root even through symbolic links ([`check_inside`]).
///
/// `size` is the archive's size as the registry announced it, when known; the download is
/// refused past it.
pub(super) fn place(
    client: &Client,
    entry: &Locked,
    scope: &Scope,
    previous: Option<&Locked>,
    size: Option<u64>,
    fetch: &Fetch,
) -> anyhow::Result<Placed> {
    let name = entry.name.as_str();
    place_with(entry, scope, previous, |staging| {
        let archive_file = staging.join("download.skill");
        let mut download = fs_err::File::create(&archive_file)?;
        let (got, cached) = fetch.archive(client, entry, size, download.file_mut())?;
        drop(download);
        if got != entry.sha256 {
            return Err(UserError {
                message: format!("the download of {name} does not match its checksum (expected {}, got {got}); nothing was installed", entry.sha256),
                hints: vec!["the archive was altered on the way or on the registry; report it to the registry's operator".into()],
            }
            .into());
        }
        if !cached {
            fetch.remember(&entry.sha256, &archive_file)?;
        }
        let options = extract::Options {
            limits: Limits::default(),
            ..extract::Options::new(name)
        };
        let extracted =
            extract::extract(&archive_file, &staging.join("out"), &options).map_err(|error| {
                UserError {
                    message: format!("{name}: {error}"),
                    hints: vec!["nothing was installed".into()],
                }
            })?;
        if extracted.name != name {
            return Err(UserError {
                message: format!(
                    "the archive holds `{}`, not `{name}`; nothing was installed",
                    extracted.name
                ),
                hints: vec![],
            }
            .into());
        }
        Ok(extracted.dir)
    })
}

/// The part of [`place`] every source shares: checks the destination, has `produce` fill a
/// staging folder beside it and return the skill's folder in it, checks that folder's content
/// digest against `entry.digest`, writes the [`Marker`] and swaps it into place.
pub(super) fn place_with(
    entry: &Locked,
    scope: &Scope,
    previous: Option<&Locked>,
    produce: impl FnOnce(&Path) -> anyhow::Result<PathBuf>,
) -> anyhow::Result<Placed> {
    let name = entry.name.as_str();
    let root = scope.root.as_path();
    let contained = !scope.global;
    let relative_folder = entry
        .folder()
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let folder = root.join(&relative_folder);
    let destination = root.join(entry.folder());
    let shown = scope.show(&entry.folder());
    let shown_folder = scope.show(&relative_folder);
    if contained {
        check_inside(root, &folder, &shown_folder)?;
    }
    let present = check_present(&destination, &shown, entry, previous)?;
    if matches!(present, Present::UpToDate) {
        return Ok(Placed::UpToDate);
    }
    fs_err::create_dir_all(&folder)?;
    if contained {
        check_inside(root, &folder, &shown_folder)?;
    }
    let mut staging = extract::Staging::new(&folder, name, ".install")?;
    let new = produce(staging.path())?;
    let got = archive::folder_digest(&new, &[MARKER], &Limits::default())?
        .ok_or_else(|| anyhow::anyhow!("{name}: cannot read the files to install"))?;
    if got != entry.digest {
        return Err(UserError { message: format!("the contents of {name} do not match their digest (expected {}, got {got}); nothing was installed", entry.digest), hints: vec![] }.into());
    }
    Marker {
        name: name.to_owned(),
        version: entry.version.clone(),
        digest: got,
    }
    .write(&new)?;
    // Swap, with Ctrl-C held off: the old folder moves into the staging folder (removed with
    // it), the new one in; first, the old one must still be as it was (edits made during the
    // download are not lost).
    staging
        .commit(|staged| {
            match check_present(&destination, &shown, entry, previous) {
                Ok(Present::Nothing) => {}
                Ok(_) => fs_err::rename(&destination, staged.join("previous"))?,
                Err(error) => return Ok(Err(error)),
            }
            fs_err::rename(&new, &destination)?;
            Ok(Ok(()))
        })
        .map_err(|error| anyhow::anyhow!("{name}: {error}"))??;
    fsx::sync_folder(&folder);
    Ok(Placed::Installed)
}
