//! Targets: the clients a skill must load in.
//!
//! A target decides which frontmatter keys are allowed, which limits apply and how the file is
//! read. The same finding can be an error for one target and fine for another (`when_to_use` is
//! honoured by Claude Code and rejected by claude.ai uploads), so rules ask the target rather
//! than hard-coding a verdict. See `docs/architecture.md` §3 and `docs/research/`.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::skill::frontmatter::{Delimiters, Reader};

/// What an agent does with a frontmatter key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyUse {
    /// It reads the value.
    Reads,
    /// It loads the skill and never looks at the key.
    Ignores,
    /// It refuses the skill (or, for the open spec, the key is not allowed).
    Rejects,
}

/// A client a skill is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum, Serialize)]
pub enum Target {
    /// The open Agent Skills specification (agentskills.io).
    #[value(name = "agentskills")]
    #[serde(rename = "agentskills")]
    AgentSkills,
    /// The same valid/invalid verdict as the reference validator `skills-ref validate`.
    #[value(name = "skills-ref")]
    #[serde(rename = "skills-ref")]
    SkillsRef,
    /// Claude Code 2.1.332, as captured on the wire.
    #[value(name = "claude-code")]
    #[serde(rename = "claude-code")]
    ClaudeCode,
    /// Claude Code 2.1.88 (250-character listing cap; fewer keys; BOM hides the frontmatter).
    #[value(name = "claude-code@2.1.88")]
    #[serde(rename = "claude-code@2.1.88")]
    ClaudeCode2188,
    /// claude.ai uploads and Anthropic's Skills API.
    #[value(name = "claude-ai")]
    #[serde(rename = "claude-ai")]
    ClaudeAi,
    /// OpenAI Codex.
    #[value(name = "codex")]
    #[serde(rename = "codex")]
    Codex,
    /// Google Gemini CLI.
    #[value(name = "gemini-cli")]
    #[serde(rename = "gemini-cli")]
    GeminiCli,
    /// OpenCode.
    #[value(name = "opencode")]
    #[serde(rename = "opencode")]
    OpenCode,
    /// GitHub Copilot in VS Code.
    #[value(name = "copilot")]
    #[serde(rename = "copilot")]
    Copilot,
    /// Block's Goose.
    #[value(name = "goose")]
    #[serde(rename = "goose")]
    Goose,
    /// OpenClaw 2026.9.6, and the skills ClawHub publishes for it.
    #[value(name = "openclaw")]
    #[serde(rename = "openclaw")]
    OpenClaw,
}

/// How a target treats a skill, in the terms rules care about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Follows the open spec (agentskills and the agents that load SKILL.md by it).
    Spec,
    /// The reference validator, quirks included.
    SkillsRef,
    /// Claude Code; `modern` is false for 2.1.88.
    ClaudeCode { modern: bool },
    /// claude.ai uploads and the Skills API: the spec, stricter.
    ClaudeAi,
}

impl Target {
    /// Every target, in the order of `--help`.
    pub const ALL: [Self; 11] = [
        Self::AgentSkills,
        Self::SkillsRef,
        Self::ClaudeCode,
        Self::ClaudeCode2188,
        Self::ClaudeAi,
        Self::Codex,
        Self::GeminiCli,
        Self::OpenCode,
        Self::Copilot,
        Self::Goose,
        Self::OpenClaw,
    ];

