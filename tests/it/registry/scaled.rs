//! A registry past one machine: several `registry serve` processes sharing one `PostgreSQL`
//! and one S3 server (real ones, see [`super::services`]), downloads by presigned redirect, and
//! moving a registry from the embedded stores to these with `registry export` / `import`.

use std::io::Write as _;
use std::time::{Duration, Instant};

use super::{Registry, Stores, agent, cli, packed, put, sha256, skill, walk};
use crate::common::{TestContext, run};

fn get(url: &str) -> (u16, Vec<u8>) {
    let mut response = agent().get(url).call().unwrap();
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .with_config()
        .limit(64 * 1024 * 1024)
        .read_to_vec()
        .unwrap();
    (status, body)
}

#[test]
#[allow(clippy::too_many_lines)] // one story, told in order
fn three_servers_share_one_postgres_and_one_s3() {
    let context = TestContext::new();
    let data = context.root().join("data");
    let Some(stores) = Stores::scaled(&data, "three_servers_share_one_postgres_and_one_s3") else {
        return;
    };
    let first = Registry::start_on(&stores, &[]);
    let mut second = Registry::start_plain_on(&stores, &[]);
    let third = Registry::start_on(&stores, &[]);
    let alice = first.token("alice");

    // A publish through one server is installable through the others at once.
    skill(&context, "shared", "1.0.0", "Shared.");
    let (code, _, stderr) = cli(&context, &first, Some(&alice), &["publish", "work/shared"]);
    assert_eq!(code, 0, "{stderr}");
    for other in [&second, &third] {
        let elsewhere = TestContext::new();
        let (code, stdout, stderr) = cli(
            &elsewhere,
            other,
            None,
            &["install", "shared", "--dir", "installed"],
        );
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(elsewhere.root().join("installed/shared/SKILL.md").is_file());
    }

    // 16 concurrent publishes of one version, spread over the three: exactly one 201.
    skill(&context, "race", "1.0.0", "Race.");
    let archive = packed(&context, "race");
    let checksum = sha256(&archive);
    let servers = [&first, &second, &third];
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|index| {
                let server = servers[index % 3];
                let (archive, checksum, alice) = (&archive, &checksum, &alice);
                scope.spawn(move || {
                    put(
                        server,
                        "/api/v1/skills/race/1.0.0",
                        alice,
                        archive,
                        checksum,
                    )
                    .0
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    super::assert_one_winner(&statuses);

    // SIGKILL of one server mid-upload: the others keep serving, and the data stays
    // consistent (nothing visible, no blob but finished ones).
    let stream = super::half_an_upload(&second, &data, &alice, "/api/v1/skills/shared/2.0.0");
    second.kill();
    drop(stream);
    for server in [&first, &third] {
        let (code, stdout, stderr) = cli(&context, server, None, &["info", "shared"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stdout.contains("1.0.0") && !stdout.contains("2.0.0"),
            "{stdout}"
        );
        let (status, bytes) = get(&format!("{}/api/v1/skills/race/1.0.0/download", server.url));
        assert_eq!(status, 200);
        assert_eq!(sha256(&bytes), checksum);
    }
    let (code, stdout, stderr) = first.admin(&["gc", "--min-age", "0s", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        report["unreferenced"].as_array().unwrap().len() <= 1,
        "at most the orphan of the killed upload: {stdout}"
    );
    assert_eq!(report["referenced"], 2, "{stdout}");
}

#[test]
fn downloads_by_redirect_never_pass_through_the_server() {
    let context = TestContext::new();
    let Some(stores) = Stores::scaled(
        &context.root().join("data"),
        "downloads_by_redirect_never_pass_through_the_server",
    ) else {
        return;
    };
    let registry = Registry::start_on(&stores, &["--download", "redirect"]);
    let alice = registry.token("alice");
    skill(&context, "hop", "1.0.0", "Hop.");
    let (code, _, stderr) = cli(&context, &registry, Some(&alice), &["publish", "work/hop"]);
    assert_eq!(code, 0, "{stderr}");
    let archive = packed(&context, "hop");

    let no_redirects: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .tls_config(agent().config().tls_config().clone())
        .build()
        .into();
    let response = no_redirects
        .get(&format!(
            "{}/api/v1/skills/hop/1.0.0/download",
            registry.url
        ))
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 307);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let endpoint = &stores.scaled.as_ref().unwrap().env[0].1;
    assert!(
        location.starts_with(endpoint) && location.contains("X-Amz-Signature="),
        "{location}"
    );
    // The presigned URL serves the archive itself, with no credentials.
    let (status, bytes) = get(&location);
    assert_eq!(status, 200);
    assert_eq!(sha256(&bytes), sha256(&archive));
    // A tampered signature is refused by the S3 server.
    let at = location.find("X-Amz-Signature=").unwrap() + "X-Amz-Signature=".len();
    let flipped = if &location[at..=at] == "0" { "1" } else { "0" };
    let tampered = format!("{}{flipped}{}", &location[..at], &location[at + 1..]);
    assert_eq!(get(&tampered).0, 403);

    // The CLI follows the redirect and verifies the checksum as always.
    let (code, stdout, stderr) = cli(
        &context,
        &registry,
        None,
        &["install", "hop", "--dir", "installed"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(context.root().join("installed/hop/SKILL.md").is_file());
}

#[test]
#[allow(clippy::too_many_lines)] // one story, told in order
fn export_from_sqlite_and_import_into_postgres_and_s3() {
    let context = TestContext::new();
    let embedded = Stores::embedded(&context.root().join("old"));
    let Some(scaled) = Stores::scaled(
        &context.root().join("new"),
        "export_from_sqlite_and_import_into_postgres_and_s3",
    ) else {
        return;
    };
    let old = Registry::start_on(&embedded, &[]);
    let alice = old.token("alice");
    let bob = old.token_with("bob", &["--scope", "read", "--label", "CI"]);
    skill(&context, "moved", "1.0.0", "One.");
    assert_eq!(
        cli(&context, &old, Some(&alice), &["publish", "work/moved"]).0,
        0
    );
    skill(&context, "moved", "1.1.0", "Two.");
    assert_eq!(
        cli(&context, &old, Some(&alice), &["publish", "work/moved"]).0,
        0
    );
    skill(&context, "other", "0.1.0", "Other.");
    assert_eq!(
        cli(&context, &old, Some(&alice), &["publish", "work/other"]).0,
        0
    );
    assert_eq!(
        cli(&context, &old, Some(&alice), &["yank", "moved@1.0.0"]).0,
        0
    );
    assert_eq!(
        cli(
            &context,
            &old,
            Some(&alice),
            &["owner", "add", "moved", "bob"]
        )
        .0,
        0
    );
    let info_before = get(&format!("{}/api/v1/skills/moved", old.url)).1;

    let (code, _, stderr) = old.admin(&["export", context.root().join("dump").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Exported 9 records and 3 archives"),
        "{stderr}"
    );
    drop(old);

    // A tampered archive in the export is refused by its checksum.
    let tampered_dump = context.root().join("tampered");
    fs_err::create_dir_all(&tampered_dump).unwrap();
    let copy = std::process::Command::new("cp")
        .arg("-r")
        .arg(context.root().join("dump/."))
        .arg(&tampered_dump)
        .status()
        .unwrap();
    assert!(copy.success());
    let stored = walk(&tampered_dump.join("blobs"))[0].clone();
    let mut bytes = fs_err::read(&stored).unwrap();
    bytes[10] ^= 0xFF;
    fs_err::write(&stored, bytes).unwrap();
    let Some(throwaway) = Stores::scaled(&context.root().join("throwaway"), "tampered import")
    else {
        return;
    };
    let mut import = std::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"));
    import.args(["registry", "import"]).arg(&tampered_dump);
    throwaway.apply(&mut import);
    let (code, _, stderr) = run(import);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is corrupt"), "{stderr}");

    let mut import = std::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"));
    import
        .args(["registry", "import"])
        .arg(context.root().join("dump"));
    scaled.apply(&mut import);
    let (code, _, stderr) = run(import);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Imported 9 records and 3 archives"),
        "{stderr}"
    );
    // A second import into the now full registry is refused.
    let mut again = std::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"));
    again
        .args(["registry", "import"])
        .arg(context.root().join("dump"));
    scaled.apply(&mut again);
    let (code, _, stderr) = run(again);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("import only into an empty registry"),
        "{stderr}"
    );

    let new = Registry::start_on(&scaled, &[]);
    assert_eq!(
        get(&format!("{}/api/v1/skills/moved", new.url)).1,
        info_before,
        "the same versions, owners, dates and yanks"
    );
    // The old tokens work on the new registry, with their scopes.
    assert_eq!(
        cli(&context, &new, Some(&alice), &["yank", "other@0.1.0"]).0,
        0
    );
    let (code, stdout, _) = new.admin(&["token", "list", "--format", "json"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("\"CI\"") && stdout.contains("\"read\""),
        "{stdout}"
    );
    let mut me = agent()
        .get(&format!("{}/api/v1/me", new.url))
        .header("authorization", &format!("Bearer {bob}"))
        .call()
        .unwrap();
    assert_eq!(me.status().as_u16(), 200);
    assert!(me.body_mut().read_to_string().unwrap().contains("bob"));
    let (code, stdout, stderr) = cli(
        &context,
        &new,
        None,
        &["install", "moved@1.1.0", "--dir", "installed"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
}

/// `registry import` of a bad export writes no record: every line is checked and every archive
/// copied (and verified) before the first record, so a refused import can be run again.
#[test]
fn a_bad_export_is_refused_before_any_record_is_written() {
    let context = TestContext::new();
    let old = Registry::start_on(&Stores::embedded(&context.root().join("old")), &[]);
    let alice = old.token("alice");
    skill(&context, "solid", "1.0.0", "Solid.");
    assert_eq!(
        cli(&context, &old, Some(&alice), &["publish", "work/solid"]).0,
        0
    );
    let dump = context.root().join("dump");
    let (code, _, stderr) = old.admin(&["export", dump.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    drop(old);
    let lines = fs_err::read_to_string(dump.join("registry.jsonl")).unwrap();
    let target = Stores::embedded(&context.root().join("new"));
    let import = |folder: &std::path::Path| {
        let mut command = std::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"));
        command.args(["registry", "import"]).arg(folder);
        target.apply(&mut command);
        run(command)
    };
    let variant = |name: &str, text: &str| {
        let folder = context.root().join(name);
        let copied = std::process::Command::new("cp")
            .arg("-r")
            .arg(&dump)
            .arg(&folder)
            .status()
            .unwrap();
        assert!(copied.success());
        fs_err::write(folder.join("registry.jsonl"), text).unwrap();
        folder
    };
    let skill_line = lines
        .lines()
        .find(|line| line.contains("\"record\":\"skill\""))
        .unwrap();
    let token_line = lines
        .lines()
        .find(|line| line.contains("\"record\":\"token\""))
        .unwrap();
    for (name, text, says) in [
        (
            "duplicate",
            format!("{lines}{skill_line}\n"),
            "the skill `solid` is on an earlier line",
        ),
        (
            "bad-hash",
            lines.replacen(
                token_line,
                &token_line.replacen("\"hash\":\"", "\"hash\":\"a\u{e9}", 1),
                1,
            ),
            "a token's hash must be 64 lowercase hex digits",
        ),
        (
            "not-utf8",
            format!("{lines}\u{fffd}"),
            "the line is cut short or too long",
        ),
    ] {
        let folder = variant(name, &text);
        let (code, _, stderr) = import(&folder);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
        assert!(
            stderr.contains("registry.jsonl:"),
            "{name} names the line: {stderr}"
        );
    }
    // An archive replaced by an endless file or a pipe is never read.
    let endless = variant("endless", &lines);
    let stored = walk(&endless.join("blobs"))[0].clone();
    fs_err::remove_file(&stored).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &stored).unwrap();
    let (code, _, stderr) = import(&endless);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    // Nothing was written: the good export still imports.
    let (code, _, stderr) = import(&dump);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Imported 4 records and 1 archive"),
        "{stderr}"
    );
}

/// Reading commands never make an empty registry from a mistyped place, and a database's own
/// error reaches the user.
#[test]
fn a_wrong_place_is_named_not_created() {
    let context = TestContext::new();
    let missing = context.root().join("no-such-registry");
    let mut export = std::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"));
    export
        .args(["registry", "export", "--data"])
        .arg(&missing)
        .arg(context.root().join("out"));
    let (code, _, stderr) = run(export);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("there is no registry database at"),
        "{stderr}"
    );
    assert!(!missing.exists());
    let Some(stores) = Stores::scaled(
        &context.root().join("data"),
        "a_wrong_place_is_named_not_created",
    ) else {
        return;
    };
    let scaled = stores.scaled.as_ref().unwrap();
    let wrong = format!(
        "{}_missing",
        scaled.database.replacen("postgres://", "Postgres://", 1)
    );
    let mut gc = std::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"));
    gc.args([
        "registry",
        "gc",
        "--database",
        &wrong,
        "--blobs",
        &scaled.blobs,
    ])
    .envs(scaled.env.iter().map(|(k, v)| (k, v)))
    .arg("--data")
    .arg(context.root().join("data"));
    let (code, _, stderr) = run(gc);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("does not exist"),
        "the server's own reason: {stderr}"
    );
}

/// SIGTERM to one of several servers while it receives an upload: the upload is finished and
/// published, the server then exits, and the others serve the new version.
#[test]
fn sigterm_drains_an_upload_in_flight_on_the_shared_stores() {
    use std::io::{BufRead as _, BufReader, Read as _};
    let context = TestContext::new();
    let Some(stores) = Stores::scaled(
        &context.root().join("data"),
        "sigterm_drains_an_upload_in_flight_on_the_shared_stores",
    ) else {
        return;
    };
    let mut leaving = Registry::start_plain_on(&stores, &[]);
    let staying = Registry::start_on(&stores, &[]);
    let alice = leaving.token("alice");
    skill(&context, "late", "1.0.0", "Late.");
    let archive = packed(&context, "late");
    let address = leaving.url.split_once("://").unwrap().1.to_owned();
    let mut upload = std::net::TcpStream::connect(&address).unwrap();
    upload
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        upload,
        "PUT /api/v1/skills/late/1.0.0 HTTP/1.1\r\nHost: registry\r\nAuthorization: Bearer {alice}\r\nx-checksum-sha256: {}\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        sha256(&archive),
        archive.len()
    )
    .unwrap();
    // `100 Continue` comes when the handler starts reading the body: the upload is in flight.
    let mut reader = BufReader::new(upload.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 100"), "{line}");
    reader.read_line(&mut line).unwrap();
    let terminated = std::process::Command::new("kill")
        .args(["-TERM", &leaving.pid().to_string()])
        .status()
        .unwrap();
    assert!(terminated.success());
    upload.write_all(&archive).unwrap();
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    assert!(
        status.starts_with("HTTP/1.1 201"),
        "the upload in flight is published: {status}"
    );
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !leaving.exited() {
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, stdout, stderr) = cli(&context, &staying, None, &["info", "late"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1.0.0"), "{stdout}");
}
