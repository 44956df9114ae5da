//! Claude Code's skill listing, as far as lint needs it: the entry text of one skill, where the
//! per-entry cap cuts it, its width, and what happens when a set of skills is over the budget.
//! Ground truth: `docs/research/claude-code-captures.md` §3–§5 (2.1.332) and
//! `docs/research/rendering-and-marketplaces.md` A2 (2.1.88). `preview` renders the same listing in
//! full.

use crate::agent::claude_code::text;
use unicode_width::UnicodeWidthChar as _;

/// The listing's first line.
pub const HEADER: &str = "The following skills are available for use with the Skill tool:";

/// Per-entry cap of Claude Code 2.1.332, in UTF-16 units, `…` included.
pub const CAP_CURRENT: usize = 1536;
/// Per-entry cap of Claude Code 2.1.88.
pub(crate) const CAP_2188: usize = 250;

/// Which version's entry rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CapStyle {
    /// 2.1.332: sanitised and escaped, then cut at 1,536 units.
    Current,
    /// 2.1.88: raw text, cut at 250 units.
    V2188,
}

impl CapStyle {
    pub(crate) fn cap(self) -> usize {
        match self {
            Self::Current => CAP_CURRENT,
            Self::V2188 => CAP_2188,
        }
    }
}

/// Claude Code's clean-up of a description or `when_to_use`: JavaScript's `trim` first when
/// asked (descriptions are trimmed, `when_to_use` is not), then [`text::sanitise`].
pub(crate) fn sanitise(text: &str, trim: bool) -> String {
    text::sanitise(if trim {
        crate::agent::js::js_trim(text)
    } else {
        text
    })
}

fn is_separator(c: char) -> bool {
    c == '\u{1b}' || text::is_invisible(c)
}

/// `<` and `>` as entities; nothing else is escaped.
pub fn escape(text: &str) -> String {
    text::escape(text)
}

/// The entry text: `description`, then ` - ` and `when_to_use` when set.
pub(crate) fn entry_text(description: &str, when_to_use: Option<&str>, style: CapStyle) -> String {
    match style {
        CapStyle::Current => {
            let mut text = sanitise(description, true);
            if let Some(extra) = when_to_use.filter(|extra| !extra.is_empty()) {
                text.push_str(" - ");
                text.push_str(&sanitise(extra, false));
            }
            text
        }
        CapStyle::V2188 => match when_to_use {
            Some(extra) => format!("{description} - {extra}"),
            None => description.to_owned(),
        },
    }
}

/// Length in UTF-16 code units, as JavaScript counts.
pub(crate) fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// The entry text after the cap: cut to `cap - 1` units plus `…` when longer than `cap`.
pub fn capped(text: &str, cap: usize) -> String {
    if utf16_len(text) <= cap {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut units = 0;
    for c in text.chars() {
        // A cut through a surrogate pair sends a lone surrogate, which arrives as U+FFFD.
        if units + c.len_utf16() > cap - 1 {
            if units < cap - 1 {
                out.push('\u{FFFD}');
            }
            break;
        }
        units += c.len_utf16();
        out.push(c);
    }
    out.push('…');
    out
}

/// Where the cap cuts an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    pub cap: usize,
    pub total_units: usize,
    /// Units kept before the `…`.
    pub kept_units: usize,
    /// The text kept before the `…`.
    pub kept: String,
    /// The cut falls in `when_to_use`.
    pub in_when_to_use: bool,
    /// Byte offset in the raw description where the cut falls, when the description maps onto
    /// the entry text character by character.
    pub source_offset: Option<usize>,
}

/// Where the cap cuts this skill's entry, or `None` when it fits.
pub(crate) fn entry_cut(
    description: &str,
    when_to_use: Option<&str>,
    style: CapStyle,
) -> Option<Cut> {
    let cap = style.cap();
    let text = entry_text(description, when_to_use, style);
    let total_units = utf16_len(&text);
    if total_units <= cap {
        return None;
    }
    let capped = capped(&text, cap);
    let kept = capped.trim_end_matches('…').to_owned();
    let kept_units = utf16_len(&kept);
    let description_units = utf16_len(&entry_text(description, None, style));
    let in_when_to_use = kept_units >= description_units;
    // Map back when the description needs no clean-up beyond escaping.
    let simple = match style {
        CapStyle::Current => {
            description.trim() == description
                && !description
                    .chars()
                    .any(|c| c == '\u{1b}' || is_separator(c))
        }
        CapStyle::V2188 => true,
    };
    let source_offset = (simple && !in_when_to_use).then(|| {
        let mut units = 0;
        for (at, c) in description.char_indices() {
            let width = match (style, c) {
                (CapStyle::Current, '<' | '>') => 4,
                _ => c.len_utf16(),
            };
            if units + width > kept_units {
                return at;
            }
            units += width;
        }
        description.len()
    });
    Some(Cut {
        cap,
        total_units,
        kept_units,
        kept,
        in_when_to_use,
        source_offset,
    })
}

