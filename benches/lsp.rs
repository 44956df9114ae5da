//! `cargo bench --bench lsp`: how fast `skillpkg lsp` answers an editor in a large workspace.
//!
//! ```text
//! cargo bench --bench lsp -- [--skills N] [--edits N] [--hovers N] [--starts N] [--runs R]
//!                            [--keep] [--binary PATH] [--wrap "CMD ARGS"]
//! ```
//!
//! The targets (the language server's issue), on a 2-core machine: after an edit to a 500-line
//! SKILL.md in a folder of 1,000 skills, diagnostics are published in under 10 ms (median) and
//! hovers answer in under 5 ms (median); the server's memory for 1,000 skills stays under
//! 64 MiB.
//!
//! 1. Generates a Claude Code project in a temporary folder (deterministic): N skills (default
//!    1,000) under `.claude/skills/<name>/SKILL.md`, with varied descriptions (a few near
//!    duplicates among them, for `similar-descriptions`; together they are over Claude Code's
//!    listing budget, for `listing-over-budget`), short bodies and, for some, a reference file;
//!    and one skill whose SKILL.md is 500 lines long (headings, lists, code fences, tables,
//!    links to reference files and a script that exist).
//! 2. Drives the release binary over pipes, as an editor does: `initialize` with the project as
//!    the workspace folder and no `general.positionEncodings` (UTF-16), `initialized`,
//!    `didOpen` of the 500-line SKILL.md, then waits for its first `publishDiagnostics` (the
//!    server lints all N skills at start). That is the start, timed `--starts` times (default
//!    5) in fresh servers.
//! 3. In one server: `--edits` (default 200) incremental `didChange`s in the body, alternately
//!    inserting and removing `TODO: ` at the start of a prose line (each flags or clears
//!    `placeholder-text`, so each changes the diagnostics and is published), each timed from
//!    the write of the change to the arrival of the `publishDiagnostics` of its version; then
//!    as many in the description. Then `--hovers` (default 200) hovers on the description (the
//!    dearest: it builds Claude Code's listing of every skill in the folder) and as many on a
//!    frontmatter key, each timed from the write of the request to its answer.
//! 4. The server's CPU (user + system, `/proc/<pid>/stat`) over each loop, divided by the loop's
//!    length, and its memory at the end (`VmHWM`, the peak, and `VmRSS`, `/proc/<pid>/status`).
//! 5. Baselines timed in the same run, half before the server's loops and half after:
//!    `skillpkg lint <project>` (the CLI does from scratch what the server avoids) `--runs`
//!    times (default 10), and `skillpkg lint <the 500-line skill's folder>` (one skill alone)
//!    five times as often; wall from unwrapped runs, CPU as the growth of this process's reaped
//!    children's CPU (in clock ticks: the one-skill CPU is a mean). Each server figure is shown
//!    as a ratio to both.
//!
//! `--keep` keeps the generated project (its path is printed). `--binary PATH` drives another
//! `skillpkg` (say `target/profiling/skillpkg`, built with `cargo build --profile profiling`,
//! which has debug info) for the server and the baselines. `--wrap "CMD ARGS"` starts the
//! server as `CMD ARGS skillpkg lsp` (say `valgrind --tool=callgrind` or `perf record -g`), for
//! a profile of a shorter loop; the targets are then not judged (and the CPU and memory read
//! are the wrapper's process's: valgrind's is the server's own, perf's is not).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss
)]

// The validate benchmark's process timer and its corpus's random numbers; the rest of them
// (installing peers, the corpus generators) is not used here.
#[allow(dead_code)]
mod corpus;
#[allow(dead_code)]
mod peers;

use corpus::Rng;

