"""tandem.render: the engine's own frame (geometry pass, post-processing, present) on meshes and
point clouds given as tensors, every G-buffer channel back as tensors."""
import torch
import torch.utils.dlpack

from . import _tandem
from ._raster import renderer
from ._splats import Gaussians, _bounds, _region

# Each channel as read back: (dtype, channels per pixel), for the names the engine has
# (frame::StillChannels, in its order; a name without a layout here fails at import).
_LAYOUT = {
    "image": (torch.uint8, 4), "color": (torch.uint8, 4), "output": (torch.uint8, 4),
    "depth": (torch.float32, 1), "normal": (torch.float32, 4), "id": (torch.int32, 1),
}
_CHANNELS = {name: _LAYOUT[name] for name in _tandem.still_channels}


class Mesh:
    """A mesh or a point cloud for render(): positions [N, 3] (any float dtype), optional
    indices [T, 3] (integers; none: a point cloud), colors [N, 3 or 4] (sRGB-encoded, as image
    and mesh files hold them: uint8, or floats in 0..1 that are rounded to 8 bits; not linear
    light), normals [N, 3]. Tensors may live on any device; render() copies them to host memory
    to upload them (a read-back for CUDA tensors: tandem.Viewer uploads device to device)."""

    def __init__(self, positions, indices=None, colors=None, normals=None):
        def tensor(value, name):
            if value is None:
                return None
            if not isinstance(value, torch.Tensor):
                try:
                    value = torch.as_tensor(value)
                except (TypeError, ValueError, RuntimeError):
                    raise ValueError(f"{name}: expected a tensor") from None
            return value
        self.positions = tensor(positions, "positions")
        self.indices = tensor(indices, "indices")
        self.colors = tensor(colors, "colors")
        self.normals = tensor(normals, "normals")
        n = self.positions.shape[0] if self.positions.dim() == 2 else -1
        if self.positions.dim() != 2 or self.positions.shape[1] != 3 or not self.positions.is_floating_point():
            raise ValueError(f"positions: expected floats [N, 3], got {self.positions.dtype} "
                             f"{list(self.positions.shape)}")
        if self.indices is not None:
            if self.indices.dim() != 2 or self.indices.shape[1] != 3 or self.indices.is_floating_point():
                raise ValueError(f"indices: expected integers [T, 3], got {self.indices.dtype} "
                                 f"{list(self.indices.shape)}")
            if self.indices.numel() and (int(self.indices.min()) < 0 or int(self.indices.max()) >= n):
                raise ValueError(f"indices: out of range for {n} positions")
        if self.colors is not None and (self.colors.dim() != 2 or self.colors.shape != (n, self.colors.shape[1])
                                        or self.colors.shape[1] not in (3, 4)):
            raise ValueError(f"colors: expected [N, 3] or [N, 4] with N = {n}, got {list(self.colors.shape)}")
        if self.normals is not None and tuple(self.normals.shape) != (n, 3):
            raise ValueError(f"normals: expected [N, 3] with N = {n}, got {list(self.normals.shape)}")

    def _native(self):
        """Host arrays in the engine's layouts, as DLPack capsules, and the tensors they borrow."""
        keep = {"positions": self.positions.detach().to("cpu", torch.float32).contiguous()}
        if self.indices is not None:
            keep["indices"] = self.indices.detach().to("cpu", torch.int32).contiguous()
        if self.colors is not None:
            colors = self.colors.detach().cpu()
            if colors.is_floating_point():
                colors = (colors.clamp(0, 1) * 255).round().to(torch.uint8)
            if colors.shape[1] == 3:
                colors = torch.cat([colors, torch.full_like(colors[:, :1], 255)], 1)
            keep["colors"] = colors.to(torch.uint8).contiguous()
        if self.normals is not None:
            keep["normals"] = self.normals.detach().to("cpu", torch.float32).contiguous()
        return {k: torch.utils.dlpack.to_dlpack(v) for k, v in keep.items()}, keep


def load_mesh(path):
    """Reads a PLY or OBJ file with the engine's readers (as tandem-raster does) into a Mesh of
    CPU tensors. Raises ValueError naming the file and the problem."""
    raw = _tandem.load_mesh(str(path))

    def array(key, dtype, width):
        data = raw[key]
        if not data:
            return None
        return torch.frombuffer(bytearray(data), dtype=dtype).reshape(-1, width)
    indices = array("indices", torch.int32, 3)
    return Mesh(array("positions", torch.float32, 3), indices=indices,
                colors=array("colors", torch.uint8, 4), normals=array("normals", torch.float32, 3))


