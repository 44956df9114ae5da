//! The JSON API's handlers, except publishing: search, info, downloads (streamed from disk),
//! yank and owners.

use std::io::Read as _;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::io::AsyncReadExt as _;
use tokio_util::io::ReaderStream;

use crate::registry::api::{Owners, PER_PAGE, SearchResult};

use crate::registry::store::search;
use crate::registry::store::{Blob, BlobBody, Change, MetadataStore, StoreError};

use super::auth::{Can, ToChangeOwners, ToYank};
use super::{
    Api, DOWNLOAD_CHUNK, DownloadMode, Failure, MAX_QUERY_CHARS, PRESIGNED_TTL, Shared, blocking,
    fail, lookup_lengths, no_skill, no_version,
};

#[derive(Deserialize)]
pub(super) struct SearchQuery {
    #[serde(default)]
    pub(super) q: String,
    pub(super) page: Option<usize>,
}

/// The query, or why it is refused: no one searches with more than a few words, and each word
/// is one more pass over the skills.
pub(super) fn parse_query(q: &str) -> Result<search::Query, String> {
    let length = q.chars().count();
    if length > MAX_QUERY_CHARS {
        return Err(format!(
            "a search is at most {MAX_QUERY_CHARS} characters; this one has {length}"
        ));
    }
    let query = search::Query::new(q);
    match search::problem(&query) {
        Some(problem) => Err(problem),
        None => Ok(query),
    }
}

pub(super) async fn search(
    State(state): State<Shared>,
    Api(Query(query)): Api<Query<SearchQuery>>,
) -> Result<axum::Json<SearchResult>, Failure> {
    let words = parse_query(&query.q).map_err(|problem| fail(StatusCode::BAD_REQUEST, problem))?;
    let page = query.page.unwrap_or(1).max(1);
    let meta = state.meta.clone();
    let (skills, total) = blocking(move || meta.search(&words, page, PER_PAGE)).await?;
    Ok(axum::Json(SearchResult {
        skills,
        total,
        page,
        per_page: PER_PAGE,
    }))
}

pub(super) async fn info(
    State(state): State<Shared>,
    Api(UrlPath(name)): Api<UrlPath<String>>,
) -> Result<Response, Failure> {
    lookup_lengths(&name, None)?;
    let meta = state.meta.clone();
    let missing = no_skill(&name);
    let found = blocking(move || meta.skill(&name)).await?;
    match found {
        Some(skill) => Ok(axum::Json(skill).into_response()),
        None => Err(missing),
    }
}

pub(super) async fn download(
    State(state): State<Shared>,
    method: axum::http::Method,
    Api(UrlPath((name, version))): Api<UrlPath<(String, String)>>,
) -> Result<Response, Failure> {
    lookup_lengths(&name, Some(&version))?;
    let meta = state.meta.clone();
    let missing = no_skill(&name);
    let skill = blocking(move || meta.skill(&name)).await?.ok_or(missing)?;
    let found = skill
        .versions
        .into_iter()
        .find(|v| v.version == version)
        .ok_or_else(|| no_version(&skill.name, &version))?;
    let blobs = state.blobs.clone();
    let checksum = found.checksum.clone();
    // Presigning is a few HMACs, no request: done here, not on the blocking pool.
    if state.download == DownloadMode::Redirect
        && let Some(url) = blobs
            .presigned(&checksum, PRESIGNED_TTL)
            .map_err(Failure::from)?
    {
        return Ok(redirect(&state, &skill.name, &method, &url));
    }
    let (body, size) = blocking(move || blobs.get(&checksum)?.map(archive_body).transpose())
        .await?
        .ok_or_else(|| {
            fail(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the archive is missing from the blob store",
            )
        })?;
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/zip"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", found.checksum)) {
        headers.insert(header::ETAG, etag);
    }
    // A file to save, never something to show; names and versions need no quoting.
    if let Ok(disposition) = HeaderValue::from_str(&format!(
        "attachment; filename=\"{}-{}.skill\"",
        skill.name, found.version
    )) {
        headers.insert(header::CONTENT_DISPOSITION, disposition);
    }
    // A HEAD (a link checker, a mirror asking for the size) is not a download.
    if method == axum::http::Method::GET {
        state.downloads.record(&skill.name);
    }
    Ok(response)
}

