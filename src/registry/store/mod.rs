//! Storage behind the registry: metadata and blobs, as traits, so `PostgreSQL` and S3-compatible
//! storage can be added without touching the handlers. The embedded implementation keeps
//! metadata in `SQLite` (WAL) and archives in a content-addressed folder, both under `--data`.
//!
//! [`search`] holds how a query matches and ranks, apart from any database, so that every
//! store answers a search alike; [`sqlite`] is the embedded store.

mod postgres;
mod s3;
pub mod search;
mod sqlite;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use postgres::{Postgres, default_pool_size};
pub use s3::{ListedObject, S3Blobs, listing as s3_listing};
pub use sqlite::Sqlite;

use super::api::{SearchHit, SkillInfo};
use super::review::Review;

/// Storage failures the handlers report as 500.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] rusqlite::Error),
    #[error("database: {}", postgres_message(.0))]
    Postgres(#[from] ::postgres::Error),
    #[error("blob store: {0}")]
    Io(#[from] io::Error),
    /// A remote store (S3) refused or failed a request: what it said.
    #[error("blob store: {0}")]
    Remote(String),
    /// The database's schema is not one this build can use.
    #[error("{0}")]
    Schema(String),
}

/// What `PostgreSQL` said: the server's message (`database "x" does not exist`) rather than the
/// client's bare "db error".
fn postgres_message(error: &::postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return format!("{}: {} ({})", db.severity(), db.message(), db.code().code());
    }
    match std::error::Error::source(error) {
        Some(source) => format!("{error}: {source}"),
        None => error.to_string(),
    }
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
    /// `metadata.keywords` from SKILL.md: words a search also matches, comma- or
    /// space-separated.
    pub keywords: String,
    /// What the version's page shows about its files, worked out at publish.
    pub review: Review,
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
    /// The token stored under `token_hash`, revoked and expired ones included: the caller
    /// decides, so that it can say why a token is refused.
    fn token(&self, token_hash: &str) -> Result<Option<StoredToken>, StoreError>;
    fn create_token(&self, token: &NewToken) -> Result<(), StoreError>;
    /// Every token (of `user`, when given), oldest first.
    fn tokens(&self, user: Option<&str>) -> Result<Vec<TokenListing>, StoreError>;
    /// Revokes the one token whose id starts with `id`.
    fn revoke_token(&self, id: &str, now: i64) -> Result<Revoked, StoreError>;
    fn publish(&self, version: &NewVersion) -> Result<PublishOutcome, StoreError>;
    fn skill(&self, name: &str) -> Result<Option<SkillInfo>, StoreError>;
    /// At most the first `max_chars` characters of a version's SKILL.md.
    fn skill_md_start(
        &self,
        name: &str,
        version: &str,
        max_chars: usize,
    ) -> Result<Option<SkillMdStart>, StoreError>;
    /// What the page of `name`'s `version` shows about its files; `None` for a version
    /// published before the registry recorded it (or no such version).
    fn review(&self, name: &str, version: &str) -> Result<Option<Review>, StoreError>;
    /// One page of the skills that match `query`, best first, and how many match in all.
    fn search(
        &self,
        query: &search::Query,
        page: usize,
        per_page: usize,
    ) -> Result<(Vec<SearchHit>, usize), StoreError>;
    /// The skills published or updated last, newest first.
    fn recent(&self, limit: usize) -> Result<Vec<SearchHit>, StoreError>;
    /// The skills downloaded most, most first.
    fn popular(&self, limit: usize) -> Result<Vec<SearchHit>, StoreError>;
    /// Adds counted downloads: (skill name, how many).
    fn add_downloads(&self, counts: &[(String, u64)]) -> Result<(), StoreError>;
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
    /// The checksum of every version's archive, yanked ones included: the blobs in use.
    fn checksums(&self) -> Result<std::collections::HashSet<String>, StoreError>;
    /// Whether the database answers, for `/readyz`.
    fn ping(&self) -> Result<(), StoreError>;
    /// How many calls can usefully run at once (a pool's connections), if the store is bounded.
    fn concurrency(&self) -> Option<usize> {
        None
    }
    /// (the migrations the database has had, the migrations this build knows).
    fn schema(&self) -> Result<(usize, usize), StoreError>;
    /// Applies the migrations the database lacks, each in its own transaction under a lock
    /// that also re-reads how many it has had, so servers starting together migrate once.
    /// How many it applied.
    fn migrate(&self) -> Result<usize, StoreError>;
    /// Every record, for `registry export`: users, then tokens, then each skill followed by its
    /// versions.
    fn export(
        &self,
        each: &mut dyn FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
    /// Stores one record of an export, in the order `export` gave them, into an empty store.
    fn import(&self, record: &Record) -> Result<(), StoreError>;
    /// Whether the store holds no user, token or skill.
    fn is_empty(&self) -> Result<bool, StoreError>;
}

/// One line of a registry export (`registry.jsonl`): everything the metadata store holds,
/// named by names, not row ids, so it loads into any store.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "record", rename_all = "snake_case", deny_unknown_fields)]
pub enum Record {
    User {
        name: String,
    },
    Token {
        user: String,
        hash: String,
        label: String,
        scopes: String,
        created_at: i64,
        expires_at: Option<i64>,
        revoked_at: Option<i64>,
    },
    Skill {
        name: String,
        description: String,
        keywords: String,
        downloads: i64,
        created_at: i64,
        updated_at: i64,
        owners: Vec<String>,
    },
    /// A version of the skill on an earlier line: one a line, so a line holds at most one
    /// SKILL.md.
    Version(ExportedVersion),
}

/// A version in an export, with what its page shows as the stored JSON text.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportedVersion {
    /// The skill's name.
    pub skill: String,
    pub version: String,
    pub checksum: String,
    pub digest: String,
    pub size: i64,
    pub yanked: bool,
    pub published_at: i64,
    pub publisher: String,
    pub skill_md: String,
    pub files: String,
    pub frontmatter: String,
    pub listing: String,
    pub lint: String,
}

