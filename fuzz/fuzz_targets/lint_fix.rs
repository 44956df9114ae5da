//! `lint --fix` on any SKILL.md: fixing twice changes nothing more than fixing once, and a
//! skill that validated still validates after its fixes, for every target.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::lint_fix(bytes));
