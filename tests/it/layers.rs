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
    &["fsx", "parallel", "interrupt", "dates"],
    &["skill"],
    &["agent"],
    &["check", "render"],
    &["output", "pack", "scaffold"],
    &["registry"],
    &["publish"],
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
        let text = code(&fs_err::read_to_string(&path).unwrap());
        for (at, to) in targets(&text, &module) {
            if to != from && (modules.contains(&to) || to == HIDDEN) {
                first
                    .entry((from.clone(), to.clone()))
                    .or_insert_with(|| Edge {
                        from: from.clone(),
                        to,
                        file: format!("src/{}", relative.display()),
                        line: text[..at].matches('\n').count() + 1,
                    });
            }
        }
    }
    first.into_values().collect()
}

/// What an edge points at when the source hides it: a glob or an alias of the crate root
/// (`use crate::*`, `use crate as c`), or a module loaded from elsewhere (`#[path]`).
const HIDDEN: &str = "*";

/// `text` with comments and the insides of string and character literals blanked out, line
/// breaks kept, so that offsets and line numbers stay those of the file.
fn code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char, out: &mut String| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(chars[i], &mut out);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(chars[i], &mut out);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !ident_char(chars.get(i.wrapping_sub(1)).copied())
        {
            // A raw string: r"…", r#"…"#.
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let start = i + 2 + hashes;
            out.extend(std::iter::repeat_n(' ', start - i));
            let mut j = start;
            while j < chars.len() && !chars[j..].starts_with(&close.chars().collect::<Vec<_>>()) {
                blank(chars[j], &mut out);
                j += 1;
            }
            out.extend(std::iter::repeat_n(
                ' ',
                close.chars().count().min(chars.len() - j),
            ));
            i = (j + close.chars().count()).min(chars.len());
        } else if c == '"' || (c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')))
        {
            // A string, or a character literal ('x', '\n', '\u{1F600}') but not a lifetime ('a):
            // blank everything up to the closing quote, escapes included.
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != c {
                let escaped = chars[i] == '\\';
                blank(chars[i], &mut out);
                i += 1;
                if escaped && i < chars.len() {
                    blank(chars[i], &mut out);
                    i += 1;
                }
            }
            if i < chars.len() {
                out.push(' ');
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The top-level modules that `code` (see [`code`]), the source of the module at `module` (a
/// path from the crate root), names, each with its offset: `crate::x`, `$crate::x`,
/// `crate::{x, y::z}` (across lines too), and `super::` chains that reach the crate root.
/// A glob or an alias of the crate root, and `#[path]`, are reported as [`HIDDEN`].
fn targets(code: &str, module: &[String]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let at_word_start = |at: usize| !ident_char(code[..at].chars().next_back());
    for (at, _) in code.match_indices("crate") {
        if !at_word_start(at) || ident_char(code[at + 5..].chars().next()) {
            continue;
        }
        let rest = code[at + 5..].trim_start();
        if rest.starts_with("as ") || rest.starts_with("as\t") {
            out.push((at, HIDDEN.to_owned()));
            continue;
        }
        let Some(rest) = rest.strip_prefix("::") else {
            continue;
        };
        let rest = rest.trim_start();
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
                    '*' if item_start && depth == 0 => out.push((at, HIDDEN.to_owned())),
                    c if item_start && (c.is_alphabetic() || c == '_') => {
                        out.push((at, ident(&group[index..])));
                        item_start = false;
                    }
                    c if c.is_whitespace() => {}
                    _ => item_start = false,
                }
            }
        } else if rest.starts_with('*') {
            out.push((at, HIDDEN.to_owned()));
        } else {
            out.push((at, ident(rest)));
        }
    }
    // `super::super::x` from `check::lint::body` is `crate::check::x`; only a chain that
    // climbs to the root leaves the module.
    let mut search = 0;
    while let Some(found) = code[search..].find("super::") {
        let start = search + found;
        let mut rest = &code[start..];
        let mut climbs = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = after.trim_start();
        }
        if climbs >= module.len() + inline_modules(code, start) && at_word_start(start) {
            if rest.starts_with('*') {
                out.push((start, HIDDEN.to_owned()));
            } else {
                out.push((start, ident(rest)));
            }
        }
        search = code.len() - rest.len();
    }
    for (at, _) in code.match_indices("#[path") {
        out.push((at, HIDDEN.to_owned()));
    }
    out.retain(|(_, name)| !name.is_empty() && name != "self");
    out
}

