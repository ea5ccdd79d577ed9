# SPDX-License-Identifier: Apache-2.0
"""The bench's figures: statistics, the results dictionary that
results.json holds, the target verdicts (each naming its baseline) and the
Markdown table rendered from the same dictionary. Pure functions: no
process is started here (bench/inside.py measures)."""

import os

VARIANT_NAMES = {
    "A": "A: bare bwrap (same mounts, no seccomp)",
    "B": "B: systemd-run --wait --pipe + same bwrap",
    "warm": "native-runtimectl run, warm helper",
    "boot": "native-runtimectl run, first after the helper's start (as at boot)",
    "cold": "native-runtimectl run, cold (bus activation, only with idle_timeout_sec set)",
    "srt": "peer: srt (sandbox-runtime)",
}
BASELINE_B = "B: systemd-run + the same bwrap, same run"
# The rows of the launch-latency tables, in this order.
LATENCY_ROWS = ("A", "B", "warm", "boot", "cold", "srt")


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


def num(x, digits=3):
    """A figure for results.json: a rounded float, or None when unknown."""
    return None if x is None or x != x else round(float(x), digits)


def ratio(a, b):
    return a / b if a and b else None



def mib(kib):
    return kib / 1024 if kib else None


def ms(seconds):
    return seconds * 1e3 if seconds is not None and seconds == seconds else None


def latency_results(samples, fails, rounds, titles):
    out = {"rounds": rounds, "workloads": {}}
    for wl, title in titles.items():
        mb = median(samples[wl]["B"]) if samples[wl]["B"] else None
        ma = median(samples[wl]["A"]) if samples[wl]["A"] else None
        variants = {}
        for var in LATENCY_ROWS:
            if var not in samples[wl]:
                variants[var] = {"label": VARIANT_NAMES[var], "measured": False}
                continue
            xs = samples[wl][var]
            m = median(xs) if xs else None
            variants[var] = {"label": VARIANT_NAMES[var], "measured": True,
                             "median_ms": num(ms(m)), "p95_ms": num(ms(pct(xs, 95) if xs else None)),
                             "ok": len(xs), "runs": len(xs) + fails[wl][var],
                             "ratio_to_B": num(ratio(m, mb)), "ratio_to_A": num(ratio(m, ma))}
        out["workloads"][wl] = {"title": title, "variants": variants}
    return out


def burst_results(lat, ok_count, helper, bursts, size, latency, owners):
    single = {"nr": latency["workloads"]["true"]["variants"]["warm"].get("median_ms"),
              "B": latency["workloads"]["true"]["variants"]["B"].get("median_ms")}
    ncpu = os.cpu_count() or 1
    variants = {}
    for kind, label in (("nr", "native-runtimectl run"), ("B", "B: systemd-run + bwrap")):
        xs = lat[kind]
        c = median(helper["cpu_all"][kind]) if helper["cpu_all"][kind] else None
        p95 = ms(pct(xs, 95)) if xs else None
        variants[kind] = {"label": label, "ok": ok_count[kind], "runs": bursts * size,
                          "p50_ms": num(ms(pct(xs, 50)) if xs else None), "p95_ms": num(p95),
                          "max_ms": num(ms(max(xs)) if xs else None),
                          "p95_over_single": num(ratio(p95, single[kind])),
                          "cpu_per_launch_ms": num(c / 1e6 if c else None),
                          "cpu_floor_ms": num(c * size / ncpu / 1e6 if c else None)}
    return {"size": size, "bursts": bursts, "cpus": ncpu, "owners": list(owners), "variants": variants}


def cpu_results(cpu, launches, idle_all):
    def cm(kind, what):
        xs = cpu.get((kind, what))
        return median(xs) / 1e6 if xs else None
    all_b = cm("B", "all")
    variants = {}
    for kind, var in (("A", "A"), ("B", "B"), ("nr", "warm")):
        variants[var] = {"label": VARIANT_NAMES[var], "all_ms": num(cm(kind, "all")),
                         "pid1_ms": num(cm(kind, "pid1")),
                         "helper_ms": num(cm(kind, "helper") if kind == "nr" else 0.0),
                         "ratio_to_B": num(ratio(cm(kind, "all"), all_b))}
    return {"launches": launches, "idle_window_ms": num(idle_all / 1e6 if idle_all else None),
            "variants": variants}


