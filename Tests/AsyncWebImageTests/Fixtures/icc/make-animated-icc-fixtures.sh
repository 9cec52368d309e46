#!/usr/bin/env bash
# Makes the animated colour fixtures in this folder: an APNG and an animated
# WebP whose frames are in Display P3 (`display-p3.icc`, made by
# make-icc-fixtures.sh) carried by an `iCCP` / `ICCP` chunk, and the
# expected sRGB pixels of every frame: ImageMagick's own lcms conversion
# (`-profile display-p3.icc -profile sRGB.icc`) of each frame as apngdis
# extracts it (APNG; whole canvases) or of the source frame (lossless WebP).
# The tests match them within ±3.
#
# Needs: ImageMagick 6 `convert`, apngasm, apngdis, img2webp, webpmux,
# icc-profiles-free, python3.
set -euo pipefail
cd "$(dirname "$0")"
srgb=/usr/share/color/icc/sRGB.icc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Three 24×16 frames of saturated colours (far apart in P3 and sRGB); the
# last has a half-transparent band (alpha passes through unchanged).
convert -size 24x16 gradient:'#ff2000-#00a0ff' -depth 8 "$tmp/f0.png"
convert -size 16x24 gradient:'#20ff40-#ff00c0' -rotate 90 -depth 8 "$tmp/f1.png"
convert "$tmp/f0.png" -fill '#ffe000' -draw 'rectangle 4,4 12,11' -fill '#4020ff80' -draw 'rectangle 0,12 23,15' -depth 8 "$tmp/f2.png"

# APNG by apngasm, then an iCCP chunk (and no gAMA/cHRM/sRGB) after IHDR.
apngasm "$tmp/plain.png" "$tmp/f0.png" "$tmp/f1.png" "$tmp/f2.png" -kc >/dev/null
python3 - "$tmp/plain.png" display-p3.icc display-p3-animated.png <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
icc = open(sys.argv[2], "rb").read()
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
out, pos = data[:8], 8
while pos < len(data):
    length = struct.unpack(">I", data[pos:pos + 4])[0]
    kind = data[pos + 4:pos + 8]
    whole = data[pos:pos + 12 + length]
    pos += 12 + length
    if kind in (b"gAMA", b"cHRM", b"sRGB", b"iCCP"):
        continue
    out += whole
    if kind == b"IHDR":
        out += chunk(b"iCCP", b"Display P3\x00\x00" + zlib.compress(icc, 9))
open(sys.argv[3], "wb").write(out)
PY
mkdir "$tmp/dis"
cp display-p3-animated.png "$tmp/dis/a.png"
(cd "$tmp/dis" && apngdis a.png frame >/dev/null)
n=0
for f in "$tmp"/dis/frame*.png; do
    convert "$f" -profile display-p3.icc -profile "$srgb" -alpha on -depth 8 "rgba:display-p3-animated.png.$n.rgba"
    n=$((n + 1))
done
[ $n = 3 ] || { echo "apngdis gave $n frames" >&2; exit 1; }

# Animated WebP, lossless (its frames are the source frames), then ICCP.
img2webp -loop 0 -lossless -d 100 "$tmp/f0.png" "$tmp/f1.png" "$tmp/f2.png" -o "$tmp/plain.webp" >/dev/null
webpmux -set icc display-p3.icc "$tmp/plain.webp" -o display-p3-animated.webp >/dev/null
webpmux -info display-p3-animated.webp | grep -q "ICC profile" || { echo "no ICCP chunk" >&2; exit 1; }
for n in 0 1 2; do
    convert "$tmp/f$n.png" -profile display-p3.icc -profile "$srgb" -alpha on -depth 8 "rgba:display-p3-animated.webp.$n.rgba"
done
