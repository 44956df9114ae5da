//! The metadata store for a registry past one machine: `PostgreSQL`, shared by any number of
//! stateless `registry serve` processes.
//!
//! It keeps [`super::sqlite`]'s schema and guarantees, with the database doing the locking
//! across processes:
//!
//! - a publish runs in one transaction that first locks the skill's row (`FOR UPDATE`), so
//!   publishes of one skill are serialised across every server: of two publishes of one
//!   version exactly one inserts it, and a version that differs only in build metadata is seen;
//! - a new name is claimed with `INSERT … ON CONFLICT (lower_name) DO NOTHING`: the first
//!   publisher owns it, whatever the case, and the loser reads the winner's row;
//! - migrations run under a transaction-scoped advisory lock, so servers starting together
//!   migrate once.
//!
//! The client is `postgres` (the blocking face of `tokio-postgres`): the store's methods run on
//! tokio's blocking pool like the `SQLite` store's, and the connections are pooled here, each
//! with its prepared statements.

use std::collections::{HashMap, HashSet};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use postgres::types::ToSql;
use postgres::{Client, GenericClient, NoTls, Statement};

use super::search::{self, Query};
use super::{
    Change, ExportedVersion, MetadataStore, NewToken, NewVersion, OnOpen, PublishOutcome, Record,
    Revoked, Scope, SkillMdStart, StoreError, StoredToken, TOKEN_ID_LEN, TokenListing,
};
use crate::registry::api::{SearchHit, SkillInfo, VersionInfo};
use crate::registry::review::Review;

/// The schema's history, oldest first, as `SQLite`'s: append only. The first is the whole
/// schema the `SQLite` store reached in its four.
const MIGRATIONS: &[&str] = &["
CREATE TABLE users (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE tokens (
    hash TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id),
    label TEXT NOT NULL DEFAULT '',
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    revoked_at BIGINT,
    seq BIGSERIAL NOT NULL
);
CREATE INDEX tokens_by_id ON tokens (id);
CREATE TABLE skills (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    lower_name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL,
    keywords TEXT NOT NULL DEFAULT '',
    search_text TEXT NOT NULL DEFAULT '',
    downloads BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX skills_by_downloads ON skills (downloads DESC, lower_name);
CREATE INDEX skills_by_update ON skills (updated_at DESC, lower_name);
CREATE TABLE owners (
    skill_id BIGINT NOT NULL REFERENCES skills(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    PRIMARY KEY (skill_id, user_id)
);
CREATE TABLE versions (
    skill_id BIGINT NOT NULL REFERENCES skills(id),
    version TEXT NOT NULL,
    checksum TEXT NOT NULL,
    digest TEXT NOT NULL,
    size BIGINT NOT NULL,
    yanked BOOLEAN NOT NULL DEFAULT FALSE,
    published_at BIGINT NOT NULL,
    publisher_id BIGINT NOT NULL REFERENCES users(id),
    skill_md TEXT NOT NULL,
    files TEXT NOT NULL DEFAULT '',
    frontmatter TEXT NOT NULL DEFAULT '',
    listing TEXT NOT NULL DEFAULT '',
    lint TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (skill_id, version)
);
CREATE INDEX versions_by_checksum ON versions (checksum);
"];

/// The advisory lock migrations hold (any constant; "skpk" in ASCII).
const MIGRATION_LOCK: i64 = 0x736b_706b;

/// How many connections one server process keeps at most, unless told: twice its cores. A
/// server cannot usefully drive more queries at once than its own cores can answer, and on a
/// machine shared with the database every extra backend takes CPU from the others: measured on
/// 2 cores (`cargo bench --bench registry`), 4 connections kept p99 under 20 ms where 16 did
/// not.
pub fn default_pool_size() -> usize {
    std::thread::available_parallelism().map_or(4, |cores| cores.get() * 2)
}

/// How long a request waits for a free connection before it fails.
const POOL_WAIT: Duration = Duration::from_secs(10);

/// `PostgreSQL` metadata.
pub struct Postgres {
    pool: Pool,
}

/// A connection with the statements prepared on it.
struct Connection {
    client: Client,
    statements: HashMap<&'static str, Statement>,
}

impl Connection {
    /// `sql` prepared once per connection: a prepared statement runs in one round trip.
    fn statement(&mut self, sql: &'static str) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql)?;
        self.statements.insert(sql, statement.clone());
        Ok(statement)
    }
}

/// At most `size` connections, opened when first needed and reused.
struct Pool {
    config: postgres::Config,
    size: usize,
    state: Mutex<PoolState>,
    freed: Condvar,
}

struct PoolState {
    idle: Vec<Connection>,
    /// Connections handed out or being opened.
    busy: usize,
    /// Requests waiting for a connection, by ticket, oldest first: connections go to them in
    /// that order, so under load no request waits while later ones are served.
    queue: std::collections::VecDeque<u64>,
    next_ticket: u64,
}

/// A connection on loan; it goes back to the pool when dropped, unless it broke.
struct Lease<'a> {
    pool: &'a Pool,
    connection: Option<Connection>,
}

impl std::ops::Deref for Lease<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.connection.as_ref().expect("leased")
    }
}

