//! The rule registry: every check skillpkg can report, as data.
//!
//! A rule has a stable code (`SK105`) and a kebab name (`name-not-lowercase`); both are part of
//! the public contract (configuration, suppressions, SARIF rule ids), so a code is never reused
//! for a different check. Codes are grouped by hundreds: `SK0xx` file and frontmatter structure,
//! `SK1xx` `name`, `SK2xx` `description`, `SK3xx` body, `SK4xx` packaging, `SK5xx` other keys,
//! `SK6xx` checks across a set of skills, `SK7xx` secrets.

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

/// Which command runs a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Can an agent load the skill? Run by `validate` and by `lint`.
    Validate,
    /// Will the skill work well? Run by `lint` only.
    Lint,
}

/// The targets a rule can fire under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applies {
    /// Every target (the severity may still depend on the target).
    All,
    /// Only `claude-code` and `claude-code@2.1.88`: the finding is about Claude Code's behaviour.
    ClaudeCode,
}

/// Whether a rule offers a fix, and how safe it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fixable {
    No,
    Safe,
    Unsafe,
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
    pub kind: Kind,
    pub fix: Fixable,
    pub applies: Applies,
    /// What it does, why it matters, an example.
    pub doc: &'static str,
}

macro_rules! rules {
    ($($ident:ident = $code:literal $name:literal $default:ident $kind:ident $fix:ident $applies:ident $summary:literal $doc:literal;)*) => {
        $(
            #[doc = $summary]
            pub static $ident: Rule = Rule {
                code: $code,
                name: $name,
                summary: $summary,
                default: Severity::$default,
                kind: Kind::$kind,
                fix: Fixable::$fix,
                applies: Applies::$applies,
                doc: $doc,
            };
        )*
        /// Every rule, in code order.
        pub static ALL: &[&Rule] = &[$(&$ident),*];
    };
}

