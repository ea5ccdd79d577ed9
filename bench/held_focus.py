#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A focused measurement of what grows with the number of running sessions.

Runs inside the private systemd like bench/inside.py (same users, config and
baselines), much shorter than the full bench:

  scripts/with-systemd --deb=... --config bench/config.yaml -- \
      python3 bench/held_focus.py --held 256 [--perf DIR]

States, in this order: idle, N product sessions held, idle, N B units held,
idle. In each state, `--launches` launches of /bin/true by the product
(warm) and by baseline B, interleaved in random order; per launch the wall
time, the CPU time of the helper, PID 1 and dbus-broker (schedstat) and of
the whole harness (its cgroup) over the launch and 50 ms after it.
Then `--bursts` bursts of 64 of each kind, interleaved: p50/p95 and the
harness's CPU per launch. With --perf DIR, `perf record -a -g` around a few
extra product launches in each state and around one product burst, and the
CPU milliseconds per launch by process (comm) from those samples.

Prints one JSON document on stdout. Only ratios within one run count.
"""

import argparse
import collections
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

PERF_HZ = 499


def quantile(values, q):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def per_comm_ms(data, launches):
    """CPU ms per launch by process name, from samples of the harness (pid != 0)."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid"], capture_output=True, text=True,
                         check=False).stdout
    counts = collections.Counter()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2 or not fields[-1].isdigit() or fields[-1] == "0":
            continue
        counts[" ".join(fields[:-1])] += 1
    return {comm: round(n * 1000.0 / PERF_HZ / launches, 2) for comm, n in counts.most_common(14)}


