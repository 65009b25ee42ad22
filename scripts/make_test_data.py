#!/usr/bin/env python3
"""Writes the test inputs under tests/data/.

  bad/...              malformed files the loaders must reject with a clear error
  not_a_mesh.stl       an unsupported format
  real_world/...       meshes written by another tool (assimp, Debian's assimp-utils) from a
                       small procedural knot; regenerated only when assimp is installed
  bad/assimp_binary_float_colors.ply  assimp's corrupt binary PLY with colours (its #3827)
Run: python3 scripts/make_test_data.py
"""
import math
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_sample_assets as sample  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")


def write(name, data):
    path = os.path.join(DATA, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def bad_files():
    header = "ply\nformat binary_little_endian 1.0\nelement vertex {n}\n" \
             "property float x\nproperty float y\nproperty float z\n{extra}end_header\n"
    # Claims 3 vertices and a face, but stops inside the second vertex.
    body = struct.pack("<3f", 0, 0, 0) + struct.pack("<2f", 1, 0)
    write("bad/truncated_binary.ply",
          header.format(n=3, extra="element face 1\nproperty list uchar int vertex_indices\n").encode() + body)
    write("bad/nan.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                         "property float y\nproperty float z\nend_header\n0 0 0\nnan 1 0\n0 1 0\n")
    write("bad/huge_count.ply", header.format(n=2_000_000_000, extra="").encode() + struct.pack("<3f", 1, 2, 3))
    write("bad/negative_list.ply",
          header.format(n=3, extra="element face 1\nproperty list char int vertex_indices\n").encode()
          + struct.pack("<9f", *range(9)) + struct.pack("<b3i", -3, 0, 1, 2))
    write("bad/index_out_of_range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n")
    write("bad/empty.obj", "")
    write("bad/empty.ply", "")
    write("not_a_mesh.stl", "solid nothing\nendsolid nothing\n")


def small_knot_obj(path, segments=64, sides=8, radius=0.45):
    lines = ["# small procedural knot, input for assimp"]
    for i in range(segments):
        t = 2 * math.pi * i / segments
        c = sample.knot(t)
        tangent = sample.norm(sample.sub(sample.knot(t + 1e-3), sample.knot(t - 1e-3)))
        side = sample.norm(sample.cross(tangent, (0.0, 0.0, 1.0)))
        up = sample.cross(side, tangent)
        r, g, b = (x / 255.0 for x in sample.hue(i / segments))
        for j in range(sides):
            a = 2 * math.pi * j / sides
            n = [math.cos(a) * side[k] + math.sin(a) * up[k] for k in range(3)]
            p = [c[k] + radius * n[k] for k in range(3)]
            lines.append("v %.5f %.5f %.5f %.4f %.4f %.4f" % (*p, r, g, b))
    for i in range(segments):
        for j in range(sides):
            a = i * sides + j + 1
            b = ((i + 1) % segments) * sides + j + 1
            c = ((i + 1) % segments) * sides + (j + 1) % sides + 1
            d = i * sides + (j + 1) % sides + 1
            lines.append("f %d %d %d %d" % (a, b, c, d))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def real_world():
    assimp = shutil.which("assimp")
    if not assimp:
        print("assimp not installed (apt-get install assimp-utils): real_world/ left as is")
        return
    out = os.path.join(DATA, "real_world")
    os.makedirs(out, exist_ok=True)
    source = os.path.join(out, "knot_source.obj")
    small_knot_obj(source)
    def export(src, name, fmt):
        subprocess.run([assimp, "export", src, os.path.join(out, name), "-f" + fmt],
                       check=True, stdout=subprocess.DEVNULL)

    export(source, "knot_assimp_ascii.ply", "ply")
    export(source, "knot_assimp.obj", "obj")
    # assimp 5.2's binary PLY writer stores uchar colours as 4 floats (assimp issue #3827), so
    # a coloured mesh comes out corrupt: keep one as bad input, and go through STL (which drops
    # the colours) for a valid binary file.
    export(source, "../bad/assimp_binary_float_colors.ply", "plyb")
    stl = os.path.join(out, "knot.stl")
    subprocess.run([assimp, "export", source, stl, "-fstlb"], check=True, stdout=subprocess.DEVNULL)
    export(stl, "knot_assimp_binary.ply", "plyb")
    os.remove(stl)
    os.remove(source)


if __name__ == "__main__":
    bad_files()
    real_world()
    print("wrote", os.path.normpath(DATA))
