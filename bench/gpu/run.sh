#!/usr/bin/env bash
# bench/gpu/run.sh - issues 19 and 20's GPU check, part 2: everything their
# "Done when" items ask of a card, in one run of under 8 minutes on one
# H100 or H200 (nvcc and CMake there; no clang).  Part 1 is
# bench/gpu/prepare.sh, run on a machine with the pass.
# docs/gpu-runs.md, "The one GPU check (issues 19 and 20)".
#
#   bash bench/gpu/run.sh [options] PREPARED OUT
#
#   --only LIST      phases to run, comma-separated (default: all, in order):
#                    build ctest gpt lenet fp32 bf16 bigb
#   --deadline S     stop starting work S seconds after the start (default
#                    470); each phase's timeout is cut to what is left
#   --steps N        training steps of the gpt and llm.c runs (default 12)
#   --jobs N         parallel build jobs (default: nproc)
#   --work DIR       binaries, data and logs (default /tmp/gpu-run)
#   --help
#
# Phases (each under `timeout`; a phase that fails or times out is recorded
# and the others still run):
#   build  libtidal, the samples and the tests with CMake (CUDA backend,
#          -DTIDAL_BUILD_PASS=OFF, sm_90), and meanwhile, in the background,
#          every program with nvcc: the gpt variant (original, --budget 50%
#          and --plan none rewrites), LeNet (original, rewrite), llm.c fp32
#          and bf16 (originals, rewrites), and the synthetic data
#   ctest  ctest -L gpu: counts, failures, and every skip with its reason
#          (issue 19: nothing may skip for chunk size)
#   gpt    the gpt variant: the original twice, the --budget 50% rewrite at
#          100% and 50% of the original's peak, the --plan none rewrite at
#          50%, the first again at 50% with TIDAL_PREFETCH_ORDER=0: steady step (median of steps >= 3), x original, largest loss
#          difference, and TIDAL_STATS (VMM calls, host time in VMM calls and
#          waiting, peak resident)
#   lenet  the cuDNN LeNet, original and rewritten at TIDAL_BUDGET=8M, 50%
#          (its pooling backward then runs over pieces of its batch) and 64M:
#          classification error, iteration time
#   fp32   llm.c train_gpt2_fp32.cu (synthetic GPT-2 124M, B=4, T=1024):
#          the original twice (its own run-to-run loss difference), the
#          rewrite with no TIDAL_* variable set, and at TIDAL_BUDGET=50% (of
#          the first iteration's peak): losses, step, device memory
#   bf16   llm.c train_gpt2.cu (bf16): the original twice, the rewrite at 50%
#   bigb   fp32: the largest B of 12, 8, 6 that the rewrite trains under
#          TIDAL_BUDGET = its own peak at B=4, and its device memory against
#          the original B=4 run's
# OUT gets summary.md (the tables) and logs.tar.gz (every log), refreshed
# after each phase, so a run cut short still returns what it did (the
# device tool returns at most 8 files from OUT).
set -uo pipefail
usage() { sed -n '/^#   bash bench/,/^#   --help/p' "$0" | sed 's/^# \{0,1\}//'; }
only="build,ctest,gpt,lenet,fp32,bf16,bigb" deadline=470 steps=12 jobs=$(nproc) work=/tmp/gpu-run
pos=()
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=${2:?--only needs a list}; shift 2 ;;
    --deadline) deadline=${2:?--deadline needs seconds}; shift 2 ;;
    --steps) steps=${2:?--steps needs a number}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --work) work=${2:?--work needs a folder}; shift 2 ;;
    --help|-h) usage; exit 0 ;;
    -*) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) pos+=("$1"); shift ;;
  esac
done
[ ${#pos[@]} = 2 ] || { echo "run.sh: expected PREPARED and OUT" >&2; usage >&2; exit 2; }
for n in "$deadline" "$steps" "$jobs"; do
  case $n in ''|*[!0-9]*) echo "run.sh: '$n' is not a number" >&2; exit 2 ;; esac
done
[ "$steps" -ge 4 ] || { echo "run.sh: --steps must be at least 4 (the step time is the median of steps >= 3)" >&2; exit 2; }
for p in ${only//,/ }; do
  case $p in build|ctest|gpt|lenet|fp32|bf16|bigb) ;; *) echo "run.sh: unknown phase '$p'" >&2; exit 2 ;; esac
