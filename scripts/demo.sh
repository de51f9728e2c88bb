#!/usr/bin/env bash
# Set up, build, and run tidal on a bundled sample (README's first command):
# prints what tidal understood of samples/gpt/train.cu, then proves its plan
# on the CPU simulation backend at half the unmanaged peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target tidal-cli
echo "== tidal graph samples/gpt/train.cu"
build/pass/tidal graph samples/gpt/train.cu
if build/pass/tidal replay --help >/dev/null 2>&1; then
  echo "== tidal replay samples/gpt/train.cu --budget 50%"
  build/pass/tidal replay samples/gpt/train.cu --budget 50%
fi
