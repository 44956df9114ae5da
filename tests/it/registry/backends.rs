//! The registry's core story on both back ends, from one module: every test here runs once on
//! the embedded stores (`SQLite` + a folder) and once on `PostgreSQL` + S3 (real servers, see
//! [`super::services`]): publish, install, yank, owners, tokens, concurrency, a crash, a
//! tampered archive.

use std::path::{Path, PathBuf};

use super::{Registry, Stores, agent, cli, packed, put, sha256, skill, walk};
use crate::common::{TestContext, run};

/// Each test once per back end: `embedded::NAME` and `scaled::NAME`.
macro_rules! on_both_back_ends {
    ($($name:ident),* $(,)?) => {
        mod embedded {
            $(
                #[test]
                fn $name() {
                    super::$name(|data| Some(super::Stores::embedded(data)));
                }
            )*
        }
        mod scaled {
            $(
                #[test]
                fn $name() {
                    super::$name(|data| super::Stores::scaled(data, stringify!($name)));
                }
            )*
        }
    };
}

on_both_back_ends!(
    publish_search_install_yank_and_reinstall_from_the_lockfile,
    tokens_owners_and_refusals,
    a_tampered_download_installs_nothing,
    sixteen_concurrent_publishes_of_one_version_make_one_winner,
    a_server_killed_mid_upload_restarts_consistent,
    gc_lists_then_removes_only_unreferenced_archives,
    health_readiness_and_request_ids,
    migrations_run_at_start_or_by_migrate_and_no_migrate_refuses,
);

