//! Anthropic's Skills API: `skillpkg publish --to anthropic` uploads a skill as a custom skill,
//! and later versions of it as versions of that skill, remembering which skill it became in
//! the project's state file ([`state`]).
//!
//! The request format lives in this module and nowhere else. It follows these sources, as
//! checked on 2026-12-01 (`docs/research/publishing.md` §3):
//!
//! - the API reference on platform.claude.com: `/docs/en/api/skills/create` (`POST
//!   /v1/skills`: `files[]`, `display_name` of at most 255 characters on one line),
//!   `/docs/en/api/skills/versions/create` (`POST /v1/skills/{skill_id}/versions`: `files[]`)
//!   and `/docs/en/api/versioning` (every request carries an `anthropic-version` header);
//! - the Python SDK `anthropic` 2.15.0, `resources/skills` and `lib/_files.py`: one multipart
//!   part named `files[]` per file, whose filename is the path under one top-level folder
//!   (`pdf-forms/SKILL.md`); `GET /v1/skills` with `source`, `limit` and the `page` cursor of
//!   the previous answer's `next_page`; the GA objects `Skill` (`latest_version_id`) and
//!   `SkillVersion` (`id`), and the error object `{"type":"error","error":{…},"request_id"}`.
//!
//! It was written where the real API cannot be reached: the integration tests hold it to a
//! loopback contract server that enforces the format above (`tests/it/anthropic.rs`). What the
//! notes mark UNCONFIRMED (the upload limit, whether `anthropic-version: 2026-10-21` changes
//! these objects) is configurable or tolerated here.
//!
//! Nothing here prints: [`publish`] returns what it did, and every request it made.

mod multipart;
pub mod state;

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use self::multipart::Part;
use self::state::{Record, State};
use super::{Outcome, Prepared};
use crate::registry::client::{ClientError, Repeat, Timeouts};

/// Where the API is, unless `ANTHROPIC_BASE_URL` says otherwise (as in the SDK).
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The `anthropic-version` sent, unless `SKILLPKG_ANTHROPIC_VERSION` says otherwise. Not the
/// SDK 2.15.0 default `2026-10-21`: the changes that version documents concern the Messages
/// API, the GA write-ups use `2023-06-01` with the Skills API, and whether `2026-10-21` changes
/// the Skills objects is unconfirmed. `2023-06-01` is the version every key accepts; both the
/// GA and the beta shapes of the answers are read.
pub const DEFAULT_VERSION: &str = "2023-06-01";

/// The largest upload, uncompressed: the documented limit of the beta (8 MB). GA write-ups
/// say 30 MB, which no primary source confirms; [`Options::max_bytes`] overrides it.
pub const DEFAULT_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// The state file's name, in the project's root.
pub const STATE_FILE: &str = "skillpkg-state.toml";

/// The state file's workspace key when no workspace id is sent.
pub const DEFAULT_WORKSPACE: &str = "default";

/// The largest answer read: a page of 100 skills is a few tens of KiB.
const MAX_ANSWER_BYTES: u64 = 1024 * 1024;

/// Skills asked for per page when looking a skill up by name, and the most pages read.
const LIST_LIMIT: u32 = 100;
const MAX_LIST_PAGES: usize = 20;

/// Where and how to call the API.
#[derive(Clone, PartialEq, Eq)]
pub struct Options {
    /// `ANTHROPIC_BASE_URL`, else [`DEFAULT_BASE_URL`]; without a trailing `/`.
    pub base_url: String,
    /// `ANTHROPIC_API_KEY`; only a dry run may go without.
    pub api_key: Option<String>,
    /// The `anthropic-version` header: [`DEFAULT_VERSION`], or `SKILLPKG_ANTHROPIC_VERSION`.
    pub version: String,
    /// The workspace sent as `anthropic-workspace-id`, for keys that can act on several.
    pub workspace: Option<String>,
    /// The largest upload in bytes, uncompressed: [`DEFAULT_MAX_BYTES`].
    pub max_bytes: u64,
}

impl Options {
    /// The options the environment gives, for `workspace` (`--workspace`).
    pub fn from_env(workspace: Option<String>) -> Self {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
        };
        Self {
            base_url: var("ANTHROPIC_BASE_URL")
                .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned())
                .trim_end_matches('/')
                .to_owned(),
            api_key: var("ANTHROPIC_API_KEY"),
            version: var("SKILLPKG_ANTHROPIC_VERSION")
                .unwrap_or_else(|| DEFAULT_VERSION.to_owned()),
            workspace: workspace
                .map(|id| id.trim().to_owned())
                .filter(|id| !id.is_empty()),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// Never prints the key.
impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("version", &self.version)
            .field("workspace", &self.workspace)
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

/// What a publish did, for the command to report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    /// [`Outcome::Unchanged`] when the state file records this version with these files.
    pub outcome: Outcome,
    /// The skill on the API: created, found, or recorded. `None` only for a dry run that would
    /// create one.
    pub skill_id: Option<String>,
    /// The version uploaded (or recorded, when unchanged), when the API gave its id.
    pub version_id: Option<String>,
    /// A skill was created (or, for a dry run, would be), not a version added.
    pub created: bool,
    /// Dry run only: the state file records no skill, so the real run first lists the custom
    /// skills (`GET /v1/skills?source=custom`) for one whose `display_name` is the skill's name,
    /// and adds a version to it, instead of the create shown, if there is one.
    pub lookup_first: bool,
    /// Every request made, in order (for a dry run, the one that would be made).
    pub requests: Vec<RequestSummary>,
}

