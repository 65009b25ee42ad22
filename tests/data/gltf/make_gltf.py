#!/usr/bin/env python3
"""Writes the glTF test files (committed beside this script) to the glTF 2.0 specification's
layout, each holding values tests/io/GltfReaderTest.cpp knows:

  points.glb        a POINTS primitive under a translated node: float positions, normals, RGBA
                    colours as normalized bytes
  scene.glb         one textured quad (an embedded PNG, the base colour texture) drawn by three
                    nodes: a child of a scaled parent with a translation and a rotation, a second
                    instance, and a mirrored one; a base colour factor
  strips.gltf/.bin  a triangle strip and a fan with positions quantized to shorts
                    (KHR_mesh_quantization), no normals, a material colour; its buffer and its
                    texture-less material in files beside it
  datauri.gltf      a triangle list whose buffer and PNG texture are data: URIs, its texture
                    coordinates as normalized unsigned shorts
  draco.glb         ../draco/sheet.drc as a KHR_draco_mesh_compression primitive
  open3d_sphere.glb written by Open3D (python3-open3d), when it is installed: a sphere with
                    normals and vertex colours
  assimp_knot.glb   written by assimp (assimp-utils) from ../real_world's knot, when installed

Also the glTF fuzz seeds (tests/fuzz/seeds/gltf). Deterministic."""
import base64
import json
import math
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

here = Path(__file__).resolve().parent
root = here.parent.parent.parent
FLOAT, UBYTE, USHORT, SHORT, UINT = 5126, 5121, 5123, 5122, 5125


def png(width, height, pixel):
    """An 8-bit RGBA PNG, pixel(x, y) -> (r, g, b, a), rows top first."""
    raw = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width))
                   for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0,
                                                              0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def texture_pixel(x, y):
    """The test texture: 4×4, red rising to the right, green downwards."""
    return (x * 85, y * 85, 40, 255)


class Builder:
    """Buffer views and accessors into one buffer, 4-byte aligned."""

    def __init__(self):
        self.data = bytearray()
        self.gltf = {"asset": {"version": "2.0", "generator": "tandem make_gltf.py"},
                     "buffers": [], "bufferViews": [], "accessors": []}

    def view(self, payload, stride=None):
        while len(self.data) % 4:
            self.data.append(0)
        view = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(payload)}
        if stride:
            view["byteStride"] = stride
        self.data += payload
        self.gltf["bufferViews"].append(view)
        return len(self.gltf["bufferViews"]) - 1

    def accessor(self, values, kind, component, normalized=False, stride=None):
        fmt = {FLOAT: "f", UBYTE: "B", USHORT: "H", SHORT: "h", UINT: "I"}[component]
        width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[kind]
        flat = [c for v in values for c in (v if isinstance(v, (tuple, list)) else (v,))]
        assert len(flat) == width * len(values)
        element = struct.calcsize("<" + fmt * width)
        if stride:  # interleaving padding after each element
            payload = b"".join(struct.pack("<" + fmt * width, *flat[i * width:(i + 1) * width])
                               + bytes(stride - element) for i in range(len(values)))
        else:
            payload = struct.pack("<" + fmt * len(flat), *flat)
        accessor = {"bufferView": self.view(payload, stride), "componentType": component,
                    "count": len(values), "type": kind}
        if normalized:
            accessor["normalized"] = True
        self.gltf["accessors"].append(accessor)
        return len(self.gltf["accessors"]) - 1

    def glb(self, path):
        while len(self.data) % 4:
            self.data.append(0)
        self.gltf["buffers"] = [{"byteLength": len(self.data)}]
        text = json.dumps(self.gltf, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 4)
        body = (struct.pack("<II", len(text), 0x4E4F534A) + text +
                struct.pack("<II", len(self.data), 0x004E4942) + bytes(self.data))
        path.write_bytes(struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body)

    def gltf_file(self, path, bin_name=None):
        if bin_name:
            (path.parent / bin_name).write_bytes(bytes(self.data))
            uri = bin_name
        else:
            uri = "data:application/octet-stream;base64," + base64.b64encode(
                bytes(self.data)).decode()
        self.gltf["buffers"] = [{"byteLength": len(self.data), "uri": uri}]
        path.write_text(json.dumps(self.gltf, indent=1) + "\n")


