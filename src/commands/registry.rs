//! The marketplace commands: `registry serve`, `registry token create`, `login`, `publish`,
//! `search`, `info`, `install`, `yank` and `owner`.

use std::io::{IsTerminal as _, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::package::{self, Layout, PackageArgs};
use super::{ExitStatus, UserError};
use crate::check::config::ConfigFinder;
use crate::check::target::Target;
use crate::fsx;
use crate::output::{Printer, plural, print_error};
use crate::pack::extract::{self, Limits};
use crate::pack::{archive, select};
use crate::registry::api::SkillInfo;
use crate::registry::client::{self, Client, ClientError};
use crate::registry::server::{self, Settings};

/// The lockfile's name.
pub const LOCKFILE: &str = "skills.lock";

/// Run or administer a registry.
#[derive(Debug, clap::Args)]
pub struct RegistryArgs {
    #[command(subcommand)]
    pub command: RegistryCommand,
}

#[derive(Debug, clap::Subcommand)]
#[allow(clippy::doc_markdown)] // `--help` text, where backticks would show
pub enum RegistryCommand {
    /// Serve a registry: SQLite metadata and archive blobs under --data
    Serve {
        /// Where the registry keeps its database and archives
        #[arg(long, value_name = "DIR", default_value = "registry-data")]
        data: PathBuf,
        /// The address to listen on (port 0 picks a free one; the URL is printed)
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// The largest archive accepted, in bytes
        #[arg(long, value_name = "BYTES", default_value_t = 50 * 1024 * 1024)]
        max_upload: u64,
        /// The public URL in links [default: http://<addr>]
        #[arg(long, value_name = "URL")]
        public_url: Option<String>,
        #[command(flatten)]
        connections: server::ConnectionLimits,
    },
    /// Manage publish tokens
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum TokenCommand {
    /// Create a token for a user and print it once (only its hash is stored)
    Create {
        #[arg(long, value_name = "DIR", default_value = "registry-data")]
        data: PathBuf,
        #[arg(long, value_name = "NAME")]
        user: String,
    },
}

/// Where the registry is: --registry, `SKILLPKG_REGISTRY`, or skillpkg.toml's `registry`.
#[derive(Debug, Clone, clap::Args)]
#[allow(clippy::doc_markdown)] // `--help` text, where backticks would show
pub struct RegistryFlag {
    /// The registry's URL [default: $SKILLPKG_REGISTRY, or `registry` in skillpkg.toml]
    #[arg(long, value_name = "URL")]
    pub registry: Option<String>,
}

impl RegistryFlag {
    fn resolve(&self, near: &Path) -> anyhow::Result<String> {
        if let Some(url) = &self.registry {
            return Ok(url.trim_end_matches('/').to_owned());
        }
        if let Some(url) = std::env::var("SKILLPKG_REGISTRY")
            .ok()
            .filter(|u| !u.is_empty())
        {
            return Ok(url.trim_end_matches('/').to_owned());
        }
        let cwd = std::env::current_dir()?;
        let config = ConfigFinder::new(cwd)
            .for_dir(near)
            .map_err(|error| UserError {
                message: error.to_string(),
                hints: vec![],
            })?;
        if let Some(url) = config.as_ref().and_then(|config| config.registry.as_ref()) {
            return Ok(url.trim_end_matches('/').to_owned());
        }
        Err(UserError {
            message: "no registry is set".into(),
            hints: vec!["pass --registry URL, set SKILLPKG_REGISTRY, or add `registry = \"…\"` to skillpkg.toml".into()],
        }
        .into())
    }
}

/// Store a registry token for publish, yank and owner changes.
///
/// Reads the token from standard input (or $SKILLPKG_TOKEN) and stores it, per registry, in
/// skillpkg's config folder with mode 0600.
#[derive(Debug, clap::Args)]
#[allow(clippy::doc_markdown)] // `--help` text, where backticks would show
pub struct LoginArgs {
    #[command(flatten)]
    pub registry: RegistryFlag,
}

/// Validate, package and upload a skill.
///
/// The version comes from --version, else `metadata.version` or `version` in SKILL.md, and must
/// be semver. Publishing a version that exists with the same contents is reported and exits 0;
/// with other contents it exits 1: versions are immutable.
#[derive(Debug, clap::Args)]
#[command(disable_version_flag = true)]
pub struct PublishArgs {
    /// The skill folder [default: .]
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// The version [default: metadata.version, else version, in SKILL.md]
    #[arg(long = "version", id = "skill_version", value_name = "SEMVER")]
    pub version: Option<String>,
    /// Do everything except the upload
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

/// Search the registry.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Words to look for in names and descriptions
    #[arg(value_name = "QUERY", default_value = "")]
    pub query: String,
    /// Which page of results (20 per page)
    #[arg(long, default_value_t = 1)]
    pub page: usize,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

/// Show a skill's versions (with yanked ones marked) and owners.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// The skill's name
    #[arg(value_name = "NAME")]
    pub name: String,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

/// Install skills from the registry, or exactly what skills.lock says.
///
/// NAME@REQ takes a semver requirement (`pdf@^1.2`); a full version (`pdf@1.2.3`) is exact and
/// may be a yanked one. Each archive's SHA-256 and content digest are checked before anything
/// is written; the skill goes to .claude/skills/ (or .agents/skills/ for other targets, or
/// --dir), and skills.lock records it. With no names, everything in skills.lock is installed
/// and verified.
#[derive(Debug, clap::Args)]
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
    /// Install into the user-level folder (~/.claude/skills, ~/.agents/skills)
    #[arg(long, conflicts_with = "dir")]
    pub global: bool,
    /// Fail instead of changing skills.lock
    #[arg(long)]
    pub locked: bool,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

/// Yank a version (installs skip it unless pinned), or undo it.
#[derive(Debug, clap::Args)]
pub struct YankArgs {
    /// The version to yank, as NAME@VERSION
    #[arg(value_name = "NAME@VERSION")]
    pub spec: String,
    /// Unyank it instead
    #[arg(long)]
    pub undo: bool,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

/// List, add or remove a skill's owners.
#[derive(Debug, clap::Args)]
pub struct OwnerArgs {
    #[command(subcommand)]
    pub command: OwnerCommand,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[derive(Debug, clap::Subcommand)]
pub enum OwnerCommand {
    /// List the skill's owners
    List {
        /// The skill
        name: String,
    },
    /// Add owners (users the registry already knows)
    Add {
        /// The skill
        name: String,
        /// The users to add
        #[arg(required = true, value_name = "USER")]
        users: Vec<String>,
    },
    /// Remove owners (a skill keeps at least one)
    Remove {
        /// The skill
        name: String,
        /// The users to remove
        #[arg(required = true, value_name = "USER")]
        users: Vec<String>,
    },
}

/// The stored (or `SKILLPKG_TOKEN`) token for `registry`, or an error saying how to get one.
fn required_token(registry: &str) -> Result<String, UserError> {
    client::token(registry).ok_or_else(|| UserError {
        message: format!("no token for {registry}"),
        hints: vec!["run `skillpkg login`, or set SKILLPKG_TOKEN".into()],
    })
}

#[allow(clippy::needless_pass_by_value)] // called as `.map_err(client_error)`
fn client_error(error: ClientError) -> anyhow::Error {
    let hint = match &error {
        ClientError::Status { status: 401, .. } => {
            "run `skillpkg login` with a valid token, or set SKILLPKG_TOKEN"
        }
        ClientError::Status { status: 403, .. } => {
            "ask an owner to add you with `skillpkg owner add`"
        }
        ClientError::Transport { .. } => "check the URL and that the registry is running",
        _ => "",
    };
    UserError {
        message: error.to_string(),
        hints: if hint.is_empty() {
            vec![]
        } else {
            vec![hint.into()]
        },
    }
    .into()
}

#[allow(clippy::needless_pass_by_value)]
pub fn registry(args: RegistryArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    match args.command {
        RegistryCommand::Serve {
            data,
            addr,
            max_upload,
            public_url,
            connections,
        } => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?;
            runtime.block_on(server::serve(Settings {
                data,
                addr,
                max_upload,
                base_url: public_url,
                connections,
            }))?;
            Ok(ExitStatus::Success)
        }
        RegistryCommand::Token {
            command: TokenCommand::Create { data, user },
        } => {
            if user.trim().is_empty() || user.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(UserError {
                    message: format!("`{user}` is not a user name"),
                    hints: vec![],
                }
                .into());
            }
            let token = server::create_token(&data, &user)?;
            let mut out = printer.stdout();
            writeln!(out, "{token}")?;
            out.flush()?;
            let mut err = printer.stderr();
            writeln!(
                err,
                "Created a token for `{user}`. It is shown once; the registry keeps only its hash."
            )?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
    }
}

#[allow(clippy::needless_pass_by_value)]
pub fn login(args: LoginArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    let from_env = std::env::var("SKILLPKG_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty());
    let token = if let Some(token) = from_env {
        token
    } else {
        if std::io::stdin().is_terminal() {
            let mut err = printer.stderr();
            write!(err, "Token for {registry}: ")?;
            err.flush()?;
        }
        let mut token = String::new();
        std::io::stdin().read_line(&mut token)?;
        token
    };
    let token = token.trim().to_owned();
    if token.is_empty() {
        return Err(UserError {
            message: "no token was given".into(),
            hints: vec!["pipe it in: `echo $TOKEN | skillpkg login`".into()],
        }
        .into());
    }
    let me = Client::new(&registry, Some(token.clone()))
        .me()
        .map_err(client_error)?;
    let path = client::store_token(&registry, &token)?;
    let mut err = printer.stderr();
    writeln!(
        err,
        "Logged in to {registry} as `{}`; the token is in {}",
        me.user,
        path.display()
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}

#[allow(clippy::needless_pass_by_value)]
pub fn publish(args: PublishArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let package_args = PackageArgs {
        path: args.path.clone(),
        output: None,
        list: false,
        targets: Vec::new(),
        layout: Layout::Folder,
        max_size: package::CLAUDE_AI_MAX_BYTES,
    };
    let (dir, skill, targets) = package::locate(&package_args, &cwd)?;
    let checked = crate::check::check_skill(skill, &targets);
    if !checked.is_valid() {
        let report = crate::output::Report {
            checked: std::slice::from_ref(&checked),
            root: crate::output::repo_root(&cwd),
            kind: crate::check::rule::Kind::Validate,
        };
        crate::output::print(crate::output::Format::Human, &report, printer)?;
        let mut err = printer.stderr();
        print_error(&mut err, "the skill has errors; nothing was published", &[])?;
        err.flush()?;
        return Ok(ExitStatus::Failure);
    }
    let name = package::skill_name(&checked);
    let version = args
        .version
        .clone()
        .or_else(|| package::version(&checked))
        .ok_or_else(|| UserError {
            message: "the skill has no version".into(),
            hints: vec!["pass --version 1.0.0, or set `metadata.version` in SKILL.md".into()],
        })?;
    let version = semver::Version::parse(&version).map_err(|_| UserError {
        message: format!("`{version}` is not a semantic version"),
        hints: vec!["use MAJOR.MINOR.PATCH, such as 1.0.0".into()],
    })?;
    if let (Some(given), Some(written)) = (&args.version, package::version(&checked))
        && *given != written
    {
        let mut err = printer.stderr();
        writeln!(
            err,
            "warning: publishing as {given}, but SKILL.md says version {written}; the archive keeps SKILL.md as written"
        )?;
        err.flush()?;
    }
    let files = select::select(&dir).map_err(|error| UserError {
        message: error.to_string(),
        hints: vec![],
    })?;
    let total: u64 = files.iter().map(|f| f.size).sum();
    let temp = tempfile::Builder::new()
        .prefix("skillpkg-publish-")
        .tempdir()?;
    let archive_path = temp.path().join(format!("{name}-{version}.skill"));
    let summary = package::write_archive(&archive_path, &format!("{name}/"), &files, total)?;
    let mut err = printer.stderr();
    writeln!(
        err,
        "Packed `{name}` {version}: {} {}, {} bytes, sha256 {}",
        files.len(),
        plural(files.len(), "file", "files"),
        summary.bytes,
        summary.sha256
    )?;
    err.flush()?;
    let registry = args.registry.resolve(&dir)?;
    if args.dry_run {
        writeln!(err, "Dry run: would publish {name}@{version} to {registry}")?;
        err.flush()?;
        return Ok(ExitStatus::Success);
    }
    let token = required_token(&registry)?;
    let bytes = fs_err::read(&archive_path)?;
    let client = Client::new(&registry, Some(token));
    let bar = upload_bar(&format!("{name}@{version}"), bytes.len() as u64);
    let result = client.publish(
        &name,
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
    report_publish(&name, &version, result, printer)
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
    let mut err = printer.stderr();
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
            print_error(
                &mut err,
                &detail,
                &["bump the version in SKILL.md, or pass --version"],
            )?;
            err.flush()?;
            Ok(ExitStatus::Failure)
        }
        Err(error) => Err(client_error(error)),
    }
}

#[allow(clippy::needless_pass_by_value)]
pub fn search(args: SearchArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    let result = Client::new(&registry, None)
        .search(&args.query, args.page)
        .map_err(client_error)?;
    let mut out = printer.stdout();
    for hit in &result.skills {
        writeln!(
            out,
            "{} {} — {}",
            hit.name,
            hit.latest.as_deref().unwrap_or("(all yanked)"),
            hit.description
        )?;
    }
    out.flush()?;
    let mut err = printer.stderr();
    if result.total == 0 {
        writeln!(err, "No skills match `{}`", args.query)?;
    } else if result.skills.len() == result.total {
        writeln!(
            err,
            "{} {}",
            result.total,
            plural(result.skills.len(), "skill", "skills")
        )?;
    } else {
        writeln!(
            err,
            "{} of {} skills (page {}; --page {} for more)",
            result.skills.len(),
            result.total,
            result.page,
            result.page + 1
        )?;
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

#[allow(clippy::needless_pass_by_value)]
pub fn info(args: InfoArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    let skill = Client::new(&registry, None)
        .info(&args.name)
        .map_err(client_error)?;
    let mut out = printer.stdout();
    writeln!(
        out,
        "{}: {}\nowners: {}\nversions:",
        skill.name,
        skill.description,
        skill.owners.join(", ")
    )?;
    let width = skill
        .versions
        .iter()
        .map(|v| v.version.len() + if v.yanked { " (yanked)".len() } else { 0 })
        .max()
        .unwrap_or(0);
    for version in &skill.versions {
        let label = if version.yanked {
            format!("{} (yanked)", version.version)
        } else {
            version.version.clone()
        };
        writeln!(
            out,
            "  {label:<width$}  sha256 {}  {}",
            version.checksum, version.digest
        )?;
    }
    out.flush()?;
    Ok(ExitStatus::Success)
}

#[allow(clippy::needless_pass_by_value)]
pub fn yank(args: YankArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let (name, version) = args.spec.split_once('@').ok_or_else(|| UserError {
        message: format!("`{}` is not NAME@VERSION", args.spec),
        hints: vec![],
    })?;
    let registry = args.registry.resolve(Path::new("."))?;
    let token = required_token(&registry)?;
    Client::new(&registry, Some(token))
        .yank(name, version, args.undo)
        .map_err(client_error)?;
    let mut err = printer.stderr();
    writeln!(
        err,
        "{} {name}@{version}",
        if args.undo { "Unyanked" } else { "Yanked" }
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}

#[allow(clippy::needless_pass_by_value)]
pub fn owner(args: OwnerArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    let token = client::token(&registry);
    let client = Client::new(&registry, token);
    let mut out = printer.stdout();
    match &args.command {
        OwnerCommand::List { name } => {
            for user in client.owners(name).map_err(client_error)?.users {
                writeln!(out, "{user}")?;
            }
        }
        OwnerCommand::Add { name, users } => {
            client
                .change_owners(name, users, true)
                .map_err(client_error)?;
            let mut err = printer.stderr();
            writeln!(err, "Added {} to the owners of `{name}`", users.join(", "))?;
            err.flush()?;
        }
        OwnerCommand::Remove { name, users } => {
            client
                .change_owners(name, users, false)
                .map_err(client_error)?;
            let mut err = printer.stderr();
            writeln!(
                err,
                "Removed {} from the owners of `{name}`",
                users.join(", ")
            )?;
            err.flush()?;
        }
    }
    out.flush()?;
    Ok(ExitStatus::Success)
}

/// `skills.lock`.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lockfile {
    pub version: u32,
    #[serde(default, rename = "skill")]
    pub skills: Vec<Locked>,
}

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locked {
    pub name: String,
    pub version: String,
    pub registry: String,
    pub sha256: String,
    pub digest: String,
    /// The folder it was installed into.
    pub dir: String,
}

fn read_lock(path: &Path) -> anyhow::Result<Lockfile> {
    match fs_err::read_to_string(path) {
        Ok(text) => toml::from_str(&text).map_err(|error| {
            UserError {
                message: format!("{}: {}", path.display(), error.message()),
                hints: vec!["fix or delete it".into()],
            }
            .into()
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Lockfile {
            version: 1,
            skills: Vec::new(),
        }),
        Err(error) => Err(error.into()),
    }
}

fn write_lock(path: &Path, lock: &Lockfile) -> anyhow::Result<()> {
    let mut sorted = lock.clone();
    sorted.version = 1;
    sorted
        .skills
        .sort_by(|a, b| (&a.dir, &a.name).cmp(&(&b.dir, &b.name)));
    let text = format!(
        "# Written by skillpkg install; do not edit.\n{}",
        toml::to_string(&sorted)?
    );
    fsx::write_atomically(
        path,
        text.as_bytes(),
        ".skills.lock-",
        // A project file, committed and shared: readable by all, like any other.
        fsx::Permissions::Mode(0o644),
    )?;
    Ok(())
}

/// Picks the version `requirement` asks for: a full version is exact (yanked allowed);
/// anything else is a semver requirement over versions that are not yanked.
fn choose<'a>(
    skill: &'a SkillInfo,
    requirement: Option<&str>,
) -> Option<&'a crate::registry::api::VersionInfo> {
    let exact = requirement
        .map(|r| r.strip_prefix('=').unwrap_or(r))
        .and_then(|r| semver::Version::parse(r.trim()).ok());
    if let Some(exact) = exact {
        return skill
            .versions
            .iter()
            .find(|v| semver::Version::parse(&v.version).ok().as_ref() == Some(&exact));
    }
    let requirement = semver::VersionReq::parse(requirement.unwrap_or("*")).ok()?;
    skill
        .versions
        .iter()
        .filter(|v| !v.yanked)
        .filter_map(|v| {
            semver::Version::parse(&v.version)
                .ok()
                .map(|parsed| (parsed, v))
        })
        .filter(|(parsed, _)| requirement.matches(parsed))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, v)| v)
}

#[allow(clippy::needless_pass_by_value)]
pub fn install(args: InstallArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let lock_path = PathBuf::from(LOCKFILE);
    let mut lock = read_lock(&lock_path)?;
    let folder = install_dir(&args)?;
    let folder_text = folder.to_string_lossy().replace('\\', "/");
    let mut err = printer.stderr();
    let mut changed = false;
    if args.names.is_empty() {
        install_from_lock(&lock, &mut err)?;
        return Ok(ExitStatus::Success);
    }
    let registry = args.registry.resolve(Path::new("."))?;
    let client = Client::new(&registry, None);
    let to = Destination {
        client: &client,
        registry: &registry,
        folder: &folder,
        folder_text: &folder_text,
        locked: args.locked,
    };
    // Whatever was installed before a failure is still recorded, so no folder is left orphaned.
    for spec in &args.names {
        match install_one(&to, spec, &mut lock, &mut err) {
            Ok(one) => changed |= one,
            Err(error) => {
                if changed {
                    write_lock(&lock_path, &lock)?;
                }
                return Err(error);
            }
        }
    }
    if changed {
        write_lock(&lock_path, &lock)?;
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// Where `install` puts skills, and from where.
struct Destination<'a> {
    client: &'a Client,
    registry: &'a str,
    folder: &'a Path,
    /// `folder` with `/` separators, as skills.lock records it.
    folder_text: &'a str,
    /// `--locked`: refuse to change skills.lock.
    locked: bool,
}

/// Installs one `NAME[@REQ]` and records it in `lock`; says whether `lock` changed.
fn install_one(
    to: &Destination<'_>,
    spec: &str,
    lock: &mut Lockfile,
    err: &mut impl Write,
) -> anyhow::Result<bool> {
    let (name, requirement) = match spec.split_once('@') {
        Some((name, requirement)) => (name, Some(requirement)),
        None => (spec, None),
    };
    let skill = to.client.info(name).map_err(client_error)?;
    let chosen = choose(&skill, requirement).ok_or_else(|| UserError {
        message: format!(
            "no version of `{name}` matches `{}`",
            requirement.unwrap_or("*")
        ),
        hints: vec![format!("`skillpkg info {name}` lists its versions")],
    })?;
    let entry = Locked {
        name: skill.name.clone(),
        version: chosen.version.clone(),
        registry: to.registry.to_owned(),
        sha256: chosen.checksum.clone(),
        digest: chosen.digest.clone(),
        dir: to.folder_text.to_owned(),
    };
    let existing = lock
        .skills
        .iter()
        .position(|locked| locked.name == entry.name && locked.dir == entry.dir);
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
    place(to.client, &entry, to.folder, lock)?;
    match existing {
        Some(index) => lock.skills[index] = entry.clone(),
        None => lock.skills.push(entry.clone()),
    }
    writeln!(
        err,
        "Installed {}@{} into {}/{}",
        entry.name, entry.version, to.folder_text, entry.name
    )?;
    Ok(changed)
}

/// `skillpkg install` with no names: exactly what skills.lock says, every digest verified.
fn install_from_lock(lock: &Lockfile, err: &mut impl Write) -> anyhow::Result<()> {
    if lock.skills.is_empty() {
        return Err(UserError {
            message: "nothing to install: skills.lock lists no skills".into(),
            hints: vec!["name the skills: `skillpkg install NAME`".into()],
        }
        .into());
    }
    for entry in lock.skills.clone() {
        let client = Client::new(&entry.registry, None);
        place(&client, &entry, Path::new(&entry.dir), lock)?;
        writeln!(
            err,
            "Installed {}@{} into {}/{} (verified against skills.lock)",
            entry.name, entry.version, entry.dir, entry.name
        )?;
    }
    err.flush()?;
    Ok(())
}

fn install_dir(args: &InstallArgs) -> anyhow::Result<PathBuf> {
    if let Some(dir) = &args.dir {
        return Ok(dir.clone());
    }
    let relative = if args.target.is_claude_code() {
        ".claude/skills"
    } else {
        ".agents/skills"
    };
    if args.global {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .ok_or_else(|| anyhow::anyhow!("cannot find the home folder"))?;
        return Ok(PathBuf::from(home).join(relative));
    }
    Ok(PathBuf::from(relative))
}

/// Downloads `entry`, verifies it against its `sha256` and `digest`, then extracts it as
/// `folder/name`, replacing only a folder skills.lock says skillpkg installed.
fn place(client: &Client, entry: &Locked, folder: &Path, lock: &Lockfile) -> anyhow::Result<()> {
    let bytes = client
        .download(&entry.name, &entry.version)
        .map_err(client_error)?;
    let (name, sha256, digest) = (
        entry.name.as_str(),
        entry.sha256.as_str(),
        entry.digest.as_str(),
    );
    let got = archive::hex(&Sha256::digest(&bytes));
    if got != sha256 {
        return Err(UserError {
            message: format!("the download of {name} does not match its checksum (expected {sha256}, got {got}); nothing was installed"),
            hints: vec!["the archive was altered on the way or on the registry; report it to the registry's operator".into()],
        }
        .into());
    }
    fs_err::create_dir_all(folder)?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".install")
        .tempdir_in(folder)?;
    let archive_file = staging.path().join("download.skill");
    fs_err::write(&archive_file, &bytes)?;
    let extracted = extract::extract(
        &archive_file,
        &staging.path().join("out"),
        name,
        false,
        Limits::default(),
    )
    .map_err(|error| UserError {
        message: format!("{name}: {error}"),
        hints: vec!["nothing was installed".into()],
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
    let got = &extracted.content_digest;
    if got != digest {
        return Err(UserError { message: format!("the contents of {name} do not match their digest (expected {digest}, got {got}); nothing was installed"), hints: vec![] }.into());
    }
    let destination = folder.join(name);
    if destination.exists() {
        let folder_text = folder.to_string_lossy().replace('\\', "/");
        let managed = lock
            .skills
            .iter()
            .any(|locked| locked.name == name && locked.dir == folder_text);
        if !managed {
            return Err(UserError {
                message: format!(
                    "`{}` exists and was not installed by skillpkg; nothing was changed",
                    destination.display()
                ),
                hints: vec!["move it away, or install into another folder with --dir".into()],
            }
            .into());
        }
        fs_err::remove_dir_all(&destination)?;
    }
    fs_err::rename(&extracted.dir, &destination)?;
    Ok(())
}
