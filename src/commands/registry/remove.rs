//! `skillpkg remove`: delete installed skills and their lock entries, and nothing else.
//!
//! The lockfile is the only thing that says what may be deleted, and it is hostile input (see
//! [`crate::registry::lockfile`]): only a folder an entry records is touched, after the checks
//! `install` makes before it replaces one: the entry is valid, the folder stays inside the
//! project through symbolic links, and its files are as skillpkg installed them. Every folder
//! is checked before any is touched; each is then moved aside into a staging folder, the lock
//! is written, and only then are the moved folders deleted (put back if the lock cannot be
//! written).

use std::io::Write as _;

use serde::Serialize;

use super::install::{Ownership, check_inside, ownership};
use super::project::{self, JsonHead, OutputFormat, Scope, SkillJson, known_names};
use crate::commands::{ExitStatus, Refusal};
use crate::output::Printer;
use crate::pack::extract::Staging;
use crate::registry::lockfile::Locked;

/// Remove installed skills: their folders and their entries in skills.lock.
///
/// Only a folder skills.lock records is deleted, and only while its files are as skillpkg
/// installed them: a skill someone edited since is left alone (and nothing is removed), so that
/// no work is lost. An entry whose folder is already gone is just dropped from skills.lock.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg remove pdf-forms
  skillpkg remove pdf-forms notes      # several at once: all of them or none
  skillpkg remove notes --global       # a user-level skill
  skillpkg remove notes --format json  # what was removed, as JSON on stdout")]
pub struct RemoveArgs {
    /// Skills to remove, as skills.lock names them (`skillpkg list` shows them)
    #[arg(value_name = "NAME", required = true)]
    pub names: Vec<String>,
    /// Remove user-level skills (those `install --global` installed)
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

/// One removed skill in the JSON document.
#[derive(Debug, Serialize)]
struct RemovedJson {
    #[serde(flatten)]
    skill: SkillJson,
    /// Whether a folder was deleted (false: it was already gone; only the entry was dropped).
    deleted: bool,
}

#[derive(Serialize)]
struct RemoveJson {
    #[serde(flatten)]
    head: JsonHead,
    skills: Vec<RemovedJson>,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn remove(args: RemoveArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let scope = Scope::new(args.global)?;
    let mut lock = scope.read_lock()?;
    let names = known_names(&args.names, &lock, &scope)?;
    let doomed: Vec<Locked> = lock
        .skills
        .iter()
        .filter(|entry| names.contains(&entry.name.as_str()))
        .cloned()
        .collect();
    // Every folder is checked before any is touched.
    let mut present = Vec::with_capacity(doomed.len());
    for entry in &doomed {
        present.push(check_removable(&scope, entry)?);
    }
    // Each folder moves into a staging folder beside it (Ctrl-C held off while it does).
    let mut moved: Vec<(Staging, std::path::PathBuf)> = Vec::new();
    for (entry, &there) in doomed.iter().zip(&present) {
        if !there {
            continue;
        }
        let destination = scope.root.join(entry.folder());
        let parent = crate::fsx::parent_or_dot(&destination).to_path_buf();
        let mut staging = Staging::new(&parent, &entry.name, ".install")?;
        let result = staging.commit(|staged| {
            // Checked again: the folder must still be as it was a moment ago.
            match check_removable(&scope, entry) {
                Ok(true) => {}
                Ok(false) => return Ok(Ok(())),
                Err(error) => return Ok(Err(error)),
            }
            fs_err::rename(&destination, staged.join("previous"))?;
            Ok(Ok(()))
        });
        match result {
            Ok(Ok(())) => moved.push((staging, destination)),
            Ok(Err(error)) => {
                put_back(&moved);
                return Err(error);
            }
            Err(error) => {
                put_back(&moved);
                return Err(anyhow::anyhow!("{}: {error}", entry.name));
            }
        }
    }
    lock.skills
        .retain(|entry| !names.contains(&entry.name.as_str()));
    if let Err(error) = lock.write(&scope.lock) {
        put_back(&moved);
        return Err(error.into());
    }
    // Dropping the staging folders deletes what was moved into them.
    drop(moved);
    let mut err = printer.status();
    let mut removed = Vec::new();
    for (entry, deleted) in doomed.iter().zip(present) {
        let shown = scope.show(&entry.folder());
        if args.format == OutputFormat::Human {
            if deleted {
                writeln!(err, "Removed {}@{} from {shown}", entry.name, entry.version)?;
            } else {
                writeln!(
                    err,
                    "Removed {}@{} from {} ({shown} was already gone)",
                    entry.name,
                    entry.version,
                    scope.lock.display()
                )?;
            }
        }
        removed.push(RemovedJson {
            skill: entry.into(),
            deleted,
        });
    }
    err.flush()?;
    if args.format == OutputFormat::Json {
        let document = RemoveJson {
            head: scope.json_head("remove"),
            skills: removed,
        };
        project::print_json(&document, printer)?;
    }
    Ok(ExitStatus::Success)
}

/// Whether `entry`'s folder is there to delete (false: already gone), or why it must not be.
fn check_removable(scope: &Scope, entry: &Locked) -> anyhow::Result<bool> {
    let destination = scope.root.join(entry.folder());
    let shown = scope.show(&entry.folder());
    if !scope.global {
        check_inside(&scope.root, &destination, &shown)?;
    }
    let reason = match ownership(&destination, entry, Some(entry))? {
        Ownership::Nothing => return Ok(false),
        Ownership::Matches | Ownership::Ours => return Ok(true),
        Ownership::Changed => "its files were changed since skillpkg installed it",
        Ownership::Foreign => "skillpkg did not install what is there now",
    };
    Err(Refusal {
        message: format!("`{shown}`: {reason}; nothing was removed"),
        hints: vec![format!(
            "keep what you need from it and delete it yourself; then `skillpkg remove {}` drops its entry from skills.lock",
            entry.name
        )],
    }
    .into())
}

/// Moves folders that were moved aside back where they were.
fn put_back(moved: &[(Staging, std::path::PathBuf)]) {
    for (staging, destination) in moved {
        let _ = fs_err::rename(staging.path().join("previous"), destination);
    }
}
