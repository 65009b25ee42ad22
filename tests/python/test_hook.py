"""A post-process stage written in PyTorch (tandem.render's hook), on the device named by
$TANDEM_TEST_DEVICE (cpu by default: the host path; the gpu tier runs it with cuda: the frame's
mapped G-buffer as CUDA tensors inside its handoff, on its stream): it sees every channel as the
frame has them, what it writes to "output" is what is presented, its errors surface, and it is
its own stage in the trace."""
import os
import unittest

import torch
from torch.profiler import profile, record_function

import tandem

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))
# GL errors counted (KHR_debug) in the contexts made here (lazily, after this): the tests assert
# there are none.
os.environ.setdefault("TANDEM_GL_DEBUG", "1")
SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "assets", "sample.ply")


class Hook(unittest.TestCase):
    def setUp(self):
        self.mesh = tandem.load_mesh(SAMPLE)
        self.resolution = (60, 96)

    def test_sees_the_g_buffer_and_writes_the_output(self):
        seen = {}

        def invert(gbuffer):
            seen.update({k: v.clone() for k, v in gbuffer.items()})
            seen["device"] = gbuffer["output"].device
            out = gbuffer["output"]
            out[..., :3] = 255 - out[..., :3]

        frame = tandem.render(self.mesh, tandem.Orbit(yaw=40), resolution=self.resolution,
                              channels=("image", "color", "depth", "id"), device=DEVICE,
                              hook=invert)
        self.assertEqual(seen["device"].type, DEVICE.type)
        shapes = {k: tuple(v.shape) for k, v in seen.items() if k != "device"}
        self.assertEqual(shapes, {"color": (60, 96, 4), "depth": (60, 96, 1), "normal": (60, 96, 4),
                                  "id": (60, 96, 1), "output": (60, 96, 4)})
        self.assertEqual(seen["normal"].dtype, torch.float16)
        self.assertEqual(seen["id"].dtype, torch.int32)
        # The hook's images are the frame's (rows bottom first), the same the read-back gives.
        torch.testing.assert_close(seen["color"].flip(0).cpu(), frame["color"].cpu(), rtol=0, atol=0)
        torch.testing.assert_close(seen["depth"][..., 0].flip(0).cpu(), frame["depth"].cpu(),
                                   rtol=0, atol=0)
        torch.testing.assert_close(seen["id"][..., 0].flip(0).cpu().long() & 0xFFFFFFFF,
                                   frame["id"].cpu(), rtol=0, atol=0)
        # Without a chain the output starts as the colour; the presented image is the hook's.
        torch.testing.assert_close(seen["output"][..., :3], seen["color"][..., :3], rtol=0, atol=0)
        expected = 255 - frame["color"][..., :3].cpu()
        torch.testing.assert_close(frame["image"][..., :3].cpu(), expected, rtol=0, atol=0)

    def test_runs_after_the_chain(self):
        plain = tandem.render(self.mesh, resolution=self.resolution, postfx="tonemap",
                              device=DEVICE)["image"]
        outputs = []
        frame = tandem.render(self.mesh, resolution=self.resolution, postfx="tonemap",
                              device=DEVICE, hook=lambda g: outputs.append(g["output"].clone()))
        torch.testing.assert_close(outputs[0].flip(0)[..., :3].cpu(), plain[..., :3].cpu(),
                                   rtol=0, atol=0)
        torch.testing.assert_close(frame["image"].cpu(), plain.cpu(), rtol=0, atol=0)

    def test_errors_surface_and_the_next_frame_renders(self):
        def broken(gbuffer):
            raise KeyError("no such channel")
        with self.assertRaisesRegex(RuntimeError, "the hook failed: .*no such channel"):
            tandem.render(self.mesh, resolution=self.resolution, device=DEVICE, hook=broken)
        with self.assertRaisesRegex(ValueError, "^hook:"):
            tandem.render(self.mesh, resolution=self.resolution, device=DEVICE, hook=3)
        frame = tandem.render(self.mesh, resolution=self.resolution, device=DEVICE)
        self.assertGreater(int((frame["image"] != frame["image"][0, 0]).any(-1).sum()), 300)

    def test_a_hook_calling_back_into_its_renderer_is_refused_and_the_next_frame_renders(self):
        refused = []

        def reenter(gbuffer):
            for call in (lambda: tandem.render(self.mesh, resolution=(8, 8), device=DEVICE),
                         lambda: tandem.rasterize(torch.zeros(3, 4, device=DEVICE),
                                                  torch.zeros(1, 3, dtype=torch.int32,
                                                              device=DEVICE), (4, 4),
                                                  rasterizer="gl")):
                try:
                    call()
                except RuntimeError as error:
                    refused.append(str(error))
            tandem.render(self.mesh, resolution=(8, 8), device=DEVICE)

        plain = tandem.render(self.mesh, resolution=self.resolution, device=DEVICE)["image"]
        with self.assertRaisesRegex(RuntimeError, r"the hook failed: .*tandem\.render\(\): "
                                    "called from inside the renderer's own hook"):
            tandem.render(self.mesh, resolution=self.resolution, device=DEVICE, hook=reenter)
        self.assertEqual(len(refused), 2, refused)
        self.assertRegex(refused[0], r"^tandem\.render\(\): called from inside")
        self.assertRegex(refused[1], r"^tandem\.rasterize\(\): called from inside")
        for _ in range(2):  # the renderer goes on, its debug groups balanced
            frame = tandem.render(self.mesh, resolution=self.resolution, device=DEVICE)
            torch.testing.assert_close(frame["image"].cpu(), plain.cpu(), rtol=0, atol=0)
        self.assertEqual(tandem.renderer(DEVICE).gl_errors, 0)

    def test_is_its_own_stage_in_the_trace(self):
        with profile() as prof, tandem.trace(DEVICE) as spans:
            with record_function("frame"):
                tandem.render(self.mesh, resolution=self.resolution, device=DEVICE,
                              hook=lambda g: g["output"].mul_(1))
        merged = tandem.merge_traces(_export(prof), spans)
        processes = {e["pid"]: e["args"]["name"] for e in merged["traceEvents"]
                     if e.get("ph") == "M" and e.get("name") == "process_name"}
        hooks = sorted(processes.get(e["pid"]) for e in merged["traceEvents"]
                       if e.get("name") == "hook" and e.get("ph") == "X")
        # A CPU span, and on CUDA also the stream's span of its work.
        self.assertEqual(hooks, ["tandem CPU", "tandem CUDA"] if DEVICE.type == "cuda" else ["tandem CPU"])


def _export(prof):
    import json
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "torch.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            return json.load(f)


if __name__ == "__main__":
    unittest.main()
