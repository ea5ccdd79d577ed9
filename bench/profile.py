#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/run --profile DIR: where the time of a launch goes.

Runs inside the private systemd like bench/inside.py (same users, config and
baselines) and records `perf record -a -g` around a few scenarios: sequential
warm launches, cold launches (each after stopping the helper), baseline A and
B launches, one burst of 64 sessions of each kind, and the syscall loop inside
a session and outside. For each it writes the raw perf data and two reports
into DIR, restricted to the harness's processes: CPU samples by process
(comm) and the top symbols per process.
"""

import argparse
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inside  # noqa: E402


def harness_pids(data):
    """PIDs of the samples taken in the harness. perf runs in the harness's PID
    namespace, so samples of the machine's other tenants have PID 0."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "pid"], capture_output=True, text=True,
                         check=False).stdout
    return sorted({int(x) for x in out.split() if x.isdigit() and x != "0"})


def reports(out_dir, name, data, header):
    pids = ",".join(str(p) for p in harness_pids(data))
    common = ["perf", "report", "-i", data, "--no-children", "--stdio", "-g", "none", "--pid", pids,
              "--percentage", "relative"]
    with open(os.path.join(out_dir, f"{name}.comm.txt"), "w", encoding="utf-8") as f:
        f.write(header)
        f.flush()
        subprocess.run(common + ["--sort", "comm"], stdout=f, stderr=subprocess.DEVNULL, check=False)
    with open(os.path.join(out_dir, f"{name}.sym.txt"), "w", encoding="utf-8") as f:
        f.write(header)
        f.flush()
        subprocess.run(common + ["--sort", "comm,dso,sym", "--percent-limit", "0.5"], stdout=f,
                       stderr=subprocess.DEVNULL, check=False)


def record(out_dir, name, action):
    data = os.path.join(out_dir, f"{name}.data")
    perf = subprocess.Popen(["perf", "record", "-a", "-g", "-F", "499", "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # perf needs a moment before it samples every CPU
    t0 = time.perf_counter()
    action()
    elapsed = time.perf_counter() - t0
    perf.send_signal(signal.SIGINT)
    perf.wait()
    reports(out_dir, name, data, f"# {name}: {elapsed:.2f} s of wall time; samples of the harness only\n")
    print(f"profile: {name}: {elapsed:.2f} s -> {out_dir}/{name}.comm.txt, {name}.sym.txt", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--launches", type=int, default=20)
    ap.add_argument("--report-only", action="store_true", help="redo the reports of DIR/*.data")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.report_only:
        for data in sorted(os.listdir(args.out)):
            if data.endswith(".data"):
                reports(args.out, data[:-5], os.path.join(args.out, data), f"# {data[:-5]}; harness only\n")
        return 0
    failures = []
    v = inside.prepare_without_peer(failures)
    worker = v.worker

    def nr_seq():
        for _ in range(args.launches):
            _, rc, _, err = worker.run(v.ctl(inside.OWNERS[0], v.next_chat("pw"), "noop", ["true"]))
            if rc != 0:
                failures.append(err)

    def cold_seq():
        # The stops are recorded too; they show up under systemd and systemctl.
        for _ in range(max(1, args.launches // 2)):
            inside.stop_helper()
            _, rc, _, err = worker.run(v.ctl(inside.OWNERS[0], v.next_chat("pc"), "noop", ["true"]))
            if rc != 0:
                failures.append(err)

    def b_seq():
        for _ in range(args.launches):
            v.root.run(v.systemd_run("noop", ["true"]))

    def a_seq():
        for _ in range(args.launches):
            worker.run(v.bwrap("noop", ["true"]))

    def loop_session():
        worker.run(v.ctl(inside.OWNERS[1], v.next_chat("pl"), "loop", ["nr-bench-loop", "1000000"]))

    def loop_outside():
        worker.run([inside.LOOP, "1000000"])

    record(args.out, "nr-sequential", nr_seq)
    record(args.out, "nr-cold", cold_seq)
    record(args.out, "B-sequential", b_seq)
    record(args.out, "A-sequential", a_seq)
    record(args.out, "nr-burst64", lambda: failures.extend(inside.burst(v, "nr", "pb", 64)[1]))
    record(args.out, "B-burst64", lambda: failures.extend(inside.burst(v, "B", "pbb", 64)[1]))
    record(args.out, "loop-session", loop_session)
    record(args.out, "loop-outside", loop_outside)
    for f in failures:
        print(f"profile: failure: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
