//! The registry against hostile clients: each test reproduces an attack or a failure found by a
//! review of the server, on the real server over loopback, and checks the server survives it.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::{Registry, agent, cli, skill};
use crate::common::TestContext;

/// Long enough that a healthy server always answers within it; a hang fails instead of blocking.
const PATIENCE: Duration = Duration::from_secs(30);

impl Registry {
    fn address(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_start_matches("https://")
            .to_owned()
    }
}

/// An answer read off a raw connection.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Reads one HTTP/1.1 answer with a `Content-Length` body.
fn read_answer(stream: &TcpStream) -> std::io::Result<Answer> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP answer: {line:?}")))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let (key, value) = header.split_once(':').unwrap_or((header, ""));
        headers.push((key.to_owned(), value.trim().to_owned()));
    }
    let mut answer = Answer {
        status,
        headers,
        body: Vec::new(),
    };
    let length: usize = answer
        .header("content-length")
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    answer.body.resize(length, 0);
    reader.read_exact(&mut answer.body)?;
    Ok(answer)
}

/// Sends a bodiless GET on `stream`.
fn send_get(stream: &mut TcpStream, path: &str) {
    write!(stream, "GET {path} HTTP/1.1\r\nHost: registry\r\n\r\n").unwrap();
}

/// Waits until the server closes `stream`; true if it did (an answer such as 408 may come
/// first), false if it was still open at `deadline`.
fn closed_by_server(stream: &mut TcpStream, deadline: Instant) -> bool {
    let left = deadline.saturating_duration_since(Instant::now());
    stream
        .set_read_timeout(Some(left.max(Duration::from_millis(1))))
        .unwrap();
    let mut rest = Vec::new();
    match stream.read_to_end(&mut rest) {
        Ok(_) => true,
        Err(error) => error.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

/// Hundreds of connections that send nothing, and some that send half a request header and
/// stop, neither lock other clients out nor stay open: the server closes each after
/// `--header-timeout`. (Before, they were held forever, and 1,100 of them made the registry
/// unreachable.)
#[test]
fn idle_and_half_sent_connections_are_closed_while_others_are_served() {
    let context = TestContext::new();
    let registry = Registry::start_plain(&context.root().join("data"), &["--header-timeout", "2"]);
    let address = registry.address();
    let mut idle: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&address).unwrap())
        .collect();
    for _ in 0..50 {
        let mut stream = TcpStream::connect(&address).unwrap();
        stream
            .write_all(b"GET /api/v1/skills HTTP/1.1\r\nHost: registry\r\nX-Slow: ")
            .unwrap();
        idle.push(stream);
    }

    let mut response = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(PATIENCE))
        .build()
        .new_agent()
        .get(&format!("{}/api/v1/skills", registry.url))
        .call()
        .expect("another client is served while 350 connections idle");
    assert_eq!(response.status().as_u16(), 200);
    assert!(
        response
            .body_mut()
            .read_to_string()
            .unwrap()
            .contains("\"skills\"")
    );

    let deadline = Instant::now() + PATIENCE;
    let open = idle
        .iter_mut()
        .map(|stream| closed_by_server(stream, deadline))
        .filter(|closed| !closed)
        .count();
    assert_eq!(open, 0, "connections the server never closed");
}

/// `--max-connections`: a connection over the limit is not served until another closes, and
/// then it is.
#[test]
fn a_connection_over_the_limit_waits_for_one_to_close() {
    let context = TestContext::new();
    let registry = Registry::start_plain(
        &context.root().join("data"),
        &["--max-connections", "4", "--header-timeout", "60"],
    );
    let address = registry.address();
    // Four kept-alive clients, each served once, then silent.
    let mut held: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut stream = TcpStream::connect(&address).unwrap();
            send_get(&mut stream, "/api/v1/skills");
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            assert_eq!(read_answer(&stream).unwrap().status, 200);
            stream
        })
        .collect();

    let mut fifth = TcpStream::connect(&address).unwrap();
    send_get(&mut fifth, "/api/v1/skills");
    fifth
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let mut byte = [0u8; 1];
    let early = fifth.read(&mut byte);
    assert!(
        early.as_ref().is_err_and(|error| matches!(
            error.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        )),
        "the fifth connection was answered while four were open: {early:?}"
    );

    drop(held.pop());
    fifth.set_read_timeout(Some(PATIENCE)).unwrap();
    let answer = read_answer(&fifth).expect("served once a connection closed");
    assert_eq!(answer.status, 200);
}

