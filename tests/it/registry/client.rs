//! The registry client on a hostile or broken network: registries that never answer, answer
//! errors, send endlessly or slowly, speak TLS with a private certificate authority; and a
//! credentials file that is broken or not a file at all.
//!
//! Every server here is real and on loopback: a scripted HTTP server (raw TCP, so it can
//! misbehave in ways a framework would not allow), a TLS terminating proxy and a throttling
//! proxy in front of the real registry of the parent module.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Registry, cli, skill};
use crate::common::{TestContext, run};

/// What the scripted server does with one request.
#[derive(Clone)]
enum Step {
    /// Answers these bytes (a whole HTTP response) and closes the connection.
    Answer(String),
    /// Reads the request and never answers; the connection stays open.
    Silence,
    /// Reads the request and closes the connection without a word.
    HangUp,
    /// Answers 200 with a body that never ends (it stops at 1 GiB, or when the client leaves).
    Endless { content_length: Option<u64> },
}

/// A complete response with `Connection: close`, so that every attempt is a new connection
/// and the accept count is the attempt count.
fn answer(status: &str, headers: &[&str], body: &str) -> Step {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    Step::Answer(format!("{head}\r\n{body}"))
}

/// A raw HTTP/1.1 server whose every connection follows a script: `script(n, request line)`
/// says what the `n`th connection (from 0) gets.
struct Scripted {
    address: SocketAddr,
    accepts: Arc<AtomicUsize>,
    body_bytes_sent: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    accept_thread: Option<JoinHandle<()>>,
}

impl Scripted {
    fn start(script: impl Fn(usize, &str) -> Step + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let accepts = Arc::new(AtomicUsize::new(0));
        let body_bytes_sent = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let held: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let script = Arc::new(script);
        let accept_thread = {
            let (accepts, sent, stop) = (accepts.clone(), body_bytes_sent.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let n = accepts.fetch_add(1, Ordering::SeqCst);
                    let (script, sent, stop, held) =
                        (script.clone(), sent.clone(), stop.clone(), held.clone());
                    std::thread::spawn(move || serve(stream, n, &*script, &sent, &stop, &held));
                }
            })
        };
        Self {
            address,
            accepts,
            body_bytes_sent,
            stop,
            accept_thread: Some(accept_thread),
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn accepts(&self) -> usize {
        self.accepts.load(Ordering::SeqCst)
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.address);
        if let Some(thread) = self.accept_thread.take() {
            let _ = thread.join();
        }
    }
}

/// One connection of a [`Scripted`] server.
fn serve(
    stream: TcpStream,
    n: usize,
    script: &(dyn Fn(usize, &str) -> Step + Send + Sync),
    sent: &AtomicU64,
    stop: &AtomicBool,
    held: &Mutex<Vec<TcpStream>>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut content_length = 0_u64;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            content_length = value.trim().parse().unwrap_or(0);
        }
    }
    let _ = std::io::copy(&mut reader.take(content_length), &mut std::io::sink());
    let mut stream = stream;
    match script(n, request_line.trim_end()) {
        Step::Answer(response) => {
            let _ = stream.write_all(response.as_bytes());
        }
        Step::Silence => held.lock().unwrap().push(stream),
        Step::HangUp => {}
        Step::Endless { content_length } => {
            let response_head = match content_length {
                Some(length) => format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n"),
                None => "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_owned(),
            };
            if stream.write_all(response_head.as_bytes()).is_err() {
                return;
            }
            let piece = vec![b'z'; 64 * 1024];
            let chunk = [
                format!("{:x}\r\n", piece.len()).into_bytes(),
                piece.clone(),
                b"\r\n".to_vec(),
            ]
            .concat();
            let frame = if content_length.is_some() {
                &piece
            } else {
                &chunk
            };
            while sent.load(Ordering::SeqCst) < 1 << 30 && !stop.load(Ordering::SeqCst) {
                if stream.write_all(frame).is_err() {
                    break;
                }
                sent.fetch_add(piece.len() as u64, Ordering::SeqCst);
            }
        }
    }
}

