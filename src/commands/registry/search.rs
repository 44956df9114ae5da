//! `skillpkg search`.

use std::io::Write;
use std::path::Path;

use super::{FormatFlag, RegistryFlag, client_error, print_json, reader};
use crate::commands::ExitStatus;
use crate::output::{Printer, plural};

/// Search the registry by words, best matches first
///
/// Every word must occur in a skill's name, description or keywords. Results are ranked: the exact name first, then names that start with the words, then by how
/// well the words match, then by downloads. Each shows its newest stable version (what
/// `skillpkg install NAME` picks); --pre also shows newer pre-releases.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg search pdf
  skillpkg search team finance          # both words, anywhere
  skillpkg search \"release notes\" --page 2
  skillpkg search pdf --format json")]
pub struct SearchArgs {
    /// Words to look for (all must match, in any order; case does not matter)
    #[arg(value_name = "WORDS", num_args = 0..)]
    pub words: Vec<String>,
    /// Which page of results (20 per page)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub page: u64,
    /// Also show pre-releases (such as 2.0.0-rc.1) newer than the newest stable version
    #[arg(long)]
    pub pre: bool,
    #[command(flatten)]
    pub format: FormatFlag,
    #[command(flatten)]
    pub registry: RegistryFlag,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn search(args: SearchArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let registry = args.registry.resolve(Path::new("."))?;
    let query = args.words.join(" ");
    let page = usize::try_from(args.page).unwrap_or(usize::MAX);
    let mut result = reader(&registry, args.registry.registry.as_deref())?
        .search(&query, page)
        .map_err(client_error)?;
    if !args.pre {
        for hit in &mut result.skills {
            hit.prerelease = None;
        }
    }
    if args.format.is_json() {
        print_json(printer, &result)?;
        return Ok(ExitStatus::Success);
    }
    let mut out = printer.stdout();
    for hit in &result.skills {
        let version = match (&hit.latest, &hit.prerelease) {
            (Some(latest), Some(pre)) => format!("{latest} (pre-release {pre})"),
            (Some(latest), None) => latest.clone(),
            (None, Some(pre)) => format!("{pre} (pre-release)"),
            (None, None) => "(no stable version)".to_owned(),
        };
        writeln!(out, "{} {version} — {}", hit.name, hit.description)?;
    }
    out.flush()?;
    let mut err = printer.stderr();
    let shown = if query.trim().is_empty() {
        String::new()
    } else {
        format!(" `{query}`")
    };
    let skills = plural(result.total, "skill", "skills");
    if result.total == 0 {
        writeln!(err, "No skills match{shown}")?;
    } else if result.skills.is_empty() {
        writeln!(
            err,
            "Page {} is past the end: {} {skills} match{}, on {} {}",
            result.page,
            result.total,
            if result.total == 1 { "es" } else { "" },
            pages(result.total, result.per_page),
            plural(pages(result.total, result.per_page), "page", "pages"),
        )?;
    } else if result.page == 1 && !result.has_more() {
        writeln!(err, "{} {skills}", result.total)?;
    } else {
        let first = (result.page - 1) * result.per_page + 1;
        let last = first + result.skills.len() - 1;
        let more = if result.has_more() {
            format!("; --page {} for more", result.page + 1)
        } else {
            String::new()
        };
        writeln!(
            err,
            "{first}–{last} of {} {skills} (page {} of {}{more})",
            result.total,
            result.page,
            pages(result.total, result.per_page),
        )?;
    }
    err.flush()?;
    Ok(ExitStatus::Success)
}

/// How many pages `total` hits fill.
fn pages(total: usize, per_page: usize) -> usize {
    total.div_ceil(per_page.max(1)).max(1)
}
