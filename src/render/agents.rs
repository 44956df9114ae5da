//! Listings and activation payloads of the agents other than Claude Code: the reference
//! validator's `to-prompt` (`docs/research/spec-and-refs.md` §2.4), the agentskills.io client
//! guide (§1.5), Codex and Gemini CLI as captured (`docs/research/claude-code-captures.md` §11),
//! and OpenCode, Copilot and Goose from their source
//! (`docs/research/rendering-and-marketplaces.md` A4).

use std::fmt::Write as _;

use super::view::SkillView;
use crate::agent::Target;
use crate::agent::collate;

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
        Target::Codex => (codex(skills), "a developer-role input item (`input[1]`)"),
        Target::GeminiCli => (
            gemini(&named(skills, &mut left_out)),
            "the system instruction",
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

/// Codex 0.171 (captures §11): a roots table, then `- name: description (file: rN/…)` sorted
/// by name; `r0` is always Codex's own system root, so the user's roots start at `r1`.
fn codex(skills: &[SkillView]) -> String {
    let mut roots: Vec<String> = Vec::new();
    let mut entries: Vec<(String, String, String)> = Vec::new();
    for skill in skills {
        let root = skill.dir.parent().map(path).unwrap_or_default();
        let index = roots
            .iter()
            .position(|seen| *seen == root)
            .unwrap_or_else(|| {
                roots.push(root.clone());
                roots.len() - 1
            });
        let name = skill
            .spec
            .name
            .clone()
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| skill.dir_name.clone());
        let description = skill.spec.description.clone().unwrap_or_default();
        let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
        entries.push((
            name,
            description,
            format!("r{}/{}/SKILL.md", index + 1, skill.dir_name),
        ));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut text = String::from(
        "<skills_instructions>\n## Skills\nA skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.\n### Skill roots\n",
    );
    text.push_str("- `r0` = ⟨Codex's own system skills⟩\n");
    for (index, root) in roots.iter().enumerate() {
        let _ = writeln!(text, "- `r{}` = `{root}`", index + 1);
    }
    text.push_str("### Available skills\n");
    for (name, description, file) in entries {
        let _ = writeln!(text, "- {name}: {description} (file: {file})");
    }
    text.push_str("</skills_instructions>");
    text
}

/// Gemini CLI 0.61 (captures §11): raw descriptions, absolute locations.
fn gemini(skills: &[(&SkillView, String, String)]) -> String {
    let mut text = String::from(
        "# Available Agent Skills\n\nYou have access to the following specialized skills. To activate a skill and receive its detailed instructions, you can call the `activate_skill` tool with the skill's name.\n\n<available_skills>\n",
    );
    for (skill, name, _) in skills {
        let raw = raw_description(skill).unwrap_or_default();
        let _ = write!(
            text,
            "  <skill>\n    <name>{name}</name>\n    <description>{raw}</description>\n    <location>{}</location>\n  </skill>\n",
            path(&skill.file)
        );
    }
    text.push_str("</available_skills>");
    text
}

/// The description exactly as YAML gives it, untrimmed.
fn raw_description(skill: &SkillView) -> Option<String> {
    let source = crate::skill::text::SourceText::from_string(skill.text.clone());
    let reading = crate::skill::Reading::new(&source, crate::skill::frontmatter::Reader::SKILLPKG);
    reading.doc?.description?.value.ok()
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
        Target::Codex => format!(
            "<skill>\n<name>{name}</name>\n<path>{}</path>\n{}\n</skill>",
            path(&skill.file),
            skill.text
        ),
        Target::GeminiCli => {
            let resources: String = skill.resources.iter().fold(String::new(), |mut out, file| {
                let _ = writeln!(out, "    {file}");
                out
            });
            format!(
                "<activated_skill name=\"{name}\">\n  <instructions>\n    {body}\n  </instructions>\n\n  <available_resources>\n{resources}  </available_resources>\n</activated_skill>"
            )
        }
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