/// One request as sent, or as a dry run would send it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RequestSummary {
    pub method: &'static str,
    /// The path and query, such as `/v1/skills/skill_01…/versions`.
    pub path: String,
    /// The headers skillpkg sets (ureq adds `host`, `user-agent` and `content-length`), the
    /// key shown as `[redacted]` (`[not set]` without one) and the random multipart boundary as
    /// `[boundary]`.
    pub headers: BTreeMap<&'static str, String>,
    /// The multipart parts, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartSummary>,
    /// The answer's status; `None` for a dry run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// `POST /v1/skills (display_name pdf-forms, 3 files, 2.1 KiB)`.
impl std::fmt::Display for RequestSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)?;
        if self.parts.is_empty() {
            return Ok(());
        }
        let mut details = Vec::new();
        for part in self.parts.iter().filter(|part| part.filename.is_none()) {
            details.push(format!(
                "{} {}",
                part.name,
                part.value.as_deref().unwrap_or_default()
            ));
        }
        let files: Vec<_> = self
            .parts
            .iter()
            .filter(|part| part.filename.is_some())
            .collect();
        let bytes = files.iter().map(|part| part.bytes).sum();
        details.push(format!(
            "{} {}, {}",
            files.len(),
            if files.len() == 1 { "file" } else { "files" },
            crate::fsx::size(bytes)
        ));
        write!(f, " ({})", details.join(", "))
    }
}

/// One multipart part of a request.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PartSummary {
    /// The form field: `files[]` or `display_name`.
    pub name: &'static str,
    /// A file's name: `{skill}/{path}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<&'static str>,
    /// A text field's value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub bytes: u64,
    pub sha256: String,
}

/// Why a publish failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The API would refuse the skill, or this version was published with other contents:
    /// nothing was sent.
    #[error("{message}")]
    Refused { message: String, hint: String },
    /// The API answered with an error.
    #[error(
        "the Skills API answered {status} {kind}: {message}{}",
        request_id.as_ref().map(|id| format!(" (request id {id})")).unwrap_or_default()
    )]
    Api {
        status: u16,
        /// The error's `type`: `invalid_request_error`, `authentication_error`, …
        kind: String,
        message: String,
        request_id: Option<String>,
        hint: Option<String>,
    },
    /// No API key, and not a dry run.
    #[error("ANTHROPIC_API_KEY is not set; publishing to the Skills API needs an API key")]
    NoKey,
    /// The key would travel in clear text.
    #[error(
        "refusing to send the API key to {base} over plain http://, where anyone on the network path can read it"
    )]
    PlainHttpKey { base: String },
    /// The environment's settings are wrong: the base URL, `SKILLPKG_HTTP_TIMEOUT`, a CA file.
    #[error("{0}")]
    Setup(String),
    /// The state file cannot be read, is malformed, or cannot be written.
    #[error("{}: {message}", path.display())]
    State { path: PathBuf, message: String },
    /// A file of the skill cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// No answer: the connection, a timeout, TLS.
    #[error("{0}")]
    Network(String),
    /// The answer is not what the API documents.
    #[error("the Skills API's answer to {request} is not what skillpkg expects: {message}")]
    Unexpected { request: String, message: String },
}

impl Error {
    /// Whether the skill or the request was refused (exit 1): a rule broken before sending, or
    /// a 4xx answer other than a timeout or a rate limit. A wrong key (401, 403) is one too:
    /// the API said no to this upload.
    pub fn is_refusal(&self) -> bool {
        match self {
            Self::Refused { .. } => true,
            Self::Api { status, .. } => (400..500).contains(status) && ![408, 429].contains(status),
            _ => false,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Refused { hint, .. } => Some(hint.clone()),
            Self::Api { hint, .. } => hint.clone(),
            Self::NoKey => Some(
                "set ANTHROPIC_API_KEY to a key from https://platform.claude.com/settings/keys, or pass --dry-run to see the requests".into(),
            ),
            Self::PlainHttpKey { .. } => {
                Some("use an https:// ANTHROPIC_BASE_URL (plain http is allowed to localhost only)".into())
            }
            Self::Network(_) => Some(
                "if the API is slow rather than unreachable, set SKILLPKG_HTTP_TIMEOUT=SECONDS to wait longer; behind a proxy with its own certificate authority, set SKILLPKG_CA_FILE to its PEM file".into(),
            ),
            Self::Setup(_) | Self::State { .. } | Self::Read { .. } | Self::Unexpected { .. } => {
                None
            }
        }
    }
}

/// The destinations' common error: refusals (and 4xx answers, see [`Error::is_refusal`]) stay
/// refusals, the rest are failures; the hint goes along.
impl From<Error> for super::Error {
    fn from(error: Error) -> Self {
        let hint = error.hint().unwrap_or_default();
        if error.is_refusal() {
            Self::refused(error.to_string(), hint)
        } else {
            Self::failed(error.to_string(), hint)
        }
    }
}

