#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A small Agent Client Protocol client for the harness (standard library).

Runs COMMAND (the worker's `native-runtimectl run ... -- AGENT`) and speaks
ACP (JSON-RPC 2.0, one JSON object a line) over its stdin/stdout: initialize,
session/new, a first prompt that runs to its end (permission requests are
answered with the first "allow" option), then a second prompt that is
cancelled (session/cancel) as soon as its first tool call is reported.
Prints one line per step ("step=... key=value") and every session/update kind
in arrival order, for the test to check.

  acp_client.py --cwd DIR --prompt TEXT --cancel-prompt TEXT -- COMMAND...
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time


class Peer:
    def __init__(self, argv):
        # Its own process group, so that the worker's whole command can be
        # ended at once when the client is done with it.
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                     start_new_session=True)
        self.next_id = 0
        self.pending = {}
        self.updates = []
        self.lock = threading.Condition()
        self.on_update = None
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def read(self):
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "method" in message and "id" in message:
                self.answer(message)
            elif "method" in message:
                if message["method"] == "session/update":
                    update = message["params"]["update"]
                    with self.lock:
                        self.updates.append(update)
                        self.lock.notify_all()
                    if self.on_update:
                        self.on_update(update)
            else:
                with self.lock:
                    self.pending[message.get("id")] = message
                    self.lock.notify_all()
        with self.lock:
            self.pending["eof"] = True
            self.lock.notify_all()

    def answer(self, request):
        if request["method"] == "session/request_permission":
            options = request["params"].get("options", [])
            allow = [o for o in options if o.get("kind", "").startswith("allow")]
            chosen = (allow or options)[0]["optionId"]
            self.send({"jsonrpc": "2.0", "id": request["id"],
                       "result": {"outcome": {"outcome": "selected", "optionId": chosen}}})
        else:
            self.send({"jsonrpc": "2.0", "id": request["id"],
                       "error": {"code": -32601, "message": "not supported by this client"}})

    def call(self, method, params, timeout=60):
        self.next_id += 1
        number = self.next_id
        self.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self.lock:
            while number not in self.pending:
                if "eof" in self.pending or time.monotonic() > deadline:
                    raise RuntimeError("no answer to %s" % method)
                self.lock.wait(deadline - time.monotonic())
            return self.pending.pop(number)


def text_of_updates(updates):
    text = ""
    for update in updates:
        if update.get("sessionUpdate") == "agent_message_chunk":
            content = update.get("content", {})
            if content.get("type") == "text":
                text += content.get("text", "")
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cwd", required=True)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--cancel-prompt", required=True)
    parser.add_argument("command", nargs="+")
    options = parser.parse_args()
    peer = Peer(options.command)

    init = peer.call("initialize", {"protocolVersion": 1, "clientCapabilities": {
        "fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}})
    result = init.get("result", {})
    print("step=initialize protocol=%s error=%s" % (result.get("protocolVersion"), "error" in init))
    created = peer.call("session/new", {"cwd": options.cwd, "mcpServers": []})
    if "error" in created:
        methods = [m.get("id") for m in result.get("authMethods", [])]
        key_methods = [m for m in methods if "api" in (m or "").lower() and "key" in (m or "").lower()]
        if key_methods:
            peer.call("authenticate", {"methodId": key_methods[0]})
            print("step=authenticate method=%s" % key_methods[0])
            created = peer.call("session/new", {"cwd": options.cwd, "mcpServers": []})
    if "error" in created:
        print("step=session/new error=%s" % json.dumps(created["error"]))
        return 1
    session = created["result"]["sessionId"]
    print("step=session/new ok=1")

    before = len(peer.updates)
    done = peer.call("session/prompt", {"sessionId": session,
                                         "prompt": [{"type": "text", "text": options.prompt}]})
    updates = peer.updates[before:]
    print("step=prompt stop=%s updates=%d" % (done.get("result", {}).get("stopReason"), len(updates)))
    print("kinds=" + ",".join(u.get("sessionUpdate", "?") for u in updates))
    print("message=" + json.dumps(text_of_updates(updates)))

    before = len(peer.updates)
    cancelled = threading.Event()

    def cancel_on_tool(update):
        if update.get("sessionUpdate") == "tool_call" and not cancelled.is_set():
            cancelled.set()
            peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}})

    peer.on_update = cancel_on_tool
    started = time.monotonic()
    done = peer.call("session/prompt", {"sessionId": session,
                                         "prompt": [{"type": "text", "text": options.cancel_prompt}]})
    print("step=cancel sent=%d stop=%s seconds=%.1f" % (cancelled.is_set(),
                                                        done.get("result", {}).get("stopReason"),
                                                        time.monotonic() - started))
    # Done: close the agent's stdin; an agent that does not exit on that is
    # ended with the worker's command (SIGTERM to its process group), which
    # is what a worker dropping the stream does.
    peer.proc.stdin.close()
    try:
        status = peer.proc.wait(timeout=5)
        how = "eof"
    except subprocess.TimeoutExpired:
        os.killpg(peer.proc.pid, signal.SIGTERM)
        status = peer.proc.wait()
        how = "terminated"
    print("step=exit how=%s status=%d" % (how, status))
    return 0


if __name__ == "__main__":
    sys.exit(main())
