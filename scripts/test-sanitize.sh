#!/usr/bin/env bash
# The sanitizer job (part of scripts/test.sh, README's test command): builds
# in build-asan with -DTIDAL_SANITIZE=address,undefined and runs each suite
# listed in SUITES under it.  A UBSan finding aborts its test; an ASan
# finding (leak included) fails it.  Debug build (assertions and the
# one-thread check on), at -O1 so the property tests stay within a minute.
#
# To add a suite (the pass's lit tests, say): write a run_<name> function
# below and add <name> to SUITES.  TIDAL_SANITIZE_SUITES="runtime" runs a
# subset; TIDAL_SANITIZE_DIR picks the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${TIDAL_SANITIZE_DIR:-build-asan}
SUITES=${TIDAL_SANITIZE_SUITES:-runtime}
jobs=$(nproc)

configure() {
  cmake -S . -B "$dir" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DTIDAL_SANITIZE=address,undefined \
    -DTIDAL_BUILD_PASS="${TIDAL_SANITIZE_PASS:-OFF}" -DTIDAL_BUILD_SAMPLES=OFF >/dev/null
}

# The runtime's C tests on the sim backend (label runtime); the ctest
# entries set ASAN_OPTIONS=handle_segv=0 for the SIGSEGV oracle.
run_runtime() {
  local targets
  targets=$(sed -n '/^set(TIDAL_RUNTIME_TESTS/,/)/p' test/runtime/CMakeLists.txt |
            tr -d '()' | sed 's/set//; s/TIDAL_RUNTIME_TESTS//' | tr -s ' \n' ' ')
  local t args=()
  for t in $targets; do args+=(--target "rt_test_$t"); done
  cmake --build "$dir" -j"$jobs" "${args[@]}"
  ctest --test-dir "$dir" -L runtime --output-on-failure -j"$jobs"
}

configure
for s in $SUITES; do
  echo "== sanitize: $s (address,undefined)"
  "run_$s"
done
