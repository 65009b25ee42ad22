#!/usr/bin/env bash
# The layering rules of the house, checked on the build and the tree (unit tier):
# - stream's loader side builds without GL: a source compiled with tandem_stream_loader's own
#   command line (from compile_commands.json) that includes a header dragging GL in fails, at
#   the include, with the poisoned header's message (cmake/no-gl/), while the same command on
#   a GL-free header compiles;
# - SequencePlayer.cpp and Profiler.cpp hold no `#if TANDEM_HAS_CUDA` (their CUDA halves are
#   files of their own with stubs beside them);
# - device memory has one owner: no cudaMalloc/cudaFree outside engine/cuda/.
# Usage: layers.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1; build=$2
fail() { echo "FAIL: $*"; exit 1; }
commands="$build/compile_commands.json"
[ -f "$commands" ] || fail "no $commands (CMAKE_EXPORT_COMPILE_COMMANDS)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# The loader's compile command for one of its sources (or unity files), with the source swapped for a probe.
probe() {
    python3 - "$commands" "$1" "$2" <<'PY'
import json, shlex, subprocess, sys
commands, probe, out = sys.argv[1:]
for entry in json.load(open(commands)):
    # Any of the target's own files (one unit of a unity build, too): they share its flags.
    if "tandem_stream_loader.dir/" in entry.get("output", entry["command"]) and entry["file"].endswith((".cpp", ".cxx")):
        args = shlex.split(entry["command"])
        # The same flags, the probe as the source, checked only (nothing written).
        o = args.index("-o")
        del args[o:o + 2]
        i = args.index("-c")
        args[i:i + 2] = ["-fsyntax-only", probe]
        # No ccache: the point is what this compiler says now.
        while args and ("ccache" in args[0]):
            args.pop(0)
        r = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
        sys.stdout.write(r.stdout + r.stderr)
        sys.exit(r.returncode)
sys.exit(99)
PY
}
printf '#include "engine/render/GpuScene.h"\n' >"$work/gl.cpp"
output=$(probe "$work/gl.cpp" "$work/gl.o"); code=$?
[ "$code" = 99 ] && fail "no compile command of a tandem_stream_loader source"
[ "$code" != 0 ] || fail "a GL header compiled in stream's loader side"
grep -q "reached a target that must build without GL" <<<"$output" ||
    fail "the GL include failed, but not at the poisoned header: $output"
printf '#include "engine/render/SceneLayout.h"\n#include "engine/stream/Pack.h"\n#include "engine/stream/Streamer.h"\n' >"$work/free.cpp"
output=$(probe "$work/free.cpp" "$work/free.o") || fail "GL-free headers failed to compile: $output"

for file in engine/stream/SequencePlayer.cpp engine/profile/Profiler.cpp; do
    if grep -nE '^\s*#\s*(if|ifdef|elif)\b.*TANDEM_HAS_CUDA' "$src/$file"; then
        fail "$file decides on CUDA with the preprocessor"
    fi
done
raw=$(cd "$src" && grep -rnE '\bcuda(Malloc|Free)\s*\(' engine apps python tests --include='*.cpp' \
          --include='*.h' --include='*.cu' | grep -v '^engine/cuda/' | grep -v 'cudaFree(nullptr)')
[ -z "$raw" ] || fail "device memory outside cuda::DeviceMemory: $raw"
echo "ok: the loader builds without GL, CUDA halves are files, one device-memory owner"
