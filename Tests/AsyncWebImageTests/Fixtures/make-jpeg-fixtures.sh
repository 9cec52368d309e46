#!/usr/bin/env bash
# Regenerates the JPEG fixtures in ./jpeg and their reference decodes.
#
# Needs only Debian packages: libjpeg-turbo-progs (cjpeg, djpeg),
# imagemagick (convert), libimage-exiftool-perl (exiftool), and gcc with
# libjpeg62-turbo-dev for the one file no command-line tool writes (a plain,
# non-YCCK Adobe CMYK JPEG). The outputs are committed; the tests never run
# this script. Re-running it changes the plasma texture only if ImageMagick's
# random generator changes, and the tests compare against the reference
# decodes written here, so fixtures and references always travel together.
#
# Every reference is `djpeg -pnm` output of the committed JPEG (libjpeg's
# default islow IDCT and fancy upsampling, which is also what TurboJPEG's
# tjDecompress2 uses), so decodes are expected to match exactly.
set -euo pipefail
cd "$(dirname "$0")"
out=jpeg
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A 96×64 colour pattern: a plasma texture (real-photo-like detail for the
# DCT) with four saturated corner blocks whose colours are far apart.
convert -size 96x64 -seed 42 plasma:fractal \
    -fill '#FF0000' -draw 'rectangle 0,0 15,15' \
    -fill '#00FF00' -draw 'rectangle 80,0 95,15' \
    -fill '#0000FF' -draw 'rectangle 0,48 15,63' \
    -fill '#FFFF00' -draw 'rectangle 80,48 95,63' \
    -depth 8 "$work/pattern.ppm"

cjpeg -quality 90 -sample 2x2 "$work/pattern.ppm" > "$out/baseline-420.jpg"
cjpeg -quality 90 -sample 2x1 "$work/pattern.ppm" > "$out/baseline-422.jpg"
cjpeg -quality 90 -sample 1x1 "$work/pattern.ppm" > "$out/baseline-444.jpg"
cjpeg -quality 90 -restart 1 "$work/pattern.ppm" > "$out/baseline-restart.jpg"
cjpeg -quality 90 -arithmetic "$work/pattern.ppm" > "$out/baseline-arithmetic.jpg"
cjpeg -quality 90 -progressive "$work/pattern.ppm" > "$out/progressive.jpg"
cjpeg -quality 90 -grayscale "$work/pattern.ppm" > "$out/gray.jpg"
# Progressive variants for the 1/8-scale thumbnail path (scan pruning).
cjpeg -quality 90 -progressive -sample 1x1 "$work/pattern.ppm" > "$out/progressive-444.jpg"
cjpeg -quality 90 -progressive -sample 2x1 "$work/pattern.ppm" > "$out/progressive-422.jpg"
cjpeg -quality 90 -progressive -grayscale "$work/pattern.ppm" > "$out/progressive-gray.jpg"
# 43 scans (a DC scan, then luma AC one coefficient at a time): the
# progressive decoder's preview cap. A lossless jpegtran re-encoding of
# baseline-420.jpg, so it decodes to exactly baseline-420.ppm.
{
    echo "0,1,2: 0-0, 0, 0;"
    for i in $(seq 1 39); do echo "0: $i-$i, 0, 0;"; done
    echo "0: 40-63, 0, 0;"; echo "1: 1-63, 0, 0;"; echo "2: 1-63, 0, 0;"
} > "$work/scans.txt"
jpegtran -scans "$work/scans.txt" "$out/baseline-420.jpg" > "$out/many-scans.jpg"

# CMYK. ImageMagick writes CMYK JPEGs the way Photoshop does: an Adobe APP14
# marker with transform 2 (YCCK) and the CMYK samples inverted (255 = no ink).
convert "$work/pattern.ppm" -colorspace CMYK -quality 90 "$out/ycck.jpg"
# Plain Adobe CMYK (transform 0), also inverted: written through libjpeg
# directly, because convert always picks YCCK for CMYK input.
convert "$work/pattern.ppm" -colorspace CMYK -depth 8 "cmyk:$work/pattern.cmyk"
cat > "$work/cmyk.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
/* usage: cmyk WIDTH HEIGHT < raw-cmyk > out.jpg ; writes inverted (Adobe) CMYK */
int main(int argc, char **argv) {
    int w = atoi(argv[1]), h = atoi(argv[2]);
    unsigned char *px = malloc((size_t)w * h * 4);
    if (fread(px, 1, (size_t)w * h * 4, stdin) != (size_t)w * h * 4) return 1;
    for (size_t i = 0; i < (size_t)w * h * 4; i++) px[i] = 255 - px[i];
    struct jpeg_compress_struct c; struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e); jpeg_create_compress(&c); jpeg_stdio_dest(&c, stdout);
    c.image_width = w; c.image_height = h; c.input_components = 4; c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c); jpeg_set_colorspace(&c, JCS_CMYK); jpeg_set_quality(&c, 90, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) { JSAMPROW row = px + (size_t)c.next_scanline * w * 4; jpeg_write_scanlines(&c, &row, 1); }
    jpeg_finish_compress(&c); jpeg_destroy_compress(&c); return 0;
}
C
gcc -O1 -o "$work/cmyk" "$work/cmyk.c" -ljpeg
"$work/cmyk" 96 64 < "$work/pattern.cmyk" > "$out/cmyk.jpg"

