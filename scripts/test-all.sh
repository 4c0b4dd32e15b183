#!/usr/bin/env bash
# The whole test suite, from a fresh clone: the format lint, the Swift tests (warnings are
# errors; a throwaway PostgreSQL for the store suite and the two-instance tests), the puzpy
# oracle for .puz files, the http-ece and py-vapid oracle for Web Push, the web app in Chromium,
# two instances behind Caddy with TLS, and a short fuzzing run of the .puz, .ipuz and .jpz readers and the
# socket push reader; the release archive under its unit's confinement. Installs what it needs.
# Usage: scripts/test-all.sh   (FUZZ_SECONDS=N to fuzz each target longer; default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
passed=0

# The terminal client's tests drive a real `crossmate play` in tmux; the web app's tests drive
# Debian's Chromium through its chromium-driver.
missing=()
command -v tmux >/dev/null || missing+=(tmux)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
# The hosting test puts two instances behind Debian's Caddy, with TLS.
command -v caddy >/dev/null || missing+=(caddy)
command -v systemd-analyze >/dev/null || missing+=(systemd)
# The release archive runs under its unit's system-call filter (Debian's libseccomp binding).
/usr/bin/python3 -c "import seccomp" 2>/dev/null || missing+=(python3-seccomp)
# Chat and reactions hold emoji: the screenshots should show them, not empty boxes.
fc-list 2>/dev/null | grep -qi "color emoji" || missing+=(fonts-noto-color-emoji)
if [ "${#missing[@]}" -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "== installing ${missing[*]}"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# One stage of the run: `stage TITLE COUNT SECONDS COMMAND...` runs COMMAND (an executable or
# a function of this script) within SECONDS, its output shown and kept, and counts what passed:
#   N         a number: the stage is N checks that pass together when COMMAND exits 0
#   swift     swift-testing's "Test run with N tests ... passed"
#   unittest  Python unittest's "Ran N tests" and "OK"
#   last      the number COMMAND's last line starts with (the oracles print how many checks
#             passed; some may pass when others fail)
# A stage fails when COMMAND fails or does not say it passed.
stages=0
stage() {
    local title="$1" count="$2" seconds="$3"
    shift 3
    stages=$((stages + 1))
    local log="$work/stage-$stages.log" status=0 checks=0
    echo "== $title"
    timeout -k 30 "$seconds" bash -c '"$@"' stage "$@" 2>&1 | tee "$log" || status=1
    case "$count" in
        [0-9]*) checks="$count" ;;
        swift) grep -q 'Test run with .* passed' "$log" && checks=$(grep -o 'Test run with [0-9]* tests\?' "$log" | grep -o '[0-9]*' | tail -1) || status=1 ;;
        unittest) grep -q '^OK' "$log" && checks=$(grep -o '^Ran [0-9]* tests\?' "$log" | grep -o '[0-9]*' | tail -1) || status=1 ;;
        last) checks=$(tail -1 "$log" | grep -o '^[0-9]*' || true) ;;
    esac
    if [ "$status" = 0 ] || [ "$count" = last ]; then passed=$((passed + ${checks:-0})); fi
    if [ "$status" != 0 ]; then
        failed=$((failed + 1))
        echo "== FAILED: $title"
    fi
}

bin="$(swift build --show-bin-path)"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check \
    puzpy http-ece py-vapid cryptography selenium axe-selenium-python zxing-cpp pillow

