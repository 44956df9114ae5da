//! Who is asking, and whether they may: the token from `Authorization` (a bearer token, or HTTP
//! Basic with the token as the password, which is how a browser sends one to a `--private`
//! registry's pages), hashed, looked up before any request body is read; its scopes, expiry
//! and revocation checked; and the tokens an administrator creates, lists and revokes.
//!
//! Tokens are stored as their SHA-256 only. A request's token is found by its hash, which
//! tells a timing observer nothing about the token (they would have to find SHA-256
//! preimages), and the stored hash is then compared in constant time.

use std::marker::PhantomData;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::pack::archive;
use crate::registry::api::Me;
use crate::registry::store::{
    Location, NewToken, OnOpen, Revoked, Scope, StoredToken, TokenListing,
};

use super::{Failure, Shared, blocking, fail, now};

/// A scope a handler needs, as a type, so that the check is an extractor that runs before the
/// body is read.
pub(super) trait Needs: Send + Sync {
    const SCOPE: Scope;
}

pub(super) struct ToPublish;
pub(super) struct ToYank;
pub(super) struct ToChangeOwners;

impl Needs for ToPublish {
    const SCOPE: Scope = Scope::Publish;
}
impl Needs for ToYank {
    const SCOPE: Scope = Scope::Yank;
}
impl Needs for ToChangeOwners {
    const SCOPE: Scope = Scope::Owners;
}

/// The user behind the request's token, which has scope `S`: 401 without a valid token, 403
/// when it lacks the scope.
pub(super) struct Can<S: Needs>(pub(super) String, pub(super) PhantomData<S>);

impl<S: Needs> FromRequestParts<Shared> for Can<S> {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, Failure> {
        let token = authenticate(state, &parts.headers, Some(S::SCOPE)).await?;
        Ok(Self(token.user, PhantomData))
    }
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

/// What a new token may do and for how long.
#[derive(Clone, Debug)]
pub struct TokenOptions {
    pub label: String,
    pub scopes: Vec<Scope>,
    /// Seconds since the Unix epoch.
    pub expires_at: Option<i64>,
}

/// Creates a token for `user` and returns it (only its hash is stored).
pub fn create_token(
    location: &Location,
    user: &str,
    options: &TokenOptions,
) -> anyhow::Result<String> {
    let meta = location.open_meta(OnOpen::Migrate)?;
    let token = new_token()?;
    meta.create_token(&NewToken {
        user: user.to_owned(),
        hash: token_hash(&token),
        label: options.label.clone(),
        scopes: options.scopes.clone(),
        created_at: now(),
        expires_at: options.expires_at,
    })?;
    Ok(token)
}

/// Every token (of `user`, when given).
pub fn list_tokens(location: &Location, user: Option<&str>) -> anyhow::Result<Vec<TokenListing>> {
    let meta = location.open_meta(OnOpen::Migrate)?;
    Ok(meta.tokens(user)?)
}

/// Revokes the token whose id starts with `id`.
pub fn revoke_token(location: &Location, id: &str) -> anyhow::Result<Revoked> {
    let meta = location.open_meta(OnOpen::Migrate)?;
    Ok(meta.revoke_token(id, now())?)
}

/// Whether two byte strings are equal, in time that depends only on their lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let difference = a
        .iter()
        .zip(b)
        .fold(0u8, |acc, (x, y)| acc | std::hint::black_box(x ^ y));
    std::hint::black_box(difference) == 0
}

/// The token in `Authorization`: `Bearer TOKEN`, or `Basic` with the token as the password
/// (any user name).
fn presented(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = value.split_once(' ')?;
    if scheme.eq_ignore_ascii_case("bearer") {
        return Some(rest.trim().to_owned());
    }
    if scheme.eq_ignore_ascii_case("basic") {
        // A token is 68 characters; a header far longer than that is not one of ours.
        if rest.len() > 1024 {
            return None;
        }
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(rest.trim())
            .ok()?;
        let decoded = String::from_utf8(decoded).ok()?;
        let (_, password) = decoded.split_once(':')?;
        return Some(password.trim().to_owned());
    }
    None
}