/// Runs `command`, killing it and failing the test if it is still running after `limit`.
fn run_within(mut command: Command, limit: Duration) -> (i32, String, String, Duration) {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?}: {command:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let elapsed = start.elapsed();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed,
    )
}

/// `skillpkg ARGS` against `url`, with a short timeout and no stored credentials.
fn against(context: &TestContext, url: &str, args: &[&str]) -> Command {
    let mut command = context.client(args);
    command
        .env("SKILLPKG_REGISTRY", url)
        .env("SKILLPKG_HTTP_TIMEOUT", "2")
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env("SKILLPKG_TOKEN", "skp_test")
        .env_remove("SKILLPKG_CA_FILE")
        .env_remove("SSL_CERT_FILE");
    command
}

/// Generous: a command that takes longer is hanging.
const BOUND: Duration = Duration::from_secs(60);

/// With a 2 s timeout the client gives up in seconds; it used to wait 300 s per attempt, five
/// times: 25 minutes.
#[test]
fn a_registry_that_accepts_but_never_answers_is_given_up_on_without_retries() {
    let context = TestContext::new();
    skill(&context, "waiting", "1.0.0", "Waiting.");
    for args in [&["search", "x"][..], &["publish", "work/waiting"]] {
        let server = Scripted::start(|_, _| Step::Silence);
        let (code, _, stderr, _) = run_within(against(&context, &server.url(), args), BOUND);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("timed out") && stderr.contains(&server.url()),
            "{args:?}: {stderr}"
        );
        assert_eq!(server.accepts(), 1, "{args:?}: a timeout is not retried");
    }
}

/// A retry scenario: what it is, the command, the script, the exit code, and the connections.
type Case<'a> = (&'a str, &'a [&'a str], Vec<Step>, i32, usize);

#[test]
fn only_failures_that_retrying_can_fix_are_retried() {
    let context = TestContext::new();
    let empty = r#"{"skills":[],"total":0,"page":1}"#;
    let ok = answer("200 OK", &[], empty);
    let status = |line: &str| answer(line, &[], r#"{"errors":[{"detail":"scripted"}]}"#);
    let search: &[&str] = &["search", "x"];
    let remove: &[&str] = &["owner", "remove", "x", "bob"];
    let add: &[&str] = &["owner", "add", "x", "bob"];
    let cases: Vec<Case> = vec![
        (
            "503 twice, then an answer",
            search,
            vec![
                status("503 Service Unavailable"),
                status("503 Service Unavailable"),
                ok.clone(),
            ],
            0,
            3,
        ),
        (
            "429 with a short Retry-After",
            search,
            vec![
                answer("429 Too Many Requests", &["Retry-After: 1"], "{}"),
                ok.clone(),
            ],
            0,
            2,
        ),
        (
            "429 asking for an hour is reported, not waited for",
            search,
            vec![answer(
                "429 Too Many Requests",
                &["Retry-After: 3600"],
                "{}",
            )],
            2,
            1,
        ),
        (
            "a dropped connection on a read",
            search,
            vec![Step::HangUp, ok.clone()],
            0,
            2,
        ),
        (
            "500 is an answer",
            search,
            vec![status("500 Internal Server Error")],
            2,
            1,
        ),
        (
            "404 is an answer",
            search,
            vec![status("404 Not Found")],
            1,
            1,
        ),
        (
            "502 on a harmless repeat",
            add,
            vec![status("502 Bad Gateway"), answer("200 OK", &[], "{}")],
            0,
            2,
        ),
        (
            "502 on owner removal, which may have happened",
            remove,
            vec![status("502 Bad Gateway")],
            2,
            1,
        ),
    ];
    for (what, args, steps, code, attempts) in cases {
        let server = Scripted::start(move |n, _| steps[n.min(steps.len() - 1)].clone());
        let (got, _, stderr, _) = run_within(against(&context, &server.url(), args), BOUND);
        assert_eq!(got, code, "{what}: {stderr}");
        assert_eq!(server.accepts(), attempts, "{what}: {stderr}");
        if what.starts_with("429 asking") {
            assert!(stderr.contains("3600"), "{what}: {stderr}");
        }
    }
}

#[test]
fn an_endless_download_is_refused_past_its_announced_size() {
    let context = TestContext::new();
    let info = r#"{"name":"endless","description":"Never ends.","owners":["x"],"versions":[{"version":"1.0.0","checksum":"0000000000000000000000000000000000000000000000000000000000000000","digest":"h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=","size":4096,"yanked":false,"published_at":0,"publisher":"x"}]}"#;
    for content_length in [None, Some(u64::MAX / 2)] {
        let server = Scripted::start(move |_, request| {
            if request.contains("/download") {
                Step::Endless { content_length }
            } else {
                answer("200 OK", &[], info)
            }
        });
        let (code, _, stderr, _) = run_within(
            against(
                &context,
                &server.url(),
                &["install", "endless", "--dir", "installed"],
            ),
            BOUND,
        );
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("larger than the 4096 bytes the registry announced"),
            "{stderr}"
        );
        let sent = server.body_bytes_sent.load(Ordering::SeqCst);
        // What the socket buffers take before the client hangs up; the old client read 512 MiB.
        assert!(sent < 64 << 20, "the server got {sent} bytes out");
        let left: Vec<_> = fs_err::read_dir(context.root().join("installed"))
            .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
            .unwrap_or_default();
        assert!(
            left.is_empty(),
            "nothing is installed or left over: {left:?}"
        );
        assert!(!context.root().join("skills.lock").exists());
    }
}

