#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in HTTPS provider for the gateway's sys tests (gateway_test.cpp).

Serves /json (a small JSON answer; POST bodies, length-framed or chunked,
are counted), /json?drop=1
(the same, then the connection is closed without saying so, as an upstream
that drops an idle kept-alive connection does), /sse (ten server-sent events
20 ms apart, chunked) and /big?n=BYTES. Every request is appended to LOG as
one JSON line (method, path, headers, body length, and the client's port,
which tells connections apart), so a test can see what reached the upstream
and what did not; "framing" records Transfer-Encoding and Content-Length
exactly as they arrived, repeated fields included. HEAD, DELETE and TRACE
are answered too (TRACE echoes the request's header fields in its body, as
servers that allow it do). After the last SSE
event is written, DIR/sse-done-<X-Test-Id> is created: a test that reads
the first event before that file exists has seen the stream unbuffered.

usage: gateway_upstream.py CERT KEY PORT_FILE LOG DIR
"""

import json
import os
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

CERT, KEY, PORT_FILE, LOG, DIR = sys.argv[1:6]
SSE_EVENTS = 10
SSE_GAP = 0.020
ENDLESS_BYTES = 48 << 20


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body_length, body=b""):
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "framing": [[k.lower(), v] for k, v in self.headers.items()
                        if k.lower() in ("transfer-encoding", "content-length")],
            "body_length": body_length,
            # Small enough to compare whole: what a test sent is what came.
            "body": body.decode("latin-1") if len(body) <= 65536 else None,
            "peer_port": self.client_address[1],
        }
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send_plain(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def send_endless(self, in_header):
        # A hostile upstream: one header line, or one chunk-size line,
        # that does not end before ENDLESS_BYTES (far beyond any limit of
        # the gateway's), then the connection is closed.
        if in_header:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Endless: ")
        else:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10;x=")
        piece = b"a" * 65536
        try:
            for _ in range(ENDLESS_BYTES // len(piece)):
                self.wfile.write(piece)
        except OSError:
            pass
        self.close_connection = True

    def handle_any(self):
        body = self.read_body()
        self.record(len(body), body)
        url = urlsplit(self.path)
        if url.path == "/json":
            self.send_plain(200, json.dumps({"ok": True, "received": len(body)}).encode())
            if parse_qs(url.query).get("drop") == ["1"]:
                self.close_connection = True
        elif url.path == "/sse":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(SSE_EVENTS):
                self.chunk(b"data: event %d\n\n" % i)
                time.sleep(SSE_GAP)
            marker = self.headers.get("X-Test-Id", "none")
            with open(os.path.join(DIR, "sse-done-" + marker), "w", encoding="utf-8"):
                pass
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        elif url.path in ("/endless-header", "/endless-chunk-size"):
            self.send_endless(url.path == "/endless-header")
        elif url.path == "/big":
            size = int(parse_qs(url.query).get("n", ["0"])[0])
            self.send_plain(200, b"x" * size, "application/octet-stream")
        else:
            self.send_plain(404, b'{"error":"not found"}')

    def do_HEAD(self):
        self.record(0)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000")
        self.end_headers()

    def do_TRACE(self):
        self.record(0)
        self.send_plain(200, str(self.headers).encode(), "message/http")

    do_GET = handle_any
    do_POST = handle_any
    do_DELETE = handle_any


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(CERT, KEY)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    tmp = PORT_FILE + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write(str(server.server_address[1]))
    os.rename(tmp, PORT_FILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
