#!/bin/sh
# Install a prebuilt skillpkg from the project's GitHub releases.
#
#   curl -LsSf https://raw.githubusercontent.com/skillpkg/skillpkg/main/install.sh | sh
#   curl -LsSf https://raw.githubusercontent.com/skillpkg/skillpkg/main/install.sh | sh -s -- --version 0.2.0
#   wget -qO- https://raw.githubusercontent.com/skillpkg/skillpkg/main/install.sh | sh
#
# It picks the build for this machine (Linux x86_64/aarch64 as static musl binaries, macOS
# x86_64/arm64, Windows x86_64 under Git Bash, MSYS2 or Cygwin), downloads
# skillpkg-<tag>-<target>.tar.gz (.zip on Windows) and its .sha256, checks the checksum, checks
# that the binary runs, and moves it into place atomically. Nothing else is written.
#
# The checksum comes from the same release as the archive: it catches a corrupt, truncated or
# mixed-up download, not a compromised release. The release's SHA256SUMS lists them all.
#
# Options (each also has an environment variable, which the option overrides):
#   --version VERSION   latest (default), or a release: 0.2.0 or v0.2.0    SKILLPKG_VERSION
#   --to DIR            where to install (default ~/.local/bin)              SKILLPKG_INSTALL_DIR
#   --target TRIPLE     a build other than this machine's (not run)         SKILLPKG_TARGET
#   --repo OWNER/NAME   the repository whose releases to use                SKILLPKG_REPO
#   -q, --quiet         only errors
#   -h, --help
# SKILLPKG_RELEASE_BASE_URL replaces https://github.com/OWNER/NAME/releases (a mirror, or a
# local copy in tests): assets are read from BASE/download/TAG/NAME and the latest release's
# SHA256SUMS from BASE/latest/download/SHA256SUMS, GitHub's layout. http:// and file:// are
# accepted there; the default is https only.
#
# Exit status: 0 installed; 1 error (download, checksum mismatch, a binary that does not run);
# 2 usage error; 3 no prebuilt binary: no such release, no build for this platform, or no
# release at all (build from source instead: cargo install skillpkg --locked). The GitHub
# Action builds from source on 3 and only on 3: a checksum mismatch never falls back.
#
# POSIX sh: dash, busybox ash, bash, zsh. Needs curl or wget, tar (unzip or PowerShell for
# Windows zips), and sha256sum, shasum or openssl.

set -eu

# The repository the releases come from. `skillpkg/skillpkg` is a placeholder until the
# project's GitHub home is settled: change it here and in the URLs above, or set SKILLPKG_REPO.
DEFAULT_REPO="skillpkg/skillpkg"

NAME="skillpkg"
quiet=0

say() {
    if [ "$quiet" -eq 0 ]; then
        printf 'skillpkg-install: %s\n' "$*" >&2
    fi
}

# err MESSAGE [STATUS]: print and exit (1 unless given).
err() {
    printf 'skillpkg-install: error: %s\n' "$1" >&2
    exit "${2:-1}"
}

# No prebuilt binary: exit 3 so that callers can build from source instead.
no_binary() {
    printf 'skillpkg-install: %s\n' "$1" >&2
    printf 'skillpkg-install: build from source instead: cargo install %s --locked\n' "$NAME" >&2
    exit 3
}

usage() {
    cat <<EOF
Install a prebuilt skillpkg from GitHub releases.

Usage: install.sh [--version VERSION] [--to DIR] [--target TRIPLE] [--repo OWNER/NAME] [-q]

  --version VERSION   latest (default), or a release such as 0.2.0 or v0.2.0
  --to DIR            install directory (default: \$SKILLPKG_INSTALL_DIR, else ~/.local/bin)
  --target TRIPLE     install the build for another platform (it is not run)
  --repo OWNER/NAME   the GitHub repository to download from (default: $DEFAULT_REPO)
  -q, --quiet         print only errors
  -h, --help          print this help

Exit status: 0 installed, 1 error, 2 usage error, 3 no prebuilt binary for this version or
platform (build from source: cargo install skillpkg --locked).
EOF
}

