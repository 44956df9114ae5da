#!/usr/bin/env python3
"""Recall on real defects planted into copies of real skills.

    benches/realworld/recall.py [--skillpkg target/release/skillpkg] [--peer] [--only ID] [--list]
    benches/realworld/recall.py --cases benches/realworld/recall-heldout.json [--peer]

Each case copies one real skill (checked out by `realworld.py fetch`) into its own repository
under target/realworld/recall/<case>/, twice: as it is (the base) and with one defect planted
(the mutant), placed where the defect matters (a Claude Code project's `.claude/skills`, a
shared `.agents/skills`, or a repository's `skills/`). A case is caught by skillpkg when
`skillpkg lint` reports the case's rule in the mutant more often than in the base; by agnix
(`--peer`, the same pinned version as `realworld.py --peer`) when it reports any error or
warning in the mutant that it does not report in the base, whatever its rule: the test is
generous to agnix on purpose.

The defects are the kinds authors ship: broken links and paths, wrong names, secrets,
type-changing YAML, scripts run directly without a shebang or the executable bit, paths into
the author's home folder, duplicate names within one agent's folder, arguments with no hint,
permission rules that never match, and more. Standard library only. Nothing fetched is
committed.
"""

import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CHECKOUTS = ROOT / "target" / "realworld"
WORK = CHECKOUTS / "recall"

# The real skills defects are planted into: folders of the fetched collections.
BASES = {
    "pdf": "anthropic/skills/pdf",
    "docx": "anthropic/skills/docx",
    "mcp": "anthropic/skills/mcp-builder",
    "commit": "sentry/skills/commit",
    "review": "sentry/skills/code-review",
    "brainstorm": "superpowers/skills/brainstorming",
    "debug": "superpowers/skills/systematic-debugging",
    "tfstyle": "hashicorp/terraform/code-generation/skills/terraform-style-guide",
    "canvas": "obsidian/skills/json-canvas",
    "bases": "obsidian/skills/obsidian-bases",
}

# Where a case puts its skill: the folder that decides the agents it is checked for.
CLAUDE = ".claude/skills"
SHARED = ".agents/skills"
REPO = "skills"


def split_frontmatter(text):
    if not text.startswith("---\n"):
        return None, text
    end = text.find("\n---", 4)
    if end < 0:
        return None, text
    close = text.find("\n", end + 1)
    close = len(text) if close < 0 else close + 1
    return text[4:end + 1], text[close:]


def join(frontmatter, body):
    return f"---\n{frontmatter}---\n{body}"


def set_key(text, key, value):
    """Replaces (or adds) a top-level key's line; a value spanning several lines is replaced
    whole."""
    frontmatter, body = split_frontmatter(text)
    lines = frontmatter.splitlines(keepends=True)
    out = []
    skipping = False
    done = False
    for line in lines:
        if skipping and (line.startswith((" ", "\t")) or not line.strip()):
            continue
        skipping = False
        if line.startswith(f"{key}:"):
            if value is not None:
                out.append(f"{key}: {value}\n")
            done = True
            skipping = True
            continue
        out.append(line)
    if not done and value is not None:
        out.append(f"{key}: {value}\n")
    return join("".join(out), body)


def append_body(text, paragraph):
    return text.rstrip("\n") + "\n\n" + paragraph + "\n"


def write(dir_, rel, content, mode=0o644):
    path = dir_ / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    path.chmod(mode)


# Each case: (id, base, placement, rule, what the defect is, mutation). A mutation gets the
# skill folder and the case root and edits the copy in place.
def m_text(change):
    def apply(skill, root):
        path = skill / "SKILL.md"
        path.write_text(change(path.read_text()))
    return apply


def m_file(rel, content, mode=0o644, also=None):
    def apply(skill, root):
        write(skill, rel, content, mode)
        if also:
            m_text(also)(skill, root)
    return apply


def m_link_skill_file(skill, root):
    (skill / "SKILL.md").unlink()
    os.symlink("../../../skills-old/gone/SKILL.md", skill / "SKILL.md")