def helper_results(idle, cpu, helper, hostnamed_kib):
    def cm(kind, what):
        xs = cpu.get((kind, what))
        return median(xs) / 1e6 if xs else None
    peak_kib = max(helper["peak_kib"], helper["hwm_kib"]) or None
    burst_cpu = median(helper["cpu_ns"]) / 1e6 if helper["cpu_ns"] else None
    return {"rss_idle_mib": num(mib(idle["rss"])), "rss_idle_anon_mib": num(mib(idle["anon"])),
            "rss_idle_file_mib": num(mib(idle["file"])), "rss_peak_burst_mib": num(mib(peak_kib)),
            "hostnamed_rss_mib": num(mib(hostnamed_kib)),
            "idle_window_s": idle["window_s"],
            "idle_wakeups_per_min": num(idle["wakeups"] * 60 / idle["window_s"] if idle["wakeups"] is not None else None),
            "idle_cpu_ms_per_min": num(idle["cpu_ns"] / 1e6 * 60 / idle["window_s"]
                                       if idle["cpu_ns"] is not None else None),
            "cpu_per_launch_sequential_ms": num(cm("nr", "helper")),
            "cpu_per_launch_burst_ms": num(burst_cpu),
            "pid1_cpu_per_launch_nr_ms": num(cm("nr", "pid1")),
            "pid1_cpu_per_launch_B_ms": num(cm("B", "pid1"))}


def loop_results(loops, filters, iterations, rounds):
    calls = {}
    for call in sorted(loops["outside"]):
        m = {var: (median(loops[var][call]) if loops[var].get(call) else None)
             for var in ("outside", "A", "B", "session")}
        calls[call] = {**{f"{var}_ns": num(x, 1) for var, x in m.items()},
                       "ratio_session_outside": num(ratio(m["session"], m["outside"])),
                       "overhead_vs_A_pct": num((m["session"] / m["A"] - 1) * 100 if m["session"] and m["A"] else None, 1),
                       "overhead_vs_outside_pct": num((m["session"] / m["outside"] - 1) * 100
                                                      if m["session"] and m["outside"] else None, 1)}
    return {"iterations": iterations, "rounds": rounds, "calls": calls,
            "seccomp_filters": {k: filters.get(k) for k in ("outside", "A", "B", "session")}}


def held_results(res):
    count = res["count"]
    lat = {}
    for var in ("warm", "B"):
        lat[var] = {}
        for state, key in (("idle", "idle"), ("nr", "nr_held"), ("B", "B_held")):
            xs = res["latency"].get(state, {}).get(var, [])
            lat[var][key] = {"median_ms": num(ms(median(xs)) if xs else None), "n": len(xs)}
        lat[var]["ratio_nr_held_to_idle"] = num(ratio(lat[var]["nr_held"]["median_ms"], lat[var]["idle"]["median_ms"]))
        lat[var]["ratio_B_held_to_idle"] = num(ratio(lat[var]["B_held"]["median_ms"], lat[var]["idle"]["median_ms"]))
    memory = {}
    for kind in ("nr", "B"):
        m = res["memory"].get(kind)
        if not m:
            continue
        def delta(field):
            a, b = m["after"].get(field), m["before"].get(field)
            return (a - b) / count if a is not None and b is not None else None
        boundary = sum(m["boundary_pss_kib"]) / len(m["boundary_pss_kib"]) if m["boundary_pss_kib"] else None
        client = sum(m["client_pss_kib"]) / len(m["client_pss_kib"]) if m["client_pss_kib"] else None
        parts = [boundary, delta("pid1_rss_kib"), delta("broker_rss_kib")]
        if kind == "nr":
            parts.append(delta("helper_rss_kib"))
        memory[kind] = {
            "sessions_measured": len(m["boundary_pss_kib"]),
            "processes_pss_kib_per_session": num(boundary, 1),
            "pid1_rss_kib_per_session": num(delta("pid1_rss_kib"), 1),
            "broker_rss_kib_per_session": num(delta("broker_rss_kib"), 1),
            "helper_rss_kib_per_session": num(delta("helper_rss_kib"), 1) if kind == "nr" else None,
            "total_kib_per_session": num(sum(p for p in parts if p is not None), 1) if boundary is not None else None,
            "client_pss_kib_per_session": num(client, 1),
            # The helper tracks only the product's sessions.
            "helper_rss_before_mib": num(mib(m["before"]["helper_rss_kib"])) if kind == "nr" else None,
            "helper_rss_held_mib": num(mib(m["after"]["helper_rss_kib"])) if kind == "nr" else None,
            "processes_besides_agent": m["shapes"],
        }
    return {"count": count, "launches": res["launches"], "order": res["order"], "ok": res["ok"], "latency": lat,
            "memory": memory}


