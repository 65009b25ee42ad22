"""tandem.Viewer: a window (or a headless target) showing meshes, point clouds and Gaussians a
Python loop changes, with the engine's overlay, orbit camera, post-processing and RenderDoc capture."""
import torch

from . import _tandem
from ._render import Mesh, _trampoline
from ._splats import Gaussians, _region

_POINTS, _COLORS, _NORMALS = 1, 2, 4  # render::ObjectFlag


def _pack(meshes, device):
    """The scene's GPU layout from the meshes, with tensor operations on `device`: vertices as
    render::Vertex records ([N, 9] float32: position, normal, RGBA8 bits, texture coordinates),
    indices, and the provoking-vertex table (triangles sorted by their last vertex, and where
    each vertex's run starts). Meshes first, then point clouds."""
    ordered = [m for m in meshes if m.indices is not None] + [m for m in meshes if m.indices is None]
    vertices, indices, objects = [], [], []
    first_vertex = 0
    triangles = sum(int(m.indices.shape[0]) for m in ordered if m.indices is not None)
    first_triangle, first_point = 0, triangles
    for mesh in ordered:
        n = mesh.positions.shape[0]
        positions = mesh.positions.detach().to(device, torch.float32)
        normals = (mesh.normals.detach().to(device, torch.float32) if mesh.normals is not None
                   else torch.zeros(n, 3, device=device))
        if mesh.colors is not None:
            colors = mesh.colors.detach().to(device)
            if colors.is_floating_point():
                colors = (colors.clamp(0, 1) * 255).round().to(torch.uint8)
            if colors.shape[1] == 3:
                colors = torch.cat([colors, torch.full_like(colors[:, :1], 255)], 1)
            colors = colors.to(torch.uint8).contiguous()
        else:
            colors = torch.full((n, 4), 255, dtype=torch.uint8, device=device)
        packed_color = colors.view(torch.int32).view(torch.float32)  # [N, 1]: the RGBA8 bits
        vertices.append(torch.cat([positions, normals, packed_color,
                                   torch.zeros(n, 2, device=device)], 1))
        flags = (_COLORS if mesh.colors is not None else 0) | (_NORMALS if mesh.normals is not None else 0)
        if mesh.indices is not None:
            indices.append(mesh.indices.detach().to(device, torch.int32) + first_vertex)
            objects.append((first_vertex, n, first_triangle, flags))
            first_triangle += int(mesh.indices.shape[0])
        else:
            objects.append((first_vertex, n, first_point, flags | _POINTS))
            first_point += n
        first_vertex += n
    vertices = torch.cat(vertices).contiguous()
    if indices:
        tri = torch.cat(indices)
        mesh_vertices = sum(o[1] for o in objects if not o[3] & _POINTS)
        last = tri[:, 2].long()
        order = torch.sort(last, stable=True).indices.to(torch.int32)
        runs = torch.bincount(last, minlength=mesh_vertices)
        offsets = torch.cat([torch.zeros(1, dtype=torch.int64, device=device),
                             torch.cumsum(runs, 0)]).to(torch.int32)
        return objects, vertices, tri.reshape(-1).contiguous(), offsets.contiguous(), order.contiguous()
    return objects, vertices, None, None, None


