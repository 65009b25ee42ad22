#!/usr/bin/env python3
"""Writes a binary PLY mesh of an N×N-vertex grid (2 (N-1)² triangles, a gently waved sheet with
vertex colours) for demos and end-to-end timing: scripts/make-grid-mesh.py N FILE; N = 1024 gives
the 2.09 M-triangle grid the rasterizer benchmarks use. Replaced when it exists, by the engine's
write rule (python/tandem/_atomic.py). Deterministic; stdlib only."""
import array
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "tandem"))
import _atomic  # noqa: E402


def main():
    if len(sys.argv) != 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 2:
        print("usage: make-grid-mesh.py N FILE (N >= 2)", file=sys.stderr)
        return 2
    n, path = int(sys.argv[1]), sys.argv[2]
    vertex = struct.Struct("<fffBBB")
    body = bytearray((f"ply\nformat binary_little_endian 1.0\nelement vertex {n * n}\n"
                      "property float x\nproperty float y\nproperty float z\n"
                      "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                      f"element face {2 * (n - 1) * (n - 1)}\n"
                      "property list uchar int vertex_indices\nend_header\n").encode())
    for y in range(n):
        for x in range(n):
            u, v = x / (n - 1), y / (n - 1)
            z = 0.05 * math.sin(12.0 * u) * math.cos(9.0 * v)
            body += vertex.pack(2.0 * u - 1.0, 2.0 * v - 1.0, z, int(80 + 150 * u),
                                int(80 + 150 * v), 160)
    face = struct.Struct("<Biii")
    for y in range(n - 1):
        row = bytearray()
        for x in range(n - 1):
            i = y * n + x
            row += face.pack(3, i, i + 1, i + n + 1)
            row += face.pack(3, i, i + n + 1, i + n)
        body += row
    _atomic.write_file(path, body, replace=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