def m_duplicate(skill, root):
    twin = skill.parent / (skill.name + "-copy")
    shutil.copytree(skill, twin, symlinks=True)
    text = (twin / "SKILL.md").read_text()
    name = skill.name
    frontmatter, body = split_frontmatter(text)
    (twin / "SKILL.md").write_text(join(frontmatter, body + "\nA second copy, kept by mistake.\n"))
    # The copy keeps the original's `name`: the agent now has two skills called the same.
    assert f"name: {name}" in frontmatter, name


def m_similar(skill, root):
    twin = skill.parent / (skill.name + "-two")
    shutil.copytree(skill, twin, symlinks=True)
    text = (twin / "SKILL.md").read_text()
    frontmatter, body = split_frontmatter(text)
    (twin / "SKILL.md").write_text(set_key(join(frontmatter, body), "name", twin.name))


def m_not_executable(skill, root):
    write(skill, "scripts/run_checks.sh", "#!/usr/bin/env bash\nset -euo pipefail\necho ok\n", 0o644)
    m_text(lambda t: append_body(t, "Before finishing, run `scripts/run_checks.sh` and read its output."))(skill, root)


def m_no_shebang(skill, root):
    write(skill, "scripts/collect.py", "import sys\nprint(sys.argv[1:])\n", 0o755)
    m_text(lambda t: append_body(t, "Collect the inputs with `./scripts/collect.py --all`."))(skill, root)


def m_orphan(skill, root):
    write(skill, "references/escalation.md", "# Escalation\n\nWho to page when the checks fail.\n" * 3)


def m_nested(skill, root):
    write(skill, "references/api.md", "# API\n\nCalls and their errors; the error codes are in [errors](errors.md).\n")
    write(skill, "references/errors.md", "# Errors\n\nE1: retry. E2: give up.\n" * 5)
    m_text(lambda t: append_body(t, "Read [the API notes](references/api.md) before calling it."))(skill, root)


def m_long_body(skill, root):
    m_text(lambda t: append_body(t, "\n".join(f"{i}. Check item {i} of the release list." for i in range(1, 600))))(skill, root)


def m_lowercase_file(skill, root):
    (skill / "SKILL.md").rename(skill / "skill.md")


def m_bom(skill, root):
    path = skill / "SKILL.md"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())


def m_strip_frontmatter(text):
    _, body = split_frontmatter(text)
    return "# Notes\n\n" + body


def m_unclose(text):
    frontmatter, body = split_frontmatter(text)
    return "---\n" + frontmatter + body


def m_tab(text):
    frontmatter, body = split_frontmatter(text)
    return join(frontmatter + "metadata:\n\towner: platform-team\n", body)


def m_duplicate_key(text):
    frontmatter, body = split_frontmatter(text)
    return join(frontmatter + "license: MIT\nlicense: Apache-2.0\n", body)


AWS = "AKIA" + "Q3RZ7XWPLM2K9TBV"
OPENAI = "sk-proj-" + "Tq8vLw3Zr9XbN2mKc7PdF4hJs6YgA1eR0uW5iOyE3nQpVx8BzHkC2jMa"
PRIVATE = ("-----BEGIN RSA PRIVATE KEY-----\n"
           + "MIIEowIBAAKCAQEA1c7Rk3m8PqZt2vXw9LsYbN4hGfJ0aKdE6uTiOoWpQzXyR5sV\n" * 4
           + "-----END RSA PRIVATE KEY-----\n")

