//! The marketplace commands: `registry serve`, `registry token create`, `login`, `publish`,
//! `search`, `info`, `install`, `update`, `remove`, `list`, `yank` and `owner`.
//!
//! One file per command; what they share (where the registry is, its token, how its errors
//! read) is here.

mod admin;
mod info;
mod install;
mod install_from;
mod list;
mod login;
mod logout;
mod operate;
mod owner;
mod project;
mod publish;
mod remove;
mod search;
mod update;
mod yank;

pub use admin::{RegistryArgs, RegistryCommand, TokenCommand, registry};
pub use info::{InfoArgs, info};
pub use install::{InstallArgs, install};
pub use list::{ListArgs, list};
pub use login::{LoginArgs, login};
pub use logout::{LogoutArgs, logout};
pub use owner::{OwnerArgs, OwnerCommand, owner};
pub use project::OutputFormat;
pub use publish::{PublishArgs, publish};
pub use remove::{RemoveArgs, remove};
pub use search::{SearchArgs, search};
pub use update::{UpdateArgs, update};
pub use yank::{YankArgs, yank};

use std::path::Path;

use crate::check::config::ConfigFinder;
use crate::commands::{Refusal, UserError};
use crate::registry::client::{Client, ClientError};
use crate::registry::credentials;

/// Where the registry is: --registry, `SKILLPKG_REGISTRY`, or skillpkg.toml's `registry`.
#[derive(Debug, Clone, clap::Args)]
#[expect(
    clippy::doc_markdown,
    reason = "`--help` text, where backticks would show"
)]
pub struct RegistryFlag {
    /// The registry's URL [default: $SKILLPKG_REGISTRY, or `registry` in skillpkg.toml]
    ///
    /// https:// is checked against the system's certificates; for a registry with a private or
    /// self-signed certificate authority, set SKILLPKG_CA_FILE (or SSL_CERT_FILE) to a PEM file
    /// of the certificates to trust. Tokens are never sent over plain http:// except to
    /// localhost (SKILLPKG_ALLOW_HTTP_TOKEN=1 allows it on a trusted network).
    /// SKILLPKG_HTTP_TIMEOUT=SECONDS changes how long a silent registry is waited for (10 s to
    /// connect, 30 s for each answer).
    #[arg(long, global = true, value_name = "URL")]
    pub registry: Option<String>,
}

/// How a registry command prints what it found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text for people
    #[default]
    Human,
    /// One JSON document on stdout (the schema is in docs/registry.md)
    Json,
}

/// `--format`, accepted anywhere after the command.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct FormatFlag {
    /// Output format: human, or json (one document on stdout; schema in docs/registry.md)
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t,
        value_name = "FORMAT"
    )]
    pub format: Format,
}

impl FormatFlag {
    pub fn is_json(self) -> bool {
        self.format == Format::Json
    }
}

/// Writes `value` as pretty JSON and a newline on stdout.
fn print_json(
    printer: crate::output::Printer,
    value: &impl serde::Serialize,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = printer.stdout();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// A client for reads from `registry`, with the token a `--private` registry needs: the one
/// `skillpkg login` stored for that URL, or `SKILLPKG_TOKEN` only when `registry` is the one
/// the user named (`flag`, the command's `--registry`, or `SKILLPKG_REGISTRY`). A registry
/// named by a committed `skills.lock` or `skillpkg.toml` never gets the environment's token:
/// a hostile clone must not be able to collect a CI's publish token by listing its registry.
fn reader(registry: &str, flag: Option<&str>) -> anyhow::Result<Client> {
    let wanted = registry.trim_end_matches('/');
    let named = flag.map(str::to_owned).or_else(|| {
        std::env::var("SKILLPKG_REGISTRY")
            .ok()
            .filter(|url| !url.is_empty())
    });
    let token = if named.as_deref().map(|url| url.trim_end_matches('/')) == Some(wanted) {
        credentials::token(registry)?
    } else {
        credentials::stored_token(registry)?
    };
    Client::new(registry, token).map_err(client_error)
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

/// A destination's error as the command's: a refusal (exit 1) or a user error (exit 2).
pub(super) fn destination_error(error: crate::publish::Error) -> anyhow::Error {
    let hints: Vec<String> = Some(error.hint().to_owned())
        .filter(|hint| !hint.is_empty())
        .into_iter()
        .collect();
    match error {
        crate::publish::Error::Refused { message, .. } => Refusal { message, hints }.into(),
        crate::publish::Error::Failed { message, .. } => UserError { message, hints }.into(),
    }
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "called as `.map_err(client_error)`"
)]
fn client_error(error: ClientError) -> anyhow::Error {
    let with_scheme;
    let hint = match &error {
        ClientError::BadUrl(url) => {
            let host = url.split_once("://").map_or(url.as_str(), |(_, rest)| rest);
            let host = host.trim_start_matches('/');
            with_scheme = if host.is_empty()
                || host.contains(":/")
                || host.ends_with(':')
                || host.contains("//")
            {
                "write it as https://HOST or http://HOST:PORT".to_owned()
            } else {
                format!(
                    "write it with its scheme: https://{host} (or http://{host} for a registry on this machine or network)"
                )
            };
            with_scheme.as_str()
        }
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
