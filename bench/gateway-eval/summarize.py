#!/usr/bin/env python3
"""Pools the raw figures of several `run --json FILE` runs into one table.

On a loaded machine a round now and then stalls a thread for a few ms, which
moves a 5-round median; pooling the per-round medians of several runs (the
median of all of them, and their range) shows what is typical and what is
noise. The "+transport" columns are differences against `gw-host` (the
gateway on the host's loopback), "+gw" against `direct`.

usage: summarize.py RUN.json [RUN.json...]
"""

import json
import statistics
import sys

ROWS = ["direct", "gw-host", "a1-listener", "a2-socat", "b-pasta", "c-slirp"]


def main():
    runs = []
    for path in sys.argv[1:]:
        with open(path) as raw:
            runs.append(json.load(raw))
    if not runs:
        raise SystemExit("usage: summarize.py RUN.json [RUN.json...]")

    def values(row, key, sub="median"):
        return [result[key][sub] if sub else result[key] for run in runs for result in run[row]]

    def med(row, key, sub="median"):
        return statistics.median(values(row, key, sub))

    rounds = len(values("direct", "token"))
    print("%d runs, %d rounds in all; each cell: median of the per-round medians (ms), "
          "[lowest-highest per-round median]; +gw over `direct`, +transport over `gw-host`.\n" % (len(runs), rounds))
    print("| row | small, new conn | +gw | +transport | small, kept-alive | +gw | +transport "
          "| per SSE token | +gw | +transport | event gap | netns setup | extra PSS KiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in ROWS:
        cells = [row]
        for key in ("small_new", "small_keep", "token"):
            spread = values(row, key)
            value = med(row, key)
            cells += ["%.2f [%.2f-%.2f]" % (value, min(spread), max(spread)),
                      "%+.2f" % (value - med("direct", key)), "%+.2f" % (value - med("gw-host", key))]
        cells.append("%.2f" % med(row, "stream_gaps"))
        setup = values(row, "setup_ms", None)
        cells.append("%.0f [%.0f-%.0f]" % (statistics.median(setup), min(setup), max(setup)))
        cells.append("%.0f" % med(row, "extra_pss_kib", None))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