/// What opening a database does about migrations it lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnOpen {
    /// Applies them (the default for `registry serve` and every administrative command).
    Migrate,
    /// Refuses to open a database that lacks some (`registry serve --no-migrate`).
    Require,
    /// Opens it as it is (`registry migrate`, which then applies them and reports).
    AsIs,
}

/// The newest stable version, and the newest pre-release when it is newer still.
pub(crate) fn newest(versions: &[semver::Version]) -> (Option<String>, Option<String>) {
    let latest = versions.iter().filter(|v| v.pre.is_empty()).max();
    let prerelease = versions
        .iter()
        .filter(|v| !v.pre.is_empty())
        .max()
        .filter(|pre| latest.is_none_or(|stable| *pre > stable));
    (
        latest.map(ToString::to_string),
        prerelease.map(ToString::to_string),
    )
}

/// Refuses a database whose schema is newer than this build's: `done` migrations applied,
/// `known` known. `what` names the database in the message.
pub(crate) fn check_schema(what: &str, done: usize, known: usize) -> Result<(), StoreError> {
    if done > known {
        return Err(StoreError::Schema(format!(
            "{what} was written by a newer skillpkg (schema {done}; this one knows {known}): run the newer skillpkg, or restore a backup"
        )));
    }
    Ok(())
}

/// What a token may do. A token made before scopes existed may do everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Publish new versions (and create skills).
    Publish,
    /// Yank and unyank versions.
    Yank,
    /// Add and remove owners.
    Owners,
    /// Read a `--private` registry: search, info, downloads and pages.
    Read,
}

