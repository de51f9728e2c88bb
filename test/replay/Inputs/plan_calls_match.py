"""Checks that `tidal replay` executed exactly the plan calls `tidal rewrite`
emitted: per kind, the number of lines of the rewritten source calling
tidal_swap_out( / tidal_prefetch( / tidal_drop( / tidal_recompute_register( /
tidal_keep( equals replay's actions_executed, and the header's "N not
emitted" equals replay's unemitted_actions.

usage: plan_calls_match.py REWRITTEN.cu REPLAY.json
Prints one line per kind and MATCH, or MISMATCH and exits 1."""
import json
import re
import sys

CALLS = {"swap_out": "tidal_swap_out(", "prefetch": "tidal_prefetch(",
         "drop": "tidal_drop(", "recompute": "tidal_recompute_register(",
         "keep": "tidal_keep("}

src = open(sys.argv[1]).read().splitlines()
rep = json.load(open(sys.argv[2]))
ok = True
for kind, call in CALLS.items():
    emitted = sum(1 for line in src if call in line)
    executed = rep["actions_executed"][kind]
    print(f"{kind} emitted {emitted} executed {executed}")
    ok = ok and emitted == executed
m = re.search(r"plan actions: (\d+) emitted, (\d+) not emitted", "\n".join(src))
if not m:
    print("no plan summary in the rewritten header")
    sys.exit(1)
print(f"not emitted {m.group(2)} unemitted_actions {rep['unemitted_actions']}")
ok = ok and int(m.group(2)) == rep["unemitted_actions"]
ok = ok and int(m.group(1)) == sum(rep["actions_executed"].values())
print("MATCH" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
