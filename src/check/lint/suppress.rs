//! Suppression comments in SKILL.md.
//!
//! ```markdown
//! <!-- skillpkg-disable-next-line SK301 -->
//! <!-- skillpkg-disable SK303 broken-reference --> … <!-- skillpkg-enable SK303 -->
//! <!-- skillpkg-disable-file placeholder-text -->
//! ```
//!
//! In the frontmatter the same directives are YAML comments: `# skillpkg-disable-next-line SK015`.
//! Rules are named by code or kebab name, separated by spaces or commas; a directive without
//! rules applies to every rule. A directive that suppresses nothing is reported
//! (`unused-suppression`), as is one naming a rule that does not exist.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use crate::check::diagnostic::Diagnostic;
use crate::check::fix::{Applicability, Fix};
use crate::check::rule::{self, Rule, UNUSED_SUPPRESSION};
use crate::skill::text::SourceText;

/// What a directive does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    NextLine,
    Disable,
    Enable,
    File,
}

impl Kind {
    fn keyword(self) -> &'static str {
        match self {
            Self::NextLine => "skillpkg-disable-next-line",
            Self::Disable => "skillpkg-disable",
            Self::Enable => "skillpkg-enable",
            Self::File => "skillpkg-disable-file",
        }
    }
}

/// One rule named in a directive.
#[derive(Clone, Debug)]
pub struct Named {
    pub written: String,
    pub rule: Option<&'static Rule>,
}

/// One suppression comment.
#[derive(Clone, Debug)]
pub struct Directive {
    pub kind: Kind,
    /// The comment's span.
    pub span: Range<usize>,
    /// The comment's 1-based line.
    pub line: usize,
    /// The comment is alone on its line (its fix may delete the line).
    pub whole_line: Option<Range<usize>>,
    /// Empty: every rule.
    pub rules: Vec<Named>,
    pub used_any: bool,
    /// The codes of the rules it suppressed a finding of.
    pub used: HashSet<&'static str>,
}

impl Directive {
    fn mark(&mut self, rule: &Rule) {
        self.used_any = true;
        self.used.insert(rule.code);
    }

    /// The codes of the rules it names (none: it applies to every rule).
    fn codes(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.rules
            .iter()
            .filter_map(|named| named.rule.map(|rule| rule.code))
    }
}

fn body_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"<!--\s*(skillpkg-disable-next-line|skillpkg-disable-file|skillpkg-disable|skillpkg-enable)\b([^>]*?)\s*-->")
            .expect("a valid pattern")
    })
}

fn yaml_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"(?m)^[ \t]*#[ \t]*(skillpkg-disable-next-line|skillpkg-disable-file|skillpkg-disable|skillpkg-enable)\b([^\n]*)$")
            .expect("a valid pattern")
    })
}

/// Every directive in `source`: YAML comments inside `frontmatter`, HTML comments in the body
/// outside `fences`.
pub fn parse(
    source: &SourceText,
    frontmatter: Option<Range<usize>>,
    body_start: usize,
    fences: &[Range<usize>],
) -> Vec<Directive> {
    let text = source.text();
    let mut out = Vec::new();
    if let Some(range) = frontmatter {
        for captures in yaml_pattern().captures_iter(&text[range.clone()]) {
            let whole = captures.get(0).expect("the match");
            let span = range.start + whole.start()..range.start + whole.end();
            out.push(directive(source, span, &captures[1], &captures[2]));
        }
    }
    for captures in body_pattern().captures_iter(&text[body_start..]) {
        let whole = captures.get(0).expect("the match");
        let span = body_start + whole.start()..body_start + whole.end();
        if super::in_ranges(fences, span.start) {
            continue;
        }
        out.push(directive(source, span, &captures[1], &captures[2]));
    }
    out
}

fn directive(source: &SourceText, span: Range<usize>, keyword: &str, rules: &str) -> Directive {
    let kind = match keyword {
        "skillpkg-disable-next-line" => Kind::NextLine,
        "skillpkg-disable-file" => Kind::File,
        "skillpkg-disable" => Kind::Disable,
        _ => Kind::Enable,
    };
    let line = source.position(span.start).line;
    let line_range = source.line_range(line);
    // Alone on its line: only blanks between it and the line's ends. Looking outwards from the
    // comment stops at the first other character, so many comments on one line stay cheap.
    let text = source.text();
    let blank_before = text[line_range.start..span.start]
        .chars()
        .rev()
        .all(char::is_whitespace);
    let blank_after = blank_before
        && span.end <= line_range.end
        && text[span.end..line_range.end]
            .chars()
            .all(char::is_whitespace);
    let whole_line = blank_after.then(|| {
        let end = (line_range.end + 1).min(text.len());
        line_range.start..end
    });
    let rules = rules
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|word| !word.is_empty())
        .map(|word| Named {
            written: word.to_owned(),
            rule: rule::find(word),
        })
        .collect();
    Directive {
        kind,
        span,
        line,
        whole_line,
        rules,
        used_any: false,
        used: HashSet::new(),
    }
}

