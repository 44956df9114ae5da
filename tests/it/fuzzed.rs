//! What the fuzzers found stays fixed: every crash they ever found, kept in
//! `fuzz/regressions/<target>/`, goes through the property its fuzz target checks
//! (`fuzz/properties.rs`), here in the ordinary test suite. (The corpora in `fuzz/corpus/` are
//! replayed by the fuzz runs themselves, which start by executing every input in them.)

use std::path::Path;

#[path = "../../fuzz/properties.rs"]
pub(crate) mod properties;

/// Runs `property` on every file under `fuzz/regressions/<target>`; returns how many there
/// were.
fn replay(target: &str, property: fn(&[u8])) -> usize {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let Ok(entries) = fs_err::read_dir(&folder) else {
        return 0;
    };
    let mut paths: Vec<_> = entries.map(|entry| entry.unwrap().path()).collect();
    paths.sort();
    for path in &paths {
        let bytes = fs_err::read(path).unwrap();
        let outcome = std::panic::catch_unwind(|| property(&bytes));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails its property",
            path.display()
        );
    }
    paths.len()
}

#[test]
fn every_crash_found_stays_fixed() {
    let replayed = [
        replay("skill_md", properties::skill_md),
        replay("lint_fix", properties::lint_fix),
        replay("extract", properties::extract),
        replay("zip_audit", properties::zip_audit),
        replay("lockfile", properties::lockfile),
        replay("markdown", properties::markdown),
        replay("marketplace_json", properties::marketplace_json),
        replay("tar_extract", properties::tar_extract),
        replay("s3_list", properties::s3_list),
        replay("lsp_document", properties::lsp_document),
    ];
    assert!(
        replayed.iter().sum::<usize>() >= 2,
        "the crashes found so far are kept: {replayed:?}"
    );
}

/// The markdown property holds on its seed corpus, the hostile pages a reviewer worries about
/// (so the property itself is exercised by every `cargo test`, not only by the fuzzer).
#[test]
fn the_page_markdown_property_holds_on_its_seeds() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/markdown");
    let mut seen = 0;
    for entry in fs_err::read_dir(&folder).unwrap() {
        properties::markdown(&fs_err::read(entry.unwrap().path()).unwrap());
        seen += 1;
    }
    assert!(seen >= 2);
}

/// The language server's fuzz target's seed inputs hold its property too (CRLF, lone CR, an
/// emoji, edits inside a `\r\n`, a whole-text replacement).
#[test]
fn the_lsp_document_seeds_hold() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/lsp_document");
    let mut seen = 0;
    for entry in fs_err::read_dir(&folder).unwrap() {
        properties::lsp_document(&fs_err::read(entry.unwrap().path()).unwrap());
        seen += 1;
    }
    assert!(seen >= 2);
}
