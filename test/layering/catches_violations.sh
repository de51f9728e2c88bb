#!/usr/bin/env bash
# The layering check must fail on each kind of violation it exists for:
#   1. a lower stage including a higher one (frontend -> cli),
#   2. a peer including a peer (rewrite -> replay),
#   3. an include written without its stage folder,
#   4. a lower stage's object calling a higher stage's function,
#   5. two files of one stage calling each other (a cycle),
#   6. a file calling one its stage's README lists after it (the order),
# and pass on the real tree (the `layering` test checks that), on the
# pieces of one unit split by topic calling each other (7), and beside the
# stale object of a source the tree no longer has (8: a build folder reused
# after a branch that removed or moved a file).  In the runtime
# (runtime/README.md), it must fail on
#   9. a lower layer including a higher one (memory -> policy),
#  10. a .c file loose in runtime/,
#  11. a lower layer's object calling, or reading the data of, a higher one,
#  12. two files of one layer calling each other,
# and not look at the object of a file that moved away (13).
set -euo pipefail
check=$1    # scripts/check_layers.py
pass=$2     # the pass/ source folder
runtime=$3  # the runtime/ source folder
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect_fail() { # name, pattern, args...
  local name=$1 pattern=$2; shift 2
  if out=$(python3 "$check" "$@" 2>&1); then
    echo "FAIL: $name: the check passed"; fail=1
  elif ! grep -q -- "$pattern" <<<"$out"; then
    echo "FAIL: $name: expected '$pattern' in:"; echo "$out"; fail=1
  else
    echo "ok: $name"
  fi
}

# 1-3: includes, on copies of the real tree.
cp -r "$pass" "$tmp/up"
echo '#include "cli/options.h"' >>"$tmp/up/frontend/frontend.c"
expect_fail "lower includes higher" "stage 'frontend' includes \"cli/options.h\" of a higher stage 'cli'" \
  --sources "$tmp/up"
cp -r "$pass" "$tmp/peer"
echo '#include "replay/replay.h"' >>"$tmp/peer/rewrite/rewrite.c"
expect_fail "peer includes peer" "of a peer stage 'replay'" --sources "$tmp/peer"
cp -r "$pass" "$tmp/flat"
echo '#include "interp.h"' >>"$tmp/flat/graph/opsites.c"
cp "$tmp/flat/graph/interp.h" "$tmp/flat/interp.h"
expect_fail "include without its folder" "without its stage folder" --sources "$tmp/flat"

# 4-5: calls, on tiny objects laid out like the pass's build folder.
mkdir -p "$tmp/obj/base" "$tmp/obj/cli" "$tmp/obj/graph"
printf 'int cli_entry(void);\nint base_fn(void) { return cli_entry(); }\n' >"$tmp/base.c"
printf 'int cli_entry(void) { return 1; }\n' >"$tmp/cli.c"
cc -c "$tmp/base.c" -o "$tmp/obj/base/low.c.o"
cc -c "$tmp/cli.c" -o "$tmp/obj/cli/high.c.o"
expect_fail "lower calls higher" "stage 'base' calls cli_entry()" --objects "$tmp/obj"
rm -rf "$tmp/obj/base" "$tmp/obj/cli"
printf 'int b(void);\nint a(int n) { return n ? b() : 0; }\n' >"$tmp/a.c"
printf 'int a(int);\nint b(void) { return a(0); }\n' >"$tmp/b.c"
cc -c "$tmp/a.c" -o "$tmp/obj/graph/a.c.o"
cc -c "$tmp/b.c" -o "$tmp/obj/graph/b.c.o"
expect_fail "files in a cycle" "files call each other in a cycle" --objects "$tmp/obj"

# 6-7: calls against a stage README's order, and a unit split by topic
# (u.c and u_more.c share graph/u_impl.h): sources and objects together.
mkdir -p "$tmp/ord/graph" "$tmp/ordobj/graph"
cat >"$tmp/ord/graph/README.md" <<'EOF'
Files from the bottom up (each calls only files above it in this list):

| file | job |
|---|---|
| `low.c` | the bottom |
| `u.c`, `u_*.c` | one unit in two files |
| `high.c` | the top |
EOF
printf 'int low(void) { return 0; }\n' >"$tmp/ord/graph/low.c"
printf '#include "graph/u_impl.h"\nint u_more(int n) { return n ? u(n - 1) : low(); }\n' >"$tmp/ord/graph/u_more.c"
printf '#include "graph/u_impl.h"\nint u(int n) { return u_more(n); }\n' >"$tmp/ord/graph/u.c"
printf 'int low(void);\nint u(int n);\nint u_more(int n);\n' >"$tmp/ord/graph/u_impl.h"
printf 'int u(int);\nint high(void) { return u(3); }\n' >"$tmp/ord/graph/high.c"
for f in low u u_more high; do
  cc -c -I"$tmp/ord" "$tmp/ord/graph/$f.c" -o "$tmp/ordobj/graph/$f.c.o"
