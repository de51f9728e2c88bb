#!/usr/bin/env bash
# property_seeds.sh [N] [BUILD] - the runtime's randomized tests with many
# seeds: rt_test_roundtrip and rt_test_property, N seeds each (default 50),
# from BUILD (default build; a build-asan folder runs them sanitized).
# Prints each failing seed (replay: BUILD/test/runtime/rt_test_X SEED) and
# a summary line; exits 1 if any seed failed.
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-50}
build=${2:-build}
export TIDAL_DEVICE=sim ASAN_OPTIONS=handle_segv=0 TSAN_OPTIONS=handle_segv=0
base=$(date +%s)
fail=0
runs=0
t0=$(date +%s)
for t in roundtrip property; do
  bin=$build/test/runtime/rt_test_$t
  [ -x "$bin" ] || { echo "property_seeds: $bin not built"; exit 2; }
  for i in $(seq 1 "$n"); do
    seed=$((base * 1000 + i))
    runs=$((runs + 1))
    if ! "$bin" "$seed" > /tmp/property_seeds.$$.log 2>&1; then
      fail=$((fail + 1))
      echo "FAIL: $bin $seed"
      tail -5 /tmp/property_seeds.$$.log
    fi
  done
done
rm -f /tmp/property_seeds.$$.log
echo "property_seeds: $runs runs, $fail failed, $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ]
