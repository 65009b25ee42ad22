#!/usr/bin/python3
"""Capture tier: tandem-raster captures a headless frame with RenderDoc; the capture opens in
RenderDoc's replay (Debian's python3-renderdoc, which needs an X display) with the named passes
and their draws, and the presented image at the end of the replayed frame matches the PNG the
engine wrote for that frame.
Usage: capture_replay.py RASTER MESH OUT_DIR [--postfx CHAIN]"""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import png  # noqa: E402

raster, mesh, out = sys.argv[1:4]
chain = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--postfx" else "tonemap,fxaa"
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
captures, frames = os.path.join(out, "captures"), os.path.join(out, "frames")
subprocess.run([raster, "--headless", "--renderdoc", "--capture-frame", "2", "--capture-dir", captures,
                "--frames", "4", "--size", "160x120", "--postfx", chain, "--out", frames, mesh],
               check=True)
files = glob.glob(os.path.join(captures, "*.rdc"))
if len(files) != 1:
    sys.exit(f"FAIL: expected one capture, found {files}")

import renderdoc as rd  # noqa: E402

rd.InitialiseReplay(rd.GlobalEnvironment(), [])
cap = rd.OpenCaptureFile()
if cap.OpenFile(files[0], "", None) != rd.ResultCode.Succeeded:
    sys.exit("FAIL: RenderDoc cannot open the capture")
if not cap.LocalReplaySupport():
    sys.exit("FAIL: the capture cannot be replayed here")
result, controller = cap.OpenCapture(rd.ReplayOptions(), None)
if result != rd.ResultCode.Succeeded:
    sys.exit(f"FAIL: replay did not start: {result}")
structured = controller.GetStructuredFile()
groups, calls, last = set(), set(), 0


def walk(actions):
    global last
    for action in actions:
        name = action.GetName(structured)
        if action.flags & rd.ActionFlags.PushMarker:
            groups.add(name)
        if action.flags & (rd.ActionFlags.Drawcall | rd.ActionFlags.Dispatch):
            calls.add(name.split("(")[0])
        last = max(last, action.eventId)
        walk(action.children)


walk(controller.GetRootActions())
for group in ["geometry", "geometry.visibility", "geometry.resolve", "handoff", "present"] + \
        chain.split(","):
    if group not in groups:
        sys.exit(f"FAIL: no debug group '{group}' in the capture; groups: {sorted(groups)}")
for call in ["glDrawElements", "glDispatchCompute", "glDrawArrays"]:
    if call not in calls:
        sys.exit(f"FAIL: no {call} in the capture; calls: {sorted(calls)}")

# Replay to the end of the frame and read the presented image.
controller.SetFrameEvent(last, True)
target = [r for r in controller.GetResources()
          if r.name == "present.output" and r.type == rd.ResourceType.Texture]
if not target:
    sys.exit("FAIL: no texture named present.output in the capture")
data = bytes(controller.GetTextureData(target[0].resourceId, rd.Subresource(0, 0, 0)))
controller.Shutdown()
cap.Shutdown()

width, height, rows = png.load(os.path.join(frames, "frame_00002.png"))
if len(data) != width * height * 4:
    sys.exit(f"FAIL: replayed image has {len(data)} bytes, expected {width * height * 4}")
# GL rows run bottom to top; the PNG's top to bottom.
differing, worst = 0, 0
for y in range(height):
    replayed = data[(height - 1 - y) * width * 4:(height - y) * width * 4]
    for x in range(width):
        delta = max(abs(replayed[4 * x + c] - rows[y][4 * x + c]) for c in range(3))
        worst = max(worst, delta)
        differing += delta > 2
fraction = differing / (width * height)
print(f"replayed frame vs engine output: {fraction:.4%} of pixels differ by more than 2 (max {worst})")
if fraction > 0.001:
    sys.exit("FAIL: the replayed frame does not match the frame the engine wrote")
print(f"ok: groups {sorted(groups)}")
