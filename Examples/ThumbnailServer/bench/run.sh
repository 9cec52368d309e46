#!/usr/bin/env bash
# Load test: thumbnail-server against thumbor 7.8, same corpus, same upstream,
# same client, one run. 256 px fit-in JPEG thumbnails of a mix of 1–18 MP
# baseline/progressive JPEGs and PNGs at concurrency 8; requests/s, p50/p99
# latency (wrk --latency) and peak RSS (VmHWM) of each server process.
#
#   Examples/ThumbnailServer/bench/run.sh              # 30 s per server
#   DURATION=60 Examples/ThumbnailServer/bench/run.sh
#
# Loopback only (127.0.0.1). Bounded: every server is killed on exit, every
# wrk run lasts DURATION seconds, the upstream stops by itself.
# Needs: wrk, ImageMagick's convert (apt-get install -y wrk imagemagick), and
# python3 with pip (thumbor is installed into a venv in the work folder).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
package="$(dirname "$here")"
work="${BENCH_DIR:-${TMPDIR:-/tmp}/thumbnail-bench}"
duration="${DURATION:-30}"
warmup="${WARMUP:-5}"
concurrency="${CONCURRENCY:-8}"
mkdir -p "$work/corpus"

for tool in wrk /usr/bin/convert python3; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install -y wrk imagemagick)" >&2; exit 1; }
done

# --- corpus: photo-like content (plasma fractal + grain), generated once ---
# name width height kind
corpus=(
    "b01 1200 900 jpeg"  "p02 1920 1080 progressive"  "n01 1000 1000 png"
    "n04 2400 1600 png"  "b06 3000 2000 jpeg"  "p08 3264 2448 progressive"
    "n06 3000 2000 png"  "b12 4000 3000 jpeg"  "b18 5184 3456 jpeg"
    "p18 5184 3456 progressive"
)
if [ ! -f "$work/corpus/.done" ]; then
    echo "bench: generating the corpus in $work/corpus"
    /usr/bin/convert -size 1600x1200 -seed 7 plasma:fractal -blur 0x0.5 "$work/base.png"
    for entry in "${corpus[@]}"; do
        read -r name width height kind <<<"$entry"
        args=(-resize "${width}x${height}!" -attenuate 0.15 +noise Gaussian)
        case "$kind" in
            jpeg) /usr/bin/convert "$work/base.png" "${args[@]}" -quality 85 -interlace none "$work/corpus/$name.jpg" ;;
            progressive) /usr/bin/convert "$work/base.png" "${args[@]}" -quality 85 -interlace plane "$work/corpus/$name.jpg" ;;
            png) /usr/bin/convert "$work/base.png" "${args[@]}" -depth 8 -define png:compression-level=6 "$work/corpus/$name.png" ;;
        esac
    done
    touch "$work/corpus/.done"
