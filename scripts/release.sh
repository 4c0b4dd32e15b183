#!/usr/bin/env bash
# Packs what a self-hoster installs: one archive, crossmate-VERSION-linux-ARCH.tar.gz, holding
#   crossmate            the server and CLI, stripped, with the Swift runtime and Foundation linked
#                        in (--static-swift-stdlib) and SQLite too, and the web app's files
#                        appended to it (AppFiles reads them back): it needs no toolchain, no
#                        resource folder and no checkout, only the C library
#   crossmate.service, crossmate@.service, crossmate-backup.service, crossmate-backup.timer,
#   Caddyfile            from deploy/, as the README's "Hosting Crossmate" installs them
#   INSTALL.md           the steps, short
# Usage: scripts/release.sh [OUTPUT_DIRECTORY]   (default .artifacts/release; prints the archive's path)
# SWIFT_SCRATCH=DIR builds in DIR instead of .build (a release build is slow: keep it apart).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mkdir -p "${1:-.artifacts/release}" && cd "${1:-.artifacts/release}" && pwd)"
version="$(sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/CrossmateProtocol/Release.swift)"
[ -n "$version" ] || { echo "release.sh: no version in Sources/CrossmateProtocol/Release.swift" >&2; exit 1; }
name="crossmate-$version-linux-$(uname -m)"

# SQLite linked in as well: Debian's libsqlite3-dev has the static library.
if [ ! -e /usr/lib/"$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"/libsqlite3.a ] && command -v apt-get >/dev/null \
    && [ "$(id -u)" = 0 ]; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev >/dev/null
fi
build=(swift build -c release --product crossmate --static-swift-stdlib
    -Xlinker --push-state -Xlinker -Bstatic -Xlinker -lsqlite3 -Xlinker --pop-state -Xlinker --as-needed)
[ -n "${SWIFT_SCRATCH:-}" ] && build+=(--scratch-path "$SWIFT_SCRATCH")
"${build[@]}"
binary="$("${build[@]}" --show-bin-path)/crossmate"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name" "$stage/files/web"
install -m 0755 "$binary" "$stage/$name/crossmate"
strip "$stage/$name/crossmate"

# The web app, appended: a ustar archive of web/* and the commit, then its length in 20 digits
# and the marker AppFiles looks for at the file's end.
cp Sources/CrossmateServer/Web/* "$stage/files/web/"
git rev-parse HEAD 2>/dev/null > "$stage/files/commit" || echo unknown > "$stage/files/commit"
tar --format=ustar --owner=0 --group=0 --numeric-owner -cf "$stage/files.tar" -C "$stage/files" commit web
cat "$stage/files.tar" >> "$stage/$name/crossmate"
printf '%020dCROSSMATE-FILES1' "$(stat -c %s "$stage/files.tar")" >> "$stage/$name/crossmate"

cp deploy/crossmate.service deploy/crossmate@.service deploy/crossmate-backup.service deploy/crossmate-backup.timer deploy/Caddyfile \
    deploy/INSTALL.md "$stage/$name/"
tar -czf "$out/$name.tar.gz" -C "$stage" --owner=0 --group=0 --numeric-owner "$name"
echo "$out/$name.tar.gz"
