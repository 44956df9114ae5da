//! A project's skills over time: `install` from anywhere in the project, `update` within the
//! requirements skills.lock records, `remove`, `list`, the download cache and the JSON
//! documents, against the real registry on loopback.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{TestContext, run};
use crate::install::{publish, tree};
use crate::registry::{Registry, cli, sha256};

/// `skillpkg ARGS` run in `dir` (under the test's root) against `url`, anonymously.
fn run_in(context: &TestContext, dir: &str, url: &str, args: &[&str]) -> (i32, String, String) {
    let folder = context.root().join(dir);
    fs_err::create_dir_all(&folder).unwrap();
    let mut command = context.client(args);
    command
        .current_dir(folder)
        .env("SKILLPKG_REGISTRY", url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env_remove("SKILLPKG_TOKEN");
    run(command)
}

/// Runs `args` in `dir` and asserts exit 0; its stderr.
fn ok_in(context: &TestContext, dir: &str, url: &str, args: &[&str]) -> String {
    let (code, _, stderr) = run_in(context, dir, url, args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    stderr
}

fn read(context: &TestContext, path: &str) -> String {
    fs_err::read_to_string(context.root().join(path)).unwrap()
}

fn exists(context: &TestContext, path: &str) -> bool {
    fs_err::symlink_metadata(context.root().join(path)).is_ok()
}

/// Publishes each `(name, version, body)` as alice.
fn publish_all(context: &TestContext, registry: &Registry, skills: &[(&str, &str, &str)]) {
    let alice = registry.token("alice");
    for (name, version, body) in skills {
        publish(context, registry, &alice, name, version, body);
    }
}

/// The `[[skill]]` entry for `name` in a lockfile's text.
fn entry<'a>(lock: &'a str, name: &str) -> &'a str {
    let start = lock
        .find(&format!("name = \"{name}\"\n"))
        .unwrap_or_else(|| panic!("no {name} in {lock}"));
    let end = lock[start..]
        .find("[[skill]]")
        .map_or(lock.len(), |end| start + end);
    &lock[start..end]
}

/// Run in a subfolder, every command finds the project's skills.lock (or skillpkg.toml) above
/// it, and records folders relative to that root.
#[test]
fn commands_in_a_subfolder_use_the_project_root() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    publish_all(
        &context,
        &registry,
        &[("notes", "1.0.0", "Notes."), ("other", "1.0.0", "Other.")],
    );
    let url = registry.url.as_str();
    ok_in(&context, "project", url, &["install", "notes"]);
    let deep = "project/src/deep";
    let stderr = ok_in(&context, deep, url, &["install", "other"]);
    assert_eq!(
        stderr,
        "Installed other@1.0.0 into ../../.claude/skills/other\n"
    );
    assert!(exists(&context, "project/.claude/skills/other/SKILL.md"));
    assert!(!exists(&context, "project/src/deep/skills.lock"));
    assert!(!exists(&context, "project/src/deep/.claude"));
    let lock = read(&context, "project/skills.lock");
    assert!(
        entry(&lock, "other").contains("dir = \".claude/skills\""),
        "{lock}"
    );
    // --dir is where the command runs; skills.lock records it from the root.
    ok_in(
        &context,
        deep,
        url,
        &["install", "other", "--dir", "vendor"],
    );
    assert!(exists(&context, "project/src/deep/vendor/other/SKILL.md"));
    let lock = read(&context, "project/skills.lock");
    assert!(lock.contains("dir = \"src/deep/vendor\""), "{lock}");
    let (code, stdout, _) = run_in(&context, deep, url, &["list", "--offline"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("../../.claude/skills/notes") && stdout.contains("vendor/other"),
        "{stdout}"
    );
    let stderr = ok_in(&context, deep, url, &["update", "notes"]);
    assert_eq!(stderr, "notes 1.0.0 (up to date)\n");
    ok_in(&context, deep, url, &["remove", "other"]);
    assert!(!exists(&context, "project/.claude/skills/other"));
    assert!(!exists(&context, "project/src/deep/vendor/other"));
    assert!(!read(&context, "project/skills.lock").contains("other"));
    // Without a lockfile yet, skillpkg.toml marks the root.
    context.write("configured/skillpkg.toml", "");
    ok_in(&context, "configured/sub", url, &["install", "notes"]);
    assert!(exists(&context, "configured/skills.lock"));
    assert!(exists(&context, "configured/.claude/skills/notes/SKILL.md"));
    assert!(!exists(&context, "configured/sub/skills.lock"));
}

