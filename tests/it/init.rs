//! `skillpkg init`: real runs of the binary, and every template rendered every way.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use clap::ValueEnum as _;
use skillpkg::agent::Target;
use skillpkg::check::check_skill;
use skillpkg::scaffold::{self, Resource, Values};
use skillpkg::skill::Skill;

use crate::common::{TestContext, run};
use crate::snapshot;

const DESCRIPTION: &str = "Reports file sizes, line counts and encodings. Use when the user asks \
what is in a folder or why a file looks different.";

impl TestContext {
    /// `skillpkg init ARGS` with no terminal on stdin and a fixed clock.
    fn init(&self, args: &[&str]) -> Command {
        let mut all = vec!["init"];
        all.extend_from_slice(args);
        let mut command = self.command(&all);
        command
            .stdin(Stdio::null())
            .env("SOURCE_DATE_EPOCH", "1764460800");
        command
    }
}

/// Every file and folder under `dir`: path, mode, and each file's contents.
fn dump(dir: &Path) -> String {
    let mut out = format!("=== ./ ({})\n", mode(&fs_err::metadata(dir).unwrap()));
    let mut paths: Vec<_> = walk(dir);
    paths.sort();
    for path in paths {
        let relative = path
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let metadata = fs_err::metadata(&path).unwrap();
        let mode = mode(&metadata);
        if metadata.is_dir() {
            writeln!(out, "=== {relative}/ ({mode})").unwrap();
        } else {
            let text = fs_err::read_to_string(&path).unwrap();
            writeln!(out, "=== {relative} ({mode})\n{text}").unwrap();
        }
    }
    out
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in fs_err::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

#[cfg(unix)]
fn mode(metadata: &std::fs::Metadata) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    format!("{:o}", metadata.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn mode(_metadata: &std::fs::Metadata) -> String {
    "-".into()
}

/// The names in `dir`, to show nothing else was created.
fn listing(dir: &Path) -> BTreeSet<String> {
    fs_err::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn all_targets() -> Vec<&'static str> {
    Target::value_variants()
        .iter()
        .map(|target| target.name())
        .collect()
}

#[test]
fn every_template_generates_its_tree() {
    for template in scaffold::templates() {
        let context = TestContext::new();
        let (code, stdout, stderr) = run(context.init(&[
            "demo-skill",
            "--template",
            template.name,
            "--description",
            DESCRIPTION,
            "--license",
            "MIT",
        ]));
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout, "");
        let skill = context.root().join("demo-skill");
        let snapshot = format!(
            "$ skillpkg init demo-skill --template {} …\n{stderr}\n{}",
            template.name,
            dump(&skill)
        );
        context.settings().bind(|| {
            insta::assert_snapshot!(format!("init__template__{}", template.name), snapshot);
        });
        // Nothing but the skill is left beside it: no staging folder.
        assert_eq!(
            listing(context.root()),
            BTreeSet::from(["demo-skill".to_owned()])
        );

        // The generated skill, read back from disk, passes every target without a finding.
        let mut args = vec!["demo-skill", "--format", "concise"];
        for target in all_targets() {
            args.extend(["--target", target]);
        }
        let (code, stdout, stderr) = run(context.validate(&args));
        assert_eq!(
            (code, stdout.as_str()),
            (0, ""),
            "{}: {stderr}",
            template.name
        );
    }
}

/// Every resource subset, rendered in memory for speed: 5 templates × 8 subsets × 4 variants.
#[test]
fn every_template_and_resource_combination_is_clean_for_every_target() {
    let subsets: Vec<Vec<Resource>> = (0..8u8)
        .map(|bits| {
            Resource::ALL
                .into_iter()
                .enumerate()
                .filter(|(index, _)| bits & (1 << index) != 0)
                .map(|(_, resource)| resource)
                .collect()
        })
        .collect();
    let descriptions = [DESCRIPTION, skillpkg::check::lint::PLACEHOLDER_DESCRIPTION];
    for template in scaffold::templates() {
        for resources in &subsets {
            for description in descriptions {
                for license in [None, Some("Apache-2.0")] {
                    let values = Values {
                        name: "demo-skill".into(),
                        description: description.into(),
                        license: license.map(Into::into),
                        year: 2026,
                        resources: resources.clone(),
                    };
                    let case = format!(
                        "{} {resources:?} {license:?} {description:.20}",
                        template.name
                    );
                    let files = scaffold::render(template, &values).expect(&case);
                    check_files(&files, resources, &case);
                }
            }
        }
    }
}

/// One generated skill: valid everywhere, and every file and mention consistent.
fn check_files(files: &[scaffold::File], resources: &[Resource], case: &str) {
    let skill_md = files.iter().find(|f| f.path == "SKILL.md").expect(case);
    let skill = Skill::from_bytes(
        "demo-skill/SKILL.md".into(),
        "demo-skill".into(),
        skill_md.contents.clone().into_bytes(),
    );
    let checked = check_skill(skill, &Target::ALL);
    let findings: Vec<String> = checked
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.rule.code, d.message))
        .collect();
    assert!(findings.is_empty(), "{case}: {findings:?}");

    let folders: BTreeSet<&str> = files
        .iter()
        .filter_map(|f| f.path.split_once('/').map(|(folder, _)| folder))
        .collect();
    let wanted: BTreeSet<&str> = resources.iter().map(|r| r.folder()).collect();
    assert_eq!(folders, wanted, "{case}");
    let text = &skill_md.contents;
    for file in files.iter().filter(|f| f.path != "SKILL.md") {
        // Every bundled file is mentioned, so the model knows it exists.
        assert!(
            text.contains(&file.path),
            "{case}: SKILL.md never mentions {}",
            file.path
        );
        assert!(
            !file.contents.contains("{{"),
            "{case}: {} has a placeholder left",
            file.path
        );
        if file.path.starts_with("scripts/") {
            assert!(
                file.executable && file.contents.starts_with("#!/usr/bin/env "),
                "{case}: {}",
                file.path
            );
        }
    }
    // Every resource path SKILL.md mentions exists.
    for folder in ["scripts/", "references/", "assets/"] {
        for (at, _) in text.match_indices(folder) {
            let path: String = text[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '/' | '_' | '-' | '.'))
                .collect();
            let path = path.trim_end_matches('.');
            if path.len() > folder.len() {
                assert!(
                    files.iter().any(|f| f.path == path),
                    "{case}: SKILL.md mentions {path}, which is not generated"
                );
            }
        }
    }
    // Nothing a template author meant to replace is left, apart from the placeholder description.
    assert!(!text.contains("{{"), "{case}");
    if !text.contains("TODO: say what") {
        assert!(!text.contains("TODO"), "{case}");
    }
    let allowed_tools = text.lines().find(|line| line.starts_with("allowed-tools:"));
    if let Some(line) = allowed_tools {
        for script in files.iter().filter(|f| f.path.starts_with("scripts/")) {
            assert!(
                line.contains(&format!("${{CLAUDE_SKILL_DIR}}/{}", script.path)),
                "{case}: {line}"
            );
        }
    }
}

