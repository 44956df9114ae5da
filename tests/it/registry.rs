//! The registry end to end: the real `skillpkg registry serve` on loopback with a real `SQLite`
//! file, driven by the real CLI and by raw HTTP.

use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::common::{TestContext, pki, run};

mod access;
mod client;
mod hostile;
mod pages;
mod search;

/// A running registry; killed when dropped.
pub(crate) struct Registry {
    child: Child,
    pub(crate) url: String,
    data: PathBuf,
}

impl Registry {
    /// Starts a registry serving HTTPS with the tests' certificate ([`pki`]).
    pub(crate) fn start(data: &Path, extra: &[&str]) -> Self {
        Self::start_under(&[], data, &with_tls(extra))
    }

    /// Starts a registry serving plain HTTP: for tests of the HTTP layer itself, over raw
    /// sockets, and of proxies in front of the registry.
    pub(crate) fn start_plain(data: &Path, extra: &[&str]) -> Self {
        Self::start_under(&[], data, extra)
    }

    /// Starts the registry as the last arguments of `wrapper` (a program that sets something up
    /// and then execs its arguments), or directly when `wrapper` is empty.
    fn start_under(wrapper: &[&str], data: &Path, extra: &[&str]) -> Self {
        let binary = insta_cmd::get_cargo_bin("skillpkg");
        let mut command = match wrapper.split_first() {
            Some((program, arguments)) => {
                let mut command = Command::new(program);
                command.args(arguments).arg(&binary);
                command
            }
            None => Command::new(&binary),
        };
        command.args(["registry", "serve", "--data"]).arg(data);
        if !extra.contains(&"--addr") {
            command.args(["--addr", "127.0.0.1:0"]);
        }
        let mut child = command
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the registry");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .expect("the registry prints its URL")
            .to_owned();
        Self {
            child,
            url,
            data: data.to_path_buf(),
        }
    }

    pub(crate) fn token(&self, user: &str) -> String {
        self.token_with(user, &[])
    }

    /// A token for `user` made with `registry token create`'s `extra` options.
    pub(crate) fn token_with(&self, user: &str, extra: &[&str]) -> String {
        let output = Command::new(insta_cmd::get_cargo_bin("skillpkg"))
            .args(["registry", "token", "create", "--user", user, "--data"])
            .arg(&self.data)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    /// `skillpkg registry ARGS --data DATA`: (exit code, stdout, stderr).
    pub(crate) fn admin(&self, args: &[&str]) -> (i32, String, String) {
        let mut command = Command::new(insta_cmd::get_cargo_bin("skillpkg"));
        command
            .arg("registry")
            .args(args)
            .arg("--data")
            .arg(&self.data);
        run(command)
    }

    pub(crate) fn data(&self) -> &Path {
        &self.data
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The CLI against `registry`, as `token`'s owner (or anonymous).
pub(crate) fn cli(
    context: &TestContext,
    registry: &Registry,
    token: Option<&str>,
    args: &[&str],
) -> (i32, String, String) {
    let mut command = context.client(args);
    command
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"));
    match token {
        Some(token) => command.env("SKILLPKG_TOKEN", token),
        None => command.env_remove("SKILLPKG_TOKEN"),
    };
    run(command)
}

pub(crate) fn skill(context: &TestContext, name: &str, version: &str, body: &str) {
    context.write(
        &format!("work/{name}/SKILL.md"),
        format!("---\nname: {name}\ndescription: Registry fixture {name}. Use when a registry test needs it.\nmetadata:\n  version: \"{version}\"\n---\n\n{body}\n"),
    );
}

/// `extra` and the options that serve HTTPS with the tests' certificate.
fn with_tls<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let pki = pki();
    let (cert, key) = (
        pki.cert.to_str().expect("a UTF-8 temp path"),
        pki.key.to_str().expect("a UTF-8 temp path"),
    );
    let mut all = vec!["--tls-cert", cert, "--tls-key", key];
    all.extend_from_slice(extra);
    all
}

/// An HTTP client for raw requests, which trusts the tests' certificate authority.
pub(crate) fn agent() -> ureq::Agent {
    use ureq::tls::{PemItem, RootCerts, TlsConfig};
    let pem = fs_err::read(&pki().ca).unwrap();
    let roots: Vec<_> = ureq::tls::parse_pem(&pem)
        .filter_map(|item| match item.unwrap() {
            PemItem::Certificate(certificate) => Some(certificate),
            _ => None,
        })
        .collect();
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .tls_config(
            TlsConfig::builder()
                .root_certs(RootCerts::from(roots))
                .build(),
        )
        .build()
        .into()
}

pub(crate) fn put(
    registry: &Registry,
    path: &str,
    token: &str,
    body: &[u8],
    checksum: &str,
) -> (u16, String) {
    let mut response = agent()
        .put(&format!("{}{path}", registry.url))
        .header("authorization", &format!("Bearer {token}"))
        .header("x-checksum-sha256", checksum)
        .send(body)
        .unwrap();
    let status = response.status().as_u16();
    (
        status,
        response.body_mut().read_to_string().unwrap_or_default(),
    )
}

pub(crate) fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    skillpkg::pack::archive::hex(&sha2::Sha256::digest(bytes))
}

/// Packs `work/<name>` with the real CLI and returns the archive's bytes.
pub(crate) fn packed(context: &TestContext, name: &str) -> Vec<u8> {
    let output = format!("packs/{name}.skill");
    let (code, _, stderr) =
        run(context.command(&["package", &format!("work/{name}"), "-o", &output]));
    assert_eq!(code, 0, "{stderr}");
    fs_err::read(context.root().join(output)).unwrap()
}

#[allow(clippy::too_many_lines)] // one story, told in order
#[test]
fn publish_search_install_yank_and_reinstall_from_the_lockfile() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
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
#[test]
fn tokens_owners_and_refusals() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &["--max-upload", "20000"]);
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