/// A proxy on loopback in front of `upstream`: terminating TLS, or relaying the answers slowly.
struct Proxy {
    port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Clone)]
enum Relay {
    Tls(tokio_rustls::TlsAcceptor),
    /// Sends the upstream's bytes on in pieces of this size, with this pause before each.
    Slow(usize, Duration),
}

impl Proxy {
    fn start(upstream: &str, relay: Relay) -> Self {
        let upstream = upstream.trim_start_matches("http://").to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let accepting = async {
                    while let Ok((client, _)) = listener.accept().await {
                        tokio::spawn(relay_one(client, upstream.clone(), relay.clone()));
                    }
                };
                tokio::select! {
                    _ = stopped => {}
                    () = accepting => {}
                }
            });
        });
        Self {
            port,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn relay_one(client: tokio::net::TcpStream, upstream: String, relay: Relay) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let Ok(mut server) = tokio::net::TcpStream::connect(&upstream).await else {
        return;
    };
    match relay {
        Relay::Tls(acceptor) => {
            // A client that rejects the certificate ends the handshake: nothing to relay.
            if let Ok(mut client) = acceptor.accept(client).await {
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            }
        }
        Relay::Slow(piece, pause) => {
            let (mut client_read, mut client_write) = client.into_split();
            let (mut server_read, mut server_write) = server.into_split();
            let up = tokio::io::copy(&mut client_read, &mut server_write);
            let down = async {
                let mut buffer = vec![0_u8; piece];
                while let Ok(n) = server_read.read(&mut buffer).await {
                    if n == 0 {
                        break;
                    }
                    tokio::time::sleep(pause).await;
                    if client_write.write_all(&buffer[..n]).await.is_err() {
                        break;
                    }
                }
                let _ = client_write.shutdown().await;
            };
            let _ = tokio::join!(up, down);
        }
    }
}

/// Incompressible bytes, so that an archive is about as large as they are.
fn noise(len: usize) -> Vec<u8> {
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

#[test]
fn a_slow_download_that_keeps_arriving_is_not_cut_off() {
    let context = TestContext::new();
    let registry = Registry::start_plain(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    skill(
        &context,
        "slow",
        "1.0.0",
        "See [the data](assets/data.bin).",
    );
    context.write("work/slow/assets/data.bin", noise(16 * 1024));
    assert_eq!(
        cli(&context, &registry, Some(&alice), &["publish", "work/slow"]).0,
        0
    );
    // 512 bytes every 150 ms: the archive alone takes about 5 s, over twice the 2 s timeout.
    let proxy = Proxy::start(&registry.url, Relay::Slow(512, Duration::from_millis(150)));
    let url = format!("http://127.0.0.1:{}", proxy.port);
    let (code, _, stderr, elapsed) = run_within(
        against(&context, &url, &["install", "slow", "--dir", "installed"]),
        BOUND,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        context
            .root()
            .join("installed/slow/assets/data.bin")
            .exists()
    );
    assert!(
        elapsed > Duration::from_secs(4),
        "the relay was slower than the timeout: {elapsed:?}"
    );
}

/// A certificate authority and a certificate for `localhost` that it signed.
struct Pki {
    ca_pem: String,
    acceptor: tokio_rustls::TlsAcceptor,
}

fn pki() -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    use tokio_rustls::rustls;
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "skillpkg test CA");
    let ca_pem = ca.self_signed(&ca_key).unwrap().pem();
    let issuer = Issuer::new(ca, ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![leaf.der().clone()],
        rustls::pki_types::PrivatePkcs8KeyDer::from(leaf_key.serialize_der()).into(),
    )
    .unwrap();
    Pki {
        ca_pem,
        acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
    }
}

