#!/usr/bin/env bash
# Two builds of Crossmate measured side by side in one sitting, as BENCHMARKS.md asks: this VM's
# speed moves by a third from one run to the next, so only runs interleaved A, B, A, B… compare.
# Each revision is built in release in its own worktree (kept under $CROSSMATE_AB_DIR, default
# /tmp/crossmate-ab, so a second comparison reuses it; `git worktree prune` forgets them once
# that folder is gone); then `crossmate-bench` runs the given benchmark for each build in turn,
# ROUNDS times, and a table gives each figure's median and range per build. Every run's JSON is
# kept in the output folder.
#
# Usage: scripts/bench-side-by-side.sh [-r ROUNDS] REV_A REV_B -- BENCH_ARGUMENTS...
#   e.g. scripts/bench-side-by-side.sh -r 3 77fb9f2 HEAD -- server --devices 1000 --seconds 15 --relays
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3
if [ "${1:-}" = "-r" ]; then rounds="$2"; shift 2; fi
if [ $# -lt 3 ] || [ "$3" != "--" ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
case "$rounds" in '' | *[!0-9]* | 0) echo "ROUNDS must be a whole number of 1 or more, not $rounds" >&2; exit 2 ;; esac
revisions=("$1" "$2")
shift 3
base="${CROSSMATE_AB_DIR:-/tmp/crossmate-ab}"
mkdir -p "$base"

# The commits, named now: a revision such as HEAD must not move while the other builds.
commits=()
for revision in "${revisions[@]}"; do commits+=("$(git rev-parse --verify "$revision^{commit}")"); done

# Builds a commit once; prints the folder its binaries are in.
build() {
    local commit="$1" tree="$base/$1"
    if [ ! -x "$tree/bin/crossmate-bench" ]; then
        if [ ! -d "$tree/src" ]; then git worktree add --detach "$tree/src" "$commit" >&2; fi
        echo "== building $commit in release" >&2
        (cd "$tree/src" && swift build -c release --product crossmate >&2 && swift build -c release --product crossmate-bench >&2)
        mkdir -p "$tree/bin"
        # The bench starts the `crossmate` beside it; the resource bundles travel with them.
        cp -r "$(cd "$tree/src" && swift build -c release --show-bin-path)"/{crossmate,crossmate-bench,*.resources} "$tree/bin/"
    fi
    echo "$tree/bin"
}

binaries=()
for commit in "${commits[@]}"; do binaries+=("$(build "$commit")"); done

out="$(mktemp -d "$base/run-XXXXXX")"
echo "== ${#revisions[@]} builds, $rounds rounds of: crossmate-bench $*; runs in $out"
for round in $(seq 1 "$rounds"); do
    for index in "${!revisions[@]}"; do
        echo "-- round $round: ${revisions[$index]}"
        "${binaries[$index]}/crossmate-bench" "$@" --json | tail -1 | tee -a "$out/$index.jsonl"
    done
done

python3 - "$out" "${revisions[@]}" <<'EOF'
import json, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
runs = [[json.loads(line) for line in open(f"{out}/{i}.jsonl") if line.strip()] for i in range(len(names))]
numeric = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
# Figures only: a value every run shares (a setting such as the seed) is left out.
keys = [k for k, v in runs[0][0].items() if numeric(v) and len({r.get(k) for build in runs for r in build}) > 1]
show = lambda v: f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"
width = max([len(k) for k in keys] + [6])
print("\n" + "figure".ljust(width) + "".join(f" | {n[:30]:>30}" for n in names))
for key in keys:
    cells = []
    for build in runs:
        values = [r[key] for r in build if key in r]
        cells.append(f"{show(statistics.median(values))} ({show(min(values))}–{show(max(values))})" if values else "-")
    print(key.ljust(width) + "".join(f" | {c:>30}" for c in cells))
print("\nmedian (least–most) of each build's runs; every run's JSON is in " + out)
EOF
