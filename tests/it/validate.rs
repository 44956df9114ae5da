//! `skillpkg validate`: real runs of the binary.

use std::collections::BTreeSet;
use std::io::Read;
use std::process::Stdio;

use crate::common::{TestContext, run};
use crate::fixtures::write_fixture_set;
use crate::snapshot;

fn fixture_context() -> TestContext {
    let context = TestContext::new();
    write_fixture_set(&context);
    context
}

#[test]
fn fixture_set_human() {
    let context = fixture_context();
    snapshot!(
        context,
        "validate__fixture_set__human",
        context.validate(&["skills"])
    );
}

#[test]
fn fixture_set_concise() {
    let context = fixture_context();
    snapshot!(
        context,
        "validate__fixture_set__concise",
        context.validate(&["skills", "--format", "concise"])
    );
}

#[test]
fn fixture_set_json() {
    let context = fixture_context();
    snapshot!(
        context,
        "validate__fixture_set__json",
        context.validate(&["skills", "--format", "json"])
    );
}

#[test]
fn fixture_set_github() {
    let context = fixture_context();
    snapshot!(
        context,
        "validate__fixture_set__github",
        context.validate(&["skills", "--format", "github"])
    );
}

#[test]
fn fixture_set_sarif() {
    let context = fixture_context();
    snapshot!(
        context,
        "validate__fixture_set__sarif",
        context.validate(&["skills", "--format", "sarif"])
    );
}

#[test]
fn fixture_set_per_target() {
    let context = fixture_context();
    for target in [
        "claude-code",
        "claude-code@2.1.88",
        "skills-ref",
        "claude-ai",
        "codex",
    ] {
        let name = format!(
            "validate__fixture_set__target_{}",
            target.replace(['@', '.'], "_")
        );
        snapshot!(
            context,
            name,
            context.validate(&["skills", "--target", target, "--format", "concise"])
        );
    }
}

#[test]
fn several_targets_merge_findings_and_name_their_targets() {
    let context = fixture_context();
    snapshot!(
        context,
        "validate__several_targets",
        context.validate(&[
            "skills/claude-keys",
            "skills/claude-helper",
            "skills/unquoted-colon",
            "--target",
            "agentskills",
            "--target",
            "claude-code",
            "--target",
            "claude-ai",
        ])
    );
}

/// Every rule in the registry fires on the fixture set under some target.
#[test]
fn the_fixture_set_covers_every_rule() {
    let context = fixture_context();
    let mut fired = BTreeSet::new();
    for target in [
        "agentskills",
        "claude-code",
        "claude-code@2.1.88",
        "skills-ref",
        "claude-ai",
    ] {
        let (_, stdout, _) =
            run(context.validate(&["skills", "--target", target, "--format", "json"]));
        let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
        for skill in document["skills"].as_array().expect("skills") {
            for diagnostic in skill["diagnostics"].as_array().expect("diagnostics") {
                fired.insert(diagnostic["code"].as_str().expect("code").to_owned());
            }
        }
    }
    let all: BTreeSet<String> = skillpkg::check::rule::ALL
        .iter()
        .filter(|rule| rule.kind == skillpkg::check::rule::Kind::Validate)
        .map(|rule| rule.code.to_owned())
        .collect();
    let missing: Vec<&String> = all.difference(&fired).collect();
    assert!(
        missing.is_empty(),
        "rules that never fire on the fixture set: {missing:?}"
    );
}

#[test]
fn json_has_a_stable_versioned_shape() {
    let context = fixture_context();
    let (code, stdout, stderr) = run(context.validate(&["skills", "--format", "json"]));
    assert_eq!(code, 1);
    assert!(
        stderr.is_empty(),
        "machine formats keep stderr quiet: {stderr}"
    );
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(document["version"], 1);
    let summary = &document["summary"];
    let skills = document["skills"].as_array().expect("skills");
    assert_eq!(summary["skills"], skills.len());
    let errors: u64 = skills
        .iter()
        .map(|skill| skill["errors"].as_u64().unwrap())
        .sum();
    assert_eq!(summary["errors"], errors);
    for skill in skills {
        assert_eq!(skill["valid"], skill["errors"] == 0);
        for diagnostic in skill["diagnostics"].as_array().unwrap() {
            for key in [
                "code",
                "name",
                "severity",
                "message",
                "file",
                "line",
                "column",
                "end_line",
                "end_column",
                "targets",
            ] {
                assert!(
                    diagnostic.get(key).is_some(),
                    "{key} missing in {diagnostic}"
                );
            }
        }
    }
}

