//! skillpkg: the toolchain for Agent Skills.
//!
//! The library does the work and returns values; only the command layer ([`commands`]) prints,
//! through [`output`]. Data flows one way: [`skill`] finds and reads `SKILL.md` files (once),
//! [`check`] turns them into diagnostics for the requested targets, and [`output`] reports them
//! in the requested format. See `docs/architecture.md`.

pub mod agent;
pub mod check;
pub mod commands;
pub mod dates;
pub mod fsx;
pub mod interrupt;
pub mod output;
pub mod pack;
pub mod parallel;
pub mod publish;
pub mod registry;
pub mod render;
pub mod scaffold;
pub mod skill;
