//! `skillpkg preview`: the captured Claude Code 2.1.332 scenarios re-rendered from the same inputs
//! and compared byte for byte, then the other targets.

use std::path::{Path, PathBuf};

use crate::common::{TestContext, run};
use crate::snapshot;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/captures")
}

fn copy_dir(from: &Path, to: &Path) {
    fs_err::create_dir_all(to).unwrap();
    for entry in fs_err::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs_err::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A temporary root standing in for `/capture`, with the named input folders copied in.
struct Capture {
    context: TestContext,
}

impl Capture {
    fn with(inputs: &[&str]) -> Self {
        let context = TestContext::new();
        for input in inputs {
            copy_dir(
                &fixtures().join("inputs").join(input),
                &context.root().join(input),
            );
        }
        Self { context }
    }

    fn preview(&self, args: &[&str]) -> (i32, String, String) {
        let mut all = vec!["preview"];
        all.extend_from_slice(args);
        let (code, stdout, stderr) = run(self.context.command(&all));
        (code, self.normalise(&stdout), stderr)
    }

    /// Our temporary root becomes `/capture`, as in the captures.
    fn normalise(&self, text: &str) -> String {
        let root = self.context.root();
        let canonical = fs_err::canonicalize(root).unwrap();
        text.replace(&canonical.to_string_lossy().into_owned(), "/capture")
            .replace(&root.to_string_lossy().into_owned(), "/capture")
    }
}

/// The pieces of a captured scenario: (kind, text) in request order.
fn pieces(scenario: &str) -> Vec<(String, String)> {
    let text = fs_err::read_to_string(fixtures().join(format!("{scenario}.extract.json"))).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["requests"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|request| request["pieces"].as_array().unwrap().clone())
        .map(|piece| {
            let text = piece["text"]
                .as_str()
                .or_else(|| piece["content"].as_str())
                .unwrap_or_default();
            (piece["kind"].as_str().unwrap().to_owned(), text.to_owned())
        })
        .collect()
}

/// The captured listing with Claude Code's own skills cut off (they are never rendered).
fn captured_listing(scenario: &str) -> String {
    let (_, text) = pieces(scenario)
        .into_iter()
        .find(|(kind, _)| kind.starts_with("listing"))
        .unwrap();
    let end = text
        .find("\n- dataviz:")
        .expect("the bundled skills follow the user's");
    let mut listing = text[..end].to_owned();
    if listing.starts_with("<system-reminder>") {
        listing.push_str("\n</system-reminder>");
    }
    listing
}

fn assert_listing(scenario: &str, capture: &Capture, args: &[&str]) {
    let (code, stdout, stderr) = capture.preview(args);
    assert_eq!(code, 0, "{scenario}: {stderr}");
    let expected = captured_listing(scenario);
    assert_eq!(
        stdout.strip_suffix('\n').unwrap_or(&stdout),
        expected,
        "{scenario}"
    );
}

#[test]
fn listings_match_the_captures() {
    let a = Capture::with(&[
        "proj",
        "proj_a2",
        "seed_a2",
        "proj_a3",
        "proj_a4",
        "proj_sort",
        "proj_b",
        "seed_maxdesc",
    ]);
    assert_listing("a_listing", &a, &["proj/.claude/skills"]);
    assert_listing(
        "a_listing_sonnet45",
        &a,
        &["proj/.claude/skills", "--model", "claude-sonnet-4-5"],
    );
    assert_listing(
        "a2_desc_norm",
        &a,
        &["proj_a2/.claude/skills", "--user", "seed_a2/.claude/skills"],
    );
    assert_listing("a3_desc_ws", &a, &["proj_a3/.claude/skills"]);
    assert_listing("a4_ctrl", &a, &["proj_a4/.claude/skills"]);
    assert_listing("a5_sort", &a, &["proj_sort/.claude/skills"]);
    assert_listing(
        "a6_maxdesc_overrides",
        &a,
        &[
            "proj/.claude/skills",
            "--settings",
            "seed_maxdesc/.claude/settings.json",
        ],
    );
    assert_listing("b_cap", &a, &["proj_b/.claude/skills"]);
    // The invocation scenarios' listings too.
    let d = Capture::with(&["proj_d", "proj_fg", "proj_h"]);
    // `hidden-user` was added to proj_d after this capture, for the user-invocable test.
    fs_err::remove_dir_all(d.context.root().join("proj_d/.claude/skills/hidden-user")).unwrap();
    assert_listing("d_model_invoke", &d, &["proj_d/.claude/skills"]);
    assert_listing("g_shell_ok_model", &d, &["proj_fg/.claude/skills"]);
    assert_listing("h_fork_fg", &d, &["proj_h/.claude/skills"]);
}

/// `inputs/gen_proj_c.py`: 150 skills with 300-character ASCII or 150-character CJK descriptions.
fn budget_project(root: &Path, cjk: bool) {
    for i in 1..=150 {
        let name = format!("sk-{i:03}");
        let description: String = if cjk {
            let mut text = format!("技能{i:03}。");
            while text.chars().count() < 150 {
                text.push_str("漢字のテスト説明文です。");
            }
            text.chars().take(150).collect()
        } else {
            let mut text = format!("Skill {i:03} description. ");
            let filler = format!("Lorem ipsum {i:03}. ");
            while text.len() < 300 {
                text.push_str(&filler);
            }
            text[..300].to_owned()
        };
        let dir = root.join(".claude/skills").join(&name);
        fs_err::create_dir_all(&dir).unwrap();
        fs_err::write(
            dir.join("SKILL.md"),
            format!("---\ndescription: \"{description}\"\n---\nbody {i}\n"),
        )
        .unwrap();
    }
}

#[test]
fn budgets_match_the_captures() {
    let capture = Capture::with(&["seed_usage"]);
    budget_project(&capture.context.root().join("proj_c"), false);
    budget_project(&capture.context.root().join("proj_c_cjk"), true);
    let skills = "proj_c/.claude/skills";
    let cjk = "proj_c_cjk/.claude/skills";
    assert_listing("c_budget_default", &capture, &[skills]);
    assert_listing(
        "c_budget_env10000",
        &capture,
        &[skills, "--budget", "10000"],
    );
    assert_listing("c_budget_env2000", &capture, &[skills, "--budget", "2000"]);
    assert_listing(
        "c_budget_sonnet",
        &capture,
        &[skills, "--model", "claude-sonnet-4-5"],
    );
    assert_listing(
        "c_model_claude_sonnet_4_5_1m_",
        &capture,
        &[skills, "--model", "claude-sonnet-4-5[1m]"],
    );
    assert_listing("c_cjk_default", &capture, &[cjk]);
    assert_listing("c_cjk_env10000", &capture, &[cjk, "--budget", "10000"]);
    assert_listing(
        "c_usage_priority",
        &capture,
        &[
            skills,
            "--budget",
            "8000",
            "--usage",
            "seed_usage/.claude.json",
        ],
    );
}

/// The skill blocks of a captured invocation, in order.
fn captured_blocks(scenario: &str) -> Vec<(String, String)> {
    pieces(scenario)
        .into_iter()
        .filter(|(kind, _)| !kind.starts_with("listing"))
        .collect()
}

fn session_of(text: &str) -> String {
    text.split("Session: ")
        .nth(1)
        .map_or_else(|| "none".to_owned(), |rest| rest[..36].to_owned())
}

fn invoke(
    capture: &Capture,
    skills: &str,
    name: &str,
    args: Option<&str>,
    extra: &[&str],
) -> (i32, String, serde_json::Value) {
    let mut all = vec![skills, "--invoke", name, "--format", "json"];
    if let Some(args) = args {
        all.extend(["--args", args]);
    }
    all.extend_from_slice(extra);
    let (code, stdout, stderr) = capture.preview(&all);
    let json = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stderr}"));
    (code, stdout, json)
}

