#!/usr/bin/env bash
# Load test: thumbnail-server against thumbor 7.8, same corpus, same upstream,
# same load generator, interleaved in one run. 256 px fit-in JPEG thumbnails
# (quality 80) at concurrency 8, per class of image: baseline JPEG,
# progressive JPEG, PNG, WebP (when the corpus has some), and the whole mix.
#
# At equal cores: both servers run pinned to the same CPUs (CPUS, default
# "0": one core, thumbor's deployment unit of one process), the upstream and
# wrk on the others (LOAD_CPUS, default the rest), so requests/s compare
# per core. CPUS=all turns pinning off.
#
# Honest by construction:
# - Every request has a URL of its own (/rN/<file> upstream; the upstream
#   serves by the last path component), and the wrk threads draw from
#   disjoint slices of one URL list (thread t of T takes t, t+T, t+2T, ...).
#   Our server runs with --cache-mib 0, so neither its cache nor its
#   coalescer can serve one request from another's work.
# - Per class and server: requests/s, CPU per request (the server's
#   utime+stime from /proc/PID/stat before and after the run, divided by
#   the requests answered) and peak RSS (VmHWM, reset through clear_refs
#   before each run), over ROUNDS interleaved rounds (server order
#   alternates between rounds); the summary gives medians.
# - Coalescing of identical concurrent requests is its own scenario at the
#   end: every connection asks for the same URL, which changes every
#   BURST requests.
#
#   Examples/ThumbnailServer/bench/run.sh                 # generated mix
#   Examples/ThumbnailServer/bench/run.sh ~/photos        # a folder of real JPEGs/PNGs (URL-safe names)
#   ROUNDS=3 DURATION=20 WARMUP=3 CONCURRENCY=8 CPUS=0 SKIP_THUMBOR=1 ...
#   SERVER=path/to/thumbnail-server ...   # a release build made already
#   CLASSES="baseline progressive png" ...   # the classes measured (default: also webp)
#
# Loopback only (127.0.0.1). Bounded: every server is killed on exit, every
# wrk run lasts DURATION seconds, the upstream stops by itself.
# Needs: wrk, ImageMagick's convert, taskset (apt-get install -y wrk
# imagemagick util-linux), and python3 with venv and pip: thumbor 7.8 (and
# pycurl, which thumbor's HTTP loader prefers) are installed into a venv in
# the work folder when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
package="$(dirname "$here")"
work="${BENCH_DIR:-${TMPDIR:-/tmp}/thumbnail-bench}"
duration="${DURATION:-20}"
warmup="${WARMUP:-3}"
concurrency="${CONCURRENCY:-8}"
rounds="${ROUNDS:-3}"
burst="${BURST:-8}"
threads=2
photos="${1:-}"
mkdir -p "$work/corpus"

for tool in wrk /usr/bin/convert python3 taskset; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install -y wrk imagemagick util-linux)" >&2; exit 1; }
done

# --- cores: the servers on CPUS, the upstream and wrk on LOAD_CPUS ---
cpus="${CPUS:-0}"
if [ "$cpus" = all ]; then
    pin_servers=() pin_load=()
else
    load_cpus="${LOAD_CPUS:-$(python3 -c 'import os, sys
mine = set()
for part in sys.argv[1].split(","):
    low, _, high = part.partition("-")
    mine.update(range(int(low), int(high or low) + 1))
rest = sorted(os.sched_getaffinity(0) - mine)
print(",".join(map(str, rest)) if rest else sys.argv[1])' "$cpus")}"
    pin_servers=(taskset -c "$cpus") pin_load=(taskset -c "$load_cpus")
fi

# --- corpus: photo-like content (plasma fractal + grain), generated once ---
# name width height kind
corpus=(
    "b01 1200 900 jpeg"  "p02 1920 1080 progressive"  "n01 1000 1000 png"
    "n04 2400 1600 png"  "b06 3000 2000 jpeg"  "p08 3264 2448 progressive"
    "n06 3000 2000 png"  "b12 4000 3000 jpeg"  "b18 5184 3456 jpeg"
    "p18 5184 3456 progressive"
)
if [ -z "$photos" ] && [ ! -f "$work/corpus/.done" ]; then
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
corpus_dir="$work/corpus"
if [ -n "$photos" ]; then
    corpus_dir="$(cd "$photos" && pwd)"
fi

