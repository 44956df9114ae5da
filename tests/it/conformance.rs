//! The conformance harness's recorded fixtures, checked offline: each is a scenario (a HOME and a
//! project as a file tree, maybe an invocation) and the skill-related strings the real agent sent
//! for it (`conformance/run` recorded them). `skillpkg preview` must produce the same bytes, as
//! `conformance/scenario.py` compares them, with no agent installed. See `conformance/README.md`.

use std::path::{Path, PathBuf};

use crate::common::{TestContext, run};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conformance")
}

/// Every fixture file of `agent`, sorted.
fn recorded(agent: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs_err::read_dir(fixtures().join(agent)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
}

/// Writes the scenario's tree (files, folders and links) under the context's root.
fn materialise(context: &TestContext, tree: &serde_json::Map<String, serde_json::Value>) {
    fs_err::create_dir_all(context.root().join("home")).unwrap();
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let mut links = Vec::new();
    for (relative, content) in tree {
        assert!(
            !relative.split('/').any(|part| part == ".."),
            "a fixture path leaves its root: {relative}"
        );
        let path = context.root().join(relative);
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        match content {
            serde_json::Value::String(text) => fs_err::write(&path, text).unwrap(),
            serde_json::Value::Object(map) if map.contains_key("symlink") => {
                links.push((path, map["symlink"].as_str().unwrap().to_owned()));
            }
            serde_json::Value::Object(map) if map.contains_key("dir") => {
                fs_err::create_dir_all(&path).unwrap();
            }
            other => panic!("unknown tree entry {relative}: {other}"),
        }
    }
    for (path, target) in links {
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &path).unwrap();
        #[cfg(not(unix))]
        let _ = (path, target);
    }
}

/// The scenario's root written as `{root}`, as in the recordings.
fn normalise(context: &TestContext, text: &str) -> String {
    let root = context.root();
    let canonical = fs_err::canonicalize(root).unwrap();
    text.replace(&canonical.to_string_lossy().into_owned(), "{root}")
        .replace(&root.to_string_lossy().into_owned(), "{root}")
}

/// A listing with no entry of the user's is nothing to compare (the agent then sends only its
/// own skills, which `preview` does not render).
fn entries_only(listing: &str) -> &str {
    if listing.lines().any(|line| line.starts_with("- ")) {
        listing
    } else {
        ""
    }
}

/// What the agent's session budget counts down from, and what the harness's fake API reports
/// per reply (`conformance/scenario.py`).
const TOTAL_TOKENS: u64 = 15_000_000;
const FAKE_USAGE: u64 = 15;

fn preview(
    context: &TestContext,
    record: &serde_json::Value,
    extra: &[String],
) -> serde_json::Value {
    let home = context.root().join("home");
    let mut args: Vec<String> = vec![
        "preview".into(),
        "--format".into(),
        "json".into(),
        "--home".into(),
        home.to_string_lossy().into_owned(),
    ];
    if let Some(model) = record["model"].as_str() {
        args.extend(["--model".into(), model.into()]);
    }
    if let Some(budget) = record["env"]["SLASH_COMMAND_TOOL_CHAR_BUDGET"].as_str() {
        args.extend(["--budget".into(), budget.into()]);
    }
    args.extend(extra.iter().cloned());
    let borrowed: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut command = context.command(&borrowed);
    command.current_dir(context.root().join("project"));
    command.env_remove("SLASH_COMMAND_TOOL_CHAR_BUDGET");
    let (_, stdout, stderr) = run(command);
    serde_json::from_str(&normalise(context, &stdout))
        .unwrap_or_else(|error| panic!("preview printed no JSON ({error}): {stderr}"))
}

/// The blocks of an invocation, as the harness records them.
fn blocks(document: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for message in document["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                out.push(serde_json::json!([
                    "tool_result",
                    block["text"],
                    block["is_error"].as_bool().unwrap_or(false)
                ]));
            } else {
                out.push(serde_json::json!([block["type"], block["text"]]));
            }
        }
    }
    out
}

