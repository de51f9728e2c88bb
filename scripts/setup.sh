#!/usr/bin/env bash
# Installs what tidal needs on a fresh Debian 12 machine that already has the
# CUDA toolkit at /usr/local/cuda.  Idempotent: packages already present are
# not fetched again, so CI can call it on every run.
set -euo pipefail

need=(clang-19 libclang-19-dev llvm-19-dev llvm-19-tools cmake make gcc g++ python3 graphviz pkg-config
      man-db groff-base) # man + groff: the man page test
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: error: the CUDA toolkit is expected at /usr/local/cuda (nvcc not found)" >&2
  exit 1
fi
[ -f /usr/lib/llvm-19/build/utils/lit/lit.py ] || { echo "setup: error: lit.py missing (llvm-19-tools)" >&2; exit 1; }
echo "setup: ok"