/// Uploads `skill` to the Skills API: a new version of the skill `state_file` records for it
/// (or that a lookup by name finds), else a new skill; nothing when the state file records this
/// version with these files. A dry run reads the state file but sends and writes nothing.
pub fn publish(
    skill: &Prepared,
    options: &Options,
    state_file: &Path,
    dry_run: bool,
) -> Result<Published, Error> {
    check_rules(skill, options.max_bytes)?;
    let upload = Upload::read(skill, options.max_bytes)?;
    let mut state = State::read(state_file)?;
    let workspace = options.workspace.as_deref().unwrap_or(DEFAULT_WORKSPACE);
    let version = skill.version.to_string();
    let recorded = state.get(workspace, &skill.name)?;
    if let Some(record) = &recorded
        && record.version == version
    {
        if record.digest == upload.digest {
            return Ok(Published {
                outcome: Outcome::Unchanged,
                skill_id: Some(record.skill_id.clone()),
                version_id: record.version_id.clone(),
                created: false,
                lookup_first: false,
                requests: Vec::new(),
            });
        }
        return Err(Error::Refused {
            message: format!(
                "{} {version} was already published to the Skills API with other contents; bump the version",
                skill.name
            ),
            hint: format!(
                "set a new `metadata.version` in {}, or pass --version",
                skill.dir.join("SKILL.md").display()
            ),
        });
    }
    let known = recorded.map(|record| record.skill_id);
    if dry_run {
        let request = match &known {
            Some(id) => upload.version_request(id),
            None => upload.create_request(&skill.name),
        };
        return Ok(Published {
            outcome: Outcome::Published,
            created: known.is_none(),
            lookup_first: known.is_none(),
            skill_id: known,
            version_id: None,
            requests: vec![request.summary(options, None)],
        });
    }
    let mut api = Api::new(options)?;
    let existing = match known {
        Some(id) => Some(id),
        None => api.find(&skill.name)?,
    };
    let (skill_id, version_id, created) = if let Some(id) = existing {
        let made: VersionObject = api.json(&upload.version_request(&id), Some(&state))?;
        (id, made.id, false)
    } else {
        let made: SkillObject = api.json(&upload.create_request(&skill.name), None)?;
        let version_id = made.latest_version_id.or(made.latest_version);
        (made.id, version_id, true)
    };
    let record = Record {
        skill_id: skill_id.clone(),
        version_id: version_id.clone(),
        version,
        digest: upload.digest,
    };
    state.set(workspace, &skill.name, &record);
    state.write().map_err(|error| Error::State {
        path: state.path().to_path_buf(),
        message: format!(
            "the skill was published (skill id {skill_id}{}), but the state file was not written ({error}); without it, the next publish finds the skill by its name",
            version_id
                .as_deref()
                .map(|id| format!(", version id {id}"))
                .unwrap_or_default()
        ),
    })?;
    Ok(Published {
        outcome: Outcome::Published,
        skill_id: Some(skill_id),
        version_id,
        created,
        lookup_first: false,
        requests: api.requests,
    })
}

/// Refuses, before anything is read or sent, a skill the API would refuse: a name it rejects,
/// no `SKILL.md` at the top, a file name a multipart header cannot carry, a second SKILL.md or
/// a plugin manifest, more than `max_bytes` in all.
fn check_rules(skill: &Prepared, max_bytes: u64) -> Result<(), Error> {
    let refused = |message: String, hint: &str| Error::Refused {
        message,
        hint: hint.to_owned(),
    };
    let problems: Vec<String> = crate::check::rules::name::check_name_text(
        &skill.name,
        None,
        crate::agent::Target::ClaudeAi,
        0..0,
    )
    .into_iter()
    .map(|diagnostic| diagnostic.message)
    .collect();
    if !problems.is_empty() {
        return Err(refused(
            format!(
                "{}: the Skills API refuses the name `{}`: {}",
                skill.dir.join("SKILL.md").display(),
                skill.name,
                problems.join("; ")
            ),
            "rename the skill: its `name` and its folder",
        ));
    }
    if !skill.files.iter().any(|file| file.path == "SKILL.md") {
        return Err(refused(
            format!(
                "{}: no SKILL.md would be uploaded; the Skills API needs one at the top of the skill",
                skill.dir.display()
            ),
            "make sure .skillignore and .gitignore do not exclude SKILL.md",
        ));
    }
    if let Some(file) = skill
        .files
        .iter()
        .find(|file| !multipart::header_safe(&file.path))
    {
        return Err(refused(
            format!(
                "{}: the name holds a quote, a backslash or a control character, which a multipart upload cannot carry",
                skill.dir.join(&file.path).display()
            ),
            "rename the file, or add it to .skillignore",
        ));
    }
    if let Some(refusal) = crate::agent::claude_ai::upload_refusal(
        skill.files.iter().map(|file| file.path.as_str()),
        0,
        u64::MAX,
    ) {
        return Err(refused(
            format!("{}: {refusal}", skill.dir.display()),
            "move it out of the skill, or add it to .skillignore",
        ));
    }
    if skill.total > max_bytes {
        return Err(too_large(skill, skill.total, max_bytes));
    }
    Ok(())
}