# Orientation: one upright 64×40 picture with a distinct colour in each
# corner, stored as EXIF orientation N expects (the stored pixels are the
# upright picture with the inverse of N's transform applied), so every file
# displays the same once its orientation is applied. Odd N get little-endian
# (II) EXIF, even N big-endian (MM), to cover both byte orders.
convert -size 64x40 xc:'#808080' \
    -fill '#FF0000' -draw 'rectangle 0,0 11,11' \
    -fill '#00FF00' -draw 'rectangle 52,0 63,11' \
    -fill '#0000FF' -draw 'rectangle 0,28 11,39' \
    -fill '#FFFF00' -draw 'rectangle 52,28 63,39' \
    -depth 8 "$work/upright.ppm"
inverse=(x "" "-flop" "-rotate 180" "-flip" "-transpose" "-rotate 270" "-transverse" "-rotate 90")
for n in 1 2 3 4 5 6 7 8; do
    # shellcheck disable=SC2086
    convert "$work/upright.ppm" ${inverse[$n]} "$work/o$n.ppm"
    cjpeg -quality 95 -sample 1x1 "$work/o$n.ppm" > "$out/orientation-$n.jpg"
    order=$([ $((n % 2)) -eq 1 ] && echo II || echo MM)
    exiftool -q -overwrite_original -ExifByteOrder=$order -n -Orientation=$n "$out/orientation-$n.jpg"
done

# Larger 640×480 photo-like images for thumbnails and chunked progressive
# loading (10 scans).
convert -size 640x480 -seed 11 plasma:fractal -blur 0x1 \
    -fill '#FF0000' -draw 'circle 160,120 160,40' \
    -fill '#0000FF' -draw 'rectangle 400,260 600,440' \
    -depth 8 "$work/large.ppm"
cjpeg -quality 80 "$work/large.ppm" > "$out/large.jpg"
cjpeg -quality 80 -progressive "$work/large.ppm" > "$out/large-progressive.jpg"

# One-colour files, the legitimate extreme of the minimum-length check in
# JPEGCoder.decodeImage: every block's DC difference is 0 and its AC
# coefficients are all zero, so entropy data is a Huffman code or two per
# block. Baseline with optimized tables: 2 bits per 8×8 block (a DC code and
# an end-of-block code, 1 bit each); progressive with a single DC scan (no
# successive approximation, which would add a refinement bit): 1 bit per
# block, the AC scans costing a few bytes of end-of-band runs. At 8000×8000
# the same recipes give 2.0008–2.0015 and 1.0016–1.0025 bits per block.
# 4:4:4 and grey get odd sizes, so blocks at the edges are partial.
convert -size 2048x2048 xc:'#3377CC' -depth 8 "$work/solid-420.ppm"
convert -size 2047x2049 xc:'#3377CC' -depth 8 "$work/solid-444.ppm"
convert -size 2049x2047 xc:'#3377CC' -depth 8 "$work/solid-gray.ppm"
cjpeg -quality 100 -optimize -sample 2x2 "$work/solid-420.ppm" > "$out/solid-420-optimized.jpg"
cjpeg -quality 100 -optimize -sample 1x1 "$work/solid-444.ppm" > "$out/solid-444-optimized.jpg"
cjpeg -quality 100 -optimize -grayscale "$work/solid-gray.ppm" > "$out/solid-gray-optimized.jpg"
printf '0,1,2: 0-0, 0, 0;\n0: 1-63, 0, 0;\n1: 1-63, 0, 0;\n2: 1-63, 0, 0;\n' > "$work/one-dc-scan.txt"
printf '0: 0-0, 0, 0;\n0: 1-63, 0, 0;\n' > "$work/one-dc-scan-gray.txt"
for f in solid-420 solid-444; do
    jpegtran -scans "$work/one-dc-scan.txt" "$out/$f-optimized.jpg" > "$out/$f-progressive.jpg"
done
jpegtran -scans "$work/one-dc-scan-gray.txt" "$out/solid-gray-optimized.jpg" > "$out/solid-gray-progressive.jpg"

# Reference decodes.
for f in baseline-420 baseline-422 baseline-444 baseline-restart baseline-arithmetic progressive ycck cmyk; do
    djpeg -pnm "$out/$f.jpg" > "$out/$f.ppm"
done
djpeg -pnm "$out/gray.jpg" > "$out/gray.pgm"
# DCT-domain 1/4 scale of the large image: what a thumbnail decode starts from.
djpeg -pnm -scale 1/4 "$out/large.jpg" > "$out/large-quarter.ppm"
# 1/8 scale of the progressive files, decoded from the whole file: what the
# pruned progressive thumbnail path must reproduce exactly.
for f in large-progressive progressive progressive-444 progressive-422 progressive-gray; do
    djpeg -pnm -scale 1/8 "$out/$f.jpg" > "$out/$f-eighth.pnm"
done

# The CMYK convention check: djpeg converts inverted CMYK to RGB as
# R = C·K/255 (libjpeg-turbo's cmyk.h); ImageMagick, reading the same file,
# inverts the Adobe samples and converts CMYK to sRGB as R = (1−C)(1−K).
# Both must agree to within rounding.
for f in ycck cmyk; do
    diff=$(convert "$out/$f.jpg" -colorspace sRGB -depth 8 ppm:- | compare -metric AE -fuzz 0.5% - "$out/$f.ppm" null: 2>&1 || true)
    echo "$f.jpg: ImageMagick and djpeg differ on $diff pixels (beyond ±1)"
done
ls -l "$out"
