#!/usr/bin/env bash
# Makes the colour-management fixtures in this folder and their expected
# sRGB pixels. Needs ImageMagick 6 (with lcms), icc-profiles-free,
# liblcms2-dev and a C compiler (for the Display P3 profile), webp, python3.
#
# The pictures are small synthetic photos converted from sRGB into a wide
# gamut profile which is embedded; the expected pixels are ImageMagick's own
# lcms conversion back to sRGB (`convert in -profile sRGB.icc`), which the
# tests match within ±3.
set -euo pipefail
cd "$(dirname "$0")"
icc=/usr/share/color/icc
srgb=$icc/sRGB.icc
adobe=$icc/compatibleWithAdobeRGB1998.icc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Display P3 is not in icc-profiles-free: built with lcms2 (D65 white, the
# P3 primaries, the sRGB tone curve), as Apple's Display P3 is defined.
cat > "$tmp/p3.c" <<'C'
#include <lcms2.h>
int main(int argc, char **argv) {
    cmsCIExyY white = {0.3127, 0.3290, 1.0};
    cmsCIExyYTRIPLE primaries = {{0.680, 0.320, 1.0}, {0.265, 0.690, 1.0}, {0.150, 0.060, 1.0}};
    cmsFloat64Number srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb);
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE p = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsMLU *desc = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(desc, "en", "US", "Display P3 (AsyncWebImage fixture)");
    cmsWriteTag(p, cmsSigProfileDescriptionTag, desc);
    return cmsSaveProfileToFile(p, argv[1]) ? 0 : 1;
}
C
cc -o "$tmp/p3" "$tmp/p3.c" $(pkg-config --cflags --libs lcms2)
"$tmp/p3" display-p3.icc

# A 48×32 synthetic picture: hue across, lightness down, saturated corners.
python3 - "$tmp/source.ppm" "$tmp/gray.pgm" <<'PY'
import colorsys, sys
w, h = 48, 32
rgb = bytearray()
for y in range(h):
    for x in range(w):
        r, g, b = colorsys.hls_to_rgb(x / w, 0.1 + 0.8 * y / (h - 1), 0.5 + 0.5 * ((x + y) % 2))
        rgb += bytes(round(c * 255) for c in (r, g, b))
open(sys.argv[1], "wb").write(b"P6 %d %d 255\n" % (w, h) + rgb)
gray = bytes((x * 255 // (w - 1) + y * 3) % 256 for y in range(h) for x in range(w))
open(sys.argv[2], "wb").write(b"P5 %d %d 255\n" % (w, h) + gray)
PY

expect() { # expect IN OUT MAP: ImageMagick's conversion to sRGB, raw 8-bit
    convert "$1" -profile "$srgb" -depth 8 "$3:$2"
}

for name in adobe-rgb display-p3; do
    profile=$adobe; [ $name = display-p3 ] && profile=display-p3.icc
    convert "$tmp/source.ppm" -profile "$srgb" -profile "$profile" -sampling-factor 1x1 -quality 95 $name.jpg
    expect $name.jpg $name.jpg.rgb rgb
    convert "$tmp/source.ppm" -profile "$srgb" -profile "$profile" $name.png
    expect $name.png $name.png.rgb rgb
done
# RGBA: the P3 picture with a horizontal alpha ramp (alpha is not converted).
convert display-p3.png \( -size 32x48 gradient:white-black -rotate 90 \) -alpha off -compose CopyOpacity -composite display-p3-alpha.png
expect display-p3-alpha.png display-p3-alpha.png.rgba rgba
# WebP (a standalone RIFF fixture for the WebP decoder): lossless, so the
# expected pixels are the PNG's.
cwebp -quiet -lossless -metadata icc display-p3.png -o display-p3.webp
webpmux -info display-p3.webp | grep -q "ICC profile" || { echo "display-p3.webp has no ICCP chunk" >&2; exit 1; }
expect display-p3.webp display-p3.webp.rgb rgb

# Grey with a grey profile (gamma 2.2-ish Gray.icc).
convert "$tmp/gray.pgm" -profile $icc/Gray.icc -quality 95 gray-profile.jpg
expect gray-profile.jpg gray-profile.jpg.gray gray

# CMYK (Adobe-inverted, as ImageMagick writes it) with Ghostscript's CMYK profile.
convert "$tmp/source.ppm" -profile "$srgb" -profile $icc/ghostscript/ps_cmyk.icc -quality 95 cmyk.jpg
expect cmyk.jpg cmyk.jpg.rgb rgb

# A PNG with gAMA 1.0 and no cHRM (linear samples, sRGB primaries), and the
# same with the gAMA chunk's CRC damaged. Expected pixels of the first are
# computed in the tests from the formula.
python3 - "$tmp/gray.pgm" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
w, h = 16, 4
rows = b"".join(b"\x00" + bytes(v for x in range(w) for v in ((x * 17) % 256, (x * 17 + 85) % 256, y * 80)) for y in range(h))
ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
gama = chunk(b"gAMA", struct.pack(">I", 100000))
body = chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
sig = b"\x89PNG\r\n\x1a\n"
open("gamma-linear.png", "wb").write(sig + ihdr + gama + body)
bad = bytearray(gama); bad[-1] ^= 0xFF
open("bad-crc-gama.png", "wb").write(sig + ihdr + bytes(bad) + body)
PY
ls -l