# --- classes: baseline JPEG, progressive JPEG (an SOF2 marker), PNG ---
python3 - "$corpus_dir" >"$work/classes.txt" <<'PY'
import os, sys
root = sys.argv[1]
for name in sorted(os.listdir(root)):
    path = os.path.join(root, name)
    if not os.path.isfile(path) or name.startswith("."):
        continue
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        print("png", name)
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        print("webp", name)
    elif data[:2] == b"\xff\xd8":
        i, kind = 2, "baseline"
        while i + 4 <= len(data) and data[i] == 0xFF:
            marker = data[i + 1]
            if marker == 0xFF:
                i += 1
                continue
            if marker in (0xC2, 0xC6, 0xCA, 0xCE):
                kind = "progressive"
            if marker == 0xDA:
                break
            i += 2 + (data[i + 2] << 8 | data[i + 3])
        print(kind, name)
PY
[ -s "$work/classes.txt" ] || { echo "bench: no JPEG, PNG or WebP files in $corpus_dir" >&2; exit 1; }
# CLASSES: the classes measured (the mix is every file of these classes).
wanted="${CLASSES:-baseline progressive png webp}"
grep -E "^($(echo $wanted | tr ' ' '|')) " "$work/classes.txt" >"$work/classes.tmp" || true
mv "$work/classes.tmp" "$work/classes.txt"
[ -s "$work/classes.txt" ] || { echo "bench: no file of the classes '$wanted' in $corpus_dir" >&2; exit 1; }
classes=()
for class in baseline progressive png webp; do
    grep -q "^$class " "$work/classes.txt" && classes+=("$class")
done
classes+=(mix)

# --- thumbor 7.8 in a venv of its own ---
thumbor="${THUMBOR:-$work/thumbor-venv/bin/thumbor}"
if [ -z "${SKIP_THUMBOR:-}" ] && [ ! -x "$thumbor" ]; then
    echo "bench: installing thumbor 7.8 into $work/thumbor-venv"
    python3 -m venv "$work/thumbor-venv"
    "$work/thumbor-venv/bin/pip" install -q 'thumbor==7.8.*'
    # Best effort: without pycurl thumbor falls back to tornado's simple
    # HTTP client (and warns that pycurl is advised).
    "$work/thumbor-venv/bin/pip" install -q pycurl || echo "bench: pycurl did not install; thumbor uses tornado's simple client" >&2
fi

# --- our server (SERVER=path: one built already) ---
server="${SERVER:-}"
if [ -z "$server" ]; then
    echo "bench: building thumbnail-server (release)"
    swift build --package-path "$package" -c release --product thumbnail-server 2>&1 | tail -n 1
    server="$(swift build --package-path "$package" -c release --show-bin-path)/thumbnail-server"
fi

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

# A log left by the last run would give wait_for its port if read before
# the new process truncates the file: remove them first.
rm -f "$work/upstream.log" "$work/ours.log" "$work/thumbor.log"
"${pin_load[@]}" python3 -u "$here/upstream.py" --directory "$corpus_dir" --seconds 7200 >"$work/upstream.log" 2>&1 &
pids+=($!)
upstream_port="$(wait_for "$work/upstream.log" 'port [0-9]+' 10 | awk '{print $2}')"
origin="127.0.0.1:$upstream_port"

