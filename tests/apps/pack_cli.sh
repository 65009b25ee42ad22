#!/usr/bin/env bash
# tandem-pack end to end on a small sample: pack, --info, --verify, a damaged byte named by
# --verify (exit 1), a frame that does not decode though its checksum matches named by --verify,
# never overwriting unless --overwrite, re-packing a pack, a missing output folder made,
# --sequence-fps (and --fps, deprecated, warned about), frame names' terminal escapes shown
# escaped by --info, SIGTERM while packing (exit 143, nothing left), a FIFO named like a frame
# (never a hang), and usage errors (exit 2). Usage: pack_cli.sh TANDEM_PACK OUT_DIR
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
# Each frame's line: index, vertices, triangles, block and stored MiB, codec, positions, name.
grep -qE "^ +frame +vertices +triangles +block MiB +stored MiB +codec +positions +name$" <<<"$output" \
    || fail "--info has no per-frame table"
for i in 0 4; do
    grep -qE "^ +$i +2000 +0 +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +lz4 +f32 +sample frame $i$" <<<"$output" \
        || fail "--info lacks frame $i's line"
done
run 0 "$pack" --verify "$seq" -q
expect "5 frames, each checksum matches and each frame decodes"

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
# Re-pack into uncompressed f32, keeping the frames' names; the sequence clock is
# --sequence-fps, as in tandem-viewer.
run 0 "$pack" "$seq" -o "$out/repacked.tdpk" -q --sequence-fps 60
run 0 "$pack" --info "$out/repacked.tdpk"
expect "5 at 60 fps"; expect "first      sample frame 0"
# --fps, tandem-pack's old name for it, still works and says it is deprecated.
run 0 "$pack" "$seq" -o "$out/old_flag.tdpk" -q --fps 24
expect "--fps is deprecated in tandem-pack"; expect "--sequence-fps"
run 0 "$pack" --info "$out/old_flag.tdpk"
expect "5 at 24 fps"
run 2 "$pack" "$seq" -o "$out/both.tdpk" --fps 24 --sequence-fps 25
expect "--fps is the deprecated name of --sequence-fps: give one"
run 2 "$pack" "$seq" -o "$out/slow.tdpk" --sequence-fps 0.000001
expect "--sequence-fps"

# A frame whose bytes do not decode, its checksum made to match: --verify reads and decodes
# every frame, and names it.
run 0 "$pack" sample:points=2000,frames=4 -o "$out/lz4.tdpk" -q --codec lz4
python3 - "$out/lz4.tdpk" <<'PY'
import struct, sys, zlib
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
index, index_bytes = struct.unpack_from("<QQ", data, 104)  # PackHeader::indexOffset, indexBytes
entry = index + 1 * 72
offset, stored = struct.unpack_from("<QQ", data, entry)
for b in range(0, stored, 7):
    data[offset + b] ^= 0x5A
struct.pack_into("<I", data, entry + 60, zlib.crc32(data[offset:offset + stored]))  # crc
struct.pack_into("<I", data, 128, zlib.crc32(data[index:index + index_bytes]))  # indexCrc
struct.pack_into("<I", data, 132, 0)
struct.pack_into("<I", data, 132, zlib.crc32(data[0:136]))  # headerCrc
open(path, "wb").write(data)
PY
run 1 "$pack" --verify "$out/lz4.tdpk" -q
expect "frame 1 (sample frame 1): lz4 data does not decompress"
expect "1 of 4 frames damaged: 1"
grep -q "every checksum matches" <<<"$output" && fail "verify called an undecodable pack intact"

# A frame name with a terminal escape (clear the screen): --info shows it, not obeys it.
esc=$(printf 'frame_\033[2J.ply')
cp "$(dirname "$0")/../data/sequences/frame_1.ply" "$out/$esc"
printf '{"frames": ["frame_\\u001b[2J.ply"]}' >"$out/escape.json"
run 0 "$pack" "$out/escape.json" -o "$out/escape.tdpk" -q
run 0 "$pack" --info "$out/escape.tdpk"
expect 'frame_\x1b[2J.ply'
grep -q "$(printf '\033')" <<<"$output" && fail "--info printed a raw escape character"

