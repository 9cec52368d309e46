#!/bin/sh
# Regenerates the AVIF and HEIC fixtures in ./avif and ./heif next to this script.
#
# Sources are small PNGs drawn by ImageMagick (64×48, non-square so a
# rotation that swaps the sides shows). Each encoded file has beside it the
# reference pixels of a decoder nobody here wrote:
#   avif/NAME.avif → avif/NAME.ref.png by `avifdec -d 8` (the same libavif
#     our coder calls, so the comparison is exact), and for the files with
#     irot/imir, avif/NAME.upright.png (ImageMagick turning avifdec's pixels
#     as irot/imir say: exact) and avif/NAME.oriented.png by `heif-convert`
#     (libheif, which applies the transforms itself: an independent reading
#     of irot/imir, through another YUV to RGB conversion and chroma
#     upsampling, so compared on the mean difference);
#   heif/NAME.heic → heif/NAME.ref.png by `heif-convert` (same libheif as our
#     coder: exact for 8-bit; 10-bit references are 16-bit PNGs).
#
# Needs: ImageMagick's `convert`, avifenc/avifdec (libavif-bin),
# heif-enc/heif-convert (libheif-examples), pyvips (`pip install pyvips`). avifenc uses aom (the default
# codec of Debian 12's libavif) at speed 10 with fixed quantizers; heif-enc
# uses x265. Encoders are not bit-exact across versions, so rerunning on
# another machine may produce different (equally valid) files; the
# references are regenerated with them.
set -eu
cd "$(dirname "$0")"
mkdir -p avif heif
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Opaque: a colour gradient with a dark square near the top-left corner (so
# every orientation is distinguishable).
convert -size 64x48 gradient:'#ff2000-#0030ff' \
    -fill '#102010' -draw 'rectangle 4,4 19,13' \
    -depth 8 -define png:color-type=2 "$tmp/rgb.png"
# Alpha: the same with a horizontal alpha ramp.
convert "$tmp/rgb.png" \( -size 48x64 gradient:white-black -rotate 90 \) \
    -alpha off -compose CopyOpacity -composite -depth 8 -define png:color-type=6 "$tmp/rgba.png"
# 16-bit, for the 10-bit encodes: a smooth ramp whose low bits matter.
convert -size 64x48 -depth 16 gradient:'#ff0020004000-#00ff40ffff00' -depth 16 \
    -define png:color-type=2 "$tmp/rgb16.png"

enc() { avifenc -s 10 --min 10 --max 10 --minalpha 0 --maxalpha 0 "$@" >/dev/null; }
enc -y 420 -d 8 "$tmp/rgb.png" avif/rgb8.avif
enc -y 444 -d 8 "$tmp/rgba.png" avif/rgba8.avif
enc -y 420 -d 10 "$tmp/rgb16.png" avif/rgb10.avif
enc -y 420 -d 8 --irot 1 --imir 0 "$tmp/rgb.png" avif/irot1-imir0.avif
enc -y 420 -d 8 --irot 3 "$tmp/rgb.png" avif/irot3.avif
enc -y 420 -d 8 --imir 1 "$tmp/rgb.png" avif/imir1.avif
# An ICC profile in colr (Adobe RGB compatible, from icc-profiles-free; the
# test compares the bytes read back with this copy).
cp /usr/share/color/icc/compatibleWithAdobeRGB1998.icc avif/profile.icc
enc -y 420 -d 8 --icc avif/profile.icc "$tmp/rgb.png" avif/icc.avif

# Odd sizes for the band conversion of thumbnails: 61×47 4:2:0 with alpha,
# 4:2:2, 4:0:0, 10-bit 4:2:0.
convert -size 61x47 gradient:'#ff2000-#0030ff' -fill '#20e040' -draw 'circle 30,23 30,9' \
    -fill '#ffff00' -draw 'rectangle 3,3 14,12' -depth 8 -define png:color-type=2 "$tmp/odd.png"
convert "$tmp/odd.png" \( -size 47x61 gradient:white-black -rotate 90 \) \
    -alpha off -compose CopyOpacity -composite -depth 8 -define png:color-type=6 "$tmp/odd-alpha.png"
enc -y 420 -d 8 "$tmp/odd-alpha.png" avif/odd420-alpha.avif
enc -y 422 -d 8 "$tmp/odd.png" avif/odd422.avif
enc -y 400 -d 8 "$tmp/odd.png" avif/odd400.avif
enc -y 420 -d 10 "$tmp/odd.png" avif/odd420-10.avif

for f in rgb8 rgba8 rgb10 irot1-imir0 irot3 imir1 odd420-alpha odd422 odd400 odd420-10; do
    avifdec -d 8 avif/$f.avif avif/$f.ref.png >/dev/null
done
# The 10-bit file at 16 bits too: libavif's own full-precision conversion,
# against which the 8-bit reduction's rounding is checked.
avifdec -d 16 avif/rgb10.avif avif/rgb10.ref16.png >/dev/null
for f in irot1-imir0 irot3 imir1; do
    heif-convert avif/$f.avif avif/$f.oriented.png >/dev/null
done
# The same transforms applied by ImageMagick to avifdec's stored pixels, in
# MIAF's order (irot, a rotation anti-clockwise, then imir): exact references.
convert avif/irot1-imir0.ref.png -rotate -90 -flip -define png:exclude-chunks=date,time avif/irot1-imir0.upright.png
convert avif/irot3.ref.png -rotate -270 -define png:exclude-chunks=date,time avif/irot3.upright.png
convert avif/imir1.ref.png -flop -define png:exclude-chunks=date,time avif/imir1.upright.png

# A clean aperture (clap) of 40×30 at (8, 4), alone and before irot: avifdec
# 0.11 reports the derived crop rect but writes the whole stored image, so
# the references are ImageMagick's crop of its pixels (then the rotation).
enc -y 444 -d 8 --crop 8,4,40,30 "$tmp/rgb.png" avif/clap.avif
enc -y 444 -d 8 --crop 8,4,40,30 --irot 1 "$tmp/rgb.png" avif/clap-irot1.avif
avifdec -d 8 avif/clap.avif "$tmp/clap.png" >/dev/null
avifdec -d 8 avif/clap-irot1.avif "$tmp/clap-irot1.png" >/dev/null
convert "$tmp/clap.png" -crop 40x30+8+4 +repage -define png:exclude-chunks=date,time avif/clap.ref.png
convert "$tmp/clap-irot1.png" -crop 40x30+8+4 +repage -rotate -90 -define png:exclude-chunks=date,time avif/clap-irot1.upright.png

heif-enc -q 80 -o heif/rgb8.heic "$tmp/rgb.png" >/dev/null
heif-enc -q 80 -o heif/rgba8.heic "$tmp/rgba.png" >/dev/null
# The same pixels flagged as premultiplied: the decoder must divide them back.
heif-enc -q 80 --premultiplied-alpha -o heif/premultiplied.heic "$tmp/rgba.png" >/dev/null
heif-enc -q 80 -b 10 -o heif/rgb10.heic "$tmp/rgb16.png" >/dev/null
# An embedded 16-pixel thumbnail: the decoder must still return the 64×48 image.
heif-enc -q 80 -t 16 -o heif/thumbnail.heic "$tmp/rgb.png" >/dev/null
# Embedded 32×24 thumbnails that can stand in for the 64×48 image when a
# thumbnail of at most 32×24 is asked for: opaque, with alpha, and an opaque
# thumbnail of an image with alpha (--no-thumb-alpha: it must be passed
# over). The reference of a thumbnail item is libvips's decode of it
# (`heifload thumbnail=TRUE` through pyvips, from PyPI, over the system's
# libvips and so the same libheif: exact).
heif-enc -q 50 -t 32 -o heif/embedded-thumbnail.heic "$tmp/rgb.png" >/dev/null
heif-enc -q 50 -t 32 -o heif/embedded-thumbnail-rgba.heic "$tmp/rgba.png" >/dev/null
heif-enc -q 50 -t 32 --no-thumb-alpha -o heif/thumbnail-no-alpha.heic "$tmp/rgba.png" >/dev/null
python3 -c '
import pyvips
for name in ["embedded-thumbnail", "embedded-thumbnail-rgba"]:
    pyvips.Image.heifload("heif/%s.heic" % name, thumbnail=True).pngsave("heif/%s.thumbnail.ref.png" % name, strip=True)
'
# The same ICC profile, carried over by heif-enc from the PNG's iCCP chunk.
convert "$tmp/rgb.png" -profile avif/profile.icc "$tmp/icc.png"
heif-enc -q 80 -o heif/icc.heic "$tmp/icc.png" >/dev/null
for f in rgb8 rgba8 rgb10 thumbnail; do
    heif-convert heif/$f.heic heif/$f.ref.png >/dev/null
done
rm -f avif/*-alpha.png heif/*-alpha.png heif/*-depth.png avif/*-depth.png
