"""tandem.Gaussians: 3D Gaussian splats given as tensors (a 3DGS model as a training loop holds
it), drawn by the engine's splat pass in tandem.render and tandem.Viewer."""
import torch

from . import _tandem

_DEGREES = {1: 0, 4: 1, 9: 2, 16: 3}  # SH coefficients a channel -> degree


class Gaussians:
    """3D Gaussians with their activations applied, as the 3DGS reference rasterizer (and gsplat)
    take them:

        means      [N, 3]  centres, world units
        scales     [N, 3]  standard deviations along the rotated axes (exp of trained log-scales)
        rotations  [N, 4]  quaternions w, x, y, z (normalized here; a zero one draws nothing)
        opacities  [N] or [N, 1]  0..1 (the sigmoid of trained logits)
        sh         [N, K, 3] real spherical-harmonic coefficients, K = 1, 4, 9 or 16 (SH degree
                   0 to 3), the DC term first; or [N, 3], the DC term only. A Gaussian's colour
                   in direction d is 0.5 + Σ SH · basis(d), clamped at 0, in the space the model
                   was trained in (sRGB-encoded values, as images are stored)

    From a 3DGS GaussianModel `m`: Gaussians(m.get_xyz, m.get_scaling, m.get_rotation,
    m.get_opacity, m.get_features). The tensors are not copied here: render() and
    Viewer.update() lay them out for the splat pass with tensor operations on their device (on
    CUDA, device to device, on the current stream, without a read-back). A Gaussian with a
    value that is not finite is not drawn.
    """

    def __init__(self, means, scales, rotations, opacities, sh):
        def tensor(value, name):
            if not isinstance(value, torch.Tensor):
                try:
                    value = torch.as_tensor(value)
                except (TypeError, ValueError, RuntimeError):
                    raise ValueError(f"{name}: expected a tensor") from None
            if not value.is_floating_point():
                raise ValueError(f"{name}: expected floats, got {value.dtype}")
            return value
        self.means = tensor(means, "means")
        self.scales = tensor(scales, "scales")
        self.rotations = tensor(rotations, "rotations")
        self.opacities = tensor(opacities, "opacities")
        self.sh = tensor(sh, "sh")
        if self.means.dim() != 2 or self.means.shape[1] != 3:
            raise ValueError(f"means: expected [N, 3], got {list(self.means.shape)}")
        n = self.means.shape[0]
        for name, value, shape in (("scales", self.scales, (n, 3)),
                                   ("rotations", self.rotations, (n, 4))):
            if tuple(value.shape) != shape:
                raise ValueError(f"{name}: expected {list(shape)}, got {list(value.shape)}")
        if tuple(self.opacities.shape) not in ((n,), (n, 1)):
            raise ValueError(f"opacities: expected [{n}] or [{n}, 1], got "
                             f"{list(self.opacities.shape)}")
        if self.sh.dim() == 2 and tuple(self.sh.shape) == (n, 3):
            self.sh = self.sh.unsqueeze(1)
        if self.sh.dim() != 3 or self.sh.shape[0] != n or self.sh.shape[2] != 3 \
                or self.sh.shape[1] not in _DEGREES:
            raise ValueError(f"sh: expected [{n}, K, 3] with K = 1, 4, 9 or 16 (or [{n}, 3]), got "
                             f"{list(self.sh.shape)}")
        devices = {t.device for t in (self.means, self.scales, self.rotations, self.opacities,
                                      self.sh)}
        if len(devices) != 1:
            raise ValueError(f"Gaussians: tensors on several devices ({sorted(map(str, devices))})")
        self.degree = _DEGREES[self.sh.shape[1]]

    @property
    def device(self):
        return self.means.device

    def __len__(self):
        return self.means.shape[0]


def _region(gaussians, device):
    """`gaussians` (a list) merged, SH padded with zeros to the highest degree, and laid out on
    `device` as the splat pass reads them (its F32 region: _tandem.splat_region's offsets):
    (float32 tensor, count, degree), or None when there are none. Tensor operations only: no
    read-back."""
    if not gaussians:
        return None
    degree = max(g.degree for g in gaussians)
    k = (degree + 1) ** 2
    parts = {"means": [], "scales": [], "rotations": [], "opacities": [], "sh": []}
    for g in gaussians:
        sh = g.sh.detach().to(device, torch.float32)
        if sh.shape[1] < k:
            sh = torch.cat([sh, sh.new_zeros(sh.shape[0], k - sh.shape[1], 3)], 1)
        parts["means"].append(g.means.detach().to(device, torch.float32))
        parts["scales"].append(g.scales.detach().to(device, torch.float32))
        parts["rotations"].append(g.rotations.detach().to(device, torch.float32))
        parts["opacities"].append(g.opacities.detach().to(device, torch.float32).reshape(-1))
        parts["sh"].append(sh)
    means, scales, rotations, opacities, sh = (torch.cat(parts[key]) for key in
                                               ("means", "scales", "rotations", "opacities", "sh"))
    n = means.shape[0]
    if n == 0:
        return None
    # A Gaussian with anything not finite, or a zero rotation, gets opacity 0 (the pass culls
    # it) and zeros for the rest, so no NaN reaches the projection.
    length = rotations.norm(dim=1, keepdim=True)
    usable = (torch.isfinite(means).all(1) & torch.isfinite(scales).all(1)
              & torch.isfinite(rotations).all(1) & torch.isfinite(opacities)
              & torch.isfinite(sh).all(2).all(1) & (length[:, 0] > 0))
    keep = usable.unsqueeze(1)
    rotations = torch.where(keep, rotations / length.clamp_min(1e-30),
                            rotations.new_tensor([1.0, 0.0, 0.0, 0.0]))
    means = torch.where(keep, means, 0.0)
    scales = torch.where(keep, scales.abs(), 1.0)
    opacities = torch.where(usable, opacities.clamp(0.0, 1.0), 0.0)
    sh = torch.where(keep.unsqueeze(2), sh, 0.0)
    layout = _tandem.splat_region(n, degree)
    region = torch.zeros(layout["floats"], dtype=torch.float32, device=device)
    for key, values in (("positions", means), ("scales", scales), ("rotations", rotations),
                        ("opacities", opacities), ("sh", sh)):
        flat = values.reshape(-1)
        region[layout[key]:layout[key] + flat.numel()] = flat
    return region, n, degree


def _bounds(gaussians, device):
    """The bounds of the finite centres (a read-back on CUDA): ([x, y, z], [x, y, z]), or None."""
    means = torch.cat([g.means.detach().to(device, torch.float32) for g in gaussians])
    means = means[torch.isfinite(means).all(1)]
    if means.shape[0] == 0:
        return None
    return means.min(0).values.tolist(), means.max(0).values.tolist()
