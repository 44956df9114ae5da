//! Embeds `templates/` in the binary: every file becomes an entry of `FILES` in
//! `$OUT_DIR/templates.rs`, which `src/scaffold` includes. Adding a file to `templates/` is all
//! it takes to ship it.

// A build script's errors are panics that name the path; fs-err would add nothing here.
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"))
        .join("templates");
    println!("cargo::rerun-if-changed={}", root.display());

    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();

    let mut code = String::from(
        "/// Every file under `templates/`: (path relative to `templates/`, contents).\n\
         pub(super) static FILES: &[(&str, &str)] = &[\n",
    );
    for path in &files {
        let relative = path
            .strip_prefix(&root)
            .expect("a path under templates/")
            .iter()
            .map(|part| part.to_str().expect("template paths are UTF-8"))
            .collect::<Vec<_>>()
            .join("/");
        let absolute = path.to_str().expect("template paths are UTF-8");
        writeln!(code, "    ({relative:?}, include_str!({absolute:?})),")
            .expect("write to a String");
    }
    code.push_str("];\n");

    let out = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("templates.rs");
    std::fs::write(&out, code).unwrap_or_else(|error| panic!("write {}: {error}", out.display()));
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|error| panic!("read {}: {error}", dir.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|error| panic!("read {}: {error}", dir.display()));
        let path = entry.path();
        let kind = entry
            .file_type()
            .unwrap_or_else(|error| panic!("stat {}: {error}", path.display()));
        if kind.is_dir() {
            collect(&path, out);
        } else if kind.is_file() {
            out.push(path);
        } else {
            panic!(
                "{}: templates hold plain files and folders only",
                path.display()
            );
        }
    }
}
