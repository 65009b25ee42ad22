"""tandem.Gaussians on the device named by $TANDEM_TEST_DEVICE (cpu by default: host tensors;
the gpu tier runs it with cuda: laid out and read device to device): the Gaussians a training
loop holds, drawn by tandem.render as tandem-raster draws the same Gaussians written as a 3DGS
PLY, shown by tandem.Viewer as render draws them, following each update, composited with a mesh
in front, with unusable Gaussians left out and bad arguments refused. $TANDEM_RASTER names the
tandem-raster executable."""
import math
import os
import struct
import subprocess
import sys
import tempfile
import unittest

import torch

import tandem

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
import png  # noqa: E402

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))
os.environ.setdefault("TANDEM_GL_DEBUG", "1")
SIZE = (90, 160)


def ring(count=500, degree=1, seed=3):
    """A ring of Gaussians as a 3DGS PLY stores them: raw (log scales, logit opacities,
    unnormalized rotations), float32, and SH as [N, K, 3]."""
    g = torch.Generator().manual_seed(seed)
    t = torch.rand(count, generator=g) * 2 * math.pi
    r = 0.7 + 0.3 * torch.rand(count, generator=g)
    means = torch.stack([r * torch.cos(t), r * torch.sin(t), (torch.rand(count, generator=g) - 0.5) * 0.4], 1)
    log_scales = torch.log(0.03 + 0.04 * torch.rand(count, 3, generator=g))
    logits = torch.rand(count, generator=g) * 3
    rotations = torch.rand(count, 4, generator=g) * 2 - 1
    k = (degree + 1) ** 2
    sh = (torch.rand(count, k, 3, generator=g) - 0.5) * 0.4
    sh[:, 0, 0] = torch.where(t < 1.0, 1.6, -0.4)
    sh[:, 0, 1] = 0.9 * torch.cos(t)
    sh[:, 0, 2] = 0.9 * torch.sin(t)
    return means.float(), log_scales.float(), logits.float(), rotations.float(), sh.float()


def activated(raw, device=DEVICE):
    """tandem.Gaussians of a raw ring, activated as the 3DGS model's getters do (in float64, as
    the engine's readers do, then float32)."""
    means, log_scales, logits, rotations, sh = raw
    return tandem.Gaussians(means.to(device), torch.exp(log_scales.double()).float().to(device),
                            rotations.to(device),
                            torch.sigmoid(logits.double()).float().to(device), sh.to(device))


def write_ply(path, raw):
    means, log_scales, logits, rotations, sh = raw
    n, k = means.shape[0], sh.shape[1]
    names = ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"]
    names += [f"f_rest_{i}" for i in range(3 * (k - 1))]
    names += ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
    head = f"ply\nformat binary_little_endian 1.0\nelement vertex {n}\n"
    head += "".join(f"property float {name}\n" for name in names) + "end_header\n"
    # f_rest is channel-major, as training writes it: all of red's coefficients, then green's...
    rest = sh[:, 1:, :].permute(0, 2, 1).reshape(n, -1)
    rows = torch.cat([means, torch.zeros(n, 3), sh[:, 0, :], rest, logits[:, None], log_scales,
                      rotations], 1)
    with open(path, "wb") as f:
        f.write(head.encode())
        f.write(struct.pack(f"<{rows.numel()}f", *rows.reshape(-1).tolist()))


def raster_png(path, size=SIZE, extra=()):
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "out")
        backend = "cuda" if DEVICE.type == "cuda" else "host"
        subprocess.run([os.environ["TANDEM_RASTER"], "--headless", path, "--size",
                        f"{size[1]}x{size[0]}", "--frames", "1", "--out", out, "--backend",
                        backend, "-q", *extra], check=True)
        width, height, rows = png.load(os.path.join(out, sorted(os.listdir(out))[0]))
        return torch.tensor(list(b"".join(rows)), dtype=torch.uint8).reshape(height, width, 4)


def psnr(a, b):
    d = (a[..., :3].double() - b[..., :3].double()) / 255
    mse = float((d * d).mean())
    return math.inf if mse == 0 else 10 * math.log10(1 / mse)


