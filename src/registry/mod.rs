//! The registry: wire types ([`api`]), storage ([`store`]), the server ([`server`]) and the
//! client ([`client`]). Protocol: ARCHITECTURE §6.

pub mod api;
pub mod client;
pub mod lockfile;
pub mod server;
pub mod store;