done
prep=$(cd "${pos[0]}" 2>/dev/null && pwd) || { echo "run.sh: no folder ${pos[0]}" >&2; exit 2; }
for f in gpt/gptbig.tidal.cu gpt/peak lenet/lenet.tidal.cu llmc/rw-fp32/train_gpt2_fp32.cu llmc/rw-bf16/train_gpt2.cu; do
  [ -f "$prep/$f" ] || { echo "run.sh: $prep/$f missing: make PREPARED with bench/gpu/prepare.sh" >&2; exit 2; }
done
out=$(mkdir -p "${pos[1]}" && cd "${pos[1]}" && pwd) || exit 2
cd "$(dirname "$0")/../.."
src=$(pwd)
T0=$SECONDS
mkdir -p "$work/bin" "$work/logs"
work=$(cd "$work" && pwd)
B=$work/bin LOG=$work/logs
sum=$out/summary.md
: > "$sum"
arch=${TIDAL_CUDA_ARCHITECTURES:-90}
lib=$src/build-gpu/runtime/libtidal.a
F=$(cat "$prep/gpt/flags")
peak=$(cat "$prep/gpt/peak")
# llm.c data: fp32 trains one batch of B x T (+1) tokens per step, as many
# steps as the file holds: `steps` at B=4, T=1024, and steps/3 at B=12
ntok=$(( steps * 4096 + 8 ))

