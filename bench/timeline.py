#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/run --timeline DIR: where the wall time of one launch goes.

The CPU profile (bench/profile.py) says which process burns what; it cannot
say what a launch waits for. This records, around sequential launches of
native-runtime, warm ("nr"), cold ("cold": the helper stopped before, so
the launch activates it) and first after the helper's start ("boot": started
by systemctl and left to finish its checks, as at boot), and of baseline B, interleaved in shuffled order,
the moments every process
of the harness is exec'd and exits (perf's sched tracepoints) and every
D-Bus message (busctl monitor), on one clock (CLOCK_MONOTONIC), and prints
for each variant the median time from the client's exec to each milestone:

    client exec -> StartSession / StartTransientUnit -> (claim exec ->
    Claim, on systemd < 257) -> launcher exec -> bwrap exec -> command exec
    -> command exit -> end signal -> client exit

Medians over the launches of the offset at which each milestone is first
seen; a milestone seen in fewer than half of them is left out. Both monitors
cost the bus and the kernel something, the same for both variants, so the
offsets compare within one run only.
"""

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inside  # noqa: E402

# Processes whose exec and exit mark a launch (perf truncates comm to 15).
EXEC_NAMES = {
    "native-runtimectl": "client",
    "systemd-run": "client",
    "native-runtime-launch": "launcher",
    # On systemd < 257 the unit's ExecStart, which execs the launcher.
    "native-runtime-claim": "claim",
    "native-runtimed": "helper",
    "bwrap": "bwrap",
    "true": "command",
}
# What the launcher does between its exec and bwrap's, by system call.
LAUNCHER_STEPS = {
    "syscalls:sys_enter_connect": "connect (bus)",
    "syscalls:sys_enter_clone": "fork",
    "syscalls:sys_enter_clone3": "fork",
    "syscalls:sys_enter_seccomp": "seccomp (notify filter)",
    "syscalls:sys_enter_landlock_restrict_self": "landlock",
    "syscalls:sys_enter_memfd_create": "memfd",
}
# Bus calls worth a milestone: the member, or (interface, member).
BUS_MEMBERS = {
    "StartSession", "StartTransientUnit", "Claim", "GetAll", "SetUnitProperties", "GetUnit", "SessionEnded",
    "JobRemoved", "Subscribe", "Hello", "StartServiceByName", "NameHasOwner", "AddMatch", "Unref", "Ref",
    "RequestName", "NameOwnerChanged",
}


def parse_perf(data):
    """[(t_seconds, what, role, pid)] from perf script: exec and exit of the
    processes in EXEC_NAMES, and the launcher's steps (LAUNCHER_STEPS)."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,time,event,trace"], capture_output=True,
                         text=True, check=False).stdout
    events = []
    for line in out.splitlines():
        head, sep, rest = line.partition(": ")
        if not sep:
            continue
        # "COMM PID TIME" (comm may hold spaces), then "EVENT: TRACE".
        head_parts = head.rsplit(None, 2)
        event, _, trace = rest.strip().partition(": ")
        if len(head_parts) != 3:
            continue
        comm, pid, t = head_parts[0].strip(), int(head_parts[1]), float(head_parts[2])
        fields = dict(p.split("=", 1) for p in trace.split() if "=" in p)
        if event == "sched:sched_process_exec":
            name = os.path.basename(fields.get("filename", ""))
            if name in EXEC_NAMES:
                events.append((t, "exec", EXEC_NAMES[name], pid))
        elif event == "sched:sched_process_exit":
            for name, role in EXEC_NAMES.items():
                if name[:15] == fields.get("comm", ""):
                    events.append((t, "exit", role, pid))
        elif comm == "native-runtime-" and event in LAUNCHER_STEPS:
            events.append((t, LAUNCHER_STEPS[event], "launcher", pid))
    return events


