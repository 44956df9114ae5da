//! Claude Code sorts skill names with JavaScript's `String.prototype.localeCompare`, which is
//! ICU root collation (captures §3: `10x, 9x, a_b, a-b, a-c, A-c, ä-z, a.b, ab, b, B, é-x, e-y,
//! zeta, Zeta`). ICU4X's collator with its compiled root data gives exactly that order.

use std::cmp::Ordering;
use std::sync::OnceLock;

use icu_collator::options::CollatorOptions;
use icu_collator::{Collator, CollatorBorrowed, CollatorPreferences};

fn collator() -> &'static CollatorBorrowed<'static> {
    static COLLATOR: OnceLock<CollatorBorrowed<'static>> = OnceLock::new();
    COLLATOR.get_or_init(|| {
        Collator::try_new(CollatorPreferences::default(), CollatorOptions::default())
            .expect("the root collation is compiled in")
    })
}

/// `a.localeCompare(b)` in the root locale.
pub fn compare(a: &str, b: &str) -> Ordering {
    collator().compare(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_captured() {
        let expected = [
            "10x", "9x", "a_b", "a-b", "a-c", "A-c", "ä-z", "a.b", "ab", "b", "B", "é-x", "e-y",
            "zeta", "Zeta",
        ];
        let mut names = expected;
        names.reverse();
        names.sort_by(|a, b| compare(a, b));
        assert_eq!(names, expected);
    }
}
