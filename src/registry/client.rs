//! The registry client: the HTTP calls of `docs/architecture.md` §6 (ureq, blocking: a CLI
//! needs no async runtime), with the policy a command line needs on a real network.
//!
//! - **Timeouts per phase, never in total.** Connecting gets [`Timeouts::connect`]; after that,
//!   every wait for the registry's next bytes (the answer's headers, each read of a body, each
//!   write of an upload) gets [`Timeouts::read`]. A registry that accepts a connection and then
//!   says nothing is given up on after tens of seconds, while a large download on a slow line
//!   that keeps arriving is never cut off. `SKILLPKG_HTTP_TIMEOUT` overrides both.
//! - **Retries only where they help**: a refused connection (nothing was sent), 503, 529 and
//!   429 (the server did not handle the request; `Retry-After` is honoured up to a cap), and, for
//!   requests whose repetition is harmless, a dropped connection and 502/504. A timeout is not
//!   retried: a registry that said nothing for 30 s rarely answers the next attempt, and
//!   retrying would multiply the wait. 4xx and 500 are answers, not accidents.
//! - **TLS with the platform's trust store** (rustls with ring, which builds with just a C
//!   compiler; `rustls-platform-verifier`). For an https registry, `SKILLPKG_CA_FILE`, else
//!   `SSL_CERT_FILE`, names a PEM bundle to trust instead, for registries behind a private
//!   certificate authority.
//! - **No token in clear text**: a token is sent over plain `http://` only to `localhost` or a
//!   loopback address, unless `SKILLPKG_ALLOW_HTTP_TOKEN=1` says the network is trusted. (ureq
//!   never forwards the `Authorization` header across a redirect.)
//! - **Downloads stream to a file**, hashed on the way, and stop as soon as they pass the size
//!   the registry announced, so an endless or oversized answer costs neither memory nor disk.

use std::io::{Read as _, Write as _};
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use serde::de::DeserializeOwned;
use sha2::{Digest as _, Sha256};
use ureq::tls::{PemItem, RootCerts, TlsConfig, TlsProvider};

use super::api::{ErrorBody, Me, Owners, Published, SearchResult, SkillInfo};

/// A failed call.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The registry answered with an error status.
    #[error("the registry said {status}: {detail}")]
    Status { status: u16, detail: String },
    /// No answer at all, after retries.
    #[error("cannot reach the registry at {url}: {message}")]
    Transport { url: String, message: String },
    /// The registry stopped sending or receiving for longer than the client waits.
    #[error(
        "timed out {doing} {url}: nothing for {seconds} s; if the registry is slow rather than down, set SKILLPKG_HTTP_TIMEOUT=SECONDS to wait longer"
    )]
    TimedOut {
        url: String,
        /// What the client was doing: "connecting to", "waiting for an answer from", …
        doing: &'static str,
        seconds: u64,
    },
    /// The TLS handshake failed, most often because the certificate is not trusted.
    #[error(
        "TLS with {url} failed: {message}; if the registry's certificate comes from a private certificate authority, set SKILLPKG_CA_FILE to that authority's PEM file"
    )]
    Tls { url: String, message: String },
    /// A token would have been sent in clear text.
    #[error(
        "refusing to send a token to {base} over plain http://, where anyone on the network path can read it; use the registry's https:// URL (or set SKILLPKG_ALLOW_HTTP_TOKEN=1 if the network is trusted)"
    )]
    PlainHttpToken { base: String },
    /// A download went past the size the registry announced for it.
    #[error(
        "stopped the download from {url}: it is larger than the {limit} bytes the registry announced for it"
    )]
    TooLarge { url: String, limit: u64 },
    /// Writing the download to its file failed.
    #[error("cannot save the download from {url}: {source}")]
    Save { url: String, source: std::io::Error },
    /// The client's own settings are wrong: the URL, `SKILLPKG_HTTP_TIMEOUT`, a CA file.
    #[error("{0}")]
    Setup(String),
    /// The registry URL is not `http://HOST…` or `https://HOST…`.
    #[error("the registry URL `{0}` is not an http:// or https:// URL")]
    BadUrl(String),
    /// The answer did not parse as what the protocol promises.
    #[error("the registry's answer was not what skillpkg expects: {0}")]
    Invalid(String),
}

