"""Seeded random scenarios drawn from a grammar of what skill authors write and what breaks parsers.

`scenario(seed, index, agent)` is a pure function of its arguments: the same seed gives the same
scenarios on every machine (Python's `random.Random` is specified to be reproducible), so a live
run can be repeated and a mismatch reported by seed and index.

Each scenario focuses on one class of input (the issue's areas: YAML values, sanitising, the
fallback, the listed name, discovery, paths, overrides, CRLF, legacy commands, the budget,
arguments, re-invocation, models) and mixes in ordinary skills, so that a rule is seen both alone
and beside others.
"""

from __future__ import annotations

import json
import random

CLASSES = (
    "yaml-values", "sanitise", "fallback", "name", "discovery", "paths", "overrides", "crlf",
    "commands", "budget", "arguments", "reinvoke", "models", "ordinary",
)

# Names Claude Code gives its own skills: a user skill of that name is a different question.
RESERVED = {
    "dataviz", "update-config", "keybindings-help", "code-review", "simplify",
    "fewer-permission-prompts", "loop", "claude-api", "workflow-authoring", "run",
    "plugin-authoring", "init", "security-review",
}

WORDS = (
    "pdf", "forms", "extract", "tables", "charts", "review", "deploy", "docs", "release", "notes",
    "csv", "clean", "lint", "python", "tests", "api", "schema", "invoice", "report", "brand",
    "slides", "commit", "message", "sql", "query", "image", "resize", "translate", "summary",
)

SENTENCES = (
    "Fill in PDF forms and extract their fields.",
    "Use when the user asks for a release note.",
    "Generates SQL queries from plain English.",
    "Reviews pull requests for security issues, style and tests.",
    "Turns CSV files into charts (bar, line, pie).",
    "Creates brand-compliant slides: titles, colours & fonts.",
    "Writes commit messages in the Conventional Commits format.",
    "Summarises long documents into bullet points.",
)

EMOJI = (
    "\U0001F600", "\U0001F44D\U0001F3FD", "\U0001F468\u200D\U0001F469\u200D\U0001F467",
    "\u2764\ufe0f", "1\ufe0f\u20e3", "\U0001F1EB\U0001F1F7",
    "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F",
    "\U0001F469\u200D\U0001F4BB", "\u263a", "\u270c\ufe0e",
)

ODD_CHARS = (
    "\u200b", "\u200c", "\u200d", "\u200e", "\u202e", "\u2066", "\u2060", "\ufeff", "\u00ad",
    "\ue000", "\uf8ff", "\U000F0000", "\u00a0", "\u2003", "\u3000", "\u2028", "\u2029",
    "\u0301", "\u0085", "\u061c", "\u180e", "\ufff9", "\U0001D173", "\u034f",
)

SCRIPTS = ("漢字のテスト", "Привет мир", "مرحبا بالعالم", "שלום עולם", "Ελληνικά", "한국어", "ไทย")

DQ_ESCAPES = (
    "\\t", "\\n", "\\x41", "\\u00e9", "\\U0001F600", "\\e", "\\0", "\\x7f", "\\x85", "\\x9b",
    "\\uFFFE", "\\uFDD0", "\\uE000", "\\/", "\\N", "\\_", "\\L", "\\P", "\\\\", "\\\"", "\\a",
    "\\b", "\\v", "\\f", "\\r", "\\x1b[31m", "\\u200b", "\\uD83D\\uDE00", "\\x80", "\\x9f",
)

PLAIN_TYPED = (
    "12345", "0x1F", "0o17", "017", "1e3", "1.50", ".5", "-0", "+12", "1_000", ".inf", "-.Inf",
    ".NaN", ".nan", "true", "True", "TRUE", "yes", "on", "false", "False", "no", "off", "~",
    "null", "Null", "NULL", "2024-01-01", "1.0", "0.1e-2", "-12", "0b101", "1:30", "0.", "1e+400",
    "12.30e2", "0o8", "0xg", "+.inf", "-.5", "007", "9007199254740993", "1e-7", "123456789012345678901",
)


def _words(rng: random.Random, low: int = 1, high: int = 3) -> str:
    return "-".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _sentence(rng: random.Random) -> str:
    return rng.choice(SENTENCES)


