#!/usr/bin/env python3
"""Writes a photo-like RGB scene as binary PPM (pure Python, no packages): smooth shading,
hard-edged blocks and sensor-like noise, the same recipe as e2e_bench.py's.

usage: make_scene.py WIDTH HEIGHT OUT.ppm     (convert: gpublur OUT.ppm OUT.png --size 1)
"""
import math, random, sys

w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(1)
clamp = lambda v: 0 if v < 0 else 255 if v > 255 else int(v)
with open(path, "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, h))
    for y in range(h):
        row = bytearray()
        for x in range(w):
            r = 128 + 100 * math.sin(x / 97) * math.cos(y / 53) + rng.gauss(0, 12)
            g = 90 + 80 * math.sin((x + y) / 141) + (60 if (x // 160 + y // 120) % 2 else 0) + rng.gauss(0, 12)
            b = 60 + 150 * y / h + rng.gauss(0, 12)
            row += bytes((clamp(r), clamp(g), clamp(b)))
        f.write(row)