class Gaussians(unittest.TestCase):
    def test_render_draws_what_tandem_raster_draws_from_the_ply(self):
        for degree in (0, 1, 3):
            raw = ring(degree=degree, seed=3 + degree)
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "ring.ply")
                write_ply(path, raw)
                expected = raster_png(path)
            image = tandem.render(activated(raw), resolution=SIZE, device=DEVICE)["image"].cpu()
            self.assertGreater(int((image != image[0, 0]).any(-1).sum()), 1000, "drawn")
            # The same Gaussians, activated the same way (float64, then float32): the same bytes.
            torch.testing.assert_close(image, expected, rtol=0, atol=0,
                                       msg=f"SH degree {degree}: {psnr(image, expected):.1f} dB")

    def test_channels_of_gaussians(self):
        frame = tandem.render(activated(ring()), resolution=SIZE, device=DEVICE,
                              channels=("image", "depth", "id"))
        depth, ids = frame["depth"].cpu(), frame["id"].cpu()
        drawn = ids != 0
        self.assertGreater(int(drawn.sum()), 500)
        self.assertTrue(bool((ids[drawn] & 0x40000000 != 0).all()), "splat ids carry SplatIdBit")
        self.assertTrue(bool((depth[drawn] > 0).all()), "a median depth where they are opaque")
        self.assertTrue(bool((depth[~drawn] == 0).all()))

    def test_viewer_shows_what_render_draws_and_follows_updates(self):
        raw = ring()
        splats = activated(raw)
        expected = tandem.render(splats, resolution=SIZE, device=DEVICE)["image"].cpu()
        with tandem.Viewer(resolution=SIZE, headless=True, overlay=False, device=DEVICE) as viewer:
            viewer.update(splats)
            self.assertTrue(viewer.step())
            torch.testing.assert_close(viewer.image(), expected, rtol=0, atol=0)
            # A training step: the means move; the camera stays where the first update aimed.
            moved = tandem.Gaussians(splats.means + torch.tensor([0.1, 0.0, 0.0], device=DEVICE),
                                     splats.scales, splats.rotations, splats.opacities, splats.sh)
            for _ in range(3):
                viewer.update(moved)
                viewer.step()
            after = viewer.image()
            self.assertFalse(torch.equal(after, expected))
            viewer.update(splats)
            viewer.step()
            torch.testing.assert_close(viewer.image(), expected, rtol=0, atol=0,
                                       msg="back to the first Gaussians")

    def test_a_mesh_in_front_hides_them(self):
        splats = activated(ring())
        cube = tandem.load_mesh(os.path.join(os.path.dirname(__file__), "..", "..", "assets",
                                             "sample.ply"))
        # The sample mesh, shrunk and put between the camera (fitted on +z) and the ring.
        front = tandem.Mesh(cube.positions * 0.3 + torch.tensor([0.0, 0.0, 1.0]), cube.indices,
                            colors=cube.colors, normals=cube.normals)
        camera = tandem.Camera(eye=(0, 0, 4), target=(0, 0, 0), fov_y=40)
        alone = tandem.render(splats, camera, resolution=SIZE, device=DEVICE,
                              channels=("image", "id"))
        both = tandem.render([tandem.Mesh(front.positions.to(DEVICE), front.indices.to(DEVICE),
                                          colors=front.colors.to(DEVICE),
                                          normals=front.normals.to(DEVICE)), splats],
                             camera, resolution=SIZE, device=DEVICE, channels=("image", "id"))
        ids = both["id"].cpu()
        mesh = (ids != 0) & (ids & 0x40000000 == 0)
        self.assertGreater(int(mesh.sum()), 200, "the mesh is drawn")
        self.assertGreater(int((ids & 0x40000000 != 0).sum()), 200, "splats beside it")
        # Where the mesh is, the ring behind it does not show: those pixels differ from the
        # ring alone wherever the ring was there.
        ring_there = (alone["id"].cpu() != 0) & mesh
        self.assertGreater(int(ring_there.sum()), 20)
        self.assertFalse(bool((both["image"].cpu()[ring_there] == alone["image"].cpu()[ring_there])
                              .all(-1).any()))

    def test_unusable_gaussians_are_not_drawn(self):
        splats = activated(ring())
        base = tandem.render(splats, resolution=SIZE, device=DEVICE)["image"].cpu()
        n = len(splats)
        extra = 3
        bad_means = torch.cat([splats.means, torch.tensor([[0.0, 0.0, 0.0], [float("nan"), 0, 0],
                                                           [0.1, 0.1, 0.1]], device=DEVICE)])
        bad_rot = torch.cat([splats.rotations, torch.tensor([[0.0, 0, 0, 0], [1.0, 0, 0, 0],
                                                             [1.0, 0, 0, 0]], device=DEVICE)])
        bad_scales = torch.cat([splats.scales, torch.full((extra, 3), 0.2, device=DEVICE)])
        bad_scales[n + 2, 1] = float("inf")
        bad = tandem.Gaussians(bad_means, bad_scales, bad_rot,
                               torch.cat([splats.opacities, torch.full((extra,), 0.9, device=DEVICE)]),
                               torch.cat([splats.sh, torch.ones(extra, 4, 3, device=DEVICE)]))
        # The bounds the camera fits are of the finite centres: the same but for the first
        # extra one (at the origin, inside them), so the frames must be equal.
        image = tandem.render(bad, resolution=SIZE, device=DEVICE)["image"].cpu()
        torch.testing.assert_close(image, base, rtol=0, atol=0)

    def test_shapes_and_degrees(self):
        n = 10
        means, scales, rotations = torch.zeros(n, 3), torch.full((n, 3), 0.1), torch.zeros(n, 4)
        rotations[:, 0] = 1
        opacities = torch.full((n, 1), 0.5)
        self.assertEqual(tandem.Gaussians(means, scales, rotations, opacities, torch.zeros(n, 3)).degree, 0)
        self.assertEqual(tandem.Gaussians(means, scales, rotations, opacities, torch.zeros(n, 9, 3)).degree, 2)
        cases = [
            ((means[:, :2], scales, rotations, opacities, torch.zeros(n, 1, 3)), "^means: expected"),
            ((means, scales[:5], rotations, opacities, torch.zeros(n, 1, 3)), "^scales: expected"),
            ((means, scales, rotations[:, :3], opacities, torch.zeros(n, 1, 3)), "^rotations: expected"),
            ((means, scales, rotations, torch.zeros(n, 2), torch.zeros(n, 1, 3)), "^opacities: expected"),
            ((means, scales, rotations, opacities, torch.zeros(n, 5, 3)), "^sh: expected"),
            ((means, scales, rotations, opacities.int(), torch.zeros(n, 1, 3)), "^opacities: expected floats"),
            ((means, scales, rotations, opacities, "red"), "^sh: expected"),
        ]
        for args, message in cases:
            with self.assertRaisesRegex(ValueError, message):
                tandem.Gaussians(*args)
        with self.assertRaisesRegex(ValueError, "^scene: expected a tandem.Mesh or tandem.Gaussians"):
            tandem.render([means], resolution=SIZE)


if __name__ == "__main__":
    unittest.main()
