#!/bin/sh
# Regenerates the animation fixtures in ./animation next to this script.
#
# Sources are drawn by ImageMagick (`convert`) and assembled by tools nobody
# here wrote: ImageMagick's GIF writer (disposal methods 1-3, offsets,
# transparency), gif2webp and img2webp (libwebp), apngasm. Reference frames,
# full canvases as 8-bit RGBA PAM files (straight alpha), come from:
#   - GIF and animated WebP: ImageMagick `-coalesce` (`convert F -coalesce pam:`);
#   - APNG: apngdis (its frames are whole canvases), converted to PAM;
#   - the source frames themselves (source-N.pam): what a lossless WebP of
#     full-canvas frames must give back. ImageMagick 6.9 draws a WebP frame
#     whose blend method is "no blend" over the canvas anyway, so its
#     coalesced frames of lossless.webp and lossy.webp are wrong from the
#     first frame with transparency on (frame 3); the tests use them only before.
#
# Needs: ImageMagick 6 `convert`, gif2webp, img2webp, webpmux, apngasm, apngdis.
set -eu
cd "$(dirname "$0")"
mkdir -p animation
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
convert=/usr/bin/convert

# ---- frames: a 40×30 canvas; a background, then moving and half-transparent shapes
$convert -size 40x30 gradient:'#ff4000-#0040ff' -depth 8 "$work/f0.png"
$convert "$work/f0.png" -fill '#20e040' -draw 'rectangle 4,4 15,15' -depth 8 "$work/f1.png"
$convert "$work/f1.png" -fill '#ffff0080' -draw 'circle 25,15 25,8' -depth 8 "$work/f2.png"
$convert -size 40x30 xc:none -fill '#c02040' -draw 'rectangle 10,10 30,22' -depth 8 "$work/f3.png"
$convert "$work/f3.png" -fill '#2040c0' -draw 'rectangle 0,0 8,8' -depth 8 "$work/f4.png"

# ---- GIF with every disposal method, offsets and transparency (delays in cs: 10 20 0 30 5)
$convert -size 12x10 xc:'#00ff00' "$work/g1.png"
$convert -size 16x12 xc:none -fill '#ff00ff' -draw 'circle 8,6 8,1' "$work/g2.png"
$convert -size 10x10 xc:'#0000ff' "$work/g3.png"
$convert -size 8x8 xc:'#ffffff' "$work/g4.png"
$convert -dispose none -delay 10 "$work/f0.png" \
    -dispose none -delay 20 -page +3+4 "$work/g1.png" \
    -dispose background -delay 0 -page +20+10 "$work/g2.png" \
    -dispose previous -delay 30 -page +5+15 "$work/g3.png" \
    -dispose none -delay 5 -page +30+2 "$work/g4.png" \
    -loop 2 animation/disposal.gif

cd animation
for i in 0 1 2 3 4; do $convert "$work/f$i.png" -alpha on "source-$i.pam"; done
# The GIF as animated WebP (lossless, libwebp keeps the offsets and maps disposal to blend/dispose)
gif2webp -quiet disposal.gif -o disposal.webp
# Lossy animated WebP with per-frame durations (ms) and 3 loops; frame 3 is transparent
img2webp -loop 3 -lossy -q 70 "$work/f0.png" -d 80 "$work/f1.png" -d 120 "$work/f2.png" \
    -d 40 "$work/f3.png" -d 60 "$work/f4.png" -o lossy.webp
# Lossless, mixed durations, loop forever
img2webp -loop 0 -lossless -d 30 "$work/f0.png" "$work/f1.png" -d 70 "$work/f2.png" "$work/f3.png" \
    "$work/f4.png" -o lossless.webp
# A one-frame animation (still to the animated API)
img2webp -lossless "$work/f2.png" -o one-frame.webp

for f in disposal.gif disposal.webp lossy.webp lossless.webp; do
    base=${f%.*}-${f##*.}
    $convert "$f" -coalesce -alpha on "$work/$base-%d.pam"
    for p in "$work/$base"-*.pam; do cp "$p" "$(basename "$p")"; done
done

# ---- APNG: apngasm picks sub-rectangles, dispose_op and blend_op; delays from frameN.txt
i=0
for f in f0 f1 f2 f3 f4; do
    cp "$work/$f.png" "$work/apng$i.png"
    i=$((i + 1))
done
printf 'delay=1/10\n' > "$work/apng0.txt"
printf 'delay=2/10\n' > "$work/apng1.txt"
printf 'delay=3/100\n' > "$work/apng2.txt"
printf 'delay=1/4\n' > "$work/apng3.txt"
printf 'delay=5/10\n' > "$work/apng4.txt"
apngasm animated.png "$work"/apng0.png "$work"/apng1.png "$work"/apng2.png "$work"/apng3.png "$work"/apng4.png -l3 -kc >/dev/null
# The first image is the default one only, not a frame (-f)
apngasm hidden-default.png "$work"/apng0.png "$work"/apng1.png "$work"/apng2.png "$work"/apng3.png "$work"/apng4.png -f -kc >/dev/null
# apngasm's own colour type choice (a palette with tRNS for these frames), one play
apngasm palette.png "$work"/apng1.png "$work"/apng2.png "$work"/apng3.png "$work"/apng4.png -l1 >/dev/null
# Every dispose_op and blend_op, written field by field (apngasm picks its own)
python3 - <<'PY'
import struct, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
def rows(w, h, px): return zlib.compress(b''.join(b'\0' + b''.join(bytes(px(x, y)) for x in range(w)) for y in range(h)))
W, H = 30, 20
frames = [  # w, h, x, y, delay num/den, dispose, blend, pixel
    (W, H, 0, 0, 1, 10, 0, 0, lambda x, y: (8 * x, 12 * y, 200, 255)),
    (10, 10, 5, 5, 2, 10, 1, 1, lambda x, y: (255, 0, 0, 128)),
    (8, 8, 15, 8, 3, 10, 2, 1, lambda x, y: (0, 255, 0, 100 + 10 * x)),
    (6, 6, 2, 12, 4, 10, 0, 0, lambda x, y: (0, 0, 255, 255 if x > 1 else 0)),
    (4, 4, 24, 1, 5, 10, 0, 1, lambda x, y: (255, 255, 0, 60)),
]
out = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, 6, 0, 0, 0))
out += chunk(b'acTL', struct.pack('>II', len(frames), 4))
seq = 0
for i, (w, h, x, y, dn, dd, dop, bop, px) in enumerate(frames):
    out += chunk(b'fcTL', struct.pack('>IIIIIHHBB', seq, w, h, x, y, dn, dd, dop, bop)); seq += 1
    data = rows(w, h, px)
    if i == 0: out += chunk(b'IDAT', data)
    else: out += chunk(b'fdAT', struct.pack('>I', seq) + data); seq += 1
open('ops.png', 'wb').write(out + chunk(b'IEND', b''))
PY
for f in animated hidden-default ops palette; do
    rm -rf "$work/dis" && mkdir "$work/dis" && cp "$f.png" "$work/dis/"
    (cd "$work/dis" && apngdis "$f.png" frame >/dev/null)
    n=0
    for p in "$work"/dis/frame*.png; do
        $convert "$p" -alpha on "$f-apng-$n.pam"
        n=$((n + 1))
    done
    cat "$work"/dis/frame*.txt > "$f-apng-delays.txt"
done
