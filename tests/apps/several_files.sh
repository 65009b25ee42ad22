#!/usr/bin/env bash
# tandem-raster draws several files as one scene: a mesh and a point cloud together give a
# picture different from either alone, and the report counts both objects and their vertices.
# Usage: several_files.sh RASTER ASSETS OUT_DIR
set -uo pipefail
raster=$1; assets=$2; out=$3
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
common=(--headless --size 96x72 -q --overwrite)
"$raster" "${common[@]}" --out "$out/both" --report "$out/both.json" \
    "$assets/sample.ply" "$assets/sample_points.ply" || fail "two files did not render"
"$raster" "${common[@]}" --out "$out/mesh" "$assets/sample.ply" || fail "mesh alone"
"$raster" "${common[@]}" --out "$out/points" "$assets/sample_points.ply" || fail "points alone"
cmp -s "$out/both/frame_000000.png" "$out/mesh/frame_000000.png" && fail "both = mesh alone"
cmp -s "$out/both/frame_000000.png" "$out/points/frame_000000.png" && fail "both = points alone"
python3 - "$out/both.json" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
scene, files = report["scene"], report["files"]
if scene["objects"] != 2 or len(files) != 2:
    sys.exit(f"FAIL: expected 2 objects from 2 files, got {scene} {files}")
if scene["triangles"] == 0 or scene["vertices"] <= scene["triangles"] // 2:
    sys.exit(f"FAIL: scene counts look wrong: {scene}")
PY
echo ok
