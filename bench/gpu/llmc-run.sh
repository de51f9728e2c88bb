#!/usr/bin/env bash
# bench/gpu/llmc-run.sh - issue 20's device check, part 2 (on a machine with
# a CUDA device; nvcc and CMake, no clang): both llm.c trainers, GPT-2 124M
# shapes from the synthetic checkpoint, B=4, T=1024, against the originals.
# docs/gpu-runs.md, "llm.c end to end (issue 20)".
#
#   bash bench/gpu/llmc-run.sh PREPARED OUT      (PREPARED from llmc-prepare.sh)
#
# For fp32 and bf16 it
#   1. builds libtidal (CUDA backend), the originals and the rewritten
#      trainers (run-time planner, and the build-time 50% plan) for sm_90;
#   2. runs the original (B=4) twice: losses, median step time of steps >= 3,
#      peak device memory in use (nvidia-smi, minus the idle baseline) - the
#      second run gives the original's own run-to-run loss difference;
#   3. runs the rewritten trainer with no budget pressure (tidal's peak of
#      managed memory P, from TIDAL_STATS), then at TIDAL_BUDGET=100%, 75%
#      and 50% (of the first iteration's peak, measured by the runtime):
#      exit status, largest loss difference to the original, step time and
#      its ratio to the original's;
#   4. finds the largest B (4, 6, 8, 10, 12, 16) that trains under
#      TIDAL_BUDGET = P at B=4, and reports the device memory it used
#      against the original's B=4 peak.
# Everything is logged under OUT; the table is OUT/summary.md.  Budget: about
# 12 minutes on an H100 (STEPS=8 per run by default).
set -uo pipefail
prep=$(cd "${1:?prepared folder}" && pwd); out=$(mkdir -p "${2:-/tmp/llmc-out}" && cd "${2:-/tmp/llmc-out}" && pwd)
cd "$(dirname "$0")/../.."
src=$(pwd)
steps=${STEPS:-8}
sum=$out/summary.md
: > "$sum"
say() { echo "$*" | tee -a "$sum"; }
say "# llm.c on $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
say ""
say "date $(date -u +%Y-%m-%dT%H:%MZ), tidal $(cat "$prep/commit.txt" 2>/dev/null), $(nvcc --version | tail -1)"
arch=${TIDAL_CUDA_ARCHITECTURES:-90}
cmake -S . -B build-gpu -DTIDAL_BUILD_PASS=OFF -DTIDAL_CUDA_ARCHITECTURES=$arch \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/cmake.log" 2>&1 &&
  cmake --build build-gpu -j"$(nproc)" --target tidal > "$out/build.log" 2>&1 ||
  { say "libtidal build failed (build.log)"; exit 1; }
lib=$src/build-gpu/runtime/libtidal.a
inc=$src/include
nvml=; [ -f /usr/include/nvml.h ] || [ -f /usr/local/cuda/include/nvml.h ] && nvml=-lnvidia-ml
w=$out/work; mkdir -p "$w"
cc -O2 "$prep/llm.c/make_synthetic_checkpoint.c" -o "$w/mkckpt" || { say "mkckpt failed"; exit 1; }
mkdir -p "$w/fp32" "$w/bf16"
(cd "$w/fp32" && ../mkckpt 12 12 768 200000 > /dev/null)
(cd "$w/bf16" && ../mkckpt 12 12 768 200000 bf16 > /dev/null)
common=(-O3 -arch=sm_$arch -std=c++17)
build() { # NAME SRC_DIR FILE LIBS...: one trainer
  local name=$1 dir=$2 file=$3; shift 3
  (cd "$dir" && nvcc "${common[@]}" -I. -I"$prep/llm.c" -I"$inc" -include "$prep/shims/cuda13_compat.h" \
     "$file" "$@" -o "$w/$name") > "$out/$name-build.log" 2>&1
}
declare -A FILE=([fp32]=train_gpt2_fp32.cu [bf16]=train_gpt2.cu)
declare -A LIBS=([fp32]="-lcublas" [bf16]="-lcublas -lcublasLt $nvml")
tl=("$lib" -L/usr/local/cuda/lib64/stubs -lcuda -lpthread -ldl -lm)
for v in fp32 bf16; do
  build orig-$v "$prep/llm.c" ${FILE[$v]} ${LIBS[$v]} || say "$v: original failed to build"
  build tidal-$v "$prep/rw-$v" ${FILE[$v]} ${LIBS[$v]} "${tl[@]}" || say "$v: rewritten failed to build ($v tidal-$v-build.log)"
  build tidalplan-$v "$prep/rw-$v-plan" ${FILE[$v]} ${LIBS[$v]} "${tl[@]}" || say "$v: planned rewrite failed to build"
done

