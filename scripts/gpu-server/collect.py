#!/usr/bin/env python3
"""Turns the output folder of `build-and-test.sh --stream`, `--robust`, `--house` or `--frame` into the files
committed under bench/results/: the viewer's end-to-end runs with their medians and targets, the
10 000-frame memory run, the soak, the house issue's acceptance figures, and the logs (paths made
relative to the repository). For --house and --frame, RUN_DIR is where house.tgz or frame.tgz was unpacked.

Usage: collect.py --stream|--robust|--house|--frame RUN_DIR COMMIT [--date YYYY-MM-DD] [--results bench/results]
Existing files are never replaced.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import sys

# The write rule is the package's (python/tandem/_atomic.py), loaded without the package.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python", "tandem"))
import _atomic as atomic_file  # noqa: E402

STREAM_RUNS = ["1080p_streamed_1", "1080p_preload_1", "1080p_streamed_2", "1080p_preload_2",
               "1080p_streamed_3", "1080p_preload_3", "4k_streamed", "1080p_cached"]
PACK = "tandem-pack sample:points=1000000,frames=120 -o seq.tdpk (compact points, none codec, f32; 2400 MB)"


def report(run_dir, name):
    with open(os.path.join(run_dir, name)) as f:
        return json.load(f)


def header(run_dir, benchmark, commit, date):
    with open(os.path.join(run_dir, "machine.txt")) as f:
        machine = f.read().splitlines()
    return {"benchmark": benchmark, "device": "NVIDIA H200", "machine": machine, "date": date,
            "commit": commit}


def stages(r):
    return {k: v["p50_ms"] for k, v in r["profile"]["gpu_stages"].items()}


def stream_results(run_dir, commit, date):
    runs = {}
    for name in STREAM_RUNS:
        r = report(run_dir, f"viewer_{name}.json")
        runs[name] = {"frames_per_second": r["streaming"]["frames_per_second"],
                      "gpu_p50_ms": stages(r), "streaming": r["streaming"],
                      "backend": r.get("backend"), "resolution": r.get("resolution")}
    fps = lambda name: runs[name]["frames_per_second"]
    streamed = statistics.median(fps(f"1080p_streamed_{i}") for i in (1, 2, 3))
    preloaded = statistics.median(fps(f"1080p_preload_{i}") for i in (1, 2, 3))
    slower = 100 * (1 - streamed / preloaded)
    viewer = header(run_dir, "viewer end to end (tandem-viewer reports)", commit, date)
    viewer.update({
        "sequence": PACK,
        "command": "tandem-viewer --headless --every-frame seq.tdpk --loop loop --frames 3000 "
                   "--format none --postfx tonemap,fxaa -q --size WxH "
                   "[--preload --cache-mb 2600 | --cache-mb 2600]",
        "order": "1080p streamed and preloaded alternately, three of each, then 4K streamed, then "
                 "1080p cached (--cache-mb 2600, not preloaded), one process after another in one "
                 "session",
        "statistic": "frames_per_second = frames rendered / wall seconds from the first frame to "
                     "the report (after the GPU drained); medians of the three runs; gpu stage "
                     "times are medians (p50) of the engine profiler",
        "summary": {
            "streamed_1080p_median_fps": streamed, "preloaded_1080p_median_fps": preloaded,
            "streamed_slower_than_preloaded_percent": slower,
            "streamed_4k_fps": fps("4k_streamed"), "cached_1080p_fps": fps("1080p_cached"),
            "targets": {"1080p_streamed_at_least_1000": streamed >= 1000,
                        "4k_streamed_at_least_400": fps("4k_streamed") >= 400,
                        "streamed_within_5_percent_of_preloaded": slower <= 5},
        },
        "runs": runs,
    })
    ten_k = header(run_dir, "10 000-frame headless run, host and device memory", commit, date)
    ten_k.update({
        "command": "tandem-viewer --headless --every-frame sample:points=50000,frames=10000 "
                   "--format none --cache-mb 256 --size 1280x720 -q",
        "streaming": report(run_dir, "viewer_10k.json")["streaming"],
    })
    return {f"h200-viewer-{commit}.json": viewer, f"h200-viewer-10k-{commit}.json": ten_k,
            f"h200-stream-{commit}.json": report(run_dir, "bench_stream.json")}, {
        f"h200-stream-{commit}.txt": "bench_stream.txt",
        f"h200-gpu-tier-{commit}.log": "ctest.log",
        f"h200-viewer-headless-{commit}.log": "viewer_headless.log"}


def robust_results(run_dir, commit, date):
    r = report(run_dir, "soak.json")
    soak = header(run_dir, "soak: 10 000 headless viewer frames, streamed, full post-process chain",
                  commit, date)
    soak.update({
        "command": "tandem-viewer --headless --every-frame seq.tdpk --loop loop --frames 10000 "
                   "--format none --postfx tonemap,blur,bilateral,outline,ssao,fxaa "
                   "--size 1920x1080 -q",
        "sequence": "tandem-pack sample:points=1000000,frames=120 (2.4 GB; streamed through the "
                    "default 1 GiB staging budget, so frames are read again each loop)",
        "streaming": r["streaming"], "backend": r.get("backend"), "gpu_p50_ms": stages(r),
        "gl_errors": "none (the run exits 1 on any)",
    })
    return {f"h200-soak-{commit}.json": soak}, {
        f"h200-gpu-tier-robust-{commit}.log": "ctest.log",
        f"h200-fallbacks-{commit}.log": "fallbacks.log"}


def house_results(run_dir, commit, date):
    """The acceptance figures of the house issue (21): the handoff, the geometry pass against the
    bare draw, the profiler's cost in three runs, the 1 M-point pack streamed at 1080p."""
    interop = report(run_dir, "bench_interop.json")
    raster = report(run_dir, "bench_raster.json")
    overhead = [report(run_dir, f"bench_overhead_{i}.json") for i in (1, 2, 3)]
    viewer = [report(run_dir, f"viewer_1080p_streamed_{i}.json") for i in (1, 2, 3)]
    fps = [r["streaming"]["frames_per_second"] for r in viewer]
    summary = header(run_dir, "house issue acceptance (build-and-test.sh --house)", commit, date)
    summary.update({
        "viewer_command": "tandem-viewer --headless --every-frame seq.tdpk --loop loop --frames "
                          "3000 --format none --postfx tonemap,fxaa -q --size 1920x1080",
        "sequence": PACK,
        "statistic": "frames_per_second = frames rendered / wall seconds (the report's); the "
                     "median of three runs, one process after another; the benchmarks' own "
                     "medians are in their files beside this",
        "viewer_1080p_streamed_fps": fps,
        "viewer_1080p_streamed_median_fps": statistics.median(fps),
        "viewer_runs": [{"frames_per_second": r["streaming"]["frames_per_second"],
                         "gpu_p50_ms": stages(r), "backend": r.get("backend")} for r in viewer],
    })
    files = {f"h200-house-{commit}.json": summary, f"h200-interop-{commit}.json": interop,
             f"h200-raster-{commit}.json": raster}
    for i, r in enumerate(overhead, 1):
        files[f"h200-overhead-{i}-{commit}.json"] = r
    return files, {f"h200-gpu-tier-house-{commit}.log": "ctest.log",
                   f"h200-viewer-headless-house-{commit}.log": "viewer_headless.log",
                   f"h200-interop-{commit}.txt": "bench_interop.txt",
                   f"h200-raster-{commit}.txt": "bench_raster.txt"}


