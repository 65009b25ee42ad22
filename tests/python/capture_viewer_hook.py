"""Capture tier: a Python program's viewer frame with a hook, captured by RenderDoc (preloaded
into python3), replays with the hook as a debug group among the frame's passes and an image at
the end (the overlay asked for: headless Viewers leave it out by default).
Usage: LD_PRELOAD=librenderdoc.so capture_viewer_hook.py OUT_DIR CAPTURE_REPLAY_PY"""
import glob
import os
import shutil
import subprocess
import sys

import torch

import tandem

out, replay = sys.argv[1], sys.argv[2]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
sample = tandem.load_mesh(os.path.join(os.path.dirname(__file__), "..", "..", "assets", "sample.ply"))


def invert(gbuffer):
    gbuffer["output"][..., :3] = 255 - gbuffer["output"][..., :3]


with tandem.Viewer(resolution=(120, 160), headless=True, device="cpu", hook=invert, overlay=True,
                   capture_frame=1, capture_dir=out) as viewer:
    viewer.update(sample)
    for _ in range(3):
        viewer.step()
captures = glob.glob(os.path.join(out, "*.rdc"))
if len(captures) != 1:
    sys.exit(f"FAIL: expected one capture in {out}, found {captures}")
subprocess.run([sys.executable, replay, "groups", captures[0], "geometry,hook,present",
                "glDrawElements,glDispatchCompute"], check=True)
