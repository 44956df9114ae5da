//! `cargo bench --bench package`: `skillpkg package` against `zip -r -q -6` on the same trees,
//! interleaved in one run, wall and CPU time side by side, archive sizes, peak memory and
//! determinism; then the deflate back-ends on the same files in this process, one core.
//!
//! Two trees:
//! - **mixed**: a 100 MB skill of about 2,000 files (60 % text of a few words, 40 % random
//!   binary), as in `docs/research/peers.md` §4;
//! - **word text**: 2,000 files of word-like text around 50 KB (a 4,000-word vocabulary of made
//!   up words), which compresses the way prose does rather than nearly to nothing.
//!
//! The targets, from the performance issue, as ratios to zip in the same run (machines differ
//! several-fold, and a second core gives anything from 1.3× to 2×): CPU time and wall time at
//! most 0.5× zip's, archives at most 3 % larger than zip's, two packs byte-identical, and peak
//! memory under 64 MiB whatever the bundle size.
//!
//! Then unpacking an archive of 20,000 tiny files (the hardening issue: one fsync per file made
//! it take 10–23 s), against `unzip -q` of the same archive in the same run, wall and CPU time.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

#[allow(dead_code)]
mod corpus;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Bumped when a tree's generator changes, so cached trees are rebuilt.
const TREES_VERSION: u32 = 2;

#[allow(clippy::too_many_lines)] // one report, printed top to bottom
fn main() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("skillpkg-bench");
    let skillpkg = env!("CARGO_BIN_EXE_skillpkg");
    let runs = std::env::args()
        .skip_while(|arg| arg != "--runs")
        .nth(1)
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(5usize)
        .max(1);
    let trees = [
        (
            "mixed, 100 MB in 2,000 files",
            tree(&work, "big", "big-skill", |skill| {
                corpus::big_skill(skill, 100 * 1024 * 1024, 2000, 1)
            }),
        ),
        (
            "word text, 2,000 files of ~50 KB",
            tree(&work, "words", "word-text", |skill| {
                corpus::word_text_skill(skill, 2000, 50_000, 7)
            }),
        ),
    ];
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!("\nskillpkg package benchmark ({cores} cores; median of {runs} interleaved runs)\n");
    println!(
        "| tree | command | wall | user + sys CPU | archive | peak memory |\n|---|---|---|---|---|---|"
    );
    let mut verdicts = Vec::new();
    for (label, skill) in &trees {
        let out_a = work.join("bench-a.skill");
        let out_b = work.join("bench-b.skill");
        let zip_out = work.join("bench-zip.zip");
        let parent = skill.parent().expect("the tree's folder");
        let folder = skill
            .file_name()
            .and_then(|name| name.to_str())
            .expect("a name");
        let ours_command = || {
            let mut command = Command::new(skillpkg);
            command.arg("package").arg(skill).arg("-o").arg(&out_a);
            command
        };
        let zip_command = || {
            let _ = fs_err::remove_file(&zip_out);
            let mut command = Command::new("zip");
            command
                .args(["-r", "-q", "-6"])
                .arg(&zip_out)
                .arg(folder)
                .current_dir(parent);
            command
        };
        let mut ours = Vec::new();
        let mut zip = Vec::new();
        // One warm-up each, then interleaved so that drift touches both alike.
        measure(&mut ours_command());
        measure(&mut zip_command());
        for _ in 0..runs {
            ours.push(measure(&mut ours_command()));
            zip.push(measure(&mut zip_command()));
        }
        let ours = median(ours);
        let zip = median(zip);
        let mut second = Command::new(skillpkg);
        second.arg("package").arg(skill).arg("-o").arg(&out_b);
        let peak = measure(&mut second).2;
        let same = fs_err::read(&out_a).ok() == fs_err::read(&out_b).ok();
        let ours_size = fs_err::metadata(&out_a).map_or(0, |m| m.len());
        let zip_size = fs_err::metadata(&zip_out).map_or(0, |m| m.len());
        for (command, (wall, cpu, peak), size) in [
            ("skillpkg package", (ours.0, ours.1, peak), ours_size),
            ("zip -r -q -6", zip, zip_size),
        ] {
            println!(
                "| {label} | {command} | {wall:.3} s | {cpu:.3} s | {size} bytes | {:.1} MiB |",
                peak as f64 / 1024.0
            );
        }
        let (wall, cpu, size) = (
            ours.0 / zip.0,
            ours.1 / zip.1,
            ours_size as f64 / zip_size as f64,
        );
        println!(
            "| {label} | **ratio to zip -6** | **{wall:.2}×** | **{cpu:.2}×** | **{size:.3}×** | |"
        );
        verdicts.push(format!(
            "{label}: wall ≤ 0.5× zip: {}; CPU ≤ 0.5× zip: {}; archive ≤ 1.03× zip: {}; peak under 64 MiB: {}; two packs byte-identical: {}",
            met(wall <= 0.5),
            met(cpu <= 0.5),
            met(size <= 1.03),
            met(peak < 64 * 1024),
            met(same),
        ));
    }
    println!();
    for verdict in &verdicts {
        println!("target, {verdict}");
    }
    for (label, skill) in &trees {
        backends(label, skill);
    }
    unpack_many(&work, skillpkg);
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "NOT met" }
}

