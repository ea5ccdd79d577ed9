#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A local model endpoint that replays scripted agent turns.

Speaks the two wire protocols the real clients use, streaming:

  --api openai     OpenAI Responses API (POST /v1/responses), as Codex speaks it
  --api anthropic  Anthropic Messages API (POST /v1/messages), as Claude Code
                   speaks it, with tool_use blocks

Deterministic and stateless: what it answers depends only on the request.
The turn script (--script, JSON, read at every request) maps a marker to a turn:

  {"turns": {"TURN-WRITE": {"tools": ["echo hi > a.txt", "cat a.txt"],
                            "final": "wrote and read"}}}

The marker is the first TURN-... word in the newest user message. The
endpoint asks the client to run each command of "tools" in order with its
shell tool (one tool call per response; how many tool results the request
already holds since that user message says which one comes next), then answers
with a final message that quotes every tool result it was given and lists
every TURN-... marker in the conversation (so a resumed conversation shows
its history):

  <final>
  [tool 1] <result of command 1>
  ...
  conversation: TURN-A1 TURN-A2

Every request must carry the synthetic API key (--key): Bearer authorization
for openai, x-api-key for anthropic; anything else gets 401, so a completed
turn proves the credential reached the client. Each exchange is appended to
--log as one JSON line (what was asked, what was sent). Before that, every
request that arrives gets a line of its own as soon as its header is read,
{"received": {...}}, with the method, target, Transfer-Encoding and
Content-Length exactly as received and which key it carried ("real",
"other" or "none"): what the egress gateway's attack tests need to show that
a request never reached the upstream. A request with an X-NR-Attack header
(nr-gateway-attack's) has its value as "attack" in both lines. Request
bodies may be chunked. TRACE is answered as a server with TRACE enabled
does: with the request's header echoed. When listening, the chosen port is
written to --ready-file. With --tls-cert and --tls-key it speaks HTTPS (the
egress gateway's upstream, whose certificate only the gateway trusts); each
connection's handshake runs in that connection's own thread, so that a
client that never sends a ClientHello holds up no one else.

Python standard library only.
"""

import argparse
import http.server
import json
import os
import re
import ssl
import sys
import threading

MARKER = re.compile(r"TURN-[A-Za-z0-9_-]+")


def text_of(content):
    """All text in a message content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict):
            for key in ("text", "content", "output"):
                value = block.get(key)
                if isinstance(value, (str, list)):
                    parts.append(text_of(value))
    return "\n".join(parts)


def quoted(result):
    """A tool result on one line; Codex's exec_command wraps the output in a
    report (chunk id, wall time, exit code), of which the exit code counts."""
    exited = re.search(r"Process exited with code (-?\d+)", result)
    output = result.split("\nOutput:\n", 1)[1] if "\nOutput:\n" in result else result
    text = " | ".join(line for line in output.strip().splitlines() if line.strip())
    return ("exit=%s %s" % (exited.group(1), text)) if exited else text


class Turn:
    """What the conversation in one request says about the scripted turn."""

    def __init__(self, user_texts, results):
        self.markers = []
        for text in user_texts:
            for marker in MARKER.findall(text):
                if marker not in self.markers:
                    self.markers.append(marker)
        current = MARKER.findall(user_texts[-1]) if user_texts else []
        self.marker = current[0] if current else None
        self.results = results  # tool results since the newest user message

    def answer(self, script):
        """("tool", command) or ("final", text)."""
        turn = script["turns"].get(self.marker)
        if turn is None:
            return ("final", "no scripted turn for this conversation")
        tools = turn.get("tools", [])
        if len(self.results) < len(tools):
            return ("tool", tools[len(self.results)])
        lines = [turn.get("final", "done")]
        for number, result in enumerate(self.results, 1):
            lines.append("[tool %d] %s" % (number, quoted(result)))
        lines.append("conversation: " + " ".join(self.markers))
        return ("final", "\n".join(lines))


def openai_turn(body):
    user_texts, results = [], []
    for item in body.get("input") or []:
        kind = item.get("type")
        if kind == "message" and item.get("role") == "user":
            text = text_of(item.get("content"))
            if MARKER.search(text):
                user_texts.append(text)
                results = []
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            results.append(output if isinstance(output, str) else text_of(output))
    return Turn(user_texts, results)


def anthropic_turn(body):
    user_texts, results = [], []
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if block.get("type") == "tool_result":
                result = text_of(block.get("content"))
                if block.get("is_error"):
                    result = "(error) " + result
                results.append(result)
            elif block.get("type") == "text" and MARKER.search(block.get("text", "")):
                user_texts.append(block["text"])
                results = []
    return Turn(user_texts, results)


def sse(name, data):
    return ("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode()


def openai_events(number, answer):
    kind, value = answer
    response_id = "resp_%d" % number
    events = [sse("response.created", {"type": "response.created", "response": {"id": response_id}})]
    if kind == "tool":
        item = {
            "type": "function_call",
            "id": "fc_%d" % number,
            "call_id": "call_%d" % number,
            "name": "exec_command",
            "arguments": json.dumps({"cmd": value}),
        }
    else:
        item = {
            "type": "message",
            "role": "assistant",
            "id": "msg_%d" % number,
            "content": [{"type": "output_text", "text": value}],
        }
    events.append(sse("response.output_item.done", {"type": "response.output_item.done", "item": item}))
    usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1,
             "output_tokens_details": None, "total_tokens": 2}
    events.append(sse("response.completed", {"type": "response.completed",
                                              "response": {"id": response_id, "usage": usage}}))
    return events


def anthropic_message(number, answer):
    kind, value = answer
    if kind == "tool":
        block = {"type": "tool_use", "id": "toolu_%d" % number, "name": "Bash",
                 "input": {"command": value, "description": "scripted step"}}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": value}
        stop = "end_turn"
    return block, stop


def anthropic_events(number, model, answer):
    block, stop = anthropic_message(number, answer)
    message = {"id": "msg_%d" % number, "type": "message", "role": "assistant", "model": model,
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 1, "output_tokens": 1}}
    events = [sse("message_start", {"type": "message_start", "message": message})]
    if block["type"] == "tool_use":
        start = dict(block, input={})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    events.append(sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}))
    events.append(sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}))
    events.append(sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events.append(sse("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": stop, "stop_sequence": None},
                                        "usage": {"output_tokens": 1}}))
    events.append(sse("message_stop", {"type": "message_stop"}))
    return events


