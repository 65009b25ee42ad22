#!/usr/bin/env bash
# Every fallback, tested: no display -> headless; no CUDA driver -> the host backend, the cause
# named; no ffmpeg -> --video is an error before rendering; an output folder that cannot be made,
# a read-only one (not as root) or a full disk (a file-size limit) -> an error before or at the
# first frame with nothing half-written; a frame too large for --cache-mb or --gpu-memory-mb ->
# that frame skipped, named, playback going on; SIGINT during a headless export -> the frames
# written so far complete and listed, the video finalized, exit 130; SIGINT during tandem-pack ->
# no pack and no temporary file left; SIGINT before the first frame of a video -> exit 130,
# nothing written; SIGKILL during a video -> no ffmpeg log left in $TMPDIR, its temporary
# removed by the next writer in the folder. (No RenderDoc: the cli.raster.*renderdoc* tests.)
# Usage: fallbacks.sh VIEWER RASTER PNG_CHECK OUT_DIR [PACK]
set -uo pipefail
viewer=$(realpath "$1"); raster=$(realpath "$2"); check=$(realpath "$3"); out=$4
pack=${5:+$(realpath "$5")}
atomic=$(cd "$(dirname "$0")/../../python/tandem" && pwd) # _atomic.py, the scripts' write rule
rm -rf "$out"; mkdir -p "$out"; cd "$out"
failures=0
wrong() { echo "FAIL: $*"; failures=$((failures + 1)); }
has() { grep -qF -- "$2" "$1" || wrong "$1 lacks '$2': $(head -c 600 "$1")"; }
partials() { find "$1" -name '*.partial' 2>/dev/null | wc -l; }
seq="sample:points=2000,frames=30"

echo "== no display: headless instead"
for app in "$viewer" "$raster"; do
    name=$(basename "$app")
    env -u DISPLAY -u WAYLAND_DISPLAY "$app" --frames 2 --size 32x24 --out "nodisplay_$name" \
        >"nodisplay_$name.log" 2>&1 || wrong "$name without a display: exit $?"
    has "nodisplay_$name.log" "rendering headless instead"
    [ -f "nodisplay_$name/frame_000001.png" ] || wrong "$name without a display wrote no frames"
done

echo "== no CUDA driver: the host backend, the cause named"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "(a GPU is here: the gpu tier simulates GL on another GPU instead)"
else
    "$viewer" --headless "$seq" --frames 2 --size 32x24 --format none --report nocuda.json \
        >nocuda.log 2>&1 || wrong "no CUDA: exit $?"
    has nocuda.log "host backend: "
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["interop"]["path"] == "host" else 1)' \
        nocuda.json || wrong "no CUDA: the report does not say host"
fi

echo "== no ffmpeg: --video is an error before rendering"
PATH=/nonexistent TANDEM_FFMPEG= "$viewer" --headless "$seq" --size 32x24 --video v.mp4 \
    --report noffmpeg.json >noffmpeg.log 2>&1
code=$?
[ $code = 1 ] || wrong "no ffmpeg: exit $code, expected 1"
has noffmpeg.log "error: --video needs ffmpeg"
[ -e v.mp4 ] || [ "$(partials .)" != 0 ] || [ -e noffmpeg.json ] && wrong "no ffmpeg: something was written"
grep -q "frames/s" noffmpeg.log && wrong "no ffmpeg: frames were rendered"

echo "== output folders: cannot be made, read-only, full"
"$viewer" --headless "$seq" --size 32x24 --out /proc/tandem-out >proc.log 2>&1
[ $? = 1 ] || wrong "an output folder that cannot be made: exit not 1"
has proc.log "error: /proc/tandem-out: cannot create folder"
if [ "$(id -u)" != 0 ]; then
    mkdir readonly && chmod 555 readonly
    "$viewer" --headless "$seq" --size 32x24 --out readonly/frames >readonly.log 2>&1
    [ $? = 1 ] || wrong "a read-only folder: exit not 1"
    has readonly.log "error: "
    chmod 755 readonly
else
    echo "(root: permissions do not stop root; /proc stands for an unwritable place)"
