//! The embedded metadata store: `SQLite` in WAL mode, its schema built by numbered migrations.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::search::{self, Query};
use super::{
    Change, ExportedVersion, MetadataStore, NewToken, NewVersion, OnOpen, PublishOutcome, Record,
    Revoked, Scope, SkillMdStart, StoreError, StoredToken, TOKEN_ID_LEN, TokenListing,
};
use crate::registry::api::{SearchHit, SkillInfo, VersionInfo};
use crate::registry::review::Review;

/// `SQLite` metadata.
pub struct Sqlite {
    connection: Mutex<Connection>,
    path: PathBuf,
}

/// A value as JSON, for a TEXT column: the review's types always serialise.
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// One schema change: SQL, then optionally Rust for what SQL cannot do.
struct Migration {
    sql: &'static str,
    then: Option<fn(&Transaction<'_>) -> rusqlite::Result<()>>,
}

/// The schema's history, oldest first. A database records how many it has had in
/// `PRAGMA user_version`; opening it applies the rest, each in its own transaction. Append
/// only: a released migration never changes.
const MIGRATIONS: &[Migration] = &[
    // 1: the first schema (a registry from before migrations has it, at user_version 0).
    Migration {
        sql: SCHEMA_1,
        then: None,
    },
    // 2: search by words, recent and popular skills.
    Migration {
        sql: "
ALTER TABLE skills ADD COLUMN keywords TEXT NOT NULL DEFAULT '';
ALTER TABLE skills ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
ALTER TABLE skills ADD COLUMN downloads INTEGER NOT NULL DEFAULT 0;
ALTER TABLE skills ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
UPDATE skills SET updated_at = COALESCE((SELECT MAX(published_at) FROM versions WHERE versions.skill_id = skills.id), created_at);
CREATE INDEX skills_by_downloads ON skills (downloads DESC, lower_name);
CREATE INDEX skills_by_update ON skills (updated_at DESC, lower_name);
",
        then: Some(fill_search_text),
    },
    // 3: token scopes, labels, expiry and revocation; tokens named by the start of their hash.
    Migration {
        sql: "
ALTER TABLE tokens ADD COLUMN id TEXT NOT NULL DEFAULT '';
UPDATE tokens SET id = substr(hash, 1, 12);
ALTER TABLE tokens ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'publish,yank,owners,read';
ALTER TABLE tokens ADD COLUMN expires_at INTEGER;
ALTER TABLE tokens ADD COLUMN revoked_at INTEGER;
CREATE INDEX tokens_by_id ON tokens (id);
",
        then: None,
    },
    // 4: what a version's page shows about its files, worked out at publish (JSON; empty for
    // versions published before).
    Migration {
        sql: "
ALTER TABLE versions ADD COLUMN files TEXT NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN frontmatter TEXT NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN listing TEXT NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN lint TEXT NOT NULL DEFAULT '';
",
        then: None,
    },
];

/// Lowercasing is Rust's (see [`search`]), so the search text of skills stored before it
/// existed is written here.
fn fill_search_text(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(i64, String, String)> = transaction
        .prepare("SELECT id, name, description FROM skills")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut update = transaction.prepare("UPDATE skills SET search_text = ?1 WHERE id = ?2")?;
    for (id, name, description) in rows {
        update.execute(params![search::text(&name, &description, ""), id])?;
    }
    Ok(())
}

/// Applies the migrations `connection` has not had. Each runs in an immediate transaction that
/// reads the version again, so two servers starting on one database migrate it once.
fn migrate(connection: &mut Connection, path: &Path) -> Result<usize, StoreError> {
    let mut applied = 0;
    loop {
        let transaction =
            connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let done: i64 = transaction.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        let done = usize::try_from(done).unwrap_or(usize::MAX);
        super::check_schema(&path.display().to_string(), done, MIGRATIONS.len())?;
        let Some(migration) = MIGRATIONS.get(done) else {
            return Ok(applied);
        };
        transaction.execute_batch(migration.sql)?;
        if let Some(then) = migration.then {
            then(&transaction)?;
        }
        transaction.pragma_update(None, "user_version", done + 1)?;
        transaction.commit()?;
        applied += 1;
    }
}

/// How many migrations the database has had.
fn schema_done(connection: &Connection) -> Result<usize, StoreError> {
    let done: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    Ok(usize::try_from(done).unwrap_or(usize::MAX))
}

const SCHEMA_1: &str = "
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
    pub fn open(path: &Path, on_open: OnOpen) -> Result<Self, StoreError> {
        make_private(path)?;
        let connection = Connection::open(path)?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        // FULL: a publish the client saw succeed survives a power cut, not only a crash.
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", "ON")?;
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        let mut connection = connection;
        if on_open == OnOpen::Migrate {
            migrate(&mut connection, path)?;
        } else {
            let done = schema_done(&connection)?;
            super::check_schema(&path.display().to_string(), done, MIGRATIONS.len())?;
            if on_open == OnOpen::Require && done < MIGRATIONS.len() {
                return Err(StoreError::Schema(format!(
                    "{} has schema {done} and this skillpkg needs {}: run `skillpkg registry migrate`, or start without --no-migrate",
                    path.display(),
                    MIGRATIONS.len()
                )));
            }
        }
        Ok(Self {
            connection: Mutex::new(connection),
            path: path.to_path_buf(),
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

/// A count or offset as `SQLite`'s integer.
fn as_sql(count: impl TryInto<i64>) -> i64 {
    count.try_into().unwrap_or(i64::MAX)
}

/// The search hits for `names` (in any case), in that order: each with its newest stable
/// version that is not yanked, and its newest such pre-release when that is newer.
fn hits(connection: &Connection, names: &[String]) -> Result<Vec<SearchHit>, StoreError> {
    let mut skill = connection.prepare_cached(
        "SELECT id, name, description, downloads, updated_at FROM skills WHERE lower_name = ?1",
    )?;
    let mut versions = connection
        .prepare_cached("SELECT version FROM versions WHERE skill_id = ?1 AND yanked = 0")?;
    let mut hits = Vec::with_capacity(names.len());
    for name in names {
        let Some((id, name, description, downloads, updated_at)) = skill
            .query_row(params![name.to_lowercase()], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, i64>(4)?,
                ))
            })
            .optional()?
        else {
            continue;
        };
        let parsed: Vec<semver::Version> = versions
            .query_map(params![id], |row| row.get::<_, String>(0))?
            .filter_map(|version| version.ok()?.parse().ok())
            .collect();
        let (latest, prerelease) = super::newest(&parsed);
        hits.push(SearchHit {
            name,
            description,
            latest,
            prerelease,
            downloads: u64::try_from(downloads).unwrap_or(0),
            updated_at,
        });
    }
    Ok(hits)
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
    /// (the migrations the database has had, the migrations this build knows).
    fn schema(&self) -> Result<(usize, usize), StoreError> {
        Ok((schema_done(&self.lock())?, MIGRATIONS.len()))
    }

    /// Applies the migrations the database lacks; how many.
    fn migrate(&self) -> Result<usize, StoreError> {
        migrate(&mut self.lock(), &self.path)
    }

    fn token(&self, token_hash: &str) -> Result<Option<StoredToken>, StoreError> {
        let connection = self.lock();
        Ok(connection
            .prepare_cached(
                "SELECT users.name, tokens.hash, tokens.scopes, tokens.expires_at, tokens.revoked_at FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.hash = ?1",
            )?
            .query_row(params![token_hash], |row| {
                Ok(StoredToken {
                    user: row.get(0)?,
                    hash: row.get(1)?,
                    scopes: Scope::split(&row.get::<_, String>(2)?),
                    expires_at: row.get(3)?,
                    revoked_at: row.get(4)?,
                })
            })
            .optional()?)
    }

    fn create_token(&self, token: &NewToken) -> Result<(), StoreError> {
        let connection = self.lock();
        let id = user_id(&connection, &token.user)?;
        connection.execute(
            "INSERT INTO tokens (hash, user_id, created_at, id, label, scopes, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                token.hash,
                id,
                token.created_at,
                &token.hash[..TOKEN_ID_LEN.min(token.hash.len())],
                token.label,
                Scope::join(&token.scopes),
                token.expires_at
            ],
        )?;
        Ok(())
    }