#[test]
fn a_tampered_download_installs_nothing() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
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
    let blobs: Vec<PathBuf> = walk(&context.root().join("data/blobs"));
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

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs_err::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn sixteen_concurrent_publishes_of_one_version_make_one_winner() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
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
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        15,
        "{statuses:?}"
    );
}

#[test]
fn a_server_killed_mid_upload_restarts_consistent() {
    use std::io::Write as _;
    let context = TestContext::new();
    let data = context.root().join("data");
    let mut registry = Registry::start_plain(&data, &[]);
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
    // Start an upload by hand, send half of the body, then SIGKILL the server.
    let address = registry.url.split_once("://").unwrap().1.to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    let body = vec![b'z'; 4 * 1024 * 1024];
    write!(
        stream,
        "PUT /api/v1/skills/steady/2.0.0 HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {alice}\r\nx-checksum-sha256: {}\r\nContent-Length: {}\r\n\r\n",
        sha256(&body),
        body.len()
    )
    .unwrap();
    stream.write_all(&body[..body.len() / 2]).unwrap();
    // Ready when the server has started writing the upload to its temporary folder.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let receiving = || {
        fs_err::read_dir(data.join("tmp")).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|entry| entry.metadata().is_ok_and(|meta| meta.len() > 0))
        })
    };
    while !receiving() {
        assert!(
            std::time::Instant::now() < deadline,
            "the server never started receiving the upload"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    registry.kill();
    drop(stream);
    // Restart on the same data: the database is intact, 2.0.0 does not exist, no partial blob.
    let registry = Registry::start(&data, &[]);
    let (_, stdout, _) = cli(&context, &registry, None, &["info", "steady"]);
    assert!(
        stdout.contains("1.0.0") && !stdout.contains("2.0.0"),
        "{stdout}"
    );
    let connection = rusqlite::Connection::open(data.join("registry.db")).unwrap();
    let check: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    assert_eq!(
        walk(&data.join("blobs")).len(),
        1,
        "only the finished archive is stored"
    );
    assert!(
        walk(&data.join("tmp")).is_empty(),
        "the interrupted upload was cleaned up"
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

#[test]
fn html_pages_and_errors_are_served() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    skill(&context, "shown", "1.0.0", "Body with <angle> brackets.");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["publish", "work/shown"]
        )
        .0,
        0
    );
    let mut page = agent()
        .get(&format!("{}/skills/shown", registry.url))
        .call()
        .unwrap();
    let html = page.body_mut().read_to_string().unwrap();
    assert!(
        html.contains("skillpkg install shown") && html.contains("&lt;angle&gt;"),
        "{html}"
    );
    let mut home = agent()
        .get(&format!("{}/?q=shown", registry.url))
        .call()
        .unwrap();
    assert!(
        home.body_mut()
            .read_to_string()
            .unwrap()
            .contains("/skills/shown")
    );
    let mut missing = agent()
        .get(&format!("{}/api/v1/nothing", registry.url))
        .call()
        .unwrap();
    assert_eq!(missing.status().as_u16(), 404);
    assert_eq!(
        missing.body_mut().read_to_string().unwrap(),
        "{\"errors\":[{\"detail\":\"no such endpoint\"}]}"
    );
}