/// The bundled scripts run: `--help` works, and they do their job without asking anything.
#[test]
fn bundled_scripts_run_without_prompts() {
    let python = which_python();
    let context = TestContext::new();
    let (code, _, stderr) = run(context.init(&[
        "demo",
        "--template",
        "workflow",
        "-d",
        DESCRIPTION,
        "--resources",
        "scripts,assets",
    ]));
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) =
        run(context.init(&["tools", "--template", "script", "-d", DESCRIPTION]));
    assert_eq!(code, 0, "{stderr}");
    for script in [
        "demo/scripts/checkpoint.py",
        "tools/scripts/inspect_files.py",
    ] {
        let output = Command::new(&python)
            .arg(context.root().join(script))
            .arg("--help")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(output.status.success(), "{script} --help");
        assert!(
            String::from_utf8_lossy(&output.stdout).contains("usage:"),
            "{script}"
        );
    }

    let inspect = |args: &[&str]| {
        let output = Command::new(&python)
            .arg(context.root().join("tools/scripts/inspect_files.py"))
            .args(args)
            .current_dir(context.root())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    context.write("data/crlf.txt", "a\r\nb\r\n");
    let (code, stdout, _) = inspect(&["data"]);
    assert_eq!(code, Some(0));
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["files"][0]["line_endings"], "crlf");
    assert_eq!(json["files"][0]["lines"], 2);
    let (code, _, stderr) = inspect(&["missing.txt"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "inspect_files.py: missing.txt: no such file or folder\n"
    );

    let checkpoint = |args: &[&str]| {
        let output = Command::new(&python)
            .arg(context.root().join("demo/scripts/checkpoint.py"))
            .args(args)
            .current_dir(context.root())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    assert_eq!(checkpoint(&["start", "plan", "apply"]).0, Some(0));
    let (code, stderr) = checkpoint(&["done", "apply"]);
    assert_eq!(
        (code, stderr.as_str()),
        (
            Some(1),
            "checkpoint.py: step 'plan' comes before 'apply' and is not done\n"
        )
    );
    assert_eq!(checkpoint(&["done", "plan", "--note", "ok"]).0, Some(0));
    assert_eq!(checkpoint(&["done", "apply"]).0, Some(0));
    assert_eq!(checkpoint(&["finish"]).0, Some(0));
    assert!(!context.root().join(".workflow-progress.json").exists());
}

fn which_python() -> String {
    for candidate in ["python3", "python"] {
        if Command::new(candidate)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return candidate.to_owned();
        }
    }
    panic!("the template scripts' tests need Python 3 on PATH (python3 or python)");
}

