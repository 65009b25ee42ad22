#!/usr/bin/env bash
# Window tier: the timing overlay in a real window. A screenshot with the overlay (the default
# in a window) differs from one without it in the overlay's corner and matches elsewhere; the
# overlay is also drawn into headless output with --overlay.
# Usage: overlay_window.sh RASTER PNG_CHECK OUT_DIR
set -euo pipefail
raster=$1; check=$2; out=$3
[ -n "${DISPLAY:-}" ] || { echo "FAIL: no DISPLAY for the window tier"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
"$raster" --frames 4 --size 640x480 --out "$out/window" -q
"$check" --size 640x480 --min-fraction 0.05 "$out/window/frame_000003.png"
"$raster" --headless --frames 4 --size 640x480 --out "$out/plain" -q
"$raster" --headless --overlay --frames 4 --size 640x480 --out "$out/overlay" -q
python3 - "$out" "$(dirname "$0")/../support" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import png
out = sys.argv[1]
w, h, plain = png.load(f"{out}/plain/frame_000003.png")
_, _, over = png.load(f"{out}/overlay/frame_000003.png")
def changed(x0, x1, y0, y1):
    n = sum(1 for y in range(y0, y1) for x in range(x0, x1)
            if any(abs(plain[y][4*x+k] - over[y][4*x+k]) > 24 for k in range(3)))
    return n / ((x1-x0) * (y1-y0))
corner, far = changed(10, 200, 10, 120), changed(w-60, w, h-60, h)
print(f"overlay corner changed {corner:.0%}, far corner {far:.0%}")
if corner < 0.2: sys.exit("FAIL: no overlay drawn in the corner")
if far > 0.01: sys.exit("FAIL: the overlay changed pixels far from it")
PY
echo ok