use std::fmt::Write as _;
use std::io::{BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lsp_server::{Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

/// Published diagnostics after an edit, median: under this many milliseconds.
const EDIT_TARGET_MS: f64 = 10.0;
/// A hover's answer, median: under this many milliseconds.
const HOVER_TARGET_MS: f64 = 5.0;
/// The server's memory for 1,000 skills: under this many MiB.
const MEMORY_TARGET_MIB: f64 = 64.0;
const TARGET_SKILLS: usize = 1_000;
/// Lines of the SKILL.md the editor has open, frontmatter included.
const BIG_LINES: usize = 500;
/// Longest wait for one message from the server.
const PATIENCE: Duration = Duration::from_secs(120);
/// What each edit inserts and then removes: `placeholder-text` flags it.
const PLACEHOLDER: &str = "TODO: ";

struct Options {
    skills: usize,
    edits: usize,
    hovers: usize,
    starts: usize,
    runs: usize,
    keep: bool,
    binary: Option<PathBuf>,
    wrap: Vec<String>,
}

fn options() -> Options {
    let mut options = Options {
        skills: TARGET_SKILLS,
        edits: 200,
        hovers: 200,
        starts: 5,
        runs: 10,
        keep: false,
        binary: None,
        wrap: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> usize {
            args.next()
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match arg.as_str() {
            "--skills" => options.skills = number("--skills").max(2),
            // Even, so that the document ends as it started.
            "--edits" => options.edits = (number("--edits") / 2 * 2).max(2),
            "--hovers" => options.hovers = number("--hovers").max(1),
            "--starts" => options.starts = number("--starts").max(1),
            "--runs" => options.runs = number("--runs").max(2),
            "--keep" => options.keep = true,
            "--binary" => {
                // Absolute: the server starts in the generated project.
                let binary = args.next().expect("--binary needs a skillpkg binary");
                options.binary = Some(std::path::absolute(&binary).expect("the path of --binary"));
            }
            "--wrap" => {
                options.wrap = args
                    .next()
                    .expect("--wrap needs a command")
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect();
            }
            // `cargo bench` passes `--bench`; ignore what is not ours.
            _ => {}
        }
    }
    options
}

#[allow(clippy::too_many_lines)] // one report, printed top to bottom
fn main() {
    let options = options();
    let skillpkg = options
        .binary
        .as_deref()
        .unwrap_or(Path::new(env!("CARGO_BIN_EXE_skillpkg")));
    let temp = tempfile::Builder::new()
        .prefix("skillpkg-bench-lsp-")
        .tempdir()
        .expect("a temporary folder");
    let project = temp.path().to_path_buf();
    let started = Instant::now();
    let corpus = generate(&project, options.skills).expect("generate the project");
    eprintln!(
        "generated {} skills in {} ({:.1} s)",
        options.skills,
        project.display(),
        started.elapsed().as_secs_f64()
    );
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "\nskillpkg lsp benchmark: a Claude Code project of {} skills ({} files), the open SKILL.md {} lines ({} bytes), {cores} cores\n",
        options.skills,
        corpus.files,
        corpus.big_text.lines().count(),
        corpus.big_text.len(),
    );
    findings(skillpkg, &project);

    let project_str = project.to_str().expect("a UTF-8 path");
    let big_dir = corpus.big_file.parent().expect("a skill folder");
    let big_str = big_dir.to_str().expect("a UTF-8 path");
    let whole_args = ["lint", project_str];
    let one_args = ["lint", big_str];
    let mut whole: Vec<peers::Sample> = Vec::new();
    let mut one: Vec<peers::Sample> = Vec::new();
    let baselines = |whole: &mut Vec<peers::Sample>, one: &mut Vec<peers::Sample>, runs: usize| {
        // Alternate the two, so that drift favours neither.
        for _ in 0..runs {
            whole.push(peers::measure_direct(skillpkg, &whole_args));
            for _ in 0..5 {
                one.push(peers::measure_direct(skillpkg, &one_args));
            }
        }
    };
    // A warm-up of each, then the first half.
    peers::measure_direct(skillpkg, &whole_args);
    peers::measure_direct(skillpkg, &one_args);
    let lint_peak = peers::measure(skillpkg, &whole_args).peak_kib;
    baselines(&mut whole, &mut one, options.runs / 2);

    // The start, in fresh servers.
    let mut starts = Vec::new();
    for _ in 0..options.starts.saturating_sub(1) {
        let (mut server, start) = Server::start(skillpkg, &options.wrap, &project, &corpus);
        starts.push(start);
        server.stop();
    }
    let (mut server, start) = Server::start(skillpkg, &options.wrap, &project, &corpus);
    starts.push(start);
    let after_start = server.memory();

    // Edits in the body, then in the description.
    let mut version = 1;
    let body_edits = server.edits(
        corpus.body_line,
        0,
        options.edits,
        &mut version,
        start.diagnostics,
    );
    let description_edits = server.edits(
        corpus.description_line,
        corpus.description_column,
        options.edits,
        &mut version,
        start.diagnostics,
    );
    // Hovers: on the description's text (Claude Code's listing), then on the key `name`.
    let listing_hover = server.hovers(
        corpus.description_line,
        corpus.description_column + 3,
        options.hovers,
        "What Claude Code",
    );
    let key_hover = server.hovers(1, 1, options.hovers, "`name`");
    let memory = server.memory();
    server.stop();

    baselines(&mut whole, &mut one, options.runs - options.runs / 2);
    let whole = Baseline::of(&whole, false);
    let one = Baseline::of(&one, true);

    // The table.
    let start_walls: Vec<f64> = starts.iter().map(|start| start.wall).collect();
    let start_cpu = peers::median(starts.iter().map(|start| start.cpu));
    let rows = [
        (
            format!(
                "start: spawn → first `publishDiagnostics` ({} skills linted), {} starts",
                options.skills,
                starts.len()
            ),
            Spread::of(&start_walls),
            start_cpu,
        ),
        (
            format!(
                "edit in the body (`didChange` → its `publishDiagnostics`), {} edits",
                body_edits.walls.len()
            ),
            Spread::of(&body_edits.walls),
            body_edits.cpu,
        ),
        (
            format!(
                "edit in the description (`didChange` → its `publishDiagnostics`), {} edits",
                description_edits.walls.len()
            ),
            Spread::of(&description_edits.walls),
            description_edits.cpu,
        ),
        (
            "… the same body edits, to every finding (rules across skills included: a `codeAction` answered)".to_owned(),
            Spread::of(&body_edits.settled),
            body_edits.cpu,
        ),
        (
            "… the same description edits, to every finding (rules across skills included: a `codeAction` answered)".to_owned(),
            Spread::of(&description_edits.settled),
            description_edits.cpu,
        ),
        (
            format!(
                "hover on the description (Claude Code's listing of {} skills), {} hovers",
                options.skills,
                listing_hover.walls.len()
            ),
            Spread::of(&listing_hover.walls),
            listing_hover.cpu,
        ),
        (
            format!(
                "hover on a frontmatter key (`name`), {} hovers",
                key_hover.walls.len()
            ),
            Spread::of(&key_hover.walls),
            key_hover.cpu,
        ),
    ];
    println!(
        "\n## skillpkg lsp, same run\n\nWall: median / p90 / max of each request's round trip over the pipes. CPU: the server's user + system time over the loop ÷ its length (for starts, the median per start). Baselines, interleaved, half before the server's loops and half after: `skillpkg lint PROJECT` (whole project, {} runs) and `skillpkg lint SKILL-FOLDER` (the 500-line skill alone, {} runs). Ratio = server figure ÷ baseline (below 1: the server is faster). Absolute figures are on this machine.\n",
        whole.runs, one.runs
    );
    println!(
        "| work | wall median / p90 / max | server CPU | ÷ lint whole project (wall, CPU) | ÷ lint one skill (wall, CPU) |"
    );
    println!("|---|---|---|---|---|");
    for (label, spread, cpu) in &rows {
        println!(
            "| {label} | {} / {} / {} | {} | {:.3}×, {:.3}× | {:.2}×, {:.2}× |",
            ms(spread.median),
            ms(spread.p90),
            ms(spread.max),
            ms(*cpu),
            spread.median / whole.wall,
            cpu / whole.cpu,
            spread.median / one.wall,
            cpu / one.cpu,
        );
    }
    for (label, baseline) in [
        (
            format!(
                "baseline: `skillpkg lint PROJECT` ({} skills)",
                options.skills
            ),
            &whole,
        ),
        (
            "baseline: `skillpkg lint SKILL-FOLDER` (the 500-line skill)".to_owned(),
            &one,
        ),
    ] {
        println!(
            "| {label} | {} / {} / {} | {} (this process's) | | |",
            ms(baseline.wall),
            ms(baseline.spread.p90),
            ms(baseline.spread.max),
            ms(baseline.cpu),
        );
    }
    println!(
        "\nserver memory: after the start VmRSS {} (VmHWM {}); at the end VmRSS {}, VmHWM (peak) {}. `skillpkg lint PROJECT` peak RSS: {}.",
        mib(after_start.rss),
        mib(after_start.hwm),
        mib(memory.rss),
        mib(memory.hwm),
        lint_peak.map_or("n/a (no /usr/bin/time)".to_owned(), mib),
    );
    println!(
        "diagnostics on the open SKILL.md: {} at the start; each edit moved them to {} and back (body) and {} and back (description).",
        start.diagnostics, body_edits.flagged, description_edits.flagged
    );

    if options.wrap.is_empty() && options.binary.is_none() && options.skills == TARGET_SKILLS {
        let verdict = |met: bool| if met { "met" } else { "NOT met" };
        let edit = Spread::of(&body_edits.walls).median * 1000.0;
        let edit_description = Spread::of(&description_edits.walls).median * 1000.0;
        let hover = Spread::of(&listing_hover.walls).median * 1000.0;
        let hover_key = Spread::of(&key_hover.walls).median * 1000.0;
        let peak = memory.hwm as f64 / 1024.0;
        println!("\ntargets ({TARGET_SKILLS} skills, a {BIG_LINES}-line SKILL.md open):");
        let settled = Spread::of(&body_edits.settled).median * 1000.0;
        let settled_description = Spread::of(&description_edits.settled).median * 1000.0;
        println!(
            "- diagnostics after an edit, median < {EDIT_TARGET_MS} ms: {} (body {edit:.2} ms, description {edit_description:.2} ms: the edited file's own findings)",
            verdict(edit.max(edit_description) < EDIT_TARGET_MS)
        );
        println!(
            "- every finding, rules across skills included, median < {EDIT_TARGET_MS} ms: {} (body {settled:.2} ms, description {settled_description:.2} ms)",
            verdict(settled.max(settled_description) < EDIT_TARGET_MS)
        );
        println!(
            "- hover, median < {HOVER_TARGET_MS} ms: {} (description {hover:.2} ms, key {hover_key:.2} ms)",
            verdict(hover.max(hover_key) < HOVER_TARGET_MS)
        );
        println!(
            "- server memory < {MEMORY_TARGET_MIB} MiB: {} (peak VmHWM {peak:.1} MiB)",
            verdict(peak < MEMORY_TARGET_MIB)
        );
    }
    if options.keep {
        let kept = temp.keep();
        println!("\nthe project is kept in {}", kept.display());
    }
}

fn ms(seconds: f64) -> String {
    format!("{:.2} ms", seconds * 1000.0)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// Median, 90th percentile and maximum of some seconds.
#[derive(Clone, Copy)]
struct Spread {
    median: f64,
    p90: f64,
    max: f64,
}

impl Spread {
    fn of(values: &[f64]) -> Spread {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        if sorted.is_empty() {
            return Spread {
                median: 0.0,
                p90: 0.0,
                max: 0.0,
            };
        }
        let p90 = (sorted.len() * 9).div_ceil(10).max(1) - 1;
        Spread {
            median: sorted[sorted.len() / 2],
            p90: sorted[p90],
            max: sorted[sorted.len() - 1],
        }
    }
}

/// A CLI baseline's figures.
struct Baseline {
    runs: usize,
    spread: Spread,
    wall: f64,
    cpu: f64,
}

impl Baseline {
    /// Median wall; CPU the median, or the mean when `mean_cpu` (short runs, clock ticks).
    fn of(samples: &[peers::Sample], mean_cpu: bool) -> Baseline {
        let walls: Vec<f64> = samples.iter().map(|sample| sample.wall).collect();
        let cpus = samples.iter().filter_map(|sample| sample.cpu);
        let cpu = if mean_cpu {
            peers::mean(cpus).unwrap_or_default()
        } else {
            peers::median(cpus)
        };
        let spread = Spread::of(&walls);
        Baseline {
            runs: samples.len(),
            spread,
            wall: spread.median,
            cpu,
        }
    }
}

/// What `skillpkg lint --format json` finds in the project, by rule: the corpus is meant to
/// look like a real one, with a few findings, not to be clean or broken everywhere.
fn findings(skillpkg: &Path, project: &Path) {
    let output = Command::new(skillpkg)
        .args(["lint", "--format", "json"])
        .arg(project)
        .stderr(Stdio::null())
        .output()
        .expect("run skillpkg lint");
    let report: Value = serde_json::from_slice(&output.stdout).expect("lint's JSON report");
    let mut by_rule: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut skills = 0;
    for skill in report["skills"].as_array().into_iter().flatten() {
        skills += 1;
        for diagnostic in skill["diagnostics"].as_array().into_iter().flatten() {
            let rule = diagnostic["rule"]
                .as_str()
                .or_else(|| diagnostic["code"].as_str())
                .unwrap_or("?");
            *by_rule.entry(rule.to_owned()).or_default() += 1;
        }
    }
    let listed: Vec<String> = by_rule
        .iter()
        .map(|(rule, count)| format!("{rule} ×{count}"))
        .collect();
    println!(
        "`skillpkg lint PROJECT` finds {skills} skills; findings: {}",
        if listed.is_empty() {
            "none".to_owned()
        } else {
            listed.join(", ")
        }
    );
}

// ---------------------------------------------------------------------------------------------
// The server, over pipes.

/// One server process, with a thread that reads its messages and stamps their arrival.
struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<(Instant, Message)>,
    next_id: i32,
    uri: String,
}

#[derive(Clone, Copy)]
struct Start {
    wall: f64,
    cpu: f64,
    diagnostics: usize,
}

/// The figures of one loop of edits or hovers.
struct Loop {
    walls: Vec<f64>,
    /// From each change to the answer of a `codeAction` request sent once its diagnostics
    /// arrived: the server answers actions only once the rules across skills have run again,
    /// so this is the change's whole cost, those rules included.
    settled: Vec<f64>,
    /// The server's CPU over the loop ÷ its length.
    cpu: f64,
    /// Diagnostics on the open file after an inserting edit.
    flagged: usize,
}

struct Memory {
    hwm: u64,
    rss: u64,
}

impl Server {
    /// Spawns a server in `project`, opens the big SKILL.md and waits for its diagnostics.
    fn start(skillpkg: &Path, wrap: &[String], project: &Path, corpus: &Corpus) -> (Server, Start) {
        let mut command = if let Some((program, args)) = wrap.split_first() {
            let mut command = Command::new(program);
            command.args(args).arg(skillpkg);
            command
        } else {
            Command::new(skillpkg)
        };
        let started = Instant::now();
        let mut child = command
            .arg("lsp")
            .current_dir(project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start skillpkg lsp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Ok(Some(message)) = Message::read(&mut reader) {
                if sender.send((Instant::now(), message)).is_err() {
                    break;
                }
            }
        });
        let uri = file_uri(&corpus.big_file);
        let mut server = Server {
            child,
            stdin,
            messages,
            next_id: 0,
            uri,
        };
        let root = file_uri(project);
        let initialize = json!({
            "processId": std::process::id(),
            "rootUri": root,
            "capabilities": {
                "textDocument": {
                    "publishDiagnostics": { "versionSupport": true },
                    "hover": { "contentFormat": ["markdown", "plaintext"] },
                    "synchronization": { "didSave": true }
                },
                "workspace": { "workspaceFolders": true }
            },
            "workspaceFolders": [{ "uri": root, "name": "bench" }],
        });
        server.request("initialize", initialize);
        server.notify("initialized", json!({}));
        server.notify(
            "textDocument/didOpen",
            json!({
                "textDocument": {
                    "uri": server.uri,
                    "languageId": "markdown",
                    "version": 1,
                    "text": corpus.big_text,
                }
            }),
        );
        let (at, diagnostics) = server.diagnostics(Some(1));
        let start = Start {
            wall: at.duration_since(started).as_secs_f64(),
            cpu: server.cpu(),
            diagnostics: diagnostics.len(),
        };
        (server, start)
    }

    fn send(&mut self, message: &Message) {
        message.write(&mut self.stdin).expect("write to the server");
        self.stdin.flush().expect("flush to the server");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&Message::Notification(Notification::new(
            method.to_owned(),
            params,
        )));
    }

    /// The next message; a request from the server is answered with `null`.
    fn receive(&mut self) -> (Instant, Message) {
        loop {
            let (at, message) = self
                .messages
                .recv_timeout(PATIENCE)
                .unwrap_or_else(|_| panic!("no message from the server in {PATIENCE:?}"));
            if let Message::Request(request) = &message {
                self.send(&Message::Response(Response::new_ok(
                    request.id.clone(),
                    Value::Null,
                )));
                continue;
            }
            return (at, message);
        }
    }

    /// Sends a request and waits for its answer: when it arrived, and its result.
    fn request(&mut self, method: &str, params: Value) -> (Instant, Value) {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(&Message::Request(Request::new(
            id.clone(),
            method.to_owned(),
            params,
        )));
        loop {
            if let (at, Message::Response(response)) = self.receive()
                && response.id == id
            {
                if let Some(error) = response.error {
                    panic!("`{method}` failed: {}", error.message);
                }
                return (at, response.result.unwrap_or(Value::Null));
            }
        }
    }

    /// Waits for the open file's `publishDiagnostics` of `version`.
    fn diagnostics(&mut self, version: Option<i64>) -> (Instant, Vec<Value>) {
        loop {
            let (at, message) = self.receive();
            let Message::Notification(notification) = message else {
                continue;
            };
            if notification.method != "textDocument/publishDiagnostics"
                || notification.params["uri"] != self.uri.as_str()
            {
                continue;
            }
            let published = notification.params["version"].as_i64();
            if version.is_none() || published == version {
                let diagnostics = notification.params["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                return (at, diagnostics);
            }
        }
    }

    /// `count` edits on `line` at `column`: insert [`PLACEHOLDER`], remove it, and so on, each
    /// timed to the diagnostics of its version.
    fn edits(
        &mut self,
        line: u32,
        column: u32,
        count: usize,
        version: &mut i32,
        clean: usize,
    ) -> Loop {
        let width = u32::try_from(PLACEHOLDER.encode_utf16().count()).expect("short");
        let mut walls = Vec::with_capacity(count);
        let mut settled = Vec::with_capacity(count);
        let mut flagged = 0;
        let before = self.cpu();
        for edit in 0..count {
            *version += 1;
            let insert = edit % 2 == 0;
            let change = if insert {
                json!({
                    "range": range(line, column, line, column),
                    "text": PLACEHOLDER,
                })
            } else {
                json!({
                    "range": range(line, column, line, column + width),
                    "text": "",
                })
            };
            let params = json!({
                "textDocument": { "uri": self.uri, "version": *version },
                "contentChanges": [change],
            });
            let sent = Instant::now();
            self.notify("textDocument/didChange", params);
            let (at, diagnostics) = self.diagnostics(Some(i64::from(*version)));
            walls.push(at.duration_since(sent).as_secs_f64());
            let (answered, _) = self.request(
                "textDocument/codeAction",
                json!({
                    "textDocument": { "uri": self.uri },
                    "range": range(0, 0, 0, 0),
                    "context": { "diagnostics": [], "only": ["quickfix"] },
                }),
            );
            settled.push(answered.duration_since(sent).as_secs_f64());
            if insert {
                flagged = diagnostics.len();
                assert!(
                    diagnostics.len() > clean,
                    "the placeholder was not flagged: {} diagnostics",
                    diagnostics.len()
                );
            } else {
                assert_eq!(diagnostics.len(), clean, "the placeholder's removal");
            }
        }
        let cpu = (self.cpu() - before) / count as f64;
        Loop {
            walls,
            settled,
            cpu,
            flagged,
        }
    }

    /// `count` hovers at a position; each answer must contain `expect`.
    fn hovers(&mut self, line: u32, character: u32, count: usize, expect: &str) -> Loop {
        let mut walls = Vec::with_capacity(count);
        let before = self.cpu();
        for _ in 0..count {
            let params = json!({
                "textDocument": { "uri": self.uri },
                "position": { "line": line, "character": character },
            });
            let sent = Instant::now();
            let (at, result) = self.request("textDocument/hover", params);
            walls.push(at.duration_since(sent).as_secs_f64());
            let text = result["contents"]["value"].as_str().unwrap_or_default();
            assert!(
                text.contains(expect),
                "the hover at {line}:{character} does not say {expect:?}: {result}"
            );
        }
        let cpu = (self.cpu() - before) / count as f64;
        Loop {
            walls,
            settled: Vec::new(),
            cpu,
            flagged: 0,
        }
    }

    /// The server's user + system CPU seconds so far (every thread).
    fn cpu(&self) -> f64 {
        let stat =
            fs_err::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .collect();
        let field = |index: usize| {
            fields
                .get(index)
                .and_then(|text| text.parse::<f64>().ok())
                .unwrap_or_default()
        };
        (field(11) + field(12)) / peers::clock_ticks()
    }

    /// `VmHWM` and `VmRSS`, KiB.
    fn memory(&self) -> Memory {
        let status =
            fs_err::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap_or_default()
        };
        Memory {
            hwm: field("VmHWM:"),
            rss: field("VmRSS:"),
        }
    }

    /// `shutdown`, `exit`, and waits for the process.
    fn stop(&mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let _ = self.child.wait();
    }
}

