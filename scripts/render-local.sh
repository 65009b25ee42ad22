#!/usr/bin/env bash
# Renders a sequence with every GPU of this host: one tandem-viewer process per GPU (or K per
# GPU), each drawing its share of the frames on its own GPU (--device N: GL and CUDA on that
# card) with --resume, into one folder; then scripts/batch/merge.py checks that every frame is
# there once and complete (and makes the video with --video). Prints the frames per second of
# the whole and writes OUT/logs/local.json (processes, GPUs, frames, seconds, frames/s) and,
# where nvidia-smi is, OUT/logs/gpus.csv: which process ran on which GPU, sampled each second.
# Without a GPU it runs --per-gpu processes on the host backend.
# Usage: scripts/render-local.sh SEQ OUT [--gpus N] [--per-gpu K] [--camera-paths P...]
#        [--video FILE.mp4] [--viewer PATH] [--no-merge] [-- VIEWER ARGS...]
#   --gpus N      use GPUs 0..N-1 (default: all that nvidia-smi lists)
#   --per-gpu K   processes per GPU (default 1)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[ $# -ge 1 ] && [ "$1" = "--help" ] && usage 0
[ $# -ge 2 ] || usage
seq=$1 out=$2
shift 2
gpus="" per_gpu=1 video="" viewer="" merge=1
paths=()
while [ $# -gt 0 ]; do
    case "$1" in
        --gpus) gpus=$2; shift 2 ;;
        --per-gpu) per_gpu=$2; shift 2 ;;
        --video) video=$2; shift 2 ;;
        --viewer) viewer=$2; shift 2 ;;
        --no-merge) merge=0; shift ;;
        --camera-paths) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do paths+=("$1"); shift; done ;;
        --) shift; break ;;
        --help) usage 0 ;;
        *) echo "error: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    esac
done
has_gpus=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    has_gpus=1
    available=$(nvidia-smi -L | grep -c '^GPU ')
    gpus=${gpus:-$available}
    [ "$gpus" -le "$available" ] || { echo "error: --gpus $gpus: this host has $available" >&2; exit 2; }
else
    gpus=${gpus:-1}
fi
case "$gpus$per_gpu" in *[!0-9]*) echo "error: --gpus and --per-gpu take counts" >&2; exit 2 ;; esac
[ "$gpus" -ge 1 ] && [ "$per_gpu" -ge 1 ] || { echo "error: --gpus and --per-gpu take counts >= 1" >&2; exit 2; }
if [ -z "$viewer" ]; then
    for candidate in "$root/build/bin/tandem-viewer" "$root/build-gpu/bin/tandem-viewer" "$(command -v tandem-viewer || true)"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { viewer=$candidate; break; }
    done
fi
[ -n "$viewer" ] && [ -x "$viewer" ] || { echo "error: no tandem-viewer (build it, or give --viewer PATH)" >&2; exit 1; }
mkdir -p "$out/logs"
path_args=()
[ ${#paths[@]} -gt 0 ] && path_args=(--camera-paths "${paths[@]}")
plan="$out/logs/plan.json"
"$viewer" --headless "$seq" --frame-range 0: "${path_args[@]}" --batch-plan "$plan" --overwrite -q "$@" ||
    exit 1
frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["range"][1])' "$plan")
files=$(python3 -c 'import json,sys; print(sum(len(p["files"]) for p in json.load(open(sys.argv[1]))["camera_paths"]))' "$plan")
[ "$frames" -gt 0 ] || { echo "render-local: nothing to render ($seq has no frames)"; exit 0; }
processes=$((gpus * per_gpu))
[ "$processes" -le "$frames" ] || processes=$frames
per=$(( (frames + processes - 1) / processes ))
echo "render-local: $frames frames ($files files) in $processes processes on $gpus GPU(s), $per frames each"

start=$(date +%s.%N)
pids=()
for i in $(seq 0 $((processes - 1))); do
    first=$((i * per)); end=$((first + per < frames ? first + per : frames))
    device=$((i % gpus))
    device_args=()
    [ "$has_gpus" = 1 ] && device_args=(--device "$device")
    "$viewer" --headless "$seq" --frame-range "$first:$end" --resume --out "$out" \
        "${device_args[@]}" "${path_args[@]}" -q --report "$out/logs/local_$i.json" --overwrite "$@" \
        >"$out/logs/local_$i.log" 2>&1 &
    pids+=($!)
    echo "process $i (pid ${pids[-1]}): frames $first to $((end - 1)) on GPU $device"
done
sampler=""
if [ "$has_gpus" = 1 ]; then
    # Which process is on which GPU, and how busy each GPU is, once a second.
    (
        echo "time,pid,gpu_uuid,used_memory_mib"
        while sleep 1; do
            nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader,nounits 2>/dev/null |
                sed "s/^/$(date +%s),/"
            nvidia-smi --query-gpu=index,uuid,utilization.gpu --format=csv,noheader,nounits 2>/dev/null |
                sed "s/^/$(date +%s),gpu,/"
        done
    ) >"$out/logs/gpus.csv" &
    sampler=$!
fi
status=0
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { status=1; echo "error: process $i failed: $(tail -3 "$out/logs/local_$i.log")" >&2; }
done
[ -n "$sampler" ] && kill "$sampler" 2>/dev/null
seconds=$(python3 -c "import sys; print(round($(date +%s.%N) - $start, 3))")
python3 - "$out/logs/local.json" "$processes" "$gpus" "$per_gpu" "$files" "$seconds" <<'PY'
import json, sys
path, processes, gpus, per_gpu, files, seconds = sys.argv[1:]
record = {"processes": int(processes), "gpus": int(gpus), "per_gpu": int(per_gpu),
          "files": int(files), "seconds": float(seconds),
          "frames_per_second": int(files) / float(seconds)}
json.dump(record, open(path, "w"), indent=1)
print(f"render-local: {files} frames in {seconds} s: {record['frames_per_second']:.1f} frames/s "
      f"({processes} processes on {gpus} GPU(s))")
PY
[ "$status" = 0 ] || exit 1
if [ "$merge" = 1 ]; then
    merge_args=()
    [ -n "$video" ] && merge_args=(--video "$video")
    python3 "$root/scripts/batch/merge.py" "$plan" "$out" "${merge_args[@]}" || exit 1
fi
