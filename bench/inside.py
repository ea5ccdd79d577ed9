#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs inside the private systemd of bench/run (as root) and prints the table.

Every latency figure is a median over interleaved rounds (the order of the
variants is shuffled in every round), and every reported figure is set
against a baseline measured in the same run, because the machines this runs
on are noisy. Exit status 0 only when every launch of every variant
succeeded (a peer that cannot run here is reported, not counted).

The baselines are built from the product's own plan, never re-derived here:
nr-plan (bench/nr_plan.cpp, linked to the helper's core) prints the session
plan of a request as JSON: the unit name, the unit properties with their
`systemd-run -p` spelling, and the bwrap command line the launcher runs.
The figures go to stdout as Markdown and, with --json FILE, as JSON
(bench/check-table reads that).
"""

import argparse
import collections
import datetime
import grp
import json
import os
import platform
import pwd
import random
import shutil
import subprocess
import sys
import threading
import time

import gateway_rows
from report import (burst_results, cpu_results, fmt, gateway_results, held_results, helper_results, latency_results,
                    loop_results, median, render, targets)

CONFIG = "/etc/native-runtime/config.yaml"
TOOLS = "/usr/libexec/native-runtime/bench"
LOOP = f"{TOOLS}/nr-bench-loop"
PLAN = f"{TOOLS}/nr-plan"
CTL = "/usr/bin/native-runtimectl"
USER = "nrbench"
WORKER_GROUP = "native-runtime"
HELPER_UNIT = "native-runtimed.service"
# The helper's preflight canary: its unit (core::kCanaryUnit in
# src/core/plan/session_plan.h) and its per-boot record of a pass
# (src/sys/preflight/canary_cache.h), stale at every real boot.
CANARY_UNITS = "native-runtime-preflight*"
CANARY_PASS = "/var/lib/native-runtime/preflight-canary"
# Bounds the wait for the helper's start-up checks in the "boot" variant.
STARTUP_CHECKS_LIMIT = 60.0
STARTUP_POLL = 0.05
STARTUP_REST = 0.5
OWNERS = ("bencha", "benchb")
BASE_OWNER = "benchbase"
BASE_CHAT = "base"
PATH = "/usr/local/bin:/usr/bin:/bin"
# The "short sh -c script": builtins, a few forks and a file in /tmp.
SCRIPT = ("i=0; while [ $i -lt 200 ]; do i=$((i+1)); done; "
          "echo data >/tmp/f; cat /tmp/f >/dev/null; ls / >/dev/null; echo ok")
# Each workload is an adapter of bench/config.yaml and the argv a worker
# would send; the plan resolves the command to the adapter's executable.
WORKLOADS = {
    "true": {"title": "`/bin/true`", "adapter": "noop", "argv": ["true"], "expect": ""},
    "script": {"title": "short `sh -c` script", "adapter": "shell", "argv": ["sh", "-c", SCRIPT],
               "expect": "ok"},
}
HOLD_ARGV = ["sleep", "3000"]
# Compared between a session unit and B's, though neither sets them.
DERIVED_PROPERTIES = ("SystemCallFilter", "RestrictAddressFamilies", "RestrictNamespaces")


def die(msg):
    print(f"bench: {msg}", file=sys.stderr)
    sys.exit(1)


def progress(msg):
    """A line on stderr, so a person watching knows which phase is running."""
    print(f"bench: [{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def sh(argv, check=True, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        die(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


# ---------------------------------------------------------------- the plan
class Plans:
    """Session plans from nr-plan, by request; the product decides, the
    bench only reads."""

    def __init__(self):
        self.cache = {}

    def get(self, owner, chat, adapter, argv):
        key = (owner, chat, adapter, tuple(argv))
        if key not in self.cache:
            r = sh([PLAN, "--config", CONFIG, "--user", USER, "--owner", owner, "--chat", chat,
                    "--adapter", adapter, "--"] + list(argv))
            self.cache[key] = json.loads(r.stdout)
        return self.cache[key]


def systemd_run_assignments(plan):
    """The plan's unit properties as systemd-run assignments (nr-plan spells
    them; null marks what systemd-run supplies itself)."""
    return [p["systemd_run"] for p in plan["properties"] if p["systemd_run"] is not None]


# ---------------------------------------------------------------- users
class Worker:
    """Runs commands as one user. Every variant is spawned the same way
    (Python drops to the user between fork and exec, which rules out vfork),
    so the spawn cost, which is large on this VM, is the same for all."""

    def __init__(self, user=USER):
        pw = pwd.getpwnam(user)
        self.uid, self.gid, self.home = pw.pw_uid, pw.pw_gid, pw.pw_dir
        self.groups = [g.gr_gid for g in grp.getgrall() if user in g.gr_mem]
        self.env = {"PATH": PATH, "HOME": self.home, "USER": user, "LOGNAME": user,
                    "LANG": "C.UTF-8"}

    def kwargs(self):
        return {"user": self.uid, "group": self.gid, "extra_groups": self.groups, "env": self.env}

    def run(self, argv, cwd="/", env=None):
        """Runs argv as the user; returns (seconds, returncode, stdout, stderr)."""
        t0 = time.perf_counter()
        r = subprocess.run(argv, user=self.uid, group=self.gid, extra_groups=self.groups,
                           env=env or self.env, cwd=cwd, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, check=False)
        return time.perf_counter() - t0, r.returncode, r.stdout, r.stderr


def setup_users(plans):
    """The worker user, the app's data dir (from the plan) and the private
    directories of the baselines' owner, which no launcher creates."""
    sh(["groupadd", "-f", WORKER_GROUP])
    if subprocess.run(["id", USER], capture_output=True, check=False).returncode != 0:
        sh(["useradd", "-m", "-G", WORKER_GROUP, USER])
    base = plans.get(BASE_OWNER, BASE_CHAT, "noop", ["true"])
    sh(["install", "-d", "-o", USER, "-g", USER, "-m", "0750", base["data_dir"]])
    for d in base["private_dirs"]:
        sh(["runuser", "-u", USER, "--", "mkdir", "-p", "-m", "0700", d])
    # The broker resolves the policy's group name when it loads the policy.
    sh(["busctl", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
        "org.freedesktop.DBus", "ReloadConfig"])


