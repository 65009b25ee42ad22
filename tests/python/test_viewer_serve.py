"""tandem.Viewer(serve=...) on the device named by $TANDEM_TEST_DEVICE: a training loop's
viewer watched from a browser. The URL it prints (and `url`) opens the socket; the frames that
come are the viewer's own image of the tensors it was given, at the browser's canvas size, and
a drag from the browser turns the camera the loop's images then show. Python's websockets plays
the page (tests/web/serve_client.py); the loop steps on this thread, the client runs on another."""
import asyncio
import os
import sys
import threading
import unittest

import torch

import tandem

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "web"))
from serve_client import Client, rgba  # noqa: E402

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))
SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "assets", "sample.ply")


class Served:
    """Runs `script(app)` (a coroutine function) on a thread while the viewer steps here."""

    def __init__(self, viewer):
        self.viewer = viewer
        self.base, self.token = viewer.url.split("/?token=")

    def socket_url(self):
        return self.base.replace("http://", "ws://") + "/socket?token=" + self.token

    def run(self, script):
        outcome = {}

        def client():
            try:
                outcome["value"] = asyncio.run(script(self))
            except BaseException as error:  # handed to the test's thread
                outcome["error"] = error
        thread = threading.Thread(target=client)
        thread.start()
        while thread.is_alive():
            self.viewer.step()
        thread.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]


class ViewerServe(unittest.TestCase):
    def setUp(self):
        sample = tandem.load_mesh(SAMPLE)
        self.mesh = tandem.Mesh(sample.positions.to(DEVICE), sample.indices.to(DEVICE),
                                colors=None if sample.colors is None else sample.colors.to(DEVICE))

    def test_the_browser_sees_the_loops_tensors_and_drives_the_camera(self):
        viewer = tandem.Viewer(resolution=(60, 96), headless=True, device=DEVICE, raster="gl",
                               overlay=False, serve=0)
        try:
            self.assertRegex(viewer.url, r"^http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}$")
            viewer.update(self.mesh)
            served = Served(viewer)

            async def watch(app):
                client = await Client.connect(app, width=120, height=80)
                await client.frames_after(2)
                await client.send({"type": "view", "width": 120, "height": 80, "format": "png"})
                await client.wait_for(lambda: client.frames[-1][0]["format"] == "png", "a PNG")
                still = client.frames[-1]
                await client.send({"type": "input", "seq": 1, "events": [
                    {"kind": "down", "x": 60, "y": 40, "button": 0},
                    {"kind": "move", "x": 90, "y": 40},
                    {"kind": "up", "x": 90, "y": 40, "button": 0}]})
                await client.wait_for(lambda: client.frames[-1][0]["input_seq"] >= 1,
                                      "a frame after the drag")
                await client.close()
                return still
            header, png = served.run(watch)
            self.assertEqual((header["width"], header["height"]), (120, 80))
            # The browser's canvas size is the viewer's now; its image is what was sent.
            self.assertEqual(tuple(viewer.image().shape[:2]), (80, 120))
            width, height, pixels = rgba(png)
            self.assertEqual((width, height), (120, 80))
            self.assertGreater(len(set(pixels[i:i + 3] for i in range(0, len(pixels), 4))), 4)
            after = viewer.image()
            viewer.step()
            self.assertTrue(torch.equal(after, viewer.image()), "the loop's frames settle")
            before_drag = torch.tensor(list(pixels), dtype=torch.uint8).reshape(80, 120, 4)
            self.assertFalse(torch.equal(after[..., :3].cpu(), before_drag[..., :3]),
                             "the drag turned the camera the loop's images show")
        finally:
            viewer.close()
        with self.assertRaisesRegex(ValueError, "^serve: expected"):
            tandem.Viewer(resolution=(60, 96), headless=True, device=DEVICE, serve="nope")


if __name__ == "__main__":
    unittest.main()