impl ClientError {
    /// Whether the registry understood the request and said no: the skill, version or owner
    /// asked for is not there or not the user's, or the upload is refused. A missing or wrong
    /// token (401), a timeout (408) or a rate limit (429) is not a verdict on the request.
    pub(crate) fn is_refusal(&self) -> bool {
        matches!(self, Self::Status { status, .. }
            if (400..500).contains(status) && ![401, 407, 408, 429].contains(status))
    }
}

/// How long the client waits, per phase. There is deliberately no total: see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timeouts {
    /// Resolving the host and connecting, TLS handshake included.
    pub connect: Duration,
    /// Each wait for the registry: for its answer, and for each next piece of a body.
    pub read: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            read: Duration::from_secs(30),
        }
    }
}

impl Timeouts {
    /// The defaults, or `SKILLPKG_HTTP_TIMEOUT` seconds for every phase.
    pub(crate) fn from_env() -> Result<Self, ClientError> {
        match std::env::var("SKILLPKG_HTTP_TIMEOUT") {
            Ok(text) if !text.trim().is_empty() => {
                let seconds = text
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .ok_or_else(|| {
                        ClientError::Setup(format!(
                            "SKILLPKG_HTTP_TIMEOUT is `{text}`; it must be a number of seconds, such as 60"
                        ))
                    })?;
                Ok(Self {
                    connect: seconds,
                    read: seconds,
                })
            }
            _ => Ok(Self::default()),
        }
    }
}

/// A registry at `base`, with an optional token.
pub struct Client {
    base: String,
    token: Option<String>,
    /// Whether `token` may travel to `base`: https, loopback, or the user's explicit opt-in.
    token_allowed: bool,
    timeouts: Timeouts,
    agent: ureq::Agent,
}

/// How many times a failure that retrying can fix is tried again, and the first pause.
const RETRIES: u32 = 4;
const BACKOFF: Duration = Duration::from_millis(200);
/// The longest `Retry-After` waited for; a registry asking for more is reported at once.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// The largest archive downloaded whatever the registry announces: what extraction allows.
const MAX_DOWNLOAD: u64 = 512 * 1024 * 1024;

/// Builds one attempt of a request: the agent, the URL, and the `Authorization` header if any.
type MakeRequest<'a> = dyn Fn(&ureq::Agent, &str, Option<&str>) -> Result<ureq::http::Response<ureq::Body>, ureq::Error>
    + 'a;

/// Whether a request carries the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Auth {
    /// A change: the token is needed, and refused over plain http to another machine.
    Token,
    /// A read: the token goes along when there is one and it may be sent (a `--private`
    /// registry needs it); otherwise the read is anonymous.
    IfAllowed,
}

/// What sending a request twice does, which decides whether a failure that may have reached
/// the registry is retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// The same as sending it once: reads, yank, owner add, and publish (the registry answers a
    /// second publish of the same bytes with 409 "already published with this checksum", which
    /// `skillpkg publish` reports as success).
    Harmless,
    /// Possibly different: removing owners (the second attempt may find the user gone), and
    /// uploads to Anthropic's Skills API (a second attempt may add a second skill or version).
    Unsafe,
}

/// What to do after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Return what the attempt gave.
    Stop,
    /// Try again after the backoff pause, or after the registry's `Retry-After`.
    Retry(Option<Duration>),
}

impl Client {
    /// A client for the registry at `base` (`http://` or `https://`), with the timeouts and the
    /// trusted certificates the environment sets.
    pub fn new(base: &str, token: Option<String>) -> Result<Self, ClientError> {
        let base = base.trim_end_matches('/').to_owned();
        let Some((scheme, host)) = url_scheme_and_host(&base) else {
            return Err(ClientError::BadUrl(base));
        };
        let https = scheme == "https";
        let token_allowed = https
            || is_loopback(&host)
            || std::env::var("SKILLPKG_ALLOW_HTTP_TOKEN").is_ok_and(|value| value.trim() == "1");
        let (agent, timeouts) = agent(https)?;
        Ok(Self {
            base,
            token,
            token_allowed,
            timeouts,
            agent,
        })
    }

