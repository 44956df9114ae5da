//! What linting collections nobody benchmarked taught (issue 32, `benches/realworld/`): each
//! pattern as a pair of fixtures, the deliberate choice that must not be reported and the real
//! defect the same rule must still catch.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{TestContext, run};

/// The codes reported for each skill file, by path relative to the root; the exit code; stderr.
fn findings(cx: &TestContext, args: &[&str]) -> (BTreeMap<String, Vec<String>>, i32, String) {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = run(cx.command(&all));
    let json: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("JSON: {stdout}\n{stderr}"));
    let mut out = BTreeMap::new();
    for skill in json["skills"].as_array().unwrap() {
        let codes: Vec<String> = skill["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_owned())
            .collect();
        out.insert(skill["file"].as_str().unwrap().to_owned(), codes);
    }
    (out, code, stderr)
}

/// Every code reported anywhere.
fn all_codes(found: &BTreeMap<String, Vec<String>>) -> BTreeSet<String> {
    found.values().flatten().cloned().collect()
}

/// A skill whose description names it, so that no two fixtures read alike.
fn skill(cx: &TestContext, dir: &str, extra: &str, body: &str) {
    let name = dir.rsplit('/').next().unwrap();
    cx.skill(
        dir,
        &format!(
            "---\nname: {name}\ndescription: Handles the {name} case of the unseen-pattern tests. Use when a test checks {name}.\n{extra}---\n\n# {name}\n\n{body}"
        ),
    );
}

fn codes_of<'a>(found: &'a BTreeMap<String, Vec<String>>, file: &str) -> &'a [String] {
    found
        .get(file)
        .unwrap_or_else(|| panic!("{file} not checked: {:?}", found.keys()))
}

