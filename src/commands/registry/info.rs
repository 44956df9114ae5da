//! `skillpkg info`: a skill's versions and owners.

use std::io::Write;
use std::path::Path;

use super::{FormatFlag, RegistryFlag, client_error, print_json, reader};
use crate::commands::ExitStatus;
use crate::output::Printer;

/// Show a skill's versions, owners and checksums
///
/// Versions are listed newest first, with their dates, publishers and checksums; yanked ones
/// are marked. `latest` is what `skillpkg install NAME` picks: the newest stable version that
/// is not yanked.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg info pdf-forms
  skillpkg info pdf-forms --registry https://skills.example.com
  skillpkg info pdf-forms --format json")]
pub struct InfoArgs {
    /// The skill's name
    #[arg(value_name = "NAME")]
    pub name: String,
    #[command(flatten)]
    pub format: FormatFlag,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn info(args: InfoArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    let skill = reader(&registry, args.registry.registry.as_deref())?
        .info(&args.name)
        .map_err(client_error)?;
    // What `install NAME` picks: the newest stable version that is not yanked.
    let latest = skill.choose(None).map(|v| v.version.clone());
    if args.format.is_json() {
        #[derive(serde::Serialize)]
        struct Info<'a> {
            name: &'a str,
            description: &'a str,
            owners: &'a [String],
            latest: Option<&'a str>,
            versions: &'a [crate::registry::api::VersionInfo],
        }
        print_json(
            printer,
            &Info {
                name: &skill.name,
                description: &skill.description,
                owners: &skill.owners,
                latest: latest.as_deref(),
                versions: &skill.versions,
            },
        )?;
        return Ok(ExitStatus::Success);
    }
    let mut out = printer.stdout();
    writeln!(
        out,
        "{}: {}\nowners: {}\nlatest: {}\nversions:",
        skill.name,
        skill.description,
        skill.owners.join(", "),
        latest
            .as_deref()
            .unwrap_or("(no stable version that is not yanked)")
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
            "  {label:<width$}  {}  by {}  sha256 {}  {}",
            crate::dates::date(version.published_at),
            version.publisher,
            version.checksum,
            version.digest
        )?;
    }
    out.flush()?;
    Ok(ExitStatus::Success)
}
