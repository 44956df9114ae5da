//! The layers of `src/` form a DAG (`docs/architecture.md` §2): a module may use only modules
//! of a lower layer. The edges come from the source itself: every `crate::…` path (in `use`
//! lines and in code, braces included) and every `super::…` that climbs out of a top-level
//! module, outside comments.
//!
//! `cargo test --test it layers -- --nocapture` prints the module graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// The layers, lowest first. Modules in one layer may not use each other either: `check` and
/// `render` both build on `agent`, and neither knows the other.
const LAYERS: &[&[&str]] = &[
    &["fsx", "parallel", "interrupt"],
    &["skill"],
    &["agent"],
    &["check", "render"],
    &["output", "pack", "scaffold"],
    &["registry"],
    &["commands"],
];

/// The crate root's files, which may use anything.
const ROOTS: &[&str] = &["lib", "main"];

/// One use of `to` by `from`, first seen in `file` at `line`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    file: String,
    line: usize,
}

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// Every edge between top-level modules in the tree at `src`, one per (from, to) pair, at its
/// first occurrence.
fn edges(src: &Path) -> Vec<Edge> {
    let mut files = Vec::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs_err::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    // The names that are top-level modules: a path such as `crate::parse` (a function in
    // lib.rs) or a `super::` inside an inline `mod tests` names no module.
    let modules: BTreeSet<String> = fs_err::read_dir(src)
        .unwrap()
        .map(|entry| {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            name.trim_end_matches(".rs").to_owned()
        })
        .collect();
    let mut first: BTreeMap<(String, String), Edge> = BTreeMap::new();
    for path in files {
        let relative = path.strip_prefix(src).unwrap();
        let mut module: Vec<String> = relative
            .iter()
            .map(|part| part.to_string_lossy().into_owned())
            .collect();
        let last = module.pop().unwrap();
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" {
            module.push(stem.to_owned());
        }
        let from = module[0].clone();
        if ROOTS.contains(&from.as_str()) {
            continue;
        }
        let text = fs_err::read_to_string(&path).unwrap();
        for (index, line) in text.lines().enumerate() {
            for to in targets(code(line), &module) {
                if to != from && modules.contains(&to) {
                    first
                        .entry((from.clone(), to.clone()))
                        .or_insert_with(|| Edge {
                            from: from.clone(),
                            to,
                            file: format!("src/{}", relative.display()),
                            line: index + 1,
                        });
                }
            }
        }
    }
    first.into_values().collect()
}

/// A line without its `//` comment (doc comments included). A `//` inside a string literal
/// cuts the line early, which can only hide text, never invent an edge.
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |at| &line[..at])
}

/// The top-level modules that `line`, in the module at `module` (a path from the crate root),
/// names: `crate::x`, `crate::{x, y::z}`, and `super::` chains that reach the crate root.
fn targets(line: &str, module: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices("crate::") {
        if line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            continue;
        }
        let rest = &line[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The top-level items of a brace group: `{a::b, c, d::{e, f}}`.
            let mut depth = 0usize;
            let mut item_start = true;
            for (index, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphabetic() || c == '_') => {
                        out.push(ident(&group[index..]));
                        item_start = false;
                    }
                    c if c.is_whitespace() => {}
                    _ => item_start = false,
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    // `super::super::x` from `check::lint::body` is `crate::check::x`; only a chain that
    // climbs to the root leaves the module.
    let mut search = 0;
    while let Some(found) = line[search..].find("super::") {
        let start = search + found;
        let mut rest = &line[start..];
        let mut climbs = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = after;
        }
        if climbs >= module.len() {
            out.push(ident(rest));
        }
        search = line.len() - rest.len();
    }
    out.retain(|name| !name.is_empty() && name != "self");
    out
}

