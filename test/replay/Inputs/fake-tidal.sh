#!/bin/sh
# A stand-in for `tidal rewrite` in tidal-nvcc tests: logs its arguments to
# $FAKE_TIDAL_LOG and copies the input to the -o output unchanged (a file,
# or DIR/: DIR/NAME, as tidal rewrite names the one input of a folder).
echo "fake-tidal $*" >> "$FAKE_TIDAL_LOG"
[ "$1" = rewrite ] || exit 2
in="$2"; out=""
shift 2
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift 2 ;; *) shift ;; esac
done
case "$out" in
  */) mkdir -p "$out" && cp "$in" "$out$(basename "$in")" ;;
  *) cp "$in" "$out" ;;
esac
