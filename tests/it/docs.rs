//! The README stays true to the code: every rule and every target is documented.

use skillpkg::agent::Target;
use skillpkg::check::rule;

fn readme() -> String {
    fs_err::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md")
}

#[test]
fn every_rule_is_in_the_readme_table_with_its_default() {
    let readme = readme();
    for rule in rule::ALL {
        let row = format!(
            "| `{}` | `{}` | {} |",
            rule.code,
            rule.name,
            rule.default.as_str()
        );
        assert!(readme.contains(&row), "README.md lacks the row `{row}`");
    }
}

#[test]
fn every_target_is_in_the_readme() {
    let readme = readme();
    for target in Target::ALL {
        assert!(
            readme.contains(&format!("`{}`", target.name())),
            "README.md does not mention {target}"
        );
    }
}
