#!/usr/bin/env bash
# bench/gpu_overhead.sh - the original program against the rewritten one on
# a GPU, at 100/75/50/35% of the original's memory (issue 10).
#
#   bench/gpu_overhead.sh REWRITTEN_DIR OUT_DIR
#
# REWRITTEN_DIR is made on a machine with the pass (docs/gpu-runs.md,
# "Overhead"): V.tidal.cu (rewritten), V.orig ("SOURCE -D..." of the
# original) and V.peak (the original's peak in bytes at 2 MiB chunks, from
# `tidal replay --format json`: peak_unmanaged_bytes) for each variant V.
# On the GPU machine (nvcc, CMake) the script:
#   1. builds libtidal (CUDA backend) and bench/vmm_costs; measures the
#      per-call costs into OUT_DIR/costs.txt (the sim's cost-model format);
#   2. builds the original and the rewritten program;
#   3. runs each for N steps (GPU_OVERHEAD_STEPS, default 25; of "N1 N2",
#      as older callers pass, the last), GPU_OVERHEAD_REPEAT times (default
#      2): the steady-state step time is the median of the per-step wall
#      times of steps >= 3 of every run (the samples write them as the loss
#      file's third column, taken after the loss is read back), which leaves
#      out CUDA start-up, the first iterations and the host store's
#      pinning; the whole-process time is the best run's wall time.  (It
#      used to be (T(25) - T(5)) / 20 of whole-process times, which start-up
#      noise dominated: the same original read 11.3 and 28.6 ms.)
#   4. compares every step's loss with the original's;
#   5. writes OUT_DIR/V.profile (TIDAL_PROFILE of the 100% run: measured op
#      durations for `tidal replay --profile`) and the table OUT_DIR/table.md.
set -uo pipefail
rw=$(cd "$1" && pwd); out=$(mkdir -p "$2" && cd "$2" && pwd)
cd "$(dirname "$0")/.."
steps=${GPU_OVERHEAD_STEPS:-25}
steps=${steps##* }
rep=${GPU_OVERHEAD_REPEAT:-2}
arch=${TIDAL_CUDA_ARCHITECTURES:-90}
tab=$out/table.md
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "card: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)"
  echo "nvcc: $(nvcc --version | tail -1)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo ?)"
} > "$tab"
cmake -S . -B build-gpu -DTIDAL_BUILD_PASS=OFF -DTIDAL_CUDA_ARCHITECTURES="$arch" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/build.log" 2>&1 &&
  cmake --build build-gpu -j"$(nproc)" --target tidal >> "$out/build.log" 2>&1 ||
  { echo "build failed: $out/build.log"; exit 1; }
lib=build-gpu/runtime/libtidal.a
cc -O2 -std=c11 bench/vmm_costs.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcuda \
  -o build-gpu/vmm_costs >> "$out/build.log" 2>&1 && build-gpu/vmm_costs > "$out/costs.txt"
echo "vmm_costs: rc=$? (OUT_DIR/costs.txt)" >> "$tab"

# seconds of one run: prog steps lossfile [env...]
timed() {
  local prog=$1 steps=$2 lf=$3; shift 3
  local t0 t1
  t0=$(date +%s.%N)
  env "$@" SAMPLE_LOSS_FILE="$lf" "$prog" "$steps" >> "$out/runs.log" 2>&1 || { echo fail; return; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b-a}'
}
# $rep runs of: prog steps lossbase [env...]; prints the best whole-process
# time; the runs' loss files are lossbase.1 .. lossbase.$rep.
best() {
  local prog=$1 steps=$2 lb=$3; shift 3
  local b=
  for r in $(seq "$rep"); do
    local t; t=$(timed "$prog" "$steps" "$lb.$r" "$@")
    [ "$t" = fail ] && { echo fail; return; }
    [ -z "$b" ] && b=$t || b=$(awk -v x="$b" -v y="$t" 'BEGIN{print (y<x)?y:x}')
  done
  echo "$b"
}
# ms: the median per-step wall time (third column) of steps >= 3 in the
# given loss files; n/a when the program writes no times.
median_step() {
  awk '$1 >= 3 && NF >= 3 {print $3}' "$@" | sort -g |
    awk '{a[NR] = $1} END {if (!NR) {print "n/a"; exit}
         printf "%.2f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "n/a"}'; }
# the largest difference between two loss files' losses (second column)
maxdiff() {
  paste <(awk '{print $2}' "$1") <(awk '{print $2}' "$2") |
    awk 'BEGIN{m=0} {d=$1-$2; if (d<0) d=-d; if (d>m) m=d} END{printf "%.3g", m}'
}

for src in "$rw"/*.tidal.cu; do
  v=$(basename "$src" .tidal.cu)
  read -r osrc oflags < "$rw/$v.orig"
  peak=$(cat "$rw/$v.peak")
  nvcc -O2 -arch=sm_"$arch" $oflags "$osrc" -lcublas -o "build-gpu/$v-orig" > "$out/$v-compile.log" 2>&1 &&
    nvcc -O2 -arch=sm_"$arch" $oflags -Iinclude "$src" test/gpu/stats_at_exit.c \
      -Xlinker --wrap=tidal_shutdown "$lib" -lcublas -ldl -lpthread -o "build-gpu/$v-tidal" \
      >> "$out/$v-compile.log" 2>&1 || { echo "$v: compile failed ($out/$v-compile.log)" >> "$tab"; continue; }
  o=$(best "build-gpu/$v-orig" "$steps" "$out/$v-orig")
  ostep=$(median_step "$out/$v-orig".*)
  {
    echo
    echo "### $v ($osrc $oflags): peak $((peak >> 20)) MiB; $steps steps, $rep runs"
    echo
    echo "| program | budget | steady step (median, steps >= 3) | x original | whole process ($steps steps, best) | x original | max loss diff | tidal stats |"
    echo "|---|---|---|---|---|---|---|---|"
    echo "| original | - | $ostep ms | 1.00 | ${o} s | 1.00 | - | |"
  } >> "$tab"
  for pct in 100 75 50 35; do
    b=$((peak * pct / 100))
    prof=()
    [ "$pct" = 100 ] && prof=(TIDAL_PROFILE="$out/$v.profile")
    t=$(best "build-gpu/$v-tidal" "$steps" "$out/$v-$pct" TIDAL_DEVICE=cuda TIDAL_BUDGET="${b}B" "${prof[@]}")
    if [ "$t" = fail ]; then
      echo "| rewritten | $pct% ($((b >> 20)) MiB) | failed | | | | | see runs.log |" >> "$tab"
      continue
    fi
    step=$(median_step "$out/$v-$pct".*)
    stats=$(grep tidal-stats "$out/runs.log" | tail -1 | sed 's/^tidal-stats: //')
    echo "| rewritten | $pct% ($((b >> 20)) MiB) | $step ms | $(ratio "$step" "$ostep") | $t s | $(ratio "$t" "$o") | $(maxdiff "$out/$v-orig.1" "$out/$v-$pct.1") | $stats |" >> "$tab"
  done
done
cat "$tab"
