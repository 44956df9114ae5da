//! `cargo bench --bench validate`: how fast `skillpkg validate`, `lint` and `preview` check a
//! large tree, side by side with the reference validator, the bare walk of the tree and the two
//! fastest peer tools, and whether `skillpkg` and the reference agree.
//!
//! ```text
//! cargo bench --bench validate -- [--skills N] [--runs R] [--ref-sample K] [--no-reference]
//!                                  [--baseline PATH] [--no-peers]
//! cargo bench --bench validate -- --scale [--runs R]
//! ```
//!
//! `--scale` times only the bare walk, `validate` and `lint` over 1,000, 10,000 and 100,000
//! skills (generating each corpus once; the largest takes about 4 GB) and prints how each grows.
//!
//! 1. Generates N synthetic skills (default 10,000; 30 % broken) under the cargo target dir,
//!    once per N.
//! 2. Times the release `skillpkg validate` over the tree R times (default 5) after one warm-up
//!    run, in the human and JSON formats and under `--target skills-ref`; peak memory comes from
//!    `/usr/bin/time` when it is installed.
//! 3. Installs the reference validator (`skills-ref` from `PyPI`) into a local virtual environment
//!    and times it the way it is used: `agentskills validate DIR` once per folder, over a sample
//!    of K folders (default 200; the full loop over 10,000 takes about half an hour), and its
//!    library in one process over every folder. `--no-reference` skips this and step 4.
//! 4. Compares the valid/invalid verdict of `skillpkg validate --target skills-ref` with the
//!    reference's on every skill.
//!
//! 5. With `--baseline PATH` (another `skillpkg` binary, say a release build of `main` before a
//!    change), times validate, lint and preview of both binaries alternately in the same run,
//!    wall and CPU, and prints each figure as a ratio to the baseline's: machines differ
//!    several-fold, and a VM drifts from minute to minute, so only a ratio taken side by side
//!    says whether a change made things slower.
//! 6. "Side by side, same run": installs the two fastest peers under `<target>/peers/` on first
//!    use (`agent-skills` 0.5.0 with `cargo install`, `agnix` 0.59.3 with pip; see `peers.rs`,
//!    which also says when the install runs under `flock`: `SKILLPKG_BENCH_FLOCK`), then times,
//!    interleaved (each round runs every command once, starting one later each round), R runs
//!    each after a warm-up:
//!    - over the tree: the bare walk `find DIR -name SKILL.md`; `skillpkg validate` and
//!      `agent-skills list --check`; `skillpkg lint`, `agnix --max-files 0` and the walk that
//!      reads every file (`find DIR -type f -exec cat {} +`: lint's rules read them all);
//!      `skillpkg preview` (the Claude Code listing);
//!    - on one valid skill of the tree, 50 runs: the bare walk, `skillpkg validate` and
//!      `agent-skills validate`, `skillpkg lint` and `agnix`. Wall and CPU come from unwrapped
//!      runs (`/usr/bin/time` adds about 1 ms and counts CPU in 10 ms steps), peak memory from a
//!      wrapped run after each.
//!
//!    It prints one Markdown table of wall / CPU / peak memory (medians; one-skill CPU is a
//!    mean) with skillpkg's ratio to the bare walk and to the peer on separate rows, and the
//!    performance issue's goals, met or not: lint peak memory ≤ 64 MiB and lint wall ≤ 2× the
//!    bare walk, preview ≤ 1.3× the bare walk, one skill validated in ≤ 3 ms and linted in
//!    ≤ 5 ms. A peer that cannot be installed (offline, no `python3`) is noted and left out;
//!    `--no-peers` leaves both out (the bare-walk rows and the goals remain).
//!
//! The targets: `validate` over 10,000 skills in under 0.35 s, `lint` in under 1 s, on a
//! 2-core machine. `lint` runs every rule over every file of the tree (48,000 files), including
//! the near-duplicate descriptions check across all 10,000.

// A benchmark report is printed output, and its statistics are floating point.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss
)]

// The corpus module also holds the package benchmark's generator.
#[allow(dead_code)]
mod corpus;
mod peers;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use peers::Sample;

/// `validate`: 10,000 skills in under this many seconds.
const TARGET_SECONDS: f64 = 0.35;
/// `lint`: 10,000 skills in under this many seconds (the lint issue's target).
const LINT_TARGET_SECONDS: f64 = 1.0;
const TARGET_SKILLS: usize = 10_000;
/// The reference validator's version this harness pins.
const SKILLS_REF: &str = "skills-ref==0.1.1";

struct Options {
    skills: usize,
    runs: usize,
    ref_sample: usize,
    reference: bool,
    baseline: Option<PathBuf>,
    peers: bool,
    /// `--scale`: only the growth from 1,000 to 10,000 to 100,000 skills.
    scale: bool,
}

