//! Integration tests: real runs of the `skillpkg` binary, plus library-level properties.
//!
//! One test binary (faster to link), one module per area.

mod anthropic;
mod browser;
mod cli;
mod common;
mod conformance;
mod destinations;
mod docs;
mod examples;
mod fixtures;
mod fuzzed;
mod hardening;
mod init;
mod inline_shell;
mod install;
mod layers;
mod lifecycle;
mod linear;
mod lint;
mod lsp;
mod package;
mod preview;
mod property;
mod registry;
mod skills_ref;
mod unseen;
mod validate;

/// Every `.rs` file next to this one is a module above, so no test is silently left out.
#[test]
fn no_forgotten_test_files() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let source = fs_err::read_to_string(here.join("main.rs")).unwrap();
    for entry in fs_err::read_dir(&here).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(module) = name.strip_suffix(".rs")
            && module != "main"
        {
            assert!(
                source.contains(&format!("mod {module};")),
                "tests/it/{name} is not a module"
            );
        }
    }
}