    /// The registry's URL, without a trailing `/`.
    pub fn base(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request made by `make`, retrying what retrying can fix (see the module docs).
    fn call(
        &self,
        path: &str,
        auth: Auth,
        repeat: Repeat,
        make: &MakeRequest<'_>,
    ) -> Result<ureq::http::Response<ureq::Body>, ClientError> {
        let url = self.url(path);
        let header = match (auth, &self.token) {
            (Auth::Token, Some(token)) => {
                if !self.token_allowed {
                    return Err(ClientError::PlainHttpToken {
                        base: self.base.clone(),
                    });
                }
                Some(format!("Bearer {token}"))
            }
            (Auth::IfAllowed, Some(token)) if self.token_allowed => Some(format!("Bearer {token}")),
            _ => None,
        };
        retrying(repeat, &|| make(&self.agent, &url, header.as_deref()))
            .map_err(|error| self.transport_error(&url, error))
    }

    /// A ureq error as the user should read it: which URL, and what went wrong.
    fn transport_error(&self, url: &str, error: ureq::Error) -> ClientError {
        transport_error(url, error, self.timeouts)
    }

    /// Reads a JSON answer, or turns an error status into [`ClientError::Status`].
    fn json<T: DeserializeOwned>(
        &self,
        path: &str,
        mut response: ureq::http::Response<ureq::Body>,
    ) -> Result<T, ClientError> {
        let status = response.status().as_u16();
        let retry_after = retry_after_note(&response);
        let mut text = String::new();
        response
            .body_mut()
            .as_reader()
            .take(64 * 1024 * 1024)
            .read_to_string(&mut text)
            .map_err(|error| self.transport_error(&self.url(path), error.into()))?;
        if !(200..300).contains(&status) {
            let detail = serde_json::from_str::<ErrorBody>(&text)
                .ok()
                .and_then(|body| body.errors.into_iter().next())
                .map_or_else(|| text.chars().take(200).collect(), |error| error.detail);
            return Err(ClientError::Status {
                status,
                detail: detail + &retry_after,
            });
        }
        serde_json::from_str(&text).map_err(|error| ClientError::Invalid(error.to_string()))
    }

    /// Who the token belongs to: `GET /api/v1/me`.
    pub(crate) fn me(&self) -> Result<Me, ClientError> {
        let path = "/api/v1/me";
        let response = self.call(path, Auth::Token, Repeat::Harmless, &|agent, url, auth| {
            with_auth(agent.get(url), auth).call()
        })?;
        self.json(path, response)
    }

    /// A `GET` of JSON (with the token, if any: see [`Auth::IfAllowed`]).
    fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        let response = self.call(
            path,
            Auth::IfAllowed,
            Repeat::Harmless,
            &|agent, url, auth| with_auth(agent.get(url), auth).call(),
        )?;
        self.json(path, response)
    }

    /// One page of the skills that match `query`.
    pub fn search(&self, query: &str, page: usize) -> Result<SearchResult, ClientError> {
        self.get_json(&format!("/api/v1/skills?q={}&page={page}", encode(query)))
    }

    /// A skill and every version of it.
    pub fn info(&self, name: &str) -> Result<SkillInfo, ClientError> {
        self.get_json(&format!("/api/v1/skills/{}", encode(name)))
    }

    /// Uploads an archive as `name@version`, reporting the bytes sent to `progress`.
    pub fn publish(
        &self,
        name: &str,
        version: &str,
        archive: &[u8],
        checksum: &str,
        progress: &dyn Fn(u64),
    ) -> Result<Published, ClientError> {
        let path = format!("/api/v1/skills/{}/{}", encode(name), encode(version));
        let response = self.call(&path, Auth::Token, Repeat::Harmless, &|agent, url, auth| {
            // Each attempt sends the archive from its start, reporting bytes as they go out.
            let mut reader = Progress {
                rest: archive,
                sent: 0,
                report: progress,
            };
            progress(0);
            with_auth(agent.put(url), auth)
                .header("x-checksum-sha256", checksum)
                .header("content-type", "application/zip")
                .header("content-length", archive.len().to_string())
                .send(ureq::SendBody::from_reader(&mut reader))
        })?;
        self.json(&path, response)
    }

