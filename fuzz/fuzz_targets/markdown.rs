//! A SKILL.md body on a registry page: whatever the Markdown, the HTML has only Markdown's own
//! tags, no event handlers, and no link that runs anything.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::markdown(bytes));
