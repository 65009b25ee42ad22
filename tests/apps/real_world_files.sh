#!/usr/bin/env bash
# tandem-raster headless on meshes written by other tools: the committed assimp exports in
# tests/data/real_world, plus fresh exports of the built-in sample when assimp is installed.
# Each must give 3 non-blank PNGs of the requested size.
# Usage: real_world_files.sh RASTER PNG_CHECK DATA_DIR OUT_DIR
set -euo pipefail
raster=$1; check=$2; data=$3; out=$4
rm -rf "$out"; mkdir -p "$out"
files=("$data"/real_world/*.ply "$data"/real_world/*.obj)
if command -v assimp >/dev/null; then
    sample="$(dirname "$raster")/../assets/sample.ply"
    assimp export "$sample" "$out/sample_assimp.obj" -fobj >/dev/null
    # Through STL: assimp's binary PLY with colours is corrupt (assimp issue #3827).
    assimp export "$sample" "$out/sample.stl" -fstlb >/dev/null
    assimp export "$out/sample.stl" "$out/sample_assimp_binary.ply" -fplyb >/dev/null
    assimp export "$sample" "$out/sample_assimp_ascii.ply" -fply >/dev/null
    files+=("$out/sample_assimp.obj" "$out/sample_assimp_binary.ply" "$out/sample_assimp_ascii.ply")
else
    echo "note: assimp not installed; only the committed exports are checked"
fi
for file in "${files[@]}"; do
    name=$(basename "$file")
    echo "== $name"
    "$raster" --headless --frames 3 --size 320x240 --spin 20 --out "$out/frames_$name" "$file"
    "$check" --size 320x240 --min-fraction 0.02 "$out/frames_$name"/frame_00000{0,1,2}.png
    [ "$(ls "$out/frames_$name" | wc -l)" = 3 ] || { echo "FAIL: expected exactly 3 files"; exit 1; }
done
echo "ok: ${#files[@]} files rendered"
