//! The Agent Skills discovery index: a static site that `npx skills add https://site` (and
//! `skillpkg install --from https://site`) installs from.
//!
//! The format is the Cloudflare "Agent Skills Discovery via Well-Known URIs" RFC, v0.2.0
//! (2026-03-12), as `docs/research/publishing.md` §1 records it, with what the `skills` CLI
//! 1.7.4 does with it (checked 2026-12-01):
//!
//! - `/.well-known/agent-skills/index.json`: `{"$schema": SCHEMA, "skills": [{name, type,
//!   description, url, digest}]}`; `type` is `skill-md` for a skill that is only its SKILL.md,
//!   else `archive` (a zip with the files at its root, no wrapper folder); `url` is resolved
//!   against the index's URL; `digest` is `sha256:` and the hex SHA-256 of the artifact's bytes;
//! - the v0.1.0 index at `/.well-known/skills/index.json` (`{"skills": [{name, description,
//!   files}]}`, each file at `/.well-known/skills/{name}/{path}`), which the `skills` CLI still
//!   reads when the new one is missing, is written beside it for older clients.
//!
//! Skills already on the site are kept: an index is merged, entry by entry, by name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Error, Outcome, Placed, Prepared};

/// The `$schema` of a v0.2.0 index, matched exactly by clients.
pub const SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/// The index's path in the site.
pub const INDEX: &str = ".well-known/agent-skills/index.json";
/// The v0.1.0 index's path in the site.
pub const LEGACY_INDEX: &str = ".well-known/skills/index.json";
/// The longest description an entry may carry.
pub const MAX_DESCRIPTION: usize = 1024;
/// What the `skills` CLI unpacks at most from an archive: files and bytes.
pub const MAX_ARCHIVE_FILES: usize = 1000;
pub const MAX_ARCHIVE_BYTES: u64 = 50 * 1024 * 1024;

/// A v0.2.0 index.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Index {
    #[serde(rename = "$schema")]
    pub schema: String,
    pub skills: Vec<Entry>,
}