fn options() -> Options {
    let mut options = Options {
        skills: TARGET_SKILLS,
        runs: 5,
        ref_sample: 200,
        reference: true,
        baseline: None,
        peers: true,
        scale: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| {
            args.next()
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match arg.as_str() {
            "--skills" => options.skills = number("--skills"),
            "--runs" => options.runs = number("--runs").max(1),
            "--ref-sample" => options.ref_sample = number("--ref-sample"),
            "--no-reference" => options.reference = false,
            "--no-peers" => options.peers = false,
            "--scale" => options.scale = true,
            "--baseline" => {
                options.baseline = Some(PathBuf::from(
                    args.next().expect("--baseline needs a skillpkg binary"),
                ));
            }
            // `cargo bench` passes `--bench`; ignore what is not ours.
            _ => {}
        }
    }
    options
}

struct Timing {
    label: String,
    runs: Vec<Duration>,
    peak_kib: Option<u64>,
    exit: Option<i32>,
}

impl Timing {
    fn median(&self) -> f64 {
        let mut sorted = self.runs.clone();
        sorted.sort();
        sorted[sorted.len() / 2].as_secs_f64()
    }

    fn min(&self) -> f64 {
        self.runs.iter().min().map_or(0.0, Duration::as_secs_f64)
    }

    fn max(&self) -> f64 {
        self.runs.iter().max().map_or(0.0, Duration::as_secs_f64)
    }
}

#[allow(clippy::too_many_lines)] // one report, printed top to bottom
fn main() {
    let options = options();
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("skillpkg-bench");
    if options.scale {
        scale(&work, options.runs);
        return;
    }
    let corpus = work.join(format!("corpus-{}", options.skills));
    let manifest = prepare_corpus(&corpus, options.skills);
    let files = count_files(&corpus);
    let broken = manifest.values().filter(|kind| **kind != "valid").count();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "\nskillpkg validate benchmark: {} skills ({} valid, {broken} with one defect), {files} files, {cores} cores\n",
        options.skills,
        options.skills - broken
    );

    let skillpkg = env!("CARGO_BIN_EXE_skillpkg");
    let timings = vec![
        time(
            &options,
            "skillpkg validate (human, stderr)",
            skillpkg,
            &["validate", corpus_str(&corpus)],
        ),
        time(
            &options,
            "skillpkg validate --format json",
            skillpkg,
            &["validate", "--format", "json", corpus_str(&corpus)],
        ),
        time(
            &options,
            "skillpkg validate --target skills-ref",
            skillpkg,
            &["validate", "--target", "skills-ref", corpus_str(&corpus)],
        ),
        time(
            &options,
            "skillpkg lint (human, stderr)",
            skillpkg,
            &["lint", corpus_str(&corpus)],
        ),
        time(
            &options,
            "skillpkg lint --target claude-code --format json",
            skillpkg,
            &[
                "lint",
                "--target",
                "claude-code",
                "--format",
                "json",
                corpus_str(&corpus),
            ],
        ),
        time(
            &options,
            "skillpkg preview (Claude Code listing, end to end)",
            skillpkg,
            &["preview", corpus_str(&corpus)],
        ),
    ];

    let (reference_rows, parity) = if options.reference {
        reference(&options, &work, &corpus, &manifest, skillpkg)
    } else {
        (Vec::new(), None)
    };

    println!("| command | median | min | max | peak RSS | exit |");
    println!("|---|---|---|---|---|---|");
    for timing in &timings {
        println!(
            "| {} | {:.3} s | {:.3} s | {:.3} s | {} | {} |",
            timing.label,
            timing.median(),
            timing.min(),
            timing.max(),
            timing.peak_kib.map_or("n/a".to_owned(), |kib| format!(
                "{:.1} MiB",
                kib as f64 / 1024.0
            )),
            timing.exit.map_or("?".to_owned(), |code| code.to_string()),
        );
    }
    if !reference_rows.is_empty() {
        println!("\n| reference | wall | note |\n|---|---|---|");
        for row in &reference_rows {
            println!("{row}");
        }
    }
    if options.skills == TARGET_SKILLS {
        for (timing, target) in [
            (&timings[0], TARGET_SECONDS),
            (&timings[3], LINT_TARGET_SECONDS),
        ] {
            let verdict = if timing.median() < target {
                "met"
            } else {
                "NOT met"
            };
            println!(
                "\ntarget: {} over {TARGET_SKILLS} skills in under {target} s: {verdict} (median {:.3} s)",
                timing.label,
                timing.median()
            );
        }
    }
    if let Some((agree, total, mismatches)) = parity {
        println!("verdict parity with skills-ref: {agree}/{total} skills agree");
        for mismatch in mismatches.iter().take(20) {
            println!("  differs: {mismatch}");
        }
    }
    lint_precision(skillpkg, &corpus, &manifest);
    index_in_process(&corpus, options.runs);
    if let Some(baseline) = &options.baseline {
        against_baseline(baseline, skillpkg, &corpus, options.runs.max(9));
    }
    side_by_side(&options, skillpkg, &corpus, &manifest);
}

