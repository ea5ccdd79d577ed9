#!/usr/bin/env python3
"""Runs inside the private systemd of bench/run (as root) and prints the table.

Every latency figure is a median over interleaved rounds (the order of the
variants is shuffled in every round), and every reported figure is set
against a baseline measured in the same run, because the machines this runs
on are noisy. Exit status 0 only when every launch of every variant
succeeded (a peer that cannot run here is reported, not counted).
"""

import argparse
import datetime
import grp
import json
import os
import platform
import pwd
import random
import re
import shutil
import subprocess
import sys
import threading
import time

CONFIG = "/etc/native-runtime/config.yaml"
LOOP = "/usr/libexec/native-runtime/bench/nr-bench-loop"
CTL = "/usr/bin/native-runtimectl"
BWRAP = "/usr/bin/bwrap"
USER = "nrbench"
WORKER_GROUP = "native-runtime"
HELPER_UNIT = "native-runtimed.service"
OWNERS = ("bencha", "benchb")
BASE_OWNER = "benchbase"
PATH = "/usr/local/bin:/usr/bin:/bin"
# The "short sh -c script": builtins, a few forks and a file in /tmp.
SCRIPT = ("i=0; while [ $i -lt 200 ]; do i=$((i+1)); done; "
          "echo data >/tmp/f; cat /tmp/f >/dev/null; ls / >/dev/null; echo ok")
WORKLOADS = {
    "true": {"title": "`/bin/true`", "adapter": "noop", "argv": ["true"],
             "plain": ["/usr/bin/true"], "expect": ""},
    "script": {"title": "short `sh -c` script", "adapter": "shell",
               "argv": ["sh", "-c", SCRIPT], "plain": ["/usr/bin/sh", "-c", SCRIPT],
               "expect": "ok"},
}


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


# ---------------------------------------------------------------- config
def read_config(path):
    """Reads the keys the baselines need from bench/config.yaml.

    Not a YAML parser: it understands the flat shape of that one file
    (two-space nesting, block lists), and fails on anything else it needs.
    """
    conf = {"read_only_paths": [], "allowed_addresses": []}
    section, key = None, None
    for raw in open(path, encoding="utf-8"):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if indent == 0:
            section, key = text.rstrip(":").split(":")[0], None
            if ":" in text and not text.endswith(":"):
                conf[section] = text.split(":", 1)[1].strip()
        elif text.startswith("- ") and key:
            conf.setdefault(key, []).append(text[2:].strip())
        elif text.endswith(":"):
            key = text[:-1] if section == "sandbox" else None
        elif section == "limits" and ":" in text:
            k, v = text.split(":", 1)
            conf[k.strip()] = v.strip()
    for needed in ("data_dir", "tmp_size"):
        if needed not in conf:
            die(f"{path}: no {needed}")
    if not conf["read_only_paths"]:
        die(f"{path}: no sandbox.read_only_paths")
    return conf


def size_bytes(text):
    m = re.fullmatch(r"(\d+)([KMG]?)", text)
    if not m:
        die(f"bad size {text!r}")
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


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


def setup_users(conf):
    sh(["groupadd", "-f", WORKER_GROUP])
    if subprocess.run(["id", USER], capture_output=True, check=False).returncode != 0:
        sh(["useradd", "-m", "-G", WORKER_GROUP, USER])
    sh(["install", "-d", "-o", USER, "-g", USER, "-m", "0750", conf["data_dir"]])
    # The broker resolves the policy's group name when it loads the policy.
    sh(["busctl", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
        "org.freedesktop.DBus", "ReloadConfig"])