# A missing output folder is made, as for every other output.
run 0 "$pack" sample:points=200,frames=2 -o "$out/new/folder/x.tdpk" -q
[ -f "$out/new/folder/x.tdpk" ] || fail "no pack written into the new folder"

# SIGTERM while packing: exit 143, no pack and no temporary left.
big="$out/big"; mkdir -p "$big"
"$pack" sample:points=50000,frames=400 -o "$big/big.tdpk" -q --threads 1 </dev/null \
    >"$big/log" 2>&1 &
pid=$!
for _ in $(seq 600); do
    ls -A "$big" | grep -q partial && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.05
done
ls -A "$big" | grep -q partial || fail "no temporary appeared while packing: $(cat "$big/log")"
kill -TERM $pid
wait $pid; code=$?
cat "$big/log"
[ "$code" = 143 ] || fail "exit $code after SIGTERM, expected 143"
grep -q "stopped after" "$big/log" || fail "the stop was not said"
[ -e "$big/big.tdpk" ] && fail "a stopped run left a pack"
ls -A "$big" | grep -q partial && fail "a stopped run left its temporary"

# A FIFO named like a frame: the listing takes regular files only, so one swapped in while
# the run goes (its last frame). Refused when read, or, if a reader blocks on it, stopped by
# SIGINT all the same (a worker stuck in open() is not waited for); never a hang, nothing left.
fifos="$out/fifo"; mkdir -p "$fifos"
python3 - "$fifos/frame_00.ply" <<'PY'
import struct, sys
n = 100000
with open(sys.argv[1], "wb") as f:
    f.write(b"ply\nformat binary_little_endian 1.0\nelement vertex %d\n" % n)
    f.write(b"property float x\nproperty float y\nproperty float z\nend_header\n")
    f.write(b"".join(struct.pack("<3f", i % 100, (i // 100) % 100, i // 10000) for i in range(n)))
PY
for i in $(seq 1 39); do ln "$fifos/frame_00.ply" "$fifos/frame_$(printf %02d "$i").ply"; done
timeout --preserve-status -s INT -k 20 8 "$pack" "$fifos" -o "$out/fifo.tdpk" -q --threads 1 </dev/null \
    >"$out/fifo.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
    ls -A "$out" | grep -q '^\.fifo\.tdpk.*partial' && break
    sleep 0.02
done
rm "$fifos/frame_39.ply" && mkfifo "$fifos/frame_39.ply"
wait $pid; code=$?
cat "$out/fifo.log"
case $code in
    0) fail "the run ended before the FIFO was swapped in (too fast a machine?): inconclusive" ;;
    1) grep -q "frame_39.ply" "$out/fifo.log" || fail "the FIFO was refused without naming it" ;;
    130) grep -q "stopped after" "$out/fifo.log" || fail "the stop was not said" ;;
    *) fail "exit $code on a FIFO named like a frame (137: it ignored SIGINT)" ;;
esac
[ -e "$out/fifo.tdpk" ] && fail "a pack was written from a FIFO"
ls -A "$out" | grep -q '^\.fifo\.tdpk.*partial' && fail "the FIFO run left its temporary"

# Input errors.
run 1 "$pack" --info "$out/missing.tdpk"
expect "no such file"
printf 'ply\nformat ascii 1.0\n' >"$out/not.tdpk"
run 1 "$pack" --verify "$out/not.tdpk"
expect "not a tandem pack"
run 1 "$pack" sample:frames=0 -o "$out/x.tdpk"
run 1 "$pack" "$out/no_such_frames" -o "$out/x.tdpk"
printf 'not a folder' >"$out/file"
run 1 "$pack" sample -o "$out/file/x.tdpk"
expect "not a folder"

# Usage errors.
run 2 "$pack" sample:points=2000,frames=5 -o "$out/x.tdpk" --codec gzip
expect "--codec: 'gzip' is not none, lz4 or zstd"
run 2 "$pack" sample --positions f16 -o "$out/x.tdpk"
run 2 "$pack" sample
run 2 "$pack" --verify "$seq" --info "$seq"
run 2 "$pack" sample -o "$out/x.tdpk" --threads 0
[ -e "$out/x.tdpk" ] && fail "a usage error wrote a pack"
run 0 "$pack" --help
expect "--verify"
echo "ok: tandem-pack CLI"