fn range(line: u32, start: u32, end_line: u32, end: u32) -> Value {
    json!({
        "start": { "line": line, "character": start },
        "end": { "line": end_line, "character": end },
    })
}

fn file_uri(path: &Path) -> String {
    lsp_types::Url::from_file_path(path)
        .expect("an absolute path")
        .to_string()
}

// ---------------------------------------------------------------------------------------------
// The project.

/// The generated project: where the open skill is, its text, and where the edits go.
struct Corpus {
    big_file: PathBuf,
    big_text: String,
    /// A prose line of the body (0-based), where body edits insert at column 0.
    body_line: u32,
    /// The description's line and the UTF-16 column where its text starts.
    description_line: u32,
    description_column: u32,
    files: usize,
}

/// (base form, third person).
const VERBS: &[(&str, &str)] = &[
    ("analyse", "Analyses"),
    ("audit", "Audits"),
    ("convert", "Converts"),
    ("review", "Reviews"),
    ("summarise", "Summarises"),
    ("extract", "Extracts"),
    ("validate", "Validates"),
    ("render", "Renders"),
    ("migrate", "Migrates"),
    ("format", "Formats"),
    ("deploy", "Deploys"),
    ("benchmark", "Benchmarks"),
    ("profile", "Profiles"),
    ("triage", "Triages"),
    ("archive", "Archives"),
    ("reconcile", "Reconciles"),
    ("translate", "Translates"),
    ("anonymise", "Anonymises"),
    ("schedule", "Schedules"),
    ("index", "Indexes"),
    ("lint", "Lints"),
    ("package", "Packages"),
    ("sign", "Signs"),
    ("monitor", "Monitors"),
    ("backfill", "Backfills"),
    ("deduplicate", "Deduplicates"),
    ("annotate", "Annotates"),
    ("classify", "Classifies"),
    ("compress", "Compresses"),
    ("diff", "Diffs"),
];
const NOUNS: &[&str] = &[
    "invoices",
    "server logs",
    "charts",
    "contracts",
    "JSON schemas",
    "support tickets",
    "release notes",
    "datasets",
    "architecture diagrams",
    "quarterly reports",
    "database migrations",
    "Terraform plans",
    "Kubernetes manifests",
    "pull requests",
    "CSV exports",
    "meeting transcripts",
    "API specs",
    "Dockerfiles",
    "SQL queries",
    "unit tests",
    "changelogs",
    "PDF forms",
    "spreadsheets",
    "email threads",
    "crash dumps",
    "feature flags",
    "translation catalogs",
    "lockfiles",
    "OpenAPI documents",
    "GraphQL schemas",
    "Helm charts",
    "CI pipelines",
    "incident postmortems",
    "user interviews",
    "Jupyter notebooks",
    "design exports",
    "audio recordings",
    "legal briefs",
    "payroll files",
    "shipping labels",
];
const TOOLS: &[&str] = &[
    "Stripe",
    "Datadog",
    "Snowflake",
    "GitHub",
    "Jira",
    "S3",
    "PostgreSQL",
    "Excel",
    "Google Sheets",
    "Salesforce",
    "BigQuery",
    "Slack",
    "Notion",
    "Confluence",
    "Grafana",
    "Sentry",
    "Airflow",
    "dbt",
    "Kafka",
    "Zendesk",
];
const EXTRAS: &[&str] = &[
    "flags anomalies before they reach production",
    "keeps the output consistent with the team's style guide",
    "writes a short summary with links to the sources",
    "checks totals against the ledger",
    "groups the failures by root cause",
    "redacts personal data before anything is shared",
    "produces a diff that reviewers can read in one pass",
    "estimates the cost of each change",
    "records every decision in a log file",
    "highlights breaking changes and who they affect",
    "suggests owners from the commit history",
    "compares this week's numbers with last week's",
    "builds a checklist for the on-call engineer",
    "rejects entries with missing or malformed fields",
    "converts currencies at the day's published rate",
    "renames fields to the warehouse's naming scheme",
    "notes which steps can be rolled back",
    "picks a sample for manual spot checks",
    "tags each item with a severity from one to four",
    "exports the result as Markdown and CSV",
    "waits for approval before writing anything",
    "retries flaky steps at most three times",
    "links each finding to the line it comes from",
    "drafts a reply the user can edit before sending",
    "orders the work by risk, highest first",
];
const TRIGGERS: &[&str] = &[
    "Use when the user asks to {verb} {noun}",
    "Use when working with {noun} in {tool}",
    "Use when a task mentions {noun} from {tool} or asks for a {verb} pass",
    "Use when the user pastes {noun} and wants them checked",
    "Use for {noun} stored in {tool}",
];
const LATER: &[&str] = &[
    "Works offline.",
    "Supports batches of up to 500 files.",
    "Needs read access to {tool}.",
    "Never edits the originals.",
    "Prints a one-line verdict first.",
    "Handles files in UTF-8 and UTF-16.",
];
const PROSE: &[&str] = &[
    "Read the input once and keep a list of what you have already checked.",
    "Stop and ask when a value is ambiguous; never guess an amount or a date.",
    "Keep the original file untouched and write every change to a new one.",
    "Prefer the smallest change that fixes the problem over a rewrite.",
    "Quote the exact line when you report a problem, with its number.",
    "Group related findings so that the reader sees each cause once.",
    "Check the totals after every step, not only at the end.",
    "Write dates as YYYY-MM-DD and amounts with two decimals.",
    "When a step fails twice, record why and move on to the next item.",
    "Summarise the outcome in three sentences or fewer before the details.",
    "Use the team's glossary for product names — never invent new ones.",
    "Mark anything you could not verify as unverified, in bold.",
];

