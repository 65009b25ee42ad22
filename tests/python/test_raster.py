"""tandem.rasterize and tandem.interpolate against a float64 reference rasterizer, on the device
named by $TANDEM_TEST_DEVICE (cpu by default; the gpu tier runs it with cuda): triangle ids,
barycentrics and z/w, batches, interpolation, bad arguments, non-contiguous tensors. On cuda
with both rasterizers (CUDA kernels, the default there, and GL), and also the stream ordering (a
producer on a side stream, then rasterize on that stream), the handoffs, and the two
rasterizers against each other."""
import os
import unittest

import numpy as np
import torch

import tandem

DEVICE = torch.device(os.environ.get("TANDEM_TEST_DEVICE", "cpu"))


def wavy_grid(n, z=-2.0):
    """A wavy grid of n×n quads in front of a camera at the origin, world positions [V, 3] and
    int32 triangles [T, 3]."""
    s = torch.linspace(-0.9, 0.9, n + 1, dtype=torch.float64)
    y, x = torch.meshgrid(s, s, indexing="ij")
    positions = torch.stack([x, y, z + 0.4 * torch.sin(6 * x) * torch.cos(5 * y)], -1).reshape(-1, 3)
    i = torch.arange(n)
    a = (i[:, None] * (n + 1) + i[None, :]).reshape(-1)
    b, c = a + 1, a + n + 1
    d = c + 1
    tri = torch.cat([torch.stack([a, b, d], -1), torch.stack([a, d, c], -1)]).to(torch.int32)
    return positions, tri


def perspective(positions, fov_y=70.0, aspect=4 / 3, near=0.5, far=10.0, turn=0.0):
    """Clip-space positions [V, 4] float32 of world positions seen from the origin."""
    f = 1.0 / np.tan(np.radians(fov_y) / 2)
    x = positions[:, 0] * np.cos(turn) - positions[:, 2] * np.sin(turn)
    z = positions[:, 0] * np.sin(turn) + positions[:, 2] * np.cos(turn)
    clip = torch.stack([f / aspect * x, f * positions[:, 1],
                        (far + near) / (near - far) * z + 2 * far * near / (near - far), -z], -1)
    return clip.to(torch.float32)


def reference(clip, tri, height, width):
    """Float64 rasterization: per pixel centre the nearest triangle containing it, its
    perspective-correct barycentrics, z/w, and a margin (how far inside its edges the centre is,
    and how far ahead of the next triangle) to leave ambiguous pixels out of exact checks."""
    c = clip.double().cpu().numpy()
    t = tri.long().cpu().numpy()
    ys, xs = np.mgrid[0:height, 0:width]
    q = np.stack([(xs + 0.5) / width * 2 - 1, (ys + 0.5) / height * 2 - 1, np.ones_like(xs, float)], -1)
    best = np.full((height, width), np.inf)
    second = np.full((height, width), np.inf)
    ids = np.zeros((height, width), np.int64)
    bary = np.zeros((height, width, 2))
    edge = np.zeros((height, width))
    for k, (i0, i1, i2) in enumerate(t):
        p = c[[i0, i1, i2]]
        xyw = p[:, [0, 1, 3]]
        cs = np.stack([q @ np.cross(xyw[1], xyw[2]), q @ np.cross(xyw[2], xyw[0]),
                       q @ np.cross(xyw[0], xyw[1])], -1)
        b = cs / cs.sum(-1, keepdims=True)
        inside = (b > -1e-12).all(-1) & (p[:, 3] > 0).all()
        depth = (b * p[:, 2]).sum(-1) / (b * p[:, 3]).sum(-1)
        closer = inside & (depth < best)
        second = np.where(closer, best, np.where(inside, np.minimum(second, depth), second))
        best = np.where(closer, depth, best)
        ids = np.where(closer, k + 1, ids)
        bary = np.where(closer[..., None], b[..., :2], bary)
        edge = np.where(closer, b.min(-1), edge)
    with np.errstate(invalid="ignore"):  # inf - inf where nothing or one triangle covers
        margin = np.minimum(edge, np.where(np.isinf(second), np.inf, second - best))
    return ids, bary, np.where(ids > 0, best, 0.0), margin


