"""A scenario: a HOME and a project as a file tree, an optional invocation, and how to compare.

A scenario is plain JSON, so the same value drives the live agent, `skillpkg preview`, the
shrinker and the offline fixtures in `tests/fixtures/conformance/`:

    {"id": "...", "class": "yaml-values", "agent": "claude-code", "model": null,
     "tree": {"project/.claude/skills/a/SKILL.md": "---\\n...",
              "project/.claude/skills/b": {"symlink": "../../../elsewhere/b"},
              "home/.claude/settings.json": "{...}"},
     "invoke": {"skill": "a", "args": "x y", "as": "model"} | null,
     "env": {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "4000"}}

Paths are relative to a fresh root folder; the agent runs in `root/project` with HOME
`root/home`. In recorded text the root is written `{root}`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT_MARK = "{root}"

# What `fakeapi` reports as used per reply (input + output tokens), and the session total
# Claude Code counts down from in its <total_tokens> reminder.
FAKE_USAGE = 15
TOTAL_TOKENS = 15_000_000


def materialise(scenario: dict, root: Path) -> None:
    """Writes the scenario's tree under `root` (emptied first)."""
    if root.exists():
        shutil.rmtree(root)
    (root / "home").mkdir(parents=True)
    (root / "project").mkdir(parents=True)
    links = []
    for relative, content in sorted(scenario["tree"].items()):
        path = root / relative
        if ".." in Path(relative).parts or Path(relative).is_absolute():
            raise ValueError(f"scenario path leaves the root: {relative}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict) and "symlink" in content:
            links.append((path, content["symlink"]))
        elif isinstance(content, dict) and "dir" in content:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.write_bytes(content.encode("utf-8", "surrogatepass"))
    for path, target in links:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)


def normalise(text, root: Path):
    """`root` (as given and canonical) written as `{root}`, through strings, lists and dicts."""
    if isinstance(text, str):
        for form in {str(root.resolve()), str(root)}:
            text = text.replace(form, ROOT_MARK)
        return text
    if isinstance(text, list):
        return [normalise(item, root) for item in text]
    if isinstance(text, dict):
        return {key: normalise(value, root) for key, value in text.items()}
    return text


def preview_command(skillpkg: Path, scenario: dict, root: Path, session: str | None) -> list:
    command = [str(skillpkg), "preview", "--format", "json", "--home", str(root / "home")]
    if scenario.get("model"):
        command += ["--model", scenario["model"]]
    budget = (scenario.get("env") or {}).get("SLASH_COMMAND_TOOL_CHAR_BUDGET")
    if budget:
        command += ["--budget", budget]
    return command


def run_preview(skillpkg: Path, scenario: dict, root: Path, session: str | None) -> dict:
    """What `skillpkg preview` predicts for the scenario, in the shape of `extract_claude`."""
    base = preview_command(skillpkg, scenario, root, session)
    env = dict(os.environ, NO_COLOR="1")
    env.pop("SLASH_COMMAND_TOOL_CHAR_BUDGET", None)
    listing = subprocess.run(base, cwd=root / "project", capture_output=True, env=env,
                             timeout=120)
    out: dict = {"listing": None, "blocks": None, "result": None}
    try:
        document = json.loads(listing.stdout)
        text = document["messages"][0]["content"][0]["text"]
        out["listing"] = text
    except (ValueError, KeyError, IndexError):
        out["error"] = listing.stderr.decode("utf-8", "replace")[-3000:]
    invoke = scenario.get("invoke")
    if invoke:
        command = base + ["--invoke", invoke["skill"], "--as", invoke.get("as", "model")]
        if invoke.get("args") is not None and (invoke.get("as") != "user" or invoke["args"]):
            command += ["--args=" + invoke["args"]]
        if session:
            command += ["--session-id", session]
        times = int(invoke.get("times", 1))
        if times > 1:
            command += ["--invocation-index", str(times)]
        if invoke.get("as", "model") == "model":
            # Legacy models get a <total_tokens> reminder after a tool result: the fake API
            # reports 15 tokens per reply, of a 15,000,000-token session budget.
            command += ["--tokens-left", str(TOTAL_TOKENS - FAKE_USAGE * times)]
        done = subprocess.run(command, cwd=root / "project", capture_output=True, env=env,
                              timeout=120)
        try:
            document = json.loads(done.stdout)
        except ValueError:
            out["blocks"] = []
            out["result"] = done.stderr.decode("utf-8", "replace").strip()
            return out
        blocks = []
        for message in document.get("messages", []):
            for block in message.get("content", []):
                if block.get("type") == "tool_result":
                    blocks.append(["tool_result", block["text"], bool(block.get("is_error"))])
                else:
                    blocks.append([block.get("type", "text"), block["text"]])
        out["blocks"] = blocks
        if document.get("refused"):
            out["result"] = document["refused"]
    return out


def entries_only(listing: str | None) -> str:
    """A listing with no entry of the user's is nothing to compare: the agent sends only its
    own skills then, which `preview` does not render. (Entries are `- ` lines for Claude Code
    and Codex, `  <skill>` blocks for Gemini CLI.)"""
    if not listing or not any(line.startswith(("- ", "  <skill>"))
                              for line in listing.split("\n")):
        return ""
    return listing


def differences(expected: dict, actual: dict, scenario: dict) -> list[str]:
    """What differs, as readable lines; empty when the prediction is byte-identical."""
    problems = []
    want, have = entries_only(expected.get("listing")), entries_only(actual.get("listing"))
    # An agent that refused before sending anything showed no listing to compare.
    refused_early = expected.get("listing") is None and expected.get("result") is not None
    if want != have and not refused_early:
        problems.append("listing differs:\n" + diff(want, have))
    if scenario.get("invoke"):
        want = expected.get("blocks") or []
        have = actual.get("blocks") or []
        if not want and expected.get("result"):
            # The agent refused before any request: preview must refuse too.
            if not actual.get("result"):
                problems.append(f"the agent refused ({expected['result']!r}); preview did not")
        elif want != have:
            problems.append("invocation differs:\n" + diff(
                json.dumps(want, indent=1, ensure_ascii=False),
                json.dumps(have, indent=1, ensure_ascii=False)))
    return problems


def diff(want: str, have: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        want.splitlines(keepends=True), have.splitlines(keepends=True),
        fromfile="agent", tofile="skillpkg", n=1,
    )
    return "".join(repr_line(line) for line in lines)


def repr_line(line: str) -> str:
    body = line.rstrip("\n")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029\ufeff" for c in body):
        body = body[0] + ascii(body[1:])
    return body + "\n"
