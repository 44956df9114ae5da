#!/usr/bin/env python3
"""Inspect files: size, line count, encoding and line endings, as one JSON object.

Usage: inspect_files.py PATH [PATH ...] [--max-files N]

A folder is inspected file by file (hidden files and folders are skipped). The JSON goes to
stdout; problems go to stderr. Exit status: 0 on success, 2 when a path does not exist or
cannot be read. Never asks questions, so it is safe to run unattended. Standard library only.
"""

import argparse
import json
import os
import sys


def describe(path):
    with open(path, "rb") as handle:
        data = handle.read()
    entry = {"path": path, "bytes": len(data)}
    if b"\0" in data[:8192]:
        entry["encoding"] = "binary"
        return entry
    try:
        text = data.decode("utf-8")
        entry["encoding"] = "utf-8 with BOM" if text.startswith("\ufeff") else "utf-8"
    except UnicodeDecodeError as error:
        entry["encoding"] = f"not utf-8 (first bad byte at offset {error.start})"
        text = data.decode("latin-1")
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    kinds = [name for name, count in (("lf", lf), ("crlf", crlf), ("cr", cr)) if count]
    entry["line_endings"] = kinds[0] if len(kinds) == 1 else ("mixed" if kinds else "none")
    entry["lines"] = lf + crlf + cr + (1 if text and not text.endswith(("\n", "\r")) else 0)
    return entry


def files_under(path):
    if not os.path.isdir(path):
        yield path
        return
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith("."):
                yield os.path.join(root, name)


def main():
    parser = argparse.ArgumentParser(
        description="Report size, line count, encoding and line endings of files, as JSON."
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a file or a folder")
    parser.add_argument(
        "--max-files", type=int, default=1000, help="stop after this many files (default: 1000)"
    )
    args = parser.parse_args()

    files, truncated = [], False
    for path in args.paths:
        if not os.path.exists(path):
            print(f"inspect_files.py: {path}: no such file or folder", file=sys.stderr)
            return 2
        for name in files_under(path):
            if len(files) == args.max_files:
                truncated = True
                break
            try:
                files.append(describe(name))
            except OSError as error:
                print(f"inspect_files.py: {name}: {error.strerror}", file=sys.stderr)
                return 2
    result = {
        "files": files,
        "total_bytes": sum(entry["bytes"] for entry in files),
        "truncated": truncated,
    }
    try:
        json.dump(result, sys.stdout, indent=2)
        print()
    except BrokenPipeError:
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