fn slug(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn fill(template: &str, verb: &str, noun: &str, tool: &str) -> String {
    template
        .replace("{verb}", verb)
        .replace("{noun}", noun)
        .replace("{tool}", tool)
}

/// A description of one of four shapes, with a trigger most of the time.
fn description(rng: &mut Rng, verb: (&str, &str), noun: &str, tool: &str) -> String {
    let extra = rng.pick(EXTRAS);
    let mut text = match rng.below(4) {
        0 => format!("{} {noun} from {tool} and {extra}.", verb.1),
        1 => format!("{} {noun} exported by {tool}; it {extra}.", verb.1),
        2 => format!(
            "Step-by-step workflow to {} {noun} held in {tool}, which {extra}.",
            verb.0
        ),
        _ => format!(
            "{} {noun} for teams on {tool}. It {extra}, then {}.",
            verb.1,
            rng.pick(EXTRAS)
        ),
    };
    if !rng.chance(6) {
        text.push(' ');
        text.push_str(&fill(rng.pick(TRIGGERS), verb.0, noun, tool));
        text.push('.');
    }
    if rng.chance(40) {
        text.push(' ');
        text.push_str(&fill(rng.pick(LATER), verb.0, noun, tool));
    }
    text
}

/// Writes the project under `root`: `count` skills in `.claude/skills`, one of them long.
fn generate(root: &Path, count: usize) -> std::io::Result<Corpus> {
    let skills = root.join(".claude/skills");
    fs_err::create_dir_all(&skills)?;
    let mut rng = Rng(0x5EED_0000_1234_5678);
    // Distinct (verb, noun) pairs in a shuffled order, so that names are unique.
    let mut pairs: Vec<(usize, usize)> = (0..VERBS.len())
        .flat_map(|verb| (0..NOUNS.len()).map(move |noun| (verb, noun)))
        .collect();
    for at in (1..pairs.len()).rev() {
        pairs.swap(at, rng.below(at + 1));
    }
    let big_index = count / 2;
    let mut descriptions: Vec<String> = Vec::with_capacity(count);
    let mut files = 0;
    let mut big = None;
    for index in 0..count {
        let (verb, noun) = pairs[index % pairs.len()];
        let (verb, noun) = (VERBS[verb], NOUNS[noun]);
        let tool = rng.pick(TOOLS);
        let mut name = format!("{}-{}", verb.0, slug(noun));
        if index >= pairs.len() {
            let _ = write!(name, "-{}", index / pairs.len() + 1);
        }
        // Every 100th skill nearly repeats an earlier one's description (a copy with a
        // sentence added), as a team's forks of a skill do.
        let text = if index % 100 == 99 {
            format!("{} Also handles archived ones.", descriptions[index - 50])
        } else {
            description(&mut rng, verb, noun, tool)
        };
        descriptions.push(text.clone());
        let dir = skills.join(&name);
        fs_err::create_dir_all(&dir)?;
        if index == big_index {
            big = Some(big_skill(&dir, &name, &text)?);
            files += 1 + BIG_REFERENCES.len() + 1;
            continue;
        }
        let reference = rng.chance(40);
        let body = small_body(&mut rng, verb, noun, tool, reference);
        fs_err::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: {name}\ndescription: {}\n---\n\n{body}",
                yaml_string(&text)
            ),
        )?;
        files += 1;
        if reference {
            fs_err::create_dir_all(dir.join("references"))?;
            let mut guide = format!("# {} {noun}: the details\n\n", verb.1);
            for _ in 0..8 {
                let _ = writeln!(guide, "- {}", rng.pick(PROSE));
            }
            fs_err::write(dir.join("references/guide.md"), guide)?;
            files += 1;
        }
    }
    let (big_file, big_text, body_line) = big.expect("the long skill");
    Ok(Corpus {
        big_file,
        description_line: 2,
        // After `description: "`.
        description_column: u32::try_from("description: \"".len()).expect("short"),
        big_text,
        body_line,
        files,
    })
}