/// One skill in a v0.2.0 index; fields skillpkg does not know are kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub url: String,
    pub digest: String,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// A v0.1.0 index.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct LegacyIndex {
    skills: Vec<LegacyEntry>,
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct LegacyEntry {
    name: String,
    description: String,
    files: Vec<String>,
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

/// What publishing one skill did.
#[derive(Clone, Debug)]
pub struct Published {
    pub name: String,
    pub outcome: Outcome,
    pub entry: Entry,
}

/// What a publish did (or, for a dry run, would do).
#[derive(Clone, Debug)]
pub struct Report {
    pub skills: Vec<Published>,
    /// The index as written (or as it would be).
    pub index: String,
    pub legacy_index: String,
}

impl Report {
    /// Whether nothing changed.
    pub fn unchanged(&self) -> bool {
        self.skills
            .iter()
            .all(|skill| skill.outcome == Outcome::Unchanged)
    }
}

/// The artifact of one skill: where it goes in the site, its bytes, its entry.
struct Artifact {
    path: PathBuf,
    bytes: Vec<u8>,
    entry: Entry,
}

/// Publishes `skills` to the site in `site`.
pub fn publish(skills: &[Prepared], site: &Path, dry_run: bool) -> Result<Report, Error> {
    let index_path = site.join(INDEX);
    let legacy_path = site.join(LEGACY_INDEX);
    let mut index = read_index(&index_path)?.unwrap_or_else(|| Index {
        schema: SCHEMA.to_owned(),
        skills: Vec::new(),
    });
    let mut legacy = read_legacy(&legacy_path)?.unwrap_or_else(|| LegacyIndex {
        skills: Vec::new(),
        extra: BTreeMap::new(),
    });
    let mut published = Vec::new();
    let mut artifacts = Vec::new();
    for skill in skills {
        check(skill)?;
        let artifact = artifact(skill)?;
        let legacy_entry = LegacyEntry {
            name: skill.name.clone(),
            description: skill.description.clone(),
            files: skill.files.iter().map(|file| file.path.clone()).collect(),
            extra: BTreeMap::new(),
        };
        let old = index
            .skills
            .iter()
            .position(|entry| entry.name == skill.name);
        let legacy_old = legacy
            .skills
            .iter()
            .position(|entry| entry.name == skill.name);
        let same_entry = old.is_some_and(|at| {
            let have = &index.skills[at];
            have.kind == artifact.entry.kind
                && have.url == artifact.entry.url
                && have.digest == artifact.entry.digest
                && have.description == artifact.entry.description
        });
        let same_artifact =
            crate::fsx::read_capped(&site.join(&artifact.path), artifact.bytes.len() as u64 + 1)
                .is_ok_and(|have| have == artifact.bytes);
        let legacy_dir = site.join(".well-known/skills").join(&skill.name);
        let placed = Placed::of(skill, "");
        let same_legacy = legacy_old.is_some_and(|at| {
            let have = &legacy.skills[at];
            have.description == legacy_entry.description && have.files == legacy_entry.files
        }) && super::folder_matches(&legacy_dir, &placed)?;
        let outcome = if same_entry && same_artifact && same_legacy {
            Outcome::Unchanged
        } else {
            Outcome::Published
        };
        match old {
            Some(at) => {
                let extra = std::mem::take(&mut index.skills[at].extra);
                index.skills[at] = Entry {
                    extra,
                    ..artifact.entry.clone()
                };
            }
            None => index.skills.push(artifact.entry.clone()),
        }
        match legacy_old {
            Some(at) => {
                let extra = std::mem::take(&mut legacy.skills[at].extra);
                legacy.skills[at] = LegacyEntry {
                    extra,
                    ..legacy_entry
                };
            }
            None => legacy.skills.push(legacy_entry),
        }
        published.push(Published {
            name: skill.name.clone(),
            outcome,
            entry: artifact.entry.clone(),
        });
        if outcome == Outcome::Published {
            artifacts.push((skill, artifact, legacy_dir));
        }
    }
    let report = Report {
        skills: published,
        index: pretty(&index)?,
        legacy_index: pretty(&legacy)?,
    };
    let paths = checked_paths(site, &artifacts)?;
    if dry_run || report.unchanged() {
        return Ok(report);
    }
    // Every folder first: a path that cannot be made fails before any file changes.
    for path in &paths {
        fs_err::create_dir_all(crate::fsx::parent_or_dot(&site.join(path)))?;
    }
    write_site(
        site,
        &artifacts,
        &[
            (&legacy_path, &report.legacy_index),
            (&index_path, &report.index),
        ],
    )?;
    Ok(report)
}

/// Every path a publish writes, each checked: no symbolic link on the way, nothing in `.git`.
fn checked_paths(
    site: &Path,
    artifacts: &[(&Prepared, Artifact, PathBuf)],
) -> Result<Vec<PathBuf>, Error> {
    let mut paths = vec![PathBuf::from(INDEX), PathBuf::from(LEGACY_INDEX)];
    for (skill, artifact, _) in artifacts {
        paths.push(artifact.path.clone());
        paths.push(PathBuf::from(".well-known/skills").join(&skill.name));
    }
    for path in &paths {
        super::check_no_links(site, path)?;
    }
    Ok(paths)
}

/// Writes the artifacts and legacy folders of the skills that changed, then the indexes (last,
/// so a run stopped half-way never lists what is not there).
fn write_site(
    site: &Path,
    artifacts: &[(&Prepared, Artifact, PathBuf)],
    indexes: &[(&PathBuf, &String)],
) -> Result<(), Error> {
    for (skill, artifact, legacy_dir) in artifacts {
        let path = site.join(&artifact.path);
        fs_err::create_dir_all(crate::fsx::parent_or_dot(&path))?;
        // A skill that changes type leaves its other artifact behind; remove it.
        remove_other_artifact(site, skill, &artifact.entry.kind)?;
        crate::fsx::write_atomically(
            &path,
            &artifact.bytes,
            ".skillpkg-",
            crate::fsx::Permissions::Mode(0o644),
        )?;
        super::replace_folder(legacy_dir, &Placed::of(skill, ""))?;
    }
    for &(path, text) in indexes {
        fs_err::create_dir_all(crate::fsx::parent_or_dot(path))?;
        crate::fsx::write_atomically(
            path,
            text.as_bytes(),
            ".skillpkg-",
            crate::fsx::Permissions::Mode(0o644),
        )?;
    }
    Ok(())
}

/// Refuses what the index or its clients cannot carry.
fn check(skill: &Prepared) -> Result<(), Error> {
    let count = skill.description.chars().count();
    if count == 0 || count > MAX_DESCRIPTION {
        return Err(Error::refused(
            format!(
                "the description of `{}` has {count} characters; a discovery index entry carries 1 to {MAX_DESCRIPTION}",
                skill.name
            ),
            "shorten the description in SKILL.md",
        ));
    }
    if skill.files.len() > MAX_ARCHIVE_FILES || skill.total > MAX_ARCHIVE_BYTES {
        return Err(Error::refused(
            format!(
                "`{}` has {} files, {}; the `skills` CLI unpacks at most {MAX_ARCHIVE_FILES} files and 50 MiB",
                skill.name,
                skill.files.len(),
                crate::fsx::size(skill.total)
            ),
            "move large files out of the skill, or add them to .skillignore",
        ));
    }
    for file in &skill.files {
        if !file
            .path
            .chars()
            .all(|c| c.is_ascii_graphic() && !matches!(c, '\\' | '?' | '#' | '[' | ']') || c == ' ')
        {
            return Err(Error::refused(
                format!(
                    "`{}/{}`: a path in a discovery index may use printable ASCII only, without \\ ? # [ ]",
                    skill.name, file.path
                ),
                "rename the file",
            ));
        }
    }
    Ok(())
}

/// The artifact of a skill: its SKILL.md alone, or a zip of its files at the root.
fn artifact(skill: &Prepared) -> Result<Artifact, Error> {
    let only_skill_md = skill.files.len() == 1 && skill.files[0].path == "SKILL.md";
    let (path, url, kind, bytes) = if only_skill_md {
        let bytes = crate::fsx::read_capped(&skill.files[0].source, skill.files[0].size + 1)?;
        (
            format!("{}/SKILL.md", skill.name),
            format!("{}/SKILL.md", skill.name),
            "skill-md",
            bytes,
        )
    } else {
        let mut bytes = Vec::new();
        crate::pack::archive::write(
            &mut bytes,
            "",
            &skill.files,
            crate::parallel::cores(),
            &|_| {},
        )?;
        (
            format!("{}.zip", skill.name),
            format!("{}.zip", skill.name),
            "archive",
            bytes,
        )
    };
    let digest = format!("sha256:{}", sha256_hex(&bytes));
    Ok(Artifact {
        path: PathBuf::from(".well-known/agent-skills").join(path),
        bytes,
        entry: Entry {
            name: skill.name.clone(),
            kind: kind.to_owned(),
            description: skill.description.clone(),
            url,
            digest,
            extra: BTreeMap::new(),
        },
    })
}

/// Removes the artifact of the other type, when a skill changes from one to the other.
fn remove_other_artifact(site: &Path, skill: &Prepared, kind: &str) -> Result<(), Error> {
    let base = site.join(".well-known/agent-skills");
    let other = if kind == "archive" {
        base.join(&skill.name).join("SKILL.md")
    } else {
        base.join(format!("{}.zip", skill.name))
    };
    if std::fs::symlink_metadata(&other).is_ok_and(|meta| meta.is_file()) {
        fs_err::remove_file(&other)?;
        if kind == "archive" {
            let _ = std::fs::remove_dir(base.join(&skill.name));
        }
    }
    Ok(())
}

/// Lowercase hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    crate::pack::archive::hex(&sha2::Sha256::digest(bytes))
}

