//! `skillpkg update`: move installed skills to the newest versions their recorded requirements
//! allow, as `cargo update` does, through the same verified path as `install`.

use super::client_error;
use super::install::{Fetch, Report, client_for, is_downgrade, place};
use super::project::{OutputFormat, Scope, known_names};
use crate::commands::{ExitStatus, UserError};
use crate::output::Printer;
use crate::registry::lockfile::{Locked, Lockfile};

/// Update installed skills to the newest versions their requirements allow.
///
/// For each skill skills.lock records (or each NAME), asks its registry for the newest version
/// that is not yanked and matches the requirement recorded when it was installed (`^1.2`,
/// `~1.4`, `*`; an exact `=1.2.0` stays where it is), installs it as `install` does (verified,
/// built beside the old folder and swapped in: a folder is the old one or the new one, never
/// half of each) and records it in skills.lock. A folder someone changed since it was
/// installed is not replaced. Entries of lockfiles from before requirements were recorded are
/// held at their version. To go past a requirement, install again: `skillpkg install NAME@^2`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg update                    # every skill in skills.lock
  skillpkg update pdf-forms notes    # only these
  skillpkg update --dry-run          # what would change; nothing is downloaded or written
  skillpkg update --global           # your user-level skills
  skillpkg update --format json      # the changes, as JSON on stdout")]
pub struct UpdateArgs {
    /// Skills to update (none: every skill in skills.lock)
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Say what would change, without downloading or writing anything
    #[arg(long)]
    pub dry_run: bool,
    /// Update the user-level skills (those `install --global` installed)
    #[arg(long)]
    pub global: bool,
    /// human: a line per skill, on stderr; json: one document on stdout (see docs/install.md)
    #[arg(
        long,
        value_enum,
        default_value = "human",
        value_name = "FORMAT",
        hide_possible_values = true
    )]
    pub format: OutputFormat,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn update(args: UpdateArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let scope = Scope::new(args.global)?;
    let mut lock = scope.read_lock()?;
    let names = known_names(&args.names, &lock, &scope)?;
    let fetch = Fetch::new(args.format, printer);
    let mut report = Report::new(args.format, printer);
    report.dry_run = Some(args.dry_run);
    if lock.skills.is_empty() {
        report.say(&format!(
            "Nothing to update: {} lists no skills",
            scope.lock.display()
        ))?;
        return report.finish(&scope, "update");
    }
    let chosen: Vec<usize> = (0..lock.skills.len())
        .filter(|&index| names.is_empty() || names.contains(&lock.skills[index].name.as_str()))
        .collect();
    // Whatever was updated before a failure is still recorded: its folder holds the new version.
    let mut changed = false;
    for index in chosen {
        match update_one(&scope, &mut lock, index, args.dry_run, &fetch, &mut report) {
            Ok(one) => changed |= one,
            Err(error) => {
                if changed {
                    lock.write(&scope.lock)?;
                }
                return Err(error);
            }
        }
    }
    if changed {
        lock.write(&scope.lock)?;
    }
    if args.dry_run {
        report.say("Dry run: nothing was downloaded or written")?;
    }
    report.finish(&scope, "update")
}

/// Updates the entry at `index` (unless `dry_run`) and reports it; says whether `lock` changed.
fn update_one(
    scope: &Scope,
    lock: &mut Lockfile,
    index: usize,
    dry_run: bool,
    fetch: &Fetch,
    report: &mut Report,
) -> anyhow::Result<bool> {
    let current = lock.skills[index].clone();
    let name = current.name.as_str();
    let requirement = current.requirement();
    // A skill installed in several folders is told apart by its folder.
    let label = if lock
        .skills
        .iter()
        .filter(|entry| entry.name == name)
        .count()
        > 1
    {
        format!("{name} in {}", scope.show(&current.folder()))
    } else {
        name.to_owned()
    };
    if let Some(source) = &current.source {
        let again = match &current.plugin {
            Some(plugin) => format!(
                "skillpkg install --from-marketplace {} {plugin}",
                current.registry
            ),
            None => format!("skillpkg install --from {} {name}", current.registry),
        };
        report.warn(format!(
            "{label} came from a {source} source, which offers one version; to take what it offers now, run `{again}`"
        ))?;
        report.record(&current, Some(&current.version), "up-to-date");
        return Ok(false);
    }
    let client = client_for(&current.registry, None)?;
    let skill = client.info(name).map_err(client_error)?;
    if skill.name != name {
        return Err(UserError {
            message: format!(
                "asked {} for `{name}`, it answered with `{}`; nothing was updated",
                current.registry,
                skill.name.escape_debug()
            ),
            hints: vec!["report it to the registry's operator".into()],
        }
        .into());
    }
    let newest = skill
        .choose(Some(&requirement))
        .filter(|chosen| chosen.version != current.version);
    let Some(chosen) = newest else {
        let yanked = skill
            .versions
            .iter()
            .any(|version| version.version == current.version && version.yanked);
        if yanked {
            report.warn(format!(
                "{name}@{} is yanked, and no other version matches `{requirement}`",
                current.version
            ))?;
        }
        report.say(&format!("{label} {} (up to date)", current.version))?;
        report.record(&current, Some(&current.version), "up-to-date");
        return Ok(false);
    };
    let entry = Locked {
        version: chosen.version.clone(),
        sha256: chosen.checksum.clone(),
        digest: chosen.digest.clone(),
        ..current.clone()
    };
    entry.check().map_err(|reason| UserError {
        message: format!("the registry's answer for `{name}` is not usable: {reason}"),
        hints: vec!["nothing was updated; report it to the registry's operator".into()],
    })?;
    if is_downgrade(&current.version, &entry.version) {
        report.warn(format!(
            "downgrading {name} {} → {}",
            current.version, entry.version
        ))?;
    }
    if !dry_run {
        place(
            &client,
            &entry,
            scope,
            Some(&current),
            Some(chosen.size),
            fetch,
        )?;
        lock.skills[index] = entry.clone();
    }
    report.say(&format!("{label} {} → {}", current.version, entry.version))?;
    report.record(&entry, Some(&current.version), "updated");
    Ok(!dry_run)
}
