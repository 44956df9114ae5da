//! `skillpkg install --from https://site` and `--from-marketplace DIR_OR_GIT_URL`: skills from
//! where `publish --to well-known` and `--to claude-marketplace` put them, verified and placed
//! by the same [`place_with`] as registry installs, and recorded in the same `skills.lock`.

use std::path::Path;

use super::destination_error;
use super::install::{InstallArgs, Report, place_with};
use super::project::Scope;
use crate::commands::{Refusal, UserError};
use crate::pack::archive;
use crate::pack::extract::Limits;
use crate::publish::fetch::{self, Fetched};
use crate::registry::lockfile::{Locked, Lockfile, MARKER, SOURCE_MARKETPLACE, SOURCE_WELL_KNOWN};

/// Where skills come from.
enum Origin {
    Site(fetch::Site),
    Marketplace(fetch::Marketplace),
}

/// `install --from URL [NAME…]` or `install --from-marketplace LOCATION NAME…`.
pub(super) fn install(
    args: &InstallArgs,
    scope: &Scope,
    lock: &mut Lockfile,
    dir: &str,
    report: &mut Report,
) -> anyhow::Result<()> {
    let (origin, location, source) = if let Some(url) = &args.from {
        let url = url.trim_end_matches('/').to_owned();
        let site = fetch::site(&url).map_err(destination_error)?;
        for skipped in &site.skipped {
            report.warn(format!(
                "{} lists an entry that cannot be installed: {skipped}",
                site.index_url
            ))?;
        }
        (Origin::Site(site), url, SOURCE_WELL_KNOWN)
    } else if let Some(location) = &args.from_marketplace {
        let (open, recorded) = marketplace_location(location, scope)?;
        let market = fetch::marketplace(&open).map_err(destination_error)?;
        (Origin::Marketplace(market), recorded, SOURCE_MARKETPLACE)
    } else {
        return Ok(());
    };
    let names = match (&origin, args.names.is_empty()) {
        (Origin::Site(site), true) => site.names(),
        (Origin::Marketplace(_), true) => {
            return Err(UserError {
                message: "--from-marketplace needs the plugin (or skill) to install".into(),
                hints: vec!["skillpkg install --from-marketplace DIR_OR_GIT_URL PLUGIN".into()],
            }
            .into());
        }
        (_, false) => args.names.clone(),
    };
    let mut changed = false;
    let result = (|| -> anyhow::Result<()> {
        for name in &names {
            if name.contains('@') {
                return Err(UserError {
                    message: format!("`{name}`: a site or a marketplace offers one version, so NAME@REQ does not apply"),
                    hints: vec!["name the skill or plugin alone".into()],
                }
                .into());
            }
            for (fetched, plugin) in fetch_named(&origin, name, scope)? {
                let entry = entry_for(&fetched, plugin.as_deref(), &location, source, dir)?;
                changed |= record_and_place(entry, &fetched, args.locked, scope, lock, report)?;
            }
        }
        Ok(())
    })();
    if changed {
        lock.write(&scope.lock)?;
    }
    result
}

/// A marketplace location, as opened and as skills.lock records it: a git URL as given; a
/// folder made absolute to open it, and recorded relative to the project root (so that the
/// lockfile works in every clone), or absolute for `--global`.
fn marketplace_location(location: &str, scope: &Scope) -> anyhow::Result<(String, String)> {
    if fetch::is_git_url(location) {
        return Ok((location.to_owned(), location.to_owned()));
    }
    let absolute = crate::check::config::lexical_absolute(&scope.cwd, Path::new(location));
    let not_utf8 = || UserError {
        message: format!("`{location}` is not a UTF-8 path"),
        hints: vec![],
    };
    let open = absolute.to_str().ok_or_else(not_utf8)?.to_owned();
    if scope.global {
        return Ok((open.clone(), open));
    }
    let relative = relative_to(&scope.root, &absolute);
    let recorded = relative.to_str().ok_or_else(not_utf8)?.replace('\\', "/");
    Ok((
        open,
        if recorded.is_empty() {
            ".".to_owned()
        } else {
            recorded
        },
    ))
}

/// `path` relative to `base` (both absolute and normalised), climbing with `..` as needed.
fn relative_to(base: &Path, path: &Path) -> std::path::PathBuf {
    let base: Vec<_> = base.components().collect();
    let path: Vec<_> = path.components().collect();
    let common = base.iter().zip(&path).take_while(|(a, b)| a == b).count();
    let mut relative = std::path::PathBuf::new();
    for _ in common..base.len() {
        relative.push("..");
    }
    for part in &path[common..] {
        relative.push(part);
    }
    relative
}

