//! Any bytes as a tar stream (`install --from` unpacks `.tar.gz` artifacts): unpacking never
//! panics, never writes outside its folder, and keeps to its limits.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::tar_extract(bytes));
