# SPDX-License-Identifier: Apache-2.0
"""The egress gateway's cost (issue 17): the same model client in a session,
straight to a local HTTPS upstream ("direct", a `network: host` session) and
through the gateway ("gateway", a `network: gateway` session whose provider
host is that upstream), and through the gateway again while a session of
another owner floods it ("flooded", issue 24: bench/gateway_flood.py),
interleaved in shuffled order in every round.
Imported by bench/inside.py, which runs it inside the private systemd as root.

The set-up, as tests/integration/gateway_test.cpp does it:
  * a CA and a certificate for upstream.nr-bench (openssl), in
    /run/nr-bench-gateway (public: CA, client program, hosts file; readable
    inside sessions through the adapters' read_only_paths) and
    /run/nr-bench-gateway-keys (root only);
  * the upstream (bench/gateway_upstream.py) on 127.0.0.2:8443, the one
    loopback address bench/config.yaml lets `network: host` sessions reach;
  * a drop-in for native-runtime-gateway.service that binds its own hosts
    file (upstream.nr-bench -> 127.0.0.2) over /etc/hosts and adds
    --upstream-ca: only the gateway resolves the name and trusts the CA;
  * a dummy provider key, encrypted with systemd-creds into the key store
    under the adapter's credential name; the upstream accepts only it.
The direct client cannot resolve the name, so it connects to 127.0.0.2 and
speaks TLS with the name (SNI, certificate check, Host header) and the CA:
the same bytes on the wire as a client that resolved it. The harness
discards all of it (its /etc, /run and the gateway unit) at its end.
"""

import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time

import gateway_flood

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLIC = "/run/nr-bench-gateway"
KEYS = "/run/nr-bench-gateway-keys"
CLIENT = f"{PUBLIC}/client.py"
UPSTREAM_NAME = "upstream.nr-bench"
UPSTREAM_ADDRESS = "127.0.0.2"
UPSTREAM_PORT = 8443
GATEWAY_UNIT = "native-runtime-gateway.service"
GATEWAY = "/usr/libexec/native-runtime/native-runtime-gateway"
DROPIN_DIR = "/run/systemd/system/native-runtime-gateway.service.d"
KEY_STORE = "/etc/native-runtime/gateway-credentials"
# bench/config.yaml's gw-gateway adapter names it.
CREDENTIAL = "nr-bench-openai"
ADAPTERS = {"direct": "gw-direct", "gateway": "gw-gateway"}
# The gateway variant's client again, in the same owner's session, while a
# session of another owner floods the gateway (bench/gateway_flood.py).
VARIANTS = {**ADAPTERS, "flooded": "gw-gateway"}


class SetupError(Exception):
    pass


def run(argv, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, check=False, **kw)
    if r.returncode != 0:
        raise SetupError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()[-400:]}")
    return r


def write(path, text, mode=0o644):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


def make_certificates():
    for d, mode in ((PUBLIC, 0o755), (KEYS, 0o700)):
        os.makedirs(d, exist_ok=True)
        os.chmod(d, mode)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    # The extensions a strict verifier requires (Python 3.13 on Debian 13
    # sets VERIFY_X509_STRICT): a CA's key usage, a server's usages.
    run(["openssl", "req", "-x509"] + ec + ["-days", "2", "-subj", "/CN=nr-bench-gateway-ca",
                                            "-addext", "basicConstraints=critical,CA:TRUE",
                                            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                                            "-keyout", f"{KEYS}/ca.key", "-out", f"{PUBLIC}/ca.pem"])
    run(["openssl", "req"] + ec + ["-subj", f"/CN={UPSTREAM_NAME}", "-keyout", f"{KEYS}/upstream.key",
                                   "-out", f"{KEYS}/upstream.csr"])
    write(f"{KEYS}/san.ext", f"subjectAltName=DNS:{UPSTREAM_NAME}\n"
          "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n", 0o600)
    run(["openssl", "x509", "-req", "-days", "2", "-in", f"{KEYS}/upstream.csr", "-CA", f"{PUBLIC}/ca.pem",
         "-CAkey", f"{KEYS}/ca.key", "-CAcreateserial", "-extfile", f"{KEYS}/san.ext",
         "-out", f"{KEYS}/upstream.pem"])
    os.chmod(f"{PUBLIC}/ca.pem", 0o644)