fn blocks(json: &serde_json::Value) -> Vec<(String, String)> {
    json["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message["content"].as_array().unwrap().clone())
        .map(|block| {
            (
                block["type"].as_str().unwrap().to_owned(),
                block["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

// (scenario, project, skill, arguments, extra options)
type Case<'a> = (&'a str, &'a str, &'a str, Option<&'a str>, &'a [&'a str]);

#[test]
fn invocations_match_the_captures() {
    let capture = Capture::with(&["proj_d", "proj_d2", "proj_fg", "proj_h"]);
    let cases: &[Case<'_>] = &[
        (
            "d_model_invoke",
            "proj_d",
            "demo",
            Some("first \"second arg\""),
            &[],
        ),
        (
            "d2_named_args",
            "proj_d2",
            "named",
            Some("$1 'a b' $ARGUMENTS extra"),
            &[],
        ),
        (
            "e_user_invoke",
            "proj_d",
            "demo",
            Some("first second"),
            &["--as", "user"],
        ),
        ("e2_user_noargs", "proj_d", "demo", None, &["--as", "user"]),
        ("f_plain_model", "proj_fg", "plain", Some("hello"), &[]),
        (
            "f_plain_user",
            "proj_fg",
            "plain",
            Some("hello"),
            &["--as", "user"],
        ),
    ];
    for (scenario, project, name, args, extra) in cases {
        let expected = captured_blocks(scenario);
        let session = session_of(
            &expected
                .iter()
                .map(|(_, text)| text.as_str())
                .collect::<String>(),
        );
        let project_dir = format!("/capture/{project}");
        let mut options = extra.to_vec();
        options.extend(["--session-id", &session, "--project-dir", &project_dir]);
        let (code, _, json) = invoke(
            &capture,
            &format!("{project}/.claude/skills"),
            name,
            *args,
            &options,
        );
        assert_eq!(code, 0, "{scenario}");
        let ours: Vec<String> = blocks(&json).into_iter().map(|(_, text)| text).collect();
        let theirs: Vec<String> = expected.into_iter().map(|(_, text)| text).collect();
        assert_eq!(ours, theirs, "{scenario}");
    }
}

#[test]
fn legacy_models_get_a_higher_effort() {
    let capture = Capture::with(&["proj_d"]);
    let expected = captured_blocks("d_model_invoke_sonnet45");
    let skill = &expected
        .iter()
        .find(|(kind, _)| kind == "skill block")
        .unwrap()
        .1;
    let session = session_of(skill);
    let (_, _, json) = invoke(
        &capture,
        "proj_d/.claude/skills",
        "demo",
        Some("first \"second arg\""),
        &[
            "--model",
            "claude-sonnet-4-5",
            "--session-id",
            &session,
            "--project-dir",
            "/capture/proj_d",
        ],
    );
    assert_eq!(&blocks(&json)[1].1, skill);
}

#[test]
fn inline_shell_runs_with_exec_as_captured_and_never_without() {
    let capture = Capture::with(&["proj_fg"]);
    let project = capture.context.root().join("proj_fg");
    let project = project.to_str().unwrap();
    for (scenario, name, args) in [
        ("g_shell_ok_model", "shell-ok", "argx"),
        ("g_shell_block_model", "shell-block", ""),
        ("g_shell_echo_noallow_model", "shell-deny", ""),
        ("g_shell_touch_ok_model", "shell-touch-ok", ""),
    ] {
        let expected: Vec<String> = captured_blocks(scenario)
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        let (code, _, json) = invoke(
            &capture,
            "proj_fg/.claude/skills",
            name,
            Some(args),
            &["--exec", "--project-dir", project],
        );
        assert_eq!(code, 0, "{scenario}");
        let ours: Vec<String> = blocks(&json).into_iter().map(|(_, text)| text).collect();
        assert_eq!(ours, expected, "{scenario}");
    }
    assert!(
        capture.context.root().join("proj_fg/marker").exists()
            || capture
                .context
                .root()
                .join("proj_fg")
                .read_dir()
                .unwrap()
                .count()
                > 0
    );
    // Not allowed: the invocation aborts with Claude Code's message, and nothing runs.
    let expected = &captured_blocks("g_shell_touch_deny_model")[0].1;
    let (code, _, json) = invoke(
        &capture,
        "proj_fg/.claude/skills",
        "shell-touch-deny",
        Some(""),
        &["--exec", "--project-dir", project],
    );
    assert_eq!(code, 1);
    let ours = &blocks(&json)[0].1;
    let prefix = "Shell command permission check failed for pattern \"!`touch marker-deny && echo TOUCHED`\": ";
    assert!(
        expected.starts_with(prefix) && ours.starts_with(prefix),
        "{ours}"
    );
    assert!(!capture.context.root().join("proj_fg/marker-deny").exists());
    // Without --exec, commands are markers.
    snapshot!(
        capture.context,
        "preview__shell_markers",
        capture.context.command(&[
            "preview",
            "proj_fg/.claude/skills",
            "--invoke",
            "shell-ok",
            "--args",
            "argx",
            "--project-dir",
            "/capture/proj_fg"
        ])
    );
}

#[test]
fn forked_skills_go_to_a_sub_agent() {
    let capture = Capture::with(&["proj_h"]);
    for (scenario, name) in [("h_fork_fg", "forker-fg"), ("h_fork_bg", "forker")] {
        let expected = captured_blocks(scenario);
        let (_, _, json) = invoke(
            &capture,
            "proj_h/.claude/skills",
            name,
            Some("alpha beta"),
            &["--project-dir", "/capture/proj_h"],
        );
        let messages = json["messages"].as_array().unwrap();
        assert_eq!(messages[0]["to"], "sub-agent");
        assert_eq!(
            messages[0]["content"][0]["text"].as_str().unwrap(),
            expected[0].1,
            "{scenario}"
        );
        let result = messages[1]["content"][0]["text"].as_str().unwrap();
        let shape = format!("Skill \"{name}\" completed (forked execution).\n\nResult:\n");
        assert!(
            result.starts_with(&shape) && expected[1].1.starts_with(&shape),
            "{result}"
        );
    }
}

#[test]
fn a_user_cannot_type_a_skill_that_is_not_user_invocable() {
    let capture = Capture::with(&["proj_d"]);
    snapshot!(
        capture.context,
        "preview__not_user_invocable",
        capture.context.command(&[
            "preview",
            "proj_d/.claude/skills",
            "--invoke",
            "hidden-user",
            "--as",
            "user"
        ])
    );
}

#[test]
fn skills_ref_to_prompt_is_byte_identical() {
    let context = TestContext::new();
    context.skill("skills/pdf-processing", "---\nname: pdf-processing\ndescription: Extract PDF text, fill forms, merge files. Use when handling PDFs.\n---\nBody.\n");
    context.skill(
        "skills/q&a-dir",
        "---\nname: q-a\ndescription: Analyze \"datasets\" & it's <charts>.\n---\nBody.\n",
    );
    let (code, stdout, _) = run(context.command(&["preview", "skills", "--target", "skills-ref"]));
    assert_eq!(code, 0);
    let root = fs_err::canonicalize(context.root()).unwrap();
    let root = root.to_str().unwrap();
    assert_eq!(
        stdout,
        format!(
            "<available_skills>\n<skill>\n<name>\npdf-processing\n</name>\n<description>\nExtract PDF text, fill forms, merge files. Use when handling PDFs.\n</description>\n<location>\n{root}/skills/pdf-processing/SKILL.md\n</location>\n</skill>\n<skill>\n<name>\nq-a\n</name>\n<description>\nAnalyze &quot;datasets&quot; &amp; it&#x27;s &lt;charts&gt;.\n</description>\n<location>\n{root}/skills/q&a-dir/SKILL.md\n</location>\n</skill>\n</available_skills>\n"
        )
    );
}

#[test]
fn claude_code_2188_shares_the_budget_equally() {
    let context = TestContext::new();
    for (name, words) in [("alpha", 30), ("bravo", 5), ("charlie", 40)] {
        context.skill(
            &format!("skills/{name}"),
            &format!(
                "---\ndescription: {}\n---\n",
                "word ".repeat(words).trim_end()
            ),
        );
    }
    // 3 names: overhead (5+4)+(5+4)+(7+4)+2 = 31; share = (150 - 31) / 3 = 39 columns.
    snapshot!(
        context,
        "preview__2188_equal_share",
        context.command(&[
            "preview",
            "skills",
            "--target",
            "claude-code@2.1.88",
            "--budget",
            "150"
        ])
    );
    // Under 20 columns, names only.
    let (_, stdout, _) = run(context.command(&[
        "preview",
        "skills",
        "--target",
        "claude-code@2.1.88",
        "--budget",
        "60",
    ]));
    assert_eq!(
        stdout,
        "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- alpha\n- bravo\n- charlie\n</system-reminder>\n"
    );
}

#[test]
fn every_target_over_the_examples() {
    let context = TestContext::new();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/skills"),
        &context.root().join("skills"),
    );
    for target in [
        "claude-code",
        "claude-code@2.1.88",
        "skills-ref",
        "agentskills",
        "codex",
        "gemini-cli",
        "opencode",
        "copilot",
        "goose",
    ] {
        snapshot!(
            context,
            format!("preview__examples__{target}"),
            context.command(&["preview", "skills", "--target", target])
        );
    }
    snapshot!(
        context,
        "preview__examples__invoke_agentskills",
        context.command(&[
            "preview",
            "skills",
            "--target",
            "agentskills",
            "--invoke",
            "csv-insights"
        ])
    );
    snapshot!(
        context,
        "preview__examples__invoke_codex",
        context.command(&[
            "preview",
            "skills",
            "--target",
            "codex",
            "--invoke",
            "release-notes"
        ])
    );
    snapshot!(
        context,
        "preview__examples__json",
        context.command(&["preview", "skills", "--format", "json"])
    );
}

#[test]
fn help_explains_the_command() {
    let context = TestContext::new();
    snapshot!(
        context,
        "preview__help",
        context.command(&["preview", "--help"])
    );
}

/// A user folder that does not exist yet is normal: a note, and the project's listing. A folder
/// with no skills says there is nothing to preview, for every agent.
#[test]
fn missing_user_folders_and_empty_projects() {
    let context = TestContext::new();
    context.write(
        "project/skills/notes/SKILL.md",
        "---\nname: notes\ndescription: Takes notes. Use when the user asks for notes.\n---\nBody.\n",
    );
    fs_err::create_dir_all(context.root().join("empty")).unwrap();
    let (code, stdout, stderr) = run(context.command(&[
        "preview",
        "--user",
        "no-such-home/.claude/skills",
        "project",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("- notes: Takes notes."), "{stdout}");
    assert!(
        stderr.starts_with(
            "note: `no-such-home/.claude/skills` does not exist: no user skills from it\n"
        ),
        "{stderr}"
    );
    for target in ["claude-code", "agentskills", "codex", "gemini-cli"] {
        let (code, stdout, stderr) =
            run(context.command(&["preview", "--target", target, "empty"]));
        assert_eq!((code, stdout.as_str()), (0, ""), "{target}: {stderr}");
        assert!(
            stderr.starts_with("note: no skills found in `empty`: nothing to preview"),
            "{target}: {stderr}"
        );
    }
}

/// Which skill of a name Claude Code keeps, and the reason the other is left out.
#[test]
fn a_name_clash_says_which_one_wins() {
    let context = TestContext::new();
    let skill = |dir: &str, text: &str| {
        context.write(
            &format!("{dir}/SKILL.md"),
            format!("---\ndescription: {text} Use when a test needs it.\n---\nBody.\n"),
        );
    };
    skill("home/.claude/skills/notes", "User notes.");
    skill("repo/.claude/skills/notes", "Project notes.");
    skill("repo/.claude/skills/deploy", "Top deploy.");
    skill("repo/app/.claude/skills/deploy", "Nearer deploy.");
    context.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    context.write("repo/app/.claude/commands/deploy.md", "Deploy command.\n");
    let (code, stdout, stderr) =
        run(context.command(&["preview", "--home", "home", "--format", "json", "repo/app"]));
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let left_out: Vec<(String, String)> =
        serde_json::from_value(json["report"]["left_out"].clone()).unwrap();
    let text = json["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("- notes: User notes."), "{text}");
    assert!(text.contains("- deploy: Nearer deploy."), "{text}");
    assert_eq!(
        left_out,
        [
            (
                "deploy".into(),
                "a skill of the same name in a nearer project folder wins".into()
            ),
            (
                "notes".into(),
                "a user-level skill of the same name wins".into()
            ),
            (
                "deploy".into(),
                "a skill of the same name wins over a legacy command".into()
            ),
        ],
        "{left_out:?}"
    );
}
