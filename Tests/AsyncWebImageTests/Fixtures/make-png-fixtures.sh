#!/bin/sh
# Regenerates the PNG fixtures in ./png next to this script.
#
# The PNGs are written by the Python below (zlib only), so every colour type,
# bit depth, tRNS variant, filter type and Adam7 interlacing is exactly what
# its name says. The reference pixels beside each decodable PNG come from an
# independent decoder, ImageMagick (`convert NAME.png -depth 8 rgba:NAME.rgba`,
# 8-bit RGBA with straight alpha; `.rgba16` for 16-bit PNGs, see below).
#
# Needs: python3, ImageMagick's `convert`. Deterministic: rerunning it
# reproduces the committed files byte for byte.
set -eu
cd "$(dirname "$0")"
mkdir -p png
cd png

python3 - <<'PYTHON'
import struct, zlib

W, H = 37, 23  # odd sizes exercise partial bytes and short Adam7 passes


def chunk(kind, body):
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_rows(rows, bpp):
    """Filters each row with a different filter type (row index mod 5)."""
    out = bytearray()
    prev = bytes(len(rows[0])) if rows else b""
    for y, row in enumerate(rows):
        kind = y % 5
        out.append(kind)
        for i, v in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
            out.append((v - pred) & 0xFF)
        prev = row
    return bytes(out)


def pack_row(samples, depth):
    """Packs one row of samples (already per-channel, flattened) at `depth` bits."""
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    out = bytearray()
    per = 8 // depth
    for i in range(0, len(samples), per):
        byte = 0
        group = samples[i:i + per]
        for j, s in enumerate(group):
            byte |= s << (8 - depth * (j + 1))
        out.append(byte)
    return bytes(out)


CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def image_data(pixels, w, h, ctype, depth, interlace):
    """pixels[y][x] is a tuple of channel samples."""
    bpp = max(1, CHANNELS[ctype] * depth // 8)
    if not interlace:
        rows = [pack_row([s for p in pixels[y] for s in p], depth) for y in range(h)]
        return filter_rows(rows, bpp)
    out = b""
    for x0, y0, dx, dy in ADAM7:
        xs = list(range(x0, w, dx))
        ys = list(range(y0, h, dy))
        if not xs or not ys:
            continue
        rows = [pack_row([s for x in xs for s in pixels[y][x]], depth) for y in ys]
        out += filter_rows(rows, bpp)
    return out


def png(name, pixels, ctype, depth, interlace=False, plte=None, trns=None, extra_before=b"",
        idat_size=256, w=W, h=H, level=9, extra_after=b""):
    ihdr = struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 1 if interlace else 0)
    data = zlib.compress(image_data(pixels, w, h, ctype, depth, interlace), level)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra_before
    if plte is not None:
        out += chunk(b"PLTE", b"".join(bytes(c) for c in plte))
    if trns is not None:
        out += chunk(b"tRNS", trns)
    # Several IDAT chunks, as real encoders write them, so that truncation
    # and progressive tests cut through chunk boundaries.
    for i in range(0, len(data), idat_size):
        out += chunk(b"IDAT", data[i:i + idat_size])
    out += extra_after + chunk(b"IEND", b"")
    open(name + ".png", "wb").write(out)


def grid(f, w=W, h=H):
    return [[f(x, y) for x in range(w)] for y in range(h)]


def g16(x, y):  # 16-bit samples that land on every rounding case
    return (x * 1777 + y * 4099 + x * y * 31) % 65536


# Grayscale, every depth.
for d in (1, 2, 4, 8):
    png(f"gray{d}", grid(lambda x, y: ((x * 3 + y * 5) % (1 << d),)), 0, d)
png("gray16", grid(lambda x, y: (g16(x, y),)), 0, 16)

# Grayscale with tRNS: the key grey becomes fully transparent.
png("gray8-trns", grid(lambda x, y: ((x * 7 + y) % 64,)), 0, 8, trns=struct.pack(">H", 21))
png("gray2-trns", grid(lambda x, y: ((x + y) % 4,)), 0, 2, trns=struct.pack(">H", 2))
png("gray16-trns", grid(lambda x, y: (((x * 5 + y) % 16) * 4369,)), 0, 16, trns=struct.pack(">H", 7 * 4369))

