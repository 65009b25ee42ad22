#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test tier this machine can run (ctest
# labels unit, gl, window, capture, slurm, web, gpu), saying which tiers were skipped and why.
set -uo pipefail
cd "$(dirname "$0")/.."
# Where the run's time goes: each phase says how long it took.
mark=$SECONDS
took() { echo "test: $1 took $((SECONDS - mark)) s"; mark=$SECONDS; }
scripts/install-deps.sh || exit 1
took "installing what was missing"
scripts/build.sh default || exit 1
took "the default build"

# The sanitizer builds and fuzzing need clang 16 with its sanitizer and libFuzzer runtimes
# (install-deps.sh installs them).
sanitizers=0
if command -v clang++-16 >/dev/null && [ -e /usr/lib/llvm-16/lib/clang/16/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
    sanitizers=1
fi

# With a CUDA toolkit the default build has CUDA; the configuration without CUDA, RenderDoc and
# the profiler must build and pass its unit tier too, so neither rots. The sanitizer builds are
# that configuration (sanitize: everything without CUDA; tsan: the apps, the bench and the unit
# tier without CUDA, RenderDoc or the profiler), so with them the nocuda preset is not built
# a second time; without them it is built here.
if [ $sanitizers = 0 ] && grep -q "TANDEM_HAS_CUDA:INTERNAL=ON" build/CMakeCache.txt 2>/dev/null; then
    echo "test: also building without CUDA, RenderDoc or the profiler (preset nocuda)"
    if ! scripts/build.sh nocuda >build-nocuda.log 2>&1; then
        tail -30 build-nocuda.log; echo "test: the build without CUDA failed"; exit 1
    fi
    if ! ctest --test-dir build-nocuda -L '^unit$' >>build-nocuda.log 2>&1; then
        tail -30 build-nocuda.log; echo "test: the unit tier without CUDA failed"; exit 1
    fi
    echo "test: without CUDA: $(grep -E 'tests passed' build-nocuda.log | tail -1)"
    took "the build without CUDA and its unit tier"
fi

tiers=(unit)
skipped=()
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"; [ -n "${xvfb_pid:-}" ] && kill "$xvfb_pid" 2>/dev/null' EXIT

# gl: a headless EGL context must come up (llvmpipe's software device without a GPU).
if probe=$(build/bin/tandem-raster --headless --frames 1 --size 16x16 --out "$probe_dir/gl" -q 2>&1); then
    tiers+=(gl)
else
    skipped+=("gl: headless EGL does not work here: $probe")
fi

# window: a real window on an X server; start Xvfb when there is no display.
if [ -z "${DISPLAY:-}" ] && command -v Xvfb >/dev/null; then
    for n in $(seq 90 110); do
        [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] && continue
        Xvfb ":$n" -screen 0 1280x1024x24 -nolisten tcp -noreset >/dev/null 2>&1 &
        xvfb_pid=$!
        for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
        export DISPLAY=":$n"
        break
    done
fi
if [ -n "${DISPLAY:-}" ] && build/bin/tandem-raster --frames 1 --size 16x16 --out "$probe_dir/win" -q 2>"$probe_dir/win.log" \
        && ! grep -q "rendering headless instead" "$probe_dir/win.log"; then
    tiers+=(window)
else
    skipped+=("window: no X display could be opened (install xvfb): $(head -c 300 "$probe_dir/win.log" 2>/dev/null)")
fi

# capture: RenderDoc's library and Python replay module, and an X display for the replay.
if [ -n "${DISPLAY:-}" ] && /usr/bin/python3 -c "import renderdoc" 2>/dev/null \
        && [ -e /usr/lib/librenderdoc.so ] && command -v renderdoccmd >/dev/null && grep -q "TANDEM_HAS_RENDERDOC:INTERNAL=ON" build/CMakeCache.txt; then
    tiers+=(capture)
else
    skipped+=("capture: needs librenderdoc, renderdoccmd, python3-renderdoc (import renderdoc) and an X display for the replay")
fi

# slurm: a one-node Slurm cluster the test starts (slurm-wlm's slurmctld and slurmd).
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null; then
    tiers+=(slurm)
else
    skipped+=("slurm: slurmctld, slurmd and sbatch not installed (install-deps.sh installs them)")
fi

# web: the browser view built (TANDEM_SERVE), headless EGL, and Python's websockets.
if grep -q "TANDEM_SERVE:BOOL=ON" build/CMakeCache.txt 2>/dev/null && [[ " ${tiers[*]} " == *" gl "* ]] \
        && /usr/bin/python3 -c "import websockets" 2>/dev/null; then
    tiers+=(web)
else
    skipped+=("web: needs a build with the browser view (TANDEM_SERVE), headless EGL and python3-websockets")
fi

# gpu: an NVIDIA GPU with a working driver and a CUDA build.
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 \
        && grep -q "TANDEM_HAS_CUDA:INTERNAL=ON" build/CMakeCache.txt 2>/dev/null; then
    tiers+=(gpu)
else
    skipped+=("gpu: no NVIDIA GPU or no CUDA build here; the gpu tier runs on the GPU host (docs/building.md: GPU servers)")
fi

echo "test: running tiers: ${tiers[*]}"
for s in "${skipped[@]}"; do echo "test: skipped tier $s"; done
labels=$(IFS='|'; echo "^(${tiers[*]})\$")
ctest --test-dir build -L "$labels" --output-on-failure -j"$(nproc)"
status=$?
took "the tiers"

# Sanitizers and fuzzing: the unit and gl tiers under ASan + UBSan, the unit tier under TSan
# (without CUDA, RenderDoc or the profiler), and a minute of libFuzzer on each reader
# (scripts/fuzz.sh; a longer run is documented there).
if [ $sanitizers = 1 ]; then
    scripts/sanitize.sh || status=1
    took "the sanitizer builds and tiers"
    scripts/fuzz.sh --seconds "${TANDEM_FUZZ_SECONDS:-60}" || status=1
    took "fuzzing"
else
    echo "test: skipped the sanitizer builds and fuzzing: clang-16 and libclang-rt-16-dev are not installed"
fi
exit $status
