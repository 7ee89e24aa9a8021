"""A sample server for the network scenarios (Python's http.server only).

    /usr/bin/python3 http_samples.py --addr A --port P --sample-kib K
        --ready FILE [--max-requests N] [--lifetime-s S]

GET /s/<i> answers sample i: K KiB of fixed pseudo-random bytes (a slice
of one 4 MiB block, so nothing is read from disk and nothing compresses).
Anything else is 404. Bounded: it serves at most N requests and exits
after S seconds whatever happens (the scenario's ledger also ends it).
FILE is written once the socket listens.
"""
import argparse
import os
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MiB = 1 << 20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--addr", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--sample-kib", type=int, required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--max-requests", type=int, default=20000)
    ap.add_argument("--lifetime-s", type=float, default=300.0)
    a = ap.parse_args()
    block = random.Random(99).randbytes(4 * MiB)
    size = a.sample_kib * 1024
    if size > 2 * MiB:
        ap.error("--sample-kib at most 2048")
    served = [0]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self):
            parts = self.path.split("/")
            if len(parts) != 3 or parts[1] != "s" or not parts[2].isdigit():
                self.send_error(404)
                return
            with lock:
                served[0] += 1
                last = served[0] >= a.max_requests
            o = (int(parts[2]) * 7919) % (2 * MiB)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            self.wfile.write(block[o:o + size])
            if last:
                threading.Thread(target=self.server.shutdown, daemon=True).start()

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer((a.addr, a.port), Handler)
    srv.daemon_threads = True
    timer = threading.Timer(a.lifetime_s, srv.shutdown)
    timer.daemon = True
    timer.start()
    tmp = a.ready + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % os.getpid())
    os.replace(tmp, a.ready)
    srv.serve_forever()
    srv.server_close()


if __name__ == "__main__":
    main()
