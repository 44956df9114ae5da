//! `cargo bench --bench package`: packing a 100 MB skill of about 2,000 mixed files (60 % text,
//! 40 % random binary), against `zip -r -q -6` on the same tree, with peak memory; and checks
//! that two packs are byte-identical.
//!
//! The target from the package issue: at most half of `zip -r -q -6`'s time, and peak memory
//! under 64 MB whatever the bundle size.
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

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("skillpkg-bench");
    let tree = work.join("big");
    let skill = tree.join("big-skill");
    let stamp = tree.join(".complete-v1");
    if !stamp.exists() {
        let _ = fs_err::remove_dir_all(&tree);
        corpus::big_skill(&skill, 100 * 1024 * 1024, 2000, 1).expect("write the big skill");
        fs_err::write(&stamp, "").expect("stamp");
    }
    let skillpkg = env!("CARGO_BIN_EXE_skillpkg");
    let out_a = work.join("big-a.skill");
    let out_b = work.join("big-b.skill");
    let ours = time(5, || {
        Command::new(skillpkg)
            .args([
                "package",
                skill.to_str().unwrap(),
                "-o",
                out_a.to_str().unwrap(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run skillpkg")
    });
    let zip_out = work.join("big-zip.zip");
    let zip = time(3, || {
        let _ = fs_err::remove_file(&zip_out);
        Command::new("zip")
            .args(["-r", "-q", "-6", zip_out.to_str().unwrap(), "big-skill"])
            .current_dir(&tree)
            .status()
            .expect("run zip (install Info-ZIP's zip to compare)")
    });
    let peak = peak_kib(skillpkg, &skill, &out_b);
    let same = fs_err::read(&out_a).ok() == fs_err::read(&out_b).ok();
    let size = fs_err::metadata(&out_a).map_or(0, |m| m.len());
    println!("\nskillpkg package benchmark: {}\n", skill.display());
    println!("| command | median | archive |\n|---|---|---|");
    println!("| skillpkg package | {ours:.3} s | {size} bytes |");
    println!(
        "| zip -r -q -6 | {zip:.3} s | {} bytes |",
        fs_err::metadata(&zip_out).map_or(0, |m| m.len())
    );
    println!(
        "\npeak memory of skillpkg package: {}",
        peak.map_or("n/a".to_owned(), |kib| format!(
            "{:.1} MiB",
            kib as f64 / 1024.0
        ))
    );
    println!("two packs byte-identical: {same}");
    let verdict = if ours <= zip / 2.0 { "met" } else { "NOT met" };
    println!(
        "target: at most half of zip -6 ({:.3} s): {verdict}",
        zip / 2.0
    );
    let memory = if peak.is_some_and(|kib| kib < 64 * 1024) {
        "met"
    } else {
        "NOT met"
    };
    println!("target: peak memory under 64 MB: {memory}");
    unpack_many(&work, skillpkg);
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

/// Median wall and CPU (user + sys) seconds of `runs` runs, timed by `/usr/bin/time`.
fn cpu_time(runs: usize, mut make: impl FnMut() -> Command) -> (f64, f64) {
    let report = std::env::temp_dir().join(format!("skillpkg-bench-time-{}", std::process::id()));
    let mut samples: Vec<(f64, f64)> = (0..runs)
        .map(|_| {
            let command = make();
            let status = Command::new("/usr/bin/time")
                .args(["-f", "%e %U %S", "-o"])
                .arg(&report)
                .arg(command.get_program())
                .args(command.get_args())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("run /usr/bin/time");
            assert!(status.success(), "the command failed");
            let text = fs_err::read_to_string(&report).expect("read the timing");
            let fields: Vec<f64> = text
                .lines()
                .last()
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|field| field.parse().ok())
                .collect();
            (fields[0], fields[1] + fields[2])
        })
        .collect();
    samples.sort_by(|a, b| a.0.total_cmp(&b.0));
    samples[samples.len() / 2]
}

fn time(runs: usize, mut run: impl FnMut() -> std::process::ExitStatus) -> f64 {
    let _ = run();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let status = run();
            assert!(status.success(), "the command failed");
            started.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn peak_kib(skillpkg: &str, skill: &Path, out: &Path) -> Option<u64> {
    let rss = std::env::temp_dir().join(format!("skillpkg-package-rss-{}", std::process::id()));
    let status = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(&rss)
        .arg(skillpkg)
        .args(["package", skill.to_str()?, "-o", out.to_str()?])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    fs_err::read_to_string(&rss)
        .ok()?
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}
