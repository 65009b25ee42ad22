#!/usr/bin/env python3
"""Writes a sequence in the layout of a published voxelized point-cloud dataset, as its files are
named and written, for timing tandem-pack and the viewer on such a folder and for checking that
tandem reads each layout:
  8i     8i voxelized full bodies v2 (longdress, loot, ...): ASCII PLY, float x y z holding 10-bit
         voxel coordinates (0..1023), uchar red green blue, the `frame_to_world_scale` and
         `frame_to_world_translation` comments and `width 1023`; NAME_vox10_1051.ply onwards;
         about 0.8 M points and 18 MB a frame
  mvub   Microsoft Voxelized Upper Bodies (andrew9, ...): ASCII PLY, float x y z of 9-bit voxels
         (0..511), uchar red green blue, no comments; frame0000.ply onwards
  owlii  MPEG's Owlii sequences (dancer_vox11, ...): ASCII PLY, float x y z of 11-bit voxels
         (0..2047), float nx ny nz, uchar red green blue (the property list is inferred from
         MPEG's scripts, which read normals from the files themselves; not seen verbatim);
         NAME_vox11_00000001.ply onwards
    scripts/make-dataset-sequence.py FOLDER [--layout 8i] [--name body] [--frames 300]
        [--points 800000] [--distinct 4]
Only `--distinct` frames are generated (a body shell turning a little from one to the next); the
others copy them in turn, so 300 frames take seconds to write. Deterministic; stdlib only.
Refuses to write into a folder that holds files already."""
import argparse
import math
import os
import random
import shutil
import sys


LAYOUTS = {
    # bits, comments, normals, the name of frame i
    "8i": (10, ["Version 2, 8i-style test data (tandem)", "frame_to_world_scale 0.181985",
                "frame_to_world_translation -39.1539 3.29921 -24.6171", "width 1023"], False,
           lambda name, i: f"{name}_vox10_{1051 + i:04d}.ply"),
    "mvub": (9, [], False, lambda name, i: f"frame{i:04d}.ply"),
    "owlii": (11, [], True, lambda name, i: f"{name}_vox11_{i + 1:08d}.ply"),
}


def frame_text(layout, points, index):
    bits, comments, normals, _ = LAYOUTS[layout]
    top = (1 << bits) - 1
    half = top / 2
    rng = random.Random(index + 1)
    turn = 0.05 * index
    lines = []
    for _ in range(points):
        # A body-sized shell: an ellipsoid as tall as the voxel grid, turning about the vertical
        # axis (y).
        z = rng.uniform(-1.0, 1.0)
        angle = rng.uniform(0.0, 2.0 * math.pi) + turn
        r = math.sqrt(max(0.0, 1.0 - z * z))
        x = int(half + 0.35 * half * r * math.cos(angle))
        y = int(half + half * z)
        w = int(half + 0.25 * half * r * math.sin(angle))
        normal = (f" {r * math.cos(angle):.6f} {z:.6f} {r * math.sin(angle):.6f}"
                  if normals else "")
        lines.append(f"{x} {y} {w}{normal} {(x * 7) & 255} {(y * 3) & 255} {(w * 5) & 255}\n")
    properties = ["float x", "float y", "float z"]
    if normals:
        properties += ["float nx", "float ny", "float nz"]
    properties += ["uchar red", "uchar green", "uchar blue"]
    header = (["ply", "format ascii 1.0"] + [f"comment {c}" for c in comments] +
              [f"element vertex {points}"] + [f"property {p}" for p in properties] +
              ["end_header"])
    return "\n".join(header) + "\n" + "".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="8i")
    parser.add_argument("--name", default="body")
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
    name_of = LAYOUTS[args.layout][3]
    names = [os.path.join(args.folder, name_of(args.name, i)) for i in range(args.frames)]
    for i in range(min(args.distinct, args.frames)):
        with open(names[i], "w", encoding="ascii") as out:
            out.write(frame_text(args.layout, args.points, i))
    for i in range(args.distinct, args.frames):
        shutil.copyfile(names[i % args.distinct], names[i])
    total = sum(os.path.getsize(n) for n in names)
    print(f"wrote {args.frames} frames in the {args.layout} layout "
          f"({total / 1e6 / args.frames:.1f} MB a frame) to {args.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
