#!/usr/bin/env bash
# Makes the JPEGs that check colour conversion a row group at a time
# (JPEGScanlineDecoder) against the whole-image conversion: odd sizes, so
# the last row group is partial, in each sampling, with restart markers and
# progressive scans, all carrying the Adobe RGB compatible profile. Needs
# cjpeg (libjpeg-turbo-progs), icc-profiles-free and python3.
set -euo pipefail
cd "$(dirname "$0")"
adobe=/usr/share/color/icc/compatibleWithAdobeRGB1998.icc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A 99×61 picture: saturated gradients (which leave sRGB's gamut through
# the profile) over a fine checker, so every row group differs.
python3 - "$tmp/source.ppm" <<'PY'
import sys
w, h = 99, 61
rgb = bytearray()
for y in range(h):
    for x in range(w):
        c = 40 * ((x // 3 + y // 3) % 2)
        rgb += bytes(((x * 255 // (w - 1)) ^ c, (y * 255 // (h - 1)) ^ c, ((x + y) * 3) % 256))
open(sys.argv[1], "wb").write(b"P6 %d %d 255\n" % (w, h) + rgb)
PY

cjpeg -icc "$adobe" -quality 90 -sample 2x2 -outfile strips-420.jpg "$tmp/source.ppm"
cjpeg -icc "$adobe" -quality 90 -sample 2x1 -restart 1 -outfile strips-422-restart.jpg "$tmp/source.ppm"
cjpeg -icc "$adobe" -quality 90 -sample 1x1 -restart 5B -outfile strips-444-restart.jpg "$tmp/source.ppm"
cjpeg -icc "$adobe" -quality 90 -sample 2x2 -progressive -outfile strips-420-progressive.jpg "$tmp/source.ppm"
