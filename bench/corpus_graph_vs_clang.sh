#!/usr/bin/env bash
# corpus_graph_vs_clang.sh - cost of `tidal graph` on the corpus programs
# (../shared/corpus) against `clang-19 -fsyntax-only` (host and device, as
# the clang driver checks CUDA) of the same files with the same flags, one
# clang run per file as a build does.  Median of RUNS runs each; the issue's
# bound is 1.3x.
#
# Usage: bench/corpus_graph_vs_clang.sh [BUILD_DIR] [RUNS] [CORPUS]
#        (defaults: build, 3, ../shared/corpus)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
runs=${2:-3}
corpus=${3:-$src/../shared/corpus}
tidal=$(cd "$build" && pwd)/pass/tidal
cuda=${TIDAL_CUDA_PATH:-/usr/local/cuda}
[ -x "$tidal" ] || { echo "no $tidal: build the tidal-cli target first" >&2; exit 1; }
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }
base=(-x cuda "--cuda-path=$cuda" --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version
      -ferror-limit=0 -isystem "$cuda/include/cccl" -I "$src/compat"
      -include tidal_cuda_compat.h)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

bench() { # name dir "files" flags...
  local name=$1 dir=$2 files=$3
  shift 3
  local flags=("$@")
  (
    cd "$corpus/$dir"
    # shellcheck disable=SC2086
    set -- $files
    "$tidal" graph "$@" -o /dev/null -- "${flags[@]}" 2>/dev/null  # warm the cache
    clang_t=$(for _ in $(seq "$runs"); do
      t0=$(now)
      for f in "$@"; do clang-19 -fsyntax-only "${base[@]}" "${flags[@]}" "$f" > /dev/null 2>&1 || true; done
      t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
    done | median)
    tidal_t=$(for _ in $(seq "$runs"); do
      t0=$(now)
      "$tidal" graph "$@" --format json -o /dev/null -- "${flags[@]}" 2>/dev/null
      t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
    done | median)
    printf '%-8s %2d files  clang-19 -fsyntax-only %7.3f s  tidal graph %7.3f s  ratio %s\n' \
      "$name" "$#" "$clang_t" "$tidal_t" "$(ratio "$tidal_t" "$clang_t")"
  )
}

bench gpt2 gpt2.cu "tests/test_train.cu $(cd "$corpus/gpt2.cu" && echo src/*.cu src/layers/*.cu)" -Iinclude
bench p15 cuda-puzzles-p15 "main.cu" -I. -Icommon -include cuda_utils.h -std=c++17
bench lenet cudnn-training "lenet.cu" -I. -include ../shims/cudnn7_compat.h