CASES = [
    ("broken-link", "pdf", REPO, "SK303", "a link to a reference that is not shipped",
     m_text(lambda t: append_body(t, "For merging, follow [the merge guide](references/merging.md)."))),
    ("broken-link-claude", "review", CLAUDE, "SK303", "a link to a missing checklist, in a Claude Code project",
     m_text(lambda t: append_body(t, "Use [the checklist](references/checklist.md) for every review."))),
    ("broken-script-path", "commit", REPO, "SK303", "a command running a script the skill lacks",
     m_text(lambda t: append_body(t, "Then run `python3 scripts/validate_message.py` on the draft."))),
    ("broken-asset", "canvas", SHARED, "SK303", "an asset the text points at, missing",
     m_text(lambda t: append_body(t, "Start from the template in `assets/empty-canvas.json`."))),
    ("name-folder", "brainstorm", REPO, "SK108", "`name` differs from the folder",
     m_text(lambda t: set_key(t, "name", "brainstorm-ideas"))),
    ("name-upper", "debug", REPO, "SK105", "an uppercase name",
     m_text(lambda t: set_key(t, "name", "Systematic-Debugging"))),
    ("name-underscore", "tfstyle", REPO, "SK106", "an underscore in the name",
     m_text(lambda t: set_key(t, "name", "terraform_style_guide"))),
    ("name-hyphens", "canvas", REPO, "SK107", "two hyphens in a row",
     m_text(lambda t: set_key(t, "name", "json--canvas"))),
    ("name-long", "bases", REPO, "SK104", "a name over 64 characters",
     m_text(lambda t: set_key(t, "name", "obsidian-bases-" + "x" * 60))),
    ("no-description", "commit", REPO, "SK201", "the description removed",
     m_text(lambda t: set_key(t, "description", None))),
    ("description-long", "pdf", REPO, "SK204", "a description over 1,024 characters",
     m_text(lambda t: set_key(t, "description", '"' + "Extracts text and tables from PDF files. " * 30 + '"'))),
    ("yaml-colon", "review", REPO, "SK008", "an unquoted `: ` in the description",
     m_text(lambda t: set_key(t, "description", "Reviews code. Use when: the user asks for a review"))),
    ("yaml-tab", "tfstyle", REPO, "SK010", "a tab indenting the frontmatter", m_text(m_tab)),
    ("duplicate-key", "docx", REPO, "SK009", "a key written twice", m_text(m_duplicate_key)),
    ("no-frontmatter", "brainstorm", REPO, "SK004", "the frontmatter deleted", m_text(m_strip_frontmatter)),
    ("unclosed", "debug", REPO, "SK005", "the closing `---` deleted", m_text(m_unclose)),
    ("secret-aws", "mcp", REPO, "SK702", "an AWS access key in the instructions",
     m_text(lambda t: append_body(t, f"Use the key `{AWS}` for the staging bucket."))),
    ("secret-openai", "review", CLAUDE, "SK702", "an OpenAI key in a script",
     m_file("scripts/summarise.py", f"import os\nKEY = \"{OPENAI}\"\nprint(KEY[:4])\n", 0o755)),
    ("secret-private-key", "commit", REPO, "SK702", "a private key in a reference",
     m_file("references/deploy-key.md", "# Deploy key\n\n" + PRIVATE)),
    ("secret-file", "canvas", REPO, "SK701", "a `.env` file shipped with the skill",
     m_file(".env", "API_TOKEN=live-3f9a81c2\n")),
    ("yaml-boolean", "docx", REPO, "SK015", "`license: no`, a boolean to YAML 1.1",
     m_text(lambda t: set_key(t, "license", "no"))),
    ("yaml-version-float", "mcp", CLAUDE, "SK015", "`version: 1.10`, the number 1.1 to a JavaScript parser",
     m_text(lambda t: set_key(t, "version", "1.10"))),
    ("not-executable", "tfstyle", REPO, "SK311", "a script run directly, without the executable bit", m_not_executable),
    ("no-shebang", "bases", REPO, "SK312", "a script run directly, without a shebang", m_no_shebang),
    ("home-linux", "brainstorm", REPO, "SK306", "a path into the author's Linux home",
     m_text(lambda t: append_body(t, "Save the notes to `/home/alice/projects/brainstorms/notes.md`."))),
    ("home-mac", "pdf", CLAUDE, "SK306", "a path into the author's macOS home",
     m_text(lambda t: append_body(t, "The fonts are in /Users/bob/Library/Fonts/Inter.ttf."))),
    ("home-windows", "docx", REPO, "SK306", "a path into the author's Windows profile",
     m_text(lambda t: append_body(t, "Templates live in `C:\\Users\\carol\\Documents\\templates\\report.dotx`."))),
    ("duplicate-name", "commit", CLAUDE, "SK601", "two skills of one name in one Claude Code project", m_duplicate),
    ("duplicate-name-shared", "canvas", SHARED, "SK601", "two skills of one name in `.agents/skills`", m_duplicate),
    ("similar-descriptions", "review", CLAUDE, "SK602", "two skills with the same description", m_similar),
    ("arguments-no-hint", "commit", CLAUDE, "SK509", "`$ARGUMENTS` with no `argument-hint`",
     m_text(lambda t: append_body(t, "Write the commit for $ARGUMENTS."))),
    ("argument-index-no-hint", "review", CLAUDE, "SK509", "`$ARGUMENTS[0]` with no `argument-hint`",
     m_text(lambda t: append_body(t, "Review the pull request `$ARGUMENTS[0]` first."))),
    ("argument-command-no-hint", "debug", CLAUDE, "SK509", "`$1` in a command, with no `argument-hint`",
     m_text(lambda t: append_body(t, "Reproduce it with `npm test -- $1` before changing anything."))),
    ("tool-misspelt", "pdf", CLAUDE, "SK506", "`allowed-tools` naming a tool that does not exist",
     m_text(lambda t: set_key(t, "allowed-tools", "Read Bassh(python3:*)"))),
    ("inline-shell-refused", "commit", CLAUDE, "SK508", "inline shell Claude Code refuses to run",
     m_text(lambda t: append_body(t, "Current branch state: !`git add -A && git stash list`"))),
    ("base-dir-legacy", "tfstyle", CLAUDE, "SK308", "`{baseDir}` in `allowed-tools`, which Claude Code does not expand",
     m_text(lambda t: set_key(t, "allowed-tools", "Bash({baseDir}/scripts/fmt.sh:*)"))),
    ("claude-variable-codex", "canvas", SHARED, "SK313", "`${CLAUDE_SKILL_DIR}` in a skill for Codex and Gemini CLI",
     m_text(lambda t: append_body(t, "Validate with `python3 ${CLAUDE_SKILL_DIR}/scripts/check.py`."))),
    ("backslash-path", "mcp", REPO, "SK307", "a path written with backslashes",
     m_text(lambda t: append_body(t, "Read references\\mcp_best_practices.md before starting."))),
    ("placeholder", "brainstorm", REPO, "SK209", "a TODO left in the steps",
     m_text(lambda t: append_body(t, "## Wrap-up\n\nTODO: describe how to close the session."))),
    ("description-vague", "bases", REPO, "SK208", "a description too vague to choose by",
     m_text(lambda t: set_key(t, "description", "Helps with files."))),
    ("description-first-person", "tfstyle", REPO, "SK207", "a description in the first person",
     m_text(lambda t: set_key(t, "description", '"I can help you format Terraform code and name resources. Use when writing Terraform."'))),
    ("description-no-trigger", "docx", REPO, "SK206", "a description that never says when to use it",
     m_text(lambda t: set_key(t, "description", '"Creates, edits and analyses Word documents with tracked changes and comments."'))),
    ("unreferenced-file", "commit", REPO, "SK304", "a reference nothing leads to", m_orphan),
    ("nested-reference", "debug", REPO, "SK305", "a reference reached only through another", m_nested),
    ("body-too-long", "review", REPO, "SK301", "a body of over 500 lines", m_long_body),
    ("skill-file-case", "canvas", REPO, "SK003", "`skill.md` in lowercase", m_lowercase_file),
    ("broken-skill-link", "bases", SHARED, "SK017", "a SKILL.md that links to nothing", m_link_skill_file),
    ("misspelt-key", "pdf", REPO, "SK012", "a misspelt key (`descripton`)",
     m_text(lambda t: set_key(set_key(t, "description", None), "descripton", '"Extracts text from PDF files. Use when reading PDFs."'))),
    ("metadata-number", "docx", REPO, "SK504", "a `metadata` value that is a number",
     m_text(lambda t: set_key(t, "metadata", "\n  revision: 3"))),
    ("description-list", "mcp", REPO, "SK202", "a description that is a YAML list",
     m_text(lambda t: set_key(t, "description", "[builds MCP servers, in Python or TypeScript]"))),
    ("when-to-use-codex", "bases", SHARED, "SK013", "`when_to_use`, which Codex and Gemini CLI never show",
     m_text(lambda t: set_key(t, "when_to_use", '"Use when editing .base files."'))),
]


