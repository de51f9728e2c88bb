#!/bin/sh
# A stand-in for `tidal rewrite` in tidal-nvcc's parallel-build test: copies
# each input to the output (a file, or DIR/ for several inputs), appends a
# line with its whole command line (so two invocations' rewrites of one
# source differ), then sleeps $FAKE_TIDAL_SLEEP seconds, so that a second
# invocation started meanwhile rewrites before this one's nvcc reads.
[ "$1" = rewrite ] || exit 2
shift
all="$*"
ins=""; out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    --) break ;;
    -*) shift ;;
    *.cu) ins="$ins $1"; shift ;;
    *) shift ;;
  esac
done
for f in $ins; do
  case "$out" in
    */) dst="$out$(basename "$f")"; mkdir -p "$out" ;;
    *) dst="$out" ;;
  esac
  cp "$f" "$dst.tmp" && echo "// rewritten by: $all" >> "$dst.tmp" && mv "$dst.tmp" "$dst"
done
sleep "${FAKE_TIDAL_SLEEP:-0}"