say() { echo "$*" | tee -a "$sum"; }
left() { echo $(( deadline - (SECONDS - T0) )); }
# tmo WANT: WANT seconds, or what is left before the deadline
tmo() { local l; l=$(left); [ "$l" -ge 1 ] || l=1; [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
want() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }
save() { tar czf "$out/logs.tar.gz.part" -C "$work" logs 2>/dev/null && mv "$out/logs.tar.gz.part" "$out/logs.tar.gz"; }
phases=()
# phase NAME MIN_SECONDS: whether to run NAME (wanted, and MIN_SECONDS left)
phase() {
  want "$1" || return 1
  if [ "$(left)" -lt "$2" ]; then
    say ""; say "## $1: skipped, out of time ($(left) s left of the ${deadline} s deadline)"
    phases+=("| $1 | skipped: out of time | - |"); return 1
  fi
  PH=$1 PH0=$SECONDS NRUNS=0 NFAILED=0; say ""; return 0
}
# done_phase RESULT: records the phase (and how many of its runs failed)
done_phase() {
  local r=$1
  [ "$NRUNS" -gt 0 ] && r="$r; $NFAILED of $NRUNS runs failed"
  phases+=("| $PH | $r | $((SECONDS - PH0)) |"); save
}
NRUNS=0 NFAILED=0

# ---- helpers -------------------------------------------------------------
# stat LOG LABEL: the "total last-iteration" cells of TIDAL_STATS's row LABEL
stat() {
  grep "^tidal:   $2 " "$1" 2>/dev/null | tail -1 | sed "s/^tidal:   $2 *//; s/  */ /g; s/ $//" | grep . || echo "-"
}
# statcell LOG: the TIDAL_STATS columns of a table row
statcell() {
  echo "$(stat "$1" "VMM driver calls") | $(stat "$1" "  host in VMM calls") | $(stat "$1" "  host waiting") | $(stat "$1" "peak resident")"
}
# bytes "7.68 GiB" -> 8246337208 (rounded down)
bytes() { awk '{m=1; if ($2=="KiB") m=1024; else if ($2=="MiB") m=1048576; else if ($2=="GiB") m=1073741824; else if ($2=="TiB") m=1099511627776; printf "%.0f\n", $1*m}'; }
median() { sort -g | awk '{a[NR]=$1} END {if (!NR) {print "-"; exit} printf "%.2f\n", NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (a+0 > 0 && b+0 > 0) printf "%.2f", a/b; else print "-"}'; }
# maxdiff A B: the largest difference of the losses (second column) of two
# "step loss ms" files, over the steps both have
maxdiff() {
  [ -s "$1" ] && [ -s "$2" ] || { echo "-"; return; }
  paste <(awk '{print $2}' "$1") <(awk '{print $2}' "$2") |
    awk 'NF==2 {n++; d=$1-$2; if (d<0) d=-d; if (d>m) m=d} END{if (n) printf "%.3g (%d steps)", m, n; else print "-"}'
}
# noenv: the env arguments that unset every TIDAL_* variable
noenv() { env | sed -n 's/^\(TIDAL_[A-Za-z0-9_]*\)=.*/-u \1/p' | tr '\n' ' '; }
idle=0
# run LOG SECONDS DIR CMD...: runs CMD in DIR under timeout with device
# memory sampled every 50 ms; sets RC and MEM (MiB above idle at its peak)
run() {
  local log=$1 t=$2 dir=$3; shift 3
  t=$(tmo "$t")
  if [ "$t" -lt 5 ]; then RC=out-of-time MEM=-; echo "not run: out of time" > "$log"; return; fi
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > "$log.mem" 2>/dev/null &
  local mon=$!
  (cd "$dir" && timeout -k 5 "$t" "$@") > "$log" 2>&1
  RC=$?
  NRUNS=$((NRUNS + 1)); [ $RC = 0 ] || NFAILED=$((NFAILED + 1))
  [ $RC = 124 ] || [ $RC = 137 ] && RC="timeout ${t}s"
  kill $mon 2>/dev/null; wait $mon 2>/dev/null
  MEM=$(sort -n "$log.mem" 2>/dev/null | tail -1 | awk -v i="$idle" 'NF {print $1 - i}')
  [ -n "$MEM" ] || MEM=-
}

say "# GPU check (issues 19 and 20): $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say ""
say "date $(date -u +%Y-%m-%dT%H:%MZ); sources rewritten at $(tr '\n' ' ' < "$prep/commit.txt" 2>/dev/null); $(nvcc --version 2>/dev/null | tail -1); $(nproc) cores"
say "command: bench/gpu/run.sh --only $only --deadline $deadline --steps $steps"
idle=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1)
idle=${idle:-0}
say "device memory in use before the runs: $idle MiB"

