#!/bin/sh
# A stand-in for nvcc in tidal-nvcc's parallel-build test: "compiles" its
# .cu inputs by concatenating them into the -o output.
out=""; ins=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    *.cu) ins="$ins $1"; shift ;;
    *) shift ;;
  esac
done
[ -n "$out" ] || exit 3
cat $ins > "$out"