/// The skill folder of a generated tree, written once per [`TREES_VERSION`].
fn tree(
    work: &Path,
    name: &str,
    skill: &str,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> PathBuf {
    let tree = work.join(name);
    let folder = tree.join(skill);
    let stamp = tree.join(format!(".complete-v{TREES_VERSION}"));
    if !stamp.exists() {
        let _ = fs_err::remove_dir_all(&tree);
        write(&folder).expect("write the benchmark tree");
        fs_err::write(&stamp, "").expect("stamp");
    }
    folder
}

/// Every file under `dir`, read into memory.
fn read_tree(dir: &Path) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs_err::read_dir(&folder).expect("read the tree") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(fs_err::read(&path).expect("read a file"));
            }
        }
    }
    files
}

/// Each deflate back-end over every file of `skill`, whole buffers, one core: CPU seconds and
/// the compressed total (a file that would not shrink counted as stored).
fn backends(label: &str, skill: &Path) {
    let files = read_tree(skill);
    let total: usize = files.iter().map(Vec::len).sum();
    println!("\ndeflate back-ends on {label} ({total} bytes, one core, in process):\n");
    println!("| back-end | level | time | compressed |\n|---|---|---|---|");
    for level in [1, 4, 5, 6] {
        let started = Instant::now();
        let mut compressor =
            libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level).expect("a level"));
        let mut out = 0;
        let mut buffer = Vec::new();
        for file in &files {
            buffer.resize(compressor.deflate_compress_bound(file.len()), 0);
            let n = compressor
                .deflate_compress(file, &mut buffer)
                .expect("compress");
            out += n.min(file.len());
        }
        println!(
            "| libdeflate | {level} | {:.3} s | {out} |",
            started.elapsed().as_secs_f64()
        );
    }
    for level in [1, 5, 6] {
        let started = Instant::now();
        let mut out = 0;
        for file in &files {
            let mut encoder = flate2::write::DeflateEncoder::new(
                Vec::with_capacity(file.len() / 2),
                flate2::Compression::new(level),
            );
            encoder.write_all(file).expect("compress");
            out += encoder.finish().expect("compress").len().min(file.len());
        }
        println!(
            "| zlib-rs (flate2) | {level} | {:.3} s | {out} |",
            started.elapsed().as_secs_f64()
        );
    }
}

/// Wall seconds, user + sys CPU seconds and peak RSS (KiB) of one run, from `/usr/bin/time`.
fn measure(command: &mut Command) -> (f64, f64, u64) {
    let report = std::env::temp_dir().join(format!("skillpkg-bench-time-{}", std::process::id()));
    let started = Instant::now();
    let status = Command::new("/usr/bin/time")
        .args(["-f", "%U %S %M", "-o"])
        .arg(&report)
        .arg(command.get_program())
        .args(command.get_args())
        .current_dir(
            command
                .get_current_dir()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run /usr/bin/time (install GNU time)");
    let wall = started.elapsed().as_secs_f64();
    assert!(status.success(), "{command:?} failed");
    let text = fs_err::read_to_string(&report).expect("read the timing");
    let fields: Vec<f64> = text
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|field| field.parse().ok())
        .collect();
    (wall, fields[0] + fields[1], fields[2] as u64)
}

/// The run with the median wall time.
fn median(mut samples: Vec<(f64, f64, u64)>) -> (f64, f64, u64) {
    samples.sort_by(|a, b| a.0.total_cmp(&b.0));
    samples[samples.len() / 2]
}

/// `skillpkg unpack` of 20,000 tiny entries against `unzip -q`, median of three runs each.
fn unpack_many(work: &Path, skillpkg: &str) {
    let tree = work.join("tiny");
    let archive = work.join("tiny.skill");
    if !archive.exists() {
        let skill = tree.join("tiny");
        let _ = fs_err::remove_dir_all(&tree);
        fs_err::create_dir_all(skill.join("files")).expect("create the tiny skill");
        fs_err::write(
            skill.join("SKILL.md"),
            "---\nname: tiny\ndescription: Twenty thousand tiny files. Use when benchmarking unpack.\n---\n\nBody.\n",
        )
        .expect("write SKILL.md");
        for index in 0..19_999 {
            fs_err::write(
                skill.join(format!("files/{index:05}.txt")),
                index.to_string(),
            )
            .expect("write a tiny file");
        }
        let status = Command::new(skillpkg)
            .args([
                "package",
                skill.to_str().unwrap(),
                "-o",
                archive.to_str().unwrap(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run skillpkg");
        assert!(status.success(), "packing the tiny skill failed");
    }
    let out = work.join("tiny-out");
    let ours = cpu_time(3, || {
        let _ = fs_err::remove_dir_all(&out);
        let mut command = Command::new(skillpkg);
        command.args([
            "unpack",
            archive.to_str().unwrap(),
            "--dir",
            out.to_str().unwrap(),
        ]);
        command
    });
    let unzip = cpu_time(3, || {
        let _ = fs_err::remove_dir_all(&out);
        let mut command = Command::new("unzip");
        command.args(["-q", archive.to_str().unwrap(), "-d", out.to_str().unwrap()]);
        command
    });
    println!("\nunpacking 20,000 tiny files (median of 3):\n");
    println!("| command | wall | user + sys CPU |\n|---|---|---|");
    for (label, (wall, cpu)) in [("skillpkg unpack", ours), ("unzip -q", unzip)] {
        println!("| {label} | {wall:.3} s | {cpu:.3} s |");
    }
    println!(
        "ratio to unzip -q: wall {:.2}x, CPU {:.2}x",
        ours.0 / unzip.0,
        ours.1 / unzip.1
    );
}

/// Median wall and CPU (user + sys) seconds of `runs` runs of the commands `make` makes.
fn cpu_time(runs: usize, mut make: impl FnMut() -> Command) -> (f64, f64) {
    let (wall, cpu, _) = median((0..runs).map(|_| measure(&mut make())).collect());
    (wall, cpu)
}
