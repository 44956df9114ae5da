//! Any bytes as a `.skill` archive: extraction never panics, never writes outside its folder,
//! and what it reports is what it wrote.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::extract(bytes));