/// A healthy pack that ships install copies, a link farm for Gemini CLI and a plugin copy of
/// its skill validates clean: copies are one skill, and duplicates count only within what one
/// agent loads together. Two skills of one name in one `.claude/skills` still fail.
#[test]
fn install_copies_and_link_farms_are_one_skill() {
    let cx = TestContext::new();
    let text = "---\nname: pdf\ndescription: Fills in PDF forms. Use when the user asks to fill a form.\n---\n\n# PDF\n\nFill the form.\n";
    cx.write(".git/HEAD", "ref: refs/heads/main\n");
    cx.write(
        ".claude-plugin/marketplace.json",
        r#"{"name":"pack","owner":{"name":"me"},"plugins":[{"name":"pack","source":"./plugins/pack"}]}"#,
    );
    cx.skill("skills/pdf", text);
    cx.skill(".agents/skills/pdf", text);
    cx.write(
        "plugins/pack/.claude-plugin/plugin.json",
        r#"{"name":"pack"}"#,
    );
    cx.skill("plugins/pack/skills/pdf", text);
    // A copy adapted for one agent is another skill, in another agent's folder.
    cx.skill(
        ".cursor/skills/pdf",
        "---\nname: pdf\ndescription: Fills in PDF forms in Cursor. Use when the user asks to fill a form.\n---\n\n# PDF\n\nFill the form.\n",
    );
    #[cfg(unix)]
    {
        fs_err::create_dir_all(cx.root().join(".gemini/skills/pdf")).unwrap();
        std::os::unix::fs::symlink(
            "../../../skills/pdf/SKILL.md",
            cx.root().join(".gemini/skills/pdf/SKILL.md"),
        )
        .unwrap();
    }
    let (code, _, stderr) = run(cx.validate(&["."]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("the same SKILL.md as another skill"),
        "{stderr}"
    );
    let (found, code, stderr) = findings(&cx, &["."]);
    assert_eq!(code, 0, "{stderr}");
    let codes = all_codes(&found);
    assert!(
        !codes.contains("SK601") && !codes.contains("SK602"),
        "{found:?}"
    );
    // Checked once, at a source (the plugin's copy or the standalone one, whichever comes
    // first), never at an agent's install copy or link; the adapted Cursor copy is its own.
    let sources = ["plugins/pack/skills/pdf/SKILL.md", "skills/pdf/SKILL.md"];
    assert_eq!(
        sources
            .iter()
            .filter(|file| found.contains_key(**file))
            .count(),
        1,
        "{found:?}"
    );
    assert!(
        !found.contains_key(".agents/skills/pdf/SKILL.md"),
        "{found:?}"
    );
    assert!(
        !found.contains_key(".gemini/skills/pdf/SKILL.md"),
        "{found:?}"
    );
    assert!(
        found.contains_key(".cursor/skills/pdf/SKILL.md"),
        "{found:?}"
    );

    // The real defect: one agent's folder with two skills of one name.
    cx.skill(".claude/skills/notes", "---\nname: notes\ndescription: Takes meeting notes. Use when asked for notes.\n---\n\nTake notes.\n");
    cx.skill(".claude/skills/notes-old", "---\nname: notes\ndescription: Writes up meetings as minutes for the team. Use when asked for minutes.\n---\n\nWrite minutes.\n");
    let (code, _, stderr) = run(cx.validate(&["."]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("SK601"), "{stderr}");
}

/// Where a skill lives decides which agent loads it: an agent's own folder wins over a plugin
/// manifest further up.
#[test]
fn an_agents_folder_chooses_its_targets() {
    let cx = TestContext::new();
    cx.write(".git/HEAD", "ref: refs/heads/main\n");
    cx.write(".claude-plugin/plugin.json", r#"{"name":"repo"}"#);
    skill(&cx, "skills/in-plugin", "", "Steps.\n");
    skill(&cx, ".gemini/skills/for-gemini", "", "Steps.\n");
    skill(&cx, ".agents/skills/shared", "", "Steps.\n");
    skill(&cx, ".codex/skills/for-codex", "", "Steps.\n");
    skill(&cx, ".kiro/skills/for-kiro", "", "Steps.\n");
    let (code, stdout, stderr) = run(cx.command(&["validate", ".", "--format", "json"]));
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let targets: BTreeMap<String, Vec<String>> = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| {
            (
                skill["path"].as_str().unwrap().to_owned(),
                skill["targets"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(targets["skills/in-plugin"], ["claude-code"]);
    assert_eq!(targets[".gemini/skills/for-gemini"], ["gemini-cli"]);
    assert_eq!(targets[".agents/skills/shared"], ["codex", "gemini-cli"]);
    assert_eq!(targets[".codex/skills/for-codex"], ["codex"]);
    assert_eq!(targets[".kiro/skills/for-kiro"], ["agentskills"]);
}

/// `broken-reference`: files that exist (ignored by `.gitignore`, at a linked SKILL.md's
/// folder), paths in the user's project, examples and syntax are not broken; a missing
/// reference still is.
#[test]
fn broken_reference_only_for_files_that_are_missing() {
    let cx = TestContext::new();
    cx.write(".git/HEAD", "ref: refs/heads/main\n");
    cx.write(".gitignore", "data/\n");
    skill(
        &cx,
        "skills/exists",
        "",
        "Read [the table](data/table.md).\n\n\
         Copy it: `cp assets/publish.sh scripts/publish_myproject.sh`.\n\n\
         ```bash\n./scripts/smoke-test.sh\n```\n\n\
         ```markdown\n| Reference | `references/common.md` |\n```\n\n\
         Never write `![](...)`.\n\n\
         ```\n├── references/tree-only.md\n```\n\n\
         See the [runbook](internal-wiki/deployment-runbook).\n\n\
         Outputs go to `references/archive/`.\n\n\
         Link syntax: `[text](references/filename.md)`.\n",
    );
    cx.write("skills/exists/data/table.md", "| a |\n");
    // No `scripts/` of its own: `./scripts/smoke-test.sh` is the user's project's.
    cx.write("skills/exists/assets/publish.sh", "#!/bin/sh\n");
    // The real defects: a link and a script that are not there.
    skill(
        &cx,
        "skills/missing",
        "",
        "Follow [the merge guide](references/merging.md).\n\n```bash\npython3 scripts/check.py\n```\n",
    );
    cx.write("skills/missing/scripts/other.py", "print(1)\n");
    let (found, _, stderr) = findings(&cx, &["."]);
    let exists = codes_of(&found, "skills/exists/SKILL.md");
    assert!(!exists.contains(&"SK303".to_owned()), "{exists:?} {stderr}");
    let missing = codes_of(&found, "skills/missing/SKILL.md");
    assert_eq!(
        missing.iter().filter(|code| *code == "SK303").count(),
        2,
        "{missing:?}"
    );
}

/// A relative link written for the folder a linked SKILL.md really lives in.
#[cfg(unix)]
#[test]
fn links_resolve_at_a_linked_skill_files_folder() {
    let cx = TestContext::new();
    cx.write(".git/HEAD", "ref: refs/heads/main\n");
    cx.write(
        "agents/personas/README.md",
        "---\nname: personas\ndescription: Chooses a persona for the task. Use when asked to role-play.\n---\n\nSee [the list](list.md).\n",
    );
    cx.write("agents/personas/list.md", "- a\n");
    fs_err::create_dir_all(cx.root().join(".gemini/skills/personas")).unwrap();
    std::os::unix::fs::symlink(
        "../../../agents/personas/README.md",
        cx.root().join(".gemini/skills/personas/SKILL.md"),
    )
    .unwrap();
    let (found, _, _) = findings(&cx, &["."]);
    let codes = codes_of(&found, ".gemini/skills/personas/SKILL.md");
    assert!(!codes.contains(&"SK303".to_owned()), "{codes:?}");
}

/// `extraneous-document`: a README for people at the skill's root or in `docs/` is the
/// folder's page; one among the agent's references is reported.
#[test]
fn extraneous_document_only_among_references() {
    let cx = TestContext::new();
    skill(&cx, "skills/root-readme", "", "Steps.\n");
    cx.write("skills/root-readme/README.md", "# For people\n");
    cx.write("skills/root-readme/docs/README.md", "# Design notes\n");
    skill(
        &cx,
        "skills/in-references",
        "",
        "Read [api](references/api.md).\n",
    );
    cx.write("skills/in-references/references/api.md", "# API\n");
    cx.write(
        "skills/in-references/references/README.md",
        "# Quick start\n\ncd .claude/skills/x\n",
    );
    let (found, _, _) = findings(&cx, &["skills"]);
    assert!(!codes_of(&found, "skills/root-readme/SKILL.md").contains(&"SK310".to_owned()));
    assert!(codes_of(&found, "skills/in-references/SKILL.md").contains(&"SK310".to_owned()));
}

/// `ambiguous-scalar` only for values a target reads; `unknown-key` not for a collection's own
/// convention; both still fire where they matter.
#[test]
fn frontmatter_rules_only_for_what_an_agent_reads() {
    let cx = TestContext::new();
    for name in ["one", "two", "three"] {
        skill(
            &cx,
            &format!("catalog/{name}"),
            "source: community\nmetadata:\n  updated: 2025-10-20\n",
            "Steps.\n",
        );
    }
    skill(&cx, "catalog/boolean", "license: no\n", "Steps.\n");
    skill(
        &cx,
        "catalog/typo",
        "descripton: A misspelt key.\n",
        "Steps.\n",
    );
    let (found, _, stderr) = findings(&cx, &["catalog"]);
    for name in ["one", "two", "three"] {
        let codes = codes_of(&found, &format!("catalog/{name}/SKILL.md"));
        assert!(
            !codes.contains(&"SK015".to_owned()) && !codes.contains(&"SK012".to_owned()),
            "{name}: {codes:?} {stderr}"
        );
    }
    assert!(codes_of(&found, "catalog/boolean/SKILL.md").contains(&"SK015".to_owned()));
    assert!(codes_of(&found, "catalog/typo/SKILL.md").contains(&"SK012".to_owned()));
    // claude.ai keeps `metadata`: there the date's type matters.
    let (found, _, _) = findings(&cx, &["catalog/one", "--target", "claude-ai"]);
    assert!(codes_of(&found, "catalog/one/SKILL.md").contains(&"SK015".to_owned()));
}

/// The text rules: a service name with `sk-`, Roman numerals, "you" in the "Use when…"
/// clause, TODO talked about; and the real thing each must still catch.
#[test]
fn text_rules_tell_talk_from_defect() {
    let cx = TestContext::new();
    skill(
        &cx,
        "skills/service",
        "",
        "Deploy `sk-learn-feature-engineering-pipeline-service-for-tabular-data` to staging.\n",
    );
    let key = format!("sk-proj-{}", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7".repeat(2));
    skill(
        &cx,
        "skills/leaked",
        "",
        &format!("Call it with `{key}`.\n"),
    );
    cx.skill(
        "skills/numerals",
        "---\nname: numerals\ndescription: Tests for Type I and Type II errors in A/B results. Use when the team feels unsure and you need the numbers for your report.\n---\n\nSteps.\n",
    );
    cx.skill(
        "skills/first-person",
        "---\nname: first-person\ndescription: I can help you write release notes. Use when releasing.\n---\n\nSteps.\n",
    );
    skill(
        &cx,
        "skills/marker-talk",
        "",
        "Flag TODO/FIXME comments in the diff.\n\nOffer to add `// TODO: check null` above each call.\n",
    );
    skill(
        &cx,
        "skills/unfinished",
        "",
        "## Steps\n\nTODO: write the steps.\n",
    );
    let (found, _, _) = findings(&cx, &["skills"]);
    let has = |file: &str, code: &str| codes_of(&found, file).contains(&code.to_owned());
    assert!(!has("skills/service/SKILL.md", "SK702"));
    assert!(has("skills/leaked/SKILL.md", "SK702"));
    assert!(!has("skills/numerals/SKILL.md", "SK207"));
    assert!(has("skills/first-person/SKILL.md", "SK207"));
    assert!(!has("skills/marker-talk/SKILL.md", "SK209"));
    assert!(has("skills/unfinished/SKILL.md", "SK209"));
}

/// A path into a named person's home folder is reported (once per path); a stand-in for
/// anyone, a server's default account and an example are not.
#[test]
fn paths_into_the_authors_home_are_reported() {
    let cx = TestContext::new();
    skill(
        &cx,
        "skills/homes",
        "",
        "Save to `/home/alice/projects/notes.md`, then again to /home/alice/projects/notes.md.\n\n\
         Fonts: /Users/bob/Library/Fonts/Inter.ttf\n\n\
         Templates: `C:\\Users\\carol\\Documents\\report.dotx`\n",
    );
    skill(
        &cx,
        "skills/anyone",
        "",
        "Your home is `/Users/you/work`; on the server it is /home/ubuntu/app.\n\n\
         For example, /home/dave/project could hold it.\n",
    );
    let (found, _, _) = findings(&cx, &["skills"]);
    let homes = codes_of(&found, "skills/homes/SKILL.md");
    assert_eq!(
        homes.iter().filter(|code| *code == "SK306").count(),
        3,
        "{homes:?}"
    );
    assert!(!codes_of(&found, "skills/anyone/SKILL.md").contains(&"SK306".to_owned()));
}

/// `arguments-without-hint`: `$ARGUMENTS[0]` and `$1` in a command ask for arguments; a price,
/// a table documenting the placeholder and a skill users cannot type do not.
#[test]
fn unhinted_arguments_are_reported_again() {
    let cx = TestContext::new();
    skill(
        &cx,
        ".claude/skills/index",
        "",
        "Review the pull request `$ARGUMENTS[0]` first.\n",
    );
    skill(
        &cx,
        ".claude/skills/command",
        "",
        "Check it out with `git checkout $1`.\n",
    );
    skill(
        &cx,
        ".claude/skills/documented",
        "",
        "| Placeholder | Meaning |\n|---|---|\n| `$ARGUMENTS` | all arguments |\n\nPlans start at $5 a month.\n",
    );
    skill(
        &cx,
        ".claude/skills/model-only",
        "user-invocable: false\n",
        "Summarise $ARGUMENTS.\n",
    );
    let (found, _, _) = findings(&cx, &["."]);
    let has = |file: &str| codes_of(&found, file).contains(&"SK509".to_owned());
    assert!(has(".claude/skills/index/SKILL.md"));
    assert!(has(".claude/skills/command/SKILL.md"));
    assert!(!has(".claude/skills/documented/SKILL.md"));
    assert!(!has(".claude/skills/model-only/SKILL.md"));
}

/// A broken SKILL.md link is a defect of the repository, reported as a finding (exit 1), not
/// an I/O error (exit 2).
#[cfg(unix)]
#[test]
fn a_broken_skill_file_link_is_a_finding() {
    let cx = TestContext::new();
    skill(&cx, "skills/fine", "", "Steps.\n");
    fs_err::create_dir_all(cx.root().join("skills/gone")).unwrap();
    std::os::unix::fs::symlink("../moved/SKILL.md", cx.root().join("skills/gone/SKILL.md"))
        .unwrap();
    let (code, _, stderr) = run(cx.validate(&["skills"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("SK017") && stderr.contains("../moved/SKILL.md"),
        "{stderr}"
    );
    let (found, code, _) = findings(&cx, &["skills"]);
    assert_eq!(code, 1);
    assert_eq!(codes_of(&found, "skills/gone/SKILL.md"), ["SK017"]);
}

/// A load error keeps `lint` failing under a file-wide suppression, as `validate` does; a
/// lint finding is still suppressed.
#[test]
fn a_load_error_is_never_suppressed() {
    let cx = TestContext::new();
    cx.skill(
        "skills/broken",
        "---\nname: broken\ndescription: Takes notes: use when asked\n---\n\n<!-- skillpkg-disable-file yaml-syntax placeholder-text -->\n\nTODO: steps.\n",
    );
    let (code, stdout, stderr) = run(cx.command(&["lint", "skills", "--format", "concise"]));
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("SK008"), "{stdout}");
    assert!(
        !stdout.contains("SK209") && !stdout.contains("SK016"),
        "{stdout}"
    );
    let (code, _, _) = run(cx.validate(&["skills"]));
    assert_eq!(code, 1);
}

/// A ClawHub package is OpenClaw's: its `metadata` object, `homepage` and a name that is not
/// its folder's are fine there; a name outside the spec is a warning, as OpenClaw's loader
/// warns. `preview` says it cannot render OpenClaw yet.
#[test]
fn clawhub_packages_are_checked_as_openclaw_reads_them() {
    let cx = TestContext::new();
    cx.write(".git/HEAD", "ref: refs/heads/main\n");
    for (owner, slug, name) in [
        ("ana", "otter", "otter-ai"),
        ("bo", "planka", "Planka--CLI"),
    ] {
        let dir = format!("skills/{owner}/{slug}");
        cx.skill(
            &dir,
            &format!("---\nname: {name}\ndescription: Syncs {slug} data. Use when asked about {slug}.\nhomepage: https://example.com\nmetadata: {{\"openclaw\": {{\"requires\": {{\"bins\": [\"{slug}\"]}}}}}}\n---\n\nRun `{slug}`.\n"),
        );
        cx.write(
            &format!("{dir}/_meta.json"),
            format!(r#"{{"owner":"{owner}","slug":"{slug}","latest":{{"version":"1.0.0"}}}}"#),
        );
    }
    let (code, stdout, stderr) = run(cx.command(&["validate", "skills", "--format", "json"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for skill in json["skills"].as_array().unwrap() {
        assert_eq!(skill["targets"], serde_json::json!(["openclaw"]), "{skill}");
        for d in skill["diagnostics"].as_array().unwrap() {
            assert_eq!(d["severity"], "warning", "{d}");
            assert!(
                !["SK504", "SK012", "SK108"].contains(&d["code"].as_str().unwrap()),
                "{d}"
            );
        }
    }
    let (code, _, stderr) = run(cx.command(&["preview", "skills", "--target", "openclaw"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot render OpenClaw"), "{stderr}");
}

/// Test fixtures are no skills when a walk finds them, and are checked when named; a SKILL.md
/// nested in a Claude Code plugin's skill is a file of that skill.
#[test]
fn test_data_and_nested_guides_are_no_skills_of_their_own() {
    let cx = TestContext::new();
    cx.write(".git/HEAD", "ref: refs/heads/main\n");
    skill(
        &cx,
        "tools/scanner",
        "",
        "Scan [the samples](test-fixtures/).\n",
    );
    cx.write(
        "tools/scanner/test-fixtures/evasive/SKILL.md",
        "no frontmatter at all\n",
    );
    let (found, _, _) = findings(&cx, &["tools"]);
    assert_eq!(found.keys().collect::<Vec<_>>(), ["tools/scanner/SKILL.md"]);
    let (found, _, _) = findings(&cx, &["tools/scanner/test-fixtures/evasive"]);
    assert!(
        codes_of(&found, "tools/scanner/test-fixtures/evasive/SKILL.md")
            .contains(&"SK004".to_owned())
    );

    cx.write(
        "plugins/zoom/.claude-plugin/plugin.json",
        r#"{"name":"zoom"}"#,
    );
    skill(
        &cx,
        "plugins/zoom/skills/video-sdk",
        "",
        "For the web SDK read [web](web/SKILL.md).\n",
    );
    cx.write(
        "plugins/zoom/skills/video-sdk/web/SKILL.md",
        "---\nname: video-sdk-web\ndescription: The web SDK.\n---\n\nSee [the reference](references/web.md).\n",
    );
    cx.write(
        "plugins/zoom/skills/video-sdk/web/references/web.md",
        "# Web\n",
    );
    let (found, _, _) = findings(&cx, &["plugins"]);
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        ["plugins/zoom/skills/video-sdk/SKILL.md"]
    );
    let codes = codes_of(&found, "plugins/zoom/skills/video-sdk/SKILL.md");
    assert!(
        !codes.contains(&"SK303".to_owned()) && !codes.contains(&"SK108".to_owned()),
        "{codes:?}"
    );
}

/// `backslash-path` leaves Windows commands alone; `allowed-tools-too-broad` stays quiet when a
/// script path is only known at run time or the skill runs code of its own, and reads the
/// command of an `if`; both still fire where they should.
#[test]
fn commands_are_read_for_what_they_run() {
    let cx = TestContext::new();
    skill(
        &cx,
        "skills/windows",
        "",
        "```powershell\n# Windows PowerShell\npython scripts\\catchup.py\n```\n",
    );
    cx.write("skills/windows/scripts/catchup.py", "print(1)\n");
    skill(
        &cx,
        "skills/slashes",
        "",
        "Run scripts\\catchup.py first.\n",
    );
    cx.write("skills/slashes/scripts/catchup.py", "print(1)\n");
    skill(
        &cx,
        "skills/variable",
        "allowed-tools: Bash Read\n",
        "```bash\nDH=\"$(plugin-root)/scripts/hold.sh\"\n\"$DH\" new\n```\n",
    );
    skill(
        &cx,
        "skills/runs-python",
        "allowed-tools: Bash Read\n",
        "```bash\nuv add pyzotero\n```\n\n```python\nfrom pyzotero import zotero\n```\n",
    );
    skill(
        &cx,
        "skills/gh-only",
        "allowed-tools: Bash Read\n",
        "```bash\ngh pr list\nif pgrep -f gh; then gh pr view; fi\n```\n",
    );
    let (found, _, _) = findings(&cx, &["skills"]);
    let has = |file: &str, code: &str| codes_of(&found, file).contains(&code.to_owned());
    assert!(!has("skills/windows/SKILL.md", "SK307"));
    assert!(has("skills/slashes/SKILL.md", "SK307"));
    assert!(!has("skills/variable/SKILL.md", "SK505"));
    assert!(!has("skills/runs-python/SKILL.md", "SK505"));
    // `gh` and the `pgrep` of the condition: two narrow rules would do.
    assert!(has("skills/gh-only/SKILL.md", "SK505"));
}

/// Codex and Gemini CLI load a skill whatever its name looks like, and read YAML that strict
/// parsers reject (Codex repairs it, Gemini CLI reads the `name:` and `description:` lines):
/// warnings there, errors under the spec.
#[test]
fn what_codex_and_gemini_load_is_a_warning_not_an_error() {
    let cx = TestContext::new();
    cx.skill(
        ".gemini/skills/startup-cto",
        "---\nname: Startup CTO\ndescription: Advises on technical strategy: use when planning a product\n---\n\nAdvise.\n",
    );
    cx.skill(
        ".agents/skills/exporter",
        "---\nname: Report_Exporter\ndescription: Exports reports. Use when asked for a report.\n---\n\nExport.\n",
    );
    let (code, stdout, stderr) = run(cx.command(&["validate", ".", "--format", "concise"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    // Gemini CLI reads the `name:` and `description:` lines on their own, so the YAML that a
    // strict parser refuses is no finding for it; the name it keeps is still off the spec.
    assert!(
        !stdout.contains("SK008") && stdout.contains("SK106 warning"),
        "{stdout}"
    );
    let (code, stdout, _) = run(cx.command(&[
        "validate",
        ".",
        "--format",
        "concise",
        "--target",
        "agentskills",
    ]));
    assert_eq!(code, 1);
    assert!(stdout.contains("SK008 error"), "{stdout}");
}

/// Round 5 of the text rules: money, another tool's `$1`, a heading naming `$ARGUMENTS`; a
/// list under a key close to a known one; stand-in tokens; `ADR-XXX:` and "not lorem ipsum";
/// a project's script in a shell block; a sample skill among another's assets.
#[test]
fn round_five_near_misses_stay_quiet_and_defects_still_fire() {
    let cx = TestContext::new();
    skill(
        &cx,
        ".claude/skills/pricing",
        "",
        "Plans go from $1 to $0 after the trial, and add-ons cost $0–$2K/mo.\n\n\
         | Column | Command |\n|---|---|\n| first | `awk '{print $1}' data.txt` |\n\n\
         ### Using $ARGUMENTS\n\nNothing to pass.\n",
    );
    skill(
        &cx,
        ".claude/skills/takes-one",
        "",
        "Open the ticket $1 and then $2.\n",
    );
    skill(
        &cx,
        "skills/bundle",
        "agents:\n  - planner\n  - reviewer\n",
        "Export `SLACK_BOT_TOKEN=xoxb-your-token`.\n\nTitles read `ADR-XXX: Title`, not lorem ipsum dolor text.\n\n\
         ```bash\npython scripts/train.py --epochs 3\n```\n",
    );
    skill(&cx, "skills/typo", "agentt: planner\n", "Steps.\n");
    skill(
        &cx,
        "skills/tester",
        "",
        "Run it on [the sample](assets/sample-skill/SKILL.md).\n",
    );
    cx.write(
        "skills/tester/assets/sample-skill/SKILL.md",
        "# A sample with no frontmatter\n",
    );
    let (found, _, stderr) = findings(&cx, &["."]);
    let has = |file: &str, code: &str| codes_of(&found, file).contains(&code.to_owned());
    assert!(
        !has(".claude/skills/pricing/SKILL.md", "SK509"),
        "{found:?}"
    );
    assert!(
        has(".claude/skills/takes-one/SKILL.md", "SK509"),
        "{found:?}"
    );
    let bundle = codes_of(&found, "skills/bundle/SKILL.md");
    for code in ["SK702", "SK209", "SK303"] {
        assert!(
            !bundle.contains(&code.to_owned()),
            "{code}: {bundle:?} {stderr}"
        );
    }
    // A list under `agents` is the author's own key (a warning under the spec), not a
    // misspelt `agent`, which takes one agent type; `agentt: planner` is one.
    let (code, stdout, _) = run(cx.command(&["validate", "skills/bundle", "--format", "concise"]));
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("SK012 warning: `agents` is not a key of the spec"),
        "{stdout}"
    );
    let (code, stdout, _) = run(cx.command(&["validate", "skills/typo", "--format", "concise"]));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("SK012 error: unknown key `agentt`"),
        "{stdout}"
    );
    assert!(
        !found.contains_key("skills/tester/assets/sample-skill/SKILL.md"),
        "{found:?}"
    );
}

/// Round 6: a SKILL.md that sends the agent to search a whole folder, descriptions that say
/// when in another phrasing or in Chinese and Japanese, a list of markers; each beside the
/// defect the same rule still reports.
#[test]
fn round_six_near_misses_stay_quiet_and_defects_still_fire() {
    let cx = TestContext::new();
    skill(
        &cx,
        "skills/searched",
        "",
        "Grep across `references/` for the topic at hand.\n\nFlag each TODO/FIXME marker the diff adds.\n",
    );
    cx.write("skills/searched/references/alpha.md", "# Alpha\n");
    cx.write("skills/searched/references/beta.md", "# Beta\n");
    skill(
        &cx,
        "skills/forgotten",
        "",
        "Follow the steps.\n\nTODO: write the steps\n",
    );
    cx.write("skills/forgotten/references/gamma.md", "# Gamma\n");
    cx.skill(
        "skills/after-merge",
        "---\nname: after-merge\ndescription: Checks the follow-ups of a merged pull request. Use after a merge to list what is left.\n---\n\nCheck.\n",
    );
    cx.skill(
        "skills/japanese",
        "---\nname: japanese\ndescription: 日本語のドキュメントを校正し、表記ゆれを統一する。文書を公開する前の時に使用。\n---\n\n校正する。\n",
    );
    cx.skill(
        "skills/short-japanese",
        "---\nname: short-japanese\ndescription: 校正する時に使用\n---\n\n校正する。\n",
    );
    cx.skill(
        "skills/no-trigger",
        "---\nname: no-trigger\ndescription: Checks the follow-ups of a merged pull request and lists what is left.\n---\n\nCheck.\n",
    );
    let (found, _, stderr) = findings(&cx, &["."]);
    let has = |file: &str, code: &str| codes_of(&found, file).contains(&code.to_owned());
    let searched = codes_of(&found, "skills/searched/SKILL.md");
    for code in ["SK304", "SK209"] {
        assert!(
            !searched.contains(&code.to_owned()),
            "{code}: {searched:?} {stderr}"
        );
    }
    assert!(has("skills/forgotten/SKILL.md", "SK304"), "{found:?}");
    assert!(has("skills/forgotten/SKILL.md", "SK209"), "{found:?}");
    assert!(!has("skills/after-merge/SKILL.md", "SK206"), "{found:?}");
    assert!(has("skills/no-trigger/SKILL.md", "SK206"), "{found:?}");
    let japanese = codes_of(&found, "skills/japanese/SKILL.md");
    assert!(
        !japanese.contains(&"SK206".to_owned()) && !japanese.contains(&"SK208".to_owned()),
        "{japanese:?}"
    );
    assert!(has("skills/short-japanese/SKILL.md", "SK208"), "{found:?}");
}
