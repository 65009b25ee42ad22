#!/usr/bin/env python3
"""Writes ring.ply: a 3DGS PLY (as training writes it: normals, f_dc, f_rest of SH degree 1,
opacity logits, log scales, unnormalized rotations) of 800 Gaussians on a ring, coloured by
angle. Deterministic. Usage: make_ring.py [OUT]"""
import math
import random
import struct
import sys

random.seed(3)
count, degree = 800, 1
rest = 3 * ((degree + 1) ** 2 - 1)
names = ['x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2']
names += ['f_rest_%d' % i for i in range(rest)]
names += ['opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3']
header = 'ply\nformat binary_little_endian 1.0\nelement vertex %d\n' % count
header += ''.join('property float %s\n' % n for n in names) + 'end_header\n'
body = b''
for _ in range(count):
    t = random.random() * 2 * math.pi
    r = 0.8 + 0.2 * random.random()
    z = random.uniform(-0.5, 0.5)
    values = [r * math.cos(t), r * math.sin(t), z, 0, 0, 0,
              math.cos(t) * 1.5, math.sin(t) * 1.5, z * 2]
    values += [random.uniform(-0.3, 0.3) for _ in range(rest)]
    values += [random.uniform(-1, 3)]
    values += [math.log(random.uniform(0.02, 0.08)) for _ in range(3)]
    values += [random.uniform(-1, 1) for _ in range(4)]
    body += struct.pack('<%df' % len(values), *values)
with open(sys.argv[1] if len(sys.argv) > 1 else 'ring.ply', 'wb') as out:
    out.write(header.encode() + body)
