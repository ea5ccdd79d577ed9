#!/usr/bin/env python3
"""Stand-in egress gateway for the evaluation (not the product's gateway).

A reverse proxy that takes plain HTTP from a session and forwards it over
TLS to one upstream, swapping the session's placeholder token for the real
key and streaming the answer through chunk by chunk (no buffering). It is
the same for every transport under test, so the differences between the
rows of the table are the transports' own.

It listens on any mix of:
  --tcp PORTFILE    127.0.0.1, an ephemeral port written to PORTFILE (the
                    transports that come out on the host's loopback:
                    pasta, slirp4netns, and the no-namespace row)
  --unix PATH       a unix socket (bound into the sandbox, option a2)
  --control PATH    a unix socket on which a pre-launcher passes, with
                    SCM_RIGHTS, a listening socket it created inside the
                    session's network namespace (option a1); the gateway
                    accepts on it directly, so the listener identifies the
                    session and nothing in the sandbox ever accepts.
Every listener is tied to the session named with it; a request whose
placeholder token is not that session's is refused (403).

usage: gateway.py --upstream-port-file F --ca CA --api-key KEY
                  --session NAME=TOKEN [...] [--tcp F] [--unix P] [--control P]
"""

import argparse
import http.client
import os
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
              "upgrade", "proxy-authorization", "content-length", "host", "authorization"}
MAX_REQUEST = 1 << 20


class Gateway:
    def __init__(self, upstream_port, ca, api_key, sessions):
        self.upstream_port = upstream_port
        self.context = ssl.create_default_context(cafile=ca)
        self.api_key = api_key
        self.sessions = sessions
        self.idle = []
        self.lock = threading.Lock()

    def take(self, fresh=False):
        """A kept-alive upstream connection from the pool, or a new one."""
        with self.lock:
            if self.idle and not fresh:
                return self.idle.pop()
        conn = http.client.HTTPSConnection("localhost", self.upstream_port, context=self.context)
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn

    def give_back(self, conn):
        with self.lock:
            self.idle.append(conn)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Buffered: the status line, headers and a small body leave in one write
    # (every streamed piece is flushed at once below).
    wbufsize = 65536

    def __init__(self, request, address, server, gateway, session):
        self.gateway = gateway
        self.session = session
        super().__init__(request, address or ("session", 0), server)

    def log_message(self, *args):
        pass

    def forward(self):
        token = self.gateway.sessions.get(self.session)
        if self.headers.get("Authorization", "") != "Bearer " + token:
            self.send_error(403, "not this session's token")
            return
        length = int(self.headers.get("Content-Length", "0"))
        if length > MAX_REQUEST:
            self.send_error(413)
            return
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        headers["Authorization"] = "Bearer " + self.gateway.api_key
        for attempt in (0, 1):
            conn = self.gateway.take(fresh=attempt == 1)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                answer = conn.getresponse()
                break
            except (http.client.HTTPException, OSError):
                conn.close()
                if attempt:
                    raise
        try:
            self.relay(answer)
        finally:
            if answer.isclosed() and not answer.will_close:
                self.gateway.give_back(conn)
            else:
                conn.close()

    def relay(self, answer):
        self.send_response(answer.status)
        for key, value in answer.getheaders():
            if key.lower() not in HOP_BY_HOP:
                self.send_header(key, value)
        size = answer.getheader("Content-Length")
        if size is not None:
            self.send_header("Content-Length", size)
            self.end_headers()
            self.wfile.write(answer.read())
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while True:
            piece = answer.read1(65536)
            if not piece:
                break
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_GET = forward
    do_POST = forward


def serve(listener, gateway, session):
    def one(conn, address):
        try:
            Handler(conn, address, None, gateway, session)
        except OSError:
            pass
        finally:
            conn.close()

    while True:
        try:
            conn, address = listener.accept()
        except OSError:
            return
        if conn.family != socket.AF_UNIX:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=one, args=(conn, address), daemon=True).start()


def control(path, gateway):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o666)
    server.listen(64)
    while True:
        conn, _ = server.accept()
        with conn:
            message, fds, _, _ = socket.recv_fds(conn, 256, 1)
            if len(fds) != 1:
                continue
            listener = socket.socket(fileno=fds[0])
            session = message.decode()
            if session not in gateway.sessions or listener.type != socket.SOCK_STREAM:
                listener.close()
                continue
            threading.Thread(target=serve, args=(listener, gateway, session), daemon=True).start()
            conn.sendall(b"ok")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream-port-file", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--session", action="append", default=[])
    parser.add_argument("--tcp")
    parser.add_argument("--unix")
    parser.add_argument("--control")
    args = parser.parse_args()
    for _ in range(100):
        if os.path.exists(args.upstream_port_file) and os.path.getsize(args.upstream_port_file):
            break
        time.sleep(0.05)
    with open(args.upstream_port_file) as port:
        upstream_port = int(port.read())
    sessions = dict(item.split("=", 1) for item in args.session)
    gateway = Gateway(upstream_port, args.ca, args.api_key, sessions)
    first = next(iter(sessions))
    threads = []
    if args.tcp:
        tcp = socket.create_server(("127.0.0.1", 0), backlog=64)
        with open(args.tcp, "w") as out:
            out.write(str(tcp.getsockname()[1]))
        threads.append(threading.Thread(target=serve, args=(tcp, gateway, first)))
    if args.unix:
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(args.unix)
        os.chmod(args.unix, 0o666)
        unix.listen(64)
        threads.append(threading.Thread(target=serve, args=(unix, gateway, first)))
    if args.control:
        threads.append(threading.Thread(target=control, args=(args.control, gateway)))
    for thread in threads:
        thread.daemon = True
        thread.start()
    threading.Event().wait()


if __name__ == "__main__":
    main()
