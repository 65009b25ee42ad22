#!/usr/bin/env python3
"""tandem.rasterize from PyTorch on CUDA tensors, per call, on the Python issue's grid (1024×1024
quads over [-0.9, 0.9]², z = 0.3·sin 6x·cos 6y, as clip-space (x, y, z, 1): 2.10 M triangles)
at 1080p and 4K, batch 1 and 8, with both rasterizers (the CUDA kernels, the default for CUDA
tensors, and GL); against the engine's geometry pass + one handoff on the same
grid, measured by `tandem-bench tensor-raster` in the same session (its JSON is the first
argument), and against nvdiffrast's GL rasterizer (15.1 ms per 1080p frame of this grid on the
H200, measured side by side there). Two timings per variant, medians: a call alone (synchronized
before and after, as tandem-bench times), and calls back to back (what a training loop sees).
Usage: scripts/bench-rasterize.py ENGINE_JSON OUT_JSON [--commit SHA] [--calls N]"""
import argparse
import datetime
import itertools
import json
import os
import statistics
import sys
import tempfile
import time

import torch

import tandem
from tandem import _atomic

NVDIFFRAST_1080P_MS = 15.1
TARGET_RATIO = 1.5
TARGET_SPEEDUP = 5.0


def grid(n, device):
    s = torch.linspace(-0.9, 0.9, n + 1, device=device)
    y, x = torch.meshgrid(s, s, indexing="ij")
    z = 0.3 * torch.sin(6 * x) * torch.cos(6 * y)
    pos = torch.stack([x, y, z, torch.ones_like(x)], -1).reshape(-1, 4).contiguous()
    i = torch.arange(n, device=device)
    a = (i[:, None] * (n + 1) + i[None, :]).reshape(-1)
    b, c = a + 1, a + n + 1
    d = c + 1
    # Two triangles per quad, quad after quad (as tandem-bench tensor-raster lays it out): the
    # order triangles are drawn in matters to the rasterizer's caches (all first halves, then
    # all second halves, measured 25 % slower on the H200).
    tri = torch.stack([a, b, d, a, d, c], -1).reshape(-1, 3).to(torch.int32)
    return pos, tri.contiguous()


def time_alone(call, calls, warmup):
    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(calls):
        torch.cuda.synchronize()
        start = time.perf_counter()
        call()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def time_back_to_back(call, calls, repeats=3):
    runs = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - start) * 1e3 / calls)
    return statistics.median(runs)