fi
files=()
for file in "$work"/corpus/*.jpg "$work"/corpus/*.png; do files+=("$(basename "$file")"); done

# --- thumbor 7.8 in a venv of its own ---
thumbor="${THUMBOR:-$work/thumbor-venv/bin/thumbor}"
if [ ! -x "$thumbor" ]; then
    echo "bench: installing thumbor 7.8 into $work/thumbor-venv"
    python3 -m venv "$work/thumbor-venv"
    "$work/thumbor-venv/bin/pip" install -q 'thumbor==7.8.*'
fi

# --- our server ---
echo "bench: building thumbnail-server (release)"
swift build --package-path "$package" -c release --product thumbnail-server 2>&1 | tail -n 1
server="$(swift build --package-path "$package" -c release --show-bin-path)/thumbnail-server"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_for() { # FILE REGEX SECONDS
    local deadline=$((SECONDS + $3))
    while [ $SECONDS -lt $deadline ]; do
        if grep -Eo "$2" "$1" 2>/dev/null | head -n 1 | grep .; then return 0; fi
        sleep 0.2
    done
    echo "bench: timed out waiting for '$2' in $1" >&2; cat "$1" >&2; return 1
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

python3 -u "$here/upstream.py" --directory "$work/corpus" --seconds 1800 >"$work/upstream.log" 2>&1 &
pids+=($!)
upstream_port="$(wait_for "$work/upstream.log" 'port [0-9]+' 10 | awk '{print $2}')"
origin="127.0.0.1:$upstream_port"

cat >"$work/paths.lua" <<'LUA'
-- Round-robin over the corpus; each wrk thread starts at its own offset.
local paths, i = {}, 0
for line in io.lines(os.getenv("BENCH_PATHS")) do paths[#paths + 1] = line end
function setup(thread) thread:set("offset", math.random(#paths)) end
function request()
    i = i + 1
    return wrk.format("GET", paths[((i + (offset or 0)) % #paths) + 1])
end
LUA

# measure NAME PID BASE PATHS-FILE -> one result line in $work/results.txt
measure() {
    local name="$1" pid="$2" base="$3" paths="$4" out="$work/wrk-$1.txt"
    # Every path must answer 200 with a JPEG before the load starts.
    while read -r path; do
        local got
        got="$(curl -s -o "$work/check.jpg" -w '%{http_code} %{content_type}' --max-time 60 "$base$path")"
        [[ "$got" == "200 image/jpeg"* ]] || { echo "bench: $name answered '$got' for $path" >&2; exit 1; }
    done <"$paths"
    BENCH_PATHS="$paths" wrk -t2 -c"$concurrency" -d"${warmup}s" --timeout 30s -s "$work/paths.lua" "$base" >/dev/null
    BENCH_PATHS="$paths" wrk -t2 -c"$concurrency" -d"${duration}s" --timeout 30s --latency -s "$work/paths.lua" "$base" >"$out"
    local rps p50 p99 errors rss
    rps="$(awk '/^Requests\/sec/ {print $2}' "$out")"
    p50="$(awk '$1 == "50%" {print $2}' "$out")"
    p99="$(awk '$1 == "99%" {print $2}' "$out")"
    errors="$(awk '/Non-2xx/ {print $NF} /Socket errors/ {print}' "$out" | tr '\n' ' ')"
    rss="$(awk '/VmHWM/ {printf "%.0f MiB", $2 / 1024}' "/proc/$pid/status")"
    printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$rps" "$p50" "$p99" "$rss" "${errors:-none}" | tee -a "$work/results.txt"
}

: >"$work/results.txt"
echo "| server | requests/s | p50 | p99 | peak RSS | errors |" | tee -a "$work/results.txt"
echo "|---|---|---|---|---|---|" | tee -a "$work/results.txt"

# thumbnail-server: caches off (--cache-mib 0), so every request downloads,
# decodes, resizes and encodes, as thumbor does with no storage.
: >"$work/paths-ours.txt"
for file in "${files[@]}"; do
    url="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "http://$origin/$file")"
    echo "/thumbnail?url=$url&width=256&height=256&fit=fit&format=jpeg&quality=80" >>"$work/paths-ours.txt"
done
"$server" --port 0 --allow-loopback --allow-host 127.0.0.1 --cache-mib 0 >"$work/ours.log" 2>&1 &
ours=$!
pids+=($ours)
ours_base="$(wait_for "$work/ours.log" 'http://127\.0\.0\.1:[0-9]+' 30)"
measure "thumbnail-server (no cache)" "$ours" "$ours_base" "$work/paths-ours.txt"
kill "$ours"

# thumbor: one process, HTTP loader, no storage, no result storage, quality 80.
thumbor_port="$(free_port)"
cat >"$work/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ALLOW_UNSAFE_URL = True
QUALITY = 80
HTTP_LOADER_MAX_CLIENTS = 16
MAX_SOURCE_SIZE = 50000000
CONF
: >"$work/paths-thumbor.txt"
for file in "${files[@]}"; do
    echo "/unsafe/fit-in/256x256/filters:format(jpeg)/$origin/$file" >>"$work/paths-thumbor.txt"
done
"$thumbor" --port "$thumbor_port" --ip 127.0.0.1 --conf "$work/thumbor.conf" --processes 1 -l warning >"$work/thumbor.log" 2>&1 &
tpid=$!
pids+=($tpid)
deadline=$((SECONDS + 60))
until curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$thumbor_port/healthcheck"; do
    [ $SECONDS -lt $deadline ] || { echo "bench: thumbor did not start" >&2; cat "$work/thumbor.log" >&2; exit 1; }
    sleep 0.5
done
measure "thumbor $("$work/thumbor-venv/bin/python" -c 'import thumbor; print(thumbor.__version__)' 2>/dev/null || echo 7.8)" "$tpid" "http://127.0.0.1:$thumbor_port" "$work/paths-thumbor.txt"
kill "$tpid"

ours_rps="$(sed -n 3p "$work/results.txt" | awk -F'|' '{print $3}')"
thumbor_rps="$(sed -n 4p "$work/results.txt" | awk -F'|' '{print $3}')"
python3 -c "import sys; print(f'ratio: {float(sys.argv[1]) / float(sys.argv[2]):.1f}x thumbor requests/s')" "$ours_rps" "$thumbor_rps" | tee -a "$work/results.txt"
echo "bench: corpus ${#files[@]} images: $(cd "$work/corpus" && ls -l --block-size=K *.jpg *.png | awk '{printf "%s %s, ", $9, $5}')"
echo "bench: $concurrency connections, ${duration}s per server after ${warmup}s warm-up; wrk output in $work"