/// Where a skills.lock entry's marketplace is: a git URL, or a folder relative to the project
/// root.
fn recorded_location(entry: &Locked, scope: &Scope) -> String {
    if fetch::is_git_url(&entry.registry) || Path::new(&entry.registry).is_absolute() {
        return entry.registry.clone();
    }
    scope
        .root
        .join(&entry.registry)
        .to_string_lossy()
        .into_owned()
}

/// Fetches what `name` names into staging folders (kept alive by the returned values' dirs'
/// parents): one skill from a site, a plugin's skills (or one of them) from a marketplace.
fn fetch_named(
    origin: &Origin,
    name: &str,
    scope: &Scope,
) -> anyhow::Result<Vec<(Staged, Option<String>)>> {
    match origin {
        Origin::Site(site) => {
            let staging = staging(scope)?;
            let fetched =
                fetch::site_skill(site, name, staging.path()).map_err(destination_error)?;
            Ok(vec![(
                Staged {
                    fetched,
                    _staging: staging,
                },
                None,
            )])
        }
        Origin::Marketplace(market) => {
            let fetch::Plugin {
                name: plugin,
                version,
                skills,
            } = fetch::marketplace_plugin(market, name).map_err(destination_error)?;
            let mut out = Vec::new();
            for (skill, source) in skills {
                let staging = staging(scope)?;
                let mut fetched = fetch::copy_skill(&source, &skill, staging.path())
                    .map_err(destination_error)?;
                fetched.version.clone_from(&version);
                out.push((
                    Staged {
                        fetched,
                        _staging: staging,
                    },
                    Some(plugin.clone()),
                ));
            }
            Ok(out)
        }
    }
}

/// A fetched skill and the temporary folder holding it.
struct Staged {
    fetched: Fetched,
    _staging: tempfile::TempDir,
}

impl std::ops::Deref for Staged {
    type Target = Fetched;
    fn deref(&self) -> &Fetched {
        &self.fetched
    }
}

/// A temporary folder for a download, in the system's temporary folder.
fn staging(_scope: &Scope) -> anyhow::Result<tempfile::TempDir> {
    Ok(tempfile::Builder::new()
        .prefix("skillpkg-fetch-")
        .tempdir()?)
}

/// The skills.lock entry of a fetched skill: its version (the plugin's, else SKILL.md's, else
/// 0.0.0), its digests.
fn entry_for(
    fetched: &Fetched,
    plugin: Option<&str>,
    location: &str,
    source: &str,
    dir: &str,
) -> anyhow::Result<Locked> {
    let version = fetched
        .version
        .clone()
        .filter(|version| semver::Version::parse(version).is_ok())
        .or_else(|| skill_version(&fetched.dir))
        .unwrap_or_else(|| "0.0.0".to_owned());
    let digest = archive::folder_digest(&fetched.dir, &[MARKER], &Limits::default())?
        .ok_or_else(|| anyhow::anyhow!("{}: cannot read the files fetched", fetched.name))?;
    let sha256 = match &fetched.sha256 {
        Some(sha256) => sha256.clone(),
        None => packed_sha256(&fetched.dir, &fetched.name)?,
    };
    let entry = Locked {
        name: fetched.name.clone(),
        version,
        requirement: None,
        registry: location.to_owned(),
        sha256,
        digest,
        dir: dir.to_owned(),
        source: Some(source.to_owned()),
        plugin: plugin.map(str::to_owned),
    };
    entry.check().map_err(|reason| UserError {
        message: format!(
            "`{}` cannot be recorded in skills.lock: {reason}",
            fetched.name
        ),
        hints: vec!["nothing was installed".into()],
    })?;
    Ok(entry)
}

/// The version SKILL.md gives (`metadata.version`, else `version`), if it is semver.
fn skill_version(dir: &Path) -> Option<String> {
    let skill = crate::skill::Skill::load(&dir.join("SKILL.md")).ok()?;
    let checked = crate::check::check_skill(skill, &[]);
    crate::pack::build::version(&checked).filter(|version| semver::Version::parse(version).is_ok())
}

/// SHA-256 of the `.skill` archive skillpkg packs from the folder: its files' digest in
/// archive form, the same on every machine.
fn packed_sha256(dir: &Path, name: &str) -> anyhow::Result<String> {
    let files = crate::pack::select::select(dir)?;
    let summary = archive::write(std::io::sink(), &format!("{name}/"), &files, 1, &|_| {})?;
    Ok(summary.sha256)
}