def points(path):
    b = Builder()
    n = 1000
    positions = [(math.cos(i * 0.1) * (1 + i / n), math.sin(i * 0.1) * (1 + i / n), i / n)
                 for i in range(n)]
    normals = [(0.0, 0.0, 1.0) if i % 2 else (1.0, 0.0, 0.0) for i in range(n)]
    colours = [(i % 256, (3 * i) % 256, 255 - i % 256, 255 if i % 5 else 128) for i in range(n)]
    b.gltf["meshes"] = [{"primitives": [{"mode": 0, "attributes": {
        "POSITION": b.accessor(positions, "VEC3", FLOAT),
        "NORMAL": b.accessor(normals, "VEC3", FLOAT),
        "COLOR_0": b.accessor(colours, "VEC4", UBYTE, normalized=True)}}]}]
    b.gltf["nodes"] = [{"mesh": 0, "translation": [10.0, 0.0, 0.0]}]
    b.gltf["scenes"] = [{"nodes": [0]}]
    b.gltf["scene"] = 0
    b.glb(path)


def scene(path):
    b = Builder()
    quad = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 1.0, 0.0), (0.0, 1.0, 0.0)]
    uv = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]  # glTF: v down from the top
    image = png(4, 4, texture_pixel)
    b.accessor(quad, "VEC3", FLOAT)
    b.gltf["images"] = [{"bufferView": b.view(image), "mimeType": "image/png"}]
    b.gltf["textures"] = [{"source": 0}]
    b.gltf["materials"] = [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                                     "baseColorFactor": [1.0, 0.5, 1.0, 1.0]}}]
    b.gltf["meshes"] = [{"primitives": [{
        "attributes": {"POSITION": 0, "NORMAL": b.accessor([(0.0, 0.0, 1.0)] * 4, "VEC3", FLOAT),
                       # 4 bytes of padding after each: a 12-byte stride
                       "TEXCOORD_0": b.accessor(uv, "VEC2", FLOAT, stride=12)},
        "indices": b.accessor([0, 1, 2, 0, 2, 3], "SCALAR", USHORT), "material": 0}]}]
    b.gltf["nodes"] = [
        {"children": [1, 2], "matrix": [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1]},
        # rotation: 90 degrees about +Z as (x, y, z, w)
        {"mesh": 0, "translation": [5.0, 0.0, 0.0],
         "rotation": [0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)]},
        {"mesh": 0, "translation": [0.0, 0.0, 3.0]},
        {"mesh": 0, "scale": [-1.0, 1.0, 1.0]},
    ]
    b.gltf["scenes"] = [{"nodes": [3]}, {"nodes": [0, 3]}]
    b.gltf["scene"] = 1
    b.glb(path)


