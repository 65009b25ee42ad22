#!/usr/bin/env python3
"""Writes a binary PLY point cloud of N points (a sphere shell with normals and colours) for
demos and end-to-end timing: scripts/make-point-cloud.py N FILE (replaced when it exists, by
the engine's write rule: python/tandem/_atomic.py). Deterministic; stdlib only."""
import array
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "tandem"))
import _atomic  # noqa: E402


def main():
    if len(sys.argv) != 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        print("usage: make-point-cloud.py N FILE", file=sys.stderr)
        return 2
    count, path = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(1)
    floats = array.array("f")
    colours = bytearray()
    for _ in range(count):
        z = rng.uniform(-1.0, 1.0)
        angle = rng.uniform(0.0, 2.0 * math.pi)
        r = math.sqrt(max(0.0, 1.0 - z * z))
        n = (r * math.cos(angle), r * math.sin(angle), z)
        s = 1.0 + 0.01 * rng.random()
        floats.extend((n[0] * s, n[1] * s, n[2] * s, n[0], n[1], n[2]))
        colours.extend(int(127.5 + 127 * c) for c in n)
    if sys.byteorder != "little":
        floats.byteswap()
    raw = floats.tobytes()
    header = (f"ply\nformat binary_little_endian 1.0\nelement vertex {count}\n"
              "property float x\nproperty float y\nproperty float z\n"
              "property float nx\nproperty float ny\nproperty float nz\n"
              "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n")
    body = bytearray(header.encode())
    for i in range(count):
        body += raw[i * 24:(i + 1) * 24]
        body += colours[i * 3:(i + 1) * 3]
    _atomic.write_file(path, body, replace=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