GATEWAY_ROWS = (
    ("fresh", "ms", 1e0, "per request, new connection each time (ms)"),
    ("keep", "ms", 1e0, "per request, kept-alive connection (ms)"),
    ("ttft_keep", "ms", 1e0, "time to first token, kept-alive connection (ms)"),
    ("ttft_fresh", "ms", 1e0, "time to first token, new connection, connect included (ms)"),
    ("spread", "us", 1e3, "per streamed token: (last - first event) / (tokens - 1) (us)"),
    ("lags", "us", 1e3, "per streamed token: upstream wrote it -> client read it (us)"),
)


def gateway_results(raw):
    """The gateway rows: each figure of the gateway variant next to the
    direct variant's from the same rounds, with the difference and ratio."""
    params = raw.get("params", {})
    out = {"measured": raw.get("measured"), "reason": raw.get("reason"), "rounds": raw.get("rounds"),
           "upstream": raw.get("upstream"), "requests_per_session": params.get("requests"),
           "streams_per_session": params.get("streams"), "tokens": params.get("tokens"),
           "gap_ms": params.get("gap_ms"), "sessions": raw.get("sessions", {}), "calls": raw.get("calls", {})}
    rows = {}
    samples = raw.get("samples", {})
    for key, unit, scale, label in GATEWAY_ROWS:
        d = samples.get("direct", {}).get(key) or []
        g = samples.get("gateway", {}).get(key) or []
        md = median(d) * scale if d else None
        mg = median(g) * scale if g else None
        rows[key] = {"label": label, "unit": unit, "n_direct": len(d), "n_gateway": len(g),
                     "direct": num(md), "gateway": num(mg),
                     "direct_p95": num(pct(d, 95) * scale if d else None),
                     "gateway_p95": num(pct(g, 95) * scale if g else None),
                     "added": num(mg - md if md is not None and mg is not None else None),
                     "ratio": num(ratio(mg, md))}
    out["rows"] = rows
    mem = raw.get("memory", {})
    idle = median(mem["idle"]) if mem.get("idle") else None
    peak = median(mem["peak_pss"]) if mem.get("peak_pss") else None
    out["memory"] = {"gateway_pss_idle_kib": num(idle, 1), "gateway_pss_session_kib": num(peak, 1),
                     "gateway_rss_session_kib": num(median(mem["peak_rss"]) if mem.get("peak_rss") else None, 1),
                     "growth_kib": num(peak - idle if peak is not None and idle is not None else None, 1),
                     "ratio": num(ratio(peak, idle)), "samples": len(mem.get("peak_pss", []))}
    out["flood"] = flood_results(raw)
    return out


def merged(counts):
    """{key: sum} over a list of {key: count} (None entries skipped)."""
    out = {}
    for c in counts:
        for k, n in (c or {}).items():
            out[k] = out.get(k, 0) + n
    return dict(sorted(out.items()))


def flood_results(raw):
    """The flood rows (issue 24): the gateway variant's client while another
    owner's session floods the gateway, against the same client in the same
    rounds without the flood; the gateway unit's MemoryCurrent, peak during
    the flood minus before it; the victim's failed requests; what the
    flooder sent and got back."""
    f = raw.get("flood") or {}
    samples = raw.get("samples", {})
    rows = {}
    for key, unit, scale, label in GATEWAY_ROWS:
        q = samples.get("gateway", {}).get(key) or []
        fl = samples.get("flooded", {}).get(key) or []
        mq = median(q) * scale if q else None
        mf = median(fl) * scale if fl else None
        rows[key] = {"label": label, "unit": unit, "n_quiet": len(q), "n_flooded": len(fl),
                     "quiet": num(mq), "flooded": num(mf),
                     "quiet_p95": num(pct(q, 95) * scale if q else None),
                     "flooded_p95": num(pct(fl, 95) * scale if fl else None),
                     "ratio": num(ratio(mf, mq))}

    def memory(variant):
        runs = f.get("memory", {}).get(variant, [])
        growth = [m["growth_kib"] for m in runs if m.get("growth_kib") is not None]
        before = [m["before_kib"] for m in runs if m.get("before_kib") is not None]
        peak = [m["peak_kib"] for m in runs if m.get("peak_kib") is not None]
        return {"runs": len(runs), "measured": len(growth),
                "before_kib": num(median(before) if before else None, 1),
                "peak_kib": num(median(peak) if peak else None, 1),
                "growth_kib": num(median(growth) if growth else None, 1),
                "growth_max_kib": num(max(growth) if growth else None, 1),
                "readings_during": sum(m.get("readings_during", 0) for m in runs),
                "per_round": [[m.get("before_kib"), m.get("peak_kib")] for m in runs]}
    tallies = f.get("tallies", [])
    got = [t for t in tallies if t]
    flooder = {"rounds": len(tallies), "tallies": len(got),
               "refused_sent": sum(t["refused_sent"] for t in got),
               "refused_answers": merged(t["refused_answers"] for t in got),
               "refused_connections": sum(t["refused_connections"] for t in got),
               "endless_connections": sum(t["endless_connections"] for t in got),
               "endless_mib": num(sum(t["endless_bytes"] for t in got) / 1048576, 1),
               "endless_ends": merged(t["endless_ends"] for t in got),
               "idle_attempted": sum(t["idle_attempted"] for t in got),
               "idle_opened": sum(t["idle_opened"] for t in got),
               "idle_open_at_end": sum(t["idle_open_at_end"] for t in got),
               "deadline_hit": sum(1 for t in got if t.get("deadline_hit")),
               "errors": merged(t["errors"] for t in got)}
    pss, pss_before = f.get("peak_pss", []), f.get("pss_before", [])
    return {"owner": f.get("owner"), "params": raw.get("params", {}).get("flood"), "rows": rows,
            "memory": {"flooded": memory("flooded"), "quiet": memory("gateway")},
            "pss_flooded_kib": num(median(pss) if pss else None, 1),
            "pss_before_flood_kib": num(median(pss_before) if pss_before else None, 1),
            "seconds_per_session": {v: num(median(x), 2) for v, x in raw.get("seconds", {}).items() if x},
            "victim_failed": f.get("victim_failed"), "restarts": f.get("restarts"), "flooder": flooder}