    /// Downloads the archive of `name@version` into `into`, refusing more bytes than the
    /// registry's metadata announces for that version; returns the SHA-256 (hex) of what was
    /// written. The caller compares it with the checksum it expects.
    pub fn download(
        &self,
        name: &str,
        version: &str,
        into: &mut std::fs::File,
    ) -> Result<String, ClientError> {
        let skill = self.info(name)?;
        let size = skill
            .versions
            .iter()
            .find(|v| v.version == version)
            .map(|v| v.size)
            .ok_or_else(|| ClientError::Status {
                status: 404,
                detail: format!("no version {version} of `{name}`"),
            })?;
        self.download_at_most(name, version, size, into)
    }

    /// [`Client::download`] for a caller that already knows the announced size: stops as soon
    /// as more than `max_bytes` arrive (or are announced), so nothing endless is ever buffered.
    pub(crate) fn download_at_most(
        &self,
        name: &str,
        version: &str,
        max_bytes: u64,
        into: &mut std::fs::File,
    ) -> Result<String, ClientError> {
        self.download_with_progress(name, version, max_bytes, into, &|_| {})
    }

    /// [`Client::download_at_most`], telling `progress` how many bytes have arrived so far (for
    /// a progress bar), from 0 before the first.
    pub(crate) fn download_with_progress(
        &self,
        name: &str,
        version: &str,
        max_bytes: u64,
        into: &mut std::fs::File,
        progress: &dyn Fn(u64),
    ) -> Result<String, ClientError> {
        let path = format!(
            "/api/v1/skills/{}/{}/download",
            encode(name),
            encode(version)
        );
        let url = self.url(&path);
        let limit = max_bytes.min(MAX_DOWNLOAD);
        let mut response = self.call(
            &path,
            Auth::IfAllowed,
            Repeat::Harmless,
            &|agent, url, auth| with_auth(agent.get(url), auth).call(),
        )?;
        if !response.status().is_success() {
            return self
                .json::<serde_json::Value>(&path, response)
                .map(|_| String::new());
        }
        let too_large = || ClientError::TooLarge {
            url: url.clone(),
            limit,
        };
        if response.body().content_length().is_some_and(|n| n > limit) {
            return Err(too_large());
        }
        let mut reader = response.body_mut().as_reader();
        let mut hasher = Sha256::new();
        let mut received: u64 = 0;
        let mut buffer = vec![0_u8; 64 * 1024];
        progress(0);
        loop {
            let n = reader
                .read(&mut buffer)
                .map_err(|error| self.transport_error(&url, error.into()))?;
            if n == 0 {
                break;
            }
            received += n as u64;
            if received > limit {
                return Err(too_large());
            }
            hasher.update(&buffer[..n]);
            into.write_all(&buffer[..n])
                .map_err(|source| ClientError::Save {
                    url: url.clone(),
                    source,
                })?;
            progress(received);
        }
        Ok(crate::pack::archive::hex(&hasher.finalize()))
    }

    /// Yanks `name@version`, or with `undo` unyanks it.
    pub fn yank(&self, name: &str, version: &str, undo: bool) -> Result<(), ClientError> {
        let path = if undo {
            format!("/api/v1/skills/{}/{}/unyank", encode(name), encode(version))
        } else {
            format!("/api/v1/skills/{}/{}", encode(name), encode(version))
        };
        let response = self.call(&path, Auth::Token, Repeat::Harmless, &|agent, url, auth| {
            if undo {
                with_auth(agent.put(url), auth).send_empty()
            } else {
                with_auth(agent.delete(url), auth).call()
            }
        })?;
        self.json::<serde_json::Value>(&path, response).map(|_| ())
    }

    /// The skill's owners.
    pub fn owners(&self, name: &str) -> Result<Owners, ClientError> {
        self.get_json(&format!("/api/v1/skills/{}/owners", encode(name)))
    }

    /// Adds `users` to the skill's owners, or (`add` false) removes them.
    pub(crate) fn change_owners(
        &self,
        name: &str,
        users: &[String],
        add: bool,
    ) -> Result<(), ClientError> {
        let path = format!("/api/v1/skills/{}/owners", encode(name));
        let body = Owners {
            users: users.to_vec(),
        };
        let repeat = if add {
            Repeat::Harmless
        } else {
            Repeat::Unsafe
        };
        let response = self.call(&path, Auth::Token, repeat, &|agent, url, auth| {
            if add {
                with_auth(agent.put(url), auth).send_json(&body)
            } else {
                with_auth(agent.delete(url), auth)
                    .force_send_body()
                    .send_json(&body)
            }
        })?;
        self.json::<serde_json::Value>(&path, response).map(|_| ())
    }
}