class Rasterize(unittest.TestCase):
    RASTERIZER = None  # the default for the device

    def rasterize(self, pos, tri, resolution):
        return tandem.rasterize(pos.to(DEVICE), tri.to(DEVICE), resolution,
                                rasterizer=self.RASTERIZER)

    def test_matches_a_float64_reference(self):
        positions, tri = wavy_grid(10)
        clip = perspective(positions)
        height, width = 48, 64
        rast = self.rasterize(clip, tri, (height, width))
        self.assertEqual(rast.shape, (1, height, width, 4))
        self.assertEqual(rast.device.type, DEVICE.type)
        rast = rast[0].cpu().double().numpy()
        ids, bary, zw, margin = reference(clip, tri, height, width)
        clear = (ids == 0) | (margin > 1e-4)  # centres not on an edge or a depth tie
        self.assertGreater(clear.sum(), 0.9 * ids.size)
        np.testing.assert_array_equal(rast[..., 3][clear], ids[clear])
        covered = clear & (ids > 0)
        self.assertGreater(covered.sum(), 600)
        np.testing.assert_allclose(rast[..., :2][covered], bary[covered], atol=1e-5, rtol=0)
        np.testing.assert_allclose(rast[..., 2][covered], zw[covered], atol=1e-5, rtol=0)
        self.assertTrue((rast[ids == 0] == 0).all())

    def test_batches_equal_single_calls(self):
        positions, tri = wavy_grid(6)
        a, b = perspective(positions), perspective(positions, turn=0.2)
        single = [self.rasterize(p, tri, (30, 40)) for p in (a, b)]
        batch = self.rasterize(torch.stack([a, b]), tri, (30, 40))
        self.assertEqual(batch.shape, (2, 30, 40, 4))
        torch.testing.assert_close(batch, torch.cat(single), rtol=0, atol=0)
        self.assertFalse(torch.equal(single[0], single[1]))

    def test_interpolate_reproduces_vertex_colours(self):
        positions, tri = wavy_grid(6)
        # Unshared vertices, each triangle one colour: every covered pixel gets its colour.
        flat = positions[tri.long().reshape(-1)]
        flat_tri = torch.arange(flat.shape[0], dtype=torch.int32).reshape(-1, 3)
        colours = torch.rand(tri.shape[0], 3, generator=torch.Generator().manual_seed(1))
        vertex_colours = colours.repeat_interleave(3, 0).to(DEVICE)
        rast = self.rasterize(perspective(flat), flat_tri, (40, 50))
        image = tandem.interpolate(vertex_colours, rast, flat_tri.to(DEVICE))
        self.assertEqual(image.shape, (1, 40, 50, 3))
        ids = rast[..., 3].long()
        covered = ids > 0
        torch.testing.assert_close(image[covered], vertex_colours[3 * (ids[covered] - 1)],
                                   rtol=0, atol=1e-5)
        self.assertTrue((image[~covered] == 0).all())
        # Shared vertices: the barycentric blend of the three.
        attr = torch.rand(positions.shape[0], 2, generator=torch.Generator().manual_seed(2))
        rast = self.rasterize(perspective(positions), tri, (40, 50))
        image = tandem.interpolate(attr.to(DEVICE), rast, tri.to(DEVICE))[0].cpu()
        r = rast[0].cpu()
        i = r[..., 3].long()
        corners = tri.long()[(i - 1).clamp(min=0)]
        u, v = r[..., 0:1], r[..., 1:2]
        expected = u * attr[corners[..., 0]] + v * attr[corners[..., 1]] + (1 - u - v) * attr[corners[..., 2]]
        torch.testing.assert_close(image[i > 0], expected[i > 0], rtol=0, atol=1e-6)
        # Batched attributes take their batch item's values.
        batch_rast = self.rasterize(torch.stack([perspective(positions)] * 2), tri, (40, 50))
        batch_attr = torch.stack([attr, 2 * attr]).to(DEVICE)
        batch_image = tandem.interpolate(batch_attr, batch_rast, tri.to(DEVICE)).cpu()
        torch.testing.assert_close(batch_image[1], 2 * batch_image[0], rtol=0, atol=1e-6)

    def test_non_contiguous_tensors_are_accepted(self):
        positions, tri = wavy_grid(5)
        clip = perspective(positions)
        strided = clip.t().contiguous().t()  # the same values, column-major
        self.assertFalse(strided.is_contiguous())
        reversed_tri = tri.flip(1).flip(1)
        torch.testing.assert_close(self.rasterize(strided, tri, (20, 24)),
                                   self.rasterize(clip, tri, (20, 24)), rtol=0, atol=0)
        wide_tri = torch.cat([tri, tri], 1)[:, :3]
        self.assertFalse(wide_tri.is_contiguous())
        torch.testing.assert_close(self.rasterize(clip, wide_tri, (20, 24)),
                                   self.rasterize(clip, reversed_tri, (20, 24)), rtol=0, atol=0)

    def test_bad_arguments_raise_value_error_naming_them(self):
        positions, tri = wavy_grid(2)
        pos = perspective(positions).to(DEVICE)
        tri = tri.to(DEVICE)
        rast = self.rasterize(pos, tri, (8, 8))
        self.assertGreater(int(rast[..., 3].max()), 1, "no pixel names a second triangle")
        bumped = rast.clone()  # not rasterize()'s: its ids are looked at
        bumped[0, 0, 0, 3] = tri.shape[0] + 5
        cases = [
            ("pos", lambda: tandem.rasterize(pos.double(), tri, (8, 8))),
            ("pos", lambda: tandem.rasterize(pos[:, :3], tri, (8, 8))),
            ("pos", lambda: tandem.rasterize(pos.reshape(1, 1, -1, 4), tri, (8, 8))),
            ("pos", lambda: tandem.rasterize(pos.tolist(), tri, (8, 8))),
            ("tri", lambda: tandem.rasterize(pos, tri.long(), (8, 8))),
            ("tri", lambda: tandem.rasterize(pos, tri[:, :2], (8, 8))),
            ("tri", lambda: tandem.rasterize(pos, tri - 1, (8, 8))),
            ("tri", lambda: tandem.rasterize(pos, tri + pos.shape[0], (8, 8))),
            ("tri", lambda: tandem.rasterize(pos, tri.to("meta"), (8, 8))),
            ("pos", lambda: tandem.rasterize(pos.to("meta"), tri.to("meta"), (8, 8))),
            ("resolution", lambda: tandem.rasterize(pos, tri, (0, 8))),
            ("resolution", lambda: tandem.rasterize(pos, tri, 8)),
            ("rasterizer", lambda: tandem.rasterize(pos, tri, (8, 8), rasterizer="vulkan")),
            ("attr", lambda: tandem.interpolate(torch.zeros(4, 2, dtype=torch.int32, device=DEVICE),
                                                torch.zeros(1, 2, 2, 4, device=DEVICE), tri)),
            ("rast", lambda: tandem.interpolate(torch.zeros(4, 2, device=DEVICE),
                                                torch.zeros(2, 2, 4, device=DEVICE), tri)),
            ("tri", lambda: tandem.interpolate(torch.zeros(4, 2, device=DEVICE),
                                               torch.zeros(1, 2, 2, 4, device=DEVICE), tri.long())),
            # What names a vertex or a triangle that is not there (IndexError before).
            ("tri", lambda: tandem.interpolate(torch.zeros(pos.shape[0] - 1, 2, device=DEVICE),
                                               rast, tri)),
            ("rast", lambda: tandem.interpolate(torch.zeros(pos.shape[0], 2, device=DEVICE),
                                                rast, tri[:1])),
            ("rast", lambda: tandem.interpolate(torch.zeros(pos.shape[0], 2, device=DEVICE),
                                                bumped, tri)),
        ]
        if DEVICE.type == "cpu":
            cases.append(("rasterizer", lambda: tandem.rasterize(pos, tri, (8, 8), rasterizer="cuda")))
        for name, call in cases:
            with self.assertRaises(ValueError, msg=name) as caught:
                call()
            self.assertTrue(str(caught.exception).startswith(name + ":"), str(caught.exception))

    def test_empty_tensors_are_called_empty_or_draw_nothing(self):
        # PyTorch calls any empty tensor contiguous and keeps whatever strides it had: an empty
        # slice of a strided tensor reached the engine as "not contiguous".
        positions, tri = wavy_grid(2)
        pos = perspective(positions).to(DEVICE)
        tri = tri.to(DEVICE)
        strided_pos = pos.t().contiguous().t()
        strided_tri = torch.cat([tri, tri], 1)[:, :3]
        for name, empty_pos, empty_tri in (("pos", strided_pos[:0], tri[:0]),
                                           ("tri", pos, strided_tri[:0])):
            with self.subTest(empty=name):
                out = self.rasterize(empty_pos, empty_tri, (6, 8))
                self.assertEqual(tuple(out.shape), (1, 6, 8, 4))
                self.assertEqual(int(out.count_nonzero()), 0, "nothing to draw, nothing covered")
        with self.assertRaisesRegex(ValueError, r"^tri: index \d+ out of range: pos has 0 "):
            self.rasterize(strided_pos[:0], tri, (6, 8))

    def test_a_new_tensor_where_a_checked_one_was_is_checked(self):
        # A tensor freed and a new one allocated at its address, with the same shape and a fresh
        # version counter: the H200's torch reused addresses so and the check was skipped.
        positions, tri = wavy_grid(2)
        pos = perspective(positions).to(DEVICE)
        reused = 0
        for _ in range(20):
            good = tri.to(DEVICE) + 0
            tandem.rasterize(pos, good, (8, 8))
            address = good.data_ptr()
            del good
            bad = tri.to(DEVICE) + pos.shape[0]
            reused += bad.data_ptr() == address
            with self.assertRaisesRegex(ValueError, "^tri: index"):
                tandem.rasterize(pos, bad, (8, 8))
            del bad
        print(f"{reused} of 20 new tensors at a checked one's address")

    def test_an_index_changed_in_place_is_checked_again(self):
        positions, tri = wavy_grid(2)
        pos = perspective(positions).to(DEVICE)
        tri = tri.to(DEVICE)
        tandem.rasterize(pos, tri, (8, 8))
        tri[0, 0] = 100
        with self.assertRaisesRegex(ValueError, "^tri: index 100 out of range"):
            tandem.rasterize(pos, tri, (8, 8))


