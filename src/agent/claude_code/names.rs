//! Names in Claude Code 2.1.332's listing: which skill folders it accepts at all, and when a
//! line shows the frontmatter `name` beside the folder (`- dir (name): …`). Ground truth:
//! `docs/research/claude-code-conformance.md` §5, recorded against the real binary.

use unicode_general_category::{GeneralCategory, get_general_category};

use crate::agent::claude_code::text::is_invisible;

/// Names Claude Code's own commands and skills answer to (2.1.332, as seen offline): a skill
/// whose `name` is one of them is listed under its folder alone.
pub(crate) const COMMAND_NAMES: &[&str] = &[
    "add-dir", "agents", "auto-mode-setup", "autocompact", "batch", "branch", "btw", "bug", "cd",
    "claude-api", "clear", "code-review", "color", "compact", "config", "context", "copy",
    "dataviz", "debug", "diff", "doctor", "effort", "exit", "export", "fast", "feedback",
    "fewer-permission-prompts", "focus", "fork", "heapdump", "help", "hooks", "ide", "init",
    "insights", "keybindings", "keybindings-help", "login", "logout", "loop", "mcp", "memory",
    "mobile", "model", "output-style", "passes", "permissions", "plan", "plugin",
    "plugin-authoring", "powerup", "pro-trial-expired", "radio", "release-notes",
    "reload-plugins", "reload-skills", "rename", "resume", "rewind", "run", "sandbox",
    "scroll-speed", "security-review", "setup-bedrock", "setup-vertex", "simplify", "skills",
    "status", "statusline", "stickers", "subtask", "tasks", "team-onboarding", "terminal-setup",
    "theme", "tui", "update-config", "usage", "workflow-authoring", "workflow-launch-exec",
];

/// Claude Code's check of a name a user sees: no control, format or other invisible character,
/// no `<` or `>`, no space other than U+0020, no double, leading or trailing space, no
/// combining mark that does not follow a letter, digit or mark, no soft-dotted letter followed
/// by U+0307, and no nine marks in a row.
pub(crate) fn is_clean_name(name: &str) -> bool {
    if name.starts_with(' ') || name.ends_with(' ') || name.contains("  ") {
        return false;
    }
    let mut previous: Option<char> = None;
    let mut marks = 0;
    for c in name.chars() {
        let category = get_general_category(c);
        if c == '<' || c == '>' || is_invisible(c) || is_default_ignorable(c) {
            return false;
        }
        if category == GeneralCategory::SpaceSeparator && c != ' ' {
            return false;
        }
        if is_mark(category) {
            let follows = previous.is_some_and(|p| {
                let before = get_general_category(p);
                is_letter(before) || is_number(before) || is_mark(before)
            });
            if !follows {
                return false;
            }
            if c == '\u{307}' && previous.is_some_and(is_soft_dotted) {
                return false;
            }
            marks += 1;
            if marks >= 9 {
                return false;
            }
        } else {
            marks = 0;
        }
        previous = Some(c);
    }
    true
}

/// Whether Claude Code accepts a skill folder of this name: a clean name, with no leading or
/// trailing `:` and no space beside a `:`. Other folders are not listed at all.
pub(crate) fn is_accepted_folder(name: &str) -> bool {
    is_clean_name(name)
        && !name.starts_with(':')
        && !name.ends_with(':')
        && !name.contains(" :")
        && !name.contains(": ")
}

/// `^[\p{L}\p{M}\p{N}_:.-]+$`, at most 256 UTF-16 units: a name that may be shown beside the
/// folder.
pub(crate) fn is_showable(name: &str) -> bool {
    !name.is_empty()
        && name.chars().map(char::len_utf16).sum::<usize>() <= 256
        && name.chars().all(|c| {
            let category = get_general_category(c);
            is_letter(category)
                || is_mark(category)
                || is_number(category)
                || matches!(c, '_' | ':' | '.' | '-')
        })
}

fn is_letter(category: GeneralCategory) -> bool {
    matches!(
        category,
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
    )
}

fn is_mark(category: GeneralCategory) -> bool {
    matches!(
        category,
        GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::EnclosingMark
    )
}

fn is_number(category: GeneralCategory) -> bool {
    matches!(
        category,
        GeneralCategory::DecimalNumber | GeneralCategory::LetterNumber | GeneralCategory::OtherNumber
    )
}

/// Default-ignorable code points that are not already invisible (fillers, CGJ, selectors).
fn is_default_ignorable(c: char) -> bool {
    matches!(
        u32::from(c),
        0x034F | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F | 0x3164 | 0xFE00..=0xFE0F
            | 0xFFA0 | 0xE0100..=0xE01EF
    )
}

/// Letters whose dot a following U+0307 would double (i, j and their kin).
fn is_soft_dotted(c: char) -> bool {
    matches!(
        c,
        'i' | 'j' | '\u{12f}' | '\u{249}' | '\u{268}' | '\u{29d}' | '\u{2b2}' | '\u{3f3}'
            | '\u{456}' | '\u{458}' | '\u{1d62}' | '\u{1d96}' | '\u{1da4}' | '\u{1da8}'
            | '\u{1e2d}' | '\u{1ecb}' | '\u{2071}' | '\u{2148}' | '\u{2149}' | '\u{2c7c}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_claude_code_refuses() {
        for accepted in ["my skill", "UpperDir", "rocket-🚀", "a:b", ".dotdir", "ünïcode", "a&b"] {
            assert!(is_accepted_folder(accepted), "{accepted}");
        }
        for refused in [":colon", "two  spaces", "trail ", " lead", "zw\u{200b}sp", "n\u{a0}bsp", "a :b"] {
            assert!(!is_accepted_folder(refused), "{refused:?}");
        }
    }

    #[test]
    fn names_that_may_be_shown() {
        for shown in ["other-name", "N-Case", "café", "a_b.c", "ns:thing", "123"] {
            assert!(is_showable(shown) && is_clean_name(shown), "{shown}");
        }
        for hidden in ["Has Spaces", "a/b", "a<b", "rocket🚀", "abc ", "a,b", "[object Object]"] {
            assert!(!(is_showable(hidden) && is_clean_name(hidden)), "{hidden}");
        }
        assert!(!is_clean_name("i\u{307}x"));
        assert!(!is_clean_name("\u{301}x"));
    }
}