def fake_secrets(text, seed):
    """`text` with each `{{kind}}` replaced by a key of that kind, random but the same on every
    run: the cases need real-looking keys, and the repository holds none."""
    rng = random.Random(seed)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

    def pick(chars, n):
        return "".join(rng.choice(chars) for _ in range(n))

    kinds = {
        "aws_key_id": lambda: "AKIA" + pick(upper, 16),
        "aws_secret": lambda: pick(alphabet + "/+", 40),
        "github_classic": lambda: "ghp_" + pick(alphabet, 36),
        "github_fine": lambda: "github_pat_" + pick(alphabet, 22) + "_" + pick(alphabet, 59),
        "anthropic": lambda: "sk-ant-api03-" + pick(alphabet + "-_", 93) + "AA",
        "openai": lambda: "sk-proj-" + pick(alphabet + "-_", 120),
        "google": lambda: "AIza" + pick(alphabet + "-_", 35),
        "google_oauth": lambda: "GOCSPX-" + pick(alphabet + "-_", 28),
        "slack": lambda: "xoxb-" + pick("0123456789", 11) + "-" + pick("0123456789", 13) + "-" + pick(alphabet, 24),
        "key_body": lambda: "\n".join(pick(alphabet + "+/", 64) for _ in range(8)),
    }
    for kind, make in kinds.items():
        while "{{" + kind + "}}" in text:
            text = text.replace("{{" + kind + "}}", make(), 1)
    return text


