//! `skillpkg registry serve`: the registry's HTTP server (axum on tokio).
//!
//! It faces the internet, so every client is taken for hostile. Connections are bounded in
//! number and time ([`connections`]). Everything from the URL (names, versions, the search
//! query) has a length limit checked before any work, the token before the body, and errors
//! never echo more than the start of what was sent. Uploads go to disk under `--max-upload`
//! and through the safe extractor; downloads are streamed from disk, so memory does not grow
//! with slow readers. Every error, also axum's rejections, has the API's JSON shape, and the
//! HTML pages, which show uploaded text, allow no script.
//!
//! [`auth`] reads tokens, [`handlers`] answers the JSON API, [`upload`] inspects what is
//! published, [`pages`] renders the HTML; this module holds the router, the shared state and
//! the error shape.

mod auth;
mod downloads;
mod handlers;
mod markdown;
mod pages;
mod upload;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};

use auth::{me, private_reads};
use handlers::{add_owners, download, info, owners, remove_owners, search, unyank, yank};
use pages::{file, home, skill, version};
use upload::publish;

use crate::dates::now;
use crate::registry::api::{self, ErrorBody, ErrorDetail};
use crate::registry::connections;
use crate::registry::store::{BlobStore, Location, MetadataStore, OnOpen, StoreError, Stores};

pub use crate::registry::connections::ConnectionLimits;
pub use auth::{TokenOptions, create_token, list_tokens, new_token, revoke_token, token_hash};

/// A SKILL.md body as the sanitised HTML a skill's page shows (for the fuzz target, which holds
/// it to "no markup an author chose, no link that runs anything").
#[doc(hidden)]
pub fn page_markdown(body: &str, name: &str, version: &str) -> String {
    markdown::render(body, name, version).to_string()
}

/// `%XX` escapes decoded, as a browser reads a link's path (for the fuzz target).
#[doc(hidden)]
pub fn percent_decoded(text: &str) -> Option<String> {
    markdown::percent_decoded(text)
}

/// Server settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The stores, and the folder for unfinished uploads.
    pub location: Location,
    /// Apply the database's missing migrations at start, or refuse to start without them.
    pub on_open: OnOpen,
    /// How archives are downloaded.
    pub download: DownloadMode,
    pub addr: SocketAddr,
    /// Largest archive accepted, in bytes.
    pub max_upload: u64,
    /// Public base URL for links; defaults to `http://<addr>`.
    pub base_url: Option<String>,
    /// How many connections, and how long each may wait.
    pub connections: ConnectionLimits,
    /// Every read needs a token with the `read` scope.
    pub private: bool,
    /// Serve HTTPS with this certificate chain and key.
    pub tls: Option<TlsFiles>,
}

/// How `GET …/download` hands out an archive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DownloadMode {
    /// Stream the bytes through this server.
    #[default]
    Proxy,
    /// Answer `307 Temporary Redirect` to a short-lived presigned URL of the blob store, so
    /// archive bytes never pass through the registry's servers (S3 only; a folder store proxies).
    Redirect,
}

/// How long a presigned download URL works.
pub(crate) const PRESIGNED_TTL: std::time::Duration = std::time::Duration::from_secs(300);

/// PEM files for `--tls-cert` and `--tls-key`.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

/// The largest PEM file read: a chain of a few certificates takes a few KiB.
const MAX_PEM_BYTES: u64 = 1024 * 1024;

