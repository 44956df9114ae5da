//! `cargo bench --bench registry`: a load test of `skillpkg registry serve` on loopback.
//!
//! The targets from the registry issue, on a 2-core machine:
//! - metadata `GET /api/v1/skills/{name}` at 64 concurrent connections: at least 10,000
//!   requests/s, p99 under 20 ms;
//! - downloads of a ~20 KB archive at 64 concurrent connections: at least 5,000 requests/s,
//!   p99 under 20 ms;
//! - 1,000 sequential publishes (each a new version, validated and stored) in under 30 s;
//! - the web pages (home, search, a skill's page, a file's page) in under 5 ms each at the
//!   server, before and after the skill has 1,001 versions.
//!
//! The server is the real binary with its request log going to /dev/null; the load generator
//! is 64 threads, each holding one keep-alive HTTP/1.1 connection and sending the next request
//! as soon as the previous answer is read (a closed loop, as `wrk` does). Client and server
//! share the machine's cores, so the figures are a floor for the server alone.
//!
//! The two GET loads run twice: over plain HTTP, then over HTTPS (`--tls-cert/--tls-key` with
//! a certificate made here; rustls on both ends, one handshake per connection, then
//! keep-alive), so the cost of TLS is the difference.
//!
//! The pages are timed by the server itself: a registry on the same data with its request log
//! going to a file answers each page 300 times in a row on one keep-alive connection, and the
//! log's `ms` (from the request's arrival to its answer) gives the median and the 99th
//! percentile.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::Digest as _;

const CONNECTIONS: usize = 64;
const WARM_UP: Duration = Duration::from_secs(1);
const MEASURE: Duration = Duration::from_secs(5);

#[path = "../tests/it/registry/services.rs"]
#[allow(dead_code, unreachable_pub)]
mod services;

fn main() {
    let skillpkg = env!("CARGO_BIN_EXE_skillpkg");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("skillpkg-bench-registry");
    let _ = fs_err::remove_dir_all(&work);
    fs_err::create_dir_all(&work).expect("bench folder");
    // `SKILLPKG_BENCH_SECTION=scaled` runs only the PostgreSQL + S3 comparison.
    if std::env::var("SKILLPKG_BENCH_SECTION").as_deref() == Ok("scaled") {
        scaled(skillpkg, &work);
        return;
    }
    let data = work.join("data");

    let (mut server, url) = start(skillpkg, &data);
    let token = token(skillpkg, &data);
    let address = url.trim_start_matches("http://").to_owned();

    // One skill with a ~20 KB archive (random bytes do not compress).
    let skill = work.join("bench");
    let archive = pack(&skill, "1.0.0", 20 * 1024);
    let agent = agent();
    let status = publish(&agent, &url, &token, "bench", "1.0.0", &archive);
    assert_eq!(status, 201, "the first publish");
    println!(
        "registry load test: {CONNECTIONS} connections, {} s per run, archive {} bytes",
        MEASURE.as_secs(),
        archive.len()
    );

    pages(skillpkg, &data, &work.join("pages.log"), "1 version");

    let metadata = load(&address, "/api/v1/skills/bench", None);
    metadata.print("metadata GET", 10_000.0);
    let downloads = load(&address, "/api/v1/skills/bench/1.0.0/download", None);
    downloads.print("20 KB download", 5_000.0);

    // The same over HTTPS: the same data, served by a registry that terminates TLS itself.
    let _ = server.kill();
    let _ = server.wait();
    let tls = Tls::new(&work);
    let (mut secure, secure_url) = start_with(
        skillpkg,
        &data,
        &[
            "--tls-cert",
            tls.cert.to_str().expect("UTF-8"),
            "--tls-key",
            tls.key.to_str().expect("UTF-8"),
        ],
    );
    let secure_address = secure_url.trim_start_matches("https://").to_owned();
    let metadata = load(&secure_address, "/api/v1/skills/bench", Some(&tls.client));
    metadata.print("metadata GET over TLS", 10_000.0);
    let downloads = load(
        &secure_address,
        "/api/v1/skills/bench/1.0.0/download",
        Some(&tls.client),
    );
    downloads.print("20 KB download over TLS", 5_000.0);
    let _ = secure.kill();
    let _ = secure.wait();
    let (restarted, url) = start(skillpkg, &data);
    server = restarted;

    // 1,000 sequential publishes of new versions, each a different archive.
    let archives: Vec<(String, Vec<u8>)> = (1..=1000)
        .map(|i| {
            let version = format!("2.0.{i}");
            let bytes = pack(&skill, &version, 1024);
            (version, bytes)
        })
        .collect();
    let started = Instant::now();
    for (version, bytes) in &archives {
        let status = publish(&agent, &url, &token, "bench", version, bytes);
        assert_eq!(status, 201, "publish {version}");
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "1,000 sequential publishes: {elapsed:.2} s ({:.1} ms each; target < 30 s) {}",
        elapsed * 1000.0 / archives.len() as f64,
        verdict(elapsed < 30.0)
    );
    pages(skillpkg, &data, &work.join("pages.log"), "1,001 versions");

    search_at_scale(skillpkg, &data, &work, &agent, &url, &token);

    let _ = server.kill();
    let _ = server.wait();
    scaled(skillpkg, &work);
}

