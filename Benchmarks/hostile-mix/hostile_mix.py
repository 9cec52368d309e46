#!/usr/bin/env python3
"""The hostile mix of issue 12, against a running-from-here thumbnail server.

Starts a loopback upstream (good images, and the hostile files of issue 12:
many-scan progressive JPEGs, 49 MP RGBA16 PNGs, a gzip bomb, a 1 byte/0.2 s
trickle for abandoned requests) and the thumbnail server binary given, then
runs two phases of closed-loop load at the same concurrency:

  1. innocent only: every request a distinct URL of a good image;
  2. the same innocent requests, with a share of the workers sending hostile
     ones (and abandoning the trickled ones after a moment).

It prints the innocent requests' latency percentiles in both phases and the
server's peak RSS (VmHWM), and exits 1 when the innocent p99 of phase 2 is
over --max-p99-ratio times phase 1's (plus --p99-slack-ms, so a 5 ms p99 is
not held to 10 ms by scheduling noise), when the peak RSS is over
--max-rss-mib, when an innocent request fails, or when a hostile one gets a
2xx when it must be refused (the many-scan JPEGs, the bomb: 413; the 49 MP
PNG is within the server's pixel limit and may be served, at a bounded
cost). Loopback only; every wait is bounded.

    hostile_mix.py --server PATH/thumbnail-server [--requests 400] [--concurrency 8]
                   [--server-arg=--heavy-decode-nice --server-arg=off]
"""
import argparse
import gzip
import http.client
import http.server
import io
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zlib


# --- the hostile files ---------------------------------------------------------

