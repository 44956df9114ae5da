//! Storage behind the registry: metadata and blobs, as traits, so `PostgreSQL` and S3-compatible
//! storage can be added without touching the handlers. The embedded implementation keeps
//! metadata in `SQLite` (WAL) and archives in a content-addressed folder, both under `--data`.
//!
//! [`search`] holds how a query matches and ranks, apart from any database, so that every
//! store answers a search alike; [`sqlite`] is the embedded store.

pub mod search;
mod sqlite;

use std::io;
use std::path::{Path, PathBuf};

pub use sqlite::Sqlite;

use super::api::{SearchHit, SkillInfo};
use super::review::Review;

/// Storage failures the handlers report as 500.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] rusqlite::Error),
    #[error("blob store: {0}")]
    Io(#[from] io::Error),
    /// The database's schema is not one this build can use.
    #[error("{0}")]
    Schema(String),
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