impl std::ops::DerefMut for Lease<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        self.connection.as_mut().expect("leased")
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        state.busy -= 1;
        if let Some(connection) = self.connection.take()
            && !connection.client.is_closed()
        {
            state.idle.push(connection);
        }
        drop(state);
        self.pool.freed.notify_all();
    }
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn get(&self) -> Result<Lease<'_>, StoreError> {
        let deadline = Instant::now() + POOL_WAIT;
        let mut state = self.lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.queue.push_back(ticket);
        loop {
            if state.queue.front() == Some(&ticket) {
                while let Some(connection) = state.idle.pop() {
                    if !connection.client.is_closed() {
                        state.busy += 1;
                        state.queue.pop_front();
                        drop(state);
                        // The next in line may find a connection too.
                        self.freed.notify_all();
                        return Ok(Lease {
                            pool: self,
                            connection: Some(connection),
                        });
                    }
                }
                if state.busy < self.size {
                    state.busy += 1;
                    state.queue.pop_front();
                    drop(state);
                    self.freed.notify_all();
                    // Counted as busy while it connects, so the pool never opens more than
                    // `size`; a failed connect gives its place back when the lease drops.
                    let mut lease = Lease {
                        pool: self,
                        connection: None,
                    };
                    let client = self.config.connect(NoTls)?;
                    lease.connection = Some(Connection {
                        client,
                        statements: HashMap::new(),
                    });
                    return Ok(lease);
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                state.queue.retain(|waiting| *waiting != ticket);
                drop(state);
                self.freed.notify_all();
                return Err(StoreError::Remote(format!(
                    "all {} database connections stayed busy for {} s",
                    self.size,
                    POOL_WAIT.as_secs()
                )));
            }
            state = self
                .freed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Postgres {
    /// Connects to `url` (`postgres://user:password@host:port/database`). The first connection
    /// is opened at once, so a wrong address or password is reported here, not on the first
    /// request.
    pub fn open(url: &str, pool_size: usize, on_open: OnOpen) -> Result<Self, StoreError> {
        let mut config: postgres::Config = url
            .parse()
            .map_err(|error| StoreError::Schema(format!("not a PostgreSQL URL: {error}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        // A query that runs this long is a bug or an attack; it must not hold a connection.
        if config.get_options().is_none() {
            config.options("-c statement_timeout=30000");
        }
        config.keepalives(true);
        config.application_name("skillpkg registry");
        let store = Self {
            pool: Pool {
                config,
                size: pool_size.max(1),
                state: Mutex::new(PoolState {
                    idle: Vec::new(),
                    busy: 0,
                    queue: std::collections::VecDeque::new(),
                    next_ticket: 0,
                }),
                freed: Condvar::new(),
            },
        };
        let (done, known) = store.schema()?;
        if on_open == OnOpen::Migrate {
            store.migrate()?;
        } else if on_open == OnOpen::Require && done < known {
            return Err(StoreError::Schema(format!(
                "the database has schema {done} and this skillpkg needs {known}: run `skillpkg registry migrate`, or start without --no-migrate"
            )));
        }
        Ok(store)
    }
}

impl Postgres {
    /// The first `limit` skills by `column` (`updated_at` or `downloads`), highest first.
    fn first_hits(&self, column: &'static str, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        let sql = format!("SELECT name FROM skills ORDER BY {column} DESC, lower_name LIMIT $1");
        let mut connection = self.pool.get()?;
        let names: Vec<String> = connection
            .client
            .query(&sql, &[&as_sql(limit)])?
            .iter()
            .map(|row| row.get(0))
            .collect();
        hits(&mut connection, &names)
    }
}

/// How many migrations the database has had: 0 for an empty one.
fn schema_done(client: &mut impl GenericClient) -> Result<usize, postgres::Error> {
    let exists: bool = client
        .query_one("SELECT to_regclass('skillpkg_schema') IS NOT NULL", &[])?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let done: Option<i32> = client
        .query_opt("SELECT migrations FROM skillpkg_schema", &[])?
        .map(|row| row.get(0));
    Ok(done.map_or(0, |done| usize::try_from(done).unwrap_or(0)))
}

/// A count or offset as `PostgreSQL`'s `BIGINT`.
fn as_sql(count: impl TryInto<i64>) -> i64 {
    count.try_into().unwrap_or(i64::MAX)
}

/// A value as JSON, for a TEXT column: the review's types always serialise.
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

const HIT_SKILL: &str =
    "SELECT id, name, description, downloads, updated_at FROM skills WHERE lower_name = $1";
const HIT_VERSIONS: &str = "SELECT version FROM versions WHERE skill_id = $1 AND NOT yanked";

/// The search hits for `names`, in that order, as [`super::sqlite`] makes them.
fn hits(connection: &mut Connection, names: &[String]) -> Result<Vec<SearchHit>, StoreError> {
    let skill = connection.statement(HIT_SKILL)?;
    let versions = connection.statement(HIT_VERSIONS)?;
    let mut hits = Vec::with_capacity(names.len());
    for name in names {
        let Some(row) = connection
            .client
            .query_opt(&skill, &[&name.to_lowercase()])?
        else {
            continue;
        };
        let id: i64 = row.get(0);
        let parsed: Vec<semver::Version> = connection
            .client
            .query(&versions, &[&id])?
            .iter()
            .filter_map(|row| row.get::<_, String>(0).parse().ok())
            .collect();
        let (latest, prerelease) = super::newest(&parsed);
        hits.push(SearchHit {
            name: row.get(1),
            description: row.get(2),
            latest,
            prerelease,
            downloads: u64::try_from(row.get::<_, i64>(3)).unwrap_or(0),
            updated_at: row.get(4),
        });
    }
    Ok(hits)
}

fn user_id(client: &mut impl GenericClient, name: &str) -> Result<i64, postgres::Error> {
    client.execute(
        "INSERT INTO users (name) VALUES ($1) ON CONFLICT (name) DO NOTHING",
        &[&name],
    )?;
    Ok(client
        .query_one("SELECT id FROM users WHERE name = $1", &[&name])?
        .get(0))
}

fn is_owner(
    client: &mut impl GenericClient,
    skill_id: i64,
    user: &str,
) -> Result<bool, postgres::Error> {
    Ok(client
        .query_opt(
            "SELECT 1 FROM owners JOIN users ON users.id = owners.user_id WHERE owners.skill_id = $1 AND users.name = $2",
            &[&skill_id, &user],
        )?
        .is_some())
}

/// The skill named `name` in any case, its row locked until the transaction ends when `lock`.
fn skill_id(
    client: &mut impl GenericClient,
    name: &str,
    lock: bool,
) -> Result<Option<(i64, String)>, postgres::Error> {
    let sql = if lock {
        "SELECT id, name FROM skills WHERE lower_name = $1 FOR UPDATE"
    } else {
        "SELECT id, name FROM skills WHERE lower_name = $1"
    };
    Ok(client
        .query_opt(sql, &[&name.to_lowercase()])?
        .map(|row| (row.get(0), row.get(1))))
}

const TOKEN: &str = "SELECT users.name, tokens.hash, tokens.scopes, tokens.expires_at, tokens.revoked_at FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.hash = $1";
const SKILL: &str = "SELECT skills.name, skills.description, \
    ARRAY(SELECT users.name FROM owners JOIN users ON users.id = owners.user_id WHERE owners.skill_id = skills.id), \
    versions.version, versions.checksum, versions.digest, versions.size, versions.yanked, versions.published_at, publishers.name \
    FROM skills \
    LEFT JOIN versions ON versions.skill_id = skills.id \
    LEFT JOIN users AS publishers ON publishers.id = versions.publisher_id \
    WHERE skills.lower_name = $1";

impl MetadataStore for Postgres {
    /// (the migrations the database has had, the migrations this build knows).
    fn schema(&self) -> Result<(usize, usize), StoreError> {
        let mut connection = self.pool.get()?;
        let done = schema_done(&mut connection.client)?;
        super::check_schema("the PostgreSQL database", done, MIGRATIONS.len())?;
        Ok((done, MIGRATIONS.len()))
    }

    /// Applies the migrations the database has not had, each in its own transaction under an
    /// advisory lock that also re-reads the count, so servers starting together migrate once.
    /// How many it applied.
    fn migrate(&self) -> Result<usize, StoreError> {
        let mut connection = self.pool.get()?;
        let mut applied = 0;
        loop {
            let mut transaction = connection.client.transaction()?;
            transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
            transaction.batch_execute(
                "CREATE TABLE IF NOT EXISTS skillpkg_schema (migrations INTEGER NOT NULL); \
                 INSERT INTO skillpkg_schema SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM skillpkg_schema)",
            )?;
            let done = schema_done(&mut transaction)?;
            super::check_schema("the PostgreSQL database", done, MIGRATIONS.len())?;
            let Some(sql) = MIGRATIONS.get(done) else {
                return Ok(applied);
            };
            transaction.batch_execute(sql)?;
            let next = i32::try_from(done + 1).unwrap_or(i32::MAX);
            transaction.execute("UPDATE skillpkg_schema SET migrations = $1", &[&next])?;
            transaction.commit()?;
            applied += 1;
        }
    }

    fn token(&self, token_hash: &str) -> Result<Option<StoredToken>, StoreError> {
        let mut connection = self.pool.get()?;
        let statement = connection.statement(TOKEN)?;
        Ok(connection
            .client
            .query_opt(&statement, &[&token_hash])?
            .map(|row| StoredToken {
                user: row.get(0),
                hash: row.get(1),
                scopes: Scope::split(row.get(2)),
                expires_at: row.get(3),
                revoked_at: row.get(4),
            }))
    }

    fn create_token(&self, token: &NewToken) -> Result<(), StoreError> {
        let mut connection = self.pool.get()?;
        let mut transaction = connection.client.transaction()?;
        let id = user_id(&mut transaction, &token.user)?;
        transaction.execute(
            "INSERT INTO tokens (hash, user_id, created_at, id, label, scopes, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                &token.hash,
                &id,
                &token.created_at,
                &&token.hash[..TOKEN_ID_LEN.min(token.hash.len())],
                &token.label,
                &Scope::join(&token.scopes),
                &token.expires_at,
            ],
        )?;
        transaction.commit()?;
        Ok(())
    }

    fn tokens(&self, user: Option<&str>) -> Result<Vec<TokenListing>, StoreError> {
        let mut connection = self.pool.get()?;
        let rows = connection.client.query(
            "SELECT tokens.id, users.name, tokens.label, tokens.scopes, tokens.created_at, tokens.expires_at, tokens.revoked_at FROM tokens JOIN users ON users.id = tokens.user_id WHERE $1::TEXT IS NULL OR users.name = $1 ORDER BY tokens.created_at, tokens.seq",
            &[&user],
        )?;
        Ok(rows
            .iter()
            .map(|row| TokenListing {
                id: row.get(0),
                user: row.get(1),
                label: row.get(2),
                scopes: Scope::split(row.get(3))
                    .into_iter()
                    .map(Scope::as_str)
                    .collect(),
                created_at: row.get(4),
                expires_at: row.get(5),
                revoked_at: row.get(6),
            })
            .collect())
    }

    fn revoke_token(&self, id: &str, now: i64) -> Result<Revoked, StoreError> {
        // Ids are lowercase hex: anything else matches nothing.
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(Revoked::NotFound);
        }
        let id = id.to_ascii_lowercase();
        let mut connection = self.pool.get()?;
        let mut transaction = connection.client.transaction()?;
        let found: Vec<(String, String, Option<i64>)> = transaction
            .query(
                "SELECT tokens.id, users.name, tokens.revoked_at FROM tokens JOIN users ON users.id = tokens.user_id WHERE left(tokens.id, length($1)) = $1 ORDER BY tokens.id LIMIT 10 FOR UPDATE OF tokens",
                &[&id],
            )?
            .iter()
            .map(|row| (row.get(0), row.get(1), row.get(2)))
            .collect();
        let outcome = match found.as_slice() {
            [] => Revoked::NotFound,
            [(id, _, Some(_))] => Revoked::Already { id: id.clone() },
            [(id, user, None)] => {
                transaction.execute(
                    "UPDATE tokens SET revoked_at = $1 WHERE id = $2",
                    &[&now, id],
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
        let mut connection = self.pool.get()?;
        let mut transaction = connection.client.transaction()?;
        let publisher = user_id(&mut transaction, &new.publisher)?;
        // Claim the name: of publishers racing for a new name, one inserts and the others
        // wait for it to commit, then find its row below.
        let created = transaction
            .query_opt(
                "INSERT INTO skills (name, lower_name, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) ON CONFLICT (lower_name) DO NOTHING RETURNING id",
                &[&new.name, &new.name.to_lowercase(), &new.description, &new.published_at],
            )?
            .map(|row| row.get::<_, i64>(0));
        if let Some(id) = created {
            transaction.execute(
                "INSERT INTO owners (skill_id, user_id) VALUES ($1, $2)",
                &[&id, &publisher],
            )?;
        }
        // Every publish of this skill, on every server, queues on its row from here.
        let Some((id, existing)) = skill_id(&mut transaction, &new.name, true)? else {
            return Err(StoreError::Remote(format!(
                "the skill `{}` vanished during the publish",
                new.name
            )));
        };
        if existing != new.name {
            return Ok(PublishOutcome::NameTaken { existing });
        }
        if created.is_none() && !is_owner(&mut transaction, id, &new.publisher)? {
            return Ok(PublishOutcome::NotOwner);
        }
        // Build metadata does not make a new version (semver §10), as in the SQLite store.
        let release = crate::registry::api::without_build(&new.version);
        let existing = transaction.query_opt(
            "SELECT version, checksum FROM versions WHERE skill_id = $1 AND (version = $2 OR left(version, length($2) + 1) = $2 || '+') ORDER BY version = $3 DESC LIMIT 1",
            &[&id, &release, &new.version],
        )?;
        if let Some(row) = existing {
            return Ok(PublishOutcome::Exists {
                version: row.get(0),
                checksum: row.get(1),
            });
        }
        let review = &new.review;
        let size = i64::try_from(new.size).unwrap_or(i64::MAX);
        let values: [&(dyn ToSql + Sync); 12] = [
            &id,
            &new.version,
            &new.checksum,
            &new.digest,
            &size,
            &new.published_at,
            &publisher,
            &new.skill_md,
            &json(&review.files),
            &json(&review.frontmatter),
            &json(&review.listing),
            &json(&review.findings),
        ];
        transaction.execute(
            "INSERT INTO versions (skill_id, version, checksum, digest, size, published_at, publisher_id, skill_md, files, frontmatter, listing, lint) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &values,
        )?;
        // The newest publish speaks for the skill, whatever its version number.
        transaction.execute(
            "UPDATE skills SET description = $1, keywords = $2, search_text = $3, updated_at = GREATEST(updated_at, $4) WHERE id = $5",
            &[
                &new.description,
                &new.keywords,
                &search::text(&new.name, &new.description, &new.keywords),
                &new.published_at,
                &id,
            ],
        )?;
        transaction.commit()?;
        Ok(PublishOutcome::Created)
    }

    fn skill(&self, name: &str) -> Result<Option<SkillInfo>, StoreError> {
        let mut connection = self.pool.get()?;
        let statement = connection.statement(SKILL)?;
        // One round trip: a row per version (one row of NULLs for a skill without any), each
        // carrying the skill and its owners.
        let rows = connection
            .client
            .query(&statement, &[&name.to_lowercase()])?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let mut owners: Vec<String> = first.get(2);
        owners.sort();
        let mut versions: Vec<VersionInfo> = rows
            .iter()
            .filter_map(|row| {
                Some(VersionInfo {
                    version: row.get::<_, Option<String>>(3)?,
                    checksum: row.get(4),
                    digest: row.get(5),
                    size: u64::try_from(row.get::<_, i64>(6)).unwrap_or(0),
                    yanked: row.get(7),
                    published_at: row.get(8),
                    publisher: row.get(9),
                })
            })
            .collect();
        versions.sort_by(|a, b| {
            let parse = |v: &str| semver::Version::parse(v).ok();
            parse(&b.version).cmp(&parse(&a.version))
        });
        Ok(Some(SkillInfo {
            name: first.get(0),
            description: first.get(1),
            owners,
            versions,
        }))
    }

    fn review(&self, name: &str, version: &str) -> Result<Option<Review>, StoreError> {
        let mut connection = self.pool.get()?;
        let Some(row) = connection.client.query_opt(
            "SELECT files, frontmatter, listing, lint FROM versions JOIN skills ON skills.id = versions.skill_id WHERE skills.lower_name = $1 AND versions.version = $2",
            &[&name.to_lowercase(), &version],
        )?
        else {
            return Ok(None);
        };
        let column = |index: usize| row.get::<_, &str>(index);
        // As in the SQLite store: unreadable JSON reads as not recorded.
        Ok((|| {
            Some(Review {
                files: serde_json::from_str(column(0)).ok()?,
                frontmatter: serde_json::from_str(column(1)).ok()?,
                listing: serde_json::from_str(column(2)).ok()?,
                findings: serde_json::from_str(column(3)).ok()?,
            })
        })())
    }

    fn skill_md_start(
        &self,
        name: &str,
        version: &str,
        max_chars: usize,
    ) -> Result<Option<SkillMdStart>, StoreError> {
        let mut connection = self.pool.get()?;
        let max_chars = i32::try_from(max_chars).unwrap_or(i32::MAX);
        // substr and length count characters, so the cut never splits one.
        Ok(connection
            .client
            .query_opt(
                "SELECT substr(skill_md, 1, $3::INTEGER), length(skill_md) > $3::INTEGER FROM versions JOIN skills ON skills.id = versions.skill_id WHERE skills.lower_name = $1 AND versions.version = $2",
                &[&name.to_lowercase(), &version, &max_chars],
            )?
            .map(|row| SkillMdStart {
                text: row.get(0),
                cut: row.get(1),
            }))
    }

    fn search(
        &self,
        query: &Query,
        page: usize,
        per_page: usize,
    ) -> Result<(Vec<SearchHit>, usize), StoreError> {
        let mut connection = self.pool.get()?;
        let offset = page.saturating_sub(1).saturating_mul(per_page);
        if query.is_empty() {
            let total: i64 = connection
                .client
                .query_one("SELECT COUNT(*) FROM skills", &[])?
                .get(0);
            let names: Vec<String> = connection
                .client
                .query(
                    "SELECT name FROM skills ORDER BY downloads DESC, lower_name LIMIT $1 OFFSET $2",
                    &[&as_sql(per_page), &as_sql(offset)],
                )?
                .iter()
                .map(|row| row.get(0))
                .collect();
            let hits = hits(&mut connection, &names)?;
            return Ok((hits, usize::try_from(total).unwrap_or(0)));
        }
        // Every word must occur in the lowercase search text (strpos: a literal match, with
        // no pattern syntax to escape); ranking is `search`'s, as for every store.
        let mut sql = String::from("SELECT search_text, downloads FROM skills WHERE TRUE");
        for index in 1..=query.words().len() {
            sql.push_str(" AND strpos(search_text, $");
            sql.push_str(&index.to_string());
            sql.push_str(") > 0");
        }
        let words: Vec<&(dyn ToSql + Sync)> = query
            .words()
            .iter()
            .map(|word| word as &(dyn ToSql + Sync))
            .collect();
        let ranks: Vec<search::Rank> = connection
            .client
            .query(&sql, &words)?
            .iter()
            .map(|row| {
                let downloads = u64::try_from(row.get::<_, i64>(1)).unwrap_or(0);
                search::rank_text(query, row.get(0), downloads)
            })
            .collect();
        let total = ranks.len();
        let names = search::page(ranks, offset, per_page);
        Ok((hits(&mut connection, &names)?, total))
    }

    fn recent(&self, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        self.first_hits("updated_at", limit)
    }

    fn popular(&self, limit: usize) -> Result<Vec<SearchHit>, StoreError> {
        self.first_hits("downloads", limit)
    }

    fn add_downloads(&self, counts: &[(String, u64)]) -> Result<(), StoreError> {
        let mut connection = self.pool.get()?;
        let mut transaction = connection.client.transaction()?;
        let add = transaction
            .prepare("UPDATE skills SET downloads = downloads + $1 WHERE lower_name = $2")?;
        for (name, count) in counts {
            transaction.execute(&add, &[&as_sql(*count), &name.to_lowercase()])?;
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
        let mut connection = self.pool.get()?;
        let mut transaction = connection.client.transaction()?;
        let Some((id, _)) = skill_id(&mut transaction, name, true)? else {
            return Ok(Change::NotFound);
        };
        if !is_owner(&mut transaction, id, user)? {
            return Ok(Change::NotOwner);
        }
        let changed = transaction.execute(
            "UPDATE versions SET yanked = $1 WHERE skill_id = $2 AND version = $3",
            &[&yanked, &id, &version],
        )?;
        transaction.commit()?;
        Ok(if changed == 0 {
            Change::NotFound
        } else {
            Change::Done
        })
    }

    fn add_owners(&self, name: &str, user: &str, owners: &[String]) -> Result<Change, StoreError> {
        let mut connection = self.pool.get()?;
        let mut transaction = connection.client.transaction()?;
        let Some((id, _)) = skill_id(&mut transaction, name, true)? else {
            return Ok(Change::NotFound);
        };
        if !is_owner(&mut transaction, id, user)? {
            return Ok(Change::NotOwner);
        }
        // All or nothing: every new owner must already be a user of this registry.
        for owner in owners {
            let Some(row) =
                transaction.query_opt("SELECT id FROM users WHERE name = $1", &[owner])?
            else {
                return Ok(Change::Refused(format!(
                    "`{owner}` is not a user of this registry; an administrator creates users with `skillpkg registry token create --user {owner}`"
                )));
            };
            let owner_id: i64 = row.get(0);
            transaction.execute(
                "INSERT INTO owners (skill_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&id, &owner_id],
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
        let mut connection = self.pool.get()?;
        let mut transaction = connection.client.transaction()?;
        let Some((id, _)) = skill_id(&mut transaction, name, true)? else {
            return Ok(Change::NotFound);
        };
        if !is_owner(&mut transaction, id, user)? {
            return Ok(Change::NotOwner);
        }
        for owner in owners {
            transaction.execute(
                "DELETE FROM owners WHERE skill_id = $1 AND user_id = (SELECT id FROM users WHERE name = $2)",
                &[&id, owner],
            )?;
        }
        let left: i64 = transaction
            .query_one("SELECT COUNT(*) FROM owners WHERE skill_id = $1", &[&id])?
            .get(0);
        if left == 0 {
            return Ok(Change::Refused(
                "a skill must keep at least one owner".into(),
            ));
        }
        transaction.commit()?;
        Ok(Change::Done)
    }

    fn checksums(&self) -> Result<HashSet<String>, StoreError> {
        let mut connection = self.pool.get()?;
        Ok(connection
            .client
            .query("SELECT DISTINCT checksum FROM versions", &[])?
            .iter()
            .map(|row| row.get(0))
            .collect())
    }

    fn concurrency(&self) -> Option<usize> {
        Some(self.pool.size)
    }

    fn ping(&self) -> Result<(), StoreError> {
        let mut connection = self.pool.get()?;
        connection.client.simple_query("SELECT 1")?;
        Ok(())
    }

    fn is_empty(&self) -> Result<bool, StoreError> {
        let mut connection = self.pool.get()?;
        let rows: i64 = connection
            .client
            .query_one(
                "SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM skills)",
                &[],
            )?
            .get(0);
        Ok(rows == 0)
    }

    fn export(
        &self,
        each: &mut dyn FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut connection = self.pool.get()?;
        // One snapshot: the export is one moment of the registry, however many servers write.
        let mut transaction = connection
            .client
            .build_transaction()
            .isolation_level(postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()?;
        for row in transaction.query("SELECT name FROM users ORDER BY id", &[])? {
            each(Record::User { name: row.get(0) })?;
        }
        for row in transaction.query(
            "SELECT users.name, hash, label, scopes, created_at, expires_at, revoked_at FROM tokens JOIN users ON users.id = tokens.user_id ORDER BY tokens.created_at, tokens.seq",
            &[],
        )? {
            each(Record::Token {
                user: row.get(0),
                hash: row.get(1),
                label: row.get(2),
                scopes: row.get(3),
                created_at: row.get(4),
                expires_at: row.get(5),
                revoked_at: row.get(6),
            })?;
        }
        let owners = transaction.prepare(
            "SELECT users.name FROM owners JOIN users ON users.id = owners.user_id WHERE skill_id = $1 ORDER BY users.name",
        )?;
        let versions = transaction.prepare(
            "SELECT version, checksum, digest, size, yanked, published_at, users.name, skill_md, files, frontmatter, listing, lint FROM versions JOIN users ON users.id = versions.publisher_id WHERE skill_id = $1 AND version = $2",
        )?;
        // Skill by skill, so memory holds one skill's versions, not the registry's.
        let ids: Vec<i64> = transaction
            .query("SELECT id FROM skills ORDER BY id", &[])?
            .iter()
            .map(|row| row.get(0))
            .collect();
        for id in ids {
            let row = transaction.query_one(
                "SELECT name, description, keywords, downloads, created_at, updated_at FROM skills WHERE id = $1",
                &[&id],
            )?;
            let name: String = row.get(0);
            let owners = transaction
                .query(&owners, &[&id])?
                .iter()
                .map(|row| row.get(0))
                .collect();
            each(Record::Skill {
                name: name.clone(),
                description: row.get(1),
                keywords: row.get(2),
                downloads: row.get(3),
                created_at: row.get(4),
                updated_at: row.get(5),
                owners,
            })?;
            // Version by version: memory holds one SKILL.md at a time.
            let numbers: Vec<String> = transaction
                .query("SELECT version FROM versions WHERE skill_id = $1 ORDER BY published_at, version", &[&id])?
                .iter()
                .map(|row| row.get(0))
                .collect();
            for number in numbers {
                let row = transaction.query_one(&versions, &[&id, &number])?;
                each(Record::Version(ExportedVersion {
                    skill: name.clone(),
                    version: row.get(0),
                    checksum: row.get(1),
                    digest: row.get(2),
                    size: row.get(3),
                    yanked: row.get(4),
                    published_at: row.get(5),
                    publisher: row.get(6),
                    skill_md: row.get(7),
                    files: row.get(8),
                    frontmatter: row.get(9),
                    listing: row.get(10),
                    lint: row.get(11),
                }))?;
            }
        }
        transaction.commit()?;
        Ok(())
    }

    fn import(&self, record: &Record) -> Result<(), StoreError> {
        let mut connection = self.pool.get()?;
        let mut transaction = connection.client.transaction()?;
        match record {
            Record::User { name } => {
                user_id(&mut transaction, name)?;
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
                let id = user_id(&mut transaction, user)?;
                transaction.execute(
                    "INSERT INTO tokens (hash, user_id, created_at, id, label, scopes, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    &[
                        hash,
                        &id,
                        created_at,
                        &&hash[..TOKEN_ID_LEN.min(hash.len())],
                        label,
                        scopes,
                        expires_at,
                        revoked_at,
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
                let id: i64 = transaction
                    .query_one(
                        "INSERT INTO skills (name, lower_name, description, keywords, search_text, downloads, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                        &[
                            name,
                            &name.to_lowercase(),
                            description,
                            keywords,
                            &search::text(name, description, keywords),
                            downloads,
                            created_at,
                            updated_at,
                        ],
                    )?
                    .get(0);
                for owner in owners {
                    let owner = user_id(&mut transaction, owner)?;
                    transaction.execute(
                        "INSERT INTO owners (skill_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                        &[&id, &owner],
                    )?;
                }
            }
            Record::Version(version) => {
                let Some((id, _)) = skill_id(&mut transaction, &version.skill, false)? else {
                    return Err(StoreError::Schema(format!(
                        "version {} of `{}` comes before its skill",
                        version.version, version.skill
                    )));
                };
                let publisher = user_id(&mut transaction, &version.publisher)?;
                let values: [&(dyn ToSql + Sync); 13] = [
                    &id,
                    &version.version,
                    &version.checksum,
                    &version.digest,
                    &version.size,
                    &version.yanked,
                    &version.published_at,
                    &publisher,
                    &version.skill_md,
                    &version.files,
                    &version.frontmatter,
                    &version.listing,
                    &version.lint,
                ];
                transaction.execute(
                    "INSERT INTO versions (skill_id, version, checksum, digest, size, yanked, published_at, publisher_id, skill_md, files, frontmatter, listing, lint) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                    &values,
                )?;
            }
        }
        transaction.commit()?;
        Ok(())
    }
}
