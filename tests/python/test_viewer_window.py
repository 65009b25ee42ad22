"""tandem.Viewer in a real window (window tier: Xvfb): it opens one, renders the frames a loop
asks for with the overlay, and closes; overlay=False starts the overlay hidden."""
import unittest

import torch

import tandem


class ViewerWindow(unittest.TestCase):
    def test_a_window_shows_the_loops_points(self):
        generator = torch.Generator().manual_seed(7)
        points = torch.rand(3000, 3, generator=generator)
        colors = torch.rand(3000, 3, generator=generator)
        with tandem.Viewer(resolution=(240, 320), headless=False, device="cpu") as viewer:
            self.assertFalse(viewer.is_headless)
            images = []
            for step in range(5):
                points[:, 1] += 0.01  # the loop changes the tensors
                viewer.update(tandem.Mesh(points, colors=colors))
                self.assertTrue(viewer.step())
                images.append(viewer.image())
            self.assertEqual(images[-1].shape, (240, 320, 4))
            self.assertGreater(int((images[-1] != images[-1][0, 0]).any(-1).sum()), 2000)
            self.assertFalse(torch.equal(images[0], images[-1]))

    def test_the_overlay_is_on_in_a_window_unless_turned_off(self):
        generator = torch.Generator().manual_seed(8)
        mesh = tandem.Mesh(torch.rand(3000, 3, generator=generator),
                           colors=torch.rand(3000, 3, generator=generator))
        images = {}
        for overlay in (None, False):
            with tandem.Viewer(resolution=(240, 320), headless=False, device="cpu",
                               overlay=overlay) as viewer:
                viewer.update(mesh)
                for _ in range(3):
                    self.assertTrue(viewer.step())
                images[overlay] = viewer.image()
        expected = tandem.render(mesh, resolution=(240, 320), device="cpu")["image"]
        torch.testing.assert_close(images[False], expected, rtol=0, atol=0,
                                   msg="overlay=False: the overlay was drawn")
        self.assertGreater(int((images[None] != expected).any(-1).sum()), 2000,
                           "no overlay in a window by default")


if __name__ == "__main__":
    unittest.main()