/// An upload that stops halfway is cut after `--idle-timeout`, instead of holding its
/// connection (and a temporary file) forever.
#[test]
fn a_stalled_upload_is_cut_after_the_idle_timeout() {
    let context = TestContext::new();
    let registry = Registry::start_plain(&context.root().join("data"), &["--idle-timeout", "2"]);
    let alice = registry.token("alice");
    let mut stream = TcpStream::connect(registry.address()).unwrap();
    write!(
        stream,
        "PUT /api/v1/skills/stalled/1.0.0 HTTP/1.1\r\nHost: registry\r\nAuthorization: Bearer {alice}\r\nx-checksum-sha256: {}\r\nContent-Length: 100000\r\n\r\n",
        "0".repeat(64)
    )
    .unwrap();
    stream.write_all(&[b'z'; 1000]).unwrap();
    assert!(
        closed_by_server(&mut stream, Instant::now() + PATIENCE),
        "the stalled upload was still open"
    );
    // The server itself is fine.
    let (code, _, stderr) = cli(&context, &registry, None, &["search", "anything"]);
    assert_eq!(code, 0, "{stderr}");
}

/// SIGTERM: an upload in flight is still received and answered, connections that asked
/// nothing (or are between requests) do not hold the shutdown up, and the server exits 0.
#[cfg(unix)]
#[test]
fn sigterm_finishes_the_request_in_flight_without_waiting_for_idle_ones() {
    let context = TestContext::new();
    let mut registry =
        Registry::start_plain(&context.root().join("data"), &["--header-timeout", "60"]);
    let alice = registry.token("alice");
    let address = registry.address();
    let _silent = TcpStream::connect(&address).unwrap();
    let mut kept_alive = TcpStream::connect(&address).unwrap();
    send_get(&mut kept_alive, "/api/v1/skills");
    kept_alive.set_read_timeout(Some(PATIENCE)).unwrap();
    assert_eq!(read_answer(&kept_alive).unwrap().status, 200);

    let body = vec![b'z'; 200_000];
    let mut upload = TcpStream::connect(&address).unwrap();
    write!(
        upload,
        "PUT /api/v1/skills/late/1.0.0 HTTP/1.1\r\nHost: registry\r\nAuthorization: Bearer {alice}\r\nx-checksum-sha256: {}\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        "0".repeat(64),
        body.len()
    )
    .unwrap();
    // `100 Continue` comes when the handler starts reading the body: the request is in flight.
    upload.set_read_timeout(Some(PATIENCE)).unwrap();
    assert_eq!(read_answer(&upload).unwrap().status, 100);
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &registry.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    upload.write_all(&body).unwrap();
    upload.set_read_timeout(Some(PATIENCE)).unwrap();
    let answer = read_answer(&upload).expect("the upload in flight is answered");
    assert_eq!(
        answer.status,
        400,
        "{}",
        String::from_utf8_lossy(&answer.body)
    );
    assert!(String::from_utf8_lossy(&answer.body).contains("checksum mismatch"));

    // Well before the 60-second header timeout or the 30-second grace period.
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(exit) = registry.child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "the server waited for idle connections"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
}

/// Incompressible bytes, the same every run.
fn noise(seed: u64, length: usize) -> Vec<u8> {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(length + 8);
    while out.len() < length {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(&state.to_le_bytes());
    }
    out.truncate(length);
    out
}