need_value() {
    if [ "$#" -lt 2 ] || [ -z "$2" ]; then
        err "$1 needs a value (see --help)" 2
    fi
}

has() {
    command -v "$1" >/dev/null 2>&1
}

# The Rust target triple of this machine, among those the release workflow builds.
detect_target() {
    os=$(uname -s)
    arch=$(uname -m)
    case "$os" in
        Linux)
            os_part="unknown-linux-musl"
            ;;
        Darwin)
            os_part="apple-darwin"
            # A shell running under Rosetta 2 reports x86_64 on Apple silicon; the native build
            # is faster.
            if [ "$arch" = "x86_64" ] && [ "$(sysctl -n hw.optional.arm64 2>/dev/null || true)" = "1" ]; then
                arch="arm64"
            fi
            ;;
        MINGW* | MSYS* | CYGWIN* | Windows_NT)
            os_part="pc-windows-msvc"
            # Windows on Arm runs the x86_64 build under emulation.
            arch="x86_64"
            ;;
        *)
            no_binary "no prebuilt $NAME for $os ($arch)"
            ;;
    esac
    case "$arch" in
        x86_64 | amd64 | x64) arch="x86_64" ;;
        aarch64 | arm64 | armv8*) arch="aarch64" ;;
        *) no_binary "no prebuilt $NAME for $os on $arch" ;;
    esac
    echo "$arch-$os_part"
}

# download URL FILE: 0 when FILE holds the resource, 3 when it does not exist (HTTP 404 or 410,
# or a missing file:// file), 1 on any other failure (after curl's or wget's retries).
download() {
    url=$1
    out=$2
    status=0
    if [ "$downloader" = curl ]; then
        # Without --fail, to tell a missing asset (404) from a failing server. file:// answers
        # with code 000. $curl_proto is deliberately split into words.
        # shellcheck disable=SC2086
        code=$(curl $curl_proto --silent --show-error --location --retry 3 --connect-timeout 20 \
            --output "$out" --write-out '%{http_code}' "$url") || status=$?
        if [ "$status" -eq 37 ]; then
            return 3
        elif [ "$status" -ne 0 ]; then
            printf 'skillpkg-install: downloading %s failed (curl exit status %s)\n' "$url" "$status" >&2
            return 1
        fi
    else
        wget --quiet --server-response --tries=3 --timeout=30 --output-document="$out" "$url" \
            2>"$tmp/wget.log" || status=$?
        code=$(sed -n 's/^ *HTTP\/[0-9.]* \([0-9][0-9][0-9]\).*/\1/p' "$tmp/wget.log" | tail -n 1)
        if [ "$status" -ne 0 ] && [ -z "$code" ]; then
            case "$url" in
                file://*) return 3 ;;
            esac
            printf 'skillpkg-install: downloading %s failed (wget exit status %s)\n' "$url" "$status" >&2
            return 1
        fi
        code=${code:-000}
    fi
    case "$code" in
        2?? | 000) return 0 ;;
        404 | 410) return 3 ;;
        *)
            printf 'skillpkg-install: downloading %s failed: HTTP %s\n' "$url" "$code" >&2
            return 1
            ;;
    esac
}

sha256_of() {
    if has sha256sum; then
        sha256sum "$1" | awk '{print $1}'
    elif has shasum; then
        shasum -a 256 "$1" | awk '{print $1}'
    elif has openssl; then
        openssl dgst -sha256 -r "$1" | awk '{print $1}'
    else
        err "found no sha256sum, shasum or openssl to check the download with"
    fi
}

# The first field of the first line, lowercased: a .sha256 file is `HASH  NAME`.
first_hash() {
    awk 'NR == 1 {print tolower($1)}' "$1"
}

