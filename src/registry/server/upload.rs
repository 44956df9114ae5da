//! Publishing: the upload streamed to disk under the size limit, its checksum compared, and the
//! archive extracted with the same safe extractor as `unpack` and validated before it is stored.

use std::io::{self, Write as _};
use std::path::Path;

use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt as _;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt as _;

use crate::registry::api::{self, Published};
use crate::registry::connections;

use crate::agent::Target;
use crate::check::check_skill;
use crate::pack::archive;
use crate::pack::extract::{self, ExtractError, Limits};
use crate::registry::review::{self, Review};
use crate::registry::store::{NewVersion, PublishOutcome};
use crate::skill::Skill;

use super::auth::{Can, ToPublish};
use super::{Api, Failure, MAX_SKILL_MD_BYTES, Shared, blocking, fail, now};

/// `PUT /api/v1/skills/{name}/{version}`: the whole publish, in order.
pub(super) async fn publish(
    State(state): State<Shared>,
    Can(publisher, _): Can<ToPublish>,
    Api(UrlPath((name, version))): Api<UrlPath<(String, String)>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, Failure> {
    // The URL is checked before the body is read.
    if let Some(problem) = api::name_problem(&name) {
        return Err(fail(StatusCode::BAD_REQUEST, problem));
    }
    let version = api::parse_version(&version)
        .map_err(|problem| fail(StatusCode::BAD_REQUEST, problem))?
        .to_string();
    let expected = headers
        .get("x-checksum-sha256")
        .and_then(|value| value.to_str().ok())
        .map(|value| value.trim().to_ascii_lowercase())
        .ok_or_else(|| {
            fail(
                StatusCode::BAD_REQUEST,
                "the `x-checksum-sha256` header is missing",
            )
        })?;

    // Stream the body to a temporary file, counting and hashing it.
    let work = tempfile::Builder::new()
        .prefix("publish-")
        .tempdir_in(&state.tmp)
        .map_err(|e| server_io_failure("make a working folder for the upload", &e))?;
    let upload = work.path().join("upload.skill");
    let (size, checksum) = receive(body, &upload, state.max_upload).await?;
    if checksum != expected {
        return Err(fail(
            StatusCode::BAD_REQUEST,
            format!(
                "checksum mismatch: the body's sha256 is {checksum}, the header says {expected}"
            ),
        ));
    }

    // Extract safely, validate, and read the name from SKILL.md.
    let unpack = work.path().join("unpacked");
    let upload_path = upload.clone();
    let url_name = name.clone();
    let working = connections::working();
    let checked = tokio::task::spawn_blocking(move || inspect(&upload_path, &unpack, &url_name))
        .await
        .map_err(|e| fail(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    drop(working);

    let new = NewVersion {
        name: name.clone(),
        version: version.clone(),
        checksum: checksum.clone(),
        digest: checked.digest.clone(),
        size,
        description: checked.description,
        skill_md: checked.skill_md,
        keywords: checked.keywords,
        review: checked.review,
        publisher,
        published_at: now(),
    };
    // The blob first: content-addressed, so an orphan is harmless; then one transaction.
    let blobs = state.blobs.clone();
    let meta = state.meta.clone();
    let blob_sum = checksum.clone();
    let outcome = blocking(move || {
        blobs.put(&upload, &blob_sum)?;
        meta.publish(&new)
    })
    .await?;
    drop(work);
    published(&state, name, version, checksum, checked.digest, outcome)
}

/// The answer to a publish, from what the transaction decided.
pub(super) fn published(
    state: &Shared,
    name: String,
    version: String,
    checksum: String,
    digest: String,
    outcome: PublishOutcome,
) -> Result<Response, Failure> {
    match outcome {
        PublishOutcome::Created => {
            let url = format!("{}/skills/{name}", state.base_url);
            Ok((
                StatusCode::CREATED,
                axum::Json(Published {
                    name,
                    version,
                    checksum,
                    digest,
                    url,
                }),
            )
                .into_response())
        }
        PublishOutcome::Exists {
            version: existing_version,
            checksum: existing,
        } => Err(fail(
            StatusCode::CONFLICT,
            if existing_version != version {
                format!(
                    "{name}@{version} is the same version as the published {existing_version}: versions that differ only in build metadata (after `+`) are equal, and versions are immutable; publish a new version"
                )
            } else if existing == checksum {
                format!("{name}@{version} is already published with this checksum")
            } else {
                format!(
                    "{name}@{version} already exists (checksum {existing}); versions are immutable, publish a new version"
                )
            },
        )),
        PublishOutcome::NotOwner => Err(fail(
            StatusCode::FORBIDDEN,
            format!("you are not an owner of `{name}`"),
        )),
        PublishOutcome::NameTaken { existing } => Err(fail(
            StatusCode::CONFLICT,
            format!("the name is taken by `{existing}` (names are unique whatever their case)"),
        )),
    }
}

/// Writes the body to `path`, refusing it past `limit`; returns its size and SHA-256.
pub(super) async fn receive(
    mut body: Body,
    path: &Path,
    limit: u64,
) -> Result<(u64, String), Failure> {
    let mut file = tokio::fs::File::create(path)
        .await
        .map_err(|e| server_io_failure("store the upload", &e))?;
    let mut hash = Sha256::new();
    let mut size = 0u64;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            fail(
                StatusCode::BAD_REQUEST,
                format!("the upload broke off: {e}"),
            )
        })?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        size += data.len() as u64;
        if size > limit {
            return Err(fail(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the archive is over the {limit}-byte limit"),
            ));
        }
        hash.update(&data);
        file.write_all(&data)
            .await
            .map_err(|e| server_io_failure("store the upload", &e))?;
    }
    file.flush()
        .await
        .map_err(|e| server_io_failure("store the upload", &e))?;
    Ok((size, archive::hex(&hash.finalize())))
}