impl Scope {
    pub const ALL: [Self; 4] = [Self::Publish, Self::Yank, Self::Owners, Self::Read];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Publish => "publish",
            Self::Yank => "yank",
            Self::Owners => "owners",
            Self::Read => "read",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|scope| scope.as_str() == text)
    }

    /// Scopes as stored: their names, comma-separated, in [`Scope::ALL`]'s order.
    pub fn join(scopes: &[Self]) -> String {
        Self::ALL
            .into_iter()
            .filter(|scope| scopes.contains(scope))
            .map(Self::as_str)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Scopes from their stored form; unknown names (from a newer registry) are ignored.
    pub fn split(text: &str) -> Vec<Self> {
        text.split(',')
            .filter_map(|name| Self::parse(name.trim()))
            .collect()
    }
}

/// A token to store: only its hash.
#[derive(Clone, Debug)]
pub struct NewToken {
    pub user: String,
    /// SHA-256 of the token, hex.
    pub hash: String,
    /// A label for `token list`.
    pub label: String,
    pub scopes: Vec<Scope>,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

/// A stored token, found by its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredToken {
    pub user: String,
    pub hash: String,
    pub scopes: Vec<Scope>,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// A token as `registry token list` shows it: never the token, nor its whole hash.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TokenListing {
    /// The first characters of its hash: enough to name it for `token revoke`.
    pub id: String,
    pub user: String,
    pub label: String,
    pub scopes: Vec<&'static str>,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// What `revoke_token` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Revoked {
    Done {
        user: String,
        id: String,
    },
    Already {
        id: String,
    },
    NotFound,
    /// Several tokens' ids start so: their ids.
    Ambiguous(Vec<String>),
}

/// How long a token's id is: 12 hex digits of its hash, 48 bits.
pub const TOKEN_ID_LEN: usize = 12;

/// Archives by SHA-256, content-addressed: the same bytes are stored once, under the same key,
/// so storing again is harmless and a key never changes what it names.
pub(crate) trait BlobStore: Send + Sync {
    /// Moves the finished file at `temp` into the store under `sha256`. The store checks the
    /// bytes against `sha256` where it can (S3 verifies the signed payload hash).
    fn put(&self, temp: &Path, sha256: &str) -> Result<(), StoreError>;
    /// The stored archive, opened to be streamed: archives run to tens of megabytes and a slow
    /// download lasts minutes, so they are never read whole into memory.
    fn get(&self, sha256: &str) -> Result<Option<Blob>, StoreError>;
    /// A URL that serves the archive without this server for `ttl` (a presigned S3 URL), or
    /// `None` when the store cannot make one (a folder). Computed, never a request: callers
    /// may call it on an async thread.
    fn presigned(&self, sha256: &str, ttl: Duration) -> Result<Option<String>, StoreError>;
    /// Calls `each` with every stored archive, in no particular order.
    fn list(
        &self,
        each: &mut dyn FnMut(StoredBlob) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
    /// Removes the archive under `sha256`; removing one that is not there is not an error.
    fn delete(&self, sha256: &str) -> Result<(), StoreError>;
    /// Whether the store answers, for `/readyz`.
    fn ping(&self) -> Result<(), StoreError>;
}

/// A stored archive, open for reading.
pub(crate) struct Blob {
    pub body: BlobBody,
    /// Its length in bytes, sent as `Content-Length`.
    pub size: u64,
}

/// Where a blob's bytes come from.
pub(crate) enum BlobBody {
    /// A file on this machine, which can also be read out of order.
    File(std::fs::File),
    /// A stream from elsewhere (an S3 response), read once, in order.
    Stream(Box<dyn io::Read + Send>),
}

impl std::fmt::Debug for Blob {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Blob")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl Blob {
    /// The archive as a file that can be read out of order (a zip reader seeks): a stream is
    /// first copied, at most `size` bytes, to an anonymous temporary file in `tmp`.
    pub(crate) fn into_file(self, tmp: &Path) -> Result<std::fs::File, StoreError> {
        match self.body {
            BlobBody::File(file) => Ok(file),
            BlobBody::Stream(stream) => {
                use std::io::Seek as _;
                let mut file = tempfile::tempfile_in(tmp)?;
                let copied = io::copy(&mut io::Read::take(stream, self.size), &mut file)?;
                if copied != self.size {
                    return Err(StoreError::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("the blob store sent {copied} of {} bytes", self.size),
                    )));
                }
                file.rewind()?;
                Ok(file)
            }
        }
    }
}

