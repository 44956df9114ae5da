//! `skillpkg lint` and `skillpkg rule`: real runs of the binary over fixtures that fire each
//! lint rule and near misses that must not.

use std::collections::BTreeSet;

use skillpkg::check::rule::{self, Applies, Kind};

use crate::common::{TestContext, run};
use crate::snapshot;

impl TestContext {
    /// `skillpkg lint ARGS`.
    fn lint(&self, args: &[&str]) -> std::process::Command {
        let mut all = vec!["lint"];
        all.extend_from_slice(args);
        self.command(&all)
    }

    /// Writes a skill `dir` (its folder name is its name) with a description unique to it.
    fn lint_skill(&self, dir: &str, frontmatter: &str, body: &str) {
        let name = dir.rsplit('/').next().unwrap();
        let description = format!(
            "Handles the {name} fixture of the lint test suite. Use when a test lints {name}."
        );
        self.lint_skill_described(dir, &description, frontmatter, body);
    }

    fn lint_skill_described(&self, dir: &str, description: &str, frontmatter: &str, body: &str) {
        let name = dir.rsplit('/').next().unwrap();
        self.skill(
            dir,
            &format!("---\nname: {name}\ndescription: {description}\n{frontmatter}---\n\n# Fixture\n\n{body}"),
        );
    }

    #[cfg(unix)]
    fn chmod(&self, path: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::set_permissions(
            self.root().join(path),
            std::fs::Permissions::from_mode(mode),
        )
        .unwrap();
    }
}

/// A key that looks real to the secret scanner (varied characters, no `EXAMPLE`), built at run
/// time so no such string sits in the repository.
fn fake_key() -> String {
    let alphabet = b"aZ3kQ9xP2mN7vB4cR8tL1wY6hJ5dF0gS";
    let tail: String = (0..60usize)
        .map(|i| char::from(alphabet[(i * 7 + 3) % alphabet.len()]))
        .collect();
    format!("sk-ant-api03-{tail}")
}

