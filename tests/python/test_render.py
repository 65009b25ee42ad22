"""tandem.render against tandem-raster and tandem.rasterize, on the device named by
$TANDEM_TEST_DEVICE (cpu by default; the gpu tier runs it with cuda): the image equals
tandem-raster's PNG for the same file and camera (with and without a post-process chain), the
G-buffer's ids agree with rasterize() on the same clip-space positions, channels and bad
arguments. $TANDEM_RASTER names the tandem-raster executable."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import torch

import tandem

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
import png  # noqa: E402

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))
SOURCE = os.path.join(os.path.dirname(__file__), "..", "..")
SAMPLE = os.path.join(SOURCE, "assets", "sample.ply")


def raster_png(path, yaw, pitch, distance, size, extra=()):
    """tandem-raster's headless frame of `path` from one camera-path key, as an [H, W, 4] uint8
    tensor."""
    with tempfile.TemporaryDirectory() as folder:
        keys = os.path.join(folder, "camera.json")
        with open(keys, "w") as f:
            json.dump({"keyframes": [{"frame": 0, "yaw": yaw, "pitch": pitch, "distance": distance}]}, f)
        out = os.path.join(folder, "out")
        backend = "cuda" if DEVICE.type == "cuda" else "host"
        subprocess.run([os.environ["TANDEM_RASTER"], "--headless", path, "--size", f"{size[1]}x{size[0]}",
                        "--frames", "1", "--camera-path", keys, "--out", out, "--backend", backend,
                        "-q", *extra], check=True)
        files = sorted(os.listdir(out))
        width, height, rows = png.load(os.path.join(out, files[0]))
        return torch.tensor(list(b"".join(rows)), dtype=torch.uint8).reshape(height, width, 4)


class Render(unittest.TestCase):
    def test_image_equals_tandem_raster_png(self):
        # With each rasterizer named (auto may time them apart differently in two processes).
        mesh = tandem.load_mesh(SAMPLE)
        rasters = ("gl", "host") + (("cuda",) if DEVICE.type == "cuda" else ())
        for raster in rasters:
            for postfx, extra in ((None, ()), ("tonemap,fxaa", ("--postfx", "tonemap,fxaa"))):
                expected = raster_png(SAMPLE, 50, 25, 1.2, (90, 160),
                                      extra + ("--raster", raster))
                frame = tandem.render(mesh, tandem.Orbit(yaw=50, pitch=25, distance=1.2),
                                      resolution=(90, 160), postfx=postfx, device=DEVICE,
                                      raster=raster)
                image = frame["image"].cpu()
                self.assertEqual(image.shape, (90, 160, 4))
                self.assertGreater(int((image != image[0, 0]).any(-1).sum()), 800,
                                   "the mesh is drawn")
                torch.testing.assert_close(image, expected, rtol=0, atol=0,
                                           msg=f"raster {raster}, postfx {postfx}")

    def test_rasterizers_agree_and_bad_ones_are_named(self):
        mesh = tandem.load_mesh(SAMPLE)
        frames = {r: tandem.render(mesh, resolution=(90, 160), device=DEVICE, raster=r,
                                   channels=("id", "depth", "image"))
                  for r in ("gl", "host", "auto")}
        for raster in ("host", "auto"):
            same = (frames[raster]["id"] == frames["gl"]["id"]).float().mean().item()
            self.assertGreater(same, 0.99, f"{raster}: ids agree with GL's")
            covered = frames["gl"]["id"] > 0
            self.assertGreater(int(covered.sum()), 800)
            depth = (frames[raster]["depth"] - frames["gl"]["depth"]).abs()[covered]
            self.assertLess(float(depth.max()), 1e-3 * float(frames["gl"]["depth"].max()))
        with self.assertRaisesRegex(ValueError, "^raster: 'fast' is not auto, gl, cuda or host"):
            tandem.render(mesh, device=DEVICE, raster="fast")
        if DEVICE.type == "cpu":
            with self.assertRaisesRegex(RuntimeError, "^raster=cuda needs the passes on CUDA"):
                tandem.render(mesh, device=DEVICE, raster="cuda")

    def test_ids_agree_with_rasterize_on_the_same_clip_positions(self):
        s = torch.linspace(-0.9, 0.9, 17)
        y, x = torch.meshgrid(s, s, indexing="ij")
        positions = torch.stack([x, y, -2.0 + 0.4 * torch.sin(6 * x) * torch.cos(5 * y)], -1).reshape(-1, 3)
        i = torch.arange(16)
        a = (i[:, None] * 17 + i[None, :]).reshape(-1)
        tri = torch.cat([torch.stack([a, a + 1, a + 18], -1), torch.stack([a, a + 18, a + 17], -1)]).int()
        camera = tandem.Camera(eye=(0, 0, 0), target=(0, 0, -1), fov_y=70, near=0.5, far=10)
        resolution = (60, 80)
        frame = tandem.render(tandem.Mesh(positions, tri), camera, resolution=resolution,
                              channels=("id", "depth"), device=DEVICE)
        _, _, view_projection = tandem.camera_matrices(camera, resolution)
        clip = torch.cat([positions, torch.ones(positions.shape[0], 1)], 1) @ view_projection.T
        rast = tandem.rasterize(clip.to(DEVICE), tri.to(DEVICE), resolution)[0].cpu().flip(0)
        ids = frame["id"].cpu()
        # The same pixels covered, exactly (one GL rasterization of the same coordinates)...
        torch.testing.assert_close(ids > 0, rast[..., 3] > 0, rtol=0, atol=0)
        self.assertGreater(int((ids > 0).sum()), 1500)
        # ...and the same triangle wherever the pixel centre is clearly inside one (the engine's
        # resolve picks among triangles sharing a vertex by ray, exact away from their edges).
        u, v = rast[..., 0], rast[..., 1]
        inside = torch.minimum(torch.minimum(u, v), 1 - u - v) > 1e-2
        self.assertGreater(int(inside.sum()), 1000)
        torch.testing.assert_close(ids[inside], rast[..., 3][inside].long(), rtol=0, atol=0)
        self.assertTrue((frame["depth"].cpu()[ids > 0] > 1.5).all())

    def test_channels_points_and_devices(self):
        cloud = tandem.Mesh(torch.rand(500, 3, generator=torch.Generator().manual_seed(3)),
                            colors=torch.rand(500, 3, generator=torch.Generator().manual_seed(4)))
        frame = tandem.render(cloud, resolution=(48, 64), point_size=3,
                              channels=("image", "color", "depth", "normal", "id"), device=DEVICE)
        self.assertEqual(frame["image"].shape, (48, 64, 4))
        self.assertEqual(frame["normal"].shape, (48, 64, 4))
        self.assertEqual(frame["depth"].dtype, torch.float32)
        self.assertEqual(frame["id"].dtype, torch.int64)
        self.assertEqual(frame["image"].device.type, DEVICE.type)
        points = frame["id"].cpu() >= 2**31  # points carry bit 31
        self.assertGreater(int(points.sum()), 100)
        torch.testing.assert_close(frame["depth"].cpu() > 0, frame["id"].cpu() > 0, rtol=0, atol=0)

    def test_colours_are_srgb_in_and_out_and_encoded_once(self):
        # One unlit point as a big splat: without postfx the image and the colour channel hold
        # its bytes; tonemap is the sRGB encoding of the ACES curve of the decoded colour.
        colour = (200, 30, 0x17)
        cloud = tandem.Mesh(torch.zeros(1, 3), colors=torch.tensor([colour], dtype=torch.uint8))
        camera = tandem.Camera(eye=(0, 0, 3), target=(0, 0, 0))

        def decode(c):
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

        def encode(v):
            return 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055

        def aces(x):
            return min(max(x * (2.51 * x + 0.03) / (x * (2.43 * x + 0.59) + 0.14), 0), 1)

        for postfx in (None, "tonemap"):
            frame = tandem.render(cloud, camera, resolution=(32, 32), postfx=postfx, point_size=16,
                                  channels=("image", "color"), device=DEVICE)
            centre = frame["image"].cpu()[16, 16, :3].tolist()
            self.assertEqual(frame["color"].cpu()[16, 16, :3].tolist(), list(colour))
            if postfx is None:
                self.assertEqual(centre, list(colour))
            else:
                expected = [255 * encode(aces(decode(c / 255))) for c in colour]
                for got, due in zip(centre, expected):
                    self.assertLessEqual(abs(got - due), 1.0, f"{centre} where {expected} is due")

    def test_bad_arguments_raise_value_error_naming_them(self):
        mesh = tandem.Mesh(torch.zeros(3, 3), torch.tensor([[0, 1, 2]]))
        cases = [
            ("positions", lambda: tandem.Mesh(torch.zeros(3, 2))),
            ("indices", lambda: tandem.Mesh(torch.zeros(3, 3), torch.tensor([[0, 1, 3]]))),
            ("colors", lambda: tandem.Mesh(torch.zeros(3, 3), colors=torch.zeros(2, 3))),
            ("scene", lambda: tandem.render("mesh.ply")),
            ("camera", lambda: tandem.render(mesh, camera="front")),
            ("channels", lambda: tandem.render(mesh, channels=("colour",))),
            ("resolution", lambda: tandem.render(mesh, resolution=(0, 10))),
            ("postfx", lambda: tandem.render(mesh, postfx="sharpen", device=DEVICE)),
        ]
        for name, call in cases:
            with self.assertRaises(ValueError, msg=name) as caught:
                call()
            self.assertTrue(str(caught.exception).startswith(name + ":"), str(caught.exception))
        with self.assertRaisesRegex(ValueError, "no such file"):
            tandem.load_mesh(os.path.join(SOURCE, "missing.ply"))


if __name__ == "__main__":
    unittest.main()
