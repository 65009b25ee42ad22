#!/usr/bin/env bash
# The sanitizer builds: the sanitize preset (clang, AddressSanitizer + UndefinedBehaviorSanitizer)
# runs the unit tier with leaks checked and the gl tier without (LeakSanitizer's stop-the-world
# tracer crashes at exit among llvmpipe's threads) — the gl tier includes the headless viewer
# end to end (folders, packs, damaged frames, compare, textures, fallbacks, a 10 000-frame soak);
# the tsan preset (ThreadSanitizer) runs the
# unit tier, where the streaming threads are tested (loaders, the staging ring, packs and file
# sequences loaded from several threads, the frame writer); it is built as the nocuda preset is
# (no CUDA, RenderDoc or profiler), so test.sh needs no separate build of that configuration. Any report fails the test that
# caused it. Suppressions for what the sanitizers see inside Mesa and the system libraries (not
# tandem's code) are in tests/sanitizers/.
# Usage: scripts/sanitize.sh [sanitize|tsan]...   (default both)
set -uo pipefail
cd "$(dirname "$0")/.."
command -v ninja >/dev/null && export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja} # as build.sh
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(sanitize tsan)
supp="$PWD/tests/sanitizers"
export ASAN_OPTIONS="abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="suppressions=$supp/tsan.supp:halt_on_error=1:second_deadlock_stack=1"
status=0
for preset in "${presets[@]}"; do
    build="build-$preset"
    log="$build.log"
    # tsan builds what its unit tier runs, and the bench (the gl tests replace operator new,
    # which clashes with ThreadSanitizer's runtime).
    targets=()
    case "$preset" in
        sanitize) tiers=(unit gl) ;;
        tsan) tiers=(unit)
              targets=(--target tandem_unit_tests tandem-raster tandem-viewer tandem-pack
                       tandem-bench tandem-png-check) ;;
        *) echo "sanitize: unknown preset $preset"; exit 2 ;;
    esac
    echo "sanitize: building preset $preset (log: $log)"
    began=$SECONDS
    if ! { cmake --preset "$preset" && cmake --build "$build" -j"$(nproc)" "${targets[@]}"; } >"$log" 2>&1; then
        tail -30 "$log"; echo "sanitize: the $preset build failed"; exit 1
    fi
    echo "sanitize: the $preset build took $((SECONDS - began)) s"
    # The gl tier needs headless EGL; without it, the unit tier only (said so).
    if [ "$preset" = sanitize ] && ! "$build/bin/tandem-raster" --headless --frames 1 --size 16x16 \
            --out "$build/probe" --overwrite -q >>"$log" 2>&1; then
        echo "sanitize: headless EGL does not work in the $preset build; unit tier only"
        tiers=(unit)
    fi
    for tier in "${tiers[@]}"; do
        leaks=1
        [ "$tier" = gl ] && leaks=0
        # TANDEM_SANITIZED: memory bounds in tests do not hold under ASan (its quarantine keeps
        # freed memory); the soak says so and checks the rest.
        if ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=$leaks" TANDEM_SANITIZED=1 \
                ctest --test-dir "$build" -L "^$tier\$" --output-on-failure -j"$(nproc)" >>"$log" 2>&1; then
            echo "sanitize: $preset, $tier tier: $(grep -E 'tests passed' "$log" | tail -1) ($(grep -E '^Total Test time' "$log" | tail -1 | grep -oE '[0-9.]+ sec'))"
        else
            grep -E "tests passed|\*\*\*Failed|ERROR: |SUMMARY: |runtime error" "$log" | head -20
            echo "sanitize: $preset, $tier tier FAILED (the whole log: $log)"
            status=1
        fi
    done
done
exit $status
