#!/usr/bin/env bash
# tandem-viewer headless on a folder of 6 small point-cloud frames written here (binary and
# ASCII PLY, double positions, float colours, names in natural order: frame_1 .. frame_11):
# every frame rendered once and distinct, in natural order; the same frames from a pack render
# identically; a truncated file and a damaged pack frame are skipped, named, and the previous
# frame stays on screen; --video has every frame; --speed 2 shows every other frame. Then the
# first frame broken (nothing shown before it); a camera path followed by sequence frame;
# compare mode (difference, split, side by side); textured OBJ frames, each with the image beside
# it, from the folder and from a pack; (l) a frame whose every point is NaN draws an empty image,
# not the frame before it; (m) a FIFO and a link to /dev/zero named like frames are skipped or
# refused by the viewer and tandem-pack, which end (under `timeout`, failing if it fires);
# (n) textures named by an OBJ's .mtl (Blender's, Open3D's) drawn from a manifest's plain names
# and from their pack. Part (e) is left out without ffmpeg.
# Usage: viewer_headless.sh VIEWER PACK PNG_CHECK OUT_DIR
set -uo pipefail
viewer=$1; pack=$2; check=$3; out=$4
rm -rf "$out"; mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; exit 1; }
# A wrong value: reported, and the script goes on to the other parts.
wrong() { echo "FAIL: $*"; failures=$((failures + 1)); }
# play NAME SEQUENCE [ARGS...]: renders SEQUENCE headless at 160x120 into $out/NAME/ with a
# report $out/NAME.json and stderr in $out/NAME.log; fails unless it exits 0.
play() {
    local name=$1 seq=$2; shift 2
    "$viewer" --headless "$seq" --size 160x120 --out "$out/$name" --report "$out/$name.json" -q \
        "$@" 2>"$out/$name.log"
    local code=$?
    cat "$out/$name.log"
    [ $code = 0 ] || fail "$name: exit $code"
}
# value NAME KEY: the report's streaming.KEY (or output.KEY for frames_written).
value() {
    python3 -c 'import json, sys
r, key = json.load(open(sys.argv[1])), sys.argv[2]
print(r["output"][key] if key == "frames_written" else r["streaming"][key])' "$out/$1.json" "$2"
}
expect_value() {
    local v; v=$(value "$1" "$2")
    [ "$v" = "$3" ] || wrong "$1: $2 is $v, expected $3"
}
count() { find "$out/$1" -type f | wc -l; }
png() { printf "%s/%s/frame_%06d.png" "$out" "$1" "$2"; }
# same NAME I REF J: frame I of NAME is byte for byte frame J of REF.
same() { cmp -s "$(png "$1" "$2")" "$(png "$3" "$4")" || wrong "$1 frame $2 is not $3 frame $4"; }

# Six frames: a disc whose bright arm turns 50 degrees a frame, plus the 8 corners of [-1, 1]^3,
# so every frame has the sequence's bounds (a pack fits the camera to the sequence's bounds, a
# folder to its first frame's).
seq="$out/frames"; mkdir -p "$seq"
python3 - "$seq" <<'PY' || fail "writing the frames"
import math, struct, sys
from pathlib import Path

