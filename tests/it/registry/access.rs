//! Access control over HTTPS: token scopes, expiry, listing and revocation, `--private`
//! registries (API and pages), `login` without echo, `logout`, and TLS set-up errors.

use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Registry, agent, cli, skill};
use crate::common::{TestContext, pki, run};

/// (status, body) of a GET with an optional `Authorization` header.
fn get(registry: &Registry, path: &str, authorization: Option<&str>) -> (u16, String, String) {
    let mut request = agent().get(&format!("{}{path}", registry.url));
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    let mut response = request.call().unwrap();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (
        response.status().as_u16(),
        response.body_mut().read_to_string().unwrap_or_default(),
        challenge,
    )
}

fn basic(token: &str) -> String {
    use base64::Engine as _;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("reviewer:{token}"))
    )
}

#[test]
fn scopes_expiry_and_revocation_decide_what_a_token_may_do() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    assert!(
        registry.url.starts_with("https://127.0.0.1:"),
        "{}",
        registry.url
    );
    let full = registry.token("alice");
    let reader = registry.token_with("alice", &["--scope", "read", "--label", "CI installs"]);
    let publisher = registry.token_with("alice", &["--scope", "publish,read", "--expires", "30d"]);
    skill(&context, "scoped", "1.0.0", "Scoped.");

    // A read-only token may not publish: 403, naming the scope and how to get one.
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&reader),
        &["publish", "work/scoped"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("this token may not publish: its scopes are read")
            && stderr.contains("--scope publish"),
        "{stderr}"
    );
    // A publish token publishes, but may not yank.
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&publisher),
        &["publish", "work/scoped"],
    );
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&publisher),
        &["yank", "scoped@1.0.0"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("may not yank or unyank versions"),
        "{stderr}"
    );
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&publisher),
        &["owner", "add", "scoped", "alice"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("may not change owners"), "{stderr}");
    let (code, stdout, stderr) = cli(
        &context,
        &registry,
        Some(&full),
        &["yank", "scoped@1.0.0", "--format", "json"],
    );
    assert_eq!(code, 0, "{stderr}");
    let yanked: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        yanked,
        serde_json::json!({"name": "scoped", "version": "1.0.0", "yanked": true})
    );
}

#[test]
fn tokens_are_listed_revoked_and_expire() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let full = registry.token("alice");
    let reader = registry.token_with("alice", &["--scope", "read", "--label", "CI installs"]);
    let publisher = registry.token_with("alice", &["--scope", "publish,read", "--expires", "30d"]);
    skill(&context, "scoped", "1.0.0", "Scoped.");
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&full),
        &["publish", "work/scoped"],
    );
    assert_eq!(code, 0, "{stderr}");

    // `token list` shows ids, scopes, labels and expiry, never a token or its whole hash.
    let (code, listed, stderr) = registry.admin(&["token", "list"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("3 tokens"), "{stderr}");
    for token in [&full, &reader, &publisher] {
        assert!(!listed.contains(&token[4..]), "{listed}");
    }
    let lines: Vec<&str> = listed.lines().collect();
    assert!(lines[0].contains("publish,yank,owners,read") && lines[0].contains("no expiry"));
    assert!(
        lines[1].contains("  read  ") && lines[1].contains("\"CI installs\""),
        "{listed}"
    );
    assert!(
        lines[2].contains("publish,read") && lines[2].contains("expires 20"),
        "{listed}"
    );
    let (_, json, _) = registry.admin(&["token", "list", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 3);
    assert_eq!(json[1]["scopes"], serde_json::json!(["read"]));
    assert_eq!(json[1]["label"], "CI installs");
    let reader_id = json[1]["id"].as_str().unwrap().to_owned();

    // Revoked: refused from then on, with the date; revoking again says so; an unknown id is
    // a refusal.
    let (code, _, stderr) = registry.admin(&["token", "revoke", &reader_id[..8]]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!("Revoked token {reader_id} of `alice`")),
        "{stderr}"
    );
    let (status, body, _) = get(&registry, "/api/v1/me", Some(&format!("Bearer {reader}")));
    assert_eq!(status, 401);
    assert!(body.contains("the token was revoked on 20"), "{body}");
    let (code, _, stderr) = registry.admin(&["token", "revoke", &reader_id]);
    assert_eq!(code, 0);
    assert!(stderr.contains("already revoked"), "{stderr}");
    let (code, _, stderr) = registry.admin(&["token", "revoke", "ffffffffffff"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("token list"), "{stderr}");

    // Expired: the database says when; the token is refused with the date.
    let publisher_hash = skillpkg::registry::server::token_hash(&publisher);
    rusqlite::Connection::open(registry.data().join("registry.db"))
        .unwrap()
        .execute(
            "UPDATE tokens SET expires_at = 86400 WHERE hash = ?1",
            [&publisher_hash],
        )
        .unwrap();
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&publisher),
        &["yank", "scoped@1.0.0", "--undo"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("the token expired on 1970-01-02 00:00 UTC"),
        "{stderr}"
    );
}

