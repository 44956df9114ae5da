//! What each agent does with a skill, as data and pure functions: how it finds and reads
//! SKILL.md, which keys it honours, how it lists, caps and budgets descriptions, and how it
//! runs a skill (substitution, inline shell and its permission check).
//!
//! This is the one home of that knowledge: `check` (validate and lint) and `render` (preview)
//! both ask here, so they cannot disagree about the same skill. [`Target`] names an agent
//! version; [`claude_code`] holds Claude Code's behaviour, [`codex`] Codex CLI's and
//! [`gemini`] Gemini CLI's; [`collate`] the name order that
//! JavaScript agents use. Where each fact comes from is in `docs/agents.md`.

pub mod claude_ai;
pub mod claude_code;
pub(crate) mod codex;
pub mod collate;
pub(crate) mod gemini;
mod target;

pub use target::{DEFAULT_TARGETS, Family, Target, UnknownTarget};

/// Estimated tokens: one per 4 ASCII bytes, one per non-ASCII character.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    let bytes = text.as_bytes();
    let ascii = bytes.iter().filter(|b| b.is_ascii()).count();
    // Non-ASCII characters: their first bytes (not 10xxxxxx continuation bytes).
    let other = bytes.iter().filter(|&&b| b >= 0xC0).count();
    ascii.div_ceil(4) + other
}

#[cfg(test)]
mod tests {
    #[test]
    fn token_estimate() {
        assert_eq!(super::estimate_tokens("abcd"), 1);
        assert_eq!(super::estimate_tokens("abcde"), 2);
        assert_eq!(super::estimate_tokens("漢字"), 2);
    }
}
