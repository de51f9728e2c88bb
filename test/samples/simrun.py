"""simrun.py - running a sample's sim twin, shared by sim_budget.py and
sim_split.py: the twin (or the plain-C reference) with the sim backend and
a clean TIDAL_* environment, its per-step losses and libtidal's stats read
back, and the check of a twin's losses against the reference's."""
import json
import os
import subprocess
import sys


def run(prog, args, tmp, tag, chunk, budget=None, trace=False):
    """Runs prog; returns (losses as text, stats dict, op slice counts by
    name).  The counts come from a TIDAL_TRACE written when trace is set
    (else {}); the reference has no libtidal, so no stats and no counts."""
    losses, stats = os.path.join(tmp, tag + ".losses"), os.path.join(tmp, tag + ".stats")
    trace_file = os.path.join(tmp, tag + ".trace.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIDAL_")}
    env.update(TIDAL_DEVICE="sim", TIDAL_CHUNK=chunk, SAMPLE_LOSS_FILE=losses,
               SIMCUDA_STATS_FILE=stats)
    if trace:
        env["TIDAL_TRACE"] = trace_file
    if budget:
        env["TIDAL_BUDGET"] = budget
    p = subprocess.run([prog] + args, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {tag}: {prog} exited with {p.returncode}\n{p.stdout}{p.stderr}")
    st, ops = {}, {}
    if os.path.exists(stats):
        with open(stats) as f:
            st = dict((k, int(v)) for k, v in (line.split() for line in f))
        if trace:
            with open(trace_file) as f:
                for ev in json.load(f)["traceEvents"]:
                    if ev.get("ph") == "B" and ev.get("tid") == 1:  # compute (ops)
                        ops[ev["name"]] = ops.get(ev["name"], 0) + 1
    with open(losses) as f:
        ls = [line.split()[1] for line in f]
    return ls, st, ops


def reference_problems(twin, ref):
    """The steps where the twin's loss is off the plain-C reference's: the
    first step's within 1e-4 (same math, other summation order), later ones
    within 1e-2 (the difference grows with training)."""
    out = []
    for i, (a, b) in enumerate(zip(twin, ref)):
        tol = 1e-4 if i == 0 else 1e-2
        if abs(float(a) - float(b)) > tol * abs(float(b)):
            out.append(f"step {i}: twin loss {a}, reference {b} (rtol {tol})")
    return out