    fn tokens(&self, user: Option<&str>) -> Result<Vec<TokenListing>, StoreError> {
        let connection = self.lock();
        let mut statement = connection.prepare_cached(
            "SELECT tokens.id, users.name, tokens.label, tokens.scopes, tokens.created_at, tokens.expires_at, tokens.revoked_at FROM tokens JOIN users ON users.id = tokens.user_id WHERE ?1 IS NULL OR users.name = ?1 ORDER BY tokens.created_at, tokens.rowid",
        )?;
        let listed = statement
            .query_map(params![user], |row| {
                Ok(TokenListing {
                    id: row.get(0)?,
                    user: row.get(1)?,
                    label: row.get(2)?,
                    scopes: Scope::split(&row.get::<_, String>(3)?)
                        .into_iter()
                        .map(Scope::as_str)
                        .collect(),
                    created_at: row.get(4)?,
                    expires_at: row.get(5)?,
                    revoked_at: row.get(6)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(listed)
    }

    fn revoke_token(&self, id: &str, now: i64) -> Result<Revoked, StoreError> {
        let mut connection = self.lock();
        let transaction = connection.transaction()?;
        // Ids are lowercase hex: anything else matches nothing, and LIKE's wildcards never
        // reach the query.
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(Revoked::NotFound);
        }
        let id = id.to_ascii_lowercase();
        let found: Vec<(String, String, Option<i64>)> = transaction
            .prepare("SELECT tokens.id, users.name, tokens.revoked_at FROM tokens JOIN users ON users.id = tokens.user_id WHERE substr(tokens.id, 1, length(?1)) = ?1 ORDER BY tokens.id LIMIT 10")?
            .query_map(params![id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let outcome = match found.as_slice() {
            [] => Revoked::NotFound,
            [(id, _, Some(_))] => Revoked::Already { id: id.clone() },
            [(id, user, None)] => {
                transaction.execute(
                    "UPDATE tokens SET revoked_at = ?1 WHERE id = ?2",
                    params![now, id],
                )?;
                Revoked::Done {
                    user: user.clone(),
                    id: id.clone(),
                }
            }
            several => Revoked::Ambiguous(several.iter().map(|(id, _, _)| id.clone()).collect()),
        };
        transaction.commit()?;
        Ok(outcome)
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
                "INSERT INTO skills (name, lower_name, description, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
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
        let release = crate::registry::api::without_build(&new.version);
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
        let review = &new.review;
        transaction.execute(
            "INSERT INTO versions (skill_id, version, checksum, digest, size, published_at, publisher_id, skill_md, files, frontmatter, listing, lint) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                id,
                new.version,
                new.checksum,
                new.digest,
                i64::try_from(new.size).unwrap_or(i64::MAX),
                new.published_at,
                publisher,
                new.skill_md,
                json(&review.files),
                json(&review.frontmatter),
                json(&review.listing),
                json(&review.findings),
            ],
        )?;
        // The newest publish speaks for the skill, whatever its version number.
        transaction.execute(
            "UPDATE skills SET description = ?1, keywords = ?2, search_text = ?3, updated_at = max(updated_at, ?4) WHERE id = ?5",
            params![
                new.description,
                new.keywords,
                search::text(&new.name, &new.description, &new.keywords),
                new.published_at,
                id
            ],
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

    fn review(&self, name: &str, version: &str) -> Result<Option<Review>, StoreError> {
        let connection = self.lock();
        let columns: Option<[String; 4]> = connection
            .prepare_cached("SELECT files, frontmatter, listing, lint FROM versions JOIN skills ON skills.id = versions.skill_id WHERE skills.lower_name = ?1 AND versions.version = ?2")?
            .query_row(params![name.to_lowercase(), version], |row| {
                Ok([row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?])
            })
            .optional()?;
        let Some([files, frontmatter, listing, lint]) = columns else {
            return Ok(None);
        };
        // Empty for a version published before they were recorded; unreadable JSON (which
        // this code never writes) reads as not recorded rather than failing the page.
        let parsed = (|| {
            Some(Review {
                files: serde_json::from_str(&files).ok()?,
                frontmatter: serde_json::from_str(&frontmatter).ok()?,
                listing: serde_json::from_str(&listing).ok()?,
                findings: serde_json::from_str(&lint).ok()?,
            })
        })();
        Ok(parsed)
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
        query: &Query,
        page: usize,
        per_page: usize,
    ) -> Result<(Vec<SearchHit>, usize), StoreError> {
        let connection = self.lock();
        let offset = page.saturating_sub(1).saturating_mul(per_page);
        if query.is_empty() {
            // Everything, most downloaded first: the database orders and pages it.
            let total: i64 =
                connection.query_row("SELECT COUNT(*) FROM skills", [], |row| row.get(0))?;
            let names: Vec<String> = connection
                .prepare_cached(
                    "SELECT name FROM skills ORDER BY downloads DESC, lower_name LIMIT ?1 OFFSET ?2",
                )?
                .query_map(params![as_sql(per_page), as_sql(offset)], |row| row.get(0))?
                .collect::<Result<_, _>>()?;
            let hits = hits(&connection, &names)?;
            return Ok((hits, usize::try_from(total).unwrap_or(0)));
        }
        // Every word must occur in the lowercase search text (instr: a literal match, with no
        // pattern syntax to escape). Each match is ranked by `search`'s rules as it is read,
        // in place (only its name is copied); the page is picked with the database unlocked.
        let mut sql = String::from("SELECT search_text, downloads FROM skills WHERE 1");
        for index in 1..=query.words().len() {
            sql.push_str(" AND instr(search_text, ?");
            sql.push_str(&index.to_string());
            sql.push_str(") > 0");
        }
        let ranks: Vec<search::Rank> = connection
            .prepare_cached(&sql)?
            .query_map(rusqlite::params_from_iter(query.words()), |row| {
                let text = row.get_ref(0)?.as_str()?;
                let downloads = u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0);
                Ok(search::rank_text(query, text, downloads))
            })?
            .collect::<Result<_, _>>()?;
        drop(connection);
        let total = ranks.len();
        let names = search::page(ranks, offset, per_page);
        Ok((hits(&self.lock(), &names)?, total))
    }

    fn recent(&self, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        let connection = self.lock();
        let names: Vec<String> = connection
            .prepare_cached(
                "SELECT name FROM skills ORDER BY updated_at DESC, lower_name LIMIT ?1",
            )?
            .query_map(params![as_sql(limit)], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        hits(&connection, &names)
    }

    fn popular(&self, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        let connection = self.lock();
        let names: Vec<String> = connection
            .prepare_cached("SELECT name FROM skills ORDER BY downloads DESC, lower_name LIMIT ?1")?
            .query_map(params![as_sql(limit)], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        hits(&connection, &names)
    }

    fn add_downloads(&self, counts: &[(String, u64)]) -> Result<(), StoreError> {
        let mut connection = self.lock();
        let transaction = connection.transaction()?;
        {
            let mut add = transaction.prepare_cached(
                "UPDATE skills SET downloads = downloads + ?1 WHERE lower_name = ?2",
            )?;
            for (name, count) in counts {
                add.execute(params![as_sql(*count), name.to_lowercase()])?;
            }
        }
        transaction.commit()?;
        Ok(())
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

    fn checksums(&self) -> Result<HashSet<String>, StoreError> {
        let connection = self.lock();
        let sums = connection
            .prepare("SELECT DISTINCT checksum FROM versions")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(sums)
    }

    fn ping(&self) -> Result<(), StoreError> {
        self.lock().query_row("SELECT 1", [], |_| Ok(()))?;
        Ok(())
    }

    fn is_empty(&self) -> Result<bool, StoreError> {
        let connection = self.lock();
        let rows: i64 = connection.query_row(
            "SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM skills)",
            [],
            |row| row.get(0),
        )?;
        Ok(rows == 0)
    }

    fn export(
        &self,
        each: &mut dyn FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        // One read transaction: the export is one moment of the registry.
        let mut connection = self.lock();
        let transaction = connection.transaction()?;
        let users: Vec<String> = transaction
            .prepare("SELECT name FROM users ORDER BY id")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        for name in users {
            each(Record::User { name })?;
        }
        let mut tokens = transaction.prepare(
            "SELECT users.name, hash, label, scopes, created_at, expires_at, revoked_at FROM tokens JOIN users ON users.id = tokens.user_id ORDER BY tokens.created_at, tokens.rowid",
        )?;
        let mut rows = tokens.query([])?;
        while let Some(row) = rows.next()? {
            each(Record::Token {
                user: row.get(0)?,
                hash: row.get(1)?,
                label: row.get(2)?,
                scopes: row.get(3)?,
                created_at: row.get(4)?,
                expires_at: row.get(5)?,
                revoked_at: row.get(6)?,
            })?;
        }
        let mut skills = transaction.prepare(
            "SELECT id, name, description, keywords, downloads, created_at, updated_at FROM skills ORDER BY id",
        )?;
        let mut owners = transaction.prepare(
            "SELECT users.name FROM owners JOIN users ON users.id = owners.user_id WHERE skill_id = ?1 ORDER BY users.name",
        )?;
        let mut versions = transaction.prepare(
            "SELECT version, checksum, digest, size, yanked, published_at, users.name, skill_md, files, frontmatter, listing, lint FROM versions JOIN users ON users.id = versions.publisher_id WHERE skill_id = ?1 ORDER BY published_at, version",
        )?;
        let mut rows = skills.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let name: String = row.get(1)?;
            each(Record::Skill {
                name: name.clone(),
                description: row.get(2)?,
                keywords: row.get(3)?,
                downloads: row.get(4)?,
                created_at: row.get(5)?,
                updated_at: row.get(6)?,
                owners: owners
                    .query_map(params![id], |row| row.get(0))?
                    .collect::<Result<_, _>>()?,
            })?;
            let mut listed = versions.query(params![id])?;
            while let Some(row) = listed.next()? {
                each(Record::Version(ExportedVersion {
                    skill: name.clone(),
                    version: row.get(0)?,
                    checksum: row.get(1)?,
                    digest: row.get(2)?,
                    size: row.get(3)?,
                    yanked: row.get::<_, i64>(4)? != 0,
                    published_at: row.get(5)?,
                    publisher: row.get(6)?,
                    skill_md: row.get(7)?,
                    files: row.get(8)?,
                    frontmatter: row.get(9)?,
                    listing: row.get(10)?,
                    lint: row.get(11)?,
                }))?;
            }
        }
        Ok(())
    }

    fn import(&self, record: &Record) -> Result<(), StoreError> {
        let mut connection = self.lock();
        let transaction = connection.transaction()?;
        match record {
            Record::User { name } => {
                user_id(&transaction, name)?;
            }
            Record::Token {
                user,
                hash,
                label,
                scopes,
                created_at,
                expires_at,
                revoked_at,
            } => {
                let id = user_id(&transaction, user)?;
                transaction.execute(
                    "INSERT INTO tokens (hash, user_id, created_at, id, label, scopes, expires_at, revoked_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        hash,
                        id,
                        created_at,
                        &hash[..TOKEN_ID_LEN.min(hash.len())],
                        label,
                        scopes,
                        expires_at,
                        revoked_at
                    ],
                )?;
            }
            Record::Skill {
                name,
                description,
                keywords,
                downloads,
                created_at,
                updated_at,
                owners,
            } => {
                transaction.execute(
                    "INSERT INTO skills (name, lower_name, description, keywords, search_text, downloads, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        name,
                        name.to_lowercase(),
                        description,
                        keywords,
                        search::text(name, description, keywords),
                        downloads,
                        created_at,
                        updated_at
                    ],
                )?;
                let id = transaction.last_insert_rowid();
                for owner in owners {
                    let owner = user_id(&transaction, owner)?;
                    transaction.execute(
                        "INSERT OR IGNORE INTO owners (skill_id, user_id) VALUES (?1, ?2)",
                        params![id, owner],
                    )?;
                }
            }
            Record::Version(version) => {
                let Some((id, _)) = skill_id(&transaction, &version.skill)? else {
                    return Err(StoreError::Schema(format!(
                        "version {} of `{}` comes before its skill",
                        version.version, version.skill
                    )));
                };
                let publisher = user_id(&transaction, &version.publisher)?;
                transaction.execute(
                    "INSERT INTO versions (skill_id, version, checksum, digest, size, yanked, published_at, publisher_id, skill_md, files, frontmatter, listing, lint) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                    params![
                        id,
                        version.version,
                        version.checksum,
                        version.digest,
                        version.size,
                        i64::from(version.yanked),
                        version.published_at,
                        publisher,
                        version.skill_md,
                        version.files,
                        version.frontmatter,
                        version.listing,
                        version.lint
                    ],
                )?;
            }
        }
        transaction.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, params};

    use super::super::search::{self, Query};
    use super::{
        MIGRATIONS, MetadataStore, NewToken, NewVersion, OnOpen, PublishOutcome, Review, Revoked,
        SCHEMA_1, Scope, Sqlite,
    };
    use crate::registry::review::{FileEntry, Finding, ListingLine};

    fn version(name: &str, description: &str) -> NewVersion {
        NewVersion {
            name: name.into(),
            version: "1.0.0".into(),
            checksum: "0".repeat(64),
            digest: "h1:x".into(),
            size: 1,
            description: description.into(),
            skill_md: String::new(),
            keywords: String::new(),
            review: Review::default(),
            publisher: "alice".into(),
            published_at: 0,
        }
    }

    #[test]
    fn search_matches_wildcards_literally_and_survives_any_page() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db"), OnOpen::Migrate).unwrap();
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
                .search(&Query::new(query), 1, 20)
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
        let (hits, total) = store.search(&Query::new(""), usize::MAX, 20).unwrap();
        assert!(hits.is_empty());
        assert_eq!(total, 3);
    }

    fn names(store: &Sqlite, query: &str, page: usize, per_page: usize) -> (Vec<String>, usize) {
        let (hits, total) = store.search(&Query::new(query), page, per_page).unwrap();
        (hits.into_iter().map(|hit| hit.name).collect(), total)
    }

    #[test]
    fn words_match_independently_and_rank_by_name_relevance_then_downloads() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db"), OnOpen::Migrate).unwrap();
        for (name, description, keywords) in [
            (
                "budget-helper",
                "Answers finance questions for the team.",
                "",
            ),
            ("team-finance", "Quarterly numbers.", ""),
            ("ledger", "Keeps the books.", "finance, team"),
            ("team-roster", "Who is on call.", ""),
            ("ärger-log", "Löst ÄRGER.", ""),
        ] {
            let mut new = version(name, description);
            new.keywords = keywords.into();
            assert_eq!(store.publish(&new).unwrap(), PublishOutcome::Created);
        }
        let (found, total) = names(&store, "team finance", 1, 20);
        assert_eq!(found, ["team-finance", "ledger", "budget-helper"]);
        assert_eq!(total, 3);
        assert_eq!(
            names(&store, "FINANCE  team", 1, 20).0,
            names(&store, "team finance", 1, 20).0
        );
        assert_eq!(names(&store, "team marketing", 1, 20).1, 0);
        // Unicode lowercasing on both sides.
        assert_eq!(names(&store, "ärger", 1, 20).0, ["ärger-log"]);
        // Downloads order otherwise equal matches.
        store
            .add_downloads(&[("team-roster".into(), 5), ("team-finance".into(), 1)])
            .unwrap();
        store.add_downloads(&[("team-roster".into(), 2)]).unwrap();
        let (found, _) = names(&store, "", 1, 2);
        assert_eq!(found, ["team-roster", "team-finance"]);
        let popular: Vec<_> = store
            .popular(2)
            .unwrap()
            .into_iter()
            .map(|h| (h.name, h.downloads))
            .collect();
        assert_eq!(
            popular,
            [
                ("team-roster".to_owned(), 7),
                ("team-finance".to_owned(), 1)
            ]
        );
        // Pages split the ranked list.
        let (second, total) = names(&store, "team", 2, 2);
        assert_eq!(total, 4);
        assert_eq!(second.len(), 2);
        let (first, _) = names(&store, "team", 1, 2);
        assert!(first.iter().all(|name| !second.contains(name)));
    }

    /// The database's filter is `search::matches`, whatever the text.
    #[test]
    fn the_sql_filter_agrees_with_the_definition() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db"), OnOpen::Migrate).unwrap();
        let texts = [
            ("alpha", "Straße and İstanbul, 100% off_line", "x"),
            ("beta", "plain words\nover lines", "ÄRGER"),
            ("gamma", "quote ' and \" and %_", ""),
        ];
        for (name, description, keywords) in texts {
            let mut new = version(name, description);
            new.keywords = keywords.into();
            store.publish(&new).unwrap();
        }
        for query in [
            "straße",
            "%",
            "_",
            "'",
            "\"",
            "ärger",
            "İstanbul",
            "over lines",
            "a",
            "off_line 100%",
            "e ı",
        ] {
            let query = Query::new(query);
            let expected: Vec<&str> = texts
                .iter()
                .filter(|(name, description, keywords)| {
                    search::matches(&query, &search::text(name, description, keywords))
                })
                .map(|(name, _, _)| *name)
                .collect();
            let (mut found, _) = names(&store, &query.words().join(" "), 1, 20);
            found.sort();
            assert_eq!(found, expected, "{query:?}");
        }
    }

    #[test]
    fn latest_is_the_newest_stable_version_and_prereleases_are_apart() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db"), OnOpen::Migrate).unwrap();
        let at = |name: &str, number: &str, when: i64| NewVersion {
            version: number.into(),
            published_at: when,
            ..version(name, "A skill.")
        };
        for (name, number, when) in [
            ("mixed", "1.0.0", 10),
            ("mixed", "2.0.0-rc.1", 20),
            ("only-pre", "0.1.0-alpha", 30),
            ("old-pre", "1.0.0-beta", 5),
            ("old-pre", "1.0.0", 6),
        ] {
            store.publish(&at(name, number, when)).unwrap();
        }
        let hits = store.search(&Query::new(""), 1, 20).unwrap().0;
        let get = |name: &str| hits.iter().find(|hit| hit.name == name).unwrap().clone();
        assert_eq!(get("mixed").latest.as_deref(), Some("1.0.0"));
        assert_eq!(get("mixed").prerelease.as_deref(), Some("2.0.0-rc.1"));
        assert_eq!(get("only-pre").latest, None);
        assert_eq!(get("only-pre").prerelease.as_deref(), Some("0.1.0-alpha"));
        assert_eq!(
            get("old-pre").prerelease,
            None,
            "older than the stable release"
        );
        let recent: Vec<String> = store
            .recent(10)
            .unwrap()
            .into_iter()
            .map(|h| h.name)
            .collect();
        assert_eq!(recent, ["only-pre", "mixed", "old-pre"]);
        assert_eq!(get("mixed").updated_at, 20);
    }

