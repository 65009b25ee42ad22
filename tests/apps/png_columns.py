#!/usr/bin/env python3
"""Compares column ranges of 8-bit RGB(A) PNG images, standard library only (the viewer's compare
mode tests). Usage:
  png_columns.py same A A0 A1 B B0 B1   exit 0 if columns [A0, A1) of A equal [B0, B1) of B
  png_columns.py black A                exit 0 if every pixel of A has R = G = B = 0
  png_columns.py dominant A C N         exit 0 if at least N pixels of A have channel C (0 red,
                                        1 green, 2 blue) above twice each other channel
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import png  # noqa: E402  (tests/support/png.py)


def rows(path):
    """The image's rows, top to bottom, as lists of (r, g, b)."""
    width, _, lines = png.load(path)
    return [[tuple(line[4 * x:4 * x + 3]) for x in range(width)] for line in lines]


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