/// What differs between the recording and `preview`, for one fixture.
fn check(path: &Path) -> Vec<String> {
    let record: serde_json::Value =
        serde_json::from_str(&fs_err::read_to_string(path).unwrap()).unwrap();
    let context = TestContext::new();
    materialise(&context, record["tree"].as_object().unwrap());
    let mut problems = Vec::new();
    let listing = preview(&context, &record, &[]);
    let ours = listing["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let theirs = record["expect"]["listing"].as_str().unwrap_or_default();
    // An agent that refused before sending anything showed no listing to compare.
    let refused_early =
        record["expect"]["listing"].is_null() && record["expect"]["result"].is_string();
    if !refused_early && entries_only(ours) != entries_only(theirs) {
        problems.push(format!(
            "listing differs:\n--- agent\n{theirs}\n--- skillpkg\n{ours}"
        ));
    }
    let invoke = &record["invoke"];
    if invoke.is_object() {
        let who = invoke["as"].as_str().unwrap_or("model");
        let mut extra = vec![
            "--invoke".to_owned(),
            invoke["skill"].as_str().unwrap().to_owned(),
            "--as".to_owned(),
            who.to_owned(),
        ];
        if let Some(args) = invoke["args"].as_str()
            && (who != "user" || !args.is_empty())
        {
            extra.push(format!("--args={args}"));
        }
        if let Some(session) = record["session"].as_str() {
            extra.extend(["--session-id".into(), session.into()]);
        }
        let times = invoke["times"].as_u64().unwrap_or(1);
        if times > 1 {
            extra.extend(["--invocation-index".into(), times.to_string()]);
        }
        if who == "model" {
            extra.extend([
                "--tokens-left".into(),
                (TOTAL_TOKENS - FAKE_USAGE * times).to_string(),
            ]);
        }
        let document = preview(&context, &record, &extra);
        let want = record["expect"]["blocks"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if want.is_empty() && record["expect"]["result"].is_string() {
            if !document["refused"].is_string() {
                problems.push(format!(
                    "the agent refused ({}); preview did not",
                    record["expect"]["result"]
                ));
            }
        } else if blocks(&document) != want {
            problems.push(format!(
                "invocation differs:\n--- agent\n{}\n--- skillpkg\n{}",
                serde_json::to_string_pretty(&want).unwrap(),
                serde_json::to_string_pretty(&blocks(&document)).unwrap()
            ));
        }
    }
    problems
}

/// Gemini CLI's listing with the entries of each run from one skills folder sorted: its order
/// within a folder is not stable (`conformance/agents_other.py`, `canonical_gemini`).
fn canonical_gemini(listing: &str) -> String {
    const FOOT: &str = "</available_skills>";
    let Some((head, rest)) = listing.split_once("<available_skills>\n") else {
        return listing.to_owned();
    };
    let Some(middle) = rest.strip_suffix(&format!("\n{FOOT}")) else {
        return listing.to_owned();
    };
    let joined = format!("\n{middle}");
    let entries: Vec<&str> = joined.split("\n  <skill>\n").skip(1).collect();
    if entries.is_empty() {
        return listing.to_owned();
    }
    let source = |entry: &str| -> String {
        let location = entry
            .rsplit("<location>")
            .next()
            .and_then(|rest| rest.split("</location>").next())
            .unwrap_or_default();
        for marker in ["/.gemini/skills/", "/.agents/skills/"] {
            if let Some(at) = location.find(marker) {
                return location[..at + marker.len() - 1].to_owned();
            }
        }
        Path::new(location)
            .parent()
            .and_then(Path::parent)
            .map(|dir| dir.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut ordered: Vec<&str> = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for entry in entries {
        if run.last().is_some_and(|last| source(last) != source(entry)) {
            run.sort_unstable();
            ordered.append(&mut run);
        }
        run.push(entry);
    }
    run.sort_unstable();
    ordered.append(&mut run);
    let body: Vec<String> = ordered
        .iter()
        .map(|entry| format!("  <skill>\n{entry}"))
        .collect();
    format!("{head}<available_skills>\n{}\n{FOOT}", body.join("\n"))
}

/// The same for Codex and Gemini CLI fixtures: `preview --target AGENT`, the listing and the
/// activation text.
fn check_other(path: &Path, agent: &str) -> Vec<String> {
    let record: serde_json::Value =
        serde_json::from_str(&fs_err::read_to_string(path).unwrap()).unwrap();
    let context = TestContext::new();
    materialise(&context, record["tree"].as_object().unwrap());
    let canonical = |text: &str| {
        if agent == "gemini-cli" {
            canonical_gemini(text)
        } else {
            text.to_owned()
        }
    };
    let mut problems = Vec::new();
    let run_preview = |extra: &[&str]| {
        let home = context.root().join("home");
        let home = home.to_string_lossy().into_owned();
        let mut args = vec![
            "preview", "--target", agent, "--format", "json", "--home", &home,
        ];
        args.extend_from_slice(extra);
        let mut command = context.command(&args);
        command.current_dir(context.root().join("project"));
        let (code, stdout, stderr) = run(command);
        assert!(
            !stderr.contains("panicked"),
            "{}: preview panicked: {stderr}",
            path.display()
        );
        let document =
            serde_json::from_str::<serde_json::Value>(&normalise(&context, &stdout)).ok();
        // No JSON is a refusal only when preview says so: exit 1 or 2 with a message.
        assert!(
            document.is_some() || ((code == 1 || code == 2) && !stderr.trim().is_empty()),
            "{}: preview printed no JSON and no error (exit {code})",
            path.display()
        );
        document
    };
    let listing = run_preview(&[]);
    let ours = listing
        .as_ref()
        .and_then(|doc| doc["messages"][0]["content"][0]["text"].as_str())
        .map(canonical)
        .unwrap_or_default();
    let theirs = canonical(record["expect"]["listing"].as_str().unwrap_or_default());
    if ours != theirs {
        problems.push(format!(
            "listing differs:\n--- agent\n{theirs}\n--- skillpkg\n{ours}"
        ));
    }
    if let Some(name) = record["invoke"]["skill"].as_str() {
        let document = run_preview(&["--invoke", name]);
        let want = record["expect"]["blocks"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        match document {
            None => {
                if !want.is_empty() {
                    problems.push("preview refused an activation the agent made".into());
                }
            }
            Some(document) => {
                let have: Vec<serde_json::Value> = document["messages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
                    .map(|block| serde_json::json!(["text", block["text"]]))
                    .collect();
                if want.is_empty() && record["expect"]["result"].is_string() {
                    problems.push("the agent refused the activation; preview did not".into());
                } else if have != want {
                    problems.push(format!(
                        "activation differs:\n--- agent\n{}\n--- skillpkg\n{}",
                        serde_json::to_string_pretty(&want).unwrap(),
                        serde_json::to_string_pretty(&have).unwrap()
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn codex_and_gemini_cli_fixtures_match_the_recordings() {
    let mut failed = Vec::new();
    for agent in ["codex", "gemini-cli"] {
        let paths = recorded(agent);
        assert!(!paths.is_empty(), "no recorded {agent} fixtures");
        for path in &paths {
            for problem in check_other(path, agent) {
                failed.push(format!("{}: {problem}", path.display()));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
fn claude_code_fixtures_match_the_recordings() {
    let paths = recorded("claude-code");
    assert!(
        paths.len() >= 14,
        "the recorded fixtures are missing: {}",
        fixtures().display()
    );
    let mut failed = Vec::new();
    for path in &paths {
        for problem in check(path) {
            failed.push(format!("{}: {problem}", path.display()));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
fn every_class_of_difference_has_a_fixture() {
    let classes: std::collections::BTreeSet<String> = recorded("claude-code")
        .iter()
        .map(|path| {
            let record: serde_json::Value =
                serde_json::from_str(&fs_err::read_to_string(path).unwrap()).unwrap();
            record["class"].as_str().unwrap().to_owned()
        })
        .collect();
    for class in [
        "yaml-values",
        "sanitise",
        "fallback",
        "name",
        "discovery",
        "paths",
        "overrides",
        "crlf",
        "commands",
        "arguments",
        "reinvoke",
        "models",
    ] {
        assert!(classes.contains(class), "no fixture of class {class}");
    }
}
