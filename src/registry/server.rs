//! `skillpkg registry serve`: the registry's HTTP server (axum on tokio).
//!
//! It faces the internet, so every client is taken for hostile. Connections are bounded in
//! number and time ([`connections`]). Everything from the URL (names, versions, the search
//! query) has a length limit checked before any work, the token before the body, and errors
//! never echo more than the start of what was sent. Uploads go to disk under `--max-upload`
//! and through the safe extractor; downloads are streamed from disk, so memory does not grow
//! with slow readers. Every error, also axum's rejections, has the API's JSON shape, and the
//! HTML pages, which show uploaded text, allow no script.

use std::fmt::Write as _;
use std::io::{self, Read as _, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Path as UrlPath, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, put};
use http_body_util::BodyExt as _;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio_util::io::ReaderStream;

use super::api::{self, ErrorBody, ErrorDetail, Me, Owners, Published, SearchResult};
use super::connections;
pub use super::connections::ConnectionLimits;
use super::store::{
    Blob, BlobStore, Change, FsBlobs, MetadataStore, NewVersion, PublishOutcome, Sqlite, StoreError,
};
use crate::agent::Target;
use crate::check::check_skill;
use crate::pack::archive;
use crate::pack::extract::{self, ExtractError, Limits};
use crate::skill::Skill;

/// Server settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub data: PathBuf,
    pub addr: SocketAddr,
    /// Largest archive accepted, in bytes.
    pub max_upload: u64,
    /// Public base URL for links; defaults to `http://<addr>`.
    pub base_url: Option<String>,
    /// How many connections, and how long each may wait.
    pub connections: ConnectionLimits,
}

/// The read size when streaming an archive.
const DOWNLOAD_CHUNK: usize = 64 * 1024;

/// The largest SKILL.md a publish may carry. Agents put all of it in the model's context when
/// the skill is used, so anything near this is a mistake; longer material belongs in files the
/// skill links to.
pub const MAX_SKILL_MD_BYTES: u64 = crate::skill::MAX_SKILL_FILE_BYTES;

/// The longest search query, in characters.
const MAX_QUERY_CHARS: usize = 256;

/// How much of SKILL.md a skill's web page shows, in characters: the page is built in memory
/// for every visit.
const PAGE_SKILL_MD_CHARS: usize = 64 * 1024;

struct AppState {
    meta: Arc<dyn MetadataStore>,
    blobs: Arc<dyn BlobStore>,
    tmp: PathBuf,
    max_upload: u64,
    base_url: String,
}

type Shared = Arc<AppState>;

/// An error response: `{"errors":[{"detail":…}]}` with its status.
struct Failure(StatusCode, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            errors: vec![ErrorDetail { detail: self.1 }],
        };
        (self.0, axum::Json(body)).into_response()
    }
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Self {
        Self(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("storage failed: {error}"),
        )
    }
}

fn fail(status: StatusCode, detail: impl Into<String>) -> Failure {
    Failure(status, detail.into())
}

impl From<QueryRejection> for Failure {
    fn from(rejection: QueryRejection) -> Self {
        Self(rejection.status(), rejection.body_text())
    }
}

impl From<PathRejection> for Failure {
    fn from(rejection: PathRejection) -> Self {
        Self(rejection.status(), rejection.body_text())
    }
}

impl From<JsonRejection> for Failure {
    fn from(rejection: JsonRejection) -> Self {
        Self(rejection.status(), rejection.body_text())
    }
}

/// An extractor (`Query`, `Path` or `Json`) whose rejection is answered in the API's error
/// shape; axum's own rejections are plain text.
struct Api<E>(E);

impl<S, E> FromRequestParts<S> for Api<E>
where
    S: Send + Sync,
    E: FromRequestParts<S>,
    Failure: From<E::Rejection>,
{
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Failure> {
        Ok(Self(E::from_request_parts(parts, state).await?))
    }
}

