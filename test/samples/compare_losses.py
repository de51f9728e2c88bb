#!/usr/bin/env python3
"""Runs a sample program and checks its per-step losses.

The samples write "step loss" lines (the CUDA programs "step loss ms", ms
being the step's wall time) to the file named by SAMPLE_LOSS_FILE and print
a "config: ..." line with their sizes.

  compare_losses.py --run PROG [--steps N] --falling
      the losses are finite and fall: the mean of the last three steps is
      below the mean of the first three by at least --min-drop (relative).
  compare_losses.py --run PROG --against REF [--steps N]
      PROG and REF (the CPU reference) print the same config and their
      losses agree: step 0 (before any update) within --rtol0, later steps
      within --rtol (updates amplify float round-off differences).
  compare_losses.py --run REF --source train.cu --steps 1
      every NAME=VALUE of REF's config line is the value of train.cu's
      compile-time constant NAME (`static const int NAME = V;` or
      `#define NAME V`): the reference runs at the CUDA program's size.

Exit 77 (a ctest skip) when PROG exits 77, i.e. there is no CUDA device.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77


def run(prog, steps, tmpdir, tag):
    path = os.path.join(tmpdir, tag + ".losses")
    env = dict(os.environ, SAMPLE_LOSS_FILE=path)
    proc = subprocess.run([prog, str(steps)], env=env, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    if proc.returncode == SKIP:
        print(f"{prog}: skipped (exit 77)")
        sys.exit(SKIP)
    if proc.returncode != 0:
        sys.exit(f"error: {prog} exited with {proc.returncode}")
    config = [l for l in proc.stdout.splitlines() if l.startswith("config:")]
    losses = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) not in (2, 3):
                sys.exit(f"error: {prog}: loss file line {line!r} is not 'step loss [ms]'")
            step, loss = fields[0], fields[1]
            if int(step) != len(losses):
                sys.exit(f"error: {prog}: loss file out of order at step {step}")
            losses.append(float(loss))
    if len(losses) != steps:
        sys.exit(f"error: {prog}: {len(losses)} losses for {steps} steps")
    if not all(math.isfinite(x) for x in losses):
        sys.exit(f"error: {prog}: non-finite loss in {losses}")
    return (config[0] if config else None), losses


def check_source(config, source):
    if config is None:
        sys.exit("error: the program printed no config line")
    with open(source) as f:
        text = f.read()
    for name, value in re.findall(r"(\w+)=(\d+)", config):
        m = re.search(r"(?:static\s+const\s+int\s+%s\s*=|#define\s+%s\s)\s*(\d+)" % (name, name),
                      text)
        if m is None:
            # `static const int B = GPT_B;` with `#define GPT_B 4`: one macro level.
            a = re.search(r"static\s+const\s+int\s+%s\s*=\s*(\w+)\s*;" % name, text)
            if a:
                m = re.search(r"#define\s+%s\s+(\d+)" % a.group(1), text)
        if m is None:
            sys.exit(f"error: {source} defines no constant {name}")
        if int(m.group(1)) != int(value):
            sys.exit(f"error: {source} has {name}={m.group(1)}, the reference {name}={value}")
    print(f"{config} matches {source}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", required=True, help="the program to run")
    ap.add_argument("--against", help="the reference to compare with")
    ap.add_argument("--source", help="train.cu whose constants the config must match")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--falling", action="store_true")
    ap.add_argument("--min-drop", type=float, default=0.05)
    ap.add_argument("--rtol0", type=float, default=1e-4)
    ap.add_argument("--rtol", type=float, default=1e-2)
    args = ap.parse_args()
    if args.steps < 6 and args.falling:
        sys.exit("error: --falling needs at least 6 steps")

    with tempfile.TemporaryDirectory() as tmpdir:
        config, losses = run(args.run, args.steps, tmpdir, "run")
        if args.source:
            check_source(config, args.source)
        if args.falling:
            first = sum(losses[:3]) / 3
            last = sum(losses[-3:]) / 3
            print(f"mean loss of the first 3 steps {first:.6f}, of the last 3 {last:.6f}")
            if not last < first * (1 - args.min_drop):
                sys.exit(f"error: loss did not fall by {args.min_drop:.0%}")
        if args.against:
            ref_config, ref_losses = run(args.against, args.steps, tmpdir, "ref")
            if config != ref_config:
                sys.exit(f"error: sizes differ: {config!r} vs reference {ref_config!r}")
            worst = 0.0
            for step, (a, b) in enumerate(zip(losses, ref_losses)):
                tol = args.rtol0 if step == 0 else args.rtol
                err = abs(a - b) / max(abs(b), 1e-12)
                worst = max(worst, err)
                mark = "" if err <= tol else "  <-- over tolerance"
                print(f"step {step}: {a:.6f} reference {b:.6f} rel diff {err:.2e}{mark}")
                if err > tol:
                    sys.exit(f"error: step {step} loss differs from the reference by {err:.2e}")
            print(f"losses agree with the reference (max rel diff {worst:.2e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
