//! The registry: wire types ([`api`]), storage ([`store`]), the server ([`server`], whose
//! connections [`connections`] accepts and bounds), the client ([`client`]), the client's
//! stored tokens ([`credentials`]), its download cache ([`cache`]), the lockfile ([`lockfile`])
//! and what a version's web page shows about its files, worked out at publish ([`review`]).
//! Protocol: `docs/architecture.md` §6.

pub mod api;
pub mod cache;
pub mod client;
pub mod connections;
pub mod credentials;
pub mod lockfile;
pub(crate) mod review;
pub mod server;
pub mod store;

/// A server that cannot start (its address taken, say), and what to do about it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ServeError {
    pub message: String,
    pub hint: &'static str,
}