impl<S, E> FromRequest<S> for Api<E>
where
    S: Send + Sync,
    E: FromRequest<S>,
    Failure: From<E::Rejection>,
{
    type Rejection = Failure;

    async fn from_request(request: Request, state: &S) -> Result<Self, Failure> {
        Ok(Self(E::from_request(request, state).await?))
    }
}

/// The user behind the request's bearer token; 401 without a valid one. As an extractor it
/// runs before the body is read or parsed, so a request without a valid token learns only that.
struct User(String);

impl FromRequestParts<Shared> for User {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, Failure> {
        user(state, &parts.headers).await.map(User)
    }
}

/// A name or version from the URL for an error message: URLs can be long, messages need not be.
fn shown(text: &str) -> String {
    match text.char_indices().nth(api::MAX_NAME_LEN) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn no_skill(name: &str) -> Failure {
    fail(
        StatusCode::NOT_FOUND,
        format!("no skill named `{}`", shown(name)),
    )
}

fn no_version(name: &str, version: &str) -> Failure {
    fail(
        StatusCode::NOT_FOUND,
        format!("no version {} of `{}`", shown(version), shown(name)),
    )
}

/// A name or version longer than any that can be published is not looked up at all.
fn lookup_lengths(name: &str, version: Option<&str>) -> Result<(), Failure> {
    if name.len() > api::MAX_NAME_LEN {
        return Err(no_skill(name));
    }
    match version {
        Some(version) if version.len() > api::MAX_VERSION_LEN => Err(no_version(name, version)),
        _ => Ok(()),
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0))
}

/// The SHA-256 of a token, as stored.
pub fn token_hash(token: &str) -> String {
    archive::hex(&Sha256::digest(token.as_bytes()))
}

/// A new random token: `skp_` and 64 hex digits.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| std::io::Error::other(error.to_string()))?;
    Ok(format!("skp_{}", archive::hex(&bytes)))
}

/// Opens the stores under `data`.
pub fn open(data: &Path) -> Result<(Arc<Sqlite>, Arc<FsBlobs>), StoreError> {
    fs_err::create_dir_all(data.join("blobs"))?;
    let meta = Arc::new(Sqlite::open(&data.join("registry.db"))?);
    Ok((meta, Arc::new(FsBlobs::new(data.join("blobs")))))
}

/// Creates a token for `user` and returns it (only its hash is stored).
pub fn create_token(data: &Path, user: &str) -> anyhow::Result<String> {
    let (meta, _) = open(data)?;
    let token = new_token()?;
    meta.create_token(user, &token_hash(&token), now())?;
    Ok(token)
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Failure> {
    // The connection moves no bytes meanwhile, but it is not idle.
    let _working = connections::working();
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| {
            fail(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("worker failed: {error}"),
            )
        })?
        .map_err(Failure::from)
}

/// The user behind the request's bearer token; 401 without a valid one.
async fn user(state: &Shared, headers: &HeaderMap) -> Result<String, Failure> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .ok_or_else(|| {
            fail(
                StatusCode::UNAUTHORIZED,
                "this needs a token: `Authorization: Bearer <token>`",
            )
        })?;
    let hash = token_hash(token.trim());
    let meta = state.meta.clone();
    blocking(move || meta.user_for_token(&hash))
        .await?
        .ok_or_else(|| fail(StatusCode::UNAUTHORIZED, "the token is not valid"))
}

/// Runs the server until SIGINT or SIGTERM. Prints `listening on <url>` on stdout once bound.
pub async fn serve(settings: Settings) -> anyhow::Result<()> {
    let (meta, blobs) = open(&settings.data)?;
    let tmp = settings.data.join("tmp");
    // Whatever an interrupted upload left is garbage: nothing refers to it.
    let _ = tokio::fs::remove_dir_all(&tmp).await;
    tokio::fs::create_dir_all(&tmp).await?;
    let listener = tokio::net::TcpListener::bind(settings.addr).await?;
    let addr = listener.local_addr()?;
    let base_url = settings
        .base_url
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    let state = Arc::new(AppState {
        meta,
        blobs,
        tmp,
        max_upload: settings.max_upload,
        base_url: base_url.clone(),
    });
    let app = router(state);
    {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on {base_url}")?;
        out.flush()?;
    }
    connections::serve(listener, app, settings.connections, shutdown()).await;
    Ok(())
}

