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
import sys
import tempfile

from simrun import reference_problems, run


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
        ul, us, uo = run(o.twin, args, tmp, "unmanaged", o.chunk, trace=True)
        ml, ms, mo = run(o.twin, args, tmp, "managed", o.chunk, o.budget, trace=True)
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
        fl, _, fo = run(o.twin, args, tmp, "whole", o.chunk, peak, trace=True)
        print(f"self-check at {peak}: {fo.get(o.label, 0)} '{o.label}' ops")
        if fo.get(o.label, 0) != un or fl != ul:
            failed.append(f"self-check: at {peak} '{o.label}' ran {fo.get(o.label, 0)} times "
                          f"(unmanaged {un}), losses {' '.join(fl)}: a budget that holds the "
                          "whole op must run it whole, with the same losses")
        if o.ref:
            failed += reference_problems(ul, run(o.ref, args, tmp, "reference", o.chunk)[0])
    for f in failed:
        print("FAIL: " + f)
    if failed:
        return 1
    print(f"ok: '{o.label}' ran in pieces ({mn - un} more ops) at {o.budget}, losses bit-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
