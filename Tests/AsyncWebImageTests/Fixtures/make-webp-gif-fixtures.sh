#!/bin/sh
# Regenerates the WebP and GIF fixtures in ./webp and ./gif next to this script.
#
# Sources are drawn by ImageMagick (`convert`), encoded by libwebp's tools
# (cwebp, webpmux, gif2webp) and by ImageMagick's GIF writer. Reference
# pixels come from decoders nobody here wrote, as PAM files (8-bit RGBA,
# straight alpha):
#   - WebP: `dwebp -pam` (libwebp itself: the coder must match exactly),
#     and `dwebp -scale W H -pam` for the scaled-decode references;
#   - GIF: ImageMagick's first frame on its logical screen
#     (`convert 'F.gif[0]' -coalesce -alpha on pam:`).
# The ICC reference is the profile as `webpmux -get icc` extracts it.
#
# Needs: ImageMagick 6 `convert`, cwebp, dwebp, webpmux, gif2webp, python3,
# and the Adobe RGB (1998) compatible profile ghostscript ships (a98.icc).
set -eu
cd "$(dirname "$0")"
mkdir -p webp gif
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- sources: 61×47 (odd sizes), opaque and with graded alpha; 256×192 for previews
convert -size 61x47 gradient:'#ff2000-#0030ff' -fill '#20e040' -draw 'circle 30,23 30,9' \
    -fill '#ffff00' -draw 'rectangle 3,3 14,12' -depth 8 -define png:color-type=2 "$work/rgb.png"
convert -size 61x47 gradient:'#ff2000-#0030ff' -fill '#20e040' -draw 'circle 30,23 30,9' \
    \( -size 47x61 gradient:'#ffffff-#00000000' -rotate 90 \) -alpha off -compose CopyOpacity -composite \
    -depth 8 -define png:color-type=6 "$work/rgba.png"
convert -size 256x192 gradient:'#102030-#f0c080' -fill '#c02040' -draw 'circle 128,96 128,20' \
    -fill '#2040c0' -draw 'rectangle 10,10 80,60' -depth 8 -define png:color-type=2 "$work/large.png"

# ---- WebP
cd webp
cwebp -quiet -q 80 "$work/rgb.png" -o lossy.webp
cwebp -quiet -lossless "$work/rgb.png" -o lossless.webp
cwebp -quiet -q 80 -alpha_q 100 "$work/rgba.png" -o alpha-lossy.webp
cwebp -quiet -lossless -exact "$work/rgba.png" -o alpha-lossless.webp
cwebp -quiet -q 75 "$work/large.png" -o large-lossy.webp
for f in lossy lossless alpha-lossy alpha-lossless; do
    dwebp -quiet "$f.webp" -pam -o "$f.pam"
done
# Scaled decodes as libwebp's rescaler makes them (the coder's thumbnails).
dwebp -quiet lossy.webp -scale 30 23 -pam -o lossy-30x23.pam
dwebp -quiet alpha-lossless.webp -scale 20 15 -pam -o alpha-lossless-20x15.pam
dwebp -quiet large-lossy.webp -scale 64 48 -pam -o large-lossy-64x48.pam
# The source the lossless files were made from, for the encoder round trip.
convert "$work/rgba.png" -depth 8 pam:source-rgba.pam
# EXIF orientation 6 (rotate 90° clockwise to display), big-endian TIFF.
python3 -c '
import sys
tiff = bytes([0x4D,0x4D,0,0x2A, 0,0,0,8, 0,1, 0x01,0x12, 0,3, 0,0,0,1, 0,6,0,0, 0,0,0,0])
open(sys.argv[1], "wb").write(tiff)' "$work/exif6.bin"
webpmux -set exif "$work/exif6.bin" lossy.webp -o orientation-6.webp
webpmux -set icc /usr/share/color/icc/ghostscript/a98.icc lossy.webp -o icc-a98.webp
webpmux -get icc icc-a98.webp -o icc-a98.icc
cd ..