/// The user behind the request's token, checked to be valid now and, when `scope` is given, to
/// have it.
pub(super) async fn authenticate(
    state: &Shared,
    headers: &HeaderMap,
    scope: Option<Scope>,
) -> Result<StoredToken, Failure> {
    let token = presented(headers)
        .filter(|token| !token.is_empty())
        .ok_or_else(|| {
            fail(
                StatusCode::UNAUTHORIZED,
                "this needs a token: `Authorization: Bearer <token>`",
            )
        })?;
    let hash = token_hash(&token);
    let meta = state.meta.clone();
    let lookup = hash.clone();
    let stored = blocking(move || meta.token(&lookup))
        .await?
        .filter(|stored| constant_time_eq(stored.hash.as_bytes(), hash.as_bytes()))
        .ok_or_else(|| fail(StatusCode::UNAUTHORIZED, "the token is not valid"))?;
    if let Some(revoked) = stored.revoked_at {
        return Err(fail(
            StatusCode::UNAUTHORIZED,
            format!(
                "the token was revoked on {}",
                crate::dates::date_time(revoked)
            ),
        ));
    }
    if let Some(expires) = stored.expires_at.filter(|&expires| expires <= now()) {
        return Err(fail(
            StatusCode::UNAUTHORIZED,
            format!("the token expired on {}", crate::dates::date_time(expires)),
        ));
    }
    if let Some(scope) = scope.filter(|scope| !stored.scopes.contains(scope)) {
        let has = if stored.scopes.is_empty() {
            "none".to_owned()
        } else {
            Scope::join(&stored.scopes)
        };
        return Err(fail(
            StatusCode::FORBIDDEN,
            format!(
                "this token may not {}: its scopes are {has}; an administrator can create one with `--scope {}`",
                scope_action(scope),
                scope.as_str()
            ),
        ));
    }
    Ok(stored)
}

fn scope_action(scope: Scope) -> &'static str {
    match scope {
        Scope::Publish => "publish",
        Scope::Yank => "yank or unyank versions",
        Scope::Owners => "change owners",
        Scope::Read => "read this private registry",
    }
}

/// `GET /api/v1/me`: who a token belongs to and what it may do. Any valid token may ask, so
/// that `login` can check a token of any scope.
pub(super) async fn me(
    State(state): State<Shared>,
    headers: HeaderMap,
) -> Result<Response, Failure> {
    let token = authenticate(&state, &headers, None).await?;
    Ok(axum::Json(Me {
        user: token.user,
        scopes: token
            .scopes
            .iter()
            .map(|scope| scope.as_str().to_owned())
            .collect(),
        expires_at: token.expires_at,
    })
    .into_response())
}

/// For a `--private` registry: every read (GET and HEAD, API and pages alike) needs a token
/// with the `read` scope. `GET /api/v1/me` checks its token itself. A page answers 401 with
/// `WWW-Authenticate: Basic`, so a browser asks for the token (as the password).
pub(super) async fn private_reads(
    State(state): State<Shared>,
    request: Request,
    next: Next,
) -> Response {
    if !state.private {
        return next.run(request).await;
    }
    let read = matches!(*request.method(), Method::GET | Method::HEAD);
    // A load balancer's health checks carry no token and tell nothing about skills.
    let open = matches!(request.uri().path(), "/api/v1/me" | "/healthz" | "/readyz");
    let mut response = if !read || open {
        next.run(request).await
    } else {
        match authenticate(&state, request.headers(), Some(Scope::Read)).await {
            Ok(_) => next.run(request).await,
            Err(failure) => refused(request.uri().path(), failure),
        }
    };
    keep_private(response.headers_mut());
    response
}

/// A private registry's answers are for the one who asked: no shared cache (a proxy, a CDN)
/// may keep one for anyone else. An archive, immutable, may still be kept by the client.
fn keep_private(headers: &mut HeaderMap) {
    let immutable = headers
        .get(header::CACHE_CONTROL)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.contains("immutable"));
    let policy = if immutable {
        "private, max-age=31536000, immutable"
    } else {
        "private, no-store"
    };
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    headers.insert(header::VARY, HeaderValue::from_static("authorization"));
}

/// The answer to a read a private registry refuses: JSON for the API, a page (with a Basic
/// challenge, so a browser asks for the token) for everything else.
fn refused(path: &str, failure: Failure) -> Response {
    let api = path.starts_with("/api/");
    let status = failure.0;
    let mut response = if api {
        failure.into_response()
    } else {
        super::pages::html_error(
            status,
            "This registry is private",
            &format!(
                "{} Sign in with any user name and a token with the `read` scope as the password.",
                failure.1
            ),
        )
    };
    if status == StatusCode::UNAUTHORIZED {
        let challenge = if api {
            "Bearer realm=\"skillpkg registry\""
        } else {
            "Basic realm=\"skillpkg registry\", charset=\"UTF-8\""
        };
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue, header};

    use super::{constant_time_eq, presented};

    #[test]
    fn equal_only_when_every_byte_is() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(constant_time_eq(b"", b""));
    }

    #[test]
    fn bearer_and_basic_carry_the_token() {
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            presented(&headers)
        };
        assert_eq!(with("Bearer skp_1").as_deref(), Some("skp_1"));
        assert_eq!(with("bearer  skp_1 ").as_deref(), Some("skp_1"));
        // "anyone:skp_2"
        assert_eq!(with("Basic YW55b25lOnNrcF8y").as_deref(), Some("skp_2"));
        assert_eq!(with("Basic !!!"), None);
        assert_eq!(with("Digest x"), None);
        assert_eq!(presented(&HeaderMap::new()), None);
    }
}
