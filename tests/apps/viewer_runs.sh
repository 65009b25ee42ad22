#!/usr/bin/env bash
# How a headless run ends, end to end (tandem-viewer, tandem-raster), one part per call:
#   skipped   a folder whose every frame is corrupt, and --gpu-memory-mb 1, exit 1 naming the
#             frames (they wrote blank frames and exited 0); a run that skipped one frame says
#             so at the end and exits 0
#   batch     a batch frame whose sequence frame is corrupt is not written (merge.py finds it
#             missing, --resume renders it again once the file is repaired) and the run exits 1
#             naming it
#   path      --camera-path holds from frame 0 of a folder: frame 0 differs from the fitted
#             camera's and equals a batch piece's frame 0
#   preload   --preload with a --cache-mb too small for a folder fails before playing, saying
#             how much it needs (it said "preloading 4/4" and skipped frames); with room, every
#             frame loads once; a 300-frame sample preloads (256 slots were the most)
#   sigint    SIGINT while set-up checks the names of 10^8 planned frames ends the run with 130
#             and says so (it went on checking for minutes); a watchdog kills it after 60 s,
#             failing the test
# Usage: viewer_runs.sh VIEWER RASTER MERGE_PY OUT_DIR PART
set -uo pipefail
viewer=$1; raster=$2; merge=$3; out=$4/$5; part=$5
rm -rf "$out"; mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; exit 1; }
wrong() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run NAME CMD...: runs CMD with stderr and stdout in $out/NAME.log; sets $code.
run() {
    local name=$1; shift
    "$@" >"$out/$name.log" 2>&1
    code=$?
    cat "$out/$name.log"
}
expect_code() { [ "$code" = "$2" ] || wrong "$1: exit $code, expected $2"; }
expect_log() { grep -qF -- "$2" "$out/$1.log" || wrong "$1: no '$2' in its output"; }
pngs() { find "$1" -name '*.png' 2>/dev/null | wc -l; }
# frames FOLDER N POINTS: N point-cloud frames frame_0.ply .. (binary PLY), a ring that turns.
frames() {
    python3 - "$@" <<'PY' || fail "writing frames"
import array, math, os, sys
folder, count, points = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(folder, exist_ok=True)
for k in range(count):
    xyz = array.array("f")
    for i in range(points):
        a = 2 * math.pi * i / points
        xyz.extend((math.cos(a + k / 3), math.sin(a + k / 3) * 0.5, (i % 7) / 7 - 0.5))
    with open(os.path.join(folder, f"frame_{k}.ply"), "wb") as f:
        f.write(f"ply\nformat binary_little_endian 1.0\nelement vertex {points}\n"
                "property float x\nproperty float y\nproperty float z\nend_header\n".encode())
        f.write(xyz.tobytes())
PY
}
play() { "$viewer" --headless --size 64x48 "$@"; }

case $part in
skipped)
    mkdir -p "$out/corrupt"
    printf 'ply\nformat ascii 1.0\n' >"$out/corrupt/frame_1.ply"
    printf 'ply\nformat binary_little_endian 1.0\nelement vertex 9\nproperty float x\nend_header\n' \
        >"$out/corrupt/frame_2.ply"
    run corrupt play "$out/corrupt" --out "$out/corrupt_out"
    expect_code corrupt 1
    expect_log corrupt "skipped 2 sequence frames of 2 that did not load: $out/corrupt/frame_1.ply, $out/corrupt/frame_2.ply"
    expect_log corrupt "error: no sequence frame was rendered"
    run gpu play sample:points=100000,frames=3 --every-frame --gpu-memory-mb 1 --out "$out/gpu_out"
    expect_code gpu 1
    expect_log gpu "skipped 3 sequence frames of 3 that did not load: sample frame 0, sample frame 1"
    expect_log gpu "error: no sequence frame was rendered"
    frames "$out/one_bad" 3 200
    head -c 100 "$out/one_bad/frame_1.ply" >"$out/one_bad/cut" && mv "$out/one_bad/cut" "$out/one_bad/frame_1.ply"
    run one_bad play "$out/one_bad" --every-frame --out "$out/one_bad_out"
    expect_code one_bad 0
    expect_log one_bad "skipped 1 sequence frame of 3 that did not load: $out/one_bad/frame_1.ply"
    grep -q "^error:" "$out/one_bad.log" && wrong "one_bad: an error for one skipped frame"
    [ "$(pngs "$out/one_bad_out")" = 3 ] || wrong "one_bad: $(pngs "$out/one_bad_out") frames, not 3"
    ;;