/// The suppressions of one skill and what they have matched so far.
#[derive(Clone, Debug, Default)]
pub struct Suppressions {
    pub directives: Vec<Directive>,
    /// Built on first use: which directive covers what, so that each finding is looked up
    /// rather than compared with every directive.
    index: OnceLock<Box<Index>>,
}

/// Directives by what they cover; values are indexes into [`Suppressions::directives`], in
/// order. A directive naming no rule is filed under `None`.
#[derive(Clone, Debug, Default)]
struct Index {
    /// `skillpkg-disable-file`: the first per rule.
    file: HashMap<Option<&'static str>, usize>,
    /// `skillpkg-disable-next-line`: the first per line and rule.
    next_line: HashMap<(usize, Option<&'static str>), usize>,
    /// `skillpkg-disable` and `skillpkg-enable`, per rule: (line, index), in order.
    ranges: HashMap<Option<&'static str>, Vec<(usize, usize)>>,
}

impl Index {
    fn build(directives: &[Directive]) -> Self {
        let mut index = Self::default();
        for (at, directive) in directives.iter().enumerate() {
            let keys: Vec<Option<&'static str>> = if directive.rules.is_empty() {
                vec![None]
            } else {
                directive.codes().map(Some).collect()
            };
            for key in keys {
                match directive.kind {
                    Kind::File => {
                        index.file.entry(key).or_insert(at);
                    }
                    Kind::NextLine => {
                        index.next_line.entry((directive.line, key)).or_insert(at);
                    }
                    Kind::Disable | Kind::Enable => {
                        let list = index.ranges.entry(key).or_default();
                        if list.last().is_none_or(|&(_, last)| last != at) {
                            list.push((directive.line, at));
                        }
                    }
                }
            }
        }
        index
    }

    /// The first of the two entries for `code` and for every rule.
    fn first<K: std::hash::Hash + Eq>(map: &HashMap<K, usize>, code: &K, all: &K) -> Option<usize> {
        match (map.get(code), map.get(all)) {
            (Some(&a), Some(&b)) => Some(a.min(b)),
            (found, other) => found.or(other).copied(),
        }
    }

    /// The last range directive for `code` (or for every rule) above `line`.
    fn last_range_before(&self, code: &'static str, line: usize) -> Option<usize> {
        let last = |key: Option<&'static str>| {
            let list = self.ranges.get(&key)?;
            let before = list.partition_point(|&(at_line, _)| at_line < line);
            before.checked_sub(1).map(|i| list[i].1)
        };
        last(Some(code)).max(last(None))
    }
}

impl Suppressions {
    pub fn new(directives: Vec<Directive>) -> Self {
        Self {
            directives,
            index: OnceLock::new(),
        }
    }

    /// Removes the findings a directive covers from `diagnostics`, remembering which directive
    /// was used. Findings about other files, or about SKILL.md as a whole, can only be
    /// suppressed for the whole file.
    pub fn apply(&mut self, diagnostics: &mut Vec<Diagnostic>, source: &SourceText) {
        if self.directives.is_empty() {
            return;
        }
        diagnostics.retain_mut(|diagnostic| {
            if std::ptr::eq(diagnostic.rule, &raw const UNUSED_SUPPRESSION) {
                return true;
            }
            let line = match (&diagnostic.span, &diagnostic.file) {
                (Some(span), None) => Some(source.position(span.start).line),
                _ => None,
            };
            if !self.suppresses(diagnostic.rule, line) {
                return true;
            }
            // Agents skip the skill whatever a comment says: it stays, as `validate` reports
            // it (the comment counts as used, so it is not also reported as stale).
            if diagnostic.is_load_error() {
                diagnostic.note = Some(match diagnostic.note.take() {
                    Some(note) => format!(
                        "{note}; a suppression comment cannot hide this: agents skip the skill"
                    ),
                    None => "a suppression comment cannot hide this: agents skip the skill".into(),
                });
                return true;
            }
            false
        });
    }

    fn suppresses(&mut self, rule: &'static Rule, line: Option<usize>) -> bool {
        let index = self
            .index
            .get_or_init(|| Box::new(Index::build(&self.directives)));
        let code = rule.code;
        // Ranges: the last disable/enable above the line decides.
        let range_hit = line
            .and_then(|line| index.last_range_before(code, line))
            .filter(|&at| self.directives[at].kind == Kind::Disable);
        let hit = Index::first(&index.file, &Some(code), &None)
            .or_else(|| {
                let above = line?.checked_sub(1)?;
                Index::first(&index.next_line, &(above, Some(code)), &(above, None))
            })
            .or(range_hit);
        match hit {
            Some(at) => {
                self.directives[at].mark(rule);
                true
            }
            None => false,
        }
    }

