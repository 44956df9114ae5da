#!/usr/bin/env python3
"""Recall of `similar-descriptions` (SK602) on near-duplicates of real descriptions.

Takes the one-line descriptions of the skills checked out by `realworld.py fetch`, makes a copy
of each that differs in three or four words (an article dropped, a word swapped for a synonym,
"at random" for "randomly", two words exchanged, a word added), and lints every original beside
its copy. Recall is the share of pairs that `lint` reports as similar; the originals reported
as similar to anything but their own copy are listed too. Seeded, so every run is the same.

    benches/realworld/similar.py [--skillpkg target/release/skillpkg] [--count 300] [--seed 1]

With `--corpus DIR` (the synthetic corpus `cargo bench --bench validate` generates, with its
`DIR.manifest.tsv`) it reports instead SK602's findings on the corpus's valid skills, and how
many of them pair skills of different tasks (another verb or noun in "Use when the user asks to
VERB NOUN"): the false reports that weighting rare words must prevent.
"""

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKOUTS = ROOT / "target" / "realworld"
WORK = CHECKOUTS / "similar"

SYNONYMS = {
    "use": "apply", "uses": "applies", "create": "build", "creates": "builds",
    "helps": "assists", "help": "assist", "files": "documents", "file": "document",
    "quickly": "fast", "check": "verify", "checks": "verifies", "shows": "displays",
    "show": "display", "make": "produce", "makes": "produces", "find": "locate",
    "finds": "locates", "fix": "repair", "fixes": "repairs", "run": "execute",
    "runs": "executes", "large": "big", "small": "little", "write": "author",
    "writes": "authors", "get": "fetch", "gets": "fetches", "user": "person",
    "task": "job", "tasks": "jobs", "code": "source", "project": "repository",
    "guide": "manual", "tool": "utility", "tools": "utilities",
}
DROPPABLE = {"the", "a", "an", "all", "any", "their", "its", "your"}
ADDABLE = ["also", "all", "the", "any", "existing", "new"]


def descriptions():
    """(collection/skill, description) of every skill with a one-line description."""
    out = []
    for skill_md in sorted(CHECKOUTS.glob("*/**/SKILL.md")):
        if WORK in skill_md.parents or "venv" in skill_md.parts:
            continue
        try:
            text = skill_md.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        match = re.search(r"^description:[ \t]*(.+)$", text, re.M)
        if not match or not text.startswith("---"):
            continue
        value = match.group(1).strip()
        if value[:1] in "\"'":
            value = value[1:-1] if value[-1:] == value[:1] else ""
        if value[:1] in "|>" or len(value.split()) < 12 or len(value) > 1000:
            continue
        out.append((str(skill_md.parent.relative_to(CHECKOUTS)), value))
    return out


def edit(text, rng, edits):
    """`text` with `edits` word edits, each of a kind a writer makes."""
    words = text.split(" ")
    done = 0
    tries = 0
    while done < edits and tries < 200:
        tries += 1
        kind = rng.choice(["drop", "synonym", "adverb", "swap", "add"])
        i = rng.randrange(len(words))
        bare = words[i].strip(".,;:()").lower()
        if kind == "drop" and bare in DROPPABLE and len(words) > 8:
            del words[i]
        elif kind == "synonym" and bare in SYNONYMS:
            words[i] = words[i].lower().replace(bare, SYNONYMS[bare])
        elif kind == "adverb" and i + 1 < len(words) and words[i].lower() == "at" and words[i + 1].strip(".,").lower() == "random":
            words[i : i + 2] = ["randomly" + words[i + 1][len("random"):]]
            done += 1  # two words become one
        elif kind == "swap" and i + 1 < len(words) and words[i] != words[i + 1]:
            words[i], words[i + 1] = words[i + 1], words[i]
            done += 1  # an exchange is two edits
        elif kind == "add":
            words.insert(i, rng.choice(ADDABLE))
        else:
            continue
        done += 1
    return " ".join(words) if done >= edits else None