/// Places `fetched` as `entry` and records it in `lock`; says whether `lock` changed.
fn record_and_place(
    entry: Locked,
    fetched: &Fetched,
    locked: bool,
    scope: &Scope,
    lock: &mut Lockfile,
    report: &mut Report,
) -> anyhow::Result<bool> {
    let existing = lock
        .skills
        .iter()
        .position(|other| other.name == entry.name && other.folder() == entry.folder());
    let changed = existing.is_none_or(|index| lock.skills[index] != entry);
    if changed && locked {
        return Err(UserError {
            message: format!(
                "{}@{} is not what skills.lock records, and --locked forbids changing it",
                entry.name, entry.version
            ),
            hints: vec!["run without --locked to update skills.lock".into()],
        }
        .into());
    }
    let previous = existing.map(|index| lock.skills[index].clone());
    let placed = place_with(&entry, scope, previous.as_ref(), |staging| {
        let out = staging.join("out");
        fs_err::create_dir_all(&out)?;
        let target = out.join(&entry.name);
        copy_tree(&fetched.dir, &target)?;
        Ok(target)
    })?;
    let shown = scope.show(&entry.folder());
    let from = match entry.plugin.as_deref() {
        Some(plugin) => format!("plugin `{plugin}` of {}", entry.registry),
        None => entry.registry.clone(),
    };
    let line = match placed {
        super::install::Placed::Installed => format!(
            "Installed {}@{} from {from} into {shown}",
            entry.name, entry.version
        ),
        super::install::Placed::UpToDate => format!(
            "{}@{} is already installed in {shown}",
            entry.name, entry.version
        ),
    };
    report.say(&line)?;
    let action = match placed {
        super::install::Placed::Installed => "installed",
        super::install::Placed::UpToDate => "unchanged",
    };
    report.record(
        &entry,
        previous.as_ref().map(|previous| previous.version.as_str()),
        action,
    );
    match existing {
        Some(index) => lock.skills[index] = entry,
        None => lock.skills.push(entry),
    }
    Ok(changed)
}

/// Copies the regular files under `from` to `to` (a new folder), keeping executable bits.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut pending = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((source, target)) = pending.pop() {
        fs_err::create_dir_all(&target)?;
        for entry in fs_err::read_dir(&source)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let dest = target.join(entry.file_name());
            if kind.is_dir() {
                pending.push((entry.path(), dest));
            } else if kind.is_file() {
                fs_err::copy(entry.path(), &dest)?;
            }
        }
    }
    Ok(())
}

/// `install` of a skills.lock entry from a site or a marketplace: fetched again, and placed
/// only if it is still exactly what skills.lock records.
pub(super) fn from_lock(
    entry: &Locked,
    scope: &Scope,
    report: &mut Report,
) -> anyhow::Result<super::install::Placed> {
    // The folder may already hold exactly the locked files: then nothing is fetched.
    if matches!(
        super::install::ownership(&scope.root.join(entry.folder()), entry, Some(entry))?,
        super::install::Ownership::Matches
    ) {
        return Ok(super::install::Placed::UpToDate);
    }
    let origin = match entry.source.as_deref() {
        Some(SOURCE_WELL_KNOWN) => {
            Origin::Site(fetch::site(&entry.registry).map_err(destination_error)?)
        }
        _ => Origin::Marketplace(
            fetch::marketplace(&recorded_location(entry, scope)).map_err(destination_error)?,
        ),
    };
    let wanted = entry.plugin.clone().unwrap_or_else(|| entry.name.clone());
    let fetched = fetch_named(&origin, &wanted, scope)?;
    let Some((staged, _)) = fetched
        .into_iter()
        .find(|(staged, _)| staged.name == entry.name)
    else {
        return Err(Refusal::new(
            format!(
                "{} no longer offers `{}`; nothing was installed",
                entry.registry, entry.name
            ),
            &["remove it from skills.lock, or install it from elsewhere"],
        )
        .into());
    };
    let now = entry_for(
        &staged,
        entry.plugin.as_deref(),
        &entry.registry,
        entry.source.as_deref().unwrap_or_default(),
        &entry.dir,
    )?;
    if now.sha256 != entry.sha256 || now.digest != entry.digest {
        return Err(Refusal::new(
            format!("{} now serves other contents for `{}` than skills.lock records; nothing was installed", entry.registry, entry.name),
            &["to take the new contents, install it again with --from or --from-marketplace"],
        )
        .into());
    }
    let _ = report;
    place_with(entry, scope, Some(entry), |staging| {
        let target = staging.join("out").join(&entry.name);
        copy_tree(&staged.dir, &target)?;
        Ok(target)
    })
}