/// This build against `baseline`, alternately, `runs` times per command after a warm-up of
/// each: the median wall and CPU time of both and their ratios.
fn against_baseline(baseline: &Path, skillpkg: &str, corpus: &Path, runs: usize) {
    let baseline = baseline.to_str().expect("a UTF-8 path");
    let corpus = corpus_str(corpus);
    println!("\nthis build against {baseline}, alternating, {runs} runs each\n");
    println!("| command | baseline wall | this wall | ratio | baseline CPU | this CPU | ratio |");
    println!("|---|---|---|---|---|---|---|");
    for (label, args) in [
        ("validate", &["validate", corpus][..]),
        ("lint", &["lint", corpus][..]),
        (
            "lint --target claude-code --format json",
            &[
                "lint",
                "--target",
                "claude-code",
                "--format",
                "json",
                corpus,
            ][..],
        ),
        ("preview (listing)", &["preview", corpus][..]),
    ] {
        let programs = [Path::new(baseline), Path::new(skillpkg)];
        for program in programs {
            peers::measure(program, args);
        }
        let (mut walls, mut cpus) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
        for run in 0..runs {
            // Alternate which goes first, so that drift favours neither.
            let order = if run % 2 == 0 { [0, 1] } else { [1, 0] };
            for which in order {
                let sample = peers::measure(programs[which], args);
                walls[which].push(sample.wall);
                if let Some(cpu) = sample.cpu {
                    cpus[which].push(cpu);
                }
            }
        }
        let [base_wall, this_wall] = walls.map(peers::median);
        let cpu = if cpus[0].is_empty() || cpus[1].is_empty() {
            "n/a | n/a | n/a".to_owned()
        } else {
            let [base, this] = cpus.map(peers::median);
            format!("{base:.3} s | {this:.3} s | {:.2}", this / base)
        };
        println!(
            "| {label} | {base_wall:.3} s | {this_wall:.3} s | {:.2} | {cpu} |",
            this_wall / base_wall
        );
    }
}

/// One-skill timings: this many runs of each command (after a warm-up), median reported.
const ONE_SKILL_RUNS: usize = 50;

/// One command of the side-by-side section.
struct Job {
    program: PathBuf,
    args: Vec<String>,
}

impl Job {
    fn new(program: impl Into<PathBuf>, args: &[&str]) -> Job {
        Job {
            program: program.into(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        }
    }
}

/// Every job once to warm the caches, then `runs` rounds of every job in turn, each round
/// starting one job later, so that drift and position favour none. `measure` takes one sample.
fn interleave(jobs: &[Job], runs: usize, measure: impl Fn(&Job) -> Sample) -> Vec<Vec<Sample>> {
    for job in jobs {
        measure(job);
    }
    let mut samples = vec![Vec::with_capacity(runs); jobs.len()];
    for round in 0..runs {
        for offset in 0..jobs.len() {
            let which = (round + offset) % jobs.len();
            samples[which].push(measure(&jobs[which]));
        }
    }
    samples
}

/// The summary of one job's samples.
struct Figures {
    wall: f64,
    cpu: Option<f64>,
    peak_kib: Option<u64>,
    max_peak_kib: Option<u64>,
    exits: Vec<i32>,
}

impl Figures {
    /// Medians, except CPU when `mean_cpu` (one-skill runs, whose CPU is counted in clock ticks).
    fn of(samples: &[Sample], mean_cpu: bool) -> Figures {
        let cpus: Vec<f64> = samples.iter().filter_map(|sample| sample.cpu).collect();
        let cpu = if cpus.len() < samples.len() {
            None
        } else if mean_cpu {
            peers::mean(cpus)
        } else {
            Some(peers::median(cpus))
        };
        let mut peaks: Vec<u64> = samples
            .iter()
            .filter_map(|sample| sample.peak_kib)
            .collect();
        peaks.sort_unstable();
        let mut exits: Vec<i32> = samples.iter().filter_map(|sample| sample.exit).collect();
        exits.sort_unstable();
        exits.dedup();
        Figures {
            wall: peers::median(samples.iter().map(|sample| sample.wall)),
            cpu,
            peak_kib: peaks.get(peaks.len() / 2).copied(),
            max_peak_kib: peaks.last().copied(),
            exits,
        }
    }

