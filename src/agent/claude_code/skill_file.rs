//! How Claude Code 2.1.332 reads a SKILL.md: the frontmatter cut out of the raw text (line
//! endings as written), parsed by Bun's YAML parser with its one retry, and each value typed
//! and turned into text the way JavaScript does. Ground truth:
//! `docs/research/claude-code-conformance.md` §1, §2, §4 and §6, recorded against the real
//! binary by `conformance/run`.
//!
//! skillpkg's own reading (`crate::skill`) serves `validate` and `lint`; this one is what
//! `preview` renders, so that it shows the bytes the agent sends.

use crate::agent::js::{is_js_space, js_number, js_trim};
use crate::skill::yaml::{self, NodeId, NodeKind, Style, Yaml};

/// A value as JavaScript holds it after Bun's YAML parser.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Js {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    List(Vec<Js>),
    Object,
}

impl Js {
    /// `String(value)`: lists joined with `,` (null and undefined items empty), objects as
    /// `[object Object]`.
    pub(crate) fn to_js_string(&self) -> String {
        match self {
            Self::Null => "null".into(),
            Self::Bool(value) => value.to_string(),
            Self::Number(value) => js_number(*value),
            Self::Str(text) => text.clone(),
            Self::List(items) => items
                .iter()
                .map(|item| match item {
                    Self::Null => String::new(),
                    other => other.to_js_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
            Self::Object => "[object Object]".into(),
        }
    }
}

/// A SKILL.md as Claude Code reads it.
#[derive(Clone, Debug, Default)]
pub(crate) struct SkillFile {
    /// The frontmatter's YAML, when it parsed (maybe after the retry).
    yaml: Option<Yaml>,
    /// Its top-level keys and their value nodes, in order (merged keys first; the last of a
    /// repeated key wins when looked up). Empty when there is no frontmatter, or its YAML failed
    /// even after the retry. Values are typed only when asked for, each within its own budget.
    pub fields: Vec<(String, NodeId)>,
    /// The body: what follows the closing `---` and all whitespace after it, line endings as
    /// written. The whole file (with its BOM) when there is no frontmatter.
    pub body: String,
}

impl SkillFile {
    /// The value of `key`, the last one when it is repeated.
    pub(crate) fn get(&self, key: &str) -> Option<Js> {
        let yaml = self.yaml.as_ref()?;
        let &(_, node) = self.fields.iter().rev().find(|(name, _)| name == key)?;
        let budget = std::cell::Cell::new(MAX_NODES);
        Some(value_of(yaml, node, 0, &budget))
    }
}

/// Reads `raw`, the file's text as decoded (BOM and line endings as in the file).
pub(crate) fn read(raw: &str) -> SkillFile {
    let text = raw.strip_prefix('\u{feff}').unwrap_or(raw);
    let Some((yaml_text, body)) = split(text) else {
        return SkillFile {
            yaml: None,
            fields: Vec::new(),
            body: raw.to_owned(),
        };
    };
    let yaml = parse(yaml_text);
    SkillFile {
        fields: yaml.as_ref().map(fields).unwrap_or_default(),
        yaml,
        body: body.to_owned(),
    }
}

/// `^---\s*\n([\s\S]*?)---\s*\n?` (JavaScript's `\s`), tried only when a `---` follows the
/// first three characters: the frontmatter's text and the body.
fn split(text: &str) -> Option<(&str, &str)> {
    let after_open = text.strip_prefix("---")?;
    text.get(3..)?.find("---")?;
    // `\s*\n`: whitespace up to a line break; backtracking lets it end at the last `\n`.
    let spaces = after_open.len() - after_open.trim_start_matches(is_js_space).len();
    let open_end = after_open[..spaces].rfind('\n')? + 1;
    let rest = &after_open[open_end..];
    let close = rest.find("---")?;
    let yaml = &rest[..close];
    let after_close = &rest[close + 3..];
    let body = after_close.trim_start_matches(is_js_space);
    Some((yaml, body))
}

/// Bun's parse, then Claude Code's one retry with risky values quoted and leading tabs made
/// spaces; `None` when both fail.
fn parse(text: &str) -> Option<Yaml> {
    if let Ok(yaml) = yaml::parse_allowing_duplicates(text, 0..text.len()) {
        return Some(yaml);
    }
    let retried = retry_text(text);
    yaml::parse_allowing_duplicates(&retried, 0..retried.len()).ok()
}

/// The retry's rewrite: each `key: value` line whose value holds `{}[]*&#!|>%@`, a backtick or
/// `: `, and is neither quoted nor a flow list, becomes `key: "value"`; then each leading tab
/// becomes two spaces.
fn retry_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let line = match risky_value(line) {
            Some((key, value)) => format!(
                "{key}: \"{}\"",
                value.replace('\\', "\\\\").replace('"', "\\\"")
            ),
            None => line.to_owned(),
        };
        let tabs = line.len() - line.trim_start_matches('\t').len();
        out.push_str(&"  ".repeat(tabs));
        out.push_str(&line[tabs..]);
    }
    out
}

