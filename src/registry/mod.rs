//! The registry: wire types ([`api`]), storage ([`store`]), the server ([`server`], whose
//! connections [`connections`] accepts and bounds) and the client ([`client`]). Protocol: ARCHITECTURE §6.

pub mod api;
pub mod client;
pub mod connections;
pub mod server;
pub mod store;
