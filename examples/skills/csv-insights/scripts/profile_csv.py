#!/usr/bin/env python3
"""Profile a CSV file: row count and, per column, type, empty cells, smallest and largest value.

Prints one JSON object on stdout. Exits with status 2 and a message on stderr when the file
cannot be read. Uses only the Python standard library.
"""

import argparse
import csv
import json
import re
import sys

INTEGER = re.compile(r"^[+-]?\d+$")
DECIMAL = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
BOOLEAN = {"true", "false", "yes", "no", "0", "1"}


def kind(value):
    if INTEGER.match(value):
        return "integer"
    if DECIMAL.match(value):
        return "decimal"
    if DATE.match(value):
        return "date"
    if value.lower() in BOOLEAN:
        return "boolean"
    return "text"


def sort_key(value):
    """Numbers compare as numbers and before text; text compares as text."""
    if DECIMAL.match(value):
        return (0, float(value), "")
    return (1, 0.0, value)


def merge(a, b):
    if a is None or a == b:
        return b
    if {a, b} == {"integer", "decimal"}:
        return "decimal"
    if "text" in (a, b) and ({a, b} & {"integer", "decimal"}):
        return "mixed"
    return "text" if "mixed" not in (a, b) else "mixed"


def profile(path, delimiter, limit):
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            return {"rows": 0, "columns": []}
        columns = [{"name": name, "type": None, "empty": 0, "min": None, "max": None} for name in header]
        rows = 0
        for row in reader:
            if limit and rows >= limit:
                break
            rows += 1
            for column, value in zip(columns, row):
                value = value.strip()
                if not value:
                    column["empty"] += 1
                    continue
                column["type"] = merge(column["type"], kind(value))
                key = sort_key(value)
                if column["min"] is None or key < sort_key(column["min"]):
                    column["min"] = value
                if column["max"] is None or key > sort_key(column["max"]):
                    column["max"] = value
        for column in columns:
            column["type"] = column["type"] or "empty"
        return {"rows": rows, "columns": columns}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="the CSV file to profile")
    parser.add_argument("--delimiter", default=",", help="field delimiter (default: ,)")
    parser.add_argument("--rows", type=int, default=0, help="profile at most this many rows (default: all)")
    args = parser.parse_args()
    try:
        result = profile(args.file, args.delimiter, args.rows)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        print(f"profile_csv.py: cannot read {args.file}: {error}", file=sys.stderr)
        return 2
    try:
        json.dump(result, sys.stdout, indent=2)
        print()
    except BrokenPipeError:
        # The reader stopped early (`| head`); that is not an error.
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
