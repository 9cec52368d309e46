"""A burst of hostile SVG sources against thumbnail-server (issue 37).

Serves generated documents from a loopback origin — deep <use> fan-out, a
million elements, a 2000-octave turbulence (all refused by their structure),
and a large blur and a many-octave turbulence asked for at 4000 and 2000
pixels (which pass the structure check and run until their time limit) —
and sends BURST requests for them at once, spread over the kinds, each a
URL of its own. One second in, it asks for a normal JPEG thumbnail and
times it. Then it samples the CPU time of the server and of its render
workers every 0.25 s until both are idle, and prints when that was
relative to the last answer, with the server's and the workers' resident
memory (VmRSS, VmHWM) at the peak and at the end.

    python3 bench/svg_burst.py .build/release/thumbnail-server [BURST]

Everything runs on 127.0.0.1 and is stopped by PID; every wait is bounded.
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

TICK = os.sysconf("SC_CLK_TCK")


def documents():
    uses = ['<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="400" height="400"><defs><rect id="l0" width="1" height="1"/>']
    for level in range(1, 10):
        uses.append('<g id="l%d">' % level + "".join('<use xlink:href="#l%d" x="%d"/>' % (level - 1, j) for j in range(10)) + "</g>")
    uses.append('</defs><use xlink:href="#l9"/></svg>')
    million = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">' + "<g/>" * 1_000_000 + "</svg>"
    return {
        "uses.svg": ("".join(uses), 64),
        "million.svg": (million, 64),
        "turbulence2000.svg": ('<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="2000"/></filter><rect width="4000" height="4000" filter="url(#f)"/></svg>', 64),
        "blur.svg": ('<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><filter id="f" x="-1" y="-1" width="3" height="3"><feGaussianBlur stdDeviation="1000"/></filter><rect width="4000" height="4000" fill="red" filter="url(#f)"/></svg>', 4000),
        "turbulence6.svg": ('<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000"><filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="6"/></filter><rect width="2000" height="2000" filter="url(#f)"/></svg>', 2000),
    }


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ticks(pid, children=False):
    """utime + stime of `pid` (with `children`, of its reaped children too), or 0 once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(fields[i]) for i in ((11, 12, 13, 14) if children else (11, 12)))
    except (OSError, IndexError):
        return 0


def tree_ticks(server):
    """CPU of the server, of its render workers alive, and of those it has reaped."""
    return cpu_ticks(server, children=True) + sum(cpu_ticks(p) for p in workers(server))


def workers(server):
    """The render workers of `server`: children named awi-svg-render."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        if name == "awi-svg-render" and int(fields[1]) == server:
            found.append(int(entry))
    return found


def memory(pid):
    values = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(("VmRSS", "VmHWM")):
                    key, value = line.split(":")
                    values[key] = int(value.split()[0]) // 1024
    except OSError:
        pass
    return values


def main():
    binary = sys.argv[1]
    burst = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    root = tempfile.mkdtemp(prefix="svg-burst-")
    docs = documents()
    for name, (text, _) in docs.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(text)
    subprocess.run(["convert", "-size", "1600x1200", "plasma:fractal", "-quality", "90", os.path.join(root, "photo.jpg")], check=True)

    # The benchmark's upstream (sendfile, its own process): the origin must not be the bottleneck.
    origin = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream.py"),
                               "--directory", root, "--seconds", "600"], stdout=subprocess.PIPE, text=True)
    upstream = "http://127.0.0.1:%s" % origin.stdout.readline().split()[1]
    port = free_port()
    server = subprocess.Popen([binary, "--port", str(port), "--allow-loopback", "--allow-unsigned", "--cache-mib", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        assert "listening on" in line, line
        base = "http://127.0.0.1:%d" % port

        def get(source, size, index):
            url = "%s/thumbnail?url=%s&width=%d&height=%d" % (base, urllib.parse.quote("%s/%s?n=%d" % (upstream, source, index), safe=""), size, size)
            started = time.monotonic()
            try:
                with urllib.request.urlopen(url, timeout=60) as reply:
                    status = reply.status
                    reply.read()
            except urllib.error.HTTPError as error:
                status = error.code
            return source, status, started, time.monotonic()

        names = list(docs)
        peak = {"server": {}, "workers": 0}
        sampling = True

        def sample_memory():
            while sampling:
                current = memory(server.pid)
                if current.get("VmRSS", 0) > peak["server"].get("VmRSS", 0):
                    peak["server"] = current
                peak["workers"] = max(peak["workers"], sum(memory(p).get("VmRSS", 0) for p in workers(server.pid)))
                time.sleep(0.1)

        threading.Thread(target=sample_memory, daemon=True).start()
        cpu_before = tree_ticks(server.pid)
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=burst + 1) as pool:
            futures = [pool.submit(get, names[i % len(names)], docs[names[i % len(names)]][1], i) for i in range(burst)]
            time.sleep(1)
            normal = pool.submit(get, "photo.jpg", 256, 0).result()
            results = [f.result() for f in futures]
        last = max(r[3] for r in results)
        by_kind = {}
        for source, status, begin, end in results:
            by_kind.setdefault(source, []).append((status, end - begin))
        print("burst of %d hostile SVG requests, answered within %.2f s" % (burst, last - started))
        for source in names:
            statuses = sorted(set(s for s, _ in by_kind[source]))
            times = [t for _, t in by_kind[source]]
            print("  %-20s %2d × status %s, %.2f–%.2f s" % (source, len(times), statuses, min(times), max(times)))
        print("normal 256 px JPEG thumbnail asked 1 s in: status %d in %.3f s" % (normal[1], normal[3] - normal[2]))
        # CPU of the server and its workers, per 0.25 s, until idle (bounded: 10 s)
        print("CPU after the last answer (server and workers together, per 0.25 s):")
        idle_at = None
        previous = tree_ticks(server.pid)
        for step in range(40):
            time.sleep(0.25)
            now = tree_ticks(server.pid)
            spent = (now - previous) / TICK
            previous = now
            print("  +%.2f s: %.2f CPU-s, %d workers alive" % (time.monotonic() - last, spent, len(workers(server.pid))))
            if spent <= 0.02 and idle_at is None:
                idle_at = time.monotonic() - last
            if idle_at is not None and step >= 8:
                break
        sampling = False
        print("idle %.2f s after the last answer" % idle_at if idle_at is not None else "not idle within 10 s")
        print("CPU of the server and its workers over the whole run: %.2f CPU-s" % ((tree_ticks(server.pid) - cpu_before) / TICK))
        print("peak RSS: server %s MiB (VmHWM %s), workers %d MiB together" % (peak["server"].get("VmRSS"), memory(server.pid).get("VmHWM"), peak["workers"]))
        print("RSS at the end: server %s MiB, workers %s" % (memory(server.pid).get("VmRSS"), [memory(p).get("VmRSS") for p in workers(server.pid)]))
    finally:
        server.terminate()
        server.wait(timeout=20)
        origin.terminate()
        origin.wait(timeout=20)


if __name__ == "__main__":
    main()