fn pretty(value: &impl Serialize) -> Result<String, Error> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|error| Error::failed(error.to_string(), ""))?;
    text.push('\n');
    Ok(text)
}

/// Reads the v0.2.0 index at `path`, if there is one; an index of another version is refused.
fn read_index(path: &Path) -> Result<Option<Index>, Error> {
    let Some(value) = read_json(path)? else {
        return Ok(None);
    };
    match value.get("$schema").and_then(Value::as_str) {
        Some(SCHEMA) => {}
        other => {
            return Err(Error::refused(
                format!(
                    "{}: the index's $schema is {}, not the v0.2.0 one skillpkg writes ({SCHEMA})",
                    path.display(),
                    other.map_or_else(|| "missing".to_owned(), |schema| format!("`{schema}`"))
                ),
                "move the file away, or publish to another --site",
            ));
        }
    }
    parse_index(value).map(Some).map_err(|message| {
        Error::failed(
            format!("{}: {message}", path.display()),
            "fix the index, then publish again",
        )
    })
}

/// A v0.2.0 index from its JSON, every entry checked.
pub fn parse_index(value: Value) -> Result<Index, String> {
    let index: Index = serde_json::from_value(value).map_err(|error| error.to_string())?;
    Ok(index)
}

fn read_legacy(path: &Path) -> Result<Option<LegacyIndex>, Error> {
    let Some(value) = read_json(path)? else {
        return Ok(None);
    };
    serde_json::from_value(value).map(Some).map_err(|error| {
        Error::failed(
            format!("{}: {error}", path.display()),
            "fix the index, then publish again",
        )
    })
}

fn read_json(path: &Path) -> Result<Option<Value>, Error> {
    let Some(text) = super::read_json_text(path)? else {
        return Ok(None);
    };
    serde_json::from_str(&text).map(Some).map_err(|error| {
        Error::failed(
            format!(
                "{}:{}:{}: {error}",
                path.display(),
                error.line(),
                error.column()
            ),
            "fix the JSON, then publish again",
        )
    })
}