# A TLS client gets this long for its ClientHello; an established
# connection this long between two reads.
HANDSHAKE_TIMEOUT_SEC = 10
IDLE_TIMEOUT_SEC = 60
# The longest chunk-size or trailer line read from a chunked request body.
MAX_CHUNK_LINE = 65536


class Endpoint(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT_SEC
    counter = 0
    lock = threading.Lock()

    def setup(self):
        self.handshake_failed = False
        tls = self.server.tls
        if tls is not None:
            try:
                self.request.settimeout(HANDSHAKE_TIMEOUT_SEC)
                self.request = tls.wrap_socket(self.request, server_side=True)
            except (OSError, ssl.SSLError):
                self.handshake_failed = True
                return
        super().setup()

    def handle(self):
        if not self.handshake_failed:
            super().handle()

    def finish(self):
        if self.handshake_failed:
            return
        try:
            super().finish()
        finally:
            if self.server.tls is not None:
                self.request.close()

    def log_message(self, *args):  # the exchange log replaces the access log
        pass

    def record(self, entry):
        attack = self.headers.get("X-NR-Attack") if getattr(self, "headers", None) is not None else None
        if attack:
            entry["attack"] = attack
        with self.lock:
            with open(self.server.options.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")

    def parse_request(self):
        if not super().parse_request():
            return False
        words = self.requestline.split()
        self.record({"received": {
            "method": self.command,
            # As sent: parse_request may rewrite self.path (a leading "//").
            "target": words[1] if len(words) > 1 else "",
            "transfer_encoding": self.headers.get_all("Transfer-Encoding"),
            "content_length": self.headers.get_all("Content-Length"),
            "key": self.presented_key(),
        }})
        return True

    def presented_key(self):
        """Which key the request carries: "real", "other" or "none"."""
        values = [v for v in (self.headers.get("Authorization"), self.headers.get("x-api-key")) if v]
        if not values:
            return "none"
        return "real" if self.authorized() else "other"

    def read_body(self):
        """The request body, framed by chunked encoding (when it is the last
        transfer coding) or by Content-Length; ValueError when malformed."""
        codings = [c.strip().lower() for c in (self.headers.get("Transfer-Encoding") or "").split(",") if c.strip()]
        if not codings or codings[-1] != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b""
        while True:
            line = self.rfile.readline(MAX_CHUNK_LINE)
            if not line.endswith(b"\n"):
                raise ValueError("chunk-size line too long or cut")
            size = int(line.split(b";", 1)[0].strip(), 16)
            if size == 0:
                break
            piece = self.rfile.read(size)
            if len(piece) != size or self.rfile.readline(MAX_CHUNK_LINE).strip():
                raise ValueError("chunk cut or not followed by CRLF")
            body += piece
        while True:
            line = self.rfile.readline(MAX_CHUNK_LINE)
            if not line.endswith(b"\n"):
                raise ValueError("trailer too long or cut")
            if not line.strip():
                return body

    def reply(self, status, payload, content_type="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def stream(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()
        self.close_connection = True

    def authorized(self):
        key = self.server.options.key
        if self.server.options.api == "openai":
            return self.headers.get("Authorization") == "Bearer " + key
        return self.headers.get("x-api-key") == key or self.headers.get("Authorization") == "Bearer " + key

    def do_GET(self):
        self.record({"method": "GET", "path": self.path, "authorized": self.authorized()})
        self.reply(200, {"object": "list", "data": [], "models": []})

    def do_HEAD(self):
        self.reply(200, b"")

    def do_TRACE(self):
        self.record({"method": "TRACE", "path": self.path, "authorized": self.authorized()})
        self.reply(200, (self.requestline + "\r\n" + str(self.headers)).encode(), "message/http")

    def do_POST(self):
        try:
            raw = self.read_body()
        except ValueError:
            self.reply(400, {"error": {"message": "malformed body"}})
            return
        with self.lock:
            Endpoint.counter += 1
            number = Endpoint.counter
        path = self.path.split("?")[0]
        if not self.authorized():
            self.record({"n": number, "path": path, "authorized": False})
            self.reply(401, {"type": "error", "error": {"type": "authentication_error",
                                                        "message": "invalid x-api-key"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self.reply(400, {"error": {"message": "not JSON"}})
            return
        api = self.server.options.api
        if api == "anthropic" and path.endswith("/count_tokens"):
            self.record({"n": number, "path": path, "authorized": True, "sent": "count_tokens"})
            self.reply(200, {"input_tokens": 1})
            return
        turn = openai_turn(body) if api == "openai" else anthropic_turn(body)
        has_tools = bool(body.get("tools"))
        if api == "anthropic" and not has_tools:
            # Side requests of the client (titles, summaries): not the turn.
            answer = ("final", "side request")
        else:
            with open(self.server.options.script, encoding="utf-8") as script:
                answer = turn.answer(json.load(script))
        self.record({"n": number, "path": path, "authorized": True, "marker": turn.marker,
                     "conversation": turn.markers, "tool_results": turn.results,
                     "sent": {"tool_call" if answer[0] == "tool" else "message": answer[1]}})
        if api == "openai":
            self.stream(openai_events(number, answer))
        elif body.get("stream"):
            self.stream(anthropic_events(number, body.get("model", "scripted"), answer))
        else:
            block, stop = anthropic_message(number, answer)
            self.reply(200, {"id": "msg_%d" % number, "type": "message", "role": "assistant",
                             "model": body.get("model", "scripted"), "content": [block],
                             "stop_reason": stop, "stop_sequence": None,
                             "usage": {"input_tokens": 1, "output_tokens": 1}})


class Server(http.server.ThreadingHTTPServer):
    # Many connections may arrive at once (a gateway under attack opens one
    # upstream connection per client connection): a short accept queue
    # would delay everyone's, at the endpoint rather than at the gateway.
    request_queue_size = 4096

    def handle_error(self, request, client_address):
        # Clients that go away mid-request are expected here; a traceback on
        # stderr, which nobody reads until the end, could fill its pipe and
        # block every thread that writes one.
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", choices=["openai", "anthropic"], required=True)
    parser.add_argument("--address", default="127.0.0.2")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ready-file", required=True)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    options = parser.parse_args()
    server = Server((options.address, options.port), Endpoint)
    server.options = options
    server.tls = None
    if options.tls_cert:
        server.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server.tls.load_cert_chain(options.tls_cert, options.tls_key)
    with open(options.ready_file + ".tmp", "w", encoding="utf-8") as ready:
        ready.write("%d\n" % server.server_address[1])
    os.rename(options.ready_file + ".tmp", options.ready_file)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
