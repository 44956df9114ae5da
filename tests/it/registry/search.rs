//! Search as a user meets it: words matched independently, ranking, the version shown, page
//! hints, JSON, and global flags after any subcommand.

use std::time::{Duration, Instant};

use super::{Registry, cli};
use crate::common::{TestContext, run};

/// Publishes `name` at `version` with `description` and `metadata.keywords`.
fn publish(
    context: &TestContext,
    registry: &Registry,
    token: &str,
    name: &str,
    version: &str,
    description: &str,
    keywords: &str,
) {
    context.write(
        &format!("work/{name}/SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: {description}\nmetadata:\n  keywords: \"{keywords}\"\n---\n\nBody of {name}.\n"
        ),
    );
    let (code, _, stderr) = cli(
        context,
        registry,
        Some(token),
        &["publish", &format!("work/{name}"), "--version", version],
    );
    assert_eq!(code, 0, "{stderr}");
}

fn names(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .map(|line| line.split_whitespace().next().unwrap())
        .collect()
}

#[test]
fn words_match_anywhere_and_results_are_ranked() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    for (name, description, keywords) in [
        (
            "budget-helper",
            "Answers finance questions for the team. Use when money comes up.",
            "",
        ),
        (
            "team-finance",
            "Quarterly numbers. Use for the quarterly report.",
            "",
        ),
        (
            "ledger",
            "Keeps the books. Use when booking an invoice.",
            "finance, team",
        ),
        (
            "team-roster",
            "Who is on call. Use when paging someone.",
            "",
        ),
    ] {
        publish(
            &context,
            &registry,
            &alice,
            name,
            "1.0.0",
            description,
            keywords,
        );
    }
    // "team finance": both words, anywhere (name, description, keywords); the exact name first.
    let (code, stdout, stderr) = cli(&context, &registry, None, &["search", "team", "finance"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        names(&stdout),
        ["team-finance", "ledger", "budget-helper"],
        "{stdout}"
    );
    assert_eq!(stderr, "3 skills\n");
    let (_, quoted, _) = cli(&context, &registry, None, &["search", "Finance TEAM"]);
    assert_eq!(names(&quoted), names(&stdout));
    let (_, stdout, stderr) = cli(&context, &registry, None, &["search", "team", "marketing"]);
    assert!(stdout.is_empty());
    assert_eq!(stderr, "No skills match `team marketing`\n");

    // Downloads break ties: download team-roster once, and it comes before team-finance among
    // the skills that only match by a name part.
    let (_, before, _) = cli(&context, &registry, None, &["search", "team"]);
    assert_eq!(
        names(&before)[..2],
        ["team-finance", "team-roster"],
        "{before}"
    );
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let mut install = context.client(&["install", "team-roster", "--dir", "installed"]);
    install
        .current_dir(context.root().join("project"))
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"));
    let (code, _, stderr) = run(install);
    assert_eq!(code, 0, "{stderr}");
    // Counts are written once a second.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (_, stdout, _) = cli(
            &context,
            &registry,
            None,
            &["search", "team", "--format", "json"],
        );
        let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let first = &result["skills"][0];
        if first["name"] == "team-roster" {
            assert_eq!(first["downloads"], 1, "{result}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "downloads never ranked: {result}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn the_newest_stable_version_is_shown_and_pre_releases_on_request() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    let description = "Release fixture. Use when a release test needs it.";
    publish(
        &context,
        &registry,
        &alice,
        "mixed",
        "1.0.0",
        description,
        "",
    );
    publish(
        &context,
        &registry,
        &alice,
        "mixed",
        "2.0.0-rc.1",
        description,
        "",
    );
    publish(
        &context,
        &registry,
        &alice,
        "early",
        "0.1.0-alpha.1",
        description,
        "",
    );
    let (_, stdout, _) = cli(&context, &registry, None, &["search", "release"]);
    assert_eq!(
        stdout,
        "early (no stable version) — Release fixture. Use when a release test needs it.\nmixed 1.0.0 — Release fixture. Use when a release test needs it.\n"
    );
    let (_, stdout, _) = cli(&context, &registry, None, &["search", "release", "--pre"]);
    assert!(
        stdout.contains("early 0.1.0-alpha.1 (pre-release) —"),
        "{stdout}"
    );
    assert!(
        stdout.contains("mixed 1.0.0 (pre-release 2.0.0-rc.1) —"),
        "{stdout}"
    );
    // JSON leaves pre-releases out unless asked, too.
    let (_, json, _) = cli(
        &context,
        &registry,
        None,
        &["search", "mixed", "--format", "json"],
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["skills"][0]["latest"], "1.0.0");
    assert_eq!(json["skills"][0]["prerelease"], serde_json::Value::Null);
    // info agrees with install: latest is the newest stable version.
    let (_, info, _) = cli(&context, &registry, None, &["info", "mixed"]);
    assert!(info.contains("\nlatest: 1.0.0\n"), "{info}");
    let (_, info, _) = cli(
        &context,
        &registry,
        None,
        &["info", "mixed", "--format", "json"],
    );
    let info: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(info["latest"], "1.0.0");
    assert_eq!(info["versions"][0]["version"], "2.0.0-rc.1");
    assert_eq!(info["versions"][0]["publisher"], "alice");
}

#[test]
fn the_page_hint_counts_pages_and_stops_at_the_last() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    for index in 0..21 {
        publish(
            &context,
            &registry,
            &alice,
            &format!("paged-{index:02}"),
            "1.0.0",
            "Paged fixture. Use when a paging test needs it.",
            "",
        );
    }
    let (_, stdout, stderr) = cli(&context, &registry, None, &["search", "paged"]);
    assert_eq!(stdout.lines().count(), 20);
    assert_eq!(
        stderr,
        "1–20 of 21 skills (page 1 of 2; --page 2 for more)\n"
    );
    let (_, stdout, stderr) = cli(
        &context,
        &registry,
        None,
        &["search", "paged", "--page", "2"],
    );
    assert_eq!(stdout.lines().count(), 1);
    assert_eq!(stderr, "21–21 of 21 skills (page 2 of 2)\n");
    let (_, stdout, stderr) = cli(
        &context,
        &registry,
        None,
        &["search", "paged", "--page", "3"],
    );
    assert!(stdout.is_empty());
    assert_eq!(
        stderr,
        "Page 3 is past the end: 21 skills match, on 2 pages\n"
    );
    let (code, _, stderr) = cli(
        &context,
        &registry,
        None,
        &["search", "paged", "--page", "0"],
    );
    assert_eq!(code, 2, "{stderr}");
}

