#!/usr/bin/env bash
# The sanitizer job (part of scripts/test.sh, README's test command): builds
# in build-asan with -DTIDAL_SANITIZE=address,undefined and runs each suite
# listed in SUITES under it.  A UBSan finding aborts its test; an ASan
# finding (leak included) fails it.  Debug build (assertions and the
# one-thread check on), at -O1 so the property tests stay within a minute.
#
# Suites: runtime (the runtime's C tests) and pass (the pass's lit tests
# and a fuzz sample).  To add one: write a run_<name> function below and
# add <name> to SUITES.  TIDAL_SANITIZE_SUITES="runtime" runs a subset;
# TIDAL_SANITIZE_DIR picks the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${TIDAL_SANITIZE_DIR:-build-asan}
SUITES=${TIDAL_SANITIZE_SUITES:-runtime pass}
jobs=$(nproc)
case " $SUITES " in *" pass "*) pass_default=ON ;; *) pass_default=OFF ;; esac

configure() {
  cmake -S . -B "$dir" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DTIDAL_SANITIZE=address,undefined \
    -DTIDAL_BUILD_PASS="${TIDAL_SANITIZE_PASS:-$pass_default}" -DTIDAL_BUILD_SAMPLES=OFF >/dev/null
}

# The pass's lit suite run with the ASan+UBSan `tidal` (a leak makes tidal
# exit nonzero, so its test fails), then a fuzz sample (test/fuzz/fuzz.py)
# with it.  Left out of lit: tests that build rewritten programs with nvcc
# against libtidal (nvcc does not link the sanitizer runtime: no_nvcc turns
# the lit feature off, and the tests named nvcc are filtered) and the
# timing-sized ones (opsites-linear's 20,000 launches, the fuzz test).
run_pass() {
  cmake --build "$dir" -j"$jobs" --target tidal-cli tidal-man  # the man page: a lit test reads it
  ASAN_OPTIONS=detect_leaks=1 python3 "${TIDAL_LIT:-/usr/lib/llvm-19/build/utils/lit/lit.py}" \
    -s -j"$jobs" --param no_nvcc=1 --filter-out 'nvcc|opsites-linear|fuzz/' "$dir/test"
  # a smaller unrolling cap: an iteration of 700,000 ops takes 2 s in the
  # release build but minutes under ASan (its allocator)
  python3 test/fuzz/fuzz.py --tidal "$dir/pass/tidal" --n 40 --seed "${TIDAL_FUZZ_SEED:-$(date +%s)}" \
    --timeout 120 --max-size 2000 --extra=--max-ops=100000
}

# The runtime's C tests on the sim backend (label runtime); the ctest
# entries set ASAN_OPTIONS=handle_segv=0 for the SIGSEGV oracle.
run_runtime() {
  # every runtime test program CMake defines (rt_test_*), sim-only ones too
  local t args=()
  for t in $(cmake --build "$dir" --target help | grep -o 'rt_test_[a-z_0-9]*' | sort -u); do
    args+=(--target "$t")
  done
  cmake --build "$dir" -j"$jobs" "${args[@]}"
  ctest --test-dir "$dir" -L runtime --output-on-failure -j"$jobs"
}

configure
for s in $SUITES; do
  echo "== sanitize: $s (address,undefined)"
  "run_$s"
done
