#!/bin/sh
# Regenerates the fixtures of the JPEG XL, TIFF, BMP, ICO/CUR and SVG coders
# in ./jxl, ./tiff, ./bmp and ./svg next to this script. Every file is
# written by a tool nobody here wrote (cjxl, ImageMagick, tiffcp,
# hand-written SVG text), and every reference decode comes from the
# format's reference decoder as an 8-bit RGBA PAM file: djxl (JPEG XL),
# ImageMagick (TIFF through its libtiff reader, BMP, ICO), rsvg-convert (SVG).
# Files made by byte patches say so beside them.
#
# Needs: cjxl/djxl (libjxl-tools), ImageMagick 6 `convert`, tiffcp
# and tiffset (libtiff-tools), rsvg-convert (librsvg2-bin), python3.
set -eu
cd "$(dirname "$0")"
mkdir -p jxl tiff bmp svg
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
convert=/usr/bin/convert
pam() { $convert "$1" -depth 8 -type TrueColorAlpha "pam:$2"; }
# Source PNGs carry no colour chunks: ImageMagick's gAMA/cHRM would make cjxl
# encode a gamma-2.2 image, which a colour-managed decode rightly converts.
plain="-define png:exclude-chunk=gAMA,cHRM,sRGB,iCCP,bKGD,tIME,tEXt,zTXt,pHYs"

# ---- sources: a 48×32 picture with edges and flat areas; one with alpha; a 256×192 photo-like one
$convert -size 48x32 gradient:'#ff8000-#0060ff' -fill '#20c040' -draw 'rectangle 4,4 19,15' \
    -fill '#ffffff' -draw 'circle 34,20 34,12' -depth 8 $plain "$work/picture.png"
$convert "$work/picture.png" -alpha set -channel A -fx '0.25+0.75*(i/w)' +channel -depth 8 $plain "$work/alpha.png"
$convert -seed 7 -size 256x192 plasma:'#204080-#e0c060' -blur 0x1 -depth 8 $plain "$work/photo.png"
# A larger one for progressive decoding: libjxl renders a preview only across groups (256² each).
$convert -seed 9 -size 640x480 plasma:'#602010-#20c0e0' -blur 0x1 -depth 8 $plain "$work/large.png"

# ---- JPEG XL: lossless (colour, alpha, grey), lossy, progressive lossy; references by djxl
cjxl "$work/picture.png" jxl/lossless.jxl -d 0 -e 7 >/dev/null 2>&1
cjxl "$work/alpha.png" jxl/lossless-alpha.jxl -d 0 -e 7 >/dev/null 2>&1
$convert "$work/picture.png" -colorspace gray -depth 8 $plain "$work/gray.png"
cjxl "$work/gray.png" jxl/lossless-gray.jxl -d 0 -e 7 >/dev/null 2>&1
cjxl "$work/photo.png" jxl/lossy.jxl -d 1.0 -e 7 >/dev/null 2>&1
cjxl "$work/large.png" jxl/progressive.jxl -d 1.5 -e 5 -p >/dev/null 2>&1
for name in lossless lossless-alpha lossless-gray lossy; do
    djxl jxl/$name.jxl "$work/$name.png" --bits_per_sample=8 >/dev/null 2>&1
    pam "$work/$name.png" jxl/$name.pam
done

# ---- TIFF: strips and tiles, 8 and 16 bits, alpha, palette, CMYK, bilevel, JPEG-in-TIFF,
# three pages, and a page with reduced-resolution copies (ImageMagick's PTIF writer)
# (ImageMagick writes a palette image for pictures of few colours unless told otherwise.)
$convert "$work/picture.png" -type TrueColor -compress lzw -define tiff:rows-per-strip=5 tiff/rgb8-strips.tif
$convert "$work/alpha.png" -type TrueColorAlpha -compress zip -define tiff:tile-geometry=16x16 -define tiff:alpha=unassociated tiff/rgba8-tiles.tif
$convert "$work/alpha.png" -type TrueColorAlpha -compress none -define tiff:alpha=associated tiff/rgba8-associated.tif
$convert "$work/picture.png" -type TrueColor -depth 16 -compress lzw tiff/rgb16.tif
$convert "$work/picture.png" -colorspace gray -depth 16 -define tiff:tile-geometry=16x16 tiff/gray16-tiles.tif
$convert "$work/picture.png" -colors 12 -type palette -compress lzw tiff/palette.tif
$convert "$work/picture.png" -colorspace cmyk -compress lzw tiff/cmyk.tif
$convert "$work/picture.png" -monochrome -compress group4 tiff/bilevel.tif
$convert "$work/photo.png" -resize 64x48 -compress jpeg -quality 90 tiff/jpeg.tif
$convert "$work/picture.png" -type TrueColor "$work/page1.tif"
$convert "$work/alpha.png" -type TrueColorAlpha "$work/page2.tif"
$convert "$work/picture.png" -type TrueColor -resize 24x16 "$work/page3.tif"
tiffcp "$work/page1.tif" "$work/page2.tif" "$work/page3.tif" tiff/multipage.tif
# ImageMagick's PTIF writer marks the copies as pages (NewSubfileType 2);
# tiffset marks them reduced-resolution images (1), as TIFF 6.0 names them.
$convert "$work/photo.png" ptif:tiff/pyramid.tif
directories=$(identify tiff/pyramid.tif | wc -l)
for directory in $(seq 1 $((directories - 1))); do tiffset -d $directory -s 254 1 tiff/pyramid.tif; done
# 16-bit associated alpha with faint pixels whose colour only the 16-bit
# division keeps; the same in separate planes (ImageMagick's writer, which
# keeps less of the faint colour: its own reference); and a BigTIFF.
$convert "$work/picture.png" -alpha set -channel A -fx '0.002+0.998*(i/w)^3' +channel -depth 16 -compress lzw \
    -define tiff:alpha=associated tiff/rgba16-associated.tif