/// `^([a-zA-Z_-]+):\s+(\S.*)$` on one line, where `.` matches no line terminator, and a value
/// worth quoting.
fn risky_value(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = super::reading::retry_key(line)?;
    let value = rest.trim_start_matches(is_js_space);
    if value.len() == rest.len()
        || value.is_empty()
        || value.contains(['\r', '\n', '\u{2028}', '\u{2029}'])
    {
        return None;
    }
    let quoted = value.len() >= 2
        && ((value.starts_with('"') && value.ends_with('"'))
            || (value.starts_with('\'') && value.ends_with('\'')));
    let list = value.starts_with('[')
        && value.ends_with(']')
        && yaml::parse(value, 0..value.len()).is_ok_and(|yaml| {
            yaml.root()
                .is_some_and(|root| matches!(yaml.node(root).kind, NodeKind::Sequence { .. }))
        });
    let special = value.contains([
        '{', '}', '[', ']', '*', '&', '#', '!', '|', '>', '%', '@', '`',
    ]) || value.contains(": ");
    (!quoted && !list && special).then_some((key, value))
}

/// The top-level keys and values (merge keys applied), when the root is a mapping.
fn fields(yaml: &Yaml) -> Vec<(String, NodeId)> {
    let Some(root) = yaml.root() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let budget = std::cell::Cell::new(MAX_NODES);
    collect(yaml, root, &mut out, 0, &budget);
    out
}

/// The most nodes turned into values for one file: aliases make a small text stand for an
/// exponential tree ("billion laughs"), which is cut off here (the rest reads as an object).
const MAX_NODES: usize = 100_000;

/// Takes one node from the budget; false when it is spent.
fn spend(budget: &std::cell::Cell<usize>) -> bool {
    let left = budget.get();
    budget.set(left.saturating_sub(1));
    left > 0
}

fn collect(
    yaml: &Yaml,
    id: NodeId,
    out: &mut Vec<(String, NodeId)>,
    depth: usize,
    budget: &std::cell::Cell<usize>,
) {
    let NodeKind::Mapping { entries, .. } = &yaml.resolve(id).kind else {
        return;
    };
    let key_text = |key: NodeId| match value_of(yaml, key, 0, budget) {
        Js::Str(text) => text,
        other => other.to_js_string(),
    };
    let own: Vec<(String, NodeId)> = entries
        .iter()
        .map(|&(key, value)| {
            budget.set(MAX_NODES);
            (key_text(key), value)
        })
        .collect();
    let given: std::collections::HashSet<&str> = own
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| *name != "<<")
        .collect();
    // A merge key's mapping (or list of mappings) comes first, so that the keys given here,
    // which are looked up last-wins, override it.
    let mut merged = Vec::new();
    for (name, value) in &own {
        if name != "<<" || depth >= 8 {
            continue;
        }
        match &yaml.resolve(*value).kind {
            NodeKind::Sequence { items, .. } => {
                for &item in items {
                    collect(yaml, item, &mut merged, depth + 1, budget);
                }
            }
            _ => collect(yaml, *value, &mut merged, depth + 1, budget),
        }
    }
    out.extend(
        merged
            .into_iter()
            .filter(|(name, _)| !given.contains(name.as_str())),
    );
    for (name, value) in own {
        if name != "<<" {
            out.push((name, value));
        }
    }
}

/// The deepest nesting turned into a value; deeper lists count as empty.
const MAX_DEPTH: usize = 64;