def _dq(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _sq(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _odd_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.3:
            parts.append(rng.choice(EMOJI))
        elif kind < 0.6:
            parts.append(rng.choice(ODD_CHARS))
        elif kind < 0.75:
            parts.append(rng.choice(SCRIPTS))
        elif kind < 0.85:
            parts.append(rng.choice(("<b>", "a < b", "x > y", "&amp;", "<tag/>", "&lt;")))
        else:
            parts.append(rng.choice(("\t", "  ", " \t ")))
        parts.append(rng.choice(WORDS))
    return " ".join(parts)


def yaml_value(rng: random.Random, text: str, indent: str = "  ") -> str:
    """`text` written as one of the YAML scalar styles (the value part after `key:`)."""
    style = rng.random()
    safe_plain = (text and text.strip() == text and not any(c in text for c in ":#'\"{}[]&*!|>%@`,\n\t")
                  and not text[0] in "-?")
    if style < 0.3 and safe_plain:
        return " " + text
    if style < 0.5:
        return " " + _dq(text.replace("\n", "\\n"))
    if style < 0.62 and "\n" not in text:
        return " " + _sq(text)
    header = rng.choice(("|", "|-", "|+", ">", ">-", ">+"))
    lines = text.split("\n") if "\n" in text else [text]
    return " " + header + "\n" + "".join(indent + line + "\n" if line else "\n" for line in lines).rstrip("\n")


def description_field(rng: random.Random, cls: str) -> list[str]:
    """Frontmatter lines for `description` (possibly none)."""
    if cls == "yaml-values":
        choice = rng.random()
        if choice < 0.45:
            return ["description: " + rng.choice(PLAIN_TYPED)]
        if choice < 0.55:
            return ["description: [" + rng.choice(PLAIN_TYPED) + ", two]"]
        if choice < 0.62:
            return ["description:", "  - " + _sentence(rng), "  - " + rng.choice(PLAIN_TYPED)]
        if choice < 0.7:
            return ["description: {a: " + rng.choice(PLAIN_TYPED) + "}"]
        if choice < 0.76:
            return ["description: !!str " + rng.choice(PLAIN_TYPED)]
        if choice < 0.82:
            return ["description: " + _sentence(rng) + " # a comment"]
        if choice < 0.88:
            return ["description: " + _sentence(rng), "  continues on a second line"]
        if choice < 0.94:
            return ["description: \"" + "".join(rng.choice(DQ_ESCAPES) for _ in range(2)) + " text\""]
        return ["description: " + _sentence(rng).rstrip(".") + ": with a colon"]
    if cls == "sanitise":
        choice = rng.random()
        if choice < 0.5:
            return ["description:" + yaml_value(rng, _odd_text(rng) + " " + _sentence(rng))]
        if choice < 0.8:
            escapes = "".join(rng.choice(DQ_ESCAPES) + rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
            return ["description: \"" + escapes + "\""]
        return ["description: \"" + rng.choice(EMOJI) + "\\u200d" + rng.choice(EMOJI) + " " + _sentence(rng) + "\""]
    if cls == "fallback":
        return rng.choice((
            [], ["description:"], ["description: \"\""], ["description: ''"], ["description: ~"],
            ["description: \"   \""], ["description: |", "  "], ["description: []"], ["description: 0"],
            ["description: false"], ["description: \"\\t\""], ["description: \"\\u200b\""],
        ))
    choice = rng.random()
    if choice < 0.75:
        return ["description:" + yaml_value(rng, _sentence(rng))]
    if choice < 0.9:
        return ["description:" + yaml_value(rng, _sentence(rng) + "\n" + _sentence(rng))]
    return ["description:" + yaml_value(rng, _sentence(rng) + " " + _odd_text(rng))]


def body(rng: random.Random, cls: str) -> str:
    """A Markdown body; for the fallback class, shapes that test which line is used."""
    if cls == "fallback":
        first = rng.choice((
            "# Title", "#", "###", "## ", "#Title", "   # Indented heading", "",
            "A first line that is quite long " * 5, "\u200b\u200b", "<b>Bold</b> start",
            "  leading spaces line", "\t", "#### " + _odd_text(rng), "-", "---", "```",
            "> quoted line", "* bullet", "\U0001F600" * 60, "x" * 99, "y" * 100, "z" * 101,
            "a" * 96 + "<<", "#" * 7 + " seven", "# " + "w" * 120, "\u00a0\u00a0nbsp", "a\tb\tc",
        ))
        lines = [first]
        if rng.random() < 0.5:
            lines.insert(0, rng.choice(("", "   ", "\t", "#", "##")))
        if rng.random() < 0.6:
            lines.append(rng.choice(("Second line.", "", "## Next", _sentence(rng))))
        return "\n".join(lines) + rng.choice(("\n", "", "\n\n"))
    lines = ["# " + _words(rng, 1, 2).replace("-", " ").title(), ""]
    for _ in range(rng.randint(1, 4)):
        lines.append(rng.choice((
            _sentence(rng), "1. Step one", "- a bullet", "Run `scripts/run.py`.",
            "See [the reference](references/REFERENCE.md).", "", "```bash", "echo hi", "```",
        )))
    return "\n".join(lines) + "\n"


def skill_md(rng: random.Random, cls: str, name_field: str | None, extra: list[str] | None = None,
             description: list[str] | None = None, text: str | None = None) -> str:
    lines = ["---"]
    if name_field is not None:
        lines.append("name: " + name_field)
    lines += description if description is not None else description_field(rng, cls)
    if cls in ("fallback", "sanitise", "yaml-values") and rng.random() < 0.3:
        lines += rng.choice((
            ["when_to_use: Use when the user asks."], ["when_to_use:"], ["when_to_use: \"\""],
            ["when_to_use: 42"], ["when_to_use: [a, b]"], ["when_to_use: \"  padded  \""],
            ["when_to_use: |", "  Line one.", "  Line two."], ["when_to_use: ~"],
            ["when_to_use: \"" + _odd_text(rng) + "\""], ["when_to_use: true"],
        ))
    lines += extra or []
    lines.append("---")
    return "\n".join(lines) + "\n" + (text if text is not None else body(rng, cls))


def _name_field(rng: random.Random, folder: str, cls: str) -> str | None:
    if cls == "name":
        return rng.choice((
            None, folder, folder.upper(), "Display Name", "other-name", folder + "-x", "12", "true",
            "\"" + folder + "\"", "'" + folder + "'", "[a, b]", "~", "\"\"", "name with: colon",
            _words(rng), "\"" + folder + " \"", "ünïcode", "\"a\\u200bb\"",
        ))
    if cls == "yaml-values" and rng.random() < 0.3:
        return rng.choice(PLAIN_TYPED)
    return folder if rng.random() < 0.85 else None


def _folder(rng: random.Random, taken: set[str]) -> str:
    while True:
        folder = _words(rng)
        if folder not in taken and folder not in RESERVED:
            taken.add(folder)
            return folder


def scenario(seed: int, index: int, agent: str = "claude-code") -> dict:
    rng = random.Random(f"{seed}:{index}:{agent}")
    cls = CLASSES[index % len(CLASSES)] if agent == "claude-code" else rng.choice(
        OTHER_CLASSES[agent])
    tree: dict = {}
    taken: set[str] = set()
    skills_dir = {"claude-code": "project/.claude/skills", "codex": "project/.agents/skills",
                  "gemini-cli": "project/.gemini/skills"}[agent]
    user_dir = {"claude-code": "home/.claude/skills", "codex": "home/.agents/skills",
                "gemini-cli": "home/.gemini/skills"}[agent]
    out = {"id": f"{agent}-{seed}-{index}", "class": cls, "agent": agent, "seed": seed,
           "index": index, "model": None, "tree": tree, "invoke": None, "env": {}}
    count = rng.randint(1, 4)
    folders = []
    for _ in range(count):
        folder = _folder(rng, taken)
        folders.append(folder)
        tree[f"{skills_dir}/{folder}/SKILL.md"] = skill_md(rng, cls, _name_field(rng, folder, cls))
    if rng.random() < 0.25 or cls == "overrides":
        folder = _folder(rng, taken) if rng.random() < 0.7 else rng.choice(folders)
        tree[f"{user_dir}/{folder}/SKILL.md"] = skill_md(rng, "ordinary", folder)
        folders.append(folder)
    if cls == "discovery":
        _discovery(rng, tree, skills_dir, taken)
    elif cls == "paths":
        folder = _folder(rng, taken)
        value = rng.choice((
            "\"**\"", "\"*\"", "\"\"", "[]", "\"**/*\"", "~", "[\"\"]", "42", "\"nothing/**\"",
            "\"*.md\"", "[\"**\", \"src/**\"]", "\"/\"", "\".\"", "\"**/\"", "\"./**\"",
        ))
        tree[f"{skills_dir}/{folder}/SKILL.md"] = skill_md(
            rng, "ordinary", folder, extra=["paths: " + value])
        if rng.random() < 0.5:
            tree["project/notes.md"] = "notes\n"
    elif cls == "overrides":
        overrides = {}
        for folder in rng.sample(folders, k=min(len(folders), rng.randint(1, 3))):
            overrides[folder] = rng.choice((
                "on", "off", "name-only", "user-invocable-only", "ON", "Off", "", "hidden", True,
                False, None, 0, 1, ["off"], {"x": 1},
            ))
        settings = {"skillOverrides": overrides}
        if rng.random() < 0.4:
            settings["skillListingMaxDescChars"] = rng.choice((0, 1, 10, 40, 100, 1535, -1, 2.5, "50"))
        tree["home/.claude/settings.json"] = json.dumps(settings, indent=2)
    elif cls == "crlf":
        for key in list(tree):
            if key.endswith("SKILL.md") and rng.random() < 0.8:
                text = tree[key].replace("\n", "\r\n")
                if rng.random() < 0.3:
                    text = text.replace("---\r\n", "--- \r\n", 2)
                if rng.random() < 0.2:
                    text = text.replace("\r\n---\r\n", "\r\n---\t\r\n", 1)
                tree[key] = text
        out["invoke"] = {"skill": rng.choice([f for f in folders if f"{skills_dir}/{f}/SKILL.md" in tree] or folders),
                         "args": rng.choice((None, "a b", "")), "as": rng.choice(("model", "user"))}
    elif cls == "commands":
        _commands(rng, tree, folders, taken)
    elif cls == "budget":
        for number in range(rng.randint(30, 160)):
            folder = f"bulk-{number:03d}-{_words(rng, 1, 1)}"
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 90)))
            tree[f"{skills_dir}/{folder}/SKILL.md"] = (
                f"---\nname: {folder}\ndescription: {words}\n---\n# {folder}\n")
        if rng.random() < 0.5:
            out["env"]["SLASH_COMMAND_TOOL_CHAR_BUDGET"] = str(rng.choice((500, 2000, 7000, 12000, 20000)))
    elif cls == "arguments":
        _arguments(rng, tree, skills_dir, taken, out)
    elif cls == "reinvoke":
        folder = folders[0]
        out["invoke"] = {"skill": folder, "args": rng.choice((None, "again")), "as": "model", "times": 2}
    elif cls == "models":
        out["model"] = rng.choice(("claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-6",
                                   "claude-sonnet-4-6", "claude-opus-5-5"))
        if rng.random() < 0.5:
            out["invoke"] = {"skill": folders[0], "args": rng.choice((None, "x")), "as": "model"}
    if agent != "claude-code" and cls in AGENT_CLASSES:
        _agent_class(rng, agent, cls, tree, folders, taken, out)
    if out["invoke"] is None and cls in ("yaml-values", "sanitise", "ordinary", "name") and rng.random() < 0.3:
        folder = folders[0]
        if f"{skills_dir}/{folder}/SKILL.md" in tree:
            out["invoke"] = {"skill": folder, "args": rng.choice((None, "one two")),
                             "as": rng.choice(("model", "user"))}
    return out