def parse_bus(path, realtime_offset):
    """[(t_seconds, label)] from busctl monitor --json=short; replies are
    labelled with the member of the call they answer."""
    calls, events = {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                m = json.loads(line)
            except ValueError:
                continue
            t = m.get("timestamp-realtime")
            if t is None:
                continue
            t = t / 1e6 - realtime_offset
            kind, member = m.get("type"), m.get("member")
            if kind == "method_call":
                calls[(m.get("sender"), m.get("cookie"))] = member
                if member in BUS_MEMBERS:
                    events.append((t, f"call {member}"))
            elif kind == "method_return" or kind == "error":
                member = calls.get((m.get("destination"), m.get("reply_cookie")))
                if member in BUS_MEMBERS:
                    events.append((t, f"{'reply' if kind == 'method_return' else 'error'} {member}"))
            elif kind == "signal" and member in BUS_MEMBERS:
                events.append((t, f"signal {member}"))
    return events


def milestones(window, procs, bus):
    """{label: offset_ms} of the first occurrence of each milestone within
    the launch's window, counted from the client's exec."""
    t0, t1 = window
    seen = {}
    for t, what, role, _pid in procs:
        if t0 <= t <= t1:
            seen.setdefault(f"{what} {role}", t)
    for t, label in bus:
        if t0 <= t <= t1:
            seen.setdefault(label, t)
    start = seen.get("exec client")
    if start is None:
        return None
    return {label: (t - start) * 1e3 for label, t in seen.items()}


def summarize(per_launch):
    """[(label, median_ms, seen)] sorted by median offset."""
    labels = {}
    for ms in per_launch:
        for label, offset in ms.items():
            labels.setdefault(label, []).append(offset)
    rows = [(label, statistics.median(v), len(v)) for label, v in labels.items() if len(v) * 2 >= len(per_launch)]
    return sorted(rows, key=lambda r: r[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--launches", type=int, default=15)
    ap.add_argument("--report-only", action="store_true", help="redo the table from what --out holds")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.report_only:
        print(report(args.out))
        return 0
    failures = []
    rng = random.Random(7)
    v = inside.prepare_without_peer(failures)
    worker = v.worker

    data = os.path.join(args.out, "timeline.data")
    bus_log = os.path.join(args.out, "bus.json")
    perf = subprocess.Popen(["perf", "record", "-a", "-k", "mono", "-e", "sched:sched_process_exec",
                             "-e", "sched:sched_process_exit"] +
                            [arg for event in sorted(set(LAUNCHER_STEPS)) for arg in ("-e", event)] + ["-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(bus_log, "w", encoding="utf-8") as log:
        monitor = subprocess.Popen(["busctl", "monitor", "--json=short"], stdout=log, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        windows = {"nr": [], "cold": [], "boot": [], "B": []}
        for i in range(args.launches):
            order = list(windows)
            rng.shuffle(order)
            for var in order:
                if var == "cold":
                    inside.stop_helper()
                elif var == "nr":
                    inside.ensure_helper(v)
                elif var == "boot":
                    error, _ = inside.start_helper_as_at_boot()
                    if error:
                        failures.append(f"boot: not launched: {error}")
                        continue
                if var in ("nr", "cold", "boot"):
                    argv, runner = v.ctl(inside.OWNERS[0], v.next_chat("tl"), "noop", ["true"]), worker
                else:
                    argv, runner = v.systemd_run("noop", ["true"]), v.root
                t0 = time.monotonic()
                _, rc, _, err = runner.run(argv)
                t1 = time.monotonic()
                if rc != 0:
                    failures.append(f"{var}: exit {rc}: {err.strip()[-200:]}")
                windows[var].append((t0, t1))
                time.sleep(0.3)  # let the end's aftermath settle outside the next window
        time.sleep(0.5)
        monitor.send_signal(signal.SIGINT)
        monitor.wait()
    perf.send_signal(signal.SIGINT)
    perf.wait()
    if not os.path.getsize(data):
        print("timeline: perf recorded nothing (are the sched tracepoints available?)", file=sys.stderr)
        return 1

    # busctl stamps messages with CLOCK_REALTIME; perf and the windows use
    # CLOCK_MONOTONIC.
    realtime_offset = time.time() - time.monotonic()
    with open(os.path.join(args.out, "windows.json"), "w", encoding="utf-8") as f:
        json.dump({"windows": windows, "realtime_offset": realtime_offset, "launches": args.launches,
                   "load": os.getloadavg()[0]}, f)
    print(report(args.out))
    for f in failures:
        print(f"timeline: failure: {f}", file=sys.stderr)
    return 1 if failures else 0


def report(out_dir):
    """The table, from what DIR holds (also written to DIR/timeline.txt)."""
    with open(os.path.join(out_dir, "windows.json"), encoding="utf-8") as f:
        saved = json.load(f)
    windows, realtime_offset = saved["windows"], saved["realtime_offset"]
    procs = parse_perf(os.path.join(out_dir, "timeline.data"))
    bus = parse_bus(os.path.join(out_dir, "bus.json"), realtime_offset)
    lines = [f"# launch timeline, {saved['launches']} sequential launches of each variant, interleaved; "
             f"load average {saved['load']:.1f}",
             "# offset from the client's exec (ms), median over launches; seen = launches it appeared in", ""]
    for var, wins in windows.items():
        per_launch = [m for m in (milestones(w, procs, bus) for w in wins) if m]
        lines.append(f"## {var} ({len(per_launch)} launches with a client exec)")
        lines.append(f"{'milestone':<34} {'ms':>8} {'seen':>5}")
        for label, offset, seen in summarize(per_launch):
            lines.append(f"{label:<34} {offset:8.1f} {seen:>5}")
        lines.append("")
    text = "\n".join(lines)
    with open(os.path.join(out_dir, "timeline.txt"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return text


if __name__ == "__main__":
    sys.exit(main())
