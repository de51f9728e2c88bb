#!/usr/bin/env bash
# Modelled time overhead of samples/gpt replayed at 100/75/50/35/25% of its
# unmanaged peak, swap-only vs recompute-only vs auto (issue 4, bench/).
# Usage: bench/replay_budgets.sh [BUILD_DIR] [SAMPLE]
# Prints a markdown table: per budget and plan, the managed/unmanaged
# modelled time ratio minus one, the managed peak, the runtime's faults
# (restores no plan call asked for, over both replayed iterations; the first
# also pays the cold start, see docs/replay.md), the plan's own modelled
# peak against the budget ("plan ok" when it fits by itself), and whether
# the replay passed (checksums match, budget respected).  Fault counts vary
# a little from run to run: the sim backend's copy thread races the ops.
set -uo pipefail
build=${1:-build}
sample=${2:-samples/gpt/train.cu}
tidal=$build/pass/tidal
[ -x "$tidal" ] || { echo "no $tidal: build first" >&2; exit 1; }
printf '| budget | swap | recompute | auto |\n|---|---|---|---|\n'
for pct in 100 75 50 35 25; do
  row="| ${pct}% |"
  for plan in swap recompute auto; do
    out=$("$tidal" replay "$sample" --budget "${pct}%" --plan "$plan" --format json 2>/dev/null)
    cell=$(python3 -c '
import json, sys
try:
    r = json.loads(sys.argv[1])
except Exception:
    print("failed"); sys.exit()
if r["managed"]["error"]:
    print("refused (%s)" % r["managed"]["error"].split(":")[2].strip()[:20]); sys.exit()
ov = r["modelled_overhead"] * 100
plan = "plan ok" if r["plan_budget_met"] else "plan %.1f MiB" % (r["plan_peak_after_bytes"] / 2**20)
ok = "" if r["ok"] else " FAIL"
print("%+.1f%%, %.1f MiB, %d faults, %s%s" % (ov, r["peak_managed_bytes"] / 2**20, r["faults"],
                                           plan, ok))
' "$out")
    row="$row $cell |"
  done
  echo "$row"
done
