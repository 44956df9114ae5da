#!/usr/bin/env python3
"""Record progress through a multi-step workflow, so it can resume where it stopped.

Usage:
  checkpoint.py start STEP [STEP ...]   begin a run with these steps, in order
  checkpoint.py done STEP [--note TEXT] mark STEP complete (every earlier step must be)
  checkpoint.py status                  show the steps, what is done and what is next
  checkpoint.py finish                  end a run whose steps are all done

Progress is kept in a JSON file (--state, default .workflow-progress.json in the current
folder) and every command prints the current state as JSON on stdout. Errors go to stderr with
exit status 1 (the request breaks the workflow's order) or 2 (bad usage, unreadable state).
Never asks questions, so it is safe to run unattended. Standard library only.
"""

import argparse
import json
import os
import sys
import tempfile


class Refused(Exception):
    """The request is valid but would break the workflow's order."""


def load(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return None


def save(path, state):
    # Write a temporary file and rename it, so an interrupted write never corrupts the state.
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".checkpoint-", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(state, handle, indent=2)
        handle.write("\n")
    os.replace(temp, path)


def summary(state):
    done = [step for step in state["steps"] if step["done"]]
    pending = [step["name"] for step in state["steps"] if not step["done"]]
    return {
        "steps": state["steps"],
        "completed": len(done),
        "total": len(state["steps"]),
        "next": pending[0] if pending else None,
    }


def run(args):
    state = load(args.state)
    if args.command == "start":
        if state is not None and not args.restart:
            raise Refused(f"a run is already in progress in {args.state}; "
                          "continue it, or pass --restart to begin again")
        if len(set(args.steps)) != len(args.steps):
            raise ValueError("step names must be unique")
        state = {"steps": [{"name": name, "done": False, "note": None} for name in args.steps]}
        save(args.state, state)
        return summary(state)
    if state is None:
        raise Refused(f"no run in progress ({args.state} does not exist); use start first")
    if args.command == "done":
        names = [step["name"] for step in state["steps"]]
        if args.step not in names:
            raise Refused(f"unknown step {args.step!r}; the steps are: {', '.join(names)}")
        for step in state["steps"]:
            if step["name"] == args.step:
                step["done"], step["note"] = True, args.note
                break
            if not step["done"]:
                raise Refused(f"step {step['name']!r} comes before {args.step!r} and is not done")
        save(args.state, state)
    elif args.command == "finish":
        pending = [step["name"] for step in state["steps"] if not step["done"]]
        if pending:
            raise Refused(f"steps not done yet: {', '.join(pending)}")
        os.remove(args.state)
    return summary(state)


def main():
    parser = argparse.ArgumentParser(
        description="Record progress through a multi-step workflow, so it can resume."
    )
    parser.add_argument(
        "--state", default=".workflow-progress.json",
        help="the progress file (default: .workflow-progress.json)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    start = commands.add_parser("start", help="begin a run with these steps, in order")
    start.add_argument("steps", nargs="+", metavar="STEP")
    start.add_argument("--restart", action="store_true", help="discard a run in progress")
    done = commands.add_parser("done", help="mark a step complete")
    done.add_argument("step", metavar="STEP")
    done.add_argument("--note", help="what the step produced or decided")
    commands.add_parser("status", help="show the steps and what is next")
    commands.add_parser("finish", help="end a run whose steps are all done")
    args = parser.parse_args()
    try:
        result = run(args)
    except Refused as error:
        print(f"checkpoint.py: {error}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print(f"checkpoint.py: {error}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
