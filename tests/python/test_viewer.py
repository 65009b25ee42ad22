"""tandem.Viewer headless on the device named by $TANDEM_TEST_DEVICE (cpu by default: host
arrays; the gpu tier runs it with cuda: tensors copied device to device, one handoff an
update): it shows what the loop gives it, the same image as tandem.render for the same scene,
follows each update, and refuses what it cannot do; the overlay stays out of headless images
unless asked (as on the command line); a hook calling back into its viewer is refused and the
viewer goes on, and a hook may use tandem's other renderers."""
import os
import unittest

import torch

import tandem

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))
# GL errors counted (KHR_debug) in the contexts made here (lazily, after this): the tests assert
# there are none.
os.environ.setdefault("TANDEM_GL_DEBUG", "1")
# The meshes' rasterizer, named: "auto" times GL and CUDA on the first scene, so a viewer and a
# render may pick apart on a GPU and differ by a code at a few edge pixels.
RASTER = "gl"
# What the viewers and renders compared here share.
SAME = dict(resolution=(60, 96), headless=True, device=DEVICE, raster=RASTER)
SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "assets", "sample.ply")


def rendered(scene):
    """tandem.render's image of `scene` with the viewers' settings, on the host."""
    options = {k: v for k, v in SAME.items() if k != "headless"}
    return tandem.render(scene, **options)["image"].cpu()


