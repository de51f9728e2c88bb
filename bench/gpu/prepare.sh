#!/usr/bin/env bash
# bench/gpu/prepare.sh - issues 19 and 20's GPU check, part 1 (here, on a
# machine with the pass): everything bench/gpu/run.sh needs on the GPU
# machine, which has nvcc and CMake but no clang, in one folder.
# docs/gpu-runs.md, "The one GPU check (issues 19 and 20)".
#
#   bash bench/gpu/prepare.sh [--check] [DIR]     (default DIR .gpu-run; ~3 minutes)
#
# DIR/gpt/     gptbig.tidal.cu (`tidal rewrite --budget 50%`) and
#              gptbignone.tidal.cu (`--plan none`) of samples/gpt/train.cu
#              with the gpt variant's -D flags (DIR/gpt/flags), and the
#              original's peak in bytes from `tidal replay` (DIR/gpt/peak)
# DIR/lenet/   the corpus cuDNN LeNet, seeded and cut to 300 iterations (a
#              scratch copy: LeNet seeds itself from std::random_device),
#              its rewrite at --budget 50% (lenet.tidal.cu), the MNIST
#              generator and the cuDNN 7 shim
# DIR/llmc/    llm.c and the shims as in the corpus (the originals), and
#              rw-fp32/, rw-bf16/: `tidal rewrite FILE -o DIR/` with no
#              --bind (sizes from the checkpoint at run time; the run-time
#              planner decides), the llmc/ headers' op sites rewritten
# DIR/*.rewrite.log   tidal's warnings and summary line of each rewrite
# DIR/commit.txt      the commit the sources were rewritten at
#
# --check also compiles every program, original and rewritten, with nvcc
# -arch=sm_90 (compile only, -c: no libcudnn/NVML needed here), so that a
# source that nvcc rejects is found here and not on the card
# (DIR/nvcc-check.log).
#
# DIR is ignored by git (.gitignore); the device tool sends it only when
# the call names it in carry: run(carry=[".gpu-run"], ...).
# Environment: TIDAL (the tidal executable, default build/pass/tidal),
# CORPUS (default ../shared/corpus beside the checkout).
set -euo pipefail
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
case "${1:-}" in -*) echo "usage: bench/gpu/prepare.sh [--check] [DIR]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.."
src=$(pwd)
out=${1:-.gpu-run}
corpus=${CORPUS:-$src/../shared/corpus}
tidal=${TIDAL:-$src/build/pass/tidal}
[ -d "$corpus/llm.c" ] && [ -d "$corpus/cudnn-training" ] ||
  { echo "prepare.sh: no corpus at $corpus (set CORPUS)" >&2; exit 2; }
[ -x "$tidal" ] || { echo "prepare.sh: no tidal at $tidal (build it, or set TIDAL)" >&2; exit 2; }
# Rewrite into a fresh folder beside DIR and move it into place at the end:
# a failed prepare leaves no half-written DIR behind.
tmp="$out.tmp.$$"
rm -rf "$tmp"; mkdir -p "$tmp"; tmp=$(cd "$tmp" && pwd)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "prepare.sh: $1" >&2; [ -f "${2:-}" ] && tail -5 "$2" >&2; exit 1; }

# 1. the gpt variant (issue 19)
F="-DGPT_B=8 -DGPT_T=256 -DGPT_C=512 -DGPT_L=8 -DGPT_NH=8 -DGPT_V=4096"
mkdir -p "$tmp/gpt"
echo "$F" > "$tmp/gpt/flags"
"$tidal" rewrite samples/gpt/train.cu -o "$tmp/gpt/gptbig.tidal.cu" --budget 50% -- $F \
  > "$tmp/gptbig.rewrite.log" 2>&1 || fail "rewrite of the gpt variant failed" "$tmp/gptbig.rewrite.log"
"$tidal" rewrite samples/gpt/train.cu -o "$tmp/gpt/gptbignone.tidal.cu" --plan none -- $F \
  > "$tmp/gptbignone.rewrite.log" 2>&1 || fail "rewrite --plan none failed" "$tmp/gptbignone.rewrite.log"
# the original's peak (2 MiB chunks): run.sh's budgets are percentages of it
"$tidal" replay samples/gpt/train.cu --budget 100% --format json -- $F 2> "$tmp/gpt-replay.log" |
  python3 -c "import json,sys; print(json.load(sys.stdin)['peak_unmanaged_bytes'])" > "$tmp/gpt/peak" ||
  fail "tidal replay of the gpt variant failed" "$tmp/gpt-replay.log"

