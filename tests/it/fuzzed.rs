//! What the fuzzers found stays fixed: every input kept in `fuzz/corpus/` (the fuzzers'
//! minimised corpora) and `fuzz/regressions/` (each crash they ever found) goes through the
//! same property the fuzz target checks (`fuzz/properties.rs`).

use std::path::Path;

#[path = "../../fuzz/properties.rs"]
pub(crate) mod properties;

/// Runs `property` on every file under `fuzz/corpus/<target>` and `fuzz/regressions/<target>`;
/// returns how many there were.
fn replay(target: &str, property: fn(&[u8])) -> usize {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut count = 0;
    for kind in ["corpus", "regressions"] {
        let Ok(entries) = fs_err::read_dir(fuzz.join(kind).join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.map(|entry| entry.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let bytes = fs_err::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| property(&bytes));
            assert!(
                outcome.is_ok(),
                "{target}: {} fails its property",
                path.display()
            );
            count += 1;
        }
    }
    count
}

#[test]
fn skill_md() {
    assert!(replay("skill_md", properties::skill_md) > 10);
}

#[test]
fn lint_fix() {
    assert!(replay("lint_fix", properties::lint_fix) > 10);
}

#[test]
fn extract() {
    assert!(replay("extract", properties::extract) > 5);
}

#[test]
fn zip_audit() {
    assert!(replay("zip_audit", properties::zip_audit) > 5);
}

#[test]
fn lockfile() {
    assert!(replay("lockfile", properties::lockfile) > 0);
}