extract() {
    archive=$1
    into=$2
    case "$archive" in
        *.tar.gz)
            tar -xzf "$archive" -C "$into"
            ;;
        *.zip)
            if has unzip; then
                unzip -q "$archive" -d "$into"
            elif has powershell.exe || has powershell; then
                ps=powershell
                has powershell.exe && ps=powershell.exe
                src=$archive
                dst=$into
                if has cygpath; then
                    src=$(cygpath -w "$archive")
                    dst=$(cygpath -w "$into")
                fi
                "$ps" -NoProfile -NonInteractive -Command \
                    "Expand-Archive -LiteralPath '$src' -DestinationPath '$dst' -Force"
            else
                err "found neither unzip nor PowerShell to extract $archive"
            fi
            ;;
    esac
}

main() {
    version=${SKILLPKG_VERSION:-latest}
    dir=${SKILLPKG_INSTALL_DIR:-}
    target=${SKILLPKG_TARGET:-}
    repo=${SKILLPKG_REPO:-$DEFAULT_REPO}

    while [ "$#" -gt 0 ]; do
        case "$1" in
            --version) need_value "$@"; version=$2; shift 2 ;;
            --version=*) version=${1#*=}; shift ;;
            --to | --install-dir) need_value "$@"; dir=$2; shift 2 ;;
            --to=* | --install-dir=*) dir=${1#*=}; shift ;;
            --target) need_value "$@"; target=$2; shift 2 ;;
            --target=*) target=${1#*=}; shift ;;
            --repo) need_value "$@"; repo=$2; shift 2 ;;
            --repo=*) repo=${1#*=}; shift ;;
            -q | --quiet) quiet=1; shift ;;
            -h | --help) usage; exit 0 ;;
            *) err "unknown argument '$1' (see --help)" 2 ;;
        esac
    done

    # Only what a tag and a repository name can hold goes into a URL.
    case "$version" in
        latest | "") version=latest ;;
        *[!0-9A-Za-z.+-]* | *..*) err "'$version' is not a version (latest, 0.2.0 or v0.2.0)" 2 ;;
        v[0-9]*.[0-9]*.[0-9]* | [0-9]*.[0-9]*.[0-9]*) ;;
        *) err "'$version' is not a version (latest, 0.2.0 or v0.2.0)" 2 ;;
    esac
    case "$repo" in
        */*/* | /* | */ | *[!0-9A-Za-z._/-]* | *..*) err "'$repo' is not a GitHub repository (OWNER/NAME)" 2 ;;
        */*) ;;
        *) err "'$repo' is not a GitHub repository (OWNER/NAME)" 2 ;;
    esac
    if [ -z "$dir" ]; then
        if [ -z "${HOME:-}" ]; then
            err "HOME is not set: say where to install with --to DIR" 2
        fi
        dir="$HOME/.local/bin"
    fi

    run_check=1
    if [ -z "$target" ]; then
        target=$(detect_target) || exit "$?"
    else
        case "$target" in
            *[!0-9A-Za-z_.-]*) err "'$target' is not a target triple" 2 ;;
        esac
        # A build for another machine cannot be run here.
        run_check=0
    fi
    case "$target" in
        *-windows-*) ext="zip"; exe="$NAME.exe" ;;
        *) ext="tar.gz"; exe="$NAME" ;;
    esac

    if [ -n "${SKILLPKG_RELEASE_BASE_URL:-}" ]; then
        base=${SKILLPKG_RELEASE_BASE_URL%/}
        curl_proto=""
    else
        base="https://github.com/$repo/releases"
        curl_proto="--proto =https --tlsv1.2"
    fi

    if has curl; then
        downloader=curl
    elif has wget; then
        downloader=wget
    else
        err "found neither curl nor wget"
    fi
    case "${SKILLPKG_DOWNLOADER:-}" in
        "") ;;
        curl | wget) downloader=$SKILLPKG_DOWNLOADER ;;
        *) err "SKILLPKG_DOWNLOADER must be curl or wget" 2 ;;
    esac
    tmp=$(mktemp -d 2>/dev/null || mktemp -d -t skillpkg-install)
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    expected_sum=""
    if [ "$version" = latest ]; then
        # GitHub redirects latest/download/NAME to the newest release's asset. The asset names
        # carry the tag, but SHA256SUMS's do not, and it lists every asset with its tag.
        sums="$tmp/SHA256SUMS"
        status=0
        download "$base/latest/download/SHA256SUMS" "$sums" || status=$?
        case "$status" in
            0) ;;
            3) no_binary "$repo has no release with a SHA256SUMS yet" ;;
            *) err "could not find the latest release of $repo" ;;
        esac
        asset=$(awk -v suffix="-$target.$ext" -v prefix="$NAME-v" '
            {
                name = $2
                sub(/^\*/, "", name)
                if (index(name, prefix) == 1 && length(name) > length(suffix) &&
                    substr(name, length(name) - length(suffix) + 1) == suffix) {
                    print name
                    exit
                }
            }' "$sums")
        if [ -z "$asset" ]; then
            no_binary "the latest release of $repo has no build for $target"
        fi
        expected_sum=$(awk -v name="$asset" '{n = $2; sub(/^\*/, "", n); if (n == name) {print tolower($1); exit}}' "$sums")
        tag=${asset#"$NAME-"}
        tag=${tag%"-$target.$ext"}
    else
        tag="v${version#v}"
        asset="$NAME-$tag-$target.$ext"
    fi

    url="$base/download/$tag/$asset"
    say "downloading $asset"
    status=0
    download "$url" "$tmp/$asset" || status=$?
    case "$status" in
        0) ;;
        3) no_binary "$repo has no release $tag with a build for $target ($url)" ;;
        *) err "could not download $url" ;;
    esac
    status=0
    download "$url.sha256" "$tmp/$asset.sha256" || status=$?
    case "$status" in
        0) ;;
        # An archive without its checksum is not installed, and not built from source either:
        # the release is broken.
        3) err "the release has no $asset.sha256: refusing to install an unverified download" ;;
        *) err "could not download $url.sha256" ;;
    esac

    want=$(first_hash "$tmp/$asset.sha256")
    case "$want" in
        *[!0-9a-f]*) want="" ;;
    esac
    if [ "${#want}" -ne 64 ]; then
        err "$asset.sha256 does not hold a SHA-256 checksum"
    fi
    if [ -n "$expected_sum" ] && [ "$expected_sum" != "$want" ]; then
        err "$asset.sha256 and SHA256SUMS disagree: refusing to install"
    fi
    got=$(sha256_of "$tmp/$asset")
    if [ "$got" != "$want" ]; then
        err "checksum mismatch for $asset: expected $want, got $got; nothing was installed"
    fi
    say "checksum verified ($got)"

    mkdir "$tmp/x"
    extract "$tmp/$asset" "$tmp/x"
    src="$tmp/x/$NAME-$tag-$target/$exe"
    if [ ! -f "$src" ]; then
        err "$asset does not hold $NAME-$tag-$target/$exe"
    fi
    chmod 755 "$src"
    if [ "$run_check" -eq 1 ]; then
        if ! reported=$("$src" --version 2>/dev/null); then
            err "the downloaded $exe does not run on this machine ($target)"
        fi
        case "$reported" in
            "$NAME ${tag#v}" | "$NAME ${tag#v} "*) ;;
            *) say "warning: $tag's binary reports '$reported'" ;;
        esac
    fi

    mkdir -p "$dir"
    # Copied beside the destination and renamed, so a running skillpkg is never half-written.
    staged="$dir/.$exe.$$.tmp"
    if ! cp "$src" "$staged" 2>/dev/null; then
        rm -f "$staged"
        err "cannot write to $dir (choose another directory with --to DIR)"
    fi
    chmod 755 "$staged"
    if ! mv -f "$staged" "$dir/$exe"; then
        rm -f "$staged"
        err "cannot replace $dir/$exe"
    fi
    say "installed $NAME $tag ($target) to $dir/$exe"

    case ":${PATH:-}:" in
        *":$dir:"* | *":${dir%/}:"*) ;;
        *) say "note: $dir is not on PATH; add it, for example: export PATH=\"$dir:\$PATH\"" ;;
    esac
}

main "$@"
