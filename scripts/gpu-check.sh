#!/usr/bin/env bash
# GPU checks, for a machine with a CUDA device (no clang needed there).
#
#   scripts/gpu-check.sh REWRITTEN_DIR OUT_DIR
#
# REWRITTEN_DIR holds rewritten samples named SAMPLE[-VARIANT].tidal.cu
# (mlp.tidal.cu, gpt.tidal.cu, gpt-none.tidal.cu ...), made on a machine
# with the pass by `tidal rewrite samples/SAMPLE/train.cu -o ... [--plan
# ...]`.  The script:
#   1. builds libtidal (CUDA backend) and the samples with nvcc for sm_90;
#   2. runs every ctest with the label `gpu` (runtime suite on the CUDA
#      backend; the samples against their CPU references);
#   3. compiles each rewritten sample against libtidal and trains it
#      unmanaged (original program), under tidal with no budget pressure,
#      and under a budget of about half its allocations, comparing the loss
#      curves with the original's, and printing libtidal's statistics.
# Logs go to OUT_DIR; the summary is OUT_DIR/summary.txt.
set -uo pipefail
rw=$(cd "$1" && pwd); out=$(mkdir -p "$2" && cd "$2" && pwd)
cd "$(dirname "$0")/.."
steps=${GPU_CHECK_STEPS:-20}
sum=$out/summary.txt
: > "$sum"
say() { echo "$*" | tee -a "$sum"; }
say "date: $(date -u +%Y-%m-%dT%H:%MZ)"
say "card: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)"
say "nvcc: $(nvcc --version | tail -1)"
cmake -S . -B build-gpu -DTIDAL_BUILD_PASS=OFF -DTIDAL_CUDA_ARCHITECTURES=90 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/build.log" 2>&1 &&
  cmake --build build-gpu -j"$(nproc)" >> "$out/build.log" 2>&1
say "build: rc=$?"
if [ "${GPU_CHECK_SKIP_CTEST:-0}" != 1 ]; then
  ctest --test-dir build-gpu -L gpu -j8 --output-on-failure > "$out/ctest-gpu.log" 2>&1
  say "ctest -L gpu: rc=$? ($(grep -E 'tests passed|tests failed' "$out/ctest-gpu.log"))"
fi
lib=build-gpu/runtime/libtidal.a
losses() { awk '{print $2}' "$1" | tr '\n' ' '; }
# losses are the second column (the samples write "step loss ms" lines)
maxdiff() {
  paste <(awk '{print $2}' "$1") <(awk '{print $2}' "$2") |
    awk 'BEGIN{m=0} {d=$1-$2; if (d<0) d=-d; if (d>m) m=d} END{printf "%.3g", m}'
}
for src in "$rw"/*.tidal.cu; do
  v=$(basename "$src" .tidal.cu); s=${v%%-*}
  bin=build-gpu/$v-tidal
  osrc=; oflags=
  [ -f "$rw/$s.orig" ] && read -r osrc oflags < "$rw/$s.orig"
  nvcc -O2 -arch=sm_90 $oflags -Iinclude "$src" test/gpu/stats_at_exit.c \
    -Xlinker --wrap=tidal_shutdown "$lib" -lcublas -ldl -lpthread -o "$bin" \
    > "$out/$v-compile.log" 2>&1 || { say "$v: rewritten source failed to compile"; continue; }
  # SAMPLE.orig (optional) names the original source and its nvcc flags,
  # e.g. "samples/gpt/train.cu -DGPT_B=8 ..." for a bigger model; the
  # rewritten source must have been made with the same -D flags.
  orig=build-gpu/samples/$s/train
  if [ -n "$osrc" ] && [ ! -x "build-gpu/$s-orig" ]; then
    nvcc -O2 -arch=sm_90 $oflags "$osrc" -lcublas -o "build-gpu/$s-orig" \
      > "$out/$s-orig-compile.log" 2>&1 || say "$s: original failed to compile"
  fi
  [ -n "$osrc" ] && orig=build-gpu/$s-orig
  if [ ! -s "$out/$s-orig.txt" ]; then
    t0=$(date +%s.%N)
    SAMPLE_LOSS_FILE=$out/$s-orig.txt "$orig" "$steps" > "$out/$s-runs.log" 2>&1
    t1=$(date +%s.%N)
    SAMPLE_LOSS_FILE=$out/$s-orig2.txt "$orig" "$steps" >> "$out/$s-runs.log" 2>&1
    say "$s original: $steps steps in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s (whole process)"
    say "$s original losses: $(losses "$out/$s-orig.txt")"
    say "$s original vs original max |diff|: $(maxdiff "$out/$s-orig.txt" "$out/$s-orig2.txt")"
  fi
  # Budgets per sample (GPU_CHECK_BUDGETS_<sample> overrides): the CUDA
  # backend's chunk is 2 MiB, so tensors are evicted in 2 MiB units.
  case $s in
    mlp) budgets="64M 8M" ;; gpt) budgets="64M 24M 20M" ;;
    gptbig) budgets="4G 1G 768M" ;; *) budgets=64M ;;
  esac
  eval "budgets=\${GPU_CHECK_BUDGETS_$s:-\$budgets}"
  for b in $budgets; do
    f=$out/$v-tidal-$b.txt
    t0=$(date +%s.%N)
    TIDAL_DEVICE=cuda TIDAL_BUDGET=$b SAMPLE_LOSS_FILE=$f "$bin" "$steps" > "$out/$v-tidal-$b.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    say "$v tidal budget=$b rc=$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s; max |diff| vs original: $( [ -s "$f" ] && maxdiff "$out/$s-orig.txt" "$f" || echo n/a)"
    say "  $(grep tidal-stats "$out/$v-tidal-$b.log" || tail -3 "$out/$v-tidal-$b.log")"
  done
done