class Camera:
    """A camera placed by hand: eye, target, up (world), vertical field of view in degrees and
    the near and far planes."""

    def __init__(self, eye, target, up=(0.0, 1.0, 0.0), fov_y=45.0, near=0.1, far=100.0):
        self._native = {"kind": "look", "eye": [float(v) for v in eye],
                        "target": [float(v) for v in target], "up": [float(v) for v in up],
                        "fov_y": float(fov_y), "near": float(near), "far": float(far)}


class Orbit:
    """The orbit camera of tandem-raster, fitted to the scene's bounds and turned: yaw and pitch
    in degrees, distance a multiple of the fitted distance (the keys of --camera-path)."""

    def __init__(self, yaw=30.0, pitch=20.0, distance=1.0):
        self._native = {"kind": "orbit", "yaw": float(yaw), "pitch": float(pitch),
                        "distance": float(distance)}


def camera_matrices(camera, resolution, scene=None):
    """The matrices render() draws with: (view, projection, view_projection), float32 [4, 4]
    each, row-major (clip = view_projection @ [x, y, z, 1]). `scene` (a Mesh or a list) is needed
    for the fitted and Orbit cameras, which depend on its bounds. With them, positions can be
    taken to clip space for rasterize() exactly as render() does."""
    height, width = (int(r) for r in resolution)
    if camera is None or isinstance(camera, Orbit):
        if scene is None:
            raise ValueError("scene: the fitted and Orbit cameras need the scene's bounds")
        meshes = scene if isinstance(scene, (list, tuple)) else [scene]
        points = torch.cat([(m.positions if isinstance(m, Mesh) else m.means).detach().cpu().float()
                            for m in meshes])
        low, high = points.min(0).values.tolist(), points.max(0).values.tolist()
        native = {"kind": "fit"} if camera is None else camera._native
    elif isinstance(camera, Camera):
        low, high, native = [0.0] * 3, [0.0] * 3, camera._native
    else:
        raise ValueError("camera: expected None, a tandem.Camera or a tandem.Orbit")
    matrices = _tandem.camera_matrices(native, low, high, height, width)
    return tuple(torch.tensor(m, dtype=torch.float32).reshape(4, 4) for m in matrices)


def _cuda(device):
    """`device` with its index (the current one when it has none)."""
    if device.type == "cuda" and device.index is None:
        return torch.device("cuda", torch.cuda.current_device())
    return device


def _trampoline(hook):
    """The native hook's callee: DLPack capsules to tensors, the frame's stream made current."""
    def call(images, stream):
        tensors = {name: torch.utils.dlpack.from_dlpack(capsule) for name, capsule in images}
        device = tensors["output"].device
        if device.type == "cuda":
            with torch.cuda.device(device), \
                    torch.cuda.stream(torch.cuda.ExternalStream(stream, device=device)):
                hook(tensors)
        else:
            hook(tensors)
    return call


