//! `skillpkg list`: the skills skills.lock records and, when their registries answer, which
//! are outdated or yanked.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write as _;

use serde::Serialize;

use super::install::client_for;
use super::project::{self, JsonHead, OutputFormat, Scope, SkillJson};
use crate::commands::ExitStatus;
use crate::output::{Printer, plural};
use crate::registry::api::SkillInfo;
use crate::registry::client::ClientError;
use crate::registry::lockfile::Locked;

/// List installed skills, and which are outdated or yanked.
///
/// Shows each skill skills.lock records: name, version, the requirement `update` follows, and
/// folder. Each skill's registry is asked about it: a skill is outdated when a newer version
/// matches its requirement (`skillpkg update` installs it), and the newest version is shown too
/// when it lies beyond the requirement (`skillpkg install NAME@REQ` moves to it); it is yanked
/// when its locked version was yanked. With --offline, or when a registry cannot be reached
/// (said on stderr), skills are listed from skills.lock alone.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg list
  skillpkg list --offline        # from skills.lock alone, without asking any registry
  skillpkg list --global         # your user-level skills
  skillpkg list --format json    # as JSON on stdout, for scripts")]
pub struct ListArgs {
    /// Do not ask the registries: list from skills.lock alone
    #[arg(long)]
    pub offline: bool,
    /// List the user-level skills (those `install --global` installed)
    #[arg(long)]
    pub global: bool,
    /// human: a table on stdout; json: one document on stdout (see docs/install.md)
    #[arg(
        long,
        value_enum,
        default_value = "human",
        value_name = "FORMAT",
        hide_possible_values = true
    )]
    pub format: OutputFormat,
}

/// One listed skill in the JSON document.
#[derive(Debug, Serialize)]
struct ListedJson {
    #[serde(flatten)]
    skill: SkillJson,
    /// Whether its registry was asked (false with --offline or when it could not be reached).
    checked: bool,
    /// The newest version that matches the requirement and is not yanked (an exact requirement
    /// matches its version, yanked or not); null when unchecked or none does.
    latest_matching: Option<String>,
    /// The newest version that is not yanked (pre-releases aside), whatever the requirement.
    latest: Option<String>,
    /// `latest_matching` is newer than the locked version: `skillpkg update` would install it.
    outdated: Option<bool>,
    /// The locked version is yanked.
    yanked: Option<bool>,
}