fn ident(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The edges that break the order, as messages naming the file and the edge.
fn violations(edges: &[Edge]) -> Vec<String> {
    let mut out = Vec::new();
    for edge in edges {
        let message = match (layer(&edge.from), layer(&edge.to)) {
            (Some(from), Some(to)) if to < from => continue,
            (Some(from), Some(to)) if to == from => format!(
                "{}:{}: `{}` uses `{}`, a module of the same layer; move what both need into a lower layer",
                edge.file, edge.line, edge.from, edge.to
            ),
            (Some(_), Some(_)) => format!(
                "{}:{}: `{}` uses `{}`, a higher layer (the order is {}); move what it needs down",
                edge.file,
                edge.line,
                edge.from,
                edge.to,
                order()
            ),
            (None, _) => format!(
                "{}: `{}` is in no layer; add it to LAYERS in tests/it/layers.rs",
                edge.file, edge.from
            ),
            (_, None) => format!(
                "{}:{}: `{}` uses `{}`, which is in no layer; add it to LAYERS in tests/it/layers.rs",
                edge.file, edge.line, edge.from, edge.to
            ),
        };
        out.push(message);
    }
    out
}

fn order() -> String {
    LAYERS
        .iter()
        .map(|layer| layer.join(" | "))
        .collect::<Vec<_>>()
        .join(" → ")
}

/// The graph, one line per module: what it uses.
fn graph(edges: &[Edge]) -> String {
    let mut by_module: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for edge in edges {
        by_module.entry(&edge.from).or_default().insert(&edge.to);
    }
    let mut out = String::new();
    for layer in LAYERS.iter().rev() {
        for module in *layer {
            let used = by_module.get(module).map_or_else(String::new, |to| {
                to.iter().copied().collect::<Vec<_>>().join(", ")
            });
            let _ = writeln!(out, "{module:>9} → {used}");
        }
    }
    out
}

#[test]
#[expect(
    clippy::print_stdout,
    reason = "the graph is this test's report, seen with --nocapture"
)]
fn the_source_follows_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = edges(&src);
    println!("{}", graph(&edges));
    let violations = violations(&edges);
    assert!(
        violations.is_empty(),
        "edges against the layer order:\n{}",
        violations.join("\n")
    );
    // Every top-level module is placed.
    for entry in fs_err::read_dir(&src).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let module = name.trim_end_matches(".rs");
        assert!(
            ROOTS.contains(&module) || layer(module).is_some(),
            "src/{name} is in no layer; add it to LAYERS in tests/it/layers.rs"
        );
    }
}

#[test]
fn a_back_edge_in_a_small_tree_is_caught_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |path: &str, text: &str| {
        let path = src.join(path);
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        fs_err::write(path, text).unwrap();
    };
    write(
        "lib.rs",
        "pub mod skill;\npub mod agent;\npub mod check;\npub mod render;\n",
    );
    write(
        "skill/mod.rs",
        "//! Uses crate::check only in a comment.\npub mod text;\n",
    );
    write("skill/text.rs", "pub fn t() {}\n");
    write(
        "agent/mod.rs",
        "use crate::skill::text;\nmod tests { use super::helper; }\n",
    );
    write(
        "check/mod.rs",
        "use crate::{agent, skill::text};\npub mod rules;\n",
    );
    write("check/rules/mod.rs", "use super::super::skill;\n");
    let clean = edges(src);
    assert_eq!(
        clean
            .iter()
            .map(|edge| format!("{}→{}", edge.from, edge.to))
            .collect::<Vec<_>>(),
        ["agent→skill", "check→agent", "check→skill"]
    );
    assert!(violations(&clean).is_empty(), "{:?}", violations(&clean));

    // A back-edge, written inside a brace group in code, not in a `use` line.
    write(
        "skill/text.rs",
        "pub fn t() { let _ = crate::{check::Checked}; }\n",
    );
    let found = violations(&edges(src));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/skill/text.rs:1: `skill` uses `check`, a higher layer"),
        "{found:?}"
    );
    // `check` and `render` share a layer and may not use each other.
    write("render/mod.rs", "use super::check::Checked;\n");
    let found = violations(&edges(src));
    assert!(
        found.iter().any(|message| message
            .starts_with("src/render/mod.rs:1: `render` uses `check`, a module of the same layer")),
        "{found:?}"
    );
}