/// `token create`'s options are checked, and explained when wrong.
#[test]
fn token_create_explains_bad_options() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    for (args, message) in [
        (&["--scope", "admin"][..], "`admin` is not a scope"),
        (&["--expires", "2001-01-01"][..], "is in the past"),
        (&["--expires", "soon"][..], "neither a duration nor a date"),
        (
            &["--expires", "2027-02-30"][..],
            "neither a duration nor a date",
        ),
    ] {
        let mut all = vec!["token", "create", "--user", "alice"];
        all.extend_from_slice(args);
        let (code, _, stderr) = registry.admin(&all);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn a_private_registry_needs_a_read_token_for_every_read() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &["--private"]);
    let alice = registry.token("alice");
    let reader = registry.token_with("carol", &["--scope", "read"]);
    let publish_only = registry.token_with("alice", &["--scope", "publish"]);
    skill(&context, "secret", "1.0.0", "Secret.");
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&publish_only),
        &["publish", "work/secret"],
    );
    assert_eq!(code, 0, "publishing needs no read scope: {stderr}");

    // Anonymous: every read is refused, API and pages alike.
    for path in [
        "/api/v1/skills?q=secret",
        "/api/v1/skills/secret",
        "/api/v1/skills/secret/owners",
        "/api/v1/skills/secret/1.0.0/download",
        "/api/v1/skills/nothing-here",
    ] {
        let (status, body, challenge) = get(&registry, path, None);
        assert_eq!(status, 401, "{path}: {body}");
        assert!(body.starts_with("{\"errors\""), "{path}: {body}");
        assert!(challenge.starts_with("Bearer"), "{path}: {challenge}");
    }
    for path in [
        "/",
        "/?q=secret",
        "/skills/secret",
        "/skills/secret/1.0.0",
        "/skills/secret/1.0.0/files/SKILL.md",
        "/skills/nothing-here",
        "/nothing-here",
    ] {
        let (status, body, challenge) = get(&registry, path, None);
        assert_eq!(status, 401, "{path}");
        assert!(
            body.contains("This registry is private") && !body.contains("Secret."),
            "{path}: {body}"
        );
        assert!(challenge.starts_with("Basic realm="), "{path}: {challenge}");
    }
    // A token without the read scope is not enough; a wrong one neither.
    let (status, body, _) = get(
        &registry,
        "/api/v1/skills/secret",
        Some(&format!("Bearer {publish_only}")),
    );
    assert_eq!(status, 403, "{body}");
    let (status, _, _) = get(&registry, "/skills/secret", Some(&basic("skp_wrong")));
    assert_eq!(status, 401);
    let head = agent()
        .head(&format!(
            "{}/api/v1/skills/secret/1.0.0/download",
            registry.url
        ))
        .call()
        .unwrap();
    assert_eq!(head.status().as_u16(), 401, "HEAD is a read too");
    // A browser sends the token as the Basic password; the API takes it as a bearer token.
    let (status, body, _) = get(&registry, "/skills/secret", Some(&basic(&reader)));
    assert_eq!(status, 200);
    assert!(body.contains("secret"), "{body}");
    let (status, _, _) = get(
        &registry,
        "/api/v1/skills/secret",
        Some(&format!("Bearer {reader}")),
    );
    assert_eq!(status, 200);

    // The CLI sends the stored token with its reads.
    let (code, _, stderr) = cli(&context, &registry, None, &["search", "secret"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("401") || stderr.contains("needs a token"),
        "{stderr}"
    );
    assert!(stderr.contains("skillpkg login"), "{stderr}");
    let (code, stdout, stderr) = cli(&context, &registry, Some(&reader), &["search", "secret"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("secret 1.0.0"), "{stdout}");
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let mut install = context.client(&["install", "secret"]);
    install
        .current_dir(context.root().join("project"))
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env("SKILLPKG_TOKEN", &alice);
    let (code, _, stderr) = run(install);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        context
            .root()
            .join("project/.claude/skills/secret/SKILL.md")
            .exists()
    );
}