/// skills.lock records the requirement asked for, which a hand-edited lockfile cannot make
/// anything but a semver requirement.
#[test]
fn the_lock_records_the_requirement_asked_for() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    publish_all(
        &context,
        &registry,
        &[
            ("caret", "1.0.0", "Caret."),
            ("any", "1.0.0", "Any."),
            ("exact", "1.0.0", "Exact."),
            ("tilde", "1.0.0", "Tilde."),
        ],
    );
    let url = registry.url.as_str();
    ok_in(
        &context,
        "project",
        url,
        &["install", "caret@^1.0", "any", "exact@1.0.0", "tilde@~1.0"],
    );
    let lock = read(&context, "project/skills.lock");
    for (name, requirement) in [
        ("caret", "^1.0"),
        ("any", "*"),
        ("exact", "=1.0.0"),
        ("tilde", "~1.0"),
    ] {
        assert!(
            entry(&lock, name).contains(&format!(
                "version = \"1.0.0\"\nrequirement = \"{requirement}\"\n"
            )),
            "{name}: {lock}"
        );
    }
    let (code, _, stderr) = run_in(&context, "project", url, &["install", "any@latest"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`latest` is not a semver requirement"),
        "{stderr}"
    );
    // A requirement edited into something else refuses the whole lockfile, naming it.
    let edited = lock.replace("\"^1.0\"", "\"^1; rm -rf ~\"");
    fs_err::write(context.root().join("project/skills.lock"), &edited).unwrap();
    for args in [&["install"][..], &["update"], &["list", "--offline"]] {
        let (code, _, stderr) = run_in(&context, "project", url, args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("skills.lock: entry 2 (`caret`): `requirement` \"^1; rm -rf ~\" is not a semver requirement")
                && stderr.contains("hint: skills.lock is written by skillpkg install"),
            "{args:?}: {stderr}"
        );
    }
}

