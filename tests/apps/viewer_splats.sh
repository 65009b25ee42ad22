#!/usr/bin/env bash
# tandem-viewer headless on a Gaussian splat sequence written here: 4 frames of a ring of
# Gaussians (SH degree 1) turning 40 degrees a frame, three as 3DGS PLY files as training writes
# them and one as a .splat file. Every frame is rendered once, not blank and distinct from the
# others; tandem-pack packs the folder (packed splats by default, and --splats f32), --info
# names the splats; the f32 pack renders byte for byte as the folder, the packed one within
# 40 dB of it (its loss, stated in render/SplatPacking.h, is measured by the unit tests); --up -y
# turns every frame (a different image), and tandem-pack --up -y packs them turned the same way;
# --up with a pack is an error (naming tandem-pack in the viewer). The splat debug channels
# (splat-alpha, splat-count, splat-centres) each draw something of their own. Compare mode
# (the folder against its f32 pack: black), a camera path, video and batch pieces work as for
# points.
# Usage: viewer_splats.sh VIEWER PACK PNG_CHECK OUT_DIR
set -uo pipefail
viewer=$1; pack=$2; check=$3; out=$4
rm -rf "$out"; mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; exit 1; }
wrong() { echo "FAIL: $*"; failures=$((failures + 1)); }
play() {
    local name=$1 seq=$2; shift 2
    "$viewer" --headless "$seq" --size 160x120 --out "$out/$name" --report "$out/$name.json" -q \
        --every-frame "$@" 2>"$out/$name.log"
    local code=$?
    cat "$out/$name.log"
    [ $code = 0 ] || fail "$name: exit $code"
    [ "$(find "$out/$name" -type f | wc -l)" = 4 ] || fail "$name: expected 4 frames"
}
png() { printf "%s/%s/frame_%06d.png" "$out" "$1" "$2"; }

seq="$out/frames"; mkdir -p "$seq"
python3 - "$seq" <<'PY' || fail "writing the frames"
import math, random, struct, sys
from pathlib import Path

def ring(k):
    random.seed(11)
    gaussians = []
    for i in range(600):
        t = random.random() * 2 * math.pi
        r = 0.7 + 0.3 * random.random()
        a = t + math.radians(40 * k)
        # Bright where t is small, so the ring's turn shows.
        dc = [1.6 if t < 1.0 else -0.4, 0.9 * math.cos(t), 0.9 * math.sin(t)]
        rest = [random.uniform(-0.2, 0.2) for _ in range(9)]
        scale = [math.log(random.uniform(0.03, 0.07)) for _ in range(3)]
        rot = [random.uniform(-1, 1) for _ in range(4)]
        gaussians.append(([r * math.cos(a), r * math.sin(a), random.uniform(-0.2, 0.2)],
                          dc, rest, random.uniform(0, 3), scale, rot))
    # Invisible Gaussians (alpha under 1/255) at the corners of one box in every frame: the
    # folder's camera fits the first frame, a pack's the whole sequence; both see this box.
    for c in range(8):
        corner = [1.2 if c >> axis & 1 else -1.2 for axis in range(3)]
        gaussians.append((corner, [0, 0, 0], [0] * 9, -12.0, [math.log(0.01)] * 3, [1, 0, 0, 0]))
    return gaussians

