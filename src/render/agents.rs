//! Listings and activation payloads of the agents other than Claude Code: the reference
//! validator's `to-prompt` (`docs/research/spec-and-refs.md` §2.4), the agentskills.io client
//! guide (§1.5), OpenCode, Copilot and Goose from their source
//! (`docs/research/rendering-and-marketplaces.md` A4), and Codex CLI 0.171.0 and Gemini CLI
//! 0.61.0 as run (`docs/agents.md`; the rules are in [`crate::agent::codex`] and
//! [`crate::agent::gemini`]).

use std::fmt::Write as _;

use super::view::SkillView;
use crate::agent::Target;
use crate::agent::{codex as codex_rules, collate, gemini as gemini_rules};

/// A listing: its text, the skills it leaves out and why.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct AgentIndex {
    pub text: String,
    pub placement: &'static str,
    pub left_out: Vec<(String, String)>,
}

/// Python's `html.escape(s, quote=True)`.
fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            other => out.push(other),
        }
    }
    out
}

fn path(path: &std::path::Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Skills with a spec `name` and `description`; the others are left out, as spec clients do.
fn named<'a>(
    skills: &'a [SkillView],
    left_out: &mut Vec<(String, String)>,
) -> Vec<(&'a SkillView, String, String)> {
    let mut out = Vec::new();
    for skill in skills {
        match (&skill.spec.name, &skill.spec.description) {
            (Some(name), Some(description)) if !name.is_empty() => {
                out.push((skill, name.clone(), description.clone()));
            }
            (None, _) => left_out.push((
                skill.dir_name.clone(),
                "no `name` in the frontmatter".into(),
            )),
            _ => left_out.push((
                skill.dir_name.clone(),
                "no `description` in the frontmatter".into(),
            )),
        }
    }
    out
}

/// The listing `target` shows for `skills`.
pub fn index(target: Target, skills: &[SkillView]) -> AgentIndex {
    let mut left_out = Vec::new();
    let (text, placement) = match target {
        Target::SkillsRef => (
            skills_ref(&named(skills, &mut left_out)),
            "returned by `skills-ref to-prompt`; the agent puts it in its system prompt",
        ),
        Target::OpenCode => (opencode(&named(skills, &mut left_out)), "the system prompt"),
        Target::Copilot => (
            copilot(&named(skills, &mut left_out)),
            "the instructions attachment",
        ),
        Target::Goose => (
            goose(&named(skills, &mut left_out)),
            "the skills extension's instructions",
        ),
        _ => (
            agentskills(&named(skills, &mut left_out)),
            "the system prompt (agentskills.io client guide)",
        ),
    };
    AgentIndex {
        text,
        placement,
        left_out,
    }
}

/// `skills-ref to-prompt`: every tag and value on its own line, names and descriptions
/// HTML-escaped, the resolved location raw, no trailing newline.
fn skills_ref(skills: &[(&SkillView, String, String)]) -> String {
    let mut lines = vec!["<available_skills>".to_owned()];
    for (skill, name, description) in skills {
        let location = std::fs::canonicalize(&skill.file).unwrap_or_else(|_| skill.file.clone());
        lines.extend([
            "<skill>".into(),
            "<name>".into(),
            html_escape(name),
            "</name>".into(),
            "<description>".into(),
            html_escape(description),
            "</description>".into(),
            "<location>".into(),
            path(&location),
            "</location>".into(),
            "</skill>".into(),
        ]);
    }
    lines.push("</available_skills>".into());
    lines.join("\n")
}

/// The agentskills.io client guide's catalog, with its file-read instructions.
fn agentskills(skills: &[(&SkillView, String, String)]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "The following skills provide specialized instructions for specific tasks.\nWhen a task matches a skill's description, use your file-read tool to load\nthe SKILL.md at the listed location before proceeding.\nWhen a skill references relative paths, resolve them against the skill's\ndirectory (the parent of SKILL.md) and use absolute paths in tool calls.\n\n<available_skills>\n",
    );
    for (skill, name, description) in skills {
        let _ = write!(
            text,
            "  <skill>\n    <name>{name}</name>\n    <description>{description}</description>\n    <location>{}</location>\n  </skill>\n",
            path(&skill.file)
        );
    }
    text.push_str("</available_skills>");
    text
}