#[allow(clippy::too_many_lines)] // one fixture pair per rule, read top to bottom
/// Skills that each fire one rule (under the default target), in `fires/`, and near misses
/// that fire nothing, in `passes/`.
fn write_general_fixtures(context: &TestContext) {
    let c = context;
    c.lint_skill("fires/sk015-ambiguous", "license: no\n", "Steps.\n");
    c.lint_skill("passes/sk015-ambiguous", "license: \"no\"\n", "Steps.\n");
    c.lint_skill(
        "fires/sk016-unused",
        "",
        "<!-- skillpkg-disable-next-line SK301 -->\nA short body.\n",
    );
    c.lint_skill(
        "passes/sk016-unused",
        "",
        "<!-- skillpkg-disable-next-line SK209 -->\nTODO: a marker this skill keeps on purpose.\n",
    );
    c.lint_skill_described(
        "fires/sk206-trigger",
        "Formats release notes from the commits of a repository into Markdown sections.",
        "",
        "Steps.\n",
    );
    c.lint_skill_described(
        "passes/sk206-trigger",
        "Formats release notes from the commits of a repository. Use when asked for a changelog.",
        "",
        "Steps.\n",
    );
    c.lint_skill_described(
        "fires/sk207-person",
        "Formats release notes for you and your team from git history. Use when a changelog is requested.",
        "",
        "Steps.\n",
    );
    c.lint_skill_described(
        "passes/sk207-person",
        "Formats release notes for the user from git history. Use when a changelog is requested.",
        "",
        "Steps.\n",
    );
    // "when you" speaks to the agent; `I/O` and a quoted utterance are not a voice.
    c.lint_skill_described(
        "passes/sk207-agent",
        "Speeds up I/O-bound code. Use when you profile it, or the user says 'why am I slow'.",
        "",
        "Steps.\n",
    );
    c.lint_skill_described(
        "fires/sk208-vague",
        "Helps with notes. Use when asked.",
        "",
        "Steps.\n",
    );
    c.lint_skill_described(
        "passes/sk208-vague",
        "Turns meeting notes into a list of decisions and owners. Use when the user shares notes.",
        "",
        "Steps.\n",
    );
    c.lint_skill("fires/sk209-placeholder", "", "TODO: write the steps.\n");
    c.lint_skill(
        "passes/sk209-placeholder",
        "",
        "Keep a to-do list of the steps. Remove any TODO: markers from the user's draft.\n\n```python\n# TODO: handle errors\n```\n",
    );
    // Retired rules (SK211, SK507) stay silent on what they used to report.
    c.skill("passes/sk211-multiline-retired", "---\nname: sk211-multiline-retired\ndescription: |\n  Handles the multi-line fixture of the lint test suite.\n  Use when a test lints line breaks.\n---\n\nSteps.\n");
    c.skill("passes/sk211-multiline", "---\nname: sk211-multiline\ndescription: >\n  Handles the folded fixture of the lint test suite.\n  Use when a test lints folded text.\n---\n\nSteps.\n");
    c.lint_skill("fires/sk301-long", "", &"A line of the body.\n".repeat(501));
    // The fixture adds 3 lines (a blank line, the title, a blank line): 497 + 3 = 500.
    c.lint_skill(
        "passes/sk301-long",
        "",
        &"A line of the body.\n".repeat(497),
    );
    c.lint_skill(
        "fires/sk302-tokens",
        "",
        &format!("{}\n", "word ".repeat(42)).repeat(100),
    );
    c.lint_skill(
        "passes/sk302-tokens",
        "",
        &format!("{}\n", "word ".repeat(38)).repeat(100),
    );
    c.lint_skill(
        "fires/sk303-broken",
        "",
        "Read [the guide](references/guide.md).\n",
    );
    c.lint_skill(
        "passes/sk303-broken",
        "",
        "Read [the guide](references/guide.md).\n",
    );
    c.write("passes/sk303-broken/references/guide.md", "# Guide\n");
    c.lint_skill("fires/sk304-unreferenced", "", "Steps.\n");
    c.write("fires/sk304-unreferenced/references/notes.md", "# Notes\n");
    c.lint_skill(
        "passes/sk304-unreferenced",
        "",
        "Read references/notes.md for background.\n",
    );
    c.write("passes/sk304-unreferenced/references/notes.md", "# Notes\n");
    c.lint_skill("fires/sk305-nested", "", "Read [a](references/a.md).\n");
    c.write(
        "fires/sk305-nested/references/a.md",
        "# A\n\nThen read [b](b.md).\n",
    );
    c.write("fires/sk305-nested/references/b.md", "# B\n");
    c.lint_skill(
        "passes/sk305-nested",
        "",
        "Read [a](references/a.md), then [b](references/b.md).\n",
    );
    c.write(
        "passes/sk305-nested/references/a.md",
        "# A\n\nSee also [b](b.md).\n",
    );
    c.write("passes/sk305-nested/references/b.md", "# B\n");
    c.lint_skill(
        "fires/sk306-absolute",
        "",
        "Run /home/ana/skills/sk306-absolute/scripts/run.sh.\n",
    );
    // An absolute path to something other than the skill's own files is not its business.
    c.lint_skill(
        "passes/sk306-absolute",
        "",
        "Notes are in ~/notes.txt, in ./home/notes.txt, or on the server in /home/ana/notes.txt.\n",
    );
    c.lint_skill("fires/sk307-backslash", "", "Run references\\guide.md.\n");
    c.lint_skill(
        "passes/sk307-backslash",
        "",
        "Escape a backslash as \\\\.\n",
    );
    c.lint_skill(
        "fires/sk308-basedir",
        "allowed-tools: Bash({baseDir}/scripts/run.sh:*)\n",
        "Steps.\n",
    );
    // In prose the model reads it beside the skill's folder, which the agent states.
    c.lint_skill(
        "passes/sk308-basedir",
        "",
        "Files live in {baseDir}, or ${CLAUDE_SKILL_DIR}.\n",
    );
    let long = (1..=2_100).fold(String::new(), |mut text, i| {
        text.push_str("Line ");
        text.push_str(&i.to_string());
        text.push_str(" of the reference.\n");
        text
    });
    c.lint_skill(
        "fires/sk309-toc",
        "",
        "Read [the API](references/api.md).\n",
    );
    c.write(
        "fires/sk309-toc/references/api.md",
        format!("# API\n\n{long}"),
    );
    c.lint_skill(
        "passes/sk309-toc",
        "",
        "Read [the API](references/api.md).\n",
    );
    c.write(
        "passes/sk309-toc/references/api.md",
        format!("# API\n\n## Contents\n\n- Lines\n\n## Lines\n\n{long}"),
    );
    // One read returns 300 lines whole: no contents needed.
    c.lint_skill(
        "passes/sk309-short",
        "",
        "Read [the API](references/api.md).\n",
    );
    c.write(
        "passes/sk309-short/references/api.md",
        format!("# API\n\n{}", "A line.\n".repeat(300)),
    );
    c.lint_skill(
        "fires/sk310-readme",
        "",
        "Read [the API](references/api.md).\n",
    );
    c.write("fires/sk310-readme/references/api.md", "# API\n");
    c.write(
        "fires/sk310-readme/references/README.md",
        "# For people\n\nQuick start.\n",
    );
    c.lint_skill(
        "passes/sk310-readme",
        "",
        "Copy assets/README.md into the user's project.\n",
    );
    c.write("passes/sk310-readme/assets/README.md", "# Project\n");
    // The skill's own page for people browsing the repository.
    c.write("passes/sk310-readme/README.md", "# For people\n");
    let runs = "```bash\nscripts/run.sh\n```\n";
    c.lint_skill("fires/sk311-mode", "", runs);
    c.write("fires/sk311-mode/scripts/run.sh", "#!/bin/sh\necho hi\n");
    // Run through an interpreter, a script needs neither the mode nor a shebang.
    c.lint_skill(
        "passes/sk311-mode",
        "",
        &format!("{runs}\n```bash\nsh scripts/other.sh\n```\n"),
    );
    c.write("passes/sk311-mode/scripts/run.sh", "#!/bin/sh\necho hi\n");
    c.write("passes/sk311-mode/scripts/other.sh", "echo hi\n");
    c.lint_skill("fires/sk312-shebang", "", runs);
    c.write("fires/sk312-shebang/scripts/run.sh", "echo hi\n");
    c.lint_skill(
        "passes/sk312-shebang",
        "",
        "Run scripts/run.py; it imports scripts/helpers.py.\n",
    );
    c.write("passes/sk312-shebang/scripts/run.py", "#!/usr/bin/env python3\nimport helpers\nif __name__ == \"__main__\":\n    helpers.main()\n");
    c.write(
        "passes/sk312-shebang/scripts/helpers.py",
        "def main():\n    print(1)\n",
    );
    // `${CLAUDE_SKILL_DIR}` in a skill for Codex (its skillpkg.toml says so), and in one for the
    // spec, which names no agent.
    c.lint_skill(
        "fires/sk313-codex",
        "",
        "Run `python3 ${CLAUDE_SKILL_DIR}/scripts/run.py`.\n",
    );
    c.write("fires/sk313-codex/scripts/run.py", "print('hi')\n");
    c.write("fires/sk313-codex/skillpkg.toml", "targets = [\"codex\"]\n");
    c.lint_skill(
        "passes/sk313-spec",
        "",
        "Run `python3 ${CLAUDE_SKILL_DIR}/scripts/run.py`.\n",
    );
    c.write("passes/sk313-spec/scripts/run.py", "print('hi')\n");
    // Executable, so meant to be run directly, though it reads like a module (no `__main__`).
    c.lint_skill(
        "fires/sk312-executable",
        "",
        "```bash\nscripts/tool.py --help\n```\n",
    );
    c.write(
        "fires/sk312-executable/scripts/tool.py",
        "import sys\nprint(sys.argv)\n",
    );
    #[cfg(unix)]
    {
        c.chmod("fires/sk312-executable/scripts/tool.py", 0o755);
        c.chmod("fires/sk311-mode/scripts/run.sh", 0o644);
        c.chmod("passes/sk311-mode/scripts/run.sh", 0o755);
        c.chmod("fires/sk312-shebang/scripts/run.sh", 0o755);
        c.chmod("passes/sk312-shebang/scripts/run.py", 0o755);
    }
    c.lint_skill(
        "fires/sk505-broad",
        "allowed-tools: Bash Read\n",
        "```bash\ngh pr list | head -n 5\n```\n",
    );
    c.lint_skill(
        "passes/sk505-broad",
        "allowed-tools: Bash(gh:*) Read\n",
        "```bash\ngh pr list | head -n 5\n```\n",
    );
    // A skill whose job is running many different commands needs `Bash`.
    c.lint_skill(
        "passes/sk505-many",
        "allowed-tools: Bash\n",
        "```bash\ngh pr list\ncargo build\nnpm test\nmake lint\n```\n",
    );
    c.lint_skill(
        "passes/sk507-format-retired",
        "allowed-tools: Read, Write\n",
        "Steps.\n",
    );
    let same = "Summarises a pull request into a short review with risks and open questions. Use when the user asks for a review.";
    c.lint_skill_described("fires/sk602-first", same, "", "Steps.\n");
    c.lint_skill_described("fires/sk602-second", same, "", "Steps.\n");
    c.lint_skill("fires/sk701-env", "", "Steps.\n");
    c.write("fires/sk701-env/.env", "TOKEN=1\n");
    c.lint_skill("passes/sk701-env", "", "Copy .env.example to start.\n");
    c.write("passes/sk701-env/.env.example", "TOKEN=\n");
    c.lint_skill(
        "fires/sk702-key",
        "",
        &format!("Call the API with `{}`.\n", fake_key()),
    );
    c.lint_skill(
        "passes/sk702-key",
        "",
        &format!("Call the API with `sk-ant-api03-{}`.\n", "x".repeat(60)),
    );
}

