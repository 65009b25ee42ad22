#!/usr/bin/env bash
# Soak: 10 000 headless viewer frames, streamed (a 16 MiB staging budget for a 10 000-frame
# sample sequence, so frames are loaded, dropped and loaded again throughout) with the full
# post-process chain. Host memory after warm-up stays within 8 MiB (the report's host_rss_mb,
# sampled every 100 frames once every staging slot has been filled); no frame is late, dropped
# or skipped; no GL error.
# Usage: viewer_soak.sh VIEWER OUT_DIR
set -uo pipefail
viewer=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
"$viewer" --headless "sample:points=2000,frames=10000" --every-frame --cache-mb 16 \
    --size 64x48 --format none --postfx tonemap,blur,bilateral,outline,ssao,fxaa \
    --report "$out/soak.json" -q >"$out/log.txt" 2>&1 || { echo "FAIL: exit $?: $(tail -5 "$out/log.txt")"; exit 1; }
python3 - "$out/soak.json" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))["streaming"]
rss = s["host_rss_mb"]
print(f"{s['frames_shown']} frames; host RSS {rss['after_warmup']:.1f} MiB after warm-up, "
      f"{rss['max']:.1f} MiB at most (+{rss['growth']:.2f} MiB)")
assert s["frames_shown"] == 10000, s["frames_shown"]
assert s["frames_late"] == 0 and s["frames_dropped"] == 0 and s["frames_skipped"] == 0, s
if os.environ.get("TANDEM_SANITIZED"):
    print("(a sanitizer build: ASan's quarantine keeps freed memory, so no memory bound here)")
else:
    assert rss["growth"] <= 8.0, f"host memory grew by {rss['growth']:.1f} MiB"
PY
[ $? = 0 ] || { echo "FAIL"; exit 1; }
echo "ok"
