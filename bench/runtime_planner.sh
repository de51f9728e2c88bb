#!/usr/bin/env bash
# Run-time planner vs build-time plan vs LRU alone (issue 9): the modelled
# overhead of the last replayed iteration (the steady state: the run-time
# planner records the first iteration and plans from it) at 100/75/50/35% of
# each sample's peak.  100% is the unmanaged run's measured peak, so the
# budget binds nowhere; the other rows are percentages of the modelled peak
# (tidal replay --budget PCT).  Each cell: overhead, and for the run-time
# planner the chunks it swapped out/prefetched/dropped per run.  "run-time +
# build-time candidates" runs the build-time plan's calls as the cold start
# and as evidence (a build-time drop lets the run-time planner drop).
# Usage: bench/runtime_planner.sh [BUILD_DIR]
set -uo pipefail
build=${1:-build}
tidal=$build/pass/tidal
[ -x "$tidal" ] || { echo "no $tidal: build first" >&2; exit 1; }
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
printf '| sample | budget | run-time (--plan none) | run-time + build-time candidates (--plan auto) | build-time plan (--plan auto, hints) | LRU (--plan none, lru) |\n|---|---|---|---|---|---|\n'
for sample in samples/gpt/train.cu samples/mlp/train.cu; do
  peak=$("$tidal" replay "$sample" --plan none --runtime-planner lru --format json | field "d['peak_unmanaged_bytes']")
  for pct in 100 75 50 35; do
    b=$([ $pct = 100 ] && echo "$peak" || echo "$pct%")
    row="| $(basename $(dirname $sample)) | ${pct}% |"
    for cfg in "none runtime" "auto runtime" "auto hints" "none lru"; do
      set -- $cfg
      j=$("$tidal" replay "$sample" --budget "$b" --plan $1 --runtime-planner $2 --iterations 4 --format json 2>/dev/null)
      cell=$(echo "$j" | field "'%+.1f%%%s%s' % (100*d['modelled_overhead_steady'], '' if d['ok'] else ' FAIL', (' (%d/%d/%d)' % (d['runtime_actions']['swap_out'], d['runtime_actions']['prefetch'], d['runtime_actions']['drop'])) if '$2'=='runtime' else '')")
      row="$row $cell |"
    done
    echo "$row"
  done
done
