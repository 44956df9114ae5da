#!/usr/bin/env bash
# Package a built skillpkg binary as a release asset, the way install.sh, the GitHub Action and
# cargo-binstall expect it:
#
#   skillpkg-<tag>-<target>.tar.gz (.zip for Windows targets), holding one folder
#   skillpkg-<tag>-<target>/ with the binary, README.md, CHANGELOG.md and the licences;
#   skillpkg-<tag>-<target>.tar.gz.sha256, in `sha256sum` format (`HASH  NAME`).
#
# Usage: .github/release/package.sh TAG TARGET BINARY OUTDIR
# Prints the archive's path. Used by .github/workflows/release.yml (Linux, macOS and Git Bash on
# Windows) and by .ci/ecosystem, which installs what it makes.
set -euo pipefail

if [ "$#" -ne 4 ]; then
    echo "usage: $0 TAG TARGET BINARY OUTDIR" >&2
    exit 2
fi
tag=$1
target=$2
binary=$3
outdir=$4
root="$(cd "$(dirname "$0")/../.." && pwd)"

case "$tag" in
    v[0-9]*) ;;
    *) echo "package.sh: the tag must look like v1.2.3, not '$tag'" >&2; exit 2 ;;
esac
if [ ! -f "$binary" ]; then
    echo "package.sh: no binary at $binary" >&2
    exit 2
fi

name="skillpkg-$tag-$target"
case "$target" in
    *-windows-*) exe="skillpkg.exe"; archive="$name.zip" ;;
    *) exe="skillpkg"; archive="$name.tar.gz" ;;
esac

mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

mkdir "$stage/$name"
cp "$binary" "$stage/$name/$exe"
chmod 755 "$stage/$name/$exe"
for doc in README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE; do
    if [ -f "$root/$doc" ]; then
        cp "$root/$doc" "$stage/$name/"
    fi
done

rm -f "$outdir/$archive" "$outdir/$archive.sha256"
case "$archive" in
    *.tar.gz)
        # -n: no name or timestamp in the gzip header.
        tar -C "$stage" -cf - "$name" | gzip -n > "$outdir/$archive"
        ;;
    *.zip)
        if command -v zip >/dev/null 2>&1; then
            (cd "$stage" && zip -q -r -X "$outdir/$archive" "$name")
        elif command -v 7z >/dev/null 2>&1; then
            (cd "$stage" && 7z a -tzip -bso0 -bsp0 "$outdir/$archive" "$name")
        else
            echo "package.sh: found neither zip nor 7z" >&2
            exit 1
        fi
        ;;
esac

if command -v sha256sum >/dev/null 2>&1; then
    sum=$(sha256sum "$outdir/$archive" | awk '{print $1}')
else
    sum=$(shasum -a 256 "$outdir/$archive" | awk '{print $1}')
fi
printf '%s  %s\n' "$sum" "$archive" > "$outdir/$archive.sha256"
echo "$outdir/$archive"
