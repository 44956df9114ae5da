//! `.skill` archives: which files go in ([`select`]), the deterministic writer ([`archive`]),
//! and safe extraction ([`extract`]). Format: ARCHITECTURE §5.

pub mod archive;
pub mod extract;
pub mod select;