/// Terminal columns, as Claude Code's `stringWidth` counts: wide (CJK, emoji) characters 2,
/// combining marks 0, line breaks 0.
pub(crate) fn width(text: &str) -> usize {
    text.chars()
        .map(|c| if c == '\n' { 0 } else { c.width().unwrap_or(0) })
        .sum()
}

/// A listing entry for the budget: the skill's name and its capped description text.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub name: String,
    pub text: String,
}

/// What happens to the listing of `entries` (in listing order) under a budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Budgeted {
    pub budget: usize,
    /// Columns the full listing needs, with the reserve.
    pub needed: usize,
    /// Entries whose description is dropped (2.1.332) or shortened (2.1.88), by index.
    pub affected: Vec<usize>,
    /// 2.1.88: the columns each description is cut to (0: names only).
    pub share: Option<usize>,
}

/// Claude Code 2.1.332's budget in columns: `context window × chars per token × 1%`.
pub fn budget(context_window: usize, chars_per_token: usize) -> usize {
    (context_window * chars_per_token / 100).max(1)
}

/// Characters per token in Claude Code 2.1.332's budget: 4 for the "legacy" models, 3 for
/// newer ones (captures §2, §5). Lint has no model to go by, only a window: the 200,000-token
/// models in the captures are all legacy ones, the 1,000,000-token default is not.
pub(crate) fn chars_per_token(context_window: usize) -> usize {
    if context_window <= 200_000 { 4 } else { 3 }
}

/// Columns Claude Code's own skills take in the listing of 2.1.332 (its 11 bundled skills,
/// which are never shortened, with their line breaks), measured in the captures by
/// binary-searching the budget (§5: thresholds 7,485, 7,558 and 7,726).
pub const BUNDLED_RESERVE: usize = 6_040;

/// Claude Code's built-in prompt commands, listed after the bundled skills and shortened like
/// the user's (captures §3, §5).
pub(crate) const BUILTIN_ENTRIES: &[(&str, &str)] = &[
    (
        "init",
        "Initialize a new CLAUDE.md file with codebase documentation",
    ),
    (
        "security-review",
        "Complete a security review of the pending changes on the current branch",
    ),
];

/// Columns 2.1.332's listing of `entries` needs whole: their lines, the built-in commands',
/// the line breaks between all of them and Claude Code's own skills (`reserve`).
pub(crate) fn needed_current(entries: &[Entry], reserve: usize) -> usize {
    let lines: usize = entries
        .iter()
        .map(|entry| width(&format!("- {}: {}", entry.name, entry.text)))
        .chain(
            BUILTIN_ENTRIES
                .iter()
                .map(|(name, text)| width(&format!("- {name}: {text}"))),
        )
        .sum();
    // The reserve's entries count in N - 1 too: 11 bundled lines.
    lines + entries.len() + BUILTIN_ENTRIES.len() + 11 - 1 + reserve
}

/// 2.1.332: all-or-nothing per description, in listing order (no usage data), skipping a
/// description that does not fit and going on; names are never dropped.
pub(crate) fn over_budget_current(
    entries: &[Entry],
    budget: usize,
    reserve: usize,
) -> Option<Budgeted> {
    let all: Vec<Entry> = entries
        .iter()
        .cloned()
        .chain(BUILTIN_ENTRIES.iter().map(|(name, text)| Entry {
            name: (*name).to_owned(),
            text: (*text).to_owned(),
        }))
        .collect();
    let full = |entry: &Entry| width(&format!("- {}: {}", entry.name, entry.text));
    let bare = |entry: &Entry| width(&format!("- {}", entry.name));
    // The reserve's entries count in N - 1 too: 11 bundled lines.
    let separators = all.len() + 11 - 1;
    let needed = needed_current(entries, reserve);
    if needed <= budget {
        return None;
    }
    let mut used = all.iter().map(bare).sum::<usize>() + separators + reserve;
    let mut affected = Vec::new();
    for (index, entry) in all.iter().enumerate() {
        let extra = full(entry) - bare(entry);
        if used + extra <= budget {
            used += extra;
        } else if index < entries.len() {
            affected.push(index);
        }
    }
    Some(Budgeted {
        budget,
        needed,
        affected,
        share: None,
    })
}