/// A `.skill` archive of `name` with `files` random files of `size` bytes each, stored
/// uncompressed (the data would not compress anyway, and storing is fast).
fn big_archive(name: &str, files: u64, size: usize) -> Vec<u8> {
    let mut archive = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut archive);
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file(format!("{name}/SKILL.md"), stored).unwrap();
    write!(
        zip,
        "---\nname: {name}\ndescription: Big random assets. Use when a test needs a large archive.\n---\n\nSee the assets.\n"
    )
    .unwrap();
    for index in 0..files {
        zip.start_file(format!("{name}/assets/noise-{index}.bin"), stored)
            .unwrap();
        zip.write_all(&noise(index + 1, size)).unwrap();
    }
    zip.finish().unwrap();
    archive.into_inner()
}

/// A field of `/proc/<pid>/status` in bytes (Linux), e.g. `VmHWM`.
fn proc_status_bytes(pid: u32, field: &str) -> Option<u64> {
    let status = fs_err::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status
        .lines()
        .find(|line| line.starts_with(&format!("{field}:")))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The sockets a process has open (Linux).
fn open_sockets(pid: u32) -> usize {
    let Ok(entries) = fs_err::read_dir(format!("/proc/{pid}/fd")) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            std::fs::read_link(entry.path())
                .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
        })
        .count()
}

/// Forty clients download a 24 MB archive, read a few bytes and stall. The server streams
/// archives from disk, so its memory stays near what it needs for one: it used to read each
/// archive whole into memory per download (60 slow readers of 45 MB took it to 2.7 GB). And
/// after `--idle-timeout` it closes them, rather than holding them forever.
#[test]
fn slow_readers_of_a_big_archive_do_not_grow_the_server() {
    const READERS: usize = 40;
    let context = TestContext::new();
    let registry = Registry::start_plain(
        &context.root().join("data"),
        &["--max-upload", "40000000", "--idle-timeout", "2"],
    );
    let alice = registry.token("alice");
    let archive = big_archive("heavy", 3, 8 * 1024 * 1024);
    let size = archive.len() as u64;
    let (status, body) = super::put(
        &registry,
        "/api/v1/skills/heavy/1.0.0",
        &alice,
        &archive,
        &super::sha256(&archive),
    );
    assert_eq!(status, 201, "{body}");

    // A whole download: streamed, announced with its length, intact.
    let mut download = agent()
        .get(&format!(
            "{}/api/v1/skills/heavy/1.0.0/download",
            registry.url
        ))
        .call()
        .unwrap();
    assert_eq!(
        download.headers().get("content-length").unwrap(),
        &size.to_string()
    );
    let bytes = download
        .body_mut()
        .with_config()
        .limit(size + 1)
        .read_to_vec()
        .unwrap();
    assert!(bytes == archive, "the download is not the archive");
    drop((archive, bytes));

    let pid = registry.child.id();
    let sockets_before = open_sockets(pid);
    let address = registry.address();
    let stalled: Vec<TcpStream> = (0..READERS)
        .map(|_| {
            let mut stream = TcpStream::connect(&address).unwrap();
            send_get(&mut stream, "/api/v1/skills/heavy/1.0.0/download");
            stream
        })
        .collect();
    for stream in &stalled {
        // The answer's first bytes: the server has started sending this archive.
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut head = [0u8; 16];
        (&*stream).read_exact(&mut head).unwrap();
        assert!(head.starts_with(b"HTTP/1.1 200"));
    }

    let Some(peak) = proc_status_bytes(pid, "VmHWM") else {
        // No /proc here: nothing to measure.
        return;
    };
    assert!(
        peak < size * 4,
        "the server's peak memory is {peak} bytes with {READERS} stalled downloads of a {size}-byte archive"
    );

    // The server gives up on the stalled downloads: their sockets close on its side...
    let deadline = Instant::now() + PATIENCE;
    while open_sockets(pid) > sockets_before {
        assert!(
            Instant::now() < deadline,
            "{} stalled downloads still open",
            open_sockets(pid) - sockets_before
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // ...so each client gets what was in flight, then the end, short of the archive.
    for mut stream in stalled {
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
        assert!(
            (rest.len() as u64) < size,
            "a stalled download was finished"
        );
    }
}

/// A `.skill` archive of `name` holding only this SKILL.md.
fn archive_with_skill_md(name: &str, text: &str) -> Vec<u8> {
    let mut archive = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut archive);
    zip.start_file(
        format!("{name}/SKILL.md"),
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    zip.write_all(text.as_bytes()).unwrap();
    zip.finish().unwrap();
    archive.into_inner()
}

/// SKILL.md's frontmatter for `name`, then `body`.
fn skill_md(name: &str, body: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: A long SKILL.md. Use when a test needs one.\n---\n\n{body}"
    )
}

/// A SKILL.md over 1 MiB is refused at publish, saying the limit; a long one under it is
/// published, and its page shows the first 65,536 characters and says it is cut (the page used
/// to hold all of it, whatever its size).
#[test]
fn skill_md_is_capped_at_publish_and_cut_on_its_page() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    let line = "Step: read the form, fill each field, check the totals, then save it.\n";

    let huge = skill_md("huge", &line.repeat(1024 * 1024 / line.len() + 1));
    assert!(huge.len() > 1024 * 1024);
    let archive = archive_with_skill_md("huge", &huge);
    let (status, body) = super::put(
        &registry,
        "/api/v1/skills/huge/1.0.0",
        &alice,
        &archive,
        &super::sha256(&archive),
    );
    assert_eq!(status, 422, "{body}");
    assert!(
        body.contains("SKILL.md is") && body.contains("at most 1048576 (1 MiB)"),
        "{body}"
    );

    let long = skill_md(
        "long",
        &format!("{}TAIL-MARKER\n", line.repeat(200_000 / line.len())),
    );
    let archive = archive_with_skill_md("long", &long);
    let (status, body) = super::put(
        &registry,
        "/api/v1/skills/long/1.0.0",
        &alice,
        &archive,
        &super::sha256(&archive),
    );
    assert_eq!(status, 201, "{body}");
    let html = agent()
        .get(&format!("{}/skills/long", registry.url))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    assert!(
        !html.contains("TAIL-MARKER"),
        "the whole SKILL.md is on the page"
    );
    assert!(html.contains("Step: read the form"));
    assert!(
        html.contains("SKILL.md is cut here: the page shows its first 65536 characters"),
        "the page does not say SKILL.md is cut"
    );
}

