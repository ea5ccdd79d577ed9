#!/usr/bin/python3
"""The model client of the gateway rows (bench/gateway_rows.py), run inside a
session, the same program for both variants:

  direct   OPENAI_BASE_URL=https://<upstream name>:<port>/v1 and the real
           key; --connect-to ADDRESS --ca FILE: TCP to ADDRESS, TLS with the
           URL's host name (SNI, certificate check, Host header) against the
           bench's CA, since only the gateway resolves the name
  gateway  OPENAI_BASE_URL and OPENAI_API_KEY as the session got them
           (http://127.0.0.1:<gateway port>/<host>/v1 and the placeholder
           token); the gateway does TLS upstream and puts the key in

Prints one JSON object (times in ms):
  fresh     per request, a new connection each time (connect included)
  keep      per request over one kept-alive connection (after one warm-up)
  streams   per streamed answer, each stream once on the kept-alive
            connection and once on a new one (fresh): ttft (request sent, or
            for a new connection connect begun, to the first event read),
            spread (first to last event read),
            events, lags (per event: upstream wrote it -> read here, from the
            CLOCK_MONOTONIC stamp in each event; same machine, same clock)
  ok, runs  requests and streams that succeeded / were tried
  errors    the first few failures

Python standard library only.

usage: gateway_client.py --requests N --streams S --tokens T --gap-ms G
                         [--connect-to ADDRESS --ca FILE]
"""

import argparse
import http.client
import json
import os
import socket
import ssl
import sys
import time
import urllib.parse


class Target:
    def __init__(self, base, ca, connect_to):
        parts = urllib.parse.urlsplit(base)
        self.tls = parts.scheme == "https"
        self.name = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        self.path = parts.path.rstrip("/")
        self.address = connect_to or self.name
        self.context = ssl.create_default_context(cafile=ca) if self.tls else None

    def connect(self):
        sock = socket.create_connection((self.address, self.port), timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.tls:
            sock = self.context.wrap_socket(sock, server_hostname=self.name)
        # The Host header names the URL's host; the socket is already open.
        conn = http.client.HTTPConnection(self.name, self.port, timeout=30)
        conn.sock = sock
        return conn


class Tally:
    def __init__(self):
        self.ok, self.runs, self.errors = 0, 0, []

    def fail(self, what):
        if len(self.errors) < 5:
            self.errors.append(what)


def small(target, conn, key):
    body = json.dumps({"model": "bench", "input": "ping"}).encode()
    conn.request("POST", target.path + "/small", body=body,
                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    answer = conn.getresponse()
    data = answer.read()
    if answer.status != 200 or b'"authorized": true' not in data:
        raise RuntimeError("small request: %d %r" % (answer.status, data[:120]))


def timed(tally, out, fn):
    tally.runs += 1
    begin = time.perf_counter()
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - every failure is counted and reported
        tally.fail("%s: %s" % (type(e).__name__, e))
        return False
    out.append((time.perf_counter() - begin) * 1e3)
    tally.ok += 1
    return True


def stream(target, conn, key, tokens, gap_ms):
    """One streamed answer on conn (None: a new connection, whose connect is
    counted in the time to the first token)."""
    began = time.monotonic_ns()
    fresh = conn is None
    if fresh:
        conn = target.connect()
    body = json.dumps({"model": "bench", "stream": True, "tokens": tokens, "gap_ms": gap_ms}).encode()
    conn.request("POST", target.path + "/stream", body=body,
                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    answer = conn.getresponse()
    if answer.status != 200:
        raise RuntimeError("stream: %d %r" % (answer.status, answer.read()[:120]))
    times, lags, pending = [], [], b""
    while True:
        piece = answer.read1(65536)
        if not piece:
            break
        now = time.monotonic_ns()
        pending += piece
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            if event.startswith(b"data: "):
                times.append(now)
                lags.append((now - int(event[6:])) / 1e6)
    if fresh:
        conn.close()
    if len(times) != tokens:
        raise RuntimeError("stream ended after %d of %d events" % (len(times), tokens))
    return {"fresh": fresh, "ttft": (times[0] - began) / 1e6, "spread": (times[-1] - times[0]) / 1e6,
            "events": len(times), "lags": [round(x, 4) for x in lags]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--streams", type=int, default=1)
    parser.add_argument("--tokens", type=int, required=True)
    parser.add_argument("--gap-ms", type=float, default=1.0)
    parser.add_argument("--connect-to")
    parser.add_argument("--ca")
    args = parser.parse_args()
    target = Target(os.environ.get("OPENAI_BASE_URL", ""), args.ca, args.connect_to)
    key = os.environ.get("OPENAI_API_KEY", "")
    tally = Tally()
    fresh, keep, streams = [], [], []
    kept = None
    try:
        kept = target.connect()
        small(target, kept, key)  # warm-up: not counted
    except Exception as e:  # noqa: BLE001
        tally.runs += 1
        tally.fail("warm-up: %s: %s" % (type(e).__name__, e))
        kept = None

    def one_fresh():
        conn = target.connect()
        try:
            small(target, conn, key)
        finally:
            conn.close()

    # Alternated, so that both see the same state of the machine.
    for _ in range(args.requests):
        if kept is not None:
            timed(tally, keep, lambda: small(target, kept, key))
        else:
            tally.runs += 1
        timed(tally, fresh, one_fresh)
    # Each stream once on the kept-alive connection, once on a new one.
    for _ in range(args.streams):
        for which in ("keep", "fresh"):
            tally.runs += 1
            if which == "keep" and kept is None:
                tally.fail("stream: no kept-alive connection")
                continue
            try:
                streams.append(stream(target, kept if which == "keep" else None, key, args.tokens, args.gap_ms))
                tally.ok += 1
            except Exception as e:  # noqa: BLE001
                tally.fail("stream: %s: %s" % (type(e).__name__, e))
    if kept is not None:
        kept.close()
    print(json.dumps({"fresh": [round(x, 4) for x in fresh], "keep": [round(x, 4) for x in keep],
                      "streams": streams, "ok": tally.ok, "runs": tally.runs, "errors": tally.errors}))
    return 0 if tally.ok == tally.runs else 1


if __name__ == "__main__":
    sys.exit(main())