#[test]
fn https_with_a_private_certificate_authority() {
    let context = TestContext::new();
    let registry = Registry::start_plain(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    let pki = pki();
    let ca_file = context.write("ca.pem", &pki.ca_pem);
    let proxy = Proxy::start(&registry.url, Relay::Tls(pki.acceptor));
    let url = format!("https://localhost:{}", proxy.port);
    skill(&context, "secure", "1.0.0", "Secure.");
    let https = |args: &[&str], ca: Option<(&str, &std::path::Path)>| {
        let mut command = context.client(args);
        command
            .env("SKILLPKG_REGISTRY", &url)
            .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
            .env_remove("SKILLPKG_TOKEN")
            .env_remove("SKILLPKG_CA_FILE")
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR");
        if let Some((variable, path)) = ca {
            command.env(variable, path);
        }
        command
    };
    let with_ca = Some(("SKILLPKG_CA_FILE", ca_file.as_path()));

    // Without the CA, nothing is trusted, and the token is not stored.
    let mut login = https(&["login"], None);
    login.env("SKILLPKG_TOKEN", &alice);
    let (code, _, stderr) = run(login);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("TLS with https://localhost")
            && stderr.contains("certificate")
            && stderr.contains("SKILLPKG_CA_FILE"),
        "{stderr}"
    );
    assert!(!context.root().join("config/credentials.toml").exists());

    // With it: login, publish with the stored token, search, install.
    let mut login = https(&["login"], with_ca);
    login.env("SKILLPKG_TOKEN", &alice);
    let (code, _, stderr) = run(login);
    assert_eq!(code, 0, "{stderr}");
    let stored = fs_err::read_to_string(context.root().join("config/credentials.toml")).unwrap();
    assert!(stored.contains(&url), "{stored}");
    let (code, _, stderr) = run(https(&["publish", "work/secure"], with_ca));
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = run(https(&["search", "secure"], with_ca));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("secure 1.0.0"), "{stdout}");
    let (code, _, stderr) = run(https(&["install", "secure", "--dir", "installed"], with_ca));
    assert_eq!(code, 0, "{stderr}");
    assert!(context.root().join("installed/secure/SKILL.md").exists());
    // SSL_CERT_FILE, the convention of OpenSSL, curl and git, works too.
    let (code, _, stderr) = run(https(
        &["info", "secure"],
        Some(("SSL_CERT_FILE", ca_file.as_path())),
    ));
    assert_eq!(code, 0, "{stderr}");
    // A CA file that holds no certificate is a clear error, not an empty trust store.
    let empty = context.write("empty.pem", "not a certificate\n");
    let (code, _, stderr) = run(https(
        &["info", "secure"],
        Some(("SKILLPKG_CA_FILE", empty.as_path())),
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("SKILLPKG_CA_FILE") && stderr.contains("holds no certificate"),
        "{stderr}"
    );
    // A CA setting naming a device is refused at once, not read until memory runs out.
    let (code, _, stderr, _) = run_within(
        https(
            &["info", "secure"],
            Some(("SKILLPKG_CA_FILE", std::path::Path::new("/dev/zero"))),
        ),
        BOUND,
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("SKILLPKG_CA_FILE") && stderr.contains("not a regular file"),
        "{stderr}"
    );
    // Plain http never reads it: a stale CA setting does not break a local registry.
    let mut plain = https(
        &["info", "secure"],
        Some(("SSL_CERT_FILE", empty.as_path())),
    );
    plain.env("SKILLPKG_REGISTRY", &registry.url);
    let (code, _, stderr) = run(plain);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_token_never_travels_in_clear_text_to_another_host() {
    let context = TestContext::new();
    skill(&context, "exposed", "1.0.0", "Exposed.");
    // `.invalid` never resolves: whatever happens, nothing leaves this machine.
    let url = "http://registry.invalid:8080";
    for args in [
        &["publish", "work/exposed"][..],
        &["login"],
        &["yank", "x@1.0.0"],
    ] {
        let (code, _, stderr, _) = run_within(against(&context, url, args), BOUND);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains(
                "refusing to send a token to http://registry.invalid:8080 over plain http://"
            ) && stderr.contains("https://"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!context.root().join("config/credentials.toml").exists());
    // The user can say that the network is trusted; then the request is tried.
    let mut publish = against(&context, url, &["publish", "work/exposed"]);
    publish.env("SKILLPKG_ALLOW_HTTP_TOKEN", "1");
    let (code, _, stderr, _) = run_within(publish, BOUND);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        !stderr.contains("plain http://") && stderr.contains("cannot reach"),
        "{stderr}"
    );
    // Reading needs no token, so plain http to another host stays possible for search.
    let (code, _, stderr, _) = run_within(against(&context, url, &["search", "x"]), BOUND);
    assert_eq!(code, 2, "{stderr}");
    assert!(!stderr.contains("plain http://"), "{stderr}");
}

/// `login` against `registry` with `config` as the config folder.
fn login(context: &TestContext, registry: &Registry, config: &str, token: &str) -> Command {
    let mut command = context.client(&["login"]);
    command
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join(config))
        .env("SKILLPKG_TOKEN", token);
    command
}