/// The Claude Code rules, in `cc-fires/` and `cc-passes/`, linted with `--target claude-code`.
fn write_claude_code_fixtures(context: &TestContext) {
    let c = context;
    let long = format!(
        "Handles the long fixture of the lint test suite. Use when a test lints long text. {}",
        "More detail. ".repeat(120)
    );
    c.lint_skill_described("cc-fires/sk210-cut", &long, "", "Steps.\n");
    c.lint_skill_described("cc-passes/sk210-cut", &long[..1500], "", "Steps.\n");
    c.lint_skill("cc-fires/sk506-tool", "allowed-tools: Reed\n", "Steps.\n");
    c.lint_skill("cc-fires/.claude/skills/sk604-shadowed", "", "Steps.\n");
    c.write(
        "cc-fires/.claude/commands/sk604-shadowed.md",
        "A legacy command.\n",
    );
    c.lint_skill("cc-passes/.claude/skills/sk604-shadowed", "", "Steps.\n");
    c.write(
        "cc-passes/.claude/commands/other-command.md",
        "A legacy command.\n",
    );
    c.lint_skill(
        "cc-passes/sk506-tool",
        "allowed-tools: Read mcp__github__search\n",
        "Steps.\n",
    );
    c.lint_skill("cc-fires/sk508-shell", "", "Marker: !`touch marker`\n");
    c.lint_skill(
        "cc-passes/sk508-shell",
        "allowed-tools: Bash(touch:*)\n",
        "Status: !`git status`\nMarker: !`touch marker`\nLiteral: x!`rm -rf tmp`\n",
    );
    c.lint_skill("cc-fires/sk509-hint", "", "Summarise $ARGUMENTS.\n");
    c.lint_skill(
        "cc-passes/sk509-hint",
        "argument-hint: \"[file]\"\n",
        "Summarise $ARGUMENTS.\n",
    );
    c.lint_skill(
        "cc-fires/sk510-unused",
        "argument-hint: \"[file] [mode]\"\narguments: [file, mode]\n",
        "Open $file.\n",
    );
    c.lint_skill(
        "cc-passes/sk510-unused",
        "argument-hint: \"[file] [mode]\"\narguments: [file, mode]\n",
        "Open $file in $mode.\n",
    );
    c.lint_skill(
        "cc-fires/sk511-undeclared",
        "argument-hint: \"[file]\"\narguments: [file]\n",
        "Open $file and $fiel.\n",
    );
    c.lint_skill(
        "cc-passes/sk511-undeclared",
        "argument-hint: \"[file]\"\narguments: [file]\n",
        "Open $file; `$HOME` is the user's folder.\n",
    );
    c.lint_skill(
        "cc-fires/sk512-invocable",
        "disable-model-invocation: true\nuser-invocable: false\n",
        "Steps.\n",
    );
    c.lint_skill(
        "cc-passes/sk512-invocable",
        "disable-model-invocation: true\n",
        "Steps.\n",
    );
    c.lint_skill(
        "cc-fires/sk513-glob",
        "paths: \"src/**/*.{py\"\n",
        "Steps.\n",
    );
    c.lint_skill(
        "cc-passes/sk513-glob",
        "paths: \"src/**/*.py\"\n",
        "Steps.\n",
    );
}

