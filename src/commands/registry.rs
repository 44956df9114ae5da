//! The marketplace commands: `registry serve`, `registry token create`, `login`, `publish`,
//! `search`, `info`, `install`, `yank` and `owner`.

use std::io::{IsTerminal as _, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use super::package::{self, Layout, PackageArgs};
use super::{ExitStatus, Refusal, UserError};
use crate::agent::Target;
use crate::check::config::{ConfigFinder, lexical_absolute};
use crate::fsx;
use crate::output::{Printer, plural};
use crate::pack::archive;
use crate::pack::build;
use crate::pack::extract::{self, Limits};
use crate::registry::api::SkillInfo;
use crate::registry::client::{Client, ClientError};
use crate::registry::credentials;
use crate::registry::lockfile::{self, FILE_NAME as LOCKFILE, Locked, Lockfile, MARKER, Marker};
use crate::registry::server::{self, Settings};

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
    ///
    /// https:// is checked against the system's certificates; for a registry with a private or
    /// self-signed certificate authority, set SKILLPKG_CA_FILE (or SSL_CERT_FILE) to a PEM file
    /// of the certificates to trust. Tokens are never sent over plain http:// except to
    /// localhost (SKILLPKG_ALLOW_HTTP_TOKEN=1 allows it on a trusted network).
    /// SKILLPKG_HTTP_TIMEOUT=SECONDS changes how long a silent registry is waited for (10 s to
    /// connect, 30 s for each answer).
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
fn required_token(registry: &str) -> anyhow::Result<String> {
    credentials::token(registry)?.ok_or_else(|| {
        UserError {
            message: format!("no token for {registry}"),
            hints: vec!["run `skillpkg login`, or set SKILLPKG_TOKEN".into()],
        }
        .into()
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
    let hints = if hint.is_empty() {
        &[][..]
    } else {
        &[hint][..]
    };
    if error.is_refusal() {
        Refusal::new(error.to_string(), hints).into()
    } else {
        UserError {
            message: error.to_string(),
            hints: hints.iter().map(|&hint| hint.to_owned()).collect(),
        }
        .into()
    }
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
    // Before asking for a token: one that could not be stored is not worth typing.
    credentials::check()?;
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
        .and_then(|client| client.me())
        .map_err(client_error)?;
    let path = credentials::store_token(&registry, &token)?;
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
        max_size: crate::agent::claude_ai::MAX_UPLOAD_BYTES,
    };
    let (dir, skill, targets) = package::locate(&package_args, &cwd)?;
    let refused = |error| package::refused(error, &cwd, printer, "publish");
    let validated = build::validate(skill, &targets).map_err(refused)?;
    let name = validated.name.clone();
    let version = args
        .version
        .clone()
        .or_else(|| validated.version.clone())
        .ok_or_else(|| UserError {
            message: "the skill has no version".into(),
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
            "warning: publishing as {given}, but SKILL.md says version {written}; the archive keeps SKILL.md as written"
        )?;
        err.flush()?;
    }
    let selection = build::select(
        &dir,
        None,
        &targets,
        crate::agent::claude_ai::MAX_UPLOAD_BYTES,
    )
    .map_err(refused)?;
    let temp = tempfile::Builder::new()
        .prefix("skillpkg-publish-")
        .tempdir()?;
    let archive_path = temp.path().join(format!("{name}-{version}.skill"));
    let summary = package::write_with_progress(&archive_path, &format!("{name}/"), &selection)
        .map_err(refused)?;
    let files = &selection.files;
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
    let client = Client::new(&registry, Some(token)).map_err(client_error)?;
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
            Err(Refusal::new(detail, &["bump the version in SKILL.md, or pass --version"]).into())
        }
        Err(error) => Err(client_error(error)),
    }
}

