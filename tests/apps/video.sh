#!/usr/bin/env bash
# tandem-raster --video pipes frames, in order, to ffmpeg: the MP4 has every frame and no
# temporary remains; an existing video is not replaced without --overwrite; an odd size is
# padded with a warning naming both sizes; an MP4 that ffmpeg could not finish on a full disk
# (it exits 0, no moov box) is an error, nothing kept; of two processes writing one video one
# wins, whole. Skipped (77) where ffmpeg is not installed (scripts/install-deps.sh installs it).
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
[ "$(ls -A "$out" | grep -c partial)" = 0 ] || fail "a temporary was left: $(ls -A "$out")"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
    -of csv=p=0 "$out/spin.mp4")
[ "$frames" = 15 ] || fail "video has $frames frames, expected 15"
msg=$("$raster" --headless --size 96x70 --frames 3 --video "$out/spin.mp4" "$mesh" 2>&1); code=$?
[ $code = 1 ] || fail "replacing a video without --overwrite exited $code"
grep -q "^error: .*spin.mp4.*already exists" <<<"$msg" || fail "message: $msg"

msg=$("$raster" --headless --size 95x71 --frames 3 --video "$out/odd.mp4" "$mesh" 2>&1) ||
    fail "odd size: $msg"
[ "$(grep -c "odd.mp4: 95x71 frames are padded to 96x72 with black" <<<"$msg")" = 1 ] ||
    fail "odd size: no single warning naming both sizes: $msg"

# A full disk as ffmpeg 5.1 meets it: a 1 KiB file-size limit with SIGXFSZ ignored, so writing
# the end of the file fails with EFBIG; ffmpeg says so and exits 0.
mkdir -p "$out/bin" "$out/full"
printf '%s\n' '#!/bin/sh' "trap '' XFSZ; ulimit -f 1; exec $(command -v ffmpeg) \"\$@\"" >"$out/bin/ffmpeg"
chmod +x "$out/bin/ffmpeg"
msg=$(TANDEM_FFMPEG="$out/bin/ffmpeg" "$raster" --headless --size 96x70 --frames 15 \
    --video "$out/full/v.mp4" "$mesh" 2>&1); code=$?
[ $code = 1 ] || fail "a video on a full disk exited $code, expected 1: $msg"
# (A later ffmpeg that reports the failure itself is refused by its exit status.)
grep -qE "^error: .*v.mp4: (ffmpeg exited 0 but wrote an incomplete MP4 \(a full disk\?\): .*no moov box|encoding failed \(ffmpeg exited with status)" <<<"$msg" ||
    fail "a video on a full disk: not the error expected: $msg"
grep -q "info: wrote .*v.mp4" <<<"$msg" && fail "a video on a full disk was reported written: $msg"
[ -z "$(ls -A "$out/full")" ] || fail "a video on a full disk left $(ls -A "$out/full")"

# Two processes writing one video at once: one wins with every frame, the other is an error.
"$raster" --headless --size 96x70 --frames 40 --video "$out/same.mp4" "$mesh" -q >"$out/a.log" 2>&1 & a=$!
"$raster" --headless --size 96x70 --frames 40 --video "$out/same.mp4" "$mesh" -q >"$out/b.log" 2>&1 & b=$!
wait $a; ca=$?; wait $b; cb=$?
[ "$ca $cb" = "0 1" ] || [ "$ca $cb" = "1 0" ] || fail "two writers of one video: exits $ca and $cb"
cat "$out/a.log" "$out/b.log" | grep -q "^error: .*same.mp4: already exists" ||
    fail "two writers of one video: $(cat "$out/a.log" "$out/b.log")"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
    -of csv=p=0 "$out/same.mp4")
[ "$frames" = 40 ] || fail "the winning video has $frames frames, expected 40"
[ "$(ls -A "$out" | grep -c partial)" = 0 ] || fail "two writers left a temporary"
echo ok
