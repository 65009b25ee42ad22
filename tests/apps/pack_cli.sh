#!/usr/bin/env bash
# tandem-pack end to end on a small sample: pack, --info, --verify, a damaged byte named by
# --verify (exit 1), never overwriting unless --overwrite, re-packing a pack, and usage errors
# (exit 2). Usage: pack_cli.sh TANDEM_PACK OUT_DIR
set -uo pipefail
pack=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
# run EXPECTED_EXIT COMMAND...: runs it, output in $output, checks the exit code.
run() {
    local expected=$1; shift
    output=$("$@" 2>&1 </dev/null); local code=$?
    echo "\$ ${*##*/}"; echo "$output" | head -12
    [ "$code" = "$expected" ] || fail "exit $code, expected $expected: $*"
    if [ "$expected" != 0 ] && ! grep -q '^error: ' <<<"$output"; then
        fail "no line starting with 'error: ': $*"
    fi
}
expect() { grep -qF -- "$1" <<<"$output" || fail "output lacks '$1'"; }

seq="$out/seq.tdpk"
run 0 "$pack" sample:points=2000,frames=5 -o "$seq" --codec lz4 --threads 2
expect "MiB/s"
[ -f "$seq" ] || fail "no pack written"
run 0 "$pack" --info "$seq"
expect "format version 2"; expect "5 at 30 fps"; expect "2000 vertices"; expect "lz4"
run 0 "$pack" --verify "$seq" -q
expect "5 frames, every checksum matches"

# Damage one byte in the middle of frame 2's stored bytes (offset from the index via --info
# is not printed, so read the index with python).
python3 - "$seq" <<'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
index = struct.unpack_from("<Q", data, 104)[0]  # PackHeader::indexOffset
offset, stored = struct.unpack_from("<QQ", data, index + 2 * 72)
data[offset + stored // 2] ^= 0x40
open(path, "wb").write(data)
PY
run 1 "$pack" --verify "$seq" -q
expect "frame 2 (sample frame 2): checksum mismatch (damaged)"
expect "1 of 5 frames damaged: 2"
grep -q "frame [0134] (" <<<"$output" && fail "an intact frame reported damaged"

# Re-packing a damaged pack names the frame and leaves nothing behind.
run 1 "$pack" "$seq" -o "$out/repacked.tdpk" -q
expect "frame 2 of seq.tdpk (sample frame 2): checksum mismatch (damaged)"
[ -e "$out/repacked.tdpk" ] && fail "a partial pack was left"
ls -A "$out" | grep -q partial && fail "a temporary file was left"

# Never overwrite; --overwrite replaces.
before=$(cksum <"$seq")
run 1 "$pack" sample:points=2000,frames=5 -o "$seq" -q
expect "already exists (pass --overwrite to replace it)"
[ "$(cksum <"$seq")" = "$before" ] || fail "the existing file changed"
# u16 positions apply to mesh frames (point clouds are compact points with float positions).
run 0 "$pack" sample:mesh,points=2000,frames=5 -o "$seq" -q --overwrite --codec zstd --positions u16
run 0 "$pack" --verify "$seq" -q
run 0 "$pack" --info "$seq"
expect "zstd"; expect "u16"
# u16 asked of point frames: they keep f32, said in a warning and in what was written.
run 0 "$pack" sample:points=2000,frames=3 -o "$out/points.tdpk" -q --positions u16
expect "--positions u16 applies to mesh frames; 3 point-cloud frames keep f32 positions"
# A manifest's unknown key is named, not dropped.
cp "$(dirname "$0")/../data/sequences/frame_1.ply" "$out/"
printf '{"fps": 30, "frames": ["frame_1.ply"], "texure": "t.png"}' >"$out/m.json"
run 0 "$pack" "$out/m.json" -o "$out/m.tdpk" -q
expect 'unknown key "texure" ignored'
# Re-pack into uncompressed f32, keeping the frames' names.
run 0 "$pack" "$seq" -o "$out/repacked.tdpk" -q --fps 60
run 0 "$pack" --info "$out/repacked.tdpk"
expect "5 at 60 fps"; expect "first      sample frame 0"

# Input errors.
run 1 "$pack" --info "$out/missing.tdpk"
expect "no such file"
printf 'ply\nformat ascii 1.0\n' >"$out/not.tdpk"
run 1 "$pack" --verify "$out/not.tdpk"
expect "not a tandem pack"
run 1 "$pack" sample:frames=0 -o "$out/x.tdpk"
run 1 "$pack" "$out/no_such_frames" -o "$out/x.tdpk"
run 1 "$pack" sample -o "$out/no/such/folder/x.tdpk"
expect "does not exist"

# Usage errors.
run 2 "$pack" sample:points=2000,frames=5 -o "$out/x.tdpk" --codec gzip
expect "--codec"
run 2 "$pack" sample --positions f16 -o "$out/x.tdpk"
run 2 "$pack" sample
run 2 "$pack" --verify "$seq" --info "$seq"
run 2 "$pack" sample -o "$out/x.tdpk" --threads 0
[ -e "$out/x.tdpk" ] && fail "a usage error wrote a pack"
run 0 "$pack" --help
expect "--verify"
echo "ok: tandem-pack CLI"