def render_gateway(g):
    """The gateway section of the Markdown report."""
    p = []
    if not g.get("measured"):
        p.append("## Egress gateway vs direct: not measured")
        p.append(g.get("reason") or "no reason recorded")
        return p
    p.append(f"## Egress gateway vs direct (same client in a session, same upstream; {g['rounds']} interleaved "
             f"rounds, {g['requests_per_session']} requests of each kind and {g['streams_per_session']} streams of each kind "
             f"of {g['tokens']} tokens, {fmt(g['gap_ms'], 1)} ms apart, per session; medians)")
    rows = []
    for x in g["rows"].values():
        digits = 2 if x["unit"] == "ms" else 0
        rows.append([x["label"], fmt(x["direct"], digits), fmt(x["gateway"], digits), fmt(x["added"], digits),
                     fmt(x["ratio"], 2), f"{fmt(x['direct_p95'], digits)} / {fmt(x['gateway_p95'], digits)}",
                     f"{x['n_direct']} / {x['n_gateway']}"])
    s, c = g["sessions"], g["calls"]
    rows.append(["sessions ok (direct / gateway)", f"{s['direct']['ok']}/{s['direct']['runs']}",
                 f"{s['gateway']['ok']}/{s['gateway']['runs']}", "", "", "", ""])
    rows.append(["requests and streams ok", f"{c['direct']['ok']}/{c['direct']['runs']}",
                 f"{c['gateway']['ok']}/{c['gateway']['runs']}", "", "", "", ""])
    p.append(table(["measure", "direct", "through the gateway", "added", "ratio gateway / direct",
                    "p95 direct / gateway", "samples direct / gateway"], rows))
    m = g["memory"]
    p.append(table(["native-runtime-gateway (main process)", "value", "baseline", "baseline value", "ratio"], [
        ["PSS while one gateway session runs (peak, median over sessions), KiB", fmt(m["gateway_pss_session_kib"], 0),
         "its PSS with no session registered, same run", fmt(m["gateway_pss_idle_kib"], 0), fmt(m["ratio"], 2)],
        ["RSS while one gateway session runs (peak, median), KiB", fmt(m["gateway_rss_session_kib"], 0), "", "", ""],
    ]))
    if g.get("flood"):
        p += render_flood(g)
    return p


