//! Archives in an S3-compatible bucket (AWS S3, `MinIO`, Ceph, R2, …), under
//! `s3://BUCKET/PREFIX/sha256/ab/cd/<sha256>`.
//!
//! We sign requests ourselves with AWS Signature Version 4 rather than pull in an AWS SDK: the
//! store needs six plain requests (HEAD, PUT, GET, DELETE, `ListObjectsV2` and a presigned GET),
//! the registry's blob calls are blocking and already run on `ureq`, and `SigV4` is a page of
//! HMACs. The signer is pure (time and headers passed in), and its tests are the examples AWS
//! publishes, so a mistake shows up as a wrong hex string rather than a 403 in production.
//!
//! What the store relies on from the server:
//! - **The bytes are checked on upload.** A PUT carries `x-amz-content-sha256` (the signed
//!   payload hash) and `x-amz-checksum-sha256`; the server refuses a body whose SHA-256 differs,
//!   so a blob's key always names its bytes.
//! - **Content addressing makes a PUT idempotent.** A HEAD first skips the upload of a blob that
//!   is already there.
//! - **Downloads stream.** A GET's body is handed to the caller as a reader, limited to the
//!   announced length, with a timeout per read rather than in total, so a large archive on a
//!   slow line is never cut off while a silent server is given up on.
//!
//! Configuration follows the AWS tools' environment variables (see [`S3Blobs::from_url`]).
//! Redirects are not followed, and no message ever carries the secret key.

use std::borrow::Cow;
use std::fmt;
use std::io::Read as _;
use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use hmac::{Hmac, Mac as _};
use sha2::{Digest as _, Sha256};
use ureq::http::{self, Response, Uri};
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};
use ureq::{Body, SendBody};

use super::{Blob, BlobBody, BlobStore, StoreError, StoredBlob, blob_key, is_sha256};
use crate::pack::archive::hex;
use crate::registry::client::encode;

/// Resolving and connecting, TLS included.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Each wait for the server: for its answer, each read of a body, each write of an upload.
const WAIT_TIMEOUT: Duration = Duration::from_secs(60);
/// The whole of a small request (HEAD, DELETE, a page of a listing). Uploads and downloads have
/// no total: only [`WAIT_TIMEOUT`] per read or write.
const SMALL_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// The largest `ListObjectsV2` answer read: a page of 1,000 keys is about 300 KB.
const MAX_LIST_BYTES: u64 = 16 * 1024 * 1024;
/// How much of an error answer is read, for its `<Code>` and `<Message>`.
const MAX_ERROR_BYTES: u64 = 64 * 1024;
/// How many characters of the server's `<Code>` and `<Message>` an error repeats.
const MAX_ERROR_CHARS: usize = 300;
/// The longest a presigned URL can live: seven days, S3's limit.
const MAX_PRESIGNED_SECONDS: u64 = 604_800;
/// SHA-256 of no bytes: the payload hash of a request without a body.
const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// How a store is set up: what [`S3Blobs::from_url`] reads from the URL and the environment.
#[derive(Clone)]
pub(crate) struct Config {
    pub bucket: String,
    /// Folders above `sha256/`, without leading or trailing `/`; empty for none.
    pub prefix: String,
    /// `http(s)://host[:port]` of an S3-compatible server; `None` for AWS.
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key: String,
    pub secret_key: String,
    pub session_token: Option<String>,
    /// `Some(true)` for `ENDPOINT/bucket/key`, `Some(false)` for `bucket.ENDPOINT/key`, `None`
    /// to choose: path style with an endpoint, virtual-hosted style on AWS.
    pub path_style: Option<bool>,
}

impl fmt::Debug for Config {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Config")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key", &self.access_key)
            .finish_non_exhaustive()
    }
}

/// Archives in an S3 bucket, reached with our own `SigV4` signing over `ureq`.
pub struct S3Blobs {
    signer: Signer,
    /// `http(s)://host[:port]` that requests go to.
    origin: String,
    /// The `Host` header: what is signed must be what is sent.
    host: String,
    /// `/bucket` in path style, empty in virtual-hosted style.
    base_path: String,
    bucket: String,
    prefix: String,
    agent: ureq::Agent,
    /// Keys asked for per page of a listing (S3's maximum is 1,000).
    page_size: u32,
}

impl fmt::Debug for S3Blobs {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("S3Blobs")
            .field("origin", &self.origin)
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl S3Blobs {
    /// The store at `s3://BUCKET` or `s3://BUCKET/PREFIX`, set up from the standard AWS
    /// environment variables: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (required),
    /// `AWS_SESSION_TOKEN`, `AWS_REGION` or `AWS_DEFAULT_REGION` (default `us-east-1`),
    /// `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` for an S3-compatible server (which is then
    /// addressed path-style), and `AWS_S3_ADDRESSING_STYLE=path|virtual` to choose otherwise.
    /// The error says what to fix.
    pub fn from_url(url: &str) -> Result<Self, String> {
        Self::new(config_from(url, &|name| {
            std::env::var(name).ok().filter(|value| !value.is_empty())
        })?)
    }

    /// The store `config` describes; the error says what to fix.
    pub(crate) fn new(config: Config) -> Result<Self, String> {
        check_bucket(&config.bucket)?;
        check_prefix(&config.prefix)?;
        if config.region.is_empty()
            || !config
                .region
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(format!(
                "the region `{}` is not a region name such as us-east-1: set AWS_REGION",
                config.region
            ));
        }
        for (name, value) in [
            ("AWS_ACCESS_KEY_ID", Some(&config.access_key)),
            ("AWS_SECRET_ACCESS_KEY", Some(&config.secret_key)),
            ("AWS_SESSION_TOKEN", config.session_token.as_ref()),
        ] {
            // They go into headers (the key and token as themselves): printable ASCII only.
            if value.is_some_and(|value| {
                value.is_empty() || !value.bytes().all(|b| b.is_ascii_graphic())
            }) {
                return Err(format!(
                    "{name} is empty or holds spaces or characters other than ASCII: set it to \
                     the value your S3 provider gave"
                ));
            }
        }
        let dns_bucket = is_dns_compatible(&config.bucket);
        let (https, endpoint_host, port) = match &config.endpoint {
            Some(endpoint) => parse_endpoint(endpoint)?,
            None => (true, format!("s3.{}.amazonaws.com", config.region), None),
        };
        let path_style = match config.path_style {
            Some(true) => true,
            Some(false) if dns_bucket => false,
            Some(false) => {
                return Err(format!(
                    "the bucket `{}` cannot be addressed virtual-hosted style (as a host name); \
                     set AWS_S3_ADDRESSING_STYLE=path",
                    config.bucket
                ));
            }
            // A dotted name breaks the TLS certificate of `*.s3.REGION.amazonaws.com`.
            None => config.endpoint.is_some() || !dns_bucket || config.bucket.contains('.'),
        };
        let host_name = if path_style {
            endpoint_host
        } else {
            format!("{}.{endpoint_host}", config.bucket)
        };
        let scheme = if https { "https" } else { "http" };
        let host = match port {
            Some(port) => format!("{host_name}:{port}"),
            None => host_name,
        };
        let base_path = if path_style {
            format!("/{}", encode(&config.bucket))
        } else {
            String::new()
        };
        Ok(Self {
            signer: Signer {
                access_key: config.access_key,
                secret_key: config.secret_key,
                session_token: config.session_token,
                region: config.region,
            },
            origin: format!("{scheme}://{host}"),
            host,
            base_path,
            bucket: config.bucket,
            prefix: config.prefix,
            agent: agent(if https {
                // A private certificate authority, as for the registry itself.
                crate::registry::client::root_certs().map_err(|error| error.to_string())?
            } else {
                RootCerts::PlatformVerifier
            }),
            page_size: 1000,
        })
    }

    /// The object key of the blob `sha256`, if it is one.
    fn key(&self, sha256: &str) -> Option<String> {
        let key = blob_key(sha256)?;
        Some(if self.prefix.is_empty() {
            key
        } else {
            format!("{}/{key}", self.prefix)
        })
    }