/// 2.1.88: an equal share of what is left after the names, for every description; names only
/// when the share is under 20 columns. No bundled skills are modelled.
pub(crate) fn over_budget_2188(entries: &[Entry], budget: usize) -> Option<Budgeted> {
    let full: Vec<usize> = entries
        .iter()
        .map(|entry| width(&format!("- {}: {}", entry.name, entry.text)))
        .collect();
    let needed = full.iter().sum::<usize>() + entries.len().saturating_sub(1);
    if needed <= budget || entries.is_empty() {
        return None;
    }
    let overhead: usize = entries
        .iter()
        .map(|entry| width(&entry.name) + 4)
        .sum::<usize>()
        + entries.len().saturating_sub(1);
    let share = budget.saturating_sub(overhead) / entries.len();
    let affected = entries
        .iter()
        .enumerate()
        .filter(|(_, entry)| share < 20 || width(&entry.text) > share)
        .map(|(index, _)| index)
        .collect();
    Some(Budgeted {
        budget,
        needed,
        affected,
        share: Some(if share < 20 { 0 } else { share }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitises_as_captured() {
        // captures §3, row by row.
        assert_eq!(sanitise("line1\nline2\n\nline4", true), "line1 line2 line4");
        assert_eq!(sanitise("a \n b", true), "a   b");
        assert_eq!(sanitise("a\t\tb", true), "a b");
        assert_eq!(sanitise("a   b\tc  d\r\ne  ", true), "a   b c  d e");
        assert_eq!(
            sanitise("a\u{a0}b\u{2028}c\u{2029}d\u{85}e", true),
            "a\u{a0}b c d e"
        );
        assert_eq!(sanitise("a\u{200b}b", true), "a b");
        assert_eq!(sanitise("a\u{202e}b\u{2066}c", true), "a b c");
        assert_eq!(sanitise("a\u{1b}[31mb", true), "ab");
        assert_eq!(sanitise("a\u{1b}]0;title\u{7}b", true), "ab");
        assert_eq!(sanitise("a\u{1b}b", true), "a");
        assert_eq!(
            sanitise("Uses <tags> & \"quotes\"", true),
            "Uses &lt;tags&gt; & \"quotes\""
        );
        assert_eq!(
            sanitise("<<>> &amp; &lt;", true),
            "&lt;&lt;&gt;&gt; &amp; &lt;"
        );
        assert_eq!(sanitise("   lead and trail   ", true), "lead and trail");
        assert_eq!(
            sanitise("   when lead and trail   ", false),
            "   when lead and trail   "
        );
        assert_eq!(
            entry_text(
                "Desc five.",
                Some("When one.\nWhen two.\n"),
                CapStyle::Current
            ),
            "Desc five. - When one. When two. "
        );
    }

    #[test]
    fn caps_as_captured() {
        // captures §4: 1,536 units with the ellipsis; 1,536 is not cut, 1,537 is.
        assert_eq!(entry_cut(&"x".repeat(1536), None, CapStyle::Current), None);
        let cut = entry_cut(&"x".repeat(1537), None, CapStyle::Current).unwrap();
        assert_eq!((cut.kept_units, cut.source_offset), (1535, Some(1535)));
        let text = capped(&"漢".repeat(2000), CAP_CURRENT);
        assert_eq!(text.chars().count(), 1536);
        let emoji = capped(&"😀".repeat(1000), CAP_CURRENT);
        assert!(emoji.ends_with("😀\u{FFFD}…"));
        assert_eq!(emoji.chars().filter(|c| *c == '😀').count(), 767);
        // The cap counts escaped text: `<` is four units.
        let cut = entry_cut(&"<".repeat(1000), None, CapStyle::Current).unwrap();
        assert!(cut.kept.ends_with("&lt"));
        assert_eq!(cut.source_offset, Some(383));
        // 2.1.88: 250 units, raw.
        let cut = entry_cut(&"y".repeat(300), None, CapStyle::V2188).unwrap();
        assert_eq!((cut.kept_units, cut.source_offset), (249, Some(249)));
        let cut = entry_cut("short", Some(&"w".repeat(1600)), CapStyle::Current).unwrap();
        assert!(cut.in_when_to_use);
    }

    #[test]
    fn budget_matches_the_captured_runs() {
        // captures §5: 150 skills sk-001…sk-150 with 300-character descriptions.
        let entries: Vec<Entry> = (1..=150)
            .map(|i| Entry {
                name: format!("sk-{i:03}"),
                text: "d".repeat(300),
            })
            .collect();
        let kept = |budget: usize| {
            let result = over_budget_current(&entries, budget, BUNDLED_RESERVE).unwrap();
            150 - result.affected.len()
        };
        assert_eq!(budget(1_000_000, 3), 30_000);
        assert_eq!(budget(200_000, 4), 8_000);
        assert_eq!(kept(30_000), 74);
        assert_eq!(kept(10_000), 8);
        assert_eq!(kept(8_000), 1);
        assert_eq!(kept(40_000), 107);
        assert_eq!(kept(2_000), 0);
    }
}