#[test]
fn list_shows_every_template() {
    let context = TestContext::new();
    snapshot!(context, "init__list", context.init(&["--list"]));
}

#[test]
fn bad_names_are_refused_with_a_suggestion_and_nothing_is_written() {
    let context = TestContext::new();
    let cases: &[(&str, &[&str])] = &[
        ("my_pdf_tool", &["My PDF Tool"]),
        ("hyphens", &["--", "-pdf--tool-"]),
        ("path", &["skills/pdf-tool"]),
        ("too_long", &[&"a".repeat(65)]),
        ("empty", &[""]),
        (
            "reserved_for_claude_ai",
            &["claude-helper", "--target", "claude-ai"],
        ),
        (
            "non_ascii_for_claude_ai",
            &["résumé-writer", "--target", "claude-ai"],
        ),
    ];
    for (name, args) in cases {
        snapshot!(
            context,
            format!("init__bad_name__{name}"),
            context.init(args)
        );
        assert!(listing(context.root()).is_empty(), "{name}");
    }
    // The spec allows Unicode letters; claude.ai does not.
    let (code, _, stderr) = run(context.init(&["résumé-writer", "-d", DESCRIPTION]));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn an_existing_folder_is_never_touched() {
    let context = TestContext::new();
    context.write("taken/notes.md", "mine\n");
    context.write("file-skill", "a file\n");
    fs_err::create_dir(context.root().join("empty-skill")).unwrap();
    let before = dump(context.root());

    snapshot!(
        context,
        "init__refuses_non_empty_folder",
        context.init(&["taken", "-d", DESCRIPTION])
    );
    let (code, _, stderr) = run(context.init(&["file-skill", "-d", DESCRIPTION]));
    assert_eq!(code, 1);
    assert!(
        stderr.contains("`file-skill` already exists and is not a folder; nothing was changed"),
        "{stderr}"
    );
    assert_eq!(dump(context.root()), before);

    let (code, _, stderr) =
        run(context.init(&["inside", "--path", "file-skill", "-d", DESCRIPTION]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("error: `file-skill` is not a folder"),
        "{stderr}"
    );
    assert_eq!(dump(context.root()), before);

    // An empty folder is fine: it is what `mkdir x && cd x && skillpkg init x --path ..` leaves.
    let (code, _, stderr) = run(context.init(&["empty-skill", "-d", DESCRIPTION]));
    assert_eq!(code, 0, "{stderr}");
    assert!(context.root().join("empty-skill/SKILL.md").is_file());
    assert_eq!(
        listing(context.root()),
        BTreeSet::from(["empty-skill", "file-skill", "taken"].map(String::from))
    );
}

#[test]
fn without_a_terminal_the_description_is_a_marked_placeholder() {
    let context = TestContext::new();
    snapshot!(
        context,
        "init__placeholder_description",
        context.init(&["notes-helper"])
    );
    let text = fs_err::read_to_string(context.root().join("notes-helper/SKILL.md")).unwrap();
    assert!(
        text.contains("description: \"TODO: say what this skill does"),
        "{text}"
    );
    let (code, _, stderr) = run(context.validate(&["notes-helper"]));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn path_is_created_and_used_in_the_next_steps() {
    let context = TestContext::new();
    snapshot!(
        context,
        "init__path_with_space",
        context.init(&[
            "pdf-forms",
            "--path",
            "my skills/team",
            "-d",
            DESCRIPTION,
            "--no-resources",
            "--template",
            "script"
        ])
    );
    assert!(
        context
            .root()
            .join("my skills/team/pdf-forms/SKILL.md")
            .is_file()
    );
    assert_eq!(
        listing(&context.root().join("my skills/team")),
        BTreeSet::from(["pdf-forms".to_owned()])
    );
}

#[test]
fn a_description_that_a_target_rejects_writes_nothing() {
    let context = TestContext::new();
    snapshot!(
        context,
        "init__description_rejected",
        context.init(&[
            "xml-helper",
            "-d",
            "Wraps text in <tags>. Use when asked.",
            "--target",
            "claude-ai"
        ])
    );
    assert!(listing(context.root()).is_empty());
    let (code, _, stderr) = run(context.init(&["x", "-d", "two\nlines"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--description must be one line of text"),
        "{stderr}"
    );
    let (code, _, stderr) = run(context.init(&["x", "-d", "   "]));
    assert_eq!(code, 2);
    assert!(stderr.contains("--description is empty"), "{stderr}");
    assert!(listing(context.root()).is_empty());
}

#[test]
fn descriptions_that_need_quoting_round_trip() {
    let context = TestContext::new();
    let tricky = "yes: it's \"quoted\" # not a comment, and a backslash \\ too. Use when asked.";
    let (code, _, stderr) =
        run(context.init(&["quoting", "-d", tricky, "--license", "MIT OR Apache-2.0"]));
    assert_eq!(code, 0, "{stderr}");
    let text = fs_err::read_to_string(context.root().join("quoting/SKILL.md")).unwrap();
    let skill = Skill::from_bytes(
        "quoting/SKILL.md".into(),
        "quoting".into(),
        text.into_bytes(),
    );
    let reading = skill.reading().expect("frontmatter");
    let doc = reading.doc.as_ref().expect("a parsed document");
    assert_eq!(
        doc.description.as_deref().unwrap().value.as_deref(),
        Ok(tricky)
    );
    assert_eq!(
        doc.license.as_deref().unwrap().value.as_deref(),
        Ok("MIT OR Apache-2.0")
    );
}

#[test]
fn resources_flag_chooses_the_folders() {
    let context = TestContext::new();
    let (code, _, stderr) = run(context.init(&[
        "a",
        "-d",
        DESCRIPTION,
        "--resources",
        "assets,scripts,assets",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        listing(&context.root().join("a")),
        BTreeSet::from(["SKILL.md", "assets", "scripts"].map(String::from))
    );
    let (code, _, stderr) = run(context.init(&[
        "b",
        "--template",
        "script",
        "-d",
        DESCRIPTION,
        "--no-resources",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        listing(&context.root().join("b")),
        BTreeSet::from(["SKILL.md".to_owned()])
    );
    let (code, _, stderr) = run(context.init(&["c", "--resources", "scripts", "--no-resources"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    let (code, _, stderr) = run(context.init(&["c", "--template", "nope"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("possible values: basic, reference, script, template-fill, workflow"),
        "{stderr}"
    );
    assert!(!context.root().join("c").exists());
}

/// On a terminal, init asks for the description and asks again after an empty answer. The
/// terminal is a real pseudo-terminal, made by util-linux `script`.
#[cfg(target_os = "linux")]
#[test]
fn on_a_terminal_the_description_is_asked_for() {
    use std::io::Write as _;
    let context = TestContext::new();
    let binary = insta_cmd::get_cargo_bin("skillpkg");
    let mut child = Command::new("script")
        .args(["--quiet", "--return", "--command"])
        .arg(format!("'{}' init notes --color never", binary.display()))
        .arg("/dev/null")
        .current_dir(context.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("these tests need util-linux `script` to make a terminal");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"\nFormats notes. Use when asked.\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{shown}");
    assert!(shown.contains("Describe `notes` in one line"), "{shown}");
    assert_eq!(
        shown.matches("A description is required").count(),
        1,
        "{shown}"
    );
    let text = fs_err::read_to_string(context.root().join("notes/SKILL.md")).unwrap();
    assert!(
        text.starts_with("---\nname: notes\ndescription: Formats notes. Use when asked.\n---\n"),
        "{text}"
    );
}

#[test]
fn targets_come_from_skillpkg_toml_above_the_new_skill() {
    let context = TestContext::new();
    context.write("skills/skillpkg.toml", "targets = [\"claude-ai\"]\n");
    let (code, _, stderr) =
        run(context.init(&["claude-notes", "--path", "skills", "-d", DESCRIPTION]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("`name` contains the reserved word `claude`"),
        "{stderr}"
    );
    assert!(stderr.contains("try `skillpkg init notes`"), "{stderr}");
    // --target overrides the file.
    let (code, _, stderr) = run(context.init(&[
        "claude-notes",
        "--path",
        "skills",
        "-d",
        DESCRIPTION,
        "-t",
        "agentskills",
    ]));
    assert_eq!(code, 0, "{stderr}");
    context.write("bad/skillpkg.toml", "targets = [\"nope\"]\n");
    let (code, _, stderr) = run(context.init(&["x", "--path", "bad", "-d", DESCRIPTION]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("skillpkg.toml:1:"), "{stderr}");
    assert!(!context.root().join("bad/x").exists());
}

#[test]
fn help_explains_the_command() {
    let context = TestContext::new();
    snapshot!(context, "init__help", context.init(&["--help"]));
}

/// Every template with every resource combination, written by `init` and linted for every
/// target: no finding at all. Without `--description`, the placeholder is the only finding.
#[test]
fn generated_skills_lint_clean_for_every_target() {
    let context = TestContext::new();
    let actions = ["Summarises", "Audits", "Converts", "Validates", "Renders"];
    let topics = [
        "invoices",
        "contracts",
        "tickets",
        "charts",
        "schemas",
        "logs",
        "datasets",
        "releases",
    ];
    let teams = [
        "finance", "legal", "support", "design", "platform", "security", "research",
    ];
    let subsets = [
        "",
        "scripts",
        "references",
        "assets",
        "scripts,references",
        "scripts,assets",
        "references,assets",
        "scripts,references,assets",
    ];
    let mut index = 0;
    for template in scaffold::templates() {
        for (bits, subset) in subsets.iter().enumerate() {
            let name = format!("{}-{bits}", template.name);
            let description = format!(
                "{} {} exported by the {} team into a short report. Use when the user asks about {} from {}.",
                actions[index % actions.len()],
                topics[index % topics.len()],
                teams[index % teams.len()],
                topics[index % topics.len()],
                teams[index % teams.len()],
            );
            index += 1;
            let mut args = vec![
                name.as_str(),
                "--path",
                "skills",
                "--template",
                template.name,
                "-d",
                &description,
            ];
            if subset.is_empty() {
                args.push("--no-resources");
            } else {
                args.extend(["--resources", subset]);
            }
            let (code, _, stderr) = run(context.init(&args));
            assert_eq!(code, 0, "{name}: {stderr}");
        }
        let (code, _, stderr) = run(context.init(&[
            template.name,
            "--path",
            "placeholders",
            "--template",
            template.name,
        ]));
        assert_eq!(code, 0, "{stderr}");
    }
    let mut args = vec![
        "lint",
        "skills",
        "--format",
        "concise",
        "--context-window",
        "1000000",
    ];
    for target in all_targets() {
        args.extend(["--target", target]);
    }
    let (code, stdout, stderr) = run(context.command(&args));
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("all 40 valid (no problems)"), "{stderr}");

    let (code, stdout, _) = run(context.command(&[
        "lint",
        "placeholders",
        "--format",
        "json",
        // The placeholders are the same text, so they are also near-duplicates of each other.
        "--ignore",
        "similar-descriptions",
    ]));
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut codes = BTreeSet::new();
    for skill in json["skills"].as_array().unwrap() {
        let found: Vec<&str> = skill["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        assert!(!found.is_empty(), "{}", skill["path"]);
        codes.extend(found);
    }
    assert_eq!(codes, BTreeSet::from(["SK209"]));
}
