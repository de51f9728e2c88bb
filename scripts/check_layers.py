#!/usr/bin/env python3
"""check_layers.py - the pass's stages depend one way.

pass/ has one folder per stage (pass/README.md).  A file may include or call
files of its own stage and of lower stages, never of a higher stage or of a
peer (rewrite and replay are both fed by plan, and neither knows the other).
Within a stage, files must not call each other in a cycle, and where the
stage's README lists its files "from the bottom up (each calls only files
above it ...)", a file calls only files listed above it.

A piece of one unit split by topic (the .c files that include the unit's
internal header STAGE/NAME_impl.h, with NAME.c) counts as that unit: the
pieces may call each other (an interpreter's expressions and statements
recurse into each other), the unit as a whole may not sit in a cycle.

  check_layers.py --sources PASS_DIR     includes (no build needed)
  check_layers.py --objects OBJ_DIR      calls, from the built objects' symbols
                                         (nm): no call to a higher stage or a
                                         peer, no cycle between files
  both                                   also: units of split files, and the
                                         order of the stages' READMEs

Exit 0 when clean; 1 with one line per violation ("file: error: ...").
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys

# Stage -> rank.  Lower ranks are used by higher ones.  Equal ranks are peers
# that must not use each other.  main.c (directly under pass/) is the top.
STAGES = {
    "base": 0,        # diagnostics, symbolic expressions, libclang strings
    "frontend": 1,    # parsing with libclang
    "analysis": 2,    # kernel bodies, library-call tables
    "graph": 3,       # interpreter, op sites, regions, loop, liveness, unroll
    "plan": 4,        # planner, cost model
    "rewrite": 5,     # annotated, instrumented source
    "replay": 5,      # the plan on the runtime's sim backend
    "report": 5,      # a runtime trace drawn as a memory timeline
    "cli": 6,         # commands, options, output, emitters
    ".": 7,           # main.c
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def stage_of(relpath):
    parts = relpath.split(os.sep)
    return parts[0] if len(parts) > 1 else "."


def allowed(src, dst):
    if src == dst:
        return True
    return STAGES[dst] < STAGES[src]


def check_sources(root):
    errors = []
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            src = stage_of(rel)
            if src not in STAGES:
                errors.append(f"{path}: error: folder '{src}' is not a stage "
                              "(add it to STAGES in scripts/check_layers.py and pass/README.md)")
                continue
            text = open(path, encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                if "/" not in inc:
                    if os.path.exists(os.path.join(root, inc)) or inc.endswith("_impl.h"):
                        errors.append(f"{path}:{line}: error: include \"{inc}\" without its "
                                      "stage folder (write \"STAGE/{inc}\")")
                    continue  # a header outside the pass (tidal.h)
                dst = inc.split("/")[0]
                if dst not in STAGES:
                    continue
                if not allowed(src, dst):
                    kind = "a peer" if STAGES[dst] == STAGES[src] else "a higher"
                    errors.append(f"{path}:{line}: error: stage '{src}' includes \"{inc}\" "
                                  f"of {kind} stage '{dst}'")
    return errors


IMPL = re.compile(r'^\s*#\s*include\s+"(\w+)/(\w+)_impl\.h"', re.M)
ORDER_MARK = "each calls only files above it"
ROW_FILES = re.compile(r"`([\w*.]+\.c)`")


def units(root):
    """'graph/interp_expr.c' -> 'graph/interp*.c' for the pieces of a unit
    split by topic behind STAGE/NAME_impl.h (NAME.c included)."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".c"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            text = open(os.path.join(dirpath, name), encoding="utf-8", errors="replace").read()
            for m in IMPL.finditer(text):
                stage, unit = m.group(1), m.group(2)
                out[rel] = f"{stage}/{unit}*.c"
                out[f"{stage}/{unit}.c"] = f"{stage}/{unit}*.c"
    return out