/// A description as a YAML scalar: plain when it can be, else double-quoted.
fn yaml_string(text: &str) -> String {
    if text.contains(": ") || text.contains(" #") || text.starts_with(['"', '\'', '[', '{']) {
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        text.to_owned()
    }
}

fn small_body(
    rng: &mut Rng,
    verb: (&str, &str),
    noun: &str,
    tool: &str,
    reference: bool,
) -> String {
    let mut body = format!(
        "# {} {noun}\n\n{} {noun} from {tool}, one at a time.\n\n## Steps\n\n",
        verb.1, verb.1
    );
    for step in 1..=3 + rng.below(5) {
        let _ = writeln!(body, "{step}. {}", rng.pick(PROSE));
    }
    body.push_str("\n## Rules\n\n");
    for _ in 0..2 + rng.below(4) {
        let _ = writeln!(body, "- {}", rng.pick(PROSE));
    }
    if rng.chance(50) {
        let _ = write!(
            body,
            "\n```bash\n{}-cli export --format json > {}.json\n```\n",
            slug(tool),
            slug(noun)
        );
    }
    if reference {
        body.push_str("\nFor edge cases, read [the guide](references/guide.md).\n");
    }
    body
}

const BIG_REFERENCES: &[&str] = &[
    "conventions",
    "versioning",
    "security",
    "deprecations",
    "templates",
    "examples",
];