# Codex and Gemini CLI: the generic classes, plus what only they do. `roots`: skills in every
# folder the agent reads (Codex: .codex/skills in the project and CODEX_HOME, ~/.agents/skills,
# .agents/skills from a git root above the project; Gemini: ~/.gemini, ~/.agents, ./.gemini,
# ./.agents); `clash`: one name in several of them; `crlf`; `resources`: files beside the
# invoked skill (Gemini lists them); `budget` and `policy` (Codex's catalog budget and
# agents/openai.yaml).
OTHER_CLASSES = {
    "codex": ("yaml-values", "sanitise", "fallback", "name", "discovery", "ordinary", "ordinary",
              "roots", "clash", "crlf", "budget", "policy"),
    "gemini-cli": ("yaml-values", "sanitise", "fallback", "name", "discovery", "ordinary",
                   "ordinary", "roots", "clash", "crlf", "resources"),
}
AGENT_CLASSES = ("roots", "clash", "crlf", "resources", "budget", "policy")
AGENT_DIRS = {
    "codex": ("project/.agents/skills", "project/.codex/skills", "home/.codex/skills",
              "home/.agents/skills", ".agents/skills"),
    "gemini-cli": ("project/.agents/skills", "project/.gemini/skills", "home/.gemini/skills",
                   "home/.agents/skills"),
}


