#!/usr/bin/env bash
# tandem-raster's output rules: existing frames are not overwritten unless asked, an output
# path that cannot be a folder is an input error, a report or trace that could not be written
# is an error before the first frame (not after the run), and the default run writes one frame.
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
# A report or trace that cannot be written, or exists: refused before anything renders.
for bad in "--report /proc/nowhere/r.json" "--trace /proc/nowhere/t.json" \
           "--report $out/plainfile" "--trace $out"; do
    # shellcheck disable=SC2086
    msg=$("$raster" --headless --size 64x48 --frames 5 --out "$out/b" $bad 2>&1); code=$?
    [ $code = 1 ] || fail "$bad exited $code, expected 1: $msg"
    grep -q "^error: " <<<"$msg" || fail "$bad: no error line: $msg"
    [ -z "$(ls -A "$out/b" 2>/dev/null)" ] || fail "$bad: frames were rendered before the error"
done
"$raster" --headless --size 64x48 --frames 2 --format none -q --report "$out/new/r.json" ||
    fail "a report into a missing folder (made) failed"
[ -f "$out/new/r.json" ] || fail "no report in the made folder"
echo "ok"
