"""One timeline with PyTorch: a program profiled with torch.profiler gets tandem's spans (CPU,
GL and, on cuda, CUDA) merged into the same Chrome trace, clocks aligned so that each
tandem.rasterize span lies inside the record_function range around its call. On the device
named by $TANDEM_TEST_DEVICE (cpu by default; the gpu tier runs it with cuda)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import torch
from torch.profiler import ProfilerActivity, profile, record_function

import tandem

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))
CALLS = 12  # back to back, more than the engine's default ring of frames in flight


class Trace(unittest.TestCase):
    def test_tandem_spans_land_inside_the_torch_ranges_around_them(self):
        pos = torch.tensor([[-0.8, -0.8, 0.0, 1.0], [0.8, -0.8, 0.0, 1.0], [-0.8, 0.8, 0.5, 1.0]],
                           device=DEVICE)
        tri = torch.tensor([[0, 1, 2]], dtype=torch.int32, device=DEVICE)
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if DEVICE.type == "cuda" else [])
        with tempfile.TemporaryDirectory() as folder:
            with profile(activities=activities) as prof:
                with tandem.trace(DEVICE) as spans:
                    for i in range(CALLS):
                        with record_function("step"):
                            (pos * 2).sum()
                            # On cuda, calls 1 and 3 take the default: the CUDA rasterizer.
                            tandem.rasterize(pos, tri, (64, 64),
                                             rasterizer="gl" if i % 2 == 0 else None)
                    mesh = tandem.Mesh(torch.rand(50, 3), colors=torch.rand(50, 3))
                    with record_function("render step"):
                        tandem.render(mesh, resolution=(32, 32), device=DEVICE)
            torch_json = os.path.join(folder, "torch.json")
            tandem_json = os.path.join(folder, "tandem.json")
            merged_json = os.path.join(folder, "merged.json")
            prof.export_chrome_trace(torch_json)
            spans.save(tandem_json)
            # The documented tool, from the command line.
            env = dict(os.environ)
            subprocess.run([sys.executable, "-m", "tandem.trace_merge", torch_json, tandem_json,
                            "-o", merged_json], check=True, env=env)
            with open(merged_json) as f:
                merged = json.load(f)
            with self.assertRaises(FileExistsError):
                tandem.merge_traces(torch_json, tandem_json, merged_json)
        alignment = merged["tandem_clock_alignment"]
        self.assertLess(alignment["uncertainty_us"], 200)
        ranges = [e for e in merged["traceEvents"] if e.get("ph") == "X"]
        names = {e["name"] for e in ranges}
        self.assertTrue(any(n.startswith("aten::") for n in names), "PyTorch's operators kept")
        steps = [e for e in ranges if e["name"] == "step" and not str(e.get("cat", "")).startswith("gpu")]
        calls = [e for e in ranges if e["name"] == "tandem.rasterize"]
        self.assertEqual(len(steps), CALLS)
        self.assertEqual(len(calls), CALLS, "every call in the trace")
        slack = alignment["uncertainty_us"] + 5
        for step, call in zip(sorted(steps, key=lambda e: e["ts"]), sorted(calls, key=lambda e: e["ts"])):
            self.assertGreaterEqual(call["ts"], step["ts"] - slack)
            self.assertLessEqual(call["ts"] + call["dur"], step["ts"] + step["dur"] + slack)
        gl = [e for e in ranges if e["name"] == "raster"]
        kernels = [e for e in ranges if e["name"] == "raster.cuda"]
        gl_calls = CALLS // 2 if DEVICE.type == "cuda" else CALLS
        self.assertEqual(len(gl), gl_calls, "the GL draws of each GL call")
        self.assertEqual(len(kernels), CALLS - gl_calls, "the kernels of each CUDA rasterizer call")
        self.assertTrue(all(e["pid"] >= tandem._trace.PID_BASE for e in calls + gl + kernels))
        # The CUDA rasterizer's kernels (no handoff around them, placed by the CUDA clock) run
        # after the call issuing them began, and before the next GL call's draws; the CUDA and
        # GL clocks are each aligned to the CPU's, within tens of microseconds.
        clocks = 50
        ordered_calls = sorted(calls, key=lambda e: e["ts"])
        ordered_gl = sorted(gl, key=lambda e: e["ts"])
        for k, kernel in enumerate(sorted(kernels, key=lambda e: e["ts"])):
            self.assertGreaterEqual(kernel["ts"], ordered_calls[2 * k + 1]["ts"] - slack)
            if 2 * k + 2 < CALLS:
                print(f"kernels {k}: {kernel['ts'] - ordered_gl[k + 1]['ts']:.1f} us from the next "
                      f"GL draw")
                self.assertLessEqual(kernel["ts"], ordered_gl[k + 1]["ts"] + slack + clocks)
        # render()'s frame: its call and its present pass (a point cloud on CUDA is drawn by the
        # CUDA point pass, with no geometry pass).
        self.assertEqual(len([e for e in ranges if e["name"] == "tandem.render"]), 1)
        self.assertTrue(any(e["name"] == "present" for e in ranges), "render's frame")
        processes = {e["args"]["name"] for e in merged["traceEvents"]
                     if e.get("ph") == "M" and e.get("name") == "process_name"}
        self.assertTrue({"tandem CPU", "tandem GL"} <= processes, processes)
        if DEVICE.type == "cuda":
            self.assertEqual(len([e for e in ranges if e["name"] == "raster.copy-out"]), CALLS // 2)
            self.assertTrue({"tandem CUDA"} <= processes, processes)

    def test_markers_are_required(self):
        with tandem.trace(DEVICE) as spans:  # no torch.profiler around it
            pass
        with self.assertRaisesRegex(ValueError, "^torch_trace: 0 'tandem.clock_sync' ranges"):
            tandem.merge_traces({"traceEvents": []}, spans)


if __name__ == "__main__":
    unittest.main()
