#!/usr/bin/python3
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
--log as one JSON line (what was asked, what was sent). When listening, the
chosen port is written to --ready-file. With --tls-cert and --tls-key it
speaks HTTPS (the egress gateway's upstream, whose certificate only the
gateway trusts).

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


class Endpoint(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    counter = 0
    lock = threading.Lock()

    def log_message(self, *args):  # the exchange log replaces the access log
        pass

    def record(self, entry):
        with self.lock:
            with open(self.server.options.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")

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

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
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
    server = http.server.ThreadingHTTPServer((options.address, options.port), Endpoint)
    server.options = options
    if options.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(options.tls_cert, options.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(options.ready_file + ".tmp", "w", encoding="utf-8") as ready:
        ready.write("%d\n" % server.server_address[1])
    os.rename(options.ready_file + ".tmp", options.ready_file)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