#[allow(clippy::too_many_lines)] // one story, told in order
fn publish_search_install_yank_and_reinstall_from_the_lockfile(
    stores: fn(&Path) -> Option<Stores>,
) {
    let context = TestContext::new();
    let Some(stores) = stores(&context.root().join("data")) else {
        return;
    };
    let registry = Registry::start_on(&stores, &[]);
    let alice = registry.token("alice");
    skill(&context, "notes", "1.0.0", "Version one.");

    // login stores the token, 0600.
    let mut login = context.client(&["login"]);
    login
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env("SKILLPKG_TOKEN", &alice);
    let (code, _, stderr) = run(login);
    assert_eq!(code, 0, "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs_err::metadata(context.root().join("config/credentials.toml"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let (code, stdout, stderr) = cli(&context, &registry, None, &["publish", "work/notes"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), format!("{}/skills/notes", registry.url));
    // Same version, same contents: reported, exit 0. Different contents: refused, exit 1.
    let (code, _, stderr) = cli(&context, &registry, None, &["publish", "work/notes"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("already published"), "{stderr}");
    skill(&context, "notes", "1.0.0", "Changed text, same version.");
    let (code, _, stderr) = cli(&context, &registry, None, &["publish", "work/notes"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("already exists") && stderr.contains("immutable"),
        "{stderr}"
    );
    skill(&context, "notes", "1.1.0", "Version one point one.");
    assert_eq!(
        cli(&context, &registry, None, &["publish", "work/notes"]).0,
        0
    );

    let (code, stdout, _) = cli(&context, &registry, None, &["search", "notes"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("notes 1.1.0 — Registry fixture notes."),
        "{stdout}"
    );

    // Install into a project: the newest, verified, locked.
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let project = |args: &[&str]| {
        let mut command = context.client(args);
        command
            .current_dir(context.root().join("project"))
            .env("SKILLPKG_REGISTRY", &registry.url)
            .env_remove("SKILLPKG_TOKEN");
        run(command)
    };
    let (code, _, stderr) = project(&["install", "notes"]);
    assert_eq!(code, 0, "{stderr}");
    let installed =
        fs_err::read_to_string(context.root().join("project/.claude/skills/notes/SKILL.md"))
            .unwrap();
    assert!(installed.contains("Version one point one."));
    let lock = fs_err::read_to_string(context.root().join("project/skills.lock")).unwrap();
    assert!(
        lock.contains("name = \"notes\"\nversion = \"1.1.0\""),
        "{lock}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs_err::metadata(context.root().join("project/skills.lock"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644, "skills.lock is a shared project file");
    }

    // Yank 1.1.0: a fresh install picks 1.0.0; the lockfile still installs 1.1.0 exactly.
    let (code, _, stderr) = cli(&context, &registry, Some(&alice), &["yank", "notes@1.1.0"]);
    assert_eq!(code, 0, "{stderr}");
    let (_, stdout, _) = cli(&context, &registry, None, &["info", "notes"]);
    assert!(stdout.contains("1.1.0 (yanked)"), "{stdout}");
    let (code, _, stderr) = project(&["install", "notes", "--locked"]);
    assert_eq!(
        code, 2,
        "--locked refuses to move from 1.1.0 to 1.0.0: {stderr}"
    );
    fs_err::remove_dir_all(context.root().join("project/.claude")).unwrap();
    let (code, _, stderr) = project(&["install"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        fs_err::read_to_string(context.root().join("project/.claude/skills/notes/SKILL.md"))
            .unwrap()
            .contains("Version one point one.")
    );
    let (code, _, stderr) = project(&["install", "notes@^1"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        fs_err::read_to_string(context.root().join("project/.claude/skills/notes/SKILL.md"))
            .unwrap()
            .contains("Version one.")
    );
    // An exact pin still gets a yanked version; --undo brings it back.
    assert_eq!(project(&["install", "notes@1.1.0"]).0, 0);
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["yank", "notes@1.1.0", "--undo"]
        )
        .0,
        0
    );
    let (_, stdout, _) = cli(&context, &registry, None, &["info", "notes"]);
    assert!(!stdout.contains("(yanked)"), "{stdout}");
}

#[allow(clippy::too_many_lines)] // one story, told in order
fn tokens_owners_and_refusals(stores: fn(&Path) -> Option<Stores>) {
    let context = TestContext::new();
    let Some(stores) = stores(&context.root().join("data")) else {
        return;
    };
    let registry = Registry::start_on(&stores, &["--max-upload", "20000"]);
    let alice = registry.token("alice");
    let bob = registry.token("bob");
    skill(&context, "owned", "1.0.0", "Owned.");
    let archive = packed(&context, "owned");
    let path = "/api/v1/skills/owned/1.0.0";

    // 401: no token, a wrong token.
    let (status, body) = put(&registry, path, "skp_wrong", &archive, &sha256(&archive));
    assert_eq!(status, 401, "{body}");
    assert!(body.starts_with("{\"errors\":[{\"detail\":"), "{body}");
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some("skp_wrong"),
        &["publish", "work/owned"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("401") && stderr.contains("skillpkg login"),
        "{stderr}"
    );
    // Checksum mismatch.
    let (status, body) = put(&registry, path, &alice, &archive, &"0".repeat(64));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("checksum mismatch"), "{body}");
    // Name mismatch: the archive says `owned`, the URL `other`.
    let (status, body) = put(
        &registry,
        "/api/v1/skills/other/1.0.0",
        &alice,
        &archive,
        &sha256(&archive),
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("named `owned`"), "{body}");
    // Too big for this registry.
    let big = vec![b'x'; 30_000];
    let (status, body) = put(&registry, path, &alice, &big, &sha256(&big));
    assert_eq!(status, 413, "{body}");
    // A hostile archive.
    let mut hostile = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut hostile);
        zip.start_file("owned/SKILL.md", zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut zip, b"---\nname: owned\ndescription: x\n---\n").unwrap();
        zip.start_file(
            "owned/../../escape.txt",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.finish().unwrap();
    }
    let hostile = hostile.into_inner();
    let (status, body) = put(&registry, path, &alice, &hostile, &sha256(&hostile));
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("leaves the extraction folder"), "{body}");
    assert!(
        !context.root().join("escape.txt").exists()
            && !context.root().join("data/escape.txt").exists()
    );

    // alice publishes first and owns it; bob cannot publish, yank or change owners.
    let (status, body) = put(&registry, path, &alice, &archive, &sha256(&archive));
    assert_eq!(status, 201, "{body}");
    skill(&context, "owned", "1.1.0", "Bob's attempt.");
    // A refusal is exit 1 (the operation was refused), not 2 (a usage error).
    let (code, _, stderr) = cli(&context, &registry, Some(&bob), &["publish", "work/owned"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("403") && stderr.contains("not an owner"),
        "{stderr}"
    );
    assert_eq!(
        cli(&context, &registry, Some(&bob), &["yank", "owned@1.0.0"]).0,
        1
    );
    // So is a skill or version that is not there.
    let (code, _, stderr) = cli(&context, &registry, Some(&alice), &["yank", "owned@9.9.9"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("404"), "{stderr}");
    let (code, _, stderr) = cli(&context, &registry, None, &["info", "never-published"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("404"), "{stderr}");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&bob),
            &["owner", "add", "owned", "bob"]
        )
        .0,
        1
    );
    // Names are lowercase, so `OWNED` cannot even be asked for (the store's own case rule is
    // a unit test).
    let (status, body) = put(
        &registry,
        "/api/v1/skills/OWNED/1.0.0",
        &alice,
        &archive,
        &sha256(&archive),
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("not a valid skill name"), "{body}");
    // alice adds bob; now bob can publish.
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["owner", "add", "owned", "bob"]
        )
        .0,
        0
    );
    let (_, stdout, _) = cli(&context, &registry, None, &["owner", "list", "owned"]);
    assert_eq!(stdout, "alice\nbob\n");
    let (code, _, stderr) = cli(&context, &registry, Some(&bob), &["publish", "work/owned"]);
    assert_eq!(code, 0, "{stderr}");
    // A duplicate version is a 409 over raw HTTP too, even after a yank.
    assert_eq!(
        cli(&context, &registry, Some(&alice), &["yank", "owned@1.0.0"]).0,
        0
    );
    let (status, _) = put(&registry, path, &alice, &archive, &sha256(&archive));
    assert_eq!(status, 409);
}