/// A refused archive is the publisher's problem (422). Failing to write it out to check it (a
/// full disk, a quota, a file-size limit) is the registry's (5xx), and must not read as a
/// verdict on the archive: the same publish may succeed later.
pub(super) fn extraction_failure(error: ExtractError) -> Failure {
    if error.is_refusal() {
        return fail(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("the archive was refused: {error}"),
        );
    }
    let error = match error {
        ExtractError::Io(error) => error,
        other => io::Error::other(other.to_string()),
    };
    server_io_failure("unpack the archive to check it", &error)
}

/// A 5xx for an I/O error on the registry's own disk: 507 when it is out of space, else 500.
/// The details, which name the registry's paths, go to its log; the client learns what kind of
/// failure it was and that retrying later may help.
pub(super) fn server_io_failure(doing: &str, error: &io::Error) -> Failure {
    let line = serde_json::json!({
        "time": now(),
        "error": format!("could not {doing}: {error}"),
    });
    let _ = writeln!(std::io::stderr().lock(), "{line}");
    let status = match error.kind() {
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge => {
            StatusCode::INSUFFICIENT_STORAGE
        }
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    fail(
        status,
        format!(
            "the registry could not {doing} ({}); this is the registry's problem, not the archive's: try again later, and tell the registry's administrator if it persists",
            error.kind()
        ),
    )
}

pub(super) struct Inspected {
    digest: String,
    description: String,
    skill_md: String,
    keywords: String,
    review: Review,
}

/// Extracts the archive with the safe extractor, validates it for the open spec and checks
/// that its name is the URL's.
pub(super) fn inspect(upload: &Path, unpack: &Path, url_name: &str) -> Result<Inspected, Failure> {
    let options = extract::Options {
        limits: Limits {
            max_bytes: 256 * 1024 * 1024,
            ..Limits::default()
        },
        // The folder is read once and thrown away: nothing to make durable.
        durable: false,
        ..extract::Options::new(url_name)
    };
    let extracted = extract::extract(upload, unpack, &options).map_err(extraction_failure)?;
    let skill_md_size = extracted
        .files
        .iter()
        .find(|(path, _)| path == "SKILL.md")
        .map_or(0, |(_, size)| *size);
    if skill_md_size > MAX_SKILL_MD_BYTES {
        return Err(fail(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "SKILL.md is {skill_md_size} bytes; this registry accepts at most {MAX_SKILL_MD_BYTES} (1 MiB). Agents load all of SKILL.md into the model's context: keep it short and move reference material into files it links to (e.g. references/)"
            ),
        ));
    }
    let skill_file = extracted.dir.join("SKILL.md");
    let skill = Skill::load(&skill_file).map_err(|e| {
        fail(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("cannot read SKILL.md: {e}"),
        )
    })?;
    let text = skill
        .source()
        .map(|s| s.text().to_owned())
        .unwrap_or_default();
    let doc = skill.reading().and_then(|reading| reading.doc.clone());
    let name = doc
        .as_ref()
        .and_then(|doc| doc.name.as_deref())
        .and_then(|f| f.value.as_ref().ok())
        .map(|n| n.trim().to_owned());
    let description = doc
        .as_ref()
        .and_then(|doc| doc.description.as_deref())
        .and_then(|f| f.value.as_ref().ok())
        .map(|d| d.trim().to_owned())
        .unwrap_or_default();
    match &name {
        Some(name) if name == url_name => {}
        Some(name) => {
            return Err(fail(
                StatusCode::BAD_REQUEST,
                format!(
                    "the archive's SKILL.md is named `{name}`, but it was published as `{url_name}`"
                ),
            ));
        }
        None => {
            return Err(fail(
                StatusCode::UNPROCESSABLE_ENTITY,
                "SKILL.md has no `name`",
            ));
        }
    }
    let keywords = skill
        .reading()
        .map(|reading| metadata_string(reading, "keywords"))
        .unwrap_or_default();
    // The folder name inside the archive is the skill's, so the folder check applies as usual.
    let checked = check_skill(skill.clone(), &[Target::AgentSkills]);
    if !checked.is_valid() {
        let errors: Vec<String> = checked
            .diagnostics
            .iter()
            .filter(|d| d.severity == crate::check::rule::Severity::Error)
            .map(|d| format!("{}: {}", d.rule.code, d.message))
            .collect();
        return Err(fail(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("the skill does not pass validation: {}", errors.join("; ")),
        ));
    }
    let review = review::review(&extracted.dir, &skill, &extracted.files, &extracted.entries);
    let digest = extracted.content_digest;
    Ok(Inspected {
        digest,
        description,
        skill_md: text,
        keywords,
        review,
    })
}

/// The longest `metadata.keywords` kept: a few words to search by, not a second description.
const MAX_KEYWORDS_CHARS: usize = 256;

/// A string `metadata` entry of SKILL.md (cut to [`MAX_KEYWORDS_CHARS`]), or "".
fn metadata_string(reading: &crate::skill::Reading, key: &str) -> String {
    let (Some(doc), Some(Ok(yaml))) = (&reading.doc, &reading.yaml) else {
        return String::new();
    };
    let Some(Ok(entries)) = doc.metadata.as_deref().map(|field| &field.value) else {
        return String::new();
    };
    entries
        .iter()
        .find(|entry| entry.key.value == key)
        .and_then(|entry| match &yaml.resolve(entry.value).kind {
            crate::skill::yaml::NodeKind::Scalar(scalar) => Some(scalar.value.as_str()),
            _ => None,
        })
        .map(|text| text.chars().take(MAX_KEYWORDS_CHARS).collect())
        .unwrap_or_default()
}