/// A node as Bun types it (YAML 1.2 core schema with Bun's own edges).
fn value_of(yaml: &Yaml, id: NodeId, depth: usize, budget: &std::cell::Cell<usize>) -> Js {
    if !spend(budget) {
        return Js::Object;
    }
    match &yaml.resolve(id).kind {
        NodeKind::Scalar(scalar) => {
            match scalar.core_tag.as_str() {
                "str" => return Js::Str(scalar.value.clone()),
                "int" | "float" => {
                    return plain(&scalar.value)
                        .filter(|value| matches!(value, Js::Number(_)))
                        .unwrap_or_else(|| Js::Str(scalar.value.clone()));
                }
                "bool" | "null" => {
                    return plain(&scalar.value).unwrap_or_else(|| Js::Str(scalar.value.clone()));
                }
                _ => {}
            }
            if scalar.style == Style::Plain {
                plain(&scalar.value).unwrap_or_else(|| Js::Str(scalar.value.clone()))
            } else {
                Js::Str(scalar.value.clone())
            }
        }
        NodeKind::Sequence { items, .. } if depth < MAX_DEPTH => Js::List(
            items
                .iter()
                .map(|&item| value_of(yaml, item, depth + 1, budget))
                .collect(),
        ),
        NodeKind::Sequence { .. } => Js::List(Vec::new()),
        NodeKind::Mapping { .. } | NodeKind::Alias(_) => Js::Object,
    }
}

/// A plain scalar's type under Bun's resolution; `None` for a string.
fn plain(text: &str) -> Option<Js> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Js::Null),
        "true" | "True" | "TRUE" => return Some(Js::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Js::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Some(Js::Number(f64::INFINITY));
        }
        "-.inf" | "-.Inf" | "-.INF" => return Some(Js::Number(f64::NEG_INFINITY)),
        ".nan" | ".NaN" | ".NAN" => return Some(Js::Number(f64::NAN)),
        _ => {}
    }
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let signed = |value: f64| Js::Number(if negative { -value } else { value });
    let radix = |digits: &str, base: u32| -> Option<f64> {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(base)) {
            return None;
        }
        Some(digits.chars().fold(0.0, |total, c| {
            total * f64::from(base) + f64::from(c.to_digit(base).unwrap_or(0))
        }))
    };
    if let Some(hex) = unsigned.strip_prefix("0x") {
        return radix(hex, 16).map(signed);
    }
    if let Some(octal) = unsigned.strip_prefix("0o") {
        return radix(octal, 8).map(signed);
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => digits(fraction),
        Some((whole, fraction)) => digits(whole) && (fraction.is_empty() || digits(fraction)),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    if !(mantissa_ok && exponent_ok) {
        return None;
    }
    // Rust reads `1.`, `.5` and `1e400` (as infinity) as JavaScript does.
    let normal = format!(
        "{}{}",
        if mantissa.starts_with('.') { "0" } else { "" },
        unsigned
    );
    normal.parse::<f64>().ok().map(signed)
}

/// The description Claude Code lists, before clean-up: a string trimmed (empty means none), a
/// number or boolean as text, anything else none.
pub(crate) fn description(value: Option<&Js>) -> Option<String> {
    match value? {
        Js::Str(text) => Some(js_trim(text))
            .filter(|t| !t.is_empty())
            .map(str::to_owned),
        value @ (Js::Number(_) | Js::Bool(_)) => Some(value.to_js_string()),
        Js::Null | Js::List(_) | Js::Object => None,
    }
}

/// Whether `paths` holds the skill back until a matching file is read: only when it names at
/// least one pattern that is not `**` (after splitting on commas outside braces, trimming,
/// dropping a trailing `/**` and empty patterns). A missing or falsy value, or one of another
/// type, lists the skill at once.
pub(crate) fn conditional(value: Option<&Js>) -> bool {
    let patterns: Vec<String> = match value {
        None | Some(Js::Null | Js::Bool(false)) => return false,
        Some(Js::Str(text)) if text.is_empty() => return false,
        Some(Js::Number(number)) if *number == 0.0 || number.is_nan() => return false,
        Some(Js::Str(text)) => split_patterns(text),
        Some(Js::List(items)) => items
            .iter()
            .filter_map(|item| match item {
                Js::Str(text) => Some(split_patterns(text)),
                _ => None,
            })
            .flatten()
            .collect(),
        Some(_) => Vec::new(),
    };
    patterns
        .iter()
        .map(|pattern| pattern.strip_suffix("/**").unwrap_or(pattern))
        .filter(|pattern| !pattern.is_empty())
        .any(|pattern| pattern != "**")
}

/// `a, b{c,d}` → `a`, `b{c,d}`: commas outside braces split, each part trimmed.
fn split_patterns(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0_usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(js_trim(&current).to_owned());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(js_trim(&current).to_owned());
    parts
}

