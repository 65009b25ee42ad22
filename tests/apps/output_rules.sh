#!/usr/bin/env bash
# tandem-raster's output rules: existing frames are not overwritten unless asked, an output
# path that cannot be a folder is an input error, a report or trace that could not be written
# is an error before the first frame (not after the run), and the default run writes one frame.
# The write rule: links planted at the old temporary names (NAME.partial) or at the final names
# redirect and destroy nothing; of two processes writing one output one wins whole and the
# other says `error: … already exists`; --overwrite with a shorter run warns about the older
# frames after it; --video takes only .mp4 names.
# Usage: output_rules.sh RASTER OUT_DIR
set -uo pipefail
raster=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

"$raster" --headless --size 64x48 --out "$out/a" -q || fail "first run failed"
[ -f "$out/a/frame_000000.png" ] || fail "no frame written"
before=$(stat -c %Y.%s "$out/a/frame_000000.png")
sleep 1
msg=$("$raster" --headless --size 64x48 --out "$out/a" 2>&1); code=$?
[ $code = 1 ] || fail "second run without --overwrite exited $code, expected 1"
grep -q "^error: .*frame_000000.png already exists" <<<"$msg" || fail "message: $msg"
[ "$(stat -c %Y.%s "$out/a/frame_000000.png")" = "$before" ] || fail "frame was modified"
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

# A file name that is not UTF-8 goes into the report (U+FFFD), which is written, not lost.
sample="$(dirname "$raster")/../assets/sample.ply"
cp "$sample" "$out/"$'\xff'".ply"
"$raster" --headless --size 64x48 --frames 2 --format none --report "$out/"$'\xfe'"r.json" -q \
    "$out/"$'\xff'".ply" || fail "a non-UTF-8 file name lost the report"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1], encoding="utf-8")); sys.exit(0 if r["files"][0].endswith("\ufffd.ply") else 1)' \
    "$out/"$'\xfe'"r.json" || fail "the report does not name the file"

# Links planted where the writers once put their temporaries: never followed, never destroyed.
mkdir -p "$out/links"
echo precious >"$out/target"; echo "also precious" >"$out/hard_target"
ln -s "$out/target" "$out/links/frame_000000.png.partial"
ln "$out/hard_target" "$out/links/frame_000001.png.partial"
ln -s "$out/target" "$out/links/r.json.partial"
ln -s "$out/target" "$out/links/t.json.partial"
"$raster" --headless --size 64x48 --frames 2 --out "$out/links" --report "$out/links/r.json" \
    --trace "$out/links/t.json" -q || fail "a run beside planted links failed"
[ "$(cat "$out/target")" = precious ] || fail "a symlink at an old temporary name was written through"
[ "$(cat "$out/hard_target")" = "also precious" ] || fail "a hard link at an old temporary name was destroyed"
python3 -c 'import json,sys; json.load(open(sys.argv[1])); json.load(open(sys.argv[2]))' \
    "$out/links/r.json" "$out/links/t.json" || fail "the report or trace is not whole JSON"
# ... and at the final names: refused without --overwrite, replaced (not written through) with it.
mkdir -p "$out/final"
ln -s "$out/target" "$out/final/frame_000000.png"
ln "$out/hard_target" "$out/final/frame_000001.png"
ln -s "$out/target" "$out/final/r.json"
"$raster" --headless --size 64x48 --frames 2 --out "$out/final" -q 2>/dev/null &&
    fail "frames over links at their names were written without --overwrite"
"$raster" --headless --size 64x48 --frames 2 --format none --report "$out/final/r.json" -q \
    2>/dev/null && fail "a report over a link at its name was written without --overwrite"
"$raster" --headless --size 64x48 --frames 2 --out "$out/final" --report "$out/final/r.json" \
    --overwrite -q || fail "--overwrite over links failed"
[ "$(cat "$out/target")" = precious ] && [ "$(cat "$out/hard_target")" = "also precious" ] ||
    fail "a link at a final name was written through"
[ -L "$out/final/frame_000000.png" ] && fail "the link at frame_000000.png is still there"
[ "$(find "$out" -name '*.partial' ! -path "$out/links/*" | wc -l)" = 0 ] || fail "a temporary was left"
[ "$(ls -A "$out/links" | grep -c '^\..*partial$')" = 0 ] || fail "a temporary was left in links/"

# Two processes writing one output at once: one wins, whole; the other says so.
two() { # two NAME ARGS...: runs the raster twice at once; sets $codes and the logs NAME_[ab].log
    local name=$1; shift
    "$raster" --headless --size 64x48 "$@" >"$out/${name}_a.log" 2>&1 & local a=$!
    "$raster" --headless --size 64x48 "$@" >"$out/${name}_b.log" 2>&1 & local b=$!
    wait $a; local ca=$?; wait $b; local cb=$?
    codes="$ca $cb"
    [ "$codes" = "0 1" ] || [ "$codes" = "1 0" ] || fail "$name: exits $codes, expected one 0 and one 1"
    cat "$out/${name}_a.log" "$out/${name}_b.log" | grep -q "^error: .*already exists" ||
        fail "$name: the loser did not say the output exists: $(cat "$out/${name}_"[ab].log)"
}
two report --frames 20 --format none --report "$out/same/r.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["frames"] == 20 else 1)' \
    "$out/same/r.json" || fail "the winning report is not whole"
two frame --frames 1 --out "$out/same_frame"
[ "$(ls -A "$out/same_frame")" = frame_000000.png ] || fail "one frame, two writers: $(ls -A "$out/same_frame")"
cmp -s "$out/same_frame/frame_000000.png" "$out/a/frame_000000.png" || fail "the frame is not whole"

# --overwrite with a shorter run: the earlier run's later frames are named, not deleted.
"$raster" --headless --size 64x48 --frames 5 --out "$out/shorter" -q || fail "5 frames"
msg=$("$raster" --headless --size 64x48 --frames 2 --out "$out/shorter" --overwrite -q 2>&1) ||
    fail "--overwrite with 2 frames failed: $msg"
grep -q "warning: .*shorter: 3 frames of an earlier run remain after this run's last frame (frame_000002.png to frame_000004.png)" <<<"$msg" ||
    fail "no warning about the older frames: $msg"
[ -f "$out/shorter/frame_000004.png" ] || fail "an older frame was deleted"

# --video names what is written: MP4, nothing else.
msg=$("$raster" --headless --size 64x48 --frames 2 --video "$out/x.gif" 2>&1); code=$?
[ $code = 2 ] || fail "--video x.gif exited $code, expected 2 (usage): $msg"
grep -q "^error: --video .*x.gif: videos are written as H.264 in MP4, so the name must end in .mp4 (not .gif)" <<<"$msg" ||
    fail "--video x.gif: $msg"
[ -e "$out/x.gif" ] && fail "--video x.gif wrote something"
echo "ok"