/// The refusal of a skill of `total` bytes, naming its largest files.
fn too_large(skill: &Prepared, total: u64, max_bytes: u64) -> Error {
    let mut largest: Vec<_> = skill.files.iter().collect();
    largest.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.path.cmp(&b.path)));
    let named: Vec<String> = largest
        .iter()
        .take(3)
        .map(|file| format!("{} ({})", file.path, crate::fsx::size(file.size)))
        .collect();
    Error::Refused {
        message: format!(
            "{}: the skill is {} uncompressed; the Skills API takes at most {} per upload (largest: {})",
            skill.dir.display(),
            crate::fsx::size(total),
            crate::fsx::size(max_bytes),
            named.join(", ")
        ),
        hint: "move large files out of the skill, or add them to .skillignore".to_owned(),
    }
}

/// The files of a skill, read, as the parts of an upload.
struct Upload {
    /// One `files[]` part per file, in the skill's order.
    files: Vec<Part>,
    /// [`crate::pack::archive::content_digest`] of the files (paths inside the skill).
    digest: String,
}

impl Upload {
    /// Reads the files of `skill`, at most `max_bytes` in all (a file may have grown since it
    /// was selected).
    fn read(skill: &Prepared, max_bytes: u64) -> Result<Self, Error> {
        let mut files = Vec::with_capacity(skill.files.len());
        let mut hashes: Vec<[u8; 32]> = Vec::with_capacity(skill.files.len());
        let mut total = 0_u64;
        for file in &skill.files {
            let body =
                crate::fsx::read_capped(&file.source, max_bytes - total).map_err(|source| {
                    match source.kind() {
                        std::io::ErrorKind::FileTooLarge => {
                            too_large(skill, max_bytes.saturating_add(1), max_bytes)
                        }
                        _ => Error::Read {
                            path: file.source.clone(),
                            source,
                        },
                    }
                })?;
            total += body.len() as u64;
            hashes.push(Sha256::digest(&body).into());
            files.push(Part {
                name: "files[]",
                filename: Some(format!("{}/{}", skill.name, file.path)),
                content_type: Some(multipart::content_type(&file.path)),
                body,
            });
        }
        let digest = crate::pack::archive::content_digest(
            skill
                .files
                .iter()
                .zip(&hashes)
                .map(|(file, hash)| (file.path.as_str(), hash)),
        );
        Ok(Self { files, digest })
    }

    /// `POST /v1/skills`: the skill named `name` (also its `display_name`) with these files.
    fn create_request(&self, name: &str) -> Request {
        let mut parts = vec![Part::text("display_name", name)];
        parts.extend(self.files.iter().cloned());
        Request {
            method: "POST",
            path: "/v1/skills".to_owned(),
            parts,
        }
    }

    /// `POST /v1/skills/{id}/versions`: these files as a new version of the skill `id`.
    fn version_request(&self, id: &str) -> Request {
        Request {
            method: "POST",
            path: format!(
                "/v1/skills/{}/versions",
                crate::registry::client::encode(id)
            ),
            parts: self.files.clone(),
        }
    }
}

/// A request to make: a `GET` without parts, or a multipart `POST`.
struct Request {
    method: &'static str,
    /// The path and query.
    path: String,
    parts: Vec<Part>,
}

impl Request {
    fn get(path: String) -> Self {
        Self {
            method: "GET",
            path,
            parts: Vec::new(),
        }
    }

    /// The headers to send, `key` and `content_type` included as given.
    fn headers(
        options: &Options,
        key: Option<&str>,
        content_type: Option<String>,
    ) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            ("x-api-key", key.unwrap_or_default().to_owned()),
            ("anthropic-version", options.version.clone()),
        ];
        if let Some(workspace) = &options.workspace {
            headers.push(("anthropic-workspace-id", workspace.clone()));
        }
        if let Some(content_type) = content_type {
            headers.push(("content-type", content_type));
        }
        headers
    }

    /// What the request is, with the key and the boundary hidden, and the answer's `status`.
    fn summary(&self, options: &Options, status: Option<u16>) -> RequestSummary {
        let key = if options.api_key.is_some() {
            "[redacted]"
        } else {
            "[not set]"
        };
        let content_type =
            (!self.parts.is_empty()).then(|| "multipart/form-data; boundary=[boundary]".to_owned());
        let headers = Self::headers(options, Some(key), content_type)
            .into_iter()
            .collect();
        let parts = self
            .parts
            .iter()
            .map(|part| PartSummary {
                name: part.name,
                filename: part.filename.clone(),
                content_type: part.content_type,
                value: part
                    .filename
                    .is_none()
                    .then(|| String::from_utf8_lossy(&part.body).into_owned()),
                bytes: part.body.len() as u64,
                sha256: part.sha256(),
            })
            .collect();
        RequestSummary {
            method: self.method,
            path: self.path.clone(),
            headers,
            parts,
            status,
        }
    }

    /// `GET /v1/skills?…` and the like, for messages.
    fn describe(&self) -> String {
        let path = self.path.split('?').next().unwrap_or_default();
        format!("{} {path}", self.method)
    }
}

