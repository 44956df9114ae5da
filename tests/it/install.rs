//! `install` in a hostile world: a `skills.lock` edited to point anywhere, a registry that
//! answers with another name, and installed folders that someone else made or changed. Each
//! test reproduces an attack and checks that nothing outside the skills folder is touched.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::Path;

use crate::common::{TestContext, run};
use crate::registry::{Registry, cli, skill};

/// `skillpkg ARGS` run in `project/` against `registry`, anonymously.
fn in_project(context: &TestContext, url: &str, args: &[&str]) -> (i32, String, String) {
    let mut command = context.client(args);
    command
        .current_dir(context.root().join("project"))
        .env("SKILLPKG_REGISTRY", url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env_remove("SKILLPKG_TOKEN");
    run(command)
}

/// Publishes `work/<name>` at `version` as `token`'s owner.
pub(crate) fn publish(
    context: &TestContext,
    registry: &Registry,
    token: &str,
    name: &str,
    version: &str,
    body: &str,
) {
    skill(context, name, version, body);
    let (code, _, stderr) = cli(
        context,
        registry,
        Some(token),
        &["publish", &format!("work/{name}")],
    );
    assert_eq!(code, 0, "{stderr}");
}

/// The `[[skill]]` entry `info` would let anyone write: real digests of a real version.
fn entry_for(context: &TestContext, registry: &Registry, name: &str, dir: &str) -> String {
    let (version, sha, digest) = &versions(context, registry, name)[0];
    format!(
        "[[skill]]\nname = \"{name}\"\nversion = \"{version}\"\nregistry = \"{}\"\nsha256 = \"{sha}\"\ndigest = \"{digest}\"\ndir = \"{dir}\"\n",
        registry.url
    )
}

/// (version, sha256, digest) of each version of `name`, newest first, from `info --format json`.
fn versions(
    context: &TestContext,
    registry: &Registry,
    name: &str,
) -> Vec<(String, String, String)> {
    let (code, stdout, stderr) = cli(context, registry, None, &["info", name, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let info: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    info["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let field = |key: &str| v[key].as_str().unwrap().to_owned();
            (field("version"), field("checksum"), field("digest"))
        })
        .collect()
}

/// Every path under `dir`, relative to it, sorted.
pub(crate) fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in fs_err::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path.clone());
            }
            out.push(
                path.strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
    out.sort();
    out
}

/// A lock edited in a pull request cannot make `install` write outside the project or replace a
/// folder skillpkg did not install, even with digests copied from `skillpkg info`.
#[test]
fn a_hostile_lockfile_writes_and_removes_nothing() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    // A skill named like the project's own folders, so that only the lock's `dir` decides.
    publish(
        &context,
        &registry,
        &alice,
        "src",
        "1.0.0",
        "Not your source code.",
    );
    context.write("project/src/main.rs", "fn main() {}\n");
    context.write("outside/src/keep.txt", "precious\n");
    let before_project = tree(&context.root().join("project"));
    let before_outside = tree(&context.root().join("outside"));
    let absolute = context.root().join("outside").display().to_string();
    for dir in [
        ".",
        "../outside",
        &absolute,
        "a/../../outside",
        "./.git/hooks",
    ] {
        let lock = format!(
            "version = 1\n{}",
            entry_for(&context, &registry, "src", dir)
        );
        context.write("project/skills.lock", &lock);
        let (code, _, stderr) = in_project(&context, &registry.url, &["install"]);
        assert_ne!(code, 0, "{dir}: {stderr}");
        assert!(
            stderr.contains("skills.lock") || stderr.contains("was not installed by skillpkg"),
            "{dir}: {stderr}"
        );
        let mut after = tree(&context.root().join("project"));
        after.retain(|path| path != "skills.lock");
        let mut expected = before_project.clone();
        expected.retain(|path| path != "skills.lock");
        assert_eq!(after, expected, "{dir}: the project is untouched");
        assert_eq!(
            tree(&context.root().join("outside")),
            before_outside,
            "{dir}"
        );
        assert_eq!(
            fs_err::read_to_string(context.root().join("project/src/main.rs")).unwrap(),
            "fn main() {}\n"
        );
    }
    // An entry that names no valid skill is refused before anything is fetched.
    for name in [".git", ".ssh", "-rf", "CON"] {
        let lock = format!(
            "version = 1\n{}",
            entry_for(&context, &registry, "src", ".claude/skills")
        )
        .replace("name = \"src\"", &format!("name = \"{name}\""));
        context.write("project/skills.lock", &lock);
        let (code, _, stderr) = in_project(&context, &registry.url, &["install"]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(
            stderr.contains("not a valid skill name"),
            "{name}: {stderr}"
        );
        assert!(!context.root().join("project/.claude").exists(), "{name}");
    }
}