/// The credentials file keeps each registry's token; logout forgets one and keeps the rest.
#[test]
fn logout_forgets_one_registry_and_keeps_the_others() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token_with(
        "alice",
        &["--scope", "read,publish", "--expires", "2099-01-01"],
    );
    let other = "https://other.example.com";
    context.write(
        "config/credentials.toml",
        format!("\"{other}\" = \"skp_other\"\n"),
    );
    let mut login = context.client(&["login"]);
    login
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env_remove("SKILLPKG_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = login.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{alice}\n").as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("as `alice` (it may publish, read)")
            && stderr.contains("it expires 2099-01-01 00:00 UTC"),
        "{stderr}"
    );
    let credentials = context.root().join("config/credentials.toml");
    assert!(
        fs_err::read_to_string(&credentials)
            .unwrap()
            .contains(&alice)
    );

    // `--registry` after the command, as anywhere.
    let logout = |registry_url: &str| {
        let mut command = context.client(&["logout", "--registry", registry_url]);
        command
            .env_remove("SKILLPKG_REGISTRY")
            .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
            .env_remove("SKILLPKG_TOKEN");
        run(command)
    };
    let (code, _, stderr) = logout(&registry.url);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Logged out of"), "{stderr}");
    let left = fs_err::read_to_string(&credentials).unwrap();
    assert!(
        !left.contains(&alice) && left.contains("skp_other"),
        "{left}"
    );
    let (code, _, stderr) = logout(&registry.url);
    assert_eq!(code, 0);
    assert!(stderr.contains("No token was stored"), "{stderr}");
}

/// On a terminal, `login` reads the token with echo off: what is typed never appears in the
/// terminal's output. The terminal is a real pseudo-terminal made by util-linux `script`; the
/// token is typed a moment after the prompt is up.
#[test]
fn login_on_a_terminal_does_not_echo_the_token() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    let binary = insta_cmd::get_cargo_bin("skillpkg");
    let mut script = Command::new("script")
        .args(["--quiet", "--return", "--command"])
        .arg(format!("'{}' login --color never", binary.display()))
        .arg("/dev/null")
        .current_dir(context.root())
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env("SKILLPKG_CA_FILE", &pki().ca)
        .env_remove("SKILLPKG_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("these tests need util-linux `script` to make a terminal");
    let mut stdout = script.stdout.take().unwrap();
    // Wait for the prompt, then type.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    let mut buffer = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("not shown as you type") {
        assert!(
            Instant::now() < deadline,
            "no prompt: {}",
            String::from_utf8_lossy(&seen)
        );
        let read = stdout.read(&mut buffer).unwrap();
        assert!(read > 0, "no prompt: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buffer[..read]);
    }
    std::thread::sleep(Duration::from_millis(300));
    let mut stdin = script.stdin.take().unwrap();
    stdin.write_all(format!("{alice}\r").as_bytes()).unwrap();
    stdin.flush().unwrap();
    stdout.read_to_end(&mut seen).unwrap();
    drop(stdin);
    let status = script.wait().unwrap();
    let shown = String::from_utf8_lossy(&seen);
    assert!(status.success(), "{shown}");
    assert!(
        shown.contains("Logged in to") && shown.contains("as `alice`"),
        "{shown}"
    );
    assert!(
        !shown.contains(&alice[4..]),
        "the token was echoed: {shown}"
    );
    let stored = fs_err::read_to_string(context.root().join("config/credentials.toml")).unwrap();
    assert!(stored.contains(&alice));
}

