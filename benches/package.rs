//! `cargo bench --bench package`: packing a 100 MB skill of about 2,000 mixed files (60 % text,
//! 40 % random binary), against `zip -r -q -6` on the same tree, with peak memory; and checks
//! that two packs are byte-identical.
//!
//! The target from the package issue: at most half of `zip -r -q -6`'s time, and peak memory
//! under 64 MB whatever the bundle size.

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
