//! The registry: wire types ([`api`]), storage ([`store`]), the server ([`server`]), the
//! client ([`client`]) and the client's stored tokens ([`credentials`]). Protocol:
//! ARCHITECTURE §6.

pub mod api;
pub mod client;
pub mod credentials;
pub mod lockfile;
pub mod server;
pub mod store;
