//! `skillpkg yank`: hide a version from requirements, or undo it.

use std::io::Write;
use std::path::Path;

use super::{FormatFlag, RegistryFlag, client_error, print_json, required_token};
use crate::commands::{ExitStatus, UserError};
use crate::output::Printer;
use crate::registry::client::Client;

/// Yank a version (installs skip it unless pinned), or undo it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg yank pdf-forms@1.2.0
  skillpkg yank pdf-forms@1.2.0 --undo
  skillpkg yank pdf-forms@1.2.0 --format json")]
pub struct YankArgs {
    /// The version to yank, as NAME@VERSION
    #[arg(value_name = "NAME@VERSION")]
    pub spec: String,
    /// Unyank it instead
    #[arg(long)]
    pub undo: bool,
    #[command(flatten)]
    pub format: FormatFlag,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
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
    if args.format.is_json() {
        print_json(
            printer,
            &serde_json::json!({ "name": name, "version": version, "yanked": !args.undo }),
        )?;
    }
    let mut err = printer.status();
    writeln!(
        err,
        "{} {name}@{version}",
        if args.undo { "Unyanked" } else { "Yanked" }
    )?;
    err.flush()?;
    Ok(ExitStatus::Success)
}