/// The long skill: a 500-line SKILL.md with its references and a script. Returns its path,
/// its text and the 0-based line of a prose line about halfway down.
fn big_skill(dir: &Path, name: &str, description: &str) -> std::io::Result<(PathBuf, String, u32)> {
    fs_err::create_dir_all(dir.join("references"))?;
    fs_err::create_dir_all(dir.join("scripts"))?;
    for topic in BIG_REFERENCES {
        fs_err::write(
            dir.join(format!("references/{topic}.md")),
            format!("# {topic}\n\nWhat the release process expects about {topic}.\n"),
        )?;
    }
    let script = dir.join("scripts/collect_changes.sh");
    fs_err::write(
        &script,
        "#!/bin/sh\n# Lists the merged changes since the last tag.\ngit log --oneline \"$(git describe --tags --abbrev=0)\"..HEAD\n",
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    }
    let mut lines: Vec<String> = vec![
        "---".into(),
        format!("name: {name}"),
        // Double-quoted, so that an edit may put `TODO: ` at its start.
        format!(
            "description: \"{}\"",
            description.replace('\\', "\\\\").replace('"', "\\\"")
        ),
        "allowed-tools: Bash(git:*) Read Write".into(),
        "---".into(),
        String::new(),
        "# Release notes, end to end".into(),
        String::new(),
        "This skill turns merged changes into release notes that users can read in a minute."
            .into(),
        String::new(),
    ];
    let mut rng = Rng(0x0B16_5C11);
    let mut section = 0;
    let mut prose_lines = Vec::new();
    while lines.len() < BIG_LINES {
        section += 1;
        let topic = BIG_REFERENCES[section % BIG_REFERENCES.len()];
        lines.push(format!("## {section}. Step {section}: {topic}"));
        lines.push(String::new());
        for _ in 0..3 {
            prose_lines.push(lines.len());
            lines.push(rng.pick(PROSE).to_owned());
        }
        lines.push(String::new());
        for _ in 0..5 {
            lines.push(format!("- {}", rng.pick(PROSE)));
        }
        lines.push(String::new());
        lines.push("```bash".into());
        lines.push("sh scripts/collect_changes.sh > changes.txt".into());
        lines.push(format!("grep -c '{topic}' changes.txt"));
        lines.push("git tag --list 'v*' | tail -n 3".into());
        lines.push("```".into());
        lines.push(String::new());
        lines.push(format!(
            "See [the {topic} notes](references/{topic}.md) before you write this part — they are short."
        ));
        lines.push(String::new());
        for step in 1..=4 {
            lines.push(format!("{step}. {}", rng.pick(PROSE)));
        }
        lines.push(String::new());
        lines.push("| change | section | note |".into());
        lines.push("|---|---|---|".into());
        lines.push(format!("| feature | {topic} | new in this release |"));
        lines.push(format!(
            "| fix | {topic} | résumé of the bug, in one line |"
        ));
        lines.push(String::new());
    }
    lines.truncate(BIG_LINES);
    let text = lines.join("\n") + "\n";
    let path = dir.join("SKILL.md");
    fs_err::write(&path, &text)?;
    let middle = prose_lines
        .iter()
        .copied()
        .filter(|&line| line < BIG_LINES)
        .min_by_key(|&line| line.abs_diff(BIG_LINES / 2))
        .expect("a prose line");
    Ok((path, text, u32::try_from(middle).expect("short")))
}