class Viewer(unittest.TestCase):
    def setUp(self):
        self.viewer = tandem.Viewer(**SAME, overlay=False)
        sample = tandem.load_mesh(SAMPLE)
        self.mesh = tandem.Mesh(sample.positions.to(DEVICE), sample.indices.to(DEVICE),
                                colors=None if sample.colors is None else sample.colors.to(DEVICE),
                                normals=None if sample.normals is None else sample.normals.to(DEVICE))

    def tearDown(self):
        self.viewer.close()

    def test_shows_what_render_draws(self):
        # With each rasterizer named (auto may time them apart differently in two frames).
        for raster in ("gl", "host"):
            viewer = tandem.Viewer(resolution=(60, 96), headless=True, overlay=False,
                                   device=DEVICE, raster=raster)
            try:
                viewer.update(self.mesh)
                self.assertTrue(viewer.step())
                expected = tandem.render(self.mesh, resolution=(60, 96), device=DEVICE,
                                         raster=raster)["image"].cpu()
                image = viewer.image()
            finally:
                viewer.close()
            self.assertGreater(int((image != image[0, 0]).any(-1).sum()), 300)
            torch.testing.assert_close(image, expected, rtol=0, atol=0, msg=raster)
        with self.assertRaisesRegex(ValueError, "^raster: 'fast' is not"):
            tandem.Viewer(resolution=(60, 96), headless=True, device=DEVICE, raster="fast")

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
        torch.testing.assert_close(self.viewer.image(), rendered([self.mesh, cloud]), rtol=0,
                                   atol=0)

    def test_runs_a_hook_in_every_frame(self):
        calls = []

        def invert(gbuffer):
            calls.append(gbuffer["output"].device.type)
            gbuffer["output"][..., :3] = 255 - gbuffer["output"][..., :3]

        with tandem.Viewer(**SAME, overlay=False, hook=invert) as hooked:
            hooked.update(self.mesh)
            for _ in range(3):
                self.assertTrue(hooked.step())
            image = hooked.image()
        self.assertEqual(calls, [DEVICE.type] * 3)
        plain = rendered(self.mesh)
        torch.testing.assert_close(image[..., :3], 255 - plain[..., :3], rtol=0, atol=0)

    def test_headless_images_have_no_overlay_unless_asked(self):
        expected = rendered(self.mesh)
        with tandem.Viewer(**SAME) as default:
            default.update(self.mesh)
            for _ in range(2):
                self.assertTrue(default.step())
            torch.testing.assert_close(default.image(), expected, rtol=0, atol=0,
                                       msg="the overlay was drawn into a headless image")
        with tandem.Viewer(**SAME, overlay=True) as asked:
            asked.update(self.mesh)
            for _ in range(2):  # ImGui sizes a new window in its first frame, drawing nothing
                self.assertTrue(asked.step())
            self.assertGreater(int((asked.image() != expected).any(-1).sum()), 500,
                               "overlay=True: no overlay in the image")

    def test_a_hook_calling_back_into_its_viewer_is_refused_and_the_viewer_goes_on(self):
        refused = []
        escape = [True]

        def reenter(gbuffer):
            for call in (viewer.step, viewer.image, lambda: viewer.update(self.mesh),
                         viewer.close):
                try:
                    call()
                except RuntimeError as error:
                    refused.append(str(error))
            if escape[0]:
                viewer.step()  # raised out of the hook: the frame fails, the viewer does not

        viewer = tandem.Viewer(**SAME, hook=reenter)
        try:
            viewer.update(self.mesh)
            with self.assertRaisesRegex(RuntimeError, r"the hook failed: .*tandem\.Viewer\.step"
                                        r"\(\): called from inside the viewer's own hook"):
                viewer.step()
            self.assertEqual(len(refused), 4, refused)
            for call, message in zip(("step", "image", "update", "close"), refused):
                self.assertRegex(message, rf"^tandem\.Viewer\.{call}\(\): called from inside "
                                          "the viewer's own hook")
            escape[0] = False
            expected = rendered(self.mesh)
            for _ in range(3):
                self.assertTrue(viewer.step())
            torch.testing.assert_close(viewer.image(), expected, rtol=0, atol=0)
            self.assertEqual(len(refused), 4 + 3 * 4)
        finally:
            # No GL error on its context (a debug group popped twice is GL_STACK_UNDERFLOW), so
            # the session's exit code is 0.
            self.assertEqual(viewer._native.gl_errors, 0)
            self.assertEqual(viewer._native.close(), 0)

    def test_a_hook_may_use_tandems_other_renderers(self):
        results = []

        def rasterize_inside(gbuffer):
            clip = torch.tensor([[-1.0, -1, 0, 1], [1, -1, 0, 1], [-1, 1, 0, 1]], device=DEVICE)
            tri = torch.tensor([[0, 1, 2]], dtype=torch.int32, device=DEVICE)
            results.append(tandem.rasterize(clip, tri, (4, 4))[0, 0, 0, 3].item())
            results.append(tandem.render(self.mesh, resolution=(20, 30), device=DEVICE)["image"])

        expected = rendered(self.mesh)
        viewer = tandem.Viewer(**SAME, hook=rasterize_inside)
        try:
            viewer.update(self.mesh)
            for _ in range(2):
                self.assertTrue(viewer.step())
            # The frame went on in the viewer's own GL context after the hook made others current.
            torch.testing.assert_close(viewer.image(), expected, rtol=0, atol=0)
            self.assertEqual(results[0::2], [1.0, 1.0])
            self.assertEqual(tandem.renderer(DEVICE).gl_errors, 0, "the frame's GL calls went "
                             "to a renderer's context")
        finally:
            self.assertEqual(viewer._native.gl_errors, 0)
            self.assertEqual(viewer._native.close(), 0)

    def test_an_empty_scene_is_called_empty_or_shows_nothing(self):
        # Empty and strided: PyTorch calls it contiguous and keeps the strides.
        empty = tandem.Mesh(torch.zeros(4, 3, device=DEVICE).t().contiguous().t()[:0])
        with self.assertRaisesRegex(ValueError, r"^scene: empty \(positions \[0, 3\]\)"):
            self.viewer.update(empty)  # the first scene fits the camera: IndexError before
        self.viewer.update(self.mesh)
        self.assertTrue(self.viewer.step())
        self.viewer.update(empty)
        self.assertTrue(self.viewer.step())
        background = rendered(empty)
        self.assertEqual(int((background != background[0, 0]).any(-1).sum()), 0)
        torch.testing.assert_close(self.viewer.image(), background, rtol=0, atol=0)

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
