#!/usr/bin/env bash
# Renders a sequence across a Slurm cluster's GPUs: writes the render's plan
# (tandem-viewer --batch-plan), submits a job array of TASKS tasks (one GPU each, at most GPUS at
# once), each rendering its share of the frames with scripts/slurm/render.sbatch, and a merge job
# that runs once every task has succeeded (scripts/slurm/merge.sbatch: every frame present once
# and complete, then the videos). Submitting again after a failure renders only what is missing.
# Usage: scripts/slurm/submit.sh SEQ OUT --gpus N [--tasks T] [--camera-paths P...]
#        [--video FILE.mp4] [--viewer PATH] [--sbatch "OPTIONS"] [-- VIEWER ARGS...]
#   --gpus N        GPUs used at once (array tasks running together; default 1)
#   --tasks T       pieces the frames are split into (default: N; more pieces balance better)
#   --camera-paths  render the frames along each of these camera paths (JSON keyframes, orbit)
#   --video FILE    the merge also writes FILE.mp4 (FILE_<path>.mp4 per camera path)
#   --viewer PATH   tandem-viewer to run (default: beside this checkout's build, or on PATH)
#   --sbatch OPTS   more sbatch options for every job (--partition=gpu --time=2:00:00 ...)
#   --gres SPEC     the GPU request of a task (default gpu:1; none: no --gres)
#   VIEWER ARGS     --size, --postfx, --backend ... as tandem-viewer takes them
# Prints the job ids; logs go to OUT/logs/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[ $# -ge 1 ] && [ "$1" = "--help" ] && usage 0
[ $# -ge 2 ] || usage
seq=$1 out=$2
shift 2
gpus=1 tasks="" video="" viewer="" extra_sbatch="" gres="gpu:1"
paths=()
while [ $# -gt 0 ]; do
    case "$1" in
        --gpus) gpus=$2; shift 2 ;;
        --tasks) tasks=$2; shift 2 ;;
        --video) video=$2; shift 2 ;;
        --viewer) viewer=$2; shift 2 ;;
        --sbatch) extra_sbatch=$2; shift 2 ;;
        --gres) gres=$2; shift 2 ;;
        --camera-paths) shift
            while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do # absolute paths for the tasks; orbit as it is
                if [ "$1" = orbit ]; then paths+=(orbit); else paths+=("$(realpath -e "$1" 2>/dev/null || echo "$1")"); fi
                shift
            done ;;
        --) shift; break ;;
        --help) usage 0 ;;
        *) echo "error: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    esac
done
case "$gpus" in ''|*[!0-9]*|0) echo "error: --gpus takes a count >= 1" >&2; exit 2 ;; esac
tasks=${tasks:-$gpus}
case "$tasks" in ''|*[!0-9]*|0) echo "error: --tasks takes a count >= 1" >&2; exit 2 ;; esac
if [ -z "$viewer" ]; then
    for candidate in "$root/build/bin/tandem-viewer" "$(command -v tandem-viewer || true)"; do
        [ -x "$candidate" ] && { viewer=$candidate; break; }
    done
fi
[ -x "$viewer" ] || { echo "error: no tandem-viewer (build it, or give --viewer PATH)" >&2; exit 1; }
command -v sbatch >/dev/null || { echo "error: sbatch not found: is this a Slurm submit host?" >&2; exit 1; }
viewer=$(realpath "$viewer")
[ -e "$seq" ] && seq=$(realpath "$seq")
mkdir -p "$out/logs"
out=$(realpath "$out")
path_args=()
[ ${#paths[@]} -gt 0 ] && path_args=(--camera-paths "${paths[@]}")

# The plan: how many frames, which files the merge expects.
plan="$out/logs/plan.json"
"$viewer" --headless "$seq" --frame-range 0: "${path_args[@]}" --batch-plan "$plan" --overwrite -q "$@"
frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["range"][1])' "$plan")
[ "$frames" -gt 0 ] || { echo "error: $seq has no frames" >&2; exit 1; }
[ "$tasks" -le "$frames" ] || tasks=$frames

gres_args=()
[ "$gres" != none ] && gres_args=(--gres="$gres")
# shellcheck disable=SC2086 # --sbatch options are split on purpose
array=$(sbatch --parsable --array="0-$((tasks - 1))%$gpus" "${gres_args[@]}" $extra_sbatch \
    --output="$out/logs/render_%A_%a.log" \
    "$here/render.sbatch" "$viewer" "$seq" "$out" "$frames" "$tasks" "${path_args[@]}" "$@")
array=${array%%;*}
merge_args=()
[ -n "$video" ] && merge_args=(--video "$(realpath -m "$video")")
# shellcheck disable=SC2086
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes $extra_sbatch \
    --output="$out/logs/merge_%j.log" \
    "$here/merge.sbatch" "$root/scripts/batch/merge.py" "$plan" "$out" "${merge_args[@]}")
merge=${merge%%;*}
echo "submitted: render array $array ($tasks tasks over $frames frames, $gpus at once), merge $merge"
echo "watch: squeue -j $array,$merge; logs in $out/logs/; the merge's verdict: $out/logs/merge_$merge.log"