fn a_tampered_download_installs_nothing(stores: fn(&Path) -> Option<Stores>) {
    let context = TestContext::new();
    let Some(stores) = stores(&context.root().join("data")) else {
        return;
    };
    let registry = Registry::start_on(&stores, &[]);
    let alice = registry.token("alice");
    skill(&context, "fragile", "1.0.0", "Fragile.");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["publish", "work/fragile"]
        )
        .0,
        0
    );
    // Alter the stored archive behind the registry's back.
    let blobs: Vec<PathBuf> = walk(&stores.blob_root());
    assert_eq!(blobs.len(), 1);
    let mut bytes = fs_err::read(&blobs[0]).unwrap();
    let last = bytes.len() - 30;
    bytes[last] ^= 0xFF;
    fs_err::write(&blobs[0], bytes).unwrap();
    let (code, _, stderr) = cli(
        &context,
        &registry,
        None,
        &["install", "fragile", "--dir", "installed"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("does not match its checksum") && stderr.contains("nothing was installed"),
        "{stderr}"
    );
    assert!(!context.root().join("installed/fragile").exists());
    assert!(!context.root().join("skills.lock").exists());
}

fn sixteen_concurrent_publishes_of_one_version_make_one_winner(
    stores: fn(&Path) -> Option<Stores>,
) {
    let context = TestContext::new();
    let Some(stores) = stores(&context.root().join("data")) else {
        return;
    };
    let registry = Registry::start_on(&stores, &[]);
    let alice = registry.token("alice");
    skill(&context, "race", "1.0.0", "Race.");
    let archive = packed(&context, "race");
    let checksum = sha256(&archive);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|_| {
                scope.spawn(|| {
                    put(
                        &registry,
                        "/api/v1/skills/race/1.0.0",
                        &alice,
                        &archive,
                        &checksum,
                    )
                    .0
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    super::assert_one_winner(&statuses);
}

fn a_server_killed_mid_upload_restarts_consistent(stores: fn(&Path) -> Option<Stores>) {
    let context = TestContext::new();
    let data = context.root().join("data");
    let Some(stores) = stores(&data) else {
        return;
    };
    let mut registry = Registry::start_plain_on(&stores, &[]);
    let alice = registry.token("alice");
    skill(&context, "steady", "1.0.0", "Steady.");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["publish", "work/steady"]
        )
        .0,
        0
    );
    // Half an upload in flight, then SIGKILL the server.
    let stream = super::half_an_upload(&registry, &data, &alice, "/api/v1/skills/steady/2.0.0");
    registry.kill();
    drop(stream);
    // Restart on the same data: the database is intact, 2.0.0 does not exist, no partial blob.
    let registry = Registry::start_on(&stores, &[]);
    let (_, stdout, _) = cli(&context, &registry, None, &["info", "steady"]);
    assert!(
        stdout.contains("1.0.0") && !stdout.contains("2.0.0"),
        "{stdout}"
    );
    if stores.scaled.is_none() {
        let connection = rusqlite::Connection::open(data.join("registry.db")).unwrap();
        let check: String = connection
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .unwrap();
        assert_eq!(check, "ok");
    }
    assert_eq!(
        walk(&stores.blob_root()).len(),
        1,
        "only the finished archive is stored"
    );
    let (code, stdout, stderr) = registry.admin(&["gc", "--min-age", "0s", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\"unreferenced\": []"), "{stdout}");
    // Only the running server's lock file is left: the killed one's folder was swept.
    let left = walk(&data.join("tmp"));
    assert!(
        left.len() == 1 && left[0].ends_with(".lock"),
        "the interrupted upload was cleaned up: {left:?}"
    );
    let mut response = agent()
        .get(&format!(
            "{}/api/v1/skills/steady/2.0.0/download",
            registry.url
        ))
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
    assert!(
        response
            .body_mut()
            .read_to_string()
            .unwrap()
            .starts_with("{\"errors\"")
    );
}

fn gc_lists_then_removes_only_unreferenced_archives(stores: fn(&Path) -> Option<Stores>) {
    let context = TestContext::new();
    let Some(stores) = stores(&context.root().join("data")) else {
        return;
    };
    let registry = Registry::start_on(&stores, &[]);
    let alice = registry.token("alice");
    skill(&context, "kept", "1.0.0", "Kept.");
    assert_eq!(
        cli(&context, &registry, Some(&alice), &["publish", "work/kept"]).0,
        0
    );
    // What a publish interrupted between its blob and its transaction leaves: an archive no
    // version refers to.
    let orphan = sha256(b"orphan");
    let path = stores.blob_root().join(format!(
        "sha256/{}/{}/{orphan}",
        &orphan[..2],
        &orphan[2..4]
    ));
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(&path, b"orphan").unwrap();

    // Young archives are left alone: a publish may be storing them.
    let (code, stdout, stderr) = registry.admin(&["gc"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("younger than --min-age 1h"), "{stderr}");
    // A dry run by default: listed, not removed.
    let (code, stdout, stderr) = registry.admin(&["gc", "--min-age", "0s"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, format!("{orphan}  6 bytes\n"));
    assert!(
        stderr.contains("Would remove 1 unreferenced archive (6 bytes) of 2 stored"),
        "{stderr}"
    );
    assert!(path.is_file());
    let (code, _, stderr) = registry.admin(&["gc", "--min-age", "0s", "--delete"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Removed 1 unreferenced archive"),
        "{stderr}"
    );
    assert!(!path.exists());
    // The referenced archive is still there and installs.
    let (code, stdout, stderr) = cli(
        &context,
        &registry,
        None,
        &["install", "kept", "--dir", "installed"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (_, _, stderr) = registry.admin(&["gc", "--min-age", "0s"]);
    assert!(
        stderr.contains("Nothing to remove: 0 unreferenced archives (0 bytes) of 1 stored"),
        "{stderr}"
    );
}

fn health_readiness_and_request_ids(stores: fn(&Path) -> Option<Stores>) {
    let context = TestContext::new();
    let Some(stores) = stores(&context.root().join("data")) else {
        return;
    };
    let registry = Registry::start_on(&stores, &["--private"]);
    for path in ["/healthz", "/readyz"] {
        let mut response = agent()
            .get(&format!("{}{path}", registry.url))
            .call()
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{path} needs no token");
        let body = response.body_mut().read_to_string().unwrap();
        assert!(body.contains("true"), "{body}");
        let id = response.headers()["x-request-id"].to_str().unwrap();
        assert_eq!(id.len(), 32, "a new id: {id}");
    }
    // A proxy's id is kept; a strange one is replaced.
    let response = agent()
        .get(&format!("{}/healthz", registry.url))
        .header("x-request-id", "lb-1234.abc")
        .call()
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "lb-1234.abc");
    let response = agent()
        .get(&format!("{}/healthz", registry.url))
        .header("x-request-id", "<script>")
        .call()
        .unwrap();
    assert_ne!(response.headers()["x-request-id"], "<script>");
    if stores.scaled.is_none() {
        // A blob store that is gone makes the server not ready, and says which store.
        fs_err::remove_dir_all(stores.blob_root()).unwrap();
        let mut response = agent()
            .get(&format!("{}/readyz", registry.url))
            .call()
            .unwrap();
        assert_eq!(response.status().as_u16(), 503);
        let body: serde_json::Value =
            serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        assert_eq!(body["ready"], false);
        assert_eq!(body["database"], "ok");
        assert_ne!(body["blobs"], "ok");
    }
}

/// `serve --no-migrate` refuses a database that lacks migrations; `registry migrate` applies
/// them once and then finds nothing to do; then `--no-migrate` serves.
fn migrations_run_at_start_or_by_migrate_and_no_migrate_refuses(
    stores: fn(&Path) -> Option<Stores>,
) {
    let context = TestContext::new();
    let Some(stores) = stores(&context.root().join("data")) else {
        return;
    };
    let registry_command = |args: &[&str]| {
        let mut command = std::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"));
        command.arg("registry").args(args);
        stores.apply(&mut command);
        command
    };
    // An empty database (SQLite: a file with no schema yet).
    if stores.scaled.is_none() {
        fs_err::create_dir_all(context.root().join("data")).unwrap();
        rusqlite::Connection::open(context.root().join("data/registry.db")).unwrap();
    }
    let (code, _, stderr) = run(registry_command(&[
        "serve",
        "--no-migrate",
        "--addr",
        "127.0.0.1:0",
    ]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("has schema 0") && stderr.contains("skillpkg registry migrate"),
        "{stderr}"
    );
    let (code, _, stderr) = run(registry_command(&["migrate"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Migrated") && stderr.contains("applied"),
        "{stderr}"
    );
    let (code, _, stderr) = run(registry_command(&["migrate"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("is up to date"), "{stderr}");
    let registry = Registry::start_on(&stores, &["--no-migrate"]);
    let alice = registry.token("alice");
    skill(&context, "migrated", "1.0.0", "Migrated.");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["publish", "work/migrated"]
        )
        .0,
        0
    );
}
