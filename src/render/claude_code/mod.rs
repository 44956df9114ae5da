//! Claude Code's skill listing and skill invocation, as captured from 2.1.332 on the wire
//! (`docs/research/claude-code-captures.md`), and 2.1.88's rules from its source
//! (`docs/research/rendering-and-marketplaces.md` A2–A3).

mod invocation;
mod listing;

pub use crate::agent::claude_code::listing::HEADER;
pub use crate::agent::claude_code::{Model, Version};
pub use invocation::{Block, Invocation, InvokeOptions, Invoker, Message, ShellCommand, invoke};
pub use listing::{EntryReport, EntryStatus, Index, IndexOptions, Override, Usage, index};
