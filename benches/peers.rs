//! The two fastest peer tools (`docs/research/peers.md` §8), installed on demand under the cargo
//! target dir, and the process timer every section of the validate benchmark shares.
//!
//! - `agent-skills` 0.5.0 (crates.io `agent-skills-cli`): `cargo install --locked --root
//!   <target>/peers/cargo agent-skills-cli@0.5.0`, capped at 10 minutes. It runs the `cargo` that
//!   runs the benchmark, directly; set `SKILLPKG_BENCH_FLOCK` to run it under
//!   `flock /tmp/skillpkg-cargo.lock` instead (or under `flock PATH` when the variable holds a
//!   path), for a bench started outside the lock on a machine whose builds share one. Never set
//!   it when the bench itself runs under that lock: the install would wait for it forever.
//! - `agnix` 0.59.3 (`PyPI`): `python3 -m venv <target>/peers/agnix` and `pip install
//!   agnix==0.59.3` into it, capped at 5 minutes. Run it with `--config <target>/peers/agnix.toml`
//!   (see [`Agnix::config`]): by default it excludes `target/**` of the repository around the
//!   path, which is where the corpus is, and then checks no file at all and exits 0 in 70 ms.
//!
//! An install is skipped when the binary is there and reports the pinned version. One that fails
//! (offline, no `cargo`, no `python3`) prints `skipped PEER: REASON` and that peer is left out.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The crate and version of the Rust peer, and the name of its binary.
const AGENT_SKILLS_CRATE: &str = "agent-skills-cli";
pub(crate) const AGENT_SKILLS_VERSION: &str = "0.5.0";
/// The `PyPI` package and version of agnix (the latest on 2026-12-01).
pub(crate) const AGNIX_VERSION: &str = "0.59.3";
const CARGO_INSTALL_CAP: Duration = Duration::from_secs(600);
const PIP_INSTALL_CAP: Duration = Duration::from_secs(300);
/// The lock the machine's cargo builds share, for `SKILLPKG_BENCH_FLOCK=1`.
const DEFAULT_LOCK: &str = "/tmp/skillpkg-cargo.lock";

/// The installed peers; `None` for one that could not be installed.
pub(crate) struct Peers {
    /// `agent-skills`, from `agent-skills-cli` on crates.io.
    pub(crate) agent_skills: Option<PathBuf>,
    /// `agnix`, from `PyPI`.
    pub(crate) agnix: Option<Agnix>,
}

pub(crate) struct Agnix {
    pub(crate) binary: PathBuf,
    /// A configuration with `exclude = []`, to pass as `--config`: agnix's default excludes
    /// `node_modules/**`, `.git/**` and `target/**` under the project root (the enclosing git
    /// repository), so without it every skill of a corpus in the cargo target dir is skipped.
    pub(crate) config: PathBuf,
}

/// Installs both peers under `<target_dir>/peers/` unless they are there already.
pub(crate) fn install(target_dir: &Path) -> Peers {
    let root = target_dir.join("peers");
    let _ = fs_err::create_dir_all(&root);
    let agent_skills = install_agent_skills(&root).map_err(|reason| {
        eprintln!("skipped agent-skills-cli: {reason}");
    });
    let agnix = install_agnix(&root).map_err(|reason| {
        eprintln!("skipped agnix: {reason}");
    });
    Peers {
        agent_skills: agent_skills.ok(),
        agnix: agnix.ok(),
    }
}

fn install_agent_skills(root: &Path) -> Result<PathBuf, String> {
    let cargo_root = root.join("cargo");
    let binary = cargo_root.join("bin/agent-skills");
    let wanted = format!("agent-skills {AGENT_SKILLS_VERSION}");
    if reports_version(&binary, &wanted) {
        return Ok(binary);
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = match std::env::var_os("SKILLPKG_BENCH_FLOCK") {
        Some(lock) => {
            let lock = lock.to_string_lossy();
            let lock = if lock.contains('/') {
                lock.into_owned()
            } else {
                DEFAULT_LOCK.to_owned()
            };
            let mut command = Command::new("flock");
            command.arg(lock).arg(&cargo);
            command
        }
        None => Command::new(&cargo),
    };
    command
        .args(["install", "--locked", "--root"])
        .arg(&cargo_root)
        .arg(format!("{AGENT_SKILLS_CRATE}@{AGENT_SKILLS_VERSION}"));
    let log = root.join("agent-skills-install.log");
    eprintln!(
        "installing {AGENT_SKILLS_CRATE} {AGENT_SKILLS_VERSION} into {} (log: {}) …",
        cargo_root.display(),
        log.display()
    );
    run_logged(command, &log, CARGO_INSTALL_CAP)?;
    if reports_version(&binary, &wanted) {
        Ok(binary)
    } else {
        Err(format!("{} does not report {wanted}", binary.display()))
    }
}

fn install_agnix(root: &Path) -> Result<Agnix, String> {
    let venv = root.join("agnix");
    let binary = venv.join("bin/agnix");
    let config = root.join("agnix.toml");
    fs_err::write(&config, "exclude = []\n").map_err(|error| error.to_string())?;
    let wanted = format!("agnix {AGNIX_VERSION}");
    if reports_version(&binary, &wanted) {
        return Ok(Agnix { binary, config });
    }
    let log = root.join("agnix-install.log");
    eprintln!(
        "installing agnix {AGNIX_VERSION} into {} (log: {}) …",
        venv.display(),
        log.display()
    );
    if !venv.join("bin/pip").exists() {
        let mut command = Command::new("python3");
        command.args(["-m", "venv"]).arg(&venv);
        run_logged(command, &log, PIP_INSTALL_CAP).map_err(|error| format!("python3 {error}"))?;
    }
    let mut command = Command::new(venv.join("bin/pip"));
    command
        .args(["install", "--disable-pip-version-check", "--timeout", "30"])
        .arg(format!("agnix=={AGNIX_VERSION}"));
    run_logged(command, &log, PIP_INSTALL_CAP).map_err(|error| format!("pip {error}"))?;
    if reports_version(&binary, &wanted) {
        Ok(Agnix { binary, config })
    } else {
        Err(format!("{} does not report {wanted}", binary.display()))
    }
}

/// Whether `binary --version` prints `wanted`.
fn reports_version(binary: &Path, wanted: &str) -> bool {
    binary.exists()
        && Command::new(binary)
            .arg("--version")
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == wanted)
}

