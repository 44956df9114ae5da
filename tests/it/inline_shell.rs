//! `lint --target claude-code` (SK508) and `preview --target claude-code --invoke` judge each
//! inline shell command with the same scanner and the same permission matcher
//! (`agent::claude_code::shell`), so they give the same verdict. One table, both commands.
//!
//! The expected verdicts are the real Claude Code 2.1.332's: every row of both tables was run
//! through the real binary (offline, default permission mode, no settings rules;
//! `docs/agents.md`, "Inline shell"), and all agree.

use crate::common::{TestContext, run};

/// `allowed-tools` (as YAML, or none), the command, whether Claude Code runs it.
const TABLE: &[(Option<&str>, &str, bool)] = &[
    // Read-only commands need no rule.
    (None, "echo hi", true),
    (None, "cat notes.txt | grep x | sort | uniq", true),
    (None, "ls; pwd && date", true),
    (None, "git status", true),
    (None, "git log -1 --oneline", true),
    (None, "git branch --show-current", true),
    (None, "git diff HEAD~1", true),
    // Anything that writes, or is not known to only read, aborts the invocation.
    (None, "git push", false),
    (None, "git commit -m x", false),
    (None, "touch marker", false),
    (None, "touch marker && echo TOUCHED", false),
    (None, "ls; rm -rf build", false),
    (None, "echo hi > out.txt", false),
    (None, "python3 scripts/run.py", false),
    (None, "env", false),
    (None, "printenv HOME", false),
    (None, "git config user.name", false),
    (None, "git config --get user.name", true),
    (None, "git branch newb", false),
    (None, "git branch -D main", false),
    (None, "git -C . status", false),
    (None, "git tag v1", false),
    (None, "git tag --list", true),
    (None, "git stash", false),
    (None, "pwd extra", false),
    (None, "find . -name x -delete", false),
    (None, "find . -name '*.md'", true),
    (None, "date +%Y", true),
    (None, "date -s 2020-01-01", false),
    (None, "sort -o out.txt in.txt", false),
    // Redirection: to /dev/null or another descriptor only.
    (None, "ls 2>&1", true),
    (None, "ls > /dev/null 2>&1", true),
    (None, "ls 2>/dev/null", true),
    (None, "echo a >> out.txt", false),
    // A nested command cannot be checked before it runs.
    (None, "echo $(date)", false),
    (Some("Bash(echo:*)"), "echo $(date)", false),
    (Some("Bash(*)"), "echo $(date)", true),
    (None, "echo $((6*7))", true),
    // A command may span lines; every line must pass.
    (None, "echo one\necho two", true),
    (None, "echo one\ntouch two", false),
    // Rules: a prefix with `:*`, an exact command, a bare `Bash`, `*`.
    (Some("Bash(touch:*)"), "touch a && echo b", true),
    (Some("Bash(touch:*)"), "touch a && mkdir b", false),
    (Some("Bash(git add:*)"), "git add .", true),
    (Some("Bash(git add:*)"), "git commit -m x", false),
    (Some("Bash(git:*)"), "git push", true),
    (Some("Bash(git:*)"), "gitx push", false),
    (Some("Bash(git *)"), "git push", true),
    (Some("Bash(git *)"), "gitx push", false),
    (Some("Bash(ls*)"), "lsof -i", true),
    (Some("Bash(npm run test:*)"), "npm run test -- x", true),
    (Some("Bash(npm run test:*)"), "npm run tests", false),
    (Some("Bash(*:*)"), "make all", false),
    (Some("Bash(npm run test)"), "npm run test", true),
    (Some("Bash(npm run test)"), "npm run test -- --watch", false),
    // A redirection into a file needs approval whatever the rule, unless Bash is allowed outright.
    (Some("Bash(echo:*)"), "echo a > f", false),
    (Some("Bash(echo a > f)"), "echo a > f", false),
    (Some("Bash(echo:*)"), "echo a > /dev/null", true),
    (Some("Bash(*)"), "echo a > f", true),
    (Some("Bash"), "rm -rf build", true),
    (Some("Bash(*)"), "make all", true),
    (Some("Read, Grep"), "make all", false),
    (Some("[Read, \"Bash(make:*)\"]"), "make all", true),
    (
        Some("Bash(python3 ${CLAUDE_SKILL_DIR}/scripts/x.py:*)"),
        "python3 ${CLAUDE_SKILL_DIR}/scripts/x.py --flag",
        true,
    ),
];