def render(scene, camera=None, resolution=(720, 1280), postfx=None, channels=("image",),
           point_size=2.0, device=None, hook=None, raster="auto"):
    """Renders meshes and point clouds with the engine's own frame, as tandem-raster does.

    scene: a Mesh or Gaussians, or a list of them, drawn together (Gaussians by the splat pass,
        composited with the meshes and points by depth).
    camera: None (fitted to the scene, tandem-raster's default view), an Orbit or a Camera.
    resolution: (height, width).
    postfx: the post-process chain as on the command line ("tonemap,fxaa", stages with
        :key=value parameters), or None.
    channels: what to return, any of "image" (the presented image: the post-process output when
        postfx is given, else the colour; what tandem-raster writes), "color" (the G-buffer
        colour), "output" (the post-process output), "depth" (linear view depth, 0 for the
        background), "normal" (world normals and w = 1 where covered), "id" (primitive id + 1,
        0 for the background; points have bit 31 set).
    point_size: splat diameter in pixels for point clouds.
    device: where the returned tensors go (default: the first mesh's device); the frame renders
        on that device's GL context.
    hook: a post-process stage in PyTorch, or None. Called once inside the frame, after the
        chain, with the G-buffer as a dict of tensors [H, W, C], rows bottom first as GL
        stores them: "color" (uint8 x4), "depth" (float32 x1), "normal" (float16 x4), "id"
        (int32 x1) and "output" (uint8 x4, the chain's result), which it may overwrite in
        place; what "output" holds afterwards is presented ("image"). "color" is linear colour
        stored sRGB-encoded (decode it, ((c / 255 + 0.055) / 1.055) ** 2.4 above 0.04045, to
        compute with light); "output" is sRGB and is presented as it is. On a CUDA device with
        GL-CUDA interop they are CUDA tensors copied out of the frame's mapped textures inside
        its one handoff, and the hook runs with the frame's stream as the current stream;
        elsewhere they are CPU tensors read back. Valid only during the call (clone to keep).
        The hook is its own stage, "hook", in tandem.trace().
    raster: who draws the meshes, as tandem-raster's --raster: "gl" (GL's hardware
        rasterizer), "cuda" (the engine's CUDA triangle rasterizer inside the frame; needs
        GL-CUDA interop), "host" (its functions on the CPU: exact, slow) or "auto" (the
        default: GL and CUDA timed on the first call with triangles on this device, the faster
        kept for later calls; GL where the passes do not run on CUDA).

    Returns a dict of tensors, rows top first (as images are stored, unlike rasterize()):
    uint8 [H, W, 4] for image/color/output, float32 [H, W] depth, float32 [H, W, 4] normal,
    int64 [H, W] id. image, color and output are sRGB-encoded, as a PNG is: without postfx an
    unlit point's pixels are its colour's bytes; "color" is the G-buffer's linear colour
    (before the chain, shaded) in that encoding. Depth, normal and id are data. Blocks until
    the frame is read back.
    """
    items = list(scene) if isinstance(scene, (list, tuple)) else [scene]
    if not items or not all(isinstance(m, (Mesh, Gaussians)) for m in items):
        raise ValueError("scene: expected a tandem.Mesh or tandem.Gaussians, or a list of them")
    meshes = [m for m in items if isinstance(m, Mesh)]
    gaussians = [g for g in items if isinstance(g, Gaussians)]
    if camera is None:
        camera_native = {"kind": "fit"}
    elif isinstance(camera, (Camera, Orbit)):
        camera_native = camera._native
    else:
        raise ValueError("camera: expected None, a tandem.Camera or a tandem.Orbit")
    try:
        height, width = (int(r) for r in resolution)
    except (TypeError, ValueError):
        raise ValueError(f"resolution: expected (height, width), got {resolution!r}") from None
    if not (0 < height <= 16384 and 0 < width <= 16384):
        raise ValueError(f"resolution: {height}x{width} outside 1..16384")
    if isinstance(channels, str):
        channels = (channels,)
    unknown = [c for c in channels if c not in _CHANNELS]
    if unknown:
        raise ValueError(f"channels: unknown {unknown}; known: {sorted(_CHANNELS)}")
    first = items[0].positions if isinstance(items[0], Mesh) else items[0].means
    device = torch.device(device) if device is not None else first.device
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"device: {device}: expected cpu or cuda")
    native_meshes, keep = zip(*(m._native() for m in meshes)) if meshes else ((), ())
    # Gaussians are laid out where they are when the renderer reads that device's memory (CUDA
    # through interop: device to device), else in host memory.
    target = renderer(device)
    splats, low, high, stream = None, [], [], 0
    if gaussians:
        where = gaussians[0].device
        if where.type != "cuda" or not target.is_cuda or where != _cuda(device):
            where = torch.device("cpu")
        laid = _region(gaussians, where)
        bounds = _bounds(gaussians, where)
        if laid is not None and bounds is not None:
            region, count, degree = laid
            splats = {"region": torch.utils.dlpack.to_dlpack(region), "count": count,
                      "degree": degree}
            low, high = bounds
            if where.type == "cuda":
                stream = torch.cuda.current_stream(where).cuda_stream
            keep = keep + (region,)
    outputs = {}
    for name in channels:
        dtype, per_pixel = _CHANNELS[name]
        shape = (height, width, per_pixel) if per_pixel > 1 else (height, width)
        outputs[name] = torch.empty(shape, dtype=dtype)
    if hook is not None and not callable(hook):
        raise ValueError("hook: expected a callable taking a dict of tensors")
    target.render(list(native_meshes), camera_native, height, width, postfx or "none",
                  float(point_size),
                  {k: torch.utils.dlpack.to_dlpack(v) for k, v in outputs.items()},
                  None if hook is None else _trampoline(hook), str(raster), splats, low, high,
                  stream)
    del keep
    if "id" in outputs:
        outputs["id"] = outputs["id"].to(torch.int64) & 0xFFFFFFFF
    return {k: v.to(device) for k, v in outputs.items()}