    /// `wall / CPU / peak`, in seconds, or milliseconds when `ms`.
    fn show(&self, ms: bool) -> String {
        let time = |seconds: f64| {
            if ms {
                format!("{:.2} ms", seconds * 1000.0)
            } else {
                format!("{seconds:.3} s")
            }
        };
        format!(
            "{} / {} / {}",
            time(self.wall),
            self.cpu.map_or("n/a".to_owned(), time),
            self.peak_kib.map_or("n/a".to_owned(), mib),
        )
    }
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// `skillpkg` against the bare walk of the tree and against its two fastest peers (installed
/// under the target dir on first use), interleaved in this run: one Markdown table of ratios,
/// then the performance issue's goals.
#[allow(clippy::too_many_lines)] // one table, printed top to bottom
fn side_by_side(
    options: &Options,
    skillpkg: &str,
    corpus: &Path,
    manifest: &BTreeMap<String, &'static str>,
) {
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is <target>/tmp");
    let peers = if options.peers {
        peers::install(target_dir)
    } else {
        peers::Peers {
            agent_skills: None,
            agnix: None,
        }
    };
    let tree = corpus_str(corpus);
    // Claude Code's own index: a project whose `.claude/skills` is the corpus. Claude Code reads
    // `<skills>/<name>/SKILL.md` and nothing deeper, so the index needs no walk of the tree.
    let project = corpus.with_file_name(format!(
        "project-{}",
        corpus
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("corpus")
    ));
    let skills_dir = project.join(".claude/skills");
    if !skills_dir.exists() {
        fs_err::create_dir_all(project.join(".claude")).expect("create the project");
        #[cfg(unix)]
        std::os::unix::fs::symlink(corpus, &skills_dir).expect("link the corpus as .claude/skills");
    }
    let project_str = corpus_str(&project);
    let one_name = manifest
        .iter()
        .find(|(_, kind)| **kind == "valid")
        .map(|(name, _)| name.as_str())
        .expect("the corpus has a valid skill");
    let one_path = corpus.join(one_name);
    let one = corpus_str(&one_path);

    // The tree: walk, skillpkg validate, lint, preview, then the peers that are installed.
    let mut jobs = vec![
        Job::new("find", &[tree, "-name", "SKILL.md"]),
        Job::new(skillpkg, &["validate", tree]),
        Job::new(skillpkg, &["lint", tree]),
        Job::new(skillpkg, &["preview", tree]),
        Job::new(skillpkg, &["preview", project_str]),
        // What lint cannot do without: read every file of every skill (the rules look at
        // references and scripts too), which the bare walk does not.
        Job::new("find", &[tree, "-type", "f", "-exec", "cat", "{}", "+"]),
    ];
    let list_check = peers.agent_skills.as_ref().map(|binary| {
        jobs.push(Job::new(binary, &["list", "--check", tree]));
        jobs.len() - 1
    });
    let agnix_tree = peers.agnix.as_ref().map(|agnix| {
        let config = agnix.config.to_str().expect("a UTF-8 path");
        jobs.push(Job::new(
            &agnix.binary,
            &["--config", config, tree, "--max-files", "0"],
        ));
        jobs.len() - 1
    });
    let runs = options.runs;
    eprintln!(
        "side by side: {} commands over {} skills, {runs} interleaved runs each …",
        jobs.len(),
        options.skills
    );
    let started = Instant::now();
    let tree_figures: Vec<Figures> = interleave(&jobs, runs, |job| {
        let args: Vec<&str> = job.args.iter().map(String::as_str).collect();
        peers::measure(&job.program, &args)
    })
    .iter()
    .map(|samples| Figures::of(samples, false))
    .collect();

    // One skill: walk, skillpkg validate, lint, then the peers' one-skill commands. The wall
    // time and CPU come from unwrapped runs (`/usr/bin/time` adds about 1 ms), the peak memory
    // from a wrapped run right after each.
    let mut one_jobs = vec![
        Job::new("find", &[one, "-name", "SKILL.md"]),
        Job::new(skillpkg, &["validate", one]),
        Job::new(skillpkg, &["lint", one]),
    ];
    let validate_one = peers.agent_skills.as_ref().map(|binary| {
        one_jobs.push(Job::new(binary, &["validate", one]));
        one_jobs.len() - 1
    });
    let agnix_one = peers.agnix.as_ref().map(|agnix| {
        let config = agnix.config.to_str().expect("a UTF-8 path");
        one_jobs.push(Job::new(&agnix.binary, &["--config", config, one]));
        one_jobs.len() - 1
    });
    let one_figures: Vec<Figures> = interleave(&one_jobs, ONE_SKILL_RUNS, |job| {
        let args: Vec<&str> = job.args.iter().map(String::as_str).collect();
        let direct = peers::measure_direct(&job.program, &args);
        let wrapped = peers::measure(&job.program, &args);
        Sample {
            peak_kib: wrapped.peak_kib,
            ..direct
        }
    })
    .iter()
    .map(|samples| Figures::of(samples, true))
    .collect();
    eprintln!("side by side took {:.0} s", started.elapsed().as_secs_f64());

    let skills = options.skills;
    let walk = "bare walk: `find DIR -name SKILL.md`";
    let read_all = "walk reading every file: `find DIR -type f -exec cat {} +`";
    let (agent_skills, agnix) = (peers::AGENT_SKILLS_VERSION, peers::AGNIX_VERSION);
    let list_label = format!("agent-skills {agent_skills}: `list --check DIR`");
    let agnix_label = format!("agnix {agnix}: `agnix DIR --max-files 0` (`exclude = []`)");
    let validate_label = format!("agent-skills {agent_skills}: `validate DIR`");
    let agnix_one_label = format!("agnix {agnix}: `agnix DIR` (`exclude = []`)");
    // (work, skillpkg's figures, [(baseline label, its figures)], milliseconds)
    let tree_rows = [
        (
            format!("`validate`, {skills} skills"),
            &tree_figures[1],
            vec![
                (walk, Some(&tree_figures[0])),
                (&list_label, list_check.map(|index| &tree_figures[index])),
            ],
        ),
        (
            format!("`lint`, {skills} skills"),
            &tree_figures[2],
            vec![
                (walk, Some(&tree_figures[0])),
                (read_all, Some(&tree_figures[5])),
                (&agnix_label, agnix_tree.map(|index| &tree_figures[index])),
            ],
        ),
        (
            format!("`preview` (Claude Code listing), {skills} skills in a folder searched"),
            &tree_figures[3],
            vec![(walk, Some(&tree_figures[0]))],
        ),
        (
            format!(
                "`preview` (Claude Code index), a project with {skills} skills in `.claude/skills`"
            ),
            &tree_figures[4],
            vec![(walk, Some(&tree_figures[0]))],
        ),
    ];
    let one_rows = [
        (
            "`validate`, one skill".to_owned(),
            &one_figures[1],
            vec![
                (walk, Some(&one_figures[0])),
                (
                    &validate_label,
                    validate_one.map(|index| &one_figures[index]),
                ),
            ],
        ),
        (
            "`lint`, one skill".to_owned(),
            &one_figures[2],
            vec![
                (walk, Some(&one_figures[0])),
                (&agnix_one_label, agnix_one.map(|index| &one_figures[index])),
            ],
        ),
    ];

    println!(
        "\n## side by side, same run\n\n{skills} skills: {runs} runs of each command; one skill ({one_name}): {ONE_SKILL_RUNS} runs, wall median and CPU mean of unwrapped runs. Interleaved, after a warm-up of each. Absolute figures are on this machine; ratio = skillpkg ÷ baseline (below 1: skillpkg is faster).\n"
    );
    println!(
        "| work | skillpkg wall / CPU / peak (on this machine) | baseline | baseline wall / CPU / peak (on this machine) | ratio wall, ratio CPU |"
    );
    println!("|---|---|---|---|---|");
    for (rows, ms) in [(&tree_rows[..], false), (&one_rows[..], true)] {
        for (work, ours, baselines) in rows {
            for (label, theirs) in baselines {
                let Some(theirs) = theirs else {
                    let missing = if options.peers {
                        "not installed"
                    } else {
                        "left out (`--no-peers`)"
                    };
                    println!("| {work} | {} | {label} | {missing} | |", ours.show(ms));
                    continue;
                };
                let cpu_ratio = match (ours.cpu, theirs.cpu) {
                    (Some(ours), Some(theirs)) if theirs > 0.0 => format!("{:.2}×", ours / theirs),
                    _ => "n/a".to_owned(),
                };
                println!(
                    "| {work} | {} | {label} | {} | {:.2}×, {cpu_ratio} |",
                    ours.show(ms),
                    theirs.show(ms),
                    ours.wall / theirs.wall,
                );
            }
        }
    }
    let mut exits = Vec::new();
    for (label, figures) in [
        ("skillpkg validate", &tree_figures[1]),
        ("skillpkg lint", &tree_figures[2]),
        ("skillpkg preview", &tree_figures[3]),
    ]
    .into_iter()
    .chain(list_check.map(|index| ("agent-skills list --check", &tree_figures[index])))
    .chain(agnix_tree.map(|index| ("agnix", &tree_figures[index])))
    .chain([
        ("skillpkg validate ONE", &one_figures[1]),
        ("skillpkg lint ONE", &one_figures[2]),
    ])
    .chain(validate_one.map(|index| ("agent-skills validate ONE", &one_figures[index])))
    .chain(agnix_one.map(|index| ("agnix ONE", &one_figures[index])))
    {
        let codes: Vec<String> = figures.exits.iter().map(i32::to_string).collect();
        exits.push(format!("{label} {}", codes.join("/")));
    }
    println!(
        "\nexit codes (findings are not failures): {}",
        exits.join(", ")
    );

    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    let walk_wall = tree_figures[0].wall;
    let lint = &tree_figures[2];
    println!("\ngoals (performance issue), {skills} skills and one skill:");
    match lint.max_peak_kib {
        Some(kib) => println!(
            "- lint peak memory ≤ 64 MiB: {} ({} at most over the runs)",
            verdict(kib <= 64 * 1024),
            mib(kib)
        ),
        None => println!("- lint peak memory ≤ 64 MiB: unknown (no /usr/bin/time)"),
    }
    for (goal, ours, limit) in [
        ("lint wall ≤ 2× bare walk", lint.wall, 2.0),
        (
            "preview (Claude Code index of a project) wall ≤ 1.3× bare walk",
            tree_figures[4].wall,
            1.3,
        ),
    ] {
        println!(
            "- {goal}: {} ({:.2}×)",
            verdict(ours <= limit * walk_wall),
            ours / walk_wall
        );
    }
    println!(
        "  (lint reads every file of every skill: the walk that does so and nothing else takes {:.2}× the bare walk, and lint {:.2}× that walk)",
        tree_figures[5].wall / walk_wall,
        lint.wall / tree_figures[5].wall
    );
    for (goal, ours, limit_ms) in [
        ("validate one skill ≤ 3 ms", one_figures[1].wall, 3.0),
        ("lint one skill ≤ 5 ms", one_figures[2].wall, 5.0),
    ] {
        println!(
            "- {goal}: {} ({:.2} ms)",
            verdict(ours * 1000.0 <= limit_ms),
            ours * 1000.0
        );
    }
}

/// Building the listing itself, in process, once the skills are read: the preview issue's
/// target is 10,000 skills in under 200 ms.
fn index_in_process(corpus: &Path, runs: usize) {
    use skillpkg::agent::Target;
    use skillpkg::render::claude_code::{self, IndexOptions, Model, Version};
    use skillpkg::render::view::{Scope, SkillView};

    let found = skillpkg::skill::discover::walk(&[corpus.to_path_buf()], 2);
    let views: Vec<SkillView> = found
        .skills
        .iter()
        .filter_map(|path| {
            let skill = skillpkg::skill::Skill::load(path).ok()?;
            SkillView::new(
                &skill,
                Scope::Project,
                Target::ClaudeCode,
                Vec::new(),
                false,
            )
        })
        .collect();
    let model = Model::named("claude-opus-5-5");
    for (label, version) in [("2.1.332", Version::Current), ("2.1.88", Version::V2188)] {
        let options = IndexOptions {
            version,
            context_window: model.context_window,
            model: model.clone(),
            budget_fraction: 0.01,
            budget: None,
            reserve: skillpkg::agent::claude_code::listing::BUNDLED_RESERVE,
            max_desc_chars: skillpkg::agent::claude_code::listing::CAP_CURRENT,
            usage: std::collections::HashMap::new(),
            now: 0.0,
            overrides: std::collections::HashMap::new(),
        };
        let mut times: Vec<Duration> = (0..runs.max(3))
            .map(|_| {
                let started = Instant::now();
                let index = claude_code::index(&views, &options);
                std::hint::black_box(index.text.len());
                started.elapsed()
            })
            .collect();
        times.sort();
        let median = times[times.len() / 2].as_secs_f64();
        let verdict = if median < 0.2 { "met" } else { "NOT met" };
        println!(
            "Claude Code {label} listing of {} skills, in process: median {:.1} ms (target under 200 ms: {verdict})",
            views.len(),
            median * 1000.0
        );
    }
}

/// Lint findings on the skills the generator made valid, by rule: precision matters as much as
/// speed. By construction two kinds are real: `assets/template.md`, which 30 % of skills have
/// and never mention (`unreferenced-file`), and descriptions built from one template
/// (`similar-descriptions`).
fn lint_precision(skillpkg: &str, corpus: &Path, manifest: &BTreeMap<String, &'static str>) {
    let output = Command::new(skillpkg)
        .args(["lint", "--format", "json", corpus_str(corpus)])
        .stderr(Stdio::null())
        .output()
        .expect("run skillpkg lint");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("lint's JSON report");
    let mut by_rule: BTreeMap<String, usize> = BTreeMap::new();
    let mut valid = 0;
    for skill in report["skills"].as_array().into_iter().flatten() {
        let folder = skill["path"].as_str().unwrap_or_default();
        let name = folder.rsplit(['/', '\\']).next().unwrap_or_default();
        if manifest.get(name) != Some(&"valid") {
            continue;
        }
        valid += 1;
        for diagnostic in skill["diagnostics"].as_array().into_iter().flatten() {
            let code = diagnostic["code"].as_str().unwrap_or_default();
            *by_rule.entry(code.to_owned()).or_default() += 1;
        }
    }
    let listed: Vec<String> = by_rule
        .iter()
        .map(|(code, count)| format!("{code} ×{count}"))
        .collect();
    println!(
        "lint findings on the {valid} valid skills: {}",
        if listed.is_empty() {
            "none".to_owned()
        } else {
            listed.join(", ")
        }
    );
}

/// Rows about the reference validator, and verdict parity with it.
type Parity = (usize, usize, Vec<String>);

fn reference(
    options: &Options,
    work: &Path,
    corpus: &Path,
    manifest: &BTreeMap<String, &'static str>,
    skillpkg: &str,
) -> (Vec<String>, Option<Parity>) {
    let mut rows = Vec::new();
    let venv = match reference_env(work) {
        Ok(venv) => venv,
        Err(error) => {
            rows.push(format!("| skills-ref | not installed: {error} | |"));
            return (rows, None);
        }
    };
    let (loop_timing, per_skill) = time_reference_loop(&venv, corpus, manifest, options.ref_sample);
    rows.push(format!(
        "| skills-ref: `agentskills validate DIR` per folder, {} folders sampled | {:.2} s ({:.3} s per skill) | {:.1} s estimated for {} |",
        loop_timing.runs.len(),
        loop_timing.runs.iter().map(Duration::as_secs_f64).sum::<f64>(),
        per_skill,
        per_skill * options.skills as f64,
        options.skills
    ));
    match reference_library(&venv, work, corpus) {
        Ok((elapsed, verdicts)) => {
            rows.push(format!(
                "| skills-ref library `validate()` in one process, every folder | {elapsed:.2} s | |"
            ));
            (rows, Some(compare(skillpkg, corpus, &verdicts)))
        }
        Err(error) => {
            rows.push(format!("| skills-ref library | failed: {error} | |"));
            (rows, None)
        }
    }
}

fn corpus_str(path: &Path) -> &str {
    path.to_str().expect("the work directory is UTF-8")
}

/// Generates the corpus unless a complete one for this size is already there.
fn prepare_corpus(corpus: &Path, skills: usize) -> BTreeMap<String, &'static str> {
    let marker = corpus.join(".complete");
    let manifest_path = corpus.with_extension("manifest.tsv");
    let stamp = format!("generator {}\n", corpus::VERSION);
    let current = fs_err::read_to_string(&marker).is_ok_and(|text| text == stamp);
    if !current || !manifest_path.exists() {
        let _ = fs_err::remove_dir_all(corpus);
        fs_err::create_dir_all(corpus).expect("create the corpus folder");
        eprintln!("generating {skills} skills in {} …", corpus.display());
        let started = Instant::now();
        let kinds = corpus::generate(corpus, skills, 1).expect("generate the corpus");
        let tsv: String = kinds.iter().fold(String::new(), |mut tsv, (name, kind)| {
            let _ = writeln!(tsv, "{name}\t{}", kind.label());
            tsv
        });
        fs_err::write(&manifest_path, tsv).expect("write the manifest");
        fs_err::write(&marker, &stamp).expect("mark the corpus complete");
        eprintln!("generated in {:.1} s", started.elapsed().as_secs_f64());
    }
    let labels = [
        "valid",
        "bad-name",
        "long-description",
        "unknown-field",
        "missing-description",
        "broken-yaml",
        "unquoted-colon",
        "long-body",
    ];
    fs_err::read_to_string(&manifest_path)
        .expect("read the manifest")
        .lines()
        .filter_map(|line| {
            let (name, kind) = line.split_once('\t')?;
            let kind = labels.iter().find(|label| **label == kind)?;
            Some((name.to_owned(), *kind))
        })
        .collect()
}

fn count_files(dir: &Path) -> usize {
    let mut count = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs_err::read_dir(&dir).into_iter().flatten().flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                stack.push(entry.path());
            } else {
                count += 1;
            }
        }
    }
    count
}