/// A second table, also run against the real Claude Code 2.1.332 (all agree). Its first
/// prediction was wrong on two rows, `Bash(:*)` and `Bash()`, and those are fixed here. It
/// covers a background `&`, options that write a file or run a program, and `Bash(*)` or a
/// plain prefix wherever it stands.
const SECOND_TABLE: &[(Option<&str>, &str, bool)] = &[
    (None, "echo ok & touch x", false),
    (None, "cat <(touch x)", false),
    (None, "echo $((touch x) )", false),
    (None, "sort -ox in.txt", false),
    (None, "sort --outp=x in.txt", false),
    (None, "rg --pre=./x pattern", false),
    (None, "git ls-remote --upload-pack=./x .", false),
    (None, "git diff --output=x", false),
    (None, "ls 2>&1 | sort", true),
    (Some("Bash(echo:*) Bash(*)"), "echo $(date) > f", true),
    (Some("Bash(*) Bash(echo:*)"), "echo $(date) > f", true),
    (Some("Bash(git:*) Bash(git*)"), "gitx push", true),
    (Some("Bash(git*) Bash(git:*)"), "gitx push", true),
    (Some("Bash(:*)"), "make all", false),
    (Some("Bash()"), "make all", true),
    (None, "tree -o out.txt", false),
    (None, "echo \"(x)\"", true),
    (None, "echo '$(date)'", true),
];

fn skill_text(name: &str, allowed: Option<&str>, command: &str, block: bool) -> String {
    let allowed = allowed.map_or_else(String::new, |tools| format!("allowed-tools: {tools}\n"));
    let shell = if block {
        format!("```!\n{command}\n```")
    } else {
        format!("Result: !`{command}`")
    };
    format!(
        "---\nname: {name}\ndescription: Runs a command. Use when testing.\n{allowed}---\n\n{shell}\n"
    )
}

