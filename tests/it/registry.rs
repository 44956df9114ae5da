//! The registry end to end: the real `skillpkg registry serve` on loopback with a real `SQLite`
//! file, driven by the real CLI and by raw HTTP.

use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::common::{TestContext, pki, run};

mod access;
mod backends;
mod client;
mod hostile;
mod pages;
mod scaled;
mod search;
mod services;

/// Where a test registry keeps its data: the embedded stores under `data`, or its own
/// database and S3 prefix on the shared [`services`].
#[derive(Clone, Debug)]
pub(crate) struct Stores {
    data: PathBuf,
    pub(crate) scaled: Option<services::Scaled>,
}

impl Stores {
    pub(crate) fn embedded(data: &Path) -> Self {
        Self {
            data: data.to_path_buf(),
            scaled: None,
        }
    }

    /// A fresh `PostgreSQL` database and S3 prefix, or `None` when the servers are missing
    /// (see [`services::services`]).
    pub(crate) fn scaled(data: &Path, test: &str) -> Option<Self> {
        Some(Self {
            data: data.to_path_buf(),
            scaled: Some(services::services(test)?.fresh()),
        })
    }

    /// `--data DATA` and, when scaled, `--database` and `--blobs`, with the S3 variables.
    pub(crate) fn apply(&self, command: &mut Command) {
        command.arg("--data").arg(&self.data);
        if let Some(scaled) = &self.scaled {
            command
                .args(["--database", &scaled.database, "--blobs", &scaled.blobs])
                .envs(scaled.env.iter().map(|(k, v)| (k, v)));
        }
    }

    /// Where the archives are on disk: `DATA/blobs`, or the registry's prefix in the S3
    /// server's folder.
    pub(crate) fn blob_root(&self) -> PathBuf {
        self.scaled.as_ref().map_or_else(
            || self.data.join("blobs"),
            |scaled| scaled.blob_root.clone(),
        )
    }
}

/// A running registry; killed when dropped.
pub(crate) struct Registry {
    child: Child,
    pub(crate) url: String,
    stores: Stores,
}

impl Registry {
    /// Starts a registry serving HTTPS with the tests' certificate ([`pki`]).
    pub(crate) fn start(data: &Path, extra: &[&str]) -> Self {
        Self::start_under(&[], &Stores::embedded(data), &with_tls(extra))
    }

    /// Starts a registry on `stores`, serving HTTPS.
    pub(crate) fn start_on(stores: &Stores, extra: &[&str]) -> Self {
        Self::start_under(&[], stores, &with_tls(extra))
    }

    /// Starts a registry serving plain HTTP: for tests of the HTTP layer itself, over raw
    /// sockets, and of proxies in front of the registry.
    pub(crate) fn start_plain(data: &Path, extra: &[&str]) -> Self {
        Self::start_under(&[], &Stores::embedded(data), extra)
    }

    /// Starts a registry on `stores`, serving plain HTTP.
    pub(crate) fn start_plain_on(stores: &Stores, extra: &[&str]) -> Self {
        Self::start_under(&[], stores, extra)
    }

    /// Starts the registry as the last arguments of `wrapper` (a program that sets something up
    /// and then execs its arguments), or directly when `wrapper` is empty.
    fn start_under(wrapper: &[&str], stores: &Stores, extra: &[&str]) -> Self {
        let binary = insta_cmd::get_cargo_bin("skillpkg");
        let mut command = match wrapper.split_first() {
            Some((program, arguments)) => {
                let mut command = Command::new(program);
                command.args(arguments).arg(&binary);
                command
            }
            None => Command::new(&binary),
        };
        command.args(["registry", "serve"]);
        stores.apply(&mut command);
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
            stores: stores.clone(),
        }
    }

    pub(crate) fn token(&self, user: &str) -> String {
        self.token_with(user, &[])
    }

    /// A token for `user` made with `registry token create`'s `extra` options.
    pub(crate) fn token_with(&self, user: &str, extra: &[&str]) -> String {
        let mut command = Command::new(insta_cmd::get_cargo_bin("skillpkg"));
        command.args(["registry", "token", "create", "--user", user]);
        self.stores.apply(&mut command);
        let output = command.args(extra).output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    /// `skillpkg registry ARGS --data DATA` (and the scaled stores): (exit code, stdout,
    /// stderr).
    pub(crate) fn admin(&self, args: &[&str]) -> (i32, String, String) {
        let mut command = Command::new(insta_cmd::get_cargo_bin("skillpkg"));
        command.arg("registry").args(args);
        self.stores.apply(&mut command);
        run(command)
    }

    pub(crate) fn data(&self) -> &Path {
        &self.stores.data
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the server has exited (reaping it if so).
    pub(crate) fn exited(&mut self) -> bool {
        self.child.try_wait().unwrap().is_some()
    }

    pub(crate) fn kill(&mut self) {
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

/// Asserts that of 16 publishes of one version exactly one was created and 15 refused.
pub(crate) fn assert_one_winner(statuses: &[u16]) {
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

/// Starts publishing `path` on `registry` by hand, sends half of a 4 MiB body and returns the
/// connection once the server is writing the upload into `data/tmp`: an upload in flight, for
/// killing the server under it.
pub(crate) fn half_an_upload(
    registry: &Registry,
    data: &Path,
    token: &str,
    path: &str,
) -> std::net::TcpStream {
    use std::io::Write as _;
    let address = registry.url.split_once("://").unwrap().1.to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    let body = vec![b'z'; 4 * 1024 * 1024];
    write!(
        stream,
        "PUT {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nx-checksum-sha256: {}\r\nContent-Length: {}\r\n\r\n",
        sha256(&body),
        body.len()
    )
    .unwrap();
    stream.write_all(&body[..body.len() / 2]).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let tmp = data.join("tmp");
    while !(tmp.is_dir()
        && walk(&tmp)
            .iter()
            .any(|file| fs_err::metadata(file).is_ok_and(|meta| meta.len() > 0)))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the server never started receiving the upload"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    stream
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
