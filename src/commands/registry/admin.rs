//! `skillpkg registry serve` and `skillpkg registry token`: run and administer a registry.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use crate::commands::{ExitStatus, UserError};
use crate::output::Printer;
use crate::registry::server::{self, Settings};

/// Run or administer a registry.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg registry serve --data /srv/skills --addr 0.0.0.0:8080
  skillpkg registry token create --data /srv/skills --user alice")]
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
    /// Serve a registry: SQLite metadata and archive blobs under --data
    Serve {
        /// Where the registry keeps its database and archives
        #[arg(long, value_name = "DIR", default_value = "registry-data")]
        data: PathBuf,
        /// The address to listen on: an IP address or a host name, and a port (0 picks a free
        /// one; the URL is printed)
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
        addr: String,
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
            data,
            addr,
            max_upload,
            public_url,
            connections,
        } => {
            let addr = listen_address(&addr)?;
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?;
            runtime
                .block_on(server::serve(Settings {
                    data,
                    addr,
                    max_upload,
                    base_url: public_url,
                    connections,
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
            let mut err = printer.status();
            writeln!(
                err,
                "Created a token for `{user}`. It is shown once; the registry keeps only its hash."
            )?;
            err.flush()?;
            Ok(ExitStatus::Success)
        }
    }
}