/// A ureq error as the user should read it: which URL, and what went wrong (`timeouts` being
/// the waits that ran out).
pub(crate) fn transport_error(url: &str, error: ureq::Error, timeouts: Timeouts) -> ClientError {
    let url = url.to_owned();
    let timed_out = |doing, limit: Duration| ClientError::TimedOut {
        url: url.clone(),
        doing,
        seconds: limit.as_secs().max(1),
    };
    match error {
        ureq::Error::Timeout(phase) => {
            use ureq::Timeout as Phase;
            match phase {
                Phase::Resolve => timed_out("looking up the host of", timeouts.connect),
                Phase::Connect => timed_out("connecting to", timeouts.connect),
                Phase::SendRequest | Phase::SendBody | Phase::PerWrite => {
                    timed_out("sending to", timeouts.read)
                }
                _ => timed_out("waiting for an answer from", timeouts.read),
            }
        }
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            timed_out("waiting for an answer from", timeouts.read)
        }
        // The handshake's failures (an untrusted certificate above all) arrive as I/O.
        ureq::Error::Io(io) if matches!(io.get_ref(), Some(inner) if inner.is::<rustls::Error>()) => {
            ClientError::Tls {
                url,
                message: io.to_string(),
            }
        }
        ureq::Error::Rustls(tls) => ClientError::Tls {
            url,
            message: tls.to_string(),
        },
        ureq::Error::Tls(message) => ClientError::Tls {
            url,
            message: message.to_owned(),
        },
        ureq::Error::HostNotFound => ClientError::Transport {
            url,
            message: "the host name does not resolve".into(),
        },
        ureq::Error::Io(io) => ClientError::Transport {
            url,
            message: io.to_string(),
        },
        other => ClientError::Transport {
            url,
            message: other.to_string(),
        },
    }
}

/// The HTTP agent every call goes through: the timeouts the environment sets (returned too,
/// for error messages), and for `https` the trusted certificates it names (see the module docs).
pub(crate) fn agent(https: bool) -> Result<(ureq::Agent, Timeouts), ClientError> {
    // A CA file matters only to https; a stale SSL_CERT_FILE must not break a plain registry.
    let roots = if https {
        root_certs()?
    } else {
        RootCerts::PlatformVerifier
    };
    let timeouts = Timeouts::from_env()?;
    let tls = TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .root_certs(roots)
        .build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .user_agent(concat!("skillpkg/", env!("CARGO_PKG_VERSION")))
        .tls_config(tls)
        .timeout_resolve(Some(timeouts.connect))
        .timeout_connect(Some(timeouts.connect))
        .timeout_send_request(Some(timeouts.read))
        .timeout_per_write(Some(timeouts.read))
        .timeout_recv_response(Some(timeouts.read))
        .timeout_per_read(Some(timeouts.read))
        .build()
        .into();
    Ok((agent, timeouts))
}

/// Makes `attempt` until it gives an answer or a failure that retrying cannot fix, at most
/// [`RETRIES`] times more, pausing between attempts (see the module docs).
pub(crate) fn retrying(
    repeat: Repeat,
    attempt: &dyn Fn() -> Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    let mut pause = BACKOFF;
    let mut tries = 0;
    loop {
        let outcome = attempt();
        let next = match &outcome {
            Ok(response) => after_status(
                response.status().as_u16(),
                response
                    .headers()
                    .get("retry-after")
                    .and_then(|value| value.to_str().ok()),
                repeat,
            ),
            Err(error) => after_error(error, repeat),
        };
        match next {
            Next::Retry(wait) if tries < RETRIES => {
                std::thread::sleep(wait.unwrap_or(pause));
                pause *= 2;
                tries += 1;
            }
            _ => return outcome,
        }
    }
}