/// The scaled back end beside the embedded one, each with one and then two server processes
/// (sharing the stores; the load spread evenly over them), all on this machine with the load
/// generator: metadata GETs and downloads at 64 connections, and 1,000 sequential publishes.
/// Downloads run with `--download redirect`: on S3 the answer is a 307 to a presigned URL
/// (the bytes never pass through the registry), on a folder the archive itself.
#[allow(clippy::too_many_lines)] // one table, measured in order
fn scaled(skillpkg: &str, work: &Path) {
    let Some(services) = services::services("cargo bench --bench registry (PostgreSQL + S3)")
    else {
        return;
    };
    println!(
        "\nPostgreSQL + S3 (s3s-fs) beside SQLite + a folder; CPU is user + system time over the warm-up and the measured window"
    );
    for back_end in ["SQLite + folder", "PostgreSQL + S3"] {
        for processes in [1, 2] {
            let data = work.join(format!("scaled-{}-{processes}", back_end.len()));
            let mut args: Vec<String> = vec!["--data".into(), data.display().to_string()];
            let mut env = Vec::new();
            if back_end.starts_with("PostgreSQL") {
                // `SKILLPKG_BENCH_POOL=N`: each server's PostgreSQL connections (default twice the cores).
                if let Ok(pool) = std::env::var("SKILLPKG_BENCH_POOL") {
                    let config = work.join(format!("pool-{processes}.toml"));
                    fs_err::write(&config, format!("pool_size = {pool}\n")).expect("config");
                    args.extend(["--config".into(), config.display().to_string()]);
                }
                let fresh = services.fresh();
                args.extend([
                    "--database".into(),
                    fresh.database,
                    "--blobs".into(),
                    fresh.blobs,
                ]);
                env = fresh.env;
            }
            let servers: Vec<(Child, String)> = (0..processes)
                .map(|_| start_on(skillpkg, &args, &env, &["--download", "redirect"]))
                .collect();
            let output = Command::new(skillpkg)
                .args(["registry", "token", "create", "--user", "bench"])
                .args(&args)
                .envs(env.iter().map(|(k, v)| (k, v)))
                .output()
                .expect("create a token");
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            let token = String::from_utf8(output.stdout)
                .expect("UTF-8")
                .trim()
                .to_owned();
            let agent = agent();
            let skill = work.join(format!("scaled-skill-{}-{processes}", back_end.len()));
            let archive = pack(&skill, "1.0.0", 20 * 1024);
            assert_eq!(
                publish(&agent, &servers[0].1, &token, "bench", "1.0.0", &archive),
                201
            );
            let addresses: Vec<String> = servers
                .iter()
                .map(|(_, url)| url.trim_start_matches("http://").to_owned())
                .collect();
            let pids: Vec<u32> = servers.iter().map(|(child, _)| child.id()).collect();
            let label = format!(
                "{back_end}, {processes} server{}",
                if processes == 1 { "" } else { "s" }
            );
            let (before, database) = (cpu_seconds(&pids), postgres_cpu());
            let metadata = load_on(&addresses, "/api/v1/skills/bench", None, "200");
            let cpu = cpu_seconds(&pids) - before;
            let database = postgres_cpu() - database;
            metadata.print(&format!("{label}: metadata GET"), 8_000.0);
            print_cpu(cpu, database);
            let redirect = if back_end.starts_with("PostgreSQL") {
                "307"
            } else {
                "200"
            };
            let (before, database) = (cpu_seconds(&pids), postgres_cpu());
            let downloads = load_on(
                &addresses,
                "/api/v1/skills/bench/1.0.0/download",
                None,
                redirect,
            );
            let cpu = cpu_seconds(&pids) - before;
            let database = postgres_cpu() - database;
            downloads.print(
                &format!(
                    "{label}: download ({})",
                    if redirect == "307" {
                        "307 to S3"
                    } else {
                        "archive from the folder"
                    }
                ),
                5_000.0,
            );
            print_cpu(cpu, database);
            if processes == 1 {
                let archives: Vec<(String, Vec<u8>)> = (1..=1000)
                    .map(|i| {
                        let version = format!("2.0.{i}");
                        let bytes = pack(&skill, &version, 1024);
                        (version, bytes)
                    })
                    .collect();
                let before = cpu_seconds(&pids);
                let started = Instant::now();
                for (version, bytes) in &archives {
                    let status = publish(&agent, &servers[0].1, &token, "bench", version, bytes);
                    assert_eq!(status, 201, "publish {version}");
                }
                let elapsed = started.elapsed().as_secs_f64();
                let cpu = cpu_seconds(&pids) - before;
                println!(
                    "{label}: 1,000 sequential publishes: {elapsed:.2} s ({:.1} ms each; target < 60 s) {}; registry CPU {cpu:.1} s",
                    elapsed * 1000.0 / archives.len() as f64,
                    verdict(elapsed < 60.0)
                );
            }
            for (mut child, _) in servers {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// The CPU a load took: the registry's processes and `PostgreSQL`'s, beside the wall time.
fn print_cpu(registry: f64, database: f64) {
    println!(
        "    CPU: registry {registry:.1} s, PostgreSQL {database:.1} s, over {:.0} s wall on {} cores",
        (WARM_UP + MEASURE).as_secs_f64(),
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    );
}

/// User + system CPU seconds so far of every `postgres` process (the server and its backends).
fn postgres_cpu() -> f64 {
    let pids: Vec<u32> = fs_err::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
                .filter(|pid: &u32| {
                    fs_err::read_to_string(format!("/proc/{pid}/comm"))
                        .is_ok_and(|comm| comm.trim() == "postgres")
                })
                .collect()
        })
        .unwrap_or_default();
    cpu_seconds(&pids)
}

/// User + system CPU seconds of the processes `pids` so far (Linux; 0 elsewhere).
fn cpu_seconds(pids: &[u32]) -> f64 {
    pids.iter()
        .filter_map(|pid| fs_err::read_to_string(format!("/proc/{pid}/stat")).ok())
        .filter_map(|stat| {
            // Fields after the command name, which is in parentheses and may hold spaces.
            let rest = stat.rsplit_once(')')?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let user: f64 = fields.get(11)?.parse().ok()?;
            let system: f64 = fields.get(12)?.parse().ok()?;
            Some((user + system) / 100.0)
        })
        .sum()
}

/// A started registry and the URL its first line prints.
fn listening(mut child: Child) -> (Child, String) {
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the registry's first line");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .expect("`listening on URL`")
        .to_owned();
    (child, url)
}

/// Starts a registry with store `args` and `env`, plus `extra`.
fn start_on(
    skillpkg: &str,
    args: &[String],
    env: &[(String, String)],
    extra: &[&str],
) -> (Child, String) {
    let child = Command::new(skillpkg)
        .args(["registry", "serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .args(extra)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the registry");
    listening(child)
}

/// Search and the home page over many skills: `SCALE_SKILLS` more, whose descriptions share
/// words, so a one-letter query matches every skill and is ranked whole.
fn search_at_scale(
    skillpkg: &str,
    data: &Path,
    work: &Path,
    agent: &ureq::Agent,
    url: &str,
    token: &str,
) {
    let started = Instant::now();
    for index in 0..SCALE_SKILLS {
        let name = format!("scale-{index:05}");
        let bytes = pack_named(&work.join("scale"), &name, index);
        let status = publish(agent, url, token, &name, "1.0.0", &bytes);
        assert_eq!(status, 201, "publish {name}");
    }
    println!(
        "{SCALE_SKILLS} more skills published in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    timed(
        skillpkg,
        data,
        &work.join("scale.log"),
        "5,001 skills",
        &[
            ("home page", "/", "/"),
            ("search page, every skill matches `e`", "/?q=e", "/"),
            (
                "search API, every skill matches `e`",
                "/api/v1/skills?q=e",
                "/api/v1/skills",
            ),
            (
                "search API, `finance team`",
                "/api/v1/skills?q=finance%20team",
                "/api/v1/skills",
            ),
            (
                "search API, one exact name",
                "/api/v1/skills?q=scale-04999",
                "/api/v1/skills",
            ),
        ],
    );
}

/// Starts the registry on an ephemeral port and returns it with its URL.
fn start(skillpkg: &str, data: &Path) -> (Child, String) {
    start_with(skillpkg, data, &[])
}

/// [`start`] with more options.
fn start_with(skillpkg: &str, data: &Path, extra: &[&str]) -> (Child, String) {
    start_logged(skillpkg, data, extra, Stdio::null())
}

/// [`start_with`], the request log going to `log`.
fn start_logged(skillpkg: &str, data: &Path, extra: &[&str], log: Stdio) -> (Child, String) {
    let child = Command::new(skillpkg)
        .args(["registry", "serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(data)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("start the registry");
    listening(child)
}

fn token(skillpkg: &str, data: &Path) -> String {
    let output = Command::new(skillpkg)
        .args(["registry", "token", "create", "--user", "bench", "--data"])
        .arg(data)
        .output()
        .expect("create a token");
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .trim()
        .to_owned()
}

/// Writes the skill at `version` with `random` bytes of asset, and packs it with the library.
fn pack(skill: &Path, version: &str, random: usize) -> Vec<u8> {
    fs_err::create_dir_all(skill.join("assets")).expect("skill folder");
    fs_err::write(
        skill.join("SKILL.md"),
        format!(
            "---\nname: bench\ndescription: Benchmark fixture. Use when load-testing the registry.\nmetadata:\n  version: \"{version}\"\n---\n\n# Bench {version}\n\nSee [the data](assets/data.bin).\n"
        ),
    )
    .expect("SKILL.md");
    let mut state = version.bytes().fold(0x9E37_79B9_7F4A_7C15_u64, |s, b| {
        (s ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
    });
    let noise: Vec<u8> = (0..random)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    fs_err::write(skill.join("assets/data.bin"), noise).expect("asset");
    let files = skillpkg::pack::select::select(skill).expect("select");
    let mut out = Vec::new();
    skillpkg::pack::archive::write(&mut out, "bench/", &files, 1, &|_| {}).expect("pack");
    out
}

/// How many skills the search scale run adds.
const SCALE_SKILLS: usize = 5_000;

/// A small archive of a skill called `name`, its description made of words picked by `index`.
fn pack_named(folder: &Path, name: &str, index: usize) -> Vec<u8> {
    const WORDS: [&str; 8] = [
        "finance", "team", "reports", "invoices", "release", "notes", "forms", "weather",
    ];
    let skill = folder.join(name);
    fs_err::create_dir_all(&skill).expect("skill folder");
    fs_err::write(
        skill.join("SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: Handles {} and {} for the scale fixture. Use when the {} need care.\nmetadata:\n  keywords: \"{}\"\n---\n\n# {name}\n\nThe body.\n",
            WORDS[index % 8],
            WORDS[(index / 8) % 8],
            WORDS[(index / 64) % 8],
            WORDS[(index / 3) % 8],
        ),
    )
    .expect("SKILL.md");
    let files = skillpkg::pack::select::select(&skill).expect("select");
    let mut out = Vec::new();
    skillpkg::pack::archive::write(&mut out, &format!("{name}/"), &files, 1, &|_| {})
        .expect("pack");
    out
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

fn publish(
    agent: &ureq::Agent,
    url: &str,
    token: &str,
    name: &str,
    version: &str,
    archive: &[u8],
) -> u16 {
    let checksum = skillpkg::pack::archive::hex(&sha2::Sha256::digest(archive));
    agent
        .put(&format!("{url}/api/v1/skills/{name}/{version}"))
        .header("authorization", &format!("Bearer {token}"))
        .header("x-checksum-sha256", &checksum)
        .send(archive)
        .expect("publish")
        .status()
        .as_u16()
}

struct Load {
    requests: usize,
    seconds: f64,
    /// Sorted latencies in microseconds.
    latencies: Vec<u32>,
    bytes: u64,
}

impl Load {
    fn percentile(&self, p: f64) -> f64 {
        let index = ((self.latencies.len() as f64 * p).ceil() as usize).saturating_sub(1);
        f64::from(self.latencies[index.min(self.latencies.len() - 1)]) / 1000.0
    }

    fn print(&self, what: &str, target: f64) {
        let rate = self.requests as f64 / self.seconds;
        let p99 = self.percentile(0.99);
        println!(
            "{what}: {rate:.0} req/s (target ≥ {target:.0}) {}, p50 {:.2} ms, p99 {p99:.2} ms (target < 20) {}, max {:.2} ms, {:.1} MB/s",
            verdict(rate >= target),
            self.percentile(0.50),
            verdict(p99 < 20.0),
            self.percentile(1.0),
            self.bytes as f64 / self.seconds / 1e6,
        );
    }
}

/// Serves `data` from a registry whose request log goes to `log`, requests each page
/// `PAGE_RUNS` times in a row on one keep-alive connection (after a few unmeasured ones) and
/// prints the server's own time for it from the log's `ms`: the median and the 99th
/// percentile, against the 5 ms target.
fn pages(skillpkg: &str, data: &Path, log: &Path, skill: &str) {
    let file_page = "/skills/bench/1.0.0/files/SKILL.md";
    timed(
        skillpkg,
        data,
        log,
        skill,
        &[
            ("home page", "/", "/"),
            ("search page", "/?q=bench", "/"),
            ("skill page", "/skills/bench", "/skills/bench"),
            ("file page", file_page, file_page),
        ],
    );
}

/// Times `paths` (what, path, the path the log records) as [`pages`] does.
fn timed(skillpkg: &str, data: &Path, log: &Path, skill: &str, paths: &[(&str, &str, &str)]) {
    const PAGE_RUNS: usize = 300;
    let file = fs_err::File::create(log)
        .expect("the log file")
        .into_parts()
        .0;
    let (mut server, url) = start_logged(skillpkg, data, &[], Stdio::from(file));
    let address = url.trim_start_matches("http://").to_owned();
    let stream = TcpStream::connect(&address).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut writer = stream.try_clone().expect("clone");
    let mut reader = BufReader::with_capacity(64 * 1024, stream);
    for &(what, path, logged) in paths {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").into_bytes();
        let mut get = || {
            writer.write_all(&request).expect("send");
            let mut length = 0_usize;
            let mut line = String::new();
            loop {
                line.clear();
                reader.read_line(&mut line).expect("read a header");
                if line == "\r\n" {
                    break;
                }
                assert!(
                    !line.starts_with("HTTP/1.1 ") || line.starts_with("HTTP/1.1 200"),
                    "{path}: {line}"
                );
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().expect("content-length");
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).expect("read the body");
            length
        };
        for _ in 0..20 {
            get();
        }
        let from = fs_err::metadata(log).expect("the log").len();
        let mut size = 0;
        for _ in 0..PAGE_RUNS {
            size = get();
        }
        let mut text = String::new();
        let mut file = fs_err::File::open(log).expect("the log");
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(from)).expect("seek");
        file.read_to_string(&mut text).expect("read the log");
        let mut times: Vec<f64> = text
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|line| line["path"] == logged)
            .filter_map(|line| line["ms"].as_f64())
            .collect();
        assert_eq!(times.len(), PAGE_RUNS, "{what}: logged requests");
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let p99 = times[(times.len() * 99).div_ceil(100) - 1];
        println!(
            "{what} ({skill}, {size} bytes): server time median {median:.3} ms, p99 {p99:.3} ms (target < 5) {}",
            verdict(p99 < 5.0)
        );
    }
    let _ = server.kill();
    let _ = server.wait();
}

fn verdict(ok: bool) -> &'static str {
    if ok { "ok" } else { "MISSED" }
}

/// A certificate for 127.0.0.1 in PEM files for the server, and a client configuration that
/// trusts it.
struct Tls {
    cert: std::path::PathBuf,
    key: std::path::PathBuf,
    client: Arc<rustls::ClientConfig>,
}

impl Tls {
    fn new(work: &Path) -> Self {
        let key = rcgen::KeyPair::generate().expect("a key");
        let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()])
            .expect("parameters")
            .self_signed(&key)
            .expect("a certificate");
        let mut roots = rustls::RootCertStore::empty();
        roots.add(cert.der().clone()).expect("a root");
        let client = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
        let cert_path = work.join("cert.pem");
        let key_path = work.join("key.pem");
        fs_err::write(&cert_path, cert.pem()).expect("write the certificate");
        fs_err::write(&key_path, key.serialize_pem()).expect("write the key");
        Self {
            cert: cert_path,
            key: key_path,
            client: Arc::new(client),
        }
    }
}

/// A connection: TCP, or TLS over TCP.
trait Stream: std::io::Read + std::io::Write + Send {}
impl<T: std::io::Read + std::io::Write + Send> Stream for T {}

/// `CONNECTIONS` closed-loop connections (over TLS with `tls`) sending `GET path` for
/// `WARM_UP` + `MEASURE`; only the requests that finish inside the measured window count.
fn load(address: &str, path: &str, tls: Option<&Arc<rustls::ClientConfig>>) -> Load {
    load_on(&[address.to_owned()], path, tls, "200")
}

/// [`load`] spread over `addresses` (connection `i` goes to address `i % n`), expecting the
/// status `expected` (such as `307` for a redirect) on every answer.
fn load_on(
    addresses: &[String],
    path: &str,
    tls: Option<&Arc<rustls::ClientConfig>>,
    expected: &str,
) -> Load {
    let start = Instant::now() + WARM_UP;
    let end = start + MEASURE;
    let status_line = format!("HTTP/1.1 {expected}");
    let threads: Vec<_> = (0..CONNECTIONS)
        .map(|index| {
            let address = addresses[index % addresses.len()].clone();
            let status_line = status_line.clone();
            let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").into_bytes();
            let tls = tls.cloned();
            std::thread::spawn(move || {
                let tcp = TcpStream::connect(&address).expect("connect");
                tcp.set_nodelay(true).expect("nodelay");
                let stream: Box<dyn Stream> = match tls {
                    None => Box::new(tcp),
                    Some(config) => {
                        let name = rustls::pki_types::ServerName::try_from("127.0.0.1")
                            .expect("a server name");
                        let connection =
                            rustls::ClientConnection::new(config, name).expect("a TLS client");
                        Box::new(rustls::StreamOwned::new(connection, tcp))
                    }
                };
                let mut reader = BufReader::with_capacity(64 * 1024, stream);
                let mut latencies = Vec::with_capacity(100_000);
                let mut bytes = 0_u64;
                let mut line = String::new();
                let mut body = Vec::new();
                loop {
                    let sent = Instant::now();
                    if sent >= end {
                        break;
                    }
                    reader.get_mut().write_all(&request).expect("send");
                    reader.get_mut().flush().expect("send");
                    let mut length = 0_usize;
                    let mut status_ok = false;
                    loop {
                        line.clear();
                        reader.read_line(&mut line).expect("read a header");
                        if line == "\r\n" {
                            break;
                        }
                        if line.starts_with("HTTP/1.1 ") {
                            status_ok = line.starts_with(&status_line);
                        } else if let Some((name, value)) = line.split_once(':')
                            && name.eq_ignore_ascii_case("content-length")
                        {
                            length = value.trim().parse().expect("content-length");
                        }
                    }
                    body.resize(length, 0);
                    reader.read_exact(&mut body).expect("read the body");
                    assert!(status_ok, "an answer other than {status_line}");
                    let done = Instant::now();
                    if sent >= start && done <= end {
                        latencies.push(done.duration_since(sent).as_micros() as u32);
                        bytes += length as u64;
                    }
                }
                (latencies, bytes)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    let mut bytes = 0;
    for thread in threads {
        let (mine, b) = thread.join().expect("a load thread");
        latencies.extend(mine);
        bytes += b;
    }
    latencies.sort_unstable();
    Load {
        requests: latencies.len(),
        seconds: MEASURE.as_secs_f64(),
        latencies,
        bytes,
    }
}