/// `1.0.0+build` after `1.0.0` is the same version (semver §10), so it is refused with 409, also
/// when several such publishes race: before, it was stored and then installed by `^1.0` over
/// the "immutable" 1.0.0.
#[test]
fn a_version_that_differs_only_in_build_metadata_is_refused() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    skill(&context, "built", "1.0.0", "Built.");
    let archive = super::packed(&context, "built");
    let checksum = super::sha256(&archive);
    let put = |version: &str| {
        super::put(
            &registry,
            &format!("/api/v1/skills/built/{version}"),
            &alice,
            &archive,
            &checksum,
        )
    };
    assert_eq!(put("1.0.0").0, 201);
    let (status, body) = put("1.0.0+build.7");
    assert_eq!(status, 409, "{body}");
    assert!(
        body.contains("the same version as the published 1.0.0") && body.contains("build metadata"),
        "{body}"
    );
    // The other way round too, and with pre-releases.
    assert_eq!(put("2.0.0-rc.1+a").0, 201);
    assert_eq!(put("2.0.0-rc.1").0, 409);
    assert_eq!(put("2.0.0-rc.1+b").0, 409);
    // A different pre-release is a different version.
    assert_eq!(put("2.0.0-rc.2").0, 201);

    // Racing: 3.0.0+0 … 3.0.0+15 at once; one wins.
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|build| {
                let put = &put;
                scope.spawn(move || put(&format!("3.0.0+{build}")).0)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    super::assert_one_winner(&statuses);

    let (_, stdout, _) = cli(&context, &registry, None, &["info", "built"]);
    assert!(
        !stdout.contains("1.0.0+")
            && stdout
                .lines()
                .filter(|line| line.trim_start().starts_with("3.0.0"))
                .count()
                == 1,
        "{stdout}"
    );
}