    /// The SHA-256 of the blob stored under `key`, if `key` is exactly where this store keeps
    /// one (`{prefix}/sha256/ab/cd/<sha256>`): anything else in the bucket is not ours.
    fn blob_of<'k>(&self, key: &'k str) -> Option<&'k str> {
        let sha256 = key.rsplit('/').next().filter(|name| is_sha256(name))?;
        (self.key(sha256).as_deref() == Some(key)).then_some(sha256)
    }

    /// How messages name an object: `s3://bucket/key`.
    fn name(&self, key: &str) -> String {
        format!("s3://{}/{key}", self.bucket)
    }

    /// The request path of `key`, or of the bucket: each segment URI-encoded, `/` kept.
    fn path(&self, key: Option<&str>) -> String {
        match key {
            Some(key) => {
                let mut path = self.base_path.clone();
                for segment in key.split('/') {
                    path.push('/');
                    path.push_str(&encode(segment));
                }
                path
            }
            None if self.base_path.is_empty() => "/".to_owned(),
            None => self.base_path.clone(),
        }
    }

    /// The URL and headers of a request signed at `now` (Unix seconds); `headers` are extra
    /// headers to sign and send (lower-case names).
    fn signed(
        &self,
        method: &str,
        key: Option<&str>,
        query: &[(&str, &str)],
        headers: &[(&str, &str)],
        payload_hash: &str,
        now: i64,
    ) -> Signed {
        let stamp = Stamp::at(now);
        let path = self.path(key);
        let query = canonical_query(query);
        let mut all: Vec<(&str, &str)> = vec![
            ("host", &self.host),
            ("x-amz-content-sha256", payload_hash),
            ("x-amz-date", &stamp.amz_date),
        ];
        if let Some(token) = &self.signer.session_token {
            all.push(("x-amz-security-token", token));
        }
        all.extend_from_slice(headers);
        let (canonical, signed_headers) =
            canonical_request(method, &path, &query, &all, payload_hash);
        let authorization = format!(
            "AWS4-HMAC-SHA256 Credential={}/{},SignedHeaders={signed_headers},Signature={}",
            self.signer.access_key,
            self.signer.scope(&stamp),
            self.signer.signature(&stamp, &canonical),
        );
        let mut url = format!("{}{path}", self.origin);
        if !query.is_empty() {
            url.push('?');
            url.push_str(&query);
        }
        let mut headers: Vec<(String, String)> = all
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        headers.push(("authorization".to_owned(), authorization));
        Signed { url, headers }
    }

    /// A presigned GET of `key`, signed at `now`, valid `ttl` (at most seven days).
    fn presign_at(&self, key: &str, ttl: Duration, now: i64) -> String {
        let stamp = Stamp::at(now);
        let path = self.path(Some(key));
        let credential = format!("{}/{}", self.signer.access_key, self.signer.scope(&stamp));
        let expires = ttl.as_secs().clamp(1, MAX_PRESIGNED_SECONDS).to_string();
        let mut query = vec![
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", credential.as_str()),
            ("X-Amz-Date", stamp.amz_date.as_str()),
            ("X-Amz-Expires", expires.as_str()),
            ("X-Amz-SignedHeaders", "host"),
        ];
        if let Some(token) = &self.signer.session_token {
            query.push(("X-Amz-Security-Token", token));
        }
        let query = canonical_query(&query);
        let (canonical, _) = canonical_request(
            "GET",
            &path,
            &query,
            &[("host", &self.host)],
            "UNSIGNED-PAYLOAD",
        );
        let signature = self.signer.signature(&stamp, &canonical);
        format!("{}{path}?{query}&X-Amz-Signature={signature}", self.origin)
    }

    /// Sends a signed request. `total` bounds the whole request; without it only each wait is
    /// bounded (for streams).
    fn send(
        &self,
        method: &str,
        signed: &Signed,
        body: SendBody<'_>,
        total: Option<Duration>,
    ) -> Result<Response<Body>, ureq::Error> {
        let mut request = http::Request::builder()
            .method(method)
            .uri(signed.url.as_str());
        for (name, value) in &signed.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let request = request.body(body)?;
        let request = self
            .agent
            .configure_request(request)
            .timeout_global(total)
            .build();
        self.agent.run(request)
    }

    /// A small request without a body, signed now.
    fn small(
        &self,
        method: &str,
        key: Option<&str>,
        query: &[(&str, &str)],
    ) -> Result<Response<Body>, StoreError> {
        let signed = self.signed(method, key, query, &[], EMPTY_SHA256, crate::dates::now());
        self.send(
            method,
            &signed,
            SendBody::none(),
            Some(SMALL_REQUEST_TIMEOUT),
        )
        .map_err(|error| self.transport(method, key, &error))
    }

    /// Uploads `file` as `key`. `payload_hash` (hex SHA-256) is signed, so the server refuses
    /// other bytes; `checksum` (base64 SHA-256) is sent as `x-amz-checksum-sha256` when given.
    fn put_object(
        &self,
        key: &str,
        file: &Path,
        payload_hash: &str,
        checksum: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut file = fs_err::File::open(file)?;
        let length = file.metadata()?.len().to_string();
        let mut headers = vec![("content-length", length.as_str())];
        if let Some(checksum) = checksum {
            headers.push(("x-amz-checksum-sha256", checksum));
        }
        let signed = self.signed(
            "PUT",
            Some(key),
            &[],
            &headers,
            payload_hash,
            crate::dates::now(),
        );
        // With `Content-Length` set, ureq sends the reader as exactly that many bytes (not
        // chunked, which PutObject refuses), streamed from disk.
        let response = self
            .send("PUT", &signed, SendBody::from_reader(&mut file), None)
            .map_err(|error| self.transport("PUT", Some(key), &error))?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(self.refused("PUT", Some(key), response))
        }
    }

    /// A transport failure (no answer) as a store error.
    fn transport(&self, method: &str, key: Option<&str>, error: &ureq::Error) -> StoreError {
        let what = key.map_or_else(|| format!("s3://{}", self.bucket), |key| self.name(key));
        StoreError::Remote(format!(
            "{method} {what} at {}: no answer: {error}",
            self.origin
        ))
    }

    /// A refusal (a status that is not 2xx) as a store error, with S3's `<Code>` and
    /// `<Message>` when its answer has them.
    fn refused(&self, method: &str, key: Option<&str>, response: Response<Body>) -> StoreError {
        self.refusal_error(method, key, &Refusal::read(response))
    }

    fn refusal_error(&self, method: &str, key: Option<&str>, refusal: &Refusal) -> StoreError {
        let what = key.map_or_else(|| format!("s3://{}", self.bucket), |key| self.name(key));
        let detail = match (&refusal.code, &refusal.message) {
            (Some(code), Some(message)) => format!(": {code}: {message}"),
            (Some(one), None) | (None, Some(one)) => format!(": {one}"),
            (None, None) => String::new(),
        };
        StoreError::Remote(format!(
            "{method} {what} at {}: the server answered {}{detail}",
            self.origin, refusal.status
        ))
    }

    /// `Ok` for a 404 about the object, an error for one about the bucket: a missing bucket is
    /// a setup mistake, not a missing blob.
    fn missing_object(
        &self,
        method: &str,
        key: &str,
        response: Response<Body>,
    ) -> Result<(), StoreError> {
        let refusal = Refusal::read(response);
        if refusal.code.as_deref() == Some("NoSuchBucket") {
            Err(self.refusal_error(method, Some(key), &refusal))
        } else {
            Ok(())
        }
    }

    /// Where listings look: every blob key starts so.
    fn list_prefix(&self) -> String {
        if self.prefix.is_empty() {
            "sha256/".to_owned()
        } else {
            format!("{}/sha256/", self.prefix)
        }
    }
}

/// A signed request, ready to send.
struct Signed {
    url: String,
    headers: Vec<(String, String)>,
}

/// What a server said with a status that is not 2xx.
struct Refusal {
    status: http::StatusCode,
    /// S3's `<Code>` and `<Message>`, printable and cut short.
    code: Option<String>,
    message: Option<String>,
}

impl Refusal {
    /// Reads at most [`MAX_ERROR_BYTES`] of the answer for its code and message.
    fn read(response: Response<Body>) -> Self {
        let status = response.status();
        let mut bytes = Vec::new();
        // The answer is only decoration: a failure to read it leaves the status.
        let _ = response
            .into_body()
            .into_reader()
            .take(MAX_ERROR_BYTES)
            .read_to_end(&mut bytes);
        let text = String::from_utf8_lossy(&bytes);
        let said = |name: &str| {
            element(&text, name)
                .map(|value| printable(&unescape(value).unwrap_or(Cow::Borrowed(value))))
                .filter(|value| !value.is_empty())
        };
        Self {
            status,
            code: said("Code"),
            message: said("Message"),
        }
    }
}

impl BlobStore for S3Blobs {
    fn put(&self, temp: &Path, sha256: &str) -> Result<(), StoreError> {
        let key = self
            .key(sha256)
            .ok_or_else(|| StoreError::Remote(format!("`{sha256}` is not a sha256")))?;
        // Always sent, even when the archive is already stored: the upload renews its time,
        // which `registry gc --min-age` reads, so an unreferenced archive that a publish is
        // about to refer to again is never taken for an old orphan.
        let checksum = base64::engine::general_purpose::STANDARD.encode(hex_bytes(sha256));
        self.put_object(&key, temp, sha256, Some(&checksum))
    }

