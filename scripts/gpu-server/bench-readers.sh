#!/usr/bin/env bash
# The readers issue's measurements on the GPU host, with binaries already built in build-gpu/
# (tandem-bench, tandem-pack, tandem-viewer; build-and-test.sh builds them): tandem-bench stream
# at 1080p (each reader's MB/s on one core, the folder of binary PLY frames played straight,
# the pack), then a 300-frame ASCII sequence in the 8i layout (scripts/make-dataset-sequence.py)
# packed with tandem-pack on every core, timed. Logs and JSON go to $OUT.
# TANDEM_READERS_NO_8I=1 leaves the 8i pack out (tandem-bench stream only).
# Usage: [TANDEM_COMMIT=sha] OUT=dir scripts/gpu-server/bench-readers.sh
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/gpu-out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$root/.gpu/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
commit="${TANDEM_COMMIT:-unknown}"
work="${TANDEM_WORK:-/tmp/tandem-readers}"
rm -rf "$work" && mkdir -p "$work"
status=0
echo "== tandem-bench stream at 1080p (at ${SECONDS}s)"
timeout 300 build-gpu/bin/tandem-bench stream --points 1M --sizes 1080p --no-preloaded \
    --load-frames 3 --frames 120 --commit "$commit" --json "$out/readers-stream.json" \
    --overwrite >"$out/readers-stream.log" 2>&1 || status=1
grep -A14 "one core" "$out/readers-stream.log"
grep -A6 "end to end" "$out/readers-stream.log"
if [ -n "${TANDEM_READERS_NO_8I:-}" ]; then # the readers' rates only, for a short lease
    echo "== done, the 8i pack left out (at ${SECONDS}s)"
    exit $status
fi
echo "== 300 frames in the 8i layout, packed on $(nproc) threads (at ${SECONDS}s)"
python3 scripts/make-dataset-sequence.py "$work/8i" --layout 8i --frames 300 >"$out/readers-8i.log" 2>&1 || status=1
sync
start=$(date +%s.%N)
build-gpu/bin/tandem-pack "$work/8i" -o "$work/8i.tdpk" -q >>"$out/readers-8i.log" 2>&1 || status=1
end=$(date +%s.%N)
python3 - "$start" "$end" "$work/8i" "$commit" "$out/readers-8i.json" <<'PY'
import json, os, subprocess, sys, datetime
start, end, folder, commit, path = sys.argv[1:]
files = [os.path.join(folder, f) for f in os.listdir(folder)]
device = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                        capture_output=True, text=True).stdout.strip().splitlines()
result = {"what": "tandem-pack of 300 ASCII PLY frames in the 8i layout (scripts/make-dataset-sequence.py)",
          "frames": len(files), "mb": sum(os.path.getsize(f) for f in files) / 1e6,
          "seconds": float(end) - float(start), "threads": os.cpu_count(), "commit": commit,
          "device": device[0] if device else "unknown", "date": datetime.date.today().isoformat()}
result["mb_per_s"] = result["mb"] / result["seconds"]
json.dump(result, open(path, "w"), indent=1)
print(json.dumps(result))
PY
tail -2 "$out/readers-8i.log"
rm -rf "$work"
echo "== done (at ${SECONDS}s)"
exit $status
