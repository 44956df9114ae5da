//! A set of skills that fires every validate rule at least once, next to skills that are fine.
//!
//! Written from byte literals at test time, so CRLF, a BOM and invalid UTF-8 reach the disk
//! exactly as written (git would normalise committed fixtures).

use crate::common::TestContext;

/// `(path of the skill file, its bytes)` for every fixture.
pub(crate) fn fixture_set() -> Vec<(String, Vec<u8>)> {
    let long_name = "a".repeat(70);
    let long_description = "x".repeat(1100);
    let mut set: Vec<(String, Vec<u8>)> = vec![
        skill("valid-skill", "---\nname: valid-skill\ndescription: Formats dates. Use when the user asks about dates or times.\nlicense: Apache-2.0\ncompatibility: Requires Python 3.11+\nmetadata:\n  author: example-org\n  version: \"1.0\"\nallowed-tools: Read Bash(git:*)\n---\n# Valid skill\n\nSteps.\n"),
        ("invalid-utf8/SKILL.md".into(), b"---\nname: invalid-utf8\ndescription: Caf\xe9 menus\n---\nBody\n".to_vec()),
        ("bom-skill/SKILL.md".into(), b"\xef\xbb\xbf---\nname: bom-skill\ndescription: Has a byte-order mark.\n---\nBody\n".to_vec()),
        ("crlf-skill/SKILL.md".into(), b"---\r\nname: crlf-skill\r\ndescription: Windows line endings.\r\nowner: someone\r\n---\r\nBody\r\n".to_vec()),
        ("cr-only/SKILL.md".into(), b"---\rname: cr-only\rdescription: Old Mac line endings.\rmaintainer: someone\r---\rBody\r".to_vec()),
        ("lowercase-file/skill.md".into(), b"---\nname: lowercase-file\ndescription: The file is skill.md.\n---\nBody\n".to_vec()),
        ("mixed-case-file/Skill.md".into(), b"---\nname: mixed-case-file\ndescription: The file is Skill.md.\n---\nBody\n".to_vec()),
        skill("no-frontmatter", "# No frontmatter\n\nJust instructions.\n"),
        skill("blank-first-line", "\n---\nname: blank-first-line\ndescription: A blank line first.\n---\nBody\n"),
        skill("unclosed", "---\nname: unclosed\ndescription: Never closed.\n# Body\n"),
        skill("empty-frontmatter", "---\n---\n# Empty frontmatter heading\n"),
        skill("list-frontmatter", "---\n- name\n- description\n---\nBody\n"),
        skill("unquoted-colon", "---\nname: unquoted-colon\ndescription: Use when: the user asks\n---\nBody\n"),
        skill("bad-yaml", "---\nname: [bad-yaml\ndescription: broken\n---\nBody\n"),
        skill("duplicate-key", "---\nname: duplicate-key\ndescription: d\nname: duplicate-key\n---\nBody\n"),
        skill("tab-indent", "---\nname: tab-indent\ndescription: d\nmetadata:\n\tauthor: x\n---\nBody\n"),
        skill("dashes-in-value", "---\nname: dashes-in-value\ndescription: \"Converts a --- b\"\n---\nBody\n"),
        skill("dashes-unquoted", "---\nname: dashes-unquoted\ndescription: Converts a --- b\n---\nBody\n"),
        skill("unknown-key", "---\nname: unknown-key\ndescripton: Typo in the key.\nauthor: someone\n---\nBody\n"),
        skill("claude-keys", "---\nname: claude-keys\ndescription: Uses Claude Code keys.\nwhen_to_use: When asked.\ndisable-model-invocation: true\nbackground: true\n---\nBody\n"),
        skill("flow-list", "---\nname: flow-list\ndescription: Flow-style tools.\nallowed-tools: [Read, Write]\n---\nBody\n"),
        skill("missing-name", "---\ndescription: No name here.\n---\nBody\n"),
        skill("name-key-typo", "---\nName: name-key-typo\ndescription: The key is capitalised.\n---\nBody\n"),
        skill("2024", "---\nname: 2024\ndescription: A number as name.\n---\nBody\n"),
        skill("empty-name", "---\nname: \"\"\ndescription: Empty name.\n---\nBody\n"),
        skill(&long_name, &format!("---\nname: {long_name}\ndescription: Long name.\n---\nBody\n")),
        skill("Upper-Name", "---\nname: Upper-Name\ndescription: Uppercase.\n---\nBody\n"),
        skill("under_score", "---\nname: under_score\ndescription: Underscore.\n---\nBody\n"),
        skill("double--hyphen", "---\nname: double--hyphen\ndescription: Two hyphens.\n---\nBody\n"),
        skill("folder-mismatch", "---\nname: other-name\ndescription: Name differs from folder.\n---\nBody\n"),
        skill("claude-helper", "---\nname: claude-helper\ndescription: Reserved word for claude.ai.\n---\nBody\n"),
        skill("two  spaces", "---\nname: two-spaces\ndescription: Claude Code refuses this folder.\n---\nBody\n"),
        skill("missing-description", "---\nname: missing-description\n---\n# Fallback heading\n"),
        skill("list-description", "---\nname: list-description\ndescription:\n  - TODO\n  - later\n---\nFirst body line.\n"),
        skill("number-description", "---\nname: number-description\ndescription: 12345\n---\nBody\n"),
        skill("empty-description", "---\nname: empty-description\ndescription: \"\"\n---\nBody for empty.\n"),
        skill("long-description", &format!("---\nname: long-description\ndescription: {long_description}\n---\nBody\n")),
        skill("angle-description", "---\nname: angle-description\ndescription: Converts <input> files.\n---\nBody\n"),
        skill("empty-compatibility", "---\nname: empty-compatibility\ndescription: d\ncompatibility: \"\"\n---\nBody\n"),
        skill("license-list", "---\nname: license-list\ndescription: d\nlicense: [MIT]\n---\nBody\n"),
        skill("claude-code-values", "---\nname: claude-code-values\ndescription: Bad Claude Code values.\ncontext: forked\neffort: extreme\nuser-invocable: maybe\nshell: zsh\narguments: topic 1\nhooks: not-a-map\n---\nBody\n"),
        skill("metadata-values", "---\nname: metadata-values\ndescription: d\nmetadata:\n  version: 1.0\n  nested:\n    a: b\n---\nBody\n"),
        // Two skills of one name that one agent loads together: one `.claude/skills` folder.
        skill("team/.claude/skills/shared-name", "---\nname: shared-name\ndescription: First of two.\n---\nBody\n"),
        skill("team/.claude/skills/shared-name-old", "---\nname: shared-name\ndescription: Second of two.\n---\nBody\n"),
        skill("技能", "---\nname: 技能\ndescription: 中文描述 with <tag> after wide characters.\n---\n正文\n"),
    ];
    set.sort_by(|a, b| a.0.cmp(&b.0));
    set
}

fn skill(dir: &str, text: &str) -> (String, Vec<u8>) {
    (format!("{dir}/SKILL.md"), text.as_bytes().to_vec())
}

/// Writes the fixture set under `skills/`, and (on Unix) a skill whose SKILL.md is a link to
/// nothing.
pub(crate) fn write_fixture_set(context: &TestContext) {
    for (path, bytes) in fixture_set() {
        context.write(&format!("skills/{path}"), bytes);
    }
    #[cfg(unix)]
    {
        let dir = context.root().join("skills/dangling-link");
        fs_err::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink("../moved-away/SKILL.md", dir.join("SKILL.md")).unwrap();
    }
}
