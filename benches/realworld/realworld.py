#!/usr/bin/env python3
"""Lint precision on real published skills.

    benches/realworld/realworld.py fetch  [--mirrors DIR]
    benches/realworld/realworld.py run    [--skillpkg BIN] [--peer] [--save FILE] [--markdown]
    benches/realworld/realworld.py sample --rule SK303 [--count 10] [--seed 1]

`fetch` materialises every collection in repos.tsv at its pinned commit under
target/realworld/<name>/ (only the folders listed; each is made a git repository so that tools
which walk up to a repository root stop there). Without --mirrors it clones from GitHub.
Nothing fetched is ever committed: only repos.tsv, this script and judgements.tsv, which we
wrote, live in the repository.

`run` lints each collection as one tree, the way an author runs `skillpkg lint` at the root of
their repository, and prints findings per rule, findings per skill and, from the hand-judged
findings in judgements.tsv, precision per rule and overall. `--peer` runs agnix (the broadest
existing linter, pinned below, installed with pip under target/realworld/venv) over the same
checkouts and prints its findings per skill beside ours.

`sample` prints findings of one rule not judged yet, drawn with a fixed seed, as TSV lines
(`id<TAB>?<TAB>message | source line`) to judge and append to judgements.tsv.

A finding's id is `<collection>/<file>:<line>:<column>:<rule>`: stable for a pinned commit.
Standard library only.
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
WORK = ROOT / "target" / "realworld"
AGNIX = "agnix==0.59.3"


def collections_list():
    rows = []
    for line in (HERE / "repos.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, repo, commit, folders = line.split("\t")
        rows.append((name, repo, commit, folders.split(",")))
    return rows


def git(*args, cwd=None, **kw):
    return subprocess.run(["git", *args], cwd=cwd, check=True, **kw)


def materialise(gitdir, commit, folders, dest):
    """Write the blobs under `folders` at `commit` into `dest`. Objects a partial mirror lacks
    (very large files) are skipped and counted."""
    tree = subprocess.run(
        ["git", "--git-dir", str(gitdir), "ls-tree", "-r", "-z", commit, "--"]
        + [f for f in folders if f != "."],
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    entries = []
    for item in tree:
        if not item:
            continue
        meta, path = item.split(b"\t", 1)
        mode, kind, oid = meta.split()
        if kind != b"blob":
            continue
        entries.append((mode, oid.decode(), os.fsdecode(path)))
    batch = subprocess.Popen(
        ["git", "--git-dir", str(gitdir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    missing = 0
    for mode, oid, path in entries:
        batch.stdin.write(oid.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)
        target = dest / path
        if ".." in Path(path).parts or Path(path).is_absolute():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            os.symlink(os.fsdecode(data), target)
        else:
            target.write_bytes(data)
            if mode == b"100755":
                target.chmod(0o755)
    batch.stdin.close()
    batch.wait()
    return len(entries), missing


def fetch(args):
    WORK.mkdir(parents=True, exist_ok=True)
    for name, repo, commit, folders in collections_list():
        dest = WORK / name
        stamp = dest / ".realworld-commit"
        if stamp.exists() and stamp.read_text() == commit:
            print(f"{name}: up to date")
            continue
        if dest.exists():
            shutil.rmtree(dest)
        if args.mirrors:
            gitdir = Path(args.mirrors) / repo.replace("/", "+") / "repo"
        else:
            gitdir = WORK / ".git-cache" / repo.replace("/", "+")
            if not gitdir.exists():
                git("init", "-q", "--bare", str(gitdir))
            git("--git-dir", str(gitdir), "fetch", "-q", "--depth", "1",
                f"https://github.com/{repo}.git", commit)
        dest.mkdir(parents=True)
        # The whole repository: links may leave the linted folders (a plugin's CLAUDE.md).
        files, missing = materialise(gitdir, commit, ["."], dest)
        git("init", "-q", str(dest))
        stamp.write_text(commit)
        note = f" ({missing} large files absent from the mirror)" if missing else ""
        print(f"{name}: {files} files at {commit[:12]}{note}")


def our_findings(skillpkg, name):
    dest = WORK / name
    folders = next(f for n, _, _, f in collections_list() if n == name)
    out = subprocess.run(
        [skillpkg, "lint", "--format", "json", "--exit-zero", *folders],
        cwd=dest,
        capture_output=True,
    )
    if out.returncode != 0:
        sys.exit(f"{name}: skillpkg lint exited {out.returncode}: {out.stderr.decode()[:2000]}")
    doc = json.loads(out.stdout)
    skills = len(doc["skills"])
    findings = []
    seen = set()

    def add(d):
        fid = f"{name}/{d['file']}:{d['line']}:{d['column']}:{d['code']}"
        if fid in seen:
            return
        seen.add(fid)
        findings.append({"id": fid, "code": d["code"], "severity": d["severity"],
                         "message": d["message"], "file": f"{name}/{d['file']}",
                         "line": d["line"]})

    for skill in doc["skills"]:
        for d in skill["diagnostics"]:
            add(d)
    for d in doc.get("diagnostics", []):
        add(d)
    return skills, findings


def peer_findings(name):
    venv = WORK / "venv"
    agnix = venv / "bin" / "agnix"
    if not agnix.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", AGNIX], check=True)
    folders = next(f for n, _, _, f in collections_list() if n == name)
    out = subprocess.run(
        [str(agnix), *folders, "--format", "json", "--max-files", "0"],
        cwd=WORK / name, capture_output=True,
    )
    doc = json.loads(out.stdout)
    return collections.Counter(d["level"] for d in doc["diagnostics"] if d["rule"] != "VER-001")


def judgements():
    path = HERE / "judgements.tsv"
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) >= 3 and parts[1] in ("tp", "fp", "moved"):
                out[parts[0]] = parts[1] if parts[1] != "moved" else ("moved", parts[2])
    return out


def run(args):
    judged = judgements()
    total_skills = 0
    every = []
    peer = collections.Counter()
    for name, *_ in collections_list():
        if not (WORK / name / ".realworld-commit").exists():
            sys.exit(f"{name} is not fetched: run `{sys.argv[0]} fetch` first")
        skills, findings = our_findings(args.skillpkg, name)
        total_skills += skills
        every += findings
        if args.peer:
            peer += peer_findings(name)
    if args.save:
        Path(args.save).write_text(json.dumps(every, indent=1))
    by_rule = collections.defaultdict(list)
    for f in every:
        by_rule[f["code"]].append(f)
    rows = []
    tp_all = fp_all = 0
    for code in sorted(by_rule):
        fs = by_rule[code]
        verdicts = [judged[f["id"]] for f in fs if judged.get(f["id"]) in ("tp", "fp")]
        tp = verdicts.count("tp")
        fp = verdicts.count("fp")
        tp_all += tp
        fp_all += fp
        precision = f"{100 * tp / (tp + fp):.0f} %" if tp + fp else "–"
        rows.append((code, len(fs), tp + fp, precision))
    print(f"{total_skills} skills, {len(every)} findings, "
          f"{len(every) / max(total_skills, 1):.2f} per skill")
    print(f"{'rule':<8} {'fired':>6} {'judged':>7} {'precision':>9}")
    for code, fired, n, precision in rows:
        print(f"{code:<8} {fired:>6} {n:>7} {precision:>9}")
    if tp_all + fp_all:
        # Overall precision weights each rule's sample precision by how often the rule fires,
        # so that a rule judged from a small sample counts as much as it fires.
        weighted = 0.0
        covered = 0
        for code in by_rule:
            fs = by_rule[code]
            verdicts = [judged[f["id"]] for f in fs if judged.get(f["id"]) in ("tp", "fp")]
            if verdicts:
                weighted += len(fs) * verdicts.count("tp") / len(verdicts)
                covered += len(fs)
        print(f"judged {tp_all + fp_all}: {tp_all} true, {fp_all} false; "
              f"precision {100 * weighted / max(covered, 1):.0f} % "
              f"(each rule's sample weighted by how often it fires; "
              f"{covered} of {len(every)} findings are of judged rules)")
    # A judged true positive is kept when it is still reported: as it was, in the same file by
    # the same rule (a rule now reporting once per file), or where a `moved` line says.
    ids = {f["id"] for f in every}
    file_rules = {(f["file"], f["code"]) for f in every}

    def kept(fid):
        if fid in ids:
            return True
        moved = judged.get(fid)
        if isinstance(moved, tuple):
            return kept(moved[1])
        file, _, _, code = fid.rsplit(":", 3)
        return (file, code) in file_rules

    lost = [fid for fid, v in judged.items() if v == "tp" and not kept(fid)]
    if lost:
        print(f"{len(lost)} judged true positives no longer reported:")
        for fid in sorted(lost):
            print(f"  {fid}")
    if args.peer:
        n = peer["error"] + peer["warning"]
        print(f"agnix {AGNIX.split('==')[1]}: {peer['error']} errors, {peer['warning']} warnings, "
              f"{peer['info']} info; errors and warnings per skill "
              f"{n / max(total_skills, 1):.2f}")


def sample(args):
    judged = judgements()
    every = json.loads(Path(args.findings).read_text())
    pool = [f for f in every if f["code"] == args.rule and f["id"] not in judged]
    random.Random(f"{args.seed}:{args.rule}").shuffle(pool)
    for f in pool[: args.count]:
        try:
            text = (WORK / f["file"]).read_text(errors="replace").splitlines()[f["line"] - 1]
        except (OSError, IndexError, TypeError):
            text = ""
        print(f"{f['id']}\t?\t{f['message']} | {text.strip()[:200]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("fetch")
    p.add_argument("--mirrors", help="a folder of bare mirrors named owner+name/repo")
    p.set_defaults(func=fetch)
    p = sub.add_parser("run")
    p.add_argument("--skillpkg", default=str(ROOT / "target" / "release" / "skillpkg"))
    p.add_argument("--peer", action="store_true", help="run agnix on the same checkouts")
    p.add_argument("--save", help="write every finding as JSON (for `sample`)")
    p.set_defaults(func=run)
    p = sub.add_parser("sample")
    p.add_argument("--findings", default=str(WORK / "findings.json"))
    p.add_argument("--rule", required=True)
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=sample)
    args = parser.parse_args()
    args.skillpkg = os.path.abspath(args.skillpkg) if hasattr(args, "skillpkg") else None
    args.func(args)


if __name__ == "__main__":
    main()
