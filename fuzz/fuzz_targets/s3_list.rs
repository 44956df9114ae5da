//! Any text as an S3 `ListObjectsV2` answer: reading it never panics and stays in bounds.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::s3_list(bytes));