def from_json(case):
    """A case written as data (`--cases FILE`): its edits, applied in order to the skill's copy.

    `{"op": "append", "text": …}` adds a paragraph to SKILL.md; `{"op": "replace", "old": …,
    "new": …}` replaces text in SKILL.md (once; the old text must be there); `{"op": "set_key",
    "key": …, "value": …}` sets a frontmatter key (`null` removes it); `{"op": "write", "path":
    …, "text": …, "mode": "755"}` writes a file of the skill; `{"op": "symlink", "path": …,
    "target": …}` replaces a file of the skill with a link; `{"op": "copy_skill", "suffix": …}`
    copies the whole skill beside itself (its `name` unchanged)."""
    def apply(skill, root):
        for edit in case["edits"]:
            edit = {key: fake_secrets(value, f"{case['id']}:{key}") if isinstance(value, str) else value
                    for key, value in edit.items()}
            op = edit["op"]
            path = skill / "SKILL.md"
            if op == "append":
                path.write_text(append_body(path.read_text(), edit["text"]))
            elif op == "replace":
                text = path.read_text()
                if edit["old"] not in text:
                    sys.exit(f"{case['id']}: `{edit['old']}` is not in {path}")
                path.write_text(text.replace(edit["old"], edit["new"], 1))
            elif op == "set_key":
                path.write_text(set_key(path.read_text(), edit["key"], edit["value"]))
            elif op == "write":
                write(skill, edit["path"], edit["text"], int(edit.get("mode", "644"), 8))
            elif op == "symlink":
                link = skill / edit["path"]
                if link.exists() or link.is_symlink():
                    link.unlink()
                link.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(edit["target"], link)
            elif op == "copy_skill":
                shutil.copytree(skill, skill.parent / (skill.name + edit["suffix"]), symlinks=True)
            else:
                sys.exit(f"{case['id']}: unknown op {op}")
    return apply