folder = Path(sys.argv[1])
for k in range(4):
    g = ring(k)
    if k == 2:
        # The 32-byte .splat: position, linear scale, RGBA, rotation as q * 128 + 128.
        with open(folder / f"frame_{k}.splat", "wb") as f:
            for p, dc, _, o, s, q in g:
                rgba = [max(0, min(255, round((0.5 + 0.28209479177387814 * c) * 255)))
                        for c in dc] + [round(255 / (1 + math.exp(-o)))]
                n = math.sqrt(sum(v * v for v in q))
                f.write(struct.pack("<6f4B4B", *p, *[math.exp(v) for v in s], *rgba,
                                    *[max(0, min(255, round(v / n * 128 + 128))) for v in q]))
        continue
    names = ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"]
    names += [f"f_rest_{i}" for i in range(9)]
    names += ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
    head = f"ply\nformat binary_little_endian 1.0\nelement vertex {len(g)}\n"
    head += "".join(f"property float {n}\n" for n in names) + "end_header\n"
    with open(folder / f"frame_{k}.ply", "wb") as f:
        f.write(head.encode())
        for p, dc, rest, o, s, q in g:
            f.write(struct.pack("<26f", *p, 0, 0, 0, *dc, *rest, o, *s, *q))
PY

echo "== the folder: every frame drawn, distinct"
play folder "$seq"
grep -q "folder .*3 PLY and 1 SPZ/.splat files" "$out/folder.log" \
    || grep -q "3 PLY and 1 SPZ/.splat files" "$out/folder.json" \
    || wrong "folder: the description does not count the splat files"
