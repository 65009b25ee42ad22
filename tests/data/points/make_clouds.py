#!/usr/bin/env python3
"""Writes the held-out point clouds the points tests render (committed beside this script):
layouts the engine's own files do not use. Deterministic: the same files every run."""
import math
import random
import struct
import sys
from pathlib import Path

here = Path(__file__).resolve().parent


def header(fmt, count, properties):
    lines = ["ply", f"format {fmt} 1.0", "comment held-out test cloud (tests/data/points)",
             f"element vertex {count}"]
    lines += [f"property {kind} {name}" for kind, name in properties]
    return ("\n".join(lines) + "\nend_header\n").encode()


def torus(count, rng):
    """Points on a torus (R 1, r 0.35), normals outwards, colours by angle."""
    for _ in range(count):
        u, v = rng.uniform(0, 2 * math.pi), rng.uniform(0, 2 * math.pi)
        n = (math.cos(u) * math.cos(v), math.sin(u) * math.cos(v), math.sin(v))
        c = (math.cos(u), math.sin(u), 0.0)
        p = tuple(c[i] + 0.35 * n[i] for i in range(3))
        rgb = tuple(int(127.5 + 127 * math.sin(u + k * 2.1)) for k in range(3))
        yield p, n, rgb


def main():
    rng = random.Random(20261130)
    # Binary little-endian, double coordinates, float normals, uchar colours, an extra property.
    points = list(torus(6000, rng))
    with open(here / "torus_binary_double.ply", "wb") as f:
        f.write(header("binary_little_endian", len(points),
                       [("double", "x"), ("double", "y"), ("double", "z"), ("float", "nx"),
                        ("float", "ny"), ("float", "nz"), ("uchar", "red"), ("uchar", "green"),
                        ("uchar", "blue"), ("float", "intensity")]))
        for p, n, rgb in points:
            f.write(struct.pack("<3d3f3Bf", *p, *n, *rgb, rng.random()))
    # ASCII, float coordinates, RGBA colours, no normals: a helix ribbon.
    with open(here / "helix_ascii_rgba.ply", "wb") as f:
        count = 3000
        f.write(header("ascii", count, [("float", "x"), ("float", "y"), ("float", "z"),
                                        ("uchar", "red"), ("uchar", "green"), ("uchar", "blue"),
                                        ("uchar", "alpha")]))
        for i in range(count):
            t = i / count * 6 * math.pi
            w = rng.uniform(-0.15, 0.15)
            f.write(f"{math.cos(t) * (1 + w):.6f} {math.sin(t) * (1 + w):.6f} {t / 6 - 1.5:.6f} "
                    f"{int(255 * i / count)} 90 {255 - int(255 * i / count)} 255\n".encode())
    # Binary big-endian, float coordinates only: no normals, no colours (a noisy box shell).
    with open(here / "box_big_endian_bare.ply", "wb") as f:
        count = 5000
        f.write(header("binary_big_endian", count, [("float", "x"), ("float", "y"), ("float", "z")]))
        for _ in range(count):
            p = [rng.uniform(-1, 1) for _ in range(3)]
            axis = rng.randrange(3)
            p[axis] = math.copysign(1.0, p[axis]) + rng.gauss(0, 0.01)
            f.write(struct.pack(">3f", *p))
    # Binary little-endian, double coordinates and double normals, no colours: a wavy sheet.
    with open(here / "sheet_normals_only.ply", "wb") as f:
        side = 70
        f.write(header("binary_little_endian", side * side,
                       [("double", "x"), ("double", "y"), ("double", "z"), ("double", "nx"),
                        ("double", "ny"), ("double", "nz")]))
        for j in range(side):
            for i in range(side):
                x, y = i / side * 2 - 1, j / side * 2 - 1
                z = 0.2 * math.sin(3 * x) * math.cos(2 * y)
                dzdx, dzdy = 0.6 * math.cos(3 * x) * math.cos(2 * y), -0.4 * math.sin(3 * x) * math.sin(2 * y)
                length = math.sqrt(dzdx * dzdx + dzdy * dzdy + 1)
                f.write(struct.pack("<6d", x, y, z, -dzdx / length, -dzdy / length, 1 / length))
    return 0


if __name__ == "__main__":
    sys.exit(main())