# ---------------------------------------------------------------- variants
class Variants:
    """The command lines of every variant, for one workload."""

    def __init__(self, conf, worker, srt):
        self.conf, self.worker, self.srt = conf, worker, srt
        self.root = Worker("root")
        self.counter = 0
        root = f"{conf['data_dir']}/native-runtime/{BASE_OWNER}"
        self.base_home = f"{root}/home"
        self.base_ws = f"{root}/chats/base/workspace"
        for d in (self.base_home, self.base_ws):
            sh(["runuser", "-u", USER, "--", "mkdir", "-p", "-m", "0700", d])
        self.unit_props = None  # filled from a live session unit

    def next_chat(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def ctl(self, owner, chat, workload):
        w = WORKLOADS[workload]
        return [CTL, "run", "--owner", owner, "--chat", chat, "--adapter", w["adapter"], "--"] + w["argv"]

    def bwrap(self, command):
        """The session's bwrap command line (src/core/sandbox_args.cpp), without
        the launcher's seccomp filter and Landlock domain: the mounts, symlinks,
        namespaces and environment of a real session of owner benchbase."""
        args = [BWRAP, "--unshare-all", "--unshare-user", "--share-net",
                "--disable-userns", "--assert-userns-disabled",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        mounts = [(p, False) for p in self.conf["read_only_paths"]]
        mounts += [(self.base_home, True), (self.base_ws, True)]
        for path, writable in sorted(mounts, key=lambda m: m[0]):
            args += ["--bind" if writable else "--ro-bind", path, path]
        for link in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            try:
                target = os.readlink(link)
            except OSError:
                continue
            if target.startswith("usr/") and ".." not in target:
                args += ["--symlink", target, link]
        args += ["--proc", "/proc", "--dev", "/dev",
                 "--size", str(size_bytes(self.conf["tmp_size"])), "--perms", "1777", "--tmpfs", "/tmp",
                 "--size", str(size_bytes(self.conf["tmp_size"])), "--perms", "1777", "--tmpfs", "/dev/shm",
                 "--remount-ro", "/dev", "--remount-ro", "/",
                 "--chdir", self.base_ws, "--clearenv",
                 "--setenv", "PATH", PATH, "--setenv", "HOME", self.base_home,
                 "--setenv", "USER", USER, "--"]
        return args + command

    def systemd_run(self, command, unit=None):
        """Baseline B: the same bwrap as a transient service with the session
        unit's hardening and resource properties (read from a live session)."""
        argv = ["systemd-run", "--wait", "--pipe", "--quiet", "--collect",
                f"--uid={USER}", f"--gid={USER}", f"--slice=native-runtime-{BASE_OWNER}.slice"]
        if unit:
            argv.append(f"--unit={unit}")
        for assignment in self.unit_props:
            argv += ["-p", assignment]
        return argv + ["--"] + self.bwrap(command)

    def srt_argv(self, workload):
        if workload == "true":
            return [self.srt["bin"], "/usr/bin/true"]
        return [self.srt["bin"], "-c", SCRIPT]


# Properties compared between a live session unit and a baseline B unit. The
# value systemd shows is turned into a systemd-run assignment.
B_PROPERTIES = [
    "Type", "NoNewPrivileges", "ProtectProc", "ProcSubset", "CapabilityBoundingSet",
    "AmbientCapabilities", "RestrictSUIDSGID", "LockPersonality", "RestrictRealtime",
    "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups", "ProtectClock",
    "ProtectKernelTunables", "ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateDevices",
    "PrivateNetwork", "SystemCallArchitectures", "KillMode", "MemoryMax", "TasksMax",
    "CPUQuotaPerSecUSec", "RuntimeMaxUSec", "IPAddressDeny", "IPAddressAllow",
    "WorkingDirectory", "RestrictNamespaces", "MemoryDenyWriteExecute", "SystemCallFilter",
    "RestrictAddressFamilies", "UMask",
]
SKIP_IF_DEFAULT = {
    "ProtectKernelTunables": "no", "ProtectSystem": "no", "ProtectHome": "no", "PrivateTmp": "no",
    "PrivateDevices": "no", "PrivateNetwork": "no", "RestrictNamespaces": "no",
    "MemoryDenyWriteExecute": "no", "SystemCallFilter": "", "RestrictAddressFamilies": "",
    "UMask": "0022",
}


def show_props(unit, names):
    out = sh(["systemctl", "show", unit] + [f"-p{n}" for n in names], check=False).stdout
    props = {}
    for line in out.splitlines():
        k, _, v = line.partition("=")
        props[k] = v
    return props


def span_seconds(text):
    """systemd time span as shown (e.g. "5min", "1s", "1min 30s") -> seconds."""
    units = {"us": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600, "d": 86400}
    total = 0.0
    for num, unit in re.findall(r"([\d.]+)\s*(us|ms|min|s|h|d)", text):
        total += float(num) * units[unit]
    return total


def assignments_from(props):
    out = []
    for name in B_PROPERTIES:
        value = props.get(name)
        if value is None or SKIP_IF_DEFAULT.get(name) == value:
            continue
        if name == "CPUQuotaPerSecUSec":
            if value != "infinity":
                out.append(f"CPUQuota={round(span_seconds(value) * 100)}%")
        elif name == "RuntimeMaxUSec":
            if value != "infinity":
                out.append(f"RuntimeMaxSec={span_seconds(value):g}")
        elif name in ("CapabilityBoundingSet", "AmbientCapabilities") and value == "":
            out.append(f"{name}=")
        elif name == "WorkingDirectory":
            out.append(f"WorkingDirectory={value.lstrip('!')}")
        else:
            out.append(f"{name}={value}")
    return out


def wait_unit_active(unit, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sh(["systemctl", "is-active", "--quiet", unit], check=False).returncode == 0:
            return True
        time.sleep(0.02)
    return False


def session_unit(owner, chat):
    return f"native-runtime-{owner}-{chat}.service"


def calibrate(v, notes, failures):
    """Reads the live session unit's properties and mount table, gives
    baseline B the same properties and checks both baselines against it."""
    w = v.worker
    chat = "calibrate"
    probe = "cat /proc/self/mountinfo; sleep 3"
    argv = [CTL, "run", "--owner", OWNERS[0], "--chat", chat, "--adapter", "shell", "--",
            "sh", "-c", probe]
    proc = subprocess.Popen(argv, user=w.uid, group=w.gid, extra_groups=w.groups, env=w.env, cwd="/",
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    unit = session_unit(OWNERS[0], chat)
    if not wait_unit_active(unit):
        proc.kill()
        die(f"calibration session {unit} never became active: {proc.communicate()[1]}")
    live = show_props(unit, B_PROPERTIES)
    out, err = proc.communicate(timeout=60)
    if proc.returncode != 0:
        die(f"calibration session failed ({proc.returncode}): {err}")
    v.unit_props = assignments_from(live)

    # Baseline B unit, same check.
    bunit = "nr-bench-calibrate-b"
    bproc = subprocess.Popen(v.systemd_run(["sh", "-c", probe], unit=bunit), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/")
    if not wait_unit_active(bunit + ".service"):
        bproc.kill()
        die(f"baseline B unit never became active: {bproc.communicate()[1]}")
    blive = show_props(bunit + ".service", B_PROPERTIES)
    bout, berr = bproc.communicate(timeout=60)
    if bproc.returncode != 0:
        die(f"baseline B failed ({bproc.returncode}): {berr}")
    # List values (address sets) come in hash order: compare them as sets.
    diff = [f"{n}: session={live.get(n)!r} B={blive.get(n)!r}" for n in B_PROPERTIES
            if sorted((live.get(n) or "").split()) != sorted((blive.get(n) or "").split())]
    if diff:
        failures.append("baseline B unit properties differ from the session's: " + "; ".join(diff))
    else:
        notes.append(f"baseline B: {len(v.unit_props)} unit properties copied from a live session unit "
                     f"and verified equal with `systemctl show` ({', '.join(p.split('=')[0] for p in v.unit_props)}).")

    # Mount tables: the session's vs baseline A's, paths of the owner/chat
    # normalised, the root and the harness-specific sources ignored.
    def mount_points(text, owner, ws_chat):
        points = []
        for line in text.splitlines():
            fields = line.split()
            if len(fields) < 5:
                continue
            point = fields[4].replace(f"/{owner}/", "/OWNER/").replace(f"/chats/{ws_chat}/", "/chats/CHAT/")
            points.append(point)
        return sorted(points)

    _, rc, aout, aerr = w.run(v.bwrap(["sh", "-c", "cat /proc/self/mountinfo"]))
    if rc != 0:
        die(f"baseline A (bare bwrap) failed ({rc}): {aerr}")
    session_points = mount_points(out, OWNERS[0], chat)
    a_points = mount_points(aout, BASE_OWNER, "base")
    b_points = mount_points(bout, BASE_OWNER, "base")
    for name, points in (("A", a_points), ("B", b_points)):
        if points != session_points:
            failures.append(f"baseline {name} mount table differs from the session's: "
                            f"session {session_points} vs {name} {points}")
    if a_points == session_points and b_points == session_points:
        notes.append(f"baselines A and B: the same {len(session_points)} mount points as a session "
                     "(compared from /proc/self/mountinfo inside each).")


# ---------------------------------------------------------------- helper
def helper_pid():
    pid = sh(["systemctl", "show", "-p", "MainPID", "--value", HELPER_UNIT], check=False).stdout.strip()
    return int(pid) if pid.isdigit() and pid != "0" else None


def stop_helper():
    sh(["systemctl", "stop", HELPER_UNIT], check=False)


def ensure_helper(v):
    if helper_pid() is None:
        _, rc, _, err = v.worker.run(v.ctl(OWNERS[0], v.next_chat("up"), "true"))
        if rc != 0:
            die(f"warm-up launch failed ({rc}): {err}")
    pid = helper_pid()
    if pid is None:
        die("the helper is not running after a launch")
    return pid


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


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


# ---------------------------------------------------------------- stats
def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def pct(xs, p):
    """Nearest-rank percentile."""
    s = sorted(xs)
    if not s:
        return float("nan")
    k = max(1, -(-len(s) * p // 100))
    return s[int(k) - 1]


def fmt(x, digits=1):
    return "n/a" if x is None or x != x else f"{x:.{digits}f}"


# ---------------------------------------------------------------- phases
def latency_phase(v, rounds, rng, failures):
    """Interleaved rounds: in every round each variant runs each workload once,
    in shuffled order. Returns {workload: {variant: [seconds...]}}."""
    w = v.worker
    variants = ["A", "B", "warm", "cold"] + (["srt"] if v.srt["ok"] else [])
    samples = {wl: {var: [] for var in variants} for wl in WORKLOADS}
    fails = {wl: {var: 0 for var in variants} for wl in WORKLOADS}
    srt_cwd = v.srt.get("cwd", "/")
    for r in range(rounds):
        order = [(wl, var) for wl in WORKLOADS for var in variants]
        rng.shuffle(order)
        for wl, var in order:
            expect = WORKLOADS[wl]["expect"]
            if var == "A":
                t, rc, out, err = w.run(v.bwrap(WORKLOADS[wl]["plain"]))
            elif var == "B":
                # systemd-run --uid needs root (as would run0): run as root.
                t, rc, out, err = v.root.run(v.systemd_run(WORKLOADS[wl]["plain"]))
            elif var == "warm":
                ensure_helper(v)
                t, rc, out, err = w.run(v.ctl(OWNERS[0], v.next_chat("w"), wl))
            elif var == "cold":
                stop_helper()
                t, rc, out, err = w.run(v.ctl(OWNERS[0], v.next_chat("c"), wl))
            else:
                t, rc, out, err = w.run(v.srt_argv(wl), cwd=srt_cwd, env=v.srt["env"])
            if rc != 0 or out.strip() != expect:
                fails[wl][var] += 1
                failures.append(f"{wl}/{var} round {r + 1}: exit {rc}, stdout {out.strip()[:80]!r}, "
                                f"stderr {err.strip()[-300:]!r}")
            else:
                samples[wl][var].append(t)
    return samples, fails


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
            argv = v.ctl(owner, chat, "true")
            kw = w.kwargs()
        else:
            argv = v.systemd_run(["/usr/bin/true"], unit=f"nr-bench-{tag}-{i}")
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
    w = v.worker
    per = {(k, m): [] for k in ("A", "B", "nr") for m in ("helper", "pid1", "all")}
    pid = ensure_helper(v)
    kinds = ["nr", "B", "A"] * launches
    rng.shuffle(kinds)
    settle = 0.1
    for kind in kinds:
        time.sleep(settle)
        h0, p0, a0 = cpu_ns(pid), cpu_ns(1), harness_cpu_ns()
        if kind == "nr":
            _, rc, _, err = w.run(v.ctl(OWNERS[1], v.next_chat("u"), "true"))
        elif kind == "A":
            _, rc, _, err = w.run(v.bwrap(["/usr/bin/true"]))
        else:
            _, rc, _, err = v.root.run(v.systemd_run(["/usr/bin/true"]))
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


def loop_phase(v, rounds, iterations, rng, failures):
    w = v.worker
    variants = ["outside", "A", "B", "session"]
    res = {var: {} for var in variants}
    filters = {}
    for r in range(rounds):
        order = list(variants)
        rng.shuffle(order)
        for var in order:
            if var == "outside":
                _, rc, out, err = w.run([LOOP, str(iterations)])
            elif var == "A":
                _, rc, out, err = w.run(v.bwrap([LOOP, str(iterations)]))
            elif var == "B":
                _, rc, out, err = v.root.run(v.systemd_run([LOOP, str(iterations)]))
            else:
                _, rc, out, err = w.run([CTL, "run", "--owner", OWNERS[1], "--chat", v.next_chat("l"),
                                         "--adapter", "loop", "--", "nr-bench-loop", str(iterations)])
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


def row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def table(header, rows):
    lines = [row(header), row(["---"] * len(header))]
    lines += [row(r) for r in rows]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--srt-dir", default="")
    ap.add_argument("--srt-unavailable", default="")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    if os.geteuid() != 0:
        die("must run as root inside the harness")
    smoke = args.smoke
    rounds = args.rounds or (3 if smoke else 25)
    bursts = 1 if smoke else 3
    cpu_launches = 3 if smoke else 20
    loop_rounds = 2 if smoke else 5
    loop_iterations = 20000 if smoke else 1000000
    size = 64
    rng = random.Random(args.seed)
    notes, failures = [], []

    progress("setting up users, the peer and the baselines")
    conf = read_config(CONFIG)
    setup_users(conf)
    worker = Worker()
    srt = prepare_srt(args, worker, notes)
    v = Variants(conf, worker, srt)
    calibrate(v, notes, failures)
    systemd_accounting(notes)

    # Idle RSS: a fresh helper after one launch, left alone for a second.
    stop_helper()
    pid = ensure_helper(v)
    time.sleep(1.0)
    idle_kib = status_kib(pid, "VmRSS")
    idle_anon = status_kib(pid, "RssAnon")
    idle_file = status_kib(pid, "RssFile")
    hostnamed_kib = hostnamed_rss()

    t_start = time.monotonic()
    progress(f"launch latency: {rounds} rounds of {len(WORKLOADS)} workloads x "
             f"{5 if srt['ok'] else 4} variants, interleaved")
    samples, fails = latency_phase(v, rounds, rng, failures)
    progress(f"CPU per launch: {cpu_launches} sequential launches of each variant")
    cpu = cpu_phase(v, cpu_launches, rng, failures)
    progress(f"{bursts} burst(s) of {size} concurrent launches, native-runtime and baseline B")
    lat, ok_count, helper = concurrency_phase(v, bursts, size, rng, failures)
    progress(f"syscall loop: {loop_rounds} rounds of {loop_iterations} calls, outside / A / B / session")
    loops, filters = loop_phase(v, rounds=loop_rounds, iterations=loop_iterations, rng=rng, failures=failures)
    elapsed = time.monotonic() - t_start

    # ------------------------------------------------------------ print
    names = {"A": "A: bare bwrap (same mounts, no seccomp)", "B": "B: systemd-run --wait --pipe + same bwrap",
             "warm": "native-runtimectl run, warm helper", "cold": "native-runtimectl run, cold (bus activation)",
             "srt": "peer: srt (sandbox-runtime)"}
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# native-runtime bench ({'smoke' if smoke else 'full'} mode), {now}")
    print()
    print(f"host: {platform.node() or '?'}, Linux {platform.release()}, {os.cpu_count()} CPUs, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end; "
          f"{rounds} interleaved rounds, medians; measured phases took {elapsed:.0f} s")
    print()
    medians = {}
    for wl, spec in WORKLOADS.items():
        print(f"## Launch latency: {spec['title']} (ms, {rounds} rounds)")
        print()
        mb = median(samples[wl]["B"]) if samples[wl]["B"] else None
        ma = median(samples[wl]["A"]) if samples[wl]["A"] else None
        rows = []
        for var in ("A", "B", "warm", "cold", "srt"):
            if var not in samples[wl]:
                rows.append([names[var], "n/a", "n/a", "n/a", "n/a", "n/a"])
                continue
            xs = samples[wl][var]
            m = median(xs) if xs else None
            medians[(wl, var)] = m
            rows.append([names[var], fmt(m * 1e3 if m else None), fmt(pct(xs, 95) * 1e3 if xs else None),
                         f"{len(xs)}/{len(xs) + fails[wl][var]}",
                         fmt(m / mb if m and mb else None, 2), fmt(m / ma if m and ma else None, 2)])
        print(table(["variant", "median ms", "p95 ms", "ok", "ratio to B", "ratio to A"], rows))
        print()

    single = medians.get(("true", "warm"))
    print(f"## {size} sessions started at once (`/bin/true`, owners {OWNERS[0]}/{OWNERS[1]}, distinct chats; "
          f"{bursts} burst{'s' if bursts > 1 else ''} each, interleaved)")
    print()
    rows = []
    ncpu = os.cpu_count() or 1
    for kind, label, base in (("nr", "native-runtimectl run", single),
                              ("B", "B: systemd-run + bwrap", medians.get(("true", "B")))):
        xs = lat[kind]
        c = median(helper["cpu_all"][kind]) if helper["cpu_all"][kind] else None
        rows.append([label, f"{ok_count[kind]}/{bursts * size}", fmt(pct(xs, 50) * 1e3 if xs else None),
                     fmt(pct(xs, 95) * 1e3 if xs else None), fmt(max(xs) * 1e3 if xs else None),
                     fmt(pct(xs, 95) / base if xs and base else None, 2),
                     fmt(c / 1e6 if c else None), fmt(c * size / ncpu / 1e6 if c else None, 0)])
    print(table(["variant", "ok", "p50 ms", "p95 ms", "max ms", "p95 / own single-launch median",
                 "CPU per launch ms (whole harness)", f"CPU floor ms ({size} x CPU / {ncpu} CPUs)"], rows))
    print()

    mib = lambda kib: kib / 1024 if kib else None  # noqa: E731
    def cm(kind, what):
        xs = cpu.get((kind, what))
        return median(xs) if xs else None

    h_cpu, p1_nr, p1_b = cm("nr", "helper"), cm("nr", "pid1"), cm("B", "pid1")
    burst_cpu = median(helper["cpu_ns"]) if helper["cpu_ns"] else None
    peak_kib = max(helper["peak_kib"], helper["hwm_kib"]) or None
    print("## Helper (native-runtimed)")
    print()
    rows = [
        ["RSS idle, MiB", fmt(mib(idle_kib), 2), "systemd-hostnamed RSS idle", fmt(mib(hostnamed_kib), 2),
         fmt(idle_kib / hostnamed_kib if idle_kib and hostnamed_kib else None, 2)],
        ["RSS idle: anon / file-backed, MiB", f"{fmt(mib(idle_anon), 2)} / {fmt(mib(idle_file), 2)}",
         "", "", ""],
        [f"RSS peak under {size} sessions, MiB", fmt(mib(peak_kib), 2), "systemd-hostnamed RSS idle",
         fmt(mib(hostnamed_kib), 2), fmt(peak_kib / hostnamed_kib if peak_kib and hostnamed_kib else None, 2)],
        ["CPU per launch, sequential, ms", fmt(h_cpu / 1e6 if h_cpu else None, 2),
         "PID 1 CPU per systemd-run launch", fmt(p1_b / 1e6 if p1_b else None, 2),
         fmt(h_cpu / p1_b if h_cpu and p1_b else None, 2)],
        [f"CPU per launch, {size} at once, ms", fmt(burst_cpu / 1e6 if burst_cpu else None, 2),
         "PID 1 CPU per systemd-run launch", fmt(p1_b / 1e6 if p1_b else None, 2),
         fmt(burst_cpu / p1_b if burst_cpu and p1_b else None, 2)],
        ["PID 1 CPU per native-runtimectl launch, ms", fmt(p1_nr / 1e6 if p1_nr else None, 2),
         "PID 1 CPU per systemd-run launch", fmt(p1_b / 1e6 if p1_b else None, 2),
         fmt(p1_nr / p1_b if p1_nr and p1_b else None, 2)],
    ]
    print(table(["measure", "value", "baseline", "baseline value", "ratio"], rows))
    print()

    idle_all = cm("idle", "all")
    print(f"## CPU time per launch of `/bin/true` ({cpu_launches} sequential launches each, interleaved, "
          "medians, ms)")
    print()
    all_b = cm("B", "all")
    rows = []
    for kind, label in (("A", names["A"]), ("B", names["B"]), ("nr", names["warm"])):
        a = cm(kind, "all")
        rows.append([label, fmt(a / 1e6 if a else None, 2), fmt(cm(kind, "pid1") / 1e6 if cm(kind, "pid1") else None, 2),
                     fmt(cm(kind, "helper") / 1e6 if kind == "nr" and cm(kind, "helper") else 0.0, 2),
                     fmt(a / all_b if a and all_b else None, 2)])
    print(table(["variant", "whole harness", "of which PID 1", "of which helper", "ratio to B"], rows))
    print()
    notes.append("CPU time of the whole harness is its cgroup's cpuacct.usage (every process of the private "
                 "systemd: CLI, bus, PID 1, helper, launcher, bwrap, the command, and this script's fork/exec), "
                 f"over the launch plus 0.1 s before and after; the idle harness burns {fmt(idle_all / 1e6 if idle_all else None, 2)} ms "
                 "in such a 0.2 s window. Other tenants of the machine are not counted.")

    print(f"## Syscall loop ({loop_iterations} calls of each, {loop_rounds} rounds, ns per call)")
    print()
    rows = []
    overheads = {}
    for call in sorted(loops["outside"]):
        out_m = median(loops["outside"][call])
        a_m = median(loops["A"].get(call, [])) if loops["A"].get(call) else None
        b_m = median(loops["B"].get(call, [])) if loops["B"].get(call) else None
        s_m = median(loops["session"].get(call, [])) if loops["session"].get(call) else None
        overheads[call] = (s_m / out_m - 1) * 100 if s_m and out_m else None
        rows.append([call, fmt(out_m), fmt(a_m), fmt(b_m), fmt(s_m),
                     fmt(s_m / out_m if s_m and out_m else None, 3), fmt(overheads[call])])
    print(table(["call", "outside", "A: bare bwrap", "B: systemd-run + bwrap", "session",
                 "ratio session/outside", "overhead %"], rows))
    print()
    notes.append("syscall loop: CPU time of the looping thread (user + kernel), so time spent waiting for a CPU "
                 "on a busy machine is not counted; seccomp filters attached to the loop: "
                 + ", ".join(f"{k} {filters.get(k, '?')}" for k in ("outside", "A", "B", "session")) + ".")

    warm = medians.get(("true", "warm"))
    b = medians.get(("true", "B"))
    srt_m = medians.get(("true", "srt"))
    ws = medians.get(("script", "warm"))
    bs = medians.get(("script", "B"))
    p95 = pct(lat["nr"], 95) if lat["nr"] else None

    def verdict(ok):
        return "n/a" if ok is None else ("met" if ok else "MISSED")

    print("## Targets")
    print()
    rows = [
        ["warm launch median <= baseline B (`/bin/true`)", f"ratio {fmt(warm / b if warm and b else None, 2)}",
         verdict(warm <= b if warm and b else None)],
        ["warm launch median <= baseline B (`sh -c`)", f"ratio {fmt(ws / bs if ws and bs else None, 2)}",
         verdict(ws <= bs if ws and bs else None)],
        [">= 10x faster than the peer srt (`/bin/true`)",
         f"srt/warm {fmt(srt_m / warm if srt_m and warm else None, 1)}" if srt["ok"] else "srt not measured",
         verdict(srt_m / warm >= 10 if srt_m and warm else None)],
        [f"all {size} concurrent sessions succeed", f"{ok_count['nr']}/{bursts * size}",
         verdict(ok_count["nr"] == bursts * size)],
        ["concurrent p95 < 3x single-launch median", f"ratio {fmt(p95 / single if p95 and single else None, 2)}",
         verdict(p95 < 3 * single if p95 and single else None)],
        ["helper RSS < 10 MiB (idle / peak)", f"{fmt(mib(idle_kib), 2)} / {fmt(mib(peak_kib), 2)} MiB",
         verdict(max(idle_kib or 0, peak_kib or 0) < 10 * 1024 if idle_kib and peak_kib else None)],
    ]
    for call, o in sorted(overheads.items()):
        rows.append([f"syscall-loop overhead < 10% ({call})", f"{fmt(o)} %", verdict(o < 10 if o is not None else None)])
    print(table(["target", "measured", "result"], rows))
    print()
    print("## Notes")
    print()
    if not srt["ok"]:
        notes.insert(0, f"srt: not measured: {srt['reason']}")
    for n in notes:
        print(f"- {n}")
    if failures:
        print()
        print(f"## Failures ({len(failures)})")
        print()
        for f in failures[:50]:
            print(f"- {f}")
    sys.stdout.flush()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