/// How many inline modules (`mod tests { … }`) enclose offset `at` of `code`.
fn inline_modules(code: &str, at: usize) -> usize {
    let mut depth = 0usize;
    let mut opened: Vec<usize> = Vec::new();
    let mut pending_mod = false;
    let mut words = code[..at].split_inclusive(['{', '}', ';']);
    for piece in words.by_ref() {
        let last = piece.chars().next_back();
        let head = piece.trim_end_matches(['{', '}', ';']);
        if head.split_whitespace().rev().nth(1) == Some("mod") {
            pending_mod = last == Some('{');
        }
        match last {
            Some('{') => {
                if pending_mod {
                    opened.push(depth);
                }
                depth += 1;
            }
            Some('}') => {
                depth = depth.saturating_sub(1);
                if opened.last() == Some(&depth) {
                    opened.pop();
                }
            }
            _ => {}
        }
        pending_mod = false;
    }
    opened.len()
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
        if edge.to == HIDDEN {
            out.push(format!(
                "{}:{}: `{}` uses the crate through a glob, an alias or a `#[path]` module, which hides which modules it uses; name them",
                edge.file, edge.line, edge.from
            ));
            continue;
        }
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
    // The crate root only declares modules: a `use` there could re-export one module's items
    // under the root and hide the edge.
    let lib = code(&fs_err::read_to_string(src.join("lib.rs")).unwrap());
    assert!(
        !lib.split_whitespace().any(|word| word == "use"),
        "src/lib.rs has a `use`; the crate root only declares modules"
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
    // Edges that a line-by-line reading would miss: a group over several lines (as rustfmt
    // writes long ones), after a string holding `//`, and `$crate` in a macro. Comments and
    // strings that mention a module are no edge.
    write(
        "skill/text.rs",
        "/* crate::check */ const URL: &str = \"http://x/crate::check\";\nuse crate::{\n    agent::A,\n    fsx,\n};\nfn f() { let _ = \"//\"; crate::check::run(); }\nmacro_rules! m { () => { $crate::agent::x() } }\n",
    );
    let found: Vec<(String, usize)> = edges(src)
        .into_iter()
        .filter(|edge| edge.from == "skill")
        .map(|edge| (edge.to, edge.line))
        .collect();
    assert_eq!(
        found,
        [("agent".to_owned(), 2), ("check".to_owned(), 6)],
        "{found:?}"
    );
    // A glob or an alias of the crate root hides the edges, and is refused.
    for hidden in [
        "use crate::*;\n",
        "use crate as root;\n",
        "use crate::{agent, *};\n",
    ] {
        write("skill/text.rs", hidden);
        let found = violations(&edges(src));
        assert!(
            found
                .iter()
                .any(|message| message.contains("through a glob, an alias")),
            "{hidden}: {found:?}"
        );
    }
    // `use super::*` in an inline `mod tests` is the module itself, not the crate root.
    write(
        "skill/text.rs",
        "pub fn t() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
    );
    assert!(violations(&edges(src)).is_empty());
    // `check` and `render` share a layer and may not use each other.
    write("render/mod.rs", "use super::check::Checked;\n");
    let found = violations(&edges(src));
    assert!(
        found.iter().any(|message| message
            .starts_with("src/render/mod.rs:1: `render` uses `check`, a module of the same layer")),
        "{found:?}"
    );
}
