#!/usr/bin/env bash
# On a GPU server (CUDA toolkit, g++, CMake; no -dev packages): builds tandem against .gpu/
# (made by gather.sh on Debian 12 and carried with the source), runs the unit and gpu test
# tiers, a smoke render through the CUDA backend, RenderDoc captures of the CUDA path (when
# gather.sh carried RenderDoc), and the benchmarks (the profiler's overhead three times, as its
# target asks). Logs and results go to $OUT (or ./gpu-out).
# --points builds what the points issue needs and runs only that: the gpu tier, tandem-bench
# points, and tandem-raster end to end on a generated 1 M-point cloud (CUDA and GL points).
# --stream builds what the viewer issue needs and runs only that: the gpu tier, the viewer's
# headless end-to-end test on the CUDA backend, tandem-bench stream, tandem-pack on a 1 M-point
# sample sequence, tandem-viewer --headless --every-frame from that pack (1080p streamed and
# preloaded three times each, alternating; 4K; cached), and a 10 000-frame run for memory.
# --robust builds what the robustness issue needs and runs only that: the gpu tier (with the
# resize storm on CUDA and GL simulated on another GPU), the fallbacks test on CUDA, and a
# 10 000-frame soak: the 1 M-point pack looped and streamed at 1080p through the full chain,
# host RSS and cudaMemGetInfo sampled in the report.
# --python builds the Python package against the host's python3 and PyTorch (pybind11 from the
# copy PyTorch ships, dlpack.h from .gpu) and runs only what the Python issue needs: the gpu
# tier (the package's tests on CUDA tensors among them), the package's tests on CPU tensors,
# tandem-bench tensor-raster and scripts/bench-rasterize.py on the same grid (TANDEM_NO_BENCH=1:
# the tests only).
# --batch builds what the multi-GPU issue needs and runs only that: on this host's GPUs, one
# process per GPU against one process (images byte for byte, nvidia-smi per process in the log),
# then the throughput of one process, two on one GPU, and one per GPU (where there are two) on a
# 1 M-point pack at 1080p, written as PNG and rendered only (scripts/render-local.sh each).
# --house builds everything (the Python package too, as --python does) and runs what the house
# issue's acceptance needs in one call: the gpu tier (the package's tests on CUDA tensors among
# them), the viewer's headless end-to-end test on CUDA, tandem-bench interop (the handoff),
# raster (geometry against the bare draw), overhead three times (the profiler's cost), and the
# viewer on a 1 M-point pack at 1080p, streamed, three times.
# --frame builds what the frame issue needs and runs it in one call: the gpu tier, the gl tier's
# mesh tests on this GPU's GL, tests/apps/raster_paths.py (gl, host, cuda and auto end to end),
# tandem-raster on a 2.09 M-triangle grid with --raster gl and cuda at 1080p and 4K, and the
# viewer on a streamed 0.5 M-triangle mesh sequence with both, a RenderDoc capture of a frame the
# CUDA rasterizer draws (when gather.sh carried RenderDoc), the 1 M-point sequence written as PAM
# and as PNG, tandem-bench frame; everything in $OUT/frame.tgz.
# --stream-trace builds the viewer and tandem-pack and traces the viewer on a streamed 1 M-point
# pack at 1080p (--trace; the profile of the frame issue's streamed target), gzipped into $OUT.
# --splats builds what the splats issue needs and runs it: the gpu tier (its splat tests: the CUDA
# rasterizer and pass against their host twins, bit for bit), the viewer's splat-sequence test
# on CUDA (tests/apps/viewer_splats.sh: a folder and packs streamed through the copy stream), the
# Python package's Gaussians on CUDA tensors (tests/python/test_splats.py, and test_viewer) and
# tandem-bench splats, static and streamed from packs (its JSON in $OUT; TANDEM_NO_BENCH=1: the
# tests only).
# --serve builds the viewer with the browser view (Boost's headers carried by gather.sh) and
# measures it: the unit tier's server tests here, the gpu tier's resident read-back tests (the
# YCbCr planes a CUDA pass makes for JPEG), then scripts/bench-serve.py on a 1 M-point
# pack at 1080p (no client, one, eight with one never reading; its JSON in $OUT; TANDEM_NO_UNIT=1:
# the measurement only, TANDEM_SERVE_CLIENTS=1,0,8 its order; TANDEM_SERVE_ONLY=1 also leaves out
# the gpu tier's build and tests, for a short device lease; TANDEM_SERVE_MAX_FPS=240 then measures
# the same cases again with clients that ask for a display's rate, as the page does).
# Usage: [TANDEM_COMMIT=sha] scripts/gpu-server/build-and-test.sh [--no-bench | --bench-only | --points | --stream | --robust | --python | --batch | --house | --frame | --stream-trace | --splats | --serve]
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/gpu-out}"
mkdir -p "$out"
[ -d .gpu/sysroot ] || { echo "error: .gpu/ missing: run scripts/gpu-server/gather.sh on Debian 12 and carry .gpu" >&2; exit 1; }

