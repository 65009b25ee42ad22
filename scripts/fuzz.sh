#!/usr/bin/env bash
# Fuzzes tandem's readers with libFuzzer under AddressSanitizer + UndefinedBehaviorSanitizer
# (the sanitize preset, clang): the PLY reader, the OBJ path, material libraries, sequence
# manifests, camera paths, the pack reader and --verify, the --postfx chain parser, the splat
# readers (3DGS PLY, .splat), CWIPC dumps, Draco and glTF files (tests/fuzz/Targets.h; the PLY target
# also checks that the fast PLY readers agree with the value-by-value one). Each
# target starts from its seeds (tests/fuzz/seeds/<target>, the test files of that format and the
# committed regressions) and keeps its corpus in build-sanitize/fuzz/<target>/corpus between
# runs. A crash, a hang (an input over 10 s) or a sanitizer report fails the run and leaves the
# input in build-sanitize/fuzz/<target>/; commit it under tests/fuzz/regressions/<target>/ with
# the fix (the unit tier replays those).
# Usage: scripts/fuzz.sh [--seconds N] [TARGET...]   (default 60 s each, every target; as many
#   at once as there are cores, or TANDEM_FUZZ_JOBS)
#   the test command runs it for 60 s a target; a long run: scripts/fuzz.sh --seconds 3600 pack
set -uo pipefail
cd "$(dirname "$0")/.."
command -v ninja >/dev/null && export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja} # as build.sh
seconds=60
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(ply obj mtl manifest camera_path pack chain gaussians cwipc draco gltf client_message)
build=build-sanitize
executables=()
for t in "${targets[@]}"; do executables+=("tandem-fuzz-$t"); done
cmake --preset sanitize >/dev/null || exit 1
if ! cmake --build "$build" -j"$(nproc)" --target "${executables[@]}" >"$build/fuzz-build.log" 2>&1; then
    tail -30 "$build/fuzz-build.log"; echo "fuzz: the build failed"; exit 1
fi

# Seeds for a target: its own, the committed regressions, and the test files of its format.
seeds() {
    echo "tests/fuzz/seeds/$1 tests/fuzz/regressions/$1"
    case "$1" in
        ply) find tests/data assets -name '*.ply' -size -100k ;;
        obj) find tests/data assets -name '*.obj' -size -100k ;;
        mtl) find tests/data assets -name '*.mtl' -size -100k ;;
        manifest) find tests/data -name '*.json' ;;
        pack) find tests/data -name '*.tdpk' ;;
        draco) find tests/data -name '*.drc' ;;
        gltf) find tests/data -name '*.glb' -o -name '*.gltf' ;;
    esac
}
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The targets run side by side, one a core (libFuzzer runs one process a target): each still
# gets its full time, the run takes a fraction of it. Their reports follow in target order.
jobs=${TANDEM_FUZZ_JOBS:-$(nproc)}
run_target() {
    local t=$1 work="$build/fuzz/$1"
    "$build/bin/tandem-fuzz-$t" "$work/corpus" "$work/seeds" -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2560 -max_len=131072 -artifact_prefix="$work/" \
        -print_final_stats=1 >"$work/log.txt" 2>&1
    echo $? >"$work/exit"
}
running=0
for t in "${targets[@]}"; do
    work="$build/fuzz/$t"
    mkdir -p "$work/corpus" "$work/seeds"
    rm -f "$work/exit"
    # libFuzzer reads seed folders; single files go into one of their own.
    for s in $(seeds "$t"); do
        if [ -d "$s" ]; then find "$s" -type f ! -name .gitkeep -exec cp {} "$work/seeds/" \; ; else cp "$s" "$work/seeds/"; fi
    done
    echo "fuzz: $t for ${seconds} s from $(ls "$work/seeds" | wc -l) seeds"
    run_target "$t" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait
failed=()
for t in "${targets[@]}"; do
    work="$build/fuzz/$t"
    code=$(cat "$work/exit" 2>/dev/null || echo "no exit status")
    grep -E "^stat::number_of_executed_units|^#[0-9]+ *DONE" "$work/log.txt" | tail -2 | sed "s/^/fuzz: $t: /"
    if [ "$code" != 0 ]; then
        grep -E "ERROR|SUMMARY|Test unit written|timeout" "$work/log.txt" | head -8 | sed "s/^/fuzz: $t: /"
        echo "fuzz: $t FAILED (exit $code); the whole log: $work/log.txt; reproduce: $build/bin/tandem-fuzz-$t INPUT"
        failed+=("$t")
    fi
done
[ ${#failed[@]} = 0 ] || { echo "fuzz: failed: ${failed[*]}"; exit 1; }
echo "fuzz: ${targets[*]}: no crash, hang or sanitizer report"
