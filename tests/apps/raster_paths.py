#!/usr/bin/env python3
"""--raster end to end: tandem-raster draws one mesh with each rasterizer this machine has (gl and
host everywhere; cuda where the passes run on CUDA) and the frames agree with GL's (pixels off by
more than 2 codes: at most 1 %); the report says who drew the meshes and why; --raster auto picks
GL where the passes do not run on CUDA and measures where they do; tandem-viewer takes --raster
too, on a streamed mesh sequence.
Usage: raster_paths.py RASTER VIEWER MESH OUT_DIR"""
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


def pam(path):
    data = open(path, "rb").read()
    end = data.index(b"ENDHDR\n") + 7
    header = data[:end].decode().split()
    width = int(header[header.index("WIDTH") + 1])
    height = int(header[header.index("HEIGHT") + 1])
    depth = int(header[header.index("DEPTH") + 1])
    return width, height, depth, data[end:]


def run(app, name, args):
    report = os.path.join(out, name + ".json")
    frames = os.path.join(out, name)
    cmd = [app, "--headless", "--size", "200x150", "--format", "pam", "--out", frames, "--report",
           report] + args
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(cmd)} exited {result.returncode}:\n{result.stderr}")
    files = sorted(os.listdir(frames))
    if not files:
        fail(f"{name}: no frames written")
    return json.load(open(report)), [os.path.join(frames, f) for f in files], result.stderr


def agree(a, b, what):
    wa, ha, da, pa = pam(a)
    wb, hb, db, pb = pam(b)
    if (wa, ha, da) != (wb, hb, db):
        fail(f"{what}: sizes differ")
    off = sum(1 for i in range(wa * ha)
              if max(abs(pa[i * da + c] - pb[i * db + c]) for c in range(3)) > 2)
    drawn = sum(1 for i in range(wa * ha) if pa[i * da:i * da + 3] != pa[0:3])
    print(f"{what}: {off} of {wa * ha} pixels off by more than 2 ({drawn} drawn)")
    if drawn < 0.05 * wa * ha:
        fail(f"{what}: too little of the mesh drawn to compare")
    if off > 0.01 * wa * ha:
        fail(f"{what}: {off} pixels differ")


gl, gl_frames, _ = run(raster, "gl", ["--raster", "gl", mesh])
if gl["raster"]["path"] != "gl" or gl["raster"]["reason"] != "asked for with --raster gl":
    fail(f"gl: report says {gl['raster']}")
host, host_frames, log = run(raster, "host", ["--raster", "host", mesh])
# Auto points follow the meshes off GL: the CUDA point pass where the passes run on CUDA.
points = "cuda" if host["backend"] == "cuda" else "host"
if host["raster"]["path"] != "host" or host["points"]["path"] != points:
    fail(f"host: report says {host['raster']}, points {host['points']['path']}")
if "meshes: asked for with --raster host" not in log:
    fail("host: the log does not say who draws the meshes")
agree(gl_frames[0], host_frames[0], "host against gl")

cuda_frame = gl["backend"] == "cuda"
auto, auto_frames, log = run(raster, "auto", ["--raster", "auto", mesh])
if cuda_frame:
    cuda, cuda_frames, _ = run(raster, "cuda", ["--raster", "cuda", mesh])
    if cuda["raster"]["path"] != "cuda":
        fail(f"cuda: report says {cuda['raster']}")
    agree(gl_frames[0], cuda_frames[0], "cuda against gl")
    if not auto["raster"]["measured"] or auto["raster"]["gl_ms"] <= 0 or auto["raster"]["cuda_ms"] <= 0:
        fail(f"auto on CUDA: not measured: {auto['raster']}")
    print(f"auto: {auto['raster']['reason']}")
else:
    if auto["raster"]["path"] != "gl" or auto["raster"]["measured"]:
        fail(f"auto without CUDA: {auto['raster']}")
    if "--raster auto: GL, as the passes do not run on CUDA" not in log:
        fail("auto without CUDA: the log does not say why GL")
agree(gl_frames[0], auto_frames[0], "auto against gl")

# The viewer: a streamed mesh sequence drawn by the host twin, every frame.
seq, seq_frames, _ = run(viewer, "viewer", ["--raster", "host", "--every-frame",
                                            "sample:mesh,frames=3"])
if seq["raster"]["path"] != "host" or len(seq_frames) != 3:
    fail(f"viewer: {seq['raster']}, {len(seq_frames)} frames")
seq_gl, seq_gl_frames, _ = run(viewer, "viewer-gl", ["--raster", "gl", "--every-frame",
                                                     "sample:mesh,frames=3"])
for a, b in zip(seq_gl_frames, seq_frames):
    agree(a, b, "viewer host against gl, " + os.path.basename(a))
print("ok")