/// One archive in a store, as [`BlobStore::list`] sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredBlob {
    pub sha256: String,
    pub size: u64,
    /// When it was stored, in seconds since the Unix epoch.
    pub modified: i64,
}

/// Whether `text` is a SHA-256 as blob keys spell it: 64 lowercase hex digits.
pub(crate) fn is_sha256(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A blob's place below a store's root: `sha256/ab/cd/<sha256>`, so no folder grows past
/// 65,536 entries.
pub(crate) fn blob_key(sha256: &str) -> Option<String> {
    is_sha256(sha256).then(|| format!("sha256/{}/{}/{sha256}", &sha256[..2], &sha256[2..4]))
}

/// The start of a version's SKILL.md, for its web page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SkillMdStart {
    pub text: String,
    /// Whether SKILL.md goes on past `text`.
    pub cut: bool,
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
        blob_key(sha256).map(|key| self.root.join(key))
    }
}

/// Seconds since the Unix epoch of `time`, or 0 when it cannot be told.
fn unix_seconds(time: std::io::Result<std::time::SystemTime>) -> i64 {
    time.ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|since| i64::try_from(since.as_secs()).ok())
        .unwrap_or(0)
}

impl BlobStore for FsBlobs {
    fn put(&self, temp: &Path, sha256: &str) -> Result<(), StoreError> {
        let path = self
            .path(sha256)
            .ok_or_else(|| io::Error::other("not a sha256"))?;
        if path.is_file() {
            // Renews its time, which `registry gc --min-age` reads: an unreferenced archive that
            // a publish is about to refer to again is never taken for an old orphan.
            fs_err::OpenOptions::new()
                .write(true)
                .open(&path)?
                .into_parts()
                .0
                .set_modified(std::time::SystemTime::now())?;
            return Ok(());
        }
        let folder = path.parent().unwrap_or(&self.root);
        fs_err::create_dir_all(folder)?;
        fs_err::File::open(temp)?.sync_all()?;
        if let Err(error) = fs_err::rename(temp, &path) {
            if error.kind() != io::ErrorKind::CrossesDevices {
                return Err(error.into());
            }
            // The store is on another file system than the upload: copy beside the archive's
            // place, then rename there, so a reader never sees half an archive.
            let mut copy = tempfile::NamedTempFile::new_in(folder)?;
            io::copy(&mut fs_err::File::open(temp)?, copy.as_file_mut())?;
            copy.as_file().sync_all()?;
            copy.persist(&path).map_err(|error| error.error)?;
        }
        crate::fsx::sync_folder(folder);
        Ok(())
    }

    fn get(&self, sha256: &str) -> Result<Option<Blob>, StoreError> {
        let Some(path) = self.path(sha256) else {
            return Ok(None);
        };
        // Only a regular file is an archive: a link or a pipe put in its place (in an export
        // folder being imported, say) is never followed or read from.
        match fs_err::symlink_metadata(&path) {
            Ok(metadata) if metadata.is_file() => {}
            Ok(_) => {
                return Err(StoreError::Io(io::Error::other(format!(
                    "{} is not a regular file",
                    path.display()
                ))));
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error.into()),
        }
        let file = fs_err::File::open(&path)?;
        let size = file.metadata()?.len();
        Ok(Some(Blob {
            body: BlobBody::File(file.into_parts().0),
            size,
        }))
    }