$convert tiff/rgba16-associated.tif -interlace plane -compress lzw -define tiff:alpha=associated tiff/rgba16-associated-planar.tif
$convert "$work/picture.png" -type TrueColor -compress lzw TIFF64:tiff/bigtiff.tif
# The strip file with Orientation 6 (rotate 90° clockwise to display), set by tiffset.
cp tiff/rgb8-strips.tif tiff/orientation6.tif
tiffset -s 274 6 tiff/orientation6.tif
for name in rgb8-strips rgba8-tiles rgba8-associated rgb16 gray16-tiles palette cmyk bilevel jpeg rgba16-associated rgba16-associated-planar bigtiff; do
    pam "tiff/$name.tif[0]" tiff/$name.pam
done
for page in 0 1 2; do pam "tiff/multipage.tif[$page]" tiff/multipage-$page.pam; done
pam "tiff/pyramid.tif[2]" tiff/pyramid-2.pam

# ---- BMP: 24-bit, 8/4/1-bit palettes, RLE8, RGB565 bit fields, 32-bit with alpha (V5), OS/2 core;
# a top-down copy of the 24-bit file (height negated, rows reversed: a byte patch)
# (ImageMagick picks a palette, and RLE8, for pictures of few colours unless told otherwise.)
$convert "$work/picture.png" -type TrueColor -compress none BMP3:bmp/rgb24.bmp
$convert "$work/picture.png" -colors 200 -type palette -compress none BMP3:bmp/pal8.bmp
$convert "$work/picture.png" -colors 16 -type palette -compress none BMP3:bmp/pal4.bmp
$convert "$work/picture.png" -monochrome -compress none BMP3:bmp/pal1.bmp
$convert "$work/picture.png" -colors 200 -type palette -compress rle BMP3:bmp/rle8.bmp
$convert "$work/picture.png" -type TrueColor -define bmp:subtype=RGB565 BMP:bmp/rgb565.bmp
$convert "$work/alpha.png" BMP:bmp/rgba32.bmp
$convert "$work/picture.png" -type TrueColor BMP2:bmp/os2.bmp
python3 - bmp/rgb24.bmp bmp/rgb24-topdown.bmp <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
offset = struct.unpack("<I", data[10:14])[0]
width, height = struct.unpack("<ii", data[18:26])
row = (width * 3 + 3) // 4 * 4
rows = [data[offset + r * row: offset + (r + 1) * row] for r in range(height)]
data[22:26] = struct.pack("<i", -height)
data[offset:] = b"".join(reversed(rows))
open(sys.argv[2], "wb").write(data)
PY
for name in rgb24 pal8 pal4 pal1 rle8 rgb565 rgba32 os2; do pam bmp/$name.bmp bmp/$name.pam; done

# ---- ICO: 16, 32, 48 px bitmaps and a 256 px PNG (ImageMagick writes the largest as PNG);
# a CUR made from it (type 1 patched to 2)
$convert "$work/alpha.png" -resize 256x256\! "$work/icon.png"
$convert "$work/icon.png" -define icon:auto-resize=256,48,32,16 bmp/icon.ico
python3 - bmp/icon.ico bmp/cursor.cur <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[2] = 2
open(sys.argv[2], "wb").write(data)
PY
for index in 0 1 2 3; do pam "bmp/icon.ico[$index]" bmp/icon-$index.pam; done

# ---- SVG: hand-written documents; references by rsvg-convert (default size, and at 100 px wide)
cat > svg/shapes.svg <<'SVG'
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48" viewBox="0 0 64 48">
  <defs>
    <linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#ff4000"/><stop offset="1" stop-color="#0040ff"/></linearGradient>
  </defs>
  <rect x="0" y="0" width="64" height="48" fill="url(#g)"/>
  <circle cx="20" cy="24" r="14" fill="#20c040" fill-opacity="0.6"/>
  <path d="M36 8 L60 40 L36 40 Z" fill="#ffffff" stroke="#000000" stroke-width="2"/>
</svg>
SVG
cat > svg/viewbox-only.svg <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 20"><rect x="5" y="5" width="30" height="10" rx="3" fill="#c02060"/></svg>
SVG
rsvg-convert svg/shapes.svg -o "$work/shapes.png"
rsvg-convert -w 100 -h 75 svg/shapes.svg -o "$work/shapes-100.png"
rsvg-convert svg/viewbox-only.svg -o "$work/viewbox-only.png"
pam "$work/shapes.png" svg/shapes.pam
pam "$work/shapes-100.png" svg/shapes-100.pam
pam "$work/viewbox-only.png" svg/viewbox-only.pam
