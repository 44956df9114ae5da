//! Storage behind the registry: metadata and blobs, as traits, so `PostgreSQL` and S3-compatible
//! storage can be added without touching the handlers. The embedded implementation keeps
//! metadata in `SQLite` (WAL) and archives in a content-addressed folder, both under `--data`.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};

use super::api::{SearchHit, SkillInfo, VersionInfo};

/// Storage failures the handlers report as 500.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] rusqlite::Error),
    #[error("blob store: {0}")]
    Io(#[from] io::Error),
}

/// A version to record.
#[derive(Clone, Debug)]
pub(crate) struct NewVersion {
    pub name: String,
    pub version: String,
    pub checksum: String,
    pub digest: String,
    pub size: u64,
    pub description: String,
    pub skill_md: String,
    pub publisher: String,
    pub published_at: i64,
}

/// What happened to a publish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PublishOutcome {
    Created,
    /// The version exists (perhaps yanked), or one that differs from it only in build
    /// metadata: that version and its checksum.
    Exists {
        version: String,
        checksum: String,
    },
    /// The name is taken, by another spelling or other owners.
    NotOwner,
    /// Another skill has this name in another case.
    NameTaken {
        existing: String,
    },
}

/// The outcome of a change that needs ownership.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    Done,
    NotFound,
    NotOwner,
    /// A refused change, with the reason.
    Refused(String),
}

/// Skill and version metadata, users and tokens.
pub(crate) trait MetadataStore: Send + Sync {
    fn user_for_token(&self, token_hash: &str) -> Result<Option<String>, StoreError>;
    fn create_token(&self, user: &str, token_hash: &str, now: i64) -> Result<(), StoreError>;
    fn publish(&self, version: &NewVersion) -> Result<PublishOutcome, StoreError>;
    fn skill(&self, name: &str) -> Result<Option<SkillInfo>, StoreError>;
    /// At most the first `max_chars` characters of a version's SKILL.md.
    fn skill_md_start(
        &self,
        name: &str,
        version: &str,
        max_chars: usize,
    ) -> Result<Option<SkillMdStart>, StoreError>;
    fn search(
        &self,
        query: &str,
        page: usize,
        per_page: usize,
    ) -> Result<(Vec<SearchHit>, usize), StoreError>;
    fn set_yanked(
        &self,
        name: &str,
        version: &str,
        user: &str,
        yanked: bool,
    ) -> Result<Change, StoreError>;
    fn add_owners(&self, name: &str, user: &str, owners: &[String]) -> Result<Change, StoreError>;
    fn remove_owners(
        &self,
        name: &str,
        user: &str,
        owners: &[String],
    ) -> Result<Change, StoreError>;
}

/// Archives by SHA-256.
pub(crate) trait BlobStore: Send + Sync {
    /// Moves the finished file at `temp` into the store under `sha256`.
    fn put(&self, temp: &Path, sha256: &str) -> Result<(), StoreError>;
    /// The stored archive, opened to be streamed: archives run to tens of megabytes and a slow
    /// download lasts minutes, so they are never read whole into memory.
    fn get(&self, sha256: &str) -> Result<Option<Blob>, StoreError>;
}

/// A stored archive, open for reading.
#[derive(Debug)]
pub(crate) struct Blob {
    pub file: std::fs::File,
    /// Its length in bytes, sent as `Content-Length`.
    pub size: u64,
}

/// The start of a version's SKILL.md, for its web page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SkillMdStart {
    pub text: String,
    /// Whether SKILL.md goes on past `text`.
    pub cut: bool,
}