/// Absurd versions and names are refused with 400 before the body is read, and never echoed
/// whole: a 60,006-character version used to be stored.
#[test]
fn absurd_versions_and_names_are_refused() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    skill(&context, "sane", "1.0.0", "Sane.");
    let archive = super::packed(&context, "sane");
    let checksum = super::sha256(&archive);
    let put = |path: &str| super::put(&registry, path, &alice, &archive, &checksum);

    let long = format!("1.0.0-{}", "a".repeat(60_000));
    let just_too_long = format!("1.0.0+{}", "a".repeat(59));
    for (version, says) in [
        (long.as_str(), "at most 64 characters; this one has 60006"),
        (just_too_long.as_str(), "this one has 65"),
        ("1.0.99999999999999999999", "not a semantic version"),
        ("18446744073709551616.0.0", "not a semantic version"),
        ("1.0", "not a semantic version"),
    ] {
        let (status, body) = put(&format!("/api/v1/skills/sane/{version}"));
        assert_eq!(status, 400, "{version:.80}: {body:.300}");
        assert!(body.contains(says), "{version:.80}: {body:.300}");
        assert!(
            body.len() < 300,
            "the error echoes the version: {body:.300}"
        );
    }
    // 64 characters is fine.
    let longest = format!("1.0.0-{}", "b".repeat(58));
    assert_eq!(longest.len(), 64);
    let (status, body) = put(&format!("/api/v1/skills/sane/{longest}"));
    assert_eq!(status, 201, "{body}");

    let name = "n".repeat(60_000);
    let (status, body) = put(&format!("/api/v1/skills/{name}/1.0.0"));
    assert_eq!(status, 400, "{body:.300}");
    assert!(body.contains("at most 64 characters"), "{body:.300}");
    assert!(body.len() < 300, "the error echoes the name: {body:.300}");
    for path in [
        format!("/api/v1/skills/{name}"),
        format!("/api/v1/skills/sane/{long}/download"),
    ] {
        let mut response = agent()
            .get(&format!("{}{path}", registry.url))
            .call()
            .unwrap();
        assert_eq!(response.status().as_u16(), 404);
        let body = response.body_mut().read_to_string().unwrap();
        assert!(body.len() < 300, "the error echoes the URL: {body:.300}");
    }
}

/// Text of four letters: compresses about 4:1, well under the extractor's bomb ratio.
fn letters(seed: u64, length: usize) -> Vec<u8> {
    noise(seed, length)
        .into_iter()
        .map(|byte| b"ACGT"[usize::from(byte & 3)])
        .collect()
}

/// A `.skill` archive of `name` with SKILL.md and one deflated file.
fn archive_with_file(name: &str, path: &str, contents: &[u8]) -> Vec<u8> {
    let mut archive = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut archive);
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file(format!("{name}/SKILL.md"), options).unwrap();
    zip.write_all(skill_md(name, "See the data.\n").as_bytes())
        .unwrap();
    zip.start_file(format!("{name}/{path}"), options).unwrap();
    zip.write_all(contents).unwrap();
    zip.finish().unwrap();
    archive.into_inner()
}

