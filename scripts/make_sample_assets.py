#!/usr/bin/env python3
"""Writes the built-in sample assets under assets/ (procedural, no third-party data).

  assets/sample.ply         a (3,2) torus knot tube, binary little endian, normals + colours
  assets/sample_points.ply  a coloured point cloud on a sphere-harmonic blob, binary
Run from anywhere: python3 scripts/make_sample_assets.py
"""
import math
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")


def knot(t, p=3, q=2):
    r = math.cos(q * t) + 2.0
    return (r * math.cos(p * t), r * math.sin(p * t), -math.sin(q * t))


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a):
    n = math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) or 1.0
    return (a[0] / n, a[1] / n, a[2] / n)


def hue(h):
    h = (h % 1.0) * 6.0
    i = int(h)
    f = h - i
    rgb = [(1, f, 0), (1 - f, 1, 0), (0, 1, f), (0, 1 - f, 1), (f, 0, 1), (1, 0, 1 - f)][i % 6]
    return tuple(int(40 + 215 * c) for c in rgb)


def write_knot(path, segments=360, sides=24, radius=0.45):
    verts = []
    for i in range(segments):
        t = 2 * math.pi * i / segments
        c = knot(t)
        tangent = norm(sub(knot(t + 1e-3), knot(t - 1e-3)))
        side = norm(cross(tangent, (0.0, 0.0, 1.0)))
        up = cross(side, tangent)
        color = hue(i / segments)
        for j in range(sides):
            a = 2 * math.pi * j / sides
            n = tuple(math.cos(a) * side[k] + math.sin(a) * up[k] for k in range(3))
            p = tuple(c[k] + radius * n[k] for k in range(3))
            verts.append((p, n, color))
    faces = []
    for i in range(segments):
        for j in range(sides):
            a = i * sides + j
            b = ((i + 1) % segments) * sides + j
            c = ((i + 1) % segments) * sides + (j + 1) % sides
            d = i * sides + (j + 1) % sides
            faces.append((a, b, c, d))
    with open(path, "wb") as f:
        f.write(
            (
                "ply\nformat binary_little_endian 1.0\ncomment tandem sample: (3,2) torus knot\n"
                f"element vertex {len(verts)}\n"
                "property float x\nproperty float y\nproperty float z\n"
                "property float nx\nproperty float ny\nproperty float nz\n"
                "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n"
            ).encode()
        )
        for p, n, c in verts:
            f.write(struct.pack("<6f3B", *p, *n, *c))
        for quad in faces:
            f.write(struct.pack("<B4i", 4, *quad))


def write_points(path, count=60000):
    golden = math.pi * (3.0 - math.sqrt(5.0))
    with open(path, "wb") as f:
        f.write(
            (
                "ply\nformat binary_little_endian 1.0\ncomment tandem sample: point cloud\n"
                f"element vertex {count}\n"
                "property float x\nproperty float y\nproperty float z\n"
                "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n"
            ).encode()
        )
        for i in range(count):
            y = 1.0 - 2.0 * (i + 0.5) / count
            r = math.sqrt(1.0 - y * y)
            phi = golden * i
            x, z = math.cos(phi) * r, math.sin(phi) * r
            bump = 1.0 + 0.25 * math.sin(5 * math.atan2(z, x)) * math.cos(3 * math.acos(y))
            f.write(struct.pack("<3f3B", x * bump, y * bump, z * bump, *hue(bump - 0.75)))


if __name__ == "__main__":
    os.makedirs(ROOT, exist_ok=True)
    write_knot(os.path.join(ROOT, "sample.ply"))
    write_points(os.path.join(ROOT, "sample_points.ply"))
    print("wrote", os.path.normpath(ROOT))