def orders(root):
    """Stage -> [(row, [file patterns])] for each stage whose README lists its
    files from the bottom up (a markdown table after ORDER_MARK)."""
    out = {}
    for stage in STAGES:
        path = os.path.join(root, stage, "README.md")
        if stage == "." or not os.path.exists(path):
            continue
        lines = open(path, encoding="utf-8").read().splitlines()
        start = next((i for i, l in enumerate(lines) if ORDER_MARK in l), None)
        if start is None:
            continue
        rows = []
        for l in lines[start + 1:]:
            if not l.startswith("|"):
                if rows:
                    break
                continue
            cell = l.split("|")[1]
            files = ROW_FILES.findall(cell)
            if files:
                rows.append(files)
        out[stage] = rows
    return out


def rank_of(rel, rows):
    """Row of rel ('graph/loop.c') in its stage's order, or None."""
    name = rel.split(os.sep, 1)[1]
    for i, pats in enumerate(rows):
        if any(fnmatch.fnmatchcase(name, p) for p in pats):
            return i
    return None


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBR":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            used.add(f[1])
    return defined, used


def check_objects(objdir, root=None):
    unit = units(root) if root else {}
    order = orders(root) if root else {}
    objs = {}
    for dirpath, _, files in os.walk(objdir):
        for name in files:
            if name.endswith(".c.o"):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, objdir)[:-len(".o")]
                # A source removed or renamed since this build folder last
                # built it leaves its object behind: not part of the program.
                if root and not os.path.exists(os.path.join(root, rel)):
                    continue
                objs[rel] = symbols(path)
    if not objs:
        return [f"{objdir}: error: no object files found (build first)"]
    owner = {}
    for rel, (defined, _) in objs.items():
        for s in defined:
            owner[s] = rel
    deps = {rel: {} for rel in objs}
    for rel, (_, used) in objs.items():
        for s in used:
            o = owner.get(s)
            if o and o != rel:
                deps[rel].setdefault(o, s)
    errors = []
    # The order a stage's README gives its files (bottom up).
    for stage, rows in sorted(order.items()):
        readme = os.path.join(stage, "README.md")
        for rel in sorted(r for r in objs if stage_of(r) == stage):
            if rank_of(rel, rows) is None:
                errors.append(f"{rel}: error: not listed in {readme}'s order of files")
        for rel, ds in sorted(deps.items()):
            if stage_of(rel) != stage or rank_of(rel, rows) is None:
                continue
            for dst_rel, sym in sorted(ds.items()):
                r = rank_of(dst_rel, rows) if stage_of(dst_rel) == stage else None
                if r is None or unit.get(rel, rel) == unit.get(dst_rel, dst_rel):
                    continue
                if r >= rank_of(rel, rows):
                    errors.append(f"{rel}: error: calls {sym}() in {dst_rel}, which {readme} "
                                  "lists after it (files call only files above them)")
    # The pieces of a unit split by topic are one node.
    merged = {}
    for rel, ds in deps.items():
        u = unit.get(rel, rel)
        merged.setdefault(u, {})
        for dst_rel, sym in ds.items():
            d = unit.get(dst_rel, dst_rel)
            if d != u:
                merged[u].setdefault(d, sym)
    deps = merged
    for rel, ds in sorted(deps.items()):
        src = stage_of(rel)
        for dst_rel, sym in sorted(ds.items()):
            dst = stage_of(dst_rel)
            if src in STAGES and dst in STAGES and not allowed(src, dst):
                errors.append(f"{rel}: error: stage '{src}' calls {sym}() in {dst_rel} "
                              f"(stage '{dst}')")
    # Cycles between files (Tarjan's strongly connected components).
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in deps[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    for comp in sccs:
        detail = "; ".join(f"{a} -> {b} ({deps[a][b]})" for a in comp for b in comp
                           if b in deps[a])
        errors.append(f"{comp[0]}: error: files call each other in a cycle: {detail}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", help="the pass/ folder")
    ap.add_argument("--objects", help="the folder holding the pass's .c.o files")
    a = ap.parse_args()
    if not a.sources and not a.objects:
        ap.error("give --sources and/or --objects")
    errors = []
    if a.sources:
        errors += check_sources(a.sources)
    if a.objects:
        errors += check_objects(a.objects, a.sources)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} violation(s)")
        return 1
    print("check_layers: the pass's stages depend one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
