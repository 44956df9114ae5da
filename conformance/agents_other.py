"""Codex CLI and Gemini CLI: running the real agent once, and what `skillpkg preview` predicts.

Both return the same shape as `agents.extract_claude`:

    {"listing": str | None, "blocks": [[type, text], ...] | None, "result": str | None}

What is compared, per agent (see conformance/README.md):

- Codex 0.171.0 runs with `-c skills.bundled.enabled=false`, so its bundled system skills (and
  their `$CODEX_HOME/skills/.system` root) are not in the listing; the listing is the whole
  `<skills_instructions>` developer text, header and roots table included. An invocation is the
  prompt `$NAME please`; the blocks are the `<skill>` user items Codex injected. When it
  injects nothing (an unknown, ambiguous or unmentionable name), `result` says so and preview
  must refuse too.
- Gemini CLI 0.61.0 runs with its two builtin skills disabled (`skills.disabled` in
  ~/.gemini/settings.json), model gemini-2.5-flash. The listing is the
  `# Available Agent Skills … </available_skills>` slice of the system instruction. Gemini
  walks each skills folder with an asynchronous glob whose order is not stable (usually by
  folder name, descending), so entries are compared as a set within each run of entries from
  one skills folder; the order of the folders and of clashes is compared as is. An invocation
  is the model calling `activate_skill({name})`; the block is the function response's output.
  An error response (a name not in the tool's enum) is a refusal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

CODEX_BIN = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
GEMINI_JS = "node_modules/@google/gemini-cli/bundle/gemini.js"
GEMINI_MODEL = "gemini-2.5-flash"
GEMINI_BUILTINS = ["skill-creator", "antigravity-support"]
GEMINI_HEAD = "# Available Agent Skills"
GEMINI_FOOT = "</available_skills>"
NOTHING_INJECTED = "Codex injected no <skill> item for the mention"


def driver(agent: str, folder: Path):
    if agent == "codex":
        return Codex(folder)
    if agent == "gemini-cli":
        return Gemini(folder)
    raise ValueError(f"no driver for {agent}")


class Codex:
    def __init__(self, folder: Path) -> None:
        self.binary = (Path(folder) / CODEX_BIN).resolve()
        if not self.binary.is_file():
            raise FileNotFoundError(f"no Codex binary at {self.binary}")

    def version(self) -> str:
        out = subprocess.run([str(self.binary), "--version"], capture_output=True, text=True,
                             timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
        return out.stdout.strip() or "codex (unknown version)"

    def run(self, api, root: Path, scenario: dict, timeout: float = 120) -> dict:
        home = root / "home"
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        invoke = scenario.get("invoke")
        prompt = f"${invoke['skill']} please" if invoke else "hello"
        provider = ('{name="capture", base_url=%s, env_key="OPENAI_API_KEY", '
                    'wire_api="responses", supports_websockets=false, '
                    'request_max_retries=0, stream_max_retries=0}'
                    % json.dumps(api.url + "/v1"))
        command = [str(self.binary), "exec", "--skip-git-repo-check",
                   "-c", 'model_provider="capture"', "-c", "model_providers.capture=" + provider,
                   "-c", "skills.bundled.enabled=false"]
        if scenario.get("model"):
            command += ["-c", "model=" + json.dumps(scenario["model"])]
        command.append(prompt)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(codex_home),
               "OPENAI_API_KEY": "sk-conformance", "TERM": "dumb", "LANG": "C.UTF-8"}
        env.update(scenario.get("env") or {})
        api.reset([])
        try:
            subprocess.run(command, cwd=root / "project", env=env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        requests = [r["body"] for r in api.recorded()
                    if r["path"].split("?")[0].endswith("/responses")]
        out: dict = {"listing": None, "blocks": None, "result": None}
        if not requests:
            out["result"] = "Codex sent no request"
            return out
        items = [i for i in requests[0].get("input", []) if i.get("type") == "message"]
        for item in items:
            if item.get("role") == "developer":
                text = next((t for t in _texts(item) if t.startswith("<skills_instructions>")),
                            None)
                if text is not None:
                    out["listing"] = text
                    break
        if invoke:
            out["blocks"] = [["text", t] for item in items if item.get("role") == "user"
                             for t in _texts(item) if t.startswith("<skill>\n")]
            if not out["blocks"]:
                out["result"] = NOTHING_INJECTED
        return out


class Gemini:
    def __init__(self, folder: Path) -> None:
        self.script = (Path(folder) / GEMINI_JS).resolve()
        self.node = shutil.which("node") or "node"
        if not self.script.is_file():
            raise FileNotFoundError(f"no Gemini CLI at {self.script}")

    def version(self) -> str:
        out = subprocess.run([self.node, str(self.script), "--version"], capture_output=True,
                             text=True, timeout=120,
                             env={"PATH": os.path.dirname(self.node) + ":/usr/bin:/bin",
                                  "HOME": "/nonexistent", "GEMINI_CLI_NO_RELAUNCH": "true"})
        return "gemini-cli " + (out.stdout.strip() or "(unknown version)")

    def run(self, api, root: Path, scenario: dict, timeout: float = 180) -> dict:
        home = root / "home"
        settings_path = home / ".gemini" / "settings.json"
        settings_path.parent.mkdir(parents=True, exist_ok=True)
        settings: dict = {}
        if settings_path.is_file():
            try:
                settings = json.loads(settings_path.read_text(encoding="utf-8"))
            except ValueError:
                settings = {}
        settings.setdefault("security", {}).setdefault("auth", {})["selectedType"] = \
            "gemini-api-key"
        settings["general"] = {**settings.get("general", {}), "disableAutoUpdate": True,
                               "disableUpdateNag": True}
        settings["privacy"] = {"usageStatisticsEnabled": False}
        settings["telemetry"] = {"enabled": False}
        skills = settings.setdefault("skills", {})
        skills["disabled"] = list(skills.get("disabled", [])) + GEMINI_BUILTINS
        settings_path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        invoke = scenario.get("invoke")
        script: list[dict] = []
        if invoke:
            script = [{"tool": {"name": "activate_skill", "input": {"name": invoke["skill"]}}},
                      {"text": "Done."}]
        env = {"PATH": os.path.dirname(self.node) + ":/usr/bin:/bin", "HOME": str(home),
               "TERM": "dumb", "LANG": "C.UTF-8", "GOOGLE_GEMINI_BASE_URL": api.url,
               "GEMINI_API_KEY": "conformance-key", "GEMINI_CLI_NO_RELAUNCH": "true",
               "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1", "CI": "1"}
        env.update(scenario.get("env") or {})
        command = [self.node, str(self.script), "-p", "hello", "-m",
                   scenario.get("model") or GEMINI_MODEL, "--yolo", "--output-format", "json"]
        api.reset(script)
        try:
            subprocess.run(command, cwd=root / "project", env=env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        bodies = [r["body"] for r in api.recorded() if "GenerateContent" in r["path"]]
        out: dict = {"listing": None, "blocks": None, "result": None}
        turns = [b for b in bodies if "activate_skill" in _declared(b)] or bodies
        for body in turns:
            text = _system_text(body)
            start = text.find(GEMINI_HEAD)
            if start >= 0:
                end = text.find(GEMINI_FOOT, start)
                out["listing"] = canonical_gemini(
                    text[start:end + len(GEMINI_FOOT)] if end >= 0 else text[start:])
                break
        if invoke:
            for body in turns:
                for content in body.get("contents") or []:
                    for part in content.get("parts") or []:
                        response = (part.get("functionResponse") or {}) \
                            if isinstance(part, dict) else {}
                        if response.get("name") != "activate_skill" or out["blocks"] is not None:
                            continue
                        answer = response.get("response") or {}
                        if "output" in answer:
                            out["blocks"] = [["text", answer["output"]]]
                        else:
                            out["blocks"] = []
                            out["result"] = str(answer.get("error", answer))
            if out["blocks"] is None:
                out["blocks"] = []
                out["result"] = "Gemini CLI sent no activate_skill response"
        return out


def _texts(item: dict):
    for part in item.get("content") or []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            yield part["text"]


def _declared(body: dict) -> list[str]:
    return [d.get("name") for tool in body.get("tools") or []
            for d in tool.get("functionDeclarations") or []]


def _system_text(body: dict) -> str:
    instruction = body.get("systemInstruction") or body.get("system_instruction") or {}
    if isinstance(instruction, str):
        return instruction
    return "".join(p.get("text", "") for p in instruction.get("parts", []) if isinstance(p, dict))


_SOURCE = re.compile(r"^(.*?/\.(?:gemini|agents)/skills)/")
_ENTRY = "\n  <skill>\n"


def canonical_gemini(listing: str | None) -> str | None:
    """The listing with the entries of each run from one skills folder sorted (Gemini's glob
    order within a folder is not stable)."""
    if not listing or "<available_skills>\n" not in listing:
        return listing
    head, rest = listing.split("<available_skills>\n", 1)
    if not rest.endswith("\n" + GEMINI_FOOT):
        return listing
    middle = rest[: -len("\n" + GEMINI_FOOT)]
    entries = ("\n" + middle).split(_ENTRY)[1:]
    if not entries:
        return listing

    def source(entry: str) -> str:
        location = entry.rsplit("<location>", 1)[-1].split("</location>", 1)[0]
        found = _SOURCE.match(location)
        return found.group(1) if found else os.path.dirname(os.path.dirname(location))

    ordered: list[str] = []
    run: list[str] = []
    for entry in entries:
        if run and source(run[-1]) != source(entry):
            ordered += sorted(run)
            run = []
        run.append(entry)
    ordered += sorted(run)
    return head + "<available_skills>\n" + "\n".join("  <skill>\n" + e for e in ordered) \
        + "\n" + GEMINI_FOOT


def predict(agent: str, skillpkg: Path, scenario: dict, root: Path) -> dict:
    """What `skillpkg preview --target AGENT` predicts for the scenario, in `run`'s shape."""
    base = [str(skillpkg), "preview", "--target", agent, "--format", "json",
            "--home", str(root / "home")]
    env = dict(os.environ, NO_COLOR="1")
    out: dict = {"listing": None, "blocks": None, "result": None}
    done = subprocess.run(base, cwd=root / "project", capture_output=True, env=env, timeout=120)
    try:
        document = json.loads(done.stdout)
        text = document["messages"][0]["content"][0]["text"]
        out["listing"] = (canonical_gemini(text) if agent == "gemini-cli" else text) or None
    except (ValueError, KeyError, IndexError):
        out["error"] = done.stderr.decode("utf-8", "replace")[-3000:]
    invoke = scenario.get("invoke")
    if invoke:
        done = subprocess.run(base + ["--invoke", invoke["skill"]], cwd=root / "project",
                              capture_output=True, env=env, timeout=120)
        try:
            document = json.loads(done.stdout)
            out["blocks"] = [["text", block["text"]] for message in document["messages"]
                             for block in message["content"]]
        except (ValueError, KeyError):
            out["blocks"] = []
            out["result"] = done.stderr.decode("utf-8", "replace").strip() or "refused"
    return out


if __name__ == "__main__":  # a quick self-check of the Gemini canonical form
    sample = ("h\n\n<available_skills>\n  <skill>\n    <name>b</name>\n    <description>x"
              "</description>\n    <location>/r/.gemini/skills/b/SKILL.md</location>\n  </skill>\n"
              "  <skill>\n    <name>a</name>\n    <description>y</description>\n    <location>"
              "/r/.gemini/skills/a/SKILL.md</location>\n  </skill>\n</available_skills>")
    assert canonical_gemini(sample).index("<name>a") < canonical_gemini(sample).index("<name>b")
    time.sleep(0)
    print("ok")