/// When the registry cannot write an upload out to check it (here a 2 MiB file-size limit
/// stands in for a full disk), the answer is a 5xx that says it is the registry's problem; it
/// used to be 422 "the archive was refused". An archive whose data is corrupt is still a 422.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_a_server_error_not_a_refused_archive() {
    let context = TestContext::new();
    // SIGXFSZ is ignored, so writing past the limit fails with EFBIG instead of killing the
    // server; an ignored signal stays ignored across exec.
    let registry = Registry::start_under(
        &[
            "bash",
            "-c",
            "trap '' XFSZ; ulimit -f 2048; exec \"$0\" \"$@\"",
        ],
        &super::Stores::embedded(&context.root().join("data")),
        &[],
    );
    let alice = registry.token("alice");
    let archive = archive_with_file("roomy", "assets/genome.txt", &letters(7, 3 * 1024 * 1024));
    assert!(archive.len() < 2 * 1024 * 1024, "{}", archive.len());
    let (status, body) = super::put(
        &registry,
        "/api/v1/skills/roomy/1.0.0",
        &alice,
        &archive,
        &super::sha256(&archive),
    );
    assert_eq!(status, 507, "{body}");
    assert!(
        body.contains("could not unpack the archive to check it")
            && body.contains("not the archive's")
            && !body.contains("refused"),
        "{body}"
    );

    // Corrupt deflate data in an archive small enough to unpack: refused, 422.
    let mut corrupt = archive_with_file("roomy", "assets/genome.txt", &letters(8, 300_000));
    let middle = corrupt.len() / 2;
    for byte in &mut corrupt[middle..middle + 64] {
        *byte ^= 0x5A;
    }
    let (status, body) = super::put(
        &registry,
        "/api/v1/skills/roomy/1.0.0",
        &alice,
        &corrupt,
        &super::sha256(&corrupt),
    );
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("the archive was refused"), "{body}");

    // And the registry still works.
    let small = archive_with_file("roomy", "assets/genome.txt", &letters(9, 100_000));
    let (status, body) = super::put(
        &registry,
        "/api/v1/skills/roomy/1.0.0",
        &alice,
        &small,
        &super::sha256(&small),
    );
    assert_eq!(status, 201, "{body}");
}

/// A 50 KB search used to be a 500 (`SQLite` refuses LIKE patterns over 50,000 bytes); the
/// query is capped at 256 characters, answered 400 in the API's error shape, and as a page on
/// the home page.
#[test]
fn an_overlong_search_is_a_400_not_a_500() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    // SQLite only evaluates the pattern against a row, so there must be one.
    let alice = registry.token("alice");
    skill(&context, "findable", "1.0.0", "Findable.");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["publish", "work/findable"]
        )
        .0,
        0
    );
    let get = |path: &str| {
        let mut response = agent()
            .get(&format!("{}{path}", registry.url))
            .call()
            .unwrap();
        let status = response.status().as_u16();
        let kind = response
            .headers()
            .get("content-type")
            .map(|value| value.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (status, kind, response.body_mut().read_to_string().unwrap())
    };
    // Percent signs, each escaped for LIKE, so the pattern is twice as long as the query.
    let long = "%25".repeat(20_000);
    let (status, kind, body) = get(&format!("/api/v1/skills?q={}", "x".repeat(50_000)));
    assert_eq!(status, 400, "{body:.300}");
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        "{\"errors\":[{\"detail\":\"a search is at most 256 characters; this one has 50000\"}]}"
    );
    let (status, _, body) = get(&format!("/api/v1/skills?q={long}"));
    assert_eq!(status, 400, "{body:.300}");
    assert!(body.contains("this one has 20000"), "{body:.300}");
    let (status, kind, body) = get(&format!("/?q={}", "x".repeat(50_000)));
    assert_eq!(status, 400, "{body:.300}");
    assert!(kind.starts_with("text/html"), "{kind}");
    assert!(body.contains("at most 256 characters"), "{body:.300}");
    let (status, _, body) = get(&format!("/api/v1/skills?q={}", "x".repeat(256)));
    assert_eq!(status, 200, "{body:.300}");
}

/// Sends `method path` with `headers` and `body` on a new connection and reads the answer.
fn exchange(registry: &Registry, method: &str, path: &str, headers: &[&str], body: &str) -> Answer {
    let mut stream = TcpStream::connect(registry.address()).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: registry\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    read_answer(&stream).unwrap()
}

/// Asserts `answer` is an API error: `status`, JSON, `{"errors":[{"detail":…}]}`.
fn assert_api_error(answer: &Answer, status: u16, what: &str) {
    let body = String::from_utf8_lossy(&answer.body);
    assert_eq!(answer.status, status, "{what}: {body}");
    assert_eq!(
        answer.header("content-type"),
        Some("application/json"),
        "{what}: {body}"
    );
    assert!(
        body.starts_with("{\"errors\":[{\"detail\":\""),
        "{what}: {body}"
    );
}