"$check" --size 160x120 --min-fraction 0.05 "$out"/folder/*.png || wrong "folder: a blank frame"
for i in 0 1 2; do
    for j in $(seq $((i + 1)) 3); do
        cmp -s "$(png folder "$i")" "$(png folder "$j")" && wrong "folder: frames $i and $j are equal"
    done
done

echo "== the splat debug channels"
for view in splat-alpha splat-count splat-centres; do
    play "$view" "$seq" --channel "$view"
    grep -q "\"channel\": \"$view\"" "$out/$view.json" || wrong "$view: the report names another channel"
    "$check" --size 160x120 --min-fraction 0.01 "$out/$view"/*.png || wrong "$view: a blank frame"
    for i in 0 1 2 3; do
        cmp -s "$(png "$view" "$i")" "$(png folder "$i")" && wrong "$view: frame $i is the colour channel's"
    done
done
cmp -s "$(png splat-alpha 0)" "$(png splat-count 0)" && wrong "splat-alpha and splat-count draw the same"

echo "== packed and f32 packs"
"$pack" "$seq" -o "$out/packed.tdpk" -q || fail "tandem-pack (packed)"
"$pack" "$seq" -o "$out/f32.tdpk" --splats f32 -q || fail "tandem-pack --splats f32"
"$pack" --info "$out/packed.tdpk" >"$out/info.txt" || fail "tandem-pack --info"
cat "$out/info.txt"
grep -q "splats .*608 Gaussians of SH degree 1, packed (44 bytes each)" "$out/info.txt" \
    || wrong "--info does not name the packed splats"
"$pack" --verify "$out/packed.tdpk" || wrong "--verify of the packed pack"
[ "$(stat -c %s "$out/packed.tdpk")" -lt "$(stat -c %s "$out/f32.tdpk")" ] \
    || wrong "the packed pack is not smaller than the f32 one"
play f32 "$out/f32.tdpk"
play packed "$out/packed.tdpk"
for i in 0 1 2 3; do
    cmp -s "$(png f32 "$i")" "$(png folder "$i")" || wrong "f32 pack frame $i is not the folder's"
done
python3 - "$(dirname "$0")/../support" "$out" <<'PY' || wrong "packed frames differ from the folder's"
import math, sys
sys.path.insert(0, sys.argv[1])
import png
bad = 0
for i in range(4):
    _, _, a = png.load(f"{sys.argv[2]}/folder/frame_{i:06d}.png")
    _, _, b = png.load(f"{sys.argv[2]}/packed/frame_{i:06d}.png")
    sq = sum((x - y) ** 2 for la, lb in zip(a, b) for x, y in zip(la, lb))
    n = sum(len(line) for line in a)
    db = 99.0 if sq == 0 else 10 * math.log10(n * 255 * 255 / sq)
    print(f"packed frame {i}: {db:.1f} dB against the folder's")
    bad += db < 40.0
sys.exit(1 if bad else 0)
PY

echo "== compare, a camera path and video, as for points and meshes"
columns="$(dirname "$0")/png_columns.py"
play difference "$seq" --compare "$out/f32.tdpk" --compare-mode difference
for i in 0 1 2 3; do
    python3 "$columns" black "$(png difference "$i")" || wrong "difference of equal frames $i not black"
done
echo '{"keyframes": [{"frame": 0, "yaw": 30, "pitch": 20, "distance": 1},
                    {"frame": 3, "yaw": 30, "pitch": 20, "distance": 1}]}' >"$out/path_still.json"
echo '{"keyframes": [{"frame": 0, "yaw": 30, "pitch": 20, "distance": 1},
                    {"frame": 3, "yaw": 150, "pitch": 50, "distance": 1.5}]}' >"$out/path_turn.json"
play still "$seq" --camera-path "$out/path_still.json"
for i in 0 1 2 3; do
    cmp -s "$(png still "$i")" "$(png folder "$i")" || wrong "camera path at the default pose: frame $i differs"
done
play turn "$seq" --camera-path "$out/path_turn.json"
for i in 2 3; do
    cmp -s "$(png turn "$i")" "$(png folder "$i")" && wrong "camera path: frame $i did not follow it"
done
if command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null; then
    "$viewer" --headless "$seq" --every-frame --size 160x120 --video "$out/splats.mp4" -q \
        || wrong "video: exit $?"
    frames=$(ffprobe -v error -count_frames -select_streams v:0 \
        -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$out/splats.mp4")
    [ "$frames" = "160,120,4" ] || wrong "video: width,height,frames $frames, expected 160,120,4"
else
    echo "note: no ffmpeg/ffprobe: the video check left out"
fi

echo "== batch: two pieces of the pack merge into the whole render"
for range in 0:2 2:; do
    "$viewer" --headless "$out/f32.tdpk" --size 160x120 --frame-range "$range" \
        --out "$out/pieces" -q || wrong "--frame-range $range: exit $?"
done
for i in 0 1 2 3; do
    cmp -s "$out/pieces/$(basename "$(png f32 "$i")")" "$(png f32 "$i")" \
        || wrong "batch piece frame $i is not the whole run's"
done

echo "== --up"
play up "$seq" --up -y
for i in 0 1 2 3; do
    cmp -s "$(png up "$i")" "$(png folder "$i")" && wrong "--up -y: frame $i is not turned"
done
"$check" --size 160x120 --min-fraction 0.05 "$out"/up/*.png || wrong "--up: a blank frame"
"$pack" "$seq" -o "$out/up.tdpk" --splats f32 --up -y -q || fail "tandem-pack --up -y"
play up-pack "$out/up.tdpk"
for i in 0 1 2 3; do
    cmp -s "$(png up-pack "$i")" "$(png up "$i")" || wrong "tandem-pack --up -y: frame $i is not the viewer's --up -y"
done
"$pack" "$out/f32.tdpk" -o "$out/nope.tdpk" --up -y -q 2>"$out/pack-up-pack.log"
code=$?
[ $code = 1 ] || wrong "tandem-pack --up of a pack: exit $code, expected 1"
grep -q "error: .*cannot be turned" "$out/pack-up-pack.log" || wrong "tandem-pack --up of a pack: no clear error"
[ -e "$out/nope.tdpk" ] && wrong "tandem-pack --up of a pack wrote a pack"
"$viewer" --headless "$out/packed.tdpk" --up -y --size 160x120 --out "$out/nope" -q \
    2>"$out/up-pack.log"
code=$?
cat "$out/up-pack.log"
[ $code = 1 ] || wrong "--up with a pack: exit $code, expected 1"
grep -q "error: .*tandem-pack --up" "$out/up-pack.log" || wrong "--up with a pack: no clear error"

[ $failures = 0 ] || fail "$failures checks failed"
echo "viewer_splats: all checks passed"