def save(path, data, overwrite):
    """Writes `data` as JSON to `path` by the engine's write rule (tandem/_atomic.py: a
    temporary of this writer's own, synced, renamed into place; an existing file, also one made
    while the benchmark ran, is replaced only with `overwrite`: FileExistsError)."""
    _atomic.write_file(path, json.dumps(data, indent=1), replace=overwrite)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("engine_json")
    parser.add_argument("out_json")
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--grid", type=int, default=1024)
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args()
    trace_path = os.path.splitext(args.out_json)[0] + "-trace.json"
    for path in (args.out_json, trace_path):  # before the runs; the writes check again
        if os.path.lexists(path) and not args.overwrite:
            sys.exit(f"error: {path} exists (--overwrite replaces it)")
    engine = json.load(open(args.engine_json))
    by_size = {r["size"]: r for r in engine["results"]}
    device = torch.device("cuda")
    pos, tri = grid(args.grid, device)
    native = tandem.renderer(device)
    print(f"tandem.rasterize on {native.description}; grid {args.grid}: {pos.shape[0]} vertices, "
          f"{tri.shape[0]} triangles; torch {torch.__version__}")
    if not native.is_cuda:
        sys.exit(f"error: no GL-CUDA interop here: {native.reason}")
    results = []
    for name, (height, width) in (("1080p", (1080, 1920)), ("4K", (2160, 3840))):
        for batch, rasterizer in itertools.product((1, 8), ("cuda", "gl")):
            positions = pos if batch == 1 else pos.expand(batch, -1, -1).contiguous()
            call = lambda: tandem.rasterize(positions, tri, (height, width),  # noqa: E731
                                            rasterizer=rasterizer)
            handoffs = native.handoffs
            alone = time_alone(call, args.calls, args.warmup)
            calls_made = args.calls + args.warmup
            back = time_back_to_back(call, args.calls)
            per_call_handoffs = (native.handoffs - handoffs) / (calls_made + 3 * args.calls)
            # The same calls on a side stream (PyTorch's default stream is the legacy one).
            side = torch.cuda.Stream()
            with torch.cuda.stream(side):
                alone_side = time_alone(call, args.calls, args.warmup)
            e = by_size[name]
            reference = batch * e["engine_geometry_ms"] + e["handoff_ms"]
            row = {"size": name, "width": width, "height": height, "batch": batch,
                   "rasterizer": rasterizer,
                   "rasterize_ms": alone, "rasterize_back_to_back_ms": back,
                   "rasterize_side_stream_ms": alone_side,
                   "rasterize_per_item_ms": alone / batch,
                   "engine_geometry_ms": e["engine_geometry_ms"], "handoff_ms": e["handoff_ms"],
                   "reference_ms": reference, "ratio_to_reference": alone / reference,
                   "handoffs_per_call": per_call_handoffs,
                   "engine_tensor_raster_ms": e.get(f"tensor_pulled_b{batch}_ms")}
            if name == "1080p":
                row["speedup_vs_nvdiffrast_gl"] = NVDIFFRAST_1080P_MS * batch / alone
            results.append(row)
            print(f"{name} batch {batch} {rasterizer}: {alone:.3f} ms a call alone ({alone_side:.3f} on a side "
                  f"stream), {back:.3f} ms back to back; "
                  f"B x geometry + handoff {reference:.3f} ms: ratio {alone / reference:.2f} "
                  f"(target <= {TARGET_RATIO}); {per_call_handoffs:.2f} handoffs a call"
                  + (f"; {row['speedup_vs_nvdiffrast_gl']:.1f}x nvdiffrast's 15.1 ms a frame"
                     if name == "1080p" else ""))
    # A profile of where a call's time goes: ten 1080p calls under torch.profiler with tandem's
    # spans merged in (the trace is written beside the JSON), and their medians.
    profile = {}
    positions, size = pos, (1080, 1920)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]) as prof, \
            tandem.trace(device) as spans:
        for rasterizer in ("cuda", "gl"):
            for _ in range(10):
                with torch.profiler.record_function(f"rasterize call {rasterizer}"):
                    tandem.rasterize(positions, tri, size, rasterizer=rasterizer)
        torch.cuda.synchronize()
    # PyTorch's trace goes into a folder of this run's own (its writer opens a fixed name).
    with tempfile.TemporaryDirectory(prefix="bench-rasterize-") as scratch:
        torch_json = os.path.join(scratch, "torch.json")
        prof.export_chrome_trace(torch_json)
        try:
            merged = tandem.merge_traces(torch_json, spans, trace_path, overwrite=args.overwrite)
        except FileExistsError as error:
            sys.exit(f"error: {trace_path}: {error.strerror}")
    for name in ("raster.cuda", "raster", "raster.copy-out", "rasterize call cuda",
                 "rasterize call gl"):
        durations = [e["dur"] / 1000.0 for e in merged["traceEvents"]
                     if e.get("ph") == "X" and e.get("name") == name
                     and not str(e.get("cat", "")).startswith("gpu")]
        if durations:
            profile[name + "_ms"] = statistics.median(durations)
    print("profile of 1080p calls (medians of 10 each, ms): " +
          ", ".join(f"{k[:-3]} {v:.3f}" for k, v in profile.items()) + f"; trace: {trace_path}")
    out = {"benchmark": "python-rasterize", "commit": args.commit,
           "profile_1080p_b1": profile,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "device": torch.cuda.get_device_name(device), "driver": engine.get("driver"),
           "cuda": engine.get("cuda"), "torch": torch.__version__, "gl": native.description,
           "grid": args.grid, "vertices": pos.shape[0], "triangles": tri.shape[0],
           "calls": args.calls, "warmup": args.warmup,
           "statistic": "median wall time per call: alone = synchronized before and after",
           "targets": {"ratio_to_geometry_plus_handoff": TARGET_RATIO,
                       "speedup_vs_nvdiffrast_gl_1080p": TARGET_SPEEDUP,
                       "nvdiffrast_gl_1080p_ms": NVDIFFRAST_1080P_MS},
           "results": results}
    try:
        save(args.out_json, out, args.overwrite)
    except FileExistsError:
        sys.exit(f"error: {args.out_json}: written by another run meanwhile (--overwrite "
                 "replaces it)")
    for rasterizer in ("cuda", "gl"):
        rows = [r for r in results if r["rasterizer"] == rasterizer]
        met = all(r["ratio_to_reference"] <= TARGET_RATIO for r in rows) and all(
            r["speedup_vs_nvdiffrast_gl"] >= TARGET_SPEEDUP for r in rows if r["size"] == "1080p")
        print(f"{rasterizer}: " + ("targets met" if met else "targets missed"))


if __name__ == "__main__":
    main()
