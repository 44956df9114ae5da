//! Verdict parity with the reference validator, `skills-ref validate`.
//!
//! Every one of its 40 test cases (`skills-ref/tests/test_{validator,parser,prompt}.py` at
//! agentskills/agentskills@69ef37e) and every row of the behaviour matrix in
//! `docs/research/spec-and-refs-behavior-matrix.txt`, with the verdict skills-ref 0.1.1 gives. The
//! table is checked against skillpkg here, and against the real reference by
//! `skills_ref_agrees_with_the_table` (ignored unless `SKILLS_REF_BIN` names an `agentskills`
//! binary; `.ci/run` installs one).

use std::process::Command;

use crate::common::{TestContext, run};

/// What to put on disk and which path to validate.
enum Setup {
    /// `dir/SKILL.md` with these bytes; validate `dir`.
    Skill(&'static str, Vec<u8>),
    /// Files (path, bytes) and the paths to validate, each one a skill folder or file as
    /// `skills-ref validate` takes them (it takes one at a time; skillpkg takes them all).
    Files(Vec<(String, Vec<u8>)>, Vec<&'static str>),
}

struct Case {
    name: &'static str,
    setup: Setup,
    valid: bool,
}

fn skill(name: &'static str, dir: &'static str, text: impl Into<String>, valid: bool) -> Case {
    Case {
        name,
        setup: Setup::Skill(dir, text.into().into_bytes()),
        valid,
    }
}

fn files(name: &'static str, files: &[(&str, &[u8])], path: &'static str, valid: bool) -> Case {
    files_at(name, files, &[path], valid)
}

fn files_at(
    name: &'static str,
    files: &[(&str, &[u8])],
    paths: &[&'static str],
    valid: bool,
) -> Case {
    Case {
        name,
        setup: Setup::Files(
            files
                .iter()
                .map(|(path, bytes)| ((*path).to_owned(), bytes.to_vec()))
                .collect(),
            paths.to_vec(),
        ),
        valid,
    }
}

fn fm(body: &str) -> String {
    format!("---\n{body}---\nBody\n")
}

#[allow(clippy::too_many_lines)]
fn cases() -> Vec<Case> {
    let a70 = "a".repeat(70);
    let a64 = "a".repeat(64);
    let a65 = "a".repeat(65);
    let x1100 = "x".repeat(1100);
    let x1024 = "x".repeat(1024);
    let x1025 = "x".repeat(1025);
    let x550 = "x".repeat(550);
    let x501 = "x".repeat(501);
    vec![
        // test_validator.py
        skill(
            "test_valid_skill",
            "my-skill",
            "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n",
            true,
        ),
        files("test_nonexistent_path", &[], "nonexistent", false),
        files(
            "test_not_a_directory",
            &[("file.txt", b"test")],
            "file.txt",
            false,
        ),
        files(
            "test_missing_skill_md",
            &[("my-skill/.keep", b"")],
            "my-skill",
            false,
        ),
        skill(
            "test_invalid_name_uppercase",
            "MySkill",
            fm("name: MySkill\ndescription: A test skill\n"),
            false,
        ),
        skill(
            "test_name_too_long",
            leak(a70.clone()),
            fm(&format!("name: {a70}\ndescription: A test skill\n")),
            false,
        ),
        skill(
            "test_name_leading_hyphen",
            "-my-skill",
            fm("name: -my-skill\ndescription: A test skill\n"),
            false,
        ),
        skill(
            "test_name_consecutive_hyphens",
            "my--skill",
            fm("name: my--skill\ndescription: A test skill\n"),
            false,
        ),
        skill(
            "test_name_invalid_characters",
            "my_skill",
            fm("name: my_skill\ndescription: A test skill\n"),
            false,
        ),
        skill(
            "test_name_directory_mismatch",
            "wrong-name",
            fm("name: correct-name\ndescription: A test skill\n"),
            false,
        ),
        skill(
            "test_unexpected_fields",
            "my-skill",
            fm("name: my-skill\ndescription: A test skill\nunknown_field: should not be here\n"),
            false,
        ),
        skill(
            "test_valid_with_all_fields",
            "my-skill",
            fm(
                "name: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test\n",
            ),
            true,
        ),
        skill(
            "test_allowed_tools_accepted",
            "my-skill",
            fm(
                "name: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n",
            ),
            true,
        ),
        skill(
            "test_i18n_chinese_name",
            "技能",
            fm("name: 技能\ndescription: A skill with Chinese name\n"),
            true,
        ),
        skill(
            "test_i18n_russian_name_with_hyphens",
            "мой-навык",
            fm("name: мой-навык\ndescription: A skill with Russian name\n"),
            true,
        ),
        skill(
            "test_i18n_russian_lowercase_valid",
            "навык",
            fm("name: навык\ndescription: A skill with Russian lowercase name\n"),
            true,
        ),
        skill(
            "test_i18n_russian_uppercase_rejected",
            "НАВЫК",
            fm("name: НАВЫК\ndescription: A skill with Russian uppercase name\n"),
            false,
        ),
        skill(
            "test_description_too_long",
            "my-skill",
            fm(&format!("name: my-skill\ndescription: {x1100}\n")),
            false,
        ),
        skill(
            "test_valid_compatibility",
            "my-skill",
            fm("name: my-skill\ndescription: A test skill\ncompatibility: Requires Python 3.11+\n"),
            true,
        ),
        skill(
            "test_compatibility_too_long",
            "my-skill",
            fm(&format!(
                "name: my-skill\ndescription: A test skill\ncompatibility: {x550}\n"
            )),
            false,
        ),
        skill(
            "test_nfkc_normalization",
            "café",
            fm("name: cafe\u{301}\ndescription: A test skill\n"),
            true,
        ),
        // test_parser.py
        skill(
            "test_valid_frontmatter",
            "my-skill",
            "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n\nInstructions here.\n",
            true,
        ),
        skill(
            "test_missing_frontmatter",
            "my-skill",
            "# No frontmatter here",
            false,
        ),
        skill(
            "test_unclosed_frontmatter",
            "my-skill",
            "---\nname: my-skill\ndescription: A test skill\n",
            false,
        ),
        skill(
            "test_invalid_yaml",
            "my-skill",
            "---\nname: [invalid\ndescription: broken\n---\nBody here\n",
            false,
        ),
        skill(
            "test_non_dict_frontmatter",
            "my-skill",
            "---\n- just\n- a\n- list\n---\nBody\n",
            false,
        ),
        skill(
            "test_read_valid_skill",
            "my-skill",
            "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\n---\n# My Skill\n",
            true,
        ),
        skill(
            "test_read_with_metadata",
            "my-skill",
            fm(
                "name: my-skill\ndescription: A test skill\nmetadata:\n  author: Test Author\n  version: 1.0\n",
            ),
            true,
        ),
        files(
            "test_parser_missing_skill_md",
            &[("tmp/.keep", b"")],
            "tmp",
            false,
        ),
        skill(
            "test_missing_name",
            "my-skill",
            fm("description: A test skill\n"),
            false,
        ),
        skill(
            "test_missing_description",
            "my-skill",
            fm("name: my-skill\n"),
            false,
        ),
        files(
            "test_find_skill_md_prefers_uppercase",
            &[
                ("my-skill/SKILL.md", b"uppercase"),
                ("my-skill/skill.md", b"lowercase"),
            ],
            "my-skill",
            false,
        ),
        files(
            "test_find_skill_md_accepts_lowercase",
            &[("my-skill/skill.md", b"lowercase")],
            "my-skill",
            false,
        ),
        files(
            "test_find_skill_md_returns_none_when_missing",
            &[("my-skill/.keep", b"")],
            "my-skill",
            false,
        ),
        files(
            "test_read_properties_with_lowercase_skill_md",
            &[(
                "my-skill/skill.md",
                b"---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n",
            )],
            "my-skill",
            true,
        ),
        skill(
            "test_read_with_allowed_tools",
            "my-skill",
            fm(
                "name: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n",
            ),
            true,
        ),
        // test_prompt.py: the fixtures of to-prompt, validated.
        files(
            "test_prompt_empty_list",
            &[("empty/.keep", b"")],
            "empty",
            false,
        ),
        skill(
            "test_prompt_single_skill",
            "my-skill",
            fm("name: my-skill\ndescription: A test skill\n"),
            true,
        ),
        files_at(
            "test_prompt_multiple_skills",
            &[
                (
                    "skill-a/SKILL.md",
                    b"---\nname: skill-a\ndescription: First skill\n---\nBody\n",
                ),
                (
                    "skill-b/SKILL.md",
                    b"---\nname: skill-b\ndescription: Second skill\n---\nBody\n",
                ),
            ],
            &["skill-a", "skill-b"],
            true,
        ),
        skill(
            "test_prompt_special_characters_escaped",
            "special-skill",
            fm("name: special-skill\ndescription: Use <foo> & <bar> tags\n"),
            true,
        ),
        // The behaviour matrix, docs/research/spec-and-refs-behavior-matrix.txt.
        skill(
            "valid minimal",
            "my-skill",
            fm("name: my-skill\ndescription: A test skill\n"),
            true,
        ),
        skill(
            "CRLF line endings",
            "my-skill",
            "---\r\nname: my-skill\r\ndescription: A test skill\r\n---\r\nBody\r\n",
            true,
        ),
        skill(
            "UTF-8 BOM",
            "my-skill",
            "\u{feff}---\nname: my-skill\ndescription: A test skill\n---\nBody\n",
            false,
        ),
        skill(
            "leading blank line",
            "my-skill",
            "\n---\nname: my-skill\ndescription: A test skill\n---\nBody\n",
            false,
        ),
        skill(
            "allowed-tools flow list",
            "my-skill",
            fm("name: my-skill\ndescription: d\nallowed-tools: [Read, Write]\n"),
            false,
        ),
        skill(
            "allowed-tools block list",
            "my-skill",
            fm("name: my-skill\ndescription: d\nallowed-tools:\n  - Read\n  - Write\n"),
            true,
        ),
        skill(
            "allowed-tools string",
            "my-skill",
            fm("name: my-skill\ndescription: d\nallowed-tools: Bash(git:*) Read\n"),
            true,
        ),
        skill(
            "description unquoted colon-space",
            "my-skill",
            fm("name: my-skill\ndescription: Use when: the user asks\n"),
            false,
        ),
        skill(
            "description quoted colon",
            "my-skill",
            fm("name: my-skill\ndescription: \"Use when: the user asks\"\n"),
            true,
        ),
        skill(
            "description angle brackets",
            "my-skill",
            fm("name: my-skill\ndescription: Use <foo> & <bar>\n"),
            true,
        ),
        skill(
            "description arrow ->",
            "my-skill",
            fm("name: my-skill\ndescription: Convert a -> b\n"),
            true,
        ),
        skill(
            "description empty string",
            "my-skill",
            fm("name: my-skill\ndescription: \"\"\n"),
            false,
        ),
        skill(
            "description missing value",
            "my-skill",
            fm("name: my-skill\ndescription:\n"),
            false,
        ),
        skill(
            "description folded >",
            "my-skill",
            fm("name: my-skill\ndescription: >\n  line one\n  line two\n"),
            true,
        ),
        skill(
            "description literal |",
            "my-skill",
            fm("name: my-skill\ndescription: |\n  line one\n  line two\n"),
            true,
        ),
        skill(
            "description 1024 chars",
            "my-skill",
            fm(&format!("name: my-skill\ndescription: {x1024}\n")),
            true,
        ),
        skill(
            "description 1025 chars",
            "my-skill",
            fm(&format!("name: my-skill\ndescription: {x1025}\n")),
            false,
        ),
        skill(
            "description 1024 chars + surrounding spaces quoted",
            "my-skill",
            fm(&format!("name: my-skill\ndescription: \"  {x1024}  \"\n")),
            false,
        ),
        skill(
            "description yes (bool in YAML 1.1)",
            "my-skill",
            fm("name: my-skill\ndescription: yes\n"),
            true,
        ),
        skill(
            "description is list",
            "my-skill",
            fm("name: my-skill\ndescription:\n  - a\n  - b\n"),
            false,
        ),
        skill(
            "name uppercase",
            "MySkill",
            fm("name: MySkill\ndescription: d\n"),
            false,
        ),
        skill(
            "name underscore",
            "my_skill",
            fm("name: my_skill\ndescription: d\n"),
            false,
        ),
        skill(
            "name 64 chars",
            leak(a64.clone()),
            fm(&format!("name: {a64}\ndescription: d\n")),
            true,
        ),
        skill(
            "name 65 chars",
            leak(a65.clone()),
            fm(&format!("name: {a65}\ndescription: d\n")),
            false,
        ),
        skill(
            "name leading hyphen",
            "-my-skill",
            fm("name: -my-skill\ndescription: d\n"),
            false,
        ),
        skill(
            "name trailing hyphen",
            "my-skill-",
            fm("name: my-skill-\ndescription: d\n"),
            false,
        ),
        skill(
            "name consecutive hyphens",
            "my--skill",
            fm("name: my--skill\ndescription: d\n"),
            false,
        ),
        skill(
            "name chinese",
            "技能",
            fm("name: 技能\ndescription: d\n"),
            true,
        ),
        skill(
            "name cafe precomposed",
            "café",
            fm("name: café\ndescription: d\n"),
            true,
        ),
        skill(
            "name cafe NFD name vs NFC dir",
            "café",
            fm("name: cafe\u{301}\ndescription: d\n"),
            true,
        ),
        skill(
            "name fullwidth ｍｙ in dir my",
            "my",
            fm("name: ｍｙ\ndescription: d\n"),
            true,
        ),
        skill(
            "name numeric 123",
            "123",
            fm("name: 123\ndescription: d\n"),
            true,
        ),
        skill(
            "name quoted with spaces",
            "my-skill",
            fm("name: \"  my-skill  \"\ndescription: d\n"),
            true,
        ),
        skill(
            "name mismatch dir",
            "wrong-name",
            fm("name: correct-name\ndescription: d\n"),
            false,
        ),
        skill(
            "name contains claude",
            "claude-helper",
            fm("name: claude-helper\ndescription: d\n"),
            true,
        ),
        skill(
            "name with dot",
            "my.skill",
            fm("name: my.skill\ndescription: d\n"),
            false,
        ),
        skill(
            "name with space",
            "my skill",
            fm("name: my skill\ndescription: d\n"),
            false,
        ),
        skill(
            "unknown key version",
            "my-skill",
            fm("name: my-skill\ndescription: d\nversion: 1.0\n"),
            false,
        ),
        skill(
            "Claude Code keys",
            "my-skill",
            fm(
                "name: my-skill\ndescription: d\ndisable-model-invocation: true\nargument-hint: \"[file]\"\n",
            ),
            false,
        ),
        skill(
            "metadata block map",
            "my-skill",
            fm("name: my-skill\ndescription: d\nmetadata:\n  author: x\n  version: \"1.0\"\n"),
            true,
        ),
        skill(
            "metadata flow map",
            "my-skill",
            fm("name: my-skill\ndescription: d\nmetadata: {author: x}\n"),
            false,
        ),
        skill(
            "metadata nested map",
            "my-skill",
            fm("name: my-skill\ndescription: d\nmetadata:\n  a:\n    b: c\n"),
            true,
        ),
        skill(
            "metadata scalar string",
            "my-skill",
            fm("name: my-skill\ndescription: d\nmetadata: foo\n"),
            true,
        ),
        skill(
            "license list",
            "my-skill",
            fm("name: my-skill\ndescription: d\nlicense:\n  - MIT\n"),
            true,
        ),
        skill(
            "compatibility empty string",
            "my-skill",
            fm("name: my-skill\ndescription: d\ncompatibility: \"\"\n"),
            true,
        ),
        skill(
            "compatibility 501 chars",
            "my-skill",
            fm(&format!(
                "name: my-skill\ndescription: d\ncompatibility: {x501}\n"
            )),
            false,
        ),
        skill(
            "duplicate key name",
            "my-skill",
            fm("name: my-skill\nname: my-skill\ndescription: d\n"),
            false,
        ),
        skill(
            "frontmatter unclosed",
            "my-skill",
            "---\nname: my-skill\ndescription: d\n",
            false,
        ),
        skill("no frontmatter", "my-skill", "# Title\n\nBody\n", false),
        skill("empty frontmatter", "my-skill", "---\n---\nBody\n", false),
        skill(
            "frontmatter is list",
            "my-skill",
            "---\n- a\n- b\n---\nBody\n",
            false,
        ),
        skill(
            "--- inside description value",
            "my-skill",
            fm("name: my-skill\ndescription: a --- b\n"),
            true,
        ),
        skill(
            "--- inside a quoted description value",
            "my-skill",
            fm("name: my-skill\ndescription: \"a --- b\"\n"),
            false,
        ),
        skill(
            "closing delimiter with trailing spaces",
            "my-skill",
            "---\nname: my-skill\ndescription: d\n---   \nBody\n",
            true,
        ),
        skill(
            "closing '----' (4 dashes)",
            "my-skill",
            "---\nname: my-skill\ndescription: d\n----\nBody\n",
            true,
        ),
        skill(
            "opening '---yaml'",
            "my-skill",
            "---yaml\nname: my-skill\ndescription: d\n---\nBody\n",
            false,
        ),
        skill(
            "no body after frontmatter",
            "my-skill",
            "---\nname: my-skill\ndescription: d\n---\n",
            true,
        ),
        skill(
            "tab indentation in metadata",
            "my-skill",
            fm("name: my-skill\ndescription: d\nmetadata:\n\tauthor: x\n"),
            false,
        ),
        skill(
            "YAML comment in frontmatter",
            "my-skill",
            fm("# a comment\nname: my-skill\ndescription: d # trailing\n"),
            true,
        ),
        skill(
            "YAML anchors/aliases",
            "my-skill",
            fm("name: &n my-skill\ndescription: *n\n"),
            false,
        ),
        files(
            "lowercase skill.md only",
            &[(
                "my-skill/skill.md",
                b"---\nname: my-skill\ndescription: d\n---\nBody\n",
            )],
            "my-skill",
            true,
        ),
        files(
            "Skill.md mixed case only",
            &[(
                "my-skill/Skill.md",
                b"---\nname: my-skill\ndescription: d\n---\nBody\n",
            )],
            "my-skill",
            false,
        ),
    ]
}

/// Folder names built at run time must live as long as the table.
fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// Lays out one case in a fresh folder and returns the context and the paths to validate.
fn lay_out(case: &Case) -> (TestContext, Vec<&'static str>) {
    let context = TestContext::new();
    match &case.setup {
        Setup::Skill(dir, bytes) => {
            context.write(&format!("{dir}/SKILL.md"), bytes);
            (context, vec![dir])
        }
        Setup::Files(files, paths) => {
            for (file, bytes) in files {
                context.write(file, bytes);
            }
            (context, paths.clone())
        }
    }
}

#[test]
fn skillpkg_gives_the_reference_verdict_on_every_case() {
    let cases = cases();
    // The 40 tests of skills-ref's own suite are all here.
    assert_eq!(
        cases
            .iter()
            .filter(|case| case.name.starts_with("test_"))
            .count(),
        40
    );
    let mut wrong = Vec::new();
    for case in &cases {
        let (context, paths) = lay_out(case);
        let mut args = vec!["--target", "skills-ref", "--format", "concise"];
        args.extend(paths);
        let (code, _, stderr) = run(context.validate(&args));
        if (code == 0) != case.valid {
            wrong.push(format!(
                "{}: expected valid={}, exit {code}\n{stderr}",
                case.name, case.valid
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} cases differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
#[ignore = "needs the reference validator: set SKILLS_REF_BIN to an `agentskills` binary"]
fn skills_ref_agrees_with_the_table() {
    let binary =
        std::env::var("SKILLS_REF_BIN").expect("SKILLS_REF_BIN names the agentskills binary");
    let mut wrong = Vec::new();
    for case in &cases() {
        let (context, paths) = lay_out(case);
        let mut said = Vec::new();
        let valid = paths.iter().all(|path| {
            let output = Command::new(&binary)
                .args(["validate", path])
                .current_dir(context.root())
                .output()
                .expect("run skills-ref");
            said.push(String::from_utf8_lossy(&output.stderr).trim().to_owned());
            output.status.success()
        });
        if valid != case.valid {
            wrong.push(format!(
                "{}: table says valid={}, skills-ref says {}",
                case.name,
                case.valid,
                said.join(" / ")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
