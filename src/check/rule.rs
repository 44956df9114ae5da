//! The rule registry: every check skillpkg can report, as data.
//!
//! A rule has a stable code (`SK105`) and a kebab name (`name-not-lowercase`); both are part of
//! the public contract (configuration, suppressions, SARIF rule ids), so a code is never reused
//! for a different check. Codes are grouped by hundreds: `SK0xx` file and frontmatter structure,
//! `SK1xx` `name`, `SK2xx` `description`, `SK3xx` body, `SK4xx` packaging, `SK5xx` other keys,
//! `SK6xx` checks across a set of skills.

use serde::Serialize;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

/// One check.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    /// One line: what is wrong when this rule fires.
    pub summary: &'static str,
    /// Severity under the default target, `agentskills`.
    pub default: Severity,
    /// What it does, why it matters, an example.
    pub doc: &'static str,
}

macro_rules! rules {
    ($($ident:ident = $code:literal $name:literal $default:ident $summary:literal $doc:literal;)*) => {
        $(
            #[doc = $summary]
            pub static $ident: Rule = Rule {
                code: $code,
                name: $name,
                summary: $summary,
                default: Severity::$default,
                doc: $doc,
            };
        )*
        /// Every rule, in code order.
        pub static ALL: &[&Rule] = &[$(&$ident),*];
    };
}