# ---- build ---------------------------------------------------------------
nvml=; { [ -f /usr/include/nvml.h ] || [ -f /usr/local/cuda/include/nvml.h ]; } && nvml=-lnvidia-ml
tl=("$lib" -ldl -lpthread -lm)
# prog NAME DIR ARGS...: nvcc in DIR, binary B/NAME, log LOG/NAME.build.log
prog() {
  local name=$1 dir=$2; shift 2
  (cd "$dir" && nvcc -arch=sm_$arch "$@" -o "$B/$name") > "$LOG/$name.build.log" 2>&1 ||
    echo "FAILED: nvcc $*" >> "$LOG/$name.build.log"
}
# the programs that need only nvcc, then (once libtidal is built) the rewrites
build_programs() {
  local M=$prep/llmc
  prog gpt-orig "$src" -O2 $F samples/gpt/train.cu -lcublas &
  prog lenet-orig "$work/lenet" -O2 -I. -include cudnn7_compat.h lenet.cu readubyte.cpp -lcublas -lcudnn &
  prog fp32-orig "$M/llm.c" -O3 -std=c++17 -I. -include "$M/shims/cuda13_compat.h" train_gpt2_fp32.cu -lcublas &
  prog bf16-orig "$M/llm.c" -O3 -std=c++17 -I. -include "$M/shims/cuda13_compat.h" train_gpt2.cu -lcublas -lcublasLt $nvml &
  cc -O2 "$M/llm.c/make_synthetic_checkpoint.c" -o "$B/mkckpt" > "$LOG/mkckpt.build.log" 2>&1
  (mkdir -p "$work/fp32" "$work/bf16" && cd "$work/fp32" && "$B/mkckpt" 12 12 768 $ntok &&
     cd "$work/bf16" && "$B/mkckpt" 12 12 768 $ntok bf16) > "$LOG/data.log" 2>&1 &
  (cd "$work/lenet" && python3 make_synthetic_mnist.py .) > "$LOG/mnist.log" 2>&1 &
  while [ ! -f "$work/lib.ok" ] && [ ! -f "$work/lib.failed" ]; do sleep 1; done
  if [ -f "$work/lib.ok" ]; then
    for g in gptbig gptbignone; do
      prog $g "$src" -O2 $F -Iinclude "$prep/gpt/$g.tidal.cu" -lcublas "${tl[@]}" &
    done
    prog lenet-tidal "$work/lenet" -O2 -I. -I"$src/include" -include cudnn7_compat.h lenet.tidal.cu readubyte.cpp \
      -lcublas -lcudnn "${tl[@]}" &
    prog fp32-tidal "$M/rw-fp32" -O3 -std=c++17 -I. -I"$M/llm.c" -I"$src/include" -include "$M/shims/cuda13_compat.h" \
      train_gpt2_fp32.cu -lcublas "${tl[@]}" &
    prog bf16-tidal "$M/rw-bf16" -O3 -std=c++17 -I. -I"$M/llm.c" -I"$src/include" -include "$M/shims/cuda13_compat.h" \
      train_gpt2.cu -lcublas -lcublasLt $nvml "${tl[@]}" &
  fi
  wait
}
rm -f "$work/lib.ok" "$work/lib.failed" "$work/programs.done"
rm -rf "$work/lenet"; cp -r "$prep/lenet" "$work/lenet"
progs_pid=
if phase build 60; then
  say "## build"
  ( build_programs; touch "$work/programs.done" ) &
  progs_pid=$!
  t=$(tmo 240)
  { timeout -k 5 "$t" cmake -S . -B build-gpu -DTIDAL_BUILD_PASS=OFF -DTIDAL_CUDA_ARCHITECTURES="$arch" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    timeout -k 5 "$t" cmake --build build-gpu -j"$jobs" --target tidal; } > "$LOG/cmake.log" 2>&1
  rc=$?
  [ $rc = 0 ] && [ -f "$lib" ] && touch "$work/lib.ok" || touch "$work/lib.failed"
  say "libtidal (CUDA backend): $([ $rc = 0 ] && echo built || echo "FAILED rc=$rc (cmake.log)") after $((SECONDS - PH0)) s"
  t=$(tmo 240)
  timeout -k 5 "$t" cmake --build build-gpu -j"$jobs" >> "$LOG/cmake.log" 2>&1
  brc=$?
  say "libtidal, samples, tests (cmake --build): $([ $brc = 0 ] && echo built || echo "FAILED rc=$brc (cmake.log)") after $((SECONDS - PH0)) s"
  done_phase "$([ $brc = 0 ] && echo ok || echo "failed rc=$brc")"
elif want gpt || want lenet || want fp32 || want bf16 || want bigb; then
  # programs only (libtidal from an earlier build of this checkout)
  [ -f "$lib" ] && touch "$work/lib.ok" || touch "$work/lib.failed"
  ( build_programs; touch "$work/programs.done" ) &
  progs_pid=$!
fi

