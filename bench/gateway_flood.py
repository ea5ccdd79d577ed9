# SPDX-License-Identifier: Apache-2.0
"""The gateway under a flood from another owner's session (issue 24), for
the gateway rows (bench/gateway_rows.py): the flooder, a `network: gateway`
session of another owner running bench/gateway_client.py --flood, and the
gateway unit's memory as systemd reports it, read every 100 ms.

The victim is the gateway variant's own client in a session of the bench's
first owner, run once more per round while the flooder is at work; its
figures are set against the gateway variant's from the same rounds, so the
ratio is what the flood costs another owner, on the same machine at the
same time.
"""

import json
import queue
import subprocess
import tempfile
import threading
import time

GATEWAY_UNIT = "native-runtime-gateway.service"
SAMPLE_PERIOD_S = 0.1
# Samples of the gateway's memory before a flood starts, so that "before"
# is not one reading.
BEFORE_S = 0.3
BEFORE_READINGS = 2
BEFORE_LIMIT_S = 10.0


def memory_current_kib():
    """The gateway unit's MemoryCurrent in KiB, None when systemd reports
    none (no accounting, or the unit is not running)."""
    r = subprocess.run(["systemctl", "show", "-p", "MemoryCurrent", "--value", GATEWAY_UNIT], capture_output=True,
                       text=True, check=False)
    value = r.stdout.strip()
    return int(value) // 1024 if value.isdigit() else None


def median(xs):
    s = sorted(xs)
    return None if not s else (s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2)


class MemoryCurrent(threading.Thread):
    """`systemctl show -p MemoryCurrent` of the gateway every 100 ms (on a
    fixed schedule, so a slow reading does not stretch the period), each
    reading with the time it was taken."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples, self.stop = [], threading.Event()

    def run(self):
        begin = time.monotonic()
        tick = 0
        while not self.stop.is_set():
            kib = memory_current_kib()
            if kib is not None:
                self.samples.append((time.monotonic(), kib))
            tick += 1
            self.stop.wait(max(0.0, begin + tick * SAMPLE_PERIOD_S - time.monotonic()))

    def start_and_settle(self):
        """Starts sampling; returns the moment from which readings count
        as "during", after BEFORE_S of readings "before" and at least
        BEFORE_READINGS of them (on a loaded machine one `systemctl show`
        can take longer than BEFORE_S, which left "before" empty), within
        BEFORE_LIMIT_S."""
        self.start()
        time.sleep(BEFORE_S)
        limit = time.monotonic() + BEFORE_LIMIT_S
        while len(self.samples) < BEFORE_READINGS and time.monotonic() < limit:
            time.sleep(SAMPLE_PERIOD_S / 2)
        return time.monotonic()

    def finish(self, mark):
        """Stops; the median reading before `mark`, the peak from `mark` on
        and their difference (KiB), and how many readings each rests on."""
        self.stop.set()
        self.join()
        before = [kib for t, kib in self.samples if t < mark]
        during = [kib for t, kib in self.samples if t >= mark]
        b = median(before)
        peak = max(during) if during else None
        return {"before_kib": b, "peak_kib": peak,
                "growth_kib": peak - b if peak is not None and b is not None else None,
                "readings_before": len(before), "readings_during": len(during)}


class Flooder:
    """The hostile session: started before the victim's session, told to
    stop after it by closing its stdin (`native-runtimectl run` passes stdin
    through), its tally read from its last line of output."""

    def __init__(self, scenario, owner, chat, flood):
        self.sc, self.owner, self.chat, self.flood = scenario, owner, chat, flood
        self.proc, self.lines, self.stderr = None, queue.Queue(), tempfile.TemporaryFile(mode="w+")
        self.problem = None

    def argv(self, client):
        f = self.flood
        return [self.sc.ctl, "run", "-q", "--owner", self.owner, "--chat", self.chat, "--adapter", "gw-gateway",
                "--", "python3", client, "--flood", "--seconds", str(f["seconds"]), "--pipeline", str(f["pipeline"]),
                "--refused-max", str(f["refused_max"]), "--idle", str(f["idle"]),
                "--endless-mib", str(f["endless_mib"]), "--piece-kib", str(f["piece_kib"])]

    def start(self, client, timeout=40):
        """True once the flooder says every attack is under way."""
        w = self.sc.worker
        self.proc = subprocess.Popen(self.argv(client), user=w.uid, group=w.gid, extra_groups=w.groups,
                                     env=dict(w.env), cwd="/", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True)
        threading.Thread(target=self.read, daemon=True).start()
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            line = None
        if line is None or '"flooding": true' not in line:
            self.problem = f"no flood under way within {timeout} s (first line {line!r})"
            return False
        return True

    def read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def stop(self, timeout=60):
        """Ends the flood; returns the flooder's tally (None if it printed
        none) and sets `problem` if the session did not end cleanly."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            self.problem = self.problem or f"the flooder did not end within {timeout} s of its stdin closing"
        tally, line = None, ""
        while line is not None:
            try:
                line = self.lines.get(timeout=5)
            except queue.Empty:
                break
            if line and line.startswith("{") and '"flooding"' not in line:
                tally = json.loads(line)
        if rc != 0 and self.problem is None:
            self.stderr.seek(0)
            self.problem = f"the flooder's session exited {rc}: {self.stderr.read().strip()[-400:]!r}"
        self.stderr.close()
        return tally


def params_for(smoke):
    """The flood: how long it may last at most, requests pipelined per
    write and refused answers in all, idle connections, and the endless
    chunk-size line's volume in all and per write. The smoke run's is
    lighter so that it adds only seconds to scripts/test."""
    if smoke:
        return {"seconds": 30, "pipeline": 200, "refused_max": 4000, "idle": 200, "endless_mib": 4, "piece_kib": 256}
    return {"seconds": 120, "pipeline": 500, "refused_max": 200000, "idle": 200, "endless_mib": 64, "piece_kib": 1024}
