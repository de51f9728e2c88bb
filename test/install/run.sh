#!/usr/bin/env bash
# Installs the build into a temporary prefix, checks the layout, then builds
# and runs a consumer through find_package(tidal) and through pkg-config.
# The CUDA consumer (tidal_rewrite_sources) is configured with nvcc for
# sm_90, and built only when `tidal rewrite` is available.  Usage:
#   run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "install test: $*" >&2; exit 1; }
for f in bin/tidal-nvcc include/tidal.h include/tidal/rewrite.h include/tidal/cudnn.h; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
lib=$(find "$prefix" -name libtidal.a | head -1)
[ -n "$lib" ] || fail "missing libtidal.a"
cfg=$(find "$prefix" -path '*cmake/tidal/tidalConfig.cmake' | head -1)
[ -n "$cfg" ] || fail "missing lib/cmake/tidal/tidalConfig.cmake"
pc=$(find "$prefix" -name tidal.pc | head -1)
[ -n "$pc" ] || fail "missing lib/pkgconfig/tidal.pc"
if [ -e "$build/pass/tidal" ]; then
  [ -x "$prefix/bin/tidal" ] || fail "missing bin/tidal"
  [ -e "$prefix/share/man/man1/tidal.1" ] || fail "missing share/man/man1/tidal.1"
  [ -e "$prefix/share/bash-completion/completions/tidal" ] || fail "missing bash completion"
  [ -e "$prefix/share/tidal/compat/tidal_cuda_compat.h" ] || fail "missing share/tidal/compat"
fi

# find_package(tidal): configure (with the CUDA target), build, run.
cuda_build=OFF
if [ -x "$prefix/bin/tidal" ] && "$prefix/bin/tidal" rewrite --help >/dev/null 2>&1; then
  cuda_build=ON
fi
cmake -S "$src/test/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCONSUMER_CUDA=$([ -x "$prefix/bin/tidal" ] && echo ON || echo OFF) \
  -DCONSUMER_CUDA_BUILD=$cuda_build >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; fail "consumer configure failed"; }
# tidal_rewrite_sources keeps the original source in the compilation
# database (tidal -p BUILD_DIR finds the file the user edits).
if [ -x "$prefix/bin/tidal" ]; then
  grep -q "\"file\": \"$src/test/install/consumer/train.cu\"" "$tmp/consumer/compile_commands.json" ||
    fail "no compile_commands.json entry for the original train.cu"
  "$prefix/bin/tidal" graph "$src/test/install/consumer/train.cu" -p "$tmp/consumer" -o "$tmp/graph.txt" \
    2>/dev/null || fail "tidal graph -p BUILD_DIR failed on the original source"
fi
cmake --build "$tmp/consumer" -j2 >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; fail "consumer build failed"; }
"$tmp/consumer/consumer" | grep -q "consumer: ok" || fail "consumer (cmake) did not run"
[ $cuda_build = ON ] && echo "install test: CUDA consumer rewritten and built" ||
  echo "install test: CUDA consumer configured only (tidal rewrite not available)"

# pkg-config, relocated: only the installed prefix is on the path.
export PKG_CONFIG_PATH=$(dirname "$pc")
cc -std=c11 $(pkg-config --cflags tidal) "$src/test/install/consumer/main.c" \
  $(pkg-config --libs tidal) -o "$tmp/consumer-pc" || fail "pkg-config build failed"
"$tmp/consumer-pc" | grep -q "consumer: ok" || fail "consumer (pkg-config) did not run"
echo "install test: ok ($prefix layout, find_package, pkg-config)"