#[test]
fn lint_and_preview_give_the_same_verdict_on_every_command() {
    let context = TestContext::new();
    let mut rows = Vec::new();
    for (index, &(allowed, command, runs)) in TABLE.iter().chain(SECOND_TABLE).enumerate() {
        for block in [false, true] {
            let name = format!("s{index}-{}", if block { "block" } else { "inline" });
            context.skill(
                &format!("skills/{name}"),
                &skill_text(&name, allowed, command, block),
            );
            rows.push((name, allowed, command, runs));
        }
    }
    let (_, stdout, stderr) = run(context.command(&[
        "lint",
        "skills",
        "--target",
        "claude-code",
        "--format",
        "json",
    ]));
    let lint: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stderr}"));
    let refused_by_lint: std::collections::BTreeSet<String> = lint["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|skill| {
            skill["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|diagnostic| diagnostic["code"] == "SK508")
        })
        .map(|skill| skill["name"].as_str().unwrap().to_owned())
        .collect();
    let mut wrong = Vec::new();
    for (name, allowed, command, runs) in &rows {
        let (code, stdout, stderr) = run(context.command(&[
            "preview",
            "skills",
            "--target",
            "claude-code",
            "--invoke",
            name,
            "--format",
            "json",
        ]));
        let preview: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{name}: {stderr}"));
        let verdict = preview["shell"][0]["verdict"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: {stdout}"))
            .to_owned();
        let preview_runs = verdict != "aborts";
        let lint_runs = !refused_by_lint.contains(name);
        assert_eq!(code, i32::from(!preview_runs), "{name}: {stderr}");
        if preview_runs != *runs || lint_runs != *runs {
            wrong.push(format!(
                "{name}: allowed-tools {allowed:?}, `{command}`: expected {}, preview says {verdict}, lint says {}",
                if *runs { "runs" } else { "aborts" },
                if lint_runs { "runs" } else { "aborts (SK508)" }
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `preview --exec` reads a command's output while it runs: a command that prints 1 MiB, more
/// than a pipe holds, used to wait forever for a reader.
#[test]
fn exec_of_a_command_that_prints_a_mebibyte_finishes() {
    use std::time::{Duration, Instant};
    let context = TestContext::new();
    context.skill(
        "skills/loud",
        &skill_text(
            "loud",
            Some("Bash"),
            "head -c 1048576 /dev/zero | tr '\\0' x",
            false,
        ),
    );
    let out = context.root().join("out.txt");
    let mut command = context.command(&[
        "preview",
        "skills",
        "--target",
        "claude-code",
        "--invoke",
        "loud",
        "--exec",
    ]);
    command
        .current_dir(context.root())
        .stdout(fs_err::File::create(&out).unwrap().into_parts().0)
        .stderr(std::process::Stdio::null());
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    // A bound to fail rather than hang; the command takes a few milliseconds.
    let limit = Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("preview --exec still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let text = fs_err::read_to_string(&out).unwrap();
    assert!(
        text.contains(&format!("Result: {}\n", "x".repeat(1024 * 1024))),
        "{} bytes",
        text.len()
    );
}

/// `preview --exec` gives stdout and stderr interleaved as written, and a command left running
/// in the background neither holds the invocation for the two-minute limit nor outlives it.
#[test]
fn exec_merges_stderr_and_does_not_wait_for_background_jobs() {
    use std::time::{Duration, Instant};
    let context = TestContext::new();
    let marker = context.root().join("still-running");
    context.skill(
        "skills/mixed",
        &skill_text(
            "mixed",
            Some("Bash"),
            "ls /nonexistent-folder; echo after",
            false,
        ),
    );
    context.skill(
        "skills/background",
        &skill_text(
            "background",
            Some("Bash"),
            &format!("(sleep 5; touch {}) & echo started", marker.display()),
            false,
        ),
    );
    let exec = |name: &str| {
        let started = Instant::now();
        let (code, stdout, stderr) = run(context.command(&[
            "preview",
            "skills",
            "--target",
            "claude-code",
            "--invoke",
            name,
            "--exec",
        ]));
        assert_eq!(code, 0, "{name}: {stderr}");
        (stdout, started.elapsed())
    };
    let (stdout, _) = exec("mixed");
    let error = stdout
        .find("No such file or directory")
        .unwrap_or_else(|| panic!("{stdout}"));
    let after = stdout.find("after").unwrap_or_else(|| panic!("{stdout}"));
    assert!(error < after, "{stdout}");
    let (stdout, elapsed) = exec("background");
    assert!(stdout.contains("Result: started"), "{stdout}");
    // A bound to catch a wait for the background job (5 s) or the limit (120 s).
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    std::thread::sleep(Duration::from_secs(6));
    assert!(
        !marker.exists(),
        "the background job outlived the invocation"
    );
}

/// Lint judges the body and `allowed-tools` that Claude Code reads, as preview does: its
/// frontmatter ends at the first `---`, even inside a value, so a rule after that is body text.
#[test]
fn lint_and_preview_read_the_skill_as_claude_code_does() {
    let context = TestContext::new();
    context.skill(
        "skills/cut",
        "---\nname: cut\ndescription: Cut here---and the rest. Use when testing.\nallowed-tools: Bash\n---\n\nResult: !`touch marker`\n",
    );
    let (code, stdout, stderr) = run(context.command(&[
        "lint",
        "skills",
        "--target",
        "claude-code",
        "--format",
        "json",
    ]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.contains("\"SK508\""), "{stdout}");
    let (code, stdout, _) = run(context.command(&[
        "preview",
        "skills",
        "--target",
        "claude-code",
        "--invoke",
        "cut",
        "--format",
        "json",
    ]));
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("\"verdict\": \"aborts\""), "{stdout}");
}