def place(case_dir, placement, base):
    """Copies the base skill (a key of BASES, or a folder under target/realworld) into a
    repository of its own at `placement`."""
    if case_dir.exists():
        shutil.rmtree(case_dir)
    source = CHECKOUTS / BASES.get(base, base)
    if not (source / "SKILL.md").exists():
        sys.exit(f"{source} is missing: run `realworld.py fetch` first")
    skill = case_dir / placement / source.name
    shutil.copytree(source, skill, symlinks=True)
    (case_dir / ".git").mkdir()
    return skill


def lint(skillpkg, case_dir, must=True):
    """The codes `skillpkg lint` reports in `case_dir`, counted; `None` when it fails and
    `must` is false (a mutant it cannot lint is a miss, with the reason printed)."""
    out = subprocess.run([skillpkg, "lint", "--format", "json", "--exit-zero", "."],
                         cwd=case_dir, capture_output=True)
    if out.returncode != 0:
        message = f"{case_dir}: skillpkg lint exited {out.returncode}: {out.stderr.decode()[:2000]}"
        if must:
            sys.exit(message)
        print(message, file=sys.stderr)
        return None
    doc = json.loads(out.stdout)
    found = collections.Counter()
    for skill in doc["skills"]:
        for d in skill["diagnostics"]:
            found[d["code"]] += 1
    for d in doc.get("diagnostics", []):
        found[d["code"]] += 1
    return found


def agnix(case_dir):
    venv = CHECKOUTS / "venv"
    binary = venv / "bin" / "agnix"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "agnix==0.59.3"], check=True)
    out = subprocess.run([str(binary), ".", "--format", "json", "--max-files", "0"],
                         cwd=case_dir, capture_output=True)
    doc = json.loads(out.stdout)
    return collections.Counter(
        (d["rule"], Path(d.get("file", "")).name, d.get("message", ""))
        for d in doc["diagnostics"]
        if d["level"] in ("error", "warning") and d["rule"] != "VER-001")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skillpkg", default=str(ROOT / "target" / "release" / "skillpkg"))
    parser.add_argument("--peer", action="store_true", help="also run agnix on every case")
    parser.add_argument("--only", help="run one case")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--cases", help="run the cases of this JSON file instead (see from_json)")
    args = parser.parse_args()
    skillpkg = os.path.abspath(args.skillpkg)
    cases = CASES
    if args.cases:
        data = json.loads(Path(args.cases).read_text())
        cases = [(c["id"], c["base"], c["placement"], c["rule"], c["what"], from_json(c))
                 for c in data["cases"]]
    if args.list:
        for case in cases:
            print(f"{case[0]:<28} {case[3]}  {case[4]}  ({BASES.get(case[1], case[1])}, in {case[2]})")
        return
    rows = []
    for case_id, base, placement, rule, what, mutate in cases:
        if args.only and case_id != args.only:
            continue
        base_dir = WORK / case_id / "base"
        mutant_dir = WORK / case_id / "mutant"
        place(base_dir, placement, base)
        skill = place(mutant_dir, placement, base)
        mutate(skill, mutant_dir)
        before = lint(skillpkg, base_dir)
        after = lint(skillpkg, mutant_dir, must=False)
        ours = after is not None and after[rule] > before[rule]
        theirs = None
        if args.peer:
            theirs = bool(agnix(mutant_dir) - agnix(base_dir))
        rows.append((case_id, rule, what, ours, theirs))
    width = max(len(r[0]) for r in rows)
    for case_id, rule, what, ours, theirs in rows:
        peer = "" if theirs is None else ("  agnix: caught" if theirs else "  agnix: missed")
        print(f"{case_id:<{width}}  {rule}  {'caught' if ours else 'MISSED'}{peer}  ({what})")
    caught = sum(1 for r in rows if r[3])
    print(f"skillpkg: {caught} of {len(rows)} caught ({100 * caught / len(rows):.0f} %)")
    if args.peer:
        peer = sum(1 for r in rows if r[4])
        print(f"agnix 0.59.3: {peer} of {len(rows)} caught ({100 * peer / len(rows):.0f} %)"
              " (any new error or warning counts)")


if __name__ == "__main__":
    main()
