"""tandem.Viewer headless on the device named by $TANDEM_TEST_DEVICE (cpu by default: host
arrays; the gpu tier runs it with cuda: tensors copied device to device, one handoff an
update): it shows what the loop gives it, the same image as tandem.render for the same scene,
follows each update, and refuses what it cannot do."""
import os
import unittest

import torch

import tandem

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))
SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "assets", "sample.ply")


class Viewer(unittest.TestCase):
    def setUp(self):
        self.viewer = tandem.Viewer(resolution=(60, 96), headless=True, overlay=False,
                                    device=DEVICE)
        sample = tandem.load_mesh(SAMPLE)
        self.mesh = tandem.Mesh(sample.positions.to(DEVICE), sample.indices.to(DEVICE),
                                colors=None if sample.colors is None else sample.colors.to(DEVICE),
                                normals=None if sample.normals is None else sample.normals.to(DEVICE))

    def tearDown(self):
        self.viewer.close()

    def test_shows_what_render_draws(self):
        self.viewer.update(self.mesh)
        self.assertTrue(self.viewer.step())
        expected = tandem.render(self.mesh, resolution=(60, 96), device=DEVICE)["image"].cpu()
        image = self.viewer.image()
        self.assertGreater(int((image != image[0, 0]).any(-1).sum()), 300)
        torch.testing.assert_close(image, expected, rtol=0, atol=0)

    def test_follows_each_update(self):
        self.viewer.update(self.mesh)
        self.viewer.step()
        first = self.viewer.image()
        moved = tandem.Mesh(self.mesh.positions + torch.tensor([0.05, 0.0, 0.0], device=DEVICE),
                            self.mesh.indices, colors=self.mesh.colors, normals=self.mesh.normals)
        handoffs = self.viewer.handoffs
        self.viewer.update(moved)  # the camera stays where the first update aimed it
        self.viewer.step()
        self.assertFalse(torch.equal(self.viewer.image(), first))
        self.viewer.update(self.mesh)
        self.viewer.step()
        torch.testing.assert_close(self.viewer.image(), first, rtol=0, atol=0)
        # Device tensors: one GL-CUDA round trip an update, nothing through the host.
        self.assertEqual(self.viewer.handoffs - handoffs, 2 if DEVICE.type == "cuda" else 0)

    def test_meshes_and_points_together(self):
        generator = torch.Generator().manual_seed(5)
        cloud = tandem.Mesh((torch.rand(400, 3, generator=generator) - 0.5).to(DEVICE),
                            colors=torch.rand(400, 3, generator=generator).to(DEVICE))
        self.viewer.update([cloud, self.mesh])  # packed meshes first, whatever the order
        self.viewer.step()
        expected = tandem.render([self.mesh, cloud], resolution=(60, 96), device=DEVICE)["image"]
        torch.testing.assert_close(self.viewer.image(), expected.cpu(), rtol=0, atol=0)

    def test_runs_a_hook_in_every_frame(self):
        calls = []

        def invert(gbuffer):
            calls.append(gbuffer["output"].device.type)
            gbuffer["output"][..., :3] = 255 - gbuffer["output"][..., :3]

        with tandem.Viewer(resolution=(60, 96), headless=True, overlay=False, device=DEVICE,
                           hook=invert) as hooked:
            hooked.update(self.mesh)
            for _ in range(3):
                self.assertTrue(hooked.step())
            image = hooked.image()
        self.assertEqual(calls, [DEVICE.type] * 3)
        plain = tandem.render(self.mesh, resolution=(60, 96), device=DEVICE)["image"].cpu()
        torch.testing.assert_close(image[..., :3], 255 - plain[..., :3], rtol=0, atol=0)

    def test_refuses_what_it_cannot_do(self):
        with self.assertRaisesRegex(RuntimeError, "update\\(\\) a scene before"):
            self.viewer.step()
        with self.assertRaisesRegex(ValueError, "^scene:"):
            self.viewer.update("points")
        self.viewer.close()
        with self.assertRaisesRegex(RuntimeError, "closed"):
            self.viewer.update(self.mesh)


if __name__ == "__main__":
    unittest.main()
