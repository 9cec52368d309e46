#!/usr/bin/env python3
"""The pyvips baseline of awi-bench's `pyvips-thumbnail` scenario.

usage: pyvips_thumbnail.py SIZE FILE...
       pyvips_thumbnail.py --pillow SIZE FILE...
       pyvips_thumbnail.py --rss SIZE WARMUP FILE

Reads every FILE into memory, makes one untimed pass (libvips' start-up and
first-call costs), then thumbnails each file once more from memory with
`thumbnail_buffer` (libvips' shrink-on-load: JPEG DCT scaling, PNG
decoded in full) into a SIZE x SIZE box, materialising the pixels.
Prints "<cpu seconds> <wall seconds>" of the timed pass: CPU of the whole
process (all libvips threads), so the figure is per core whatever libvips'
threading. libvips' operation cache is off, so no pass reuses another's work.

With --pillow: the same with Pillow instead, `Image.thumbnail((SIZE, SIZE),
LANCZOS)` (a JPEG draft decode at >= 2x the target, a box `reduce`, then
Lanczos-3), the pixels materialised with `tobytes()`.

With --rss (the `thumbnail-rss` scenario): thumbnails WARMUP (a small file of
the same class: libvips loads its loaders on first use), resets the peak RSS
(/proc/self/clear_refs), reads the current RSS, thumbnails FILE once and
prints "rss <bytes> hwm <bytes>": the RSS before and the peak during it.
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


def thumbnail_all_pillow(buffers, size):
    import io
    from PIL import Image
    for data in buffers:
        image = Image.open(io.BytesIO(data))
        image.thumbnail((size, size), Image.LANCZOS)
        image.tobytes()


def status_bytes(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def rss_mode(arguments):
    size = int(arguments[0])
    pyvips.cache_set_max(0)
    with open(arguments[1], "rb") as file:
        warmup = file.read()
    thumbnail_all([warmup], size)
    del warmup
    with open(arguments[2], "rb") as file:
        data = file.read()
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    before = status_bytes("VmRSS:")
    thumbnail_all([data], size)
    print(f"rss {before} hwm {status_bytes('VmHWM:')}")
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--rss":
        return rss_mode(sys.argv[2:])
    arguments = sys.argv[1:]
    run = thumbnail_all
    if arguments and arguments[0] == "--pillow":
        run = thumbnail_all_pillow
        arguments = arguments[1:]
    if len(arguments) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    size = int(arguments[0])
    buffers = []
    for path in arguments[1:]:
        with open(path, "rb") as file:
            buffers.append(file.read())
    pyvips.cache_set_max(0)
    run(buffers, size)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    run(buffers, size)
    print(f"{time.process_time() - cpu0:.6f} {time.perf_counter() - wall0:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
