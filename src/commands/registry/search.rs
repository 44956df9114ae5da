//! `skillpkg search`.

use std::io::Write;
use std::path::Path;

use super::{RegistryFlag, client_error};
use crate::commands::ExitStatus;
use crate::output::{Printer, plural};
use crate::registry::client::Client;

/// Search the registry.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg search pdf
  skillpkg search \"release notes\" --page 2")]
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

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
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