/// Bad query strings, paths, JSON bodies and methods are answered in the API's error shape;
/// they used to get axum's plain-text rejections.
#[test]
fn bad_requests_get_the_json_error_shape() {
    let context = TestContext::new();
    let registry = Registry::start_plain(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    let bearer = format!("Authorization: Bearer {alice}");
    for (method, path, headers, body, status) in [
        ("GET", "/api/v1/skills?page=abc", &[][..], "", 400),
        (
            "GET",
            "/api/v1/skills?page=99999999999999999999999",
            &[],
            "",
            400,
        ),
        ("GET", "/api/v1/skills/%FF%FE", &[], "", 400),
        ("GET", "/api/v1/skills/%FF/1.0.0/download", &[], "", 400),
        (
            "PUT",
            "/api/v1/skills/notes/owners",
            &[bearer.as_str(), "Content-Type: application/json"],
            "{not json",
            400,
        ),
        (
            "PUT",
            "/api/v1/skills/notes/owners",
            &[bearer.as_str(), "Content-Type: application/json"],
            "{\"users\": 3}",
            422,
        ),
        (
            "DELETE",
            "/api/v1/skills/notes/owners",
            &[bearer.as_str()],
            "{\"users\": []}",
            415,
        ),
        ("DELETE", "/api/v1/skills", &[], "", 405),
        ("POST", "/api/v1/skills/notes/1.0.0", &[], "", 405),
    ] {
        let answer = exchange(&registry, method, path, headers, body);
        assert_api_error(&answer, status, &format!("{method} {path}"));
    }
    // The pages answer with pages.
    for path in ["/?page=abc", "/skills/%FF"] {
        let answer = exchange(&registry, "GET", path, &[], "");
        assert_eq!(answer.status, 400, "{path}");
        assert!(
            answer
                .header("content-type")
                .is_some_and(|kind| kind.starts_with("text/html")),
            "{path}"
        );
    }
}

/// Changing owners checks the token before the body: without one the answer is 401, whatever
/// the body (it used to be a 400 or 415 about the body).
#[test]
fn owner_changes_check_the_token_before_the_body() {
    let context = TestContext::new();
    let registry = Registry::start_plain(&context.root().join("data"), &[]);
    for method in ["PUT", "DELETE"] {
        for (headers, body) in [
            (&[][..], ""),
            (&["Content-Type: application/json"][..], "{not json"),
            (&["Authorization: Bearer skp_wrong"][..], "{not json"),
            (
                &[
                    "Authorization: Bearer skp_wrong",
                    "Content-Type: application/json",
                ][..],
                "{\"users\":[\"mallory\"]}",
            ),
        ] {
            let answer = exchange(
                &registry,
                method,
                "/api/v1/skills/notes/owners",
                headers,
                body,
            );
            assert_api_error(&answer, 401, &format!("{method} {headers:?} {body}"));
        }
    }
}

/// Every answer says `nosniff`; pages (which show uploaded text) carry a Content-Security-Policy
/// that allows no script and may not be framed; a download is an attachment named after the
/// skill and version. None of these were sent before.
#[test]
fn answers_carry_security_headers_and_downloads_are_attachments() {
    let context = TestContext::new();
    let registry = Registry::start_plain(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    skill(&context, "guarded", "1.2.3", "<script>alert(1)</script>");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["publish", "work/guarded"]
        )
        .0,
        0
    );
    let policy = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    for path in ["/", "/?q=guarded", "/skills/guarded", "/skills/absent"] {
        let answer = exchange(&registry, "GET", path, &[], "");
        assert_eq!(
            answer.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(
            answer.header("content-security-policy"),
            Some(policy),
            "{path}"
        );
        assert_eq!(answer.header("x-frame-options"), Some("DENY"), "{path}");
    }
    for path in [
        "/api/v1/skills",
        "/api/v1/skills/guarded",
        "/api/v1/skills/absent",
        "/api/v1/nothing",
    ] {
        let answer = exchange(&registry, "GET", path, &[], "");
        assert_eq!(
            answer.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
    }
    let download = exchange(
        &registry,
        "GET",
        "/api/v1/skills/guarded/1.2.3/download",
        &[],
        "",
    );
    assert_eq!(download.status, 200);
    assert_eq!(
        download.header("content-disposition"),
        Some("attachment; filename=\"guarded-1.2.3.skill\"")
    );
    assert_eq!(download.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(download.header("content-type"), Some("application/zip"));
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    fs_err::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The database holds token hashes: `registry.db` and its `-wal` and `-shm` files are 0600,
/// also under umask 000, also when an older registry left them 0644 (they were 0644).
#[cfg(unix)]
#[test]
fn the_database_is_readable_by_its_owner_only() {
    let context = TestContext::new();
    let umask_000: &[&str] = &["sh", "-c", "umask 000; exec \"$0\" \"$@\""];
    let files = |data: &std::path::Path| {
        ["registry.db", "registry.db-wal", "registry.db-shm"].map(|name| data.join(name))
    };

    // A new registry.
    let data = context.root().join("fresh");
    let registry = Registry::start_under(umask_000, &super::Stores::embedded(&data), &[]);
    let alice = registry.token("alice");
    skill(&context, "private", "1.0.0", "Private.");
    assert_eq!(
        cli(
            &context,
            &registry,
            Some(&alice),
            &["publish", "work/private"]
        )
        .0,
        0
    );
    for file in files(&data) {
        assert_eq!(format!("{:o}", mode(&file)), "600", "{}", file.display());
    }
    drop(registry);

    // Files an older registry left readable by all (-wal and -shm exist while it runs).
    let data = context.root().join("older");
    fs_err::create_dir_all(&data).unwrap();
    let older = rusqlite::Connection::open(data.join("registry.db")).unwrap();
    older.pragma_update(None, "journal_mode", "WAL").unwrap();
    older
        .execute_batch("CREATE TABLE leftover (x); INSERT INTO leftover VALUES (1);")
        .unwrap();
    for file in files(&data) {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let registry = Registry::start_under(umask_000, &super::Stores::embedded(&data), &[]);
    for file in files(&data) {
        assert_eq!(format!("{:o}", mode(&file)), "600", "{}", file.display());
    }
    drop((registry, older));
}

/// The file page shows the very bytes `install` writes. An archive with SKILL.md at its root
/// (so its root files are the skill) that also carries a look-alike `NAME/` folder: the page
/// of `scripts/run.sh` must show the root script, not the decoy, whatever the folder is called.
#[test]
fn a_file_page_shows_the_file_install_writes_not_a_look_alike() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    let name = "lookalike";
    let text = skill_md(name, "Runs [the script](scripts/run.sh).\n");
    let mut archive = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut archive);
        let options = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
        for (path, bytes) in [
            ("SKILL.md", text.as_str()),
            ("scripts/run.sh", "echo the-real-script\n"),
            ("lookalike/SKILL.md", text.as_str()),
            ("lookalike/scripts/run.sh", "echo the-decoy\n"),
        ] {
            zip.start_file(path, options).unwrap();
            zip.write_all(bytes.as_bytes()).unwrap();
        }
        zip.finish().unwrap();
    }
    let bytes = archive.into_inner();
    let (status, body) = super::put(
        &registry,
        &format!("/api/v1/skills/{name}/1.0.0"),
        &alice,
        &bytes,
        &super::sha256(&bytes),
    );
    assert_eq!(status, 201, "{body}");
    let mut page = agent()
        .get(&format!(
            "{}/skills/{name}/1.0.0/files/scripts/run.sh",
            registry.url
        ))
        .call()
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    let page = page.body_mut().read_to_string().unwrap();
    assert!(
        page.contains("echo the-real-script") && !page.contains("the-decoy"),
        "{page}"
    );
    // What install writes is what the page showed.
    fs_err::create_dir_all(context.root().join("project")).unwrap();
    let mut install = context.client(&["install", name, "--dir", "installed"]);
    install
        .current_dir(context.root().join("project"))
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"));
    let (code, _, stderr) = crate::common::run(install);
    assert_eq!(code, 0, "{stderr}");
    let installed = fs_err::read_to_string(
        context
            .root()
            .join(format!("project/installed/{name}/scripts/run.sh")),
    )
    .unwrap();
    assert_eq!(installed, "echo the-real-script\n");
}