def install_key(key):
    """The operator's way (docs/configuration.md, credential store); the key
    goes through stdin, never a command line."""
    os.makedirs(KEY_STORE, mode=0o700, exist_ok=True)
    run(["systemd-creds", "encrypt", "--with-key=host", f"--name=provider_{CREDENTIAL}", "-",
         f"{KEY_STORE}/{CREDENTIAL}"], input=key)


def install_dropin():
    if not os.access(GATEWAY, os.X_OK):
        raise SetupError(f"{GATEWAY} is not installed")
    write(f"{PUBLIC}/hosts", f"{UPSTREAM_ADDRESS} {UPSTREAM_NAME}\n")
    os.makedirs(DROPIN_DIR, exist_ok=True)
    write(f"{DROPIN_DIR}/50-bench-upstream.conf",
          f"[Service]\nBindReadOnlyPaths={PUBLIC}/hosts:/etc/hosts\nExecStart=\n"
          f"ExecStart={GATEWAY} --credential-prefix provider_ --upstream-ca {PUBLIC}/ca.pem\n")
    run(["systemctl", "daemon-reload"])
    # Started again by the helper's first registration, with the drop-in
    # and the key.
    subprocess.run(["systemctl", "stop", GATEWAY_UNIT], capture_output=True, check=False)


def start_upstream(key):
    ready = f"{KEYS}/upstream.port"
    if os.path.exists(ready):
        os.remove(ready)
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "gateway_upstream.py"), "--address",
                             UPSTREAM_ADDRESS, "--port", str(UPSTREAM_PORT), "--cert", f"{KEYS}/upstream.pem",
                             "--key", f"{KEYS}/upstream.key", "--ready-file", ready],
                            env={"PATH": "/usr/bin:/bin", "NR_BENCH_UPSTREAM_KEY": key},
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not os.path.exists(ready):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SetupError(f"the upstream did not start: {proc.communicate()[1].strip()[-400:]}")
        time.sleep(0.05)
    return proc


def gateway_pid():
    r = subprocess.run(["systemctl", "show", "-p", "MainPID", "--value", GATEWAY_UNIT], capture_output=True,
                       text=True, check=False)
    pid = r.stdout.strip()
    return int(pid) if pid.isdigit() and pid != "0" else None


def proc_kib(path, field):
    """The kB figure of a "Field:  N kB" line of a /proc file, None when the
    file or the field is gone (a process that has exited)."""
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def footprint(pid):
    return {"pss": proc_kib(f"/proc/{pid}/smaps_rollup", "Pss"), "rss": proc_kib(f"/proc/{pid}/status", "VmRSS")}


