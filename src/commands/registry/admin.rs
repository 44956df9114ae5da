//! `skillpkg registry serve` and `skillpkg registry token`: run and administer a registry.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use super::operate::{self, StoreArgs};
use crate::commands::{ExitStatus, Refusal, UserError};
use crate::dates::now;
use crate::output::Printer;
use crate::registry::server::{self, DownloadMode, Settings, TlsFiles, TokenOptions};
use crate::registry::store::{Location, OnOpen, Revoked, Scope};

/// Run or administer a registry.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg registry serve --data /srv/skills --addr 0.0.0.0:8080
  skillpkg registry serve --addr 0.0.0.0:443 --tls-cert cert.pem --tls-key key.pem --private
  skillpkg registry token create --data /srv/skills --user alice
  skillpkg registry token create --user ci --scope read --expires 90d --label \"CI installs\"
  skillpkg registry token list --data /srv/skills
  skillpkg registry token revoke --data /srv/skills 3f2a9c
  skillpkg registry serve --config /etc/skillpkg/registry.toml --download redirect
  skillpkg registry gc --config /etc/skillpkg/registry.toml
  skillpkg registry export --data /srv/skills backup/
  skillpkg registry import --config /etc/skillpkg/registry.toml backup/")]
pub struct RegistryArgs {
    #[command(subcommand)]
    pub command: RegistryCommand,
}

#[derive(Debug, clap::Subcommand)]
#[expect(
    clippy::doc_markdown,
    reason = "`--help` text, where backticks would show"
)]
pub enum RegistryCommand {
    /// Serve a registry: SQLite metadata and archive blobs under --data, or PostgreSQL and
    /// S3-compatible storage shared by several servers
    Serve {
        #[command(flatten)]
        store: StoreArgs,
        /// Do not apply the database's missing migrations at start: refuse to start instead
        /// (run `skillpkg registry migrate` first, once, when several servers share a database)
        #[arg(long)]
        no_migrate: bool,
        /// How downloads are served: proxy (the bytes pass through this server) or redirect (a
        /// 307 to a presigned URL of the S3 store, valid 5 minutes; a folder store proxies)
        #[arg(long, value_enum, value_name = "HOW", default_value_t = DownloadMode::Proxy)]
        download: DownloadMode,
        /// The address to listen on: an IP address or a host name, and a port (0 picks a free
        /// one; the URL is printed)
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
        addr: String,
        /// The largest archive accepted, in bytes
        #[arg(long, value_name = "BYTES", default_value_t = 50 * 1024 * 1024)]
        max_upload: u64,
        /// The public URL in links and install commands [default: http://<addr>, or https://
        /// with --tls-cert]
        #[arg(long, value_name = "URL")]
        public_url: Option<String>,
        /// Serve HTTPS with this certificate chain (PEM, leaf first); needs --tls-key. For a
        /// small deployment: behind a load balancer or proxy, let it terminate TLS instead
        #[arg(long, value_name = "FILE", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1)
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// Make every read (search, info, downloads and the web pages) need a token with the
        /// `read` scope. The API takes it as `Authorization: Bearer`; a browser asks for it (any
        /// user name, the token as the password)
        #[arg(long)]
        private: bool,
        #[command(flatten)]
        connections: server::ConnectionLimits,
    },
    /// Create, list and revoke tokens (run against the registry's stores: --data, or
    /// --database)
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Apply the database's missing schema migrations (serve does it at start unless
    /// --no-migrate) and report its schema
    Migrate {
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Find archives no version refers to (left by an interrupted publish) and, with
    /// --delete, remove them; lists them by default
    Gc(operate::GcArgs),
    /// Copy a whole registry (metadata and archives, every checksum verified) into a folder,
    /// to import elsewhere: from SQLite to PostgreSQL, or as a backup
    Export(operate::ExportArgs),
    /// Load a folder written by `registry export` into an empty registry, verifying every
    /// archive's checksum
    Import(operate::ImportArgs),
}

#[derive(Debug, clap::Subcommand)]
pub enum TokenCommand {
    /// Create a token for a user and print it once (only its hash is stored)
    ///
    /// The user is created with their first token. Give the token to them; they run
    /// `skillpkg login` with it.
    Create {
        #[command(flatten)]
        store: StoreArgs,
        /// Who the token acts as: the name owners and publishers are shown by
        #[arg(long, value_name = "NAME")]
        user: String,
        /// What the token may do: publish, yank, owners, read (repeat or separate with commas)
        /// [default: all four]
        #[arg(long = "scope", value_name = "SCOPE", value_delimiter = ',', value_parser = parse_scope)]
        scopes: Vec<Scope>,
        /// When it stops working: a duration from now (12h, 90d, 4w) or a date (2027-01-31,
        /// midnight UTC) [default: never]
        #[arg(long, value_name = "WHEN")]
        expires: Option<String>,
        /// A note shown by `token list`, such as what the token is for
        #[arg(long, value_name = "TEXT", default_value = "")]
        label: String,
    },
    /// List tokens: id, user, scopes, dates (never the tokens themselves)
    List {
        #[command(flatten)]
        store: StoreArgs,
        /// Only this user's tokens
        #[arg(long, value_name = "NAME")]
        user: Option<String>,
        /// Output format: human, or json (an array; see docs/registry.md)
        #[arg(long, value_enum, default_value_t = ListFormat::Human)]
        format: ListFormat,
    },
    /// Revoke a token by its id (as `token list` shows it, or its first few characters); it is
    /// refused from then on
    Revoke {
        #[command(flatten)]
        store: StoreArgs,
        /// The token's id, or enough of its start to name one token
        #[arg(value_name = "ID")]
        id: String,
    },
}

/// How `token list` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    Human,
    Json,
}

