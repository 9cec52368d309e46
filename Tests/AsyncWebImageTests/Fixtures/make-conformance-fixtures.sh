#!/bin/sh
# Regenerates the fixtures in ./conformance next to this script: one small
# file per conformance case of issue 30, made with tools nobody here wrote
# (ImageMagick, apngasm, cjpeg/djpeg, avifenc/avifdec) and, where the case
# is a damaged or unusual file, a byte patch described beside it. Reference
# pixels are 8-bit RGBA PAM files from the reference decoders (ImageMagick
# for PNG and GIF, Pillow for a GIF without a colour table, djpeg for JPEG,
# avifdec for AVIF), or the source frames of a lossless encode.
#
# Needs: ImageMagick 6 `convert`, apngasm, cjpeg, djpeg, avifenc, avifdec, python3 with Pillow.
set -eu
cd "$(dirname "$0")"
mkdir -p conformance
out=conformance
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
convert=/usr/bin/convert
pam() { $convert "$1" -depth 8 -type TrueColorAlpha "pam:$2"; }

$convert -size 20x16 xc:'#ff0000' -depth 8 "$work/red.png"
$convert -size 20x16 xc:'#00c000' -fill '#0000ff' -draw 'rectangle 2,2 9,7' -depth 8 "$work/green.png"
$convert -size 20x16 xc:'#2040ff' -fill '#ffff00' -draw 'rectangle 10,8 17,13' -depth 8 "$work/blue.png"
$convert -size 24x16 gradient:'#ff8000-#0080ff' -depth 8 "$work/gradient.png"
pam "$work/red.png" "$out/red.pam"
pam "$work/green.png" "$out/green.pam"

# ---- APNG: one animation frame (green) behind a hidden default image (red);
# apngasm -f makes the first input the default image, not a frame (apngasm
# wants frame file names that end in a number).
# (apngasm also reads on through a numbered series, so the third frame is copied after.)
cp "$work/red.png" "$work/apng0.png"; cp "$work/green.png" "$work/apng1.png"
apngasm "$out/apng-hidden-default-one-frame.png" "$work/apng0.png" "$work/apng1.png" -f >/dev/null
cp "$work/blue.png" "$work/apng2.png"
# The same with its one fdAT split in two (sequence numbers 1 and 2).
# An APNG of three frames whose second fcTL skips a sequence number (CRC resealed).
apngasm "$work/three.png" "$work/apng0.png" "$work/apng1.png" "$work/apng2.png" >/dev/null
python3 - "$out" "$work" <<'PY'
import struct, sys, zlib
out, work = sys.argv[1], sys.argv[2]
def chunks(data):
    offset = 8
    while offset < len(data):
        length = struct.unpack(">I", data[offset:offset + 4])[0]
        yield data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
        offset += 12 + length
def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
one = open(f"{out}/apng-hidden-default-one-frame.png", "rb").read()
split = b""
for kind, payload in chunks(one):
    if kind == b"fdAT":
        data = payload[4:]
        half = len(data) // 2
        split += chunk(b"fdAT", struct.pack(">I", 1) + data[:half]) + chunk(b"fdAT", struct.pack(">I", 2) + data[half:])
    else:
        split += chunk(kind, payload)
open(f"{out}/apng-hidden-default-split-fdat.png", "wb").write(one[:8] + split)
three = open(f"{work}/three.png", "rb").read()
gap, fctl = b"", 0
for kind, payload in chunks(three):
    if kind in (b"fcTL", b"fdAT"):
        sequence = struct.unpack(">I", payload[:4])[0]
        if kind == b"fcTL":
            fctl += 1
        if fctl >= 2:
            payload = struct.pack(">I", sequence + 1) + payload[4:]
    gap += chunk(kind, payload)
open(f"{out}/apng-sequence-gap.png", "wb").write(three[:8] + gap)
PY

# ---- PNG whose only IDAT has a wrong CRC (last byte flipped); its zlib stream is intact.
$convert "$work/gradient.png" -define png:color-type=2 "$work/idat.png"
python3 - "$work/idat.png" "$out/png-bad-idat-crc.png" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
offset = data.find(b"IDAT") - 4
length = struct.unpack(">I", data[offset:offset + 4])[0]
data[offset + 8 + length + 3] ^= 0x01
open(sys.argv[2], "wb").write(data)
PY
pam "$work/idat.png" "$out/png-bad-idat-crc.pam"

# ---- GIF: hand-built (GIF89a written byte by byte, LZW by a plain encoder):
# one with no colour table at all; one whose LZW minimum code size is 11.
python3 - "$out" <<'PY'
import struct, sys
out = sys.argv[1]
def lzw(indices, minimum):
    """Literal codes only, a clear code whenever the table would fill."""
    clear, end = 1 << minimum, (1 << minimum) + 1
    codes, size, next_code = [clear], minimum + 1, end + 1
    for index in indices:
        codes.append((index, size))
        next_code += 1
        if next_code == 4096:
            codes.append((clear, size)); size, next_code = minimum + 1, end + 1
        elif next_code == (1 << size) + 1 and size < 12:
            size += 1
    codes.append((end, size))
    bits, count, stream = 0, 0, bytearray()
    first = True
    for item in codes:
        code, width = (item, minimum + 1) if first else item
        first = False
        bits |= code << count; count += width
        while count >= 8:
            stream.append(bits & 0xFF); bits >>= 8; count -= 8
    if count: stream.append(bits & 0xFF)
    blocks = bytearray([minimum])
    for start in range(0, len(stream), 255):
        piece = stream[start:start + 255]
        blocks += bytes([len(piece)]) + piece
    return bytes(blocks + b"\x00")
