#!/usr/bin/env python3
"""steady_profile.py - a TIDAL_PROFILE v1 file measured on a card, made into
a version 2 profile with the help of a TIDAL_TRACE of the same program on
the same card (runtime/profile.c, Note [cold samples]).

    python3 steady_profile.py PROFILE TRACE.json.gz > OUT.profile

Two things the v1 profile lacks, both taken from the trace's op slices (on
the CUDA backend an op slice is the host's launch window: tidal_op_begin
returned .. tidal_op_end returned):

- The first iteration's one-time costs.  cuBLAS initialises itself and CUDA
  loads each kernel's module at the first launch, on the host, while the
  device waits between the op's two timing events, so the v1 means hold
  them.  A site's cold excess is the sum of its iteration-0 launch windows
  less as many steady windows (the median over iterations 4..N-1); the mean
  loses excess / count, the count the iteration-0 calls (what libtidal now
  writes: iteration 0 left out).
- The launch column: the median steady launch window of the site.  A site
  whose call waits for the device (a cudaMemcpy reading the loss back: its
  window is the device finishing the op before it) gets the median of the
  other cudaMemcpy sites' windows instead; tidal replay models the wait.

Stdlib only; prints what it corrected on stderr."""
import gzip
import json
import statistics
import sys
from collections import defaultdict


def iterations(events):
    its = []
    for e in events:
        if e.get("tid") == 5 and e["ph"] == "B":
            its.append([e["ts"], None])
        elif e.get("tid") == 5 and e["ph"] == "E" and its:
            its[-1][1] = e["ts"]
    return [tuple(x) for x in its if x[1] is not None]


def windows(events, lo, hi):
    """site -> [launch window us] of ops (not recompute wrappers) in [lo, hi]."""
    out, cur = defaultdict(list), None
    for e in events:
        if e.get("tid") != 1 or e["ts"] < lo or e["ts"] > hi:
            continue
        if e["ph"] == "B":
            cur = e if "args" in e and "line" in e["args"] else None
        elif e["ph"] == "E" and cur is not None:
            out["%s:%d" % (cur["args"]["file"], cur["args"]["line"])].append(e["ts"] - cur["ts"])
            cur = None
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: steady_profile.py PROFILE TRACE.json.gz")
    prof_path, trace_path = sys.argv[1], sys.argv[2]
    opener = gzip.open if trace_path.endswith(".gz") else open
    with opener(trace_path, "rt") as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") in ("B", "E")]
    events.sort(key=lambda e: e["ts"])
    its = iterations(events)
    if len(its) < 6:
        sys.exit("steady_profile.py: the trace has %d iterations; 6 or more needed" % len(its))
    cold = windows(events, *its[0])
    steady = defaultdict(list)
    for lo, hi in its[4:]:
        for site, w in windows(events, lo, hi).items():
            steady[site] += w
    med = {site: statistics.median(w) for site, w in steady.items()}
    lines = open(prof_path).read().splitlines()
    if not lines or not lines[0].startswith("# tidal profile v1"):
        sys.exit("steady_profile.py: %s is not a version 1 profile" % prof_path)
    rows = []
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        site, count, mean, label = line.split("\t", 3)
        rows.append([site, int(count), float(mean), label])
    copies = [med[r[0]] for r in rows if r[3].endswith("cudaMemcpy") and r[0] in med]
    nowait = statistics.median(sorted(copies)[: max(1, len(copies) - 1)]) if copies else 0.0
    print("# tidal profile v2: per op site, measured (CUDA events, host clock for launches); "
          "the first iteration left out where the site ran later")
    print("# made by bench/gpu/h200-2026-11-27/steady_profile.py from a v1 profile and a trace")
    print("# file:line\tcount\tmean_seconds\tlaunch_seconds\tlabel")
    before = after = 0.0
    for site, count, mean, label in rows:
        n0 = len(cold.get(site, []))
        launch_us = med.get(site)
        if site in med and n0 < count:
            excess = max(0.0, sum(cold[site]) - n0 * med[site]) if n0 else 0.0
            new_mean = mean - excess * 1e-6 / count
            new_count = count - n0
            if label.endswith("cudaMemcpy") and med[site] > 10 * nowait:
                launch_us = nowait  # its window is a wait for the device
            if excess > 100:
                print("%s %s: mean %.1f us -> %.1f us (%.0f us of iteration 0)"
                      % (site, label, mean * 1e6, new_mean * 1e6, excess), file=sys.stderr)
        else:  # set-up before the loop, or not in the trace: as measured
            new_mean, new_count = mean, count
        if launch_us is None:
            launch_us = 0.0
        print("%s\t%d\t%.9g\t%.9g\t%s" % (site, new_count, new_mean, launch_us * 1e-6, label))
        if count >= 20:
            before += mean * count
            after += new_mean * count
    print("ops of the loop: %.2f ms -> %.2f ms of device time per 20 calls of a per-step op"
          % (before / 20 * 1e3, after / 20 * 1e3), file=sys.stderr)


if __name__ == "__main__":
    main()