#[test]
fn sarif_is_what_code_scanning_expects() {
    let context = fixture_context();
    let (_, stdout, _) = run(context.validate(&["skills", "--format", "sarif"]));
    let sarif: serde_json::Value = serde_json::from_str(&stdout).expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let validate_rules = skillpkg::check::rule::ALL
        .iter()
        .filter(|rule| rule.kind == skillpkg::check::rule::Kind::Validate)
        .count();
    assert_eq!(rules.len(), validate_rules);
    for result in run["results"].as_array().expect("results") {
        let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let location = &result["locations"][0]["physicalLocation"];
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.starts_with("skills/"), "repository-relative URI: {uri}");
        assert!(location["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(["error", "warning"].contains(&result["level"].as_str().unwrap()));
    }
}

#[test]
fn github_annotations_give_columns_only_on_one_line() {
    let context = fixture_context();
    let (_, stdout, _) = run(context.validate(&["skills", "--format", "github"]));
    let multi_line: Vec<&str> = stdout
        .lines()
        .filter(|line| {
            let line_no = field(line, "line=");
            let end = field(line, "endLine=");
            line_no.is_some() && line_no != end
        })
        .collect();
    assert!(
        !multi_line.is_empty(),
        "the fixture set has a multi-line finding"
    );
    for line in multi_line {
        assert!(!line.contains("col="), "{line}");
    }
    assert!(stdout.lines().any(|line| line.contains(",col=")));
}

fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let start = line
        .find(&format!(",{name}"))
        .map(|at| at + name.len() + 1)?;
    line[start..].split([',', ':']).next()
}

#[test]
fn a_valid_skill_passes() {
    let context = TestContext::new();
    context.skill("pdf-tools", "---\nname: pdf-tools\ndescription: Fills PDF forms. Use when the user mentions PDF forms.\n---\n# PDF tools\n");
    snapshot!(
        context,
        "validate__valid_skill",
        context.validate(&["pdf-tools"])
    );
}

