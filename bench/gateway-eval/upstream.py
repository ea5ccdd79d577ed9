#!/usr/bin/env python3
"""Local HTTPS model endpoint for the egress-gateway evaluation.

Serves, over TLS with its own certificate:
  POST /v1/small        a ~300-byte JSON answer (the "small HTTPS request")
  GET  /v1/sse?n=N&gap_ms=G
                        a streamed (chunked) text/event-stream of N events,
                        one every G ms; each event carries the CLOCK_MONOTONIC
                        time at which it was written, so a client on the same
                        machine can tell how long each token took to reach it.
Every request must carry the real key (Authorization: Bearer <key>); the
answer says whether it did, so the gateway's key swap is checked end to end.

usage: upstream.py --cert C --key K --api-key KEY --port-file F
"""

import argparse
import json
import socket
import ssl
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    api_key = ""

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def authorized(self):
        if self.headers.get("Authorization", "") == "Bearer " + self.api_key:
            return True
        self.send_error(401, "wrong or missing key")
        return False

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        if not self.authorized():
            return
        body = json.dumps({
            "id": "resp_small", "object": "response", "model": "mock",
            "output": [{"type": "message", "content": [{"type": "output_text", "text": "x" * 160}]}],
            "key_seen": True,
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path != "/v1/sse":
            self.send_error(404)
            return
        if not self.authorized():
            return
        query = urllib.parse.parse_qs(url.query)
        count = int(query.get("n", ["50"])[0])
        gap = float(query.get("gap_ms", ["2"])[0]) / 1000.0
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for _ in range(count):
            time.sleep(gap)
            event = ("data: %d\n\n" % time.monotonic_ns()).encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    Handler.api_key = args.api_key
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(args.port_file, "w") as out:
        out.write(str(server.server_address[1]))
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