    fn presigned(&self, _sha256: &str, _ttl: Duration) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    fn list(
        &self,
        each: &mut dyn FnMut(StoredBlob) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let top = self.root.join("sha256");
        if !top.is_dir() {
            return Ok(());
        }
        // Exactly three levels, as `blob_key` lays them out; anything else is not a blob.
        for first in fs_err::read_dir(&top)? {
            let first = first?.path();
            if !first.is_dir() {
                continue;
            }
            for second in fs_err::read_dir(&first)? {
                let second = second?.path();
                if !second.is_dir() {
                    continue;
                }
                for entry in fs_err::read_dir(&second)? {
                    let entry = entry?;
                    let name = entry.file_name().to_string_lossy().into_owned();
                    let metadata = entry.metadata()?;
                    if !metadata.is_file() || self.path(&name).as_deref() != Some(&entry.path()) {
                        continue;
                    }
                    each(StoredBlob {
                        sha256: name,
                        size: metadata.len(),
                        modified: unix_seconds(metadata.modified()),
                    })?;
                }
            }
        }
        Ok(())
    }

    fn delete(&self, sha256: &str) -> Result<(), StoreError> {
        let Some(path) = self.path(sha256) else {
            return Ok(());
        };
        match fs_err::remove_file(&path) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error.into()),
            _ => Ok(()),
        }
    }

    fn ping(&self) -> Result<(), StoreError> {
        fs_err::metadata(&self.root)?;
        Ok(())
    }
}

/// Where a registry keeps its data: a database and a blob store, each embedded under `data`
/// unless given (`--database`, `--blobs`).
#[derive(Clone, Debug)]
pub struct Location {
    /// The folder for the embedded stores and the server's unfinished uploads.
    pub data: PathBuf,
    /// `postgres://…` (or `postgresql://…`), or `sqlite:PATH` / a path [default:
    /// `DATA/registry.db`].
    pub database: Option<String>,
    /// `s3://bucket/prefix`, or a folder [default: `DATA/blobs`].
    pub blobs: Option<String>,
    /// Connections each server keeps to `PostgreSQL`.
    pub pool_size: usize,
}

/// Which metadata store a [`Location`] names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    Sqlite(PathBuf),
    Postgres(String),
}

/// Which blob store a [`Location`] names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blobs {
    Folder(PathBuf),
    S3(String),
}

/// The stores a registry runs on.
#[derive(Clone)]
pub(crate) struct Stores {
    pub meta: Arc<dyn MetadataStore>,
    pub blobs: Arc<dyn BlobStore>,
}

impl Location {
    /// The embedded stores under `data`.
    pub fn embedded(data: PathBuf) -> Self {
        Self {
            data,
            database: None,
            blobs: None,
            pool_size: default_pool_size(),
        }
    }

    pub fn database(&self) -> Database {
        match self.database.as_deref() {
            Some(url) if has_scheme(url, "postgres") || has_scheme(url, "postgresql") => {
                // The client takes the scheme in lowercase only.
                let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
                Database::Postgres(format!("postgres://{rest}"))
            }
            Some(path) => {
                Database::Sqlite(PathBuf::from(path.strip_prefix("sqlite:").unwrap_or(path)))
            }
            None => Database::Sqlite(self.data.join("registry.db")),
        }
    }

    pub fn blobs(&self) -> Blobs {
        match self.blobs.as_deref() {
            Some(url) if has_scheme(url, "s3") => Blobs::S3(url.to_owned()),
            Some(path) => Blobs::Folder(PathBuf::from(path)),
            None => Blobs::Folder(self.data.join("blobs")),
        }
    }

    /// What the database is, for messages: its path, or its URL without the password.
    pub fn database_shown(&self) -> String {
        match self.database() {
            Database::Sqlite(path) => path.display().to_string(),
            Database::Postgres(url) => without_password(&url),
        }
    }

    /// Opens the metadata store.
    pub(crate) fn open_meta(&self, on_open: OnOpen) -> Result<Arc<dyn MetadataStore>, StoreError> {
        Ok(match self.database() {
            Database::Sqlite(path) => {
                if let Some(folder) = path
                    .parent()
                    .filter(|folder| !folder.as_os_str().is_empty())
                {
                    fs_err::create_dir_all(folder)?;
                }
                Arc::new(Sqlite::open(&path, on_open)?)
            }
            Database::Postgres(url) => Arc::new(Postgres::open(&url, self.pool_size, on_open)?),
        })
    }

