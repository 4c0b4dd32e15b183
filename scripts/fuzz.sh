#!/usr/bin/env bash
# Builds libFuzzer targets for the .puz, .ipuz and .jpz readers (the .jpz one through its ZIP
# container and DEFLATE inflater too) and the socket push reader with swiftc, and runs each
# briefly, seeded with the fixtures (the push target with a few pushes).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]  (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
build=.build-fuzz
mkdir -p "$build"
flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -wmo)

core_sources=(Sources/CrossmateCore/*.swift)
# BundledPuzzles needs SwiftPM's resource bundle; the readers do not.
format_sources=()
while IFS= read -r file; do format_sources+=("$file"); done < <(find Sources/CrossmateFormats -name '*.swift' ! -name BundledPuzzles.swift | sort)

echo "fuzz: building instrumented CrossmateCore and CrossmateFormats"
swiftc "${flags[@]}" -module-name CrossmateCore -emit-module -emit-module-path "$build/CrossmateCore.swiftmodule" \
    -c "${core_sources[@]}" -o "$build/CrossmateCore.o"
swiftc "${flags[@]}" -module-name CrossmateFormats -I "$build" -emit-module -emit-module-path "$build/CrossmateFormats.swiftmodule" \
    -c "${format_sources[@]}" -o "$build/CrossmateFormats.o"

# The push reader is tested through `@testable import`, so its module is built for testing.
sync_sources=(Sources/CrossmateSync/*.swift)
protocol_sources=(Sources/CrossmateProtocol/*.swift)
echo "fuzz: building instrumented CrossmateSync and CrossmateProtocol"
swiftc "${flags[@]}" -module-name CrossmateSync -I "$build" -emit-module -emit-module-path "$build/CrossmateSync.swiftmodule" \
    -c "${sync_sources[@]}" -o "$build/CrossmateSync.o"
swiftc "${flags[@]}" -enable-testing -module-name CrossmateProtocol -I "$build" -emit-module \
    -emit-module-path "$build/CrossmateProtocol.swiftmodule" -c "${protocol_sources[@]}" -o "$build/CrossmateProtocol.o"

status=0
for target in puz ipuz jpz push; do
    name="Fuzz${target^}"
    echo "fuzz: building $target target"
    # The gold linker warns once per sanitizer helper symbol; keep that noise in a log.
    if ! swiftc "${flags[@]}" -I "$build" "Fuzz/$name.swift" "$build/CrossmateCore.o" "$build/CrossmateFormats.o" \
        "$build/CrossmateSync.o" "$build/CrossmateProtocol.o" -o "$build/fuzz-$target" 2> "$build/link-$target.log"; then
        cat "$build/link-$target.log"
        exit 1
    fi
    corpus="$build/corpus-$target"
    mkdir -p "$corpus" "$build/artifacts-$target"
    if [ "$target" = push ]; then
        cp Fuzz/push-seeds/*.json "$corpus"/
    elif [ "$target" = jpz ]; then
        # Plain XML, a zipped file (DEFLATE) and a stored one.
        cp Tests/CrossmateFormatsTests/Fixtures/kotwords/jpz/*.jpz Tests/CrossmateFormatsTests/Fixtures/crossmate/test-*.jpz "$corpus"/
    else
        cp Tests/CrossmateFormatsTests/Fixtures/kotwords/"$target"/*."$target" "$corpus"/
    fi
    echo "fuzz: running $target for ${seconds}s"
    leaks=1
    # Foundation's XMLParser leaks the strings of its error (in _CFErrorCreateFromXMLInterface)
    # for every malformed document: a toolchain defect, not ours, which would end the run at the
    # first bad XML and again at exit. Leak checking stays on for the other targets.
    if [ "$target" = jpz ]; then leaks=0; fi
    if ! ASAN_OPTIONS="detect_leaks=$leaks" "$build/fuzz-$target" -detect_leaks="$leaks" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$build/artifacts-$target/" -print_final_stats=1 "$corpus" 2> "$build/fuzz-$target.log"; then
        echo "fuzz: $target FAILED; see $build/fuzz-$target.log and the crashing input in $build/artifacts-$target/"
        tail -n 40 "$build/fuzz-$target.log"
        status=1
    else
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/fuzz-$target.log" | grep -o '[0-9]*$' || echo '?')
        echo "fuzz: $target ran $runs inputs without a crash"
    fi
done
exit $status