def strips(path):
    b = Builder()
    # A strip of 6 vertices (4 triangles) along x, a fan of 5 (3 triangles) around the origin,
    # quantized: position = short / 100.
    strip = [(100 * (i // 2), 100 * (i % 2), 0) for i in range(6)]
    fan = [(0, 0, 200)] + [(int(100 * math.cos(a)), int(100 * math.sin(a)), 200)
                           for a in (0.0, 0.5, 1.0, 1.5)]
    b.gltf["extensionsUsed"] = ["KHR_mesh_quantization"]
    b.gltf["extensionsRequired"] = ["KHR_mesh_quantization"]
    b.gltf["materials"] = [{"pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.25, 1.0, 1.0]}}]
    b.gltf["meshes"] = [{"primitives": [
        {"mode": 5, "attributes": {"POSITION": b.accessor(strip, "VEC3", SHORT, stride=8)},
         "material": 0},
        {"mode": 6, "attributes": {"POSITION": b.accessor(fan, "VEC3", SHORT, stride=8)},
         "indices": b.accessor([0, 1, 2, 3, 4], "SCALAR", UBYTE)}]}]
    b.gltf["nodes"] = [{"mesh": 0, "scale": [0.01, 0.01, 0.01]}]
    b.gltf["scenes"] = [{"nodes": [0]}]
    b.gltf_file(path, path.with_suffix(".bin").name)


def datauri(path):
    b = Builder()
    tri = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0)]
    uv = [(0, 65535), (65535, 65535), (0, 0), (65535, 0)]
    colours = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.5, 0.5, 0.5)]
    b.gltf["images"] = [{"uri": "data:image/png;base64," +
                         base64.b64encode(png(4, 4, texture_pixel)).decode()}]
    b.gltf["textures"] = [{"source": 0}]
    b.gltf["materials"] = [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]
    b.gltf["meshes"] = [{"primitives": [{"attributes": {
        "POSITION": b.accessor(tri, "VEC3", FLOAT),
        "COLOR_0": b.accessor(colours, "VEC3", FLOAT),
        "TEXCOORD_0": b.accessor(uv, "VEC2", USHORT, normalized=True)},
        "indices": b.accessor([0, 1, 2, 2, 1, 3], "SCALAR", UINT), "material": 0}]}]
    b.gltf["nodes"] = [{"mesh": 0}]
    b.gltf["scenes"] = [{"nodes": [0]}]
    b.gltf_file(path)


def draco(path):
    b = Builder()
    source = here.parent / "draco" / "sheet.drc"
    view = b.view(source.read_bytes())
    with tempfile.TemporaryDirectory() as tmp:  # its vertex count, as Draco decodes it
        subprocess.run(["draco_decoder", "-i", str(source), "-o", f"{tmp}/sheet.ply"], check=True,
                       stdout=subprocess.DEVNULL)
        header = Path(f"{tmp}/sheet.ply").read_bytes().split(b"end_header")[0].decode()
        count = int(header.split("element vertex ")[1].split()[0])
    b.gltf["extensionsUsed"] = ["KHR_draco_mesh_compression"]
    b.gltf["extensionsRequired"] = ["KHR_draco_mesh_compression"]
    # The accessors say what Draco decodes to: counts and types, no buffer view.
    b.gltf["accessors"] = [{"componentType": FLOAT, "count": count, "type": "VEC3"}]
    b.gltf["meshes"] = [{"primitives": [{
        "attributes": {"POSITION": 0},
        "extensions": {"KHR_draco_mesh_compression": {"bufferView": view,
                                                      "attributes": {"POSITION": 0}}}}]}]
    b.gltf["nodes"] = [{"mesh": 0, "translation": [0.0, 0.0, 1.0]}]
    b.gltf["scenes"] = [{"nodes": [0]}]
    b.glb(path)


def open3d_sphere(path):
    try:
        import numpy
        import open3d
    except ImportError:
        print("open3d not installed (apt-get install python3-open3d): "
              f"{path.name} left as is")
        return
    mesh = open3d.geometry.TriangleMesh.create_sphere(radius=0.5, resolution=6)
    mesh.compute_vertex_normals()
    vertices = numpy.asarray(mesh.vertices)
    mesh.vertex_colors = open3d.utility.Vector3dVector(numpy.clip(vertices + 0.5, 0.0, 1.0))
    open3d.io.write_triangle_mesh(str(path), mesh)
    # Its source, for the test to compare with: PLY written by Open3D too.
    open3d.io.write_triangle_mesh(str(path.with_suffix(".ply")), mesh, write_ascii=True)


def assimp_knot(path):
    assimp = shutil.which("assimp")
    source = here.parent / "real_world" / "knot_assimp.obj"
    if not assimp or not source.exists():
        print(f"assimp not installed (apt-get install assimp-utils): {path.name} left as is")
        return
    subprocess.run([assimp, "export", str(source), str(path), "-fglb2"], check=True,
                   stdout=subprocess.DEVNULL)


def main():
    points(here / "points.glb")
    scene(here / "scene.glb")
    strips(here / "strips.gltf")
    datauri(here / "datauri.gltf")
    draco(here / "draco.glb")
    open3d_sphere(here / "open3d_sphere.glb")
    assimp_knot(here / "assimp_knot.glb")
    seeds = root / "tests" / "fuzz" / "seeds" / "gltf"
    seeds.mkdir(parents=True, exist_ok=True)
    for name in ("points.glb", "scene.glb", "datauri.gltf", "draco.glb"):
        shutil.copyfile(here / name, seeds / name)
    print(f"wrote the glTF test files to {here} and seeds to {seeds}")


if __name__ == "__main__":
    sys.exit(main())
