#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A worker that starts one native-runtime session and follows it to its end.

Usage (as a configured caller, see docs/dbus-api.md):

    worker.py --owner alice --chat chat-42 --adapter codex \
              [--job J] [--workspace DIR] [--env NAME ...] [--timeout SEC] \
              -- COMMAND [ARG...]

What it shows:
  * StartSessionWithOptions with this process's stdin and two pipes of its
    own as the session's stdout and stderr, so the session's output is
    streamed here line by line, prefixed with "out: " / "err: ";
  * SessionWaiting while a host-auth adapter's queue holds the session;
  * SessionEnded, turned into an exit status as native-runtimectl run does
    (the command's status, 128+N for signal N, 124 for a runtime limit);
  * a call refused with HelperStopping (it met the helper on its way out;
    nothing was done) made again, up to three times;
  * the helper disappearing: the next call re-activates it, the new helper
    adopts the running session and reports its end; when the helper cannot
    be reached again, or the unit is gone with no report, the end is
    unknown (exit 255);
  * --timeout: StopSession after SEC seconds, then wait for the end and
    exit 124 like timeout(1).
Variables named with --env are passed from this process's environment
(credentials stay out of argv). Needs python3-jeepney (Debian).
"""

import argparse
import os
import selectors
import sys
import time
from collections import deque

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, Properties, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import DBusErrorResponse

NAME = "org.metis.NativeRuntime1"
PATH = "/org/metis/NativeRuntime1"
MANAGER = NAME + ".Manager"
BUS_DRIVER = "org.freedesktop.DBus"
HELPER = DBusAddress(PATH, bus_name=NAME, interface=MANAGER)
SYSTEMD = DBusAddress("/org/freedesktop/systemd1", bus_name="org.freedesktop.systemd1",
                      interface="org.freedesktop.systemd1.Manager")
HELPER_STOPPING = NAME + ".Error.HelperStopping"
CALLS_WHILE_STOPPING = 3

EXIT_TIMEOUT = 124
EXIT_UNKNOWN_END = 255
EXIT_REFUSED = 65
CLD_EXITED = 1
STOP_GRACE_SEC = 30


def log(text):
    print(f"worker: {text}", file=sys.stderr, flush=True)


def exit_status(result, code, status):
    """SessionEnded's (result, code, status) as a shell-style status."""
    if result == "timeout":
        return EXIT_TIMEOUT
    if result == "oom-kill":
        return 128 + 9
    if code == CLD_EXITED:
        return status & 0xFF
    if code > CLD_EXITED and status > 0:
        return 128 + (status & 0x7F)
    return EXIT_UNKNOWN_END


class Session:
    """One session: the bus connection, its signal queues and its output pipes."""

    def __init__(self, args):
        self.args = args
        self.conn = open_dbus_connection(bus="SYSTEM", enable_fds=True)
        # The broker resolves sender=NAME to whoever owns it, but a peer can
        # also send a signal straight to this connection, past every match
        # rule. So signals count only from a unique name that owned NAME
        # (from a reply of the helper or from the bus's NameOwnerChanged).
        self.helper_names = set()
        signals = dict(type="signal", interface=MANAGER, path=PATH)
        self.ended = self.subscribe(MatchRule(member="SessionEnded", sender=NAME, **signals),
                                    MatchRule(member="SessionEnded", **signals))
        self.waiting = self.subscribe(MatchRule(member="SessionWaiting", sender=NAME, **signals),
                                      MatchRule(member="SessionWaiting", **signals))
        owner_rule = MatchRule(type="signal", sender=BUS_DRIVER, interface=BUS_DRIVER,
                               member="NameOwnerChanged", path="/org/freedesktop/DBus")
        owner_rule.add_arg_condition(0, NAME)
        # Subscribed before the start call, so an end that follows at once
        # cannot be missed; the queues keep signals that arrive during calls.
        self.owner_changes = self.subscribe(owner_rule, owner_rule)
        self.unit = None

    def subscribe(self, bus_rule, local_rule):
        """bus_rule asks the broker; local_rule sorts what arrives (jeepney
        compares the sender field literally, and signals carry the unique
        name, so the local rule names no well-known sender)."""
        self.conn.send_and_get_reply(message_bus.AddMatch(bus_rule))
        # An unbounded queue: the default keeps only the latest message.
        return self.conn.filter(local_rule, queue=deque()).queue

    def from_helper(self, message):
        return message.header.fields.get(HeaderFields.sender) in self.helper_names

    def call(self, message, timeout=25):
        # A helper that had begun to exit refuses a call that would have to
        # wait (a start, a stop polkit decides) with HelperStopping, having
        # done nothing; the same call made again reaches the next helper.
        for attempt in range(1, CALLS_WHILE_STOPPING + 1):
            reply = self.conn.send_and_get_reply(message, timeout=timeout)
            if reply.header.message_type != MessageType.error:
                break
            error = DBusErrorResponse(reply)
            if error.name != HELPER_STOPPING or attempt == CALLS_WHILE_STOPPING:
                raise error
        if message.header.fields.get(HeaderFields.destination) == NAME:
            self.helper_names.add(reply.header.fields.get(HeaderFields.sender))
        return reply.body

    def version(self):
        """Reading a property also activates the helper when none runs."""
        return self.call(Properties(HELPER).get("Version"))[0][1]

    def start(self, stdout_w, stderr_w):
        options = {}
        if self.args.job:
            options["job"] = ("s", self.args.job)
        if self.args.workspace:
            options["workspace"] = ("s", self.args.workspace)
        environment = {}
        for name in self.args.env:
            if name not in os.environ:
                raise SystemExit(f"worker: --env {name}: not set in this environment")
            environment[name] = os.environ[name]
        if environment:
            options["environment"] = ("a{ss}", environment)
        message = new_method_call(HELPER, "StartSessionWithOptions", "sssashhha{sv}",
                                  (self.args.owner, self.args.chat, self.args.adapter, self.args.command,
                                   sys.stdin.fileno(), stdout_w, stderr_w, options))
        # Above the first call's wait for the helper's preflight canary
        # (docs/dbus-api.md, StartSession), as native-runtimectl run waits.
        self.unit = self.call(message, timeout=120)[0]
        log(f"started {self.unit}")

    def stop(self):
        log(f"timeout: stopping {self.unit}")
        self.call(new_method_call(HELPER, "StopSession", "ss", (self.args.owner, self.args.chat)))

    def pump_bus(self):
        """Reads what the bus has ready into the signal queues."""
        while True:
            try:
                self.conn.recv_messages(timeout=0)
            except TimeoutError:
                return

    def take_end(self):
        while self.ended:
            message = self.ended.popleft()
            unit, _owner, _chat, _job, result, code, status = message.body
            if unit == self.unit and self.from_helper(message):
                return result, code, status
        return None

    def report_waiting(self):
        while self.waiting:
            message = self.waiting.popleft()
            unit, _owner, _chat, _job, ahead = message.body
            if unit == self.unit and self.from_helper(message):
                log("admitted" if ahead == 0 else f"waiting for host-auth admission: {ahead} ahead")

    def helper_vanished(self):
        vanished = False
        while self.owner_changes:
            message = self.owner_changes.popleft()
            if message.header.fields.get(HeaderFields.sender) != BUS_DRIVER:
                continue
            _name, _old, new = message.body
            if new:
                self.helper_names.add(new)
            vanished = vanished or new == ""
        return vanished

    def unit_loaded(self):
        try:
            self.call(new_method_call(SYSTEMD, "GetUnit", "s", (self.unit,)))
            return True
        except DBusErrorResponse as error:
            if error.name == "org.freedesktop.systemd1.NoSuchUnit":
                return False
            raise


def copy_output(key, out):
    data = os.read(key.fd, 65536)
    if not data:
        return False
    for line in data.decode("utf-8", "replace").splitlines():
        print(f"{key.data}: {line}", file=out, flush=True)
    return True


def run(args):
    session = Session(args)
    log(f"helper version {session.version()}")
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    try:
        session.start(stdout_w, stderr_w)
    finally:
        # The session holds its own copies now; keeping ours would hold the
        # pipes open after the session ends.
        os.close(stdout_w)
        os.close(stderr_w)

    selector = selectors.DefaultSelector()
    selector.register(session.conn.sock, selectors.EVENT_READ, "bus")
    selector.register(stdout_r, selectors.EVENT_READ, "out")
    selector.register(stderr_r, selectors.EVENT_READ, "err")
    deadline = time.monotonic() + args.timeout if args.timeout else None
    stopped = False
    end = None
    end_unknown_since = None
    while True:
        for key, _ in selector.select(timeout=0.5):
            if key.data == "bus":
                continue
            if not copy_output(key, sys.stdout if key.data == "out" else sys.stderr):
                selector.unregister(key.fd)
                os.close(key.fd)
        session.pump_bus()
        # Owner changes first: they tell which unique names may send the
        # signals read next.
        vanished = session.helper_vanished()
        session.report_waiting()
        end = end or session.take_end()
        outputs_open = len(selector.get_map()) > 1
        if end and not outputs_open:
            break
        if vanished and not end:
            log("the helper went away; calling it again so that it adopts the session")
            try:
                log(f"helper version {session.version()}")
            except DBusErrorResponse as error:
                log(f"the helper cannot be reached: {error.name}; the session's end is unknown")
                return EXIT_UNKNOWN_END
        if not end and not session.unit_loaded():
            # A unit that ended while no helper ran may be collected before
            # anyone reports it; give a late SessionEnded a moment.
            end_unknown_since = end_unknown_since or time.monotonic()
            if time.monotonic() - end_unknown_since > 2:
                log(f"{session.unit} is gone and no helper reported its end")
                return EXIT_UNKNOWN_END
        if deadline and not stopped and time.monotonic() > deadline:
            session.stop()
            stopped = True
            deadline = time.monotonic() + STOP_GRACE_SEC
        elif deadline and stopped and time.monotonic() > deadline:
            log(f"{session.unit} did not end within {STOP_GRACE_SEC} s of StopSession")
            return EXIT_UNKNOWN_END
    result, code, status = end
    log(f"{session.unit} ended: result={result} code={code} status={status}")
    return EXIT_TIMEOUT if stopped else exit_status(result, code, status)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--owner", required=True)
    parser.add_argument("--chat", required=True)
    parser.add_argument("--adapter", required=True)
    parser.add_argument("--job", default="")
    parser.add_argument("--workspace", default="")
    parser.add_argument("--env", action="append", default=[], metavar="NAME")
    parser.add_argument("--timeout", type=float, default=0, metavar="SEC")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    try:
        return run(args)
    except DBusErrorResponse as error:
        log(f"refused: {error.name}: {error.data[0] if error.data else ''}")
        return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main())