# The systemd units verify (and score as well hardened) with this build's path; the Caddyfile
# validates.
check_units() {
    local units
    units="$(mktemp -d)"
    for unit in crossmate.service crossmate-backup.service crossmate-backup.timer crossmate@.service; do
        sed "s|/usr/local/bin/crossmate|$bin/crossmate|g" "deploy/$unit" > "$units/$unit"
    done
    mv "$units/crossmate@.service" "$units/crossmate@8081.service"
    systemd-analyze verify "$units/crossmate.service" "$units/crossmate-backup.service" "$units/crossmate-backup.timer" \
        && systemd-analyze security --offline=true --threshold=20 "$units/crossmate.service" | tail -1 \
        && systemd-analyze security --offline=true --threshold=20 "$units/crossmate@8081.service" | tail -1 \
        && systemd-analyze security --offline=true --threshold=20 "$units/crossmate-backup.service" | tail -1 \
        && caddy validate --config deploy/Caddyfile --adapter caddyfile >/dev/null 2>&1
    local status=$?
    rm -rf "$units"
    return $status
}

# The release archive, unpacked into a clean directory with the toolchain and checkout hidden,
# run under crossmate.service's confinement. A debug build is packed (a release build takes 10
# minutes here; only the optimisation differs), in a build folder of its own: SwiftPM reuses
# objects compiled for the static runtime in a later ordinary build of the same folder, whose
# link then fails.
check_release() {
    local archive
    archive="$(CROSSMATE_BUILD_CONFIGURATION=debug SWIFT_SCRATCH=.build/static scripts/release.sh "$work/release" | tail -1)" \
        && /usr/bin/python3 Tests/deploy/test_release.py "$archive" "$work/release-test" --largest-mb 180
}
export -f check_units check_release
export work bin
# Where the oracles write what they saw.
mkdir -p "$work/webpush" "$work/push-hostile"

stage "swift format lint --strict (the layout .swift-format describes)" 1 600 \
    swift format lint --strict -r Sources Tests Fuzz Package.swift
swift build --build-tests
# A test that hangs fails the run with its output instead of running into CI's limit.
stage "swift test (the store suite and two-instance tests also on a throwaway PostgreSQL)" swift "${SWIFT_TEST_SECONDS:-1800}" \
    scripts/with-postgres.sh swift test
stage "PostgreSQL restarted under two instances and six typists (alone: it restarts the cluster)" swift 600 \
    env CROSSMATE_TEST_POSTGRES_RESTART=1 scripts/with-postgres.sh swift test --skip-build --filter PostgresRestartTests
stage "puzpy oracle (.puz files checked by an independent implementation)" last 600 \
    "$work/venv/bin/python" Tests/oracle/puzpy_oracle.py "$bin/crossmate" Tests/CrossmateFormatsTests/Fixtures "$work/oracle"
stage "Web Push (pushes to a local endpoint, checked by http-ece and py-vapid)" last 300 \
    "$work/venv/bin/python" Tests/oracle/webpush_oracle.py "$bin/crossmate" "$work/webpush"
stage "Web Push against hostile endpoints (tarpit, drip, refused, one URL for six devices, loopback in every spelling, revocation mid-request)" last 300 \
    "$work/venv/bin/python" Tests/oracle/push_hostile.py "$bin/crossmate" "$work/push-hostile"
rm -rf .artifacts/web
stage "the web app in Chromium (Selenium; screenshots and web-bench.json in .artifacts/web)" unittest 900 \
    "$work/venv/bin/python" Tests/browser/test_web.py "$bin/crossmate" .artifacts/web
stage "hosted: two PostgreSQL instances behind Caddy with TLS, two browsers and two terminals, one instance killed" unittest 600 \
    scripts/with-postgres.sh "$work/venv/bin/python" Tests/deploy/test_deploy.py "$bin/crossmate" .artifacts/deploy
stage "deploy/: the systemd units verify (and score as well hardened), the Caddyfile validates" 1 300 check_units
stage "the release archive: unpacked into a clean directory, toolchain and checkout hidden, under crossmate.service's confinement" last 600 \
    check_release
stage "fuzzing the .puz, .ipuz and .jpz readers and the socket push reader (four targets)" 4 1200 scripts/fuzz.sh "${FUZZ_SECONDS:-30}"

echo "== summary: format lint, swift tests, puzpy and Web Push oracle checks, browser tests and fuzz targets"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
