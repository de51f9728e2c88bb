#!/usr/bin/env python3
"""Trains a sim twin (a sample's `tidal rewrite` output run on the CPU with
libtidal's sim backend, samples/simcuda) unmanaged and under TIDAL_BUDGET,
and checks what issue 9 asks of a program whose sizes are read at run time:

  - per-step losses bit-identical to the unmanaged run (the loss file's
    %.9g round-trips a float exactly, so equal text is equal bits);
  - the managed run's steady-state peak (its last iteration's peak resident
    bytes, from tidal_stats) and its budget are at most PCT% of the
    unmanaged peak;
  - the run-time planner acted (swap-outs, prefetches, drops, recomputes);
  - the rewriter's candidate hints reached the runtime (run or skipped).

usage: sim_budget.py --twin PROG --config CFG [--steps N] [--budget PCT]
                     [--chunk SIZE] [--ref REF]

The checker is shown to fail where it must, in the same run: a managed run
at a budget above PCT must be reported over budget, and a run with another
config file (so other sizes: the sizes really come from the file) must be
reported with different losses.  --ref REF: the unmanaged losses also agree
with the CPU reference within round-off (its default sizes are CFG's).
Environment: TIDAL_BUDGET, TIDAL_PLANNER and TIDAL_CHUNK are set here; the
caller's are ignored."""
import argparse
import os
import sys
import tempfile

from simrun import reference_problems, run

ACTIONS = ("planner_swap_outs", "planner_prefetches", "planner_drops", "planner_recomputes")


def problems(un, man, pct, steps):
    """What the managed run (losses, stats) gets wrong against the unmanaged one."""
    (ul, us, _), (ml, ms, _) = un, man
    out = []
    if len(ul) != steps or len(ml) != steps:
        out.append(f"expected {steps} losses, got {len(ul)} unmanaged and {len(ml)} managed")
    diff = [i for i in range(min(len(ul), len(ml))) if ul[i] != ml[i]]
    if diff:
        i = diff[0]
        out.append(f"losses differ from step {i}: {ml[i]} managed, {ul[i]} unmanaged")
    limit = us["total.peak_resident_bytes"] * pct // 100
    if ms["budget_bytes"] > limit:
        out.append(f"budget {ms['budget_bytes']} B is over {pct}% of the unmanaged peak "
                   f"({limit} B)")
    if ms["last.peak_resident_bytes"] > limit:
        out.append(f"steady-state peak {ms['last.peak_resident_bytes']} B is over {pct}% of "
                   f"the unmanaged peak ({limit} B)")
    if sum(ms["total." + a] for a in ACTIONS) == 0:
        out.append("the run-time planner took no action")
    if ms["total.hints_run"] + ms["total.hints_skipped"] == 0:
        out.append("no build-time candidate hint was called")
    if ms["iterations"] != steps:
        out.append(f"{ms['iterations']} iterations ended, expected {steps}")
    return out


def summary(tag, r):
    ls, st, _ = r
    acts = ", ".join(f"{a[8:]} {st['total.' + a]}" for a in ACTIONS)
    return (f"{tag}: peak {st['total.peak_resident_bytes']} B (last iteration "
            f"{st['last.peak_resident_bytes']} B), budget {st['budget_bytes']} B, "
            f"faults {st['total.faults']}, planner: {acts}, hints run {st['total.hints_run']} "
            f"skipped {st['total.hints_skipped']}; losses {' '.join(ls)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--twin", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--budget", type=int, default=50)
    ap.add_argument("--chunk", default="64K")
    ap.add_argument("--ref")
    o = ap.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        args = [o.config, str(o.steps)]
        un = run(o.twin, args, tmp, "unmanaged", o.chunk)
        man = run(o.twin, args, tmp, "managed", o.chunk, f"{o.budget}%")
        for tag, r in (("unmanaged", un), ("managed", man)):
            print(summary(tag, r))
        if sum(un[1]["total." + a] for a in ACTIONS) or un[1]["total.swapped_out_bytes"]:
            failed.append("the unmanaged run swapped: it is no baseline")
        failed += problems(un, man, o.budget, o.steps)

        # The checks can fail: a budget above PCT is over it ...
        loose = run(o.twin, args, tmp, "loose", o.chunk, f"{min(100, o.budget + 40)}%")
        if not any("peak" in p for p in problems(un, loose, o.budget, o.steps)):
            failed.append(f"self-check: a run at {o.budget + 40}% was not reported over "
                          f"{o.budget}%")
        # ... and other sizes from another config file train differently.
        other = os.path.join(tmp, "other.cfg")
        with open(o.config) as src, open(other, "w") as dst:
            for line in src:
                key = line.split("#")[0].split("=")[0].strip()
                dst.write("batch = 512\n" if key == "batch" else line)
        resized = run(o.twin, [other, str(o.steps)], tmp, "other-config", o.chunk, f"{o.budget}%")
        print(summary("other config (batch = 512), managed", resized))
        if not any("losses differ" in p for p in problems(un, resized, o.budget, o.steps)):
            failed.append("self-check: a run with batch = 512 was not reported different")
        if resized[1]["total.peak_resident_bytes"] <= man[1]["total.peak_resident_bytes"]:
            failed.append("a larger batch from the config file did not raise the peak")

        if o.ref:
            failed += reference_problems(un[0], run(o.ref, [str(o.steps)], tmp, "reference",
                                                    o.chunk)[0])
    for f in failed:
        print("FAIL: " + f)
    if failed:
        return 1
    print(f"ok: losses bit-identical at {o.budget}% of the peak, no --bind")
    return 0


if __name__ == "__main__":
    sys.exit(main())