    fn get(&self, sha256: &str) -> Result<Option<Blob>, StoreError> {
        let Some(key) = self.key(sha256) else {
            return Ok(None);
        };
        let signed = self.signed(
            "GET",
            Some(&key),
            &[],
            &[],
            EMPTY_SHA256,
            crate::dates::now(),
        );
        let response = self
            .send("GET", &signed, SendBody::none(), None)
            .map_err(|error| self.transport("GET", Some(&key), &error))?;
        match response.status().as_u16() {
            200 => {}
            404 => return self.missing_object("GET", &key, response).map(|()| None),
            _ => return Err(self.refused("GET", Some(&key), response)),
        }
        let size = response
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok())
            .ok_or_else(|| {
                StoreError::Remote(format!(
                    "GET {} at {}: the answer has no Content-Length",
                    self.name(&key),
                    self.origin
                ))
            })?;
        // ureq's reader has no size limit of its own; this one refuses more than announced.
        let reader = response.into_body().into_with_config().limit(size).reader();
        Ok(Some(Blob {
            body: BlobBody::Stream(Box::new(reader)),
            size,
        }))
    }

    fn presigned(&self, sha256: &str, ttl: Duration) -> Result<Option<String>, StoreError> {
        Ok(self
            .key(sha256)
            .map(|key| self.presign_at(&key, ttl, crate::dates::now())))
    }

    fn list(
        &self,
        each: &mut dyn FnMut(StoredBlob) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let prefix = self.list_prefix();
        let page_size = self.page_size.to_string();
        let mut token: Option<String> = None;
        let failed = |message: String| {
            StoreError::Remote(format!(
                "listing s3://{}/{prefix} at {}: {message}",
                self.bucket, self.origin
            ))
        };
        loop {
            let mut query = vec![
                ("list-type", "2"),
                ("max-keys", page_size.as_str()),
                ("prefix", prefix.as_str()),
            ];
            if let Some(token) = &token {
                query.push(("continuation-token", token));
            }
            let response = self.small("GET", None, &query)?;
            if !response.status().is_success() {
                return Err(self.refused("GET", None, response));
            }
            let xml = response
                .into_body()
                .into_with_config()
                .limit(MAX_LIST_BYTES)
                .read_to_string()
                .map_err(|error| failed(format!("cannot read the answer: {error}")))?;
            let page = parse_list(&xml).map_err(failed)?;
            for object in page.objects {
                let Some(sha256) = self.blob_of(&object.key) else {
                    continue;
                };
                let bad =
                    |what: &str| failed(format!("the {what} of {} is unreadable", object.key));
                let size = object.size.ok_or_else(|| bad("Size"))?;
                let modified = object.modified.ok_or_else(|| bad("LastModified"))?;
                each(StoredBlob {
                    sha256: sha256.to_owned(),
                    size,
                    modified,
                })?;
            }
            match page.next {
                None => return Ok(()),
                Some(next) if token.as_ref() == Some(&next) => {
                    return Err(failed("the server repeated its continuation token".into()));
                }
                Some(next) => token = Some(next),
            }
        }
    }

    fn delete(&self, sha256: &str) -> Result<(), StoreError> {
        let Some(key) = self.key(sha256) else {
            return Ok(());
        };
        let response = self.small("DELETE", Some(&key), &[])?;
        match response.status().as_u16() {
            200..=299 => Ok(()),
            404 => self.missing_object("DELETE", &key, response),
            _ => Err(self.refused("DELETE", Some(&key), response)),
        }
    }

    fn ping(&self) -> Result<(), StoreError> {
        // A one-key listing rather than HeadBucket: it needs the same permission, and a
        // refusal comes with S3's reason (`NoSuchBucket`, `SignatureDoesNotMatch`, …).
        let prefix = self.list_prefix();
        let query = [
            ("list-type", "2"),
            ("max-keys", "1"),
            ("prefix", prefix.as_str()),
        ];
        let response = self.small("GET", None, &query)?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(self.refused("GET", None, response))
        }
    }
}

/// The HTTP agent: answers of any status come back as answers, no redirects are followed, and
/// every phase has a timeout (a total is added per small request).
/// The client for the store: `roots` to trust (for https, `SKILLPKG_CA_FILE` or
/// `SSL_CERT_FILE` when set, as the registry client does).
fn agent(roots: RootCerts) -> ureq::Agent {
    let tls = TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .root_certs(roots)
        .build();
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(concat!("skillpkg/", env!("CARGO_PKG_VERSION")))
        .tls_config(tls)
        .timeout_resolve(Some(CONNECT_TIMEOUT))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_send_request(Some(WAIT_TIMEOUT))
        .timeout_per_write(Some(WAIT_TIMEOUT))
        .timeout_recv_response(Some(WAIT_TIMEOUT))
        .timeout_per_read(Some(WAIT_TIMEOUT))
        .build()
        .into()
}

/// The store's [`Config`] from an `s3://` URL and the environment (`var` reads a variable,
/// `None` when unset or empty).
fn config_from(url: &str, var: &dyn Fn(&str) -> Option<String>) -> Result<Config, String> {
    let usage = "write s3://BUCKET or s3://BUCKET/PREFIX";
    let rest = url
        .get(..5)
        .filter(|scheme| scheme.eq_ignore_ascii_case("s3://"))
        .map(|_| &url[5..])
        .ok_or_else(|| format!("`{url}` is not an S3 URL: {usage}"))?;
    if rest.contains(['?', '#']) {
        return Err(format!(
            "`{url}` has a query or fragment, which an S3 location cannot have: {usage}"
        ));
    }
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(format!("`{url}` names no bucket: {usage}"));
    }
    let access_key = var("AWS_ACCESS_KEY_ID");
    let secret_key = var("AWS_SECRET_ACCESS_KEY");
    let (Some(access_key), Some(secret_key)) = (access_key, secret_key) else {
        return Err(format!(
            "storing archives in {url} needs S3 credentials: set AWS_ACCESS_KEY_ID and \
             AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials)"
        ));
    };
    let path_style = match var("AWS_S3_ADDRESSING_STYLE").as_deref() {
        None | Some("auto") => None,
        Some("path") => Some(true),
        Some("virtual") => Some(false),
        Some(other) => {
            return Err(format!(
                "AWS_S3_ADDRESSING_STYLE is `{other}`; it must be `path` or `virtual`"
            ));
        }
    };
    Ok(Config {
        bucket: bucket.to_owned(),
        prefix: prefix.trim_matches('/').to_owned(),
        endpoint: var("AWS_ENDPOINT_URL_S3").or_else(|| var("AWS_ENDPOINT_URL")),
        region: var("AWS_REGION")
            .or_else(|| var("AWS_DEFAULT_REGION"))
            .unwrap_or_else(|| "us-east-1".to_owned()),
        access_key,
        secret_key,
        session_token: var("AWS_SESSION_TOKEN"),
        path_style,
    })
}

/// A bucket name that can go into a URL path: letters, digits, `.`, `-`, `_`.
fn check_bucket(bucket: &str) -> Result<(), String> {
    if bucket.is_empty()
        || bucket.len() > 255
        || !bucket
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    {
        return Err(format!(
            "`{bucket}` is not a bucket name: S3 bucket names use lowercase letters, digits, \
             `.` and `-`"
        ));
    }
    Ok(())
}

/// Whether `bucket` can be a host name label sequence (virtual-hosted style): S3's rules for
/// new buckets.
fn is_dns_compatible(bucket: &str) -> bool {
    (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-'))
        && bucket
            .split('.')
            .all(|label| !label.is_empty() && !label.starts_with('-') && !label.ends_with('-'))
}

/// A prefix of plain folder names: no empty, `.` or `..` segment, nothing invisible.
fn check_prefix(prefix: &str) -> Result<(), String> {
    if prefix.is_empty() {
        return Ok(());
    }
    let bad_segment = prefix
        .split('/')
        .any(|segment| matches!(segment, "" | "." | ".."));
    if bad_segment || prefix.chars().any(|c| c.is_control() || c == '\\') {
        return Err(format!(
            "the prefix `{prefix}` is not a folder path: use names separated by single `/`, \
             without `.`, `..`, `\\` or control characters"
        ));
    }
    Ok(())
}

/// (https, host, port when given) of an endpoint `http(s)://host[:port][/]`.
fn parse_endpoint(endpoint: &str) -> Result<(bool, String, Option<u16>), String> {
    let bad = |why: &str| {
        format!(
            "the S3 endpoint `{endpoint}` (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) {why}: \
             write http(s)://HOST[:PORT], such as http://127.0.0.1:9000"
        )
    };
    let uri: Uri = endpoint.parse().map_err(|_| bad("is not a URL"))?;
    let https = match uri.scheme_str() {
        Some("https") => true,
        Some("http") => false,
        _ => return Err(bad("is not an http:// or https:// URL")),
    };
    let authority = uri.authority().ok_or_else(|| bad("names no host"))?;
    if authority.as_str().contains('@') {
        return Err(bad("has a user name in it"));
    }
    if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return Err(bad("has a path or query"));
    }
    let host = authority.host();
    if host.is_empty() {
        return Err(bad("names no host"));
    }
    // `Host` carries the port only when it is not the scheme's own (as ureq would send it).
    let default_port = if https { 443 } else { 80 };
    let port = authority.port_u16().filter(|&port| port != default_port);
    Ok((https, host.to_ascii_lowercase(), port))
}

/// Credentials and region: what signs a request.
struct Signer {
    access_key: String,
    secret_key: String,
    session_token: Option<String>,
    region: String,
}

