#!/usr/bin/env python3
"""A small HTTP backend for tests/test-paths-nginx.sh.

    sleephttp.py INFO [keepalive]

Listens on 127.0.0.1, a port of the kernel's choice, and writes "port N" and
"pid N" into INFO once it listens. Each GET is answered with 100 bytes after a
sleep of 1 to 5 ms, in turn (the first request 1 ms, the sixth 1 ms again), so
that the requests' times differ and a request taken for another shows. Without
"keepalive": HTTP/1.0, a connection per request, one thread. With it:
HTTP/1.1, the connections kept, a thread per connection (as a proxy's pool of
upstream connections needs).
"""
import itertools
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer

KEEPALIVE = sys.argv[2:] == ["keepalive"]
TURN = itertools.count()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1" if KEEPALIVE else "HTTP/1.0"
    # headers and body are two writes: without it, Nagle holds the second
    # until the first is acknowledged (a delayed ack: 40 ms)
    disable_nagle_algorithm = True

    def do_GET(self):
        time.sleep((1 + next(TURN) % 5) / 1000)
        body = b"x" * 100
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    server = (ThreadingHTTPServer if KEEPALIVE else HTTPServer)(("127.0.0.1", 0), Handler)
    with open(sys.argv[1] + ".new", "w") as f:
        f.write("port %d\npid %d\n" % (server.server_address[1], os.getpid()))
    os.rename(sys.argv[1] + ".new", sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
