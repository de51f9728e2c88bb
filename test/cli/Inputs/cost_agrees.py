"""The overhead `tidal rewrite` prints agrees with `tidal replay`'s steady
figure (issue 22: one model of cost, Note [one model of cost] in
pass/cli/plan_replay.c).

usage: cost_agrees.py TIDAL TMPDIR PROGRAM [--bind N=V]... [-- FLAGS]

Runs `tidal rewrite PROGRAM --budget 50%` and `tidal replay PROGRAM
--budget 50% --format json` and requires: the rewrite's summary line says
"modelled overhead +X% steady (first iteration +Y%)" and "budget B met", X
is within 25% of the replay's modelled_overhead_steady, Y of its
modelled_overhead_first, and B is the replay's budget_bytes.  A program
the pass cannot plan (no sizes) must be unplanned by both: replay says it
cannot unroll the loop, or gives rewrite's reason."""
import json
import os
import re
import subprocess
import sys


def main():
    tidal, tmp, prog = sys.argv[1:4]
    rest = sys.argv[4:]
    out = os.path.join(tmp, os.path.basename(prog) + ".tidal.cu")
    rw = subprocess.run([tidal, "rewrite", prog, "--budget", "50%", "-o", out, *rest],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rp = subprocess.run([tidal, "replay", prog, "--budget", "50%", "--format", "json", *rest],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    summary = [l for l in rw.stderr.splitlines() if "tidal: summary:" in l]
    if rw.returncode != 0 or len(summary) != 1:
        sys.exit(f"{prog}: rewrite exited {rw.returncode}:\n{rw.stderr}")
    line = summary[0]
    m = re.search(r"no plan: (.*)$", line)
    if m:  # nothing to cost: replay must fail for the same reason
        why = m.group(1).split(" (")[0]
        if rp.returncode == 0 or (why not in rp.stderr and "cannot unroll" not in rp.stderr):
            sys.exit(f"{prog}: rewrite made no plan ({why}) but replay said:\n{rp.stderr}")
        print(f"{prog}: no plan in either: {why}")
        return
    m = re.search(r"budget ([0-9.]+) (MiB|KiB|GiB) met, modelled overhead ([-+][0-9.]+)% steady "
                  r"\(first iteration ([-+][0-9.]+)%\)", line)
    if not m:
        sys.exit(f"{prog}: no budget and steady overhead in the rewrite's summary:\n{line}")
    r = json.loads(rp.stdout)
    unit = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[m.group(2)]
    budget = float(m.group(1)) * unit
    steady, first = float(m.group(3)) / 100, float(m.group(4)) / 100
    rs, rf = r["modelled_overhead_steady"], r["modelled_overhead_first"]
    errs = []
    if abs(steady - rs) > 0.25 * abs(rs) + 0.001:
        errs.append(f"steady overhead: rewrite {steady:+.3f}, replay {rs:+.3f}")
    if abs(first - rf) > 0.25 * abs(rf) + 0.001:
        errs.append(f"first-iteration overhead: rewrite {first:+.3f}, replay {rf:+.3f}")
    if abs(budget - r["budget_bytes"]) > 0.06 * unit:  # the line rounds to 0.1 of its unit
        errs.append(f"budget: rewrite {budget:.0f} B, replay {r['budget_bytes']} B")
    if not r["ok"]:
        errs.append("replay failed")
    if errs:
        sys.exit(f"{prog}: " + "; ".join(errs))
    print(f"{prog}: steady {steady:+.3f} / {rs:+.3f}, first {first:+.3f} / {rf:+.3f}")


main()