def cloud(k):
    points = [((x, y, z), (40, 40, 40)) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    for i in range(1500):
        r, a = 0.9 * math.sqrt((i + 0.5) / 1500), i * 2.399963
        turned = (a - math.radians(50 * k)) % (2 * math.pi)
        colour = (255, 220, 40) if turned < 0.6 else (int(120 + 100 * math.cos(a)), 90,
                                                      int(200 * r) + 40)
        points.append(((r * math.cos(a), r * math.sin(a), 0.2 * math.sin(3 * a + k)), colour))
    return points

# name, format, position type, colour type
frames = [("frame_1", "binary_little_endian", "float", "uchar"),
          ("frame_2", "ascii", "float", "uchar"),
          ("frame_3", "binary_little_endian", "double", "uchar"),
          ("frame_9", "ascii", "float", "float"),
          ("frame_10", "binary_big_endian", "float", "uchar"),
          ("frame_11", "ascii", "double", "uchar")]
for k, (name, fmt, xyz, rgb) in enumerate(frames):
    points = cloud(k)
    head = [f"ply\nformat {fmt} 1.0\nelement vertex {len(points)}\n"]
    head += [f"property {xyz} {c}\n" for c in "xyz"]
    head += [f"property {rgb} {c}\n" for c in ("red", "green", "blue")]
    with open(Path(sys.argv[1]) / f"{name}.ply", "wb") as f:
        f.write(("".join(head) + "end_header\n").encode())
        for p, c in points:
            c = [v / 255 for v in c] if rgb == "float" else list(c)
            if fmt == "ascii":
                f.write((" ".join(f"{v:.9g}" for v in p) + " " +
                         " ".join(f"{v:.6f}" if rgb == "float" else str(v) for v in c) +
                         "\n").encode())
            else:
                order = "<" if fmt == "binary_little_endian" else ">"
                layout = ("3d" if xyz == "double" else "3f") + ("3f" if rgb == "float" else "3B")
                f.write(struct.pack(order + layout, *p, *c))
PY
natural=(frame_1 frame_2 frame_3 frame_9 frame_10 frame_11)

echo "== (a) a folder, every frame"
play folder "$seq" --every-frame
[ "$(count folder)" = 6 ] || fail "folder: $(count folder) files, expected 6"
"$check" --size 160x120 --min-fraction 0.05 "$out"/folder/frame_00000{0..5}.png \
    || fail "blank or wrongly sized frames"
distinct=$(md5sum "$out"/folder/*.png | cut -d' ' -f1 | sort -u | wc -l)
[ "$distinct" = 6 ] || wrong "folder: $distinct distinct frames of 6"
expect_value folder frames_shown 6
expect_value folder frames_skipped 0
# Natural order: a manifest listing the files in that order renders the same frames.
python3 -c 'import json, sys
print(json.dumps({"fps": 30, "frames": [name + ".ply" for name in sys.argv[1:]]}))' \
    "${natural[@]}" >"$seq/natural.json"
play manifest "$seq/natural.json" --every-frame
for i in 0 1 2 3 4 5; do same folder $i manifest $i; done
rm "$seq/natural.json"

echo "== (b) the folder packed"
"$pack" "$seq" -o "$out/frames.tdpk" -q || fail "packing"
play pack "$out/frames.tdpk" --every-frame
[ "$(count pack)" = 6 ] || fail "pack: $(count pack) files, expected 6"
for i in 0 1 2 3 4 5; do same pack $i folder $i; done

echo "== (c) a truncated frame file"
cp -r "$seq" "$out/truncated_frames"
head -c 20000 "$seq/frame_3.ply" >"$out/truncated_frames/frame_3.ply"
play truncated "$out/truncated_frames" --every-frame
grep -q "skipped frame 2: .*truncated_frames/frame_3.ply: " "$out/truncated.log" \
    || wrong "truncated: no 'skipped frame 2' warning naming frame_3.ply"
expect_value truncated frames_skipped 1
expect_value truncated frames_shown 5
# Skipped is not also late or dropped.
expect_value truncated frames_late 0
expect_value truncated frames_dropped 0
# One output per rendered frame: the broken frame's keeps frame 1 on screen.
[ "$(count truncated)" = 6 ] || fail "truncated: $(count truncated) files, expected 6"
for i in 0 1 3 4 5; do same truncated $i folder $i; done
same truncated 2 folder 1

echo "== (d) a pack with a damaged byte in frame 2"
cp "$out/frames.tdpk" "$out/damaged.tdpk"
python3 - "$out/damaged.tdpk" <<'PY' || fail "damaging the pack"
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
index = struct.unpack_from("<Q", data, 104)[0]  # PackHeader::indexOffset
offset, stored = struct.unpack_from("<QQ", data, index + 2 * 72)  # PackEntry of frame 2
data[offset + stored // 2] ^= 0x40
open(sys.argv[1], "wb").write(data)
PY
play damaged "$out/damaged.tdpk" --every-frame
grep -q "skipped frame 2: frame 2 of damaged.tdpk (.*frame_3.ply): checksum mismatch" \
    "$out/damaged.log" \
    || wrong "damaged: no 'skipped frame 2 ... checksum mismatch' warning"
grep "skipped frame [013-5]" "$out/damaged.log" && wrong "damaged: an intact frame skipped"
expect_value damaged frames_skipped 1
expect_value damaged frames_late 0
expect_value damaged frames_dropped 0
[ "$(count damaged)" = 6 ] || fail "damaged: $(count damaged) files, expected 6"
for i in 0 1 3 4 5; do same damaged $i folder $i; done
same damaged 2 folder 1

echo "== (e) --video"
if command -v ffmpeg >/dev/null; then
    "$viewer" --headless "$seq" --every-frame --size 160x120 --video "$out/frames.mp4" -q \
        || fail "video: exit $?"
    [ -s "$out/frames.mp4" ] || fail "no video written"
    ls "$out"/*.partial 2>/dev/null && wrong "a partial video file was left"
    if command -v ffprobe >/dev/null; then
        frames=$(ffprobe -v error -count_frames -select_streams v:0 \
            -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$out/frames.mp4")
        [ "$frames" = "160,120,6" ] \
            || wrong "video: width,height,frames $frames, expected 160,120,6"
    else
        echo "note: ffprobe not installed; the video's frames are not counted"
    fi
else
    echo "note: ffmpeg not installed: (e) left out"
    video_skipped=1
fi

echo "== (f) the sequence clock at --speed 2"
# 6 frames at 30 fps (a folder's default) played at twice the speed into 30 fps output.
play speed "$seq" --fps 30 --speed 2
[ "$(count speed)" = 3 ] || fail "speed: $(count speed) files, expected 3"
same speed 0 folder 0; same speed 1 folder 2; same speed 2 folder 4
expect_value speed frames_written 3
expect_value speed frames_shown 3
expect_value speed frames_skipped 0

echo "== (g) the first frame broken"
cp -r "$seq" "$out/first_broken"
head -c 100 "$seq/frame_1.ply" >"$out/first_broken/frame_1.ply"
"$viewer" --headless "$out/first_broken" --every-frame --size 160x120 --out "$out/first" \
    --report "$out/first.json" -q 2>"$out/first.log"
code=$?
cat "$out/first.log"
if [ $code != 0 ]; then
    wrong "first frame broken: exit $code"
else
    grep -q "skipped frame 0: .*first_broken/frame_1.ply: " "$out/first.log" \
        || wrong "first frame broken: no 'skipped frame 0' warning naming frame_1.ply"
    expect_value first frames_skipped 1
    expect_value first frames_shown 5
    [ "$(count first)" = 6 ] || wrong "first frame broken: $(count first) files, expected 6"
    for i in 1 2 3 4 5; do same first $i folder $i; done
fi

echo "== (h) a camera path along the sequence's frames"
# Keys at the default pose: the same frames as (a). Keys turning the camera by sequence frame:
# frame 0 at the default pose is (a)'s, the later ones are not.
echo '{"keyframes": [{"frame": 0, "yaw": 30, "pitch": 20, "distance": 1},
                    {"frame": 5, "yaw": 30, "pitch": 20, "distance": 1}]}' >"$out/path_still.json"
echo '{"keyframes": [{"frame": 0, "yaw": 30, "pitch": 20, "distance": 1},
                    {"frame": 5, "yaw": 120, "pitch": 40, "distance": 1.5}]}' >"$out/path_turn.json"
play still "$seq" --every-frame --camera-path "$out/path_still.json"
for i in 0 1 2 3 4 5; do same still $i folder $i; done
play turn "$seq" --every-frame --camera-path "$out/path_turn.json"
same turn 0 folder 0
for i in 2 5; do
    cmp -s "$(png turn $i)" "$(png folder $i)" && wrong "turn frame $i did not follow the path"
done

echo "== (i) compare: two sequences on one timeline and camera"
columns="$(dirname "$0")/png_columns.py"
# B: the same frames in reverse (a manifest), so the same bounds and camera.
python3 -c 'import json, sys
print(json.dumps({"fps": 30, "frames": [name + ".ply" for name in reversed(sys.argv[1:])]}))' \
    "${natural[@]}" >"$seq/reversed.json"
play reversed "$seq/reversed.json" --every-frame
play difference "$seq" --every-frame --compare "$out/frames.tdpk" --compare-mode difference
for i in 0 3 5; do
    python3 "$columns" black "$(png difference $i)" || wrong "difference of equal frames not black"
done
play split "$seq" --every-frame --compare "$seq/reversed.json" --compare-mode split --divider 0.5
for i in 1 4; do
    # Left of the divider (column 80 is the line) A's frame, right of it B's.
    python3 "$columns" same "$(png split $i)" 0 80 "$(png folder $i)" 0 80 || wrong "split $i: left"
    python3 "$columns" same "$(png split $i)" 81 160 "$(png reversed $i)" 81 160 \
        || wrong "split $i: right"
done
play side "$seq" --every-frame --compare "$seq/reversed.json" --compare-mode side
python3 "$columns" same "$(png side 2)" 0 80 "$(png folder 2)" 40 120 || wrong "side: left half"
python3 "$columns" same "$(png side 2)" 80 160 "$(png reversed 2)" 40 120 || wrong "side: right half"
rm "$seq/reversed.json"

echo "== (j) textured meshes: each OBJ frame takes the image beside it"
tex="$out/textured"; mkdir -p "$tex"
python3 - "$tex" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
def png(path, rgb):  # 4x4, one colour
    raw = b"".join(b"\0" + bytes(rgb) * 4 for _ in range(4))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" +
                           chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
quad = ("v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvn 0 0 1\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
        "f 1/1/1 2/2/1 3/3/1\nf 1/1/1 3/3/1 4/4/1\n")
for i, rgb in enumerate([(255, 0, 0), (0, 255, 0), (0, 0, 255)]):
    open(f"{sys.argv[1]}/frame_{i}.obj", "w").write(quad)
    png(f"{sys.argv[1]}/frame_{i}.png", rgb)
PY
play textured "$tex" --every-frame
for i in 0 1 2; do
    python3 "$columns" dominant "$(png textured $i)" $i 2000 || wrong "textured frame $i"
done
"$pack" "$tex" -o "$out/textured.tdpk" -q || fail "packing the textured frames"
play textured_pack "$out/textured.tdpk" --every-frame
for i in 0 1 2; do same textured_pack $i textured $i; done

echo "== (k) twelve loader threads: a track each on the trace timeline"
play loaders sample:points=2000,frames=40 --every-frame --loader-threads 12 --trace "$out/loaders_trace.json"
python3 - "$out/loaders_trace.json" <<'PY' || wrong "loaders: the trace does not have a track per loader"
import json, sys
trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
names = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
loaders = sorted(n for n in names if n.startswith("loader "))
streaming = json.load(open(sys.argv[1].replace("loaders_trace.json", "loaders.json")))["streaming"]
want = streaming["loader_threads"]  # 12, or fewer where there are fewer staging slots
assert want == min(12, streaming["staging_slots"]), streaming
assert loaders == sorted(f"loader {i}" for i in range(want)), (loaders, want)
PY

echo "== (l) a frame whose every point is NaN draws nothing"
empty="$out/empty_frames"; mkdir -p "$empty"
cp "$seq/frame_1.ply" "$empty/frame_1.ply"
printf 'ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\nnan nan nan\nnan 0 0\n' \
    >"$empty/frame_2.ply"
play empty "$empty" --every-frame
grep -q "frame 1: .*frame_2.ply: dropped 2 of 2 points .*nothing is left to draw" "$out/empty.log" \
    || wrong "empty: no warning that frame_2.ply's points were all dropped"
[ "$(count empty)" = 2 ] || fail "empty: $(count empty) files, expected 2"
same empty 0 folder 0
expect_value empty frames_skipped 0
python3 - "$(dirname "$0")/../support" "$(png empty 1)" <<'PY' || wrong "empty: frame 1 is not empty"
import sys
sys.path.insert(0, sys.argv[1])
import png
_, _, lines = png.load(sys.argv[2])
first = bytes(lines[0][0:4])
drawn = sum(1 for line in lines for x in range(0, len(line), 4) if bytes(line[x:x + 4]) != first)
print(f"{sys.argv[2]}: {drawn} pixels differ from the background")
sys.exit(0 if drawn == 0 else 1)
PY

echo "== (m) a FIFO and /dev/zero named like frames"
# bounded TIMEOUT CMD...: runs CMD; fails the test when it has not ended after TIMEOUT seconds
# (a loader blocked on a FIFO, or reading /dev/zero until memory runs out).
bounded() {
    local limit=$1; shift
    timeout -s KILL "$limit" "$@"
    local code=$?
    [ $code = 137 ] && fail "$* did not end within $limit s"
    return $code
}
odd="$out/odd"; mkdir -p "$odd"
cp "$seq/frame_1.ply" "$odd/frame_1.ply"; cp "$seq/frame_2.ply" "$odd/frame_3.ply"
mkfifo "$odd/frame_2.ply"; ln -s /dev/zero "$odd/z.ply"
bounded 120 "$viewer" --headless "$odd" --every-frame --size 160x120 --out "$out/odd_folder" -q \
    2>"$out/odd_folder.log" || { cat "$out/odd_folder.log"; fail "odd folder: exit $?"; }
grep -q "skipped 2 names that are not regular files: frame_2.ply (a FIFO (named pipe)), z.ply (a character device)" \
    "$out/odd_folder.log" || wrong "odd folder: no warning naming the FIFO and the device"
[ "$(count odd_folder)" = 2 ] || wrong "odd folder: $(count odd_folder) files, expected 2"
bounded 120 "$viewer" --headless "$odd/frame_%d.ply" --every-frame --size 160x120 \
    --out "$out/odd_pattern" -q 2>"$out/odd_pattern.log"
cat "$out/odd_pattern.log"
grep -q "skipped frame 1: .*frame_2.ply: is a FIFO (named pipe), not a regular file" \
    "$out/odd_pattern.log" || wrong "odd pattern: the FIFO frame is not named as skipped"
bounded 120 "$viewer" --headless "$odd/z.ply" --size 160x120 --out "$out/odd_zero" -q \
    2>"$out/odd_zero.log" && wrong "odd zero: /dev/zero as a frame accepted"
grep -q "^error: .*z.ply: is a character device" "$out/odd_zero.log" \
    || { cat "$out/odd_zero.log"; wrong "odd zero: no error naming the device"; }
bounded 120 "$pack" "$odd" -o "$out/odd.tdpk" -q 2>"$out/odd_pack.log" \
    || { cat "$out/odd_pack.log"; fail "odd pack: exit $?"; }
grep -q "skipped 2 names that are not regular files" "$out/odd_pack.log" \
    || wrong "odd pack: no warning naming the FIFO and the device"
bounded 120 "$pack" --info "$out/odd.tdpk" | grep -q "frames     2 at" || wrong "odd pack: not 2 frames"
bounded 120 "$pack" "$odd/frame_%d.ply" -o "$out/odd_pattern.tdpk" -q 2>"$out/odd_pack2.log" \
    && wrong "odd pattern pack: a pack written with the FIFO frame"
grep -q "frame_2.ply: is a FIFO (named pipe), not a regular file" "$out/odd_pack2.log" \
    || { cat "$out/odd_pack2.log"; wrong "odd pattern pack: the FIFO is not named"; }
bounded 120 "$pack" "$odd/z.ply" -o "$out/odd_zero.tdpk" -q 2>"$out/odd_pack3.log" \
    && wrong "odd zero pack: /dev/zero packed"
grep -q "z.ply: is a character device" "$out/odd_pack3.log" \
    || { cat "$out/odd_pack3.log"; wrong "odd zero pack: the device is not named"; }
rm -f "$odd/frame_2.ply"

echo "== (n) textures named by the .mtl, from a manifest's plain names and from a pack"
textured_data="$(dirname "$0")/../data/textured"
cp -r "$textured_data" "$out/mtl_data"
# The quads lie side by side: a manifest's camera fits its first frame, a pack's all of them.
echo '{"frames": ["blender/quad.obj", "open3d/mesh.obj"]}' >"$out/mtl_data/a.json"
echo '{"frames": ["open3d/mesh.obj", "blender/quad.obj"]}' >"$out/mtl_data/b.json"
play mtl_a "$out/mtl_data/a.json" --every-frame
python3 "$columns" dominant "$(png mtl_a 0)" 2 2000 || wrong "mtl: Blender's texture (blue)"
play mtl_b "$out/mtl_data/b.json" --every-frame
python3 "$columns" dominant "$(png mtl_b 0)" 1 2000 || wrong "mtl: Open3D's texture (green)"
"$pack" "$out/mtl_data/a.json" -o "$out/mtl.tdpk" -q || fail "packing the .mtl frames"
play mtl_pack "$out/mtl.tdpk" --every-frame
python3 "$columns" dominant "$(png mtl_pack 0)" 2 500 || wrong "mtl pack: Blender's texture"
python3 "$columns" dominant "$(png mtl_pack 1)" 1 500 || wrong "mtl pack: Open3D's texture"

[ $failures = 0 ] || fail "$failures wrong values (above)"
[ "${video_skipped:-0}" = 1 ] && { echo "ok, but (e) skipped: no ffmpeg"; exit 77; }
echo "ok"