def gif(width, height, palette, indices, minimum, table_bits=8):
    # Without a table the size field still says 2^table_bits entries (the flag is off).
    flags = (table_bits - 1) if palette is None else 0x80 | 0x70 | 7
    head = b"GIF89a" + struct.pack("<HHBBB", width, height, flags, 0, 0)
    if palette is not None: head += bytes(palette)
    image = b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
    return head + image + lzw(indices, minimum) + b"\x3b"
w, h = 16, 8
indices = [(x * 16 + y * 3) % 256 for y in range(h) for x in range(w)]
open(f"{out}/gif-no-color-table.gif", "wb").write(gif(w, h, None, indices, 8))
bilevel = [(x + y) % 2 for y in range(h) for x in range(w)]
open(f"{out}/gif-no-color-table-1bit.gif", "wb").write(gif(w, h, None, bilevel, 2, table_bits=1))
palette = []
for i in range(256): palette += [i, 255 - i, (i * 7) % 256]
open(f"{out}/gif-lzw-code-size-11.gif", "wb").write(gif(w, h, palette, indices, 11))
PY
# Without a colour table ImageMagick and libvips draw black; Pillow reads the
# index as a grey level, the reading the coder follows: Pillow is the reference.
for name in gif-no-color-table gif-no-color-table-1bit; do
    python3 -c "from PIL import Image; Image.open('$out/$name.gif').convert('RGBA').save('$work/$name.png')"
    pam "$work/$name.png" "$out/$name.pam"
done
pam "$out/gif-lzw-code-size-11.gif" "$out/gif-lzw-code-size-11.pam"

# ---- JPEG: a baseline file without its EOI marker; a progressive one
# without it; a file with restart markers and 1,214 padding bytes before
# its first RST (inside the scan). References: djpeg's output of each.
$convert "$work/gradient.png" -resize 40x32\! "$work/big.ppm"
cjpeg -quality 90 "$work/big.ppm" > "$work/baseline.jpg"
head -c -2 "$work/baseline.jpg" > "$out/jpeg-no-eoi.jpg"
cjpeg -quality 90 -progressive "$work/big.ppm" > "$work/progressive.jpg"
head -c -2 "$work/progressive.jpg" > "$out/jpeg-progressive-no-eoi.jpg"
cjpeg -quality 90 -restart 1 "$work/big.ppm" > "$work/restart.jpg"
python3 - "$work/restart.jpg" "$out/jpeg-scan-padding.jpg" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
rst = data.find(b"\xff\xd0")
open(sys.argv[2], "wb").write(data[:rst] + b"\x00" * 1214 + data[rst:])
PY
for name in jpeg-no-eoi jpeg-progressive-no-eoi jpeg-scan-padding; do
    # djpeg exits 2 after a warning, having written what it decoded.
    djpeg -pnm "$out/$name.jpg" > "$work/$name.ppm" 2>/dev/null || [ $? -eq 2 ]
    pam "$work/$name.ppm" "$out/$name.pam"
done

# ---- AVIF: a 4:2:0 clean aperture with an odd X offset (libavif's strict
# mode refuses it; avifenc writes 0, patched to 1); reference avifdec --no-strict.
avifenc -s 8 -y 420 --clap 16,1,12,1,0,1,0,1 "$work/green.png" "$work/clap.avif" >/dev/null
python3 - "$work/clap.avif" "$out/avif-clap-odd-offset.avif" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
offset = data.find(b"clap") + 4 + 16  # after width and height num/den: horizOff numerator
data[offset:offset + 4] = (1).to_bytes(4, "big")
open(sys.argv[2], "wb").write(data)
PY
avifdec --no-strict "$out/avif-clap-odd-offset.avif" "$work/clap-ref.png" >/dev/null
pam "$work/clap-ref.png" "$out/avif-clap-odd-offset.pam"

# ---- AVIF image sequences: three frames of 100, 200 and 300 ms (timescale
# 1000), lossless (the frames must come back exactly) and lossy (against
# avifdec --index N).
$convert "$work/green.png" -alpha on -channel A -fx '0.5+0.5*(i/w)' "$work/green-alpha.png"
avifenc -s 8 -l --timescale 1000 --duration 100 "$work/red.png" --duration 200 "$work/green.png" \
    --duration 300 "$work/blue.png" "$out/avif-sequence-lossless.avif" >/dev/null
pam "$work/blue.png" "$out/blue.pam"
avifenc -s 8 --timescale 1000 --duration 100 "$work/gradient.png" --duration 50 "$work/gradient.png" \
    --duration 80 "$work/gradient.png" "$out/avif-sequence-lossy.avif" >/dev/null 2>&1 || true
for index in 0 1 2; do
    avifdec --index $index "$out/avif-sequence-lossy.avif" "$work/lossy-$index.png" >/dev/null
    pam "$work/lossy-$index.png" "$out/avif-sequence-lossy-$index.pam"
done