/// Runs a command once to warm the caches, then `runs` times.
fn time(options: &Options, label: &str, program: &str, args: &[&str]) -> Timing {
    let mut runs = Vec::new();
    let mut peak_kib = None;
    let mut exit = None;
    for run in 0..=options.runs {
        let sample = peers::measure(Path::new(program), args);
        exit = sample.exit;
        if run > 0 {
            runs.push(Duration::from_secs_f64(sample.wall));
            if let Some(kib) = sample.peak_kib {
                peak_kib = Some(peak_kib.map_or(kib, |peak: u64| peak.max(kib)));
            }
        }
    }
    Timing {
        label: label.to_owned(),
        runs,
        peak_kib,
        exit,
    }
}

/// A virtual environment with the reference validator, created on first use.
fn reference_env(work: &Path) -> Result<PathBuf, String> {
    let venv = work.join("venv");
    let cli = venv.join("bin/agentskills");
    if cli.exists() {
        return Ok(venv);
    }
    eprintln!("installing {SKILLS_REF} into {} …", venv.display());
    let created = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .map_err(|error| format!("python3 -m venv: {error}"))?;
    if !created.success() {
        return Err("python3 -m venv failed".into());
    }
    let installed = Command::new(venv.join("bin/pip"))
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            SKILLS_REF,
        ])
        .status()
        .map_err(|error| format!("pip: {error}"))?;
    if !installed.success() || !cli.exists() {
        return Err(format!("pip install {SKILLS_REF} failed"));
    }
    Ok(venv)
}

