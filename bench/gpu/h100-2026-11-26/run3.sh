#!/usr/bin/env bash
# final device session: overhead (worker off / on), vmm_busy, traces, gpu ctest.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/ov
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$O/card.txt"
git log --oneline -1 >> "$O/card.txt" 2>/dev/null
export GPU_OVERHEAD_STEPS=20 GPU_OVERHEAD_REPEAT=2
timeout 170 bash bench/gpu_overhead.sh .gpu-ov /tmp/ov > /tmp/ov/stdout.log 2>&1; echo "overhead rc=$?" | tee -a "$O/card.txt"
cp /tmp/ov/table.md "$O/table.md"; cp /tmp/ov/costs.txt "$O/costs.txt"
cc -O2 -std=c11 bench/vmm_busy.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcuda -o /tmp/vmm_busy && timeout 30 /tmp/vmm_busy > "$O/busy.txt" 2>&1; echo "busy rc=$?" >> "$O/card.txt"
TIDAL_VMM_THREAD=1 timeout 150 bash bench/gpu_overhead.sh .gpu-ov /tmp/ovw > /tmp/ov/stdout-w.log 2>&1; echo "overhead worker rc=$?" | tee -a "$O/card.txt"
cp /tmp/ovw/table.md "$O/table-worker.md"
peak=$(cat .gpu-ov/gptbig.peak); half=$((peak / 2))
for w in 0 1; do for v in gptbig gptbignone; do
  [ -x build-gpu/$v-tidal ] || continue
  TIDAL_VMM_THREAD=$w TIDAL_DEVICE=cuda TIDAL_BUDGET=${half}B TIDAL_STATS=1 TIDAL_TRACE=/tmp/ov/$v-w$w.json \
    SAMPLE_LOSS_FILE=/tmp/ov/$v-w$w.loss timeout 40 build-gpu/$v-tidal 6 > /tmp/ov/$v-w$w.log 2>&1
  echo "$v worker=$w trace rc=$?" >> "$O/card.txt"; grep tidal-stats /tmp/ov/$v-w$w.log >> "$O/card.txt"
done; done
(cd /tmp/ov && tar czf "$O/traces.tgz" *-w0.json *-w1.json) ; rm -f /tmp/ov/*-w?.json
(cmake --build build-gpu -j16 > /tmp/ov/build-all.log 2>&1 && timeout 100 ctest --test-dir build-gpu -L gpu -j8 --output-on-failure > /tmp/ov/ctest-gpu.log 2>&1); echo "ctest rc=$?" | tee -a "$O/card.txt"
grep -E "tests passed|tests failed|\*\*\*" /tmp/ov/ctest-gpu.log | tail -12 >> "$O/card.txt"
(TIDAL_VMM_THREAD=1 timeout 60 ctest --test-dir build-gpu -L gpu -j8 --output-on-failure > /tmp/ov/ctest-gpu-w.log 2>&1); echo "ctest worker rc=$?" | tee -a "$O/card.txt"
grep -E "tests passed|tests failed|\*\*\*" /tmp/ov/ctest-gpu-w.log | tail -12 >> "$O/card.txt"
(cd /tmp && tar czf "$O/ov.tgz" --exclude='*-orig' --exclude='*-tidal' ov ovw)
cat "$O/busy.txt" "$O/card.txt" "$O/table.md" "$O/table-worker.md"