batch)
    frames "$out/seq" 3 200
    cp "$out/seq/frame_1.ply" "$out/good_frame_1.ply"
    head -c 100 "$out/good_frame_1.ply" >"$out/seq/frame_1.ply"
    run plan play "$out/seq" --frame-range 0:3 --batch-plan "$out/plan.json"
    expect_code plan 0
    run piece play "$out/seq" --frame-range 0:3 --out "$out/pieces"
    expect_code piece 1
    expect_log piece "error: 1 batch frame not written (its sequence frame did not load, above): frame_000001.png; --resume renders it again"
    [ -e "$out/pieces/frame_000001.png" ] && wrong "piece: frame_000001.png written for a skipped frame"
    [ -f "$out/pieces/frame_000000.png" ] && [ -f "$out/pieces/frame_000002.png" ] ||
        wrong "piece: the frames that loaded are not all written"
    [ -z "$(find "$out/pieces" -name '.*')" ] || wrong "piece: a temporary was left: $(ls -A "$out/pieces")"
    run merge python3 "$merge" "$out/plan.json" "$out/pieces"
    expect_code merge 1
    expect_log merge "1 frames missing: 1"
    run again play "$out/seq" --frame-range 0:3 --out "$out/pieces" --resume
    expect_code again 1
    expect_log again "resuming: 2 frames already written, 1 to render"
    cp "$out/good_frame_1.ply" "$out/seq/frame_1.ply"
    run repaired play "$out/seq" --frame-range 0:3 --out "$out/pieces" --resume
    expect_code repaired 0
    run merged python3 "$merge" "$out/plan.json" "$out/pieces"
    expect_code merged 0
    expect_log merged "all 3 frames present once and complete"
    ;;
path)
    frames "$out/seq" 3 400
    cat >"$out/path.json" <<'EOF'
{"keyframes": [{"frame": 0, "yaw": 120, "pitch": 40, "distance": 1.5},
               {"frame": 2, "yaw": 200, "pitch": 10, "distance": 1.0}]}
EOF
    run plain play "$out/seq" --every-frame --out "$out/plain"
    run whole play "$out/seq" --every-frame --out "$out/whole" --camera-path "$out/path.json"
    run piece play "$out/seq" --frame-range 0:2 --out "$out/piece" --camera-path "$out/path.json"
    for name in plain whole piece; do expect_code $name 0; done
    cmp -s "$out/whole/frame_000000.png" "$out/plain/frame_000000.png" &&
        wrong "frame 0 along the path is the fitted camera's"
    for f in frame_000000.png frame_000001.png; do
        cmp -s "$out/whole/$f" "$out/piece/$f" || wrong "$f of the whole render is not the batch piece's"
    done
    ;;
preload)
    # Four frames of 5.7 MiB staged (300 000 points): 16 MiB holds two, 32 all four.
    frames "$out/seq" 4 300000
    run small play "$out/seq" --every-frame --preload --cache-mb 16 --out "$out/small"
    expect_code small 1
    expect_log small "error: --preload: folder $out/seq/ (4 PLY files at 30 fps) does not fit in the staging budget (--cache-mb 16)"
    expect_log small "raise --cache-mb to at least"
    [ "$(pngs "$out/small")" = 0 ] || wrong "small: frames written after a failed preload"
    run room play "$out/seq" --every-frame --preload --cache-mb 32 --format none \
        --report "$out/room.json"
    expect_code room 0
    python3 - "$out/room.json" <<'PY' || wrong "room: not every frame shown once, loaded once"
import json, sys
s = json.load(open(sys.argv[1]))["streaming"]
print({k: s[k] for k in ("frames_shown", "frames_skipped", "frames_loaded")})
assert (s["frames_shown"], s["frames_skipped"], s["frames_loaded"]) == (4, 0, 4), s
PY
    run many play sample:points=16,frames=300 --every-frame --preload --format none -q
    expect_code many 0
    ;;
sigint)
    # bounded NAME CMD...: CMD in the background; once set-up has begun (its "passes:" line),
    # SIGINT; fails the test when it has not ended 60 s later.
    bounded() {
        local name=$1; shift
        "$@" >"$out/$name.log" 2>&1 &
        local pid=$!
        # Its output goes nowhere: a sleep left holding the test's stdout kept ctest waiting
        # for the whole 60 s after the run had ended.
        (sleep 60; kill -KILL $pid 2>/dev/null) >/dev/null 2>&1 &
        local watchdog=$!
        for _ in $(seq 1 600); do
            grep -q "passes:" "$out/$name.log" && break
            sleep 0.1
        done
        kill -INT $pid
        wait $pid
        code=$?
        kill $watchdog 2>/dev/null; wait $watchdog 2>/dev/null
        cat "$out/$name.log"
        [ $code = 137 ] && fail "$name did not end within 60 s of SIGINT"
    }
    bounded raster "$raster" --headless --frames 100000000 --size 32x24 --out "$out/raster"
    expect_code raster 130
    expect_log raster "Interrupt: stopped during set-up, while checking the names of the 100000000 frames to write"
    bounded viewer "$viewer" --headless sample:points=16,frames=2 --frames 100000000 --size 32x24 \
        --out "$out/viewer"
    expect_code viewer 130
    expect_log viewer "Interrupt: stopped during set-up, while checking the names of the 100000000 frames to write"
    grep -q "^error:" "$out/viewer.log" && wrong "viewer: a stop reported as an error"
    ;;
*)
    fail "unknown part $part"
    ;;
esac
[ $failures = 0 ] || fail "$failures wrong values (above)"
echo "ok: $part"
