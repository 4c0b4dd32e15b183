#!/usr/bin/env bash
# Packs what a self-hoster installs: one archive, crossmate-VERSION-linux-ARCH.tar.gz, holding
#   crossmate            the server and CLI, stripped, with the Swift runtime, Foundation and ICU
#                        linked in (--static-swift-stdlib) and the web app's files appended to it
#                        (AppFiles reads them back): it needs no toolchain, no resource folder and
#                        no checkout; only the C and C++ libraries, zlib, SQLite and libxml2,
#                        which every Debian and Ubuntu has (libsqlite3-0, libxml2)
#   crossmate.service, crossmate@.service, crossmate-backup.service, crossmate-backup.timer,
#   Caddyfile            from deploy/, as the README's "Hosting Crossmate" installs them
#   INSTALL.md           the steps, short
# Usage: scripts/release.sh [OUTPUT_DIRECTORY]   (default .artifacts/release; prints the archive's path)
# SWIFT_SCRATCH=DIR builds in DIR instead of .build. CROSSMATE_BUILD_CONFIGURATION=debug packs the
# debug build instead (the test run does: it has the debug build already, and a release build
# takes 10 minutes on a 2-core machine; only the optimisation differs). Keep SWIFT_SCRATCH apart
# from the ordinary build's folder: SwiftPM reuses objects across the two, and the links fail.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mkdir -p "${1:-.artifacts/release}" && cd "${1:-.artifacts/release}" && pwd)"
version="$(sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/CrossmateProtocol/Release.swift)"
[ -n "$version" ] || { echo "release.sh: no version in Sources/CrossmateProtocol/Release.swift" >&2; exit 1; }
name="crossmate-$version-linux-$(uname -m)"

configuration="${CROSSMATE_BUILD_CONFIGURATION:-release}"
build=(swift build -c "$configuration" --product crossmate --static-swift-stdlib)
[ -n "${SWIFT_SCRATCH:-}" ] && build+=(--scratch-path "$SWIFT_SCRATCH")
# The build's progress to standard error: standard output is the archive's path alone.
"${build[@]}" >&2
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
