#!/usr/bin/env python3
"""Writes api/assets/favicon.ico: favicon.svg's design (the board's frame, the maze, a disc
of each party's colour where its chief starts) at 16 and 32 pixels, PNG images inside the
ICO container. Standard library only; run it again after changing the design.

    python3 api/assets/favicon.py
"""

import os
import struct
import zlib

PAPER, FRAME, MAZE, INK = (0xFA, 0xF7, 0xF0), (0x4A, 0x3F, 0x2C), (0x5B, 0x4A, 0x78), (0x1A, 0x1A, 0x1A)
DISCS = [((8, 8), (0xD5, 0x5E, 0x00)), ((24, 8), (0x00, 0x9E, 0x73)),
         ((8, 24), (0x00, 0x72, 0xB2)), ((24, 24), (0xF0, 0xE4, 0x42))]


def colour_at(x, y):
    """The colour at (x, y) of the 32-unit design (None: transparent)."""
    if not (0 <= x < 32 and 0 <= y < 32):
        return None
    for (cx, cy), fill in DISCS:
        d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
        if d <= 4.5:
            return fill
        if d <= 5.5:
            return INK
    if 11 <= x < 21 and 11 <= y < 21:
        return MAZE
    if x < 2 or y < 2 or x >= 30 or y >= 30:
        return FRAME
    return PAPER


# The maskable icon's design: a square of this share of the side, centred; its corners
# stay inside the safe zone's circle (radius 0.4: 0.56 * sqrt(2) / 2 < 0.4).
MASKABLE_SHARE = 0.56


def png(size, maskable=False):
    """A size x size RGBA PNG of the design, 4x4 supersampled; `maskable`: inside the safe
    zone of a launcher's mask (see icons.py), on the frame's colour to the edges."""
    share = MASKABLE_SHARE if maskable else 1.0
    offset = size * (1 - share) / 2
    step = 32 / (size * share)
    rows = []
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            samples = []
            for i in range(4):
                for j in range(4):
                    x = (px - offset + (i + 0.5) / 4) * step
                    y = (py - offset + (j + 0.5) / 4) * step
                    c = colour_at(x, y)
                    samples.append(FRAME if c is None and maskable else c)
            opaque = [c for c in samples if c is not None]
            if not opaque:
                row += bytes(4)
                continue
            rgb = [round(sum(c[k] for c in opaque) / len(opaque)) for k in range(3)]
            row += bytes(rgb + [round(255 * len(opaque) / len(samples))])
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))


def ico(sizes):
    images = [png(s) for s in sizes]
    out = struct.pack("<HHH", 0, 1, len(images))
    offset = 6 + 16 * len(images)
    for size, image in zip(sizes, images):
        out += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(image), offset)
        offset += len(image)
    return out + b"".join(images)


if __name__ == "__main__":
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "favicon.ico")
    with open(path, "wb") as f:
        f.write(ico([16, 32]))
    print(f"wrote {path}")
