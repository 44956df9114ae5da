//! The registry's wire types (`docs/architecture.md` §6), shared by the server and the client.

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

impl SkillInfo {
    /// The version `requirement` asks for: a full version (`1.2.0`, `=1.2.0`) is exact, yanked
    /// or not; anything else is a semver requirement (`^1.2`, `*` when none is given) over the
    /// versions that are not yanked, newest first.
    pub fn choose(&self, requirement: Option<&str>) -> Option<&VersionInfo> {
        let exact = requirement
            .map(|r| r.strip_prefix('=').unwrap_or(r))
            .and_then(|r| semver::Version::parse(r.trim()).ok());
        if let Some(exact) = exact {
            return self
                .versions
                .iter()
                .find(|v| semver::Version::parse(&v.version).ok().as_ref() == Some(&exact));
        }
        let requirement = semver::VersionReq::parse(requirement.unwrap_or("*")).ok()?;
        self.versions
            .iter()
            .filter(|v| !v.yanked)
            .filter_map(|v| {
                semver::Version::parse(&v.version)
                    .ok()
                    .map(|parsed| (parsed, v))
            })
            .filter(|(parsed, _)| requirement.matches(parsed))
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, v)| v)
    }
}

/// A search hit. Fields added after the first release have defaults, so a client reads an
/// older registry's answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    pub name: String,
    pub description: String,
    /// The newest stable version that is not yanked, if any: what `install NAME` picks.
    pub latest: Option<String>,
    /// The newest pre-release that is not yanked, when it is newer than `latest`.
    #[serde(default)]
    pub prerelease: Option<String>,
    /// Downloads of every version.
    #[serde(default)]
    pub downloads: u64,
    /// When a version was last published, in seconds since the Unix epoch.
    #[serde(default)]
    pub updated_at: i64,
}

/// One page of search results, best first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResult {
    pub skills: Vec<SearchHit>,
    /// How many skills match, on every page.
    pub total: usize,
    pub page: usize,
    /// How many hits a full page has.
    #[serde(default = "default_per_page")]
    pub per_page: usize,
}

/// Hits per page of `GET /api/v1/skills`.
pub const PER_PAGE: usize = 20;

fn default_per_page() -> usize {
    PER_PAGE
}

impl SearchResult {
    /// Whether pages after this one have hits.
    pub fn has_more(&self) -> bool {
        self.page.saturating_mul(self.per_page.max(1)) < self.total
    }
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
pub(crate) struct Me {
    pub user: String,
    /// What the token may do (`publish`, `yank`, `owners`, `read`).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// When it stops working, in seconds since the Unix epoch.
    #[serde(default)]
    pub expires_at: Option<i64>,
}

/// The owners of a skill, and the body of owner changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owners {
    pub users: Vec<String>,
}

/// Every error: `{"errors":[{"detail":"…"}]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ErrorBody {
    pub errors: Vec<ErrorDetail>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ErrorDetail {
    pub detail: String,
}

/// The longest skill name (the Agent Skills spec's limit).
pub(crate) const MAX_NAME_LEN: usize = 64;

/// The longest version the registry accepts. Semver sets no limit, but a version is shown,
/// stored and sent on every listing; this bounds its pre-release and build parts too.
pub(crate) const MAX_VERSION_LEN: usize = 64;

/// Whether `name` can be a registry name: one that is safe as a folder name everywhere (see
/// [`crate::pack::valid_skill_name`]).
pub(crate) fn valid_name(name: &str) -> bool {
    crate::pack::valid_skill_name(name)
}

/// Why `name` cannot be published, if it cannot.
pub(crate) fn name_problem(name: &str) -> Option<String> {
    if name.len() > MAX_NAME_LEN {
        Some(format!(
            "a skill name is at most {MAX_NAME_LEN} characters; this one has {}",
            name.chars().count()
        ))
    } else if valid_name(name) {
        None
    } else {
        Some(format!(
            "`{name}` is not a valid skill name (lowercase ASCII letters, digits and single hyphens)"
        ))
    }
}

/// Parses a version the registry accepts: semantic versioning, at most [`MAX_VERSION_LEN`]
/// characters, with major, minor and patch numbers that fit in 64 bits.
pub(crate) fn parse_version(version: &str) -> Result<semver::Version, String> {
    if version.len() > MAX_VERSION_LEN {
        return Err(format!(
            "a version is at most {MAX_VERSION_LEN} characters; this one has {}",
            version.chars().count()
        ));
    }
    semver::Version::parse(version)
        .map_err(|error| format!("`{version}` is not a semantic version such as 1.2.0 ({error})"))
}

/// A version without its build metadata: `1.0.0+ci.7` and `1.0.0` are the same version
/// (semver §10), so they share this key.
pub(crate) fn without_build(version: &str) -> &str {
    version
        .split_once('+')
        .map_or(version, |(release, _)| release)
}

#[cfg(test)]
mod choose_tests {
    use super::{SkillInfo, VersionInfo};

    fn skill(versions: &[(&str, bool)]) -> SkillInfo {
        SkillInfo {
            name: "s".into(),
            description: String::new(),
            owners: Vec::new(),
            versions: versions
                .iter()
                .map(|&(version, yanked)| VersionInfo {
                    version: version.into(),
                    checksum: String::new(),
                    digest: String::new(),
                    size: 0,
                    yanked,
                    published_at: 0,
                    publisher: String::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn requirements_pick_the_newest_unyanked_and_exact_versions_pick_themselves() {
        let skill = skill(&[
            ("2.0.0", true),
            ("1.10.0", false),
            ("1.9.0", false),
            ("1.2.0", true),
        ]);
        let chosen = |requirement| skill.choose(requirement).map(|v| v.version.as_str());
        assert_eq!(chosen(None), Some("1.10.0"));
        assert_eq!(chosen(Some("^1.2")), Some("1.10.0"));
        assert_eq!(chosen(Some("~1.9")), Some("1.9.0"));
        assert_eq!(chosen(Some("1.2.0")), Some("1.2.0"));
        assert_eq!(chosen(Some("=2.0.0")), Some("2.0.0"));
        assert_eq!(chosen(Some("^2")), None);
        assert_eq!(chosen(Some("not a requirement")), None);
    }
}