rules! {
    INVALID_UTF8 = "SK001" "invalid-utf8" Error Validate No All
        "SKILL.md is not valid UTF-8"
        "What it does: checks that SKILL.md decodes as UTF-8.\n\nWhy: every agent reads SKILL.md as UTF-8; Python tools on Windows that guess the encoding crash or garble the text.\n\nExample: a file saved as Windows-1252 with `café` in it.";
    UTF8_BOM = "SK002" "utf8-bom" Warning Validate No All
        "SKILL.md starts with a UTF-8 byte-order mark"
        "What it does: flags a byte-order mark (U+FEFF) at the start of SKILL.md.\n\nWhy: skills-ref, Anthropic's packager and claude.ai uploads (and Claude Code 2.1.88) see no frontmatter after a BOM; Claude Code 2.1.332 strips it. It is an error for those targets and a warning elsewhere.\n\nExample: a file saved by Notepad as \"UTF-8 with BOM\".";
    SKILL_FILE_NAME = "SK003" "skill-file-name" Warning Validate No All
        "the skill file is not named exactly SKILL.md"
        "What it does: flags `skill.md` (a warning) and other spellings such as `Skill.md` (an error).\n\nWhy: agents look for `SKILL.md`; on case-sensitive file systems (Linux, CI runners) they never see `skill.md`. skills-ref accepts the lowercase name only.\n\nExample: `my-skill/skill.md`.";
    MISSING_FRONTMATTER = "SK004" "missing-frontmatter" Error Validate No All
        "SKILL.md does not start with YAML frontmatter"
        "What it does: checks that the first line of SKILL.md is `---`.\n\nWhy: `name` and `description` live in the frontmatter; without it no agent can list the skill (Claude Code falls back to the folder name and the first body line).\n\nExample: a SKILL.md that starts with `# My skill`, or with a blank line before `---`.";
    UNCLOSED_FRONTMATTER = "SK005" "unclosed-frontmatter" Error Validate No All
        "the frontmatter has no closing `---` line"
        "What it does: checks that a line containing only `---` ends the frontmatter.\n\nWhy: without it the whole file is frontmatter and the YAML fails.\n\nExample: `---`, `name: x`, `description: y`, then the body with no `---` between.";
    EMPTY_FRONTMATTER = "SK006" "empty-frontmatter" Error Validate No All
        "the frontmatter is empty"
        "What it does: flags frontmatter with no keys at all.\n\nWhy: `name` and `description` are required by the spec; Claude Code falls back to the folder name and the first body line.\n\nExample: `---` immediately followed by `---`.";
    FRONTMATTER_NOT_MAPPING = "SK007" "frontmatter-not-mapping" Error Validate No All
        "the frontmatter is not a mapping of keys to values"
        "What it does: checks that the frontmatter YAML is a mapping.\n\nWhy: agents read keys such as `name` from it; a list or a bare string has none.\n\nExample: frontmatter that is a YAML list (`- name`).";
    YAML_SYNTAX = "SK008" "yaml-syntax" Error Validate Safe All
        "the frontmatter is not valid YAML"
        "What it does: parses the frontmatter as YAML 1.2 and reports the first syntax error, for the targets that then skip the skill. Claude Code retries once after quoting values itself, Codex repairs such values and parses again, and Gemini CLI reads the `name:` and `description:` lines on their own: where every target the skill is checked for reads it that way, it is not reported (check with `--target agentskills` or `skills-ref` for the strict parsers).\n\nWhy: strict parsers (skills-ref, PyYAML, the `skills` CLI) skip or reject a skill whose YAML does not parse.\n\nExample: `description: Use when: the user asks` (an unquoted `: ` inside a value); quote the value.";
    DUPLICATE_KEY = "SK009" "duplicate-key" Error Validate No All
        "a key appears twice in the frontmatter"
        "What it does: flags a key that is defined twice in the same mapping.\n\nWhy: YAML forbids it; some parsers reject the file and others silently keep one of the values.\n\nExample: two `name:` lines.";
    TAB_INDENTATION = "SK010" "tab-indentation" Error Validate No All
        "the frontmatter is indented with a tab"
        "What it does: flags tab characters used for indentation in the frontmatter.\n\nWhy: YAML forbids tabs in indentation; every parser rejects the file.\n\nExample: `metadata:` followed by a line starting with a tab.";
    FRONTMATTER_CUT = "SK011" "frontmatter-cut" Warning Validate No All
        "an agent ends the frontmatter at a `---` inside it"
        "What it does: finds `---` inside the frontmatter, where Claude Code and skills-ref (which end the frontmatter at the first `---` anywhere) stop reading.\n\nWhy: those agents then see a truncated value or broken YAML. An error under claude-code (and under skills-ref when the cut makes the skill invalid), a warning elsewhere.\n\nExample: `description: \"Converts a --- b\"`.";
    UNKNOWN_KEY = "SK012" "unknown-key" Error Validate No All
        "the frontmatter has a key no agent knows"
        "What it does: flags keys that are neither in the spec nor honoured by any known client, with a did-you-mean.\n\nWhy: a misspelt key is silently ignored by lenient agents and rejected by strict ones (claude.ai uploads, skills-ref).\n\nExample: `descripton: …`.";
    CLIENT_SPECIFIC_KEY = "SK013" "client-specific-key" Warning Validate Unsafe All
        "the key is honoured only by some clients"
        "What it does: flags keys that Claude Code honours but the open spec does not define (`when_to_use`, `disable-model-invocation`, …).\n\nWhy: claude.ai uploads, the Skills API and skills-ref reject any key outside the six spec keys. A warning under agentskills, fine under claude-code, an error under claude-ai and skills-ref.\n\nExample: `argument-hint: [file]` in a skill meant for claude.ai.";
    STRICT_YAML = "SK014" "strict-yaml" Error Validate No All
        "the reference validator's strictyaml rejects this YAML"
        "What it does: under the skills-ref target, flags flow collections (`[a, b]`, `{a: b}`), anchors, aliases and tags.\n\nWhy: skills-ref parses with strictyaml, which refuses them as invalid YAML.\n\nExample: `allowed-tools: [Read, Write]`; write a block list or a space-separated string.";
    AMBIGUOUS_SCALAR = "SK015" "ambiguous-scalar" Warning Lint Safe All
        "a YAML value that YAML 1.1 and 1.2 parsers read differently"
        "What it does: flags unquoted values that YAML 1.1 parsers (PyYAML, Go's yaml.v2) and YAML 1.2 parsers (yaml@2, which Claude Code uses) read differently: `yes`, `no`, `on`, `off`, `y`, `n` (booleans in 1.1), `0755` (octal in 1.1), `0o17`, `1_000`, `1:30` (base 60 in 1.1), dates such as `2026-01-31`, `1e3`, and numbers such as `1.0` or `2.50` whose text JavaScript and Python print differently; and anchors, aliases and tags on values. Values every parser reads alike are left alone: `12876` is a number and `1.0.0` text everywhere.\n\nWhy: agents use different YAML parsers. `enabled: yes` is true for one and the text `yes` for another; `version: 1.0` comes back as `1` from a JavaScript parser. Quoting makes every parser read the text you wrote (benches/realworld: plain integers and `1.0.0` versions were 265 findings, none real).\n\nExample: `license: no` (fix: `license: \"no\"`).";
    UNUSED_SUPPRESSION = "SK016" "unused-suppression" Warning Lint Safe All
        "a suppression comment suppresses nothing"
        "What it does: flags `skillpkg-disable…` comments that no finding matched, and those naming a rule that does not exist.\n\nWhy: a stale suppression hides the next real problem on that line, and a misspelt code suppresses nothing at all.\n\nExample: `<!-- skillpkg-disable-next-line SK301 -->` above a line with no SK301 finding (fix: remove the comment).";
    BROKEN_SKILL_LINK = "SK017" "broken-skill-link" Error Validate No All
        "the skill file is a symbolic link to nothing"
        "What it does: flags a `SKILL.md` that is a symbolic link to a file that does not exist, to a folder, or round in a loop.\n\nWhy: agents follow the link, find no file and skip the skill without a word; it is usually a link left behind when its target moved, or a link farm (`.gemini/skills/x/SKILL.md`) made on another machine. It is a defect of the repository, reported like any other, not an I/O error.\n\nExample: `.gemini/skills/pdf/SKILL.md -> ../../../skills/pdf/SKILL.md` after `skills/pdf` was renamed.";
    NAME_MISSING = "SK101" "name-missing" Error Validate No All
        "the required key `name` is missing"
        "What it does: checks that the frontmatter has `name`.\n\nWhy: the spec requires it and uses it as the skill's identity; it must equal the folder name.\n\nExample: frontmatter with only `description`.";
    NAME_NOT_STRING = "SK102" "name-not-string" Error Validate No All
        "`name` is not a string"
        "What it does: checks that `name` is text.\n\nWhy: strict parsers read `name: 123` as a number and reject it; a list or mapping is never a name.\n\nExample: `name: 2024` (quote it: `name: \"2024\"`).";
    NAME_EMPTY = "SK103" "name-empty" Error Validate No All
        "`name` is empty"
        "What it does: checks that `name` is not empty or blank.\n\nWhy: the spec requires 1 to 64 characters.\n\nExample: `name: \"\"`.";
    NAME_TOO_LONG = "SK104" "name-too-long" Error Validate No All
        "`name` is longer than 64 characters"
        "What it does: counts the characters of `name` (Unicode scalar values after NFKC) and checks there are at most 64.\n\nWhy: the spec's limit; the Skills API rejects longer names.\n\nExample: a 70-character name.";
    NAME_NOT_LOWERCASE = "SK105" "name-not-lowercase" Error Validate No All
        "`name` is not lowercase"
        "What it does: checks that `name` has no uppercase letters.\n\nWhy: the spec allows only lowercase letters, digits and hyphens.\n\nExample: `name: PDF-Tools` (use `pdf-tools`).";
    NAME_INVALID_CHARS = "SK106" "name-invalid-chars" Error Validate No All
        "`name` has characters other than letters, digits and hyphens"
        "What it does: checks every character of `name`: lowercase letters and digits (Unicode under agentskills and skills-ref, ASCII `a-z0-9` under claude-ai) and `-`.\n\nWhy: the spec's character set; claude.ai uploads accept ASCII only.\n\nExample: `name: my_skill` (use `my-skill`).";
    NAME_HYPHENS = "SK107" "name-hyphens" Error Validate No All
        "`name` starts or ends with a hyphen, or has two in a row"
        "What it does: checks that `name` does not start or end with `-` and has no `--`.\n\nWhy: the spec forbids both.\n\nExample: `name: -pdf` or `name: pdf--tools`.";
    NAME_FOLDER_MISMATCH = "SK108" "name-folder-mismatch" Error Validate No All
        "`name` differs from the skill's folder name"
        "What it does: compares `name` with the name of the folder that holds SKILL.md (after NFKC), for the targets that hold a skill to the spec; under Codex and Gemini CLI, which list and activate a skill by its `name` and load it whatever its folder, a warning. Not reported under Claude Code, which names a skill after its folder (that is what the model and the user call) and shows `name` only as a label beside it, nor under OpenClaw, whose folders are for organisation.\n\nWhy: the spec requires them to be equal, and skills-ref and claude.ai refuse the skill otherwise; a name changed without its folder is often a rename half done.\n\nExample: `name: pdf-tools` in folder `pdf`.";
    NAME_RESERVED_WORD = "SK109" "name-reserved-word" Error Validate No All
        "`name` contains a reserved word"
        "What it does: under claude-ai, flags names containing `anthropic` or `claude`.\n\nWhy: claude.ai uploads and the Skills API reject them.\n\nExample: `name: claude-helper`.";
    FOLDER_NOT_LOADED = "SK110" "folder-not-loaded" Error Validate No ClaudeCode
        "Claude Code does not load a skill from a folder of this name"
        "What it does: under claude-code (2.1.332), checks the skill folder's name as Claude Code does: no control, format or other invisible character, no `<` or `>`, no space other than a plain one, no leading, trailing or double space, no leading or trailing `:` and no space beside a `:`.\n\nWhy: Claude Code silently leaves such a skill out: it is neither listed nor invocable (recorded against the real 2.1.332, `docs/research/claude-code-conformance.md` §5).\n\nExample: a folder named `pdf  tools` (two spaces) or `:pdf`.";
    DESCRIPTION_MISSING = "SK201" "description-missing" Error Validate No All
        "the required key `description` is missing"
        "What it does: checks that the frontmatter has `description`.\n\nWhy: the description is what the model reads to decide when to use the skill; the spec requires it. Claude Code falls back to the first body line.\n\nExample: frontmatter with only `name`.";
    DESCRIPTION_NOT_STRING = "SK202" "description-not-string" Error Validate No All
        "`description` is not a string"
        "What it does: checks that `description` is text.\n\nWhy: strict parsers reject `description: 12` or `description: yes` as non-text; a list is dropped by Claude Code, which then falls back to the first body line.\n\nExample: `description: [TODO]`.";
    DESCRIPTION_EMPTY = "SK203" "description-empty" Error Validate No All
        "`description` is empty"
        "What it does: checks that `description` is not empty or blank.\n\nWhy: an empty description gives the model nothing to choose the skill by; the spec requires 1 to 1,024 characters.\n\nExample: `description: \"\"`.";
    DESCRIPTION_TOO_LONG = "SK204" "description-too-long" Error Validate No All
        "`description` is longer than 1,024 characters"
        "What it does: counts the characters of `description` and checks there are at most 1,024.\n\nWhy: the spec's limit; skills-ref and claude.ai reject longer descriptions.\n\nExample: a 1,100-character description.";
    DESCRIPTION_ANGLE_BRACKETS = "SK205" "description-angle-brackets" Error Validate No All
        "`description` contains angle brackets or XML tags"
        "What it does: under claude-ai, flags `<` and `>` in `description`.\n\nWhy: claude.ai uploads and the Skills API reject XML tags in the description (Anthropic's validator rejects any angle bracket).\n\nExample: `description: Converts <input> files`.";
    DESCRIPTION_NO_TRIGGER = "SK206" "description-no-trigger" Warning Lint No All
        "the description does not say when to use the skill"
        "What it does: looks for a trigger in `description` (and Claude Code's `when_to_use`): \"Use when …\", \"when the user …\", \"if …\", a trigger list (`TRIGGERS - …`, \"Triggers on …\"), a sentence that starts with \"For …\", and similar. Skills only the user invokes (`disable-model-invocation: true`, or an `argument-hint`) are skipped.\n\nWhy: agents choose a skill from its description alone. One that says what the skill does but not when to use it is triggered too rarely (agentskills.io, \"Optimizing descriptions\").\n\nExample: `description: Formats release notes.` (add: `Use when the user asks for a changelog.`).";
    DESCRIPTION_PERSON = "SK207" "description-person" Warning Lint No All
        "the description is written in the first or second person"
        "What it does: flags a description written in the first person (`I`, `me`, `my`, `we`, `our`) or, with two or more such words, the second (`you`, `your`). Quotes, code, trigger lists (the users' own words), `I/O`, `wa.me` and a \"you\" right after \"when\" or \"if\" (which speaks to the agent, as the system prompt does) do not count.\n\nWhy: the description is injected into the agent's system prompt, where a point of view other than the third person confuses who is speaking (Anthropic's best practices: \"Always write in third person\").\n\nExample: `description: I can help you format notes.` (write: `Formats notes. Use when …`).";
    DESCRIPTION_VAGUE = "SK208" "description-vague" Warning Lint No All
        "the description is too short or too vague to choose the skill by"
        "What it does: flags descriptions under 40 characters or 6 words, and ones built on vague phrases (\"helps with\", \"various tasks\", \"useful tool\") without specifics.\n\nWhy: an agent picks among dozens of skills by description; a vague one is never chosen, or chosen for the wrong task.\n\nExample: `description: Helps with documents.`";
    PLACEHOLDER_TEXT = "SK209" "placeholder-text" Warning Lint No All
        "text left over from a template"
        "What it does: finds `TODO:`, `FIXME:`, `[TODO`, `TBD:`, `XXX:`, \"Lorem ipsum dolor\" and `skillpkg init`'s placeholder description in SKILL.md and its prose files, except in code, quotes and backticks, in templates and assets (which hold placeholders on purpose), in sentences that talk about such markers (find, remove, add or leave a TODO comment; `TODO/FIXME`), and in skills about to-do lists, whose `TODO:` lines are their subject.\n\nWhy: unfinished instructions reach the model as if they were real, and a placeholder description means the skill is never chosen.\n\nExample: `description: \"TODO: say what this skill does and when to use it\"`.";
    DESCRIPTION_TRUNCATED = "SK210" "description-truncated" Warning Lint No ClaudeCode
        "Claude Code cuts the description in its skill listing"
        "What it does: under claude-code targets, measures `description` plus ` - ` and `when_to_use` as Claude Code does (after its clean-up and `<`/`>` escaping) against the listing cap: 1,536 UTF-16 units in Claude Code 2.1.332, 250 in 2.1.88. Points at where the cut falls.\n\nWhy: the model sees the text up to the cut and an ellipsis; a trigger after the cut is lost.\n\nExample: a 300-character description under `claude-code@2.1.88`.";
    DESCRIPTION_MULTILINE = "SK211" "description-multiline" Warning Lint No All
        "retired: line breaks in the description"
        "What it does: nothing; it is never reported. It used to flag a `description` with line breaks (a `|` block).\n\nWhy retired: no agent skillpkg models is hurt by them: Claude Code folds them into spaces, Codex collapses whitespace, and Gemini CLI and skills-ref's prompt put the description inside its own XML element, where a line break changes nothing (0 of 12 judged findings on published skills were real; benches/realworld). The code stays so that configurations and suppressions naming it remain valid.\n\nExample: none.";
    BODY_TOO_LONG = "SK301" "body-too-long" Warning Lint No All
        "the body is longer than 500 lines"
        "What it does: counts the lines of SKILL.md after the frontmatter.\n\nWhy: the whole body enters the context every time the skill runs; the spec recommends under 500 lines, with details moved to `references/`.\n\nExample: a 900-line SKILL.md with an API reference pasted in.";
    BODY_TOO_MANY_TOKENS = "SK302" "body-too-many-tokens" Warning Lint No All
        "the body is over 5,000 estimated tokens"
        "What it does: estimates the body's tokens as one per 4 ASCII bytes plus one per non-ASCII character, counting a run of spaces once (Claude's tokenizer is not public; this is close for English and CJK), and flags more than 5,000 by over a twentieth (5,250), so that the estimate's error is not reported. A body over 500 lines is reported once, as `body-too-long`.\n\nWhy: the spec recommends keeping the instructions under 5,000 tokens; after compaction Claude Code re-attaches only the first 5,000 tokens of a skill.\n\nExample: a 400-line body of dense prose.";
    BROKEN_REFERENCE = "SK303" "broken-reference" Warning Lint No All
        "SKILL.md refers to a file that does not exist"
        "What it does: checks Markdown links and paths under `scripts/`, `references/` and `assets/` in SKILL.md (also after `${CLAUDE_SKILL_DIR}/`) against the skill's files, once per path. Placeholder names (`scripts/your_script.py`), paths in a sentence that gives an example, paths after a `cd` elsewhere, extension-less words in prose (`references/appendix`), and paths that exist in the plugin's folder or a sibling skill are not reported.\n\nWhy: the agent follows the instruction, fails to open the file and improvises.\n\nExample: `Read [the guide](references/guide.md)` with no such file.";
    UNREFERENCED_FILE = "SK304" "unreferenced-file" Warning Lint No All
        "a bundled file nothing leads to from SKILL.md"
        "What it does: follows every reference from SKILL.md through every text file and script of the skill: links, paths (also with `{name}`, `<name>`, `$NAME` or `*` standing for a part, as in `references/{lang}.md`), file names, folder names, and in code the imports of a module by its stem. Files in `scripts/`, `references/` and `assets/` that nothing reached leads to are reported, once for each orphaned chain, at its top. Tests, build and packaging files, changelogs and licences, other agents' metadata (Codex's `agents/openai.yaml`) need no mention, and what they name counts as named; so does what the plugin's `GEMINI.md`, `AGENTS.md` or `CLAUDE.md` names.\n\nWhy: the agent only knows about files the instructions lead it to; an orphaned file is dead weight in every package.\n\nExample: `references/old-notes.md` that no file names.";
    NESTED_REFERENCE = "SK305" "nested-reference" Warning Lint No All
        "reference documents reached only through another one"
        "What it does: flags Markdown files in `references/` that SKILL.md does not lead to but a document it links does (one extra step: SKILL.md → a.md → b.md), once per skill. Files an index links (a file named like `index.md`, or mostly links), files a template path covers, and trees of documents designed to be walked (more than 30 reference documents, or more than 10 reached through others) are not reported.\n\nWhy: the spec and Anthropic's guidance say to keep references one level deep: agents often read only part of a file they were pointed to, and miss what it points to.\n\nExample: SKILL.md → `references/a.md` → `references/b.md`.";
    ABSOLUTE_PATH = "SK306" "absolute-path" Warning Lint No All
        "an absolute path that exists on the author's machine only"
        "What it does: finds paths such as `/home/…`, `/Users/…` and `C:\\…` in SKILL.md that point at the skill's own files (they contain `.claude/skills/` or the skill's folder name, or end in one of its files), or that lead into a named person's home folder (`/home/alice/…`, `/Users/bob/…`, `C:\\Users\\carol\\…`). Standard locations, a container's or a server's folders and default accounts (`/home/ubuntu`, `/home/runner`), stand-ins for anyone (`/Users/you`, `/home/user`), and paths in a sentence that warns against them or gives an example are not reported.\n\nWhy: they exist only on the author's machine, so every other agent looks in the wrong place. Use paths relative to the skill folder, `${CLAUDE_SKILL_DIR}`, or `~` for the user's own home.\n\nExample: `python3 /Users/ana/skills/pdf/scripts/fill.py`, or `cat /home/alice/notes/style.md`.";
    BACKSLASH_PATH = "SK307" "backslash-path" Warning Lint Safe All
        "a path written with backslashes"
        "What it does: finds `scripts\\…`, `references\\…` and `assets\\…` paths.\n\nWhy: agents run commands in POSIX shells, where a backslash is an escape, not a separator. Forward slashes work on every platform.\n\nExample: `scripts\\fill.py` (fix: `scripts/fill.py`).";
    LEGACY_BASE_DIR = "SK308" "legacy-base-dir" Warning Lint Safe All
        "the legacy `{baseDir}` placeholder"
        "What it does: finds `{baseDir}`, which older skill guides used for the skill's folder, where the agent itself must expand it: in an inline shell command (`!`…``) and in `allowed-tools`. Once per file, with one fix for every use.\n\nWhy: Claude Code, Codex and Gemini CLI leave it as written. In prose and code blocks the model reads it beside the skill's folder, which the agent states first (\"Base directory for this skill: …\"), and resolves it; inline shell runs before the model sees anything, and a permission rule is matched as written. Claude Code substitutes `${CLAUDE_SKILL_DIR}`.\n\nExample: `allowed-tools: Bash({baseDir}/scripts/run.sh:*)` (fix: `${CLAUDE_SKILL_DIR}`).";
    REFERENCE_WITHOUT_TOC = "SK309" "reference-without-toc" Warning Lint No All
        "a reference file longer than one read, without a table of contents"
        "What it does: flags Markdown files in `references/` longer than one read returns (2,000 lines or 25,000 estimated tokens, Claude Code 2.1.332's Read tool) that do not start with a table of contents (a `Contents` heading or a list of links within the first lines).\n\nWhy: a longer file comes back in parts, and the agent decides from the top what else to read; a table of contents there shows it what the file holds. A shorter file comes back whole (on published skills, every finding between 100 and 500 lines was noise).\n\nExample: a 3,000-line `references/api.md` that starts with prose.";
    EXTRANEOUS_DOCUMENT = "SK310" "extraneous-document" Warning Lint No All
        "a document for people among the agent's reference files"
        "What it does: flags `README.md`, `INSTALL.md`, `INSTALLATION.md`, `INSTALLATION_GUIDE.md`, `QUICK_REFERENCE.md` and `CONTRIBUTING.md` directly inside `references/`, the folder the agent is sent to for its documents, when SKILL.md does not lead to them.\n\nWhy: an agent looking through `references/` finds a human overview (a quick start, a file tree, install steps) beside the documents written for it, often repeating SKILL.md or out of step with it; Anthropic's skill-creator says not to create such files. A README at the skill's root, or in `docs/`, is the folder's page for the people who browse the repository: no agent loads it, and it is not reported (benches/realworld: every such finding on unseen collections was judged deliberate). A document SKILL.md sends the agent to is agent content, whatever its name.\n\nExample: `my-skill/references/README.md` with a \"Quick Start\" for people.";
    SCRIPT_NOT_EXECUTABLE = "SK311" "script-not-executable" Warning Lint No All
        "a script the instructions run directly, without the executable bit"
        "What it does: flags files in `scripts/` that start with a shebang but are not executable (Unix only), when some text of the skill runs them directly (`scripts/x.sh` at the start of a command in a code block or inline shell, or \"Run `scripts/x.sh`\") and none runs them through an interpreter (`python3 scripts/x.py`, `uv run`, `bash`, `node`).\n\nWhy: an agent told to run `scripts/x.sh` gets \"permission denied\". Run `chmod +x` and commit the mode.\n\nExample: `scripts/fill.py` with mode 0644, run as `scripts/fill.py`.";
    SCRIPT_MISSING_SHEBANG = "SK312" "script-missing-shebang" Warning Lint No All
        "a script the instructions run directly, without a shebang line"
        "What it does: flags scripts in `scripts/` (by extension: `.py`, `.sh`, `.js`, `.rb`, …) whose first line is not `#!`, when the instructions run them directly and never through an interpreter (as `script-not-executable` decides). Modules named `_x.py` or without `__main__` are skipped, unless the file is executable: then running it directly is its purpose.\n\nWhy: without it, running the file directly fails or picks the wrong interpreter.\n\nExample: a `scripts/run.py` run as `scripts/run.py` that starts with `import sys` (add `#!/usr/bin/env python3`).";
    CLAUDE_ONLY_VARIABLE = "SK313" "claude-only-variable" Warning Lint Unsafe All
        "`${CLAUDE_SKILL_DIR}` in a skill for agents that leave it as written"
        "What it does: finds `${CLAUDE_SKILL_DIR}` in the body of a skill whose targets include an agent that does not substitute it (Codex, Gemini CLI, OpenCode, Copilot, Goose), once per file with one fix for every use followed by `/` (the path made relative to the skill folder). `allowed-tools` keeps it: only Claude Code reads that key, and substitutes it there. Sentences that warn against it are not reported.\n\nWhy: only Claude Code replaces it with the skill's folder. Codex and Gemini CLI show the model `${CLAUDE_SKILL_DIR}/scripts/run.py` as written (see `skillpkg preview --target codex`), and a shell expands the unset variable to nothing, so the command runs `/scripts/run.py`. A path relative to the skill folder works everywhere: the spec says agents resolve it from the skill's root, and every agent tells the model where that is.\n\nExample: `python3 ${CLAUDE_SKILL_DIR}/scripts/fill.py` in a skill for codex (fix: `python3 scripts/fill.py`; unsafe, since the model must now join the path to the skill folder itself).";
    COMPATIBILITY_LENGTH = "SK501" "compatibility-length" Error Validate No All
        "`compatibility` is empty or longer than 500 characters"
        "What it does: checks that `compatibility`, when present, has 1 to 500 characters.\n\nWhy: the spec's limit.\n\nExample: `compatibility: \"\"`.";
    INVALID_FIELD_TYPE = "SK502" "invalid-field-type" Error Validate No All
        "a frontmatter value has the wrong type"
        "What it does: checks the type of each known key's value (`license` is text, `metadata` a mapping, `paths` a string or list, …).\n\nWhy: agents drop or reject values of the wrong type.\n\nExample: `license: [MIT]`.";
    INVALID_FIELD_VALUE = "SK503" "invalid-field-value" Error Validate No All
        "a frontmatter value is not one the key accepts"
        "What it does: checks values with a fixed set of choices (`context: fork`, `effort`, `shell`, booleans) under claude-code.\n\nWhy: Claude Code ignores an invalid value, so the setting silently does nothing.\n\nExample: `context: forked`.";
    METADATA_VALUE = "SK504" "metadata-value" Error Validate No All
        "a `metadata` value is not a string"
        "What it does: checks that `metadata` maps string keys to string values. A nested mapping or list is an error; a number or boolean is a warning.\n\nWhy: the spec says string to string; strict clients (Go `map[string]string`) reject the skill, and `version: 1.10` becomes the number 1.1.\n\nExample: `metadata: {version: 1.0}` (quote it: `version: \"1.0\"`).";
    ALLOWED_TOOLS_TOO_BROAD = "SK505" "allowed-tools-too-broad" Warning Lint No All
        "`allowed-tools` pre-approves every command"
        "What it does: flags a bare `Bash`, `Bash(*)`, `Bash()` or `*` in `allowed-tools` (the entries that let every command run) when the commands SKILL.md shows (shell code blocks and inline shell) need at most three narrow rules, and names them. Commands Claude Code runs without asking (`head`, `jq`, `git status`) need none; code given inline (`python3 -c`, a heredoc, a script in a variable) cannot be narrowed, so a skill that runs it, or many different commands, is not reported.\n\nWhy: `allowed-tools` runs those tools without asking. Where a few rules would do, a bare `Bash` lets the skill run anything for nothing.\n\nExample: `allowed-tools: Bash` and a body that only runs `gh pr list` (write `Bash(gh:*)`).";
    UNKNOWN_TOOL = "SK506" "unknown-tool" Warning Lint No ClaudeCode
        "`allowed-tools` names a tool Claude Code does not have"
        "What it does: under claude-code targets, checks each tool name against Claude Code's tools (Bash, Read, Write, Edit, Glob, Grep, WebFetch, …) and MCP tools (`mcp__server__tool`).\n\nWhy: a misspelt tool is silently ignored, so the permission the skill expects is never granted.\n\nExample: `allowed-tools: Bash(git:*) ReadFile` (did you mean `Read`?).";
    ALLOWED_TOOLS_FORMAT = "SK507" "allowed-tools-format" Warning Lint No All
        "retired: `allowed-tools` as a list or comma-separated"
        "What it does: nothing; it is never reported. It used to flag `allowed-tools` written as a YAML list or with commas.\n\nWhy retired: Claude Code and skills-ref both accept the space-separated, comma-separated and block-list forms, so the finding was never a real problem (0 of 12 judged findings on published skills were; benches/realworld). A flow list (`[Read, Write]`), which skills-ref's strict YAML refuses, is `strict-yaml` (SK014). The code stays so that configurations and suppressions naming it remain valid.\n\nExample: none.";
    INLINE_SHELL_NOT_ALLOWED = "SK508" "inline-shell-not-allowed" Error Lint No ClaudeCode
        "inline shell that Claude Code will refuse to run"
        "What it does: under claude-code targets, finds `!`command`` (at the start of a line or after a space) and ```` ```! ```` blocks whose command is neither read-only (`echo`, `cat`, `ls`, `git status`, …) nor covered by a `Bash(…)` rule in `allowed-tools`.\n\nWhy: Claude Code runs these before the model sees the skill; when one is not allowed, the whole invocation aborts with \"Shell command permission check failed\" (captures §8). `!` glued to a word is literal text and is not flagged.\n\nExample: `` !`touch marker` `` without `allowed-tools: Bash(touch:*)`.";
    ARGUMENTS_WITHOUT_HINT = "SK509" "arguments-without-hint" Warning Lint No ClaudeCode
        "the body uses arguments but `argument-hint` is missing"
        "What it does: finds `$ARGUMENTS` and `$ARGUMENTS[N]` in prose, or two different `$N` indexes (`$1` and `$2`), when the frontmatter has no `argument-hint`. Money (`$25,000`, `$200`), spreadsheet cells (`B$6`), inline code and a shell block's own `$1` are not arguments.\n\nWhy: Claude Code substitutes them with what the user typed after `/skill`; without a hint nobody knows what to type.\n\nExample: `Summarise $ARGUMENTS` with no `argument-hint: [file]`.";
    UNUSED_ARGUMENT = "SK510" "unused-argument" Warning Lint No ClaudeCode
        "an argument declared in `arguments` is never used"
        "What it does: checks that each name in `arguments` appears as `$name` in the body.\n\nWhy: Claude Code substitutes `$name` with the matching word the user typed; an unused name shifts nothing but misleads.\n\nExample: `arguments: [file, mode]` with only `$file` in the body.";
    UNDECLARED_ARGUMENT = "SK511" "undeclared-argument" Warning Lint No ClaudeCode
        "the body uses a named argument that `arguments` does not declare"
        "What it does: when `arguments` is set, flags `$word` placeholders that look like argument names but are not declared.\n\nWhy: Claude Code leaves them as literal text.\n\nExample: `arguments: [file]` and `$fiel` in the body.";
    NOT_INVOCABLE = "SK512" "not-invocable" Warning Lint No All
        "nobody can invoke the skill"
        "What it does: flags `disable-model-invocation: true` together with `user-invocable: false`.\n\nWhy: the model may not use it and the user cannot type it; the skill can never run.\n\nExample: both keys set in a skill meant to be hidden from the menu.";
    INVALID_PATHS_GLOB = "SK513" "invalid-paths-glob" Warning Lint No All
        "a `paths` glob that does not compile"
        "What it does: compiles each `paths` pattern as a glob.\n\nWhy: Claude Code lists a `paths` skill only after the model reads a matching file; a broken pattern matches nothing, so the skill never appears.\n\nExample: `paths: src/**/*.{py`.";
    DUPLICATE_NAME = "SK601" "duplicate-name" Error Validate No All
        "two skills have the same name"
        "What it does: compares the names of all checked skills that have frontmatter, within each Claude Code plugin (a folder with `.claude-plugin/plugin.json`, or a plugin a marketplace lists) and among the skills outside any plugin.\n\nWhy: agents identify skills by name; when two collide one of them is dropped or shadowed. Claude Code names a plugin's skills `plugin:name`, so two plugins may each have a `setup`.\n\nExample: `skills/pdf/SKILL.md` and `.claude/skills/pdf/SKILL.md` both named `pdf`.";
    SIMILAR_DESCRIPTIONS = "SK602" "similar-descriptions" Warning Lint No All
        "two skills have nearly the same description"
        "What it does: compares the descriptions of all checked skills and reports each skill's closest match at least 80 % the same: by shared word 3-grams (Jaccard similarity), or by a word-level edit distance in which each word weighs by how few of the checked descriptions use it, so that a few changed common words (\"groups the failures\" / \"groups failures\", \"at random\" / \"randomly\") count little and a changed task word (\"Audit reports\" / \"Migrate reports\") counts much. Candidate pairs come from MinHash buckets and from rare shared word pairs, never from comparing every pair.\n\nWhy: the model chooses by description; when two read alike it cannot tell which to use.\n\nExample: two skills both described as \"Formats release notes. Use when the user asks for a changelog.\"";
    COMMAND_SHADOWED = "SK604" "command-shadowed" Warning Lint No ClaudeCode
        "a legacy command has the same name as this skill"
        "What it does: under claude-code targets, looks for `.claude/commands/<name>.md` beside the `.claude/skills` folder that holds the skill.\n\nWhy: Claude Code lists legacy commands in the same listing as skills, and a skill wins a name clash: the command is neither listed nor runnable under that name (recorded against the real 2.1.332).\n\nExample: `.claude/skills/deploy/SKILL.md` and `.claude/commands/deploy.md`.";
    LISTING_OVER_BUDGET = "SK603" "listing-over-budget" Warning Lint No ClaudeCode
        "a listing of skills is over Claude Code's budget"
        "What it does: under claude-code targets, builds each listing of the checked skills as Claude Code does (the skills of one plugin, or of one `.claude/skills` folder; skills in other folders are installed one by one) and compares it with the listing budget at `--context-window` (default: that of `preview`'s default model, 1,000,000 tokens): window × 4 characters per token × 1% for windows up to 200,000 (the \"legacy\" models), × 3 above, less the 6,040 columns Claude Code's own bundled skills take. Claude Code 2.1.332 drops whole descriptions; 2.1.88 shortens every description to an equal share. Once per listing, on the first skill affected, naming the others.\n\nWhy: a skill whose description is dropped is listed by name only, and the model rarely picks it.\n\nExample: 150 skills with 300-character descriptions at a 200,000-token window.";
    SECRET_FILE = "SK701" "secret-file" Error Lint No All
        "a file that looks like a secret"
        "What it does: flags files named like credentials: `.env` and `.env.*`, `*.pem`, `*.key`, `*.p12`, `*.pfx`, `id_rsa`, `id_ed25519` and similar, `.npmrc`, `.pypirc`, `credentials.json`.\n\nWhy: everything in the folder ships with the skill; a leaked key is public the moment the skill is shared.\n\nExample: `my-skill/.env`.";
    SECRET_IN_CONTENT = "SK702" "secret-in-content" Error Lint No All
        "text that looks like an API key or private key"
        "What it does: scans SKILL.md and the skill's text files for AWS access keys, GitHub and Anthropic tokens, OpenAI and Google API keys, Slack tokens and private-key blocks.\n\nWhy: skills are shared and published; a key in one is leaked. Read secrets from the environment instead.\n\nExample: `export ANTHROPIC_API_KEY=sk-ant-api03-…` in SKILL.md.";
}

/// Rules that no longer report anything: kept so that configurations and suppressions naming
/// them stay valid. Each one's documentation says why it was retired.
pub const RETIRED: &[&str] = &["SK211", "SK507"];
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
