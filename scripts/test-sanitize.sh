#!/usr/bin/env bash
# The sanitizer job (part of scripts/test.sh, README's test command): builds
# in build-asan with -DTIDAL_SANITIZE=address,undefined and runs each suite
# listed in SUITES under it (the thread suite: see run_thread).  A UBSan
# finding aborts its test; an ASan finding (leak included) fails it.  Debug
# build (assertions and the one-thread check on), at -O1 so the property
# tests stay within a minute.
#
# Suites: runtime (the runtime's C tests) and pass (the pass's lit tests
# and a fuzz sample), both in build-asan; thread (the runtime's threaded
# tests under ThreadSanitizer, in its own build-tsan).  To add one: write a
# run_<name> function below and add <name> to SUITES.
# TIDAL_SANITIZE_SUITES="runtime" runs a subset; TIDAL_SANITIZE_DIR and
# TIDAL_TSAN_DIR pick the build folders.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${TIDAL_SANITIZE_DIR:-build-asan}
tsan_dir=${TIDAL_TSAN_DIR:-build-tsan}
SUITES=${TIDAL_SANITIZE_SUITES:-runtime pass thread}
jobs=$(nproc)
case " $SUITES " in *" pass "*) pass_default=ON ;; *) pass_default=OFF ;; esac

configure() {
  case " $SUITES " in *" runtime "* | *" pass "*) ;; *) return 0 ;; esac
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

# Builds every runtime test program CMake defines in build folder $1
# (rt_test_*, sim-only ones too).
build_runtime_tests() {
  local t args=()
  for t in $(cmake --build "$1" --target help | grep -o 'rt_test_[a-z_0-9]*' | sort -u); do
    args+=(--target "$t")
  done
  cmake --build "$1" -j"$jobs" "${args[@]}"
}

# The runtime's C tests on the sim backend (label runtime); the ctest
# entries set ASAN_OPTIONS=handle_segv=0 for the SIGSEGV oracle.
run_runtime() {
  build_runtime_tests "$dir"
  ctest --test-dir "$dir" -L runtime --output-on-failure -j"$jobs"
}

# ThreadSanitizer (a report makes its test exit 66, so it fails) on the
# runtime tests that run more than one thread: the runtime.vmmthread.*
# variants and test_vmmthread.c (the VMM worker, Note [vmm worker] in
# vmmq.c) and the arbiter's (Note [arbiter lock order] in arbiter.c: TSan
# catches a lock-order cycle between the segment's and a slot's mutex).
# The single-threaded tests are left out: TSan finds nothing in them.
# Built with the default compiler, as build-asan is (Debian's clang-19
# ships no TSan runtime unless libclang-rt-19-dev is installed).  Run with
# address randomisation off where setarch can: libtsan before LLVM 18
# (gcc 12's) fails to start under kernels with 32 random mmap bits.
run_thread() {
  cmake -S . -B "$tsan_dir" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DTIDAL_SANITIZE=thread \
    -DTIDAL_BUILD_PASS=OFF -DTIDAL_BUILD_SAMPLES=OFF >/dev/null
  build_runtime_tests "$tsan_dir"
  local norand=()
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    norand=(setarch "$(uname -m)" -R)
  fi
  "${norand[@]}" ctest --test-dir "$tsan_dir" -L runtime -R 'vmmthread|arbiter' \
    --output-on-failure -j"$jobs"
}

configure
for s in $SUITES; do
  case $s in thread) kind=thread ;; *) kind=address,undefined ;; esac
  echo "== sanitize: $s ($kind)"
  "run_$s"
done
