#!/usr/bin/env bash
# Set up, build, and run tidal on a bundled sample (README's first command):
# prints what tidal understood of samples/gpt/train.cu, then proves its plan
# on the CPU simulation backend at half the unmanaged peak memory, ending
# with the summary line (what tidal managed, the peak before and after, the
# modelled overhead) and a memory timeline picture.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target tidal-cli
echo "== tidal graph samples/gpt/train.cu"
build/pass/tidal graph samples/gpt/train.cu
echo "== tidal replay samples/gpt/train.cu --budget 50% --timeline build/gpt-timeline.svg"
build/pass/tidal replay samples/gpt/train.cu --budget 50% --timeline build/gpt-timeline.svg
echo "(open build/gpt-timeline.svg in a browser: resident memory over one iteration;"
echo " docs/images/gpt-timeline-50.svg is an example)"