def frame_results(run_dir, commit, date):
    """The frame issue's figures (22): tandem-raster on the 2.09 M-triangle grid at 1080p and 4K
    (GL meshes; CUDA meshes on GL's memory, in a handoff; CUDA meshes resident on CUDA; auto),
    the viewer on a streamed 0.5 M-triangle mesh sequence (the same three, two runs each,
    alternating) and on a streamed 1 M-point sequence at 1080p and 4K (GL's memory against
    resident, two runs each) and written as PAM and PNG; tandem-bench frame's results and table; the
    tests' logs beside them."""
    def run(r):
        out = {"memory": r["memory"], "raster": r["raster"]["path"], "gpu_p50_ms": stages(r),
               "cpu_p50_ms": {k: v["p50_ms"] for k, v in r["profile"]["cpu_stages"].items()},
               "handoffs_per_frame_p50": r["profile"]["handoffs_per_frame"]["p50"],
               "stalls": {k: v["total"] for k, v in r["profile"]["stalls_by_cause"].items()
                          if v["total"]}}
        if "output" in r:
            out["output"] = r["output"]
        if "streaming" in r:
            out["frames_per_second"] = r["streaming"]["frames_per_second"]
            out["streaming"] = r["streaming"]
        return out
    grid = {f"{v}_{size}": run(report(run_dir, f"grid_{v}_{size}.json"))
            for size in ("1920x1080", "3840x2160") for v in ("gl", "cudagl", "cuda", "auto")}
    sequence = {v: run(report(run_dir, f"mesh_seq_{v}.json"))
                for v in ("gl", "cudagl", "cuda", "gl2", "cudagl2", "cuda2")}
    points = {f"{v}_{size}": run(report(run_dir, f"points_{v}_{size}.json"))
              for size in ("1920x1080", "3840x2160") for v in ("gl", "auto", "glc", "autoc")}
    pam = {v: run(report(run_dir, f"points_pam_{v}.json")) for v in ("gl", "auto", "autoc")
           if os.path.exists(os.path.join(run_dir, f"points_pam_{v}.json"))}
    png = ({v: run(report(run_dir, f"points_png_{v}.json")) for v in ("gl", "auto")}
           if os.path.exists(os.path.join(run_dir, "points_png_gl.json")) else None)
    summary = header(run_dir, "the frame issue (build-and-test.sh --frame)", commit, date)
    summary.update({
        "grid_command": "tandem-raster --headless grid.ply ARGS --size WxH --postfx "
                        "tonemap,fxaa --frames 400 --warmup 40 --format none "
                        "(grid.ply: scripts/make-grid-mesh.py 1024, 2 093 058 triangles; ARGS: "
                        "gl '--raster gl', cudagl '--raster cuda --frame-memory gl', cuda "
                        "'--raster cuda', auto '--raster auto')",
        "grid": grid,
        "sequence_command": "tandem-pack sample:mesh,points=250000,frames=60; tandem-viewer "
                            "--headless --every-frame mesh.tdpk --loop loop --frames 2000 "
                            "--format none --postfx tonemap,fxaa -q --size 1920x1080 ARGS (as "
                            "the grid's; runs alternate gl, cudagl, cuda twice)",
        "sequence": sequence,
        "points_command": "tandem-pack sample:points=1000000,frames=120; tandem-viewer "
                          "--headless --every-frame points.tdpk --loop loop --frames 3000 "
                          "--format none --postfx tonemap,fxaa -q --size WxH --frame-memory "
                          "gl|auto; glc, autoc: the same with --cache-mb 3072 (the whole "
                          "2.4 GB sequence stays staged: nothing loaded after the first loop)",
        "points": points,
        "pam_command": "the points command with --frames 1500 (600 before b9e2922) --format pam "
                       "--out /dev/shm/...; autoc: resident with --cache-mb 3072",
        "pam": pam,
        **({"png_command": "the points command with --frames 600 --format png --out /dev/shm/...",
            "png": png} if png else {}),
        "statistic": "gpu_p50_ms: medians of the report's per-frame GPU spans (after the "
                     "warm-up); frames_per_second: frames rendered / wall seconds",
    })
    # tandem-bench frame writes its own results (device, driver, date, commit in its header).
    with open(os.path.join(run_dir, "frame_bench.json")) as f:
        bench = json.load(f)
    return {f"h200-frame-{commit}.json": summary, f"h200-frame-bench-{commit}.json": bench}, {
        f"h200-frame-bench-{commit}.txt": "frame_bench.log",
        f"h200-gpu-tier-frame-{commit}.log": "ctest.log",
        f"h200-gl-meshes-frame-{commit}.log": "gl_meshes.log",
        f"h200-raster-paths-frame-{commit}.log": "raster_paths.log",
        f"h200-resident-frames-frame-{commit}.log": "resident_frames.log"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stream", action="store_true")
    mode.add_argument("--robust", action="store_true")
    mode.add_argument("--house", action="store_true")
    mode.add_argument("--frame", action="store_true")
    parser.add_argument("run_dir")
    parser.add_argument("commit")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                          "bench", "results"))
    args = parser.parse_args()
    commit = args.commit[:7]
    try:
        collect = (stream_results if args.stream else house_results if args.house
                   else frame_results if args.frame else robust_results)
        made = collect(args.run_dir, commit, args.date)
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"error: {args.run_dir}: {e}")
    jsons, logs = made
    # Paths on the server name its checkout (ctest's first line says where: "Test project
    # ROOT/build-gpu"); the committed logs name the repository's files relative to it.
    root = None
    try:
        with open(os.path.join(args.run_dir, "ctest.log")) as f:
            found = re.search(r"^Test project (\S+)/build-gpu$", f.read(), re.M)
            root = found.group(1) if found else None
    except OSError:
        pass
    files = {name: json.dumps(data, indent=1) + "\n" for name, data in jsons.items()}
    for name, source in logs.items():
        with open(os.path.join(args.run_dir, source)) as f:
            text = f.read()
        files[name] = re.sub(re.escape(root) + r"/", "", text) if root else text
    paths = {os.path.join(args.results, f"{args.date}-{name}"): text for name, text in files.items()}
    existing = [p for p in paths if os.path.exists(p)]
    if existing:
        sys.exit("error: would replace " + ", ".join(existing))
    for path, text in paths.items():
        try:
            atomic_file.write_file(path, text)  # never replaces one written meanwhile
        except FileExistsError:
            sys.exit(f"error: would replace {path}")
        print("wrote", os.path.relpath(path))


if __name__ == "__main__":
    main()
