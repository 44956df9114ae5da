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

/// `docs/skillpkg.schema.json` is what the code generates (`SKILLPKG_BLESS=1` rewrites it), and
/// every key it names is one the parser accepts, while a key it does not name is refused.
#[test]
fn the_config_schema_is_generated_and_true_to_the_parser() {
    use skillpkg::check::config::{Config, json_schema};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/skillpkg.schema.json");
    let generated = format!(
        "{}\n",
        serde_json::to_string_pretty(&json_schema()).unwrap()
    );
    if std::env::var_os("SKILLPKG_BLESS").is_some() {
        fs_err::write(path, &generated).unwrap();
    }
    let committed = fs_err::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/skillpkg.schema.json is stale: run `SKILLPKG_BLESS=1 cargo test --test it schema`"
    );
    let schema = json_schema();
    let parse = |text: &str| Config::parse(std::path::Path::new("skillpkg.toml"), text);
    let value = |key: &str| match key {
        "targets" => "[\"codex\"]",
        "registry" => "\"https://skills.example.com\"",
        _ => unreachable!("{key}"),
    };
    for key in schema["properties"].as_object().unwrap().keys() {
        let text = if key == "lint" || key == "publish" {
            format!("[{key}]\n")
        } else {
            format!("{key} = {}\n", value(key))
        };
        assert!(parse(&text).is_ok(), "{text}");
    }
    for key in schema["properties"]["lint"]["properties"]
        .as_object()
        .unwrap()
        .keys()
    {
        let text = match key.as_str() {
            "rules" => "[lint.rules]\nSK301 = \"off\"\nbroken-reference = \"warn\"\n".to_owned(),
            "per-path-ignores" => {
                "[lint.per-path-ignores]\n\"legacy/**\" = [\"SK3\", \"ALL\"]\n".to_owned()
            }
            _ => format!("[lint]\n{key} = [\"SK303\", \"sk3\", \"body-too-long\"]\n"),
        };
        assert!(parse(&text).is_ok(), "{text}: {:?}", parse(&text).err());
    }
    for key in schema["properties"]["publish"]["properties"]
        .as_object()
        .unwrap()
        .keys()
    {
        let text = match key.as_str() {
            "to" => "[publish]\nto = [\"registry\", \"claude-marketplace\", \"well-known\", \"anthropic\"]\n".to_owned(),
            _ => format!("[publish]\n{key} = \"x\"\n"),
        };
        assert!(parse(&text).is_ok(), "{text}: {:?}", parse(&text).err());
    }
    assert!(parse("[publish]\nto = [\"github\"]\n").is_err());
    assert!(parse("[publish]\nsites = \"x\"\n").is_err());
    assert!(parse("target = [\"codex\"]\n").is_err());
    assert!(parse("[lint]\nselects = []\n").is_err());
    // Every target and every rule is in it.
    let text = serde_json::to_string(&schema).unwrap();
    for target in Target::ALL {
        assert!(text.contains(&format!("\"{}\"", target.name())), "{target}");
    }
    for rule in rule::ALL {
        assert!(
            text.contains(rule.name) && text.contains(&rule.code[2..]),
            "{}",
            rule.code
        );
    }
}

/// `docs/rules.md` is `skillpkg rule --format markdown` (`SKILLPKG_BLESS=1` rewrites it), and
/// every rule has the heading the language server's diagnostics link to.
#[test]
fn the_rules_document_is_generated_and_has_every_rule_link() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md");
    let generated = skillpkg::commands::rule::markdown();
    if std::env::var_os("SKILLPKG_BLESS").is_some() {
        fs_err::write(path, &generated).unwrap();
    }
    let written = fs_err::read_to_string(path).unwrap_or_default();
    assert!(
        written == generated,
        "docs/rules.md is stale: run `SKILLPKG_BLESS=1 cargo test --test it rules_document`"
    );
    for rule in skillpkg::check::rule::ALL {
        // GitHub's anchor for `### SK303: broken-reference` is `sk303-broken-reference`.
        let heading = format!("\n### {}: {}\n", rule.code, rule.name);
        assert!(written.contains(&heading), "no heading for {}", rule.code);
    }
}
