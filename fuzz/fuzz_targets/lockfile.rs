//! `skills.lock` of any text: parsing never panics; an accepted lock names only valid skills in
//! folders inside the project, and survives being written and read back.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::lockfile(bytes));
