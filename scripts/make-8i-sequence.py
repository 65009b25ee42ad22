#!/usr/bin/env python3
"""Writes a sequence in the layout of the 8i voxelized full bodies (v2): ASCII PLY, float x y z
holding integer voxel coordinates (0..1023) and uchar red green blue, with the
`frame_to_world_scale` and `frame_to_world_translation` comments, about 0.8 M points and 20 MB a
frame. For timing tandem-pack and the viewer on such a folder:
    scripts/make-8i-sequence.py FOLDER [--frames 300] [--points 800000] [--distinct 4]
Only `--distinct` frames are generated (a body shell turning a little from one to the next); the
others copy them in turn, so 300 frames take seconds to write. Deterministic; stdlib only.
Refuses to write into a folder that holds files already."""
import argparse
import math
import os
import random
import shutil
import sys


def frame_text(points, index):
    rng = random.Random(index + 1)
    turn = 0.05 * index
    lines = []
    for _ in range(points):
        # A body-sized shell: an ellipsoid 1024 voxels tall, turning about the vertical axis.
        z = rng.uniform(-1.0, 1.0)
        angle = rng.uniform(0.0, 2.0 * math.pi) + turn
        r = math.sqrt(max(0.0, 1.0 - z * z))
        x = int(512 + 180 * r * math.cos(angle))
        y = int(512 + 511 * z)
        w = int(512 + 120 * r * math.sin(angle))
        lines.append(f"{x} {y} {w} {(x * 7) & 255} {(y * 3) & 255} {(w * 5) & 255}\n")
    header = ("ply\nformat ascii 1.0\ncomment Version 2, 8i-style test data (tandem)\n"
              "comment frame_to_world_scale 0.181985\n"
              "comment frame_to_world_translation -39.1539 3.29921 -24.6171\n"
              "comment width 1023\n"
              f"element vertex {points}\nproperty float x\nproperty float y\nproperty float z\n"
              "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n")
    return header + "".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--points", type=int, default=800000)
    parser.add_argument("--distinct", type=int, default=4)
    args = parser.parse_args()
    if args.frames < 1 or args.points < 1 or args.distinct < 1:
        print("error: --frames, --points and --distinct must be positive", file=sys.stderr)
        return 2
    os.makedirs(args.folder, exist_ok=True)
    if os.listdir(args.folder):
        print(f"error: {args.folder} is not empty", file=sys.stderr)
        return 1
    names = [os.path.join(args.folder, f"frame_{i:04d}.ply") for i in range(args.frames)]
    for i in range(min(args.distinct, args.frames)):
        with open(names[i], "w", encoding="ascii") as out:
            out.write(frame_text(args.points, i))
    for i in range(args.distinct, args.frames):
        shutil.copyfile(names[i % args.distinct], names[i])
    total = sum(os.path.getsize(n) for n in names)
    print(f"wrote {args.frames} frames ({total / 1e6 / args.frames:.1f} MB a frame) to {args.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
