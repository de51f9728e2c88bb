"""Checks a `tidal fit --format json` answer by replaying it (issue 22).

usage: fit_check.py TIDAL FIT.json PROGRAM BUDGET [tidal options...]

The JSON's `largest` is B: `tidal replay PROGRAM --bind NAME=B --budget
BUDGET` must succeed (it fits: checksums equal, within the budget), and
with NAME=2B it must fail (it does not).  `runs` must hold every value
tried, B among those that fit, none above B that fits."""
import json
import subprocess
import sys


def replay(tidal, prog, name, value, budget, rest):
    return subprocess.run([tidal, "replay", prog, "--bind", f"{name}={value}", "--budget", budget,
                           *rest], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main():
    tidal, path, prog, budget = sys.argv[1:5]
    rest = sys.argv[5:]
    r = json.load(open(path))
    name, b = r["name"], r["largest"]
    if not isinstance(b, int) or b < r["lo"] or b > r["hi"]:
        sys.exit(f"largest is {b!r}, not a value from {r['lo']} to {r['hi']}")
    fits = {x["value"]: x["fits"] for x in r["runs"]}
    if not fits.get(b):
        sys.exit(f"{name}={b} is the answer but its run does not fit: {r['runs']}")
    if any(ok and v > b for v, ok in fits.items()):
        sys.exit(f"a value above {b} fit: {r['runs']}")
    ok = replay(tidal, prog, name, b, budget, rest)
    if ok.returncode != 0:
        sys.exit(f"tidal replay with {name}={b} fails:\n{ok.stdout}\n{ok.stderr}")
    bad = replay(tidal, prog, name, 2 * b, budget, rest)
    if bad.returncode == 0:
        sys.exit(f"tidal replay with {name}={2 * b} (twice the answer) fits too:\n{bad.stdout}")
    print(f"{name}={b} fits {budget}; {name}={2 * b} does not")


main()
