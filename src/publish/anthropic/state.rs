//! The state file (`skillpkg-state.toml`): which skill on the Skills API each local skill
//! became, so that publishing again adds a version to it instead of creating another skill,
//! and publishing the same thing twice sends nothing.
//!
//! It is TOML, one table per (workspace, skill): `[anthropic.<workspace>.<skill>]`, where the
//! workspace is the `anthropic-workspace-id` sent, or `default` for none. Everything else in
//! the file is kept as it is when an entry is written. The file belongs in version control:
//! without it, another clone finds the skill by its display name (one list request more), but
//! cannot tell an unchanged version from a changed one.

use std::path::{Path, PathBuf};

use super::Error;

/// The largest state file read: thousands of entries fit in a fraction of it.
const MAX_STATE_BYTES: u64 = 1024 * 1024;

/// The top-level table that holds this destination's entries.
const TABLE: &str = "anthropic";

/// The comment the file starts with.
const HEADER: &str = "\
# What `skillpkg publish` sent to destinations that keep their own ids. Written by skillpkg;
# commit it. [anthropic.WORKSPACE.SKILL] is a custom skill on Anthropic's Skills API
# (WORKSPACE is the --workspace id, or `default`): its skill id, its latest version id, the
# version published and the digest of the files uploaded. Publishing again adds a version to
# that skill; publishing the same version and files again sends nothing.
";

/// What the state file records about one skill.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// The skill's id on the API (`skill_01…`).
    pub skill_id: String,
    /// The id of the version last uploaded, when the API gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_id: Option<String>,
    /// The semver version last uploaded.
    pub version: String,
    /// [`crate::pack::archive::content_digest`] of the files last uploaded.
    pub digest: String,
}

/// The state file as read.
#[derive(Debug)]
pub(crate) struct State {
    path: PathBuf,
    table: toml::Table,
}