/// What each client command prints, as a user sees it: one transcript, reviewed as a snapshot.
#[test]
fn client_commands_print_a_reviewed_transcript() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    registry.token("bob");
    skill(&context, "transcript", "1.0.0", "Transcript body.");
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let steps: &[(Option<&str>, &[&str])] = &[
        (None, &["publish", "../work/transcript", "--dry-run"]),
        (Some(&alice), &["publish", "../work/transcript"]),
        (Some(&alice), &["publish", "../work/transcript"]),
        (
            Some(&alice),
            &["publish", "../work/transcript", "--version", "1.2.0"],
        ),
        (
            Some(&alice),
            &["publish", "../work/transcript", "--version", "one"],
        ),
        (None, &["search", "transcript"]),
        (None, &["search", "nothing-matches-this"]),
        (None, &["info", "transcript"]),
        (None, &["info", "missing"]),
        (Some(&alice), &["yank", "transcript@1.2.0"]),
        (None, &["info", "transcript"]),
        (Some(&alice), &["owner", "add", "transcript", "bob"]),
        (Some(&alice), &["owner", "add", "transcript", "nobody"]),
        (Some(&alice), &["owner", "list", "transcript"]),
        (None, &["owner", "list", "transcript", "--format", "json"]),
        (None, &["search", "transcript", "--format", "json"]),
        (Some("skp_wrong"), &["yank", "transcript@1.0.0"]),
        (None, &["install", "transcript@^1"]),
        (None, &["install", "transcript@^2"]),
        (None, &["install", "--locked"]),
    ];
    let mut transcript = String::new();
    for (token, args) in steps {
        let mut command = context.client(args);
        command
            .current_dir(context.root().join("project"))
            .env("SKILLPKG_REGISTRY", &registry.url)
            .env("SKILLPKG_CONFIG_DIR", context.root().join("config"));
        match token {
            Some(token) => command.env("SKILLPKG_TOKEN", token),
            None => command.env_remove("SKILLPKG_TOKEN"),
        };
        let (code, stdout, stderr) = run(command);
        let _ = write!(
            transcript,
            "$ skillpkg {}\n[exit {code}]\n--- stdout\n{stdout}--- stderr\n{stderr}\n",
            args.join(" ")
        );
    }
    let transcript = transcript.replace(&registry.url, "[REGISTRY]");
    let mut settings = context.settings();
    settings.add_filter(r"\b\d{4}-\d{2}-\d{2}\b", "[DATE]");
    settings.add_filter(r#""updated_at": \d+"#, r#""updated_at": [TIME]"#);
    settings.bind(|| {
        insta::assert_snapshot!("registry__client_transcript", transcript);
    });
}

/// SIGTERM lets the request in flight finish, then the server exits 0 and frees its port.
#[cfg(unix)]
#[test]
fn sigterm_shuts_the_server_down_gracefully() {
    let context = TestContext::new();
    let mut registry = Registry::start(&context.root().join("data"), &[]);
    let status = agent()
        .get(&format!("{}/api/v1/skills?q=", registry.url))
        .call()
        .unwrap()
        .status()
        .as_u16();
    assert_eq!(status, 200);
    let killed = Command::new("kill")
        .args(["-TERM", &registry.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let exit = loop {
        if let Some(exit) = registry.child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not stop on SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
    let address = registry.url.split_once("://").unwrap().1.to_owned();
    assert!(std::net::TcpStream::connect(address).is_err());
}

/// A registry that is not up yet: publish retries with backoff and succeeds once it is.
#[test]
fn publish_retries_until_the_registry_answers() {
    let context = TestContext::new();
    let data = context.root().join("data");
    // Create the user's token before the server runs; the database is created on demand.
    let token_output = Command::new(insta_cmd::get_cargo_bin("skillpkg"))
        .args(["registry", "token", "create", "--user", "alice", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(token_output.status.success());
    let token = String::from_utf8(token_output.stdout)
        .unwrap()
        .trim()
        .to_owned();
    // A port held by a listener that hangs up on whoever connects: publish's first attempt
    // fails there, and only then does the registry take the port.
    let early = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = early.local_addr().unwrap().port();
    let url = format!("https://127.0.0.1:{port}");
    skill(&context, "patient", "1.0.0", "Patient.");
    let mut publish = context.client(&["publish", "work/patient"]);
    publish
        .env("SKILLPKG_REGISTRY", &url)
        .env("SKILLPKG_TOKEN", &token)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let publish = publish.spawn().unwrap();
    early.set_nonblocking(true).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        match early.accept() {
            Ok((connection, _)) => {
                drop(connection);
                break;
            }
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "publish never tried the registry"
                );
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(error) => panic!("{error}"),
        }
    }
    drop(early);
    let _registry = Registry::start(&data, &["--addr", &format!("127.0.0.1:{port}")]);
    let output = publish.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("{url}/skills/patient")
    );
}

/// On a terminal, publish shows the upload's bytes on an indicatif bar. The terminal is a real
/// pseudo-terminal, made by util-linux `script`.
#[cfg(target_os = "linux")]
#[test]
fn on_a_terminal_publish_shows_upload_progress() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    skill(
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
    let binary = insta_cmd::get_cargo_bin("skillpkg");
    let output = Command::new("script")
        .args(["--quiet", "--return", "--command"])
        .arg(format!(
            "'{}' publish work/sizable --color never",
            binary.display()
        ))
        .arg("/dev/null")
        .current_dir(context.root())
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_TOKEN", &alice)
        .env("SKILLPKG_CA_FILE", &pki().ca)
        .env_remove("CI")
        .stdin(Stdio::null())
        .output()
        .expect("these tests need util-linux `script` to make a terminal");
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{shown}");
    assert!(
        shown.contains("uploading sizable@1.0.0 [") && shown.contains("/2.00 MiB"),
        "{shown}"
    );
    assert!(shown.contains("Published sizable@1.0.0"), "{shown}");
}

/// When one of several installs fails, the ones before it are still in skills.lock, so their
/// folders are not left unmanaged (which a later install would refuse to replace).
#[test]
fn a_failed_install_still_records_what_was_installed() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    skill(&context, "first", "1.0.0", "First.");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["publish", "work/first"]
        )
        .0,
        0
    );
    let (code, _, stderr) = cli(&context, &registry, None, &["install", "first", "absent"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("no skill named `absent`"), "{stderr}");
    let lock = fs_err::read_to_string(context.root().join("skills.lock")).unwrap();
    assert!(lock.contains("name = \"first\""), "{lock}");
    let (code, _, stderr) = cli(&context, &registry, None, &["install", "first"]);
    assert_eq!(code, 0, "{stderr}");
}

