#!/usr/bin/env python3
"""The pyvips baseline of awi-bench's `pyvips-thumbnail` scenario.

usage: pyvips_thumbnail.py SIZE FILE...

Reads every FILE into memory, makes one untimed pass (libvips' start-up and
first-call costs), then thumbnails each file once more from memory with
`thumbnail_buffer` (libvips' shrink-on-load: JPEG DCT scaling, PNG
decoded in full) into a SIZE x SIZE box, materialising the pixels.
Prints "<cpu seconds> <wall seconds>" of the timed pass: CPU of the whole
process (all libvips threads), so the figure is per core whatever libvips'
threading. libvips' operation cache is off, so no pass reuses another's work.
"""
import os
import sys
import time

# One worker thread: the comparison is per core (CPU time is counted anyway).
os.environ.setdefault("VIPS_CONCURRENCY", "1")

import pyvips  # noqa: E402


def thumbnail_all(buffers, size):
    for data in buffers:
        image = pyvips.Image.thumbnail_buffer(data, size, height=size)
        image.write_to_memory()


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    size = int(sys.argv[1])
    buffers = []
    for path in sys.argv[2:]:
        with open(path, "rb") as file:
            buffers.append(file.read())
    pyvips.cache_set_max(0)
    thumbnail_all(buffers, size)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    thumbnail_all(buffers, size)
    print(f"{time.process_time() - cpu0:.6f} {time.perf_counter() - wall0:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
