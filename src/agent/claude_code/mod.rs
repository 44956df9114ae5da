//! Claude Code (2.1.332 as captured on the wire, and 2.1.88): how it reads a skill
//! ([`reading`]), how it lists skills ([`listing`]) and how it runs a skill's inline shell
//! ([`shell`]).

pub mod listing;
pub mod reading;
pub mod shell;
