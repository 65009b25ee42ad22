#!/usr/bin/env bash
# tandem-bench raster runs on any GL (llvmpipe here) with a tiny mesh and writes JSON holding
# the fields bench/results/ relies on.
# Usage: bench_smoke.sh BENCH OUT_DIR
set -euo pipefail
bench=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
"$bench" raster --frames 3 --warmup 0 --triangles 20000 --json "$out/raster.json"
for key in device driver date commit results engine_mtri_per_s bare_mtri_per_s; do
    grep -q "\"$key\"" "$out/raster.json" || { echo "FAIL: $key missing from the JSON"; exit 1; }
done
if "$bench" raster --frames 3 --warmup 0 --triangles 20000 --json "$out/raster.json" 2>"$out/err"; then
    echo "FAIL: overwrote the JSON without --overwrite"; exit 1
fi
grep -q "^error: .*already exists" "$out/err" || { cat "$out/err"; exit 1; }
echo ok
