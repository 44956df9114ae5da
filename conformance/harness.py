#!/usr/bin/env python3
"""Differential conformance harness: the real agents against `skillpkg preview`, byte for byte.

    conformance/run install                      # pinned agents into target/conformance/agents
    conformance/run live --count 500 --seed 1    # generated scenarios through both sides
    conformance/run live --agent codex --count 100
    conformance/run replay tests/fixtures/conformance/claude-code/*.json
    conformance/run check                        # the recorded fixtures, offline (no agent)
    conformance/run destinations --skillpkg target/debug/skillpkg   # publish, read by the clients

A live run prints each mismatch as a diff, shrinks it to a small case and, with --save, writes
it to tests/fixtures/conformance/<agent>/ as a regression fixture that `cargo test` checks
offline. It ends with the mismatch count per class, the agent's version and the time taken.
See conformance/README.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import agents  # noqa: E402
import generate  # noqa: E402
import scenario as sc  # noqa: E402
from fakeapi import FakeApi  # noqa: E402

PROJECT = HERE.parent
CACHE = PROJECT / "target" / "conformance"
FIXTURES = PROJECT / "tests" / "fixtures" / "conformance"


class Side:
    """One agent, installed and ready to run scenarios, one fake API per worker thread."""

    def __init__(self, agent: str, version: str | None) -> None:
        self.agent = agent
        self.folder = agents.install(CACHE / "agents", agent, version)
        self.version = version or agents.PINNED[agent][1]
        self._local = threading.local()
        self._apis: list[FakeApi] = []
        self._lock = threading.Lock()
        if agent == "claude-code":
            self.binary = agents.claude_binary(self.folder)
            shown = subprocess.run([str(self.binary), "--version"], capture_output=True,
                                   text=True, timeout=60).stdout.strip()
            self.reported = shown or self.version
        else:
            import agents_other

            self.driver = agents_other.driver(agent, self.folder)
            self.reported = self.driver.version()

    def api(self) -> FakeApi:
        api = getattr(self._local, "api", None)
        if api is None:
            api = FakeApi()
            self._local.api = api
            with self._lock:
                self._apis.append(api)
        return api

    def run(self, scenario: dict, root: Path) -> dict:
        if self.agent == "claude-code":
            run = agents.run_claude(self.binary, self.api(), root, scenario)
            return agents.extract_claude(run, scenario)
        return self.driver.run(self.api(), root, scenario)

    def close(self) -> None:
        for api in self._apis:
            api.close()


def skillpkg_binary(given: str | None) -> Path:
    if given:
        return Path(given).resolve()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=PROJECT, check=True)
    return PROJECT / "target" / "release" / "skillpkg"


def compare(side: Side, skillpkg: Path, scenario: dict, work: Path) -> tuple[dict, list[str]]:
    """Runs one scenario through both sides; returns the agent's extract and the differences."""
    root = work / scenario["id"]
    sc.materialise(scenario, root)
    try:
        expected = sc.normalise(side.run(scenario, root), root)
        # The agent may have written files (a session, a settings backup): start again clean.
        sc.materialise(scenario, root)
        actual = sc.normalise(
            _predict(side.agent, skillpkg, scenario, root, expected.get("session")), root)
        return expected, sc.differences(expected, actual, scenario)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _predict(agent: str, skillpkg: Path, scenario: dict, root: Path, session: str | None) -> dict:
    if agent == "claude-code":
        return sc.run_preview(skillpkg, scenario, root, session)
    import agents_other

    return agents_other.predict(agent, skillpkg, scenario, root)


