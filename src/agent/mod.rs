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
pub(crate) mod js;
mod target;

pub(crate) use target::{
    ClawHub, KeyUse, agent_root, clawhub_package, in_unmodelled_agents_folder,
};
pub use target::{DEFAULT_TARGETS, Family, Target, UnknownTarget};

/// Every agent's reading of one SKILL.md text, for the fuzz targets and the linear-time tests:
/// Claude Code 2.1.332's frontmatter and values, Codex's parse and repair, Gemini CLI's split,
/// YAML and line scanner. Returns how many values were read, so nothing is optimised away.
#[doc(hidden)]
pub fn read_as_every_agent(text: &str) -> usize {
    let file = claude_code::skill_file::read(text);
    let mut read = 0;
    for key in [
        "name",
        "description",
        "when_to_use",
        "paths",
        "arguments",
        "allowed-tools",
    ] {
        if let Some(value) = file.get(key) {
            read += claude_code::text::sanitise(&value.to_js_string()).len();
        }
    }
    read += claude_code::skill_file::fallback(&file.body, "Skill").len();
    read += claude_code::arguments::first_command_words(text).len();
    if let Ok((name, description)) = codex::parse(text, "folder") {
        read += name.len() + codex::cap(&codex::collapse(&description)).len();
    }
    read += codex::repair(text).len();
    if let Some((yaml, body)) = gemini::split(text) {
        read += body.len();
        if let Some((name, description)) = gemini::parse_frontmatter(yaml) {
            read += name.len() + description.len();
        }
        if let Some((name, description)) = gemini::scan(yaml) {
            read += gemini::sanitise(&name).len() + description.len();
        }
    }
    read
}

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
