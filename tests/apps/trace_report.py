#!/usr/bin/env python3
"""tandem-raster's --trace and --report, end to end: runs the acceptance command and checks that
the trace parses as Trace Event Format with the expected tracks and spans (a named thread per
track, non-negative durations, spans inside their frame, stages in pipeline order), and that the
report carries p99s, handoffs and stalls by cause. In a build with the profiler compiled out
(TANDEM_PROFILER=OFF) it checks that the files say so and hold no spans, then skips (exit 77).
Usage: trace_report.py RASTER MESH OUT_DIR"""
import json
import os
import shutil
import subprocess
import sys

raster, mesh, out = sys.argv[1:4]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
trace_path = os.path.join(out, "t.json")
report_path = os.path.join(out, "r.json")
cmd = [raster, "--headless", "--frames", "12", "--postfx", "tonemap,fxaa", "--trace", trace_path,
       "--trace-frames", "8", "--report", report_path, "--size", "160x120", "--out",
       os.path.join(out, "frames"), mesh]
subprocess.run(cmd, check=True)

def fail(message):
    print("FAIL:", message)
    sys.exit(1)

trace = json.load(open(trace_path))
events = trace["traceEvents"]
report = json.load(open(report_path))
if report["profile"].get("profiler") == "compiled out":
    # Built with TANDEM_PROFILER=OFF: nothing is timed. The files must still be written, and
    # say so; the checks below need a profiler, so this build skips them (exit 77).
    if any(e["ph"] == "X" for e in events):
        fail("spans in a trace from a build with the profiler compiled out")
    print("skip: the profiler is compiled out (TANDEM_PROFILER=OFF); trace and report written, "
          "no spans to check")
    sys.exit(77)
processes = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
if processes != {"CPU", "GL", "CUDA"}:
    fail(f"processes {processes}")
spans = [e for e in events if e["ph"] == "X"]
# One thread_name per track, tid = track + 1: every span's track is named.
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
           if e["ph"] == "M" and e["name"] == "thread_name"}
for key, name in {(1, 1): "main (render thread)", (2, 1): "GL queue"}.items():
    if threads.get(key) != name:
        fail(f"thread {key} named {threads.get(key)}, not {name}")
if any(e["pid"] == 3 for e in spans) and threads.get((3, 1)) != "frame stream":
    fail(f"CUDA stream track named {threads.get((3, 1))}")
for e in spans:
    if (e["pid"], e["tid"]) not in threads:
        fail(f"span on an unnamed track: {e}")
frames = {}
for e in spans:
    if e["dur"] < 0:
        fail(f"negative duration: {e}")
    if e["name"].startswith("frame "):
        frames[(e["pid"], e["args"]["frame"])] = (e["ts"], e["ts"] + e["dur"])
if len({f for (_, f) in frames}) != 8:
    fail(f"expected 8 frames, got {sorted({f for (_, f) in frames})}")
names = {e["name"] for e in spans}
# Without a GPU the host backend runs the stages on the CPU; on a GPU they are CUDA spans.
for needed in ["geometry", "handoff", "tonemap", "fxaa", "present"]:
    if needed not in names:
        fail(f"no span named {needed}; have {sorted(names)}")
for e in spans:
    if e["name"].startswith("frame "):
        continue
    key = (e["pid"] if e["pid"] != 3 else 2, e["args"]["frame"])  # CUDA spans sit in the GL frame
    start, end = frames[key]
    if e["pid"] == 1 and e["tid"] != 1:
        # Other threads' spans (frame output workers) join the frame that was ending when they
        # had finished: they end before it does, wherever they began.
        if e["ts"] + e["dur"] > end + 1e-3:
            fail(f"{e['name']} on thread {e['tid']} ends after the frame it joined: {e}")
        continue
    if e["ts"] < start - 1e-3 or e["ts"] + e["dur"] > end + 1e-3:
        fail(f"{e['name']} outside its frame: {e}")
order = ["geometry", "handoff", "present"]
for frame in {f for (_, f) in frames}:
    starts = {e["name"]: e["ts"] for e in spans if e["args"]["frame"] == frame and e["pid"] == 2}
    ts = [starts[n] for n in order]
    if ts != sorted(ts):
        fail(f"frame {frame}: GL stages out of order {list(zip(order, ts))}")

profile = report["profile"]
if profile.get("profiler") != "on":
    fail(f"report: profiler {profile.get('profiler')}")
for stage in ["frame", "geometry", "present", "handoff"]:
    if "p99_ms" not in profile["gpu_stages"].get(stage, {}):
        fail(f"no p99 for {stage}")
if profile["frames_dropped"] != 0:
    fail(f"the profiler dropped {profile['frames_dropped']} frames (its ring is shallower than the "
         "frames the CPU runs ahead)")
if profile["handoffs_per_frame"]["mean"] != 1:
    fail(f"handoffs per frame {profile['handoffs_per_frame']}")
if "readback" not in profile["stalls_by_cause"]:
    fail("no stalls by cause")
for key in ["device", "driver", "gl_renderer", "resolution", "frames", "backend"]:
    if key not in report:
        fail(f"report lacks {key}")
print(f"ok: {len(spans)} spans over 8 frames; stages: {sorted(names)}")
