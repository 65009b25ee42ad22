#!/usr/bin/env bash
# Points end to end on any GL (llvmpipe here): tandem-raster draws a held-out cloud with the
# points drawn by GL and by the host twin and says so in its report; tandem-bench points runs a
# tiny cloud and writes the JSON fields bench/results/ relies on (skipped, 77, in a build with
# the profiler compiled out, which the benchmark needs).
# Usage: points_smoke.sh RASTER BENCH CLOUD OUT_DIR
set -euo pipefail
raster=$1; bench=$2; cloud=$3; out=$4
rm -rf "$out"; mkdir -p "$out"
for points in gl host; do
    "$raster" --headless "$cloud" --points "$points" --point-size 3 --size 160x120 --frames 2 \
        --out "$out/$points" --report "$out/$points.json" >"$out/$points.log" 2>&1 \
        || { cat "$out/$points.log"; exit 1; }
    python3 - "$out/$points.json" "$points" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
points = report["points"]
assert points["path"] == sys.argv[2], points
assert points["count"] > 1000 and points["size_pixels"] == 3.0, points
PY
    grep -q "points: $points, 3 px across" "$out/$points.log" || { cat "$out/$points.log"; exit 1; }
    grep -q "scene on the GPU: .* MiB" "$out/$points.log" || { cat "$out/$points.log"; exit 1; }
done
if ! "$bench" points --counts 20k --sizes 160x120 --splats 1,3 --frames 3 --warmup 1 \
        --gl-frames 2 --json "$out/points.json" >"$out/bench.log" 2>&1; then
    grep -q "leaves out" "$out/bench.log" && { echo "skipped: no profiler in this build"; exit 77; }
    cat "$out/bench.log"; exit 1
fi
for key in device driver date commit results gl_points_ms gl_gpoints_per_s end_to_end; do
    grep -q "\"$key\"" "$out/points.json" || { echo "FAIL: $key missing from the JSON"; exit 1; }
done
echo ok