/// Whether an answer with `status` is worth another attempt.
fn after_status(status: u16, retry_after: Option<&str>, repeat: Repeat) -> Next {
    match status {
        // The server did not handle the request: try again, when it says, if that is soon. (529
        // is Anthropic's `overloaded_error`, which its SDK retries too.)
        429 | 503 | 529 => match retry_after.and_then(|text| text.trim().parse::<u64>().ok()) {
            Some(seconds) if Duration::from_secs(seconds) > MAX_RETRY_AFTER => Next::Stop,
            Some(seconds) => Next::Retry(Some(Duration::from_secs(seconds))),
            None => Next::Retry(None),
        },
        // A gateway: the registry behind it may or may not have handled the request.
        502 | 504 if repeat == Repeat::Harmless => Next::Retry(None),
        _ => Next::Stop,
    }
}

/// Whether a failure without an answer is worth another attempt.
fn after_error(error: &ureq::Error, repeat: Repeat) -> Next {
    use std::io::ErrorKind;
    match error {
        // Nothing was sent: the registry may be starting up.
        ureq::Error::Io(io) if io.kind() == ErrorKind::ConnectionRefused => Next::Retry(None),
        // The connection dropped, perhaps after the registry acted on the request.
        ureq::Error::Io(io)
            if repeat == Repeat::Harmless
                && matches!(
                    io.kind(),
                    ErrorKind::ConnectionReset
                        | ErrorKind::ConnectionAborted
                        | ErrorKind::BrokenPipe
                        | ErrorKind::UnexpectedEof
                ) =>
        {
            Next::Retry(None)
        }
        _ => Next::Stop,
    }
}

/// " (it asks to retry after N s)" for an answer with `Retry-After`, else nothing.
fn retry_after_note(response: &ureq::http::Response<ureq::Body>) -> String {
    response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .map(|value| format!(" (it asks to retry after {} s)", value.trim()))
        .unwrap_or_default()
}

/// The certificates TLS trusts: a PEM bundle named by `SKILLPKG_CA_FILE`, else by
/// `SSL_CERT_FILE` (the convention of OpenSSL, curl and git), else the platform's store.
pub(crate) fn root_certs() -> Result<RootCerts, ClientError> {
    for variable in ["SKILLPKG_CA_FILE", "SSL_CERT_FILE"] {
        if let Some(path) = std::env::var_os(variable).filter(|path| !path.is_empty()) {
            return pem_bundle(variable, Path::new(&path));
        }
    }
    Ok(RootCerts::PlatformVerifier)
}

/// The largest certificate bundle read: the whole Mozilla root store is about 200 KB.
const MAX_PEM_BYTES: u64 = 16 * 1024 * 1024;

/// Every certificate in the PEM file at `path`, which `variable` named.
fn pem_bundle(variable: &str, path: &Path) -> Result<RootCerts, ClientError> {
    let bytes = crate::fsx::read_capped(path, MAX_PEM_BYTES)
        .map_err(|error| ClientError::Setup(format!("{variable}: {error}")))?;
    let mut certificates = Vec::new();
    for item in ureq::tls::parse_pem(&bytes) {
        match item {
            Ok(PemItem::Certificate(certificate)) => certificates.push(certificate),
            Ok(_) => {}
            Err(error) => {
                return Err(ClientError::Setup(format!(
                    "{variable} names {}, which is not a valid PEM file: {error}",
                    path.display()
                )));
            }
        }
    }
    if certificates.is_empty() {
        return Err(ClientError::Setup(format!(
            "{variable} names {}, which holds no certificate (-----BEGIN CERTIFICATE-----)",
            path.display()
        )));
    }
    Ok(RootCerts::from(certificates))
}

/// The scheme and host of `url`, lowercase scheme, host without IPv6 brackets.
pub(crate) fn url_scheme_and_host(url: &str) -> Option<(&'static str, String)> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    let scheme = match uri.scheme_str()?.to_ascii_lowercase().as_str() {
        "http" => "http",
        "https" => "https",
        _ => return None,
    };
    let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
    Some((scheme, host.to_ascii_lowercase()))
}

/// Whether `host` is this machine: `localhost` or a loopback address.
pub(crate) fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

fn with_auth<B>(request: ureq::RequestBuilder<B>, auth: Option<&str>) -> ureq::RequestBuilder<B> {
    match auth {
        Some(value) => request.header("authorization", value),
        None => request,
    }
}