#[allow(clippy::needless_pass_by_value)]
pub fn search(args: SearchArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    let result = Client::new(&registry, None)
        .and_then(|client| client.search(&args.query, args.page))
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
        .and_then(|client| client.info(&args.name))
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
        .and_then(|client| client.yank(name, version, args.undo))
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
    let token = credentials::token(&registry)?;
    let client = Client::new(&registry, token).map_err(client_error)?;
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
    let scope = Scope::new(args.global)?;
    let mut lock = Lockfile::read(&scope.lock).map_err(|error| UserError {
        message: error.to_string(),
        hints: vec![format!(
            "skills.lock is written by skillpkg install; restore it from version control, or delete it and install again"
        )],
    })?;
    let mut err = printer.stderr();
    if args.names.is_empty() {
        install_from_lock(&scope, &lock, &mut err)?;
        return Ok(ExitStatus::Success);
    }
    let dir = install_dir(&args, &scope)?;
    let registry = args.registry.resolve(Path::new("."))?;
    let client = Client::new(&registry, None).map_err(client_error)?;
    let to = Destination {
        client: &client,
        registry: &registry,
        scope: &scope,
        dir: &dir,
        locked: args.locked,
    };
    // Whatever was installed before a failure is still recorded, so no folder is left orphaned.
    let mut changed = false;
    for spec in &args.names {
        match install_one(&to, spec, &mut lock, &mut err) {
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
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// Where a lockfile is and the root its folders are relative to: the project's `skills.lock`
/// in the current folder, or, for `--global`, the user's in skillpkg's config folder, whose
/// folders are relative to the home folder.
struct Scope {
    lock: PathBuf,
    root: PathBuf,
    global: bool,
}

impl Scope {
    fn new(global: bool) -> anyhow::Result<Self> {
        if !global {
            return Ok(Self {
                lock: PathBuf::from(LOCKFILE),
                root: std::env::current_dir()?,
                global,
            });
        }
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from)
            .filter(|home| home.is_absolute())
            .ok_or_else(|| anyhow::anyhow!("cannot find the home folder: set HOME"))?;
        let config = credentials::config_dir().ok_or_else(|| {
            anyhow::anyhow!("cannot find a config folder: set HOME or SKILLPKG_CONFIG_DIR")
        })?;
        // skillpkg's config folder also holds credentials: the user's eyes only.
        fsx::create_private_dir_all(&config)?;
        Ok(Self {
            lock: config.join(LOCKFILE),
            root: home,
            global,
        })
    }

    /// A folder relative to the root, as the user should see it.
    fn show(&self, relative: &Path) -> String {
        if self.global {
            self.root.join(relative).display().to_string()
        } else {
            relative.display().to_string()
        }
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
    // The folder is named by what the user asked for, never by what the registry answers.
    if !crate::pack::valid_skill_name(name) {
        return Err(UserError {
            message: format!("`{name}` is not a skill name"),
            hints: vec!["skill names are lowercase letters, digits and single hyphens".into()],
        }
        .into());
    }
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
    let chosen = choose(&skill, requirement).ok_or_else(|| UserError {
        message: format!(
            "no version of `{name}` matches `{}`",
            requirement.unwrap_or("*")
        ),
        hints: vec![format!("`skillpkg info {name}` lists its versions")],
    })?;
    let entry = Locked {
        name: name.to_owned(),
        version: chosen.version.clone(),
        registry: to.registry.to_owned(),
        sha256: chosen.checksum.clone(),
        digest: chosen.digest.clone(),
        dir: to.dir.to_owned(),
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
    let placed = place(
        to.client,
        &entry,
        &to.scope.root,
        previous.as_ref(),
        Some(chosen.size),
        !to.scope.global,
    )?;
    match existing {
        Some(index) => lock.skills[index] = entry.clone(),
        None => lock.skills.push(entry.clone()),
    }
    let shown = to.scope.show(&entry.folder());
    match placed {
        Placed::Installed => writeln!(
            err,
            "Installed {}@{} into {shown}",
            entry.name, entry.version
        )?,
        Placed::UpToDate => writeln!(
            err,
            "{}@{} is already installed in {shown}",
            entry.name, entry.version
        )?,
    }
    Ok(changed)
}

/// `skillpkg install` with no names: exactly what skills.lock says, every digest verified.
fn install_from_lock(scope: &Scope, lock: &Lockfile, err: &mut impl Write) -> anyhow::Result<()> {
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
        let client = Client::new(&entry.registry, None).map_err(client_error)?;
        let placed = place(
            &client,
            entry,
            &scope.root,
            Some(entry),
            None,
            !scope.global,
        )?;
        let shown = scope.show(&entry.folder());
        match placed {
            Placed::Installed => writeln!(
                err,
                "Installed {}@{} into {shown} (verified against skills.lock)",
                entry.name, entry.version
            )?,
            Placed::UpToDate => writeln!(
                err,
                "{}@{} is already installed in {shown} (its files match skills.lock)",
                entry.name, entry.version
            )?,
        }
    }
    err.flush()?;
    Ok(())
}

/// The skills folder to install into, relative to the scope's root and normalised: `--dir`
/// (which must be inside the project, since skills.lock records folders relative to it), else
/// the target agent's project or user folder.
fn install_dir(args: &InstallArgs, scope: &Scope) -> anyhow::Result<String> {
    let Some(dir) = &args.dir else {
        return Ok(if args.target.is_claude_code() {
            ".claude/skills"
        } else {
            ".agents/skills"
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
    let absolute = lexical_absolute(&scope.root, dir);
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

/// What [`place`] did.
enum Placed {
    Installed,
    /// The folder already holds exactly these files: nothing was downloaded.
    UpToDate,
}

/// What is at an install's destination, and whether skillpkg may replace it.
enum Present {
    Nothing,
    /// It holds exactly the files to install.
    UpToDate,
    /// skillpkg installed it and nobody changed it since: it may be replaced.
    Ours,
}

/// Whether the folder at `destination` may be replaced by `entry`: only with proof that
/// skillpkg installed it and nobody has changed it since (its files match the digest of its
/// marker, or of `previous`, what skills.lock recorded for it). Anything else (a folder the
/// user made, a link, an installed skill someone edited) is refused.
fn check_present(
    destination: &Path,
    shown: &str,
    entry: &Locked,
    previous: Option<&Locked>,
) -> anyhow::Result<Present> {
    let metadata = match fs_err::symlink_metadata(destination) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Present::Nothing),
        Err(error) => return Err(error.into()),
    };
    let current = if metadata.is_dir() {
        archive::folder_digest(destination, &[MARKER, ".DS_Store"], &Limits::default())?
    } else {
        None
    };
    if current.as_deref() == Some(entry.digest.as_str()) {
        return Ok(Present::UpToDate);
    }
    let marker = Marker::read(destination).filter(|marker| marker.name == entry.name);
    let ours = current.as_ref().is_some_and(|current| {
        marker
            .as_ref()
            .is_some_and(|marker| &marker.digest == current)
            || previous.is_some_and(|previous| &previous.digest == current)
    });
    if ours {
        return Ok(Present::Ours);
    }
    let message = if marker.is_some() {
        format!("`{shown}` was changed since skillpkg installed it; nothing was replaced")
    } else {
        format!("`{shown}` exists and was not installed by skillpkg; nothing was changed")
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
fn check_inside(root: &Path, folder: &Path, shown: &str) -> anyhow::Result<()> {
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
            "`{shown}` leads to `{}` through a symbolic link, outside the project; nothing was installed",
            real.display()
        ),
        hints: vec![
            "skills.lock and --dir may only name folders inside the project; replace the link with a folder".into(),
        ],
    }
    .into())
}

/// Installs `entry` into `root/entry.dir/entry.name`: downloads it, checks its `sha256` and
/// `digest`, extracts it into a staging folder with a [`Marker`], and renames it into place.
///
/// A folder already there is replaced only as [`check_present`] allows, checked before the
/// download and again just before the swap. With `contained` (a project's install), the folder
/// must stay inside `root` even through symbolic links ([`check_inside`]).
///
/// `size` is the archive's size as the registry announced it, when known; the download is
/// refused past it.
fn place(
    client: &Client,
    entry: &Locked,
    root: &Path,
    previous: Option<&Locked>,
    size: Option<u64>,
    contained: bool,
) -> anyhow::Result<Placed> {
    let name = entry.name.as_str();
    let relative_folder = entry
        .folder()
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let folder = root.join(&relative_folder);
    let destination = root.join(entry.folder());
    let shown = entry.folder().display().to_string();
    let limits = Limits::default();
    if contained {
        check_inside(root, &folder, &relative_folder.display().to_string())?;
    }
    let present = check_present(&destination, &shown, entry, previous)?;
    if matches!(present, Present::UpToDate) {
        return Ok(Placed::UpToDate);
    }
    fs_err::create_dir_all(&folder)?;
    if contained {
        check_inside(root, &folder, &relative_folder.display().to_string())?;
    }
    let mut staging = extract::Staging::new(&folder, name, ".install")?;
    let archive_file = staging.path().join("download.skill");
    let mut download = fs_err::File::create(&archive_file)?;
    let got = match size {
        Some(size) => client.download_at_most(name, &entry.version, size, download.file_mut()),
        None => client.download(name, &entry.version, download.file_mut()),
    }
    .map_err(client_error)?;
    drop(download);
    if got != entry.sha256 {
        return Err(UserError {
            message: format!("the download of {name} does not match its checksum (expected {}, got {got}); nothing was installed", entry.sha256),
            hints: vec!["the archive was altered on the way or on the registry; report it to the registry's operator".into()],
        }
        .into());
    }
    let options = extract::Options {
        limits,
        ..extract::Options::new(name)
    };
    let extracted = extract::extract(&archive_file, &staging.path().join("out"), &options)
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
    if *got != entry.digest {
        return Err(UserError { message: format!("the contents of {name} do not match their digest (expected {}, got {got}); nothing was installed", entry.digest), hints: vec![] }.into());
    }
    Marker {
        name: name.to_owned(),
        version: entry.version.clone(),
        digest: got.clone(),
    }
    .write(&extracted.dir)?;
    // Swap, with Ctrl-C held off: the old folder moves into the staging folder (removed with
    // it), the new one in; first, the old one must still be as it was (edits made during the
    // download are not lost).
    let new = extracted.dir.clone();
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