fn codes(stdout: &str) -> BTreeSet<String> {
    let json: serde_json::Value = serde_json::from_str(stdout).expect("JSON");
    json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|skill| skill["diagnostics"].as_array().unwrap().clone())
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_lint_rule_fires_on_its_fixture_and_not_on_its_near_miss() {
    let context = TestContext::new();
    write_general_fixtures(&context);
    write_claude_code_fixtures(&context);
    let cc = ["--target", "claude-code", "--context-window", "1000000"];

    snapshot!(
        context,
        "lint__fires",
        context.lint(&["fires", "--format", "concise"])
    );
    snapshot!(
        context,
        "lint__fires_claude_code",
        context.lint(&[
            "cc-fires", "--format", "concise", cc[0], cc[1], cc[2], cc[3]
        ])
    );
    snapshot!(context, "lint__passes", context.lint(&["passes"]));
    snapshot!(
        context,
        "lint__passes_claude_code",
        context.lint(&["cc-passes", cc[0], cc[1], cc[2], cc[3]])
    );

    let (_, general, _) = run(context.lint(&["fires", "--format", "json"]));
    let (_, claude, _) =
        run(context.lint(&["cc-fires", "--format", "json", cc[0], cc[1], cc[2], cc[3]]));
    let mut fired = codes(&general);
    fired.extend(codes(&claude));
    fired.insert("SK603".into()); // over budget: its own test below
    let missing: Vec<&str> = rule::ALL
        .iter()
        .filter(|rule| {
            rule.kind == Kind::Lint
                && !fired.contains(rule.code)
                && !rule::RETIRED.contains(&rule.code)
        })
        .map(|rule| rule.code)
        .collect();
    assert!(
        missing.is_empty(),
        "lint rules without a firing fixture: {missing:?}"
    );
    // Claude Code rules fire only under a Claude Code target.
    let (_, under_spec, _) =
        run(context.lint(&["cc-fires", "--format", "json", "--target", "agentskills"]));
    for rule in rule::ALL
        .iter()
        .filter(|rule| rule.applies == Applies::ClaudeCode)
    {
        assert!(
            !codes(&under_spec).contains(rule.code),
            "{} fired under agentskills",
            rule.code
        );
    }
}

#[test]
fn listing_over_budget_names_the_skills_that_lose_their_description() {
    let context = TestContext::new();
    for i in 1..=12 {
        let name = format!("sk-{i:03}");
        let text = format!(
            "Handles fixture number {i} of the budget test, with words that differ, {}. Use when a test needs fixture {i}.",
            "alpha beta gamma delta ".repeat(i % 5 + 6)
        );
        // Skills Claude Code lists together: one `.claude/skills` folder.
        context.lint_skill_described(
            &format!("skills/.claude/skills/{name}"),
            &text,
            "",
            "Steps.\n",
        );
    }
    snapshot!(
        context,
        "lint__over_budget",
        context.lint(&[
            "skills",
            "--target",
            "claude-code",
            "--select",
            "SK603",
            "--format",
            "concise",
            "--context-window",
            "200000"
        ])
    );
    snapshot!(
        context,
        "lint__over_budget_2188",
        context.lint(&[
            "skills",
            "--target",
            "claude-code@2.1.88",
            "--select",
            "SK603",
            "--format",
            "concise",
            "--context-window",
            "50000"
        ])
    );
    // A 1,000,000-token window has room for all of them.
    let (code, stdout, _) = run(context.lint(&[
        "skills",
        "--target",
        "claude-code",
        "--select",
        "SK603",
        "--format",
        "concise",
        "--context-window",
        "1000000",
    ]));
    assert_eq!((code, stdout.as_str()), (0, ""));
}

#[test]
fn rule_lists_every_rule_and_explains_one() {
    let context = TestContext::new();
    snapshot!(context, "rule__list", context.command(&["rule"]));
    snapshot!(
        context,
        "rule__explain",
        context.command(&["rule", "broken-reference"])
    );
    snapshot!(
        context,
        "rule__unknown",
        context.command(&["rule", "brokn-reference"])
    );
    let (code, stdout, _) = run(context.command(&["rule", "--json"]));
    assert_eq!(code, 0);
    let all: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(all.as_array().unwrap().len(), rule::ALL.len());
    let (_, by_code, _) = run(context.command(&["rule", "sk303"]));
    let (_, by_name, _) = run(context.command(&["rule", "broken-reference"]));
    assert_eq!(by_code, by_name);
}

/// A skill with one problem of each safely fixable kind, and one unsafely fixable.
const FIXABLE: &str = "---\nname: fixable\ndescription: Use when: the user asks to fix things in files\nlicense: no\nallowed-tools:\n  - Read\n  - Bash(python3 {baseDir}/scripts/run.py:*)\nwhen_to_use: When a test runs the fixer.\n---\n\n# Fixable\n\n<!-- skillpkg-disable-next-line SK306 -->\nRun {baseDir}/scripts\\run.py from the skill.\n";