    /// The name used on the command line and in configuration.
    pub fn name(self) -> &'static str {
        match self {
            Self::AgentSkills => "agentskills",
            Self::SkillsRef => "skills-ref",
            Self::ClaudeCode => "claude-code",
            Self::ClaudeCode2188 => "claude-code@2.1.88",
            Self::ClaudeAi => "claude-ai",
            Self::Codex => "codex",
            Self::GeminiCli => "gemini-cli",
            Self::OpenCode => "opencode",
            Self::Copilot => "copilot",
            Self::Goose => "goose",
            Self::OpenClaw => "openclaw",
        }
    }

    /// Whether the agent shows the model `${CLAUDE_SKILL_DIR}` as written: only Claude Code
    /// substitutes it (docs/research/rendering-and-marketplaces.md §A3); Codex and
    /// Gemini CLI leave it (tests/fixtures/conformance), as do the agents that follow the spec
    /// without Claude Code's extensions. The spec itself and claude.ai, whose runtime nobody has
    /// captured, are not counted.
    pub fn leaves_claude_skill_dir(self) -> bool {
        matches!(
            self,
            Self::Codex | Self::GeminiCli | Self::OpenCode | Self::Copilot | Self::Goose
        )
    }

    /// The name of the client in prose ("Claude Code 2.1.88", "claude.ai").
    pub fn display(self) -> &'static str {
        match self {
            Self::AgentSkills => "the Agent Skills spec",
            Self::SkillsRef => "skills-ref",
            Self::ClaudeCode => "Claude Code",
            Self::ClaudeCode2188 => "Claude Code 2.1.88",
            Self::ClaudeAi => "claude.ai",
            Self::Codex => "Codex",
            Self::GeminiCli => "Gemini CLI",
            Self::OpenCode => "OpenCode",
            Self::Copilot => "Copilot",
            Self::Goose => "Goose",
            Self::OpenClaw => "OpenClaw",
        }
    }

    pub(crate) fn family(self) -> Family {
        match self {
            Self::SkillsRef => Family::SkillsRef,
            Self::ClaudeCode => Family::ClaudeCode { modern: true },
            Self::ClaudeCode2188 => Family::ClaudeCode { modern: false },
            Self::ClaudeAi => Family::ClaudeAi,
            Self::AgentSkills
            | Self::Codex
            | Self::GeminiCli
            | Self::OpenCode
            | Self::Copilot
            | Self::Goose
            | Self::OpenClaw => Family::Spec,
        }
    }

    /// How this target finds the frontmatter.
    pub fn reader(self) -> Reader {
        match self.family() {
            Family::SkillsRef => Reader {
                delimiters: Delimiters::PythonSplit,
                bom_hides_frontmatter: true,
            },
            Family::ClaudeCode { modern } => Reader {
                delimiters: Delimiters::FirstDashes,
                bom_hides_frontmatter: !modern,
            },
            // Anthropic's packager and upload see no frontmatter after a BOM, but otherwise
            // read whole-line delimiters; the BOM is reported on its own.
            Family::ClaudeAi | Family::Spec => Reader::SKILLPKG,
        }
    }

    /// Whether a UTF-8 byte-order mark stops this target from finding the frontmatter.
    pub(crate) fn bom_is_fatal(self) -> bool {
        matches!(
            self.family(),
            Family::SkillsRef | Family::ClaudeAi | Family::ClaudeCode { modern: false }
        )
    }

    /// The folders, relative to a project, in which this agent discovers skills
    /// (`docs/agents.md`, "Where agents look"). The first is where `install` puts skills for it.
    pub fn project_skill_roots(self) -> &'static [&'static str] {
        match self {
            // Captured: docs/research/claude-code-captures.md §2–§3.
            Self::ClaudeCode | Self::ClaudeCode2188 => &[".claude/skills"],
            // Captured: §11 (builtins, then .gemini/skills, then .agents/skills).
            Self::GeminiCli => &[".agents/skills", ".gemini/skills"],
            // From their source: docs/research/rendering-and-marketplaces.md A4.
            Self::OpenCode => &[
                ".agents/skills",
                ".opencode/skills",
                ".opencode/skill",
                ".claude/skills",
            ],
            Self::Copilot => &[".github/skills", ".claude/skills"],
            Self::Goose => &[".agents/skills", ".goose/skills", ".claude/skills"],
            // Its documentation: the workspace's `skills`, then `.agents/skills`
            // (docs/agents.md, "OpenClaw").
            Self::OpenClaw => &["skills", ".agents/skills"],
            // Codex (captured, §11) and the spec's cross-agent convention
            // (docs/research/spec-and-refs.md §1.5).
            Self::Codex | Self::AgentSkills | Self::SkillsRef | Self::ClaudeAi => {
                &[".agents/skills"]
            }
        }
    }

    /// Where `install` puts skills for this agent, relative to the project or the home folder:
    /// a folder it reads.
    pub fn install_dir(self) -> &'static str {
        self.project_skill_roots()[0]
    }

    /// Where `install --global` puts skills for this agent, relative to the home folder: a
    /// user-level folder it reads (`docs/agents.md`, "Where agents look").
    pub fn user_install_dir(self) -> &'static str {
        match self {
            // Copilot reads ~/.copilot/skills; Goose ~/.claude/skills but not ~/.agents/skills.
            Self::Copilot => ".copilot/skills",
            Self::Goose => ".claude/skills",
            Self::OpenClaw => ".openclaw/skills",
            _ => self.install_dir(),
        }
    }

    /// What the agent does with a frontmatter key (`None`: a key skillpkg does not know).
    pub(crate) fn key_use(self, key: Option<&crate::skill::model::KnownKey>) -> KeyUse {
        use crate::skill::model::KeyOrigin;
        match key.map(|key| key.origin) {
            Some(KeyOrigin::Spec) => KeyUse::Reads,
            Some(KeyOrigin::ClaudeCode { since }) => match self.family() {
                Family::ClaudeCode { modern: true } => KeyUse::Reads,
                Family::ClaudeCode { modern: false } if since.is_none() => KeyUse::Reads,
                Family::ClaudeCode { modern: false } => KeyUse::Ignores,
                Family::Spec if self.ignores_unknown_keys() => KeyUse::Ignores,
                Family::Spec | Family::SkillsRef | Family::ClaudeAi => KeyUse::Rejects,
            },
            None if self.is_claude_code() || self.ignores_unknown_keys() => KeyUse::Ignores,
            None => KeyUse::Rejects,
        }
    }

    /// Agents that load a skill whatever other keys its frontmatter has: only the open spec,
    /// skills-ref and claude.ai refuse unknown keys.
    pub(crate) fn ignores_unknown_keys(self) -> bool {
        self.family() == Family::Spec && self != Self::AgentSkills
    }

    /// Whether the agent requires `name` to equal the skill's folder name. OpenClaw names a
    /// skill by its `name` and keeps folders for organisation only (its loader falls back to
    /// the folder's name when `name` is missing); Claude Code has rules of its own. (Codex and
    /// Gemini CLI, which also go by `name`, get the spec's rule as a warning:
    /// [`Self::warns_on_spec_limits`].)
    pub(crate) fn name_is_folder(self) -> bool {
        self != Self::OpenClaw
    }

    /// Whether a `name` outside the spec's format (uppercase, `--`, other characters) or a
    /// description over its length only draws a warning at most from the agent, which still
    /// loads the skill: OpenClaw's loader warns and goes on; Codex and Gemini CLI say nothing.
    pub(crate) fn warns_on_spec_limits(self) -> bool {
        // Codex collapses whitespace and Gemini CLI replaces a few characters, and both load
        // the skill whatever else the name holds; Codex cuts a long description to 1,024
        // characters and Gemini CLI keeps it whole (`docs/agents.md`).
        matches!(self, Self::OpenClaw | Self::Codex | Self::GeminiCli)
    }

    /// Whether the agent reads `metadata` as any structure rather than text values: OpenClaw
    /// turns a nested `metadata` block into JSON and reads its `openclaw` object.
    pub(crate) fn structured_metadata(self) -> bool {
        self == Self::OpenClaw
    }

    /// Whether this target is some version of Claude Code.
    pub(crate) fn is_claude_code(self) -> bool {
        matches!(self.family(), Family::ClaudeCode { .. })
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A target name that skillpkg does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown target `{0}` (expected one of: {list})", list = Target::ALL.map(Target::name).join(", "))]
pub struct UnknownTarget(pub String);

impl FromStr for Target {
    type Err = UnknownTarget;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|target| target.name() == name)
            .ok_or_else(|| UnknownTarget(name.to_owned()))
    }
}