class Sampler(threading.Thread):
    """The gateway's PSS and RSS, every 50 ms, while a gateway session runs."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.pss, self.rss, self.stop = pid, 0, 0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            f = footprint(self.pid)
            self.pss = max(self.pss, f["pss"] or 0)
            self.rss = max(self.rss, f["rss"] or 0)
            time.sleep(0.05)


class Scenario:
    def __init__(self, worker, ctl, owner, params):
        self.worker, self.ctl, self.owner, self.p = worker, ctl, owner, params
        self.key = "sk-bench-" + secrets.token_hex(24)
        self.upstream = None
        self.chats = 0

    def setup(self):
        make_certificates()
        shutil.copyfile(os.path.join(HERE, "gateway_client.py"), CLIENT)
        os.chmod(CLIENT, 0o644)
        install_key(self.key)
        install_dropin()
        self.upstream = start_upstream(self.key)

    def teardown(self):
        if self.upstream is not None:
            self.upstream.kill()
            self.upstream.wait()

    def session(self, variant, requests, streams):
        """One session of the variant's adapter running the client; returns
        (exit status, parsed JSON or None, stderr)."""
        self.chats += 1
        chat = f"gw{variant[0]}{self.chats}"
        argv = [self.ctl, "run", "--owner", self.owner, "--chat", chat, "--adapter", VARIANTS[variant]]
        env = dict(self.worker.env)
        client = ["python3", CLIENT, "--requests", str(requests), "--streams", str(streams),
                  "--tokens", str(self.p["tokens"]), "--gap-ms", str(self.p["gap_ms"])]
        if variant == "direct":
            # Copied from the ctl's environment (--env NAME), so the key is
            # on no command line; the gateway session gets neither from us.
            env["OPENAI_API_KEY"] = self.key
            env["OPENAI_BASE_URL"] = f"https://{UPSTREAM_NAME}:{UPSTREAM_PORT}/v1"
            argv += ["--env", "OPENAI_API_KEY", "--env", "OPENAI_BASE_URL"]
            client += ["--connect-to", UPSTREAM_ADDRESS, "--ca", f"{PUBLIC}/ca.pem"]
        r = subprocess.run(argv + ["--"] + client, user=self.worker.uid, group=self.worker.gid,
                           extra_groups=self.worker.groups, env=env, cwd="/", stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, check=False, timeout=300)
        try:
            data = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            data = None
        return r.returncode, data, r.stderr.strip()[-400:]


def measure(worker, ctl, owners, rounds, params, rng, failures, progress):
    """Runs the scenario; returns the raw figures for report.gateway_results
    (measured False and the reason when the set-up failed). The first owner
    runs every variant; the second one's session floods the gateway during
    the flooded variant."""
    sc = Scenario(worker, ctl, owners[0], params)
    raw = {"measured": False, "rounds": rounds, "params": params,
           "upstream": f"{UPSTREAM_NAME}:{UPSTREAM_PORT} on {UPSTREAM_ADDRESS}",
           "samples": {v: {"fresh": [], "keep": [], "ttft_keep": [], "ttft_fresh": [], "spread": [], "lags": []}
                       for v in VARIANTS},
           "sessions": {v: {"ok": 0, "runs": 0} for v in VARIANTS},
           "calls": {v: {"ok": 0, "runs": 0} for v in VARIANTS},
           "memory": {"idle": [], "peak_pss": [], "peak_rss": []},
           "seconds": {v: [] for v in VARIANTS},
           "flood": {"owner": owners[1], "victim_failed": 0, "memory": {"gateway": [], "flooded": []},
                     "pss_before": [], "peak_pss": [], "tallies": [], "restarts": 0}}
    try:
        sc.setup()
    except (SetupError, OSError) as e:
        raw["reason"] = f"set-up failed: {e}"
        failures.append(f"gateway rows: {raw['reason']}")
        return raw
    try:
        # Warm-up of each variant (not counted): starts the gateway, which
        # loads the key on first use.
        progress("gateway rows: set up (CA, key, gateway drop-in, upstream); warming up both variants")
        for variant in ADAPTERS:
            rc, data, err = sc.session(variant, 2, 1)
            if rc != 0 or data is None:
                failures.append(f"gateway rows: warm-up {variant}: exit {rc}: "
                                f"{(data or {}).get('errors')} {err!r}")
        pid = gateway_pid()
        if pid is None:
            failures.append("gateway rows: native-runtime-gateway has no main process after a gateway session")
        for r in range(rounds):
            flooded = params["flood_rounds"] is None or r < params["flood_rounds"]
            order = [v for v in VARIANTS if v != "flooded" or flooded]
            rng.shuffle(order)
            for variant in order:
                one_run(sc, variant, pid, owners[1], r, raw, failures)
            if pid is not None and gateway_pid() != pid:
                failures.append("gateway rows: native-runtime-gateway restarted during the rounds")
                raw["flood"]["restarts"] += 1
                pid = gateway_pid()
        raw["measured"] = True
    finally:
        sc.teardown()
    return raw


def one_run(sc, variant, pid, flood_owner, r, raw, failures):
    """One session of the variant, the flooded one inside the flood. The
    gateway's memory is read around every variant's session (so that all
    pay for the readings), from a moment before it for the gateway
    variants."""
    sampled = variant != "direct" and pid is not None
    flooder = None
    began = time.monotonic()
    memory = gateway_flood.MemoryCurrent()
    if not sampled:
        memory.start()
    else:
        mark = memory.start_and_settle()
        idle = footprint(pid)["pss"]
        if idle and variant == "gateway":
            raw["memory"]["idle"].append(idle)
        elif idle:
            raw["flood"]["pss_before"].append(idle)
        sampler = Sampler(pid)
        sampler.start()
    if variant == "flooded":
        # A flooder that never got going is reported when it is stopped.
        flooder = gateway_flood.Flooder(sc, flood_owner, f"gwflood{r + 1}", sc.p["flood"])
        flooder.start(CLIENT)
    try:
        rc, data, err = sc.session(variant, sc.p["requests"], sc.p["streams"])
    finally:
        if flooder is not None:
            tally = flooder.stop()
            raw["flood"]["tallies"].append(tally)
            if flooder.problem or tally is None:
                failures.append(f"gateway rows: flooder round {r + 1}: {flooder.problem or 'no tally printed'}")
    if not sampled:
        memory.finish(began)
    else:
        sampler.stop.set()
        sampler.join()
        raw["flood"]["memory"][variant].append(memory.finish(mark))
        if sampler.pss and variant == "gateway":
            raw["memory"]["peak_pss"].append(sampler.pss)
            raw["memory"]["peak_rss"].append(sampler.rss)
        elif sampler.pss:
            raw["flood"]["peak_pss"].append(sampler.pss)
    raw["seconds"][variant].append(round(time.monotonic() - began, 2))
    s = raw["samples"][variant]
    raw["sessions"][variant]["runs"] += 1
    if data is not None:
        raw["calls"][variant]["ok"] += data["ok"]
        raw["calls"][variant]["runs"] += data["runs"]
        s["fresh"] += data["fresh"]
        s["keep"] += data["keep"]
        for st in data["streams"]:
            s["ttft_fresh" if st["fresh"] else "ttft_keep"].append(st["ttft"])
            s["spread"].append(st["spread"] / max(1, st["events"] - 1))
            s["lags"] += st["lags"]
    if variant == "flooded":
        # A session that printed nothing failed every request and stream
        # it was to make (each of --requests and --streams twice).
        planned = 2 * sc.p["requests"] + 2 * sc.p["streams"]
        raw["flood"]["victim_failed"] += planned if data is None else data["runs"] - data["ok"]
    if rc != 0 or data is None:
        failures.append(f"gateway rows: {variant} round {r + 1}: exit {rc}: "
                        f"{(data or {}).get('errors')} {err!r}")
    else:
        raw["sessions"][variant]["ok"] += 1


def params_for(smoke):
    """Requests per session (each of fresh and kept-alive), streams per
    session (each of them twice: on the kept-alive connection and on a new
    one), tokens per stream, the upstream's gap between tokens; the flood
    (bench/gateway_flood.py) and in how many rounds (None: every one)."""
    flood = gateway_flood.params_for(smoke)
    if smoke:
        # The flooded variant in the first round only: the smoke run checks
        # that the flood runs and the victim loses nothing, in seconds.
        return {"requests": 20, "streams": 1, "tokens": 100, "gap_ms": 1.0, "flood": flood, "flood_rounds": 1}
    return {"requests": 100, "streams": 3, "tokens": 200, "gap_ms": 1.0, "flood": flood, "flood_rounds": None}

