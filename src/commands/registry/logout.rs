//! `skillpkg logout`: forget a registry's stored token.

use std::io::Write;
use std::path::Path;

use super::RegistryFlag;
use crate::commands::ExitStatus;
use crate::output::Printer;
use crate::registry::credentials;

/// Forget the token stored for a registry (by `skillpkg login`).
///
/// The token itself stays valid on the registry until an administrator revokes it
/// (`skillpkg registry token revoke`). Tokens of other registries are kept.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg logout --registry https://skills.example.com")]
pub struct LogoutArgs {
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn logout(args: LogoutArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    let removed = credentials::remove_token(&registry)?;
    let mut err = printer.status();
    match removed {
        Some(path) => writeln!(
            err,
            "Logged out of {registry}: its token is gone from {}",
            path.display()
        )?,
        None => writeln!(err, "No token was stored for {registry}; nothing to do")?,
    }
    if std::env::var("SKILLPKG_TOKEN").is_ok_and(|token| !token.trim().is_empty()) {
        writeln!(
            err,
            "note: SKILLPKG_TOKEN is set, and commands still use it: unset it too"
        )?;
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}
