#!/usr/bin/env bash
# Set up, build and run every test (README's second command).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The sanitizer job: the runtime tests under ASan + UBSan (build-asan).
bash scripts/test-sanitize.sh
