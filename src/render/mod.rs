//! What agents show the model: skill listings and the prompts injected when a skill runs.
//!
//! [`listing`] holds Claude Code's entry text, caps and budgets (shared with `lint`),
//! [`claude_code`] the rest of Claude Code's rendering, [`agents`] the other agents'. All of it
//! is ground-truthed against `docs/research/claude-code-captures.md` and
//! `docs/research/rendering-and-marketplaces.md` A2–A4.

pub mod agents;
pub mod claude_code;
pub mod collate;
pub mod listing;
pub mod view;