/// `update` moves each skill to the newest version its requirement allows, through the same
/// verified path as `install`, and never past a requirement, an exact pin or a folder someone
/// changed.
#[test]
fn update_follows_each_recorded_requirement() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let url = registry.url.as_str();
    publish_all(
        &context,
        &registry,
        &[
            ("notes", "1.0.0", "Version one."),
            ("old", "1.0.0", "Old one."),
            ("pin", "1.0.0", "Pinned one."),
        ],
    );
    ok_in(
        &context,
        "project",
        url,
        &["install", "notes@^1", "old", "pin@1.0.0"],
    );
    // `old` as a lockfile from before requirements were recorded has it: held at its version.
    let lock_path = context.root().join("project/skills.lock");
    let lock = read(&context, "project/skills.lock").replace(
        "name = \"old\"\nversion = \"1.0.0\"\nrequirement = \"*\"\n",
        "name = \"old\"\nversion = \"1.0.0\"\n",
    );
    fs_err::write(&lock_path, &lock).unwrap();
    publish_all(
        &context,
        &registry,
        &[
            ("notes", "1.1.0", "Version one point one."),
            ("notes", "2.0.0", "Version two."),
            ("old", "1.1.0", "Old, newer."),
            ("pin", "1.1.0", "Pinned, newer."),
        ],
    );
    let skill_md = "project/.claude/skills/notes/SKILL.md";
    let stderr = ok_in(&context, "project", url, &["update", "--dry-run"]);
    assert_eq!(
        stderr,
        "notes 1.0.0 → 1.1.0\nold 1.0.0 (up to date)\npin 1.0.0 (up to date)\nDry run: nothing was downloaded or written\n"
    );
    assert_eq!(read(&context, "project/skills.lock"), lock);
    assert!(read(&context, skill_md).contains("Version one."));

    let (code, _, stderr) = run_in(&context, "project", url, &["update", "notes", "ghost"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr,
        "error: `ghost` is not installed: skills.lock does not record it\n  hint: `skillpkg list` shows the installed skills\n"
    );
    assert_eq!(read(&context, "project/skills.lock"), lock);

    let stderr = ok_in(&context, "project", url, &["update"]);
    assert_eq!(
        stderr,
        "notes 1.0.0 → 1.1.0\nold 1.0.0 (up to date)\npin 1.0.0 (up to date)\n"
    );
    assert!(read(&context, skill_md).contains("Version one point one."));
    let lock = read(&context, "project/skills.lock");
    assert!(
        entry(&lock, "notes").contains("version = \"1.1.0\"\nrequirement = \"^1\"\n"),
        "{lock}"
    );
    assert!(entry(&lock, "old").starts_with("name = \"old\"\nversion = \"1.0.0\"\nregistry"));
    assert!(entry(&lock, "pin").contains("version = \"1.0.0\"\nrequirement = \"=1.0.0\""));
    // The old folder was swapped out whole: no staging folder, no file of 1.0.0 is left.
    assert_eq!(
        tree(&context.root().join("project/.claude/skills")),
        [
            "notes",
            "notes/.skillpkg-installed",
            "notes/SKILL.md",
            "old",
            "old/.skillpkg-installed",
            "old/SKILL.md",
            "pin",
            "pin/.skillpkg-installed",
            "pin/SKILL.md"
        ]
    );
    let stderr = ok_in(&context, "project", url, &["update", "notes"]);
    assert_eq!(stderr, "notes 1.1.0 (up to date)\n");

    // A folder someone changed is not replaced; skills.lock still says what is installed.
    publish_all(
        &context,
        &registry,
        &[("notes", "1.2.0", "Version one two.")],
    );
    fs_err::write(context.root().join(skill_md), "my notes\n").unwrap();
    let (code, _, stderr) = run_in(&context, "project", url, &["update"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`.claude/skills/notes` was changed since skillpkg installed it"),
        "{stderr}"
    );
    assert_eq!(read(&context, skill_md), "my notes\n");
    assert_eq!(read(&context, "project/skills.lock"), lock);
}

/// `remove` deletes the folders skills.lock records and nothing else: not a folder someone
/// changed, not one a lockfile or a link points outside the project.
#[test]
fn remove_deletes_only_what_the_lock_records() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let url = registry.url.as_str();
    publish_all(
        &context,
        &registry,
        &[("notes", "1.0.0", "Notes."), ("other", "1.0.0", "Other.")],
    );
    ok_in(&context, "project", url, &["install", "notes", "other"]);
    let lock = read(&context, "project/skills.lock");
    let installed = tree(&context.root().join("project"));

    let (code, _, stderr) = run_in(&context, "project", url, &["remove", "notes", "ghost"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`ghost` is not installed: skills.lock does not record it"),
        "{stderr}"
    );
    assert_eq!(tree(&context.root().join("project")), installed);
    // Nothing is removed unless everything named can be.
    fs_err::write(
        context.root().join("project/.claude/skills/other/SKILL.md"),
        "edited\n",
    )
    .unwrap();
    let (code, _, stderr) = run_in(&context, "project", url, &["remove", "notes", "other"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stderr,
        "error: `.claude/skills/other`: its files were changed since skillpkg installed it; nothing was removed\n  hint: keep what you need from it and delete it yourself; then `skillpkg remove other` drops its entry from skills.lock\n"
    );
    assert_eq!(tree(&context.root().join("project")), installed);
    assert_eq!(read(&context, "project/skills.lock"), lock);

    let stderr = ok_in(&context, "project", url, &["remove", "notes"]);
    assert_eq!(stderr, "Removed notes@1.0.0 from .claude/skills/notes\n");
    assert_eq!(
        tree(&context.root().join("project/.claude/skills")),
        ["other", "other/.skillpkg-installed", "other/SKILL.md"]
    );
    let after = read(&context, "project/skills.lock");
    assert!(
        !after.contains("notes") && after.contains("name = \"other\""),
        "{after}"
    );
    // A folder already gone: only its entry goes.
    fs_err::remove_dir_all(context.root().join("project/.claude/skills/other")).unwrap();
    let stderr = ok_in(&context, "project", url, &["remove", "other"]);
    assert_eq!(
        stderr,
        "Removed other@1.0.0 from skills.lock (.claude/skills/other was already gone)\n"
    );
    assert_eq!(
        read(&context, "project/skills.lock")
            .trim_end()
            .lines()
            .last(),
        Some("version = 1")
    );

    // A lockfile edited to point outside the project is refused whole.
    ok_in(&context, "project", url, &["install", "notes"]);
    let lock = read(&context, "project/skills.lock");
    copy_folder(
        &context.root().join("project/.claude/skills/notes"),
        &context.root().join("outside/notes"),
    );
    let outside = tree(&context.root().join("outside"));
    fs_err::write(
        context.root().join("project/skills.lock"),
        lock.replace("dir = \".claude/skills\"", "dir = \"../outside\""),
    )
    .unwrap();
    let (code, _, stderr) = run_in(&context, "project", url, &["remove", "notes"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("leaves the project"), "{stderr}");
    assert_eq!(tree(&context.root().join("outside")), outside);
    // So is a folder that a link carries outside it.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("../outside", context.root().join("project/vendor")).unwrap();
        fs_err::write(
            context.root().join("project/skills.lock"),
            lock.replace("dir = \".claude/skills\"", "dir = \"vendor\""),
        )
        .unwrap();
        let (code, _, stderr) = run_in(&context, "project", url, &["remove", "notes"]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("through a symbolic link, outside the project"),
            "{stderr}"
        );
        assert_eq!(tree(&context.root().join("outside")), outside);
    }
}

fn copy_folder(from: &Path, to: &Path) {
    fs_err::create_dir_all(to).unwrap();
    for file in fs_err::read_dir(from).unwrap() {
        let file = file.unwrap();
        fs_err::copy(file.path(), to.join(file.file_name())).unwrap();
    }
}

/// `list` shows what skills.lock records, and what the registry says about it: outdated within
/// the requirement, the newest beyond it, yanked. Offline or unreachable, it still lists.
#[test]
fn list_marks_outdated_and_yanked_skills() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    publish_all(
        &context,
        &registry,
        &[
            ("notes", "1.0.0", "Version one."),
            ("pin", "1.0.0", "Pinned."),
            ("fresh", "1.0.0", "Fresh."),
        ],
    );
    let url = registry.url.clone();
    ok_in(
        &context,
        "project",
        &url,
        &["install", "notes@^1", "pin@1.0.0", "fresh"],
    );
    publish_all(
        &context,
        &registry,
        &[
            ("notes", "1.1.0", "Version one point one."),
            ("notes", "2.0.0", "Version two."),
        ],
    );
    let (code, _, stderr) = cli(&context, &registry, Some(&alice), &["yank", "pin@1.0.0"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = run_in(&context, "project", &url, &["list"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "NAME   VERSION  REQUIREMENT  FOLDER                STATUS
fresh  1.0.0    *            .claude/skills/fresh  up to date
notes  1.0.0    ^1           .claude/skills/notes  outdated: 1.1.0 matches ^1; newest 2.0.0 is outside ^1
pin    1.0.0    =1.0.0       .claude/skills/pin    yanked
"
    );
    assert_eq!(stderr, "3 skills in skills.lock: 1 outdated, 1 yanked\n");
    let offline = "NAME   VERSION  REQUIREMENT  FOLDER
fresh  1.0.0    *            .claude/skills/fresh
notes  1.0.0    ^1           .claude/skills/notes
pin    1.0.0    =1.0.0       .claude/skills/pin
";
    let (code, stdout, stderr) = run_in(&context, "project", &url, &["list", "--offline"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, offline);
    assert_eq!(stderr, "3 skills in skills.lock (registries not asked)\n");
    // The registry is gone: said once on stderr, and the list is still there.
    drop(registry);
    let (code, stdout, stderr) = run_in(&context, "project", &url, &["list"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, offline);
    assert_eq!(
        stderr
            .matches("warning: cannot reach the registry at")
            .count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("; listing from skills.lock alone\n"),
        "{stderr}"
    );
    let (code, _, stderr) = run_in(&context, "empty", &url, &["list"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "No skills installed: skills.lock lists none\n");
}

/// Installing below what skills.lock records says so; so does installing a yanked version,
/// which a pin still gets.
#[test]
fn downgrades_and_yanked_pins_are_announced() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    publish_all(
        &context,
        &registry,
        &[
            ("notes", "1.0.0", "Version one."),
            ("notes", "1.5.0", "Version one point five."),
            ("notes", "2.0.0", "Version two."),
        ],
    );
    let url = registry.url.as_str();
    let stderr = ok_in(&context, "project", url, &["install", "notes@2.0.0"]);
    assert!(!stderr.contains("warning"), "{stderr}");
    let stderr = ok_in(&context, "project", url, &["install", "notes@^1"]);
    assert_eq!(
        stderr,
        "warning: downgrading notes 2.0.0 → 1.5.0\nInstalled notes@1.5.0 into .claude/skills/notes\n"
    );
    let (code, _, stderr) = cli(&context, &registry, Some(&alice), &["yank", "notes@1.0.0"]);
    assert_eq!(code, 0, "{stderr}");
    let stderr = ok_in(&context, "project", url, &["install", "notes@1.0.0"]);
    assert_eq!(
        stderr,
        "warning: downgrading notes 1.5.0 → 1.0.0\nwarning: notes@1.0.0 is yanked: its publisher withdrew it; installing it because it was asked for exactly\nInstalled notes@1.0.0 into .claude/skills/notes\n"
    );
    assert!(read(&context, "project/.claude/skills/notes/SKILL.md").contains("Version one."));
    // Warnings are something that went wrong: --quiet keeps them.
    let stderr = ok_in(
        &context,
        "project",
        url,
        &["install", "notes@1.0.0", "--quiet"],
    );
    assert_eq!(
        stderr,
        "warning: notes@1.0.0 is yanked: its publisher withdrew it; installing it because it was asked for exactly\n"
    );
    let stderr = ok_in(&context, "project", url, &["update"]);
    assert_eq!(
        stderr,
        "warning: notes@1.0.0 is yanked, and no other version matches `=1.0.0`\nnotes 1.0.0 (up to date)\n"
    );
}

/// The files under `dir`, absolute.
fn files(dir: &Path) -> Vec<PathBuf> {
    tree(dir)
        .into_iter()
        .map(|path| dir.join(path))
        .filter(|path| path.is_file())
        .collect()
}

/// Archives are kept by SHA-256 in the download cache: the same version is never downloaded
/// twice, even with the registry's copy gone or the registry stopped, and a cached archive that
/// no longer matches its name is downloaded again.
#[test]
fn the_download_cache_serves_a_version_again_and_is_verified_on_use() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    publish_all(&context, &registry, &[("notes", "1.0.0", "Cached notes.")]);
    let url = registry.url.clone();
    ok_in(&context, "one", &url, &["install", "notes"]);
    let lock = read(&context, "one/skills.lock");
    let sha = entry(&lock, "notes")
        .split("sha256 = \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    let cached = context
        .root()
        .join(format!("cache/archives/sha256/{}/{sha}.skill", &sha[..2]));
    assert_eq!(sha256(&fs_err::read(&cached).unwrap()), sha);

    // Damaged in the cache: deleted, downloaded again, and stored again.
    fs_err::write(&cached, b"not the archive").unwrap();
    let stderr = ok_in(&context, "two", &url, &["install", "notes"]);
    assert!(
        stderr.contains("note: the cached archive of notes@1.0.0: ")
            && stderr.contains("did not match its name")
            && stderr.contains("downloading it again"),
        "{stderr}"
    );
    assert_eq!(sha256(&fs_err::read(&cached).unwrap()), sha);

    // The registry loses its copy: a download would fail, the cache still serves it.
    for blob in files(&context.root().join("data/blobs")) {
        fs_err::remove_file(blob).unwrap();
    }
    fs_err::create_dir_all(context.root().join("uncached")).unwrap();
    let mut uncached = context.client(&["install", "notes"]);
    uncached
        .current_dir(context.root().join("uncached"))
        .env("SKILLPKG_REGISTRY", &url)
        .env("SKILLPKG_CACHE_DIR", context.root().join("empty-cache"));
    let (code, _, stderr) = run(uncached);
    assert_ne!(code, 0, "without the cache the download fails: {stderr}");
    let stderr = ok_in(&context, "three", &url, &["install", "notes"]);
    assert_eq!(stderr, "Installed notes@1.0.0 into .claude/skills/notes\n");
    assert!(read(&context, "three/.claude/skills/notes/SKILL.md").contains("Cached notes."));

    // The registry stops: installing what skills.lock says still works.
    drop(registry);
    fs_err::remove_dir_all(context.root().join("three/.claude")).unwrap();
    let stderr = ok_in(&context, "three", &url, &["install"]);
    assert_eq!(
        stderr,
        "Installed notes@1.0.0 into .claude/skills/notes (verified against skills.lock)\n"
    );
}

/// On a terminal, install shows the download's bytes on an indicatif bar; with --quiet, or on
/// a pipe, nothing but the result. The terminal is a real pseudo-terminal, made by util-linux
/// `script`.
#[cfg(target_os = "linux")]
#[test]
fn on_a_terminal_install_shows_download_progress() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    crate::registry::skill(
        &context,
        "sizable",
        "1.0.0",
        "See [the data](assets/data.bin).",
    );
    // Bytes that do not compress, so the archive is about 2 MiB.
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let noise: Vec<u8> = (0..2 * 1024 * 1024)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect();
    context.write("work/sizable/assets/data.bin", &noise);
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&alice),
        &["publish", "work/sizable"],
    );
    assert_eq!(code, 0, "{stderr}");
    let on_terminal = |project: &str, extra: &str| {
        fs_err::create_dir_all(context.root().join(project)).unwrap();
        let output = Command::new("script")
            .args(["--quiet", "--return", "--command"])
            .arg(format!(
                "'{}' install sizable --color never {extra}",
                insta_cmd::get_cargo_bin("skillpkg").display()
            ))
            .arg("/dev/null")
            .current_dir(context.root().join(project))
            .env("SKILLPKG_REGISTRY", &registry.url)
            .env(
                "SKILLPKG_CACHE_DIR",
                context.root().join(project).join("cache"),
            )
            .env("SKILLPKG_CA_FILE", &crate::common::pki().ca)
            .env_remove("CI")
            .stdin(Stdio::null())
            .output()
            .expect("these tests need util-linux `script` to make a terminal");
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let shown = on_terminal("one", "");
    assert!(
        shown.contains("downloading sizable@1.0.0 [") && shown.contains("/2.00 MiB"),
        "{shown}"
    );
    assert!(shown.contains("Installed sizable@1.0.0"), "{shown}");
    let shown = on_terminal("two", "--quiet");
    assert!(!shown.contains("downloading"), "{shown}");
    let shown = on_terminal("three", "--format json");
    assert!(!shown.contains("downloading"), "{shown}");
    let stderr = ok_in(&context, "piped", &registry.url, &["install", "sizable"]);
    assert_eq!(
        stderr,
        "Installed sizable@1.0.0 into .claude/skills/sizable\n"
    );
}

/// `--format json` on install, update, remove and list: one document on stdout, nothing for
/// people on stderr, every field documented in docs/install.md. One transcript, reviewed as a
/// snapshot.
#[test]
fn json_documents_are_stable_and_documented() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    publish_all(
        &context,
        &registry,
        &[
            ("notes", "1.0.0", "Version one."),
            ("other", "1.0.0", "Other."),
        ],
    );
    let url = registry.url.clone();
    let steps: &[&[&str]] = &[
        &["install", "notes@^1", "other", "--format", "json"],
        &["publish"],
        &["update", "--dry-run", "--format", "json"],
        &["update", "--format", "json"],
        &["list", "--format", "json"],
        &["list", "--offline", "--format", "json"],
        &["remove", "other", "--format", "json"],
        &["install", "--format", "json"],
    ];
    let mut transcript = String::new();
    let mut keys = std::collections::BTreeSet::new();
    for args in steps {
        if args[0] == "publish" {
            publish_all(
                &context,
                &registry,
                &[("notes", "1.1.0", "Version one point one.")],
            );
            transcript.push_str("(notes 1.1.0 is published)\n\n");
            continue;
        }
        let (code, stdout, stderr) = run_in(&context, "project", &url, args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
        let document: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        collect_keys(&document, &mut keys);
        let _ = write!(
            transcript,
            "$ skillpkg {}\n[exit {code}]\n{stdout}\n",
            args.join(" ")
        );
    }
    let docs =
        fs_err::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/install.md")).unwrap();
    for key in &keys {
        assert!(
            docs.contains(&format!("| `{key}` |"))
                || docs.contains(&format!("| `skills[].{key}` |")),
            "docs/install.md does not document `{key}`"
        );
    }
    let transcript = transcript.replace(&url, "[REGISTRY]");
    context.settings().bind(|| {
        insta::assert_snapshot!("lifecycle__json", transcript);
    });
}

fn collect_keys(value: &serde_json::Value, keys: &mut std::collections::BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                keys.insert(key.clone());
                collect_keys(value, keys);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                collect_keys(item, keys);
            }
        }
        _ => {}
    }
}
