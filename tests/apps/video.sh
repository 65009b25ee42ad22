#!/usr/bin/env bash
# tandem-raster --video pipes frames, in order, to ffmpeg: the MP4 has every frame and no
# partial file remains; an existing video is not replaced without --overwrite. Skipped (77)
# where ffmpeg is not installed (scripts/install-deps.sh installs it).
# Usage: video.sh RASTER MESH OUT_DIR
set -uo pipefail
raster=$1; mesh=$2; out=$3
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null \
    || { echo "ffmpeg/ffprobe not installed: skipped"; exit 77; }
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
"$raster" --headless --size 96x70 --frames 15 --spin 10 --video "$out/spin.mp4" --fps 25 -q \
    "$mesh" || fail "video run"
[ -f "$out/spin.mp4" ] || fail "no video"
ls "$out"/*.partial 2>/dev/null && fail "partial file left"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
    -of csv=p=0 "$out/spin.mp4")
[ "$frames" = 15 ] || fail "video has $frames frames, expected 15"
msg=$("$raster" --headless --size 96x70 --frames 3 --video "$out/spin.mp4" "$mesh" 2>&1); code=$?
[ $code = 1 ] || fail "replacing a video without --overwrite exited $code"
grep -q "^error: .*spin.mp4.*already exists" <<<"$msg" || fail "message: $msg"
echo ok
