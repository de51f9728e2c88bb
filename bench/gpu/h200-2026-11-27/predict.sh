#!/bin/bash
# predict.sh [TIDAL] [JOBS] [reloc] - the calibrated replay of every measured row
# (measured.tsv: the chunk mechanism the card ran at 8f89452, replayed with
# TIDAL_RELOCATE=0; with "reloc", measured-reloc.tsv: relocation, run 4 of
# the second session, replayed with each row's planner) with this folder's
# costs and profiles; prints a markdown
# table: the card's step against the modelled steady step (ms, error), the
# same as ratios (the card's over the original it measured; the replay's
# over its unmanaged run), and VMM calls per iteration.  Paths are
# resolved from this script; --model-only (the modelled times alone, the
# same figures as a full replay) takes about 5 s a row on one core.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tidal=${1:-$root/build/pass/tidal}
jobs=${2:-1}   # each replay maps the 1.5 GB variant: mind the memory
mech=${3:-chunks}
if [ "$mech" = reloc ]; then tsv=measured-reloc.tsv; export TIDAL_RELOCATE=1
else tsv=measured.tsv; export TIDAL_RELOCATE=0; fi
# the card's runtime issued prefetch hints where called (before Note
# [prefetch order]), as it waited for every copy at the program's sync
export TIDAL_PREFETCH_ORDER=0
F="-DGPT_B=8 -DGPT_T=256 -DGPT_C=512 -DGPT_L=8 -DGPT_NH=8 -DGPT_V=4096"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rel=bench/gpu/h200-2026-11-27
n=0
# the loop runs in the pipe's subshell: its replays are waited for there
# (a wait after the pipe saw none, and the last rows read half-written
# output when JOBS > 1)
grep -v '^#' "$here/$tsv" | { while IFS=$'\t' read -r f1 f2 f3 f4 f5 f6; do
  n=$((n + 1))
  if [ "$mech" = reloc ]; then v=$f1 pl=$f2 b=$f3 c=$f4 m=$f5 ms=$f6 t="$f2 planner"
  else v=$f1 pl=runtime b=$f2 c=$f3 m=$f4 t=$f5 ms=$f6; fi
  if [ "$v" = gptbig ]; then plan="--budget $b% --runtime-planner $pl"; prof=gptbig.profile
  else plan="--plan none --budget $b%"; prof=gptbignone.profile; fi
  echo "$n	$v	$b	$c	$m	$t	$ms" > "$tmp/row$n"
  (cd "$root" && $tidal replay samples/gpt/train.cu $plan --chunk "$c" --costs "$rel/costs.txt" --sync-as-written \
     --profile "$rel/$prof" --model-only --iterations 12 --format json -- $F > "$tmp/out$n.json" 2> "$tmp/err$n" || true) &
  while [ "$(jobs -r | wc -l)" -ge "$jobs" ]; do sleep 1; done
done
wait; }
python3 - "$tmp" <<'PY'
import json, os, sys
d = sys.argv[1]
rows = sorted(int(f[3:]) for f in os.listdir(d) if f.startswith("row"))
print("| variant | budget | chunk | card: step | replay: step | error | card: x | replay: x | error | VMM calls / iteration | table or planner |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for n in rows:
    _, v, b, c, m, t, ms = open(os.path.join(d, "row%d" % n)).read().rstrip("\n").split("\t")
    try:
        r = json.load(open(os.path.join(d, "out%d.json" % n)))
        p = r["modelled_overhead_median"] + 1
        pms = r["modelled_time_median_managed_s"] * 1e3
        e1 = "%+.0f%%" % ((pms / float(ms) - 1) * 100)
        e2 = "%+.0f%%" % ((p / float(m) - 1) * 100)
        print("| %s | %s%% | %s | %.1f ms | %.1f ms | %s | %s | %.2f | %s | %d | %s |"
              % (v, b, c, float(ms), pms, e1, m, p, e2, r["vmm_calls_per_iteration"], t))
    except (OSError, ValueError, KeyError):
        why = open(os.path.join(d, "err%d" % n)).read().strip().splitlines()[-1:] or ["?"]
        print("| %s | %s%% | %s | %s ms | failed: %s | | %s | | | | %s |" % (v, b, c, ms, why[0][:80], m, t))
PY
