//! The registry's wire types (ARCHITECTURE §6), shared by the server and the client.

use serde::{Deserialize, Serialize};

/// One published version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionInfo {
    pub version: String,
    /// SHA-256 of the archive, hex.
    pub checksum: String,
    /// `h1:` content digest.
    pub digest: String,
    pub size: u64,
    pub yanked: bool,
    /// Seconds since the Unix epoch.
    pub published_at: i64,
    pub publisher: String,
}

/// A skill and every version of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillInfo {
    pub name: String,
    pub description: String,
    pub owners: Vec<String>,
    /// Newest first (by semver).
    pub versions: Vec<VersionInfo>,
}

/// A search hit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    pub name: String,
    pub description: String,
    /// The newest version that is not yanked, if any.
    pub latest: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResult {
    pub skills: Vec<SearchHit>,
    pub total: usize,
    pub page: usize,
}

/// The answer to a publish.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Published {
    pub name: String,
    pub version: String,
    pub checksum: String,
    pub digest: String,
    pub url: String,
}

/// `GET /api/v1/me`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Me {
    pub user: String,
}

/// The owners of a skill, and the body of owner changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owners {
    pub users: Vec<String>,
}

/// Every error: `{"errors":[{"detail":"…"}]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub errors: Vec<ErrorDetail>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub detail: String,
}

/// Whether `name` can be a registry name: one that is safe as a folder name everywhere (see
/// [`crate::pack::valid_skill_name`]).
pub fn valid_name(name: &str) -> bool {
    crate::pack::valid_skill_name(name)
}