/// A GA `Skill` (or the beta one: `display_title`, `latest_version`).
#[derive(Debug, serde::Deserialize)]
struct SkillObject {
    id: String,
    #[serde(default, alias = "display_title")]
    display_name: Option<String>,
    #[serde(default)]
    latest_version_id: Option<String>,
    #[serde(default)]
    latest_version: Option<String>,
    #[serde(default)]
    source: Option<String>,
}

/// A `SkillVersion`: only its id matters here.
#[derive(Debug, serde::Deserialize)]
struct VersionObject {
    #[serde(default)]
    id: Option<String>,
}

/// A page of `GET /v1/skills`.
#[derive(Debug, serde::Deserialize)]
struct SkillPage {
    data: Vec<SkillObject>,
    #[serde(default)]
    next_page: Option<String>,
}

/// The API's error object.
#[derive(Debug, serde::Deserialize)]
struct ErrorObject {
    error: ErrorDetail,
    #[serde(default)]
    request_id: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
struct ErrorDetail {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    message: String,
}

/// The API, called with the options' key, recording every request.
struct Api<'a> {
    options: &'a Options,
    key: &'a str,
    agent: ureq::Agent,
    timeouts: Timeouts,
    requests: Vec<RequestSummary>,
}

impl<'a> Api<'a> {
    fn new(options: &'a Options) -> Result<Self, Error> {
        let key = options.api_key.as_deref().ok_or(Error::NoKey)?;
        let base = &options.base_url;
        let Some((scheme, host)) = crate::registry::client::url_scheme_and_host(base) else {
            return Err(Error::Setup(format!(
                "ANTHROPIC_BASE_URL is `{base}`; it must be an https:// URL (or http:// to localhost)"
            )));
        };
        let https = scheme == "https";
        if !https && !crate::registry::client::is_loopback(&host) {
            return Err(Error::PlainHttpKey { base: base.clone() });
        }
        let (agent, timeouts) = crate::registry::client::agent(https).map_err(network)?;
        Ok(Self {
            options,
            key,
            agent,
            timeouts,
            requests: Vec::new(),
        })
    }

