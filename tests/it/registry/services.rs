//! The servers a scaled registry runs on, started once per test process on loopback: a real
//! `PostgreSQL` cluster (Debian's `postgresql` binaries: `initdb`, `postgres`) in a temporary
//! folder, and a real S3-compatible server (`s3s-fs`, from crates.io, which `.ci/run` installs
//! into `target/tools/s3s-fs`). No mocks.
//!
//! Each is started by a small shell watchdog that stops it (and removes its folder) when this
//! test process ends, since a test binary has no hook that runs at exit. As root, `PostgreSQL`
//! runs as the `postgres` user: it refuses to run as root.
//!
//! Without the binaries, [`services`] says so and returns `None`, so `cargo test` passes on a
//! machine without them; `SKILLPKG_REQUIRE_SCALED=1` (which `.ci/run` sets) makes that a
//! failure.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The access key the S3 server is started with.
pub(crate) const S3_KEY: &str = "skillpkg-test";
/// Its secret key.
pub(crate) const S3_SECRET: &str = "skillpkg-test-secret";
/// The bucket every test registry keeps its archives in, each under its own prefix.
pub(crate) const S3_BUCKET: &str = "skillpkg";

/// The running servers.
pub(crate) struct Services {
    pub(crate) postgres_port: u16,
    pub(crate) s3_endpoint: String,
    /// The S3 server's root folder: the bucket is a folder in it, each object a file.
    pub(crate) s3_root: PathBuf,
}

/// One registry's own database and prefix on the shared servers.
#[derive(Clone, Debug)]
pub(crate) struct Scaled {
    pub(crate) database: String,
    pub(crate) blobs: String,
    /// Where this registry's objects are on the S3 server's disk.
    pub(crate) blob_root: PathBuf,
    pub(crate) env: Vec<(String, String)>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A program on PATH or in one of `also`.
fn find(program: &str, also: &[PathBuf]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(also.iter().cloned())
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// Debian keeps the server binaries in `/usr/lib/postgresql/<major>/bin`.
fn postgres_bin_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs_err::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path().join("bin"))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs.reverse();
    dirs
}

