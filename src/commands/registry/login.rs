//! `skillpkg login`: store a registry token.

use std::io::{IsTerminal as _, Write};
use std::path::Path;

use super::{RegistryFlag, client_error};
use crate::commands::{ExitStatus, UserError};
use crate::output::Printer;
use crate::registry::client::Client;
use crate::registry::credentials;

/// Store a registry token for publish, yank and owner changes.
///
/// Reads the token from standard input (or $SKILLPKG_TOKEN), checks it with the registry, and
/// stores it, per registry, in skillpkg's config folder with mode 0600. On a terminal the
/// token is not echoed as it is typed (or pasted).
#[derive(Debug, clap::Args)]
#[expect(
    clippy::doc_markdown,
    reason = "`--help` text, where backticks would show"
)]
#[command(after_help = "Examples:
  skillpkg login --registry https://skills.example.com      # asks for the token
  echo \"$TOKEN\" | skillpkg login --registry https://skills.example.com")]
pub struct LoginArgs {
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn login(args: LoginArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    // Before asking for a token: one that could not be stored is not worth typing.
    credentials::check()?;
    let from_env = std::env::var("SKILLPKG_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty());
    let token = if let Some(token) = from_env {
        token
    } else if std::io::stdin().is_terminal() {
        // Read from the terminal with echo off, so the token never shows on screen (or in a
        // screen recording, or the scrollback).
        rpassword::prompt_password(format!("Token for {registry} (not shown as you type): "))?
    } else {
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
    let mut err = printer.status();
    let may = if me.scopes.is_empty() {
        String::new()
    } else {
        format!(" (it may {})", me.scopes.join(", "))
    };
    let until = me.expires_at.map_or_else(String::new, |at| {
        format!("; it expires {}", crate::dates::date_time(at))
    });
    writeln!(
        err,
        "Logged in to {registry} as `{}`{may}; the token is in {}{until}",
        me.user,
        path.display()
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}
