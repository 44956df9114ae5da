"""The real agents: installing a pinned version and running it once against the fake API.

Each agent is driven headless with a fresh HOME and an isolated project per scenario, and what
it sent the model is cut down to the skill-related strings (`extract_*`), which are what
`skillpkg preview --format json` predicts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

CLAUDE_CODE = ("@anthropic-ai/claude-code", "2.1.332")
CODEX = ("@openai/codex", "0.171.0")
GEMINI_CLI = ("@google/gemini-cli", "0.61.0")

PINNED = {"claude-code": CLAUDE_CODE, "codex": CODEX, "gemini-cli": GEMINI_CLI}

LISTING_HEAD = "The following skills are available for use with the Skill tool:"

# Claude Code's own skills and prompt commands, which follow the user's in its listing. Their
# text is Claude Code's, not the user's: the extract cuts the listing before the first of them.
CLAUDE_CODE_OWN = (
    "dataviz", "update-config", "keybindings-help", "code-review", "simplify",
    "fewer-permission-prompts", "loop", "claude-api", "workflow-authoring", "run",
    "plugin-authoring", "init", "security-review",
)


class AgentMissing(Exception):
    pass


def install(cache: Path, agent: str, version: str | None = None) -> Path:
    """Installs `agent` at its pinned (or the given) version under `cache`; returns the folder."""
    package, pinned = PINNED[agent]
    version = version or pinned
    folder = cache / f"{agent}-{version}"
    marker = folder / ".installed"
    if marker.is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        raise AgentMissing("npm is needed to install the agents (it comes with Node.js)")
    subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(folder),
         f"{package}@{version}"],
        check=True, timeout=900,
    )
    marker.write_text(version)
    return folder


def latest(agent: str) -> str | None:
    """The newest version on the npm registry, or None when it cannot be asked."""
    npm = shutil.which("npm")
    if npm is None:
        return None
    try:
        out = subprocess.run([npm, "view", PINNED[agent][0], "version"], capture_output=True,
                             text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def claude_binary(folder: Path) -> Path:
    for candidate in (
        folder / "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
        folder / "node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    ):
        if candidate.is_file() and candidate.stat().st_size > 1_000_000:
            return candidate
    raise AgentMissing(f"no Claude Code binary under {folder}")


def run_claude(binary: Path, api, root: Path, scenario: dict, timeout: float = 120) -> dict:
    """Runs Claude Code once in `root/project` with HOME `root/home`; returns what it sent."""
    invoke = scenario.get("invoke")
    args = [str(binary)]
    script: list[dict] = []
    if invoke and invoke.get("as") == "user":
        prompt = "/" + invoke["skill"] + (" " + invoke["args"] if invoke.get("args") else "")
    else:
        prompt = "hello"
        if invoke:
            tool_input = {"skill": invoke["skill"]}
            if invoke.get("args") is not None:
                tool_input["args"] = invoke["args"]
            script = [{"tool": {"name": "Skill", "input": tool_input}}, {"text": "Done."}]
            for _ in range(int(invoke.get("times", 1)) - 1):
                script.insert(-1, {"tool": {"name": "Skill", "input": tool_input}})
            args += ["--allowedTools", f"Skill({invoke['skill']})"]
    args += ["-p", prompt, "--output-format", "json"]
    if scenario.get("model"):
        args += ["--model", scenario["model"]]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "dumb",
        "HOME": str(root / "home"),
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-ant-conformance",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    env.update(scenario.get("env") or {})
    api.reset(script)
    started = time.monotonic()
    try:
        done = subprocess.run(args, cwd=root / "project", env=env, capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        stdout = done.stdout.decode("utf-8", "replace")
        code = done.returncode
    except subprocess.TimeoutExpired:
        stdout, code = "", -1
    return {
        "requests": api.recorded(),
        "stdout": stdout,
        "code": code,
        "seconds": time.monotonic() - started,
    }


def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content or []


def _agent_requests(run: dict) -> list[dict]:
    return [r["body"] for r in run["requests"]
            if r["path"].split("?")[0].endswith("/messages") and r["body"].get("tools")]


def extract_claude(run: dict, scenario: dict) -> dict:
    """The skill-related strings of a Claude Code run.

    `listing`: the listing text as `preview` renders it (the user's entries only, Claude Code's
    own cut off), or None when nothing was sent. `blocks`: for an invocation, the blocks that
    carry it, as [type, text] (`tool_result` blocks as [type, text, is_error]). `session`: the
    session id the agent used. `result`: what `-p` printed, when no request carried the
    invocation (a refusal).
    """
    requests = _agent_requests(run)
    session = None
    for r in run["requests"]:
        session = session or r["headers"].get("x-claude-code-session-id")
    out: dict = {"listing": None, "blocks": None, "session": session, "result": None}
    if not requests:
        try:
            out["result"] = json.loads(run["stdout"]).get("result")
        except ValueError:
            out["result"] = run["stdout"][-2000:]
        return out
    first = requests[0]
    for message in first.get("messages", []):
        for block in _blocks(message):
            text = block.get("text") or ""
            if LISTING_HEAD in text:
                out["listing"] = _cut_listing(text)
                break
        if out["listing"] is not None:
            break
    invoke = scenario.get("invoke")
    if invoke and invoke.get("as") == "user":
        message = first["messages"][0]
        blocks = [b for b in _blocks(message) if b.get("type") == "text"]
        kept = []
        for block in blocks:
            text = block["text"]
            if not kept and not (text.startswith("<command-") or
                                 text.startswith("Base directory for this skill")):
                continue
            kept.append(["text", text])
        # The typed prompt itself is not sent; a block equal to it would be the prompt.
        out["blocks"] = kept
        if not kept:
            try:
                out["result"] = json.loads(run["stdout"]).get("result")
            except ValueError:
                out["result"] = run["stdout"][-2000:]
    elif invoke:
        calls = []
        for request in requests[1:]:
            message = request["messages"][-1]
            blocks = _blocks(message)
            if not blocks or blocks[0].get("type") != "tool_result":
                continue
            kept = []
            for block in blocks:
                if block.get("type") == "tool_result":
                    content = block.get("content")
                    if isinstance(content, list):
                        content = "".join(c.get("text", "") for c in content)
                    kept.append(["tool_result", content, bool(block.get("is_error"))])
                elif block.get("type") == "text":
                    kept.append(["text", block["text"]])
            calls.append(kept)
        out["blocks"] = calls[-1] if calls else []
        out["calls"] = calls
    return out


def _cut_listing(text: str) -> str:
    start = text.index(LISTING_HEAD)
    wrapped = text.startswith("<system-reminder>")
    end = text.find("\n\nToday's date", start)
    body = text[start:] if wrapped or end < 0 else text[start:end]
    if wrapped and body.endswith("\n</system-reminder>"):
        body = body[: -len("\n</system-reminder>")]
    lines = body.split("\n")
    kept = []
    for line in lines:
        if any(line == f"- {own}" or line.startswith(f"- {own}: ") for own in CLAUDE_CODE_OWN):
            break
        kept.append(line)
    listing = "\n".join(kept)
    if wrapped:
        listing = "<system-reminder>\n" + listing + "\n</system-reminder>"
    return listing
