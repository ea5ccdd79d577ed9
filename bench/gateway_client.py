#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
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

With --flood, the hostile session of the flood rows instead: it floods the
gateway behind OPENAI_BASE_URL with no token (see Flood) until its stdin
ends or --seconds pass, prints {"flooding": true} once every attack is
under way, and at the end one JSON object with what it sent and got back.

Python standard library only.

usage: gateway_client.py --requests N --streams S --tokens T --gap-ms G
                         [--connect-to ADDRESS --ca FILE]
       gateway_client.py --flood --seconds S --pipeline N --refused-max N
                         --idle N --endless-mib M --piece-kib K
"""

import argparse
import http.client
import json
import os
import select
import socket
import ssl
import sys
import threading
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


# A destination no session may reach: refused by the route, before any token
# or upstream is looked at.
REFUSED_REQUEST = b"GET /nope.example/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def statuses(sock, wanted, flood):
    """Reads answers off sock until `wanted` status lines came, the peer
    closed or the flood ends; returns {status: count}. Bodies are skipped by
    looking only for status lines (refusal bodies never contain one)."""
    got, pending, seen = {}, b"", 0
    while seen < wanted and flood.running():
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            break
        pending += data
        while True:
            at = pending.find(b"HTTP/1.1 ")
            if at < 0 or len(pending) < at + 12:
                pending = pending[at:] if at >= 0 else pending[-8:]
                break
            code = pending[at + 9:at + 12].decode("ascii", "replace")
            got[code] = got.get(code, 0) + 1
            seen += 1
            pending = pending[at + 12:]
    return got


class Flood:
    """Another owner's session at its worst, with no token, three attacks at
    once, each bounded in time (--seconds, and its sockets time out) and in
    volume:
      refused   requests for a destination no session may reach, --pipeline
                of them written back to back on one kept-alive connection
                before their answers are read, again and again (a new
                connection when the gateway closes one), --refused-max answers
                in all;
      endless   a chunked POST to the provider's route without a token whose
                chunk-size line never ends ("1;aaaa..." in --piece-kib
                pieces), --endless-mib in all; when the gateway answers or
                closes, a new one; when the volume is spent, the last one is
                held open;
      idle      --idle connections opened (after the other two, which they
                could otherwise crowd out of a per-session cap) and held
                without a byte sent.
    """

    def __init__(self, args, target):
        self.args, self.address = args, (target.address, target.port)
        self.prefix = target.path
        self.deadline = time.monotonic() + args.seconds
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.started = {name: threading.Event() for name in ("refused", "endless", "idle")}
        self.tally = {"refused_sent": 0, "refused_answers": {}, "refused_connections": 0,
                      "endless_connections": 0, "endless_bytes": 0, "endless_ends": {},
                      "idle_attempted": 0, "idle_opened": 0, "idle_open_at_end": 0, "errors": {}}

    def patience(self):
        """How long to wait for an attack to get under way: a gateway that
        takes none of it must not hold the bench up."""
        return max(0.0, min(10.0, self.deadline - time.monotonic()))

    def running(self):
        return not self.stop.is_set() and time.monotonic() < self.deadline

    def count(self, field, key, n=1):
        with self.lock:
            self.tally[field][key] = self.tally[field].get(key, 0) + n

    def connect(self):
        sock = socket.create_connection(self.address, timeout=2)
        # Short, so that every attack notices the end of the flood soon.
        sock.settimeout(0.25)
        return sock

    def refused(self):
        batch = REFUSED_REQUEST * self.args.pipeline
        answers = 0
        while self.running() and answers < self.args.refused_max:
            try:
                sock = self.connect()
            except OSError as e:
                self.count("errors", "refused connect: " + type(e).__name__)
                time.sleep(0.05)
                continue
            self.tally["refused_connections"] += 1
            try:
                while self.running() and answers < self.args.refused_max:
                    sock.sendall(batch)
                    self.tally["refused_sent"] += self.args.pipeline
                    got = statuses(sock, self.args.pipeline, self)
                    for code, n in got.items():
                        self.count("refused_answers", code, n)
                    answers += sum(got.values())
                    self.started["refused"].set()
                    if sum(got.values()) < self.args.pipeline:
                        break  # closed by the gateway, or the flood ended
            except OSError as e:
                self.count("errors", "refused: " + type(e).__name__)
            finally:
                sock.close()
        self.started["refused"].set()

    def endless(self):
        head = ("POST %s/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n1;" % self.prefix).encode()
        piece = b"a" * (self.args.piece_kib * 1024)
        budget = self.args.endless_mib * 1024 * 1024
        while self.running() and self.tally["endless_bytes"] < budget:
            try:
                sock = self.connect()
            except OSError as e:
                self.count("errors", "endless connect: " + type(e).__name__)
                time.sleep(0.05)
                continue
            self.tally["endless_connections"] += 1
            self.count("endless_ends", self.endless_one(sock, head, piece, budget))
            sock.close()
        self.started["endless"].set()

    def endless_one(self, sock, head, piece, budget):
        """One endless POST; returns how it ended."""
        try:
            sock.sendall(head)
            while self.running():
                if select.select([sock], [], [], 0)[0]:
                    answer = sock.recv(64)
                    return ("answered " + answer[9:12].decode("ascii", "replace")) if answer else "closed"
                if self.tally["endless_bytes"] >= budget:
                    time.sleep(0.05)  # volume spent: held open, the gateway keeps what it took
                    continue
                try:
                    self.tally["endless_bytes"] += sock.send(piece)
                except socket.timeout:
                    continue  # the gateway stopped reading: try again, or end with the flood
                self.started["endless"].set()
            return "held to the end"
        except OSError as e:
            return "reset (%s)" % type(e).__name__

    def idle(self):
        held = []
        for _ in range(self.args.idle):
            if not self.running():
                break
            self.tally["idle_attempted"] += 1
            try:
                held.append(self.connect())
                self.tally["idle_opened"] += 1
            except OSError as e:
                self.count("errors", "idle connect: " + type(e).__name__)
        self.started["idle"].set()
        while self.running():
            time.sleep(0.05)
        for sock in held:
            # Still open: nothing to read yet; closed by the gateway: EOF.
            if not select.select([sock], [], [], 0)[0]:
                self.tally["idle_open_at_end"] += 1
            sock.close()

    def run(self):
        threads = {name: threading.Thread(target=getattr(self, name), daemon=True)
                   for name in ("refused", "endless", "idle")}
        for name in ("refused", "endless"):
            threads[name].start()
        for name in ("refused", "endless"):
            self.started[name].wait(self.patience())
        threads["idle"].start()
        self.started["idle"].wait(self.patience())
        print(json.dumps({"flooding": True}), flush=True)
        # Until the bench closes our stdin (the ctl passes it through).
        while self.running():
            if select.select([sys.stdin], [], [], 0.1)[0] and not os.read(sys.stdin.fileno(), 4096):
                break
        self.stop.set()
        for thread in threads.values():
            thread.join(timeout=10)
        with self.lock:
            self.tally["deadline_hit"] = time.monotonic() >= self.deadline
            print(json.dumps(self.tally), flush=True)
        return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=0)
    parser.add_argument("--streams", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=0)
    parser.add_argument("--gap-ms", type=float, default=1.0)
    parser.add_argument("--connect-to")
    parser.add_argument("--ca")
    parser.add_argument("--flood", action="store_true")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--pipeline", type=int, default=500)
    parser.add_argument("--refused-max", type=int, default=100000)
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--endless-mib", type=int, default=16)
    parser.add_argument("--piece-kib", type=int, default=1024)
    args = parser.parse_args()
    target = Target(os.environ.get("OPENAI_BASE_URL", ""), args.ca, args.connect_to)
    if args.flood:
        return Flood(args, target).run()
    if args.requests < 1 or args.tokens < 1:
        parser.error("--requests and --tokens are required (or --flood)")
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
