//! `skillpkg package` and `skillpkg unpack`: real archives, read back by Python's zipfile, and
//! hostile archives refused.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::common::{TestContext, run};
use crate::snapshot;

const SKILL: &str = "---\nname: packer\ndescription: Packs things for the package tests. Use when a test packs a skill.\nmetadata:\n  version: \"1.2.0\"\n---\n\n# Packer\n\nRun scripts/run.sh; read references/guide.md.\n";

fn python() -> &'static str {
    for candidate in ["python3", "python"] {
        if Command::new(candidate)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return candidate;
        }
    }
    panic!("these tests need Python 3 (its zipfile module reads the archives back)");
}

/// The archive as Python's zipfile sees it: name, mode, date, size, content digest per entry.
fn read_back(archive: &Path) -> String {
    let script = "import sys,zipfile,hashlib\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist():\n    print(i.filename, oct(i.external_attr>>16), i.date_time, i.compress_type, i.file_size, hashlib.sha256(z.read(i)).hexdigest()[:12])\n";
    let output = Command::new(python())
        .args(["-c", script])
        .arg(archive)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn skill(context: &TestContext, dir: &str) {
    context.write(&format!("{dir}/SKILL.md"), SKILL);
    context.write(
        &format!("{dir}/references/guide.md"),
        "# Guide\n\nSome text. ".repeat(50),
    );
    context.write(&format!("{dir}/scripts/run.sh"), "#!/bin/sh\necho run\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::set_permissions(
            context.root().join(format!("{dir}/scripts/run.sh")),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
}

fn package(context: &TestContext, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["package"];
    all.extend_from_slice(args);
    run(context.command(&all))
}

#[test]
fn packs_one_folder_that_a_standard_reader_reads_back() {
    let context = TestContext::new();
    skill(&context, "packer");
    snapshot!(
        context,
        "package__default",
        context.command(&["package", "packer"])
    );
    let archive = context.root().join("dist/packer-1.2.0.skill");
    context
        .settings()
        .bind(|| insta::assert_snapshot!("package__read_back", read_back(&archive)));
    // Unpacked again, it is the same files.
    let (code, _, stderr) =
        run(context.command(&["unpack", "dist/packer-1.2.0.skill", "--dir", "out"]));
    assert_eq!(code, 0, "{stderr}");
    for file in ["SKILL.md", "references/guide.md", "scripts/run.sh"] {
        assert_eq!(
            fs_err::read(context.root().join("out/packer").join(file)).unwrap(),
            fs_err::read(context.root().join("packer").join(file)).unwrap()
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs_err::metadata(context.root().join("out/packer/scripts/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }
}

#[test]
fn the_same_skill_gives_the_same_bytes() {
    let context = TestContext::new();
    // Two copies written in opposite orders, with different modification times.
    let files = [
        ("SKILL.md", SKILL.to_owned()),
        ("references/a.md", "# A\n".repeat(100)),
        ("references/b.md", "# B\n".repeat(100)),
        ("assets/t.txt", "x".repeat(5000)),
    ];
    for (copy, order) in [("one/packer", false), ("two/packer", true)] {
        let mut list: Vec<&(&str, String)> = files.iter().collect();
        if order {
            list.reverse();
        }
        for (index, (path, text)) in list.into_iter().enumerate() {
            let written = context.write(&format!("{copy}/{path}"), text);
            let time = std::time::UNIX_EPOCH
                + std::time::Duration::from_secs(
                    1_000_000 + (index as u64) * 86_400 * if order { 3 } else { 1 },
                );
            fs_err::File::options()
                .write(true)
                .open(&written)
                .unwrap()
                .set_modified(time)
                .unwrap();
        }
    }
    let (code, _, stderr) = package(&context, &["one/packer", "-o", "one.skill"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, _) = package(&context, &["two/packer", "-o", "two.skill"]);
    assert_eq!(code, 0);
    assert_eq!(
        fs_err::read(context.root().join("one.skill")).unwrap(),
        fs_err::read(context.root().join("two.skill")).unwrap()
    );
}

#[test]
fn selection_skips_what_must_not_ship() {
    let context = TestContext::new();
    skill(&context, "packer");
    for path in [
        ".git/config",
        ".hg/x",
        ".svn/x",
        ".DS_Store",
        "scripts/__pycache__/run.cpython-312.pyc",
        "scripts/old.pyc",
        "node_modules/lib/index.js",
        "evals/evals.json",
        ".hidden/notes.md",
        ".editorconfig",
        "build/out.txt",
        "drafts/wip.md",
    ] {
        context.write(&format!("packer/{path}"), "x\n");
    }
    context.write(
        "packer/references/evals/kept.md",
        "# kept: only the root evals/ is excluded\n",
    );
    context.write("packer/.gitignore", "build/\n");
    context.write("packer/.skillignore", "drafts/\n!.editorconfig\n");
    snapshot!(
        context,
        "package__list",
        context.command(&["package", "packer", "--list"])
    );
    assert!(
        !context.root().join("dist").exists(),
        "--list writes nothing"
    );
}

#[test]
fn secrets_stop_packing_unless_included_on_purpose() {
    let context = TestContext::new();
    skill(&context, "packer");
    context.write("packer/.env", "TOKEN=1\n");
    context.write("packer/certs/server.pem", "x\n");
    snapshot!(
        context,
        "package__secrets",
        context.command(&["package", "packer"])
    );
    assert!(!context.root().join("dist").exists());
    context.write("packer/.skillignore", "!certs/server.pem\n!.env\n");
    let (code, _, stderr) = package(&context, &["packer", "--list"]);
    assert_eq!(code, 0, "{stderr}");
}

#[cfg(unix)]
#[test]
fn symlinks_inside_are_content_and_any_other_link_is_an_error() {
    use std::os::unix::fs::symlink;
    let context = TestContext::new();
    skill(&context, "packer");
    context.write("outside.txt", "secret\n");
    symlink(
        "guide.md",
        context.root().join("packer/references/alias.md"),
    )
    .unwrap();
    let (code, stdout, stderr) = package(&context, &["packer", "--list"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("references/alias.md"), "{stdout}");
    let (_, _, _) = package(&context, &["packer", "-o", "linked.skill"]);
    let listing = read_back(&context.root().join("linked.skill"));
    let guide = listing
        .lines()
        .find(|l| l.starts_with("packer/references/guide.md"))
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_owned();
    let alias = listing
        .lines()
        .find(|l| l.starts_with("packer/references/alias.md"))
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(guide, alias);
    for (link, target, expected) in [
        ("leak.txt", "../../outside.txt", "outside the skill folder"),
        ("broken.txt", "nowhere.txt", "does not exist"),
        ("loop.txt", "loop.txt", "in a loop"),
        ("folder", "../references", "to a folder"),
    ] {
        let path = context.root().join("packer/references").join(link);
        symlink(target, &path).unwrap();
        let (code, _, stderr) = package(&context, &["packer", "--list"]);
        assert_eq!(code, 1, "{link}");
        assert!(
            stderr.contains(expected) && stderr.contains(link),
            "{link}: {stderr}"
        );
        fs_err::remove_file(&path).unwrap();
    }
}

#[test]
fn an_invalid_skill_is_never_packed() {
    let context = TestContext::new();
    context.write(
        "Bad_Skill/SKILL.md",
        "---\nname: Bad_Skill\ndescription: x\n---\n",
    );
    let (code, _, stderr) = package(&context, &["Bad_Skill"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("SK105") && stderr.contains("nothing was packed"),
        "{stderr}"
    );
    assert!(!context.root().join("dist").exists());
}

#[test]
fn claude_ai_limits_are_checked_before_upload() {
    let context = TestContext::new();
    skill(&context, "packer");
    context.write(
        "packer/examples/inner/SKILL.md",
        "---\nname: inner\ndescription: x\n---\n",
    );
    let (code, _, stderr) = package(&context, &["packer", "--target", "claude-ai", "--list"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("more than one SKILL.md") && stderr.contains("examples/inner/SKILL.md"),
        "{stderr}"
    );
    fs_err::remove_dir_all(context.root().join("packer/examples")).unwrap();
    context.write("packer/.claude-plugin/plugin.json", "{}\n");
    context.write("packer/.skillignore", "!.claude-plugin/\n");
    let (code, _, stderr) = package(&context, &["packer", "--target", "claude-ai", "--list"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("plugin.json"), "{stderr}");
    fs_err::remove_dir_all(context.root().join("packer/.claude-plugin")).unwrap();
    let (code, _, stderr) = package(
        &context,
        &["packer", "--target", "claude-ai", "--max-size", "100"],
    );
    assert_eq!(code, 1);
    assert!(stderr.contains("accepts at most 100"), "{stderr}");
    let (code, _, stderr) = package(&context, &["packer", "--target", "claude-ai"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn output_names_and_the_flat_layout() {
    let context = TestContext::new();
    skill(&context, "packer");
    context.write("plain/SKILL.md", "---\nname: plain\ndescription: A plain skill for the package tests. Use when a test packs it.\n---\nBody.\n");
    let (code, stdout, _) = package(&context, &["plain"]);
    assert_eq!((code, stdout.as_str()), (0, "dist/plain.skill\n"));
    let (code, stdout, _) = package(
        &context,
        &[
            "packer/SKILL.md",
            "--layout",
            "flat",
            "-o",
            "out/flat.skill",
        ],
    );
    assert_eq!((code, stdout.as_str()), (0, "out/flat.skill\n"));
    let listing = read_back(&context.root().join("out/flat.skill"));
    let names: BTreeSet<&str> = listing
        .lines()
        .map(|line| line.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        names,
        BTreeSet::from(["SKILL.md", "references/guide.md", "scripts/run.sh"])
    );
    // A flat archive unpacks into a folder named after the skill, as its SKILL.md says.
    let (code, _, stderr) = run(context.command(&["unpack", "out/flat.skill", "--dir", "got"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(context.root().join("got/packer/SKILL.md").is_file());
}

/// Writes a zip with Python, entry by entry: (name, content, unix mode).
fn hostile(context: &TestContext, name: &str, entries: &str) {
    let script = format!(
        "import zipfile\nz=zipfile.ZipFile({:?},'w',zipfile.ZIP_DEFLATED)\nfor name,data,mode in {entries}:\n    i=zipfile.ZipInfo(name)\n    i.external_attr=mode<<16\n    i.compress_type=zipfile.ZIP_DEFLATED\n    z.writestr(i,data)\nz.close()\n",
        context.root().join(name).to_str().unwrap()
    );
    let status = Command::new(python())
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn hostile_archives_are_refused_and_nothing_is_written() {
    let context = TestContext::new();
    let ok = "b'---\\nname: s\\ndescription: x\\n---\\n'";
    let cases = [
        (
            "zip-slip",
            format!("[('s/SKILL.md',{ok},0o100644),('s/../../evil.txt',b'x',0o100644)]"),
        ),
        (
            "absolute",
            format!("[('s/SKILL.md',{ok},0o100644),('/tmp/evil.txt',b'x',0o100644)]"),
        ),
        (
            "symlink",
            format!("[('s/SKILL.md',{ok},0o100644),('s/link',b'/etc/passwd',0o120777)]"),
        ),
        (
            "bomb",
            format!(
                "[('s/SKILL.md',{ok},0o100644),('s/zeros.bin',b'\\0'*(64*1024*1024),0o100644)]"
            ),
        ),
        (
            "two-folders",
            format!("[('s/SKILL.md',{ok},0o100644),('t/SKILL.md',{ok},0o100644)]"),
        ),
        (
            "duplicate",
            format!("[('s/SKILL.md',{ok},0o100644),('s/SKILL.md',{ok},0o100644)]"),
        ),
        (
            "case-duplicate",
            format!(
                "[('s/SKILL.md',{ok},0o100644),('s/a.md',b'x',0o100644),('s/A.md',b'y',0o100644)]"
            ),
        ),
        ("no-skill", "[('s/README.md',b'x',0o100644)]".to_owned()),
        (
            "device",
            format!("[('s/SKILL.md',{ok},0o100644),('s/dev',b'',0o020644)]"),
        ),
    ];
    for (name, entries) in &cases {
        hostile(&context, &format!("{name}.skill"), entries);
    }
    context.write("not-a-zip.skill", "hello\n");
    let mut outputs = String::new();
    for name in cases.iter().map(|(name, _)| *name).chain(["not-a-zip"]) {
        let (code, stdout, stderr) =
            run(context.command(&["unpack", &format!("{name}.skill"), "--dir", "out"]));
        assert_eq!((code, stdout.as_str()), (1, ""), "{name}: {stderr}");
        outputs.push_str(&stderr);
        let left = context.root().join("out");
        assert!(
            !left.exists() || fs_err::read_dir(&left).unwrap().count() == 0,
            "{name} left files behind"
        );
    }
    assert!(!context.root().join("evil.txt").exists());
    context
        .settings()
        .bind(|| insta::assert_snapshot!("unpack__hostile", outputs));
}

#[test]
fn unpack_never_overwrites_without_force() {
    let context = TestContext::new();
    skill(&context, "packer");
    let (code, _, _) = package(&context, &["packer", "-o", "p.skill"]);
    assert_eq!(code, 0);
    context.write("out/packer/mine.txt", "keep\n");
    let (code, _, stderr) = run(context.command(&["unpack", "p.skill", "--dir", "out"]));
    assert_eq!(code, 1);
    assert!(stderr.contains("already exists; pass --force"), "{stderr}");
    assert!(context.root().join("out/packer/mine.txt").exists());
    let (code, _, stderr) = run(context.command(&["unpack", "p.skill", "--dir", "out", "--force"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(!context.root().join("out/packer/mine.txt").exists());
    assert!(context.root().join("out/packer/SKILL.md").exists());
    let names: Vec<String> = fs_err::read_dir(context.root().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["packer"], "no staging folder is left");
}

/// The default output folder is the project's `dist/`, never inside the skill: the nearest
/// folder above it with a skillpkg.toml, else the repository root, else the folder holding it.
#[test]
fn archives_go_to_the_project_dist_folder() {
    let context = TestContext::new();
    let body = |name: &str| {
        format!(
            "---\nname: {name}\ndescription: A skill for the output folder tests. Use when a test packs it.\n---\nBody.\n"
        )
    };
    context.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    context.write("repo/skills/one/SKILL.md", body("one"));
    context.write("repo/tools/skillpkg.toml", "");
    context.write("repo/tools/skills/two/SKILL.md", body("two"));
    context.write("solo/.git/HEAD", "ref: refs/heads/main\n");
    context.write("solo/SKILL.md", body("solo"));
    let inside = |dir: &str, args: &[&str]| {
        let mut command = context.command(args);
        command.current_dir(context.root().join(dir));
        run(command)
    };
    // The repository root, seen from inside the skill.
    let (code, stdout, stderr) = inside("repo/skills/one", &["package"]);
    assert_eq!(
        (code, stdout.trim()),
        (0, "../../dist/one.skill"),
        "{stderr}"
    );
    assert!(context.root().join("repo/dist/one.skill").is_file());
    // The nearest skillpkg.toml wins over the repository root.
    let (code, stdout, stderr) = inside("repo", &["package", "tools/skills/two"]);
    assert_eq!(
        (code, stdout.trim()),
        (0, "tools/dist/two.skill"),
        "{stderr}"
    );
    // A skill that is a repository of its own keeps its archives in its dist/, which packing
    // leaves out: the next archive is the same.
    let (code, stdout, stderr) = inside("solo", &["package", "."]);
    assert_eq!((code, stdout.trim()), (0, "dist/solo.skill"), "{stderr}");
    let first = fs_err::read(context.root().join("solo/dist/solo.skill")).unwrap();
    let (code, _, stderr) = inside("solo", &["package"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        fs_err::read(context.root().join("solo/dist/solo.skill")).unwrap(),
        first
    );
    // No project at all: the folder holding the skill, or the one around an agent's skills
    // folder, never the agent's folder itself.
    context.write("loose/.claude/skills/pdf/SKILL.md", body("pdf"));
    let (code, stdout, stderr) = inside("loose", &["package", ".claude/skills/pdf"]);
    assert_eq!((code, stdout.trim()), (0, "dist/pdf.skill"), "{stderr}");
    assert!(!context.root().join("loose/.claude/skills/dist").exists());
    // --out-dir names the folder.
    let (code, stdout, stderr) = inside("repo", &["package", "skills/one", "--out-dir", "out"]);
    assert_eq!((code, stdout.trim()), (0, "out/one.skill"), "{stderr}");
}

/// Several skills in one run, like `validate`: each packed or refused on its own.
#[test]
fn several_skills_in_one_run() {
    let context = TestContext::new();
    skill(&context, "packer");
    context.write("plain/SKILL.md", "---\nname: plain\ndescription: A plain skill for the package tests. Use when a test packs it.\n---\nBody.\n");
    context.write(
        "broken/SKILL.md",
        "---\nname: Broken!\ndescription: x\n---\n",
    );
    let (code, stdout, stderr) = package(&context, &["packer", "plain", "--out-dir", "out"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "out/packer-1.2.0.skill\nout/plain.skill\n");
    // One refused: the others are still packed, and the exit status says something failed.
    let (code, stdout, stderr) = package(
        &context,
        &["broken", "plain", "nowhere", "--out-dir", "again"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "again/plain.skill\n");
    assert!(
        stderr.contains("the skill has errors; nothing was packed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: `nowhere` does not exist"),
        "{stderr}"
    );
    assert!(!context.root().join("again/broken.skill").exists());
    // Two skills of one name would write one archive: the second is refused, the first kept.
    context.write("a/plain/SKILL.md", "---\nname: plain\ndescription: A plain skill for the package tests. Use when a test packs it.\n---\nOne.\n");
    let (code, stdout, stderr) = package(&context, &["plain", "a/plain", "--out-dir", "same"]);
    assert_eq!(
        (code, stdout.as_str()),
        (1, "same/plain.skill\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: `a/plain` would be written to same/plain.skill, where `plain` was just packed; nothing was packed"),
        "{stderr}"
    );
    // A folder of skills is packed skill by skill; a file beside them is passed over.
    context.write("tree/README.md", "# Skills\n");
    context.write("tree/one/SKILL.md", "---\nname: one\ndescription: The first skill of a tree. Use when a test packs a tree.\n---\nOne.\n");
    context.write("tree/two/SKILL.md", "---\nname: two\ndescription: The second skill of a tree. Use when a test packs it whole.\n---\nTwo.\n");
    let (code, stdout, stderr) = package(&context, &["tree", "--out-dir", "trees"]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "trees/one.skill\ntrees/two.skill\n"),
        "{stderr}"
    );
    let (code, stdout, stderr) = package(
        &context,
        &[
            "tree/README.md",
            "tree/one",
            "tree/two",
            "--out-dir",
            "glob",
        ],
    );
    assert_eq!(
        (code, stdout.as_str()),
        (0, "glob/one.skill\nglob/two.skill\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: passed over `tree/README.md`: not skills"),
        "{stderr}"
    );
    // --output names one archive.
    let (code, _, stderr) = package(&context, &["packer", "plain", "-o", "x.skill"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--output names one archive, but 2 skills were given"),
        "{stderr}"
    );
}

/// A path that is not a skill says what it is, for `package` and `publish` alike.
#[test]
fn paths_that_are_not_skills() {
    let context = TestContext::new();
    context.write("empty/notes.txt", "notes\n");
    for command in ["package", "publish"] {
        let mut args = vec![command, "missing"];
        if command == "publish" {
            args.push("--dry-run");
        }
        let (code, _, stderr) = run(context.command(&args));
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("error: `missing` does not exist"),
            "{stderr}"
        );
        args[1] = "empty";
        let (code, _, stderr) = run(context.command(&args));
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("`empty` has no SKILL.md, so it is not a skill folder"),
            "{stderr}"
        );
        args[1] = "empty/notes.txt";
        let (code, _, stderr) = run(context.command(&args));
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("`empty/notes.txt` is not a SKILL.md"),
            "{stderr}"
        );
    }
}