rules! {
    INVALID_UTF8 = "SK001" "invalid-utf8" Error
        "SKILL.md is not valid UTF-8"
        "What it does: checks that SKILL.md decodes as UTF-8.\n\nWhy: every agent reads SKILL.md as UTF-8; Python tools on Windows that guess the encoding crash or garble the text.\n\nExample: a file saved as Windows-1252 with `café` in it.";
    UTF8_BOM = "SK002" "utf8-bom" Warning
        "SKILL.md starts with a UTF-8 byte-order mark"
        "What it does: flags a byte-order mark (U+FEFF) at the start of SKILL.md.\n\nWhy: skills-ref, Anthropic's packager and claude.ai uploads (and Claude Code 2.1.88) see no frontmatter after a BOM; Claude Code 2.1.332 strips it. It is an error for those targets and a warning elsewhere.\n\nExample: a file saved by Notepad as \"UTF-8 with BOM\".";
    SKILL_FILE_NAME = "SK003" "skill-file-name" Warning
        "the skill file is not named exactly SKILL.md"
        "What it does: flags `skill.md` (a warning) and other spellings such as `Skill.md` (an error).\n\nWhy: agents look for `SKILL.md`; on case-sensitive file systems (Linux, CI runners) they never see `skill.md`. skills-ref accepts the lowercase name only.\n\nExample: `my-skill/skill.md`.";
    MISSING_FRONTMATTER = "SK004" "missing-frontmatter" Error
        "SKILL.md does not start with YAML frontmatter"
        "What it does: checks that the first line of SKILL.md is `---`.\n\nWhy: `name` and `description` live in the frontmatter; without it no agent can list the skill (Claude Code falls back to the folder name and the first body line).\n\nExample: a SKILL.md that starts with `# My skill`, or with a blank line before `---`.";
    UNCLOSED_FRONTMATTER = "SK005" "unclosed-frontmatter" Error
        "the frontmatter has no closing `---` line"
        "What it does: checks that a line containing only `---` ends the frontmatter.\n\nWhy: without it the whole file is frontmatter and the YAML fails.\n\nExample: `---`, `name: x`, `description: y`, then the body with no `---` between.";
    EMPTY_FRONTMATTER = "SK006" "empty-frontmatter" Error
        "the frontmatter is empty"
        "What it does: flags frontmatter with no keys at all.\n\nWhy: `name` and `description` are required by the spec; Claude Code falls back to the folder name and the first body line.\n\nExample: `---` immediately followed by `---`.";
    FRONTMATTER_NOT_MAPPING = "SK007" "frontmatter-not-mapping" Error
        "the frontmatter is not a mapping of keys to values"
        "What it does: checks that the frontmatter YAML is a mapping.\n\nWhy: agents read keys such as `name` from it; a list or a bare string has none.\n\nExample: frontmatter that is a YAML list (`- name`).";
    YAML_SYNTAX = "SK008" "yaml-syntax" Error
        "the frontmatter is not valid YAML"
        "What it does: parses the frontmatter as YAML 1.2 and reports the first syntax error.\n\nWhy: strict parsers (Codex, skills-ref, PyYAML) skip or reject a skill whose YAML does not parse; Claude Code retries once after quoting values itself.\n\nExample: `description: Use when: the user asks` (an unquoted `: ` inside a value); quote the value.";
    DUPLICATE_KEY = "SK009" "duplicate-key" Error
        "a key appears twice in the frontmatter"
        "What it does: flags a key that is defined twice in the same mapping.\n\nWhy: YAML forbids it; some parsers reject the file and others silently keep one of the values.\n\nExample: two `name:` lines.";
    TAB_INDENTATION = "SK010" "tab-indentation" Error
        "the frontmatter is indented with a tab"
        "What it does: flags tab characters used for indentation in the frontmatter.\n\nWhy: YAML forbids tabs in indentation; every parser rejects the file.\n\nExample: `metadata:` followed by a line starting with a tab.";
    FRONTMATTER_CUT = "SK011" "frontmatter-cut" Warning
        "an agent ends the frontmatter at a `---` inside it"
        "What it does: finds `---` inside the frontmatter, where Claude Code and skills-ref (which end the frontmatter at the first `---` anywhere) stop reading.\n\nWhy: those agents then see a truncated value or broken YAML. An error under claude-code (and under skills-ref when the cut makes the skill invalid), a warning elsewhere.\n\nExample: `description: \"Converts a --- b\"`.";
    UNKNOWN_KEY = "SK012" "unknown-key" Error
        "the frontmatter has a key no agent knows"
        "What it does: flags keys that are neither in the spec nor honoured by any known client, with a did-you-mean.\n\nWhy: a misspelt key is silently ignored by lenient agents and rejected by strict ones (claude.ai uploads, skills-ref).\n\nExample: `descripton: …`.";
    CLIENT_SPECIFIC_KEY = "SK013" "client-specific-key" Warning
        "the key is honoured only by some clients"
        "What it does: flags keys that Claude Code honours but the open spec does not define (`when_to_use`, `disable-model-invocation`, …).\n\nWhy: claude.ai uploads, the Skills API and skills-ref reject any key outside the six spec keys. A warning under agentskills, fine under claude-code, an error under claude-ai and skills-ref.\n\nExample: `argument-hint: [file]` in a skill meant for claude.ai.";
    STRICT_YAML = "SK014" "strict-yaml" Error
        "the reference validator's strictyaml rejects this YAML"
        "What it does: under the skills-ref target, flags flow collections (`[a, b]`, `{a: b}`), anchors, aliases and tags.\n\nWhy: skills-ref parses with strictyaml, which refuses them as invalid YAML.\n\nExample: `allowed-tools: [Read, Write]`; write a block list or a space-separated string.";
    NAME_MISSING = "SK101" "name-missing" Error
        "the required key `name` is missing"
        "What it does: checks that the frontmatter has `name`.\n\nWhy: the spec requires it and uses it as the skill's identity; it must equal the folder name.\n\nExample: frontmatter with only `description`.";
    NAME_NOT_STRING = "SK102" "name-not-string" Error
        "`name` is not a string"
        "What it does: checks that `name` is text.\n\nWhy: strict parsers read `name: 123` as a number and reject it; a list or mapping is never a name.\n\nExample: `name: 2024` (quote it: `name: \"2024\"`).";
    NAME_EMPTY = "SK103" "name-empty" Error
        "`name` is empty"
        "What it does: checks that `name` is not empty or blank.\n\nWhy: the spec requires 1 to 64 characters.\n\nExample: `name: \"\"`.";
    NAME_TOO_LONG = "SK104" "name-too-long" Error
        "`name` is longer than 64 characters"
        "What it does: counts the characters of `name` (Unicode scalar values after NFKC) and checks there are at most 64.\n\nWhy: the spec's limit; the Skills API rejects longer names.\n\nExample: a 70-character name.";
    NAME_NOT_LOWERCASE = "SK105" "name-not-lowercase" Error
        "`name` is not lowercase"
        "What it does: checks that `name` has no uppercase letters.\n\nWhy: the spec allows only lowercase letters, digits and hyphens.\n\nExample: `name: PDF-Tools` (use `pdf-tools`).";
    NAME_INVALID_CHARS = "SK106" "name-invalid-chars" Error
        "`name` has characters other than letters, digits and hyphens"
        "What it does: checks every character of `name`: lowercase letters and digits (Unicode under agentskills and skills-ref, ASCII `a-z0-9` under claude-ai) and `-`.\n\nWhy: the spec's character set; claude.ai uploads accept ASCII only.\n\nExample: `name: my_skill` (use `my-skill`).";
    NAME_HYPHENS = "SK107" "name-hyphens" Error
        "`name` starts or ends with a hyphen, or has two in a row"
        "What it does: checks that `name` does not start or end with `-` and has no `--`.\n\nWhy: the spec forbids both.\n\nExample: `name: -pdf` or `name: pdf--tools`.";
    NAME_FOLDER_MISMATCH = "SK108" "name-folder-mismatch" Error
        "`name` differs from the skill's folder name"
        "What it does: compares `name` with the name of the folder that holds SKILL.md (after NFKC).\n\nWhy: the spec requires them to be equal; Claude Code lists the skill under its folder name and ignores `name`.\n\nExample: `name: pdf-tools` in folder `pdf`.";
    NAME_RESERVED_WORD = "SK109" "name-reserved-word" Error
        "`name` contains a reserved word"
        "What it does: under claude-ai, flags names containing `anthropic` or `claude`.\n\nWhy: claude.ai uploads and the Skills API reject them.\n\nExample: `name: claude-helper`.";
    DESCRIPTION_MISSING = "SK201" "description-missing" Error
        "the required key `description` is missing"
        "What it does: checks that the frontmatter has `description`.\n\nWhy: the description is what the model reads to decide when to use the skill; the spec requires it. Claude Code falls back to the first body line.\n\nExample: frontmatter with only `name`.";
    DESCRIPTION_NOT_STRING = "SK202" "description-not-string" Error
        "`description` is not a string"
        "What it does: checks that `description` is text.\n\nWhy: strict parsers reject `description: 12` or `description: yes` as non-text; a list is dropped by Claude Code, which then falls back to the first body line.\n\nExample: `description: [TODO]`.";
    DESCRIPTION_EMPTY = "SK203" "description-empty" Error
        "`description` is empty"
        "What it does: checks that `description` is not empty or blank.\n\nWhy: an empty description gives the model nothing to choose the skill by; the spec requires 1 to 1,024 characters.\n\nExample: `description: \"\"`.";
    DESCRIPTION_TOO_LONG = "SK204" "description-too-long" Error
        "`description` is longer than 1,024 characters"
        "What it does: counts the characters of `description` and checks there are at most 1,024.\n\nWhy: the spec's limit; skills-ref and claude.ai reject longer descriptions.\n\nExample: a 1,100-character description.";
    DESCRIPTION_ANGLE_BRACKETS = "SK205" "description-angle-brackets" Error
        "`description` contains angle brackets or XML tags"
        "What it does: under claude-ai, flags `<` and `>` in `description`.\n\nWhy: claude.ai uploads and the Skills API reject XML tags in the description (Anthropic's validator rejects any angle bracket).\n\nExample: `description: Converts <input> files`.";
    COMPATIBILITY_LENGTH = "SK501" "compatibility-length" Error
        "`compatibility` is empty or longer than 500 characters"
        "What it does: checks that `compatibility`, when present, has 1 to 500 characters.\n\nWhy: the spec's limit.\n\nExample: `compatibility: \"\"`.";
    INVALID_FIELD_TYPE = "SK502" "invalid-field-type" Error
        "a frontmatter value has the wrong type"
        "What it does: checks the type of each known key's value (`license` is text, `metadata` a mapping, `paths` a string or list, …).\n\nWhy: agents drop or reject values of the wrong type.\n\nExample: `license: [MIT]`.";
    INVALID_FIELD_VALUE = "SK503" "invalid-field-value" Error
        "a frontmatter value is not one the key accepts"
        "What it does: checks values with a fixed set of choices (`context: fork`, `effort`, `shell`, booleans) under claude-code.\n\nWhy: Claude Code ignores an invalid value, so the setting silently does nothing.\n\nExample: `context: forked`.";
    METADATA_VALUE = "SK504" "metadata-value" Error
        "a `metadata` value is not a string"
        "What it does: checks that `metadata` maps string keys to string values. A nested mapping or list is an error; a number or boolean is a warning.\n\nWhy: the spec says string to string; strict clients (Go `map[string]string`) reject the skill, and `version: 1.10` becomes the number 1.1.\n\nExample: `metadata: {version: 1.0}` (quote it: `version: \"1.0\"`).";
    DUPLICATE_NAME = "SK601" "duplicate-name" Error
        "two skills have the same name"
        "What it does: compares the names of all checked skills.\n\nWhy: agents identify skills by name; when two collide one of them is dropped or shadowed.\n\nExample: `skills/pdf/SKILL.md` and `.claude/skills/pdf/SKILL.md` both named `pdf`.";
}

/// Looks a rule up by code (`SK105`, any case) or kebab name (`name-not-lowercase`).
pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    ALL.iter()
        .copied()
        .find(|rule| rule.code.eq_ignore_ascii_case(code_or_name) || rule.name == code_or_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_and_names_are_unique_and_well_formed() {
        let mut codes = HashSet::new();
        let mut names = HashSet::new();
        for rule in ALL {
            assert!(codes.insert(rule.code), "duplicate code {}", rule.code);
            assert!(names.insert(rule.name), "duplicate name {}", rule.name);
            assert!(rule.code.len() == 5 && rule.code.starts_with("SK"));
            assert!(
                rule.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            );
            assert!(rule.doc.contains("What it does") && rule.doc.contains("Why"));
        }
        assert_eq!(find("sk105"), Some(&NAME_NOT_LOWERCASE));
        assert_eq!(find("name-hyphens"), Some(&NAME_HYPHENS));
    }
}