impl Signer {
    /// `20130524/us-east-1/s3/aws4_request`.
    fn scope(&self, stamp: &Stamp) -> String {
        format!("{}/{}/s3/aws4_request", stamp.date, self.region)
    }

    /// The hex signature of `canonical_request` at `stamp`.
    fn signature(&self, stamp: &Stamp, canonical_request: &str) -> String {
        let string_to_sign = format!(
            "AWS4-HMAC-SHA256\n{}\n{}\n{}",
            stamp.amz_date,
            self.scope(stamp),
            hex(&Sha256::digest(canonical_request.as_bytes()))
        );
        let key = [self.region.as_str(), "s3", "aws4_request"].iter().fold(
            hmac(
                format!("AWS4{}", self.secret_key).as_bytes(),
                stamp.date.as_bytes(),
            ),
            |key, part| hmac(&key, part.as_bytes()),
        );
        hex(&hmac(&key, string_to_sign.as_bytes()))
    }
}

/// A moment as `SigV4` writes it: `20130524T000000Z`, and the day `20130524`.
struct Stamp {
    amz_date: String,
    date: String,
}

impl Stamp {
    /// The stamp of `seconds` since the Unix epoch, in UTC.
    fn at(seconds: i64) -> Self {
        let (year, month, day) = crate::dates::civil_from_days(seconds.div_euclid(86_400));
        let time = seconds.rem_euclid(86_400);
        let date = format!("{year:04}{month:02}{day:02}");
        Self {
            amz_date: format!(
                "{date}T{:02}{:02}{:02}Z",
                time / 3600,
                time / 60 % 60,
                time % 60
            ),
            date,
        }
    }
}

fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// The 32 bytes of a 64-digit hex SHA-256 (already checked by [`is_sha256`]).
fn hex_bytes(sha256: &str) -> Vec<u8> {
    sha256
        .as_bytes()
        .chunks(2)
        .map(|pair| {
            let digit = |b: u8| char::from(b).to_digit(16).unwrap_or(0);
            u8::try_from(digit(pair[0]) * 16 + digit(pair[1])).unwrap_or(0)
        })
        .collect()
}

/// `SigV4`'s canonical query string: keys and values URI-encoded (`/` too), sorted by key.
fn canonical_query(pairs: &[(&str, &str)]) -> String {
    let mut encoded: Vec<(String, String)> = pairs
        .iter()
        .map(|(key, value)| (encode(key), encode(value)))
        .collect();
    encoded.sort();
    encoded
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// The canonical request and its signed-header list. `path` and `query` are already in
/// canonical form; `headers` have lower-case names.
fn canonical_request(
    method: &str,
    path: &str,
    query: &str,
    headers: &[(&str, &str)],
    payload_hash: &str,
) -> (String, String) {
    let mut headers: Vec<(&str, String)> = headers
        .iter()
        .map(|(name, value)| {
            (
                *name,
                value.split_whitespace().collect::<Vec<_>>().join(" "),
            )
        })
        .collect();
    headers.sort();
    let mut canonical = format!("{method}\n{path}\n{query}\n");
    for (name, value) in &headers {
        canonical.push_str(name);
        canonical.push(':');
        canonical.push_str(value);
        canonical.push('\n');
    }
    let signed = headers
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(";");
    canonical.push('\n');
    canonical.push_str(&signed);
    canonical.push('\n');
    canonical.push_str(payload_hash);
    (canonical, signed)
}

/// One object of a `ListObjectsV2` page. Size and time are `None` when unreadable: only an
/// object that is ours makes that an error.
#[derive(Debug, PartialEq, Eq)]
struct Listed {
    key: String,
    size: Option<u64>,
    modified: Option<i64>,
}

/// A page of a listing, and the token of the next one if it is cut.
#[derive(Debug, PartialEq, Eq)]
struct ListPage {
    objects: Vec<Listed>,
    next: Option<String>,
}

/// Reads a `ListObjectsV2` answer: each `<Contents>`'s `<Key>`, `<Size>` and `<LastModified>`,
/// and `<NextContinuationToken>` when `<IsTruncated>` is `true`. S3's answers have no
/// attributes, comments or CDATA on these elements, and text cannot hold a raw `<`, so finding
/// tags is enough; each byte is looked at a bounded number of times.
fn parse_list(xml: &str) -> Result<ListPage, String> {
    if !xml.contains("<ListBucketResult") {
        return Err("the answer is not a ListObjectsV2 result".to_owned());
    }
    let malformed = |what: &str| format!("the answer's XML is malformed ({what})");
    let mut objects = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<Contents>") {
        let after = &rest[start + "<Contents>".len()..];
        let end = after
            .find("</Contents>")
            .ok_or_else(|| malformed("<Contents> is not closed"))?;
        let block = &after[..end];
        let key = element(block, "Key").ok_or_else(|| malformed("<Contents> without <Key>"))?;
        let key = unescape(key).ok_or_else(|| malformed("an unknown entity in a <Key>"))?;
        objects.push(Listed {
            key: key.into_owned(),
            size: element(block, "Size").and_then(|size| size.trim().parse().ok()),
            modified: element(block, "LastModified").and_then(|time| rfc3339_seconds(time.trim())),
        });
        rest = &after[end + "</Contents>".len()..];
    }
    let truncated = element(xml, "IsTruncated").is_some_and(|value| value.trim() == "true");
    let next = if truncated {
        let token = element(xml, "NextContinuationToken")
            .ok_or_else(|| "the answer is cut but gives no NextContinuationToken".to_owned())?;
        let token = unescape(token).ok_or_else(|| malformed("an unknown entity in a token"))?;
        Some(token.into_owned())
    } else {
        None
    };
    Ok(ListPage { objects, next })
}

/// An object of a listing: its key, size and seconds since the epoch.
pub type ListedObject = (String, Option<u64>, Option<i64>);

/// A `ListObjectsV2` answer as [`parse_list`] reads it: each object, and the next page's token
/// (for the fuzz target).
#[doc(hidden)]
pub fn listing(xml: &str) -> Result<(Vec<ListedObject>, Option<String>), String> {
    let page = parse_list(xml)?;
    Ok((
        page.objects
            .into_iter()
            .map(|object| (object.key, object.size, object.modified))
            .collect(),
        page.next,
    ))
}

/// The raw text of the first `<name>…</name>` in `xml`.
fn element<'a>(xml: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&close)?;
    Some(&xml[start..start + end])
}

/// XML text with its entities (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and numeric ones)
/// decoded; `None` for an unknown or unfinished entity.
fn unescape(text: &str) -> Option<Cow<'_, str>> {
    if !text.contains('&') {
        return Some(Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        // The longest entity is `&#x10FFFF;`: look no further than that for its `;`.
        let window = &rest.as_bytes()[..rest.len().min(10)];
        let end = window.iter().position(|&b| b == b';')?;
        let name = &rest[..end];
        let decoded = match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(hex) = name.strip_prefix("#x") {
                    u32::from_str_radix(hex, 16).ok()?
                } else {
                    name.strip_prefix('#')?.parse().ok()?
                };
                char::from_u32(code)?
            }
        };
        out.push(decoded);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// Seconds since the Unix epoch of an RFC 3339 time such as `2009-10-12T17:50:30.000Z`.
fn rfc3339_seconds(text: &str) -> Option<i64> {
    let day = crate::dates::parse_date(text.get(..10)?)?;
    if !matches!(text.as_bytes().get(10)?, b'T' | b't' | b' ') {
        return None;
    }
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = text.get(range)?;
        if digits.bytes().all(|b| b.is_ascii_digit()) {
            digits.parse().ok()
        } else {
            None
        }
    };
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    if text.get(13..14)? != ":" || text.get(16..17)? != ":" || hour > 23 || minute > 59 {
        return None;
    }
    // A leap second (`:60`) counts as the next second's start; fractions are dropped.
    if second > 60 {
        return None;
    }
    let mut zone = text.get(19..)?;
    if let Some(fraction) = zone.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        zone = &fraction[digits..];
    }
    let offset = match zone {
        "Z" | "z" => 0,
        _ => {
            let sign = match zone.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (hours, minutes) = zone[1..].split_once(':')?;
            if hours.len() != 2
                || minutes.len() != 2
                || !hours
                    .bytes()
                    .chain(minutes.bytes())
                    .all(|b| b.is_ascii_digit())
            {
                return None;
            }
            let hours: i64 = hours.parse().ok()?;
            let minutes: i64 = minutes.parse().ok()?;
            sign * (hours * 3600 + minutes * 60)
        }
    };
    Some(day + hour * 3600 + minute * 60 + second - offset)
}