class Viewer:
    """A window, or a headless target, showing tensors a Python loop updates each step: meshes,
    point clouds (tandem.Mesh) and Gaussians (tandem.Gaussians: a training loop can watch its
    model every step).

        viewer = tandem.Viewer()                      # a window when there is a display
        for step in range(steps):
            ...                                       # the loop changes `points` (CUDA tensors)
            viewer.update(tandem.Mesh(points, colors=colors))
            if not viewer.step():                     # renders one frame; False once closed
                break
        viewer.show()                                 # or: blocks until the window is closed

    resolution: (height, width) of the window or target.
    headless: None (a window when $DISPLAY allows, else headless), True or False (a window or
        an error).
    postfx: the post-process chain, as on the command line.
    device: the CUDA device whose tensors it shows device to device (default: the current one
        when CUDA is available); "cpu" for the host path (a machine without GL-CUDA interop).
    overlay: the timing overlay: None (the default) shows it in a window (F1 toggles it) and
        leaves it out of headless images, as the command line does without --overlay; True
        draws it headless too (into image()); False starts it hidden in a window (F1 shows it)
        and leaves it out headless.
    hook: a post-process stage in PyTorch run in every frame, as tandem.render's hook (the
        G-buffer as tensors inside the frame; what it leaves in "output" is shown); its own
        stage, "hook", in the overlay's timings and a debug group in captures.
    capture_frame, capture_dir: capture that frame (0-based) with RenderDoc into the folder, as
        tandem-raster's --capture-frame; RenderDoc must be in the process (run the program with
        LD_PRELOAD=librenderdoc.so or under `renderdoccmd capture`); F12 captures in a window.
    raster: who draws the meshes, as tandem.render()'s `raster` ("auto", "gl", "cuda" or
        "host"); the overlay's passes panel says which and why.
    serve: watch and drive it from a browser, as the apps' --serve: a port (0: any free one) or
        "HOST:PORT" (127.0.0.1 unless a host is given); the URL to open, with its token, is
        printed and is `url`. Headless, frames take the driving browser's canvas size.
    The window has the viewer's controls: drag to orbit, wheel to zoom, R to reset the view, F1
    the overlay, F12 a RenderDoc capture (run the program under RenderDoc), Esc or Q to close.
    """

    def __init__(self, resolution=(720, 1280), headless=None, postfx=None, title="tandem",
                 point_size=2.0, device=None, overlay=None, quiet=True, hook=None,
                 capture_frame=None, capture_dir="captures", raster="auto", serve=None):
        height, width = (int(r) for r in resolution)
        if device is None:
            device = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() \
                else torch.device("cpu")
        self.device = torch.device(device)
        if self.device.type == "cuda" and self.device.index is None:
            self.device = torch.device("cuda", torch.cuda.current_device())
        mode = "auto" if headless is None else ("headless" if headless else "window")
        if hook is not None and not callable(hook):
            raise ValueError("hook: expected a callable taking a dict of tensors")
        self._native = _tandem.Viewer(height, width, mode, postfx or "none", title,
                                      float(point_size), None if overlay is None else bool(overlay),
                                      self.device.index if self.device.type == "cuda" else -1,
                                      bool(quiet), None if hook is None else _trampoline(hook),
                                      -1 if capture_frame is None else int(capture_frame),
                                      str(capture_dir), str(raster),
                                      "" if serve is None else str(serve))
        self._bounds = None

    def update(self, scene, fit=None):
        """Shows `scene` (a Mesh or Gaussians, or a list of them) from the next step on. Tensors
        on the viewer's CUDA device are packed there and copied device to device into the
        scene's GL buffers on the current stream, after the work that wrote them, without a wait
        (Gaussians are laid out there and read in place by the splat pass, which waits for this
        point of the stream); other tensors go through host memory. fit: aim the camera at the
        scene's bounds (default: on the first update only; computing them reads six numbers
        back)."""
        items = list(scene) if isinstance(scene, (list, tuple)) else [scene]
        if not items or not all(isinstance(m, (Mesh, Gaussians)) for m in items):
            raise ValueError("scene: expected a tandem.Mesh or tandem.Gaussians, or a list of them")
        meshes = [m for m in items if isinstance(m, Mesh)]
        gaussians = [g for g in items if isinstance(g, Gaussians)]
        on_device = all(m.positions.device == self.device for m in meshes) and \
            all(g.device == self.device for g in gaussians)
        device = self.device if on_device else torch.device("cpu")
        fit = self._bounds is None if fit is None else bool(fit)
        if fit:
            points = torch.cat([m.positions.detach().float().to(device) for m in meshes]
                               + [g.means.detach().float().to(device) for g in gaussians])
            points = points[torch.isfinite(points).all(1)]
            if points.shape[0] == 0:
                shapes = ", ".join(str(list(m.positions.shape)) for m in meshes)
                shapes += "".join(f", means {list(g.means.shape)}" for g in gaussians)
                raise ValueError(f"scene: empty (positions {shapes.lstrip(', ')}): no bounds to fit "
                                 "the camera to; an empty scene can follow a first one that is not")
            self._bounds = (points.min(0).values.tolist(), points.max(0).values.tolist())
        objects, vertices, indices, offsets, triangles = \
            _pack(meshes, device) if meshes else ([], None, None, None, None)
        laid = _region(gaussians, device)
        splats = None
        if laid is not None:
            region, count, degree = laid
            splats = {"region": torch.utils.dlpack.to_dlpack(region), "count": count,
                      "degree": degree}
        capsule = lambda t: None if t is None else torch.utils.dlpack.to_dlpack(t)  # noqa: E731
        stream = torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else 0
        self._native.update(objects, capsule(vertices), capsule(indices), capsule(offsets),
                            capsule(triangles), splats, self._bounds[0], self._bounds[1], fit,
                            stream)
        # The arrays are copied on `stream`, and the Gaussians' region is read by the frames
        # until the next update (which makes `stream` wait for them): kept alive until then,
        # the caching allocator's stream bookkeeping covering the rest (they were made on it).
        self._keep = (vertices, indices, offsets, triangles, None if laid is None else laid[0])

    def step(self):
        """Renders one frame and handles window input; returns False once the window is closed
        (nothing rendered then). Does not wait for the GPU. Ctrl-C (SIGINT) raises
        KeyboardInterrupt here as anywhere in Python; this viewer then renders no more, a new
        one does."""
        return self._native.step()

    def show(self):
        """Renders frames until the window is closed (headless: returns at once)."""
        if self._native.is_headless:
            return
        while self._native.step():
            pass

    def image(self):
        """The last frame's image, uint8 [H, W, 4], rows top first: sRGB-encoded, what the
        window shows (and tandem.render's "image"). Blocks (a read-back)."""
        data = self._native.image()
        return torch.frombuffer(bytearray(data), dtype=torch.uint8).reshape(
            self._native.height, self._native.width, 4)

    @property
    def is_headless(self):
        return self._native.is_headless

    @property
    def url(self):
        """The browser view's URL with its token (serve=), else None."""
        return self._native.url or None

    @property
    def handoffs(self):
        """GL-CUDA round trips made by device-to-device updates."""
        return self._native.handoffs

    def close(self):
        """Closes the window (or target) and frees its GPU objects."""
        self._native.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
