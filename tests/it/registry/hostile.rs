//! The registry against hostile clients: each test reproduces an attack or a failure found by a
//! review of the server, on the real server over loopback, and checks the server survives it.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::{Registry, cli};
use crate::common::TestContext;

/// Long enough that a healthy server always answers within it; a hang fails instead of blocking.
const PATIENCE: Duration = Duration::from_secs(30);

impl Registry {
    fn address(&self) -> String {
        self.url.trim_start_matches("http://").to_owned()
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
    let registry = Registry::start(&context.root().join("data"), &["--header-timeout", "2"]);
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
    let registry = Registry::start(
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
    let registry = Registry::start(&context.root().join("data"), &["--idle-timeout", "2"]);
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
    let mut registry = Registry::start(&context.root().join("data"), &["--header-timeout", "60"]);
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