    /// Findings about directives that matched nothing, or name unknown rules. Until
    /// `set_rules_done`, directives naming a rule checked across skills (`SK6xx`), or every
    /// rule, are left for later.
    pub fn unused(&self, set_rules_done: bool) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for directive in &self.directives {
            if directive.kind == Kind::Enable {
                continue;
            }
            let keyword = directive.kind.keyword();
            for named in &directive.rules {
                if named.rule.is_none() {
                    out.push(
                        Diagnostic::warning(&UNUSED_SUPPRESSION, format!("`{keyword}` names `{}`, which is not a rule", named.written))
                            .at(directive.span.clone())
                            .help("use a rule's code (`SK301`) or name (`body-too-long`); `skillpkg rule` lists them"),
                    );
                }
            }
            let waits = |named: &Named| named.rule.is_some_and(|rule| rule.code.starts_with("SK6"));
            if !set_rules_done && (directive.rules.is_empty() || directive.rules.iter().any(waits))
            {
                continue;
            }
            let known: Vec<&Named> = directive
                .rules
                .iter()
                .filter(|named| named.rule.is_some())
                .collect();
            let unused: Vec<&Named> = known
                .iter()
                .copied()
                .filter(|named| {
                    named
                        .rule
                        .is_some_and(|rule| !directive.used.contains(rule.code))
                })
                .collect();
            let all_unused = if directive.rules.is_empty() {
                !directive.used_any
            } else {
                !known.is_empty() && unused.len() == known.len()
            };
            if all_unused {
                let what = if directive.rules.is_empty() {
                    String::new()
                } else {
                    format!(
                        " {}",
                        directive
                            .rules
                            .iter()
                            .map(|n| n.written.as_str())
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                };
                let mut diagnostic = Diagnostic::warning(
                    &UNUSED_SUPPRESSION,
                    format!("`{keyword}{what}` suppresses nothing"),
                )
                .at(directive.span.clone())
                .help("remove it");
                let range = directive
                    .whole_line
                    .clone()
                    .unwrap_or_else(|| directive.span.clone());
                diagnostic = diagnostic.fix(Fix::replace(
                    Applicability::Safe,
                    "remove the unused suppression",
                    range,
                    "",
                ));
                out.push(diagnostic);
            } else {
                for named in unused {
                    out.push(
                        Diagnostic::warning(
                            &UNUSED_SUPPRESSION,
                            format!("`{keyword}` suppresses no `{}` finding", named.written),
                        )
                        .at(directive.span.clone())
                        .help(format!("remove `{}` from it", named.written)),
                    );
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::rule::{BODY_TOO_LONG, PLACEHOLDER_TEXT};

    fn source(text: &str) -> SourceText {
        SourceText::from_string(text.to_owned())
    }

    #[test]
    fn parses_body_and_frontmatter_directives() {
        let text = "---\n# skillpkg-disable-next-line SK015\nname: x\n---\n<!-- skillpkg-disable-file placeholder-text, SK999 -->\n```\n<!-- skillpkg-disable SK301 -->\n```\n";
        let source = source(text);
        let directives = parse(
            &source,
            Some(4..38),
            42,
            std::slice::from_ref(&(text.find("```").unwrap()..text.len())),
        );
        assert_eq!(directives.len(), 2);
        assert_eq!(
            (directives[0].kind, directives[0].line),
            (Kind::NextLine, 2)
        );
        assert_eq!(directives[1].kind, Kind::File);
        assert_eq!(directives[1].rules[0].rule, Some(&PLACEHOLDER_TEXT));
        assert!(directives[1].rules[1].rule.is_none());
    }

    #[test]
    fn next_line_ranges_and_unused() {
        let text = "a\n<!-- skillpkg-disable-next-line SK301 -->\nb\n<!-- skillpkg-disable SK209 -->\nc\n<!-- skillpkg-enable SK209 -->\nd\n";
        let source = source(text);
        let mut suppressions = Suppressions::new(parse(&source, None, 0, &[]));
        let line = |n: usize| Some(n);
        assert!(suppressions.suppresses(&BODY_TOO_LONG, line(3)));
        assert!(!suppressions.suppresses(&BODY_TOO_LONG, line(5)));
        assert!(suppressions.suppresses(&PLACEHOLDER_TEXT, line(5)));
        assert!(!suppressions.suppresses(&PLACEHOLDER_TEXT, line(7)));
        assert!(suppressions.unused(true).is_empty());
        let mut fresh = Suppressions::new(parse(&source, None, 0, &[]));
        let unused = fresh.unused(true);
        assert_eq!(unused.len(), 2);
        assert!(unused[0].fix.is_some());
        let _ = &mut fresh;
    }

    #[test]
    fn a_comment_alone_on_its_line_is_whole_line_and_one_over_two_lines_is_not() {
        let text = "a\n  <!-- skillpkg-disable-next-line SK301 -->  \n<!-- skillpkg-disable-file SK301\n-->\n";
        let directives = parse(&source(text), None, 0, &[]);
        assert_eq!(directives.len(), 2);
        assert_eq!(directives[0].whole_line, Some(2..48));
        assert_eq!(
            directives[1].whole_line, None,
            "spans two lines: only the comment goes"
        );
    }
}
