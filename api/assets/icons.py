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

from favicon import png

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, size, maskable in [("icon-192.png", 192, False), ("icon-512.png", 512, False),
                                 ("maskable-192.png", 192, True), ("maskable-512.png", 512, True)]:
        path = os.path.join(here, "icons", name)
        with open(path, "wb") as f:
            f.write(png(size, maskable))
        print(f"wrote {path}")