fi
# A full disk: the file-size limit makes writes past 4 KiB fail (EFBIG), as a full disk does.
(ulimit -f 4; exec "$viewer" --headless "$seq" --every-frame --size 256x192 --out full \
    --format png >full.log 2>&1)
code=$?
[ $code = 1 ] || wrong "a full disk: exit $code, expected 1"
has full.log "error: "
grep -qi "file too large" full.log || wrong "a full disk: the cause is not named: $(tail -3 full.log)"
[ "$(partials full)" = 0 ] || wrong "a full disk left .partial files"
for f in full/*.png; do
    [ -e "$f" ] || continue
    "$check" "$f" >/dev/null || wrong "a full disk left a broken $f"
done

echo "== a frame too large for the memory budget or the GPU: skipped alone"
mkdir -p big
python3 - big <<'PY'
import struct, sys
def cloud(path, n, shift):
    head = ("ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\n"
            "property float y\nproperty float z\nend_header\n" % n).encode()
    body = b"".join(struct.pack("<3f", (i % 1000) / 500 - 1 + shift, (i // 1000) / 500 - 1, 0)
                    for i in range(n))
    open(path, "wb").write(head + body)
cloud(f"{sys.argv[1]}/frame_1.ply", 1000, 0.0)
cloud(f"{sys.argv[1]}/frame_2.ply", 1000000, 0.1)
cloud(f"{sys.argv[1]}/frame_3.ply", 1000, 0.2)
PY
"$viewer" --headless big --every-frame --cache-mb 16 --size 32x24 --format none \
    --report big_cache.json >big_cache.log 2>&1 || wrong "a frame over --cache-mb: exit $?"
has big_cache.log "skipped frame 1: big/frame_2.ply: the frame"
has big_cache.log "does not fit in the streaming memory budget (--cache-mb)"
"$viewer" --headless big --every-frame --cache-mb 64 --gpu-memory-mb 1 --size 32x24 \
    --format none --report big_gpu.json >big_gpu.log 2>&1 || wrong "a frame over --gpu-memory-mb: exit $?"
has big_gpu.log "skipped frame 1: big/frame_2.ply: the frame needs"
has big_gpu.log "more than --gpu-memory-mb allows (1 MiB)"
for r in big_cache big_gpu; do
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["streaming"]; sys.exit(0 if (s["frames_shown"], s["frames_skipped"]) == (2, 1) else 1)' \
        "$r.json" || wrong "$r: not 2 frames shown and 1 skipped"
done

echo "== SIGINT during a headless export"
interrupt() { # NAME ARGS...: starts an export, interrupts it after 4 frames, checks what is left
    local name=$1; shift
    "$viewer" --headless "sample:points=2000,frames=100000" --every-frame --size 64x48 "$@" \
        >"$name.log" 2>&1 &
    local pid=$!
    # Until the export has written a few frames or 64 KiB of video (bounded, so a broken run
    # cannot hang here).
    for _ in $(seq 600); do
        [ "$(ls "$name" 2>/dev/null | wc -l)" -ge 4 ] && break
        [ "$(cat ."$name".mp4.*.partial 2>/dev/null | wc -c)" -ge 65536 ] && break
        kill -0 $pid 2>/dev/null || break; sleep 0.1
    done
    sleep 0.3
    kill -INT $pid; wait $pid; local code=$?
    [ $code = 130 ] || wrong "$name: exit $code after SIGINT, expected 130: $(tail -3 "$name.log")"
    has "$name.log" "Interrupt: stopping after"
}
interrupt frames --out frames --format png
has frames.log "interrupted: "
written=$(sed -n 's/.*interrupted: \([0-9]*\) complete frames in.*/\1/p' frames.log)
[ -n "$written" ] && [ "$written" -ge 4 ] || wrong "frames: the log does not list the frames written"
[ "$(ls frames | grep -c '\.png$')" = "${written:-x}" ] || wrong "frames: $(ls frames | wc -l) files, the log says $written"
"$check" frames/*.png >/dev/null || wrong "frames: a frame is not a complete PNG"
[ "$(partials frames)" = 0 ] || wrong "frames: .partial files left"
if command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null; then
    interrupt video --video video.mp4
    has video.log "interrupted: video.mp4 holds the"
    held=$(sed -n 's/.*holds the \([0-9]*\) frames.*/\1/p' video.log)
    [ "$(partials .)" = 0 ] || wrong "video: a temporary was left"
    counted=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
        -of csv=p=0 video.mp4 2>/dev/null)
    [ -n "$held" ] && [ "$counted" = "$held" ] || wrong "video: ffprobe reads '$counted' frames, the log says '$held'"

    echo "== SIGINT before the first frame of --video: 130, nothing written"
    # --preload holds the first frame back until the whole sequence is loaded; the signal comes
    # once the session is set up (its handlers installed), while it loads, and ends the preload.
    "$viewer" --headless "sample:points=100000,frames=150" --preload --cache-mb 2048 --size 64x48 \
        --video early.mp4 >early.log 2>&1 &
    pid=$!
    for _ in $(seq 600); do grep -q "streaming: " early.log && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
    kill -INT $pid; wait $pid; code=$?
    [ $code = 130 ] || wrong "SIGINT before the first frame: exit $code, expected 130: $(tail -3 early.log)"
    has early.log "Interrupt: stopped during set-up, while preloading built-in sample"
    grep -q "^error:" early.log && wrong "SIGINT before the first frame: an error: $(grep ^error: early.log)"
    [ -e early.mp4 ] && wrong "SIGINT before the first frame: early.mp4 was written"

    echo "== SIGKILL during --video: no ffmpeg log left, the temporary removed by the next writer"
    mkdir -p killed tmp
    TMPDIR=$PWD/tmp "$viewer" --headless "sample:points=2000,frames=100000" --every-frame \
        --size 64x48 --video killed/v.mp4 >killed.log 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        [ "$(cat killed/.v.mp4.*.partial 2>/dev/null | wc -c)" -ge 4096 ] && break
        kill -0 $pid 2>/dev/null || break; sleep 0.1
    done
    kill -KILL $pid; wait $pid 2>/dev/null
    [ "$(partials killed)" = 1 ] || wrong "SIGKILL: $(partials killed) temporaries, expected the killed one"
    # The scripts read the engine's temporary names alike (merge.py removes only dead ones).
    python3 -c 'import os, sys; sys.path.insert(0, sys.argv[1]); import _atomic as a
