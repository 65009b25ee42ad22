#!/usr/bin/env bash
# tandem-bench export runs on any GL (llvmpipe here) at a small size and writes JSON with frames
# per second, the GPU frame time, stalls per steady frame (none) and every frame written.
# Usage: export_smoke.sh BENCH OUT_DIR
set -euo pipefail
bench=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
"$bench" export --sizes 96x64 --formats none,pam,png --frames 4 --warmup 2 --triangles 4000 \
    --output-threads 2 --json "$out/export.json"
python3 - "$out/export.json" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
for key in ["device", "driver", "date", "commit", "results", "encoders"]:
    if key not in data:
        sys.exit(f"FAIL: {key} missing")
rows = {r["format"]: r for r in data["results"]}
if set(rows) != {"none", "pam", "png"}:
    sys.exit(f"FAIL: formats {set(rows)}")
for name, row in rows.items():
    if row["frames_per_second"] <= 0 or row["gpu_frame_ms_p50"] <= 0:
        sys.exit(f"FAIL: {name}: {row}")
    # The host backend reads the G-buffer back by design (one stall a frame); output adds none.
    stalls = 1.0 if row["backend"] == "host" else 0.0
    if row["stalls_per_steady_frame"] != stalls:
        sys.exit(f"FAIL: {name}: {row['stalls_per_steady_frame']} stalls per frame, expected {stalls}")
    expected = 0 if name == "none" else 6
    if row["files_written"] != expected:
        sys.exit(f"FAIL: {name}: {row['files_written']} files, expected {expected}")
enc = data["encoders"][0]
if enc["libspng_ms"] <= 0 or enc["stb_image_write_ms"] <= 0:
    sys.exit(f"FAIL: encoders {enc}")
PY
echo ok