/// Runs `command` with its output appended to `log`, killed after `cap`; the error is one line.
fn run_logged(mut command: Command, log: &Path, cap: Duration) -> Result<(), String> {
    let file = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|error| error.to_string())?;
    let (stdout, stderr) = (
        file.file().try_clone().map_err(|error| error.to_string())?,
        file.into_file(),
    );
    let mut child = command
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .map_err(|error| format!("could not start: {error}"))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let last = fs_err::read_to_string(log)
                    .ok()
                    .and_then(|text| {
                        text.lines()
                            .rev()
                            .find(|line| !line.trim().is_empty())
                            .map(|line| line.trim().to_owned())
                    })
                    .unwrap_or_default();
                return Err(format!("failed ({status}): {last}"));
            }
            Ok(None) if started.elapsed() > cap => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", cap.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(200)),
            Err(error) => return Err(error.to_string()),
        }
    }
}

/// One run of a command.
#[derive(Clone, Copy)]
pub(crate) struct Sample {
    /// Wall seconds, from spawn to exit.
    pub(crate) wall: f64,
    /// User + system CPU seconds.
    pub(crate) cpu: Option<f64>,
    /// Peak resident set, KiB.
    pub(crate) peak_kib: Option<u64>,
    pub(crate) exit: Option<i32>,
}

/// Runs `program` with `args` once, output discarded, under `/usr/bin/time` when it is
/// installed (CPU and peak memory; else those are `None`). `/usr/bin/time` adds about a
/// millisecond to the wall time and reports CPU in steps of 10 ms: fine for a tree of skills,
/// not for one skill (see [`measure_direct`]).
pub(crate) fn measure(program: &Path, args: &[&str]) -> Sample {
    let time_binary = Path::new("/usr/bin/time");
    if !time_binary.exists() {
        return measure_direct(program, args);
    }
    let report = std::env::temp_dir().join(format!("skillpkg-bench-time-{}", std::process::id()));
    let mut command = Command::new(time_binary);
    command
        .args(["-f", "%e %U %S %M", "-o"])
        .arg(&report)
        .arg(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let started = Instant::now();
    let status = command.status().expect("run the command");
    let wall = started.elapsed().as_secs_f64();
    // `time` writes "Command exited with non-zero status N" first when it is not 0.
    let fields: Vec<String> = fs_err::read_to_string(&report)
        .ok()
        .and_then(|text| text.lines().last().map(str::to_owned))
        .map(|line| line.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    let _ = fs_err::remove_file(&report);
    let field = |index: usize| fields.get(index).and_then(|text| text.parse::<f64>().ok());
    Sample {
        wall,
        cpu: field(1).zip(field(2)).map(|(user, system)| user + system),
        peak_kib: fields.get(3).and_then(|text| text.parse().ok()),
        exit: status.code(),
    }
}

/// Runs `program` with `args` once, output discarded, with no wrapper: the wall time is the
/// command's own, and CPU is the growth of this process's reaped-children CPU time
/// (`/proc/self/stat`, in clock ticks: average it over many runs). No peak memory.
pub(crate) fn measure_direct(program: &Path, args: &[&str]) -> Sample {
    let before = children_cpu();
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run the command");
    let wall = started.elapsed().as_secs_f64();
    let after = children_cpu();
    Sample {
        wall,
        cpu: before.zip(after).map(|(before, after)| after - before),
        peak_kib: None,
        exit: status.code(),
    }
}

/// User + system CPU seconds of every child this process has waited for (Linux).
fn children_cpu() -> Option<f64> {
    let stat = fs_err::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses: state is field 3, cutime 16,
    // cstime 17.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(13);
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    Some((user + system) / clock_ticks())
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 on every Linux this runs on).
pub(crate) fn clock_ticks() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|output| String::from_utf8_lossy(&output.stdout).trim().parse().ok())
            .filter(|ticks: &f64| *ticks > 0.0)
            .unwrap_or(100.0)
    })
}

/// The median of `values` (0 when empty).
pub(crate) fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.into_iter().collect();
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The mean of `values`, `None` when empty.
pub(crate) fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, count) = values
        .into_iter()
        .fold((0.0, 0usize), |(sum, count), value| {
            (sum + value, count + 1)
        });
    (count > 0).then(|| sum / count as f64)
}