# 2. the cuDNN LeNet at 8 MiB (issue 19; docs/gpu-runs.md, "Arenas")
L=$tmp/lenet C=$corpus/cudnn-training
mkdir -p "$L"
sed 's/DEFINE_int32(random_seed, -1,/DEFINE_int32(random_seed, 7,/; s/DEFINE_int32(iterations, 1000,/DEFINE_int32(iterations, 300,/' \
  "$C/lenet.cu" > "$L/lenet.cu"
grep -q 'DEFINE_int32(random_seed, 7,' "$L/lenet.cu" && grep -q 'DEFINE_int32(iterations, 300,' "$L/lenet.cu" ||
  fail "lenet.cu: the seed or iteration flag was not found (the corpus changed?)"
cp "$C/readubyte.cpp" "$C/readubyte.h" "$C/make_synthetic_mnist.py" "$corpus/shims/cudnn7_compat.h" "$L/"
(cd "$L" && "$tidal" rewrite lenet.cu -o lenet.tidal.cu --budget 50% \
   --bind width=28 --bind height=28 --bind context.m_workspaceSize=1048576 \
   --bind test_context.m_workspaceSize=1048576 -- -I. -include cudnn7_compat.h) \
  > "$tmp/lenet.rewrite.log" 2>&1 || fail "rewrite of lenet.cu failed" "$tmp/lenet.rewrite.log"

# 3. llm.c, both trainers, no --bind (issue 20; bench/gpu/llmc-prepare.sh
#    also makes the bound, planned variants)
M=$tmp/llmc
mkdir -p "$M"
cp -r "$corpus/llm.c" "$M/llm.c"
cp -r "$corpus/shims" "$M/shims"
for v in fp32 bf16; do
  f=train_gpt2.cu; [ $v = fp32 ] && f=train_gpt2_fp32.cu
  (cd "$M/llm.c" && "$tidal" rewrite $f -o "$M/rw-$v/" -- -I. -std=c++17 -include ../shims/cuda13_compat.h) \
    > "$tmp/llmc-$v.rewrite.log" 2>&1 || fail "rewrite of $f failed" "$tmp/llmc-$v.rewrite.log"
done
grep -h "summary" "$tmp"/*.rewrite.log || true
git -C "$src" log --oneline -1 > "$tmp/commit.txt" 2>/dev/null || echo unknown > "$tmp/commit.txt"
git -C "$src" status --porcelain --untracked-files=no | grep -q . && echo "(with uncommitted changes)" >> "$tmp/commit.txt"

# 4. optional: nvcc accepts every source (compile only; sm_90)
if [ $check = 1 ]; then
  log=$tmp/nvcc-check.log; : > "$log"
  o=$tmp/.o; mkdir -p "$o"
  cc1() { # NAME DIR nvcc-args...: compile one source in DIR
    local name=$1 dir=$2; shift 2
    echo "== $name" >> "$log"
    if (cd "$dir" && nvcc -c -arch=sm_90 -o "$o/$name.o" "$@") >> "$log" 2>&1; then
      echo "nvcc -c: $name ok"
    else
      echo "nvcc -c: $name FAILED (nvcc-check.log)"; return 1
    fi
  }
  bad=0
  cc1 gpt-orig "$src" -O2 $F samples/gpt/train.cu || bad=1
  for g in gptbig gptbignone; do cc1 $g "$src" -O2 $F -Iinclude "$tmp/gpt/$g.tidal.cu" || bad=1; done
  cc1 lenet-orig "$L" -I. -include cudnn7_compat.h lenet.cu || bad=1
  cc1 lenet-tidal "$L" -I. -I"$src/include" -include cudnn7_compat.h lenet.tidal.cu || bad=1
  for v in fp32 bf16; do
    f=train_gpt2.cu; [ $v = fp32 ] && f=train_gpt2_fp32.cu
    cc1 llmc-$v-orig "$M/llm.c" -O3 -std=c++17 -I. -include "$M/shims/cuda13_compat.h" $f || bad=1
    cc1 llmc-$v-tidal "$M/rw-$v" -O3 -std=c++17 -I. -I"$M/llm.c" -I"$src/include" \
      -include "$M/shims/cuda13_compat.h" $f || bad=1
  done
  rm -rf "$o"
  [ $bad = 0 ] || { cp "$log" "${TMPDIR:-/tmp}/nvcc-check.log"; fail "nvcc rejected a source (${TMPDIR:-/tmp}/nvcc-check.log)"; }
fi

rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "prepared $out ($(du -sh "$out" | cut -f1)); on the GPU machine: bash bench/gpu/run.sh $out \$OUT"
