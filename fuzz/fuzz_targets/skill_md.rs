//! A SKILL.md of any bytes: reading it, every validate and lint rule for every target, the
//! suppressions, every report format and Claude Code's invocation never panic.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::skill_md(bytes));