# ---- ctest -L gpu (the programs may still be compiling) ------------------
if phase ctest 30; then
  say "## ctest -L gpu"
  t=$(tmo 200)
  timeout -k 5 "$t" ctest --test-dir build-gpu -L gpu -j6 --timeout 170 --output-on-failure \
    > "$LOG/ctest-gpu.log" 2>&1
  rc=$?
  say "rc=$rc$([ $rc = 124 ] && echo " (timed out after ${t}s)"): $(grep -E 'tests passed|tests failed' "$LOG/ctest-gpu.log" | tail -1)"
  say "failed: $(sed -n '/tests FAILED:/,$p' "$LOG/ctest-gpu.log" | grep -E '^\s*[0-9]+ - ' | sed 's/^\s*[0-9]* - //' | tr '\n' ' ')"
  # every test's output, skipped ones too (--output-on-failure shows only failures')
  cp build-gpu/Testing/Temporary/LastTest.log "$LOG/ctest-gpu-all.log" 2>/dev/null
  say "skipped: $(grep -E '^\s*[0-9]+ - .*\(Skipped\)' "$LOG/ctest-gpu.log" | sed 's/^\s*[0-9]* - //; s/ (Skipped)//' | tr '\n' ' ')"
  say "skip reasons: $(grep -h '^SKIP:' "$LOG/ctest-gpu-all.log" 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')"
  if grep -qi '^SKIP:.*chunk' "$LOG/ctest-gpu-all.log" 2>/dev/null; then say "**a test skipped for chunk size** (issue 19 says none may)"; fi
  say "slowest: $(grep -E 'Test +#[0-9]+: ' "$LOG/ctest-gpu.log" | sed 's/.*: \([^ ]*\) .* \([0-9.]*\) sec.*/\2 \1/' | sort -rg | head -4 | tr '\n' ' ')"
  done_phase "$( [ $rc = 0 ] && echo ok || echo "rc=$rc")"
fi

# the timed phases need every program built and nothing else on the device
if [ -n "$progs_pid" ]; then
  t=$(tmo 300)
  w0=$SECONDS
  while [ ! -f "$work/programs.done" ] && [ $((SECONDS - w0)) -lt "$t" ]; do sleep 1; done
  [ -f "$work/programs.done" ] || say "programs still compiling after the wait: the phases that need them fail"
  for n in gpt-orig gptbig gptbignone lenet-orig lenet-tidal fp32-orig fp32-tidal bf16-orig bf16-tidal; do
    [ -x "$B/$n" ] || say "not built: $n ($(tail -2 "$LOG/$n.build.log" 2>/dev/null | tr '\n' ' '))"
  done
  save
fi

# ---- gpt variant ---------------------------------------------------------
if phase gpt 20; then
  say "## gpt variant ($F), original's peak $((peak >> 20)) MiB, $steps steps"
  say ""
  say "| program | TIDAL_BUDGET | exit | steady step (ms) | x original | max loss diff to original | VMM calls (total, last iter) | host in VMM calls | host waiting | peak resident |"
  say "|---|---|---|---|---|---|---|---|---|---|"
  G=$LOG/gpt
  mkdir -p "$G"
  run "$G/orig1.log" 60 "$work" env SAMPLE_LOSS_FILE="$G/orig1.txt" "$B/gpt-orig" "$steps"
  rc1=$RC
  run "$G/orig2.log" 60 "$work" env SAMPLE_LOSS_FILE="$G/orig2.txt" "$B/gpt-orig" "$steps"
  o=$(awk '$1 >= 3 {print $3}' "$G/orig1.txt" "$G/orig2.txt" 2>/dev/null | median)
  say "| original (2 runs) | - | $rc1/$RC | $o | 1.00 | $(maxdiff "$G/orig1.txt" "$G/orig2.txt") (run to run) | | | | |"
  # the last row: the A/B of prefetches in need order (the model: 1.24x off, 1.17x on)
  for r in "gptbig 100" "gptbig 50" "gptbignone 50" "gptbig 50 0"; do
    set -- $r
    b=$((peak * $2 / 100))
    f=$G/$1-$2${3:+-order$3}
    run "$f.log" 90 "$work" env TIDAL_DEVICE=cuda TIDAL_BUDGET="${b}B" TIDAL_STATS=1 TIDAL_PREFETCH_ORDER="${3:-1}" SAMPLE_LOSS_FILE="$f.txt" "$B/$1" "$steps"
    s=$(awk '$1 >= 3 {print $3}' "$f.txt" 2>/dev/null | median)
    say "| $1${3:+ (TIDAL_PREFETCH_ORDER=$3)} | $2% (${b}B) | $RC | $s | $(ratio "$s" "$o") | $(maxdiff "$G/orig1.txt" "$f.txt") | $(statcell "$f.log") |"
  done
  done_phase ran
fi