/// The TLS acceptor for `files`, or an error naming the file at fault.
fn tls_acceptor(files: &TlsFiles) -> anyhow::Result<tokio_rustls::TlsAcceptor> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let read = |path: &Path| -> anyhow::Result<Vec<u8>> {
        crate::fsx::read_capped(path, MAX_PEM_BYTES).map_err(|error| {
            crate::registry::ServeError {
                message: format!("cannot read {}: {error}", path.display()),
                hint: "pass --tls-cert and --tls-key as PEM files this user can read",
            }
            .into()
        })
    };
    let bad = |path: &Path, what: &str, hint: &'static str| -> anyhow::Error {
        crate::registry::ServeError {
            message: format!("{}: {what}", path.display()),
            hint,
        }
        .into()
    };
    let cert_pem = read(&files.cert)?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|error| {
            bad(
                &files.cert,
                &format!("not a PEM certificate chain ({error})"),
                "--tls-cert takes the certificate chain as PEM (`-----BEGIN CERTIFICATE-----`), leaf first",
            )
        })?;
    if chain.is_empty() {
        return Err(bad(
            &files.cert,
            "has no certificate",
            "--tls-cert takes the certificate chain as PEM (`-----BEGIN CERTIFICATE-----`), leaf first",
        ));
    }
    let key_pem = read(&files.key)?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|error| {
        bad(
            &files.key,
            &format!("no private key found ({error})"),
            "--tls-key takes the private key as PEM (PKCS#8, PKCS#1 or SEC1)",
        )
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| anyhow::anyhow!("TLS set-up failed: {error}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|error| {
            bad(
                &files.key,
                &format!(
                    "does not go with the certificate in {} ({error})",
                    files.cert.display()
                ),
                "pass the key the certificate was issued for",
            )
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// The read size when streaming an archive.
const DOWNLOAD_CHUNK: usize = 64 * 1024;

/// The largest SKILL.md a publish may carry. Agents put all of it in the model's context when
/// the skill is used, so anything near this is a mistake; longer material belongs in files the
/// skill links to.
pub(crate) const MAX_SKILL_MD_BYTES: u64 = crate::skill::MAX_SKILL_FILE_BYTES;

/// The longest search query, in characters.
const MAX_QUERY_CHARS: usize = 256;

struct AppState {
    meta: Arc<dyn MetadataStore>,
    blobs: Arc<dyn BlobStore>,
    download: DownloadMode,
    tmp: PathBuf,
    max_upload: u64,
    base_url: String,
    private: bool,
    downloads: downloads::Counter,
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
    /// The details go to the server's log, not to the client: they name the server's paths,
    /// database and bucket.
    fn from(error: StoreError) -> Self {
        let line =
            serde_json::json!({ "time": now(), "error": format!("storage failed: {error}") });
        let _ = writeln!(std::io::stderr().lock(), "{line}");
        Self(
            StatusCode::INTERNAL_SERVER_ERROR,
            "storage failed; the registry's log has the details".to_owned(),
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

/// How many store calls may run at once, when the store says (`PostgreSQL`: its pool's
/// connections). Requests beyond it wait here, in arrival order and without a thread each,
/// instead of on the blocking pool, where they would all hold threads and contend for the
/// connections. One server runs per process, so this is set once, when it starts.
static STORE_CALLS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Failure> {
    // The connection moves no bytes meanwhile, but it is not idle.
    let _working = connections::working();
    let _permit = match STORE_CALLS.get() {
        Some(calls) => Some(calls.acquire().await.map_err(|_| {
            fail(
                StatusCode::SERVICE_UNAVAILABLE,
                "the registry is shutting down",
            )
        })?),
        None => None,
    };
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

/// Runs the server until SIGINT or SIGTERM. Prints `listening on <url>` on stdout once bound.
pub async fn serve(settings: Settings) -> anyhow::Result<()> {
    let tls = settings.tls.as_ref().map(tls_acceptor).transpose()?;
    let location = settings.location.clone();
    let on_open = settings.on_open;
    let Stores { meta, blobs } = tokio::task::spawn_blocking(move || location.open(on_open))
        .await?
        .map_err(|error| crate::registry::ServeError {
            message: format!(
                "cannot open the registry's stores ({}): {error}",
                settings.location.database_shown()
            ),
            hint: "check --database and --blobs (and for S3 the AWS_* variables), or run `skillpkg registry migrate`",
        })?;
    // Unfinished uploads are this process's own: several servers may share `--data`.
    if let Some(calls) = meta.concurrency() {
        let _ = STORE_CALLS.set(tokio::sync::Semaphore::new(calls));
    }
    // Whatever an interrupted upload left is garbage: nothing refers to it.
    sweep_uploads(&settings.location.data.join("tmp"));
    let (tmp, upload_lock) = upload_folder(&settings.location.data.join("tmp"))?;
    let listener = tokio::net::TcpListener::bind(settings.addr)
        .await
        .map_err(|error| {
            let hint = if error.kind() == std::io::ErrorKind::AddrInUse {
                "another program is listening there: stop it, or pass --addr with another port (port 0 picks a free one)"
            } else {
                "pass --addr with an address of this machine, such as 127.0.0.1:8080"
            };
            crate::registry::ServeError {
                message: format!("cannot listen on {}: {error}", settings.addr),
                hint,
            }
        })?;
    let addr = listener.local_addr()?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let base_url = settings.base_url.clone().map_or_else(
        || format!("{scheme}://{addr}"),
        |url| url.trim_end_matches('/').to_owned(),
    );
    let state = Arc::new(AppState {
        meta: meta.clone(),
        blobs,
        download: settings.download,
        tmp,
        max_upload: settings.max_upload,
        base_url: base_url.clone(),
        private: settings.private,
        downloads: downloads::Counter::default(),
    });
    let flusher = tokio::spawn(downloads::flush_every(
        state.clone(),
        downloads::FLUSH_INTERVAL,
    ));
    let app = router(state.clone());
    {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on {base_url}")?;
        out.flush()?;
    }
    connections::serve(listener, app, settings.connections, tls, shutdown()).await;
    flusher.abort();
    let _ = tokio::fs::remove_dir_all(&state.tmp).await;
    drop(upload_lock);
    // The downloads counted since the last flush.
    downloads::flush(&state).await;
    Ok(())
}

/// This server's folder for unfinished uploads, `tmp/serve-<random>/`, and its `.lock` file,
/// locked (`flock`) for as long as the server runs: several servers may share `--data`, even
/// with the same process id (each the first process of its container), and each sweeps only
/// folders nobody holds.
fn upload_folder(tmp: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let folder = tmp.join(format!("serve-{}", new_request_id()));
    fs_err::create_dir_all(&folder)?;
    let lock = fs_err::File::create(folder.join(".lock"))?.into_parts().0;
    #[cfg(unix)]
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive)?;
    Ok((folder, lock))
}

/// Removes the upload folders of servers no longer running (their lock is free), and the loose
/// files of an older skillpkg. A folder without its lock yet is another server starting, unless
/// it is a minute old.
fn sweep_uploads(tmp: &Path) {
    let Ok(entries) = fs_err::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(metadata) = fs_err::symlink_metadata(&path) else {
            continue;
        };
        if !metadata.is_dir() {
            let _ = fs_err::remove_file(&path);
            continue;
        }
        let stale = match std::fs::File::open(path.join(".lock")) {
            #[cfg(unix)]
            Ok(lock) => {
                rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive)
                    .is_ok()
            }
            #[cfg(not(unix))]
            Ok(_) => false,
            Err(_) => metadata
                .modified()
                .ok()
                .and_then(|time| time.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(60)),
        };
        if stale {
            let _ = fs_err::remove_dir_all(&path);
        }
    }
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
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/skills/{name}", get(skill))
        .route("/skills/{name}/{version}", get(version))
        .route("/skills/{name}/{version}/files/{*path}", get(file))
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
        .layer(middleware::from_fn_with_state(state.clone(), private_reads))
        .layer(middleware::from_fn(log))
        .layer(middleware::from_fn(request_id))
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

/// `/healthz`: the process is up and answering.
async fn healthz() -> Response {
    axum::Json(serde_json::json!({ "ok": true })).into_response()
}

/// `/readyz`: both stores answer, so a load balancer may send requests here; 503 with the
/// store that does not otherwise.
async fn readyz(axum::extract::State(state): axum::extract::State<Shared>) -> Response {
    let meta = state.meta.clone();
    let blobs = state.blobs.clone();
    let checks = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        tokio::task::spawn_blocking(move || {
            let database = meta.ping().err().map(|error| error.to_string());
            let blobs = blobs.ping().err().map(|error| error.to_string());
            (database, blobs)
        }),
    )
    .await;
    let (database, blobs) = match checks {
        Ok(Ok(found)) => found,
        Ok(Err(error)) => (Some(format!("check failed: {error}")), None),
        Err(_) => (Some("no answer within 5 s".to_owned()), None),
    };
    let ready = database.is_none() && blobs.is_none();
    // The details are for the operator's log; the answer, open to anyone, only says which.
    if !ready {
        let line = serde_json::json!({ "time": now(), "error": "not ready", "database": database, "blobs": blobs });
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
    let say = |failed: Option<String>| if failed.is_some() { "failing" } else { "ok" };
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = serde_json::json!({
        "ready": ready,
        "database": say(database),
        "blobs": say(blobs),
    });
    (status, axum::Json(body)).into_response()
}

/// A request's id: the `X-Request-Id` a proxy in front set, when it is short and plain, or a
/// new random one. It is sent back in the answer and logged, so one request can be followed
/// from the load balancer to the log line.
#[derive(Clone, Debug)]
struct RequestId(String);

const REQUEST_ID: &str = "x-request-id";

async fn request_id(mut request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(REQUEST_ID)
        .and_then(|value| value.to_str().ok())
        .filter(|id| {
            !id.is_empty()
                && id.len() <= 128
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.:/+=".contains(&b))
        })
        .map(str::to_owned);
    let id = given.unwrap_or_else(new_request_id);
    request.extensions_mut().insert(RequestId(id.clone()));
    let mut response = next.run(request).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    response
}

/// 16 random bytes as hex; from a counter should the system's randomness fail.
fn new_request_id() -> String {
    use std::fmt::Write as _;
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let count = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        bytes[..8].copy_from_slice(&count.to_be_bytes());
        bytes[8..12].copy_from_slice(&std::process::id().to_be_bytes());
    }
    bytes
        .iter()
        .fold(String::with_capacity(32), |mut text, byte| {
            let _ = write!(text, "{byte:02x}");
            text
        })
}

/// One structured line per request on stderr.
async fn log(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let id = request
        .extensions()
        .get::<RequestId>()
        .map(|id| id.0.clone())
        .unwrap_or_default();
    let started = Instant::now();
    let response = next.run(request).await;
    let line = serde_json::json!({
        "time": now(),
        "id": id,
        "method": method.as_str(),
        "path": path,
        "status": response.status().as_u16(),
        "ms": (started.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
    });
    // One line per request, written whole; a closed stderr must not fail the request.
    let _ = writeln!(std::io::stderr().lock(), "{line}");
    response
}
