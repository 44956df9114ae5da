//! Who is asking: the bearer token, hashed, looked up before any request body is read; and
//! the tokens an administrator creates.

use std::path::Path;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use sha2::{Digest, Sha256};

use crate::registry::api::Me;

use crate::pack::archive;
use crate::registry::store::MetadataStore;

use super::{Failure, Shared, blocking, fail, now, open};

/// The user behind the request's bearer token; 401 without a valid one. As an extractor it
/// runs before the body is read or parsed, so a request without a valid token learns only that.
pub(super) struct User(pub(super) String);

impl FromRequestParts<Shared> for User {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, Failure> {
        user(state, &parts.headers).await.map(User)
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

/// Creates a token for `user` and returns it (only its hash is stored).
pub fn create_token(data: &Path, user: &str) -> anyhow::Result<String> {
    let (meta, _) = open(data)?;
    let token = new_token()?;
    meta.create_token(user, &token_hash(&token), now())?;
    Ok(token)
}

/// The user behind the request's bearer token; 401 without a valid one.
pub(super) async fn user(state: &Shared, headers: &HeaderMap) -> Result<String, Failure> {
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

pub(super) async fn me(User(user): User) -> axum::Json<Me> {
    axum::Json(Me { user })
}