class RasterizeWithGl(Rasterize):
    """On cuda, the same tests through GL (the default there is the CUDA rasterizer)."""
    RASTERIZER = "gl"


class CudaStreams(unittest.TestCase):
    """The gpu tier's: the caller's stream, the handoff count and the two rasterizers against
    each other (removed on the CPU below, so nothing there is skipped)."""

    def test_the_call_is_ordered_on_the_callers_stream(self):
        positions, tri = wavy_grid(64)
        clip = perspective(positions)
        tri = tri.cuda()
        for rasterizer in ("cuda", "gl"):
            expected = tandem.rasterize(clip.cuda(), tri, (256, 320), rasterizer=rasterizer)
            side = torch.cuda.Stream()
            pos = torch.zeros_like(clip, device="cuda")
            torch.cuda.synchronize()
            with torch.cuda.stream(side):
                # A slow producer on the side stream: the positions are written after ~50 ms of
                # GPU time; rasterize on the same stream must see them, not the zeros.
                torch.cuda._sleep(100_000_000)
                pos.copy_(clip.cuda(), non_blocking=True)
                rast = tandem.rasterize(pos, tri, (256, 320), rasterizer=rasterizer)
            side.synchronize()
            torch.testing.assert_close(rast, expected, rtol=0, atol=0, msg=rasterizer)

    def test_one_round_trip_per_gl_call_and_none_for_cuda(self):
        positions, tri = wavy_grid(16)
        pos, tri = perspective(positions).cuda(), tri.cuda()
        tandem.rasterize(pos, tri, (64, 64), rasterizer="gl")
        before = tandem.renderer(pos.device).handoffs
        for _ in range(5):
            tandem.rasterize(pos, tri, (64, 64), rasterizer="gl")
        self.assertEqual(tandem.renderer(pos.device).handoffs - before, 5)
        self.assertTrue(tandem.renderer(pos.device).is_cuda, tandem.renderer(pos.device).reason)
        before = tandem.renderer(pos.device).handoffs
        for _ in range(5):
            tandem.rasterize(pos, tri, (64, 64))
        self.assertEqual(tandem.renderer(pos.device).handoffs, before)

    def test_calls_on_two_streams_each_get_their_own_result(self):
        # The CUDA rasterizer's scratch memory is shared by its calls: a call on another stream
        # must wait for the one before, not clear the keys under its kernels.
        positions, tri = wavy_grid(256)
        tri = tri.cuda()
        a = torch.stack([perspective(positions, turn=0.05 * i) for i in range(4)]).cuda()
        b = perspective(positions, turn=-0.3).cuda()
        size = (1080, 1920)
        expected_a = tandem.rasterize(a, tri, size)
        expected_b = tandem.rasterize(b, tri, size)
        torch.cuda.synchronize()
        first, second = torch.cuda.Stream(), torch.cuda.Stream()
        for _ in range(3):
            with torch.cuda.stream(first):
                got_a = tandem.rasterize(a, tri, size)
            with torch.cuda.stream(second):
                got_b = tandem.rasterize(b, tri, size)
            torch.cuda.synchronize()
            torch.testing.assert_close(got_a, expected_a, rtol=0, atol=0)
            torch.testing.assert_close(got_b, expected_b, rtol=0, atol=0)

    def test_the_rasterizers_agree(self):
        # A pixel may name another triangle only where an edge passes within a subpixel of its
        # centre: few of them; where both name the same triangle the values are GL's.
        positions, tri = wavy_grid(300)
        pos, tri = torch.stack([perspective(positions), perspective(positions, turn=0.3)]).cuda(), tri.cuda()
        gl = tandem.rasterize(pos, tri, (480, 640), rasterizer="gl")
        cuda = tandem.rasterize(pos, tri, (480, 640), rasterizer="cuda")
        same = gl[..., 3] == cuda[..., 3]
        covered = int((gl[..., 3] > 0).sum())
        differing = int((~same).sum())
        print(f"{differing} of {covered} covered pixels name another triangle")
        self.assertGreater(covered, 2 * 480 * 640 // 4)
        self.assertLessEqual(differing * 2000, covered)
        torch.testing.assert_close(cuda[same], gl[same], rtol=0, atol=1e-6)


if DEVICE.type != "cuda":
    del CudaStreams
    del RasterizeWithGl  # the default on the CPU

if __name__ == "__main__":
    unittest.main()
