#!/usr/bin/env bash
# tandem-raster's frame output off the render thread: PNG and raw PAM frames of the same run are
# the same pixels; --format png16 writes 16-bit PNGs of an RGBA16F colour target; a long
# headless run prints its progress line (frames, frames/s) unless -q; every frame is there, in
# order, nothing left half-written.
# Usage: output_formats.sh RASTER MESH OUT_DIR
set -uo pipefail
raster=$1; mesh=$2; out=$3
support="$(cd "$(dirname "$0")/../support" && pwd)"
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
common=(--headless --size 80x60 --frames 6 --spin 15 --postfx tonemap --overwrite "$mesh")
"$raster" "${common[@]}" -q --out "$out/png" || fail "png run"
"$raster" "${common[@]}" -q --format pam --out "$out/pam" || fail "pam run"
"$raster" "${common[@]}" --format png16 --color-format rgba16f --out "$out/png16" \
    2>"$out/progress.log" || fail "png16 run"
grep -q "tandem-raster: 6/6 frames .* frames/s" "$out/progress.log" \
    || { cat "$out/progress.log"; fail "no progress line"; }
"$raster" "${common[@]}" -q --format png16 --color-format rgba16f --out "$out/quiet" 2>"$out/q.log"
grep -q "frames/s" "$out/q.log" && fail "-q printed a progress line"
ls "$out"/*/*.partial 2>/dev/null && fail "a half-written file was left"
python3 - "$out" "$support" <<'PY' || exit 1
import os, sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import png
def pam(path):
    data = open(path, "rb").read()
    head, _, body = data.partition(b"ENDHDR\n")
    fields = dict(l.split(b" ", 1) for l in head.split(b"\n")[1:] if b" " in l)
    w, h = int(fields[b"WIDTH"]), int(fields[b"HEIGHT"])
    assert fields[b"TUPLTYPE"] == b"RGB_ALPHA" and len(body) == w * h * 4, path
    return w, h, [bytearray(body[y * w * 4:(y + 1) * w * 4]) for y in range(h)]
for i in range(6):
    a = png.load(os.path.join(out, "png", f"frame_{i:06d}.png"))
    b = pam(os.path.join(out, "pam", f"frame_{i:06d}.pam"))
    if a != b:
        sys.exit(f"FAIL: frame {i}: PNG and PAM pixels differ")
    header = open(os.path.join(out, "png16", f"frame_{i:06d}.png"), "rb").read(26)
    if header[24] != 16 or header[25] != 6:
        sys.exit(f"FAIL: frame {i}: png16 is not 16-bit RGBA (depth {header[24]}, type {header[25]})")
frames = [png.load(os.path.join(out, "png", f"frame_{i:06d}.png")) for i in range(6)]
if len({bytes(b"".join(f[2])) for f in frames}) != 6:
    sys.exit("FAIL: the spinning camera should give 6 different frames")
PY
echo ok
