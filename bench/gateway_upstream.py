#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The local HTTPS model endpoint of the gateway rows (bench/gateway_rows.py).

Serves over TLS, with a certificate from the bench's own CA:

  POST <any>/small   a ~300-byte JSON answer (Content-Length, keep-alive):
                     one non-streamed model request
  POST <any>/stream  a chunked text/event-stream (keep-alive) of "tokens"
                     events (from the JSON body), the first at once, then one
                     every "gap_ms";
                     each event's data is the CLOCK_MONOTONIC time (ns) at
                     which it was written, so that a client on the same
                     machine can tell how long each token took to reach it

Every request must carry the real key (Authorization: Bearer <key>, the key
from the environment variable NR_BENCH_UPSTREAM_KEY); anything else gets 401,
so a request that succeeds through the gateway proves the key swap.
When listening, writes its port to --ready-file.

usage: gateway_upstream.py --address A --port P --cert C --key K --ready-file F
"""

import argparse
import json
import os
import socket
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    api_key = ""

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if self.headers.get("Authorization", "") != "Bearer " + self.api_key:
            body = b'{"error": "wrong or missing key"}'
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        path = self.path.split("?")[0]
        if path.endswith("/stream"):
            request = json.loads(raw or b"{}")
            self.stream(int(request.get("tokens", 50)), float(request.get("gap_ms", 1.0)) / 1000.0)
            return
        body = json.dumps({"id": "resp_small", "object": "response", "model": "bench", "authorized": True,
                           "output": [{"type": "message", "content": [{"type": "output_text", "text": "x" * 160}]}]
                           }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def stream(self, count, gap):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        for i in range(count):
            if i:
                time.sleep(gap)
            event = b"data: %d\n\n" % time.monotonic_ns()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--ready-file", required=True)
    args = parser.parse_args()
    Handler.api_key = os.environ["NR_BENCH_UPSTREAM_KEY"]
    server = ThreadingHTTPServer((args.address, args.port), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(args.ready_file + ".tmp", "w", encoding="ascii") as ready:
        ready.write("%d\n" % server.server_address[1])
    os.rename(args.ready_file + ".tmp", args.ready_file)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
