#!/usr/bin/env bash
# For each FILE: the share of libjpeg-turbo's raw 1/8 decode (tjDecompressToYUVPlanes)
# spent in its Huffman MCU decoder, from `perf record` samples mapped to function ranges
# through the library's .eh_frame (the Debian library is stripped). The function is
# identified as the hottest range; the prototype's "entropy stage only" ratio is then
# bench's vs_yuv times this share.
#
#   Benchmarks/huffman-prototype/entropy-share.sh FILE...
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
binary="$here/.build/release/huffman-proto"
library="$(readlink -f /usr/lib/x86_64-linux-gnu/libturbojpeg.so.0)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
readelf --debug-dump=frames "$library" | grep -E "FDE cie=.*pc=" \
  | sed -E 's/.*pc=([0-9a-f]+)\.\.([0-9a-f]+).*/\1 \2/' > "$work/fde"
for file in "$@"; do
  perf record -q -o "$work/data" "$binary" loop-turbo-yuv --count 40 "$file" >/dev/null 2>&1
  perf report -i "$work/data" --stdio --sort dso,sym 2>/dev/null | grep -v '^#' | grep . > "$work/report"
  python3 - "$file" "$work/fde" "$work/report" <<'PY'
import bisect, re, sys
ranges = sorted(tuple(int(x, 16) for x in line.split()) for line in open(sys.argv[2]))
starts = [start for start, _ in ranges]
shares, total = {}, 0.0
for line in open(sys.argv[3]):
    match = re.match(r'\s*([\d.]+)%\s+(\S+)\s+\[\.\]\s+(\S+)', line)
    if not match:
        continue
    percent, dso, symbol = float(match.group(1)), match.group(2), match.group(3)
    total += percent
    key = dso + ':' + symbol
    if 'turbojpeg' in dso and symbol.startswith('0x'):
        address = int(symbol, 16)
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0 and address < ranges[index][1]:
            key = hex(ranges[index][0])
    shares[key] = shares.get(key, 0.0) + percent
hottest, share = max(shares.items(), key=lambda item: item[1])
print(f"{sys.argv[1]}\t{hottest}\t{share / total:.3f}")
PY
done