def _agent_class(rng: random.Random, agent: str, cls: str, tree: dict, folders: list[str],
                 taken: set[str], out: dict) -> None:
    dirs = AGENT_DIRS[agent]
    skills = [k for k in tree if k.endswith("/SKILL.md")]
    if cls == "roots":
        if agent == "codex" and rng.random() < 0.7:
            tree[".git/HEAD"] = "ref: refs/heads/main\n"
        for where in rng.sample(dirs, k=rng.randint(2, len(dirs))):
            folder = _folder(rng, taken)
            folders.append(folder)
            tree[f"{where}/{folder}/SKILL.md"] = skill_md(rng, "ordinary", folder)
        if rng.random() < 0.5:
            out["invoke"] = {"skill": rng.choice(folders)}
    elif cls == "clash":
        name = rng.choice(folders)
        for where in rng.sample(dirs, k=rng.randint(2, len(dirs))):
            folder = name if rng.random() < 0.7 else _folder(rng, taken)
            tree[f"{where}/{folder}/SKILL.md"] = skill_md(
                rng, "ordinary", rng.choice((name, name, name.upper(), name.title())))
        if agent == "codex" and rng.random() < 0.5:
            tree[".git/HEAD"] = "ref: refs/heads/main\n"
        out["invoke"] = {"skill": name} if rng.random() < 0.6 else None
    elif cls == "crlf":
        for key in skills:
            if rng.random() < 0.8:
                text = tree[key].replace("\n", "\r\n")
                if rng.random() < 0.3:
                    text = text.replace("---\r\n", "--- \r\n", 1)
                if rng.random() < 0.3:
                    text += rng.choice(("\r\n", "\r\n\r\n", ""))
                tree[key] = text
        out["invoke"] = {"skill": skills[0].split("/")[-2]}
    elif cls == "resources":
        key = skills[0]
        base = key[: -len("/SKILL.md")]
        for _ in range(rng.randint(0, 12)):
            tree[base + "/" + rng.choice((
                "scripts/run.py", "references/REFERENCE.md", "references/_x.md",
                "references/Ä.md", "references/b.md", "assets/logo.txt", ".env", "README.md",
                "node_modules/pkg/index.js", "dist/out.js", "__pycache__/m.pyc", ".hidden/x",
                "a/b/c/d.txt", "Zeta.md", "zeta.md", "10.md", "9.md", "notes.md",
            ))] = "x\n"
        if rng.random() < 0.3:
            tree[base + "/link.md"] = {"symlink": "SKILL.md"}
        if rng.random() < 0.2:
            for number in range(rng.randint(190, 215)):
                tree[f"{base}/many/f{number:03d}.txt"] = "x\n"
        out["invoke"] = {"skill": base.split("/")[-1]}
    elif cls == "budget":
        for number in range(rng.randint(30, 90)):
            folder = f"bulk-{number:03d}-{_words(rng, 1, 1)}"
            words = " ".join(rng.choice(WORDS + tuple(SCRIPTS)) for _ in range(rng.randint(20, 220)))
            tree[f"project/.agents/skills/{folder}/SKILL.md"] = (
                f"---\nname: {folder}\ndescription: {words}\n---\n# {folder}\n")
    elif cls == "policy":
        for key in rng.sample(skills, k=rng.randint(1, len(skills))):
            tree[key[: -len("SKILL.md")] + "agents/openai.yaml"] = rng.choice((
                "policy:\n  allow_implicit_invocation: false\n",
                "policy:\n  allow_implicit_invocation: true\n",
                "interface:\n  display_name: X\n", "policy: {allow_implicit_invocation: false}\n",
            ))
        out["invoke"] = {"skill": rng.choice(skills).split("/")[-2]}


