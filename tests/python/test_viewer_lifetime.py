"""tandem.Viewer leaves the interpreter as it found it: Ctrl-C during a render loop raises
KeyboardInterrupt in the caller (Python keeps its own SIGINT handler) and a Viewer made
afterwards renders normally (the stop is per viewer, not a sticky global); two live Viewers with
overlays work side by side (each overlay has its own ImGui context: re-running a notebook cell
used to abort the interpreter with "Already initialized a renderer backend!")."""
import os
import signal
import threading
import unittest

import torch

import tandem

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))
SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "assets", "sample.ply")
RESOLUTION = (60, 96)


def sample_mesh():
    sample = tandem.load_mesh(SAMPLE)
    return tandem.Mesh(sample.positions.to(DEVICE), sample.indices.to(DEVICE),
                       colors=None if sample.colors is None else sample.colors.to(DEVICE),
                       normals=None if sample.normals is None else sample.normals.to(DEVICE))


class Lifetime(unittest.TestCase):
    def test_ctrl_c_raises_keyboard_interrupt_and_the_next_viewer_renders(self):
        handler = signal.getsignal(signal.SIGINT)
        mesh = sample_mesh()
        started = threading.Event()
        # SIGINT from another thread, as a terminal's Ctrl-C comes, once the loop runs.
        sender = threading.Thread(target=lambda: (started.wait(), os.kill(os.getpid(),
                                                                          signal.SIGINT)))
        sender.start()
        steps = 0
        with tandem.Viewer(resolution=RESOLUTION, headless=True, overlay=False,
                           device=DEVICE) as viewer:
            viewer.update(mesh)
            with self.assertRaises(KeyboardInterrupt):
                for steps in range(1, 1_000_000):  # bounded; the signal comes within frames
                    self.assertTrue(viewer.step(), "the viewer stopped without raising")
                    started.set()
        sender.join()
        self.assertGreaterEqual(steps, 1)
        self.assertIs(signal.getsignal(signal.SIGINT), handler, "the viewer replaced Python's "
                      "SIGINT handler")

        # A viewer made afterwards renders every frame asked for, as one never interrupted.
        expected = tandem.render(mesh, resolution=RESOLUTION, device=DEVICE)["image"].cpu()
        with tandem.Viewer(resolution=RESOLUTION, headless=True, overlay=False,
                           device=DEVICE) as after:
            after.update(mesh)
            for _ in range(5):
                self.assertTrue(after.step(), "a viewer after a Ctrl-C stopped on its own")
            torch.testing.assert_close(after.image(), expected, rtol=0, atol=0)

    def test_two_live_viewers_with_overlays_both_render(self):
        mesh = sample_mesh()
        plain = tandem.render(mesh, resolution=(240, 320), device=DEVICE)["image"].cpu()
        first = tandem.Viewer(resolution=(240, 320), headless=True, overlay=True, device=DEVICE)
        second = tandem.Viewer(resolution=(240, 320), headless=True, overlay=True, device=DEVICE)
        try:
            for viewer in (first, second):
                viewer.update(mesh)
            for _ in range(3):
                self.assertTrue(first.step())
                self.assertTrue(second.step())
            for viewer in (first, second):
                image = viewer.image()
                changed = int((image != plain).any(-1).sum())
                self.assertGreater(changed, 1000, "no overlay drawn over the scene")
        finally:
            second.close()
        # The first outlives the second.
        self.assertTrue(first.step())
        self.assertGreater(int((first.image() != plain).any(-1).sum()), 1000)
        first.close()


if __name__ == "__main__":
    unittest.main()