/// `text` on one line (control characters and runs of spaces made one space), at most
/// [`MAX_ERROR_CHARS`] characters.
fn printable(text: &str) -> String {
    let text = text
        .split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::io::Read as _;
    use std::net::{TcpListener, TcpStream};
    use std::path::PathBuf;
    use std::process::{Child, Command, Stdio};
    use std::time::Instant;

    use super::*;

    fn sha256_hex(bytes: &[u8]) -> String {
        use sha2::Digest as _;
        crate::pack::archive::hex(&sha2::Sha256::digest(bytes))
    }

    // The credentials of AWS's signature examples.
    const ACCESS_KEY: &str = "AKIAIOSFODNN7EXAMPLE";
    const SECRET_KEY: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

    /// 2013-05-24T00:00:00Z, when AWS's examples are signed.
    fn example_time() -> i64 {
        crate::dates::days_from_civil(2013, 5, 24) * 86_400
    }

    fn config(bucket: &str, endpoint: Option<&str>, path_style: Option<bool>) -> Config {
        Config {
            bucket: bucket.to_owned(),
            prefix: String::new(),
            endpoint: endpoint.map(str::to_owned),
            region: "us-east-1".to_owned(),
            access_key: ACCESS_KEY.to_owned(),
            secret_key: SECRET_KEY.to_owned(),
            session_token: None,
            path_style,
        }
    }

    /// The bucket of AWS's examples, `examplebucket.s3.amazonaws.com`.
    fn example_store() -> S3Blobs {
        S3Blobs::new(config(
            "examplebucket",
            Some("https://s3.amazonaws.com"),
            Some(false),
        ))
        .unwrap()
    }

    fn header<'a>(signed: &'a Signed, name: &str) -> &'a str {
        signed
            .headers
            .iter()
            .find(|(key, _)| key == name)
            .map_or_else(
                || panic!("no {name} header in {:?}", signed.headers),
                |(_, value)| value.as_str(),
            )
    }

    fn signature(signed: &Signed) -> &str {
        header(signed, "authorization")
            .rsplit_once("Signature=")
            .unwrap()
            .1
    }

    // The examples of "Signature Calculations for the Authorization Header: Transferring
    // Payload in a Single Chunk" and "Authenticating Requests: Using Query Parameters" in the
    // Amazon S3 API reference.

    #[test]
    fn signs_the_aws_get_object_example() {
        let signed = example_store().signed(
            "GET",
            Some("test.txt"),
            &[],
            &[("range", "bytes=0-9")],
            EMPTY_SHA256,
            example_time(),
        );
        assert_eq!(
            signed.url,
            "https://examplebucket.s3.amazonaws.com/test.txt"
        );
        assert_eq!(header(&signed, "host"), "examplebucket.s3.amazonaws.com");
        assert_eq!(header(&signed, "x-amz-date"), "20130524T000000Z");
        assert_eq!(
            header(&signed, "authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,\
             SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,\
             Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
    }

    #[test]
    fn builds_the_aws_get_object_canonical_request() {
        let (canonical, signed) = canonical_request(
            "GET",
            "/test.txt",
            "",
            &[
                ("x-amz-date", "20130524T000000Z"),
                ("host", "examplebucket.s3.amazonaws.com"),
                ("x-amz-content-sha256", EMPTY_SHA256),
                ("range", "  bytes=0-9 "),
            ],
            EMPTY_SHA256,
        );
        assert_eq!(
            canonical,
            format!(
                "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n\
                 x-amz-content-sha256:{EMPTY_SHA256}\nx-amz-date:20130524T000000Z\n\n\
                 host;range;x-amz-content-sha256;x-amz-date\n{EMPTY_SHA256}"
            )
        );
        assert_eq!(signed, "host;range;x-amz-content-sha256;x-amz-date");
        assert_eq!(
            hex(&Sha256::digest(canonical.as_bytes())),
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"
        );
    }

    #[test]
    fn signs_the_aws_put_object_example() {
        let payload = sha256_hex(b"Welcome to Amazon S3.");
        let signed = example_store().signed(
            "PUT",
            Some("test$file.text"),
            &[],
            &[
                ("date", "Fri, 24 May 2013 00:00:00 GMT"),
                ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
            ],
            &payload,
            example_time(),
        );
        assert_eq!(
            signed.url,
            "https://examplebucket.s3.amazonaws.com/test%24file.text"
        );
        assert_eq!(
            signature(&signed),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
        );
    }

    #[test]
    fn signs_the_aws_bucket_examples() {
        let store = example_store();
        // Given out of order: the canonical query is sorted.
        let list = store.signed(
            "GET",
            None,
            &[("prefix", "J"), ("max-keys", "2")],
            &[],
            EMPTY_SHA256,
            example_time(),
        );
        assert_eq!(
            list.url,
            "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J"
        );
        assert_eq!(
            signature(&list),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
        );
        let lifecycle = store.signed(
            "GET",
            None,
            &[("lifecycle", "")],
            &[],
            EMPTY_SHA256,
            example_time(),
        );
        assert_eq!(
            signature(&lifecycle),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
        );
    }

    #[test]
    fn presigns_the_aws_example() {
        let url =
            example_store().presign_at("test.txt", Duration::from_secs(86_400), example_time());
        assert_eq!(
            url,
            "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256\
             &X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request\
             &X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host\
             &X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        );
    }

    #[test]
    fn presigned_urls_last_at_most_a_week_and_carry_the_session_token() {
        let mut with_token = config("examplebucket", Some("https://s3.amazonaws.com"), None);
        with_token.session_token = Some("token/with+signs=".to_owned());
        let store = S3Blobs::new(with_token).unwrap();
        let url = store.presign_at("k", Duration::from_secs(30 * 86_400), example_time());
        assert!(url.contains("&X-Amz-Expires=604800&"), "{url}");
        assert!(
            url.contains("&X-Amz-Security-Token=token%2Fwith%2Bsigns%3D&"),
            "{url}"
        );
        let signed = store.signed("GET", Some("k"), &[], &[], EMPTY_SHA256, example_time());
        assert_eq!(header(&signed, "x-amz-security-token"), "token/with+signs=");
        assert!(
            header(&signed, "authorization").contains(
                "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"
            )
        );
        let store = example_store();
        let url = store.presign_at("k", Duration::ZERO, example_time());
        assert!(url.contains("&X-Amz-Expires=1&"), "{url}");
        assert!(!url.contains("Security-Token"), "{url}");
    }

    #[test]
    fn addresses_path_style_with_an_endpoint_and_virtual_hosted_on_aws() {
        let sha = "ab".repeat(32);
        let mut local = config("skills", Some("http://127.0.0.1:9000/"), None);
        local.prefix = "a b/c".to_owned();
        let local = S3Blobs::new(local).unwrap();
        let signed = local.signed("GET", local.key(&sha).as_deref(), &[], &[], EMPTY_SHA256, 0);
        assert_eq!(
            signed.url,
            format!("http://127.0.0.1:9000/skills/a%20b/c/sha256/ab/ab/{sha}")
        );
        assert_eq!(header(&signed, "host"), "127.0.0.1:9000");
        assert_eq!(header(&signed, "x-amz-date"), "19700101T000000Z");

        // The scheme's own port is not part of `Host`, as ureq would not send it.
        let default_port = S3Blobs::new(config("b", Some("http://Minio.Local:80"), None)).unwrap();
        assert_eq!(default_port.host, "minio.local");
        assert_eq!(default_port.origin, "http://minio.local");

        let mut aws = config("skills", None, None);
        aws.region = "eu-west-1".to_owned();
        let aws = S3Blobs::new(aws).unwrap();
        let signed = aws.signed("GET", None, &[("list-type", "2")], &[], EMPTY_SHA256, 0);
        assert_eq!(
            signed.url,
            "https://skills.s3.eu-west-1.amazonaws.com/?list-type=2"
        );
        assert!(header(&signed, "authorization").contains("/19700101/eu-west-1/s3/aws4_request,"));

        // A dotted bucket would not match the certificate of `*.s3.REGION.amazonaws.com`.
        let dotted = S3Blobs::new(config("my.skills", None, None)).unwrap();
        assert_eq!(dotted.origin, "https://s3.us-east-1.amazonaws.com");
        assert_eq!(dotted.path(Some("k")), "/my.skills/k");
        let forced = S3Blobs::new(config("skills", None, Some(true))).unwrap();
        assert_eq!(forced.path(None), "/skills");
    }

    #[test]
    fn stamps_times_as_sigv4_writes_them() {
        let stamp = Stamp::at(example_time() + 13 * 3600 + 7 * 60 + 9);
        assert_eq!(stamp.amz_date, "20130524T130709Z");
        assert_eq!(stamp.date, "20130524");
    }

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect();
        move |name| map.get(name).cloned()
    }

    const CREDENTIALS: [(&str, &str); 2] = [
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY),
        ("AWS_SECRET_ACCESS_KEY", SECRET_KEY),
    ];

    #[test]
    fn reads_the_url_and_the_environment() {
        let config = config_from("s3://skills/registry/blobs/", &env(&CREDENTIALS)).unwrap();
        assert_eq!(config.bucket, "skills");
        assert_eq!(config.prefix, "registry/blobs");
        assert_eq!(config.region, "us-east-1");
        assert_eq!(config.endpoint, None);
        assert_eq!(config.path_style, None);
        assert_eq!(config.session_token, None);

        let config = config_from(
            "s3://skills",
            &env(&[
                CREDENTIALS[0],
                CREDENTIALS[1],
                ("AWS_SESSION_TOKEN", "token"),
                ("AWS_REGION", "eu-central-1"),
                ("AWS_DEFAULT_REGION", "us-west-2"),
                ("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000"),
                ("AWS_ENDPOINT_URL", "http://elsewhere:9000"),
                ("AWS_S3_ADDRESSING_STYLE", "virtual"),
            ]),
        )
        .unwrap();
        assert_eq!(config.prefix, "");
        assert_eq!(config.region, "eu-central-1");
        assert_eq!(config.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(config.session_token.as_deref(), Some("token"));
        assert_eq!(config.path_style, Some(false));
        // Debug output leaves the secret out.
        assert!(!format!("{config:?}").contains(SECRET_KEY));

        let config = config_from(
            "S3://skills",
            &env(&[
                CREDENTIALS[0],
                CREDENTIALS[1],
                ("AWS_DEFAULT_REGION", "us-west-2"),
                ("AWS_ENDPOINT_URL", "http://elsewhere:9000"),
            ]),
        )
        .unwrap();
        assert_eq!(config.region, "us-west-2");
        assert_eq!(config.endpoint.as_deref(), Some("http://elsewhere:9000"));
    }

    /// The message `from_url`'s parts give for `url` with `vars` set (credentials included).
    fn refusal(url: &str, vars: &[(&str, &str)]) -> String {
        let mut all = CREDENTIALS.to_vec();
        all.extend_from_slice(vars);
        let message = config_from(url, &env(&all))
            .and_then(S3Blobs::new)
            .expect_err(url);
        assert!(!message.contains(SECRET_KEY), "{message}");
        message
    }

    #[test]
    fn says_what_to_fix_in_a_bad_configuration() {
        for (url, vars, expected) in [
            (
                "https://skills",
                &[][..],
                "is not an S3 URL: write s3://BUCKET",
            ),
            ("s3:/skills", &[], "is not an S3 URL"),
            ("s3://", &[], "names no bucket"),
            ("s3:///prefix", &[], "names no bucket"),
            ("s3://skills?versionId=1", &[], "has a query or fragment"),
            ("s3://sk*lls", &[], "`sk*lls` is not a bucket name"),
            (
                "s3://skills/a//b",
                &[],
                "the prefix `a//b` is not a folder path",
            ),
            ("s3://skills/a/../b", &[], "is not a folder path"),
            (
                "s3://skills",
                &[("AWS_S3_ADDRESSING_STYLE", "dns")],
                "AWS_S3_ADDRESSING_STYLE is `dns`; it must be `path` or `virtual`",
            ),
            (
                "s3://Skills_1",
                &[("AWS_S3_ADDRESSING_STYLE", "virtual")],
                "set AWS_S3_ADDRESSING_STYLE=path",
            ),
            (
                "s3://skills",
                &[("AWS_REGION", "EU West")],
                "set AWS_REGION",
            ),
            (
                "s3://skills",
                &[("AWS_ENDPOINT_URL", "ftp://host")],
                "is not an http:// or https:// URL",
            ),
            (
                "s3://skills",
                &[("AWS_ENDPOINT_URL", "http://host:9000/s3")],
                "has a path or query",
            ),
            (
                "s3://skills",
                &[("AWS_ENDPOINT_URL", "http://user:pass@host")],
                "has a user name in it",
            ),
            (
                "s3://skills",
                &[("AWS_ENDPOINT_URL", "not a url")],
                "write http(s)://HOST[:PORT]",
            ),
            (
                "s3://skills",
                &[("AWS_SESSION_TOKEN", "two words")],
                "AWS_SESSION_TOKEN is empty or holds spaces",
            ),
        ] {
            let message = refusal(url, vars);
            assert!(message.contains(expected), "{url}: {message}");
        }
        let missing = config_from("s3://skills", &env(&[CREDENTIALS[0]])).unwrap_err();
        assert!(
            missing.contains("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
            "{missing}"
        );
    }

    #[test]
    fn reads_a_listing_page() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>skills</Name><Prefix>p/sha256/</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys>
  <IsTruncated>true</IsTruncated>
  <Contents><Key>p/sha256/ab/cd/one</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified>
    <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><Size>434234</Size>
    <StorageClass>STANDARD</StorageClass></Contents>
  <Contents><Key>p/R&amp;D &lt;notes&gt; &#233;&#x4E2D;&apos;&quot;</Key>
    <LastModified>2009-10-12T19:50:30+02:00</LastModified><Size>x</Size></Contents>
  <Contents><Key>p/sha256/ab/cd/two</Key><Size>0</Size></Contents>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=&amp;</NextContinuationToken>
</ListBucketResult>"#;
        let page = parse_list(xml).unwrap();
        assert_eq!(
            page,
            ListPage {
                objects: vec![
                    Listed {
                        key: "p/sha256/ab/cd/one".to_owned(),
                        size: Some(434_234),
                        modified: Some(1_255_369_830),
                    },
                    Listed {
                        key: "p/R&D <notes> é中'\"".to_owned(),
                        size: None,
                        modified: Some(1_255_369_830),
                    },
                    Listed {
                        key: "p/sha256/ab/cd/two".to_owned(),
                        size: Some(0),
                        modified: None,
                    },
                ],
                next: Some("1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=&".to_owned()),
            }
        );

        let last = "<ListBucketResult><IsTruncated>false</IsTruncated>\
                    <NextContinuationToken>stale</NextContinuationToken></ListBucketResult>";
        assert_eq!(
            parse_list(last).unwrap(),
            ListPage {
                objects: vec![],
                next: None
            }
        );
        for (xml, expected) in [
            (
                "<Error><Code>AccessDenied</Code></Error>",
                "not a ListObjectsV2 result",
            ),
            (
                "<ListBucketResult><Contents><Key>k</Key>",
                "<Contents> is not closed",
            ),
            (
                "<ListBucketResult><Contents><Size>1</Size></Contents>",
                "<Contents> without <Key>",
            ),
            (
                "<ListBucketResult><Contents><Key>a&nbsp;b</Key></Contents>",
                "an unknown entity",
            ),
            (
                "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
                "gives no NextContinuationToken",
            ),
        ] {
            let message = parse_list(xml).unwrap_err();
            assert!(message.contains(expected), "{xml}: {message}");
        }
    }

    #[test]
    fn lists_only_its_own_keys() {
        let sha = "0123456789abcdef".repeat(4);
        let mut prefixed = config("skills", Some("http://127.0.0.1:9000"), None);
        prefixed.prefix = "v1".to_owned();
        let prefixed = S3Blobs::new(prefixed).unwrap();
        assert_eq!(
            prefixed.blob_of(&format!("v1/sha256/01/23/{sha}")),
            Some(sha.as_str())
        );
        for foreign in [
            format!("sha256/01/23/{sha}"),
            format!("v1/sha256/01/24/{sha}"),
            format!("v1/sha256/01/23/{sha}/x"),
            format!("v1/sha256/01/23/{}", sha.to_uppercase()),
            format!("v2/sha256/01/23/{sha}"),
            format!("v1/sha256/01/23/{sha}.tmp"),
            format!("/v1/sha256/01/23/{sha}"),
            "v1/sha256/01/23/".to_owned(),
        ] {
            assert_eq!(prefixed.blob_of(&foreign), None, "{foreign}");
        }
        let bare = S3Blobs::new(config("skills", None, None)).unwrap();
        assert_eq!(
            bare.blob_of(&format!("sha256/01/23/{sha}")),
            Some(sha.as_str())
        );
        assert_eq!(bare.list_prefix(), "sha256/");
        assert_eq!(prefixed.list_prefix(), "v1/sha256/");
    }

    #[test]
    fn decodes_xml_entities() {
        assert_eq!(unescape("plain").unwrap(), "plain");
        assert_eq!(
            unescape("a&amp;b&lt;&gt;&quot;&apos;&#65;&#x42;&#x1F600;").unwrap(),
            "a&b<>\"'AB😀"
        );
        for bad in ["&amp", "&bogus;", "&#xD800;", "&#;", "a & b", "&#x110000;"] {
            assert_eq!(unescape(bad), None, "{bad}");
        }
        // A long run of `&` is refused at once, without scanning ahead.
        assert_eq!(unescape(&"&".repeat(100_000)), None);
    }

    #[test]
    fn reads_rfc3339_times() {
        let base = crate::dates::days_from_civil(2009, 10, 12) * 86_400;
        let at = base + 17 * 3600 + 50 * 60 + 30;
        for text in [
            "2009-10-12T17:50:30.000Z",
            "2009-10-12T17:50:30Z",
            "2009-10-12t17:50:30.123456789z",
            "2009-10-12T19:50:30+02:00",
            "2009-10-12T15:20:30-02:30",
        ] {
            assert_eq!(rfc3339_seconds(text), Some(at), "{text}");
        }
        for text in [
            "",
            "2009-10-12",
            "2009-10-12T17:50:30",
            "2009-10-12T17:50:30.Z",
            "2009-13-12T17:50:30Z",
            "2009-10-12T24:00:00Z",
            "2009-10-12T17:5:30Z",
            "2009-10-12T17:50:30+2:00",
            "2009-10-12T17:50:30+-1:00",
            "2009-10-12T17:50:30 UTC",
            "2009-10-12T17:50:3é",
        ] {
            assert_eq!(rfc3339_seconds(text), None, "{text}");
        }
    }

    #[test]
    fn error_details_are_printable_and_short() {
        assert_eq!(
            printable(" Access\u{7}Denied\n\n now "),
            "Access Denied now"
        );
        let long = printable(&"é".repeat(1000));
        assert_eq!(long.chars().count(), MAX_ERROR_CHARS + 1);
        assert!(long.ends_with('…'));
        assert_eq!(hex(&hex_bytes(&"0f".repeat(32))), "0f".repeat(32));
    }

    /// A server on a loopback port that reads one request (its head and `Content-Length`
    /// bytes of body), answers `answer`, and hands back the head (lower-cased) and the body.
    fn answer_once(answer: &'static str) -> (u16, std::thread::JoinHandle<(String, Vec<u8>)>) {
        use std::io::Write as _;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let thread = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut byte = [0];
            while !head.ends_with(b"\r\n\r\n") {
                socket.read_exact(&mut byte).unwrap();
                head.push(byte[0]);
            }
            let head = String::from_utf8(head).unwrap().to_lowercase();
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .map_or(0, |length| length.parse().unwrap());
            let mut body = vec![0; length];
            socket.read_exact(&mut body).unwrap();
            socket.write_all(answer.as_bytes()).unwrap();
            (head, body)
        });
        (port, thread)
    }

    fn local_store(port: u16) -> S3Blobs {
        S3Blobs::new(config(
            "skills",
            Some(&format!("http://127.0.0.1:{port}")),
            None,
        ))
        .unwrap()
    }

    #[test]
    fn uploads_with_a_content_length_and_the_signed_host() {
        let (port, server) = answer_once("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        let store = local_store(port);
        let work = tempfile::tempdir().unwrap();
        let bytes = large_archive();
        let (path, sha) = archive(work.path(), "large", &bytes);
        let key = store.key(&sha).unwrap();
        store
            .put_object(&key, &path, &sha, Some("checksum"))
            .unwrap();
        let (head, body) = server.join().unwrap();
        assert!(
            head.starts_with(&format!("put /skills/{key} http/1.1\r\n")),
            "{head}"
        );
        // S3's PutObject refuses a chunked body: the length goes first.
        assert!(head.contains("\r\ncontent-length: 1572864\r\n"), "{head}");
        assert!(!head.contains("transfer-encoding"), "{head}");
        assert_eq!(head.matches("\r\nhost: ").count(), 1, "{head}");
        assert!(
            head.contains(&format!("\r\nhost: 127.0.0.1:{port}\r\n")),
            "{head}"
        );
        assert!(
            head.contains(&format!("\r\nx-amz-content-sha256: {sha}\r\n")),
            "{head}"
        );
        assert!(
            head.contains("\r\nx-amz-checksum-sha256: checksum\r\n"),
            "{head}"
        );
        assert!(
            head.contains(
                "signedheaders=content-length;host;x-amz-checksum-sha256;\
                 x-amz-content-sha256;x-amz-date,"
            ),
            "{head}"
        );
        assert!(body == bytes, "the body sent differs from the file");
    }

    #[test]
    fn reports_what_the_server_said_and_follows_no_redirect() {
        let xml = "<Error><Code>AccessDenied</Code>\
                   <Message>Access &amp; all\tthat denied</Message></Error>";
        let answer = format!(
            "HTTP/1.1 403 Forbidden\r\ncontent-type: application/xml\r\n\
             content-length: {}\r\n\r\n{xml}",
            xml.len()
        );
        let (port, server) = answer_once(answer.leak());
        let sha = "ab".repeat(32);
        let message = local_store(port).delete(&sha).unwrap_err().to_string();
        server.join().unwrap();
        assert_eq!(
            message,
            format!(
                "blob store: DELETE s3://skills/sha256/ab/ab/{sha} at http://127.0.0.1:{port}: \
                 the server answered 403 Forbidden: AccessDenied: Access & all that denied"
            )
        );

        let (port, server) = answer_once(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: http://127.0.0.1:9/\r\n\
             content-length: 0\r\n\r\n",
        );
        let message = local_store(port).ping().unwrap_err().to_string();
        server.join().unwrap();
        assert!(
            message.ends_with("the server answered 307 Temporary Redirect"),
            "{message}"
        );
    }

    #[test]
    fn tells_a_missing_bucket_from_a_missing_blob() {
        let sha = "ab".repeat(32);
        let answer = |code: &str| {
            let xml = format!("<Error><Code>{code}</Code></Error>");
            format!(
                "HTTP/1.1 404 Not Found\r\ncontent-length: {}\r\n\r\n{xml}",
                xml.len()
            )
            .leak()
        };
        let (port, server) = answer_once(answer("NoSuchKey"));
        assert!(local_store(port).get(&sha).unwrap().is_none());
        server.join().unwrap();
        let (port, server) = answer_once(answer("NoSuchKey"));
        local_store(port).delete(&sha).unwrap();
        server.join().unwrap();
        let (port, server) = answer_once(answer("NoSuchBucket"));
        let message = local_store(port).get(&sha).unwrap_err().to_string();
        server.join().unwrap();
        assert!(
            message.ends_with("404 Not Found: NoSuchBucket"),
            "{message}"
        );
        let (port, server) = answer_once(answer("NoSuchBucket"));
        let message = local_store(port).delete(&sha).unwrap_err().to_string();
        server.join().unwrap();
        assert!(
            message.ends_with("404 Not Found: NoSuchBucket"),
            "{message}"
        );
    }

    // A real S3-compatible server: s3s-fs, which verifies SigV4 signatures (headers and
    // presigned URLs), `x-amz-content-sha256` and `x-amz-checksum-sha256`.

    /// A running s3s-fs, killed when dropped.
    struct Server {
        child: Child,
        port: u16,
        /// Holds the server's root folder (`root/`) and its log (`log`).
        dir: tempfile::TempDir,
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    const SERVER_ACCESS_KEY: &str = "skillpkg-test";
    const SERVER_SECRET_KEY: &str = "skillpkg-test-secret/key+1";
    const BUCKET: &str = "skills";

    impl Server {
        /// s3s-fs on a free loopback port with an empty bucket, or `None` (with a message) when
        /// it is not installed and not required.
        #[allow(
            clippy::print_stderr,
            reason = "the skip must be seen in the test output"
        )]
        fn start() -> Option<Self> {
            let binary = std::env::var_os("SKILLPKG_S3_SERVER").map_or_else(
                || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/s3s-fs/bin/s3s-fs"),
                PathBuf::from,
            );
            if !binary.is_file() {
                assert!(
                    std::env::var("SKILLPKG_REQUIRE_SCALED").as_deref() != Ok("1"),
                    "{} is missing and SKILLPKG_REQUIRE_SCALED=1: `cargo install --locked s3s-fs \
                     --version 0.14.1 --features binary --root target/tools/s3s-fs`",
                    binary.display()
                );
                eprintln!(
                    "skipping the S3 server test: {} is missing (install s3s-fs 0.14.1 there, \
                     or set SKILLPKG_S3_SERVER; SKILLPKG_REQUIRE_SCALED=1 makes this a failure)",
                    binary.display()
                );
                return None;
            }
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("root");
            fs_err::create_dir_all(root.join(BUCKET)).unwrap();
            let log = fs_err::File::create(dir.path().join("log")).unwrap();
            let port = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let child = Command::new(&binary)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--access-key", SERVER_ACCESS_KEY])
                .args(["--secret-key", SERVER_SECRET_KEY])
                .arg(&root)
                .stdin(Stdio::null())
                .stdout(log.file().try_clone().unwrap())
                .stderr(log.into_parts().0)
                .spawn()
                .unwrap();
            let mut server = Self { child, port, dir };
            let deadline = Instant::now() + Duration::from_secs(20);
            while TcpStream::connect(("127.0.0.1", port)).is_err() {
                let exited = server.child.try_wait().unwrap();
                assert!(
                    exited.is_none() && Instant::now() < deadline,
                    "s3s-fs did not start ({exited:?}): {}",
                    server.log()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            Some(server)
        }

        fn log(&self) -> String {
            fs_err::read_to_string(self.dir.path().join("log")).unwrap_or_default()
        }

        fn store(&self, prefix: &str, secret_key: &str) -> S3Blobs {
            S3Blobs::new(Config {
                bucket: BUCKET.to_owned(),
                prefix: prefix.to_owned(),
                endpoint: Some(format!("http://127.0.0.1:{}", self.port)),
                region: "us-east-1".to_owned(),
                access_key: SERVER_ACCESS_KEY.to_owned(),
                secret_key: secret_key.to_owned(),
                session_token: None,
                path_style: None,
            })
            .unwrap()
        }

        /// Puts a file straight into the bucket's folder, as an object someone else stored.
        fn plant(&self, key: &str) {
            let path = self.dir.path().join("root").join(BUCKET).join(key);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, b"not ours").unwrap();
        }
    }

    fn read_all(blob: Blob) -> Vec<u8> {
        let BlobBody::Stream(mut stream) = blob.body else {
            panic!("an S3 blob is a stream");
        };
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        bytes
    }

    fn listed(store: &S3Blobs) -> Vec<StoredBlob> {
        let mut all = Vec::new();
        store
            .list(&mut |blob| {
                all.push(blob);
                Ok(())
            })
            .unwrap();
        all.sort_by(|a, b| a.sha256.cmp(&b.sha256));
        all
    }

    /// A file in `work` holding `bytes`, and their SHA-256.
    fn archive(work: &Path, name: &str, bytes: &[u8]) -> (PathBuf, String) {
        let path = work.join(name);
        fs_err::write(&path, bytes).unwrap();
        (path, sha256_hex(bytes))
    }

    /// 1.5 MiB that do not repeat, so a shifted or truncated body cannot compare equal.
    fn large_archive() -> Vec<u8> {
        let mut large = Vec::with_capacity(1_572_864);
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        while large.len() < 1_572_864 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            large.extend_from_slice(&state.to_le_bytes());
        }
        large
    }

    #[test]
    fn stores_blobs_in_a_real_s3_server() {
        let Some(server) = Server::start() else {
            return;
        };
        let mut store = server.store("registry/blobs", SERVER_SECRET_KEY);
        store.ping().unwrap();
        let work = tempfile::tempdir().unwrap();
        let small = b"a small archive".to_vec();
        let large = large_archive();
        let (small_path, small_sha) = archive(work.path(), "small", &small);
        let (large_path, large_sha) = archive(work.path(), "large", &large);
        for _ in 0..2 {
            // The second round finds both already stored.
            store.put(&small_path, &small_sha).unwrap();
            store.put(&large_path, &large_sha).unwrap();
        }

        let blob = store.get(&large_sha).unwrap().unwrap();
        assert_eq!(blob.size, large.len() as u64);
        assert!(read_all(blob) == large, "the large blob came back changed");
        let blob = store.get(&small_sha).unwrap().unwrap();
        let copy = blob.into_file(work.path()).unwrap();
        assert_eq!(
            std::io::read_to_string(copy).unwrap().as_bytes(),
            small.as_slice()
        );
        assert!(store.get(&"0".repeat(64)).unwrap().is_none());
        assert!(store.get("not a sha").unwrap().is_none());

        // Objects that are not blobs of this store are left out of its listing.
        let (ab, cd) = (&small_sha[..2], &small_sha[2..4]);
        server.plant(&format!("registry/blobs/sha256/00/01/{}", "0".repeat(64)));
        server.plant(&format!("registry/blobs/sha256/{ab}/{cd}/notes.txt"));
        server.plant(&format!("elsewhere/sha256/{ab}/{cd}/{small_sha}"));
        server.plant("registry/blobs/README");
        let mut expected = vec![
            (small_sha.clone(), small.len() as u64),
            (large_sha.clone(), large.len() as u64),
        ];
        expected.sort();
        for page_size in [1000, 1] {
            store.page_size = page_size;
            let all = listed(&store);
            let now = crate::dates::now();
            assert!(
                all.iter().all(|blob| (blob.modified - now).abs() < 600),
                "{all:?}"
            );
            let all: Vec<_> = all
                .into_iter()
                .map(|blob| (blob.sha256, blob.size))
                .collect();
            assert_eq!(all, expected);
        }

        presigned_urls_serve_only_what_they_sign(&store, &large_sha, &large, &small_sha);
        the_server_checks_the_bytes(&store, work.path(), &small_path);

        store.delete(&small_sha).unwrap();
        store.delete(&small_sha).unwrap();
        store.delete("not a sha").unwrap();
        assert!(store.get(&small_sha).unwrap().is_none());
        let left = listed(&store);
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].sha256, large_sha);

        // A wrong secret is refused, with S3's reason, and the secret is not repeated.
        let impostor = server.store("registry/blobs", "not-the-secret");
        let refused = impostor.ping().unwrap_err().to_string();
        assert!(
            refused.contains("403 Forbidden: SignatureDoesNotMatch"),
            "{refused}"
        );
        assert!(!refused.contains("not-the-secret"), "{refused}");
        let refused = impostor
            .put(&small_path, &small_sha)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("SignatureDoesNotMatch"), "{refused}");
        let mut absent = server.store("", SERVER_SECRET_KEY);
        absent.base_path = "/absent".to_owned();
        absent.bucket = "absent".to_owned();
        // (s3s-fs answers NoSuchKey to a GET in a missing bucket, where S3 says NoSuchBucket.)
        assert!(absent.get(&large_sha).unwrap().is_none());
        for refused in [
            absent.ping().unwrap_err(),
            absent.delete(&large_sha).unwrap_err(),
        ] {
            let refused = refused.to_string();
            assert!(refused.contains("404 Not Found: NoSuchBucket"), "{refused}");
        }

        // A stopped server is reported at once, not after a timeout.
        let port = server.port;
        drop(server);
        let started = Instant::now();
        let down = store.ping().unwrap_err().to_string();
        assert!(started.elapsed() < Duration::from_secs(5), "{down}");
        assert!(
            down.contains(&format!("at http://127.0.0.1:{port}: no answer")),
            "{down}"
        );
    }

    /// A presigned URL serves the bytes to anyone; changed or expired, it serves nothing.
    fn presigned_urls_serve_only_what_they_sign(
        store: &S3Blobs,
        sha256: &str,
        bytes: &[u8],
        other_sha256: &str,
    ) {
        let plain: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        let fetch = |url: &str| {
            let mut response = plain.get(url).call().unwrap();
            let status = response.status().as_u16();
            let body = response
                .body_mut()
                .with_config()
                .limit(1 << 24)
                .read_to_vec()
                .unwrap();
            (status, body)
        };
        let url = store
            .presigned(sha256, Duration::from_secs(300))
            .unwrap()
            .unwrap();
        let (status, body) = fetch(&url);
        assert_eq!(status, 200);
        assert!(body == bytes, "the presigned URL served other bytes");
        let refused = |url: &str, code: &str| {
            let (status, body) = fetch(url);
            let body = String::from_utf8_lossy(&body);
            assert!(
                status == 403 && body.contains(&format!("<Code>{code}</Code>")),
                "{url}: {status} {body}"
            );
        };
        let last = if url.ends_with('0') { '1' } else { '0' };
        refused(
            &format!("{}{last}", &url[..url.len() - 1]),
            "SignatureDoesNotMatch",
        );
        refused(&url.replace(sha256, other_sha256), "SignatureDoesNotMatch");
        let longer = url.replace("X-Amz-Expires=300", "X-Amz-Expires=600");
        refused(&longer, "SignatureDoesNotMatch");
        let key = store.key(sha256).unwrap();
        let expired = store.presign_at(&key, Duration::from_secs(60), crate::dates::now() - 3600);
        refused(&expired, "AccessDenied");
    }

    /// The server checks the bytes against the signed payload hash: a PUT that claims other
    /// bytes is refused and stores nothing, while the same PUT with the right hash is stored.
    fn the_server_checks_the_bytes(store: &S3Blobs, work: &Path, file: &Path) {
        let wrong = sha256_hex(b"other bytes");
        let wrong_key = store.key(&wrong).unwrap();
        // Only the signed payload hash is wrong here: no checksum header.
        let refused = store
            .put_object(&wrong_key, file, &wrong, None)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains(&format!("PUT s3://skills/{wrong_key} at "))
                && refused.contains("the server answered"),
            "{refused}"
        );
        let refused = store.put(file, &wrong).unwrap_err().to_string();
        assert!(refused.contains("the server answered"), "{refused}");
        assert!(store.get(&wrong).unwrap().is_none());

        let (third_path, third_sha) = archive(work, "third", b"a third archive");
        let third_key = store.key(&third_sha).unwrap();
        // The right payload hash with another checksum: the checksum is checked too.
        let other_checksum = base64::engine::general_purpose::STANDARD.encode(hex_bytes(&wrong));
        let refused = store
            .put_object(&third_key, &third_path, &third_sha, Some(&other_checksum))
            .unwrap_err()
            .to_string();
        assert!(refused.contains("the server answered 400"), "{refused}");
        // (s3s-fs 0.14.1 compares the checksum after writing the object, so the object, whose
        // bytes match its key, may stay; S3 stores nothing.)
        store
            .put_object(&third_key, &third_path, &third_sha, None)
            .unwrap();
        assert!(listed(store).iter().any(|blob| blob.sha256 == third_sha));
        assert!(listed(store).iter().all(|blob| blob.sha256 != wrong));
        store.delete(&third_sha).unwrap();
    }
}