def render_flood(g):
    """The flood section of the Markdown report."""
    f, sessions, calls, quiet = g["flood"], g["sessions"], g["calls"], g["memory"]
    fp = f.get("params") or {}
    p = [f"## Egress gateway under a flood from another owner's session (owner {f['owner']}; the gateway variant's "
         "client in the same rounds with and without the flood; medians)"]
    rows = []
    for x in f["rows"].values():
        digits = 2 if x["unit"] == "ms" else 0
        rows.append([x["label"], fmt(x["quiet"], digits), fmt(x["flooded"], digits), fmt(x["ratio"], 2),
                     f"{fmt(x['quiet_p95'], digits)} / {fmt(x['flooded_p95'], digits)}",
                     f"{x['n_quiet']} / {x['n_flooded']}"])
    rows.append(["sessions ok (without / under flood)", f"{sessions['gateway']['ok']}/{sessions['gateway']['runs']}",
                 f"{sessions['flooded']['ok']}/{sessions['flooded']['runs']}", "", "", ""])
    rows.append(["requests and streams ok", f"{calls['gateway']['ok']}/{calls['gateway']['runs']}",
                 f"{calls['flooded']['ok']}/{calls['flooded']['runs']}", "", "", ""])
    rows.append(["**victim's failed requests and streams under flood** (must be 0)", "", str(f["victim_failed"]),
                 "", "", ""])
    p.append(table(["measure", "without flood", "under flood", "ratio flood / without", "p95 without / flood",
                    "samples without / flood"], rows))
    mf, mq = f["memory"]["flooded"], f["memory"]["quiet"]
    p.append(table(["native-runtime-gateway MemoryCurrent (every 100 ms), KiB", "under flood",
                    "one gateway session, no flood (same run)"], [
        ["before (median of the readings in the 0.3 s before)", fmt(mf["before_kib"], 0), fmt(mq["before_kib"], 0)],
        ["peak during", fmt(mf["peak_kib"], 0), fmt(mq["peak_kib"], 0)],
        ["**peak - before** (median over rounds)", fmt(mf["growth_kib"], 0), fmt(mq["growth_kib"], 0)],
        ["peak - before, largest round", fmt(mf["growth_max_kib"], 0), fmt(mq["growth_max_kib"], 0)],
        ["rounds measured / readings during", f"{mf['measured']}/{mf['runs']} / {mf['readings_during']}",
         f"{mq['measured']}/{mq['runs']} / {mq['readings_during']}"],
        ["main process PSS: before / peak during (medians over rounds; /proc, every 50 ms)",
         f"{fmt(f['pss_before_flood_kib'], 0)} / {fmt(f['pss_flooded_kib'], 0)}",
         f"{fmt(quiet['gateway_pss_idle_kib'], 0)} / {fmt(quiet['gateway_pss_session_kib'], 0)}"],
        ["wall time of the variant's run, s (median: set-up, sessions, flood)",
         fmt(f["seconds_per_session"].get("flooded"), 1), fmt(f["seconds_per_session"].get("gateway"), 1)],
    ]))
    fl = f["flooder"]
    p.append("Flooder (no token; " + ", ".join(f"{k} {v}" for k, v in fp.items()) + f"), over {fl['rounds']} "
             f"rounds: {fl['refused_sent']} refused requests sent pipelined on {fl['refused_connections']} "
             f"connections, answers {fl['refused_answers'] or 'none'}; endless chunk-size line: {fl['endless_mib']} "
             f"MiB on {fl['endless_connections']} connections, ended {fl['endless_ends'] or 'none'}; idle "
             f"connections {fl['idle_opened']} opened of {fl['idle_attempted']} attempted, {fl['idle_open_at_end']} "
             f"still open at the end; flood hit its time limit in {fl['deadline_hit']} rounds; errors "
             f"{fl['errors'] or 'none'}; gateway restarts {f['restarts']}.")
    return p


def target(name, baseline, measured, ok):
    return {"target": name, "baseline": baseline, "measured": measured,
            "result": "n/a" if ok is None else ("met" if ok else "MISSED")}


