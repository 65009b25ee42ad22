#!/usr/bin/env python3
"""Compares column ranges of 8-bit RGB(A) PNG images, standard library only (the viewer's compare
mode tests). Usage:
  png_columns.py same A A0 A1 B B0 B1   exit 0 if columns [A0, A1) of A equal [B0, B1) of B
  png_columns.py black A                exit 0 if every pixel of A has R = G = B = 0
  png_columns.py dominant A C N         exit 0 if at least N pixels of A have channel C (0 red,
                                        1 green, 2 blue) above twice each other channel
"""
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    at, idat = 8, b""
    while at < len(data):
        length = struct.unpack(">I", data[at:at + 4])[0]
        kind, chunk = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6), f"{path}: 8-bit RGB(A) only"
        elif kind == b"IDAT":
            idat += chunk
        at += 12 + length
    raw, bpp = zlib.decompress(idat), 4 if colour == 6 else 3
    stride, previous, out = width * bpp, bytearray(width * bpp), []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = previous[x], previous[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        previous = line
    return out


if sys.argv[1] == "black":
    bad = sum(1 for row in rows(sys.argv[2]) for p in row if p != (0, 0, 0))
    print(f"{sys.argv[2]}: {bad} pixels not black")
    sys.exit(1 if bad else 0)
if sys.argv[1] == "dominant":
    c, least = int(sys.argv[3]), int(sys.argv[4])
    others = [i for i in range(3) if i != c]
    n = sum(1 for row in rows(sys.argv[2]) for p in row if all(p[c] > 2 * p[o] for o in others))
    print(f"{sys.argv[2]}: {n} pixels with channel {c} dominant (at least {least} expected)")
    sys.exit(0 if n >= least else 1)
a, a0, a1, b, b0, b1 = sys.argv[2], *map(int, sys.argv[3:5]), sys.argv[5], *map(int, sys.argv[6:8])
ra, rb = rows(a), rows(b)
bad = sum(1 for y in range(len(ra)) if ra[y][a0:a1] != rb[y][b0:b1])
print(f"{a}[{a0}:{a1}] vs {b}[{b0}:{b1}]: {bad} rows differ")
sys.exit(1 if bad else 0)