/// OpenCode: its two instruction lines, then the catalog with `file://` locations, by name.
fn opencode(skills: &[(&SkillView, String, String)]) -> String {
    let mut sorted: Vec<&(&SkillView, String, String)> = skills.iter().collect();
    sorted.sort_by(|a, b| a.1.cmp(&b.1));
    let mut text = String::from(
        "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n<available_skills>\n",
    );
    for (skill, name, description) in sorted {
        let _ = write!(
            text,
            "  <skill>\n    <name>{name}</name>\n    <description>{description}</description>\n    <location>file://{}</location>\n  </skill>\n",
            path(&skill.file)
        );
    }
    text.push_str("</available_skills>");
    text
}

/// GitHub Copilot in VS Code: unindented, with its read-file instruction.
fn copilot(skills: &[(&SkillView, String, String)]) -> String {
    let mut text = String::from(
        "<skills>\nHere is a list of skills that contain domain specific knowledge on a variety of topics.\nEach skill comes with a description of the topic and a file path that contains the detailed instructions.\nWhen a user asks you to perform a task that falls within the domain of a skill, use the #tool:readFile tool to acquire the full instructions from the file URI.\n",
    );
    for (skill, name, description) in skills {
        let _ = write!(
            text,
            "<skill>\n<name>{name}</name>\n<description>{description}</description>\n<file>{}</file>\n</skill>\n",
            path(&skill.file)
        );
    }
    text.push_str("</skills>");
    text
}

/// Goose: one line per skill, by name.
fn goose(skills: &[(&SkillView, String, String)]) -> String {
    let mut sorted: Vec<&(&SkillView, String, String)> = skills.iter().collect();
    sorted.sort_by(|a, b| collate::compare(&a.1, &b.1));
    let mut text = String::from(
        "You have these skills at your disposal, when it is clear they can help you solve a problem or you are asked to use them:\n\n",
    );
    for (_, name, description) in sorted {
        let _ = writeln!(text, "- {name}: {description}");
    }
    text
}

/// What `target` sends when the model activates `skill`.
pub(crate) fn activate(target: Target, skill: &SkillView) -> String {
    let name = skill
        .spec
        .name
        .clone()
        .unwrap_or_else(|| skill.dir_name.clone());
    let dir = path(&skill.dir);
    let body = skill.spec.body.trim();
    match target {
        Target::OpenCode => {
            let files: String =
                skill
                    .resources
                    .iter()
                    .take(10)
                    .fold(String::new(), |mut out, file| {
                        let _ = writeln!(out, "<file>{dir}/{file}</file>");
                        out
                    });
            format!(
                "<skill_content name=\"{name}\">\n# Skill: {name}\n\n{body}\n\nBase directory for this skill: file://{dir}\nRelative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\nNote: file list is sampled.\n\n<skill_files>\n{files}</skill_files>\n</skill_content>"
            )
        }
        Target::Goose => {
            let files: String = skill.resources.iter().fold(String::new(), |mut out, file| {
                let _ = writeln!(out, "- {file}");
                out
            });
            format!(
                "# Skill: {name}\n\n{body}\n\n## Supporting Files\n\nSkill directory: {dir}\n\nThe following supporting files are available:\n{files}"
            )
        }
        // Copilot, skills-ref clients: the model reads the whole file itself.
        Target::Copilot | Target::SkillsRef => skill.text.clone(),
        _ => {
            let files: String = skill.resources.iter().fold(String::new(), |mut out, file| {
                let _ = writeln!(out, "  <file>{file}</file>");
                out
            });
            format!(
                "<skill_content name=\"{name}\">\n{body}\n\nSkill directory: {dir}\nRelative paths in this skill are relative to the skill directory.\n\n<skill_resources>\n{files}</skill_resources>\n</skill_content>"
            )
        }
    }
}

