#!/usr/bin/env bash
# tandem-raster headless on meshes written by other tools: the committed assimp exports in
# tests/data/real_world, plus fresh exports of the built-in sample when assimp is installed.
# Each must give 3 non-blank PNGs of the requested size. Then what depth sensors, PCL and
# editors write: a cloud with NaN points, two outliers at ±1e20, PCL's packed float rgb and a
# UTF-8 byte-order mark renders its real points in their colours; OBJ textures named by the
# .mtl (Blender's and Open3D's exports in tests/data/textured) are drawn, and two textured
# objects in one scene draw the first's texture and say that the second's is not drawn.
# Usage: real_world_files.sh RASTER PNG_CHECK DATA_DIR OUT_DIR
set -euo pipefail
raster=$1; check=$2; data=$3; out=$4
columns="$(dirname "$0")/png_columns.py"
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
echo "== a PCL-style cloud: NaN points, ±1e20 outliers, packed rgb, a byte-order mark"
python3 - "$out/pcl.ply" <<'PY'
import math, struct, sys
points = []
for i in range(40):
    for j in range(40):
        points.append((i / 20 - 1, j / 20 - 1, 0.0))
points += [(math.nan,) * 3] * 100 + [(1e20, 1e20, 1e20), (-1e20, -1e20, -1e20)]
red = struct.unpack("<f", struct.pack("<I", 0x00e01010))[0]
with open(sys.argv[1], "wb") as f:
    f.write(b"\xef\xbb\xbfply\nformat binary_little_endian 1.0\ncomment PCL generated\n")
    f.write(f"element vertex {len(points)}\n".encode())
    f.write(b"property float x\nproperty float y\nproperty float z\nproperty float rgb\n"
            b"end_header\n")
    for p in points:
        f.write(struct.pack("<4f", *p, red))
PY
code=0
"$raster" --headless --frames 1 --size 160x120 --point-size 4 --out "$out/pcl" "$out/pcl.ply" \
    2>"$out/pcl.log" || code=$?
cat "$out/pcl.log"
[ $code = 0 ] || { echo "FAIL: pcl.ply: exit $code"; exit 1; }
grep -q "pcl.ply: dropped 102 of 1702 points (100 with NaN or infinite coordinates, 2 beyond" \
    "$out/pcl.log" || { echo "FAIL: no warning counting the dropped points"; exit 1; }
"$check" --size 160x120 --min-fraction 0.05 "$out/pcl/frame_000000.png"
python3 "$columns" dominant "$out/pcl/frame_000000.png" 0 1000 \
    || { echo "FAIL: the packed rgb colour (red) is not drawn"; exit 1; }

echo "== two outliers at ±1e20 alone: the real points are drawn, not a blank frame"
python3 - "$out/far.ply" <<'PY'
import struct, sys
points = [(i / 20 - 1, j / 20 - 1, 0.0) for i in range(40) for j in range(40)]
points += [(1e20, 1e20, 1e20), (-1e20, -1e20, -1e20)]
with open(sys.argv[1], "wb") as f:
    f.write(f"ply\nformat binary_little_endian 1.0\nelement vertex {len(points)}\n".encode())
    f.write(b"property float x\nproperty float y\nproperty float z\nend_header\n")
    for p in points:
        f.write(struct.pack("<3f", *p))
PY
"$raster" --headless --frames 1 --size 160x120 --point-size 4 --out "$out/far" "$out/far.ply"
"$check" --size 160x120 --min-fraction 0.05 "$out/far/frame_000000.png"

echo "== OBJ textures named by the .mtl (Blender, Open3D)"
textured() { # NAME CHANNEL PIXELS FILE...: renders the files; CHANNEL must dominate PIXELS
    local name=$1 channel=$2 pixels=$3 code=0; shift 3
    "$raster" --headless --frames 1 --size 160x120 --out "$out/$name" "$@" 2>"$out/$name.log" \
        || code=$?
    cat "$out/$name.log"
    [ $code = 0 ] || { echo "FAIL: $name: exit $code"; exit 1; }
    python3 "$columns" dominant "$out/$name/frame_000000.png" "$channel" "$pixels" \
        || { echo "FAIL: $name: its texture is not drawn"; exit 1; }
}
textured blender 2 2000 "$data/textured/blender/quad.obj"
textured open3d 1 2000 "$data/textured/open3d/mesh.obj"
# Both in one scene: one texture a scene, Blender's first; Open3D's quad is drawn white, not in
# the blue of Blender's texture nor in its own green.
textured both 2 500 "$data/textured/blender/quad.obj" "$data/textured/open3d/mesh.obj"
grep -q "mesh.obj: texture mesh_0.png not drawn: a scene draws one texture and quad.obj's" \
    "$out/both.log" || { echo "FAIL: no warning that the second texture is not drawn"; exit 1; }
python3 "$columns" dominant "$out/both/frame_000000.png" 1 1 \
    && { echo "FAIL: both: green (the second texture) drawn"; exit 1; }
python3 - "$(dirname "$0")/../support" "$out/both/frame_000000.png" <<'PY' \
    || { echo "FAIL: both: the second quad is not drawn in its vertex colours (white)"; exit 1; }
import sys
sys.path.insert(0, sys.argv[1])
import png
width, _, lines = png.load(sys.argv[2])
grey = sum(1 for line in lines for x in range(width)
           if max(line[4 * x:4 * x + 3]) - min(line[4 * x:4 * x + 3]) < 25
           and min(line[4 * x:4 * x + 3]) > 80)
print(f"{sys.argv[2]}: {grey} white or grey pixels (at least 500 expected)")
sys.exit(0 if grey >= 500 else 1)
PY
echo "ok: ${#files[@]} files rendered, and the cloud and the textured meshes"