def _discovery(rng: random.Random, tree: dict, skills_dir: str, taken: set[str]) -> None:
    folder = _folder(rng, taken)
    shape = rng.choice((
        "nested", "lowercase", "hidden", "direct", "symlink-dir", "symlink-file", "dangling",
        "dir-named-skill", "deep", "uppercase-folder", "space-folder", "unicode-folder",
        "outside-link", "md-variant",
    ))
    md = skill_md(rng, "ordinary", folder)
    if shape == "nested":
        tree[f"{skills_dir}/group/{folder}/SKILL.md"] = md
    elif shape == "deep":
        tree[f"{skills_dir}/a/b/{folder}/SKILL.md"] = md
    elif shape == "lowercase":
        tree[f"{skills_dir}/{folder}/skill.md"] = md
    elif shape == "md-variant":
        tree[f"{skills_dir}/{folder}/" + rng.choice(("Skill.md", "SKILL.MD", "SKILL.markdown", "SKILL.md.txt"))] = md
    elif shape == "hidden":
        tree[f"{skills_dir}/.{folder}/SKILL.md"] = md
    elif shape == "direct":
        tree[f"{skills_dir}/SKILL.md"] = md
    elif shape == "symlink-dir":
        tree[f"project/elsewhere/{folder}/SKILL.md"] = md
        depth = skills_dir.count("/")
        tree[f"{skills_dir}/{folder}-link"] = {"symlink": "../" * depth + f"elsewhere/{folder}"}
    elif shape == "outside-link":
        tree[f"outside/{folder}/SKILL.md"] = md
        depth = skills_dir.count("/") + 1
        tree[f"{skills_dir}/{folder}"] = {"symlink": "../" * depth + f"outside/{folder}"}
    elif shape == "symlink-file":
        tree[f"project/docs/{folder}.md"] = md
        depth = skills_dir.count("/") + 1
        tree[f"{skills_dir}/{folder}/SKILL.md"] = {"symlink": "../" * depth + f"docs/{folder}.md"}
    elif shape == "dangling":
        tree[f"{skills_dir}/{folder}"] = {"symlink": "nowhere"}
    elif shape == "dir-named-skill":
        tree[f"{skills_dir}/{folder}/SKILL.md/readme.txt"] = "not a file\n"
    elif shape == "uppercase-folder":
        tree[f"{skills_dir}/{folder.title()}/SKILL.md"] = md
    elif shape == "space-folder":
        tree[f"{skills_dir}/{folder.replace('-', ' ')}/SKILL.md"] = md
    elif shape == "unicode-folder":
        tree[f"{skills_dir}/{folder}-ü/SKILL.md"] = md