impl State {
    /// Reads the state file at `path`; a missing file is an empty state.
    pub(crate) fn read(path: &Path) -> Result<Self, Error> {
        let text = match crate::fsx::read_text_capped(path, MAX_STATE_BYTES) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => return Err(state_error(path, error.to_string())),
        };
        let table = text.parse::<toml::Table>().map_err(|error| {
            state_error(
                path,
                format!("is not valid TOML: {}", error.message().trim_end()),
            )
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            table,
        })
    }

    /// The record of `skill` in `workspace`, if there is one.
    pub(crate) fn get(&self, workspace: &str, skill: &str) -> Result<Option<Record>, Error> {
        let malformed = |what: &str| {
            state_error(
                &self.path,
                format!(
                    "{what}; fix or delete the entry, and skillpkg finds the skill by its name again"
                ),
            )
        };
        let Some(destination) = self.table.get(TABLE) else {
            return Ok(None);
        };
        let Some(workspaces) = destination.as_table() else {
            return Err(malformed(&format!("`{TABLE}` is not a table")));
        };
        let Some(skills) = workspaces.get(workspace) else {
            return Ok(None);
        };
        let Some(skills) = skills.as_table() else {
            return Err(malformed(&format!("`{TABLE}.{workspace}` is not a table")));
        };
        let Some(entry) = skills.get(skill) else {
            return Ok(None);
        };
        let record: Record = entry.clone().try_into().map_err(|error: toml::de::Error| {
            malformed(&format!(
                "`{TABLE}.{workspace}.{skill}` is not an entry skillpkg wrote: {}",
                error.message().trim_end()
            ))
        })?;
        if record.skill_id.trim().is_empty() {
            return Err(malformed(&format!(
                "`{TABLE}.{workspace}.{skill}` has an empty `skill_id`"
            )));
        }
        Ok(Some(record))
    }

    /// Records `record` for `skill` in `workspace`, replacing what was there.
    pub(crate) fn set(&mut self, workspace: &str, skill: &str, record: &Record) {
        let entry = toml::Value::try_from(record).expect("a record is a TOML table");
        let workspaces = self
            .table
            .entry(TABLE)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !workspaces.is_table() {
            *workspaces = toml::Value::Table(toml::Table::new());
        }
        let skills = workspaces
            .as_table_mut()
            .expect("made a table above")
            .entry(workspace)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !skills.is_table() {
            *skills = toml::Value::Table(toml::Table::new());
        }
        skills
            .as_table_mut()
            .expect("made a table above")
            .insert(skill.to_owned(), entry);
    }

    /// The file's text: the header, then the tables.
    pub(crate) fn render(&self) -> String {
        let body = toml::to_string(&self.table).expect("a TOML table renders");
        format!("{HEADER}\n{body}")
    }

    /// Writes the file in one step (a temporary file renamed over it).
    pub(crate) fn write(&self) -> Result<(), Error> {
        crate::fsx::write_atomically(
            &self.path,
            self.render().as_bytes(),
            ".skillpkg-state-",
            crate::fsx::Permissions::Mode(0o644),
        )
        .map_err(|error| state_error(&self.path, error.to_string()))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

fn state_error(path: &Path, message: String) -> Error {
    Error::State {
        path: path.to_path_buf(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::{Record, State};
    use crate::publish::anthropic::Error;

    fn record(id: &str, version: &str) -> Record {
        Record {
            skill_id: id.to_owned(),
            version_id: Some(format!("{id}-v")),
            version: version.to_owned(),
            digest: "h1:abc=".to_owned(),
        }
    }

    #[test]
    fn a_missing_file_is_an_empty_state_and_a_written_one_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skillpkg-state.toml");
        let mut state = State::read(&path).unwrap();
        assert_eq!(state.get("default", "pdf-forms").unwrap(), None);
        state.set("default", "pdf-forms", &record("skill_01a", "1.2.0"));
        state.set("wrkspc_01x", "pdf-forms", &record("skill_01b", "0.1.0"));
        state.write().unwrap();
        let text = fs_err::read_to_string(&path).unwrap();
        assert!(text.starts_with("# What `skillpkg publish` sent"), "{text}");
        assert!(text.contains("commit it"), "{text}");
        assert!(text.contains("[anthropic.default.pdf-forms]"), "{text}");
        let again = State::read(&path).unwrap();
        assert_eq!(
            again.get("default", "pdf-forms").unwrap(),
            Some(record("skill_01a", "1.2.0"))
        );
        assert_eq!(
            again.get("wrkspc_01x", "pdf-forms").unwrap(),
            Some(record("skill_01b", "0.1.0"))
        );
        assert_eq!(again.get("default", "other").unwrap(), None);
    }

    #[test]
    fn writing_an_entry_keeps_every_other_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skillpkg-state.toml");
        fs_err::write(
            &path,
            "[marketplace]\nowner = \"acme\"\n\n[anthropic.default.kept]\nskill_id = \"skill_01k\"\nversion = \"1.0.0\"\ndigest = \"h1:k=\"\n",
        )
        .unwrap();
        let mut state = State::read(&path).unwrap();
        state.set("default", "new", &record("skill_01n", "2.0.0"));
        state.write().unwrap();
        let again = State::read(&path).unwrap();
        assert_eq!(
            again.get("default", "kept").unwrap().unwrap().skill_id,
            "skill_01k"
        );
        assert_eq!(
            again.get("default", "new").unwrap(),
            Some(record("skill_01n", "2.0.0"))
        );
        let text = fs_err::read_to_string(&path).unwrap();
        assert!(text.contains("[marketplace]\nowner = \"acme\""), "{text}");
    }

    #[test]
    fn malformed_files_are_errors_that_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skillpkg-state.toml");
        for (text, expected) in [
            ("[anthropic\n", "is not valid TOML"),
            ("anthropic = 3\n", "`anthropic` is not a table"),
            (
                "[anthropic]\ndefault = \"x\"\n",
                "`anthropic.default` is not a table",
            ),
            (
                "[anthropic.default.pdf-forms]\nskill_id = 7\n",
                "`anthropic.default.pdf-forms` is not an entry skillpkg wrote",
            ),
            (
                "[anthropic.default.pdf-forms]\nskill_id = \" \"\nversion = \"1.0.0\"\ndigest = \"h1:\"\n",
                "empty `skill_id`",
            ),
        ] {
            fs_err::write(&path, text).unwrap();
            let error = State::read(&path)
                .and_then(|state| state.get("default", "pdf-forms"))
                .unwrap_err();
            let message = error.to_string();
            assert!(matches!(error, Error::State { .. }), "{text}");
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert!(message.contains(expected), "{text}: {message}");
        }
    }

    #[test]
    fn a_state_file_too_large_or_not_a_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skillpkg-state.toml");
        fs_err::write(&path, vec![b'#'; 2 * 1024 * 1024]).unwrap();
        assert!(matches!(State::read(&path), Err(Error::State { .. })));
        assert!(matches!(State::read(dir.path()), Err(Error::State { .. })));
    }
}
