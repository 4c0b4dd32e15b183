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

echo "== swift format lint --strict (the layout .swift-format describes)"
if swift format lint --strict -r Sources Tests Fuzz Package.swift; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "== swift test (the store suite and two-instance tests also on a throwaway PostgreSQL)"
swift build --build-tests
# A test that hangs fails the run with its output instead of running into CI's limit.
if timeout -k 60 "${SWIFT_TEST_SECONDS:-1800}" scripts/with-postgres.sh swift test 2>&1 | tee "$work/swift-test.log"; then :; else failed=$((failed + 1)); fi
tests=$(grep -o 'Test run with [0-9]* tests' "$work/swift-test.log" | grep -o '[0-9]*' | tail -1 || true)
if grep -q 'Test run with .* passed' "$work/swift-test.log"; then passed=$((passed + ${tests:-0})); fi

echo "== PostgreSQL restarted under two instances and six typists (alone: it restarts the cluster)"
if CROSSMATE_TEST_POSTGRES_RESTART=1 timeout -k 30 600 scripts/with-postgres.sh swift test --skip-build --filter PostgresRestartTests \
    2>&1 | tee "$work/pg-restart.log" && grep -q 'Test run with 1 test.* passed' "$work/pg-restart.log"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "== puzpy oracle (.puz files checked by an independent implementation)"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check puzpy
if "$work/venv/bin/python" Tests/oracle/puzpy_oracle.py "$(swift build --show-bin-path)/crossmate" \
    Tests/CrossmateFormatsTests/Fixtures "$work/oracle" | tee "$work/oracle.log"; then :; else failed=$((failed + 1)); fi
oracle=$(tail -1 "$work/oracle.log" | grep -o '^[0-9]*' || echo 0)
passed=$((passed + oracle))

echo "== Web Push (pushes to a local endpoint, checked by http-ece and py-vapid)"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check http-ece py-vapid cryptography
mkdir -p "$work/webpush"
if timeout -k 10 300 "$work/venv/bin/python" Tests/oracle/webpush_oracle.py "$(swift build --show-bin-path)/crossmate" "$work/webpush" \
    | tee "$work/webpush.log"; then :; else failed=$((failed + 1)); fi
webpush=$(tail -1 "$work/webpush.log" | grep -o '^[0-9]*' || echo 0)
passed=$((passed + webpush))

echo "== Web Push against hostile endpoints (tarpit, drip, refused, one URL for six devices, loopback in every spelling, revocation mid-request)"
mkdir -p "$work/push-hostile"
if timeout -k 10 300 "$work/venv/bin/python" Tests/oracle/push_hostile.py "$(swift build --show-bin-path)/crossmate" "$work/push-hostile" \
    | tee "$work/push-hostile.log"; then :; else failed=$((failed + 1)); fi
hostile=$(tail -1 "$work/push-hostile.log" | grep -o '^[0-9]*' || echo 0)
passed=$((passed + hostile))

echo "== the web app in Chromium (Selenium; screenshots and web-bench.json in .artifacts/web)"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check selenium axe-selenium-python zxing-cpp pillow
rm -rf .artifacts/web
if timeout -k 30 900 "$work/venv/bin/python" Tests/browser/test_web.py "$(swift build --show-bin-path)/crossmate" .artifacts/web \
    2>&1 | tee "$work/web.log"; then :; else failed=$((failed + 1)); fi
web=$(grep -o '^Ran [0-9]* tests' "$work/web.log" | grep -o '[0-9]*' || echo 0)
if grep -q '^OK' "$work/web.log"; then passed=$((passed + web)); fi

echo "== hosted: two PostgreSQL instances behind Caddy with TLS, two browsers and two terminals, one instance killed"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check cryptography
if timeout -k 30 600 scripts/with-postgres.sh "$work/venv/bin/python" Tests/deploy/test_deploy.py "$(swift build --show-bin-path)/crossmate" .artifacts/deploy \
    2>&1 | tee "$work/deploy.log" && grep -q '^OK' "$work/deploy.log"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "== deploy/: the systemd units verify (and score as well hardened), the Caddyfile validates"
if (units="$(mktemp -d)"; trap 'rm -rf "$units"' EXIT
    for unit in crossmate.service crossmate-backup.service crossmate-backup.timer crossmate@.service; do
        sed "s|/usr/local/bin/crossmate|$(swift build --show-bin-path)/crossmate|g" "deploy/$unit" > "$units/$unit"
    done
    mv "$units/crossmate@.service" "$units/crossmate@8081.service"
    systemd-analyze verify "$units/crossmate.service" "$units/crossmate-backup.service" "$units/crossmate-backup.timer" \
        && systemd-analyze security --offline=true --threshold=20 "$units/crossmate.service" | tail -1 \
        && systemd-analyze security --offline=true --threshold=20 "$units/crossmate@8081.service" | tail -1 \
        && systemd-analyze security --offline=true --threshold=20 "$units/crossmate-backup.service" | tail -1 \
        && caddy validate --config deploy/Caddyfile --adapter caddyfile >/dev/null 2>&1); then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "== the release archive: unpacked into a clean directory, toolchain and checkout hidden, under crossmate.service's confinement"
# A debug build packed (a release build takes 10 minutes here; only the optimisation differs), in
# a build folder of its own: SwiftPM reuses objects compiled for the static runtime in a later
# ordinary build of the same folder, whose link then fails.
if archive="$(CROSSMATE_BUILD_CONFIGURATION=debug SWIFT_SCRATCH=.build/static scripts/release.sh "$work/release" | tail -1)" \
    && timeout -k 10 300 /usr/bin/python3 Tests/deploy/test_release.py "$archive" "$work/release-test" --largest-mb 180 | tee "$work/release.log"; then :; else failed=$((failed + 1)); fi
released=$(tail -1 "$work/release.log" | grep -o '^[0-9]*' || echo 0)
passed=$((passed + released))

echo "== fuzzing the .puz, .ipuz and .jpz readers and the socket push reader"
if scripts/fuzz.sh "${FUZZ_SECONDS:-30}"; then passed=$((passed + 4)); else failed=$((failed + 1)); fi

echo "== summary: format lint, swift tests, puzpy and Web Push oracle checks, browser tests and fuzz targets"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
