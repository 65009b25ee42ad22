#!/usr/bin/env bash
# Window tier: a resize storm while tandem-viewer plays a streamed sequence with post-processing
# (the backend this machine has: host here, CUDA on a GPU host): eight storms of the same 100
# random window sizes from 1x1 to 800x600 (xdotool windowsize), then Esc. No GL or CUDA error is
# logged, the app keeps rendering, and its resident memory does not grow: the least of it after
# storms 6 to 8 is within 24 MiB of the least after storms 2 to 4 (the G-buffer, post-process
# and read-back targets are made again at each size, never accumulated). A leak grows every
# sample, so 400 resizes apart a leak of 80 KiB a resize adds 32 MiB and fails; llvmpipe's and
# the allocator's pools do not grow but swing by about ±12 MiB from one moment to the next (a
# single sample after the fifth storm once read 16.6 MiB over one after the third), which the
# least of three storms' samples rides out. The first storm reaches the high-water mark.
# Usage: viewer_resize_storm.sh VIEWER OUT_DIR
set -uo pipefail
viewer=$1; out=$2
source "$(dirname "$0")/../support/window_app.sh"
rm -rf "$out"; mkdir -p "$out"

window_title=tandem-viewer
start_window_app "$viewer" sample:points=20000,frames=60 --size 320x240 --no-vsync \
    --postfx tonemap,outline,fxaa --report "$out/report.json"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
# The least of three reads a fifth of a second apart: the settled size after a storm.
settled() {
    local least="" v
    for _ in 1 2 3; do
        v=$(rss); [ -z "$least" ] || [ "$v" -lt "$least" ] && least=$v
        sleep 0.2
    done
    echo "$least"
}
storm() {
    RANDOM=7
    for i in $(seq 1 100); do
        case $((i % 10)) in
            0) w=1; h=1 ;;
            1) w=$((1 + RANDOM % 8)); h=$((1 + RANDOM % 8)) ;;
            *) w=$((1 + RANDOM % 800)); h=$((1 + RANDOM % 600)) ;;
        esac
        xdotool windowsize "$wid" "$w" "$h" 2>/dev/null || fail "windowsize $w $h failed"
        sleep 0.03
        kill -0 "$pid" 2>/dev/null ||
            fail "the viewer died at resize $i (${w}x$h): $(tail -20 "$out/log.txt")"
    done
    xdotool windowsize "$wid" 320 240
    sleep 0.5
}
samples=()
for n in $(seq 1 8); do
    storm
    samples+=("$(settled)")
done
least() { printf "%s\n" "$@" | sort -n | head -1; }
early=$(least "${samples[@]:1:3}")
late=$(least "${samples[@]:5:3}")
echo "resident memory after each storm (KiB): ${samples[*]}; least of storms 2-4: $early, of 6-8: $late"
quit_window_app
grep -iE "GL error|CUDA error|error:|assert" "$out/log.txt" && fail "errors were logged (above)"
[ $((late - early)) -le $((24 * 1024)) ] ||
    fail "memory grew by $(((late - early) / 1024)) MiB from storms 2-4 to storms 6-8"
python3 - "$out/report.json" <<'PY' || fail "the report is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["frames"] > 100, r["frames"]  # it kept rendering through the storms
assert r["resolution"] == [320, 240], r["resolution"]
print("frames rendered:", r["frames"])
PY
echo "ok"
