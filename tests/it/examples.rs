//! The example skills in `examples/skills/`: the README's quick start runs on them and later
//! commands' tests use them, so they must stay clean for every target.

use std::path::{Path, PathBuf};

use clap::ValueEnum as _;
use skillpkg::agent::Target;

use crate::common::{TestContext, run};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/skills")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs_err::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn examples_are_clean_for_every_target() {
    let context = TestContext::new();
    let root = examples();
    let mut args = vec![root.to_str().unwrap(), "--format", "concise"];
    for target in Target::value_variants() {
        args.extend(["--target", target.name()]);
    }
    let (code, stdout, stderr) = run(context.validate(&args));
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("all 4 valid (no problems)"), "{stderr}");
    let mut lint = vec![
        "lint".to_owned(),
        root.to_str().unwrap().to_owned(),
        "--format".into(),
        "concise".into(),
    ];
    for target in Target::value_variants() {
        lint.extend(["--target".into(), target.name().into()]);
    }
    let lint: Vec<&str> = lint.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = run(context.command(&lint));
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("Linted 4 skills"), "{stderr}");
}

#[test]
fn example_files_are_mentioned_and_scripts_are_runnable() {
    for skill in fs_err::read_dir(examples()).unwrap() {
        let skill = skill.unwrap().path();
        let text = fs_err::read_to_string(skill.join("SKILL.md")).unwrap();
        for file in files_under(&skill) {
            let relative = file
                .strip_prefix(&skill)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if relative == "SKILL.md" {
                continue;
            }
            assert!(
                text.contains(&relative),
                "{}: {relative} is never mentioned",
                skill.display()
            );
            if relative.starts_with("scripts/") {
                let contents = fs_err::read_to_string(&file).unwrap();
                assert!(
                    contents.starts_with("#!/usr/bin/env "),
                    "{relative} has no shebang"
                );
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt as _;
                    let mode = fs_err::metadata(&file).unwrap().permissions().mode();
                    assert_eq!(mode & 0o111, 0o111, "{relative} is not executable");
                }
            }
        }
    }
}
