"""Load for MemoryBoundTests: COUNT distinct long source URLs through one
thumbnail server, over THREADS keep-alive connections, with the server's
resident memory read from /proc at checkpoints.

usage: distinct_urls.py SERVER_BASE ORIGIN_BASE SERVER_PID COUNT THREADS PAD DEADLINE_SECONDS
Prints one JSON object: statuses seen, RSS (KiB) at each checkpoint, seconds.
"""
import http.client, json, sys, threading, time, urllib.parse

server, origin, pid, count, threads, pad, deadline = sys.argv[1:8]
count, threads, pad, deadline = int(count), int(threads), int(pad), time.monotonic() + float(deadline)
host, port = urllib.parse.urlsplit(server).netloc.split(":")
padding = "a" * pad


def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


statuses = {}
lock = threading.Lock()
done = [0]
checkpoints = {}
marks = sorted({count // 10, count // 4, count // 2, count * 3 // 4, count})
started = time.monotonic()


def worker(index):
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    for n in range(index, count, threads):
        if time.monotonic() > deadline:
            break
        path = f"/insecure/rs:fit:1:1/plain/{origin}/p.png%3Fi%3D{n}%26pad%3D{padding}@png"
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            status = response.status
        except Exception:
            connection.close()
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
            status = "error"
        with lock:
            statuses[status] = statuses.get(status, 0) + 1
            done[0] += 1
            if done[0] in marks:
                checkpoints[done[0]] = rss_kib()


workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
print(json.dumps({
    "statuses": {str(k): v for k, v in statuses.items()},
    "rss_kib": {str(k): v for k, v in sorted(checkpoints.items())},
    "done": done[0],
    "seconds": round(time.monotonic() - started, 1),
}))