# ---- LeNet ---------------------------------------------------------------
if phase lenet 20; then
  say "## cuDNN LeNet (corpus, seed 7, 300 iterations)"
  say ""
  say "| program | TIDAL_BUDGET | exit | classification error | iteration time | VMM calls (total, last iter) | host in VMM calls | host waiting | peak resident |"
  say "|---|---|---|---|---|---|---|---|---|"
  le() { grep -o 'Classification result: [0-9.]*% error' "$1" | sed 's/Classification result: //' | tail -1; }
  it() { sed -n 's/^Iteration time: \([0-9.]*\) ms/\1 ms/p' "$1" | tail -1; }
  run "$LOG/lenet-orig.log" 60 "$work/lenet" "$B/lenet-orig"
  say "| original | - | $RC | $(le "$LOG/lenet-orig.log") | $(it "$LOG/lenet-orig.log") | | | | |"
  for b in 8M 50% 64M; do
    run "$LOG/lenet-$b.log" 60 "$work/lenet" env TIDAL_DEVICE=cuda TIDAL_BUDGET=$b TIDAL_STATS=1 "$B/lenet-tidal"
    e=$(le "$LOG/lenet-$b.log"); [ -n "$e" ] || e="$(grep -m1 -i 'error\|tidal_op_begin' "$LOG/lenet-$b.log" | cut -c1-160)"
    say "| rewritten (--budget 50%) | $b | $RC | $e | $(it "$LOG/lenet-$b.log") | $(statcell "$LOG/lenet-$b.log") |"
  done
  done_phase ran
fi

# ---- llm.c ---------------------------------------------------------------
# llm.c's per-step lines -> "step loss ms"
llosses() {
  if grep -q "train loss" "$1"; then
    sed -n 's/^step *\([0-9]*\)\/[0-9]*: train loss \([0-9.na-]*\) (\([0-9.]*\) ms.*/\1 \2 \3/p' "$1"
  else
    sed -n 's/^step *\([0-9]*\)\/[0-9]* | loss \([0-9.na-]*\) .*| \([0-9.]*\) ms |.*/\1 \2 \3/p' "$1"
  fi
}
largs() { # VARIANT B
  if [ "$1" = fp32 ]; then echo "-i train.bin -j val.bin -v 1000 -m 2 -s 100000 -g 2 -b $2 -t 1024"
  else echo "-i train.bin -j val.bin -e gpt2_124M_bf16.bin -v 1000 -m 2 -s 100000 -g 2 -b $2 -t 1024 -x $steps -o none"; fi
}
# lrun VARIANT NAME B SECONDS [env...]: one llm.c run; leaves NAME.txt ("step loss ms")
lrun() {
  local v=$1 name=$2 b=$3 t=$4; shift 4
  run "$LOG/$v/$name.log" "$t" "$work/$v" env "$@" "$B/$v-${name%%-*}" $(largs "$v" "$b")
  llosses "$LOG/$v/$name.log" > "$LOG/$v/$name.txt"
}
lstep() { awk '$1 >= 3 {print $3}' "$@" 2>/dev/null | median; }
ptidal=
for v in fp32 bf16; do
  phase $v 30 || continue
  f=train_gpt2.cu; [ $v = fp32 ] && f=train_gpt2_fp32.cu
  say "## llm.c $f (synthetic GPT-2 124M, B=4, T=1024, $steps steps)"
  say ""
  say "| program | TIDAL_* | exit | step (ms, median of steps >= 3) | x original | max loss diff to original | device MiB above idle | VMM calls (total, last iter) | host in VMM calls | host waiting | peak resident |"
  say "|---|---|---|---|---|---|---|---|---|---|---|"
  mkdir -p "$LOG/$v"
  [ -s "$work/$v/train.bin" ] || say "no synthetic data ($(tail -2 "$LOG/data.log" 2>/dev/null | tr '\n' ' '))"
  lrun $v orig-1 4 90
  rc1=$RC m1=$MEM
  lrun $v orig-2 4 90
  o=$(lstep "$LOG/$v/orig-1.txt" "$LOG/$v/orig-2.txt")
  echo "$m1" > "$LOG/$v/orig.mem"
  say "| original (2 runs) | - | $rc1/$RC | $o | 1.00 | $(maxdiff "$LOG/$v/orig-1.txt" "$LOG/$v/orig-2.txt") (run to run) | $m1 | | | | |"
  runs=("tidal-50 TIDAL_DEVICE=cuda TIDAL_BUDGET=50% TIDAL_STATS=1")
  [ $v = fp32 ] && runs=("tidal-none" "${runs[@]}")
  for r in "${runs[@]}"; do
    set -- $r
    name=$1; shift
    if [ $name = tidal-none ]; then lrun $v $name 4 120 $(noenv); else lrun $v $name 4 150 "$@"; fi
    s=$(lstep "$LOG/$v/$name.txt")
    say "| rewritten | ${*:-none set} | $RC | $s | $(ratio "$s" "$o") | $(maxdiff "$LOG/$v/orig-1.txt" "$LOG/$v/$name.txt") | $MEM | $(statcell "$LOG/$v/$name.log") |"
  done
  # tidal's peak at B=4 (the first iteration's, which 50% was taken of)
  p=$(sed -n "s/.*of the first iteration's peak of \([0-9.]* [KMGT]*i*B\).*/\1/p" "$LOG/$v/tidal-50.log" | tail -1)
  [ -n "$p" ] && say "" && say "tidal's peak at B=4 (first iteration): $p"
  [ $v = fp32 ] && [ -n "$p" ] && ptidal=$(echo "$p" | bytes)
  done_phase ran
