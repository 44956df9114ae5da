//! Claude Code (2.1.332 as captured on the wire, and 2.1.88): how it reads a skill
//! ([`reading`]), how it lists skills ([`listing`]) and how it runs a skill's inline shell
//! ([`shell`]).

pub mod arguments;
pub mod discovery;
pub mod listing;
pub mod names;
pub mod reading;
pub mod shell;
pub mod skill_file;
pub mod text;

use serde::Serialize;

/// Which Claude Code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Version {
    /// 2.1.332, as captured.
    #[serde(rename = "2.1.332")]
    Current,
    /// 2.1.88, from its source.
    #[serde(rename = "2.1.88")]
    V2188,
}

/// The model `preview` and `lint` assume when none is named: its context window sets Claude
/// Code's listing budget in both.
pub const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// What the model decides: where the listing goes, characters per token, default window and
/// effort (captures §2, §5, §6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Model {
    pub name: String,
    /// The "legacy" models: a `<system-reminder>` listing, 4 characters per token.
    pub legacy: bool,
    pub context_window: usize,
    pub effort: &'static str,
}

/// The models the captures name as legacy (§2).
pub(crate) const LEGACY: &[&str] = &[
    "claude-opus-4-0",
    "claude-opus-4-1",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-sonnet-4-0",
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
    "claude-haiku-4-5",
];

impl Model {
    /// The model called `name` (`claude-sonnet-4-5`, `claude-sonnet-4-5[1m]`, …).
    pub fn named(name: &str) -> Self {
        let (base, million) = match name.strip_suffix("[1m]") {
            Some(base) => (base, true),
            None => (name, false),
        };
        let legacy = base.starts_with("claude-3-")
            || LEGACY
                .iter()
                .any(|known| base == *known || base.starts_with(&format!("{known}-")));
        let context_window = if million || !legacy {
            1_000_000
        } else {
            200_000
        };
        Self {
            name: name.to_owned(),
            legacy,
            context_window,
            effort: if legacy { "high" } else { "medium" },
        }
    }

    pub(crate) fn chars_per_token(&self) -> usize {
        if self.legacy { 4 } else { 3 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models() {
        assert!(!Model::named("claude-opus-5-5").legacy);
        assert_eq!(Model::named("claude-opus-5-5").context_window, 1_000_000);
        let sonnet = Model::named("claude-sonnet-4-5");
        assert!(sonnet.legacy);
        assert_eq!((sonnet.context_window, sonnet.effort), (200_000, "high"));
        assert_eq!(
            Model::named("claude-sonnet-4-5[1m]").context_window,
            1_000_000
        );
        assert!(Model::named("claude-3-5-haiku-20241022").legacy);
    }
}
