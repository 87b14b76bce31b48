#!/usr/bin/env python3
"""Writes the web app's icons under api/assets/icons/ (named by the web app manifest,
`/manifest.webmanifest`): favicon.py's design (favicon.svg: the board's frame, the maze, a
disc of each party's colour where its chief starts) as PNG images. Standard library only;
run it again after changing the design in favicon.py.

    python3 api/assets/icons.py

- icon-192.png, icon-512.png: the design filling the square (`purpose: any`);
- maskable-192.png, maskable-512.png (`purpose: maskable`): the design inside the safe
  zone (the centred circle of 80 % of the width, which a launcher's mask never cuts),
  on the frame's colour to the edges.
"""

import os
import struct
import zlib

from favicon import FRAME, colour_at

# The maskable icon's design: a square of this share of the side, centred; its corners
# stay inside the safe zone's circle (radius 0.4: 0.56 * sqrt(2) / 2 < 0.4).
MASKABLE_SHARE = 0.56


def png(size, maskable=False):
    """A size x size RGBA PNG of the design, 4x4 supersampled."""
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


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, size, maskable in [("icon-192.png", 192, False), ("icon-512.png", 512, False),
                                 ("maskable-192.png", 192, True), ("maskable-512.png", 512, True)]:
        path = os.path.join(here, "icons", name)
        with open(path, "wb") as f:
            f.write(png(size, maskable))
        print(f"wrote {path}")