fn s3_server() -> Option<PathBuf> {
    std::env::var_os("SKILLPKG_S3_SERVER")
        .map(PathBuf::from)
        .or_else(|| {
            Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/s3s-fs/bin/s3s-fs"))
        })
        .filter(|path| path.is_file())
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Runs `command` (as the `postgres` user when this is root) and panics with its output if
/// it fails.
fn checked(program: &Path, args: &[&str]) {
    let mut command = as_postgres(program);
    let output = command.args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{} failed: {}{}",
        program.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn as_postgres(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("setpriv");
        command
            .args([
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                "--",
            ])
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// Starts `command` under a watchdog: when this process ends, the watchdog stops it with
/// `signal` and removes `folder`.
#[expect(
    clippy::zombie_processes,
    reason = "the watchdog outlives the tests on purpose, and reaps its own child"
)]
fn watched(command: &[String], signal: &str, folder: &Path) {
    let script = format!(
        r#""$@" & child=$!
while kill -0 {parent} 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 0.5; done
kill -{signal} $child 2>/dev/null; wait $child; rm -rf '{folder}'"#,
        parent = std::process::id(),
        folder = folder.display()
    );
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("watchdog")
        .args(command)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start a watchdog");
}

fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn start() -> Option<Services> {
    let dirs = postgres_bin_dirs();
    let (Some(initdb), Some(postgres), Some(s3)) =
        (find("initdb", &dirs), find("postgres", &dirs), s3_server())
    else {
        return None;
    };
    // PostgreSQL: a throwaway cluster, trust authentication on loopback only.
    let folder = tempfile::Builder::new()
        .prefix("skillpkg-pg-")
        .tempdir()
        .unwrap()
        .keep();
    let cluster = folder.join("cluster");
    if is_root() {
        std::os::unix::fs::chown(&folder, Some(postgres_uid()), None).unwrap();
    }
    let cluster_text = cluster.to_string_lossy().into_owned();
    checked(
        &initdb,
        &[
            "-D",
            &cluster_text,
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ],
    );
    let port = free_port();
    let mut server = vec![];
    if is_root() {
        server.extend(
            [
                "setpriv",
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                "--",
            ]
            .map(str::to_owned),
        );
    }
    server.push(postgres.to_string_lossy().into_owned());
    for argument in [
        "-D".to_owned(),
        cluster_text.clone(),
        "-p".to_owned(),
        port.to_string(),
        "-k".to_owned(),
        folder.to_string_lossy().into_owned(),
        "-c".to_owned(),
        "listen_addresses=127.0.0.1".to_owned(),
        "-c".to_owned(),
        "max_connections=300".to_owned(),
        // Throwaway data: durability is not under test here, speed is welcome.
        "-c".to_owned(),
        "fsync=off".to_owned(),
    ] {
        server.push(argument);
    }
    // SIGINT: PostgreSQL's fast shutdown.
    watched(&server, "INT", &folder);
    wait_for_port(port, "PostgreSQL");
    // S3: one bucket, a folder in the server's root.
    let s3_root = tempfile::Builder::new()
        .prefix("skillpkg-s3-")
        .tempdir()
        .unwrap()
        .keep();
    fs_err::create_dir_all(s3_root.join(S3_BUCKET)).unwrap();
    let s3_port = free_port();
    watched(
        &[
            s3.to_string_lossy().into_owned(),
            "--host".to_owned(),
            "127.0.0.1".to_owned(),
            "--port".to_owned(),
            s3_port.to_string(),
            "--access-key".to_owned(),
            S3_KEY.to_owned(),
            "--secret-key".to_owned(),
            S3_SECRET.to_owned(),
            s3_root.to_string_lossy().into_owned(),
        ],
        "TERM",
        &s3_root,
    );
    wait_for_port(s3_port, "the S3 server");
    Some(Services {
        postgres_port: port,
        s3_endpoint: format!("http://127.0.0.1:{s3_port}"),
        s3_root,
    })
}

fn postgres_uid() -> u32 {
    let output = Command::new("id")
        .args(["-u", "postgres"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap()
}

/// The shared servers, or `None` (with a message) when their binaries are missing and they
/// are not required.
#[allow(
    clippy::print_stderr,
    reason = "the skip must be seen in the test output"
)]
pub(crate) fn services(test: &str) -> Option<&'static Services> {
    static SERVICES: OnceLock<Option<Services>> = OnceLock::new();
    let found = SERVICES.get_or_init(start).as_ref();
    if found.is_none() {
        assert!(
            std::env::var("SKILLPKG_REQUIRE_SCALED").as_deref() != Ok("1"),
            "{test}: PostgreSQL's initdb/postgres or the S3 server is missing and \
             SKILLPKG_REQUIRE_SCALED=1: install Debian's `postgresql`, and run .ci/run once \
             (it installs s3s-fs into target/tools)"
        );
        eprintln!(
            "skipping {test} on PostgreSQL + S3: install Debian's `postgresql` and s3s-fs \
             (`.ci/run` does both; SKILLPKG_REQUIRE_SCALED=1 makes this a failure)"
        );
    }
    found
}

impl Services {
    /// A new, empty database and S3 prefix for one registry.
    pub(crate) fn fresh(&self) -> Scaled {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let number = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("registry_{number}");
        let mut admin = postgres::Client::connect(
            &format!(
                "host=127.0.0.1 port={} user=postgres dbname=postgres",
                self.postgres_port
            ),
            postgres::NoTls,
        )
        .expect("connect to the test PostgreSQL");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        Scaled {
            database: format!(
                "postgres://postgres@127.0.0.1:{}/{name}",
                self.postgres_port
            ),
            blobs: format!("s3://{S3_BUCKET}/{name}"),
            blob_root: self.s3_root.join(S3_BUCKET).join(&name),
            env: vec![
                ("AWS_ENDPOINT_URL".into(), self.s3_endpoint.clone()),
                ("AWS_ACCESS_KEY_ID".into(), S3_KEY.into()),
                ("AWS_SECRET_ACCESS_KEY".into(), S3_SECRET.into()),
                ("AWS_REGION".into(), "us-east-1".into()),
            ],
        }
    }
}