/// The default target when neither the command line nor `skillpkg.toml` names one.
pub const DEFAULT_TARGETS: &[Target] = &[Target::AgentSkills];

/// The agents that load the skills kept in `<folder>/skills` inside a project, by the hidden
/// folder's name: `.claude` is Claude Code's, `.gemini` Gemini CLI's, `.agents` the shared
/// folder Codex and Gemini CLI both read (`docs/agents.md`, "Where agents look"). The other
/// folders belong to agents skillpkg does not model, which load SKILL.md by the open spec; their
/// names are the project folders of the `skills` CLI 1.7.4's agent table (`src/agents.ts`), and
/// their skills are checked against the spec. `None`: not an agent's folder.
pub(crate) fn agent_folder_targets(folder: &str) -> Option<&'static [Target]> {
    Some(match folder {
        ".claude" => &[Target::ClaudeCode],
        ".agents" => &[Target::Codex, Target::GeminiCli],
        ".codex" => &[Target::Codex],
        ".gemini" => &[Target::GeminiCli],
        ".github" => &[Target::Copilot],
        ".opencode" => &[Target::OpenCode],
        ".goose" => &[Target::Goose],
        ".adal" | ".agent" | ".augment" | ".cline" | ".codebuddy" | ".commandcode"
        | ".continue" | ".crush" | ".cursor" | ".factory" | ".hermes" | ".iflow" | ".junie"
        | ".kilocode" | ".kiro" | ".kode" | ".mastracode" | ".mcpjam" | ".mux" | ".neovate"
        | ".openhands" | ".pi" | ".pochi" | ".qoder" | ".qwen" | ".roo" | ".trae" | ".vibe"
        | ".windsurf" | ".zencoder" => DEFAULT_TARGETS,
        _ => return None,
    })
}

