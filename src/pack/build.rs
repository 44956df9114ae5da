//! The one pipeline from a skill folder to an archive, used by `package` and `publish` alike:
//! validate for the targets, check the name can be a folder everywhere, select the files, apply
//! what claude.ai refuses (when it is a target), then write the archive atomically, refusing one
//! that unpack would refuse.

use std::path::Path;

use anyhow::Context as _;

use super::archive;
use super::extract::{ExtractError, Limits};
use super::select::{self, PackFile, SelectError};
use crate::agent::{Target, claude_ai};
use crate::check::{Checked, check_skill};
use crate::fsx;
use crate::skill::Skill;

/// Why a skill was not packed. Each is a refusal of this skill (exit 1) except [`Self::Io`].
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The skill has errors for its targets; the caller shows them (boxed: it is large).
    #[error("the skill has errors")]
    Invalid(Box<Checked>),
    /// A name the spec allows (`café`) that no archive's folder can carry.
    #[error(
        "`{0}` cannot name the skill's folder in an archive: unpack and registries accept lowercase ASCII letters, digits and single hyphens, and no name Windows reserves for a device (`con`, `nul`, `com1`)"
    )]
    UnportableName(String),
    /// The files cannot be packed as they are (a secret, a name unpack refuses, …).
    #[error(transparent)]
    Select(#[from] SelectError),
    /// claude.ai, a target, would refuse the upload.
    #[error("{0}")]
    ClaudeAi(String),
    /// The archive was written but would be refused when unpacked; nothing was kept.
    #[error("the archive would be refused when unpacked: {0}")]
    Unpackable(ExtractError),
    /// Writing failed, or the run was interrupted.
    #[error(transparent)]
    Io(#[from] anyhow::Error),
}

impl BuildError {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            Self::Invalid(_) => "fix them, then try again",
            Self::UnportableName(_) => {
                "rename the skill (its folder and its `name`), then try again"
            }
            Self::Select(error) => error.hint(),
            Self::ClaudeAi(_) => "claude.ai and the Skills API would refuse the upload",
            Self::Unpackable(_) => {
                "move large, highly compressible files (data, logs) out of the skill, or add them to .skillignore"
            }
            Self::Io(_) => "",
        }
    }
}

/// A skill that passed validation: its check, the name it is packed as, its version.
#[derive(Debug)]
pub struct Validated {
    pub checked: Checked,
    pub name: String,
    pub version: Option<String>,
}

/// Step 1: validates `skill` for `targets` and settles its name.
pub fn validate(skill: Skill, targets: &[Target]) -> Result<Validated, BuildError> {
    let checked = check_skill(skill, targets);
    if !checked.is_valid() {
        return Err(BuildError::Invalid(Box::new(checked)));
    }
    let name = skill_name(&checked);
    if !super::valid_skill_name(&name) {
        return Err(BuildError::UnportableName(name.escape_debug().to_string()));
    }
    let version = version(&checked);
    Ok(Validated {
        checked,
        name,
        version,
    })
}

/// The files of a skill, selected and checked, and their total size.
#[derive(Debug)]
pub struct Selection {
    pub files: Vec<PackFile>,
    pub total: u64,
}

/// Step 2: selects the files of the skill in `dir`, never `exclude` (the archive being
/// written), and refuses what claude.ai would when it is one of `targets` (`max_upload` being
/// its limit).
pub fn select(
    dir: &Path,
    exclude: Option<&Path>,
    targets: &[Target],
    max_upload: u64,
) -> Result<Selection, BuildError> {
    let files = select::select_except(dir, exclude)?;
    let total = files.iter().map(|file| file.size).sum();
    if targets.contains(&Target::ClaudeAi)
        && let Some(refusal) = claude_ai::upload_refusal(
            files.iter().map(|file| file.path.as_str()),
            total,
            max_upload,
        )
    {
        return Err(BuildError::ClaudeAi(refusal));
    }
    Ok(Selection { files, total })
}

/// Step 3: writes the archive of `selection` (each entry under `prefix`) to a temporary file
/// beside `output` and renames it into place, unless unpacking it would be refused. `progress`
/// hears the bytes read so far.
pub fn write(
    output: &Path,
    prefix: &str,
    selection: &Selection,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<archive::Summary, BuildError> {
    let folder = fsx::parent_or_dot(output);
    fs_err::create_dir_all(folder).map_err(anyhow::Error::from)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".skillpkg-package-")
        .tempfile_in(folder)
        .with_context(|| format!("cannot write in {}", folder.display()))?;
    // Ctrl-C removes the half-written archive.
    let cleanup = crate::interrupt::Cleanup::register(temp.path());
    let threads = crate::parallel::cores();
    let summary = {
        let writer = std::io::BufWriter::with_capacity(256 * 1024, temp.as_file_mut());
        archive::write(writer, prefix, &selection.files, threads, progress)
            .map_err(anyhow::Error::from)?
    };
    // Never write an archive that unpack, install or a registry would refuse as a bomb.
    Limits::default()
        .admit(summary.bytes, selection.total, selection.files.len())
        .map_err(BuildError::Unpackable)?;
    temp.as_file().sync_all().map_err(anyhow::Error::from)?;
    fsx::set_mode(temp.path(), 0o644).map_err(anyhow::Error::from)?;
    cleanup
        .commit(|| temp.persist(output))
        .ok_or_else(|| anyhow::anyhow!("interrupted"))?
        .with_context(|| format!("cannot write {}", output.display()))?;
    Ok(summary)
}

/// The name the archive is known by: the valid frontmatter name, else the folder's.
pub(crate) fn skill_name(checked: &Checked) -> String {
    checked
        .skill
        .reading()
        .and_then(|reading| reading.doc.as_ref())
        .and_then(|doc| doc.name.as_deref())
        .and_then(|field| field.value.as_ref().ok())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty() && !name.contains(['/', '\\']))
        .unwrap_or_else(|| checked.skill.dir_name.clone())
}

/// `metadata.version`, else `version`.
pub fn version(checked: &Checked) -> Option<String> {
    let reading = checked.skill.reading()?;
    let doc = reading.doc.as_ref()?;
    let yaml = reading.yaml.as_ref()?.as_ref().ok()?;
    let from_metadata = doc
        .metadata
        .as_ref()
        .and_then(|field| field.value.as_ref().ok())
        .and_then(|entries| {
            entries
                .iter()
                .find(|entry| entry.key.value == "version")
                .and_then(|entry| yaml.scalar(entry.value))
                .map(|scalar| scalar.value.clone())
        });
    from_metadata
        .or_else(|| {
            doc.version
                .as_ref()
                .and_then(|field| field.value.as_ref().ok())
                .cloned()
        })
        .map(|version| version.trim().to_owned())
        .filter(|version| {
            !version.is_empty()
                && version
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
        })
}
