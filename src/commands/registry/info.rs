//! `skillpkg info`: a skill's versions and owners.

use std::io::Write;
use std::path::Path;

use super::{RegistryFlag, client_error};
use crate::commands::ExitStatus;
use crate::output::Printer;
use crate::registry::client::Client;

/// Show a skill's versions (with yanked ones marked) and owners.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg info pdf-forms
  skillpkg info pdf-forms --registry https://skills.example.com")]
pub struct InfoArgs {
    /// The skill's name
    #[arg(value_name = "NAME")]
    pub name: String,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
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