#[test]
fn fix_applies_safe_fixes_and_a_second_run_changes_nothing() {
    let context = TestContext::new();
    let path = context.skill("fixable", FIXABLE);
    snapshot!(context, "lint__fix", context.lint(&["fixable", "--fix"]));
    let fixed = fs_err::read_to_string(&path).unwrap();
    context
        .settings()
        .bind(|| insta::assert_snapshot!("lint__fix_result", fixed));
    // Only the unsafe fix and what has no fix are left; running again changes nothing.
    let (code, _, stderr) = run(context.lint(&["fixable", "--fix"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Fixed 0 problems in 0 files."), "{stderr}");
    assert_eq!(fs_err::read_to_string(&path).unwrap(), fixed);
    // With --unsafe-fixes, `when_to_use` is merged into the description.
    let (code, _, stderr) = run(context.lint(&["fixable", "--fix", "--unsafe-fixes"]));
    assert_eq!(code, 0, "{stderr}");
    let merged = fs_err::read_to_string(&path).unwrap();
    assert!(!merged.contains("when_to_use"), "{merged}");
    assert!(merged.contains("description: \"Use when: the user asks to fix things in files When a test runs the fixer.\""), "{merged}");
}

#[test]
fn diff_previews_fixes_without_writing() {
    let context = TestContext::new();
    let path = context.skill("fixable", FIXABLE);
    snapshot!(context, "lint__diff", context.lint(&["fixable", "--diff"]));
    assert_eq!(fs_err::read_to_string(&path).unwrap(), FIXABLE);
    let (code, stdout, _) = run(context.lint(&["fixable", "--diff", "--select", "SK206"]));
    assert_eq!((code, stdout.as_str()), (0, ""));
}

#[test]
fn fixes_keep_the_byte_order_mark_line_endings_and_mode() {
    let context = TestContext::new();
    let original = "\u{feff}---\r\nname: crlf\r\ndescription: Handles CRLF files for the lint tests. Use when a test needs CRLF.\r\nlicense: off\r\n---\r\n\r\nBody.\r\n";
    let path = context.skill("crlf", original);
    #[cfg(unix)]
    context.chmod("crlf/SKILL.md", 0o640);
    let (code, _, stderr) = run(context.lint(&["crlf", "--fix"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        fs_err::read_to_string(&path).unwrap(),
        original.replace("license: off", "license: \"off\"")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            fs_err::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }
    // No temporary file is left beside it.
    assert_eq!(
        fs_err::read_dir(context.root().join("crlf"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn configuration_selects_rules_sets_levels_and_ignores_paths() {
    let context = TestContext::new();
    context.lint_skill(
        "skills/legacy/old-notes",
        "",
        "TODO: steps.\nNotes in /home/ana/x.\n",
    );
    context.lint_skill_described("skills/new-notes", "Formats notes.", "", "TODO: steps.\n");
    context.write(
        "skills/skillpkg.toml",
        "[lint]\nignore = [\"description-vague\"]\n\n[lint.rules]\nplaceholder-text = \"error\"\n\n[lint.per-path-ignores]\n\"legacy/**\" = [\"SK306\", \"placeholder-text\"]\n",
    );
    snapshot!(context, "lint__configured", context.lint(&["skills"]));
    // The command line adds to and overrides the file.
    let (code, stdout, _) = run(context.lint(&[
        "skills", "--select", "SK2", "--ignore", "SK209", "--format", "concise",
    ]));
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "skills/new-notes/SKILL.md:3:14: SK206 warning: the description says what the skill does, but not when to use it\n"
    );
    let (_, stdout, _) = run(context.lint(&[
        "skills",
        "--extend-select",
        "SK208",
        "--format",
        "concise",
        "--select",
        "description-vague",
    ]));
    assert!(stdout.contains("SK208"), "{stdout}");
}

#[test]
fn bad_configuration_is_a_usage_error_pointing_at_it() {
    let context = TestContext::new();
    context.lint_skill("skills/a-skill", "", "Steps.\n");
    context.write(
        "skills/skillpkg.toml",
        "[lint]\nignore = [\"placeholder-txt\"]\n",
    );
    snapshot!(context, "lint__bad_config", context.lint(&["skills"]));
    context.write("skills/skillpkg.toml", "[lint.rules]\nSK301 = \"loud\"\n");
    let (code, _, stderr) = run(context.lint(&["skills"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("skills/skillpkg.toml:2:9: unknown level `loud`"),
        "{stderr}"
    );
    let (code, _, stderr) = run(context.lint(&["skills", "--select", "SK9"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown rule `SK9`"), "{stderr}");
}

#[test]
fn suppression_comments() {
    let context = TestContext::new();
    context.skill(
        "quiet",
        "---\nname: quiet\ndescription: Handles the suppression fixture of the lint tests. Use when a test needs it.\n# skillpkg-disable-next-line ambiguous-scalar\nlicense: no\ncompatibility: yes\n---\n\n<!-- skillpkg-disable-file SK306 -->\nSee /home/ana/skills/quiet/a.txt.\n<!-- skillpkg-disable SK209 -->\nTODO: one.\nTODO: two.\n<!-- skillpkg-enable SK209 -->\nTODO: three.\n<!-- skillpkg-disable-next-line SK308 -->\nNothing to silence here.\n<!-- skillpkg-disable-next-line SK999 -->\n```\n<!-- skillpkg-disable-file SK209 -->\n```\n",
    );
    snapshot!(
        context,
        "lint__suppressions",
        context.lint(&["quiet", "--format", "concise"])
    );
}

#[test]
fn statistics_and_exit_codes() {
    let context = TestContext::new();
    context.lint_skill("skills/a-skill", "license: no\n", "TODO: a.\nTODO: b.\n");
    context.lint_skill("skills/b-skill", "", "Steps.\n");
    context.write("skills/b-skill/.env", "X=1\n");
    snapshot!(
        context,
        "lint__statistics",
        context.lint(&["skills", "--statistics"])
    );
    assert_eq!(run(context.lint(&["skills"])).0, 1);
    assert_eq!(run(context.lint(&["skills", "--exit-zero"])).0, 0);
    assert_eq!(run(context.lint(&["skills/a-skill"])).0, 0);
    assert_eq!(
        run(context.lint(&["skills/a-skill", "--deny-warnings"])).0,
        1
    );
    assert_eq!(
        run(context.lint(&[
            "skills/a-skill/SKILL.md",
            "--deny-warnings",
            "--ignore",
            "SK015,SK209"
        ]))
        .0,
        0
    );
    assert_eq!(run(context.lint(&["missing"])).0, 2);
}

#[test]
fn help_explains_the_command() {
    let context = TestContext::new();
    snapshot!(context, "lint__help", context.lint(&["--help"]));
}

/// The patterns of published skills that the rules once reported wrongly (benches/realworld),
/// distilled: each near miss must stay silent, and each real problem beside it must still be
/// reported. One snapshot shows exactly what fires.
#[test]
fn published_skill_patterns_near_misses_stay_silent() {
    let c = TestContext::new();
    let described = |dir: &str, frontmatter: &str, body: &str| {
        c.lint_skill_described(
            dir,
            &format!("Handles `{dir}` of the real-world patterns. Use when a test needs `{dir}`."),
            frontmatter,
            body,
        );
    };
    // Two plugins of one marketplace each have a `setup` skill: Claude Code names them
    // `a:setup` and `b:setup`. Within one plugin, the same name twice is a clash.
    c.write("real/.claude-plugin/marketplace.json", r#"{"name":"m","plugins":[{"name":"a","source":"./plugins/a"},{"name":"b","source":"./plugins/b"}]}"#);
    for plugin in ["a", "b"] {
        c.write(
            &format!("real/plugins/{plugin}/.claude-plugin/plugin.json"),
            r#"{"name":"x"}"#,
        );
        described(
            &format!("real/plugins/{plugin}/skills/setup"),
            "",
            "Steps.\n",
        );
    }
    c.skill(
        "real/plugins/b/skills/setup-again",
        "---\nname: setup\ndescription: Sets the other thing up. Use when asked to set it up again.\n---\n\nSteps.\n",
    );
    // A Claude Code plugin's skill is checked for Claude Code: an `author` key is harmless.
    described(
        "real/plugins/a/skills/authored",
        "author: Ana\nversion: 1.0.0\n",
        "Steps.\n",
    );
    // Outside any plugin the open spec applies, where it is an error.
    described("loose/authored", "author: Ana\n", "Steps.\n");
    // `references/a/one.md` exists although `references/a-b.md` sorts between them.
    described(
        "loose/lookup",
        "",
        "Read [one](references/a/one.md) and [ab](references/a-b.md).\n",
    );
    c.write("loose/lookup/references/a/one.md", "# One\n");
    c.write("loose/lookup/references/a-b.md", "# AB\n");
    // Reached by a template path, by a script that loads it, or exempt: not orphans.
    described(
        "loose/graph",
        "",
        "Read references/{lang}.md for the language, then run `python3 scripts/check.py`.\n",
    );
    c.write("loose/graph/references/python.md", "# Python\n");
    c.write("loose/graph/references/go.md", "# Go\n");
    c.write(
        "loose/graph/scripts/check.py",
        "import helpers\nSCHEMA = 'schema.json'\n",
    );
    c.write("loose/graph/scripts/helpers.py", "X = 1\n");
    c.write("loose/graph/scripts/test_check.py", "import check\n");
    c.write("loose/graph/assets/schema.json", "{}\n");
    c.write("loose/graph/CHANGELOG.md", "# Changes\n");
    // ... while a file nothing leads to is still reported, once for its folder's chain.
    c.write(
        "loose/graph/references/old/notes.md",
        "# Old\n\nSee [more](more.md).\n",
    );
    c.write("loose/graph/references/old/more.md", "# More\n");
    // An index of documents leads on on purpose; a document that does so is one level too deep.
    described(
        "loose/catalogue",
        "",
        "Read [the index](references/index.md) and [the guide](references/guide.md).\n",
    );
    let docs = ["a", "b", "c", "d", "e", "f"];
    c.write(
        "loose/catalogue/references/index.md",
        docs.map(|doc| format!("- [{doc}]({doc}.md)")).join("\n"),
    );
    for doc in docs {
        c.write(&format!("loose/catalogue/references/{doc}.md"), "# Doc\n");
    }
    c.write(
        "loose/catalogue/references/guide.md",
        "# Guide\n\nThen read [deep](deep.md).\n",
    );
    c.write("loose/catalogue/references/deep.md", "# Deep\n");
    // Values every YAML parser reads alike; one that YAML 1.1 reads as a boolean.
    described(
        "loose/scalars",
        "metadata:\n  version: 1.0.0\n  stars: 12876\n  beta: yes\n",
        "Steps.\n",
    );
    // Money, spreadsheet cells and a shell script's own `$1` are not skill arguments.
    described(
        "real/plugins/a/skills/dollars",
        "",
        "Budgets start at $25,000; cell B$6 holds it.\n\n```bash\necho \"$1\"\n```\n",
    );
    // A trigger list written as `TRIGGERS -`; a real Claude Code tool.
    c.lint_skill_described(
        "real/plugins/a/skills/triggers",
        "Formats release notes from commits. TRIGGERS - changelog, release notes",
        "allowed-tools: TaskCreate Read\n",
        "Steps.\n",
    );
    snapshot!(
        c,
        "lint__published_patterns",
        c.lint(&["real", "loose", "--format", "concise"])
    );
}

/// Run inside a skill folder, `lint` knows the folder's name (it once called it empty, where
/// `validate` was right).
#[test]
fn lint_inside_a_skill_folder_knows_its_name() {
    let context = TestContext::new();
    context.lint_skill_described(
        "pdf-forms",
        "Fills PDF forms from a data file. Use when the user asks to fill a form.",
        "",
        "Steps.\n",
    );
    let mut inside = context.lint(&["--format", "concise"]);
    inside.current_dir(context.root().join("pdf-forms"));
    let (code, stdout, stderr) = run(inside);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("SK108"), "{stdout}");
}

/// `${CLAUDE_SKILL_DIR}` is Claude Code's alone: reported for targets that show it as written,
/// with an unsafe fix to a path relative to the skill folder (none for a bare use), and never in
/// `allowed-tools` or in a sentence that warns against it.
#[test]
fn claude_only_variable_for_agents_that_leave_it_as_written() {
    let c = TestContext::new();
    c.lint_skill(
        "runner",
        "allowed-tools: Bash(python3 ${CLAUDE_SKILL_DIR}/scripts/run.py:*)\n",
        "Run `python3 ${CLAUDE_SKILL_DIR}/scripts/run.py`, then read ${CLAUDE_SKILL_DIR}/references/guide.md.\n\nDo not hard-code ${CLAUDE_SKILL_DIR} in other tools.\n",
    );
    c.write("runner/scripts/run.py", "print('hi')\n");
    c.write("runner/references/guide.md", "# Guide\n");
    c.lint_skill("mover", "", "Start with `cd ${CLAUDE_SKILL_DIR}`.\n");
    // Inline shell is Claude Code's alone, run from the project folder: the variable stays.
    c.lint_skill(
        "status",
        "allowed-tools: Bash(python3 ${CLAUDE_SKILL_DIR}/scripts/status.py)\n",
        "Current status: !`python3 ${CLAUDE_SKILL_DIR}/scripts/status.py`\n",
    );
    c.write("status/scripts/status.py", "print('ok')\n");
    let lint = |args: &[&str]| {
        let mut all = vec!["lint", "--format", "concise", "--select", "SK313"];
        all.extend_from_slice(args);
        run(c.command(&all))
    };
    for target in ["claude-code", "agentskills", "claude-ai"] {
        let (code, stdout, stderr) = lint(&["--target", target, "runner", "mover"]);
        assert_eq!((code, stdout.as_str()), (0, ""), "{target}: {stderr}");
    }
    let (_, stdout, _) = lint(&[
        "-t",
        "codex",
        "-t",
        "gemini-cli",
        "-t",
        "claude-code",
        "runner",
        "mover",
        "status",
    ]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "mover/SKILL.md:8:16: SK313 warning: `${CLAUDE_SKILL_DIR}` is expanded only by Claude Code; Codex and Gemini CLI pass it to the model as written",
            "runner/SKILL.md:9:14: SK313 warning: `${CLAUDE_SKILL_DIR}` (used 2 times) is expanded only by Claude Code; Codex and Gemini CLI pass it to the model as written",
        ],
        "{stdout}"
    );
    // The fix is unsafe, and there is none for a bare folder.
    let fix = |args: &[&str]| {
        let mut all = vec![
            "lint", "--select", "SK313", "-t", "codex", "--fix", "runner", "mover",
        ];
        all.extend_from_slice(args);
        run(c.command(&all))
    };
    let (code, _, stderr) = fix(&[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Fixed 0 problems"), "{stderr}");
    let (_, _, stderr) = fix(&["--unsafe-fixes"]);
    assert!(stderr.contains("Fixed 1 problem in 1 file."), "{stderr}");
    let text = fs_err::read_to_string(c.root().join("runner/SKILL.md")).unwrap();
    assert!(
        text.contains("Run `python3 scripts/run.py`, then read references/guide.md."),
        "{text}"
    );
    assert!(
        text.contains("Bash(python3 ${CLAUDE_SKILL_DIR}/scripts/run.py:*)"),
        "{text}"
    );
    assert!(
        text.contains("Do not hard-code ${CLAUDE_SKILL_DIR} in other tools."),
        "{text}"
    );
}

/// A link written with backslashes to a file that exists is one finding, with its fix: not also
/// a broken reference.
#[test]
fn a_backslash_link_is_reported_once() {
    let c = TestContext::new();
    c.lint_skill(
        "slashes",
        "",
        "Read [the guide](references\\guide.md) first.\n",
    );
    c.write("slashes/references/guide.md", "# Guide\n");
    let (code, stdout, stderr) = run(c.command(&["lint", "--format", "concise", "slashes"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "slashes/SKILL.md:8:18: SK307 warning: `references\\guide.md` uses backslashes\n"
    );
    assert!(
        stderr.contains("1 fixable with `skillpkg lint --fix`"),
        "{stderr}"
    );
    let (_, _, stderr) = run(c.command(&["lint", "--fix", "slashes"]));
    assert!(stderr.contains("Fixed 1 problem in 1 file."), "{stderr}");

    // A link whose text is the path too: two findings, each its own path, each fixed.
    c.lint_skill(
        "twice",
        "",
        "Read [references\\guide.md](references\\guide.md), then run scripts\\run.sh.\n",
    );
    c.write("twice/references/guide.md", "# Guide\n");
    c.write("twice/scripts/run.sh", "#!/bin/sh\necho hi\n");
    let (_, stdout, stderr) = run(c.command(&["lint", "--format", "concise", "twice"]));
    assert_eq!(
        stdout,
        "twice/SKILL.md:8:7: SK307 warning: `references\\guide.md` uses backslashes\n\
         twice/SKILL.md:8:28: SK307 warning: `references\\guide.md` uses backslashes\n\
         twice/SKILL.md:8:59: SK307 warning: `scripts\\run.sh` uses backslashes\n"
    );
    assert!(
        stderr.contains("3 fixable with `skillpkg lint --fix`"),
        "{stderr}"
    );
    let (_, _, stderr) = run(c.command(&["lint", "--fix", "twice"]));
    assert!(stderr.contains("Fixed 3 problems in 1 file."), "{stderr}");
    let text = fs_err::read_to_string(c.root().join("twice/SKILL.md")).unwrap();
    assert!(
        text.contains("Read [references/guide.md](references/guide.md), then run scripts/run.sh."),
        "{text}"
    );
}

/// Findings of the rules across skills are filtered and suppressed like the others, whatever
/// the skill's other findings: a near-duplicate description (SK602) in a skill with a finding
/// further down is silenced by `--ignore` and by an inline disable. A duplicate name (SK601)
/// is a load error, as `validate` reports it: `--ignore` chooses rules, but a comment cannot
/// hide it.
#[test]
fn findings_across_skills_obey_ignore_and_inline_disables() {
    let c = TestContext::new();
    let body = "# Fixture\n\nSee [the guide](references/missing.md).\n";
    let same = "Handles both copies of a description in the set tests. Use when a test needs it.";
    c.skill(
        "skills/dup",
        &format!("---\nname: dup\ndescription: {same}\n---\n\n{body}"),
    );
    c.skill(
        "skills/dup-two",
        &format!("---\n# skillpkg-disable-next-line SK108 SK601\nname: dup\ndescription: {same}\n---\n\n{body}"),
    );
    let (_, out, _) = run(c.lint(&["skills", "--format", "concise"]));
    assert!(out.contains("SK601") && out.contains("SK602"), "{out}");
    assert!(out.contains("SK303") || out.contains("missing.md"), "{out}");
    let second = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|line| line.starts_with("skills/dup-two/"))
            .map(str::to_owned)
            .collect()
    };
    // The comment cannot hide the load errors, and counts as used.
    assert!(
        second(&out).iter().any(|line| line.contains("SK601")),
        "{out}"
    );
    assert!(
        !second(&out).iter().any(|line| line.contains("unused")),
        "{out}"
    );
    let (_, out, _) = run(c.lint(&["skills", "--format", "concise", "--ignore", "SK601,SK602"]));
    assert!(
        !out.contains(": SK601 ") && !out.contains(": SK602 "),
        "{out}"
    );
    assert!(out.contains("missing.md"), "{out}");
    // Inline: the disable on the description line silences SK602, and is not reported as
    // unused.
    c.skill(
        "skills/dup-two",
        &format!("---\nname: dup-two\n# skillpkg-disable-next-line SK602\ndescription: {same}\n---\n\n{body}"),
    );
    let (_, out, _) = run(c.lint(&["skills/dup-two", "skills/dup", "--format", "concise"]));
    assert!(out.contains("skills/dup/SKILL.md:3:14: SK602"), "{out}");
    assert!(
        !second(&out).iter().any(|line| line.contains("SK602")),
        "{out}"
    );
    assert!(
        !second(&out).iter().any(|line| line.contains("unused")),
        "{out}"
    );
}

/// Reports read only the lines their findings point at (lint keeps nothing else of ten thousand
/// bodies): a finding deep in the body, one on a long line, and one whose snippet spans lines
/// show the same lines, columns and text as the file has.
#[test]
fn findings_deep_in_the_body_show_their_own_lines() {
    let context = TestContext::new();
    let filler = "Step of the work.\n".repeat(30);
    let long = format!(
        "{} see [the guide](references/long-missing.md) now.",
        "word ".repeat(300)
    );
    let body = format!(
        "{filler}Read [the spec](references/missing.md) first.\n{filler}{long}\n{filler}Done.\n"
    );
    context.lint_skill("deep", "", &body);
    let text = fs_err::read_to_string(context.root().join("deep/SKILL.md")).unwrap();
    let line_of = |needle: &str| {
        let at = text.find(needle).unwrap();
        let line = text[..at].matches('\n').count() + 1;
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        (line, text[start..at].chars().count() + 1)
    };
    let (missing, missing_column) = line_of("references/missing.md");
    let (long_line, long_column) = line_of("references/long-missing.md");
    assert!(
        missing > 35 && long_line > missing + 30,
        "{missing} {long_line}"
    );

    let (_, stdout, stderr) = run(context.lint(&["deep", "--select", "SK303"]));
    let human = format!("{stdout}{stderr}");
    assert!(
        human.contains(&format!("deep/SKILL.md:{missing}:{missing_column}")),
        "{human}"
    );
    assert!(
        human.contains(&format!(
            "{missing} | Read [the spec](references/missing.md) first."
        )),
        "{human}"
    );
    assert!(
        human.contains(&format!("deep/SKILL.md:{long_line}:{long_column}")),
        "{human}"
    );
    assert!(
        human.contains("see [the guide](references/long-missing.md) now."),
        "{human}"
    );

    let (_, json, _) = run(context.lint(&["deep", "--select", "SK303", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let lines: Vec<(u64, u64)> = json["skills"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        lines,
        [
            (missing as u64, missing_column as u64),
            (long_line as u64, long_column as u64)
        ]
    );
}

/// `lint --watch` checks, waits, and checks again when a skill changes; `validate --watch`
/// too. Each run prints what a run by hand prints, then says it is watching.
#[test]
fn watch_checks_again_when_a_skill_changes() {
    use std::io::BufRead as _;
    for command in ["lint", "validate"] {
        let cx = TestContext::new();
        let skill = cx.skill(
            "skills/notes",
            "---\nname: notes\ndescription: Take meeting notes. Use when the user asks for notes.\n---\n\n# Notes\n",
        );
        let mut child = cx
            .command(&[command, "--watch", "skills"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start the watch");
        let stderr = child.stderr.take().expect("stderr");
        let (lines, received) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        // Everything printed up to the next "Watching …" line, within a bounded wait.
        let next_run = || {
            let mut seen = Vec::new();
            loop {
                let line = received
                    .recv_timeout(std::time::Duration::from_secs(30))
                    .unwrap_or_else(|_| panic!("{command} --watch printed {seen:?} and stopped"));
                if line.starts_with("Watching ") {
                    return seen.join("\n");
                }
                seen.push(line);
            }
        };
        let first = next_run();
        assert!(first.contains("no problems"), "{first}");
        // An error appears (an empty name), then goes again.
        fs_err::write(
            &skill,
            "---\nname: \"\"\ndescription: Take meeting notes. Use when the user asks for notes.\n---\n\n# Notes\n",
        )
        .unwrap();
        let second = next_run();
        assert!(second.contains("SK103"), "{second}");
        let _ = child.kill();
        let _ = child.wait();
    }
    let cx = TestContext::new();
    let (code, _, stderr) = run(cx.command(&["lint", "--watch", "--fix"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}