def many_scan_jpeg(width, height, scans):
    """A grey progressive JPEG whose AC scans each cost a few dozen bytes yet
    make libjpeg walk every block (the finding 3 file): a DC scan of 1-bit
    codes, then `scans - 1` AC scans of end-of-band runs of 32767 blocks."""
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    out = bytearray(b"\xff\xd8")

    def segment(marker, payload):
        out.extend(bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + bytes(payload))

    segment(0xDB, [0] + [1] * 64)
    segment(0xC2, [8, height >> 8, height & 0xFF, width >> 8, width & 0xFF, 1, 1, 0x11, 0])
    segment(0xC4, [0x00, 1] + [0] * 15 + [0x00])
    segment(0xC4, [0x10, 1] + [0] * 15 + [0xE0])
    segment(0xDA, [1, 1, 0x00, 0, 0, 0x00])
    out.extend(bytes(blocks // 8))
    if blocks % 8:
        out.append(0xFF >> (blocks % 8))
    if out[-1] == 0xFF:
        out.append(0)
    # Each run: a '0' code bit then 14 one-bits; stuffed after every 0xFF.
    bits = []
    for _ in range((blocks + 32766) // 32767):
        bits += [0] + [1] * 14
    bits += [1] * (-len(bits) % 8)
    ac = bytearray()
    for i in range(0, len(bits), 8):
        byte = int("".join(map(str, bits[i:i + 8])), 2)
        ac.append(byte)
        if byte == 0xFF:
            ac.append(0)
    for _ in range(scans - 1):
        segment(0xDA, [1, 1, 0x00, 1, 63, 0x00])
        out.extend(ac)
    out.extend(b"\xff\xd9")
    return bytes(out)


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def zero_rgba16_png(width, height):
    """An all-zero RGBA16 PNG written in slices (finding 4): tiny on the wire,
    `width * height * 8` bytes once decoded."""
    compressor = zlib.compressobj(9)
    row = bytes(1 + width * 8)
    idat = bytearray()
    for _ in range(height):
        idat += compressor.compress(row)
    idat += compressor.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 16, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", bytes(idat)) + png_chunk(b"IEND", b"")


def good_png(width, height, seed):
    rng = random.Random(seed)
    small = bytes(value % 6 for value in range(256))
    rows = bytearray()
    for y in range(height):
        rows.append(1)  # Sub: smooth gradients with a little noise
        rows += rng.randbytes(width * 3).translate(small)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + png_chunk(b"IEND", b"")


def gzip_bomb(size):
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as f:
        chunk = bytes(1 << 20)
        for _ in range(size >> 20):
            f.write(chunk)
    return buffer.getvalue()


# --- the upstream ----------------------------------------------------------------

class Upstream(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    files = {}          # path -> (bytes, content type, content encoding)

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        if path == "/trickle.jpg":
            # One byte every 0.2 s for a minute: what an abandoned request waits on.
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", "300")
            self.end_headers()
            try:
                for _ in range(300):
                    self.wfile.write(b"\xff")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass
            return
        entry = self.files.get(path)
        if entry is None:
            self.send_error(404)
            return
        body, content_type, encoding = entry
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass


# --- load ----------------------------------------------------------------------

def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def request(port, query, timeout):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", "/thumbnail?" + query)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def abandon(port, query, after):
    """Sends a request and closes the connection after `after` seconds."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(f"GET /thumbnail?{query} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        s.settimeout(after)
        try:
            s.recv(1)
        except (socket.timeout, OSError):
            pass


# What each hostile request may be answered with: refused by a limit, or —
# for the PNG that is within the server's pixel limit — served.
EXPECTED_STATUSES = {
    "scans499": {413},
    "scans5001": {413},
    "rgba16-49mp": {200, 413},
    "bomb": {413},
}


def run_phase(port, upstream, requests, concurrency, hostile_workers, seed):
    """Closed loop: `concurrency` workers; the first `hostile_workers` of them
    send hostile requests, the rest share `requests` innocent ones."""
    latencies, failures, hostile_statuses, hostile_latencies = [], [], {}, {}
    lock = threading.Lock()
    counter = iter(range(requests))
    stop = threading.Event()
    hostile = [
        ("scans499", "many-scans-499.jpg", 1024),
        ("scans5001", "many-scans-5001.jpg", 256),
        ("rgba16-49mp", "rgba16-49mp.png", 4096),
        ("bomb", "bomb.bin", 256),
        ("abandoned", "trickle.jpg", 64),
    ]

    def innocent_worker():
        while True:
            with lock:
                index = next(counter, None)
            if index is None:
                return
            url = f"{upstream}/good-{index % 8}.png?v={seed}-{index}"
            query = urllib.parse.urlencode({"url": url, "width": 256, "height": 256})
            start = time.monotonic()
            try:
                status = request(port, query, 60)
            except Exception as error:  # a reset, a short body: recorded, never fatal
                status = f"error {type(error).__name__}"
            elapsed = time.monotonic() - start
            with lock:
                if status == 200:
                    latencies.append(elapsed)
                else:
                    failures.append(status)

    def hostile_worker(offset):
        n = offset
        while not stop.is_set():
            name, path, size = hostile[n % len(hostile)]
            n += 1
            url = f"{upstream}/{path}?v={seed}-{n}"
            query = urllib.parse.urlencode({"url": url, "width": size, "height": size})
            if name == "abandoned":
                abandon(port, query, 0.5)
                continue
            start = time.monotonic()
            try:
                status = request(port, query, 60)
            except Exception as error:  # a reset, a short body: recorded, never fatal
                status = f"error {type(error).__name__}"
            elapsed = time.monotonic() - start
            with lock:
                hostile_statuses.setdefault(name, {}).setdefault(status, 0)
                hostile_statuses[name][status] += 1
                hostile_latencies.setdefault(name, []).append(elapsed)

    threads = [threading.Thread(target=hostile_worker, args=(i,)) for i in range(hostile_workers)]
    threads += [threading.Thread(target=innocent_worker) for _ in range(concurrency - hostile_workers)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads[hostile_workers:]:
        thread.join(timeout=600)
    stop.set()
    for thread in threads[:hostile_workers]:
        thread.join(timeout=120)
    return latencies, failures, hostile_statuses, hostile_latencies, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, help="the thumbnail-server binary")
    parser.add_argument("--requests", type=int, default=400, help="innocent requests per phase")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--hostile-workers", type=int, default=2, help="workers sending hostile requests in phase 2")
    parser.add_argument("--max-p99-ratio", type=float, default=2.0)
    parser.add_argument("--p99-slack-ms", type=float, default=20.0)
    parser.add_argument("--max-rss-mib", type=float, default=512.0)
    parser.add_argument("--server-arg", action="append", default=[],
                        help="an extra server argument, repeatable (--server-arg=--heavy-decode-nice --server-arg=off)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="hostile-mix-")
    files = {f"/good-{i}.png": (good_png(900 + 40 * i, 700 + 20 * i, i), "image/png", None) for i in range(8)}
    files["/many-scans-499.jpg"] = (many_scan_jpeg(7000, 7000, 499), "image/jpeg", None)
    files["/many-scans-5001.jpg"] = (many_scan_jpeg(7000, 7000, 5001), "image/jpeg", None)
    files["/rgba16-49mp.png"] = (zero_rgba16_png(7000, 7000), "image/png", None)
    files["/bomb.bin"] = (gzip_bomb(1 << 30), "image/png", "gzip")
    Upstream.files = files
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    upstream.daemon_threads = True
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    upstream_url = f"http://127.0.0.1:{upstream.server_address[1]}"
    print("hostile-mix: files " + ", ".join(f"{p[1:]} {len(b[0]) // 1024} KiB" for p, b in files.items() if not p.startswith("/good")), flush=True)

    out = open(os.path.join(work, "server.out"), "w+")
    server = subprocess.Popen(
        [args.server, "--port", "0", "--allow-loopback", "--allow-host", "127.0.0.1", "--cache-mib", "0",
         "--max-downloads", "16", "--transfer-timeout", "10"] + args.server_arg,
        stdout=out, stderr=subprocess.DEVNULL)
    try:
        port = None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline:
            out.seek(0)
            text = out.read()
            marker = text.find("http://127.0.0.1:")
            if marker >= 0:
                digits = "".join(c for c in text[marker + 17:marker + 23] if c.isdigit())
                port = int(digits) if digits else None
            time.sleep(0.1)
        if port is None:
            print("hostile-mix: the server did not start", file=sys.stderr)
            return 1

        # Warm-up, then the two phases.
        run_phase(port, upstream_url, 40, args.concurrency, 0, "warm")
        calm, calm_failures, _, _, calm_wall = run_phase(port, upstream_url, args.requests, args.concurrency, 0, "calm")
        mixed, mixed_failures, hostile, hostile_times, mixed_wall = run_phase(
            port, upstream_url, args.requests, args.concurrency, args.hostile_workers, "mixed")
        rss = peak_rss_mib(server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        upstream.shutdown()

    def describe(name, values, wall):
        ms = lambda s: f"{s * 1000:.1f} ms"
        return (f"{name}: {len(values)} innocent requests in {wall:.1f} s, p50 {ms(percentile(values, 0.5))}, "
                f"p90 {ms(percentile(values, 0.9))}, p99 {ms(percentile(values, 0.99))}")

    print("hostile-mix: " + describe("innocent only", calm, calm_wall))
    print("hostile-mix: " + describe(f"with {args.hostile_workers} of {args.concurrency} workers hostile", mixed, mixed_wall))
    for name, statuses in sorted(hostile.items()):
        times = hostile_times.get(name, [])
        print(f"hostile-mix:   {name}: " + ", ".join(f"{status} ×{count}" for status, count in sorted(statuses.items(), key=str))
              + (f"; latency p50 {percentile(times, 0.5) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms" if times else ""))
    p99_calm, p99_mixed = percentile(calm, 0.99), percentile(mixed, 0.99)
    ratio = p99_mixed / p99_calm
    print(f"hostile-mix: innocent p99 ratio {ratio:.2f} (bound {args.max_p99_ratio} + {args.p99_slack_ms:.0f} ms), "
          f"server peak RSS {rss:.0f} MiB (bound {args.max_rss_mib:.0f})")

    problems = []
    if calm_failures or mixed_failures:
        problems.append(f"innocent failures: {(calm_failures + mixed_failures)[:5]}")
    if p99_mixed > p99_calm * args.max_p99_ratio + args.p99_slack_ms / 1000:
        problems.append(f"innocent p99 {p99_mixed * 1000:.1f} ms over {args.max_p99_ratio}× {p99_calm * 1000:.1f} ms")
    if rss > args.max_rss_mib:
        problems.append(f"peak RSS {rss:.0f} MiB")
    for name, statuses in hostile.items():
        wrong = {status: count for status, count in statuses.items() if status not in EXPECTED_STATUSES[name]}
        if wrong:
            problems.append(f"{name} answered {wrong}, expected one of {sorted(EXPECTED_STATUSES[name])}")
    for problem in problems:
        print("hostile-mix: FAIL " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