# ---------------------------------------------------------------- variants
class Variants:
    """The command lines of every variant. A and B run the bwrap command
    line of a session of owner benchbase, chat base, as nr-plan prints it
    (the launcher's --args data inlined, without its seccomp filter and
    Landlock domain); B runs it in a transient service with the session
    unit's properties."""

    def __init__(self, plans, worker, srt):
        self.plans, self.worker, self.srt = plans, worker, srt
        self.root = Worker("root")
        self.counter = 0

    def next_chat(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def base_plan(self, adapter, argv):
        return self.plans.get(BASE_OWNER, BASE_CHAT, adapter, argv)

    def ctl(self, owner, chat, adapter, argv):
        return [CTL, "run", "--owner", owner, "--chat", chat, "--adapter", adapter, "--"] + list(argv)

    def bwrap(self, adapter, argv):
        """Baseline A: the session's bwrap command line, run directly."""
        return self.base_plan(adapter, argv)["baseline_bwrap_argv"]

    def systemd_run(self, adapter, argv, unit=None):
        """Baseline B: the same bwrap as a transient service with the
        session unit's properties (user, slice, hardening, limits, network)."""
        plan = self.base_plan(adapter, argv)
        out = ["systemd-run", "--wait", "--pipe", "--quiet"]
        if unit:
            out.append(f"--unit={unit}")
        for assignment in systemd_run_assignments(plan):
            out += ["-p", assignment]
        return out + ["--"] + plan["baseline_bwrap_argv"]

    def workload(self, var, wl, owner=None, chat=None):
        """argv and the Worker that runs it, for one variant of a workload."""
        w = WORKLOADS[wl]
        if var == "A":
            return self.bwrap(w["adapter"], w["argv"]), self.worker
        if var == "B":
            # systemd-run with User= needs root (as would run0): run as root.
            return self.systemd_run(w["adapter"], w["argv"]), self.root
        return self.ctl(owner, chat, w["adapter"], w["argv"]), self.worker

    def srt_argv(self, workload):
        if workload == "true":
            return [self.srt["bin"], "/usr/bin/true"]
        return [self.srt["bin"], "-c", SCRIPT]


def show_props(unit, names):
    out = sh(["systemctl", "show", unit] + [f"-p{n}" for n in names], check=False).stdout
    props = {}
    for line in out.splitlines():
        k, _, v = line.partition("=")
        props[k] = v
    return props


def wait_unit_active(unit, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sh(["systemctl", "is-active", "--quiet", unit], check=False).returncode == 0:
            return True
        time.sleep(0.02)
    return False


def mount_points(text, owner, chat):
    """Mount points of a /proc/self/mountinfo, the owner and chat of the
    session normalised."""
    points = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 5:
            continue
        points.append(fields[4].replace(f"/{owner}/", "/OWNER/").replace(f"/chats/{chat}/", "/chats/CHAT/"))
    return sorted(points)


def calibrate(v, notes, failures):
    """Checks the baselines against a live session: B's unit properties
    (those of the plan that systemd-run can set) as `systemctl show` reports
    them for both units, and the mount tables of the session, A and B."""
    w = v.worker
    chat = "calibrate"
    probe = ["sh", "-c", "cat /proc/self/mountinfo; sleep 3"]
    unit = v.plans.get(OWNERS[0], chat, "shell", probe)["unit_name"]
    proc = subprocess.Popen(v.ctl(OWNERS[0], chat, "shell", probe), user=w.uid, group=w.gid,
                            extra_groups=w.groups, env=w.env, cwd="/", stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait_unit_active(unit):
        proc.kill()
        die(f"calibration session {unit} (the planned unit name) never became active: {proc.communicate()[1]}")
    names = [p["name"] for p in v.base_plan("shell", probe)["properties"] if p["systemd_run"] is not None]
    # Set by neither, but systemd could derive them from what was set.
    names += [n for n in DERIVED_PROPERTIES if n not in names]
    live = show_props(unit, names)
    out, err = proc.communicate(timeout=60)
    if proc.returncode != 0:
        die(f"calibration session failed ({proc.returncode}): {err}")

    bunit = "nr-bench-calibrate-b"
    bproc = subprocess.Popen(v.systemd_run("shell", probe, unit=bunit), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/")
    if not wait_unit_active(bunit + ".service"):
        bproc.kill()
        die(f"baseline B unit never became active: {bproc.communicate()[1]}")
    blive = show_props(bunit + ".service", names)
    bout, berr = bproc.communicate(timeout=60)
    if bproc.returncode != 0:
        die(f"baseline B failed ({bproc.returncode}): {berr}")

    # The owner differs (its slice); list values (address sets) come in
    # hash order: compare them as sets.
    def norm(value, owner):
        return sorted((value or "").replace(owner, "OWNER").split())
    diff = [f"{n}: session={live.get(n)!r} B={blive.get(n)!r}" for n in names
            if norm(live.get(n), OWNERS[0]) != norm(blive.get(n), BASE_OWNER)]
    if diff:
        failures.append("baseline B unit properties differ from the session's: " + "; ".join(diff))
    else:
        notes.append(f"baseline B: the unit properties of the plan that systemd-run can set (nr-plan), and "
                     f"{', '.join(DERIVED_PROPERTIES)} as systemd derives them, verified equal to a live session "
                     f"unit's with `systemctl show` ({', '.join(names)}).")

    _, rc, aout, aerr = w.run(v.bwrap("shell", ["sh", "-c", "cat /proc/self/mountinfo"]))
    if rc != 0:
        die(f"baseline A (bare bwrap) failed ({rc}): {aerr}")
    session_points = mount_points(out, OWNERS[0], chat)
    same = True
    for name, text in (("A", aout), ("B", bout)):
        points = mount_points(text, BASE_OWNER, BASE_CHAT)
        if points != session_points:
            same = False
            failures.append(f"baseline {name} mount table differs from the session's: "
                            f"session {session_points} vs {name} {points}")
    if same:
        notes.append(f"baselines A and B: the same {len(session_points)} mount points as a session "
                     "(compared from /proc/self/mountinfo inside each).")


# ---------------------------------------------------------------- helper
def helper_pid():
    pid = sh(["systemctl", "show", "-p", "MainPID", "--value", HELPER_UNIT], check=False).stdout.strip()
    return int(pid) if pid.isdigit() and pid != "0" else None


def stop_helper():
    sh(["systemctl", "stop", HELPER_UNIT], check=False)


def canary_units():
    """The helper's canary units systemd has loaded, or None when systemctl
    cannot tell."""
    r = sh(["systemctl", "list-units", "--all", "--plain", "--no-legend", CANARY_UNITS], check=False)
    if r.returncode != 0:
        return None
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def start_helper_as_at_boot():
    """The untimed preparation of the "boot" variant: what a boot does before
    the first launch with the default settings. The helper is stopped, its
    canary pass forgotten (a real boot makes it stale: the record holds the
    boot id), then started by systemctl, as the Wants= of the application's
    units starts it at boot. Then it is left to finish its start-up checks:
    until no canary unit is loaded (polled every 50 ms, at most 60 s), then
    0.5 s of rest; a canary that starts during the rest is waited for too.
    Returns (None, whether the pass was on record before the launch) or
    (an error, None)."""
    stop_helper()
    try:
        os.unlink(CANARY_PASS)
    except FileNotFoundError:
        pass
    except OSError as e:
        return f"cannot remove the canary pass {CANARY_PASS}: {e}", None
    r = sh(["systemctl", "start", HELPER_UNIT], check=False)
    if r.returncode != 0:
        return f"systemctl start {HELPER_UNIT}: exit {r.returncode}: {r.stderr.strip()[-300:]}", None
    deadline = time.monotonic() + STARTUP_CHECKS_LIMIT
    while True:
        units = canary_units()
        if units is None:
            return f"systemctl list-units {CANARY_UNITS} failed", None
        if not units:
            time.sleep(STARTUP_REST)
            if canary_units() == []:
                return None, os.path.exists(CANARY_PASS)
            continue
        if time.monotonic() > deadline:
            return (f"the helper's start-up checks did not finish within {STARTUP_CHECKS_LIMIT:.0f} s "
                    f"(still loaded: {', '.join(units)})"), None
        time.sleep(STARTUP_POLL)


def ensure_helper(v):
    if helper_pid() is None:
        _, rc, _, err = v.worker.run(v.ctl(OWNERS[0], v.next_chat("up"), "noop", ["true"]))
        if rc != 0:
            die(f"warm-up launch failed ({rc}): {err}")
    pid = helper_pid()
    if pid is None:
        die("the helper is not running after a launch")
    return pid


def publish(results, json_path):
    """The table on stdout, the figures as JSON to `json_path`; the exit
    status says whether every launch succeeded."""
    sys.stdout.write(render(results))
    sys.stdout.flush()
    if json_path:
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    return 1 if results["failures"] else 0


def status_kib(pid, field):
    return gateway_rows.proc_kib(f"/proc/{pid}/status", field)


def context_switches(pid):
    """Voluntary and involuntary context switches of every thread of pid:
    each is a wake-up of a thread that had been sleeping or was preempted."""
    total = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        total += int(line.split()[1])
    except OSError:
        return None
    return total


def cpu_ns(pid):
    """On-CPU time of every thread of pid, in ns (schedstat)."""
    total = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as f:
                total += int(f.read().split()[0])
    except OSError:
        return None
    return total


# ---------------------------------------------------------------- phases
def burst(v, kind, tag, size):
    """Starts `size` launches of /bin/true at once (distinct chats, owners
    alternating); returns per-launch seconds (spawn to exit) and failures."""
    w = v.worker
    barrier = threading.Barrier(size)
    results = [None] * size

    def one(i):
        owner = OWNERS[i % 2]
        chat = f"{tag}-{i}"
        if kind == "nr":
            argv = v.ctl(owner, chat, "noop", ["true"])
            kw = w.kwargs()
        else:
            argv = v.systemd_run("noop", ["true"], unit=f"nr-bench-{tag}-{i}")
            kw = v.root.kwargs()
        barrier.wait()
        t0 = time.perf_counter()
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd="/",
                           check=False, **kw)
        results[i] = (time.perf_counter() - t0, p.returncode, p.stderr.strip()[-300:])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(size)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = [r[0] for r in results if r[1] == 0]
    bad = [f"{kind} burst {tag} #{i}: exit {r[1]}: {r[2]!r}" for i, r in enumerate(results) if r[1] != 0]
    return ok, bad


class Sampler(threading.Thread):
    """Polls the helper's VmRSS while a burst runs."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            rss = status_kib(self.pid, "VmRSS")
            if rss:
                self.peak = max(self.peak, rss)
            time.sleep(0.002)


def concurrency_phase(v, bursts, size, rng, failures):
    lat = {"nr": [], "B": []}
    ok_count = {"nr": 0, "B": 0}
    helper = {"peak_kib": 0, "hwm_kib": 0, "cpu_ns": [], "pid": None}
    order = [k for _ in range(bursts) for k in ("nr", "B")]
    # interleave: nr/B pairs, each pair in random order
    pairs = [order[i:i + 2] for i in range(0, len(order), 2)]
    cpu_all = {"nr": [], "B": []}
    for n, pair in enumerate(pairs):
        rng.shuffle(pair)
        for kind in pair:
            a0 = harness_cpu_ns()
            if kind == "nr":
                pid = ensure_helper(v)
                helper["pid"] = pid
                sampler = Sampler(pid)
                sampler.start()
                c0 = cpu_ns(pid)
                ok, bad = burst(v, "nr", f"p{n}", size)
                c1 = cpu_ns(pid)
                sampler.stop.set()
                sampler.join()
                helper["peak_kib"] = max(helper["peak_kib"], sampler.peak)
                helper["hwm_kib"] = max(helper["hwm_kib"], status_kib(pid, "VmHWM") or 0)
                if c0 is not None and c1 is not None and helper_pid() == pid:
                    helper["cpu_ns"].append((c1 - c0) / size)
            else:
                ok, bad = burst(v, "B", f"b{n}", size)
            time.sleep(0.5)
            a1 = harness_cpu_ns()
            if a0 is not None and a1 is not None:
                cpu_all[kind].append((a1 - a0) / size)
            lat[kind] += ok
            ok_count[kind] += len(ok)
            failures.extend(bad)
    helper["cpu_all"] = cpu_all
    return lat, ok_count, helper


def harness_cpu_ns():
    """CPU time of everything in the harness (its cgroup, cgroup v1 cpuacct)
    or None: other tenants of the machine are not in it."""
    for path in ("/sys/fs/cgroup/cpuacct/cpuacct.usage", "/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage"):
        try:
            with open(path, encoding="ascii") as f:
                return int(f.read())
        except OSError:
            continue
    try:
        with open("/sys/fs/cgroup/cpu.stat", encoding="ascii") as f:
            for line in f:
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) * 1000
    except OSError:
        pass
    return None


def cpu_phase(v, launches, rng, failures):
    """Sequential launches of /bin/true, one at a time with a short pause
    around each, so that systemd's and the helper's asynchronous clean-up
    after a unit ends is counted with the launch that caused it. Per launch:
    CPU time of the helper, of PID 1 and of the whole harness."""
    per = {(k, m): [] for k in ("A", "B", "nr") for m in ("helper", "pid1", "all")}
    pid = ensure_helper(v)
    kinds = ["nr", "B", "A"] * launches
    rng.shuffle(kinds)
    settle = 0.1
    for kind in kinds:
        time.sleep(settle)
        h0, p0, a0 = cpu_ns(pid), cpu_ns(1), harness_cpu_ns()
        argv, runner = v.workload("warm" if kind == "nr" else kind, "true", OWNERS[1], v.next_chat("u"))
        _, rc, _, err = runner.run(argv)
        time.sleep(settle)
        h1, p1, a1 = cpu_ns(pid), cpu_ns(1), harness_cpu_ns()
        if rc != 0:
            failures.append(f"cpu phase {kind}: exit {rc}: {err.strip()[-300:]!r}")
            continue
        if helper_pid() != pid:
            pid = ensure_helper(v)
            continue
        per[(kind, "helper")].append(h1 - h0)
        per[(kind, "pid1")].append(p1 - p0)
        if a0 is not None and a1 is not None:
            per[(kind, "all")].append(a1 - a0)
    # What the harness burns while nothing is launched, over the same window.
    idle = []
    for _ in range(max(3, launches // 4)):
        a0 = harness_cpu_ns()
        time.sleep(2 * settle)
        a1 = harness_cpu_ns()
        if a0 is not None and a1 is not None:
            idle.append(a1 - a0)
    per[("idle", "all")] = idle
    return per


# The variants of the launch-latency scenario (the peer's, srt, is added
# when it can run), with the prefix of their chat names.
LATENCY_VARIANTS = {"A": "A", "B": "B", "warm": "w", "boot": "boot", "cold": "c"}


def latency_phase(v, rounds, rng, failures, notes=None):
    """Interleaved rounds: in every round each variant runs each workload once,
    in shuffled order. Returns {workload: {variant: [seconds...]}} and the
    failure counts."""
    variants = list(LATENCY_VARIANTS) + (["srt"] if v.srt["ok"] else [])
    samples = {wl: {var: [] for var in variants} for wl in WORKLOADS}
    fails = {wl: {var: 0 for var in variants} for wl in WORKLOADS}
    srt_cwd = v.srt.get("cwd", "/")
    boot_passed = []
    for r in range(rounds):
        order = [(wl, var) for wl in WORKLOADS for var in variants]
        rng.shuffle(order)
        for wl, var in order:
            expect = WORKLOADS[wl]["expect"]
            if var == "srt":
                t, rc, out, err = v.worker.run(v.srt_argv(wl), cwd=srt_cwd, env=v.srt["env"])
            else:
                if var == "warm":
                    ensure_helper(v)
                elif var == "cold":
                    stop_helper()
                elif var == "boot":
                    error, passed = start_helper_as_at_boot()
                    if error:
                        fails[wl][var] += 1
                        failures.append(f"{wl}/{var} round {r + 1}: not launched: {error}")
                        continue
                    boot_passed.append(passed)
                argv, runner = v.workload(var, wl, OWNERS[0], v.next_chat(LATENCY_VARIANTS[var]))
                t, rc, out, err = runner.run(argv)
            if rc != 0 or out.strip() != expect:
                fails[wl][var] += 1
                failures.append(f"{wl}/{var} round {r + 1}: exit {rc}, stdout {out.strip()[:80]!r}, "
                                f"stderr {err.strip()[-300:]!r}")
            else:
                samples[wl][var].append(t)
    if notes is not None:
        ran = sum(1 for x in boot_passed if x)
        notes.append(f"boot: before each timed launch (untimed) `systemctl stop {HELPER_UNIT}`, its canary pass "
                     f"{CANARY_PASS} removed (a real boot makes it stale), `systemctl start {HELPER_UNIT}` (what the "
                     "application units' Wants= does at boot), then a wait until no canary unit "
                     f"({CANARY_UNITS}) is loaded, then {STARTUP_REST} s of rest (a canary that starts in it is waited "
                     f"for too). In {ran} of {len(boot_passed)} "
                     "prepared launches the helper had passed its canary at start before the launch; in the "
                     f"other {len(boot_passed) - ran} the launch ran the canary and its time is in the figure.")
    return samples, fails


def loop_phase(v, rounds, iterations, rng, failures):
    variants = ["outside", "A", "B", "session"]
    res = {var: {} for var in variants}
    filters = {}
    argv = ["nr-bench-loop", str(iterations)]
    for r in range(rounds):
        order = list(variants)
        rng.shuffle(order)
        for var in order:
            if var == "outside":
                _, rc, out, err = v.worker.run([LOOP, str(iterations)])
            elif var == "A":
                _, rc, out, err = v.worker.run(v.bwrap("loop", argv))
            elif var == "B":
                _, rc, out, err = v.root.run(v.systemd_run("loop", argv))
            else:
                _, rc, out, err = v.worker.run(v.ctl(OWNERS[1], v.next_chat("l"), "loop", argv))
            if rc != 0:
                failures.append(f"syscall loop {var} round {r + 1}: exit {rc}: {err.strip()[-300:]!r}")
                continue
            for line in out.splitlines():
                k, _, val = line.partition("=")
                if k == "seccomp_filters":
                    filters[var] = val
                if k.endswith("_cpu_ns"):
                    res[var].setdefault(k[:-len("_cpu_ns")], []).append(float(val))
    return res, filters


# ---------------------------------------------------------------- held sessions
def process_table():
    """{pid: (ppid, comm)} of every process the harness's /proc shows."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        close = stat.rindex(")")
        table[int(entry)] = (int(stat[close + 2:].split()[1]), stat[stat.index("(") + 1:close])
    return table


def descendants(pid, table):
    children = collections.defaultdict(list)
    for p, (ppid, _) in table.items():
        children[ppid].append(p)
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(children.get(p, []))
    return out


def pss_kib(pid):
    return gateway_rows.proc_kib(f"/proc/{pid}/smaps_rollup", "Pss")


def main_pids(units):
    """{unit: MainPID} from one `systemctl show` of all of them."""
    out = sh(["systemctl", "show", "-p", "Id", "-p", "MainPID"] + units, check=False).stdout
    pids = {}
    for block in out.split("\n\n"):
        props = dict(line.partition("=")[::2] for line in block.splitlines() if "=" in line)
        if props.get("Id") and props.get("MainPID", "0").isdigit():
            pids[props["Id"]] = int(props["MainPID"])
    return pids


def broker_pid():
    """The dbus-broker process (a child of the bus unit's dbus-broker-launch)."""
    for unit in ("dbus-broker.service", "dbus.service"):
        main = sh(["systemctl", "show", "-p", "MainPID", "--value", unit], check=False).stdout.strip()
        if main.isdigit() and main != "0":
            table = process_table()
            for p in descendants(int(main), table):
                if table[p][1] == "dbus-broker":
                    return p
            return int(main)
    return None


class Held:
    """`count` sleeping sessions of one kind (nr: native-runtimectl run; B:
    systemd-run --wait --pipe), each with its client process."""

    def __init__(self, v, kind, count):
        self.v, self.kind, self.count = v, kind, count
        self.clients, self.units = [], []

    def start(self, failures, wave=32, timeout=240.0):
        """Starts them in waves and waits until the agent (sleep) of every
        session runs; returns how many did."""
        v, ready = self.v, 0
        for first in range(0, self.count, wave):
            batch = []
            for i in range(first, min(first + wave, self.count)):
                owner = OWNERS[i % 2]
                if self.kind == "nr":
                    chat = f"hold{i}"
                    unit = v.plans.get(owner, chat, "hold", HOLD_ARGV)["unit_name"]
                    argv, kw = v.ctl(owner, chat, "hold", HOLD_ARGV), v.worker.kwargs()
                else:
                    unit = f"nr-bench-hold-{i}.service"
                    argv, kw = v.systemd_run("hold", HOLD_ARGV, unit=unit[:-len(".service")]), v.root.kwargs()
                self.clients.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                                     stderr=subprocess.PIPE, text=True, cwd="/", **kw))
                self.units.append(unit)
                batch.append(unit)
            deadline = time.monotonic() + timeout
            pending = set(batch)
            while pending and time.monotonic() < deadline:
                table = process_table()
                for unit, pid in main_pids(sorted(pending)).items():
                    if pid and any(table[p][1] == "sleep" for p in descendants(pid, table) if p in table):
                        pending.discard(unit)
                time.sleep(0.2)
            ready += len(batch) - len(pending)
            for unit in sorted(pending):
                failures.append(f"held {self.kind}: {unit} has no running agent after {timeout:.0f} s")
        return ready

    def footprint(self):
        """Per session: PSS of the processes besides the agent and of the
        client, and which processes those are."""
        table = process_table()
        boundary, clients, shapes = [], [], collections.Counter()
        for unit, pid in main_pids(self.units).items():
            if not pid:
                continue
            procs = [p for p in descendants(pid, table) if p in table and table[p][1] != "sleep"]
            boundary.append(sum(pss_kib(p) or 0 for p in procs))
            shapes[" + ".join(sorted(table[p][1] for p in procs))] += 1
        for c in self.clients:
            if c.poll() is None:
                clients.append(pss_kib(c.pid) or 0)
        return {"boundary_pss_kib": boundary, "client_pss_kib": clients, "shapes": shapes}

    def stop(self, failures):
        sh(["systemctl", "stop"] + self.units, check=False, timeout=600)
        for c in self.clients:
            try:
                c.wait(timeout=60)
            except subprocess.TimeoutExpired:
                c.kill()
                c.wait()
                failures.append(f"held {self.kind}: a client outlived its stopped session")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if sh(["systemctl", "is-active", "--quiet"] + self.units, check=False).returncode != 0:
                break
            time.sleep(0.2)


def held_launches(v, launches, rng, failures, state):
    """`launches` launches of /bin/true by the product (warm) and by B,
    interleaved; {variant: [seconds...]}."""
    out = {"warm": [], "B": []}
    kinds = ["warm", "B"] * launches
    rng.shuffle(kinds)
    for var in kinds:
        argv, runner = v.workload(var, "true", OWNERS[1], v.next_chat("hl"))
        t, rc, _, err = runner.run(argv)
        if rc != 0:
            failures.append(f"held phase ({state}) {var}: exit {rc}: {err.strip()[-300:]!r}")
        else:
            out[var].append(t)
    return out


def memory_snapshot():
    helper = helper_pid()
    broker = broker_pid()
    return {"helper_rss_kib": status_kib(helper, "VmRSS") if helper else None,
            "pid1_rss_kib": status_kib(1, "VmRSS"),
            "broker_rss_kib": status_kib(broker, "VmRSS") if broker else None}


def held_phase(v, count, launches, rng, failures):
    """Launch latency on an idle host, then with `count` sessions of the
    product held open, then with `count` B units held open, then idle
    again; in each held state the memory per held session and the helper's
    RSS. Each state measures both the product's and B's launches."""
    # Which kind is held first is drawn, since PID 1 and the broker reuse
    # memory the first one made them allocate.
    order = ["nr", "B"]
    rng.shuffle(order)
    res = {"count": count, "launches": launches, "order": order, "latency": {}, "memory": {}, "ok": {}}
    ensure_helper(v)
    idle = held_launches(v, (launches + 1) // 2, rng, failures, "idle, before")
    for kind in order:
        if kind == "nr":
            # A fresh helper after one launch: its RSS tracking nothing.
            stop_helper()
        ensure_helper(v)
        time.sleep(1.0)
        before = memory_snapshot()
        held = Held(v, kind, count)
        progress(f"held: starting {count} {'product sessions' if kind == 'nr' else 'B units'}")
        res["ok"][kind] = held.start(failures)
        time.sleep(1.0)
        after = memory_snapshot()
        foot = held.footprint()
        res["memory"][kind] = {"before": before, "after": after, **foot,
                               "shapes": dict(foot["shapes"].most_common())}
        progress(f"held: {launches} launches each of the product and B with {count} held")
        ensure_helper(v)
        res["latency"][kind] = held_launches(v, launches, rng, failures, f"{count} {kind} held")
        held.stop(failures)
    ensure_helper(v)
    again = held_launches(v, launches // 2, rng, failures, "idle, after")
    res["latency"]["idle"] = {var: idle[var] + again[var] for var in idle}
    return res


# ---------------------------------------------------------------- srt
def prepare_srt(args, worker, notes):
    srt = {"ok": False}
    if args.srt_unavailable:
        srt["reason"] = args.srt_unavailable
        return srt
    binary = os.path.join(args.srt_dir, "node_modules", ".bin", "srt")
    missing = [tool for tool in ("node", "bwrap", "socat", "rg") if shutil.which(tool, path=PATH) is None]
    if not os.path.exists(binary):
        srt["reason"] = f"{binary} not found"
        return srt
    if missing:
        srt["reason"] = ("srt needs " + ", ".join(missing) + " on PATH (Linux dependencies: bubblewrap, "
                         "socat, ripgrep; Node.js >= 20.11); not installed here")
        return srt
    ws = os.path.join(worker.home, "srt-workspace")
    sh(["runuser", "-u", USER, "--", "mkdir", "-p", ws])
    settings = {"network": {"allowedDomains": [], "deniedDomains": []},
                "filesystem": {"denyRead": [], "allowWrite": [ws, "/tmp"], "denyWrite": []}}
    path = os.path.join(worker.home, ".srt-settings.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(settings, f)
    os.chown(path, worker.uid, worker.gid)
    srt.update({"bin": binary, "cwd": ws, "env": dict(worker.env)})
    _, rc, out, err = worker.run([binary, "--version"], cwd=ws, env=srt["env"])
    version = out.strip() if rc == 0 else "?"
    _, rc, out, err = worker.run([binary, "/usr/bin/true"], cwd=ws, env=srt["env"])
    if rc != 0:
        srt["reason"] = f"`srt /usr/bin/true` fails here (exit {rc}): {err.strip()[-400:]}"
        return srt
    srt["ok"] = True
    notes.append(f"peer: @anthropic-ai/sandbox-runtime {version} (`srt`, run as {USER}; network: no allowed "
                 "domains; writes: its workspace and /tmp).")
    return srt


# ---------------------------------------------------------------- report
def systemd_accounting(notes):
    props = show_props(HELPER_UNIT, ["CPUUsageNSec", "MemoryCurrent", "CPUAccounting", "MemoryAccounting"])
    cg = "v2 (unified)" if os.path.exists("/sys/fs/cgroup/cgroup.controllers") else "v1 (legacy/hybrid)"
    notes.append(f"cgroup {cg}: systemd reports for {HELPER_UNIT}: "
                 + ", ".join(f"{k}={v or '(empty)'}" for k, v in sorted(props.items()))
                 + ". Helper RSS is read from /proc/<MainPID>/status and CPU time from "
                 "/proc/<MainPID>/task/*/schedstat instead.")


def hostnamed_rss():
    """RSS of systemd-hostnamed, a bus-activated systemd helper, as anchor."""
    sh(["busctl", "get-property", "org.freedesktop.hostname1", "/org/freedesktop/hostname1",
        "org.freedesktop.hostname1", "Hostname"], check=False)
    time.sleep(0.5)
    pid = sh(["systemctl", "show", "-p", "MainPID", "--value", "systemd-hostnamed.service"],
             check=False).stdout.strip()
    if not pid.isdigit() or pid == "0":
        return None
    return status_kib(int(pid), "VmRSS")


# ---------------------------------------------------------------- main
def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--held", type=int, help="sessions held open in the held scenario (default 256, smoke 8)")
    ap.add_argument("--srt-dir", default="")
    ap.add_argument("--srt-unavailable", default="")
    ap.add_argument("--json", default="", help="also write the results as JSON to this file")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", choices=["gateway"], help="run only this scenario (the gateway rows)")
    return ap.parse_args()


def prepare(args, notes, failures):
    """Users, the peer and the baselines, checked against a live session."""
    plans = Plans()
    setup_users(plans)
    worker = Worker()
    srt = prepare_srt(args, worker, notes)
    v = Variants(plans, worker, srt)
    calibrate(v, notes, failures)
    systemd_accounting(notes)
    return v


def prepare_without_peer(failures):
    """What the profiling tools need (bench/profile.py, timeline.py,
    held_focus.py): users, the baselines checked against a live session,
    and a running helper; no peer."""
    plans = Plans()
    setup_users(plans)
    v = Variants(plans, Worker(), {"ok": False})
    calibrate(v, [], failures)
    ensure_helper(v)
    return v


def measure_idle_helper(v, window_s):
    """A fresh helper after one launch, left alone for a second: its RSS,
    then what staying costs it over `window_s` more seconds of nothing
    (wake-ups and CPU), which is what a resident helper pays instead of
    an activation per cold launch."""
    stop_helper()
    pid = ensure_helper(v)
    time.sleep(1.0)
    out = {"rss": status_kib(pid, "VmRSS"), "anon": status_kib(pid, "RssAnon"), "file": status_kib(pid, "RssFile")}
    switches, cpu = context_switches(pid), cpu_ns(pid)
    time.sleep(window_s)
    switches_after, cpu_after = context_switches(pid), cpu_ns(pid)
    if helper_pid() != pid or None in (switches, cpu, switches_after, cpu_after):
        out.update(window_s=window_s, wakeups=None, cpu_ns=None)
    else:
        out.update(window_s=window_s, wakeups=switches_after - switches, cpu_ns=cpu_after - cpu)
    return out


GATEWAY_NOTE = (
    "gateway rows: the same client program (bench/gateway_client.py, Python) runs in a fresh session of each "
    "variant per round, order drawn per round; only the time inside the client is measured, not the launch. "
    "Requests and streams alternate between one kept-alive connection (opened and used once before timing) "
    "and a new connection each (its connect counted). "
    "direct: a `network: host` session, TLS straight to the upstream (it connects to 127.0.0.2 and uses the "
    "upstream's name for SNI, certificate check and Host, since only the gateway resolves the name); gateway: a "
    "`network: gateway` session, plain HTTP to the gateway's listener in its own namespace, the gateway does TLS "
    "upstream (it keeps the upstream connection for the same client connection's next request) and puts the real key in. The upstream "
    "(bench/gateway_upstream.py, HTTPS on 127.0.0.2:8443) writes each token as its own chunk, the first at once, "
    "the next ones 1 ms apart, so every token is a separate write the gateway must relay; each token carries "
    "the time it was written, so the client also reads how long each token took to reach it. Gateway memory: "
    "the PSS of its main process sampled every 50 ms while a gateway session runs, against its PSS just before, "
    "with no session registered.")
FLOOD_NOTE = (
    "flood rows: a third variant per round, order drawn with the other two: the gateway variant's client again "
    f"(owner {OWNERS[0]}) while a `network: gateway` session of owner {OWNERS[1]} floods the same gateway with no "
    "token (bench/gateway_client.py --flood, started before the victim's session and stopped after it): requests "
    "for a destination no session may reach written back to back on a kept-alive connection before their answers "
    "are read, a chunked POST to the provider's route whose chunk-size line never ends, and idle connections; "
    "each bounded in volume and in time. Ratios set the victim's medians under flood against the gateway "
    "variant's from the same rounds. Memory: `systemctl show -p MemoryCurrent native-runtime-gateway` every "
    "100 ms, from 0.3 s before the flooder starts to its end (and the same around the gateway variant's session, "
    "so both pay for the readings); peak minus the median before.")


def gateway_phase(v, smoke, rounds, rng, failures):
    params = gateway_rows.params_for(smoke)
    progress(f"gateway rows: {rounds} rounds of direct, gateway and flooded gateway sessions, {params['requests']} "
             f"requests and {params['streams']} streams of {params['tokens']} tokens on each kind of connection per "
             f"session; the flood: {params['flood']}")
    raw = gateway_rows.measure(v.worker, CTL, OWNERS, rounds, params, rng, failures, progress)
    return gateway_results(raw)


def host_info(load_start, mem_total):
    return {"node": platform.node() or "?", "kernel": platform.release(), "cpus": os.cpu_count(),
            "mem_total_kib": mem_total, "load_start": [round(x, 2) for x in load_start],
            "load_end": [round(x, 2) for x in os.getloadavg()]}


def main_only_gateway(args):
    """`--only gateway`: users and the gateway rows, nothing else."""
    rounds = args.rounds or (3 if args.smoke else 15)
    rng = random.Random(args.seed)
    failures = []
    load_start = os.getloadavg()
    progress("setting up users")
    plans = Plans()
    setup_users(plans)
    v = Variants(plans, Worker(), {"ok": False})
    t_start = time.monotonic()
    gateway = gateway_phase(v, args.smoke, rounds, rng, failures)
    results = {
        "schema": 1,
        "mode": "smoke" if args.smoke else "full",
        "only": "gateway",
        "time": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": host_info(load_start, status_kib_meminfo()),
        "elapsed_s": round(time.monotonic() - t_start, 1),
        "gateway": gateway,
        "notes": [GATEWAY_NOTE, FLOOD_NOTE],
        "failures": failures,
    }
    return publish(results, args.json)


def main():
    args = parse_args()
    if os.geteuid() != 0:
        die("must run as root inside the harness")
    if args.only == "gateway":
        return main_only_gateway(args)
    smoke = args.smoke
    rounds = args.rounds or (3 if smoke else 25)
    bursts = 1 if smoke else 3
    cpu_launches = 3 if smoke else 20
    loop_rounds = 2 if smoke else 5
    loop_iterations = 20000 if smoke else 1000000
    held_count = args.held or (8 if smoke else 256)
    held_launch_count = 3 if smoke else 15
    # --rounds bounds the gateway rows too (the VM run under emulation
    # needs every phase bounded), never above their default.
    gateway_rounds = min(args.rounds, 15) if args.rounds else (3 if smoke else 15)
    size = 64
    rng = random.Random(args.seed)
    notes, failures = [], []
    load_start = os.getloadavg()

    progress("setting up users, the peer and the baselines")
    v = prepare(args, notes, failures)
    idle = measure_idle_helper(v, 5 if smoke else 30)
    hostnamed_kib = hostnamed_rss()

    t_start = time.monotonic()
    # First, while PID 1 and the broker have served the fewest sessions.
    progress(f"held sessions: {held_count} held, {held_launch_count} launches per variant and state")
    held = held_phase(v, held_count, held_launch_count, rng, failures)
    progress(f"launch latency: {rounds} rounds of {len(WORKLOADS)} workloads x "
             f"{len(LATENCY_VARIANTS) + (1 if v.srt['ok'] else 0)} variants, interleaved")
    samples, fails = latency_phase(v, rounds, rng, failures, notes)
    progress(f"CPU per launch: {cpu_launches} sequential launches of each variant")
    cpu = cpu_phase(v, cpu_launches, rng, failures)
    progress(f"{bursts} burst(s) of {size} concurrent launches, native-runtime and baseline B")
    lat, ok_count, helper = concurrency_phase(v, bursts, size, rng, failures)
    progress(f"syscall loop: {loop_rounds} rounds of {loop_iterations} calls, outside / A / B / session")
    loops, filters = loop_phase(v, rounds=loop_rounds, iterations=loop_iterations, rng=rng, failures=failures)
    gateway = gateway_phase(v, smoke, gateway_rounds, rng, failures)
    elapsed = time.monotonic() - t_start

    if not v.srt["ok"]:
        notes.insert(0, f"srt: not measured: {v.srt['reason']}")
    idle_all = cpu.get(("idle", "all"))
    notes.append("CPU time of the whole harness is its cgroup's cpuacct.usage (every process of the private "
                 "systemd: CLI, bus, PID 1, helper, launcher, bwrap, the command, and this script's fork/exec), "
                 "over the launch plus 0.1 s before and after; the idle harness burns "
                 f"{fmt(median(idle_all) / 1e6 if idle_all else None, 2)} ms in such a 0.2 s window. "
                 "Other tenants of the machine are not counted.")
    notes.append("syscall loop: CPU time of the looping thread (user + kernel), so time spent waiting for a CPU "
                 "on a busy machine is not counted; seccomp filters attached to the loop: "
                 + ", ".join(f"{k} {filters.get(k, '?')}" for k in ("outside", "A", "B", "session")) + ".")
    notes.append("held sessions: memory per session is the PSS (smaps_rollup) of every process of the unit "
                 "except the agent (`sleep`), plus the growth of PID 1's, dbus-broker's and (product) the "
                 "helper's RSS from before the sessions started to when all ran, divided by their number; the "
                 "client (native-runtimectl run / systemd-run --wait) is the worker's side and listed apart. "
                 "The scenario runs first; held first: " + " then ".join(held["order"]) + " (drawn), since "
                 "PID 1 and the broker reuse memory the first kind made them allocate, the second kind's growth "
                 "is a lower bound; the helper is restarted before the product's sessions.")
    notes.append(GATEWAY_NOTE)
    notes.append(FLOOD_NOTE)
    mem_total = status_kib_meminfo()
    results = {
        "schema": 1,
        "mode": "smoke" if smoke else "full",
        "time": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": host_info(load_start, mem_total),
        "elapsed_s": round(elapsed, 1),
        "srt": {"measured": v.srt["ok"], "reason": v.srt.get("reason")},
        "latency": latency_results(samples, fails, rounds, {wl: w["title"] for wl, w in WORKLOADS.items()}),
        "cpu": cpu_results(cpu, cpu_launches, median(idle_all) if idle_all else None),
        "helper": helper_results(idle, cpu, helper, hostnamed_kib),
        "loop": loop_results(loops, filters, loop_iterations, loop_rounds),
        "held": held_results(held),
        "gateway": gateway,
        "notes": notes,
        "failures": failures,
    }
    results["burst"] = burst_results(lat, ok_count, helper, bursts, size, results["latency"], OWNERS)
    results["targets"] = targets(results)
    return publish(results, args.json)


def status_kib_meminfo():
    return gateway_rows.proc_kib("/proc/meminfo", "MemTotal")


if __name__ == "__main__":
    sys.exit(main())