    #[test]
    fn tokens_are_listed_revoked_by_id_prefix_and_keep_their_scopes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db"), OnOpen::Migrate).unwrap();
        let token = |hash: &str, scopes: &[Scope], expires_at| NewToken {
            user: "alice".into(),
            hash: hash.into(),
            label: "ci".into(),
            scopes: scopes.to_vec(),
            created_at: 1,
            expires_at,
        };
        store
            .create_token(&token(
                &format!("aaaa1{}", "0".repeat(59)),
                &[Scope::Read],
                Some(99),
            ))
            .unwrap();
        store
            .create_token(&token(
                &format!("aaaa2{}", "0".repeat(59)),
                &Scope::ALL,
                None,
            ))
            .unwrap();
        let stored = store
            .token(&format!("aaaa1{}", "0".repeat(59)))
            .unwrap()
            .unwrap();
        assert_eq!(
            (stored.scopes, stored.expires_at, stored.revoked_at),
            (vec![Scope::Read], Some(99), None)
        );
        let listed = store.tokens(Some("alice")).unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0].id, "aaaa10000000");
        assert_eq!(listed[1].scopes, ["publish", "yank", "owners", "read"]);
        assert!(store.tokens(Some("bob")).unwrap().is_empty());
        assert_eq!(
            store.revoke_token("aaaa", 5).unwrap(),
            Revoked::Ambiguous(vec!["aaaa10000000".into(), "aaaa20000000".into()])
        );
        assert_eq!(store.revoke_token("%", 5).unwrap(), Revoked::NotFound);
        assert_eq!(store.revoke_token("bbbb", 5).unwrap(), Revoked::NotFound);
        assert_eq!(
            store.revoke_token("AAAA2", 5).unwrap(),
            Revoked::Done {
                user: "alice".into(),
                id: "aaaa20000000".into()
            }
        );
        assert_eq!(
            store.revoke_token("aaaa2", 6).unwrap(),
            Revoked::Already {
                id: "aaaa20000000".into()
            }
        );
        assert_eq!(
            store
                .token(&format!("aaaa2{}", "0".repeat(59)))
                .unwrap()
                .unwrap()
                .revoked_at,
            Some(5)
        );
    }

    /// A registry from before migrations (`user_version` 0) is brought up to date in place: its
    /// tokens may do everything, and its skills are searchable by words.
    #[test]
    fn an_old_database_is_migrated_and_a_newer_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("registry.db");
        {
            let old = Connection::open(&path).unwrap();
            old.execute_batch(SCHEMA_1).unwrap();
            old.execute("INSERT INTO users (name) VALUES ('alice')", [])
                .unwrap();
            old.execute(
                "INSERT INTO tokens (hash, user_id, created_at) VALUES (?1, 1, 7)",
                params!["f".repeat(64)],
            )
            .unwrap();
            old.execute("INSERT INTO skills (name, lower_name, description, created_at) VALUES ('team-notes', 'team-notes', 'Keeps ÄRGER notes.', 3)", []).unwrap();
            old.execute("INSERT INTO versions (skill_id, version, checksum, digest, size, published_at, publisher_id, skill_md) VALUES (1, '1.0.0', 'c', 'd', 1, 4, 1, '')", []).unwrap();
        }
        let store = Sqlite::open(&path, OnOpen::Migrate).unwrap();
        let stored = store.token(&"f".repeat(64)).unwrap().unwrap();
        assert_eq!(stored.scopes, Scope::ALL);
        assert_eq!(store.tokens(None).unwrap()[0].id, "f".repeat(12));
        assert_eq!(names(&store, "ärger notes", 1, 20).0, ["team-notes"]);
        // A version from before reviews were recorded has none.
        assert_eq!(store.review("team-notes", "1.0.0").unwrap(), None);
        assert_eq!(store.recent(1).unwrap()[0].updated_at, 4);
        drop(store);
        let version: i64 = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(usize::try_from(version).unwrap(), MIGRATIONS.len());
        // Opening again changes nothing.
        drop(Sqlite::open(&path, OnOpen::Migrate).unwrap());
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", 999)
            .unwrap();
        let Err(error) = Sqlite::open(&path, OnOpen::Migrate) else {
            panic!("a newer schema must be refused")
        };
        assert!(error.to_string().contains("newer skillpkg"), "{error}");
    }

    /// A version's review is stored with it and read back whole; another version or skill has
    /// none.
    #[test]
    fn a_review_is_stored_with_its_version() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db"), OnOpen::Migrate).unwrap();
        let review = Review {
            files: vec![FileEntry {
                path: "scripts/run.sh".into(),
                size: 12,
                executable: true,
                entry: Some(3),
            }],
            frontmatter: vec![("name".into(), "notes".into())],
            listing: ListingLine {
                line: Some("- notes: Notes.".into()),
                chars: 15,
                tokens: 4,
                note: None,
                agent: "Claude Code".into(),
            },
            findings: vec![Finding {
                code: "SK101".into(),
                severity: "warning".into(),
                ..Finding::default()
            }],
        };
        let new = NewVersion {
            review: review.clone(),
            ..version("notes", "Notes.")
        };
        assert_eq!(store.publish(&new).unwrap(), PublishOutcome::Created);
        assert_eq!(store.review("Notes", "1.0.0").unwrap(), Some(review));
        assert_eq!(store.review("notes", "2.0.0").unwrap(), None);
        assert_eq!(store.review("other", "1.0.0").unwrap(), None);
    }

    /// Versions that differ only in build metadata are one version, whichever came first.
    #[test]
    fn build_metadata_does_not_make_a_new_version() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(&dir.path().join("registry.db"), OnOpen::Migrate).unwrap();
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
        let store = Sqlite::open(&dir.path().join("registry.db"), OnOpen::Migrate).unwrap();
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