#[test]
fn login_keeps_tokens_private_and_never_discards_a_broken_credentials_file() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");

    // A new config folder is the user's alone, as is the file.
    let (code, _, stderr) = run(login(&context, &registry, "fresh/skillpkg", &alice));
    assert_eq!(code, 0, "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |path: &str| {
            fs_err::metadata(context.root().join(path))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("fresh/skillpkg"), 0o700);
        assert_eq!(mode("fresh/skillpkg/credentials.toml"), 0o600);
    }

    // A credentials file that does not parse holds other registries' tokens: keep it.
    let broken = "\"https://other.example\" = \"skp_other\"\noops = [\n";
    let path = context.write("config/credentials.toml", broken);
    let (code, _, stderr) = run(login(&context, &registry, "config", &alice));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&path.display().to_string())
            && stderr.contains("line 2")
            && stderr.contains("will not overwrite it"),
        "{stderr}"
    );
    assert_eq!(fs_err::read_to_string(&path).unwrap(), broken);
}

#[test]
fn a_credentials_file_that_cannot_be_read_is_reported_not_taken_for_no_token() {
    let context = TestContext::new();
    skill(&context, "guarded", "1.0.0", "Guarded.");
    let path = context.root().join("config/credentials.toml");
    // Port 9 on loopback: nothing listens, and the command must fail before trying anyway.
    let publish = || {
        let mut command = against(&context, "http://127.0.0.1:9", &["publish", "work/guarded"]);
        command.env_remove("SKILLPKG_TOKEN");
        command
    };
    let huge = format!(
        "\"http://127.0.0.1:9\" = \"skp_x\"\n{}",
        "# padding\n".repeat(200_000)
    );
    // What the file holds (`None`: a folder stands in its place), and what the error says.
    let cases = [
        (Some("= nonsense\n"), "is broken (line 1"),
        (
            Some("\"http://127.0.0.1:9\" = 7\n"),
            "the token for `http://127.0.0.1:9` is not a string",
        ),
        (Some(huge.as_str()), "is larger than 1 MiB"),
        (None, "is not a regular file"),
    ];
    for (contents, message) in cases {
        if let Some(text) = contents {
            context.write("config/credentials.toml", text);
        } else {
            fs_err::remove_file(&path).unwrap();
            fs_err::create_dir_all(&path).unwrap();
        }
        let (code, _, stderr, _) = run_within(publish(), BOUND);
        assert_eq!(code, 2, "{message}: {stderr}");
        assert!(
            stderr.contains(&path.display().to_string()) && stderr.contains(message),
            "{message}: {stderr}"
        );
        assert!(!stderr.contains("no token"), "{stderr}");
    }
    // A FIFO in its place is refused without waiting for a writer.
    fs_err::remove_dir(&path).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let (code, _, stderr, _) = run_within(publish(), BOUND);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&path.display().to_string()) && stderr.contains("is not a regular file"),
        "{stderr}"
    );
}