def _commands(rng: random.Random, tree: dict, folders: list[str], taken: set[str]) -> None:
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(folders) if rng.random() < 0.25 else _folder(rng, taken)
        where = rng.choice(("project/.claude/commands", "home/.claude/commands",
                            "project/.claude/commands/team"))
        shape = rng.random()
        if shape < 0.4:
            text = f"---\ndescription: {_sentence(rng)}\n---\nDo the thing with $ARGUMENTS.\n"
        elif shape < 0.7:
            text = f"{_sentence(rng)}\nMore text.\n"
        elif shape < 0.85:
            text = f"---\nargument-hint: [file]\n---\n# Heading\nBody $1.\n"
        else:
            text = "---\ndescription: \"" + _odd_text(rng) + "\"\n---\nx\n"
        tree[f"{where}/{name}.md"] = text


def _arguments(rng: random.Random, tree: dict, skills_dir: str, taken: set[str], out: dict) -> None:
    folder = _folder(rng, taken)
    pieces = ["$ARGUMENTS", "$0", "$1", "$2", "$ARGUMENTS[0]", "$ARGUMENTS[1]", "${CLAUDE_SKILL_DIR}",
              "${CLAUDE_SESSION_ID}", "\\$1", "\\\\$0", "$$1", "$ARGUMENTS[x]", "$10", "${CLAUDE_NOPE}",
              "$ARGUMENTSX", "$topic", "$count", "${topic}", "$topic[0]"]
    lines = [f"{rng.choice(('Full', 'A', 'B', 'Dir'))}: " + " ".join(rng.sample(pieces, k=rng.randint(1, 3)))
             for _ in range(rng.randint(1, 5))]
    extra = []
    if rng.random() < 0.4:
        extra.append("arguments: " + rng.choice(("topic count", "[topic, count]", "topic", "\"\"")))
    if rng.random() < 0.3:
        extra.append("argument-hint: \"[topic] [count]\"")
    tree[f"{skills_dir}/{folder}/SKILL.md"] = skill_md(
        rng, "ordinary", folder, extra=extra, text="# Args\n\n" + "\n".join(lines) + rng.choice(("\n", "")))
    args = rng.choice((None, "", "one", "one two", "\"quoted arg\" two", "'single' \"double\"",
                       "a\\ b c", "$1 $ARGUMENTS", "ünï 漢字 \U0001F600", "  spaced  out  ",
                       "unterminated \"quote", "x\ty", "--flag=value -v", "a\nb"))
    out["invoke"] = {"skill": folder, "args": args, "as": rng.choice(("model", "user"))}
