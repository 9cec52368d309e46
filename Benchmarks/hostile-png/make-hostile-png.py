#!/usr/bin/env python3
"""Writes the hostile PNGs of issue 12.4: tiny files that declare huge images.

Each is an RGBA 16-bit PNG of all-zero pixels, so its image data compresses
about 1000:1 (a 49 MP image is under 400 KB) while a decoder must still
produce every row. The zlib stream is written in slices, so this script never
holds the image either.

    make-hostile-png.py OUT_DIR     # rgba16-49mp.png, rgba16-49mp-interlaced.png, rgba16-100mp.png
"""
import os
import struct
import sys
import zlib

ADAM7 = [(0, 8, 0, 8), (0, 8, 4, 8), (4, 8, 0, 4), (0, 4, 2, 4), (2, 4, 0, 2), (0, 2, 1, 2), (1, 2, 0, 1)]


def inflated_size(width, height, bytes_per_pixel, interlaced):
    """Bytes of filtered rows: rows x (1 filter byte + row bytes), per Adam7 pass when interlaced."""
    passes = ADAM7 if interlaced else [(0, 1, 0, 1)]
    total = 0
    for row_start, row_step, column_start, column_step in passes:
        columns = max(0, (width - column_start + column_step - 1) // column_step)
        rows = max(0, (height - row_start + row_step - 1) // row_step)
        if columns and rows:
            total += rows * (1 + columns * bytes_per_pixel)
    return total


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def write(path, width, height, interlaced):
    # Colour type 6 (RGBA), 16 bits: 8 bytes a pixel. All-zero rows with filter 0 are valid in any layout.
    size = inflated_size(width, height, 8, interlaced)
    compressor = zlib.compressobj(9)
    data = bytearray()
    slice_bytes = 1 << 24
    zeros = bytes(slice_bytes)
    remaining = size
    while remaining > 0:
        n = min(remaining, slice_bytes)
        data += compressor.compress(zeros[:n])
        remaining -= n
    data += compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 16, 6, 0, 0, 1 if interlaced else 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", bytes(data)) + chunk(b"IEND", b""))
    print(f"{path}: {width}x{height} RGBA16{' Adam7' if interlaced else ''}, {os.path.getsize(path) // 1024} KB, inflates to {size >> 20} MiB")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "rgba16-49mp.png"), 7000, 7000, False)
    write(os.path.join(out, "rgba16-49mp-interlaced.png"), 7000, 7000, True)
    write(os.path.join(out, "rgba16-100mp.png"), 10000, 10000, False)


if __name__ == "__main__":
    main()
