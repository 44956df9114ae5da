//! The central-directory audit on any bytes: never panics, never allocates past the input, and
//! what it accepts the zip reader reads with the same entries, in the same order.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::zip_audit(bytes));