sys.exit(0 if [a.parse_temporary(n) for n in os.listdir(sys.argv[2])] == [(a.host_tag(), int(sys.argv[3]))] else 1)' \
        "$atomic" killed $pid || wrong "python/tandem/_atomic.py does not read $(ls -A killed)"
    [ -z "$(ls -A tmp)" ] || wrong "SIGKILL left files in the temporary folder: $(ls -A tmp)"
    "$viewer" --headless "$seq" --size 64x48 --frames 3 --video killed/w.mp4 >next.log 2>&1 ||
        wrong "the next video into the folder: $(tail -3 next.log)"
    [ "$(partials killed)" = 0 ] || wrong "the killed writer's temporary was not removed: $(ls -A killed)"
else
    echo "(no ffmpeg: the video half is left out)"
fi

if [ -n "$pack" ]; then
    echo "== SIGINT during tandem-pack"
    "$pack" "sample:points=200000,frames=100000" -o interrupted.tdpk >pack.log 2>&1 &
    pid=$!
    for _ in $(seq 600); do grep -q "frames/s" pack.log && break; sleep 0.1; done
    kill -INT $pid; wait $pid; code=$?
    [ $code = 130 ] || wrong "tandem-pack: exit $code after SIGINT, expected 130"
    has pack.log "Interrupt: stopped after"
    [ -e interrupted.tdpk ] && wrong "tandem-pack left interrupted.tdpk"
    [ "$(find . -maxdepth 1 -name '.interrupted.tdpk*' | wc -l)" = 0 ] || wrong "tandem-pack left its temporary file"
fi

[ $failures = 0 ] || { echo "FAIL: $failures wrong (above)"; exit 1; }
echo "ok"
