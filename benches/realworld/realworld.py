#!/usr/bin/env python3
"""Lint precision on real published skills, on a development half and a held-out half.

    benches/realworld/realworld.py fetch   [--mirrors DIR]
    benches/realworld/realworld.py split   [--seed 32]
    benches/realworld/realworld.py run     [--half dev|held-out|all] [--skillpkg BIN] [--peer] [--save FILE]
    benches/realworld/realworld.py compare BEFORE.json AFTER.json [--half dev|held-out|all]
    benches/realworld/realworld.py sample  --findings FILE [--half dev] [--rule SK303] [--count 12]

`fetch` materialises every collection in repos.tsv at its pinned commit under
target/realworld/<name>/ (the whole repository; each is made a git repository so that tools
which walk up to a repository root stop there). Without --mirrors it clones from GitHub; with
it, it reads bare mirrors named `owner+name/repo` (or `owner+name/repo/.git`) in DIR.
Nothing fetched is ever committed: only repos.tsv, the scripts and judgements.tsv, which we
wrote, live in the repository.

`split` draws the development and held-out halves again from the seed and checks that
repos.tsv records that draw: the collections not tuned on before are sorted by their number of
skill files and taken in threes, and two of each three are held out. Rules are tuned on the
`tuned` and `dev` collections only; the held-out half is linted and judged only to report.

`run` lints each collection of the half as one tree, the way an author runs `skillpkg lint` at
the root of their repository, and prints findings per rule, findings per skill, findings
reported twice and, from the hand-judged findings in judgements.tsv, precision per rule and
overall. `--peer` runs agnix (the broadest existing linter, pinned below, installed with pip
under target/realworld/venv) over the same checkouts and prints its findings per skill beside
ours. `--save` writes every finding as JSON, for `compare` and `sample`.

`compare` prints a before/after table per rule from two saved runs, with each rule's precision
in each from judgements.tsv.

`sample` prints findings of one rule not judged yet, drawn with a fixed seed, as TSV lines
(`id<TAB>?<TAB>message | source line`) to judge and append to judgements.tsv.

A finding's id is `<collection>/<file>:<line>:<column>:<rule>`: stable for a pinned commit.
Standard library only.
"""

import argparse
import collections
import hashlib
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
SPLIT_SEED = 32
HALVES = {
    "dev": ("tuned", "dev"),
    "held-out": ("held-out",),
    "held-out-2": ("held-out-2",),
    "held-out-3": ("held-out-3",),
    "all": ("tuned", "dev", "held-out", "held-out-2", "held-out-3"),
}


class Collection:
    def __init__(self, name, repo, commit, folders, skill_files, half):
        self.name = name
        self.repo = repo
        self.commit = commit
        self.folders = folders.split(",")
        self.skill_files = int(skill_files)
        self.half = half