def shrink(side: Side, skillpkg: Path, scenario: dict, work: Path, budget: int) -> dict:
    """A smaller scenario that still mismatches: whole files first, then lines of each file."""
    runs = [0]
    invoked_files = [key for key in scenario["tree"]
                     if (scenario.get("invoke") or {}).get("skill")
                     and f"/{scenario['invoke']['skill']}/" in key]

    def kinds(problems: list[str]) -> set[str]:
        return {problem.split(" ", 1)[0] for problem in problems}

    _, original = compare(side, skillpkg, scenario, work)
    wanted = kinds(original)

    def still_fails(candidate: dict) -> bool:
        """The same kind of mismatch (listing, invocation, refusal) on a scenario that still
        has something to show: files, and the invoked skill's text."""
        if runs[0] >= budget or not candidate["tree"]:
            return False
        if any(not str(candidate["tree"].get(key, "")).strip() for key in invoked_files):
            return False
        runs[0] += 1
        _, problems = compare(side, skillpkg, candidate, work)
        return bool(problems) and kinds(problems) == wanted

    current = json.loads(json.dumps(scenario))
    current["id"] = scenario["id"] + "-shrunk"
    invoked = (current.get("invoke") or {}).get("skill")
    # Whole files, in chunks (halves, quarters, … then one at a time); never the invoked
    # skill's own files.
    keys = [key for key in sorted(current["tree"])
            if not (invoked and f"/{invoked}/" in key)]
    chunk = max(1, len(keys) // 2)
    while chunk >= 1 and runs[0] < budget:
        start = 0
        while start < len(keys) and runs[0] < budget:
            dropped = keys[start:start + chunk]
            candidate = json.loads(json.dumps(current))
            for key in dropped:
                del candidate["tree"][key]
            if still_fails(candidate):
                current = candidate
                keys = keys[:start] + keys[start + chunk:]
            else:
                start += chunk
        chunk //= 2
    # Lines of each remaining text file, largest chunks first.
    for key in list(current["tree"]):
        content = current["tree"][key]
        if not isinstance(content, str):
            continue
        lines = content.split("\n")
        chunk = max(1, len(lines) // 2)
        while chunk >= 1 and runs[0] < budget:
            start = 0
            while start < len(lines) and runs[0] < budget:
                trial = lines[:start] + lines[start + chunk:]
                candidate = json.loads(json.dumps(current))
                candidate["tree"][key] = "\n".join(trial)
                if trial != lines and still_fails(candidate):
                    lines = trial
                    current = candidate
                else:
                    start += chunk
            chunk //= 2
    if current.get("env") and runs[0] < budget:
        candidate = json.loads(json.dumps(current))
        candidate["env"] = {}
        if still_fails(candidate):
            current = candidate
    return current


def save_fixture(side: Side, scenario: dict, expected: dict, root: Path | None = None) -> Path:
    folder = (root or FIXTURES) / side.agent
    folder.mkdir(parents=True, exist_ok=True)
    record = {
        "about": "recorded by conformance/run from the real agent; see conformance/README.md",
        "agent": side.agent,
        "version": side.version,
        "class": scenario["class"],
        "seed": scenario.get("seed"),
        "index": scenario.get("index"),
        "model": scenario.get("model"),
        "tree": scenario["tree"],
        "invoke": scenario.get("invoke"),
        "env": scenario.get("env") or {},
        "expect": {k: v for k, v in expected.items() if k in ("listing", "blocks", "result")},
        "session": expected.get("session"),
    }
    name = scenario.get("fixture") or f"{scenario['class']}-{scenario.get('seed')}-{scenario.get('index')}"
    path = folder / f"{name}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def live(options) -> int:
    started = time.monotonic()
    skillpkg = skillpkg_binary(options.skillpkg)
    side = Side(options.agent, options.version)
    print(f"{options.agent} {side.reported} against {skillpkg}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="skillpkg-conformance-"))
    indices = options.index or range(options.start, options.start + options.count)
    scenarios = [generate.scenario(options.seed, index, options.agent) for index in indices]
    if options.only_class:
        scenarios = [s for s in scenarios if s["class"] in options.only_class]
    totals: dict[str, list[int]] = {}
    failures = []
    lock = threading.Lock()

    def one(scenario):
        try:
            expected, problems = compare(side, skillpkg, scenario, work)
        except Exception as error:  # a harness fault is reported, never hidden
            expected, problems = {}, [f"harness error: {error!r}"]
        with lock:
            total = totals.setdefault(scenario["class"], [0, 0])
            total[0] += 1
            if problems:
                total[1] += 1
                failures.append((scenario, expected, problems))
                print(f"MISMATCH {scenario['id']} ({scenario['class']})", flush=True)
                if options.verbose:
                    for problem in problems:
                        print(problem, flush=True)
            elif options.verbose:
                print(f"ok {scenario['id']} ({scenario['class']})", flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        list(pool.map(one, scenarios))
    saved = []
    if options.save and failures:
        per_class: dict[str, int] = {}
        for scenario, expected, problems in sorted(failures, key=lambda f: f[0]["index"]):
            if any(p.startswith("harness error") for p in problems):
                continue
            count = per_class.get(scenario["class"], 0)
            if options.save_limit and count >= options.save_limit:
                continue
            per_class[scenario["class"]] = count + 1
            small = shrink(side, skillpkg, scenario, work, options.shrink_runs) \
                if options.shrink_runs else scenario
            small_expected, small_problems = compare(side, skillpkg, small, work)
            if not small_problems:
                small, small_expected = scenario, expected
            saved.append(save_fixture(side, {**small, "id": scenario["id"]}, small_expected,
                                      Path(options.fixtures_dir) if options.fixtures_dir else None))
    side.close()
    shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - started
    print()
    print(f"{'class':<14} {'scenarios':>9} {'mismatches':>10}")
    for cls in sorted(totals):
        print(f"{cls:<14} {totals[cls][0]:>9} {totals[cls][1]:>10}")
    count = sum(t[0] for t in totals.values())
    bad = sum(t[1] for t in totals.values())
    print(f"{'all':<14} {count:>9} {bad:>10}")
    print(f"{options.agent} {side.reported}; seed {options.seed}; {elapsed:.0f} s")
    for path in saved:
        print(f"saved {path}")
    if options.report:
        Path(options.report).write_text(json.dumps({
            "agent": options.agent, "version": side.reported, "seed": options.seed,
            "count": count, "mismatches": bad, "seconds": round(elapsed),
            "classes": totals,
            "failures": [{"id": s["id"], "class": s["class"], "problems": p}
                         for s, _, p in failures],
        }, indent=1, ensure_ascii=False))
    return 1 if bad else 0


def replay(options) -> int:
    """Re-runs recorded fixtures against the live agent: does the recording still hold?"""
    bad = 0
    sides: dict[str, Side] = {}
    work = Path(tempfile.mkdtemp(prefix="skillpkg-conformance-"))
    for path in options.fixtures:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        side = sides.get(record["agent"]) or Side(record["agent"], record.get("version"))
        sides[record["agent"]] = side
        scenario = {**record, "id": Path(path).stem}
        root = work / scenario["id"]
        sc.materialise(scenario, root)
        got = sc.normalise(side.run(scenario, root), root)
        got = {k: v for k, v in got.items() if k in ("listing", "blocks", "result")}
        want = record["expect"]
        same = all(got.get(k) == want.get(k) for k in ("listing", "blocks")) and (
            bool(got.get("result")) == bool(want.get("result")))
        print(("same " if same else "CHANGED ") + str(path), flush=True)
        if not same:
            bad += 1
            print(sc.diff(json.dumps(want, indent=1, ensure_ascii=False),
                          json.dumps(got, indent=1, ensure_ascii=False)))
    for side in sides.values():
        side.close()
    shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


def record(options) -> int:
    """Records scenarios written by hand (a JSON list) from the live agent as fixtures."""
    work = Path(tempfile.mkdtemp(prefix="skillpkg-conformance-"))
    sides: dict[str, Side] = {}
    for path in options.scenarios:
        for scenario in json.loads(Path(path).read_text(encoding="utf-8")):
            agent = scenario.get("agent", "claude-code")
            side = sides.get(agent) or Side(agent, None)
            sides[agent] = side
            root = work / scenario["id"]
            sc.materialise(scenario, root)
            expected = sc.normalise(side.run(scenario, root), root)
            print(f"recorded {save_fixture(side, scenario, expected).relative_to(PROJECT)}")
    for side in sides.values():
        side.close()
    shutil.rmtree(work, ignore_errors=True)
    return 0


def check(options) -> int:
    """The recorded fixtures against skillpkg alone (what `cargo test` does), with diffs."""
    skillpkg = skillpkg_binary(options.skillpkg)
    work = Path(tempfile.mkdtemp(prefix="skillpkg-conformance-"))
    bad = 0
    paths = options.fixtures or sorted(str(p) for p in FIXTURES.glob("*/*.json"))
    for path in paths:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        scenario = {**record, "id": Path(path).stem}
        root = work / scenario["id"]
        sc.materialise(scenario, root)
        actual = sc.normalise(
            _predict(record["agent"], skillpkg, scenario, root, record.get("session")), root)
        problems = sc.differences(record["expect"], actual, scenario)
        if problems:
            bad += 1
            print(f"MISMATCH {path}")
            for problem in problems:
                print(problem)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{len(paths)} fixtures, {bad} mismatches")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    install = commands.add_parser("install", help="install the pinned agents into the cache")
    install.add_argument("--agent", action="append", choices=sorted(agents.PINNED))
    install.add_argument("--version", help="a version other than the pinned one")
    run = commands.add_parser("live", help="generated scenarios through the agent and skillpkg")
    run.add_argument("--agent", default="claude-code", choices=sorted(agents.PINNED))
    run.add_argument("--version", help="an agent version other than the pinned one")
    run.add_argument("--count", type=int, default=50)
    run.add_argument("--start", type=int, default=0, help="the first scenario index")
    run.add_argument("--index", type=int, action="append",
                     help="run only this scenario index (repeatable)")
    run.add_argument("--save-limit", type=int, default=0,
                     help="with --save, at most this many fixtures per class (0: all)")
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--jobs", type=int, default=2)
    run.add_argument("--class", dest="only_class", action="append",
                     help="only scenarios of this class (repeatable)")
    run.add_argument("--save", action="store_true", help="save each mismatch as a fixture")
    run.add_argument("--shrink-runs", type=int, default=40,
                     help="agent runs allowed for shrinking each mismatch (0: do not shrink)")
    run.add_argument("--skillpkg", help="the skillpkg binary [default: cargo build --release]")
    run.add_argument("--fixtures-dir", help="save fixtures here [default: tests/fixtures/conformance]")
    run.add_argument("--report", help="write a JSON report here")
    run.add_argument("-v", "--verbose", action="store_true", help="print every diff")
    again = commands.add_parser("replay", help="re-run recorded fixtures against the live agent")
    again.add_argument("fixtures", nargs="+")
    hand = commands.add_parser("record", help="record hand-written scenarios as fixtures")
    hand.add_argument("scenarios", nargs="+", help="JSON files, each a list of scenarios")
    offline = commands.add_parser("check", help="the recorded fixtures against skillpkg only")
    offline.add_argument("fixtures", nargs="*")
    offline.add_argument("--skillpkg")
    publish = commands.add_parser(
        "destinations", help="`skillpkg publish` read back by Claude Code and the skills CLI")
    publish.add_argument("--skillpkg", help="the skillpkg binary [default: cargo build --release]")
    publish.add_argument("--keep", action="store_true", help="keep the scratch folder")
    options = parser.parse_args()
    if options.command == "destinations":
        import destinations

        return destinations.main(skillpkg_binary(options.skillpkg), keep=options.keep)
    if options.command == "install":
        for agent in options.agent or sorted(agents.PINNED):
            folder = agents.install(CACHE / "agents", agent, options.version)
            newest = agents.latest(agent)
            pinned = options.version or agents.PINNED[agent][1]
            drift = "" if newest in (None, pinned) else f" (the registry has {newest})"
            print(f"{agent} {pinned} in {folder}{drift}")
        return 0
    if options.command == "live":
        return live(options)
    if options.command == "replay":
        return replay(options)
    if options.command == "record":
        return record(options)
    return check(options)


if __name__ == "__main__":
    sys.exit(main())