def targets(r):
    """Each target names its baseline (issue 16's targets)."""
    t_true = r["latency"]["workloads"]["true"]["variants"]
    t_script = r["latency"]["workloads"]["script"]["variants"]
    burst = r["burst"]["variants"]
    out = []

    def vs(a, b, limit):
        x = ratio(a, b)
        return f"ratio {fmt(x, 2)}", (x <= limit if x is not None else None)
    out.append(target("warm launch median <= 1.0x B (`/bin/true`)", BASELINE_B,
                      *vs(t_true["warm"].get("median_ms"), t_true["B"].get("median_ms"), 1.0)))
    out.append(target("warm launch median <= 1.0x B (`sh -c`)", BASELINE_B,
                      *vs(t_script["warm"].get("median_ms"), t_script["B"].get("median_ms"), 1.0)))
    out.append(target("first launch after boot, default settings (helper started with the application) "
                      "median <= 1.3x B (`/bin/true`)", BASELINE_B,
                      *vs(t_true["boot"].get("median_ms"), t_true["B"].get("median_ms"), 1.3)))
    out.append(target("cold launch by bus activation (idle_timeout_sec set) median <= 1.3x B (`/bin/true`)",
                      BASELINE_B, *vs(t_true["cold"].get("median_ms"), t_true["B"].get("median_ms"), 1.3)))
    srt_m, warm_m = t_true["srt"].get("median_ms"), t_true["warm"].get("median_ms")
    out.append(target(">= 10x faster than the peer (`/bin/true`)", "peer: srt, same run",
                      f"srt/warm {fmt(ratio(srt_m, warm_m), 1)}" if t_true["srt"]["measured"] else "srt not measured",
                      ratio(srt_m, warm_m) >= 10 if ratio(srt_m, warm_m) else None))
    size = r["burst"]["size"]
    out.append(target(f"all {size} concurrent sessions succeed", "none (absolute: every launch succeeds)",
                      f"{burst['nr']['ok']}/{burst['nr']['runs']}", burst["nr"]["ok"] == burst["nr"]["runs"]))
    for q in ("p50", "p95"):
        out.append(target(f"{size} at once: {q} <= 1.0x B's {q}", f"B: {size} systemd-run launches at once, same run",
                          *vs(burst["nr"][f"{q}_ms"], burst["B"][f"{q}_ms"], 1.0)))
    out.append(target(f"{size} at once: CPU per launch <= B's", f"B: {size} systemd-run launches at once, same run",
                      *vs(burst["nr"]["cpu_per_launch_ms"], burst["B"]["cpu_per_launch_ms"], 1.0)))
    for call, c in r["loop"]["calls"].items():
        o = c["overhead_vs_A_pct"]
        out.append(target(f"in-session overhead <= 5 % ({call})", "A: bare bwrap, same mounts, no filter",
                          f"{fmt(o)} %", o <= 5 if o is not None else None))
    h = r["held"]
    n = h["count"]
    nr_mem = h["memory"].get("nr", {})
    x = ratio(nr_mem.get("helper_rss_held_mib"), nr_mem.get("helper_rss_before_mib"))
    out.append(target(f"helper RSS tracking {n} held sessions <= 1.5x idle", "the helper's own RSS tracking none, same run",
                      f"ratio {fmt(x, 2)}", x <= 1.5 if x is not None else None))
    w = h["latency"]["warm"]
    out.append(target(f"launch latency with {n} held <= 1.2x idle", "the same launches on the idle host, same run "
                      f"(B: {fmt(h['latency']['B']['ratio_B_held_to_idle'], 2)} with {n} B units held)",
                      f"ratio {fmt(w['ratio_nr_held_to_idle'], 2)}",
                      w["ratio_nr_held_to_idle"] <= 1.2 if w["ratio_nr_held_to_idle"] is not None else None))
    shapes = {k: set(h["memory"].get(k, {}).get("processes_besides_agent", {})) for k in ("nr", "B")}
    out.append(target("per held session, nothing besides what bwrap needs", "B: the same bwrap in a unit",
                      "; ".join(sorted(shapes["nr"])) or "n/a",
                      shapes["nr"] == shapes["B"] if shapes["nr"] and shapes["B"] else None))
    # Issue 29's: the whole boundary (the unit's processes besides the
    # agent, and PID 1's, the broker's and the helper's growth) per session.
    per = {k: h["memory"].get(k, {}).get("total_kib_per_session") for k in ("nr", "B")}
    more = per["nr"] - per["B"] if per["nr"] is not None and per["B"] is not None else None
    out.append(target("per held session <= B + 64 KiB", f"B: the same bwrap in a unit, same run ({fmt(per['B'], 0)} KiB)",
                      f"{fmt(per['nr'], 0)} KiB: B {'-' if more is not None and more < 0 else '+'} "
                      f"{fmt(abs(more) if more is not None else None, 0)} KiB", more <= 64 if more is not None else None))
    keep = (r.get("gateway") or {}).get("rows", {}).get("keep", {})
    added = keep.get("added")
    out.append(target("gateway's added latency per kept-alive request <= 0.2 ms",
                      "direct: a `network: host` session's TLS to the same upstream, same rounds",
                      f"{fmt(added, 3)} ms", added <= 0.2 if added is not None else None))
    return out


# ---------------------------------------------------------------- Markdown
def row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def table(header, rows):
    lines = [row(header), row(["---"] * len(header))]
    lines += [row(r) for r in rows]
    return "\n".join(lines)