    /// Opens the blob store.
    pub(crate) fn open_blobs(&self) -> Result<Arc<dyn BlobStore>, StoreError> {
        Ok(match self.blobs() {
            Blobs::Folder(path) => {
                fs_err::create_dir_all(&path)?;
                Arc::new(FsBlobs::new(path))
            }
            Blobs::S3(url) => Arc::new(S3Blobs::from_url(&url).map_err(StoreError::Schema)?),
        })
    }

    /// Opens both stores.
    pub(crate) fn open(&self, on_open: OnOpen) -> Result<Stores, StoreError> {
        Ok(Stores {
            meta: self.open_meta(on_open)?,
            blobs: self.open_blobs()?,
        })
    }
}

/// Whether `url` starts with `scheme://`, in any case.
fn has_scheme(url: &str, scheme: &str) -> bool {
    url.split_once("://")
        .is_some_and(|(given, _)| given.eq_ignore_ascii_case(scheme))
}

/// `url` with its password, if any, replaced by `***`: in the user part (up to the last `@`,
/// since a password may hold `/` or `@`) and in a `password=` parameter.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (user, host) = match rest.rfind('@') {
        Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
        None => (None, rest),
    };
    let mut shown = format!("{scheme}://");
    if let Some(user) = user {
        if let Some((name, _)) = user.split_once(':') {
            shown.push_str(name);
            shown.push_str(":***@");
        } else {
            shown.push_str(user);
            shown.push('@');
        }
    }
    let (path, query) = host
        .split_once('?')
        .map_or((host, None), |(p, q)| (p, Some(q)));
    shown.push_str(path);
    if let Some(query) = query {
        shown.push('?');
        let parameters: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        shown.push_str(&parameters.join("&"));
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::{BlobStore as _, Blobs, Database, FsBlobs, Location, without_password};

    #[test]
    fn schemes_are_read_in_any_case() {
        let mut location = Location::embedded("data".into());
        location.database = Some("Postgres://u@db/x".into());
        location.blobs = Some("S3://bucket/p".into());
        assert!(matches!(location.database(), Database::Postgres(_)));
        assert!(matches!(location.blobs(), Blobs::S3(_)));
    }

    /// An archive stored on another file system than the upload (`--blobs` on another disk
    /// than `--data`) is copied, not refused.
    #[test]
    fn a_blob_folder_on_another_file_system_is_written() {
        let shm = std::path::Path::new("/dev/shm");
        if !shm.is_dir() {
            return;
        }
        let upload = tempfile::NamedTempFile::new_in(shm).unwrap();
        fs_err::write(upload.path(), b"archive").unwrap();
        let store = tempfile::tempdir().unwrap();
        let blobs = FsBlobs::new(store.path().to_path_buf());
        let sha = "9c1185a5c5e9fc54612808977ee8f548b2258d31a0e9a5c7ee1c2b4f2b8a8e7a";
        blobs.put(upload.path(), sha).unwrap();
        let mut listed = Vec::new();
        blobs
            .list(&mut |blob| {
                listed.push(blob.size);
                Ok(())
            })
            .unwrap();
        assert_eq!(listed, [7]);
    }

    #[test]
    fn passwords_are_never_shown() {
        for (url, shown) in [
            (
                "postgres://u:secret@db:5432/x",
                "postgres://u:***@db:5432/x",
            ),
            ("postgres://u:se/cr@t@db/x", "postgres://u:***@db/x"),
            (
                "postgres://u@db/x?password=hunter2&sslmode=disable",
                "postgres://u@db/x?password=***&sslmode=disable",
            ),
            ("postgres://db/x", "postgres://db/x"),
            ("sqlite:/srv/r.db", "sqlite:/srv/r.db"),
        ] {
            assert_eq!(without_password(url), shown);
        }
    }
}