/// Percent-encodes a URL path segment or query value.
pub(crate) fn encode(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// A reader over the archive that reports how many bytes have been read (and so sent).
struct Progress<'a> {
    rest: &'a [u8],
    sent: u64,
    report: &'a dyn Fn(u64),
}

impl std::io::Read for Progress<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rest.read(buf)?;
        self.sent += n as u64;
        (self.report)(self.sent);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::io::Read as _;
    use std::time::Duration;

    use super::{
        Next, Progress, Repeat, after_error, after_status, is_loopback, url_scheme_and_host,
    };

    #[test]
    fn progress_reports_every_byte_read_in_order() {
        let archive = vec![7_u8; 100_000];
        let seen = RefCell::new(Vec::new());
        let report = |sent| seen.borrow_mut().push(sent);
        let mut reader = Progress {
            rest: &archive,
            sent: 0,
            report: &report,
        };
        let mut out = Vec::new();
        let mut buf = [0_u8; 8192];
        loop {
            let n = reader.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(out, archive);
        let seen = seen.into_inner();
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        assert_eq!(seen.last(), Some(&100_000));
        assert!(seen.len() > 10, "reported as it goes, not once at the end");
    }

    #[test]
    fn statuses_retried_are_the_ones_retrying_can_fix() {
        use Repeat::{Harmless, Unsafe};
        for status in [200, 201, 400, 401, 403, 404, 409, 413, 422, 500, 501] {
            assert_eq!(after_status(status, None, Harmless), Next::Stop, "{status}");
        }
        assert_eq!(after_status(503, None, Unsafe), Next::Retry(None));
        assert_eq!(after_status(429, None, Unsafe), Next::Retry(None));
        assert_eq!(
            after_status(429, Some(" 2 "), Harmless),
            Next::Retry(Some(Duration::from_secs(2)))
        );
        assert_eq!(after_status(429, Some("3600"), Harmless), Next::Stop);
        // An HTTP date is not worth parsing for a pause this short: the backoff applies.
        assert_eq!(
            after_status(503, Some("Wed, 21 Oct 2015 07:28:00 GMT"), Harmless),
            Next::Retry(None)
        );
        assert_eq!(after_status(502, None, Harmless), Next::Retry(None));
        assert_eq!(after_status(504, None, Unsafe), Next::Stop);
    }

    #[test]
    fn errors_retried_are_the_ones_retrying_can_fix() {
        use std::io::{Error, ErrorKind};
        let io = |kind| ureq::Error::Io(Error::from(kind));
        assert_eq!(
            after_error(&io(ErrorKind::ConnectionRefused), Repeat::Unsafe),
            Next::Retry(None)
        );
        assert_eq!(
            after_error(&io(ErrorKind::ConnectionReset), Repeat::Harmless),
            Next::Retry(None)
        );
        assert_eq!(
            after_error(&io(ErrorKind::ConnectionReset), Repeat::Unsafe),
            Next::Stop
        );
        for error in [
            ureq::Error::Timeout(ureq::Timeout::RecvResponse),
            ureq::Error::Timeout(ureq::Timeout::Connect),
            ureq::Error::HostNotFound,
            ureq::Error::Tls("bad certificate"),
        ] {
            assert_eq!(after_error(&error, Repeat::Harmless), Next::Stop, "{error}");
        }
    }

    #[test]
    fn urls_give_their_scheme_and_bare_host() {
        assert_eq!(
            url_scheme_and_host("HTTPS://Registry.Example.com:8443/prefix"),
            Some(("https", "registry.example.com".to_owned()))
        );
        assert_eq!(
            url_scheme_and_host("http://[::1]:8080"),
            Some(("http", "::1".to_owned()))
        );
        assert_eq!(url_scheme_and_host("ftp://example.com"), None);
        assert_eq!(url_scheme_and_host("example.com"), None);
    }

    #[test]
    fn only_loopback_hosts_count_as_this_machine() {
        for host in ["localhost", "127.0.0.1", "127.8.9.10", "::1"] {
            assert!(is_loopback(host), "{host}");
        }
        for host in [
            "example.com",
            "10.0.0.1",
            "192.168.1.1",
            "localhost.example.com",
            "::",
        ] {
            assert!(!is_loopback(host), "{host}");
        }
    }
}