done
if out=$(python3 "$check" --sources "$tmp/ord" --objects "$tmp/ordobj" 2>&1); then
  echo "ok: the pieces of a unit call each other"
else
  echo "FAIL: the pieces of a unit call each other:"; echo "$out"; fail=1
fi
printf 'int high(void);\nint low(void) { return high(); }\n' >"$tmp/ord/graph/low.c"
cc -c "$tmp/ord/graph/low.c" -o "$tmp/ordobj/graph/low.c.o"
expect_fail "call against the README's order" \
  "calls high() in graph/high.c, which graph/README.md lists after it" \
  --sources "$tmp/ord" --objects "$tmp/ordobj"

# 8: an object whose source is gone is not the pass's (the README lists no
# such file, and its calls are no longer made).
printf 'int high(void);\nint gone(void) { return high(); }\n' >"$tmp/gone.c"
cc -c "$tmp/gone.c" -o "$tmp/ordobj/graph/gone.c.o"
printf 'int low(void) { return 0; }\n' >"$tmp/ord/graph/low.c"
cc -c "$tmp/ord/graph/low.c" -o "$tmp/ordobj/graph/low.c.o"
if out=$(python3 "$check" --sources "$tmp/ord" --objects "$tmp/ordobj" 2>&1); then
  echo "ok: a stale object of a removed source is left out"
else
  echo "FAIL: a stale object of a removed source is left out:"; echo "$out"; fail=1
fi

# 9-10: the runtime's includes, on copies of the real tree.
cp -r "$runtime" "$tmp/rt-up"
echo '#include "policy/policy.h"' >>"$tmp/rt-up/memory/pool.c"
expect_fail "runtime: lower includes higher" \
  "layer 'memory' includes \"policy/policy.h\" of a higher layer 'policy'" --runtime-sources "$tmp/rt-up"
cp -r "$runtime" "$tmp/rt-loose"
printf '#include "api/api.h"\n' >"$tmp/rt-loose/glue.c"
expect_fail "runtime: a loose .c" "glue.c is loose in runtime/" --runtime-sources "$tmp/rt-loose"

# 11-13: the runtime's calls, on tiny objects laid out like libtidal's build folder.
src="$tmp/rt-src" obj="$tmp/rt-obj"
mkdir -p "$src/memory" "$src/policy" "$obj/memory" "$obj/policy"
printf 'int evict_choose(void);\nint mem_fn(void) { return evict_choose(); }\n' >"$src/memory/low.c"
printf 'int evict_choose(void) { return 1; }\n' >"$src/policy/high.c"
cc -c "$src/memory/low.c" -o "$obj/memory/low.c.o"
cc -c "$src/policy/high.c" -o "$obj/policy/high.c.o"
expect_fail "runtime: lower calls higher" "layer 'memory' calls evict_choose() in policy/high.c" \
  --runtime-sources "$src" --runtime-objects "$obj"
printf 'extern int pol_state;\nint mem_get(void) { return pol_state; }\n' >"$src/memory/low.c"
printf 'int pol_state = 1;\n' >"$src/policy/high.c"
cc -c "$src/memory/low.c" -o "$obj/memory/low.c.o"
cc -c "$src/policy/high.c" -o "$obj/policy/high.c.o"
expect_fail "runtime: lower reads higher's data" "layer 'memory' uses pol_state in policy/high.c" \
  --runtime-sources "$src" --runtime-objects "$obj"
rm -rf "$src/policy" "$obj/policy"
printf 'int b(void);\nint a(int n) { return n ? b() : 0; }\n' >"$src/memory/a.c"
printf 'int a(int);\nint b(void) { return a(0); }\n' >"$src/memory/b.c"
rm "$src/memory/low.c" "$obj/memory/low.c.o"
cc -c "$src/memory/a.c" -o "$obj/memory/a.c.o"
cc -c "$src/memory/b.c" -o "$obj/memory/b.c.o"
expect_fail "runtime: files in a cycle" "files call each other in a cycle" \
  --runtime-sources "$src" --runtime-objects "$obj"
rm "$src/memory/b.c" # b.c moved away: its object is stale, and the cycle with it
if out=$(python3 "$check" --runtime-sources "$src" --runtime-objects "$obj" 2>&1); then
  echo "ok: runtime: a stale object is not looked at"
else
  echo "FAIL: runtime: a stale object was looked at:"; echo "$out"; fail=1
fi

exit $fail