/// Without `--registry` or `SKILLPKG_REGISTRY`, the URL comes from the nearest `skillpkg.toml`; a
/// broken skillpkg.toml is an error naming it, not silently skipped.
#[test]
fn the_registry_url_comes_from_skillpkg_toml() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    context.write(
        "work/skillpkg.toml",
        format!("registry = \"{}/\"\n", registry.url),
    );
    skill(&context, "configured", "1.0.0", "Configured.");
    let mut publish = context.client(&["publish", "work/configured"]);
    publish
        .env_remove("SKILLPKG_REGISTRY")
        .env("SKILLPKG_TOKEN", &alice);
    let (code, stdout, stderr) = run(publish);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), format!("{}/skills/configured", registry.url));

    context.write("work/skillpkg.toml", "registry = [\n");
    let mut publish = context.client(&["publish", "work/configured"]);
    publish
        .env_remove("SKILLPKG_REGISTRY")
        .env("SKILLPKG_TOKEN", &alice);
    let (code, _, stderr) = run(publish);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("skillpkg.toml"), "{stderr}");
}

/// `--addr` takes a host name; an address in use is named, with what to do; a registry URL
/// without its scheme gets the spelling that works.
#[test]
fn serve_and_registry_url_messages() {
    let context = TestContext::new();
    let by_name = Registry::start_plain(&context.root().join("one"), &["--addr", "localhost:0"]);
    assert!(
        by_name.url.starts_with("http://127.0.0.1:"),
        "{}",
        by_name.url
    );
    let taken = by_name.url.trim_start_matches("http://").to_owned();
    let (code, _, stderr) =
        run(context.command(&["registry", "serve", "--data", "two", "--addr", &taken]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!("error: cannot listen on {taken}: ")),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: another program is listening there"),
        "{stderr}"
    );
    let (code, _, stderr) = run(context.command(&["registry", "serve", "--addr", "8080"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("error: --addr `8080`: no port"), "{stderr}");
    let (code, _, stderr) = run(context.command(&["registry", "serve", "--addr", ":8080"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("hint: write the host too: 127.0.0.1:8080"),
        "{stderr}"
    );
    let (_, _, stderr) = run(context.command(&[
        "search",
        "notes",
        "--registry",
        "https:/registry.example.com",
    ]));
    assert!(
        stderr.contains("hint: write it as https://HOST or http://HOST:PORT"),
        "{stderr}"
    );

    let (code, _, stderr) =
        run(context.command(&["search", "notes", "--registry", "registry.example.com"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("error: the registry URL `registry.example.com` is not an http:// or https:// URL\n  hint: write it with its scheme: https://registry.example.com"),
        "{stderr}"
    );
}
