#!/bin/sh
# seeds.sh N TEST - runs the randomized TEST with N fresh seeds, one after
# the other; each run prints its seed and how to replay it.  CI runs the
# property tests this way so every CI run explores new cases
# (bench/property_seeds.sh runs many more).
n=$1
shift
base=$(date +%s)
i=1
while [ "$i" -le "$n" ]; do
  seed=$((base * 16 + i))
  "$@" "$seed" || { echo "seeds.sh: FAILED with seed $seed"; exit 1; }
  i=$((i + 1))
done