# ---- GIF
cd gif
convert "$work/rgb.png" -dither None -colors 64 still.gif
convert "$work/rgb.png" -dither None -colors 64 -interlace GIF interlaced.gif
# Binary transparency: alpha under 50 % becomes the transparent entry.
convert "$work/rgba.png" -channel A -threshold 50% +channel -dither None -colors 32 transparent.gif
# A 20×10 first frame at (7, 5) on a 40×30 logical screen, then a second frame.
convert -dispose none -delay 10 \
    \( -size 20x10 gradient:'#ff0000-#00ff00' -set page 40x30+7+5 \) \
    \( -size 40x30 xc:'#0000ff' -set page 40x30+0+0 \) -loop 0 offset-animated.gif
# Thumbnails without a full-size canvas: a 53×37 frame with binary alpha at
# (9, 6) on a 75×51 screen, interlaced; the same frame sequential and
# interlaced on a 55×40 screen it reaches past (the header's screen size
# patched, as ImageMagick does not write such files); a 255×191 image for
# ImageMagick's own resize.
convert -size 53x37 gradient:'#ff8000-#0080ff' -fill '#20e040' -draw 'rectangle 5,5 20,12' \
    \( -size 53x37 xc:black -fill white -draw 'circle 26,18 26,1' \) -alpha off -compose CopyOpacity -composite \
    -channel A -threshold 50% +channel -dither None -colors 16 "$work/frame.png"
convert -dispose none \( "$work/frame.png" -set page 75x51+9+6 \) -interlace GIF offset-interlaced.gif
convert -dispose none \( "$work/frame.png" -set page 75x51+9+6 \) "$work/offset-sequential.gif"
python3 - "$work/offset-sequential.gif" offset-interlaced.gif <<'PY'
import struct, sys
for source, target in zip(sys.argv[1:], ["clipped.gif", "clipped-interlaced.gif"]):
    data = bytearray(open(source, "rb").read())
    data[6:10] = struct.pack("<HH", 55, 40)
    open(target, "wb").write(data)
PY
convert "$work/large.png" -crop 255x191+0+0 +repage -dither None -colors 128 large.gif
for f in still interlaced transparent offset-animated offset-interlaced clipped clipped-interlaced large; do
    convert "$f.gif[0]" -coalesce -alpha on -depth 8 pam:"$f.pam"
done
# ImageMagick's own thumbnails of large.gif: -scale averages areas (the
# package's .area speed option), -resize uses its default filter, and
# Lanczos-3 in linear light is the package's default thumbnail filter.
convert 'large.gif[0]' -scale 64x48! -alpha on -depth 8 pam:large-scale-64x48.pam
convert 'large.gif[0]' -resize 64x48! -alpha on -depth 8 pam:large-resize-64x48.pam
convert 'large.gif[0]' -colorspace RGB -filter Lanczos -resize 64x48! -colorspace sRGB -alpha on -depth 8 pam:large-lanczos-linear-64x48.pam
gif2webp -quiet offset-animated.gif -o ../webp/animated.webp
# 300 solid 128×128 frames (frame i is rgb(i % 256, i / 256 × 40, 0)), 4 cs
# each, played twice: the animation buffer and playback tests.
convert -delay 4 -size 128x128 $(for i in $(seq 0 299); do echo "xc:rgb($((i % 256)),$((i / 256 * 40)),0)"; done) \
    -loop 2 anim-300.gif
cd ..

# ---- one tiny file per format ImageFormat names, and the media type `file`
# (libmagic, not this package) gives it: what detection and mimeType must agree with.
mkdir -p formats
cd formats
convert -size 8x8 xc:'#336699' "$work/tiny.png"
convert "$work/tiny.png" sample.jpg
cp "$work/tiny.png" sample.png
convert "$work/tiny.png" sample.gif
cwebp -quiet "$work/tiny.png" -o sample.webp
avifenc --min 20 --max 40 "$work/tiny.png" sample.avif >/dev/null
heif-enc -q 50 "$work/tiny.png" -o sample.heic >/dev/null
convert "$work/tiny.png" -compress None sample.tiff
convert "$work/tiny.png" BMP3:sample.bmp
for f in sample.*; do
    case "$f" in *.txt) continue ;; esac
    printf '%s %s\n' "$f" "$(file --brief --mime-type "$f")"
done > mime-types.txt
cd ..
