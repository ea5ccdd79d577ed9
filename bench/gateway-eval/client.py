#!/usr/bin/env python3
"""The session's side of the egress-gateway evaluation: the model client.

Runs (usually inside the sandbox) and prints one JSON object:
  start_ns      CLOCK_MONOTONIC when it started (the runner subtracts its own
                spawn time: what the transport adds to a session's start)
  listen_probe  with --deny-listen: listen() before the filter (positive
                control, expect "ok") and after it (expect "EPERM")
  small_new     per-request latency (ms) of the small request, a new
                connection each time: median and p90
  small_keep    the same over one kept-alive connection
  token         per streamed SSE event, the time (ms) from the upstream
                writing it to this client reading it: median and p90
  stream_gaps   median gap (ms) between consecutive events as read here
                (equals the upstream's gap when nothing buffers)
  bypass        with --probe HOST:PORT (repeatable): whether a plain TCP
                connect() to the upstream itself, around the gateway,
                succeeds ("connected") or fails (the errno's name)

--deny-listen loads, before any measurement, a libseccomp filter that
refuses listen/accept/accept4 and io_uring with EPERM, as the agent's own
seccomp program does, so every transport is measured with the ban in force.

usage: client.py --url URL [--ca CA] --token T [--requests N] [--streams N]
                 [--tokens N] [--gap-ms G] [--deny-listen] [--probe HOST:PORT]...
"""

import argparse
import errno
import http.client
import json
import socket
import ssl
import statistics
import time
import urllib.parse


def listen_works():
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(("127.0.0.1", 0))
        probe.listen(1)
        return "ok"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
    finally:
        probe.close()


def deny_listen():
    import seccomp

    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in ("listen", "accept", "accept4", "io_uring_setup", "io_uring_enter", "io_uring_register"):
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    rules.load()


def try_connect(target):
    host, port = target.rsplit(":", 1)
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect((host, int(port)))
        return "connected"
    except socket.timeout:
        return "timeout"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
    finally:
        probe.close()


def summary(values):
    values = sorted(values)
    return {"median": round(statistics.median(values), 3),
            "p90": round(values[int(0.9 * (len(values) - 1))], 3), "n": len(values)}


class Target:
    def __init__(self, url, ca):
        parts = urllib.parse.urlsplit(url)
        self.host = parts.hostname
        self.port = parts.port
        self.base = parts.path.rstrip("/")
        self.tls = parts.scheme == "https"
        self.context = ssl.create_default_context(cafile=ca) if self.tls else None

    def connect(self):
        if self.tls:
            conn = http.client.HTTPSConnection(self.host, self.port, context=self.context)
        else:
            conn = http.client.HTTPConnection(self.host, self.port)
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn


def small(target, conn, token):
    body = json.dumps({"model": "mock", "input": "ping"})
    conn.request("POST", target.base + "/v1/small", body=body,
                 headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    answer = conn.getresponse()
    data = answer.read()
    if answer.status != 200 or b"key_seen" not in data:
        raise SystemExit("small request failed: %d %r" % (answer.status, data[:200]))


def stream(target, token, count, gap_ms, lags, gaps):
    conn = target.connect()
    conn.request("GET", "%s/v1/sse?n=%d&gap_ms=%s" % (target.base, count, gap_ms),
                 headers={"Authorization": "Bearer " + token})
    answer = conn.getresponse()
    if answer.status != 200:
        raise SystemExit("stream failed: %d" % answer.status)
    pending = b""
    last = None
    seen = 0
    while True:
        piece = answer.read1(65536)
        if not piece:
            break
        now = time.monotonic_ns()
        pending += piece
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            sent = int(event.split(b"data: ", 1)[1])
            lags.append((now - sent) / 1e6)
            if last is not None:
                gaps.append((now - last) / 1e6)
            last = now
            seen += 1
    conn.close()
    if seen != count:
        raise SystemExit("stream ended after %d of %d events" % (seen, count))


def main():
    start = time.monotonic_ns()
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--ca")
    parser.add_argument("--token", required=True)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--streams", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=100)
    parser.add_argument("--gap-ms", default="2")
    parser.add_argument("--deny-listen", action="store_true")
    parser.add_argument("--probe", action="append", default=[])
    args = parser.parse_args()
    result = {"start_ns": start}
    if args.deny_listen:
        before = listen_works()
        deny_listen()
        result["listen_probe"] = {"before_filter": before, "after_filter": listen_works()}
    result["bypass"] = {probe: try_connect(probe) for probe in args.probe}
    target = Target(args.url, args.ca)
    conn = target.connect()
    small(target, conn, args.token)  # warm-up
    fresh, kept = [], []
    for _ in range(args.requests):
        begin = time.perf_counter()
        small(target, conn, args.token)
        kept.append((time.perf_counter() - begin) * 1e3)
        begin = time.perf_counter()
        one = target.connect()
        small(target, one, args.token)
        one.close()
        fresh.append((time.perf_counter() - begin) * 1e3)
    conn.close()
    lags, gaps = [], []
    for _ in range(args.streams):
        stream(target, args.token, args.tokens, args.gap_ms, lags, gaps)
    result.update(small_new=summary(fresh), small_keep=summary(kept), token=summary(lags),
                  stream_gaps=summary(gaps))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