    /// The custom skill whose `display_name` is `name`, if there is one; refuses to guess
    /// between several.
    fn find(&mut self, name: &str) -> Result<Option<String>, Error> {
        let mut found = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_LIST_PAGES {
            let mut path = format!("/v1/skills?source=custom&limit={LIST_LIMIT}");
            if let Some(cursor) = &cursor {
                path.push_str("&page=");
                path.push_str(&crate::registry::client::encode(cursor));
            }
            let page: SkillPage = self.json(&Request::get(path), None)?;
            found.extend(page.data.into_iter().filter(|skill| {
                skill.display_name.as_deref() == Some(name)
                    && skill
                        .source
                        .as_deref()
                        .is_none_or(|source| source == "custom")
            }));
            cursor = page.next_page.filter(|next| !next.is_empty());
            if cursor.is_none() {
                return match found.as_slice() {
                    [] => Ok(None),
                    [one] => Ok(Some(one.id.clone())),
                    several => Err(Error::Refused {
                        message: format!(
                            "the Skills API has {} custom skills named `{name}` ({}); skillpkg cannot tell which to add a version to",
                            several.len(),
                            several
                                .iter()
                                .map(|skill| skill.id.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        hint: format!(
                            "delete the extra skills, or record the one to use in {STATE_FILE} under [anthropic.WORKSPACE.SKILL] as `skill_id`, `version` and `digest`"
                        ),
                    }),
                };
            }
        }
        Err(Error::Refused {
            message: format!(
                "looked for a custom skill named `{name}` in {MAX_LIST_PAGES} pages of {LIST_LIMIT} without reaching the end of the list"
            ),
            hint: format!(
                "record the skill's id in {STATE_FILE} under [anthropic.WORKSPACE.SKILL] as `skill_id`, `version` and `digest`"
            ),
        })
    }

    /// Sends `request` and reads its JSON answer as `T`. `state` is the state file the skill id
    /// came from, for the hint of a 404.
    fn json<T: serde::de::DeserializeOwned>(
        &mut self,
        request: &Request,
        state: Option<&State>,
    ) -> Result<T, Error> {
        let (status, request_id, body) = self.send(request)?;
        if !(200..300).contains(&status) {
            return Err(api_error(status, request_id, &body, state));
        }
        serde_json::from_slice(&body).map_err(|error| Error::Unexpected {
            request: request.describe(),
            message: error.to_string(),
        })
    }

    /// Sends `request` (retrying only what cannot have taken effect, for a `POST`), and gives
    /// the status, the `request-id` header and the body of the answer, at most
    /// [`MAX_ANSWER_BYTES`] of it.
    fn send(&mut self, request: &Request) -> Result<(u16, Option<String>, Vec<u8>), Error> {
        let url = format!("{}{}", self.options.base_url, request.path);
        let body = if request.parts.is_empty() {
            None
        } else {
            Some(
                multipart::encode(&request.parts)
                    .map_err(|error| Error::Setup(error.to_string()))?,
            )
        };
        let headers = Request::headers(
            self.options,
            Some(self.key),
            body.as_ref().map(multipart::Body::content_type),
        );
        let repeat = if body.is_some() {
            Repeat::Unsafe
        } else {
            Repeat::Harmless
        };
        let attempt = || match &body {
            None => prepare(self.agent.get(&url), &headers).call(),
            Some(body) => prepare(self.agent.post(&url), &headers).send(&body.bytes[..]),
        };
        let transport = |error| {
            network(crate::registry::client::transport_error(
                &url,
                error,
                self.timeouts,
            ))
        };
        let mut response =
            crate::registry::client::retrying(repeat, &attempt).map_err(transport)?;
        let status = response.status().as_u16();
        self.requests
            .push(request.summary(self.options, Some(status)));
        let request_id = response
            .headers()
            .get("request-id")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let mut bytes = Vec::new();
        response
            .body_mut()
            .as_reader()
            .take(MAX_ANSWER_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| transport(error.into()))?;
        if bytes.len() as u64 > MAX_ANSWER_BYTES {
            return Err(Error::Unexpected {
                request: request.describe(),
                message: format!(
                    "the answer is larger than {}",
                    crate::fsx::size(MAX_ANSWER_BYTES)
                ),
            });
        }
        Ok((status, request_id, bytes))
    }
}

/// `builder` with `headers`, following no redirect: the key goes to the URL asked for only (a
/// redirect is an answer, and an error).
fn prepare<B>(
    builder: ureq::RequestBuilder<B>,
    headers: &[(&'static str, String)],
) -> ureq::RequestBuilder<B> {
    let mut builder = builder
        .config()
        .max_redirects(0)
        .max_redirects_will_error(false)
        .build();
    for (name, value) in headers {
        builder = builder.header(*name, value);
    }
    builder
}

/// An error answer as an [`Error::Api`], with a hint when there is one to give.
fn api_error(status: u16, request_id: Option<String>, body: &[u8], state: Option<&State>) -> Error {
    let (kind, message, request_id) =
        if let Ok(object) = serde_json::from_slice::<ErrorObject>(body) {
            (
                object.error.kind,
                object.error.message,
                object.request_id.or(request_id),
            )
        } else {
            let text: String = String::from_utf8_lossy(body).chars().take(200).collect();
            let text = text.trim();
            let message = if text.is_empty() {
                "(no message)".to_owned()
            } else {
                text.to_owned()
            };
            ("error".to_owned(), message, request_id)
        };
    let hint = match status {
        401 | 403 => Some(
            "check ANTHROPIC_API_KEY: the key must be valid, and belong to the workspace (--workspace) the skill goes to".to_owned(),
        ),
        404 => state.map(|state| {
            format!(
                "the skill recorded in {} may have been deleted; remove its entry there to create it again",
                state.path().display()
            )
        }),
        _ => None,
    };
    Error::Api {
        status,
        kind,
        message,
        request_id,
        hint,
    }
}

/// A transport failure in words about the API rather than about skillpkg's registry.
fn network(error: ClientError) -> Error {
    match error {
        ClientError::Transport { url, message } => {
            Error::Network(format!("cannot reach the Skills API at {url}: {message}"))
        }
        ClientError::TimedOut {
            url,
            doing,
            seconds,
        } => Error::Network(format!("timed out {doing} {url}: nothing for {seconds} s")),
        ClientError::Tls { url, message } => {
            Error::Network(format!("TLS with {url} failed: {message}"))
        }
        ClientError::Setup(message) => Error::Setup(message),
        other => Error::Network(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use sha2::Digest as _;

    use super::state::{Record, State};
    use super::{Error, Options, Outcome, Prepared, Upload, api_error, check_rules, publish};
    use crate::pack::select::PackFile;

    const SKILL: &[u8] = b"---\nname: pdf-forms\ndescription: Fills PDF forms.\n---\n\nBody\n";

    /// A skill `name` in `root` holding `files`, ready to publish as 1.2.0.
    fn prepared(root: &Path, name: &str, files: &[(&str, &[u8])]) -> Prepared {
        let dir = root.join(name);
        let mut packed = Vec::new();
        for (path, bytes) in files {
            let source = dir.join(path);
            fs_err::create_dir_all(source.parent().unwrap()).unwrap();
            fs_err::write(&source, bytes).unwrap();
            packed.push(PackFile {
                path: (*path).to_owned(),
                source,
                size: bytes.len() as u64,
                executable: false,
            });
        }
        Prepared {
            dir,
            name: name.to_owned(),
            description: "Fills PDF forms.".to_owned(),
            version: semver::Version::new(1, 2, 0),
            total: packed.iter().map(|file| file.size).sum(),
            files: packed,
        }
    }

    /// Options that cannot reach anything: a test that gets past the state file fails loudly.
    fn offline(key: Option<&str>) -> Options {
        Options {
            base_url: "http://192.0.2.1:9".to_owned(),
            api_key: key.map(str::to_owned),
            version: super::DEFAULT_VERSION.to_owned(),
            workspace: None,
            max_bytes: super::DEFAULT_MAX_BYTES,
        }
    }

    fn refusal(result: Result<(), Error>) -> String {
        let error = result.unwrap_err();
        assert!(error.is_refusal(), "{error}");
        assert!(matches!(error, Error::Refused { .. }), "{error}");
        error.to_string()
    }

    #[test]
    fn rules_refuse_what_the_api_would_before_anything_is_read() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let message = refusal(check_rules(
            &prepared(root, "claude-helper", &[("SKILL.md", SKILL)]),
            1024,
        ));
        assert!(
            message.contains("claude-helper/SKILL.md") && message.contains("`claude`"),
            "{message}"
        );
        let message = refusal(check_rules(
            &prepared(root, "no-skill", &[("README.md", b"x")]),
            1024,
        ));
        assert!(
            message.contains("no SKILL.md would be uploaded"),
            "{message}"
        );
        let message = refusal(check_rules(
            &prepared(root, "quoted", &[("SKILL.md", SKILL), ("a\"b.md", b"x")]),
            1024,
        ));
        assert!(message.contains("quoted/a\"b.md"), "{message}");
        let message = refusal(check_rules(
            &prepared(
                root,
                "nested",
                &[("SKILL.md", SKILL), ("more/SKILL.md", SKILL)],
            ),
            1024,
        ));
        assert!(message.contains("more/SKILL.md"), "{message}");
        let message = refusal(check_rules(
            &prepared(
                root,
                "plugin",
                &[("SKILL.md", SKILL), (".claude-plugin/plugin.json", b"{}")],
            ),
            1024,
        ));
        assert!(message.contains("plugin.json"), "{message}");
        let big = vec![b'x'; 2000];
        let skill = prepared(
            root,
            "big",
            &[("SKILL.md", SKILL), ("assets/big.bin", &big)],
        );
        let message = refusal(check_rules(&skill, 1024));
        assert!(
            message.contains("takes at most 1.0 KiB")
                && message.contains("largest: assets/big.bin (2.0 KiB), SKILL.md"),
            "{message}"
        );
        check_rules(&skill, 4096).unwrap();
    }

    #[test]
    fn a_file_that_grew_past_the_limit_since_it_was_selected_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let skill = prepared(
            root.path(),
            "grown",
            &[("SKILL.md", SKILL), ("data.txt", b"small")],
        );
        fs_err::write(skill.dir.join("data.txt"), vec![b'x'; 5000]).unwrap();
        let error = Upload::read(&skill, 4096).err().unwrap();
        assert!(
            error.is_refusal() && error.to_string().contains("takes at most"),
            "{error}"
        );
    }

    #[test]
    fn uploads_put_every_file_under_the_skill_folder() {
        let root = tempfile::tempdir().unwrap();
        let files: &[(&str, &[u8])] = &[("SKILL.md", SKILL), ("scripts/fill.py", b"print(1)\n")];
        let skill = prepared(root.path(), "pdf-forms", files);
        let upload = Upload::read(&skill, 1024).unwrap();
        let create = upload.create_request("pdf-forms");
        assert_eq!(
            (create.method, create.path.as_str()),
            ("POST", "/v1/skills")
        );
        let names: Vec<_> = create
            .parts
            .iter()
            .map(|part| (part.name, part.filename.as_deref(), part.content_type))
            .collect();
        assert_eq!(
            names,
            [
                ("display_name", None, None),
                ("files[]", Some("pdf-forms/SKILL.md"), Some("text/markdown")),
                (
                    "files[]",
                    Some("pdf-forms/scripts/fill.py"),
                    Some("text/x-python")
                ),
            ]
        );
        assert_eq!(create.parts[0].body, b"pdf-forms");
        let version = upload.version_request("skill_01abc");
        assert_eq!(version.path, "/v1/skills/skill_01abc/versions");
        assert_eq!(version.parts, create.parts[1..]);
        // The digest is the package's: paths inside the skill, so a rename of the folder alone
        // changes nothing.
        let hashes: Vec<[u8; 32]> = files
            .iter()
            .map(|(_, bytes)| sha2::Sha256::digest(bytes).into())
            .collect();
        let expected = crate::pack::archive::content_digest(
            files
                .iter()
                .zip(&hashes)
                .map(|((path, _), hash)| (*path, hash)),
        );
        assert_eq!(upload.digest, expected);
    }

    #[test]
    fn a_dry_run_reads_the_state_file_and_sends_and_writes_nothing() {
        let root = tempfile::tempdir().unwrap();
        let skill = prepared(root.path(), "pdf-forms", &[("SKILL.md", SKILL)]);
        let state_file = root.path().join("skillpkg-state.toml");
        let published = publish(&skill, &offline(None), &state_file, true).unwrap();
        assert_eq!(published.outcome, Outcome::Published);
        assert!(published.created && published.lookup_first);
        assert_eq!(published.skill_id, None);
        let [request] = published.requests.as_slice() else {
            panic!("{:?}", published.requests)
        };
        assert_eq!(
            request.to_string(),
            "POST /v1/skills (display_name pdf-forms, 1 file, 60 bytes)"
        );
        assert_eq!(request.headers["x-api-key"], "[not set]");
        assert_eq!(
            request.headers["content-type"],
            "multipart/form-data; boundary=[boundary]"
        );
        assert_eq!(request.status, None);
        assert!(!state_file.exists());

        let mut state = State::read(&state_file).unwrap();
        state.set(
            "default",
            "pdf-forms",
            &Record {
                skill_id: "skill_01abc".to_owned(),
                version_id: None,
                version: "1.1.0".to_owned(),
                digest: "h1:old=".to_owned(),
            },
        );
        state.write().unwrap();
        let before = fs_err::read_to_string(&state_file).unwrap();
        let published =
            publish(&skill, &offline(Some("sk-ant-secret")), &state_file, true).unwrap();
        assert!(!published.created && !published.lookup_first);
        assert_eq!(published.skill_id.as_deref(), Some("skill_01abc"));
        let json = serde_json::to_string(&published.requests).unwrap();
        assert!(json.contains("/v1/skills/skill_01abc/versions"), "{json}");
        assert!(
            json.contains("[redacted]") && !json.contains("secret"),
            "{json}"
        );
        assert_eq!(fs_err::read_to_string(&state_file).unwrap(), before);
    }

    #[test]
    fn the_state_file_settles_unchanged_and_reused_versions_without_the_network() {
        let root = tempfile::tempdir().unwrap();
        let skill = prepared(root.path(), "pdf-forms", &[("SKILL.md", SKILL)]);
        let state_file = root.path().join("skillpkg-state.toml");
        let digest = Upload::read(&skill, 1024).unwrap().digest;
        let mut state = State::read(&state_file).unwrap();
        let mut record = Record {
            skill_id: "skill_01abc".to_owned(),
            version_id: Some("skillver_01x".to_owned()),
            version: "1.2.0".to_owned(),
            digest,
        };
        state.set("default", "pdf-forms", &record);
        state.write().unwrap();
        let options = offline(Some("sk-ant-key"));
        let published = publish(&skill, &options, &state_file, false).unwrap();
        assert_eq!(published.outcome, Outcome::Unchanged);
        assert_eq!(published.version_id.as_deref(), Some("skillver_01x"));
        assert!(published.requests.is_empty());
        // Another workspace has its own entries.
        let elsewhere = Options {
            workspace: Some("wrkspc_01y".to_owned()),
            ..offline(None)
        };
        assert!(matches!(
            publish(&skill, &elsewhere, &state_file, false),
            Err(Error::NoKey)
        ));

        record.digest = "h1:other=".to_owned();
        state.set("default", "pdf-forms", &record);
        state.write().unwrap();
        let error = publish(&skill, &options, &state_file, false).unwrap_err();
        assert!(error.is_refusal());
        assert_eq!(
            error.to_string(),
            "pdf-forms 1.2.0 was already published to the Skills API with other contents; bump the version"
        );
    }

    #[test]
    fn the_key_is_required_and_never_sent_in_clear_to_another_host() {
        let root = tempfile::tempdir().unwrap();
        let skill = prepared(root.path(), "pdf-forms", &[("SKILL.md", SKILL)]);
        let state_file = root.path().join("skillpkg-state.toml");
        let error = publish(&skill, &offline(None), &state_file, false).unwrap_err();
        assert!(matches!(error, Error::NoKey) && !error.is_refusal());
        assert!(error.hint().unwrap().contains("ANTHROPIC_API_KEY"));
        let options = Options {
            base_url: "http://api.example.com".to_owned(),
            ..offline(Some("sk-ant-key"))
        };
        let error = publish(&skill, &options, &state_file, false).unwrap_err();
        assert!(matches!(error, Error::PlainHttpKey { .. }), "{error}");
        let options = Options {
            base_url: "ftp://api.example.com".to_owned(),
            ..offline(Some("sk-ant-key"))
        };
        let error = publish(&skill, &options, &state_file, false).unwrap_err();
        assert!(error.to_string().contains("ANTHROPIC_BASE_URL"), "{error}");
        assert!(!state_file.exists());
    }

    #[test]
    fn error_answers_carry_status_type_message_and_request_id() {
        let body = br#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011"}"#;
        let error = api_error(401, None, body, None);
        assert_eq!(
            error.to_string(),
            "the Skills API answered 401 authentication_error: invalid x-api-key (request id req_011)"
        );
        assert!(error.is_refusal());
        assert!(error.hint().unwrap().contains("ANTHROPIC_API_KEY"));
        let error = api_error(
            502,
            Some("req_hdr".to_owned()),
            b"<html>Bad gateway</html>",
            None,
        );
        assert_eq!(
            error.to_string(),
            "the Skills API answered 502 error: <html>Bad gateway</html> (request id req_hdr)"
        );
        assert!(!error.is_refusal());
        for (status, refusal) in [
            (400, true),
            (403, true),
            (404, true),
            (413, true),
            (408, false),
            (429, false),
            (500, false),
            (529, false),
        ] {
            assert_eq!(
                api_error(status, None, b"", None).is_refusal(),
                refusal,
                "{status}"
            );
        }
        let common: crate::publish::Error = api_error(401, None, body, None).into();
        assert!(matches!(common, crate::publish::Error::Refused { .. }));
        assert!(common.hint().contains("ANTHROPIC_API_KEY"));
    }

    #[test]
    fn options_never_show_the_key() {
        let debug = format!("{:?}", offline(Some("sk-ant-secret")));
        assert!(
            !debug.contains("secret") && debug.contains("[redacted]"),
            "{debug}"
        );
    }
}