/// `publish` refuses what `lint` reports as an error or as template text (a description still
/// starting `TODO:`), unless --no-lint; warnings do not block.
#[test]
fn publish_refuses_lint_errors_and_placeholders() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");
    let (code, _, stderr) = run(context.command(&["init", "draft"]));
    assert_eq!(code, 0, "{stderr}");
    let publish = |path: &str, extra: &[&str]| {
        let mut args = vec!["publish", path, "--version", "1.0.0"];
        args.extend_from_slice(extra);
        cli(&context, &registry, Some(&alice), &args)
    };
    // Only the description is left from the template: the body's own TODO lines are gone.
    let skill_md = context.root().join("draft/SKILL.md");
    let text = fs_err::read_to_string(&skill_md).unwrap();
    let mut description_only = text
        .lines()
        .filter(|line| line.starts_with("description:") || !line.contains("TODO"))
        .collect::<Vec<_>>()
        .join("\n");
    description_only.push('\n');
    assert!(
        description_only.contains("description: \"TODO: "),
        "{description_only}"
    );
    fs_err::write(&skill_md, &description_only).unwrap();
    let (code, _, stderr) = run(context.command(&["lint", "draft"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "warning[SK209]: `TODO:` looks like text left from a template\n --> draft/SKILL.md:3:14"
        ),
        "{stderr}"
    );
    let (code, stdout, stderr) = publish("draft", &[]);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert!(
        stderr.contains(
            "error: `skillpkg lint` reports errors or placeholder text; nothing was published"
        ),
        "{stderr}"
    );
    // A skillpkg.toml that selects other rules does not switch the check off.
    context.write("skillpkg.toml", "[lint]\nselect = [\"SK3\"]\n");
    let (code, _, stderr) = publish("draft", &[]);
    assert_eq!(code, 1, "{stderr}");
    // The same from inside the skill's folder, however it is named.
    for path in [None, Some("."), Some("./"), Some("SKILL.md")] {
        let mut args = vec!["publish", "--version", "1.0.0", "--dry-run"];
        args.extend(path);
        let mut command = context.client(&args);
        command
            .current_dir(context.root().join("draft"))
            .env("SKILLPKG_REGISTRY", &registry.url);
        let (code, _, stderr) = run(command);
        assert_eq!(code, 1, "{path:?}: {stderr}");
        assert!(
            stderr.contains("nothing was published"),
            "{path:?}: {stderr}"
        );
    }
    let (code, _, stderr) = cli(&context, &registry, None, &["info", "draft"]);
    assert_eq!(code, 1, "nothing was published: {stderr}");
    // --no-lint publishes a draft as it is.
    let (code, _, stderr) = publish("draft", &["--no-lint"]);
    assert_eq!(code, 0, "{stderr}");
    // Finished, it is published without the flag; from inside its folder too.
    let finished = description_only.replace(
        text.lines().find(|line| line.starts_with("description:")).unwrap(),
        "description: Drafts release notes from merged pull requests. Use when the user asks for release notes.",
    );
    fs_err::write(&skill_md, finished).unwrap();
    let mut command = context.client(&["publish", ".", "--version", "1.1.0"]);
    command
        .current_dir(context.root().join("draft"))
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env("SKILLPKG_TOKEN", &alice);
    let (code, _, stderr) = run(command);
    assert_eq!(code, 0, "{stderr}");
}
