#!/bin/sh
# Regenerates the seed corpora in ./Corpus: a few small test fixtures plus
# hand-made edge cases (written by the Python below). Deterministic.
set -eu
cd "$(dirname "$0")"
fixtures=../Tests/AsyncWebImageTests/Fixtures
rm -rf Corpus
mkdir -p Corpus/FuzzFormatDetect Corpus/FuzzJPEGDecode Corpus/FuzzPNGDecode Corpus/FuzzProgressive
mkdir -p Corpus/FuzzWebPDecode Corpus/FuzzGIFDecode Corpus/FuzzGIFAnimation
mkdir -p Corpus/FuzzAVIFDecode Corpus/FuzzHEIFDecode

for name in orientation-6 gray baseline-arithmetic progressive baseline-restart baseline-422 many-scans ycck; do
    cp "$fixtures/jpeg/$name.jpg" Corpus/FuzzJPEGDecode/
done
for name in gray1-interlaced palette1-trns palette4-trns-interlaced rgb16-trns gray16-trns grayalpha8 \
    exif-orientation6 rgb8-interlaced palette8-trns grayalpha16 huge-header bad-crc rgba16-smooth progressive-plain; do
    cp "$fixtures/png/$name.png" Corpus/FuzzPNGDecode/
done
for name in rgb8 rgba8 rgb10 irot1-imir0 icc; do
    cp "$fixtures/avif/$name.avif" Corpus/FuzzAVIFDecode/
done
for name in rgb8 rgba8 rgb10 thumbnail icc; do
    cp "$fixtures/heif/$name.heic" Corpus/FuzzHEIFDecode/
done
for name in progressive baseline-restart orientation-6; do
    cp "$fixtures/jpeg/$name.jpg" Corpus/FuzzProgressive/
done
for name in palette4-trns-interlaced rgb8-interlaced grayalpha16 exif-orientation6; do
    cp "$fixtures/png/$name.png" Corpus/FuzzProgressive/
done
for name in lossy lossless alpha-lossy alpha-lossless orientation-6 icc-a98 animated; do
    cp "$fixtures/webp/$name.webp" Corpus/FuzzWebPDecode/
done
for name in still interlaced transparent offset-animated; do
    cp "$fixtures/gif/$name.gif" Corpus/FuzzGIFDecode/
done
mkdir -p Corpus/FuzzAnimatedWebPDecode Corpus/FuzzAPNGDecode
for name in disposal lossy lossless one-frame; do
    cp "$fixtures/animation/$name.webp" Corpus/FuzzAnimatedWebPDecode/
done
cp "$fixtures/webp/animated.webp" Corpus/FuzzAnimatedWebPDecode/
for name in animated hidden-default ops palette; do
    cp "$fixtures/animation/$name.png" Corpus/FuzzAPNGDecode/
done
cp "$fixtures/gif/offset-animated.gif" Corpus/FuzzGIFAnimation/
# Every disposal method, offsets, a transparent frame, delays of 0 and 1 cs.
convert -dispose none -delay 10 -size 12x10 xc:blue \
    -dispose background -delay 0 -page +2+2 \( -size 4x4 xc:red \) \
    -dispose previous -delay 1 -page +6+4 \( -size 5x3 xc:lime \) \
    -dispose none -delay 7 -page +1+5 \( -size 6x5 xc:none -fill yellow -draw "rectangle 1,1 3,3" \) \
    -loop 3 Corpus/FuzzGIFAnimation/disposal.gif

python3 - <<'PYTHON'
import struct, zlib

def write(path, data):
    with open(path, "wb") as f:
        f.write(data)

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

def png(width, height, depth=8, colour=2, interlace=0, rows=None, extra=b""):
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace))
    idat = chunk(b"IDAT", zlib.compress(rows if rows is not None else b"\0" * ((width * 3 + 1) * height)))
    return b"\x89PNG\r\n\x1a\n" + ihdr + extra + idat + chunk(b"IEND", b"")

gray = open("../Tests/AsyncWebImageTests/Fixtures/jpeg/gray.jpg", "rb").read()