/// A registry that answers `info foo` with another name cannot choose the folder.
#[test]
fn the_folder_is_the_name_asked_for_never_the_registry_s() {
    let context = TestContext::new();
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let url = lying_registry(".git");
    let (code, _, stderr) = in_project(&context, &url, &["install", "foo"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("the registry answered with `.git`"),
        "{stderr}"
    );
    for name in [".git", ".ssh", "-rf", "CON", "../x"] {
        let (code, _, stderr) = in_project(&context, &url, &["install", "--", name]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(stderr.contains("is not a skill name"), "{name}: {stderr}");
    }
    assert_eq!(tree(&context.root().join("project")), Vec::<String>::new());
}

/// A loopback HTTP server that answers every request with skill metadata naming `name`.
fn lying_registry(name: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let body = format!(
        "{{\"name\":\"{name}\",\"description\":\"x\",\"owners\":[],\"versions\":[{{\"version\":\"1.0.0\",\"checksum\":\"{}\",\"digest\":\"h1:{}=\",\"size\":1,\"yanked\":false,\"published_at\":0,\"publisher\":\"x\"}}]}}",
        "a".repeat(64),
        "A".repeat(43)
    );
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// skillpkg replaces a folder it installed, on upgrade and when a teammate's skills.lock moves
/// to a new version, but never one whose files someone changed since.
#[test]
fn an_installed_folder_is_replaced_only_while_it_is_as_installed() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    publish(
        &context,
        &registry,
        &alice,
        "notes",
        "1.0.0",
        "Version one.",
    );
    publish(
        &context,
        &registry,
        &alice,
        "notes",
        "2.0.0",
        "Version two.",
    );
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let skill_md = context.root().join("project/.claude/skills/notes/SKILL.md");
    let (code, _, stderr) = in_project(&context, &registry.url, &["install", "notes@1.0.0"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        fs_err::read_to_string(&skill_md)
            .unwrap()
            .contains("Version one.")
    );
    let marker = context
        .root()
        .join("project/.claude/skills/notes/.skillpkg-installed");
    assert!(
        fs_err::read_to_string(&marker)
            .unwrap()
            .contains("version = \"1.0.0\"")
    );
    // Upgrade: the folder is replaced.
    let (code, _, stderr) = in_project(&context, &registry.url, &["install", "notes@2.0.0"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        fs_err::read_to_string(&skill_md)
            .unwrap()
            .contains("Version two.")
    );
    // A teammate's skills.lock says 1.0.0 while the folder holds 2.0.0: `install` follows it.
    let lock = context.root().join("project/skills.lock");
    let all = versions(&context, &registry, "notes");
    let (_, sha, digest) = all
        .iter()
        .find(|(version, _, _)| version == "1.0.0")
        .unwrap();
    let lock_one = format!(
        "version = 1\n[[skill]]\nname = \"notes\"\nversion = \"1.0.0\"\nregistry = \"{}\"\nsha256 = \"{sha}\"\ndigest = \"{digest}\"\ndir = \".claude/skills\"\n",
        registry.url
    );
    fs_err::write(&lock, &lock_one).unwrap();
    let (code, _, stderr) = in_project(&context, &registry.url, &["install"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        fs_err::read_to_string(&skill_md)
            .unwrap()
            .contains("Version one.")
    );
    // Someone edits the installed copy: it is not replaced, and nothing is lost.
    fs_err::write(&skill_md, "my local notes\n").unwrap();
    let (code, _, stderr) = in_project(&context, &registry.url, &["install", "notes@2.0.0"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("was changed since skillpkg installed it"),
        "{stderr}"
    );
    assert_eq!(
        fs_err::read_to_string(&skill_md).unwrap(),
        "my local notes\n"
    );
    // A folder the user made is never replaced.
    context.write("project/.claude/skills/mine/SKILL.md", "mine\n");
    publish(
        &context,
        &registry,
        &alice,
        "mine",
        "1.0.0",
        "From the registry.",
    );
    let (code, _, stderr) = in_project(&context, &registry.url, &["install", "mine"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("was not installed by skillpkg"), "{stderr}");
    assert_eq!(
        fs_err::read_to_string(context.root().join("project/.claude/skills/mine/SKILL.md"))
            .unwrap(),
        "mine\n"
    );
}

/// `--dir` outside the project is refused: skills.lock could not record it.
#[test]
fn install_dir_must_be_inside_the_project() {
    let context = TestContext::new();
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let (code, _, stderr) = in_project(
        &context,
        "http://127.0.0.1:1",
        &["install", "x", "--dir", "../elsewhere"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is outside the project"), "{stderr}");
    assert!(!context.root().join("elsewhere").exists());
}

/// `--global` installs into the home folder and records it in the user's own skills.lock
/// (relative to the home folder), never in the project's.
#[test]
fn a_global_install_has_its_own_lockfile() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    publish(
        &context,
        &registry,
        &alice,
        "notes",
        "1.0.0",
        "Version one.",
    );
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    fs_err::create_dir_all(context.root().join("home")).unwrap();
    let global = |args: &[&str]| {
        let mut command = context.client(args);
        command
            .current_dir(context.root().join("project"))
            .env("HOME", context.root().join("home"))
            .env("SKILLPKG_REGISTRY", &registry.url)
            .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
            .env_remove("SKILLPKG_TOKEN");
        run(command)
    };
    let (code, _, stderr) = global(&["install", "--global", "notes"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        context
            .root()
            .join("home/.claude/skills/notes/SKILL.md")
            .is_file()
    );
    assert!(!context.root().join("project/skills.lock").exists());
    let lock = fs_err::read_to_string(context.root().join("config/skills.lock")).unwrap();
    assert!(lock.contains("dir = \".claude/skills\""), "{lock}");
    fs_err::remove_dir_all(context.root().join("home/.claude")).unwrap();
    let (code, _, stderr) = global(&["install", "--global"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        context
            .root()
            .join("home/.claude/skills/notes/SKILL.md")
            .is_file()
    );
}

/// A symbolic link committed to the project cannot carry an install outside it: not through a
/// lock entry's `dir`, not through `.claude/skills` itself.
#[cfg(unix)]
#[test]
fn a_symlinked_folder_cannot_carry_an_install_outside_the_project() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    publish(
        &context,
        &registry,
        &alice,
        "notes",
        "1.0.0",
        "Version one.",
    );
    fs_err::create_dir_all(context.root().join("project/.claude")).unwrap();
    fs_err::create_dir_all(context.root().join("victim/.config/editor/plugins")).unwrap();
    std::os::unix::fs::symlink(
        "../victim/.config/editor/plugins",
        context.root().join("project/vendor"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "../../victim/.config/editor/plugins",
        context.root().join("project/.claude/skills"),
    )
    .unwrap();
    let lock = format!(
        "version = 1\n{}",
        entry_for(&context, &registry, "notes", "vendor")
    );
    context.write("project/skills.lock", &lock);
    let (code, _, stderr) = in_project(&context, &registry.url, &["install"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("through a symbolic link, outside the project"),
        "{stderr}"
    );
    fs_err::remove_file(context.root().join("project/skills.lock")).unwrap();
    let (code, _, stderr) = in_project(&context, &registry.url, &["install", "notes"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("through a symbolic link, outside the project"),
        "{stderr}"
    );
    assert!(
        tree(&context.root().join("victim"))
            .iter()
            .all(|path| !path.contains("notes")),
        "nothing was written through the links"
    );
}

/// Installed skills are someone else's code, like vendored code: `validate` and `lint` skip them
/// (no duplicate-name error against the author's own copy, no `--fix` rewriting them) unless
/// asked with --include-installed or named; `preview` keeps them, since the agent lists them.
#[test]
fn installed_skills_are_skipped_unless_asked_for() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    // A backslash path, which `lint --fix` would rewrite.
    let body = "Run scripts\\run.sh to start.";
    publish(&context, &registry, &alice, "notes", "1.0.0", body);
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let (code, _, stderr) = in_project(&context, &registry.url, &["install", "notes"]);
    assert_eq!(code, 0, "{stderr}");
    let installed = context.root().join("project/.claude/skills/notes/SKILL.md");
    let as_installed = fs_err::read_to_string(&installed).unwrap();
    // The author's own copy of the same skill, in the same project.
    let own = fs_err::read_to_string(context.root().join("work/notes/SKILL.md")).unwrap();
    context.write("project/skills/notes/SKILL.md", &own);
    context.write(
        "project/skills/notes/scripts/run.sh",
        "#!/bin/sh\necho hi\n",
    );

    let (code, _, stderr) = in_project(&context, &registry.url, &["validate"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("note: skipped 1 installed skill (folders `skillpkg install` manages); pass --include-installed to check it"),
        "{stderr}"
    );
    // Checked too, the installed copy is the author's skill once more (the same SKILL.md in
    // another agent's folder): one skill, no duplicate name.
    let (code, _, stderr) = in_project(
        &context,
        &registry.url,
        &["validate", "--include-installed"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("1 skill is the same SKILL.md as another skill")
            && !stderr.contains("SK601"),
        "{stderr}"
    );
    // Named on the command line, however spelt, it is checked.
    for named in [
        ".claude/skills/notes",
        "./.claude/skills/notes/",
        ".claude/skills/notes/SKILL.md",
    ] {
        let (code, _, stderr) = in_project(&context, &registry.url, &["lint", named]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains("SK307"), "{named}: {stderr}");
    }
    let mut inside = context.command(&["lint", "."]);
    inside.current_dir(context.root().join("project/.claude/skills/notes"));
    let (_, _, stderr) = run(inside);
    assert!(stderr.contains("SK307"), "{stderr}");
    // Only installed skills: machine formats still get their (empty) document.
    let (code, stdout, stderr) = in_project(
        &context,
        &registry.url,
        &["validate", ".claude", "--format", "json"],
    );
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["summary"]["skills"], 0, "{stdout}");
    // A copy made by hand keeps the marker, but no skills.lock records it: it is the author's.
    let copy = context.root().join("project/skills/my-notes");
    fs_err::create_dir_all(&copy).unwrap();
    for file in ["SKILL.md", ".skillpkg-installed"] {
        fs_err::copy(
            context
                .root()
                .join("project/.claude/skills/notes")
                .join(file),
            copy.join(file),
        )
        .unwrap();
    }
    let (_, _, stderr) = in_project(&context, &registry.url, &["validate", "skills"]);
    assert!(stderr.contains("SK108"), "the copy is checked: {stderr}");
    fs_err::remove_dir_all(&copy).unwrap();

    let (code, _, stderr) = in_project(&context, &registry.url, &["lint", "--fix"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Fixed 1 problem in 1 file."), "{stderr}");
    assert_eq!(fs_err::read_to_string(&installed).unwrap(), as_installed);
    assert!(
        fs_err::read_to_string(context.root().join("project/skills/notes/SKILL.md"))
            .unwrap()
            .contains("scripts/run.sh")
    );
    let (code, stdout, stderr) = in_project(
        &context,
        &registry.url,
        &["lint", "--diff", "--include-installed"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.contains(".claude/skills/notes/SKILL.md"), "{stdout}");

    // The agent lists installed skills, so preview shows them.
    let (code, stdout, stderr) = in_project(
        &context,
        &registry.url,
        &["preview", "--target", "claude-code", ".claude/skills"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("notes: Registry fixture notes."),
        "{stdout}"
    );
}