/// Whether a skill in `dir` sits in the skills folder of an agent skillpkg does not model
/// (`.cursor/skills`, `.kiro/skills`, …): an agent that loads SKILL.md by the open spec's client
/// guide, which loads a skill whatever other keys it has. It is checked against the spec, but
/// keys outside it are that agent's business, not a portability problem.
pub(crate) fn in_unmodelled_agents_folder(dir: &std::path::Path) -> bool {
    agent_root(dir).is_some_and(|(_, targets)| targets == DEFAULT_TARGETS)
}

/// How a skill folder came from ClawHub, OpenClaw's registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClawHub {
    /// A published package: ClawHub's `_meta.json` (owner, slug, version) beside SKILL.md, as
    /// in a mirror of the registry. Each is installed on its own.
    Published,
    /// Installed by `openclaw skills install`, which records `.clawhub/origin.json`.
    Installed,
}

/// Whether the skill in `dir` is a ClawHub package (then OpenClaw's). Reads at most 64 KiB.
pub(crate) fn clawhub_package(dir: &std::path::Path) -> Option<ClawHub> {
    if dir.join(".clawhub/origin.json").is_file() {
        return Some(ClawHub::Installed);
    }
    let meta = dir.join("_meta.json");
    if !meta.is_file() {
        return None;
    }
    let bytes = crate::fsx::read_capped(&meta, 64 * 1024).ok()?;
    let json: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    json.get("slug")
        .is_some_and(serde_json::Value::is_string)
        .then_some(ClawHub::Published)
}

/// How many folders below an agent's skills folder a skill may sit and still be that
/// agent's: Claude Code and Gemini CLI read one level, Codex a few more.
const AGENT_ROOT_DEPTH: usize = 3;

/// The agent's skills folder (`.gemini/skills`, `.claude/skills`, …) that a skill in `dir`
/// sits in, and the agents that load it: where a skill lives decides which agent loads it.
/// `dir` is the skill's own folder.
pub(crate) fn agent_root(dir: &std::path::Path) -> Option<(&std::path::Path, &'static [Target])> {
    dir.ancestors()
        .skip(1)
        .take(AGENT_ROOT_DEPTH)
        .find_map(|folder| {
            if folder.file_name()? != "skills" {
                return None;
            }
            let agent = folder.parent()?.file_name()?.to_str()?;
            Some((folder, agent_folder_targets(agent)?))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_installs_where_it_looks() {
        for target in Target::ALL {
            assert!(
                target.project_skill_roots().contains(&target.install_dir()),
                "{target}"
            );
        }
        assert_eq!(Target::ClaudeCode.install_dir(), ".claude/skills");
        assert_eq!(Target::Copilot.install_dir(), ".github/skills");
        assert_eq!(Target::Codex.install_dir(), ".agents/skills");
        assert_eq!(Target::Copilot.user_install_dir(), ".copilot/skills");
        assert_eq!(Target::ClaudeCode.user_install_dir(), ".claude/skills");
    }

    #[test]
    fn where_a_skill_lives_names_its_agents() {
        use std::path::Path;
        let root = |dir: &str| agent_root(Path::new(dir)).map(|(root, t)| (root.to_path_buf(), t));
        assert_eq!(
            root("repo/.gemini/skills/review"),
            Some((
                Path::new("repo/.gemini/skills").to_path_buf(),
                &[Target::GeminiCli][..]
            ))
        );
        assert_eq!(
            root(".agents/skills/group/x").map(|(_, t)| t),
            Some(&[Target::Codex, Target::GeminiCli][..])
        );
        assert_eq!(
            root(".cursor/skills/x").map(|(_, t)| t),
            Some(DEFAULT_TARGETS)
        );
        // A plugin's skills folder, a plain `skills` folder and the manifest folder are no
        // agent's.
        assert_eq!(root("plugins/p/skills/x"), None);
        assert_eq!(root("skills/x"), None);
        assert_eq!(root(".claude-plugin/skills/x"), None);
        // Too deep below the agent's folder.
        assert_eq!(root(".claude/skills/a/b/c/d"), None);
        for target in Target::ALL {
            // Every hidden agent folder an agent reads is one skillpkg knows (OpenClaw's
            // plain `skills` is a workspace folder, found by its packages' markers instead).
            for folder in target.project_skill_roots() {
                if let Some((agent, _)) = folder.split_once('/') {
                    assert!(agent_folder_targets(agent).is_some(), "{folder}");
                }
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for target in Target::ALL {
            assert_eq!(target.name().parse::<Target>().unwrap(), target);
            assert_eq!(
                clap::ValueEnum::to_possible_value(&target)
                    .unwrap()
                    .get_name(),
                target.name()
            );
        }
        let error = "claude".parse::<Target>().unwrap_err();
        assert!(error.to_string().contains("claude-code"));
    }
}
