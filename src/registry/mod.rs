//! The registry: wire types ([`api`]), storage ([`store`]), the server ([`server`], whose
//! connections [`connections`] accepts and bounds), the client ([`client`]), the client's
//! stored tokens ([`credentials`]), its download cache ([`cache`]) and the lockfile
//! ([`lockfile`]). Protocol: `docs/architecture.md` §6.

pub mod api;
pub mod cache;
pub mod client;
pub mod connections;
pub mod credentials;
pub mod lockfile;
pub mod server;
pub mod store;

/// A server that cannot start (its address taken, say), and what to do about it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ServeError {
    pub message: String,
    pub hint: &'static str,
}
