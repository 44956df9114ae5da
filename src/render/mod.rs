//! What agents show the model, assembled: skill listings and the prompts injected when a skill
//! runs. The rules these follow (entry text, caps, budgets, order, substitution, inline shell)
//! live in [`crate::agent`]; this layer puts them together for `preview`. [`claude_code`] renders
//! Claude Code's listing and invocation, [`agents`] the other agents'. All of it is
//! ground-truthed against `docs/research/claude-code-captures.md` and
//! `docs/research/rendering-and-marketplaces.md` A2–A4.

pub mod agents;
pub mod claude_code;
pub mod view;
