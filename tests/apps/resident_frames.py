#!/usr/bin/env python3
"""--frame-memory end to end: where every pass runs on CUDA and nothing is presented, frames run
resident on CUDA (no handoff after the first frame brings GL's scene buffers over, nothing
presented, the output read back by CUDA copies) and are byte for byte the frames the same run
writes resident on GL (--frame-memory gl): tandem-raster on a mesh (output and a debug channel),
tandem-viewer on a streamed mesh sequence and a streamed point sequence, every frame. The report
says where the frames ran and why. Without CUDA the frames run on GL and the report says why.
Usage: resident_frames.py RASTER VIEWER MESH OUT_DIR"""
import json
import os
import shutil
import subprocess
import sys

raster, viewer, mesh, out = sys.argv[1:5]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def run(app, name, args):
    report = os.path.join(out, name + ".json")
    frames = os.path.join(out, name)
    cmd = [app, "--headless", "--size", "200x150", "--format", "pam", "--out", frames, "--report",
           report] + args
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        fail(f"{' '.join(cmd)} exited {result.returncode}:\n{result.stderr}")
    files = sorted(os.listdir(frames))
    if not files:
        fail(f"{name}: no frames written")
    return json.load(open(report)), [os.path.join(frames, f) for f in files]


def same_frames(a, b, what):
    if [os.path.basename(f) for f in a] != [os.path.basename(f) for f in b]:
        fail(f"{what}: different frames written: {len(a)} against {len(b)}")
    for fa, fb in zip(a, b):
        da, db = open(fa, "rb").read(), open(fb, "rb").read()
        if da != db:
            differing = sum(1 for x, y in zip(da, db) if x != y)
            fail(f"{what}: {os.path.basename(fa)} differs in {differing} bytes")
    print(f"{what}: {len(a)} frames byte for byte equal")


def resident(report, frames, scenes, what):
    memory = report["memory"]
    if memory["last"] != "cuda" or memory["resident_frames"] != frames:
        fail(f"{what}: not resident on CUDA: {memory}")
    if memory["reason"] != "CUDA-resident: no handoff; the output read back by CUDA":
        fail(f"{what}: reason {memory['reason']!r}")
    # The first frame drawing each scene (a sequence's two buffer sets) brings GL's buffers over
    # in one map; no frame after those.
    if memory["handoffs"] > scenes:
        fail(f"{what}: {memory['handoffs']} handoffs in {frames} frames")
    handoffs = report["profile"]["handoffs_per_frame"]
    if handoffs["samples"] > 0 and handoffs["p50"] != 0:
        fail(f"{what}: handoffs per frame {handoffs}")
    print(f"{what}: {memory['reason']}; {memory['handoffs']} handoff(s) in {frames} frames")


gl, gl_frames = run(raster, "probe", ["--frame-memory", "gl", "--frames", "1", mesh])
if gl["memory"]["reason"] != "GL-resident: asked for with --frame-memory gl":
    fail(f"--frame-memory gl: {gl['memory']}")
if gl["backend"] != "cuda":
    auto, _ = run(raster, "auto", ["--frames", "2", "--postfx", "tonemap", mesh])
    if auto["memory"]["last"] != "gl" or auto["memory"]["reason"] != "GL-resident: the host path":
        fail(f"without CUDA: {auto['memory']}")
    print("without CUDA: frames resident on GL (the host path); ok")
    sys.exit(0)

cases = [
    ("raster", raster, ["--raster", "cuda", "--postfx", "tonemap,fxaa", "--frames", "4", mesh], 4, 1),
    ("raster-depth", raster, ["--raster", "cuda", "--channel", "depth", "--frames", "4", mesh], 4,
     1),
    ("mesh-sequence", viewer, ["--raster", "cuda", "--postfx", "ssao,tonemap,fxaa", "--every-frame",
                               "sample:mesh,points=4000,frames=6"], 6, 2),
    ("point-sequence", viewer, ["--points", "cuda", "--postfx", "tonemap,fxaa", "--every-frame",
                                "sample:points=20000,frames=6"], 6, 2),
]
for name, app, args, frames, scenes in cases:
    on_gl, on_gl_frames = run(app, name + "-gl", ["--frame-memory", "gl"] + args)
    if on_gl["memory"]["last"] != "gl":
        fail(f"{name}: --frame-memory gl ran {on_gl['memory']}")
    on_cuda, on_cuda_frames = run(app, name + "-auto", args)
    resident(on_cuda, frames, scenes, name)
    same_frames(on_gl_frames, on_cuda_frames, name + ": resident on CUDA against on GL")
print("ok")
