#!/usr/bin/env bash
# Builds the prototype's timing and exactness corpus in DIR from the real-photo corpus
# (scripts/real-photos REAL): every baseline JPEG of REAL linked as-is under DIR/real,
# plus re-encodings (cjpeg, libjpeg-turbo's own encoder) of three photos at 2, 12 and
# 24 MP, quality 75/90/95, 4:2:0 and 4:4:4, with and without a restart marker per MCU
# row; greyscale and 4:2:2 files; ImageMagick plasma and noise; and small 320x240 files
# (restart every MCU, every 4 MCUs) for the fuzzer under DIR/fuzz-seeds.
#
#   Benchmarks/huffman-prototype/make-corpus.sh REAL DIR
set -euo pipefail
real="${1:?usage: make-corpus.sh REAL DIR}"
dir="${2:?usage: make-corpus.sh REAL DIR}"
mkdir -p "$dir/real" "$dir/fuzz-seeds"
for file in "$real"/*.jpg "$real"/*.jpeg; do
  [ -f "$file" ] || continue
  # SOF0/SOF1 only; progressive files are the fallback path.
  if python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); i=2
while i+4<=len(d) and d[i]==0xFF:
    m=d[i+1]
    if m in (0xC0,0xC1): sys.exit(0)
    if 0xC2<=m<=0xCF and m not in (0xC4,0xC8,0xCC): sys.exit(1)
    i+=2+(d[i+2]<<8|d[i+3])
sys.exit(1)' "$file"; then ln -sf "$file" "$dir/real/$(basename "$file")"; fi
done
sources=("$real/wallpapers_Honeywave_contents_images_5120x2880.jpg"
         "$real/wallpapers_Path_contents_images_2560x1600.jpg"
         "$real/wallpapers_SafeLanding_contents_images_5120x2880.jpg")
sizes=("1728x1152" "4256x2832" "6000x4000")   # 2, 12, 24 MP
for index in 0 1 2; do
  source="${sources[$index]}"
  size="${sizes[$index]}"
  megapixels=$(( ${size%x*} * ${size#*x} / 1000000 ))
  convert "$source" -resize "${size}!" ppm:"$dir/source.ppm"
  for quality in 75 90 95; do
    for sampling in 2x2 1x1; do
      name=$([ "$sampling" = 2x2 ] && echo 420 || echo 444)
      mkdir -p "$dir/photo-q$quality-$name" "$dir/photo-q$quality-$name-rst"
      cjpeg -quality "$quality" -sample "$sampling" "$dir/source.ppm" > "$dir/photo-q$quality-$name/p$index-${megapixels}mp.jpg"
      cjpeg -quality "$quality" -sample "$sampling" -restart 1 "$dir/source.ppm" > "$dir/photo-q$quality-$name-rst/p$index-${megapixels}mp.jpg"
    done
  done
  mkdir -p "$dir/photo-grey" "$dir/photo-q90-422-optimized"
  cjpeg -quality 90 -grayscale "$dir/source.ppm" > "$dir/photo-grey/p$index-${megapixels}mp.jpg"
  cjpeg -quality 90 -sample 2x1 -optimize "$dir/source.ppm" > "$dir/photo-q90-422-optimized/p$index-${megapixels}mp.jpg"
done
mkdir -p "$dir/plasma" "$dir/noise"
convert -seed 7 -size 2048x1536 plasma:fractal ppm:"$dir/source.ppm"
for quality in 75 95; do
  cjpeg -quality "$quality" -sample 2x2 "$dir/source.ppm" > "$dir/plasma/plasma-q$quality-420.jpg"
  cjpeg -quality "$quality" -sample 1x1 -restart 1 "$dir/source.ppm" > "$dir/plasma/plasma-q$quality-444-rst.jpg"
done
convert -seed 7 -size 1600x1200 xc:gray50 +noise Random ppm:"$dir/source.ppm"
cjpeg -quality 90 -sample 2x2 "$dir/source.ppm" > "$dir/noise/noise-q90-420.jpg"
cjpeg -quality 95 -sample 1x1 "$dir/source.ppm" > "$dir/noise/noise-q95-444.jpg"
# Fuzz seeds: small, so that each iteration is cheap and mutations hit every structure.
for index in 0 1 2; do
  convert "${sources[$index]}" -resize '320x240!' ppm:"$dir/source.ppm"
  cjpeg -quality 75 -sample 2x2 "$dir/source.ppm" > "$dir/fuzz-seeds/s$index-420.jpg"
  cjpeg -quality 95 -sample 1x1 -restart 4B "$dir/source.ppm" > "$dir/fuzz-seeds/s$index-444-rst4.jpg"
  cjpeg -quality 90 -sample 2x1 -optimize -restart 1 "$dir/source.ppm" > "$dir/fuzz-seeds/s$index-422-opt-rst.jpg"
  cjpeg -quality 85 -grayscale -restart 1B "$dir/source.ppm" > "$dir/fuzz-seeds/s$index-grey-rst1.jpg"
  convert "$dir/source.ppm" -quality 92 -sampling-factor 1x2 "$dir/fuzz-seeds/s$index-440-im.jpg"
done
rm -f "$dir/source.ppm"
echo "corpus: $(find "$dir" -name '*.jp*g' | wc -l) files in $dir"