#[derive(Serialize)]
struct ListJson {
    #[serde(flatten)]
    head: JsonHead,
    offline: bool,
    skills: Vec<ListedJson>,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn list(args: ListArgs, printer: Printer) -> anyhow::Result<ExitStatus> {
    let scope = Scope::new(args.global)?;
    let lock = scope.read_lock()?;
    let mut unreachable: HashSet<&str> = HashSet::new();
    let mut listed = Vec::with_capacity(lock.skills.len());
    for entry in &lock.skills {
        // A site or a marketplace is not a registry: it has no versions to ask about.
        let info = if args.offline
            || entry.source.is_some()
            || unreachable.contains(entry.registry.as_str())
        {
            None
        } else {
            match ask(entry) {
                Ok(info) => Some(info),
                Err(error) => {
                    let reachable = matches!(error, ClientError::Status { .. });
                    let what = if reachable {
                        format!("{}; listing {} from skills.lock alone", error, entry.name)
                    } else {
                        unreachable.insert(&entry.registry);
                        format!("{error}; listing from skills.lock alone")
                    };
                    project::warn(printer, &what)?;
                    None
                }
            }
        };
        listed.push(listed_json(entry, info.as_ref()));
    }
    if args.format == OutputFormat::Json {
        let document = ListJson {
            head: scope.json_head("list"),
            offline: args.offline,
            skills: listed,
        };
        return project::print_json(&document, printer).map(|()| ExitStatus::Success);
    }
    print_table(&listed, &scope, printer)?;
    Ok(ExitStatus::Success)
}

/// What `entry`'s registry says about it.
fn ask(entry: &Locked) -> Result<SkillInfo, ClientError> {
    let client = client_for(&entry.registry, None)
        .map_err(|error| ClientError::Setup(format!("{error:#}")))?;
    let info = client.info(&entry.name)?;
    if info.name != entry.name {
        return Err(ClientError::Invalid(format!(
            "asked for `{}`, the registry answered with `{}`",
            entry.name,
            info.name.escape_debug()
        )));
    }
    Ok(info)
}

/// What to list for `entry`, given its registry's `info` when that was asked.
fn listed_json(entry: &Locked, info: Option<&SkillInfo>) -> ListedJson {
    let Some(info) = info else {
        return ListedJson {
            skill: entry.into(),
            checked: false,
            latest_matching: None,
            latest: None,
            outdated: None,
            yanked: None,
        };
    };
    let parse = |version: &str| semver::Version::parse(version).ok();
    let locked = parse(&entry.version);
    let latest_matching = info.choose(Some(&entry.requirement()));
    let latest = info.choose(None);
    let outdated = latest_matching
        .and_then(|matching| parse(&matching.version))
        .is_some_and(|matching| locked.as_ref().is_some_and(|locked| matching > *locked));
    let yanked = info
        .versions
        .iter()
        .find(|version| version.version == entry.version)
        .map(|version| version.yanked);
    ListedJson {
        skill: entry.into(),
        checked: true,
        latest_matching: latest_matching.map(|version| version.version.clone()),
        latest: latest.map(|version| version.version.clone()),
        outdated: Some(outdated),
        yanked,
    }
}

/// The status column: outdated, yanked, up to date, and the newest version when it lies beyond
/// the requirement.
fn status(skill: &ListedJson) -> String {
    if !skill.checked {
        return String::new();
    }
    let parse = |version: &Option<String>| {
        version
            .as_deref()
            .and_then(|version| semver::Version::parse(version).ok())
    };
    let mut parts = Vec::new();
    if skill.yanked == Some(true) {
        parts.push("yanked".to_owned());
    }
    match (&skill.latest_matching, skill.outdated) {
        (Some(matching), Some(true)) => parts.push(format!(
            "outdated: {matching} matches {}",
            skill.skill.requirement
        )),
        _ if skill.yanked != Some(true) => parts.push("up to date".to_owned()),
        _ => {}
    }
    let newest_in_reach = [
        parse(&skill.latest_matching),
        semver::Version::parse(&skill.skill.version).ok(),
    ]
    .into_iter()
    .flatten()
    .max();
    if let Some(latest) = parse(&skill.latest)
        && newest_in_reach.is_none_or(|reach| latest > reach)
    {
        parts.push(format!(
            "newest {latest} is outside {}",
            skill.skill.requirement
        ));
    }
    parts.join("; ")
}

/// The table on stdout, and a count on stderr.
fn print_table(listed: &[ListedJson], scope: &Scope, printer: Printer) -> anyhow::Result<()> {
    let mut err = printer.status();
    if listed.is_empty() {
        writeln!(
            err,
            "No skills installed: {} lists none",
            scope.lock.display()
        )?;
        err.flush()?;
        return Ok(());
    }
    let checked = listed.iter().any(|skill| skill.checked);
    let mut rows: Vec<Vec<String>> = vec![
        ["NAME", "VERSION", "REQUIREMENT", "FOLDER", "STATUS"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for skill in listed {
        rows.push(vec![
            skill.skill.name.clone(),
            skill.skill.version.clone(),
            skill.skill.requirement.clone(),
            scope.show(std::path::Path::new(&skill.skill.folder)),
            status(skill),
        ]);
    }
    if !checked {
        for row in &mut rows {
            row.pop();
        }
    }
    let columns = rows[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = printer.stdout();
    for row in &rows {
        let mut line = String::new();
        for (column, cell) in row.iter().enumerate() {
            if column + 1 == columns {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.extend(std::iter::repeat_n(
                    ' ',
                    widths[column] - cell.chars().count() + 2,
                ));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    out.flush()?;
    let count = |test: fn(&ListedJson) -> bool| listed.iter().filter(|skill| test(skill)).count();
    let outdated = count(|skill| skill.outdated == Some(true));
    let yanked = count(|skill| skill.yanked == Some(true));
    let mut summary = format!(
        "{} {} in {}",
        listed.len(),
        plural(listed.len(), "skill", "skills"),
        scope.lock.display()
    );
    if checked {
        let _ = write!(summary, ": {outdated} outdated, {yanked} yanked");
    } else {
        summary.push_str(" (registries not asked)");
    }
    writeln!(err, "{summary}")?;
    err.flush()?;
    Ok(())
}
