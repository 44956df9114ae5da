#!/usr/bin/env bash
# The GitHub Action's install step (action.yml): put a skillpkg binary in
# $SKILLPKG_INSTALL_DIR and say where.
#
# INPUT_VERSION (default latest):
#   latest, 0.2.0, v0.2.0  a release binary through the repository's install.sh, checksum
#                          verified. When there is none for this version and platform
#                          (install.sh's exit status 3) it is built from source instead:
#                          `latest` from the action's own checkout, a version from its tag.
#                          Any other failure, a checksum mismatch above all, fails the step.
#   source                 built from the action's own checkout with `cargo install --locked`:
#                          exactly the ref the workflow pinned (`uses: OWNER/skillpkg@REF`),
#                          or the workspace for `uses: ./`.
#
# Also read: SKILLPKG_REPO (the action's repository; when empty, taken from the action's path
# under the runner's _actions folder, else GITHUB_REPOSITORY), SKILLPKG_ACTION_PATH (the action's checkout, default
# this repository), SKILLPKG_INSTALL_DIR (default $RUNNER_TEMP/skillpkg/bin),
# SKILLPKG_RELEASE_BASE_URL (passed to install.sh), CARGO (default cargo).
#
# Writes `bin` (the binary's path) and `version` to $GITHUB_OUTPUT and the folder to
# $GITHUB_PATH, when those are set. Runs outside GitHub too; .ci/ecosystem tests it so.
set -euo pipefail

say() { printf 'skillpkg-action: %s\n' "$*" >&2; }
fail() {
    if [ -n "${GITHUB_ACTIONS:-}" ]; then
        printf '::error title=skillpkg install::%s\n' "$1"
    fi
    say "error: $1"
    exit "${2:-1}"
}

# Paths for native programs (cargo) and for the runner: Windows paths under Git Bash.
native_path() {
    if command -v cygpath >/dev/null 2>&1; then cygpath -w "$1"; else printf '%s\n' "$1"; fi
}
posix_path() {
    if command -v cygpath >/dev/null 2>&1; then cygpath -u "$1"; else printf '%s\n' "$1"; fi
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
action_path="$(posix_path "${SKILLPKG_ACTION_PATH:-$(cd "$here/../.." && pwd)}")"
version="$(printf '%s' "${INPUT_VERSION:-}" | tr -d '[:space:]')"
version="${version:-latest}"
repo="${SKILLPKG_REPO:-}"
if [ -z "$repo" ]; then
    # github.action_repository is empty inside composite actions (actions/runner#2525), but the
    # runner keeps a remote action's checkout at .../_actions/OWNER/NAME/REF.
    case "$action_path" in
        */_actions/*/*/*)
            rest="${action_path##*/_actions/}"
            repo="${rest%%/*}"
            rest="${rest#*/}"
            repo="$repo/${rest%%/*}"
            ;;
    esac
fi
# A local action (`uses: ./`) is this repository.
repo="${repo:-${GITHUB_REPOSITORY:-}}"
server="${GITHUB_SERVER_URL:-https://github.com}"
cargo="${CARGO:-cargo}"

if [ -n "${SKILLPKG_INSTALL_DIR:-}" ]; then
    bin_dir="$(posix_path "$SKILLPKG_INSTALL_DIR")"
elif [ -n "${RUNNER_TEMP:-}" ]; then
    bin_dir="$(posix_path "$RUNNER_TEMP")/skillpkg/bin"
else
    fail "set SKILLPKG_INSTALL_DIR (or RUNNER_TEMP) to say where to install skillpkg" 2
fi
# cargo install --root R puts the binary in R/bin.
case "$bin_dir" in
    */bin) cargo_root="${bin_dir%/bin}" ;;
    *) fail "SKILLPKG_INSTALL_DIR must end in /bin (cargo install writes to ROOT/bin)" 2 ;;
esac

exe="skillpkg"
case "$(uname -s)" in
    MINGW* | MSYS* | CYGWIN* | Windows_NT) exe="skillpkg.exe" ;;
esac

build_from_checkout() {
    if [ ! -f "$action_path/Cargo.toml" ]; then
        fail "no Cargo.toml in the action's checkout ($action_path) to build skillpkg from"
    fi
    command -v "$cargo" >/dev/null 2>&1 ||
        fail "building skillpkg from source needs cargo (add dtolnay/rust-toolchain before this step)"
    say "building skillpkg from $action_path with cargo install --locked"
    "$cargo" install --locked --force --bin skillpkg --root "$(native_path "$cargo_root")" \
        --path "$(native_path "$action_path")"
}

build_from_tag() {
    local tag=$1
    [ -n "$repo" ] || fail "no repository to build $tag from (set SKILLPKG_REPO)"
    command -v "$cargo" >/dev/null 2>&1 ||
        fail "building skillpkg from source needs cargo (add dtolnay/rust-toolchain before this step)"
    say "building skillpkg $tag from $server/$repo with cargo install --locked"
    "$cargo" install --locked --force --bin skillpkg --root "$(native_path "$cargo_root")" \
        --git "$server/$repo" --tag "$tag" skillpkg
}

case "$version" in
    source)
        build_from_checkout
        ;;
    latest | v[0-9]* | [0-9]*)
        if [ -z "$repo" ]; then
            if [ "$version" != latest ]; then
                fail "no repository to download skillpkg $version from (set SKILLPKG_REPO)"
            fi
            say "no repository to download a release from; building from the action's checkout"
            build_from_checkout
        else
            status=0
            sh "$action_path/install.sh" --version "$version" --to "$bin_dir" --repo "$repo" || status=$?
            case "$status" in
                0) ;;
                3)
                    # No prebuilt binary for this version and platform: build it.
                    if [ "$version" = latest ]; then
                        build_from_checkout
                    else
                        build_from_tag "v${version#v}"
                    fi
                    ;;
                2) fail "'$version' is not a version skillpkg's installer accepts (latest, 0.2.0, v0.2.0 or source)" 2 ;;
                *) fail "installing skillpkg $version failed (see above); not falling back to a source build" ;;
            esac
        fi
        ;;
    *)
        fail "version must be latest, a release such as 0.2.0, or source; got '$version'" 2
        ;;
esac

bin="$bin_dir/$exe"
[ -x "$bin" ] || fail "no skillpkg at $bin after installing"
reported="$("$bin" --version)" || fail "$bin does not run"
say "using $reported at $bin"

if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "bin=$bin"
        echo "version=${reported#skillpkg }"
    } >> "$GITHUB_OUTPUT"
fi
if [ -n "${GITHUB_PATH:-}" ]; then
    native_path "$bin_dir" >> "$GITHUB_PATH"
fi