fn parse_scope(text: &str) -> Result<Scope, String> {
    Scope::parse(text.trim()).ok_or_else(|| {
        format!("`{text}` is not a scope; the scopes are publish, yank, owners and read")
    })
}

/// When `--expires WHEN` is, in seconds since the Unix epoch, from `now`.
fn expiry(when: &str, now: i64) -> anyhow::Result<i64> {
    let bad = || UserError {
        message: format!("--expires `{when}` is neither a duration nor a date"),
        hints: vec!["write a duration such as 12h, 90d or 4w, or a date such as 2027-01-31".into()],
    };
    let when = when.trim();
    if let Some(at) = crate::dates::parse_date(when) {
        if at <= now {
            return Err(UserError {
                message: format!("--expires {when} is in the past"),
                hints: vec!["give a later date, or a duration such as 90d".into()],
            }
            .into());
        }
        return Ok(at);
    }
    let split = when.len().checked_sub(1).ok_or_else(bad)?;
    let (number, unit) = when.split_at(split);
    let number: i64 = number.parse().map_err(|_| bad())?;
    let unit = match unit {
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad().into()),
    };
    if number <= 0 {
        return Err(bad().into());
    }
    number
        .checked_mul(unit)
        .and_then(|seconds| now.checked_add(seconds))
        .ok_or_else(|| bad().into())
}

/// The socket address `--addr` names: `127.0.0.1:8080`, `[::1]:8080`, or a host name such as
/// `localhost:8080` (its first IPv4 address, else its first address).
fn listen_address(addr: &str) -> anyhow::Result<SocketAddr> {
    use std::net::ToSocketAddrs as _;
    let bad = |why: String| UserError {
        message: format!("--addr `{addr}`: {why}"),
        hints: vec!["pass HOST:PORT, such as 127.0.0.1:8080, localhost:8080 or [::]:443".into()],
    };
    if !addr.contains(':') {
        return Err(bad("no port".into()).into());
    }
    if addr.starts_with(':') {
        return Err(UserError {
            message: format!("--addr `{addr}` has no host"),
            hints: vec![format!(
                "write the host too: 127.0.0.1{addr} (this machine only) or 0.0.0.0{addr} (every interface)"
            )],
        }
        .into());
    }
    let found: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|error| bad(error.to_string()))?
        .collect();
    found
        .iter()
        .find(|candidate| candidate.is_ipv4())
        .or_else(|| found.first())
        .copied()
        .ok_or_else(|| bad("the name has no address".into()).into())
}

