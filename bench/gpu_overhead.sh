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
#   3. times each at N1 and N2 steps (GPU_OVERHEAD_STEPS="N1 N2", default
#      "5 25"; best of GPU_OVERHEAD_REPEAT=2): the steady-state step time is
#      (T(N2) - T(N1)) / (N2 - N1), which leaves out start-up, the first
#      iteration and the host store's pinning; the whole-process time is
#      T(N2);
#   4. compares every step's loss with the original's;
#   5. writes OUT_DIR/V.profile (TIDAL_PROFILE of the 100% run: measured op
#      durations for `tidal replay --profile`) and the table OUT_DIR/table.md.
set -uo pipefail
rw=$(cd "$1" && pwd); out=$(mkdir -p "$2" && cd "$2" && pwd)
cd "$(dirname "$0")/.."
read -r n1 n2 <<< "${GPU_OVERHEAD_STEPS:-5 25}"
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
best() { # best of $rep runs: prog steps lossfile [env...]
  local b=
  for _ in $(seq "$rep"); do
    local t; t=$(timed "$@")
    [ "$t" = fail ] && { echo fail; return; }
    [ -z "$b" ] && b=$t || b=$(awk -v x="$b" -v y="$t" 'BEGIN{print (y<x)?y:x}')
  done
  echo "$b"
}
maxdiff() { paste "$1" "$2" | awk 'BEGIN{m=0} {d=$2-$4; if (d<0) d=-d; if (d>m) m=d} END{printf "%.3g", m}'; }

for src in "$rw"/*.tidal.cu; do
  v=$(basename "$src" .tidal.cu)
  read -r osrc oflags < "$rw/$v.orig"
  peak=$(cat "$rw/$v.peak")
  nvcc -O2 -arch=sm_"$arch" $oflags "$osrc" -lcublas -o "build-gpu/$v-orig" > "$out/$v-compile.log" 2>&1 &&
    nvcc -O2 -arch=sm_"$arch" $oflags -Iinclude "$src" test/gpu/stats_at_exit.c \
      -Xlinker --wrap=tidal_shutdown "$lib" -lcublas -ldl -lpthread -o "build-gpu/$v-tidal" \
      >> "$out/$v-compile.log" 2>&1 || { echo "$v: compile failed ($out/$v-compile.log)" >> "$tab"; continue; }
  o1=$(best "build-gpu/$v-orig" "$n1" "$out/$v-orig-$n1.txt")
  o2=$(best "build-gpu/$v-orig" "$n2" "$out/$v-orig-$n2.txt")
  ostep=$(awk -v a="$o1" -v b="$o2" -v n="$((n2 - n1))" 'BEGIN{printf "%.2f", (b-a)/n*1e3}')
  {
    echo
    echo "### $v ($osrc $oflags): peak $((peak >> 20)) MiB; steps $n1 and $n2, best of $rep"
    echo
    echo "| program | budget | steady step | x original | whole process ($n2 steps) | x original | max loss diff | tidal stats |"
    echo "|---|---|---|---|---|---|---|---|"
    echo "| original | - | $ostep ms | 1.00 | ${o2} s | 1.00 | - | |"
  } >> "$tab"
  for pct in 100 75 50 35; do
    b=$((peak * pct / 100))
    prof=()
    [ "$pct" = 100 ] && prof=(TIDAL_PROFILE="$out/$v.profile")
    t1=$(best "build-gpu/$v-tidal" "$n1" "$out/$v-$pct-$n1.txt" TIDAL_DEVICE=cuda TIDAL_BUDGET="${b}B")
    t2=$(best "build-gpu/$v-tidal" "$n2" "$out/$v-$pct-$n2.txt" TIDAL_DEVICE=cuda TIDAL_BUDGET="${b}B" "${prof[@]}")
    if [ "$t1" = fail ] || [ "$t2" = fail ]; then
      echo "| rewritten | $pct% ($((b >> 20)) MiB) | failed | | | | | see runs.log |" >> "$tab"
      continue
    fi
    step=$(awk -v a="$t1" -v b="$t2" -v n="$((n2 - n1))" 'BEGIN{printf "%.2f", (b-a)/n*1e3}')
    stats=$(grep tidal-stats "$out/runs.log" | tail -1 | cut -c1-160)
    echo "| rewritten | $pct% ($((b >> 20)) MiB) | $step ms | $(awk -v a="$step" -v b="$ostep" 'BEGIN{printf "%.2f", a/b}') | $t2 s | $(awk -v a="$t2" -v b="$o2" 'BEGIN{printf "%.2f", a/b}') | $(maxdiff "$out/$v-orig-$n2.txt" "$out/$v-$pct-$n2.txt") | $stats |" >> "$tab"
  done
done
cat "$tab"