/// `SQLite` metadata.
pub struct Sqlite {
    connection: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS tokens (hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS skills (id INTEGER PRIMARY KEY, name TEXT NOT NULL, lower_name TEXT NOT NULL UNIQUE, description TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS owners (skill_id INTEGER NOT NULL REFERENCES skills(id), user_id INTEGER NOT NULL REFERENCES users(id), PRIMARY KEY (skill_id, user_id));
CREATE TABLE IF NOT EXISTS versions (
    skill_id INTEGER NOT NULL REFERENCES skills(id),
    version TEXT NOT NULL,
    checksum TEXT NOT NULL,
    digest TEXT NOT NULL,
    size INTEGER NOT NULL,
    yanked INTEGER NOT NULL DEFAULT 0,
    published_at INTEGER NOT NULL,
    publisher_id INTEGER NOT NULL REFERENCES users(id),
    skill_md TEXT NOT NULL,
    PRIMARY KEY (skill_id, version)
);
";

impl Sqlite {
    /// Opens (creating) `path`, in WAL mode, readable by its owner only.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        make_private(path)?;
        let connection = Connection::open(path)?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        // FULL: a publish the client saw succeed survives a power cut, not only a crash.
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", "ON")?;
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        connection.execute_batch(SCHEMA)?;
        Ok(Self {
            connection: Mutex::new(connection),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Token hashes and who owns what are nobody else's business, so the database and its `-wal`
/// and `-shm` files are 0600 whatever the umask. The database file is created before `SQLite`
/// opens it, because `SQLite` gives the `-wal` and `-shm` files it creates the database's mode;
/// files left by an older registry are changed.
fn make_private(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("cannot create {}: {error}", path.display()),
                )
            })?;
    }
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let file = PathBuf::from(file);
        if file.exists() {
            crate::fsx::set_mode(&file, 0o600)?;
        }
    }
    Ok(())
}

fn user_id(connection: &Connection, name: &str) -> rusqlite::Result<i64> {
    connection.execute(
        "INSERT OR IGNORE INTO users (name) VALUES (?1)",
        params![name],
    )?;
    connection.query_row(
        "SELECT id FROM users WHERE name = ?1",
        params![name],
        |row| row.get(0),
    )
}

fn is_owner(connection: &Connection, skill_id: i64, user: &str) -> rusqlite::Result<bool> {
    connection
        .query_row(
            "SELECT 1 FROM owners JOIN users ON users.id = owners.user_id WHERE owners.skill_id = ?1 AND users.name = ?2",
            params![skill_id, user],
            |_| Ok(()),
        )
        .optional()
        .map(|found| found.is_some())
}

fn skill_id(connection: &Connection, name: &str) -> rusqlite::Result<Option<(i64, String)>> {
    connection
        .query_row(
            "SELECT id, name FROM skills WHERE lower_name = ?1",
            params![name.to_lowercase()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
}

impl MetadataStore for Sqlite {
    fn user_for_token(&self, token_hash: &str) -> Result<Option<String>, StoreError> {
        let connection = self.lock();
        Ok(connection
            .query_row(
                "SELECT users.name FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.hash = ?1",
                params![token_hash],
                |row| row.get(0),
            )
            .optional()?)
    }

    fn create_token(&self, user: &str, token_hash: &str, now: i64) -> Result<(), StoreError> {
        let connection = self.lock();
        let id = user_id(&connection, user)?;
        connection.execute(
            "INSERT INTO tokens (hash, user_id, created_at) VALUES (?1, ?2, ?3)",
            params![token_hash, id, now],
        )?;
        Ok(())
    }

    fn publish(&self, new: &NewVersion) -> Result<PublishOutcome, StoreError> {
        let mut connection = self.lock();
        let transaction =
            connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let publisher = user_id(&transaction, &new.publisher)?;
        let id = if let Some((id, existing)) = skill_id(&transaction, &new.name)? {
            if existing != new.name {
                return Ok(PublishOutcome::NameTaken { existing });
            }
            if !is_owner(&transaction, id, &new.publisher)? {
                return Ok(PublishOutcome::NotOwner);
            }
            id
        } else {
            transaction.execute(
                "INSERT INTO skills (name, lower_name, description, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![new.name, new.name.to_lowercase(), new.description, new.published_at],
            )?;
            let id = transaction.last_insert_rowid();
            transaction.execute(
                "INSERT INTO owners (skill_id, user_id) VALUES (?1, ?2)",
                params![id, publisher],
            )?;
            id
        };
        // Build metadata does not make a new version (semver §10): `1.0.0+b` is `1.0.0`, and
        // would otherwise be picked over it by `^1.0`. Checked inside this transaction, so two
        // such publishes at once cannot both pass; an exact match is reported first.
        let release = super::api::without_build(&new.version);
        let existing: Option<(String, String)> = transaction
            .query_row(
                "SELECT version, checksum FROM versions WHERE skill_id = ?1 AND (version = ?2 OR substr(version, 1, length(?2) + 1) = ?2 || '+') ORDER BY version = ?3 DESC LIMIT 1",
                params![id, release, new.version],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        if let Some((version, checksum)) = existing {
            return Ok(PublishOutcome::Exists { version, checksum });
        }
        transaction.execute(
            "INSERT INTO versions (skill_id, version, checksum, digest, size, published_at, publisher_id, skill_md) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![id, new.version, new.checksum, new.digest, i64::try_from(new.size).unwrap_or(i64::MAX), new.published_at, publisher, new.skill_md],
        )?;
        transaction.execute(
            "UPDATE skills SET description = ?1 WHERE id = ?2",
            params![new.description, id],
        )?;
        transaction.commit()?;
        Ok(PublishOutcome::Created)
    }

    fn skill(&self, name: &str) -> Result<Option<SkillInfo>, StoreError> {
        let connection = self.lock();
        let Some((id, name, description)) = connection
            .query_row(
                "SELECT id, name, description FROM skills WHERE lower_name = ?1",
                params![name.to_lowercase()],
                |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                    ))
                },
            )
            .optional()?
        else {
            return Ok(None);
        };
        let mut owners: Vec<String> = connection
            .prepare_cached("SELECT users.name FROM owners JOIN users ON users.id = owners.user_id WHERE owners.skill_id = ?1")?
            .query_map(params![id], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        owners.sort();
        let mut versions: Vec<VersionInfo> = connection
            .prepare_cached(
                "SELECT version, checksum, digest, size, yanked, published_at, users.name FROM versions JOIN users ON users.id = versions.publisher_id WHERE skill_id = ?1",
            )?
            .query_map(params![id], |row| {
                Ok(VersionInfo {
                    version: row.get(0)?,
                    checksum: row.get(1)?,
                    digest: row.get(2)?,
                    size: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
                    yanked: row.get::<_, i64>(4)? != 0,
                    published_at: row.get(5)?,
                    publisher: row.get(6)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        versions.sort_by(|a, b| {
            let parse = |v: &str| semver::Version::parse(v).ok();
            parse(&b.version).cmp(&parse(&a.version))
        });
        Ok(Some(SkillInfo {
            name,
            description,
            owners,
            versions,
        }))
    }

    fn skill_md_start(
        &self,
        name: &str,
        version: &str,
        max_chars: usize,
    ) -> Result<Option<SkillMdStart>, StoreError> {
        let connection = self.lock();
        let max_chars = i64::try_from(max_chars).unwrap_or(i64::MAX);
        // substr and length count characters in TEXT, so the cut never splits one.
        Ok(connection
            .query_row(
                "SELECT substr(skill_md, 1, ?3), length(skill_md) > ?3 FROM versions JOIN skills ON skills.id = versions.skill_id WHERE skills.lower_name = ?1 AND versions.version = ?2",
                params![name.to_lowercase(), version, max_chars],
                |row| {
                    Ok(SkillMdStart {
                        text: row.get(0)?,
                        cut: row.get(1)?,
                    })
                },
            )
            .optional()?)
    }

    fn search(
        &self,
        query: &str,
        page: usize,
        per_page: usize,
    ) -> Result<(Vec<SearchHit>, usize), StoreError> {
        let connection = self.lock();
        // The query is matched literally: LIKE's wildcards and the escape character are escaped.
        // SQLite refuses patterns over 50,000 bytes, so the server bounds the query's length.
        let literal = query
            .to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let pattern = format!("%{literal}%");
        let total: i64 = connection.query_row(
            "SELECT COUNT(*) FROM skills WHERE lower_name LIKE ?1 ESCAPE '\\' OR lower(description) LIKE ?1 ESCAPE '\\'",
            params![pattern],
            |row| row.get(0),
        )?;
        let offset =
            i64::try_from(page.saturating_sub(1).saturating_mul(per_page)).unwrap_or(i64::MAX);
        let rows: Vec<(i64, String, String)> = connection
            .prepare_cached("SELECT id, name, description FROM skills WHERE lower_name LIKE ?1 ESCAPE '\\' OR lower(description) LIKE ?1 ESCAPE '\\' ORDER BY lower_name LIMIT ?2 OFFSET ?3")?
            .query_map(params![pattern, i64::try_from(per_page).unwrap_or(20), offset], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let mut hits = Vec::with_capacity(rows.len());
        for (id, name, description) in rows {
            let versions: Vec<String> = connection
                .prepare_cached("SELECT version FROM versions WHERE skill_id = ?1 AND yanked = 0")?
                .query_map(params![id], |row| row.get(0))?
                .collect::<Result<_, _>>()?;
            let latest = versions
                .into_iter()
                .filter_map(|v| semver::Version::parse(&v).ok())
                .max()
                .map(|v| v.to_string());
            hits.push(SearchHit {
                name,
                description,
                latest,
            });
        }
        Ok((hits, usize::try_from(total).unwrap_or(0)))
    }

    fn set_yanked(
        &self,
        name: &str,
        version: &str,
        user: &str,
        yanked: bool,
    ) -> Result<Change, StoreError> {
        let connection = self.lock();
        let Some((id, _)) = skill_id(&connection, name)? else {
            return Ok(Change::NotFound);
        };
        if !is_owner(&connection, id, user)? {
            return Ok(Change::NotOwner);
        }
        let changed = connection.execute(
            "UPDATE versions SET yanked = ?1 WHERE skill_id = ?2 AND version = ?3",
            params![i64::from(yanked), id, version],
        )?;
        Ok(if changed == 0 {
            Change::NotFound
        } else {
            Change::Done
        })
    }

    fn add_owners(&self, name: &str, user: &str, owners: &[String]) -> Result<Change, StoreError> {
        let mut connection = self.lock();
        let transaction =
            connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let Some((id, _)) = skill_id(&transaction, name)? else {
            return Ok(Change::NotFound);
        };
        if !is_owner(&transaction, id, user)? {
            return Ok(Change::NotOwner);
        }
        // All or nothing: every new owner must already be a user of this registry.
        for owner in owners {
            let owner_id: Option<i64> = transaction
                .query_row(
                    "SELECT id FROM users WHERE name = ?1",
                    params![owner],
                    |row| row.get(0),
                )
                .optional()?;
            let Some(owner_id) = owner_id else {
                return Ok(Change::Refused(format!(
                    "`{owner}` is not a user of this registry; an administrator creates users with `skillpkg registry token create --user {owner}`"
                )));
            };
            transaction.execute(
                "INSERT OR IGNORE INTO owners (skill_id, user_id) VALUES (?1, ?2)",
                params![id, owner_id],
            )?;
        }
        transaction.commit()?;
        Ok(Change::Done)
    }

    fn remove_owners(
        &self,
        name: &str,
        user: &str,
        owners: &[String],
    ) -> Result<Change, StoreError> {
        let mut connection = self.lock();
        let Some((id, _)) = skill_id(&connection, name)? else {
            return Ok(Change::NotFound);
        };
        if !is_owner(&connection, id, user)? {
            return Ok(Change::NotOwner);
        }
        let transaction = connection.transaction()?;
        for owner in owners {
            transaction.execute(
                "DELETE FROM owners WHERE skill_id = ?1 AND user_id = (SELECT id FROM users WHERE name = ?2)",
                params![id, owner],
            )?;
        }
        let left: i64 = transaction.query_row(
            "SELECT COUNT(*) FROM owners WHERE skill_id = ?1",
            params![id],
            |row| row.get(0),
        )?;
        if left == 0 {
            return Ok(Change::Refused(
                "a skill must keep at least one owner".into(),
            ));
        }
        transaction.commit()?;
        Ok(Change::Done)
    }
}

/// Archives in `blobs/sha256/ab/cd/<sha256>`.
pub struct FsBlobs {
    root: PathBuf,
}

impl FsBlobs {
    pub fn new(root: PathBuf) -> Self {
        Self { root }
    }

    fn path(&self, sha256: &str) -> Option<PathBuf> {
        if sha256.len() != 64
            || !sha256
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        {
            return None;
        }
        Some(
            self.root
                .join("sha256")
                .join(&sha256[..2])
                .join(&sha256[2..4])
                .join(sha256),
        )
    }
}

impl BlobStore for FsBlobs {
    fn put(&self, temp: &Path, sha256: &str) -> Result<(), StoreError> {
        let path = self
            .path(sha256)
            .ok_or_else(|| io::Error::other("not a sha256"))?;
        if path.exists() {
            return Ok(());
        }
        if let Some(folder) = path.parent() {
            fs_err::create_dir_all(folder)?;
        }
        fs_err::File::open(temp)?.sync_all()?;
        fs_err::rename(temp, &path)?;
        if let Some(folder) = path.parent() {
            crate::fsx::sync_folder(folder);
        }
        Ok(())
    }

    fn get(&self, sha256: &str) -> Result<Option<Blob>, StoreError> {
        let Some(path) = self.path(sha256) else {
            return Ok(None);
        };
        let file = match fs_err::File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error.into()),
        };
        let size = file.metadata()?.len();
        Ok(Some(Blob {
            file: file.into_parts().0,
            size,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::{MetadataStore, NewVersion, PublishOutcome, Sqlite};

    fn version(name: &str, description: &str) -> NewVersion {
        NewVersion {
            name: name.into(),
            version: "1.0.0".into(),
            checksum: "0".repeat(64),
            digest: "h1:x".into(),
            size: 1,
            description: description.into(),
            skill_md: String::new(),
            publisher: "alice".into(),
            published_at: 0,
        }
    }

    #[test]
    fn search_matches_wildcards_literally_and_survives_any_page() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db")).unwrap();
        for (name, description) in [
            ("percent", "Grows sales 100% faster."),
            ("underscore", "Reads snake_case names."),
            ("plain", "Nothing special here."),
        ] {
            assert_eq!(
                store.publish(&version(name, description)).unwrap(),
                PublishOutcome::Created
            );
        }
        let names = |query: &str| {
            store
                .search(query, 1, 20)
                .unwrap()
                .0
                .into_iter()
                .map(|hit| hit.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names("%"), ["percent"]);
        assert_eq!(names("_"), ["underscore"]);
        assert_eq!(names("e_c"), ["underscore"]);
        assert_eq!(names("SPECIAL"), ["plain"]);
        assert_eq!(names("").len(), 3);
        let (hits, total) = store.search("", usize::MAX, 20).unwrap();
        assert!(hits.is_empty());
        assert_eq!(total, 3);
    }

    /// Versions that differ only in build metadata are one version, whichever came first.
    #[test]
    fn build_metadata_does_not_make_a_new_version() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db")).unwrap();
        let at = |number: &str| NewVersion {
            version: number.into(),
            ..version("notes", "Notes.")
        };
        assert_eq!(
            store.publish(&at("1.0.0")).unwrap(),
            PublishOutcome::Created
        );
        assert_eq!(
            store.publish(&at("1.0.0-rc.1+a")).unwrap(),
            PublishOutcome::Created
        );
        for (number, existing) in [
            ("1.0.0+build.7", "1.0.0"),
            ("1.0.0", "1.0.0"),
            ("1.0.0-rc.1", "1.0.0-rc.1+a"),
            ("1.0.0-rc.1+b", "1.0.0-rc.1+a"),
        ] {
            assert_eq!(
                store.publish(&at(number)).unwrap(),
                PublishOutcome::Exists {
                    version: existing.into(),
                    checksum: "0".repeat(64)
                },
                "{number}"
            );
        }
        // Prefixes are not matches.
        assert_eq!(
            store.publish(&at("1.0.0-rc")).unwrap(),
            PublishOutcome::Created
        );
        assert_eq!(
            store.publish(&at("1.0.00")).unwrap(),
            PublishOutcome::Created
        );
    }

    /// The API only admits lowercase names, but the store does not rely on it: a name that
    /// differs only in case is taken, in the same transaction that would have created it.
    #[test]
    fn names_are_unique_whatever_their_case() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db")).unwrap();
        assert_eq!(
            store.publish(&version("notes", "Notes.")).unwrap(),
            PublishOutcome::Created
        );
        let mut other = version("Notes", "Other notes.");
        other.publisher = "bob".into();
        assert_eq!(
            store.publish(&other).unwrap(),
            PublishOutcome::NameTaken {
                existing: "notes".into()
            }
        );
        assert!(
            store
                .skill("Notes")
                .unwrap()
                .is_some_and(|s| s.name == "notes")
        );
    }
}
