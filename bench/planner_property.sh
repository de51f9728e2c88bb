#!/usr/bin/env bash
# The run-time planner's property test at bench scale: random traces x
# random budgets on the sim (test/runtime/test_planner_property.c), 10,000
# cases by default; ctest runs a few hundred.  The seed is printed; rerun a
# failure with the same SEED.
# Usage: bench/planner_property.sh [BUILD_DIR] [CASES] [SEED]
set -euo pipefail
build=${1:-build}
cases=${2:-10000}
seed=${3:-$(date +%s)}
exe=$build/test/runtime/rt_test_planner_property
[ -x "$exe" ] || { echo "no $exe: build first" >&2; exit 1; }
TIDAL_DEVICE=sim "$exe" "$seed" "$cases"