# Thread t (0-based) of BENCH_THREADS takes paths t, t+T, t+2T, ...: two
# threads never ask for the same URL, whatever their pace.
cat >"$work/distinct.lua" <<'LUA'
local next_id = 0
function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
end
function init(args)
    step = tonumber(os.getenv("BENCH_THREADS"))
    paths = {}
    for line in io.lines(os.getenv("BENCH_PATHS")) do paths[#paths + 1] = line end
    index = id
end
function request()
    local path = paths[(index % #paths) + 1]
    index = index + step
    return wrk.format("GET", path)
end
LUA
# Coalescing: every connection of every thread asks for path n / BURST at its
# n-th request of the thread: identical requests arrive together.
cat >"$work/identical.lua" <<'LUA'
local count = 0
function init(args)
    burst = tonumber(os.getenv("BENCH_BURST"))
    paths = {}
    for line in io.lines(os.getenv("BENCH_PATHS")) do paths[#paths + 1] = line end
end
function request()
    local path = paths[(math.floor(count / burst) % #paths) + 1]
    count = count + 1
    return wrk.format("GET", path)
end
LUA

# paths SERVER CLASS PREFIX COUNT -> one path per line, each with a distinct /PREFIXn/ segment
paths() {
    local server="$1" class="$2" prefix="$3" count="$4" names=() i=0
    while read -r kind name; do
        if [ "$class" = mix ] || [ "$class" = "$kind" ]; then names+=("$name"); fi
    done <"$work/classes.txt"
    while [ $i -lt "$count" ]; do
        local name="${names[$((i % ${#names[@]}))]}"
        local source="$origin/$prefix$i/$name"
        if [ "$server" = ours ]; then
            echo "/thumbnail?url=http%3A%2F%2F${source//\//%2F}&width=256&height=256&fit=fit&format=jpeg&quality=80"
        else
            echo "/unsafe/fit-in/256x256/filters:format(jpeg)/$source"
        fi
        i=$((i + 1))
    done
}

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
# wait_idle PID: until the process used no CPU for 0.5 s (at most 20 s).
wait_idle() {
    local deadline=$((SECONDS + 20)) last now
    last="$(cpu_ticks "$1")"
    while [ $SECONDS -lt $deadline ]; do
        sleep 0.5
        now="$(cpu_ticks "$1")"
        [ "$now" = "$last" ] && return 0
        last="$now"
    done
}
clock_ticks="$(getconf CLK_TCK)"

# measure SERVER PID BASE CLASS ROUND SCRIPT -> one line in $work/results.tsv:
# server class round requests/s cpu-ms/request peak-MiB p50 p99 errors
measure() {
    local server="$1" pid="$2" base="$3" class="$4" round="$5" script="$6"
    local warm="$work/paths-$server-$class-$round-warm.txt" list="$work/paths-$server-$class-$round.txt" out="$work/wrk-$server-$class-$round.txt"
    paths "$server" "$class" "w$round-" 4000 >"$warm"
    paths "$server" "$class" "r$round-" 40000 >"$list"
    # The first path must answer 200 with a JPEG before the load starts,
    # once the server is done with the last run's leftover requests.
    local got attempt
    for attempt in 1 2 3; do
        wait_idle "$pid"
        got="$(curl -s -o /dev/null -w '%{http_code} %{content_type}' --max-time 60 "$base$(head -n 1 "$list")")"
        [[ "$got" == "200 image/jpeg"* ]] && break
    done
    [[ "$got" == "200 image/jpeg"* ]] || { echo "bench: $server answered '$got' for $(head -n 1 "$list")" >&2; exit 1; }
    BENCH_PATHS="$warm" BENCH_THREADS=$threads BENCH_BURST=$burst \
        "${pin_load[@]}" wrk -t$threads -c"$concurrency" -d"${warmup}s" --timeout 30s -s "$script" "$base" >/dev/null
    # thumbor finishes the requests wrk left open (our server cancels
    # them): let that work end before the window opens, or it would count
    # against thumbor's CPU per request.
    wait_idle "$pid"
    echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || true
    local before after
    before="$(cpu_ticks "$pid")"
    BENCH_PATHS="$list" BENCH_THREADS=$threads BENCH_BURST=$burst \
        "${pin_load[@]}" wrk -t$threads -c"$concurrency" -d"${duration}s" --timeout 30s --latency -s "$script" "$base" >"$out"
    after="$(cpu_ticks "$pid")"
    local requests rps p50 p99 errors rss cpu
    requests="$(awk '/requests in/ {print $1}' "$out")"
    rps="$(awk '/^Requests\/sec/ {print $2}' "$out")"
    p50="$(awk '$1 == "50%" {print $2}' "$out")"
    p99="$(awk '$1 == "99%" {print $2}' "$out")"
    errors="$(awk '/Non-2xx/ {printf "non-2xx:%s ", $NF} /Socket errors/ {printf "socket:%s ", $0}' "$out")"
    rss="$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")"
    cpu="$(python3 -c 'import sys; t, n, hz = map(float, sys.argv[1:]); print(f"{1000 * t / hz / max(n, 1):.1f}")' "$((after - before))" "$requests" "$clock_ticks")"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$class" "$round" "$rps" "$cpu" "$rss" "$p50" "$p99" "${errors:-none}" | tee -a "$work/results.tsv"
}

# --- the servers, both up for the whole run ---
# thumbnail-server: caches off (--cache-mib 0), so every request downloads,
# decodes, resizes and encodes, as thumbor does with no storage.
"${pin_servers[@]}" "$server" --port 0 --allow-loopback --allow-host 127.0.0.1 --cache-mib 0 >"$work/ours.log" 2>&1 &
ours=$!
pids+=($ours)
ours_base="$(wait_for "$work/ours.log" 'http://127\.0\.0\.1:[0-9]+' 30)"
servers=(ours)

if [ -z "${SKIP_THUMBOR:-}" ]; then
    # thumbor: one process, HTTP loader, no storage, no result storage, quality 80.
    thumbor_port="$(free_port)"
    cat >"$work/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ALLOW_UNSAFE_URL = True
QUALITY = 80
HTTP_LOADER_MAX_CLIENTS = 16
CONF
    "${pin_servers[@]}" "$thumbor" --port "$thumbor_port" --ip 127.0.0.1 --conf "$work/thumbor.conf" --processes 1 -l warning >"$work/thumbor.log" 2>&1 &
    tpid=$!
    pids+=($tpid)
    deadline=$((SECONDS + 60))
    until curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$thumbor_port/healthcheck"; do
        [ $SECONDS -lt $deadline ] || { echo "bench: thumbor did not start" >&2; cat "$work/thumbor.log" >&2; exit 1; }
        sleep 0.5
    done
    servers+=(thumbor)
fi
pid_of() { if [ "$1" = ours ]; then echo "$ours"; else echo "$tpid"; fi; }
base_of() { if [ "$1" = ours ]; then echo "$ours_base"; else echo "http://127.0.0.1:$thumbor_port"; fi; }

printf 'server\tclass\tround\treq/s\tcpu-ms/req\tpeak-MiB\tp50\tp99\terrors\n' | tee "$work/results.tsv"
for round in $(seq 1 "$rounds"); do
    order=("${servers[@]}")
    if [ $((round % 2)) -eq 0 ] && [ ${#servers[@]} -eq 2 ]; then order=(thumbor ours); fi
    for class in "${classes[@]}"; do
        for server in "${order[@]}"; do
            measure "$server" "$(pid_of "$server")" "$(base_of "$server")" "$class" "$round" "$work/distinct.lua"
        done
    done
done
# Coalescing, apart: identical concurrent requests (the mix, BURST requests per URL per thread).
for server in "${servers[@]}"; do
    measure "$server" "$(pid_of "$server")" "$(base_of "$server")" mix "identical" "$work/identical.lua"
done

python3 - "$work/results.tsv" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])][1:]
def ms(text):  # wrk's latency: 812.00us, 45.3ms, 1.20s, 2.00m
    for unit, scale in (("us", 0.001), ("ms", 1), ("s", 1000), ("m", 60000)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float("nan")
def values(server, klass, column, rounds):
    picked = [r for r in rows if r[0] == server and r[1] == klass and rounds(r[2])]
    return [ms(r[column]) if column == 7 else float(r[column]) for r in picked]
def spread(xs, digits):
    if not xs: return "-"
    median = statistics.median(xs)
    return f"{median:.{digits}f} ({min(xs):.{digits}f}-{max(xs):.{digits}f})" if len(xs) > 1 else f"{median:.{digits}f}"
classes = []
for r in rows:
    if r[1] not in classes: classes.append(r[1])
print("\nmedian (min-max) over the interleaved rounds, distinct URLs; peak RSS: the largest VmHWM;")
print("ratios: req/s ours/thumbor, CPU per request thumbor/ours, p99 thumbor/ours, peak RSS thumbor/ours")
print("| class | server | req/s | p99 ms | CPU ms/request | peak RSS MiB | errors |")
print("|---|---|---|---|---|---|---|")
ratios = []
for klass in classes:
    for label, rounds in (("", lambda x: x != "identical"), (" (identical requests)", lambda x: x == "identical")):
        med = {}
        for server in ("ours", "thumbor"):
            rps, p99, cpu, rss = (values(server, klass, c, rounds) for c in (3, 7, 4, 5))
            if not rps: continue
            errors = sorted({r[8] for r in rows if r[0] == server and r[1] == klass and rounds(r[2])} - {"none"})
            med[server] = (statistics.median(rps), statistics.median(p99), statistics.median(cpu), max(rss))
            print(f"| {klass}{label} | {server} | {spread(rps, 1)} | {spread(p99, 0)} | {spread(cpu, 1)} | {max(rss):.0f} | {' '.join(errors) or 'none'} |")
        if len(med) == 2:
            o, t = med["ours"], med["thumbor"]
            ratios.append(f"| {klass}{label} | {o[0] / t[0]:.2f}x | {t[2] / o[2]:.2f}x | {t[1] / o[1]:.2f}x | {t[3] / o[3]:.2f}x |")
if ratios:
    print("\n| class | req/s ours/thumbor | CPU/request thumbor/ours | p99 thumbor/ours | peak RSS thumbor/ours |")
    print("|---|---|---|---|---|")
    print("\n".join(ratios))
PY
echo "bench: corpus $corpus_dir: $(wc -l <"$work/classes.txt") images ($(awk '{print $1}' "$work/classes.txt" | sort | uniq -c | tr '\n' ' '))"
echo "bench: servers on CPUs ${cpus}, load on ${load_cpus:-any}; $concurrency connections, $threads wrk threads, ${duration}s per run after ${warmup}s warm-up, $rounds rounds; load average now: $(cut -d' ' -f1-3 /proc/loadavg); raw rows in $work/results.tsv"
