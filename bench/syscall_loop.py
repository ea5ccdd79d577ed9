#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
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
import inside as bench  # noqa: E402  (the harness's plans, users, variants and loop phase)

VARIANTS = ("outside", "A", "B", "session")


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 300000
    plans = bench.Plans()
    bench.setup_users(plans)
    v = bench.Variants(plans, bench.Worker(), {"ok": False})
    notes, failures = [], []
    bench.calibrate(v, notes, failures)  # baseline B: the live session unit's properties
    if failures:
        bench.die("; ".join(failures))
    rng = random.Random(16)
    # One short loop first, so that the helper's activation is not in round 1.
    bench.loop_phase(v, 1, 1000, rng, failures)
    per_call, filters = bench.loop_phase(v, rounds, iterations, rng, failures)
    if failures:
        bench.die("; ".join(failures))
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
