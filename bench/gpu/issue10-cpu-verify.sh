#!/usr/bin/env bash
# bench/gpu/issue10-cpu-verify.sh - the device check for issue 10's CPU-side
# work at 50% (stale aliases, copies ordered after the previous holder's
# mark on their stream, deferred host-slot frees): docs/gpu-runs.md, "Stale
# aliases: what to run".  Needs .gpu-ov/ made on a machine with the pass
# (gptbig and gptbignone, as in "Overhead").  About 6 minutes; writes to
# $OUT (default /tmp/out).
set -u
cd "$(dirname "$0")/../.."
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/ov
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$O/card.txt"
git log --oneline -1 >> "$O/card.txt" 2>/dev/null
# 1. correctness first: the CUDA suite (gpu.lazyunmap maps one physical
#    chunk at two addresses and takes it back with no driver call;
#    gpu.property and gpu.roundtrip run random ops under tight budgets)
cmake -S . -B build-gpu -DTIDAL_BUILD_PASS=OFF -DTIDAL_CUDA_ARCHITECTURES=${TIDAL_CUDA_ARCHITECTURES:-90} \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > /tmp/ov/cmake.log 2>&1
(cmake --build build-gpu -j16 > /tmp/ov/build-all.log 2>&1 &&
  timeout 200 ctest --test-dir build-gpu -L gpu -j8 --output-on-failure > /tmp/ov/ctest-gpu.log 2>&1)
echo "ctest rc=$?" | tee -a "$O/card.txt"
grep -E "tests passed|tests failed|\*\*\*" /tmp/ov/ctest-gpu.log | tail -12 >> "$O/card.txt"
cp /tmp/ov/ctest-gpu.log "$O/"
# 2. the overhead table (original vs rewritten at 100/75/50/35%, losses compared)
export GPU_OVERHEAD_STEPS=20 GPU_OVERHEAD_REPEAT=2
timeout 200 bash bench/gpu_overhead.sh .gpu-ov /tmp/ov > /tmp/ov/stdout.log 2>&1
echo "overhead rc=$?" | tee -a "$O/card.txt"
cp /tmp/ov/table.md "$O/table.md"; cp /tmp/ov/costs.txt "$O/costs.txt"
cp /tmp/ov/*.profile "$O/" 2>/dev/null
# 3. counters of a 6-step run at 50% (rebound_chunks high, vmm_calls lower
#    than the 2026-11-26 run's) and a trace of it
peak=$(cat .gpu-ov/gptbig.peak); half=$((peak / 2))
for v in gptbig gptbignone; do
  [ -x build-gpu/$v-tidal ] || continue
  TIDAL_DEVICE=cuda TIDAL_BUDGET=${half}B TIDAL_STATS=1 TIDAL_TRACE=/tmp/ov/$v.json \
    SAMPLE_LOSS_FILE=/tmp/ov/$v.loss timeout 40 build-gpu/$v-tidal 6 > /tmp/ov/$v.log 2>&1
  echo "$v trace rc=$?" >> "$O/card.txt"; grep tidal-stats /tmp/ov/$v.log >> "$O/card.txt"
done
(cd /tmp/ov && tar czf "$O/traces.tgz" gptbig.json gptbignone.json 2>/dev/null)
# 4. the run-time planner judging its plans (Note [keep the faster plan],
#    runtime/policy/plan_exec.c): 20 steps of gptbignone at 100% (not binding:
#    noise must undo nothing) and 50%; the plans built and undone, with the
#    stretches compared, from the trace
for b in 100 50; do
  [ -x build-gpu/gptbignone-tidal ] || break
  TIDAL_DEVICE=cuda TIDAL_BUDGET=$((peak * b / 100))B TIDAL_TRACE=/tmp/ov/undo$b.json \
    SAMPLE_LOSS_FILE=/tmp/ov/undo$b.loss timeout 60 build-gpu/gptbignone-tidal 20 > /tmp/ov/undo$b.log 2>&1
  echo "undo $b% rc=$? plans=$(grep -c '"name":"plan"' /tmp/ov/undo$b.json)" \
    "undone=$(grep -c '"name":"plan_undone"' /tmp/ov/undo$b.json)" >> "$O/card.txt"
  grep '"name":"plan_undone"' /tmp/ov/undo$b.json >> "$O/card.txt"
done
cat "$O/card.txt" "$O/table.md"