/// `agentskills validate DIR` once per folder over an evenly spread sample.
fn time_reference_loop(
    venv: &Path,
    corpus: &Path,
    manifest: &BTreeMap<String, &'static str>,
    sample: usize,
) -> (Timing, f64) {
    let names: Vec<&String> = manifest.keys().collect();
    let step = (names.len() / sample.max(1)).max(1);
    let cli = venv.join("bin/agentskills");
    let mut runs = Vec::new();
    for name in names.iter().step_by(step).take(sample) {
        let started = Instant::now();
        let _ = Command::new(&cli)
            .arg("validate")
            .arg(corpus.join(name))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        runs.push(started.elapsed());
    }
    let total: f64 = runs.iter().map(Duration::as_secs_f64).sum();
    let per_skill = total / runs.len().max(1) as f64;
    (
        Timing {
            label: "skills-ref loop".into(),
            runs,
            peak_kib: None,
            exit: None,
        },
        per_skill,
    )
}

/// Runs the reference library over every folder in one process: its time and its verdicts.
fn reference_library(
    venv: &Path,
    work: &Path,
    corpus: &Path,
) -> Result<(f64, BTreeMap<String, bool>), String> {
    let script = work.join("reference_verdicts.py");
    fs_err::write(
        &script,
        "import json, pathlib, sys, time\n\
         import skills_ref\n\
         root = pathlib.Path(sys.argv[1])\n\
         started = time.perf_counter()\n\
         verdicts = {d.name: not skills_ref.validate(d) for d in sorted(root.iterdir()) if d.is_dir()}\n\
         json.dump({'elapsed': time.perf_counter() - started, 'valid': verdicts}, sys.stdout)\n",
    )
    .map_err(|error| error.to_string())?;
    let output = Command::new(venv.join("bin/python"))
        .arg(&script)
        .arg(corpus)
        .output()
        .map_err(|error| error.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let value: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|error| error.to_string())?;
    let elapsed = value["elapsed"].as_f64().unwrap_or_default();
    let verdicts = value["valid"]
        .as_object()
        .map(|map| {
            map.iter()
                .map(|(name, valid)| (name.clone(), valid.as_bool().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    Ok((elapsed, verdicts))
}

/// Compares `skillpkg validate --target skills-ref` verdicts with the reference's.
fn compare(
    skillpkg: &str,
    corpus: &Path,
    reference: &BTreeMap<String, bool>,
) -> (usize, usize, Vec<String>) {
    let output = Command::new(skillpkg)
        .args(["validate", "--target", "skills-ref", "--format", "json"])
        .arg(corpus)
        .stderr(Stdio::null())
        .output()
        .expect("run skillpkg");
    let document: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("skillpkg prints JSON");
    let mut ours = BTreeMap::new();
    for skill in document["skills"].as_array().into_iter().flatten() {
        let path = PathBuf::from(skill["path"].as_str().unwrap_or_default());
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        ours.insert(name, skill["valid"].as_bool().unwrap_or_default());
    }
    let mut agree = 0;
    let mut mismatches = Vec::new();
    for (name, valid) in reference {
        match ours.get(name) {
            Some(mine) if mine == valid => agree += 1,
            Some(mine) => mismatches.push(format!(
                "{name}: skills-ref valid={valid}, skillpkg valid={mine}"
            )),
            None => mismatches.push(format!("{name}: not found by skillpkg")),
        }
    }
    (agree, reference.len(), mismatches)
}

/// `--scale`: validate and lint over 1,000, 10,000 and 100,000 skills (the largest corpus is
/// about 4 GB and is generated once), with the bare walk of each as the baseline, interleaved,
/// median of `runs` after a warm-up. Linear growth means each step costs about 10× the
/// last; the goal is at most 11× from 10,000 to 100,000, in time and in memory.
fn scale(work: &Path, runs: usize) {
    let skillpkg = Path::new(env!("CARGO_BIN_EXE_skillpkg"));
    let find = Path::new("find");
    let sizes = [1_000, 10_000, 100_000];
    let mut rows: Vec<[(f64, f64, f64); 3]> = Vec::new();
    for skills in sizes {
        let corpus = work.join(format!("corpus-{skills}"));
        prepare_corpus(&corpus, skills);
        let dir = corpus_str(&corpus);
        let commands: [(&Path, Vec<&str>); 3] = [
            (find, vec![dir, "-name", "SKILL.md"]),
            (skillpkg, vec!["validate", dir]),
            (skillpkg, vec!["lint", dir]),
        ];
        let mut samples: [Vec<peers::Sample>; 3] = Default::default();
        for (program, args) in &commands {
            peers::measure(program, args);
        }
        for _ in 0..runs {
            for (index, (program, args)) in commands.iter().enumerate() {
                samples[index].push(peers::measure(program, args));
            }
        }
        let summary = samples.map(|runs| {
            (
                peers::median(runs.iter().map(|sample| sample.wall)),
                peers::median(runs.iter().filter_map(|sample| sample.cpu)),
                peers::median(
                    runs.iter()
                        .filter_map(|sample| sample.peak_kib)
                        .map(|kib| kib as f64 / 1024.0),
                ),
            )
        });
        rows.push(summary);
    }
    println!(
        "\nscale: validate and lint over 1,000, 10,000 and 100,000 skills (on this machine)\n"
    );
    println!(
        "| skills | command | wall | CPU | peak memory | wall / bare walk | growth from the size before (wall, CPU, memory) |"
    );
    println!("|---|---|---|---|---|---|---|");
    let labels = ["bare walk (find)", "skillpkg validate", "skillpkg lint"];
    for (row, (skills, summary)) in sizes.iter().zip(&rows).enumerate() {
        for (index, label) in labels.iter().enumerate() {
            let (wall, cpu, peak) = summary[index];
            let growth = if row == 0 {
                String::new()
            } else {
                let before = rows[row - 1][index];
                format!(
                    "{:.1}×, {:.1}×, {:.1}×",
                    wall / before.0,
                    cpu / before.1,
                    peak / before.2
                )
            };
            println!(
                "| {skills} | {label} | {wall:.3} s | {cpu:.3} s | {peak:.1} MiB | {:.2}× | {growth} |",
                wall / summary[0].0
            );
        }
    }
    for (index, label) in labels.iter().enumerate().skip(1) {
        let (small, large) = (rows[1][index], rows[2][index]);
        let (time, cpu, memory) = (large.0 / small.0, large.1 / small.1, large.2 / small.2);
        let verdict = if time <= 11.0 && memory <= 11.0 {
            "met"
        } else {
            "NOT met"
        };
        println!(
            "target: {label} grows linearly, at most 11× from 10,000 to 100,000 skills: {verdict} (time {time:.1}×, CPU {cpu:.1}×, memory {memory:.1}×; the bare walk: time {:.1}×, CPU {:.1}×)",
            rows[2][0].0 / rows[1][0].0,
            rows[2][0].1 / rows[1][0].1,
        );
    }
}