pub fn registry(args: RegistryArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    match args.command {
        RegistryCommand::Serve {
            store,
            no_migrate,
            download,
            addr,
            max_upload,
            public_url,
            tls_cert,
            tls_key,
            private,
            connections,
        } => {
            let addr = listen_address(&addr)?;
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?;
            runtime
                .block_on(server::serve(Settings {
                    location: store.location()?,
                    on_open: if no_migrate {
                        OnOpen::Require
                    } else {
                        OnOpen::Migrate
                    },
                    download,
                    addr,
                    max_upload,
                    base_url: public_url,
                    connections,
                    private,
                    tls: tls_cert
                        .zip(tls_key)
                        .map(|(cert, key)| TlsFiles { cert, key }),
                }))
                .map_err(
                    |error| match error.downcast::<crate::registry::ServeError>() {
                        Ok(serve) => UserError {
                            message: serve.message,
                            hints: vec![serve.hint.to_owned()],
                        }
                        .into(),
                        Err(error) => error,
                    },
                )?;
            Ok(ExitStatus::Success)
        }
        RegistryCommand::Token { command } => match command {
            TokenCommand::Create {
                store,
                user,
                scopes,
                expires,
                label,
            } => create(
                &store.location()?,
                &user,
                scopes,
                expires.as_deref(),
                label,
                printer,
            ),
            TokenCommand::List {
                store,
                user,
                format,
            } => list(&store.location()?, user.as_deref(), format, printer),
            TokenCommand::Revoke { store, id } => revoke(&store.location()?, &id, printer),
        },
        RegistryCommand::Migrate { store } => operate::migrate(&store.location()?, printer),
        RegistryCommand::Gc(args) => operate::gc(&args, printer),
        RegistryCommand::Export(args) => operate::export(&args, printer),
        RegistryCommand::Import(args) => operate::import(&args, printer),
    }
}

/// `registry token create`.
fn create(
    location: &Location,
    user: &str,
    scopes: Vec<Scope>,
    expires: Option<&str>,
    label: String,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    if user.trim().is_empty() || user.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UserError {
            message: format!("`{user}` is not a user name"),
            hints: vec![],
        }
        .into());
    }
    if label.chars().count() > 200 || label.chars().any(char::is_control) {
        return Err(UserError {
            message: "--label is at most 200 characters, on one line".into(),
            hints: vec![],
        }
        .into());
    }
    let now = now();
    let expires_at = expires.map(|when| expiry(when, now)).transpose()?;
    let scopes = if scopes.is_empty() {
        Scope::ALL.to_vec()
    } else {
        scopes
    };
    let options = TokenOptions {
        label,
        scopes,
        expires_at,
    };
    let token = server::create_token(location, user, &options)?;
    let mut out = printer.stdout();
    writeln!(out, "{token}")?;
    out.flush()?;
    let mut err = printer.status();
    let until = expires_at.map_or_else(
        || "it does not expire".to_owned(),
        |at| format!("it expires {}", crate::dates::date_time(at)),
    );
    writeln!(
        err,
        "Created a token for `{user}` (id {}, may {}; {until}). It is shown once; the registry keeps only its hash.",
        &server::token_hash(&token)[..crate::registry::store::TOKEN_ID_LEN],
        Scope::join(&options.scopes).replace(',', ", "),
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// `registry token list`.
fn list(
    location: &Location,
    user: Option<&str>,
    format: ListFormat,
    printer: Printer,
) -> anyhow::Result<ExitStatus> {
    let tokens = server::list_tokens(location, user)?;
    let mut out = printer.stdout();
    if format == ListFormat::Json {
        serde_json::to_writer_pretty(&mut out, &tokens)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(ExitStatus::Success);
    }
    let now = now();
    for token in &tokens {
        let state = match (token.revoked_at, token.expires_at) {
            (Some(at), _) => format!("revoked {}", crate::dates::date(at)),
            (None, Some(at)) if at <= now => format!("expired {}", crate::dates::date(at)),
            (None, Some(at)) => format!("expires {}", crate::dates::date(at)),
            (None, None) => "no expiry".to_owned(),
        };
        let label = if token.label.is_empty() {
            String::new()
        } else {
            format!("  \"{}\"", token.label)
        };
        writeln!(
            out,
            "{}  {}  {}  created {}  {state}{label}",
            token.id,
            token.user,
            token.scopes.join(","),
            crate::dates::date(token.created_at),
        )?;
    }
    out.flush()?;
    let mut err = printer.status();
    writeln!(
        err,
        "{} {}",
        tokens.len(),
        crate::output::plural(tokens.len(), "token", "tokens")
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// `registry token revoke`.
fn revoke(location: &Location, id: &str, printer: Printer) -> anyhow::Result<ExitStatus> {
    match server::revoke_token(location, id)? {
        Revoked::Done { user, id } => {
            let mut err = printer.status();
            writeln!(
                err,
                "Revoked token {id} of `{user}`; it is refused from now on."
            )?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
        Revoked::Already { id } => {
            let mut err = printer.status();
            writeln!(err, "Token {id} was already revoked.")?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
        Revoked::NotFound => Err(Refusal::new(
            format!("no token's id starts with `{id}`"),
            &["`skillpkg registry token list` shows the ids"],
        )
        .into()),
        Revoked::Ambiguous(ids) => Err(Refusal::new(
            format!(
                "`{id}` starts several tokens' ids ({}): give more of it",
                ids.join(", ")
            ),
            &[],
        )
        .into()),
    }
}