def with_frame_size(jpeg, width, height):
    # Patches the first SOF0/SOF2 segment's height and width.
    data = bytearray(jpeg)
    at = 2
    while at + 4 <= len(data):
        marker, length = data[at + 1], data[at + 2] << 8 | data[at + 3]
        if marker in (0xC0, 0xC1, 0xC2):
            data[at + 5:at + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        at += 2 + length
    raise SystemExit("no SOF")

jpeg = {
    "huge-frame.jpg": with_frame_size(gray, 64250, 64250),  # the pixel limit, before any allocation
    "wide-frame.jpg": with_frame_size(gray, 65500, 1),      # extreme aspect for thumbnails
    "soi-eoi.jpg": b"\xff\xd8\xff\xd9",
    "truncated.jpg": gray[: len(gray) // 2],
    "trailing-bytes.jpg": gray + b"\0" * 32,
}
pngs = {
    "tiny-rgb.png": png(1, 1),
    # Large enough (at least twice the 48×32 thumbnail) for shrink-on-load.
    "shrink-rgb.png": png(200, 150, rows=b"".join(b"\0" + bytes((y * 7 + x) & 0xFF for x in range(600)) for y in range(150))),
    "shrink-gray16.png": png(128, 96, depth=16, colour=0, rows=b"".join(b"\0" + bytes(256) for _ in range(96))),
    "ihdr-only.png": png(3, 2)[:33],
    "zero-width.png": png(0, 4),
    "adam7-1x1.png": png(1, 1, interlace=1),
    "ztxt.png": png(2, 2, extra=chunk(b"zTXt", b"k\0\0" + zlib.compress(b"x" * 4096))),
    "exif-bad-offset.png": png(2, 2, extra=chunk(b"eXIf", b"MM\0*\xff\xff\xff\xf0")),
}
def streamed(width, channels, colour, height=1000):
    # Over 4 MiB of image data, so a thumbnail takes the row-by-row (ISA-L)
    # inflate; every filter type in turn, a busy stretch every 97th row, the
    # stream split over two IDAT chunks. Deterministic and about 40 KB.
    rows = []
    for y in range(height):
        row = bytearray(((x * 3 + y) & 0xFF) if x % 64 < 2 else 0 for x in range(width * channels))
        if y % 97 == 0:
            row[:256] = bytes((x * x + y * 31) & 0xFF for x in range(256))
        rows.append(bytes([y % 5]) + bytes(row))
    stream = zlib.compress(b"".join(rows), 9)
    half = len(stream) // 2
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0))
    return (b"\x89PNG\r\n\x1a\n" + ihdr + chunk(b"IDAT", stream[:half]) + chunk(b"IDAT", stream[half:])
            + chunk(b"IEND", b""))

write("Corpus/FuzzPNGDecode/streamed-rgba-1200x1000.png", streamed(1200, 4, 6))
write("Corpus/FuzzPNGDecode/streamed-rgb-1500x1000.png", streamed(1500, 3, 2))
for name, data in jpeg.items():
    write("Corpus/FuzzJPEGDecode/" + name, data)
    write("Corpus/FuzzProgressive/" + name, data)
for name, data in pngs.items():
    write("Corpus/FuzzPNGDecode/" + name, data)
    write("Corpus/FuzzProgressive/" + name, data)

detect = {
    "gif87a": b"GIF87a\x01\x00\x01\x00",
    "gif89a": b"GIF89a\x01\x00\x01\x00",
    "webp": b"RIFF\x24\0\0\0WEBPVP8 ",
    "heic": b"\0\0\0\x18ftypheic\0\0\0\0mif1heic",
    "avif": b"\0\0\0\x1cftypavif\0\0\0\0avifmif1miaf",
    "ftyp-short-box": b"\0\0\0\x04ftypmif1",
    "tiff-le": b"II*\0\x08\0\0\0",
    "tiff-be": b"MM\0*\0\0\0\x08",
    "bmp": b"BM" + b"\0" * 12 + struct.pack("<I", 40) + b"\0" * 8,
    "bm-text": b"BMW is a car maker, not a bitmap",
    "html": b"<!DOCTYPE html><html><body>404</body></html>",
    "jpeg": gray[:64],
    "png": png(1, 1),
    "empty": b"",
}
for name, data in detect.items():
    write("Corpus/FuzzFormatDetect/" + name, data)

def with_ispe(data, width, height):
    """Every ispe box of an AVIF/HEIC file declaring width x height."""
    data = bytearray(data)
    at = data.find(b"ispe")
    while at >= 0:
        data[at + 8:at + 16] = struct.pack(">II", width, height)
        at = data.find(b"ispe", at + 16)
    return bytes(data)

avif = open("../Tests/AsyncWebImageTests/Fixtures/avif/rgb8.avif", "rb").read()
heic = open("../Tests/AsyncWebImageTests/Fixtures/heif/rgb8.heic", "rb").read()
write("Corpus/FuzzAVIFDecode/huge-ispe.avif", with_ispe(avif, 100000, 100000))
write("Corpus/FuzzAVIFDecode/ispe-over-limit.avif", with_ispe(avif, 16000, 16000))
write("Corpus/FuzzAVIFDecode/ispe-below-frame.avif", with_ispe(avif, 32, 24))
write("Corpus/FuzzHEIFDecode/huge-ispe.heic", with_ispe(heic, 30000, 30000))
PYTHON
