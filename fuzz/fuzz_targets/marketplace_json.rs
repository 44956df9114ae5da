//! A `.claude-plugin/marketplace.json` of any text: adding or updating a plugin never panics,
//! gives JSON holding the plugin at the version set, and a second run changes nothing.

#![no_main]

#[path = "../properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| properties::marketplace_json(bytes));