# Truecolour.
rgb = lambda x, y: (x * 255 // (W - 1), y * 255 // (H - 1), (x * 3 + y * 5) % 11 * 25)
png("rgb8", grid(rgb), 2, 8)
png("rgb16", grid(lambda x, y: (g16(x, y), g16(y, x), (x * 997 + 12345) % 65536)), 2, 16)
png("rgb8-trns", grid(lambda x, y: ((x % 4) * 80, (y % 3) * 100, 50)), 2, 8, trns=struct.pack(">HHH", 80, 100, 50))
png("rgb16-trns", grid(lambda x, y: ((x % 4) * 20000, (y % 3) * 30000, 5000)), 2, 16,
    trns=struct.pack(">HHH", 20000, 30000, 5000))

# Palette, every depth; with and without tRNS (tRNS shorter than the palette).
for d in (1, 2, 4, 8):
    n = 1 << d
    plte = [((i * 67) % 256, (i * 131 + 40) % 256, (255 - i * 29) % 256) for i in range(n)]
    pix = grid(lambda x, y: ((x * 5 + y * 3) % n,))
    png(f"palette{d}", pix, 3, d, plte=plte)
    alphas = bytes((i * 97) % 256 for i in range(max(1, n // 2 + 1)))
    png(f"palette{d}-trns", pix, 3, d, plte=plte, trns=alphas)

# Grey + alpha and RGBA, 8 and 16 bits; alpha covers 0 and full.
png("grayalpha8", grid(lambda x, y: ((x * 7) % 256, (y * 12) % 256)), 4, 8)
png("grayalpha16", grid(lambda x, y: (g16(x, y), g16(y, x))), 4, 16)
png("rgba8", grid(lambda x, y: (x * 7 % 256, y * 11 % 256, (x + y) * 5 % 256, (x * 13 + y * 17) % 256)), 6, 8)
png("rgba16", grid(lambda x, y: (g16(x, y), g16(y, x), (x * 8191) % 65536, (y * 2851 + x) % 65536)), 6, 16)

# A smooth 16-bit RGBA image whose size divides by 4, for shrink-on-load.
png("rgba16-smooth", grid(lambda x, y: (x * 1000, y * 1300, (x + y) * 500, 65535 - x * 900), 64, 48), 6, 16, w=64, h=48)

# Adam7 interlaced twins of several of the above.
png("gray1-interlaced", grid(lambda x, y: ((x * 3 + y * 5) % 2,)), 0, 1, interlace=True)
png("palette4-trns-interlaced", grid(lambda x, y: ((x * 5 + y * 3) % 16,)), 3, 4,
    plte=[((i * 67) % 256, (i * 131 + 40) % 256, (255 - i * 29) % 256) for i in range(16)],
    trns=bytes((i * 97) % 256 for i in range(9)), interlace=True)
png("rgb8-interlaced", grid(rgb), 2, 8, interlace=True)
png("rgba16-interlaced", grid(lambda x, y: (g16(x, y), g16(y, x), (x * 8191) % 65536, (y * 2851 + x) % 65536)), 6, 16,
    interlace=True)

# A larger interlaced photo-like image for progressive previews (small IDATs).
BW, BH = 160, 120
big = lambda x, y: ((x * 255) // BW, (y * 255) // BH, ((x // 10 + y // 10) % 2) * 200 + 20)
png("progressive-interlaced", grid(big, BW, BH), 2, 8, interlace=True, idat_size=512, w=BW, h=BH, level=6)
png("progressive-plain", grid(big, BW, BH), 2, 8, interlace=False, idat_size=512, w=BW, h=BH, level=6)
# The same with all image data in one IDAT chunk, as many encoders write it.
png("progressive-interlaced-one-idat", grid(big, BW, BH), 2, 8, interlace=True, idat_size=1 << 30, w=BW, h=BH, level=6)

# EXIF orientation 6 (rotate 90° clockwise) in an eXIf chunk before IDAT.
exif = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0) + struct.pack(">I", 0)
png("exif-orientation6", grid(rgb), 2, 8, extra_before=chunk(b"eXIf", exif))
# The same with orientation 8, little-endian, in an eXIf chunk after the image data.
exif8 = b"II\x2a\x00" + struct.pack("<I", 8) + struct.pack("<H", 1) + struct.pack("<HHIHH", 0x0112, 3, 1, 8, 0) + struct.pack("<I", 0)
png("exif-after-idat-orientation8", grid(rgb), 2, 8, extra_after=chunk(b"eXIf", exif8))

# --- Bad input (no reference pixels) ---
good = open("rgb8.png", "rb").read()
# The CRC of the first IDAT is wrong (its data is intact, so only the CRC
# check can catch it).
idat = good.index(b"IDAT")
length = struct.unpack(">I", good[idat - 4:idat])[0]
bad = bytearray(good); bad[idat + 4 + length] ^= 0xFF
open("bad-crc.png", "wb").write(bytes(bad))

# A header declaring 100000×100000 8-bit RGBA with a tiny IDAT.
huge = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 6, 0, 0, 0))
huge += chunk(b"IDAT", zlib.compress(b"\x00" * 1024)) + chunk(b"IEND", b"")
open("huge-header.png", "wb").write(huge)

# Deflate bombs: a 1×1 image whose IDAT inflates to 16 MiB, and a zTXt chunk
# inflating to 16 MiB of text.
bomb = zlib.compress(b"\x00" * (16 << 20), 9)
one = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
open("bomb-idat.png", "wb").write(b"\x89PNG\r\n\x1a\n" + one + chunk(b"IDAT", bomb) + chunk(b"IEND", b""))
ztxt = chunk(b"zTXt", b"Comment\x00\x00" + bomb)
open("bomb-ztxt.png", "wb").write(
    b"\x89PNG\r\n\x1a\n" + one + ztxt + chunk(b"IDAT", zlib.compress(b"\x00\x80")) + chunk(b"IEND", b""))

# The legitimate extreme of PNGCoder's image-data length check (IDAT at
# least 1/1032 of the filtered rows): a 4000×4000 1-bit grey image of zeros,
# zlib level 9: 1965 bytes, 24 over the bound, inflating 1020 times (zlib's
# best is about 1030, reached at 8000×8000; deflate's ceiling is 1032). The
# tests decode it, so it has no reference file.
zero = zlib.compress(b"\x00" * (4000 * (1 + 500)), 9)
zhdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 4000, 4000, 1, 0, 0, 0, 0))
open("zero-gray1-4000.png", "wb").write(b"\x89PNG\r\n\x1a\n" + zhdr + chunk(b"IDAT", zero) + chunk(b"IEND", b""))
PYTHON

# Reference pixels from ImageMagick for every decodable fixture: 8-bit RGBA
# for the 8-bit and smaller depths; 16-bit big-endian RGBA for 16-bit PNGs,
# so that the tests check the decoder's 16 → 8 rounding themselves (this
# ImageMagick truncates when asked for `-depth 8`).
for f in *.png; do
    case "$f" in
        bad-*|huge-*|bomb-*|zero-*) ;;
        *16*) convert "$f" -depth 16 -endian MSB "rgba:${f%.png}.rgba16" ;;
        *) convert "$f" -depth 8 "rgba:${f%.png}.rgba" ;;
    esac
done