def folder(path):
    """The skill folder's name, from a path to it or to its SKILL.md."""
    path = Path(path)
    return path.parent.name if path.name == "SKILL.md" else path.name


def write(folder, name, description):
    folder.mkdir(parents=True)
    quoted = json.dumps(description, ensure_ascii=False)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {quoted}\n---\n\n# {name}\n\nSteps.\n", encoding="utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skillpkg", default=str(ROOT / "target" / "release" / "skillpkg"))
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corpus", help="a generated corpus folder, to count false reports on")
    args = parser.parse_args()
    if args.corpus:
        return corpus(args.skillpkg, Path(args.corpus))
    found = descriptions()
    if not found:
        sys.exit("no checkouts: run benches/realworld/realworld.py fetch first")
    rng = random.Random(args.seed)
    rng.shuffle(found)
    # Each description once: collections copy skills between them.
    seen, pairs = set(), []
    for where, text in found:
        if text in seen:
            continue
        seen.add(text)
        copy = edit(text, rng, rng.choice([3, 4]))
        if copy and copy != text:
            pairs.append((where, text, copy))
        if len(pairs) == args.count:
            break
    shutil.rmtree(WORK, ignore_errors=True)
    for index, (_, text, copy) in enumerate(pairs):
        write(WORK / f"s{index:04d}-a", f"s{index:04d}-a", text)
        write(WORK / f"s{index:04d}-b", f"s{index:04d}-b", copy)
    run = subprocess.run(
        [args.skillpkg, "lint", "--format", "json", "--select", "SK602", str(WORK)],
        capture_output=True, check=False,
    )
    report = json.loads(run.stdout)
    found_pairs, strays = set(), []
    for skill in report["skills"]:
        me = folder(skill["path"])
        for diagnostic in skill["diagnostics"]:
            other = folder(re.search(r"`([^`]+)`", diagnostic["message"]).group(1))
            if me[:5] == other[:5]:
                found_pairs.add(me[:5])
            else:
                strays.append((me, other, diagnostic["message"].split(" as ")[0]))
    print(f"{args.skillpkg}: {len(found_pairs)} of {len(pairs)} near-duplicate pairs found "
          f"({100 * len(found_pairs) / len(pairs):.1f} %); {len(strays)} findings between different originals")
    missed = [pair for index, pair in enumerate(pairs) if f"s{index:04d}" not in found_pairs]
    for where, text, copy in missed[:5]:
        print(f"  missed ({where}):\n    {text}\n    {copy}")
    for me, other, message in strays[:10]:
        print(f"  stray: {me} ~ {other}: {message}")


def corpus(skillpkg, root):
    """SK602 on the valid skills of a generated corpus, and those between different tasks."""
    manifest = dict(
        line.split("\t") for line in Path(f"{root}.manifest.tsv").read_text().splitlines() if line
    )
    run = subprocess.run(
        [skillpkg, "lint", "--format", "json", "--select", "SK602", str(root)],
        capture_output=True, check=False,
    )

    def task(name):
        text = (root / name / "SKILL.md").read_text(encoding="utf-8")
        found = re.search(r"Use when the user asks to (\w+) (\w+)", text)
        return found.groups() if found else None

    findings = across = 0
    for skill in json.loads(run.stdout)["skills"]:
        me = folder(skill["path"])
        if manifest.get(me) != "valid":
            continue
        for diagnostic in skill["diagnostics"]:
            findings += 1
            other = folder(re.search(r"`([^`]+)`", diagnostic["message"]).group(1))
            if task(me) != task(other):
                across += 1
                print(f"  {me} ~ {other}: {diagnostic['message'].split(' as ')[0]}")
    print(f"{skillpkg}: {findings} SK602 findings on the valid skills of {root}, "
          f"{across} between skills of different tasks")


if __name__ == "__main__":
    main()