/// `--registry` and `--format` after any subcommand, including after `owner add`'s arguments.
#[test]
fn global_flags_work_after_any_subcommand() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    registry.token("bob");
    publish(
        &context,
        &registry,
        &alice,
        "shared",
        "1.0.0",
        "Shared fixture. Use when an owner test needs it.",
        "",
    );
    let command = |args: &[&str]| {
        let mut command = context.client(args);
        command
            .env_remove("SKILLPKG_REGISTRY")
            .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
            .env("SKILLPKG_TOKEN", &alice);
        run(command)
    };
    let (code, _, stderr) =
        command(&["owner", "add", "shared", "bob", "--registry", &registry.url]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = command(&[
        "owner",
        "list",
        "shared",
        "--registry",
        &registry.url,
        "--format",
        "json",
        "--color",
        "never",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let owners: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        owners,
        serde_json::json!({"name": "shared", "owners": ["alice", "bob"]})
    );
    let (code, stdout, stderr) = command(&[
        "owner",
        "--format",
        "json",
        "list",
        "shared",
        "--registry",
        &registry.url,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\"owners\""), "{stdout}");
    let (code, stdout, _) = command(&[
        "info",
        "shared",
        "--registry",
        &registry.url,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("\"latest\": \"1.0.0\""), "{stdout}");
}

/// Every key path of `value` (`skills[].name`), depth first.
fn key_paths(value: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                out.push(path.clone());
                key_paths(inner, &path, out);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

/// docs/registry.md describes every field the registry commands' JSON has.
#[test]
fn every_json_field_is_documented() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token_with("alice", &["--label", "docs", "--expires", "1w"]);
    publish(
        &context,
        &registry,
        &alice,
        "documented",
        "1.0.0",
        "Documented fixture. Use when a docs test needs it.",
        "",
    );
    let docs =
        fs_err::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/registry.md")).unwrap();
    let mut outputs = Vec::new();
    for args in [
        &["search", "documented", "--format", "json", "--pre"][..],
        &["info", "documented", "--format", "json"],
        &["owner", "list", "documented", "--format", "json"],
        &["owner", "add", "documented", "alice", "--format", "json"],
        &["yank", "documented@1.0.0", "--format", "json"],
    ] {
        let (code, stdout, stderr) = cli(&context, &registry, Some(&alice), args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        outputs.push(serde_json::from_str::<serde_json::Value>(&stdout).unwrap());
    }
    let (_, tokens, _) = registry.admin(&["token", "list", "--format", "json"]);
    outputs.push(serde_json::from_str(&tokens).unwrap());
    for output in &outputs {
        let mut paths = Vec::new();
        key_paths(output, "", &mut paths);
        assert!(!paths.is_empty());
        for path in paths {
            let last = path.rsplit(['.', ']']).next().unwrap();
            assert!(
                docs.contains(&format!("`{path}`"))
                    || docs.contains(&format!("`{}`", path.trim_start_matches("[].")))
                    || docs.contains(&format!("\"{last}\"")),
                "docs/registry.md does not describe `{path}`"
            );
        }
    }
}
