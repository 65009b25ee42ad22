#!/usr/bin/env python3
"""Writes the Draco test files (committed beside this script): small PLY and OBJ sources, and the
.drc files Debian's draco_encoder 1.5.5 (package `draco`) makes of them; and the Draco fuzz seed
(tests/fuzz/seeds/draco). Deterministic: the same sources every run, and the same .drc files from
them with the same encoder."""
import math
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

here = Path(__file__).resolve().parent


def header(count, properties, faces=0):
    lines = ["ply", "format binary_little_endian 1.0", "comment tandem Draco test source",
             f"element vertex {count}"]
    lines += [f"property {kind} {name}" for kind, name in properties]
    if faces:
        lines += [f"element face {faces}", "property list uchar int vertex_indices"]
    return ("\n".join(lines) + "\nend_header\n").encode()


def cloud(path, count, rng):
    """Points on a unit sphere with their normals (outwards) and colours by latitude."""
    with open(path, "wb") as f:
        f.write(header(count, [("float", "x"), ("float", "y"), ("float", "z"), ("float", "nx"),
                               ("float", "ny"), ("float", "nz"), ("uchar", "red"),
                               ("uchar", "green"), ("uchar", "blue")]))
        for _ in range(count):
            z, t = rng.uniform(-1, 1), rng.uniform(0, 2 * math.pi)
            r = math.sqrt(1 - z * z)
            n = (r * math.cos(t), r * math.sin(t), z)
            rgb = (int(127.5 + 127 * z), rng.randrange(256), int(255 * t / (2 * math.pi)))
            f.write(struct.pack("<6f3B", *(0.75 * c for c in n), *n, *rgb))


def grid(path, side):
    """A wavy sheet of side × side vertices with texture coordinates, two triangles a cell, as an
    OBJ file (draco_encoder's PLY reader does not take texture coordinates; its OBJ reader does).
    Every number is a multiple of 1/1024 written out exactly, so any parser reads the same float."""
    with open(path, "w") as f:
        f.write("# tandem Draco test source\n")
        for j in range(side):
            for i in range(side):
                u, v = i / 16, j / 16
                z = round(102.4 * math.sin(4 * u) * math.cos(3 * v)) / 1024
                f.write(f"v {2 * u - 1:.4f} {2 * v - 1:.4f} {z:.10f}\nvt {u:.4f} {v:.4f}\n")
        for j in range(side - 1):
            for i in range(side - 1):
                a = j * side + i + 1  # OBJ counts from 1
                for face in ((a, a + 1, a + side + 1), (a, a + side + 1, a + side)):
                    f.write("f " + " ".join(f"{k}/{k}" for k in face) + "\n")


def tetrahedron(path):
    """Four coloured corners and four faces: the fuzzer's seed (tests/fuzz/seeds/draco)."""
    corners = [(1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)]
    faces = [(0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2)]
    with open(path, "wb") as f:
        f.write(header(4, [("float", "x"), ("float", "y"), ("float", "z"), ("uchar", "red"),
                           ("uchar", "green"), ("uchar", "blue")], faces=len(faces)))
        for k, p in enumerate(corners):
            f.write(struct.pack("<3f3B", *p, 60 * k, 255 - 60 * k, 128))
        for face in faces:
            f.write(struct.pack("<B3i", 3, *face))


def encode(source, target, *options):
    subprocess.run(["draco_encoder", "-i", str(source), "-o", str(target), *options], check=True,
                   stdout=subprocess.DEVNULL)


def main():
    rng = random.Random(20261207)
    cloud(here / "cloud.ply", 300, rng)
    cloud(here / "cloud_dense.ply", 600, rng)
    grid(here / "sheet.obj", 13)
    # Lossless: positions and normals not quantized (-qp 0, -qn 0), colours are bytes.
    encode(here / "cloud.ply", here / "cloud.drc", "-point_cloud", "-qp", "0", "-qn", "0",
           "-cl", "7")
    # draco_encoder's defaults: 11-bit positions, 8-bit normals, a k-d tree (points reordered).
    encode(here / "cloud_dense.ply", here / "cloud_dense.drc", "-point_cloud", "-cl", "7")
    # A mesh, edgebreaker (vertices and faces reordered), positions and texture coordinates
    # not quantized.
    encode(here / "sheet.obj", here / "sheet.drc", "-qp", "0", "-qt", "0", "-cl", "7")
    # The fuzzer's seed: a mesh with draco_encoder's defaults (quantized, edgebreaker).
    seed = here.parent.parent / "fuzz" / "seeds" / "draco"
    with tempfile.TemporaryDirectory() as scratch:
        tetrahedron(Path(scratch) / "tetrahedron.ply")
        encode(Path(scratch) / "tetrahedron.ply", seed / "tetrahedron.drc")
    return 0


if __name__ == "__main__":
    sys.exit(main())