/// `--tls-cert` and `--tls-key` name the file at fault; a client that never finishes the TLS
/// handshake is dropped after the header timeout.
#[test]
fn tls_setup_errors_name_the_file_and_silent_handshakes_are_dropped() {
    let context = TestContext::new();
    let garbage = context.write("garbage.pem", "not a certificate\n");
    let pki = pki();
    for (cert, key, message) in [
        (
            garbage.as_path(),
            pki.key.as_path(),
            "garbage.pem: has no certificate",
        ),
        (
            pki.cert.as_path(),
            garbage.as_path(),
            "garbage.pem: no private key found",
        ),
        (
            pki.cert.as_path(),
            pki.ca.as_path(),
            "ca.pem: no private key found",
        ),
        (
            context.root().join("missing.pem").as_path(),
            pki.key.as_path(),
            "cannot read",
        ),
    ] {
        let mut command = context.command(&[
            "registry",
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--data",
            "data",
        ]);
        command
            .arg("--tls-cert")
            .arg(cert)
            .arg("--tls-key")
            .arg(key);
        let (code, _, stderr) = run(command);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(message), "{message}: {stderr}");
        assert!(stderr.contains("hint:"), "{stderr}");
    }
    let (code, _, stderr) =
        run(context.command(&["registry", "serve", "--data", "data", "--tls-cert", "x.pem"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("--tls-key"), "{stderr}");

    let registry = Registry::start(&context.root().join("data"), &["--header-timeout", "1"]);
    let address = registry.url.trim_start_matches("https://").to_owned();
    let mut silent = std::net::TcpStream::connect(&address).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let started = Instant::now();
    let mut byte = [0u8; 1];
    let read = silent.read(&mut byte);
    assert!(
        matches!(read, Ok(0)) || read.is_err() && started.elapsed() < Duration::from_secs(9),
        "{read:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(9));
    // Plain HTTP to a TLS port gets no answer a client could take for one.
    let (status, _, _) = get(&registry, "/api/v1/skills", None);
    assert_eq!(status, 200);
}

/// What one plain-HTTP connection to a listener that answers 404 sent: its request headers,
/// lowercase.
fn capture_one_request(listener: &std::net::TcpListener) -> String {
    let (mut stream, _) = listener.accept().unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !seen.windows(4).any(|window| window == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).unwrap();
        if read == 0 {
            break;
        }
        seen.extend_from_slice(&buffer[..read]);
    }
    let _ = stream.write_all(
        b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 36\r\nconnection: close\r\n\r\n{\"errors\":[{\"detail\":\"not here\"}]}\n",
    );
    String::from_utf8_lossy(&seen).to_ascii_lowercase()
}

/// `SKILLPKG_TOKEN` goes only to the registry the user named (`--registry` or
/// `SKILLPKG_REGISTRY`): a registry that a committed `skills.lock` names gets no token, so a
/// hostile clone cannot collect a CI's token by having `skillpkg list` or `install` read it.
#[test]
fn the_environments_token_goes_only_to_the_registry_the_user_named() {
    let context = TestContext::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let elsewhere = format!("http://{}", listener.local_addr().unwrap());
    context.write(
        "project/skills.lock",
        format!(
            "version = 1\n[[skill]]\nname = \"notes\"\nversion = \"1.0.0\"\nregistry = \"{elsewhere}\"\nsha256 = \"{}\"\ndigest = \"h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\"\ndir = \".claude/skills/notes\"\n",
            "0".repeat(64)
        ),
    );
    let list = |named: Option<&str>| {
        let mut command = context.client(&["list"]);
        command
            .current_dir(context.root().join("project"))
            .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
            .env("SKILLPKG_TOKEN", "skp_the_ci_token");
        match named {
            Some(url) => command.env("SKILLPKG_REGISTRY", url),
            None => command.env_remove("SKILLPKG_REGISTRY"),
        };
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let headers = capture_one_request(&listener);
        let _ = child.wait_with_output();
        headers
    };
    let unnamed = list(None);
    assert!(unnamed.starts_with("get /api/v1/skills/notes"), "{unnamed}");
    assert!(!unnamed.contains("authorization"), "{unnamed}");
    assert!(!unnamed.contains("skp_the_ci_token"), "{unnamed}");
    // Named by the user, the same registry gets the token (so the capture above would see it).
    let named = list(Some(&elsewhere));
    assert!(
        named.contains("authorization: bearer skp_the_ci_token"),
        "{named}"
    );
}

/// What a private registry answers is for the one who asked: no shared cache (a proxy, a CDN)
/// may keep it for anyone else.
#[test]
fn a_private_registrys_answers_are_not_kept_by_shared_caches() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &["--private"]);
    let alice = registry.token("alice");
    let reader = registry.token_with("carol", &["--scope", "read"]);
    skill(&context, "secret", "1.0.0", "Secret.");
    let (code, _, stderr) = cli(
        &context,
        &registry,
        Some(&alice),
        &["publish", "work/secret"],
    );
    assert_eq!(code, 0, "{stderr}");
    let cache = |path: &str| {
        let response = agent()
            .get(&format!("{}{path}", registry.url))
            .header("authorization", &format!("Bearer {reader}"))
            .call()
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{path}");
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|value| value.to_str().unwrap().to_owned())
                .unwrap_or_default()
        };
        (header("cache-control"), header("vary"))
    };
    assert_eq!(
        cache("/api/v1/skills/secret/1.0.0/download"),
        (
            "private, max-age=31536000, immutable".to_owned(),
            "authorization".to_owned()
        )
    );
    assert_eq!(
        cache("/skills/secret"),
        ("private, no-store".to_owned(), "authorization".to_owned())
    );
    assert_eq!(cache("/api/v1/skills/secret").0, "private, no-store");
}