async fn shutdown() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}

fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(home))
        .route("/skills/{name}", get(page))
        .route("/api/v1/me", get(me))
        .route("/api/v1/skills", get(search))
        .route("/api/v1/skills/{name}", get(info))
        .route(
            "/api/v1/skills/{name}/owners",
            get(owners).put(add_owners).delete(remove_owners),
        )
        .route("/api/v1/skills/{name}/{version}", put(publish).delete(yank))
        .route("/api/v1/skills/{name}/{version}/unyank", put(unyank))
        .route("/api/v1/skills/{name}/{version}/download", get(download))
        .fallback(|| async { fail(StatusCode::NOT_FOUND, "no such endpoint") })
        .method_not_allowed_fallback(|method: Method| async move {
            fail(
                StatusCode::METHOD_NOT_ALLOWED,
                format!("this endpoint does not take {method}"),
            )
        })
        .layer(middleware::from_fn(log))
        .layer(middleware::from_fn(security_headers))
        .with_state(state)
}

/// What a page may load and do: its own inline style and its search form, nothing else.
const PAGE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Every answer forbids content sniffing, so an archive or a JSON error is never run as a page.
/// Pages show text from uploaded SKILL.md files, so they also get a Content-Security-Policy
/// that allows no script, and may not be framed (clickjacking).
async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let page = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/html"));
    if page {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(PAGE_POLICY),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    response
}