/// Codex's `<skills_instructions>` text for `catalog` under a budget of `limit` tokens, and
/// what the budget did (each skill cut or left out, with why). Empty when nothing is listed
/// (Codex then sends no listing item).
///
/// The roots table numbers, in scan order, the roots that hold a listed skill; each entry's
/// path is below its root. No `### How to use skills` block: Codex adds one only for
/// `gpt-5.5`.
pub(crate) fn codex_listing(
    catalog: &codex_rules::Catalog,
    limit: usize,
) -> (String, Vec<(String, String)>) {
    let listed: Vec<&codex_rules::Skill> = catalog.skills.iter().filter(|s| s.listed).collect();
    let mut notes: Vec<(String, String)> = catalog
        .skills
        .iter()
        .filter(|s| !s.listed)
        .map(|s| {
            (
                s.name.clone(),
                "agents/openai.yaml: allow_implicit_invocation is false (still `$`-mentionable)"
                    .into(),
            )
        })
        .collect();
    if listed.is_empty() {
        return (String::new(), notes);
    }
    let used: Vec<usize> = (0..catalog.roots.len())
        .filter(|index| listed.iter().any(|s| s.root == *index))
        .collect();
    let number = |root: usize| used.iter().position(|&u| u == root).unwrap_or_default();
    let mins: Vec<(String, &str)> = listed
        .iter()
        .map(|s| {
            (
                format!("- {}: (file: r{}/{})", s.name, number(s.root), s.relative),
                s.description.as_str(),
            )
        })
        .collect();
    let table: Vec<String> = used
        .iter()
        .enumerate()
        .map(|(n, &root)| format!("- `r{n}` = `{}`", path(&catalog.roots[root].path)))
        .collect();
    let table_bytes = table.iter().map(|line| line.len() + 1).sum();
    let kept = codex_rules::fit(&mins, codex_rules::skills_limit(limit, table_bytes));
    let mut text = String::from(
        "<skills_instructions>\n## Skills\nA skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.\n### Skill roots\n",
    );
    for line in &table {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str("### Available skills\n");
    for ((skill, (min, description)), kept) in listed.iter().zip(&mins).zip(kept) {
        let Some(kept) = kept else {
            notes.push((
                skill.name.clone(),
                "over the catalog budget: left out".into(),
            ));
            continue;
        };
        let total = description.chars().count();
        if kept == 0 {
            text.push_str(min);
        } else {
            let shown: String = description.chars().take(kept).collect();
            let _ = write!(
                text,
                "- {}: {shown} (file: r{}/{})",
                skill.name,
                number(skill.root),
                skill.relative
            );
        }
        text.push('\n');
        if kept < total {
            notes.push((
                skill.name.clone(),
                format!("over the catalog budget: {kept} of {total} characters, no mark"),
            ));
        }
    }
    text.push_str("</skills_instructions>");
    (text, notes)
}

/// What Codex injects for a `$name` mention: a user item with the skill's name, its canonical
/// path and the whole file as read (frontmatter, CRLF and trailing lines kept).
pub(crate) fn codex_activation(skill: &codex_rules::Skill) -> String {
    let file = std::fs::canonicalize(&skill.file).unwrap_or_else(|_| skill.file.clone());
    format!(
        "<skill>\n<name>{}</name>\n<path>{}</path>\n{}\n</skill>",
        skill.name,
        path(&file),
        skill.text
    )
}

/// Gemini CLI's `# Available Agent Skills` section (the wording for gemini-2.5 models), or
/// nothing when no skill is listed.
pub(crate) fn gemini_listing(skills: &[gemini_rules::Skill]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let entries: Vec<String> = skills
        .iter()
        .map(|skill| {
            format!(
                "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    <location>{}</location>\n  </skill>",
                skill.name,
                skill.description,
                path(&skill.location)
            )
        })
        .collect();
    format!(
        "# Available Agent Skills\n\nYou have access to the following specialized skills. To activate a skill and receive its detailed instructions, you can call the `activate_skill` tool with the skill's name.\n\n<available_skills>\n{}\n</available_skills>",
        entries.join("\n")
    )
}

/// The output of Gemini CLI's `activate_skill({name})`: the trimmed body and the skill
/// folder's structure, only their first lines indented.
pub(crate) fn gemini_activation(name: &str, skill: &gemini_rules::Skill) -> String {
    let dir = skill.location.parent().unwrap_or(&skill.location);
    format!(
        "<activated_skill name=\"{name}\">\n  <instructions>\n    {}\n  </instructions>\n\n  <available_resources>\n    {}\n  </available_resources>\n</activated_skill>",
        skill.body,
        gemini_rules::folder_structure(dir)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_python() {
        assert_eq!(
            html_escape("Analyze \"datasets\" & it's <charts>."),
            "Analyze &quot;datasets&quot; &amp; it&#x27;s &lt;charts&gt;."
        );
    }
}
