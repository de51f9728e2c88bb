#!/usr/bin/env bash
# Time of `tidal graph` (and rewrite) against the number of launch
# statements in one training loop (test/fuzz/gen.py launches N): linear
# growth means the time per op stays flat.  Issue 12's bound: 50,000
# launches under 10 s on the 2-core build machine.
#   bash bench/opsites_scaling.sh [BUILD_DIR] [N...]     (default 4000 50000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(4000 50000)
tidal="$build/pass/tidal"
flags=(-- -nocudainc -nocudalib -I"$root/test/Inputs" -include cuda.h)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '| launches | graph s | graph µs/op | rewrite s | peak RSS (graph) |\n|---|---|---|---|---|\n'
for n in "${sizes[@]}"; do
  python3 "$root/test/fuzz/gen.py" launches "$n" > "$tmp/l.cu"
  /usr/bin/time -f '%e %M' -o "$tmp/t" "$tidal" graph "$tmp/l.cu" "${flags[@]}" > /dev/null
  read -r gs rss < "$tmp/t"
  /usr/bin/time -f '%e' -o "$tmp/r" "$tidal" rewrite "$tmp/l.cu" -o "$tmp/out.cu" "${flags[@]}"
  rs=$(cat "$tmp/r")
  per=$(python3 -c "print(round($gs * 1e6 / $n, 1))")
  printf '| %s | %s | %s | %s | %s MiB |\n' "$n" "$gs" "$per" "$rs" "$((rss / 1024))"
done