/// One structured line per request on stderr.
async fn log(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    let line = serde_json::json!({
        "time": now(),
        "method": method.as_str(),
        "path": path,
        "status": response.status().as_u16(),
        "ms": (started.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
    });
    // One line per request, written whole; a closed stderr must not fail the request.
    let _ = writeln!(std::io::stderr().lock(), "{line}");
    response
}

async fn me(User(user): User) -> axum::Json<Me> {
    axum::Json(Me { user })
}

#[derive(Deserialize)]
struct SearchQuery {
    #[serde(default)]
    q: String,
    page: Option<usize>,
}

/// Why a search query is refused, if it is: `SQLite` refuses LIKE patterns over 50,000 bytes
/// ("LIKE or GLOB pattern too complex"), which a 50 KB `q` made a 500; no one searches with
/// more than a few words.
fn query_problem(q: &str) -> Option<String> {
    let length = q.chars().count();
    (length > MAX_QUERY_CHARS)
        .then(|| format!("a search is at most {MAX_QUERY_CHARS} characters; this one has {length}"))
}

async fn search(
    State(state): State<Shared>,
    Api(Query(query)): Api<Query<SearchQuery>>,
) -> Result<axum::Json<SearchResult>, Failure> {
    if let Some(problem) = query_problem(&query.q) {
        return Err(fail(StatusCode::BAD_REQUEST, problem));
    }
    let page = query.page.unwrap_or(1).max(1);
    let meta = state.meta.clone();
    let (skills, total) = blocking(move || meta.search(&query.q, page, 20)).await?;
    Ok(axum::Json(SearchResult {
        skills,
        total,
        page,
    }))
}

async fn info(
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

async fn download(
    State(state): State<Shared>,
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
    Ok(response)
}

/// A download's body and length. An archive is streamed from disk in 64 KiB reads, so a slow
/// reader holds one buffer, not the archive; one that fits in a single read is read at once,
/// in the blocking call that opened it, which saves two trips to the blocking pool.
fn archive_body(blob: Blob) -> Result<(Body, u64), StoreError> {
    let Blob { file, size } = blob;
    if size <= DOWNLOAD_CHUNK as u64 {
        let mut bytes = Vec::with_capacity(DOWNLOAD_CHUNK);
        file.take(size).read_to_end(&mut bytes)?;
        let size = bytes.len() as u64;
        return Ok((Body::from(bytes), size));
    }
    // `take` keeps the body to the length announced, whatever happens to the file.
    let file = tokio::fs::File::from_std(file).take(size);
    let stream = ReaderStream::with_capacity(file, DOWNLOAD_CHUNK);
    Ok((Body::from_stream(stream), size))
}

/// `PUT /api/v1/skills/{name}/{version}`: the whole publish, in order.
async fn publish(
    State(state): State<Shared>,
    User(publisher): User,
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
fn published(
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
async fn receive(mut body: Body, path: &Path, limit: u64) -> Result<(u64, String), Failure> {
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
fn extraction_failure(error: ExtractError) -> Failure {
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
fn server_io_failure(doing: &str, error: &io::Error) -> Failure {
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

struct Inspected {
    digest: String,
    description: String,
    skill_md: String,
}

/// Extracts the archive with the safe extractor, validates it for the open spec and checks
/// that its name is the URL's.
fn inspect(upload: &Path, unpack: &Path, url_name: &str) -> Result<Inspected, Failure> {
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
        .and_then(|doc| doc.name.as_ref())
        .and_then(|f| f.value.as_ref().ok())
        .map(|n| n.trim().to_owned());
    let description = doc
        .as_ref()
        .and_then(|doc| doc.description.as_ref())
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
    // The folder name inside the archive is the skill's, so the folder check applies as usual.
    let checked = check_skill(skill, &[Target::AgentSkills]);
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
    let digest = extracted.content_digest;
    Ok(Inspected {
        digest,
        description,
        skill_md: text,
    })
}

/// Runs a change that only owners may make, as `who`.
async fn change(
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

async fn yank(
    State(state): State<Shared>,
    User(who): User,
    Api(UrlPath((name, version))): Api<UrlPath<(String, String)>>,
) -> Result<Response, Failure> {
    lookup_lengths(&name, Some(&version))?;
    change(
        &state,
        who,
        no_version(&name, &version),
        move |meta, who| meta.set_yanked(&name, &version, &who, true),
    )
    .await
}

async fn unyank(
    State(state): State<Shared>,
    User(who): User,
    Api(UrlPath((name, version))): Api<UrlPath<(String, String)>>,
) -> Result<Response, Failure> {
    lookup_lengths(&name, Some(&version))?;
    change(
        &state,
        who,
        no_version(&name, &version),
        move |meta, who| meta.set_yanked(&name, &version, &who, false),
    )
    .await
}

async fn owners(
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

async fn add_owners(
    State(state): State<Shared>,
    User(who): User,
    Api(UrlPath(name)): Api<UrlPath<String>>,
    Api(axum::Json(body)): Api<axum::Json<Owners>>,
) -> Result<Response, Failure> {
    lookup_lengths(&name, None)?;
    change(&state, who, no_skill(&name), move |meta, who| {
        meta.add_owners(&name, &who, &body.users)
    })
    .await
}

async fn remove_owners(
    State(state): State<Shared>,
    User(who): User,
    Api(UrlPath(name)): Api<UrlPath<String>>,
    Api(axum::Json(body)): Api<axum::Json<Owners>>,
) -> Result<Response, Failure> {
    lookup_lengths(&name, None)?;
    change(&state, who, no_skill(&name), move |meta, who| {
        meta.remove_owners(&name, &who, &body.users)
    })
    .await
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn html(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title>\
<style>body{{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}}pre{{background:#f4f4f4;padding:1rem;overflow:auto;white-space:pre-wrap}}code{{background:#f4f4f4;padding:0 .2rem}}</style></head>\
<body><p><a href=\"/\">skillpkg registry</a></p>{body}</body></html>\n",
        escape(title)
    ))
}

async fn home(
    State(state): State<Shared>,
    query: Result<Query<SearchQuery>, QueryRejection>,
) -> Result<Response, Failure> {
    let query = match query {
        Ok(Query(query)) => query,
        Err(rejection) => {
            return Ok(html_error(
                rejection.status(),
                "Search not understood",
                &rejection.body_text(),
            ));
        }
    };
    if let Some(problem) = query_problem(&query.q) {
        return Ok(html_error(
            StatusCode::BAD_REQUEST,
            "Search too long",
            &problem,
        ));
    }
    let page = query.page.unwrap_or(1).max(1);
    let q = query.q.clone();
    let meta = state.meta.clone();
    let (skills, total) = blocking(move || meta.search(&q, page, 50)).await?;
    let mut body = format!(
        "<h1>Skills</h1><form><input name=\"q\" value=\"{}\" placeholder=\"Search skills\"> <button>Search</button></form><p>{total} skills</p><ul>",
        escape(&query.q)
    );
    for skill in skills {
        let _ = write!(
            body,
            "<li><a href=\"/skills/{0}\">{0}</a> {1} — {2}</li>",
            escape(&skill.name),
            escape(skill.latest.as_deref().unwrap_or("")),
            escape(&skill.description)
        );
    }
    body.push_str("</ul>");
    Ok(html("skillpkg registry", &body).into_response())
}

/// An error as a page, for the pages people browse.
fn html_error(status: StatusCode, title: &str, message: &str) -> Response {
    let body = format!("<h1>{}</h1><p>{}</p>", escape(title), escape(message));
    (status, html(title, &body)).into_response()
}

async fn page(
    State(state): State<Shared>,
    name: Result<UrlPath<String>, PathRejection>,
) -> Result<Response, Failure> {
    let name = match name {
        Ok(UrlPath(name)) => name,
        Err(rejection) => {
            return Ok(html_error(
                rejection.status(),
                "Not a skill's address",
                &rejection.body_text(),
            ));
        }
    };
    let meta = state.meta.clone();
    let lookup = name.clone();
    let found = if name.len() > api::MAX_NAME_LEN {
        None
    } else {
        blocking(move || meta.skill(&lookup)).await?
    };
    let Some(skill) = found else {
        return Ok((
            StatusCode::NOT_FOUND,
            html("Not found", "<h1>No such skill</h1>"),
        )
            .into_response());
    };
    let latest = skill
        .versions
        .iter()
        .find(|v| !v.yanked)
        .or(skill.versions.first())
        .map(|v| v.version.clone());
    let shown = match &latest {
        Some(version) => {
            let meta = state.meta.clone();
            let (n, v) = (skill.name.clone(), version.clone());
            blocking(move || meta.skill_md_start(&n, &v, PAGE_SKILL_MD_CHARS)).await?
        }
        None => None,
    };
    let (text, cut) = shown.map_or((String::new(), false), |start| (start.text, start.cut));
    let mut body = format!(
        "<h1>{0}</h1><p>{1}</p><p>Install: <code>skillpkg install {0}</code></p><h2>Versions</h2><ul>",
        escape(&skill.name),
        escape(&skill.description)
    );
    for version in &skill.versions {
        let _ = write!(
            body,
            "<li>{}{}</li>",
            escape(&version.version),
            if version.yanked { " (yanked)" } else { "" }
        );
    }
    let _ = write!(
        body,
        "</ul><h2>Owners</h2><p>{}</p><h2>SKILL.md</h2><pre>{}</pre>",
        escape(&skill.owners.join(", ")),
        escape(&text)
    );
    if cut {
        let _ = write!(
            body,
            "<p><em>SKILL.md is cut here: the page shows its first {PAGE_SKILL_MD_CHARS} characters. Install the skill to read all of it.</em></p>"
        );
    }
    Ok(html(&skill.name, &body).into_response())
}
