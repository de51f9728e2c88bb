#!/usr/bin/env python3
"""Trains a sim twin (a sample's `tidal rewrite` output run on the CPU with
libtidal's sim backend, samples/simcuda) unmanaged and under a budget
smaller than one of its split ops (issue 8: an AdamW step over every
parameter), and checks that the op really ran in pieces and nothing else
changed:

  - per-step losses bit-identical to the unmanaged run (the loss file's
    %.9g round-trips a float exactly, so equal text is equal bits);
  - the op LABEL ran more times in the managed run than in the unmanaged
    one (op slices in TIDAL_TRACE: one per piece), where it ran the same
    number of times each step;
  - the managed run kept its budget (its peak resident bytes, from
    tidal_stats, at most the budget), which is below the unmanaged peak;
  - and, to show the check can fail, a run at the unmanaged peak as the
    budget runs the op whole (the same count as unmanaged).

The budget is the caller's to choose below the op's whole working set (for
samples/gpt's AdamW, docs/samples.md: run whole at that budget, the op
fails with TIDAL_ERR_BUDGET).

usage: sim_split.py --twin PROG --label LABEL --budget SIZE [--steps N]
                    [--chunk SIZE] [--ref REF]

--ref REF: the unmanaged losses also agree with the CPU reference within
round-off.  Environment: TIDAL_BUDGET, TIDAL_TRACE and TIDAL_CHUNK are set
here; the caller's TIDAL_* are ignored."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(prog, args, tmp, tag, chunk, budget=None):
    """Runs prog; returns (losses as text, stats dict, op slice counts by name)."""
    losses, stats = os.path.join(tmp, tag + ".losses"), os.path.join(tmp, tag + ".stats")
    trace = os.path.join(tmp, tag + ".trace.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIDAL_")}
    env.update(TIDAL_DEVICE="sim", TIDAL_CHUNK=chunk, SAMPLE_LOSS_FILE=losses,
               SIMCUDA_STATS_FILE=stats, TIDAL_TRACE=trace)
    if budget:
        env["TIDAL_BUDGET"] = budget
    p = subprocess.run([prog] + args, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {tag}: {prog} exited with {p.returncode}\n{p.stdout}{p.stderr}")
    st, ops = {}, {}
    if os.path.exists(stats):  # the reference has no libtidal
        with open(stats) as f:
            st = dict((k, int(v)) for k, v in (line.split() for line in f))
        with open(trace) as f:
            for ev in json.load(f)["traceEvents"]:
                if ev.get("ph") == "B" and ev.get("tid") == 1:  # compute (ops)
                    ops[ev["name"]] = ops.get(ev["name"], 0) + 1
    with open(losses) as f:
        ls = [line.split()[1] for line in f]
    return ls, st, ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--twin", required=True)
    ap.add_argument("--label", required=True, help="the split op's site label")
    ap.add_argument("--budget", required=True, help="TIDAL_BUDGET of the managed run")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--chunk", default="64K")
    ap.add_argument("--ref")
    o = ap.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        args = [str(o.steps)]
        ul, us, uo = run(o.twin, args, tmp, "unmanaged", o.chunk)
        ml, ms, mo = run(o.twin, args, tmp, "managed", o.chunk, o.budget)
        un, mn = uo.get(o.label, 0), mo.get(o.label, 0)
        print(f"unmanaged: peak {us['total.peak_resident_bytes']} B, {un} '{o.label}' ops; "
              f"losses {' '.join(ul)}")
        print(f"managed at {o.budget}: budget {ms['budget_bytes']} B, peak "
              f"{ms['total.peak_resident_bytes']} B, {mn} '{o.label}' ops; losses {' '.join(ml)}")
        if len(ul) != o.steps or len(ml) != o.steps:
            failed.append(f"expected {o.steps} losses, got {len(ul)} unmanaged and {len(ml)} "
                          "managed")
        diff = [i for i in range(min(len(ul), len(ml))) if ul[i] != ml[i]]
        if diff:
            failed.append(f"losses differ from step {diff[0]}: {ml[diff[0]]} managed, "
                          f"{ul[diff[0]]} unmanaged")
        if un == 0 or un % o.steps:
            failed.append(f"the unmanaged run has {un} '{o.label}' ops, not a whole number "
                          f"per step: wrong label, or it split without a budget")
        if mn <= un:
            failed.append(f"'{o.label}' ran {mn} times managed, {un} unmanaged: it was not split")
        if ms["total.peak_resident_bytes"] > ms["budget_bytes"]:
            failed.append(f"peak {ms['total.peak_resident_bytes']} B is over the budget "
                          f"{ms['budget_bytes']} B")
        if us["total.peak_resident_bytes"] <= ms["budget_bytes"]:
            failed.append("the budget is no smaller than the unmanaged peak: nothing to split for")
        # The check can fail: at the unmanaged peak as the budget the op fits
        # half of it, so it runs whole (tidal_split_elements answers the count).
        peak = str(us["total.peak_resident_bytes"]) + "B"
        fl, _, fo = run(o.twin, args, tmp, "whole", o.chunk, peak)
        print(f"self-check at {peak}: {fo.get(o.label, 0)} '{o.label}' ops")
        if fo.get(o.label, 0) != un or fl != ul:
            failed.append(f"self-check: at {peak} '{o.label}' ran {fo.get(o.label, 0)} times "
                          f"(unmanaged {un}), losses {' '.join(fl)}: a budget that holds the "
                          "whole op must run it whole, with the same losses")
        if o.ref:
            ref = run(o.ref, args, tmp, "reference", o.chunk)[0]
            for i, (a, b) in enumerate(zip(ul, ref)):
                tol = 1e-4 if i == 0 else 1e-2
                if abs(float(a) - float(b)) > tol * abs(float(b)):
                    failed.append(f"step {i}: twin loss {a}, reference {b} (rtol {tol})")
    for f in failed:
        print("FAIL: " + f)
    if failed:
        return 1
    print(f"ok: '{o.label}' ran in pieces ({mn - un} more ops) at {o.budget}, losses bit-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
