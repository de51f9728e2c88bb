#!/usr/bin/env bash
# bench/gpu/llmc-prepare.sh - issue 20's device check, part 1 (here, on a
# machine with the pass): copies llm.c from the corpus and rewrites both
# trainers for bench/gpu/llmc-run.sh (part 2, on the GPU machine, no clang
# needed).  docs/gpu-runs.md, "llm.c end to end (issue 20)".
#
#   bash bench/gpu/llmc-prepare.sh [OUT]        (default .gpu-llmc; about 2 minutes)
#
# OUT/llm.c, OUT/shims: the corpus programs as they are (the originals).
# OUT/rw-fp32/, OUT/rw-bf16/: `tidal rewrite FILE -o DIR/` (the trainer and
#   the llmc/ headers with op sites, rewritten; the other project headers
#   copied), no --bind: the sizes come from the checkpoint at run time, the
#   run-time planner decides (docs/samples.md, "Sizes read at run time").
# OUT/rw-*-plan/: the same with the GPT-2 124M config of the synthetic
#   checkpoint and B=4, T=1024 bound and --budget 50%: a build-time plan.
# OUT/*.rewrite.log: tidal's warnings and summary line for each.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(pwd)
out=${1:-.gpu-llmc}
corpus=${CORPUS:-$src/../shared/corpus}
tidal=${TIDAL:-$src/build/pass/tidal}
[ -d "$corpus/llm.c" ] || { echo "no corpus at $corpus (set CORPUS)" >&2; exit 2; }
[ -x "$tidal" ] || { echo "no tidal at $tidal (build it, or set TIDAL)" >&2; exit 2; }
rm -rf "$out"; mkdir -p "$out"; out=$(cd "$out" && pwd)
cp -r "$corpus/llm.c" "$out/llm.c"
cp -r "$corpus/shims" "$out/shims"
flags=(-I. -std=c++17 -include ../shims/cuda13_compat.h)
# GPT-2 124M as make_synthetic_checkpoint writes it (maxT 1024, V 50257, Vp 50304)
cfg=(--bind model.config.max_seq_len=1024 --bind model.config.vocab_size=50257
     --bind model.config.padded_vocab_size=50304 --bind model.config.num_layers=12
     --bind model.config.num_heads=12 --bind model.config.channels=768 --bind B=4 --bind T=1024)
cd "$out/llm.c"
for v in fp32 bf16; do
  f=train_gpt2.cu; [ $v = fp32 ] && f=train_gpt2_fp32.cu
  "$tidal" rewrite $f -o "$out/rw-$v/" -- "${flags[@]}" > "$out/$v.rewrite.log" 2>&1 ||
    { tail -5 "$out/$v.rewrite.log"; echo "rewrite of $f failed" >&2; exit 1; }
  "$tidal" rewrite $f -o "$out/rw-$v-plan/" --budget 50% "${cfg[@]}" -- "${flags[@]}" \
    > "$out/$v-plan.rewrite.log" 2>&1 ||
    { tail -5 "$out/$v-plan.rewrite.log"; echo "planned rewrite of $f failed" >&2; exit 1; }
  grep -h "summary" "$out/$v.rewrite.log" "$out/$v-plan.rewrite.log"
done
git -C "$src" log --oneline -1 > "$out/commit.txt" 2>/dev/null || true
echo "prepared $out: now, on the GPU machine, bash bench/gpu/llmc-run.sh $out OUTDIR"