idle=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)
# run NAME VARIANT LOG ARGS...: runs in the variant's folder, samples device
# memory every 50 ms; prints the peak in MiB above the idle baseline
run() {
  local bin=$1 v=$2 log=$3; shift 3
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > "$log.mem" 2>/dev/null &
  local mon=$!
  (cd "$w/$v" && timeout ${RUN_TIMEOUT:-300} "$w/$bin" "$@") > "$log" 2>&1
  local rc=$?
  kill $mon 2>/dev/null; wait $mon 2>/dev/null
  echo "$rc $(sort -n "$log.mem" | tail -1 | awk -v i="$idle" '{print $1 - i}')"
}
args() { # VARIANT B
  if [ "$1" = fp32 ]; then echo "-i train.bin -j val.bin -v 1000 -m 2 -s 100000 -g 2 -b $2 -t 1024"
  else echo "-i train.bin -j val.bin -v 1000 -m 2 -s 100000 -g 2 -b $2 -t 1024 -x $steps -o none"; fi
}
losses() { # LOG -> "step loss ms" lines
  if grep -q "train loss" "$1"; then
    sed -n 's/^step *\([0-9]*\)\/[0-9]*: train loss \([0-9.na-]*\) (\([0-9.]*\) ms.*/\1 \2 \3/p' "$1"
  else
    sed -n 's/^step *\([0-9]*\)\/[0-9]* | loss \([0-9.na-]*\) .*| \([0-9.]*\) ms |.*/\1 \2 \3/p' "$1"
  fi | head -n $steps
}
median_ms() { losses "$1" | awk '$1 >= 3 {print $3}' | sort -n | awk '{a[NR]=$1} END {if (NR) print (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print "-"}'; }
maxdiff() {
  paste <(losses "$1" | awk '{print $2}') <(losses "$2" | awk '{print $2}') |
    awk 'BEGIN{m=0; n=0} NF==2 {n++; d=$1-$2; if (d<0) d=-d; if (d>m) m=d} END{if (n) printf "%.2g (%d steps)", m, n; else print "no steps"}'
}
for v in fp32 bf16; do
  say ""
  say "## $v (${FILE[$v]}), B=4, T=1024, $steps steps"
  say ""
  [ -x "$w/orig-$v" ] || { say "original not built"; continue; }
  read -r rc1 mem1 < <(run orig-$v $v "$out/$v-orig.log" $(args $v 4))
  read -r rc2 mem2 < <(run orig-$v $v "$out/$v-orig2.log" $(args $v 4))
  t0=$(median_ms "$out/$v-orig.log")
  say "original: exit $rc1/$rc2, step $t0 ms, device memory in use $mem1 MiB above idle; run-to-run loss difference $(maxdiff "$out/$v-orig.log" "$out/$v-orig2.log")"
  say ""
  say "| build | TIDAL_BUDGET | exit | max loss diff to original | step | x original | device MiB |"
  say "|---|---|---|---|---|---|---|"
  for b in tidal tidalplan; do
    [ -x "$w/$b-$v" ] || continue
    # no pressure: tidal's peak of managed memory (TIDAL_STATS)
    read -r rc mem < <(TIDAL_DEVICE=cuda TIDAL_STATS=1 run $b-$v $v "$out/$v-$b-free.log" $(args $v 4))
    peak=$(awk '/tidal: +peak resident/ {v=$4; u=$5; m=(u=="KiB")?1024:(u=="MiB")?1048576:(u=="GiB")?1073741824:1; printf "%.0f\n", v*m}' "$out/$v-$b-free.log" | sort -n | tail -1)
    say "| $b | none | $rc | $(maxdiff "$out/$v-$b-free.log" "$out/$v-orig.log") | $(median_ms "$out/$v-$b-free.log") ms | - | $mem |"
    [ -n "$peak" ] || { say "| $b | (no tidal peak in its stats: see $v-$b-free.log) |"; continue; }
    echo "$peak" > "$out/$v-$b.peak"
    for pct in 100 75 50; do
      read -r rc mem < <(TIDAL_DEVICE=cuda TIDAL_STATS=1 TIDAL_BUDGET=$pct% run $b-$v $v "$out/$v-$b-$pct.log" $(args $v 4))
      t=$(median_ms "$out/$v-$b-$pct.log")
      x=$(awk -v a="$t" -v b="$t0" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.2f", a/b; else print "-" }')
      say "| $b | $pct% of $peak B | $rc | $(maxdiff "$out/$v-$b-$pct.log" "$out/$v-orig.log") | $t ms | $x | $mem |"
    done
  done
  # the largest B within the original B=4 run's memory
  [ -s "$out/$v-tidal.peak" ] || continue
  p4=$(cat "$out/$v-tidal.peak")
  say ""
  say "largest B under TIDAL_BUDGET=$p4 B (tidal's peak at B=4; original B=4 used $mem1 MiB):"
  say ""
  say "| B | exit | step | tokens/s | device MiB |"
  say "|---|---|---|---|---|"
  for B in 4 6 8 10 12 16; do
    read -r rc mem < <(TIDAL_DEVICE=cuda TIDAL_BUDGET=${p4}B run tidal-$v $v "$out/$v-B$B.log" $(args $v $B))
    t=$(median_ms "$out/$v-B$B.log")
    tps=$(awk -v t="$t" -v b=$B 'BEGIN{ if (t+0 > 0) printf "%.0f", b*1024/(t/1000); else print "-" }')
    say "| $B | $rc | $t ms | $tps | $mem |"
    [ "$rc" = 0 ] || break
  done
done
say ""
say "logs: $out"
