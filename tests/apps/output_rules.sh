#!/usr/bin/env bash
# tandem-raster's output rules: existing frames are not overwritten unless asked, an output
# path that cannot be a folder is an input error, and the default run writes one frame.
# Usage: output_rules.sh RASTER OUT_DIR
set -uo pipefail
raster=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

"$raster" --headless --size 64x48 --out "$out/a" -q || fail "first run failed"
[ -f "$out/a/frame_00000.png" ] || fail "no frame written"
before=$(stat -c %Y.%s "$out/a/frame_00000.png")
sleep 1
msg=$("$raster" --headless --size 64x48 --out "$out/a" 2>&1); code=$?
[ $code = 1 ] || fail "second run without --overwrite exited $code, expected 1"
grep -q "^error: .*frame_00000.png already exists" <<<"$msg" || fail "message: $msg"
[ "$(stat -c %Y.%s "$out/a/frame_00000.png")" = "$before" ] || fail "frame was modified"
"$raster" --headless --size 64x48 --out "$out/a" --overwrite -q || fail "--overwrite run failed"

touch "$out/plainfile"
msg=$("$raster" --headless --size 64x48 --out "$out/plainfile" 2>&1); code=$?
[ $code = 1 ] || fail "output onto a file exited $code, expected 1"
grep -q "^error: .*not a folder" <<<"$msg" || fail "message: $msg"
echo "ok"