export LD_LIBRARY_PATH="$root/.gpu/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# glvnd finds the NVIDIA EGL vendor file in its default folders; point at it where it is not.
if ! ls /usr/share/glvnd/egl_vendor.d/*nvidia* /etc/glvnd/egl_vendor.d/*nvidia* >/dev/null 2>&1; then
    for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json; do
        [ -f "$f" ] && export __EGL_VENDOR_LIBRARY_FILENAMES="$f"
    done
fi
export PATH="/usr/local/cuda/bin:$PATH"

{
    echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
    nvcc --version | tail -1; cmake --version | head -1; g++ --version | head -1
} | tee "$out/machine.txt"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
echo "== configure + build"
mode="${1:-}"
python_args=()
if [ "$mode" = "--python" ] || [ "$mode" = "--house" ] || [ "$mode" = "--splats" ]; then
    # PyTorch's copy of pybind11 matches its Python; only that folder goes on the include path.
    torch_include=$(python3 -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include'))") || exit 1
    mkdir -p build-gpu-pybind11
    ln -sfn "$torch_include/pybind11" build-gpu-pybind11/pybind11
    python_args=(-DPython3_EXECUTABLE="$(command -v python3)"
                 -DTANDEM_PYBIND11_INCLUDE_DIR="$root/build-gpu-pybind11"
                 -DTANDEM_DLPACK_INCLUDE_DIR="$root/.gpu/sysroot/usr/include")
fi
# RenderDoc's library, carried compressed by gather.sh.
if [ -f .gpu/librenderdoc.so.xz ] && [ ! -e .gpu/runtime/librenderdoc.so ]; then
    xz -dc .gpu/librenderdoc.so.xz >.gpu/runtime/librenderdoc.so || exit 1
fi
# The browser view where gather.sh carried Boost's headers for it (the preset leaves it off).
serve_args=()
if [ -f .gpu/boost-web.tar.xz ]; then
    tar -C .gpu/sysroot -xJf .gpu/boost-web.tar.xz || exit 1
    serve_args=(-DTANDEM_SERVE=ON)
fi
if ! cmake --preset gpu-server "${generator[@]}" "${python_args[@]}" "${serve_args[@]}" >"$out/configure.log" 2>&1; then
    tail -40 "$out/configure.log"; exit 1
fi
grep -E "Python" "$out/configure.log"
targets=()
[ "$mode" = "--points" ] && targets=(--target tandem_gpu_tests tandem-bench tandem-raster)
[ "$mode" = "--stream" ] && targets=(--target tandem_gpu_tests tandem-bench tandem-viewer tandem-raster tandem-pack tandem-png-check)
[ "$mode" = "--robust" ] && targets=(--target tandem_gpu_tests tandem-viewer tandem-raster tandem-pack tandem-png-check)
[ "$mode" = "--python" ] && targets=(--target tandem_gpu_tests tandem_gl_tests tandem-bench tandem-raster tandem_python)
[ "$mode" = "--batch" ] && targets=(--target tandem-viewer tandem-pack)
[ "$mode" = "--frame" ] && targets=(--target tandem_gpu_tests tandem_gl_tests tandem-bench tandem-viewer tandem-raster tandem-pack)
[ "$mode" = "--stream-trace" ] && targets=(--target tandem-viewer tandem-pack)
[ "$mode" = "--serve" ] && targets=(--target tandem-viewer tandem-pack tandem_gpu_tests)
[ "$mode" = "--serve" ] && [ -n "${TANDEM_SERVE_ONLY:-}" ] && targets=(--target tandem-viewer tandem-pack)
[ "$mode" = "--serve" ] && [ -z "${TANDEM_NO_UNIT:-}" ] && targets+=(tandem_unit_tests)
# More targets in the same build (TANDEM_BUILD_ALSO="tandem-bench": bench-readers.sh next).
[ -n "${TANDEM_BUILD_ALSO:-}" ] && [ ${#targets[@]} -gt 0 ] && targets+=(${TANDEM_BUILD_ALSO})
[ "$mode" = "--splats" ] && targets=(--target tandem_gpu_tests tandem-bench tandem-raster tandem-viewer tandem-pack tandem-png-check tandem_python)
[ "$mode" = "--house" ] && targets=(--target tandem_gpu_tests tandem-bench tandem-viewer tandem-raster tandem-pack tandem-png-check tandem_python)
if ! cmake --build --preset gpu-server -j"$(nproc)" "${targets[@]}" >"$out/build.log" 2>&1; then
    grep -E "error|Error" "$out/build.log" | head -40; exit 1
fi

# TANDEM_BUILD_ONLY=1: the mode's build and nothing else (bench-readers.sh or a script of one's
# own next, in the same call).
[ -n "${TANDEM_BUILD_ONLY:-}" ] && { echo "== built (at ${SECONDS}s)"; exit 0; }
status=0
if [ "$mode" = "--splats" ]; then
    echo "== gpu tier (at ${SECONDS}s)"
    timeout 400 build-gpu/bin/tandem_gpu_tests >"$out/gpu_tier.log" 2>&1 || status=1
    grep -E "^\[ [^R]|^\[==|PASSED|FAILED|Failure" "$out/gpu_tier.log" | grep -iE "splat|PASSED|FAILED|Failure|tests ran" | head -40
    echo "== tandem-raster: a splat PLY and a cube on CUDA, headless (at ${SECONDS}s)"
    timeout 60 build-gpu/bin/tandem-raster --headless tests/data/splats/ring.ply --size 640x480 \
        --frames 20 --format none --report "$out/splats_raster.json" >"$out/splats_raster.log" 2>&1 || status=1
    grep -E "splats|passes|memory|error" "$out/splats_raster.log" | head -8
    echo "== the viewer on a splat sequence, folder and packs, on CUDA (at ${SECONDS}s)"
    timeout 120 tests/apps/viewer_splats.sh build-gpu/bin/tandem-viewer build-gpu/bin/tandem-pack \
        build-gpu/bin/tandem-png-check "$out/viewer_splats" >"$out/viewer_splats.log" 2>&1 || status=1
    grep -E "FAIL|dB|all checks|upload|cuda" "$out/viewer_splats.log" | head -12
    grep -ho '"upload_path": *"[a-z-]*"' "$out"/viewer_splats/*.json | sort | uniq -c
    rm -rf "$out/viewer_splats/frames" "$out"/viewer_splats/*.tdpk
    echo "== tandem.Gaussians on CUDA tensors, and the viewer's Python tests (at ${SECONDS}s)"
    timeout 300 ctest --test-dir build-gpu -R '^python\.test_(splats|viewer)\.cuda$' --output-on-failure \
        >"$out/python_splats.log" 2>&1 || status=1
    grep -E "ok$|FAIL|ERROR|Error|Ran |tests passed" "$out/python_splats.log" | head -30
    [ -n "${TANDEM_NO_BENCH:-}" ] && { echo "== done, no bench (at ${SECONDS}s)"; exit $status; }
    echo "== tandem-bench splats (at ${SECONDS}s)"
    timeout 500 build-gpu/bin/tandem-bench splats --frames "${TANDEM_BENCH_FRAMES:-30}" --warmup 5 \
        --commit "${TANDEM_COMMIT:-unknown}" --json "$out/splats.json" >"$out/splats_bench.log" 2>&1 || status=1
    tail -n 24 "$out/splats_bench.log"
    echo "== done (at ${SECONDS}s)"
    exit $status
fi
if [ "$mode" = "--frame" ]; then
    commit="${TANDEM_COMMIT:-unknown}"
    work="${TANDEM_WORK:-/tmp/tandem-frame}"
    mkdir -p "$work"
    step() { echo "== $* (at ${SECONDS}s)"; }
    step "gpu tier"
    timeout 300 ctest --test-dir build-gpu -L '^gpu$' --output-on-failure -j4 >"$out/ctest.log" 2>&1 || status=1
    grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest.log" | head -30
    grep -E "cuda against gl|auto on this GPU" "$out/ctest.log" | head -12
    step "gl tier's mesh tests on this GPU's GL"
    timeout 120 build-gpu/bin/tandem_gl_tests --gtest_filter='Meshes.*:Render.*:Points.*' >"$out/gl_meshes.log" 2>&1 || status=1
    grep -E "PASSED|FAILED|covered" "$out/gl_meshes.log" | head -20
    step "raster_paths.py"
    timeout 120 python3 tests/apps/raster_paths.py build-gpu/bin/tandem-raster build-gpu/bin/tandem-viewer \
        tests/data/real_world/knot_assimp.obj "$work/raster_paths" >"$out/raster_paths.log" 2>&1 || status=1
    tail -n 12 "$out/raster_paths.log"
    step "resident_frames.py"
    timeout 200 python3 tests/apps/resident_frames.py build-gpu/bin/tandem-raster build-gpu/bin/tandem-viewer \
        tests/data/real_world/knot_assimp.obj "$work/resident_frames" >"$out/resident_frames.log" 2>&1 || status=1
    tail -n 8 "$out/resident_frames.log"
    show() { # REPORT LABEL: fps (viewer) and the GPU stages' medians
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); s=r.get('streaming',{}); print(sys.argv[2], r['memory']['last'], r['memory']['handoffs'], round(s.get('frames_per_second',0)), {k: round(v['p50_ms'], 4) for k, v in r['profile']['gpu_stages'].items()})" "$1" "$2" 2>&1 | head -3
    }
    step "tandem-raster: 2.09 M-triangle grid, --raster gl / cuda on GL's memory / cuda resident, 1080p and 4K"
    python3 scripts/make-grid-mesh.py 1024 "$work/grid.ply"
    for size in 1920x1080 3840x2160; do
        for v in "gl|--raster gl" "cudagl|--raster cuda --frame-memory gl" "cuda|--raster cuda" "auto|--raster auto"; do
            name=${v%%|*}; args=${v#*|}
            timeout 120 build-gpu/bin/tandem-raster --headless "$work/grid.ply" $args --size $size \
                --postfx tonemap,fxaa --frames 400 --warmup 40 --format none \
                --report "$out/grid_${name}_${size}.json" >"$out/grid_${name}_${size}.log" 2>&1 || status=1
            show "$out/grid_${name}_${size}.json" "$name $size"
        done
    done
    grep -h "meshes:" "$out"/grid_auto_*.log | head -4
    if [ -e .gpu/runtime/librenderdoc.so ]; then
        # A frame the CUDA rasterizer draws, captured: replayed here by the capture tier
        # (tests/data/h200-capture/README.md).
        step "RenderDoc capture of a frame drawn by the CUDA rasterizer"
        rm -rf "$out/capture-raster-cuda"
        timeout 60 build-gpu/bin/tandem-raster --headless --renderdoc --capture-frame 2 --frames 4 \
            --size 480x270 --spin 20 --postfx tonemap,fxaa --backend cuda --raster cuda \
            --report "$out/capture-raster-cuda/report.json" \
            --capture-dir "$out/capture-raster-cuda" --out "$out/capture-raster-cuda" \
            >"$out/capture-raster-cuda.log" 2>&1 || status=1
        grep -E "captured|meshes|memory|error" "$out/capture-raster-cuda.log" | head -8
    fi
    step "tandem-pack: 0.5 M-triangle mesh sequence; the viewer streamed at 1080p, --raster gl / cuda on GL's memory / cuda resident"
    timeout 200 build-gpu/bin/tandem-pack sample:mesh,points=250000,frames=60 -o "$work/mesh.tdpk" \
        --overwrite -q >"$out/pack.log" 2>&1 || status=1
    for v in "gl|--raster gl" "cudagl|--raster cuda --frame-memory gl" "cuda|--raster cuda" "gl2|--raster gl" "cudagl2|--raster cuda --frame-memory gl" "cuda2|--raster cuda"; do
        name=${v%%|*}; args=${v#*|}
        timeout 60 build-gpu/bin/tandem-viewer --headless --every-frame "$work/mesh.tdpk" --loop loop \
            --frames 2000 --format none --postfx tonemap,fxaa -q --size 1920x1080 $args \
            --report "$out/mesh_seq_$name.json" --overwrite >"$out/mesh_seq_$name.log" 2>&1 || status=1
        show "$out/mesh_seq_$name.json" "$name"
    done
    step "tandem-pack: 1 M-point sequence; the viewer streamed at 1080p and 4K, GL's memory / resident, streamed through the default 1 GiB staging and cached whole (3 GiB)"
    timeout 200 build-gpu/bin/tandem-pack sample:points=1000000,frames=120 -o "$work/points.tdpk" \
        --overwrite -q >>"$out/pack.log" 2>&1 || status=1
    for size in 1920x1080 3840x2160; do
        for v in "gl|--frame-memory gl" "auto|--frame-memory auto" "glc|--frame-memory gl --cache-mb 3072" "autoc|--frame-memory auto --cache-mb 3072"; do
            name=${v%%|*}; args=${v#*|}
            timeout 60 build-gpu/bin/tandem-viewer --headless --every-frame "$work/points.tdpk" --loop loop \
                --frames 3000 --format none --postfx tonemap,fxaa -q --size $size $args \
                --report "$out/points_${name}_${size}.json" --overwrite >"$out/points_${name}_${size}.log" 2>&1 || status=1
            show "$out/points_${name}_${size}.json" "$name $size"
        done
    done
    step "the 1 M-point sequence written as PAM and as PNG at 1080p, GL's memory / resident (/ resident, cached whole)"
    for format in pam png; do
        frames=600; variants=("gl|--frame-memory gl" "auto|--frame-memory auto")
        [ $format = pam ] && frames=1500 && variants+=("autoc|--frame-memory auto --cache-mb 3072")
        for v in "${variants[@]}"; do
            name=${v%%|*}; args=${v#*|}
            rm -rf /dev/shm/tandem-frames
            timeout 90 build-gpu/bin/tandem-viewer --headless --every-frame "$work/points.tdpk" --loop loop \
                --frames $frames --format $format --out /dev/shm/tandem-frames -q --size 1920x1080 \
                --postfx tonemap,fxaa $args --report "$out/points_${format}_${name}.json" --overwrite \
                >"$out/points_${format}_${name}.log" 2>&1 || status=1
            echo "$format $name: $(ls /dev/shm/tandem-frames | grep -c "\.$format$") files"
            show "$out/points_${format}_${name}.json" "$format $name"
        done
    done
    rm -rf /dev/shm/tandem-frames "$work/points.tdpk"
    rm -f "$work/grid.ply"
    step "tandem-bench frame: the sheet, the cloud and both, GL vs CUDA draws, GL's memory vs resident, headless and presented, 1080p and 4K"
    timeout 300 build-gpu/bin/tandem-bench frame --frames 300 --warmup 30 --commit "$commit" \
        --json "$out/frame_bench.json" --overwrite >"$out/frame_bench.log" 2>"$out/frame_bench.err" || status=1
    grep -v "info:" "$out/frame_bench.log" | tail -n 40
    tail -n 3 "$out/frame_bench.err"
    tar -czf /tmp/frame.tgz -C "$out" . && rm -rf "${out:?}"/* && mv /tmp/frame.tgz "$out/frame.tgz"
    step "done"
    exit $status
fi
if [ "$mode" = "--serve" ]; then
    # The browser view's targets (docs/remote.md): a 1 M-point pack played headless with --serve
    # at 1080p, driven over loopback by scripts/bench-serve.py (no client, one, eight with one
    # never reading), and the unit tier's server and protocol tests on this host.
    work="${TANDEM_WORK:-/tmp/tandem-serve}"
    mkdir -p "$work"
    [ -f .gpu/sysroot/usr/include/boost/beast/core.hpp ] || { echo "error: .gpu has no Boost headers (boost-web.tar.xz): run gather.sh again"; exit 1; }
    if [ -z "${TANDEM_NO_UNIT:-}" ]; then
        echo "== the unit tier's browser-view tests (at ${SECONDS}s)"
        timeout 120 build-gpu/bin/tandem_unit_tests --gtest_filter='Web*:Settings.Serve*:JpegBands*' \
            >"$out/web_unit.log" 2>&1 || status=1
        grep -E "PASSED|FAILED|Failure" "$out/web_unit.log" | head -10
    fi
    if [ -z "${TANDEM_SERVE_ONLY:-}" ]; then
        echo "== the read-back as YCbCr planes (the CUDA pass against its host twin; at ${SECONDS}s)"
        timeout 120 build-gpu/bin/tandem_gpu_tests --gtest_filter='ResidentFrameCuda.*' \
            >"$out/gpu_resident.log" 2>&1 || status=1
        grep -E "PASSED|FAILED|Failure" "$out/gpu_resident.log" | head -10
    fi
    echo "== tandem-pack: 1 M-point sequence (at ${SECONDS}s)"
    timeout 200 build-gpu/bin/tandem-pack sample:points=1000000,frames=120 -o "$work/points.tdpk" \
        --overwrite -q >"$out/pack.log" 2>&1 || status=1
    echo "== bench-serve at 1080p (at ${SECONDS}s)"
    device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
    timeout 400 python3 scripts/bench-serve.py build-gpu/bin/tandem-viewer "$work/points.tdpk" \
        --size 1920x1080 --seconds "${TANDEM_SERVE_SECONDS:-6}" --rounds "${TANDEM_SERVE_ROUNDS:-2}" \
        --clients "${TANDEM_SERVE_CLIENTS:-0,1,8}" \
        --commit "${TANDEM_COMMIT:-unknown}" --device "$device" --json "$out/serve.json" \
        --overwrite >"$out/serve_bench.log" 2>&1 || status=1
    tail -n 30 "$out/serve_bench.log"
    if [ -n "${TANDEM_SERVE_MAX_FPS:-}" ]; then
        # The same cases with clients that ask no more frames than a display of that rate shows
        # (as the page asks its own display's rate): their JSON beside, serve_paced.json.
        echo "== bench-serve at 1080p, clients at ${TANDEM_SERVE_MAX_FPS} frames/s (at ${SECONDS}s)"
        timeout 400 python3 scripts/bench-serve.py build-gpu/bin/tandem-viewer "$work/points.tdpk" \
            --size 1920x1080 --seconds "${TANDEM_SERVE_SECONDS:-6}" --rounds "${TANDEM_SERVE_ROUNDS:-2}" \
            --clients "${TANDEM_SERVE_CLIENTS:-0,1,8}" --max-fps "$TANDEM_SERVE_MAX_FPS" \
            --commit "${TANDEM_COMMIT:-unknown}" --device "$device" --json "$out/serve_paced.json" \
            --overwrite >"$out/serve_paced_bench.log" 2>&1 || status=1
        tail -n 30 "$out/serve_paced_bench.log"
    fi
    rm -f "$work/points.tdpk"
    echo "== done (at ${SECONDS}s)"
    exit $status
fi
if [ "$mode" = "--stream-trace" ]; then
    # The profile of the streamed 1 M-point pack at 1080p, resident (the frame issue's missed
    # target): a trace (loader tracks, the render thread's frames, the GPU's streams) and the
    # report, gzipped into $OUT.
    work="${TANDEM_WORK:-/tmp/tandem-stream-trace}"
    mkdir -p "$work"
    if [ -z "${TANDEM_SERVE_ONLY:-}" ]; then
        echo "== the read-back as YCbCr planes (the CUDA pass against its host twin; at ${SECONDS}s)"
        timeout 120 build-gpu/bin/tandem_gpu_tests --gtest_filter='ResidentFrameCuda.*' \
            >"$out/gpu_resident.log" 2>&1 || status=1
        grep -E "PASSED|FAILED|Failure" "$out/gpu_resident.log" | head -10
    fi
    echo "== tandem-pack: 1 M-point sequence (at ${SECONDS}s)"
    timeout 200 build-gpu/bin/tandem-pack sample:points=1000000,frames=120 -o "$work/points.tdpk" \
        --overwrite -q >"$out/pack.log" 2>&1 || status=1
    echo "== the viewer, streamed through the default staging, 1080p, traced (at ${SECONDS}s)"
    timeout 120 build-gpu/bin/tandem-viewer --headless --every-frame "$work/points.tdpk" --loop loop \
        --frames 1000 --format none --postfx tonemap,fxaa -q --size 1920x1080 \
        --trace "$out/points_stream_trace.json" --trace-frames 600 --report "$out/points_stream_report.json" \
        --overwrite >"$out/points_stream.log" 2>&1 || status=1
    tail -n 5 "$out/points_stream.log"
    gzip -9 "$out/points_stream_trace.json"
    ls -la "$out"
    rm -f "$work/points.tdpk"
    exit $status
fi
if [ "$mode" = "--house" ]; then
    commit="${TANDEM_COMMIT:-unknown}"
    work="${TANDEM_WORK:-/tmp/tandem-house}"
    mkdir -p "$work"
    step() { echo "== $* (at ${SECONDS}s)"; }
    step "gpu tier (python.*.cuda among it)"
    timeout 300 ctest --test-dir build-gpu -L '^gpu$' --output-on-failure -j4 >"$out/ctest.log" 2>&1 || status=1
    grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest.log" | head -30
    step "the viewer's headless end-to-end test on CUDA (tests/apps/viewer_headless.sh)"
    timeout 120 tests/apps/viewer_headless.sh build-gpu/bin/tandem-viewer build-gpu/bin/tandem-pack \
        build-gpu/bin/tandem-png-check "$work/viewer_headless" >"$out/viewer_headless.log" 2>&1
    code=$?; [ $code = 0 ] || [ $code = 77 ] || status=1
    grep -E "^== |FAIL|^ok|backend" "$out/viewer_headless.log" | sort | uniq -c | sort -rn | head -20
    bench=build-gpu/bin/tandem-bench
    step "tandem-bench interop, raster, overhead x3"
    timeout 120 $bench interop --commit "$commit" --json "$out/bench_interop.json" >"$out/bench_interop.txt" 2>&1 || status=1
    timeout 120 $bench raster --commit "$commit" --json "$out/bench_raster.json" >"$out/bench_raster.txt" 2>&1 || status=1
    for run in 1 2 3; do
        timeout 120 $bench overhead --frames 2000 --commit "$commit" --json "$out/bench_overhead_$run.json" \
            >"$out/bench_overhead_$run.txt" 2>&1 || status=1
    done
    grep -iE "handoff" "$out/bench_interop.txt" | tail -4; tail -n 8 "$out/bench_raster.txt"
    grep -A4 "profiler on vs off" "$out"/bench_overhead_*.txt
    step "tandem-pack: 1M-point sample, 120 frames; the viewer streamed at 1080p, three times"
    timeout 120 build-gpu/bin/tandem-pack sample:points=1000000,frames=120 -o "$work/seq.tdpk" \
        --overwrite -q >"$out/pack.log" 2>&1 || status=1
    for rep in 1 2 3; do
        timeout 60 build-gpu/bin/tandem-viewer --headless --every-frame "$work/seq.tdpk" --loop loop \
            --frames 3000 --format none --postfx tonemap,fxaa -q --size 1920x1080 \
            --report "$out/viewer_1080p_streamed_$rep.json" --overwrite >"$out/viewer_$rep.log" 2>&1 || status=1
    done
    python3 - "$out" <<'PY'
import json, statistics, sys
fps = [json.load(open(f"{sys.argv[1]}/viewer_1080p_streamed_{r}.json"))["streaming"]["frames_per_second"] for r in (1, 2, 3)]
print(f"1080p streamed: {[round(f) for f in fps]} frames/s, median {statistics.median(fps):.0f}")
PY
    # At most 8 files come back from the GPU host: everything in one archive
    # (scripts/gpu-server/collect.py --house reads it).
    tar -czf /tmp/house.tgz -C "$out" . && rm -f "$out"/* && mv /tmp/house.tgz "$out/house.tgz"
    step "done"
    exit $status
fi
if [ "$mode" = "--python" ]; then
    commit="${TANDEM_COMMIT:-unknown}"
    step() { echo "== $* (at ${SECONDS}s)"; }
    step "gpu tier (python.*.cuda among it)"
    timeout 240 ctest --test-dir build-gpu -L '^gpu$' --output-on-failure -j4 >"$out/ctest.log" 2>&1 || status=1
    grep -E "tests passed|FAILED|Failed|\*\*\*|python" "$out/ctest.log" | head -30
    # The CUDA rasterizer against GL on this GPU: how many pixels name another triangle.
    timeout 120 build-gpu/bin/tandem_gpu_tests --gtest_filter='TriangleRasterCuda.*' \
        >"$out/triangle_raster_cuda.log" 2>&1 || status=1
    grep -E "differ|FAILED|PASSED" "$out/triangle_raster_cuda.log" | head -20
    step "the package on CPU tensors, and the clip rasterizers' gl tests"
    timeout 120 ctest --test-dir build-gpu -R '^python\.[a-z_]+$|Raster\.|CudaRules\.' -LE window --output-on-failure >"$out/ctest_cpu.log" 2>&1 || status=1
    grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest_cpu.log" | head -20
    if [ -n "${TANDEM_NO_BENCH:-}" ]; then step "done (TANDEM_NO_BENCH: no benchmarks)"; exit $status; fi
    step "tandem-bench tensor-raster"
    timeout 300 build-gpu/bin/tandem-bench tensor-raster --commit "$commit" --frames 40 --warmup 5 \
        --json "$out/bench_tensor_raster.json" >"$out/bench_tensor_raster.txt" 2>&1 || status=1
    grep -v "^tandem: info" "$out/bench_tensor_raster.txt" | tail -n 16
    step "scripts/bench-rasterize.py (PyTorch)"
    PYTHONPATH=build-gpu/python TANDEM_DATA_DIR=build-gpu timeout 300 python3 scripts/bench-rasterize.py \
        "$out/bench_tensor_raster.json" "$out/bench_python_rasterize.json" --commit "$commit" \
        --calls 40 >"$out/bench_python_rasterize.txt" 2>&1 || status=1
    cat "$out/bench_python_rasterize.txt" | tail -n 12
    step "done"
    exit $status
fi
if [ "$mode" = "--batch" ]; then
    commit="${TANDEM_COMMIT:-unknown}"
    work="${TANDEM_WORK:-/tmp/tandem-batch}"
    rm -rf "$work"; mkdir -p "$work"
    step() { echo "== $* (at ${SECONDS}s)"; }
    viewer=build-gpu/bin/tandem-viewer
    gpus=$(nvidia-smi -L | grep -c '^GPU ')
    step "the GPUs ($gpus)"
    nvidia-smi -L | tee "$out/gpus.txt"
    step "tandem-pack: 1M-point sample, ${TANDEM_BATCH_FRAMES:-600} frames"
    timeout 200 build-gpu/bin/tandem-pack "sample:points=1000000,frames=${TANDEM_BATCH_FRAMES:-600}" \
        -o "$work/seq.tdpk" --overwrite -q >"$out/pack.log" 2>&1 || status=1
    args=(--size 1920x1080 --postfx tonemap,fxaa)
    step "one process against one process per GPU (or two on GPU 0): the same images"
    timeout 200 scripts/render-local.sh "$work/seq.tdpk" "$work/one" --gpus 1 --viewer "$viewer" \
        -- "${args[@]}" >"$out/check_one.log" 2>&1 || status=1
    if [ "$gpus" -ge 2 ]; then
        timeout 200 scripts/render-local.sh "$work/seq.tdpk" "$work/split" --gpus 2 --viewer "$viewer" \
            -- "${args[@]}" >"$out/check_split.log" 2>&1 || status=1
    else
        timeout 200 scripts/render-local.sh "$work/seq.tdpk" "$work/split" --gpus 1 --per-gpu 2 \
            --viewer "$viewer" -- "${args[@]}" >"$out/check_split.log" 2>&1 || status=1
    fi
    cat "$out/check_one.log" "$out/check_split.log" | grep -E "render-local|process|frames present|error"
    differing=0
    for f in "$work"/one/frame_*.png; do cmp -s "$f" "$work/split/$(basename "$f")" || differing=$((differing + 1)); done
    echo "images differing between one process and the split: $differing of $(ls "$work"/one/frame_*.png | wc -l)" |
        tee "$out/check_compare.txt"
    [ "$differing" = 0 ] || status=1
    for i in 0 1; do
        grep -m1 -E "rendering with|passes:" "$work/split/logs/local_$i.log" 2>/dev/null
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); i=r["interop"]; print("process", sys.argv[2], "interop:", i["path"], "CUDA device", i["cuda_device"], i["cuda_device_name"], "EGL on CUDA device", i["egl_cuda_device"])' \
            "$work/split/logs/local_$i.json" "$i" 2>/dev/null
    done | tee -a "$out/check_compare.txt"
    cp "$work/split/logs/gpus.csv" "$out/check_gpus.csv" 2>/dev/null
    python3 - "$work/split/logs/gpus.csv" <<'PY' | tee -a "$out/check_compare.txt"
import collections, csv, sys
apps = collections.defaultdict(set)
busy = collections.defaultdict(list)
for row in csv.reader(open(sys.argv[1])):
    if len(row) >= 4 and row[1].strip() == "gpu":
        busy[row[2].strip()].append(int(row[4]) if len(row) > 4 and row[4].strip().isdigit() else 0)
    elif len(row) >= 3 and row[1].strip().isdigit():
        apps[row[2].strip()].add(row[1].strip())
for uuid, pids in sorted(apps.items()):
    print(f"nvidia-smi: GPU {uuid}: processes {sorted(pids)}")
for index, samples in sorted(busy.items()):
    print(f"nvidia-smi: GPU {index}: utilization samples {samples} (max {max(samples)} %)")
PY
    step "throughput: one process, two on one GPU$([ "$gpus" -ge 2 ] && echo ", one per GPU")"
    variants=("1 1" "1 2" "1 4")
    [ "$gpus" -ge 2 ] && variants+=("2 1" "2 2")
    for format in png none; do
        for variant in "${variants[@]}"; do
            read -r g k <<<"$variant"
            name="${format}_g${g}_k${k}"
            timeout 200 scripts/render-local.sh "$work/seq.tdpk" "$work/$name" --gpus "$g" --per-gpu "$k" \
                --viewer "$viewer" $([ "$format" = none ] && echo --no-merge) -- "${args[@]}" --format "$format" \
                >"$out/throughput_$name.log" 2>&1 || status=1
            cp "$work/$name/logs/local.json" "$out/throughput_$name.json" 2>/dev/null
            for report in "$work/$name"/logs/local_*.json; do # each process's own report
                cp "$report" "$out/throughput_${name}_$(basename "$report")" 2>/dev/null
            done
            grep "frames/s" "$out/throughput_$name.log"
            rm -rf "${work:?}/$name"
        done
    done
    python3 - "$out" "$commit" "$gpus" <<'PY'
import datetime, glob, json, os, subprocess, sys
out, commit, gpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip().splitlines()
runs = []
for path in sorted(glob.glob(os.path.join(out, "throughput_*_k[0-9].json"))):
    name = os.path.basename(path)[len("throughput_"):-len(".json")]
    record = json.load(open(path))
    record["output"] = name.split("_")[0]
    # Where each process's time went: its own frames/s, loader and output waits.
    record["per_process"] = []
    for report in sorted(glob.glob(os.path.join(out, f"throughput_{name}_local_*.json"))):
        r = json.load(open(report))
        s, o = r.get("streaming", {}), r.get("output", {})
        record["per_process"].append({
            "frames": r.get("frames"), "frames_per_second": s.get("frames_per_second"),
            "loader_waits": s.get("loader_waits"), "loader_busy": s.get("loader_busy"),
            "mean_load_ms": s.get("mean_load_ms"), "cache_hit_rate": s.get("cache_hit_rate"),
            "output_queue_waits": o.get("queue_waits"), "mean_write_ms": o.get("mean_write_ms"),
            "gpu_p50_ms": {k: v.get("p50_ms") for k, v in r.get("profile", {}).get("gpu_stages", {}).items()}})
    runs.append(record)
for output in ("png", "none"):
    base = [r for r in runs if r["output"] == output and r["processes"] == 1]
    for r in runs:
        if r["output"] == output and base:
            r["speedup_vs_one_process"] = r["frames_per_second"] / base[0]["frames_per_second"]
result = {"benchmark": "batch-throughput", "commit": commit,
          "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
          "device": smi[0].split(",")[0] if smi else "?", "driver": smi[0].split(",")[1].strip() if smi else "?",
          "gpus": gpus, "sequence": "tandem-pack sample:points=1000000 (a 1 M-point pack)",
          "size": "1920x1080", "postfx": "tonemap,fxaa",
          "statistic": "frames of the whole render over its wall time (processes started together, the last one's end)",
          "runs": runs}
json.dump(result, open(os.path.join(out, "bench_batch.json"), "w"), indent=1)
for r in runs:
    print(f"{r['output']:4} {r['gpus']} GPU(s) x {r['per_gpu']}: {r['frames_per_second']:.1f} frames/s "
          f"({r.get('speedup_vs_one_process', 1):.2f}x one process)")
PY
    step "done"
    exit $status
fi

if [ "$mode" = "--robust" ]; then
    commit="${TANDEM_COMMIT:-unknown}"
    work="${TANDEM_WORK:-/tmp/tandem-robust}"
    mkdir -p "$work"
    step() { echo "== $* (at ${SECONDS}s)"; }
    step "gpu tier"
    timeout 300 ctest --test-dir build-gpu -L '^gpu$' --output-on-failure -j4 >"$out/ctest.log" 2>&1 || status=1
    grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest.log" | head -30
    step "fallbacks on CUDA (tests/apps/fallbacks.sh)"
    timeout 200 tests/apps/fallbacks.sh build-gpu/bin/tandem-viewer build-gpu/bin/tandem-raster \
        build-gpu/bin/tandem-png-check "$work/fallbacks" >"$out/fallbacks.log" 2>&1 || status=1
    grep -E "^== |FAIL|^ok|^\(" "$out/fallbacks.log"
    step "soak: 10 000 frames of a 1 M-point pack, streamed, full chain, 1080p"
    timeout 120 build-gpu/bin/tandem-pack sample:points=1000000,frames=120 -o "$work/seq.tdpk" \
        --overwrite -q >"$out/pack.log" 2>&1 || status=1
    timeout 200 build-gpu/bin/tandem-viewer --headless --every-frame "$work/seq.tdpk" --loop loop \
        --frames 10000 --format none --postfx tonemap,blur,bilateral,outline,ssao,fxaa \
        --size 1920x1080 -q --report "$out/soak.json" --overwrite >"$out/soak.log" 2>&1 || status=1
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); s=r['streaming']; print(s['frames_shown'], 'frames', round(s['frames_per_second']), 'frames/s; late', s['frames_late'], 'skipped', s['frames_skipped'], '; rss', s['host_rss_mb'], '; gpu free', s['gpu_free_mb'])" "$out/soak.json" || tail -5 "$out/soak.log"
    step "done"
    exit $status
fi
if [ "$mode" = "--stream" ]; then
    commit="${TANDEM_COMMIT:-unknown}"
    work="${TANDEM_WORK:-/tmp/tandem-stream}"
    mkdir -p "$work"
    step() { echo "== $* (at ${SECONDS}s)"; }
    step "gpu tier"
    timeout 240 ctest --test-dir build-gpu -L '^gpu$' --output-on-failure -j4 >"$out/ctest.log" 2>&1 || status=1
    grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest.log" | head -30
    step "the viewer's headless end-to-end test on CUDA (tests/apps/viewer_headless.sh)"
    timeout 120 tests/apps/viewer_headless.sh build-gpu/bin/tandem-viewer build-gpu/bin/tandem-pack \
        build-gpu/bin/tandem-png-check "$work/viewer_headless" >"$out/viewer_headless.log" 2>&1
    code=$?; [ $code = 0 ] || [ $code = 77 ] || status=1
    grep -E "^== |FAIL|^ok|backend" "$out/viewer_headless.log" | sort | uniq -c | sort -rn | head -20
    step "tandem-bench stream"
    timeout 300 stdbuf -oL build-gpu/bin/tandem-bench stream --commit "$commit" --frames 120 \
        --warmup 10 --load-frames 2 --ply-frames 48 --no-preloaded --work "$work/bench" \
        --json "$out/bench_stream.json" >"$out/bench_stream.txt" 2>&1 || status=1
    grep -v "^tandem: info" "$out/bench_stream.txt" | tail -n 40
    step "tandem-pack: 1M-point sample, 120 frames"
    timeout 120 build-gpu/bin/tandem-pack sample:points=1000000,frames=120 -o "$work/seq.tdpk" \
        --overwrite >"$out/pack.log" 2>&1 || status=1
    tail -n 2 "$out/pack.log"
    build-gpu/bin/tandem-pack --info "$work/seq.tdpk" >"$out/pack_info.txt" 2>&1 || status=1
    # The viewer end to end on the pack, streamed and preloaded alternately (three of each,
    # compared as medians in this one run), then 4K streamed and the cached variant once.
    play() { # NAME ARGS...: one 3000-frame --every-frame run, its report $out/viewer_NAME.json
        local name=$1; shift
        timeout 60 build-gpu/bin/tandem-viewer --headless --every-frame "$work/seq.tdpk" --loop loop \
            --frames 3000 --format none --postfx tonemap,fxaa -q "$@" \
            --report "$out/viewer_$name.json" --overwrite >"$out/viewer_$name.log" 2>&1 || status=1
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); s=r['streaming']; print(sys.argv[2], {k: s[k] for k in ('frames_per_second','frames_shown','cache_hit_rate','loader_waits','loader_busy','mean_load_ms')}, 'gpu p50', {k: round(v['p50_ms'], 4) for k, v in r['profile']['gpu_stages'].items()})" "$out/viewer_$name.json" "$name" || tail -5 "$out/viewer_$name.log"
    }
    step "tandem-viewer --headless --every-frame, 1M points a frame, tonemap,fxaa"
    for rep in 1 2 3; do
        play "1080p_streamed_$rep" --size 1920x1080
        play "1080p_preload_$rep" --size 1920x1080 --preload --cache-mb 2600
    done
    play 4k_streamed --size 3840x2160
    play 1080p_cached --size 1920x1080 --cache-mb 2600
    python3 - "$out" <<'PY'
import json, statistics, sys
fps = lambda name: json.load(open(f"{sys.argv[1]}/viewer_{name}.json"))["streaming"]["frames_per_second"]
s = statistics.median(fps(f"1080p_streamed_{r}") for r in (1, 2, 3))
p = statistics.median(fps(f"1080p_preload_{r}") for r in (1, 2, 3))
print(f"1080p medians: streamed {s:.0f} frames/s, preloaded {p:.0f}; streamed {100 * (1 - s / p):.1f} % slower; 4K streamed {fps('4k_streamed'):.0f}")
PY
    step "10 000 frames (50k points each), host memory"
    timeout 150 build-gpu/bin/tandem-viewer --headless --every-frame "sample:points=50000,frames=10000" \
        --format none --cache-mb 256 --size 1280x720 -q --report "$out/viewer_10k.json" \
        --overwrite >"$out/viewer_10k.log" 2>&1 || status=1
    python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['streaming']; print(s['frames_shown'], 'frames', round(s['frames_per_second']), 'frames/s; rss', s['host_rss_mb'], 'gpu free', s['gpu_free_mb'])" "$out/viewer_10k.json" || tail -5 "$out/viewer_10k.log"
    step "done"
    exit $status
fi
if [ "$mode" = "--points" ]; then
    commit="${TANDEM_COMMIT:-unknown}"
    echo "== gpu tier"
    ctest --test-dir build-gpu -L '^gpu$' --output-on-failure -j4 >"$out/ctest.log" 2>&1 || status=1
    grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest.log" | head -30
    echo "== tandem-bench points"
    build-gpu/bin/tandem-bench points --commit "$commit" --frames 30 --warmup 3 --gl-frames 3 \
        --json "$out/bench_points.json" >"$out/bench_points.txt" 2>&1 || status=1
    tail -n 22 "$out/bench_points.txt"
    echo "== tandem-raster end to end: 1M points, tonemap,fxaa, 1080p"
    python3 scripts/make-point-cloud.py 1000000 "$out/cloud.ply"
    for points in cuda gl; do
        build-gpu/bin/tandem-raster --headless "$out/cloud.ply" --points "$points" \
            --size 1920x1080 --postfx tonemap,fxaa --frames 300 --warmup 30 --format none \
            --report "$out/e2e_$points.json" >"$out/e2e_$points.log" 2>&1 || status=1
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], r['points']['path'], {k: round(v['p50_ms'], 4) for k, v in r['profile']['gpu_stages'].items()})" "$out/e2e_$points.json" "$points" 2>&1 | head -3
    done
    rm -f "$out/cloud.ply"
    exit $status
fi
if [ "$mode" != "--bench-only" ]; then
echo "== tests (unit, gpu)"
ctest --test-dir build-gpu -L '^(unit|gpu)$' --output-on-failure -j4 >"$out/ctest.log" 2>&1 || status=1
grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest.log" | head -30

echo "== smoke render (CUDA backend)"
rm -rf "$out/smoke"
if build-gpu/bin/tandem-raster --headless --frames 3 --size 1280x720 --spin 20 \
        --postfx bilateral,ssao,outline,tonemap,fxaa --backend cuda --out "$out/smoke" \
        --report "$out/smoke/report.json" >"$out/smoke.log" 2>&1; then
    grep -E "post-processing|rendering with" "$out/smoke.log"
else
    cat "$out/smoke.log"; status=1
fi

echo "== trace and report (CUDA backend)"
rm -rf "$out/profile"; mkdir -p "$out/profile"
if build-gpu/bin/tandem-raster --headless --frames 12 --size 1920x1080 --postfx tonemap,fxaa \
        --backend cuda --trace "$out/profile/trace.json" --trace-frames 8 \
        --report "$out/profile/report.json" --out "$out/profile/frames" >"$out/profile.log" 2>&1 \
        && python3 tests/apps/trace_report.py build-gpu/bin/tandem-raster assets/sample.ply \
        "$out/profile/check" >>"$out/profile.log" 2>&1; then
    tail -2 "$out/profile.log"
else
    cat "$out/profile.log"; status=1
fi

if [ -e .gpu/runtime/librenderdoc.so ]; then
    # Replayed on a machine with python3-renderdoc: tests/capture/capture_replay.py replay ...
    echo "== RenderDoc captures (CUDA backend)"
    # The camera moves (--spin), so a replay of the frame before would not match; the second
    # capture leaves the CUDA output out of the GL stream, the negative control.
    rm -rf "$out/capture" "$out/capture-no-upload"
    raster=(build-gpu/bin/tandem-raster --headless --renderdoc --capture-frame 2 --frames 4
            --size 480x270 --spin 20 --postfx tonemap,fxaa --backend cuda)
    if "${raster[@]}" --capture-dir "$out/capture" --out "$out/capture" >"$out/capture.log" 2>&1 \
            && "${raster[@]}" --capture-no-upload --capture-dir "$out/capture-no-upload" \
            --out "$out/capture-no-upload" >>"$out/capture.log" 2>&1 \
            && build-gpu/bin/tandem-bench overhead --renderdoc --capture-dir "$out/capture" \
            --frames 3 --warmup 0 >>"$out/capture.log" 2>&1; then
        grep -E "captured|image it produced|post-processing" "$out/capture.log"
    else
        cat "$out/capture.log"; status=1
    fi
fi

fi # tests

if [ "$mode" != "--no-bench" ] && [ -x build-gpu/bin/tandem-bench ]; then
    echo "== benchmarks"
    commit="${TANDEM_COMMIT:-unknown}"
    bench=build-gpu/bin/tandem-bench
    $bench interop --commit "$commit" --json "$out/bench_interop.json" >"$out/bench_interop.txt" 2>&1 || status=1
    $bench raster --commit "$commit" --json "$out/bench_raster.json" >"$out/bench_raster.txt" 2>&1 || status=1
    for run in 1 2 3; do
        $bench overhead --frames 2000 --commit "$commit" --json "$out/bench_overhead_$run.json" \
            >"$out/bench_overhead_$run.txt" 2>&1 || status=1
    done
    $bench export --commit "$commit" --json "$out/bench_export.json" >"$out/bench_export.txt" 2>&1 || status=1
    tail -n 12 "$out/bench_raster.txt"; grep -A4 "profiler on vs off" "$out"/bench_overhead_*.txt
    tail -n 14 "$out/bench_export.txt"
fi
exit $status
