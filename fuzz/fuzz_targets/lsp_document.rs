//! Any text and any incremental edits, as an editor sends them to `skillpkg lsp`: the server's
//! copy stays consistent, and hovers, completion and symbols never panic.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::lsp_document(bytes));