def collections_list(half="all"):
    rows = []
    for line in (HERE / "repos.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        row = Collection(*line.split("\t"))
        if row.half not in HALVES["all"]:
            sys.exit(f"repos.tsv: {row.name} has half `{row.half}`; expected one of {HALVES['all']}")
        if row.half in HALVES[half]:
            rows.append(row)
    return rows


def half_of(name):
    return next(c.half for c in collections_list() if c.name == name)


def draw(rows, seed):
    """The held-out collections: the untuned ones sorted by skill files (then name), in threes,
    two of each three drawn with the seed."""
    drawn = sorted((c for c in rows if c.half in ("dev", "held-out")), key=lambda c: (c.skill_files, c.name))
    rng = random.Random(f"realworld-split:{seed}")
    held = set()
    for start in range(0, len(drawn), 3):
        chunk = drawn[start:start + 3]
        for c in rng.sample(chunk, min(2, len(chunk))):
            held.add(c.name)
    return held


def split(args):
    rows = collections_list()
    held = draw(rows, args.seed)
    wrong = [c.name for c in rows if c.half in ("dev", "held-out") and (c.name in held) != (c.half == "held-out")]
    for half in HALVES["all"]:
        names = [c for c in rows if c.half == half]
        print(f"{half:>8}: {len(names)} collections, {sum(c.skill_files for c in names)} skill files: "
              + ", ".join(c.name for c in names))
    if wrong:
        sys.exit(f"repos.tsv does not record the draw of seed {args.seed}: {', '.join(wrong)}")
    print(f"repos.tsv records the draw of seed {args.seed}")
    later = later_draw()
    for half, (start, end) in LATER_DRAWS.items():
        taken = [c.repo for c in rows if c.half == half]
        window = later[start:end]
        stray = [r for r in taken if r not in window]
        if stray or taken != [r for r in window if r in taken]:
            sys.exit(f"repos.tsv does not record the {half} draw (positions {start}-{end - 1} of "
                     f"{LATER_SEED!r}, in order): {', '.join(stray) or 'order differs'}")
        print(f"repos.tsv records the {half} draw: {len(taken)} of positions {start}-{end - 1} "
              f"of heldout2-candidates.txt shuffled with {LATER_SEED!r}")


# The later held-out halves: slices of heldout2-candidates.txt shuffled once with one seed,
# each drawn after the rules had been fixed for the round before (see repos.tsv).
LATER_SEED = "realworld-heldout-2:33"
LATER_DRAWS = {"held-out-2": (0, 24), "held-out-3": (24, 43)}


def later_draw():
    names = [line.strip() for line in (HERE / "heldout2-candidates.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    random.Random(LATER_SEED).shuffle(names)
    return names


def git(*args, cwd=None, **kw):
    return subprocess.run(["git", *args], cwd=cwd, check=True, **kw)


def materialise(gitdir, commit, dest):
    """Write every blob at `commit` into `dest`. Objects a partial mirror lacks (very large
    files) are skipped and counted; no path leaves `dest`."""
    tree = subprocess.run(
        ["git", "--git-dir", str(gitdir), "ls-tree", "-r", "-z", commit],
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
        if ".." in Path(path).parts or Path(path).is_absolute():
            continue
        target = dest / path
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
    for c in collections_list():
        dest = WORK / c.name
        stamp = dest / ".realworld-commit"
        if stamp.exists() and stamp.read_text() == c.commit:
            print(f"{c.name}: up to date")
            continue
        if dest.exists():
            shutil.rmtree(dest)
        if args.mirrors:
            gitdir = Path(args.mirrors) / c.repo.replace("/", "+") / "repo"
            if (gitdir / ".git").is_dir():
                gitdir = gitdir / ".git"
        else:
            gitdir = WORK / ".git-cache" / c.repo.replace("/", "+")
            if not gitdir.exists():
                git("init", "-q", "--bare", str(gitdir))
            git("--git-dir", str(gitdir), "fetch", "-q", "--depth", "1",
                f"https://github.com/{c.repo}.git", c.commit)
        dest.mkdir(parents=True)
        # The whole repository: links may leave the linted folders (a plugin's CLAUDE.md).
        files, missing = materialise(gitdir, c.commit, dest)
        git("init", "-q", str(dest))
        stamp.write_text(c.commit)
        note = f" ({missing} large files absent from the mirror)" if missing else ""
        print(f"{c.name}: {files} files at {c.commit[:12]}{note}")


def our_findings(skillpkg, c):
    """Every finding of `skillpkg lint` on one collection, and the ids reported more than once."""
    out = subprocess.run(
        [skillpkg, "lint", "--format", "json", "--exit-zero", *c.folders],
        cwd=WORK / c.name,
        capture_output=True,
    )
    # Exit 2 with a document: some files could not be read (older skillpkg: a dangling
    # SKILL.md link), the rest was linted. Counted, and said.
    try:
        doc = json.loads(out.stdout) if out.returncode in (0, 2) else None
    except json.JSONDecodeError:
        doc = None
    if doc is None:
        sys.exit(f"{c.name}: skillpkg lint exited {out.returncode}: {out.stderr.decode()[:2000]}")
    if out.returncode == 2:
        errors = out.stderr.decode().count("error:")
        print(f"note: {c.name}: skillpkg lint exited 2 ({errors} files it could not read)",
              file=sys.stderr)
    skills = len(doc["skills"])
    findings = []
    seen = collections.Counter()

    def add(d):
        fid = f"{c.name}/{d['file']}:{d['line']}:{d['column']}:{d['code']}"
        seen[fid] += 1
        if seen[fid] > 1:
            return
        findings.append({"id": fid, "code": d["code"], "severity": d["severity"],
                         "message": d["message"], "file": f"{c.name}/{d['file']}",
                         "line": d["line"], "collection": c.name})

    for skill in doc["skills"]:
        for d in skill["diagnostics"]:
            add(d)
    for d in doc.get("diagnostics", []):
        add(d)
    twice = sorted(fid for fid, n in seen.items() if n > 1)
    return skills, findings, twice


def peer_findings(c):
    venv = WORK / "venv"
    agnix = venv / "bin" / "agnix"
    if not agnix.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", AGNIX], check=True)
    out = subprocess.run(
        [str(agnix), *c.folders, "--format", "json", "--max-files", "0"],
        cwd=WORK / c.name, capture_output=True,
    )
    doc = json.loads(out.stdout)
    return collections.Counter(d["level"] for d in doc["diagnostics"] if d["rule"] != "VER-001")


def judgements():
    """Each judged id's verdict (`tp`, `fp`, or `("moved", id)`); the last line for an id wins."""
    return judgements_with_messages()[0]


def judgements_with_messages():
    """The verdicts by id, and by (id, the message judged): a finding is judged for what it
    says, so one whose message changed is judged again, and both verdicts are kept."""
    path = HERE / "judgements.tsv"
    out = {}
    messages = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) >= 3 and parts[1] in ("tp", "fp", "moved"):
                out[parts[0]] = parts[1] if parts[1] != "moved" else ("moved", parts[2])
                if len(parts) >= 4 and parts[1] in ("tp", "fp"):
                    messages[(parts[0], parts[3])] = parts[1]
    return out, messages


def current(every, judged, messages):
    """The verdicts that apply to `every` finding as it is now reported: the one given for its
    message; an id judged only for another message is judged again."""
    out = dict(judged)
    by_id = {}
    for (fid, message), verdict in messages.items():
        by_id.setdefault(fid, {})[message] = verdict
    for f in every:
        said = by_id.get(f["id"])
        if said is None:
            continue
        if f["message"] in said:
            out[f["id"]] = said[f["message"]]
        elif out.get(f["id"]) in ("tp", "fp"):
            del out[f["id"]]
    return out


PER_RULE = 12


def sample_order(fid, seed=1):
    """Where a finding falls in its rule's sample: a seeded hash of its id, so that a finding
    two runs share keeps its place and its judgement counts in both."""
    return hashlib.sha256(f"{seed}:{fid}".encode()).hexdigest()


def rule_samples(every, per_rule=PER_RULE):
    """Each rule's sample: its first `per_rule` findings in the seeded order (all of them when
    fewer fired)."""
    by_rule = collections.defaultdict(list)
    for f in every:
        by_rule[f["code"]].append(f)
    return {code: sorted(fs, key=lambda f: sample_order(f["id"]))[:per_rule]
            for code, fs in by_rule.items()}, by_rule


def precision_table(every, judged, per_rule=PER_RULE):
    """Per rule: (code, fired, judged, precision or None, unjudged in its sample); and the
    weighted precision over the rules whose sample is judged."""
    samples, by_rule = rule_samples(every, per_rule)
    rows = []
    weighted = 0.0
    covered = 0
    for code in sorted(by_rule):
        fs = by_rule[code]
        verdicts = [judged.get(f["id"]) for f in samples[code]]
        known = [v for v in verdicts if v in ("tp", "fp")]
        precision = known.count("tp") / len(known) if known else None
        rows.append((code, len(fs), len(known), precision, len(verdicts) - len(known)))
        if known:
            # Each rule's sample precision weighted by how often the rule fires, so that a
            # rule judged from a small sample counts as much as it fires.
            weighted += len(fs) * precision
            covered += len(fs)
    return rows, (weighted / covered if covered else None), covered


def pct(value):
    return "–" if value is None else f"{100 * value:.0f} %"


def run(args):
    judged, messages = judgements_with_messages()
    total_skills = 0
    every = []
    twice = []
    peer = collections.Counter()
    per_collection = []
    for c in collections_list(args.half):
        if not (WORK / c.name / ".realworld-commit").exists():
            sys.exit(f"{c.name} is not fetched: run `{sys.argv[0]} fetch` first")
        skills, findings, again = our_findings(args.skillpkg, c)
        total_skills += skills
        every += findings
        twice += again
        per_collection.append((c.name, skills, len(findings)))
        if args.peer:
            peer += peer_findings(c)
    if args.save:
        Path(args.save).write_text(json.dumps({"skills": total_skills, "half": args.half,
                                               "findings": every, "twice": twice}, indent=1))
    print(f"half {args.half}: {total_skills} skills, {len(every)} findings, "
          f"{len(every) / max(total_skills, 1):.2f} per skill")
    if args.collections:
        for name, skills, n in per_collection:
            print(f"  {name:<18} {skills:>5} skills {n:>5} findings")
    rows, weighted, covered = precision_table(every, current(every, judged, messages))
    print(f"{'rule':<8} {'fired':>6} {'judged':>7} {'precision':>9} {'to judge':>8}")
    for code, fired, n, precision, unjudged in rows:
        print(f"{code:<8} {fired:>6} {n:>7} {pct(precision):>9} {unjudged or '':>8}")
    if weighted is not None:
        print(f"precision {pct(weighted)} (each rule's sample weighted by how often it fires; "
              f"{covered} of {len(every)} findings are of judged rules; each rule's sample is "
              f"its first {PER_RULE} findings in a seeded order)")
    print(f"findings reported twice: {len(twice)}")
    for fid in twice[:20]:
        print(f"  {fid}")
    # A judged true positive is kept when it is still reported: as it was, in the same file by
    # the same rule (a rule now reporting once per file), or where a `moved` line says.
    ids = {f["id"] for f in every}
    file_rules = {(f["file"], f["code"]) for f in every}
    names = {c.name for c in collections_list(args.half)}

    def kept(fid):
        if fid in ids:
            return True
        moved = judged.get(fid)
        if isinstance(moved, tuple):
            return kept(moved[1])
        file, _, _, code = fid.rsplit(":", 3)
        return (file, code) in file_rules

    lost = [fid for fid, v in judged.items()
            if v == "tp" and fid.split("/", 1)[0] in names and not kept(fid)]
    if lost:
        print(f"{len(lost)} judged true positives no longer reported:")
        for fid in sorted(lost):
            print(f"  {fid}")
    if args.peer:
        n = peer["error"] + peer["warning"]
        print(f"agnix {AGNIX.split('==')[1]}: {peer['error']} errors, {peer['warning']} warnings, "
              f"{peer['info']} info; errors and warnings per skill "
              f"{n / max(total_skills, 1):.2f}")


def load_run(path, half):
    doc = json.loads(Path(path).read_text())
    names = {c.name for c in collections_list(half)}
    findings = [f for f in doc["findings"] if f["id"].split("/", 1)[0] in names]
    return doc["skills"], findings, doc.get("twice", [])


def compare(args):
    judged, messages = judgements_with_messages()
    before_skills, before, before_twice = load_run(args.before, args.half)
    after_skills, after, after_twice = load_run(args.after, args.half)
    b_rows, b_weighted, _ = precision_table(before, current(before, judged, messages))
    a_rows, a_weighted, _ = precision_table(after, current(after, judged, messages))
    b = {r[0]: r for r in b_rows}
    a = {r[0]: r for r in a_rows}
    print(f"| rule | fired before | precision before (judged) | fired after | precision after (judged) |")
    print("|---|---|---|---|---|")
    for code in sorted(set(a) | set(b)):
        rb = b.get(code, (code, 0, 0, None, 0))
        ra = a.get(code, (code, 0, 0, None, 0))
        print(f"| {code} | {rb[1]} | {pct(rb[3])} ({rb[2]}) | {ra[1]} | {pct(ra[3])} ({ra[2]}) |")
    print(f"| all | {len(before)} ({len(before) / max(before_skills, 1):.2f} per skill) | {pct(b_weighted)} "
          f"| {len(after)} ({len(after) / max(after_skills, 1):.2f} per skill) | {pct(a_weighted)} |")
    print(f"skills: {before_skills} before, {after_skills} after; reported twice: "
          f"{len(before_twice)} before, {len(after_twice)} after")


def sample(args):
    """The findings of each rule's sample (or of `--rule`) that are not judged yet."""
    judged, messages = judgements_with_messages()
    _, every, _ = load_run(args.findings, args.half)
    judged = current(every, judged, messages)
    samples, _ = rule_samples(every, args.count)
    for code in sorted(samples):
        if args.rule and code != args.rule:
            continue
        for f in samples[code]:
            if f["id"] in judged:
                continue
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
    p = sub.add_parser("split")
    p.add_argument("--seed", type=int, default=SPLIT_SEED)
    p.set_defaults(func=split)
    p = sub.add_parser("run")
    p.add_argument("--half", choices=HALVES, default="dev")
    p.add_argument("--skillpkg", default=str(ROOT / "target" / "release" / "skillpkg"))
    p.add_argument("--peer", action="store_true", help="run agnix on the same checkouts")
    p.add_argument("--save", help="write every finding as JSON (for `compare` and `sample`)")
    p.add_argument("--collections", action="store_true", help="also print each collection's counts")
    p.set_defaults(func=run)
    p = sub.add_parser("compare")
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--half", choices=HALVES, default="dev")
    p.set_defaults(func=compare)
    p = sub.add_parser("sample")
    p.add_argument("--findings", default=str(WORK / "findings.json"))
    p.add_argument("--half", choices=HALVES, default="dev")
    p.add_argument("--rule", help="only this rule's sample (default: every rule's)")
    p.add_argument("--count", type=int, default=PER_RULE)
    p.set_defaults(func=sample)
    args = parser.parse_args()
    if hasattr(args, "skillpkg"):
        args.skillpkg = os.path.abspath(args.skillpkg)
    args.func(args)


if __name__ == "__main__":
    main()