/// The declared argument names: a list's text items, or a text split at whitespace; blank
/// names and names of digits only are dropped.
pub(crate) fn argument_names(value: Option<&Js>) -> Vec<String> {
    let keep = |name: &str| !name.trim().is_empty() && !name.bytes().all(|b| b.is_ascii_digit());
    match value {
        Some(Js::List(items)) => items
            .iter()
            .filter_map(|item| match item {
                Js::Str(text) if keep(text) => Some(text.clone()),
                _ => None,
            })
            .collect(),
        Some(Js::Str(text)) => text
            .split(is_js_space)
            .filter(|name| keep(name))
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// `when_to_use` (and `name`): `String(value)` unless null.
pub(crate) fn text_of(value: Option<&Js>) -> Option<String> {
    match value? {
        Js::Null => None,
        value => Some(value.to_js_string()),
    }
}

/// A flag such as `disable-model-invocation`: a boolean as is; text or a number lower-cased and
/// trimmed, where `1`, `true`, `yes` and `on` mean true.
pub(crate) fn flag(value: Option<&Js>) -> Option<bool> {
    match value? {
        Js::Bool(value) => Some(*value),
        value @ (Js::Str(_) | Js::Number(_)) => {
            match js_trim(&value.to_js_string().to_lowercase()) {
                "1" | "true" | "yes" | "on" => Some(true),
                "0" | "false" | "no" | "off" => Some(false),
                _ => None,
            }
        }
        Js::Null | Js::List(_) | Js::Object => None,
    }
}

/// Claude Code's fallback description (when there is none): the first body line that is not
/// empty once trimmed; a Markdown heading's text without its `#`s; cut to 97 UTF-16 units and
/// `...` when over 100 (before clean-up); `none` (`Skill`, or `Custom command` for a legacy
/// command) when there is no such line.
pub(crate) fn fallback(body: &str, none: &str) -> String {
    let Some(line) = body.split('\n').map(js_trim).find(|line| !line.is_empty()) else {
        return none.into();
    };
    let text = heading_text(line).unwrap_or(line);
    cut_units(text, 100, 97, "...")
}

/// `^#+\s+(\S.*)$`, where `.` matches no line terminator.
fn heading_text(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches('#');
    if rest.len() == line.len() {
        return None;
    }
    let text = rest.trim_start_matches(is_js_space);
    if text.len() == rest.len() || text.is_empty() {
        return None;
    }
    if text.contains(['\r', '\n', '\u{2028}', '\u{2029}']) {
        return None;
    }
    Some(text)
}

/// `text` when it has at most `limit` UTF-16 units, else its first `keep` units and `tail`; a
/// surrogate pair cut in two leaves a U+200B where its first half was.
pub(crate) fn cut_units(text: &str, limit: usize, keep: usize, tail: &str) -> String {
    let units: usize = text.chars().map(char::len_utf16).sum();
    if units <= limit {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let width = c.len_utf16();
        if used + width > keep {
            if used < keep {
                out.push('\u{200b}');
            }
            break;
        }
        used += width;
        out.push(c);
    }
    out.push_str(tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn description_of(file: &str) -> Option<String> {
        description(read(file).get("description").as_ref())
    }

    #[test]
    fn values_are_typed_as_bun_types_them() {
        for (yaml, text) in [
            ("0x1F", Some("31")),
            ("-0x1F", Some("-31")),
            ("0o17", Some("15")),
            ("017", Some("17")),
            ("0X1F", Some("0X1F")),
            ("1_000", Some("1_000")),
            ("1e3", Some("1000")),
            (".5", Some("0.5")),
            ("+12", Some("12")),
            ("1.", Some("1")),
            ("-0", Some("0")),
            ("1e21", Some("1e+21")),
            ("1e400", Some("Infinity")),
            ("-.Inf", Some("-Infinity")),
            (".NaN", Some("NaN")),
            ("-.nan", Some("-.nan")),
            ("True", Some("true")),
            ("yes", Some("yes")),
            ("~", None),
            ("Null", None),
            ("2024-01-01", Some("2024-01-01")),
            ("!!str 123", Some("123")),
            ("!!int \"5\"", Some("5")),
            ("[a, b]", None),
            ("\"  padded  \"", Some("padded")),
        ] {
            assert_eq!(
                description_of(&format!("---\ndescription: {yaml}\n---\nBody\n")).as_deref(),
                text,
                "{yaml}"
            );
        }
    }

    #[test]
    fn the_split_follows_claude_code() {
        let file = read("---\ndescription: a --- b\n---\nBody");
        assert_eq!(
            description(file.get("description").as_ref()).as_deref(),
            Some("a")
        );
        let file = read("---   \n\n\n   Indented\r\nbody\r\n");
        assert!(file.fields.is_empty());
        let file = read("---\r\nname: x\r\n---\r\n\r\n# Title\r\nText\r\n");
        assert_eq!(file.body, "# Title\r\nText\r\n");
        assert_eq!(
            read("--- yaml\nx: 1\n---\nb").body,
            "--- yaml\nx: 1\n---\nb"
        );
        let repeated = read("---\ndescription: first\ndescription: second\n---\n");
        assert_eq!(
            description(repeated.get("description").as_ref()).as_deref(),
            Some("second")
        );
        let merged = read("---\nbase: &b\n  description: merged\n<<: *b\n---\n");
        assert_eq!(
            description(merged.get("description").as_ref()).as_deref(),
            Some("merged")
        );
    }

    #[test]
    fn an_alias_bomb_is_cut_off() {
        use std::fmt::Write as _;
        let mut text = String::from("---\na0: &a0 [x,x,x,x,x,x,x,x,x,x]\n");
        for level in 1..9 {
            let refs = vec![format!("*a{}", level - 1); 10].join(",");
            let _ = writeln!(text, "a{level}: &a{level} [{refs}]");
        }
        text.push_str("description: still read\n---\nBody\n");
        let started = std::time::Instant::now();
        let file = read(&text);
        assert_eq!(
            description(file.get("description").as_ref()).as_deref(),
            Some("still read")
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn the_retry_quotes_risky_values_and_fixes_tabs() {
        let file = read("---\ndescription: Use when: you need it\n---\n");
        assert_eq!(
            description(file.get("description").as_ref()).as_deref(),
            Some("Use when: you need it")
        );
        let crlf = read("---\r\ndescription: Use when: crlf\r\n---\r\nBody\r\n");
        assert_eq!(description(crlf.get("description").as_ref()), None);
    }

    #[test]
    fn the_fallback_is_the_first_line_with_text() {
        assert_eq!(fallback("\n\n# Heading\nx", "Skill"), "Heading");
        assert_eq!(fallback("###\nx", "Skill"), "###");
        assert_eq!(fallback("## \nx", "Skill"), "##");
        assert_eq!(fallback("#NoSpace title", "Skill"), "#NoSpace title");
        assert_eq!(fallback("  \n\t\n", "Skill"), "Skill");
        assert_eq!(fallback("", "Custom command"), "Custom command");
        assert_eq!(fallback("\u{feff}\nnext", "Skill"), "next");
        let emoji = "😀".repeat(60);
        assert_eq!(
            fallback(&emoji, "Skill"),
            format!("{}\u{200b}...", "😀".repeat(48))
        );
    }

    #[test]
    fn paths_hold_a_skill_back_only_with_a_real_pattern() {
        for (yaml, held) in [
            ("\"**\"", false),
            ("\"**/**\"", false),
            ("\"/**\"", false),
            ("\"\"", false),
            ("\",\"", false),
            ("[]", false),
            ("[\"\"]", false),
            ("~", false),
            ("5", false),
            ("true", false),
            ("[5]", false),
            ("{a: 1}", false),
            ("\"*\"", true),
            ("\"**/*\"", true),
            ("\"src\"", true),
            ("[\"**\", \"src/*.py\"]", true),
            ("\"nomatch/*.x, *.txt\"", true),
        ] {
            let file = read(&format!("---\npaths: {yaml}\n---\n"));
            assert_eq!(conditional(file.get("paths").as_ref()), held, "{yaml}");
        }
    }

    #[test]
    fn when_to_use_and_flags_follow_javascript() {
        let file = read(
            "---\nwhen_to_use: [null, 1, true]\nother: {a: 1}\ndisable-model-invocation: 0x1\n---\n",
        );
        assert_eq!(
            text_of(file.get("when_to_use").as_ref()).as_deref(),
            Some(",1,true")
        );
        assert_eq!(
            text_of(file.get("other").as_ref()).as_deref(),
            Some("[object Object]")
        );
        assert_eq!(
            flag(file.get("disable-model-invocation").as_ref()),
            Some(true)
        );
    }
}