#[test]
fn warnings_alone_exit_zero() {
    let context = TestContext::new();
    context.skill("pdf-tools", "---\nname: pdf-tools\ndescription: Fills PDF forms.\nwhen_to_use: When the user mentions PDF forms.\n---\nBody\n");
    let (code, _, stderr) = run(context.validate(&[]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("warning[SK013]"), "{stderr}");
}

#[test]
fn the_default_path_is_the_current_folder_and_a_skill_md_can_be_named() {
    let context = TestContext::new();
    context.skill("a", "---\nname: a\ndescription: d\n---\n");
    context.skill("b", "---\nname: x\ndescription: d\n---\n");
    let (code, _, stderr) = run(context.validate(&[]));
    assert_eq!(code, 1);
    assert!(stderr.contains("Checked 2 skills"), "{stderr}");
    let (code, _, stderr) = run(context.validate(&["a/SKILL.md"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Checked 1 skill "), "{stderr}");
    // Run from inside the skill, the folder name still counts.
    let mut inside = context.validate(&[]);
    inside.current_dir(context.root().join("b"));
    let (code, _, stderr) = run(inside);
    assert_eq!(code, 1);
    assert!(stderr.contains("the skill's folder is `b`"), "{stderr}");
}

#[test]
fn discovery_walks_hidden_folders_but_not_vcs_dependencies_or_ignored_paths() {
    let context = TestContext::new();
    let ok = "---\nname: NAME\ndescription: d\n---\n";
    for dir in [
        ".claude/skills/one",
        ".agents/skills/two",
        ".github/skills/three",
        "node_modules/pkg/dep",
        ".git/hooks/vcs",
        "build/generated",
        "skills/four",
    ] {
        let name = dir.rsplit('/').next().unwrap();
        context.skill(dir, &ok.replace("NAME", name));
    }
    context.write(".gitignore", "build/\n");
    let (code, stdout, stderr) = run(context.validate(&["--format", "concise"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("Checked 4 skills"), "{stderr}");
    let (_, stdout, _) = run(context.validate(&["--format", "json"]));
    let document: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let files: Vec<&str> = document["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            ".agents/skills/two/SKILL.md",
            ".claude/skills/one/SKILL.md",
            ".github/skills/three/SKILL.md",
            "skills/four/SKILL.md"
        ]
    );
}

#[test]
fn the_same_skill_through_two_paths_is_checked_once() {
    let context = TestContext::new();
    context.skill("skills/a", "---\nname: a\ndescription: d\n---\n");
    let (code, _, stderr) = run(context.validate(&["skills", "skills/a", "./skills/a/SKILL.md"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Checked 1 skill "), "{stderr}");
}

#[test]
fn a_missing_path_is_an_error_naming_it() {
    let context = TestContext::new();
    context.skill("a", "---\nname: a\ndescription: d\n---\n");
    snapshot!(
        context,
        "validate__missing_path",
        context.validate(&["a", "no-such-folder", "also-missing/SKILL.md"])
    );
}

#[test]
fn a_file_that_is_not_skill_md_is_a_usage_error() {
    let context = TestContext::new();
    context.write("README.md", "# readme\n");
    snapshot!(
        context,
        "validate__not_a_skill_file",
        context.validate(&["README.md"])
    );
}

#[test]
fn a_folder_without_skills_is_a_usage_error() {
    let context = TestContext::new();
    context.write("docs/guide.md", "# guide\n");
    snapshot!(
        context,
        "validate__no_skills_found",
        context.validate(&["docs"])
    );
}

#[test]
fn an_unknown_target_is_a_usage_error() {
    let context = TestContext::new();
    snapshot!(
        context,
        "validate__unknown_target",
        context.validate(&["--target", "claude"])
    );
}

#[test]
fn skillpkg_toml_sets_targets_and_the_command_line_wins() {
    let context = TestContext::new();
    context.skill(
        "repo/skills/claude-helper",
        "---\nname: claude-helper\ndescription: Helps.\n---\n",
    );
    context.write("repo/skillpkg.toml", "targets = [\"claude-ai\"]\n");
    let (code, _, stderr) = run(context.validate(&["repo"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("SK109"), "{stderr}");
    assert!(stderr.contains("against claude-ai"), "{stderr}");
    let (code, _, stderr) = run(context.validate(&["repo", "--target", "agentskills"]));
    assert_eq!(code, 0, "{stderr}");
    // Found by walking up from a path inside the project, too.
    let (code, _, _) = run(context.validate(&["repo/skills/claude-helper"]));
    assert_eq!(code, 1);
}

#[test]
fn a_broken_skillpkg_toml_is_an_error_naming_the_file_and_place() {
    let context = TestContext::new();
    context.skill("repo/skills/a", "---\nname: a\ndescription: d\n---\n");
    context.write(
        "repo/skillpkg.toml",
        "# settings\ntargets = [\"agentskills\", \"claude\"]\n",
    );
    snapshot!(
        context,
        "validate__bad_config_target",
        context.validate(&["repo"])
    );
    context.write("repo/skillpkg.toml", "targets = [\"agentskills\"\n");
    snapshot!(
        context,
        "validate__bad_config_syntax",
        context.validate(&["repo"])
    );
}

#[test]
fn each_bad_input_on_its_own() {
    let context = fixture_context();
    for skill in [
        "invalid-utf8",
        "bom-skill",
        "crlf-skill",
        "no-frontmatter",
        "blank-first-line",
        "unclosed",
        "empty-frontmatter",
        "list-frontmatter",
        "unquoted-colon",
        "bad-yaml",
        "duplicate-key",
        "tab-indent",
        "dashes-in-value",
        "missing-description",
    ] {
        for target in ["agentskills", "claude-code", "skills-ref"] {
            snapshot!(
                context,
                format!("validate__bad_input__{skill}__{target}"),
                context.validate(&[&format!("skills/{skill}"), "--target", target])
            );
        }
    }
}

/// A SKILL.md that is a link to nothing is the repository's defect: a finding (exit 1), the
/// other skills still checked. One that cannot be read as a file (a link to a device) is an
/// I/O error naming it (exit 2).
#[cfg(unix)]
#[test]
fn a_dangling_link_is_a_finding_and_an_unreadable_file_an_io_error() {
    let context = TestContext::new();
    context.skill("good", "---\nname: good\ndescription: d\n---\n");
    fs_err::create_dir_all(context.root().join("dangling")).unwrap();
    std::os::unix::fs::symlink("nowhere/SKILL.md", context.root().join("dangling/SKILL.md"))
        .unwrap();
    let (code, _, stderr) = run(context.validate(&[]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("error[SK017]: the skill file is a symbolic link to `nowhere/SKILL.md`")
            && stderr.contains("Checked 2 skills "),
        "{stderr}"
    );
    fs_err::create_dir_all(context.root().join("device")).unwrap();
    std::os::unix::fs::symlink("/dev/null", context.root().join("device/SKILL.md")).unwrap();
    let (code, _, stderr) = run(context.validate(&[]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("error: cannot read the skill file") && stderr.contains("device/SKILL.md"),
        "{stderr}"
    );
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let context = fixture_context();
    let (_, _, plain) = run(context.validate(&["skills/unknown-key"]));
    assert!(!plain.contains('\u{1b}'), "no colour into a pipe");
    let (_, _, coloured) = run(context.validate(&["skills/unknown-key", "--color", "always"]));
    assert!(coloured.contains("\u{1b}["), "--color always forces colour");
    let mut forced = context.validate(&["skills/unknown-key"]);
    forced.env("CLICOLOR_FORCE", "1");
    let (_, _, forced) = run(forced);
    assert!(forced.contains("\u{1b}["), "CLICOLOR_FORCE forces colour");
    let mut no_color = context.validate(&["skills/unknown-key"]);
    no_color.env("CLICOLOR_FORCE", "1").env("NO_COLOR", "1");
    let (_, _, no_color) = run(no_color);
    assert!(!no_color.contains('\u{1b}'), "NO_COLOR wins");
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let context = fixture_context();
    let mut command = context.validate(&["skills", "--format", "sarif"]);
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0_u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty());
}

#[test]
fn help_explains_the_command() {
    let context = TestContext::new();
    snapshot!(context, "validate__help", context.validate(&["--help"]));
}