def render(r):
    """The report as Markdown, from the same dictionary results.json holds."""
    p = []
    host = r["host"]
    if r.get("only") == "gateway":
        return render_only_gateway(r)
    p.append(f"# native-runtime bench ({r['mode']} mode), {r['time']}")
    p.append(f"host: {host['node']}, Linux {host['kernel']}, {host['cpus']} CPUs, {fmt(host['mem_total_kib'] / 1048576 if host['mem_total_kib'] else None, 1)} GiB RAM, "
             f"load average {' '.join(f'{x:.2f}' for x in host['load_start'])} at the start and "
             f"{' '.join(f'{x:.2f}' for x in host['load_end'])} at the end; "
             f"{r['latency']['rounds']} interleaved rounds, medians; measured phases took {r['elapsed_s']:.0f} s")
    for wl in r["latency"]["workloads"].values():
        p.append(f"## Launch latency: {wl['title']} (ms, {r['latency']['rounds']} rounds)")
        rows = []
        for var in wl["variants"].values():
            if not var["measured"]:
                rows.append([var["label"]] + ["n/a"] * 5)
                continue
            rows.append([var["label"], fmt(var["median_ms"]), fmt(var["p95_ms"]), f"{var['ok']}/{var['runs']}",
                         fmt(var["ratio_to_B"], 2), fmt(var["ratio_to_A"], 2)])
        p.append(table(["variant", "median ms", "p95 ms", "ok", "ratio to B", "ratio to A"], rows))
    b = r["burst"]
    p.append(f"## {b['size']} sessions started at once (`/bin/true`, owners {'/'.join(b['owners'])}, distinct chats; "
             f"{b['bursts']} burst{'s' if b['bursts'] > 1 else ''} each, interleaved)")
    p.append(table(["variant", "ok", "p50 ms", "p95 ms", "max ms", "p95 / own single-launch median",
                    "CPU per launch ms (whole harness)", f"CPU floor ms ({b['size']} x CPU / {b['cpus']} CPUs)"],
                   [[x["label"], f"{x['ok']}/{x['runs']}", fmt(x["p50_ms"]), fmt(x["p95_ms"]), fmt(x["max_ms"]),
                     fmt(x["p95_over_single"], 2), fmt(x["cpu_per_launch_ms"]), fmt(x["cpu_floor_ms"], 0)]
                    for x in b["variants"].values()]))
    h = r["helper"]
    hn = h["hostnamed_rss_mib"]
    lt = r["latency"]["workloads"]["true"]["variants"]
    activation_ms = (lt["cold"]["median_ms"] - lt["warm"]["median_ms"]
                     if lt["cold"].get("median_ms") is not None and lt["warm"].get("median_ms") is not None else None)
    p1b = h["pid1_cpu_per_launch_B_ms"]
    p.append("## Helper (native-runtimed)")
    p.append(table(["measure", "value", "baseline", "baseline value", "ratio"], [
        ["RSS idle, MiB", fmt(h["rss_idle_mib"], 2), "systemd-hostnamed RSS idle", fmt(hn, 2),
         fmt(ratio(h["rss_idle_mib"], hn), 2)],
        ["RSS idle: anon / file-backed, MiB", f"{fmt(h['rss_idle_anon_mib'], 2)} / {fmt(h['rss_idle_file_mib'], 2)}",
         "", "", ""],
        [f"staying idle ({h['idle_window_s']} s measured): wake-ups per minute / CPU ms per minute",
         f"{fmt(h['idle_wakeups_per_min'], 1)} / {fmt(h['idle_cpu_ms_per_min'], 2)}",
         "an activation instead: cold minus warm launch median, ms (`/bin/true`)", fmt(activation_ms), ""],
        [f"RSS peak under {b['size']} sessions, MiB", fmt(h["rss_peak_burst_mib"], 2), "systemd-hostnamed RSS idle",
         fmt(hn, 2), fmt(ratio(h["rss_peak_burst_mib"], hn), 2)],
        ["CPU per launch, sequential, ms", fmt(h["cpu_per_launch_sequential_ms"], 2), "PID 1 CPU per systemd-run launch",
         fmt(p1b, 2), fmt(ratio(h["cpu_per_launch_sequential_ms"], p1b), 2)],
        [f"CPU per launch, {b['size']} at once, ms", fmt(h["cpu_per_launch_burst_ms"], 2),
         "PID 1 CPU per systemd-run launch", fmt(p1b, 2), fmt(ratio(h["cpu_per_launch_burst_ms"], p1b), 2)],
        ["PID 1 CPU per native-runtimectl launch, ms", fmt(h["pid1_cpu_per_launch_nr_ms"], 2),
         "PID 1 CPU per systemd-run launch", fmt(p1b, 2), fmt(ratio(h["pid1_cpu_per_launch_nr_ms"], p1b), 2)],
    ]))
    c = r["cpu"]
    p.append(f"## CPU time per launch of `/bin/true` ({c['launches']} sequential launches each, interleaved, medians, ms)")
    p.append(table(["variant", "whole harness", "of which PID 1", "of which helper", "ratio to B"],
                   [[x["label"], fmt(x["all_ms"], 2), fmt(x["pid1_ms"], 2), fmt(x["helper_ms"], 2),
                     fmt(x["ratio_to_B"], 2)] for x in c["variants"].values()]))
    lp = r["loop"]
    p.append(f"## Syscall loop ({lp['iterations']} calls of each, {lp['rounds']} rounds, ns per call)")
    p.append(table(["call", "outside", "A: bare bwrap", "B: systemd-run + bwrap", "session", "ratio session/outside",
                    "overhead vs A %", "overhead vs outside %"],
                   [[call, fmt(x["outside_ns"]), fmt(x["A_ns"]), fmt(x["B_ns"]), fmt(x["session_ns"]),
                     fmt(x["ratio_session_outside"], 3), fmt(x["overhead_vs_A_pct"]), fmt(x["overhead_vs_outside_pct"])]
                    for call, x in lp["calls"].items()]))
    hd = r["held"]
    n = hd["count"]
    p.append(f"## Held sessions: launches while {n} sessions sleep ({hd['launches']} launches per variant and state, "
             "interleaved, median ms)")
    rows = []
    for var, label in (("warm", VARIANT_NAMES["warm"]), ("B", VARIANT_NAMES["B"])):
        x = hd["latency"][var]
        rows.append([label, fmt(x["idle"]["median_ms"]), fmt(x["nr_held"]["median_ms"]), fmt(x["B_held"]["median_ms"]),
                     fmt(x["ratio_nr_held_to_idle"], 2), fmt(x["ratio_B_held_to_idle"], 2)])
    p.append(table(["launching", "idle host", f"{n} product sessions held", f"{n} B units held",
                    "ratio product-held / idle", "ratio B-held / idle"], rows))
    p.append(f"## Held sessions: memory per held session ({n} held; KiB unless stated)")
    rows = []
    mem = hd["memory"]
    for key, label in (("sessions_measured", "sessions measured"),
                       ("processes_pss_kib_per_session", "PSS of the session's processes besides the agent"),
                       ("pid1_rss_kib_per_session", "PID 1 RSS growth"),
                       ("broker_rss_kib_per_session", "dbus-broker RSS growth"),
                       ("helper_rss_kib_per_session", "helper RSS growth"),
                       ("total_kib_per_session", "boundary total (the four above)"),
                       ("client_pss_kib_per_session", "client PSS (native-runtimectl run / systemd-run --wait)"),
                       ("helper_rss_before_mib", "helper RSS tracking none, MiB"),
                       ("helper_rss_held_mib", f"helper RSS tracking {n}, MiB")):
        rows.append([label] + [fmt(mem.get(k, {}).get(key), 1) if key != "sessions_measured"
                               else str(mem.get(k, {}).get(key, "n/a")) for k in ("nr", "B")])
    rows.append(["processes besides the agent"] + ["; ".join(f"{s} (x{cnt})" for s, cnt in
                                                          mem.get(k, {}).get("processes_besides_agent", {}).items())
                                                  or "n/a" for k in ("nr", "B")])
    p.append(table(["per held session", "native-runtime", "B: systemd-run + bwrap"], rows))
    if "gateway" in r:
        p += render_gateway(r["gateway"])
    p.append("## Targets")
    p.append(table(["target", "baseline", "measured", "result"],
                   [[t["target"], t["baseline"], t["measured"], t["result"]] for t in r["targets"]]))
    return "\n\n".join(p + notes_and_failures(r)) + "\n"


def notes_and_failures(r):
    """The closing sections of every table."""
    p = ["## Notes", "\n".join(f"- {x}" for x in r["notes"])]
    if r["failures"]:
        p.append(f"## Failures ({len(r['failures'])})")
        p.append("\n".join(f"- {x}" for x in r["failures"][:50]))
    return p


def render_only_gateway(r):
    """`bench/run --only gateway`: the gateway rows alone."""
    host = r["host"]
    p = [f"# native-runtime bench ({r['mode']} mode, gateway rows only), {r['time']}",
         f"host: {host['node']}, Linux {host['kernel']}, {host['cpus']} CPUs, load average "
         f"{' '.join(f'{x:.2f}' for x in host['load_start'])} at the start and "
         f"{' '.join(f'{x:.2f}' for x in host['load_end'])} at the end; measured phases took {r['elapsed_s']:.0f} s"]
    p += render_gateway(r["gateway"])
    return "\n\n".join(p + notes_and_failures(r)) + "\n"
