"""A loopback upstream for the benchmark: serves a folder with sendfile(2).

Only the last path component names the file: /r17/b01.jpg serves b01.jpg, so
the load generator can give every request a URL of its own (no cache or
coalescer on either server can tell two requests for the same image apart).

python3's http.server copies files through Python buffers; at hundreds of
megabytes a second that would take CPU from the servers under test on a
2-core machine. Threaded, HTTP/1.1 keep-alive, 127.0.0.1 only. Prints
"port N" once listening; stops by itself after --seconds.
"""
import argparse
import http.server
import os
import threading


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def copyfile(self, source, outputfile):
        self.wfile.flush()
        offset, size = 0, os.fstat(source.fileno()).st_size
        while offset < size:
            sent = os.sendfile(self.connection.fileno(), source.fileno(), offset, size - offset)
            if sent == 0:
                break
            offset += sent

    def translate_path(self, path):
        name = os.path.basename(path.split("?", 1)[0].split("#", 1)[0])
        return os.path.join(self.directory, name)

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--directory", required=True)
    parser.add_argument("--seconds", type=float, default=1800)
    args = parser.parse_args()
    handler = lambda *a, **k: Handler(*a, directory=args.directory, **k)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print("port", server.server_address[1], flush=True)
    threading.Timer(args.seconds, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
