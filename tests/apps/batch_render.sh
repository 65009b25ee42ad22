#!/usr/bin/env bash
# Batch rendering in pieces (tandem-viewer --headless --frame-range / --camera-paths / --resume),
# scripts/render-local.sh and scripts/batch/merge.py: ranges rendered by separate processes equal one process's render
# byte for byte, along several camera paths too, for a pack and for a folder of files (whose
# camera fits the first frame, whichever frame a piece starts at); a process killed mid-run and
# rerun with --resume leaves the same result, no temporary file kept, nothing rendered twice;
# two --resume runs on one folder at once both succeed with every frame whole; --resume without
# a range resumes the whole sequence; --batch-plan makes its folder and fails on a full disk;
# merge.py passes a complete render (and makes the videos where ffmpeg is, refusing an MP4 that
# ffmpeg could not finish), names missing, damaged and conflicting frames, and never removes a
# live writer's temporary; bad command lines are usage errors.
# Usage: batch_render.sh VIEWER PACK MERGE_PY OUT_DIR
set -uo pipefail
viewer=$(realpath "$1"); pack=$(realpath "$2"); merge=$(realpath "$3"); out=$4
root="$(cd "$(dirname "$merge")/../.." && pwd)"
rm -rf "$out"; mkdir -p "$out"; cd "$out"
failures=0
wrong() { echo "FAIL: $*"; failures=$((failures + 1)); }
render() { "$viewer" --headless "$@" -q; }
same() { # same FOLDER_A FOLDER_B: the same files, byte for byte
    local a=$1 b=$2
    [ "$(ls "$a" | grep '\.png$' | sort)" = "$(ls "$b" | grep '\.png$' | sort)" ] ||
        { wrong "$a and $b hold different files"; return; }
    for f in "$a"/*.png; do cmp -s "$f" "$b/$(basename "$f")" || wrong "$f differs from $b"; done
}
seq="sample:points=30000,frames=24"
size="--size 96x72"
cat >left.json <<'EOF'
{"keyframes": [{"frame": 0, "yaw": 10, "pitch": 15, "distance": 1.0},
               {"frame": 23, "yaw": 120, "pitch": 25, "distance": 0.8}]}
EOF
cat >right.json <<'EOF'
{"keyframes": [{"frame": 0, "yaw": 200, "pitch": -10, "distance": 1.3},
               {"frame": 23, "yaw": 260, "pitch": 5, "distance": 1.0}]}
EOF

echo "== ranges in pieces equal the whole, byte for byte"
render "$seq" $size --out whole --frame-range 0: || wrong "whole: exit $?"
[ "$(ls whole | wc -l)" = 24 ] || wrong "whole: $(ls whole | wc -l) files, not 24"
[ -f whole/frame_000023.png ] || wrong "whole: frame_000023.png missing"
render "$seq" $size --out pieces --frame-range 0:7 || wrong "piece 0:7: exit $?"
render "$seq" $size --out pieces --frame-range 7:19 || wrong "piece 7:19: exit $?"
render "$seq" $size --out pieces --frame-range 19:30 || wrong "piece 19:30: exit $?"
render "$seq" $size --out pieces --frame-range 40:50 || wrong "a range past the end: exit $?"
render "$seq" $size --out pieces --frame-range 40: || wrong "an open range past the end: exit $?"
same whole pieces

echo "== a pack and a folder of files (no bounds before loading) in pieces"
"$pack" "$seq" -o seq.tdpk -q || wrong "tandem-pack: exit $?"
render seq.tdpk $size --out pack_whole --frame-range 0: || wrong "pack whole: exit $?"
render seq.tdpk $size --out pack_pieces --frame-range :11 || wrong "pack :11: exit $?"
render seq.tdpk $size --out pack_pieces --frame-range 11: || wrong "pack 11:: exit $?"
same pack_whole pack_pieces
mkdir -p plys
python3 - <<'EOF'
import math
for f in range(10):
    with open(f"plys/scan_{f}.ply", "w") as out:  # a ring drifting and growing frame by frame
        points = [(math.cos(a / 50) * (1 + f / 5) + f / 3, math.sin(a / 50) * (1 + f / 5), a / 300)
                  for a in range(314)]
        out.write("ply\nformat ascii 1.0\nelement vertex %d\nproperty float x\nproperty float y\n"
                  "property float z\nend_header\n" % len(points))
        out.writelines(f"{x} {y} {z}\n" for x, y, z in points)
EOF
render plys $size --out ply_whole --frame-range 0: --point-size 3 || wrong "plys whole: exit $?"
render plys $size --out ply_pieces --frame-range 0:4 --point-size 3 || wrong "plys 0:4: exit $?"
render plys $size --out ply_pieces --frame-range 4: --point-size 3 || wrong "plys 4:: exit $?"
same ply_whole ply_pieces

echo "== scripts/render-local.sh: processes side by side, merged and checked"
"$root/scripts/render-local.sh" "$seq" local --per-gpu 3 --viewer "$viewer" -- $size >local.log 2>&1 ||
    wrong "render-local.sh: $(tail -5 local.log)"
grep -q "all 24 frames present once and complete" local.log || wrong "render-local.sh: $(cat local.log)"
same whole local

echo "== camera paths: each over the range, named by path"
render "$seq" $size --out paths_whole --frame-range 0: --camera-paths left.json right.json orbit ||
    wrong "paths whole: exit $?"
[ "$(ls paths_whole | wc -l)" = 72 ] || wrong "paths: $(ls paths_whole | wc -l) files, not 72"
for name in left right orbit; do
    [ -f "paths_whole/frame_${name}_000012.png" ] || wrong "paths: frame_${name}_000012.png missing"
done
cmp -s paths_whole/frame_left_000005.png paths_whole/frame_right_000005.png &&
    wrong "paths: two paths drew the same image"
render "$seq" $size --out paths_pieces --frame-range 0:13 --camera-paths left.json right.json orbit ||
    wrong "paths 0:13: exit $?"
render "$seq" $size --out paths_pieces --frame-range 13: --camera-paths left.json right.json orbit ||
    wrong "paths 13:: exit $?"
same paths_whole paths_pieces

echo "== killed mid-run, resumed: the same result, nothing kept half-written"
long="sample:points=30000,frames=400"
render "$long" $size --out long_whole --frame-range 100:220 || wrong "long whole: exit $?"
"$viewer" --headless "$long" $size --out killed --frame-range 100:220 -q &
pid=$!
for _ in $(seq 1 600); do # until some frames are written, at most 60 s
    [ "$(ls killed 2>/dev/null | grep -c '\.png$')" -ge 10 ] && break
    sleep 0.1
done
kill -KILL "$pid"; wait "$pid" 2>/dev/null
written=$(ls killed | grep -c '\.png$')
[ "$written" -ge 10 ] && [ "$written" -lt 120 ] ||
    echo "note: $written frames written when killed (the kill is not mid-run)"
# As a kill while writing leaves it: a temporary named for a process that is gone (the engine's
# names, made by python/tandem/_atomic.py).
temporary() { # temporary FOLDER/NAME PID: the name of NAME's temporary of process PID
    python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import _atomic; print(_atomic.temporary_for(sys.argv[2], int(sys.argv[3])))' \
        "$root/python/tandem" "$1" "$2"
}
sh -c 'exit 0' & dead=$!; wait $dead
echo junk >"$(temporary killed/frame_000219.png $dead)"
"$viewer" --headless "$long" $size --out killed --frame-range 100:220 --resume >resume.log 2>&1 ||
    wrong "resume: exit $?"
grep -q "resuming: $written frames already written" resume.log ||
    wrong "resume did not skip the $written frames written: $(grep -i resum resume.log)"
[ "$(find killed -name '*.partial' | wc -l)" = 0 ] || wrong "resume left a temporary: $(ls -A killed | grep partial)"
same long_whole killed
"$viewer" --headless "$long" $size --out killed --frame-range 100:220 --resume >again.log 2>&1 ||
    wrong "resume of a finished range: exit $?"
grep -q "nothing to render" again.log || wrong "a finished range rendered again: $(cat again.log)"
"$viewer" --headless "$long" $size --out killed --frame-range 100:220 >norestart.log 2>&1 &&
    wrong "a second render over existing frames without --resume or --overwrite succeeded"
grep -q "already exists" norestart.log || wrong "no 'already exists': $(cat norestart.log)"

echo "== two --resume runs on one folder at once: both succeed, every frame whole"
# The skip is decided per frame: a frame the other run wrote first is done, not an error.
"$viewer" --headless "$long" $size --out twice --frame-range 100:160 --resume >twice_a.log 2>&1 &
a=$!
"$viewer" --headless "$long" $size --out twice --frame-range 100:160 --resume >twice_b.log 2>&1 &
b=$!
wait $a; code_a=$?; wait $b; code_b=$?
[ $code_a = 0 ] && [ $code_b = 0 ] ||
    wrong "two --resume runs: exits $code_a and $code_b: $(grep error: twice_a.log twice_b.log)"
[ "$(ls twice | grep -c '\.png$')" = 60 ] || wrong "two --resume runs: $(ls twice | wc -l) files, not 60"
for f in twice/*.png; do cmp -s "$f" "long_whole/$(basename "$f")" || wrong "$f differs from the whole render"; done
[ "$(find twice -name '*.partial' | wc -l)" = 0 ] || wrong "two --resume runs left a temporary"
grep -h "already present, written meanwhile by another run" twice_a.log twice_b.log ||
    echo "note: the two runs did not meet on a frame"

echo "== --resume without --frame-range resumes the whole sequence"
mkdir -p resumed && cp whole/frame_00000[0-9].png resumed/
render "$seq" $size --out resumed --resume || wrong "--resume alone: exit $?"
same whole resumed
"$viewer" --headless "$seq" $size --out resumed --resume >resumed.log 2>&1 ||
    wrong "--resume alone, finished: exit $?"
grep -q "nothing to render: frames 0 to 23 are already written" resumed.log ||
    wrong "--resume alone over a finished render: $(cat resumed.log)"

echo "== merge.py: complete, then missing, damaged and conflicting frames named"
# A link planted where the plan's temporary once was (plan.json.partial) is not written through.
echo precious >precious.txt
ln -s precious.txt plan.json.partial
"$viewer" --headless "$seq" $size --frame-range 0: --camera-paths left.json right.json orbit \
    --batch-plan plan.json -q || wrong "--batch-plan: exit $?"
[ ! -d out ] || wrong "--batch-plan made an output folder"
[ "$(cat precious.txt)" = precious ] || wrong "--batch-plan wrote through plan.json.partial"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' plan.json || wrong "plan.json is not whole"
rm plan.json.partial
render "$seq" $size --frame-range 0:4 --batch-plan new/plans/plan.json ||
    wrong "--batch-plan into a missing folder: exit $?"
[ -f new/plans/plan.json ] || wrong "--batch-plan did not make its folder"
# A full disk (a file-size limit of 1 KiB; the plan of 72 files is larger): an error, no plan.
(ulimit -f 1; exec "$viewer" --headless "$seq" $size --frame-range 0: \
    --camera-paths left.json right.json orbit --batch-plan fullplan.json >fullplan.log 2>&1)
code=$?
[ $code = 1 ] || wrong "--batch-plan on a full disk: exit $code, expected 1: $(cat fullplan.log)"
grep -q "^error: fullplan.json: cannot write: File too large" fullplan.log ||
    wrong "--batch-plan on a full disk: $(cat fullplan.log)"
grep -q "wrote the plan" fullplan.log && wrong "--batch-plan on a full disk said it wrote the plan"
[ -e fullplan.json ] && wrong "--batch-plan on a full disk left fullplan.json"
[ "$(ls -A | grep -c 'partial$')" = 0 ] || wrong "--batch-plan on a full disk left a temporary"
# merge.py removes a dead run's temporary, never a live writer's (a render writing that frame).
sleep 600 & live=$!
echo live >"$(temporary paths_pieces/frame_left_000003.png $live)"
echo dead >"$(temporary paths_pieces/frame_left_000004.png $dead)"
python3 "$merge" plan.json paths_pieces >merge.log 2>&1 || wrong "merge of a complete render: $(cat merge.log)"
grep -q "all 72 frames present once and complete" merge.log || wrong "merge: $(cat merge.log)"
[ "$(ls -A paths_pieces | grep -c "^\.frame_left_000003\.png\.~.*~$live~")" = 1 ] ||
    wrong "merge.py removed a live writer's temporary"
[ "$(ls -A paths_pieces | grep -c "^\.frame_left_000004\.png\.")" = 0 ] ||
    wrong "merge.py kept a dead run's temporary"
kill $live; wait $live 2>/dev/null
rm -f paths_pieces/.*.partial
if command -v ffmpeg >/dev/null; then
    python3 "$merge" plan.json paths_pieces --video merged/v.mp4 -q ||
        wrong "merge --video: exit $?"
    for name in left right orbit; do [ -s "merged/v_$name.mp4" ] || wrong "no merged/v_$name.mp4"; done
    python3 "$merge" plan.json paths_pieces --video merged/v.mp4 -q 2>/dev/null &&
        wrong "merge --video replaced videos without --overwrite"
    [ "$(ls -A merged | grep -c partial)" = 0 ] || wrong "merge --video left a temporary"
    # ffmpeg 5.1 exits 0 when the end of the file cannot be written (a full disk): its MP4
    # has no moov box. A stand-in leaves just that; the merge refuses it.
    mkdir -p fakebin
    printf '%s\n' '#!/bin/sh' 'for last; do :; done' \
        "printf '\\000\\000\\000\\014ftypisom\\000\\000\\000\\000mdatxxxx' >\"\${last#file:}\"" >fakebin/ffmpeg
    chmod +x fakebin/ffmpeg
    PATH="$PWD/fakebin:$PATH" python3 "$merge" plan.json paths_pieces --video cut/v.mp4 -q \
        >cut.log 2>&1 && wrong "merge --video kept an MP4 without a moov box"
    grep -q "ffmpeg exited 0 but wrote an incomplete MP4 (a full disk?): no moov box" cut.log ||
        wrong "merge --video: $(cat cut.log)"
    [ -z "$(ls -A cut)" ] || wrong "merge --video left $(ls -A cut)"
    python3 "$merge" plan.json paths_pieces --video merged/v.gif -q >gif.log 2>&1
    [ $? = 2 ] && grep -q "must end in .mp4" gif.log || wrong "merge --video v.gif: $(cat gif.log)"
fi
mkdir -p gathered
render "$seq" $size --out elsewhere_a --frame-range 0:10 --camera-paths left.json right.json orbit
render "$seq" $size --out elsewhere_b --frame-range 10: --camera-paths left.json right.json orbit
python3 "$merge" plan.json gathered --from elsewhere_a elsewhere_b -q || wrong "merge --from: exit $?"
same paths_whole gathered
rm gathered/frame_left_000004.png elsewhere_a/frame_left_000004.png
rm gathered/frame_orbit_00001[5-7].png elsewhere_b/frame_orbit_00001[5-7].png
head -c 300 paths_whole/frame_right_000020.png >gathered/frame_right_000020.png
cp gathered/frame_right_000020.png elsewhere_b/frame_right_000020.png
cp paths_whole/frame_right_000001.png elsewhere_b/frame_left_000001.png # a stray, other bytes
python3 "$merge" plan.json gathered --from elsewhere_a elsewhere_b >broken.log 2>&1 &&
    wrong "merge of a broken render succeeded"
grep -q "1 frames missing along left: 4" broken.log || wrong "missing left 4 not named: $(cat broken.log)"
grep -q "3 frames missing along orbit: 15-17" broken.log || wrong "missing orbit 15-17 not named"
grep -q "frame_right_000020.png: truncated" broken.log || wrong "damaged frame not named: $(cat broken.log)"
grep -qE "frame_left_000001.png: present in [23] places with different contents" broken.log ||
    wrong "conflict not named: $(cat broken.log)"
[ -f gathered/frame_right_000020.png.damaged ] && [ ! -f gathered/frame_right_000020.png ] ||
    wrong "the damaged frame was not set aside"
# The stray removed, the missing and damaged frames drawn again by a resumed render: complete.
rm elsewhere_b/frame_left_000001.png elsewhere_b/frame_right_000020.png.damaged
render "$seq" $size --out gathered --frame-range 0: --camera-paths left.json right.json orbit --resume ||
    wrong "resumed render of the gaps: exit $?"
python3 "$merge" plan.json gathered --from elsewhere_a elsewhere_b -q || wrong "merge after the repair: exit $?"
same paths_whole gathered

render "$seq" $size --out pam --frame-range 0:4 --format pam || wrong "pam piece: exit $?"
"$viewer" --headless "$seq" $size --frame-range 0:4 --format pam --batch-plan pam_plan.json -q
python3 "$merge" pam_plan.json pam -q || wrong "merge of PAM frames: exit $?"
head -c 2000 pam/frame_000002.pam >cut.pam && mv cut.pam pam/frame_000002.pam
python3 "$merge" pam_plan.json pam >pam.log 2>&1 && wrong "a truncated PAM frame passed"
grep -q "frame_000002.pam: truncated" pam.log || wrong "truncated PAM not named: $(cat pam.log)"

echo "== bad command lines"
usage() { "$viewer" "$@" >usage.log 2>&1; local code=$?; [ $code = 2 ] || wrong "$* exit $code, not 2: $(cat usage.log)"; }
usage --headless "$seq" --frame-range 5:2
usage --headless "$seq" --frame-range a:b
usage --headless "$seq" --frame-range 7
usage "$seq" --frame-range 0:3
usage --headless "$seq" --frame-range 0:3 --spin 2
usage --headless "$seq" --frame-range 0:3 --frames 2
usage --headless "$seq" --resume --frames 2
usage "$seq" --resume
"$viewer" --headless "$seq" --frame-range 0:3 --camera-paths missing.json >missing.log 2>&1
[ $? = 1 ] && grep -q "missing.json" missing.log || wrong "a missing camera path: $(cat missing.log)"
"$viewer" --headless "$seq" --frame-range 0:3 --camera-paths left.json sub/left.json >twice.log 2>&1
[ $? = 1 ] && grep -q 'two paths named "left"' twice.log || wrong "two paths of one name: $(cat twice.log)"

if [ "$failures" -ne 0 ]; then echo "$failures failures"; exit 1; fi
echo "batch rendering: all checks passed"
