"""tandem for PyTorch: OpenGL's hardware rasterizer on tensors.

    import torch, tandem
    rast = tandem.rasterize(pos, tri, (height, width))      # [B, H, W, 4]: u, v, z/w, id + 1
    color = tandem.interpolate(vertex_colors, rast, tri)    # [B, H, W, C]
    frame = tandem.render(tandem.load_mesh("bunny.ply"), tandem.Orbit(yaw=45),
                          postfx="tonemap,fxaa", channels=("image", "depth", "id"))
    splats = tandem.Gaussians(means, scales, rotations, opacities, sh)  # a 3DGS model
    viewer = tandem.Viewer(); viewer.update(splats); viewer.step()      # every training step

CUDA tensors stay on the GPU: the GL work and every copy are ordered on the caller's current
CUDA stream (no device synchronize). CPU tensors go through host memory. Forward only: nothing
here records gradients.
"""
import os as _os

# Installed, the shaders travel inside the package; from a build folder the native module finds
# them in the source tree.
_here = _os.path.dirname(_os.path.abspath(__file__))
if _os.path.isdir(_os.path.join(_here, "shaders")) and "TANDEM_DATA_DIR" not in _os.environ:
    _os.environ["TANDEM_DATA_DIR"] = _here

from ._raster import interpolate, rasterize, renderer  # noqa: E402
from ._render import Camera, Mesh, Orbit, camera_matrices, load_mesh, render  # noqa: E402
from ._splats import Gaussians  # noqa: E402
from ._trace import clock_offset_us, merge_traces, trace  # noqa: E402
from ._viewer import Viewer  # noqa: E402

__all__ = ["rasterize", "interpolate", "render", "Mesh", "Gaussians", "Camera", "Orbit", "camera_matrices",
           "load_mesh", "trace", "merge_traces", "clock_offset_us", "Viewer", "renderer"]
