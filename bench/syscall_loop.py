#!/usr/bin/env python3
"""bench/syscall_loop.py: the in-session per-call cost of getpid, stat and
open+close against baseline A (the session's bwrap, same mounts, no seccomp
filter, no Landlock), baseline B (that bwrap in a transient unit with the
session unit's properties) and outside any sandbox, interleaved in one run. Only
this part of bench/inside.py's table, with more rounds, for the seccomp
filter stack (docs/security-model.md, "One cacheable filter stack").

Run inside the harness, with the packages installed, e.g.

  scripts/with-systemd $(scripts/current-debs | sed 's/^/--deb=/') \\
    --config bench/config.yaml -- python3 bench/syscall_loop.py 9 300000

Prints a Markdown table: the median CPU ns per call of each variant (the
looping thread's own CPU time, user + kernel), the session's overhead over
A, and the number of seccomp filters each variant ran under.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inside as bench  # noqa: E402  (the harness's users, variants and helpers)

VARIANTS = ("outside", "A", "B", "session")


def run_variant(v, var, iterations):
    w = v.worker
    if var == "outside":
        return w.run([bench.LOOP, str(iterations)])
    if var == "A":
        return w.run(v.bwrap([bench.LOOP, str(iterations)]))
    if var == "B":
        return v.root.run(v.systemd_run([bench.LOOP, str(iterations)]))
    return w.run([bench.CTL, "run", "--owner", bench.OWNERS[1], "--chat", v.next_chat("sl"),
                  "--adapter", "loop", "--", "nr-bench-loop", str(iterations)])


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 300000
    conf = bench.read_config(bench.CONFIG)
    bench.setup_users(conf)
    v = bench.Variants(conf, bench.Worker(), {"ok": False})
    notes, failures = [], []
    bench.calibrate(v, notes, failures)  # baseline B: the live session unit's properties
    if failures:
        bench.die("; ".join(failures))
    rng = random.Random(16)
    per_call = {var: {} for var in VARIANTS}
    filters = {}
    # One session first, so that the helper's activation is not in round 1.
    run_variant(v, "session", 1000)
    for r in range(rounds):
        order = list(VARIANTS)
        rng.shuffle(order)
        for var in order:
            _, rc, out, err = run_variant(v, var, iterations)
            if rc != 0:
                bench.die(f"{var} round {r + 1}: exit {rc}: {err.strip()[-300:]}")
            for line in out.splitlines():
                key, _, val = line.partition("=")
                if key == "seccomp_filters":
                    filters[var] = val
                elif key.endswith("_cpu_ns"):
                    per_call[var].setdefault(key[:-len("_cpu_ns")], []).append(float(val))
    print(f"syscall loop: {rounds} rounds of {iterations} calls each, interleaved; "
          f"load average at the end: {os.getloadavg()[0]:.1f}")
    print()
    print("| call | outside ns | A: bwrap, no filter ns | B: systemd-run + bwrap ns | session ns | session / A "
          "| overhead over A % | session / B |")
    print("|---|---|---|---|---|---|---|---|")
    for call in sorted(per_call["A"]):
        o, a, b, s = (bench.median(per_call[var][call]) for var in VARIANTS)
        print(f"| {call} | {o:.1f} | {a:.1f} | {b:.1f} | {s:.1f} | {s / a:.3f} | {100 * (s / a - 1):+.1f} "
              f"| {s / b:.3f} |")
    print()
    print("seccomp filters: " + ", ".join(f"{var} {filters.get(var, '?')}" for var in VARIANTS))


if __name__ == "__main__":
    main()
