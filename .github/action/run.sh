#!/usr/bin/env bash
# The GitHub Action's check step (action.yml): `skillpkg <command> --format github` for
# annotations on the pull request, then, when SARIF is on, the same check again with
# `--format sarif` into a file for github/codeql-action/upload-sarif. The step's exit status is
# the check's (0 clean, 1 problems found, 2 usage or I/O error), decided only after the SARIF
# file is written, so a failing check still leaves its SARIF to upload.
#
# Inputs, as environment variables:
#   INPUT_COMMAND   lint (default) or validate
#   INPUT_PATHS     the paths to check (default .): one per line, or separated by spaces when
#                   on one line
#   INPUT_TARGETS   targets, separated by commas, spaces or lines; each becomes --target
#   INPUT_SARIF     true (default) or false
#   INPUT_ARGS      more arguments, split on whitespace (no quoting), placed before the paths
#   SKILLPKG_BIN    the binary (default: skillpkg on PATH)
#   SKILLPKG_SARIF_FILE  where to write SARIF (default: a new file under $RUNNER_TEMP or $TMPDIR)
#
# Writes `sarif-file` (only when a SARIF file was written) and `exit-code` to $GITHUB_OUTPUT
# and a one-line summary to $GITHUB_STEP_SUMMARY, when those are set. Runs outside GitHub too;
# .ci/ecosystem tests it so.
set -uo pipefail

say() { printf 'skillpkg-action: %s\n' "$*" >&2; }
usage_error() {
    if [ -n "${GITHUB_ACTIONS:-}" ]; then
        printf '::error title=skillpkg::%s\n' "$1"
    fi
    say "error: $1"
    exit 2
}

bin="${SKILLPKG_BIN:-skillpkg}"
command="$(printf '%s' "${INPUT_COMMAND:-lint}" | tr -d '[:space:]')"
case "$command" in
    lint | validate) ;;
    "") command=lint ;;
    *) usage_error "command must be lint or validate, not '$command'" ;;
esac

sarif="$(printf '%s' "${INPUT_SARIF:-true}" | tr -d '[:space:]' | tr '[:upper:]' '[:lower:]')"
case "$sarif" in
    true | "") sarif=true ;;
    false) ;;
    *) usage_error "sarif must be true or false, not '$sarif'" ;;
esac

# Paths: one per line when the input has several lines (so a path may hold spaces), else
# separated by blanks. Carriage returns from a Windows checkout are dropped.
paths=()
raw_paths="$(printf '%s' "${INPUT_PATHS:-}" | tr -d '\r')"
if [[ "$raw_paths" == *$'\n'* ]]; then
    while IFS= read -r line; do
        line="${line#"${line%%[![:space:]]*}"}"
        line="${line%"${line##*[![:space:]]}"}"
        [ -n "$line" ] && paths+=("$line")
    done <<< "$raw_paths"
else
    read -r -a paths <<< "$raw_paths"
fi
[ "${#paths[@]}" -gt 0 ] || paths=(.)

args=()
read -r -a targets <<< "$(printf '%s' "${INPUT_TARGETS:-}" | tr ',\r\n' '   ')"
# ${a[@]+"${a[@]}"}: an empty array under `set -u` in bash 3.2 (macOS's /bin/bash).
for target in ${targets[@]+"${targets[@]}"}; do
    args+=(--target "$target")
done
read -r -a extra <<< "$(printf '%s' "${INPUT_ARGS:-}" | tr '\r\n' '  ')"
args+=(${extra[@]+"${extra[@]}"})

if ! command -v "$bin" >/dev/null 2>&1 && [ ! -x "$bin" ]; then
    usage_error "no skillpkg binary at '$bin' (set SKILLPKG_BIN, or put skillpkg on PATH)"
fi

scratch="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/skillpkg.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# 1. Annotations. stderr (the summary line, and any usage or I/O error) is kept for the step
#    summary and shown after.
say "skillpkg $command --format github ${args[*]:-} -- ${paths[*]}"
"$bin" "$command" --format github ${args[@]+"${args[@]}"} -- "${paths[@]}" 2> "$scratch/stderr"
status=$?
cat "$scratch/stderr" >&2

# 2. SARIF, whatever the first run found. Written beside its destination and renamed, so a run
#    that fails half-way leaves no half-written file.
sarif_file=""
if [ "$sarif" = true ]; then
    if [ -n "${SKILLPKG_SARIF_FILE:-}" ]; then
        sarif_file="$SKILLPKG_SARIF_FILE"
    else
        sarif_file="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/skillpkg-sarif.XXXXXX")/skillpkg.sarif"
    fi
    mkdir -p "$(dirname "$sarif_file")"
    "$bin" "$command" --format sarif ${args[@]+"${args[@]}"} -- "${paths[@]}" > "$sarif_file.tmp" 2> /dev/null
    sarif_status=$?
    if [ -s "$sarif_file.tmp" ] && [ "$sarif_status" -le 1 ]; then
        mv -f "$sarif_file.tmp" "$sarif_file"
        say "SARIF written to $sarif_file"
    else
        rm -f "$sarif_file.tmp"
        say "no SARIF written: skillpkg exited with status $sarif_status"
        sarif_file=""
    fi
    # The two runs check the same files and should agree; if the second failed harder (it
    # could not write, say), that is the step's status.
    if [ "$sarif_status" -gt "$status" ]; then
        status=$sarif_status
    fi
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        [ -n "$sarif_file" ] && echo "sarif-file=$sarif_file"
        echo "exit-code=$status"
    } >> "$GITHUB_OUTPUT"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    summary="$(grep -v '^[[:space:]]*$' "$scratch/stderr" | tail -n 1)"
    printf '**skillpkg %s**: %s\n' "$command" "${summary:-exit status $status}" >> "$GITHUB_STEP_SUMMARY"
fi

case "$status" in
    0) ;;
    1) say "skillpkg $command found problems (exit status 1)" ;;
    *) say "skillpkg $command failed (exit status $status)" ;;
esac
exit "$status"