done

# ---- the largest B within the original B=4 run's memory (fp32) ----------
if phase bigb 40; then
  say "## llm.c fp32: the largest B under TIDAL_BUDGET = tidal's peak at B=4"
  say ""
  if [ -z "$ptidal" ]; then
    say "no peak from the fp32 phase's TIDAL_BUDGET=50% run: not run"
    done_phase "not run"
  else
    m0=$(cat "$LOG/fp32/orig.mem" 2>/dev/null || echo -)
    say "budget ${ptidal}B; the original at B=4 used $m0 MiB of device memory above idle"
    say ""
    say "| B | exit | step (ms) | tokens/s | device MiB above idle | within the original's B=4 memory | max loss | VMM calls (total, last iter) | host in VMM calls | host waiting | peak resident |"
    say "|---|---|---|---|---|---|---|---|---|---|---|"
    for b in 12 8 6; do
      [ "$(left)" -ge 25 ] || { say "| $b | not run: out of time | | | | | | | | | |"; break; }
      lrun fp32 tidal-B$b $b 120 TIDAL_DEVICE=cuda TIDAL_BUDGET="${ptidal}B" TIDAL_STATS=1
      s=$(awk '$1 >= 2 {print $3}' "$LOG/fp32/tidal-B$b.txt" | median)
      tps=$(awk -v t="$s" -v b=$b 'BEGIN{ if (t+0 > 0) printf "%.0f", b*1024/(t/1000); else print "-" }')
      within=$(awk -v a="$MEM" -v b="$m0" 'BEGIN{ if (a+0 > 0 && b+0 > 0) print (a <= b ? "yes" : "no"); else print "-" }')
      ml=$(awk '{print $2}' "$LOG/fp32/tidal-B$b.txt" | sort -g | tail -1)
      say "| $b | $RC | $s | $tps | $MEM | $within | ${ml:--} | $(statcell "$LOG/fp32/tidal-B$b.log") |"
      [ "$RC" = 0 ] && break
    done
    done_phase ran
  fi
fi

[ -n "$progs_pid" ] && kill "$progs_pid" 2>/dev/null
say ""
say "## phases"
say ""
say "| phase | result | seconds |"
say "|---|---|---|"
for p in "${phases[@]}"; do say "$p"; done
say ""
say "total $((SECONDS - T0)) s; logs: logs.tar.gz (logs/: cmake, ctest-gpu, *.build.log, gpt/, lenet-*, fp32/, bf16/)"
save