/// A download answered by sending the client to the blob store: the URL works for a few
/// minutes, so the answer is never cached.
fn redirect(state: &Shared, name: &str, method: &axum::http::Method, url: &str) -> Response {
    let mut response = StatusCode::TEMPORARY_REDIRECT.into_response();
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(url) {
        headers.insert(header::LOCATION, location);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if method == axum::http::Method::GET {
        state.downloads.record(name);
    }
    response
}

/// A download's body and length. An archive is streamed in 64 KiB reads, so a slow reader
/// holds one buffer, not the archive; one that fits in a single read is read at once, in the
/// blocking call that opened it, which saves two trips to the blocking pool.
pub(super) fn archive_body(blob: Blob) -> Result<(Body, u64), StoreError> {
    let Blob { body, size } = blob;
    let reader: Box<dyn std::io::Read + Send> = match body {
        BlobBody::File(file) => {
            if size > DOWNLOAD_CHUNK as u64 {
                // `take` keeps the body to the length announced, whatever happens to the file.
                let file = tokio::fs::File::from_std(file).take(size);
                let stream = ReaderStream::with_capacity(file, DOWNLOAD_CHUNK);
                return Ok((Body::from_stream(stream), size));
            }
            Box::new(file)
        }
        BlobBody::Stream(stream) => stream,
    };
    if size <= DOWNLOAD_CHUNK as u64 {
        let mut bytes = Vec::with_capacity(DOWNLOAD_CHUNK);
        reader.take(size).read_to_end(&mut bytes)?;
        let size = bytes.len() as u64;
        return Ok((Body::from(bytes), size));
    }
    // A remote store's stream is read on the blocking pool into a pipe of one chunk: memory
    // stays at a chunk whatever the client's pace, and a client that leaves closes the pipe,
    // which ends the read.
    let (pipe_in, pipe_out) = tokio::io::duplex(DOWNLOAD_CHUNK);
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        use tokio::io::AsyncWriteExt as _;
        let mut pipe_in = pipe_in;
        let mut buffer = vec![0; DOWNLOAD_CHUNK];
        let mut reader = reader.take(size);
        loop {
            let read = match reader.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => read,
            };
            if handle.block_on(pipe_in.write_all(&buffer[..read])).is_err() {
                break;
            }
        }
    });
    let stream = ReaderStream::with_capacity(pipe_out.take(size), DOWNLOAD_CHUNK);
    Ok((Body::from_stream(stream), size))
}

/// Runs a change that only owners may make, as `who`.
pub(super) async fn change(
    state: &Shared,
    who: String,
    missing: Failure,
    work: impl FnOnce(Arc<dyn MetadataStore>, String) -> Result<Change, StoreError> + Send + 'static,
) -> Result<Response, Failure> {
    let meta = state.meta.clone();
    match blocking(move || work(meta, who)).await? {
        Change::Done => Ok(axum::Json(serde_json::json!({ "ok": true })).into_response()),
        Change::NotFound => Err(missing),
        Change::NotOwner => Err(fail(
            StatusCode::FORBIDDEN,
            "only the skill's owners can do that",
        )),
        Change::Refused(reason) => Err(fail(StatusCode::BAD_REQUEST, reason)),
    }
}

pub(super) async fn yank(
    State(state): State<Shared>,
    Can(who, _): Can<ToYank>,
    Api(UrlPath((name, version))): Api<UrlPath<(String, String)>>,
) -> Result<Response, Failure> {
    set_yanked(&state, who, name, version, true).await
}

pub(super) async fn unyank(
    State(state): State<Shared>,
    Can(who, _): Can<ToYank>,
    Api(UrlPath((name, version))): Api<UrlPath<(String, String)>>,
) -> Result<Response, Failure> {
    set_yanked(&state, who, name, version, false).await
}

/// Yanks a version, or undoes it, for one of its owners.
async fn set_yanked(
    state: &Shared,
    who: String,
    name: String,
    version: String,
    yanked: bool,
) -> Result<Response, Failure> {
    lookup_lengths(&name, Some(&version))?;
    change(state, who, no_version(&name, &version), move |meta, who| {
        meta.set_yanked(&name, &version, &who, yanked)
    })
    .await
}

pub(super) async fn owners(
    State(state): State<Shared>,
    Api(UrlPath(name)): Api<UrlPath<String>>,
) -> Result<axum::Json<Owners>, Failure> {
    lookup_lengths(&name, None)?;
    let meta = state.meta.clone();
    let missing = no_skill(&name);
    let skill = blocking(move || meta.skill(&name)).await?.ok_or(missing)?;
    Ok(axum::Json(Owners {
        users: skill.owners,
    }))
}

pub(super) async fn add_owners(
    State(state): State<Shared>,
    Can(who, _): Can<ToChangeOwners>,
    Api(UrlPath(name)): Api<UrlPath<String>>,
    Api(axum::Json(body)): Api<axum::Json<Owners>>,
) -> Result<Response, Failure> {
    lookup_lengths(&name, None)?;
    change(&state, who, no_skill(&name), move |meta, who| {
        meta.add_owners(&name, &who, &body.users)
    })
    .await
}

pub(super) async fn remove_owners(
    State(state): State<Shared>,
    Can(who, _): Can<ToChangeOwners>,
    Api(UrlPath(name)): Api<UrlPath<String>>,
    Api(axum::Json(body)): Api<axum::Json<Owners>>,
) -> Result<Response, Failure> {
    lookup_lengths(&name, None)?;
    change(&state, who, no_skill(&name), move |meta, who| {
        meta.remove_owners(&name, &who, &body.users)
    })
    .await
}