def recorded(perf_dir, name, launches, action):
    if not perf_dir:
        action()
        return None
    data = os.path.join(perf_dir, f"{name}.data")
    perf = subprocess.Popen(["perf", "record", "-a", "-g", "-F", str(PERF_HZ), "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    action()
    perf.send_signal(signal.SIGINT)
    perf.wait()
    return per_comm_ms(data, launches)


def launches(v, count, rng, failures, state, processes):
    """`count` launches each of the product (warm) and B, interleaved."""
    out = {var: {"s": [], "harness": [], **{p: [] for p in processes}} for var in ("warm", "B")}
    kinds = ["warm", "B"] * count
    rng.shuffle(kinds)
    for var in kinds:
        pids = {p: pid for p, pid in processes.items() if pid}
        before = {p: inside.cpu_ns(pid) for p, pid in pids.items()}
        harness_before = inside.harness_cpu_ns()
        argv, runner = v.workload(var, "true", inside.OWNERS[1], v.next_chat("hf"))
        t, rc, _, err = runner.run(argv)
        time.sleep(0.05)
        if rc != 0:
            failures.append(f"{state} {var}: exit {rc}: {err.strip()[-300:]!r}")
            continue
        out[var]["s"].append(t)
        harness_after = inside.harness_cpu_ns()
        if harness_before is not None and harness_after is not None:
            out[var]["harness"].append((harness_after - harness_before) / 1e6)
        for p, pid in pids.items():
            after = inside.cpu_ns(pid)
            if before[p] is not None and after is not None:
                out[var][p].append((after - before[p]) / 1e6)
    return out


def summary(samples):
    return {var: {k: round(statistics.median(vals) * (1000 if k == "s" else 1), 2) if vals else None
                  for k, vals in per.items()} for var, per in samples.items()}


def ratios(states):
    """Median launch time with sessions held over the mean of the idle states
    around it, for the product (nr held, warm) and B (B held, B)."""
    def idle(var, a, b):
        values = [states[a][var]["s"], states[b][var]["s"]]
        return sum(values) / 2 if None not in values else None
    out = {}
    for kind, var, around in (("nr", "warm", ("idle 1", "idle 2")), ("B", "B", ("idle 2", "idle 3"))):
        base = idle(var, *around)
        held = states[f"{kind} held"][var]["s"]
        out[f"{var} with {kind} held / idle"] = round(held / base, 2) if base and held else None
        cpu_base = [states[a][var]["harness"] for a in around]
        cpu_held = states[f"{kind} held"][var]["harness"]
        if None not in cpu_base and cpu_held is not None:
            out[f"{var} harness CPU with {kind} held / idle"] = round(cpu_held / (sum(cpu_base) / 2), 2)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--held", type=int, default=256)
    ap.add_argument("--launches", type=int, default=15)
    ap.add_argument("--bursts", type=int, default=2)
    ap.add_argument("--perf", default="")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    if args.perf:
        os.makedirs(args.perf, exist_ok=True)
    rng = random.Random(args.seed)
    failures = []
    v = inside.prepare_without_peer(failures)
    result = {"held": args.held, "launches": args.launches, "load_start": os.getloadavg(), "states": {},
              "perf": {}}

    def processes():
        return {"helper": inside.helper_pid(), "pid1": 1, "broker": inside.broker_pid()}

    def product_seq(count, tag):
        def run():
            for _ in range(count):
                _, rc, _, err = v.worker.run(v.ctl(inside.OWNERS[0], v.next_chat(tag), "noop", ["true"]))
                if rc != 0:
                    failures.append(f"{tag}: {err.strip()[-300:]!r}")
        return run

    def burn(seconds=3.0):
        """CPU ms per second of the harness and of the helper, PID 1 and the
        broker while nothing is launched (what the held clients cost)."""
        procs = {p: pid for p, pid in processes().items() if pid}
        b0 = {p: inside.cpu_ns(pid) for p, pid in procs.items()}
        a0 = inside.harness_cpu_ns()
        time.sleep(seconds)
        a1 = inside.harness_cpu_ns()
        out = {p: round((inside.cpu_ns(pid) - b0[p]) / 1e6 / seconds, 2)
               for p, pid in procs.items() if b0[p] is not None and inside.cpu_ns(pid) is not None}
        if a0 is not None and a1 is not None:
            out["harness"] = round((a1 - a0) / 1e6 / seconds, 2)
        return out

    def state(name):
        inside.ensure_helper(v)
        result.setdefault("idle_burn_ms_per_s", {})[name] = burn()
        inside.progress(f"held_focus: {name}: {args.launches} launches of each")
        result["states"][name] = summary(launches(v, args.launches, rng, failures, name, processes()))
        perf = recorded(args.perf, f"seq-{name}", 10, product_seq(10, "pf"))
        if perf:
            result["perf"][f"sequential, {name}"] = perf

    # An idle state before and after each held one: the machine's other
    # tenants change the speed of everything within minutes, so each held
    # state is set against the idle states next to it.
    state("idle 1")
    for n, kind in enumerate(("nr", "B"), start=2):
        held = inside.Held(v, kind, args.held)
        inside.progress(f"held_focus: holding {args.held} {kind}")
        ok = held.start(failures)
        if ok != args.held:
            failures.append(f"only {ok} of {args.held} {kind} held")
        time.sleep(1.0)
        state(f"{kind} held")
        inside.progress(f"held_focus: stopping {kind}")
        held.stop(failures)
        state(f"idle {n}")
    result["ratios"] = ratios(result["states"])

    lat = {"nr": [], "B": []}
    cpu = {"nr": [], "B": []}
    for n in range(args.bursts):
        pair = ["nr", "B"]
        rng.shuffle(pair)
        for kind in pair:
            inside.ensure_helper(v)
            inside.progress(f"held_focus: burst {n} {kind}")
            a0 = inside.harness_cpu_ns()
            ok, bad = inside.burst(v, kind, f"f{kind}{n}", 64)
            time.sleep(0.5)
            a1 = inside.harness_cpu_ns()
            lat[kind] += ok
            failures.extend(bad)
            if a0 is not None and a1 is not None:
                cpu[kind].append((a1 - a0) / 64 / 1e6)
    result["burst"] = {kind: {"p50_ms": round(quantile(lat[kind], 0.5) * 1000, 1) if lat[kind] else None,
                              "p95_ms": round(quantile(lat[kind], 0.95) * 1000, 1) if lat[kind] else None,
                              "cpu_per_launch_ms": [round(c, 1) for c in cpu[kind]]} for kind in lat}
    if args.perf:
        inside.ensure_helper(v)
        result["perf"]["burst 64, nr"] = recorded(
            args.perf, "burst-nr", 64, lambda: failures.extend(inside.burst(v, "nr", "fpb", 64)[1]))
        result["perf"]["burst 64, B"] = recorded(
            args.perf, "burst-B", 64, lambda: failures.extend(inside.burst(v, "B", "fpbb", 64)[1]))
    result["load_end"] = os.getloadavg()
    result["failures"] = failures
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
