#!/usr/bin/env bash
# Window tier: tandem-raster opens a real GLFW window (GL 4.5 core through GLX) on the X
# display, renders, screenshots its back buffer and the image is not blank. Needs $DISPLAY
# (scripts/test.sh starts Xvfb).
# Usage: raster_window_smoke.sh RASTER PNG_CHECK OUT_DIR
set -euo pipefail
raster=$1; check=$2; out=$3
[ -n "${DISPLAY:-}" ] || { echo "FAIL: no DISPLAY for the window tier"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
log=$("$raster" --frames 3 --size 400x300 --out "$out/color" 2>&1) || { echo "$log"; exit 1; }
echo "$log"
grep -q "rendering with window" <<<"$log" || { echo "FAIL: did not render in a window"; exit 1; }
"$check" --size 400x300 --min-fraction 0.05 "$out/color"/frame_00000{0,1,2}.png
for channel in depth normal id; do
    "$raster" --frames 1 --size 400x300 --channel "$channel" --out "$out/$channel" -q
    "$check" --size 400x300 --min-fraction 0.05 "$out/$channel/frame_000000.png"
done
"$raster" --frames 2 --size 400x300 --out "$out/points" -q \
    "$(dirname "$raster")/../assets/sample_points.ply"
"$check" --size 400x300 --min-fraction 0.05 "$out/points"/frame_00000{0,1}.png
echo "ok"
