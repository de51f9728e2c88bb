#!/usr/bin/env python3
"""check_layers.py - the pass's stages and the runtime's layers depend one way.

pass/ has one folder per stage (pass/README.md), runtime/ one folder per
layer (runtime/README.md).  A file may include or call (or read the data
of) files of its own folder and of lower ones, never of a higher one or of
a peer (in the pass, rewrite and replay are both fed by plan, and neither
knows the other).  Within a folder, files must not call each other in a
cycle, and where the folder's README lists its files "from the bottom up
(each calls only files above it ...)", a file calls only files listed
above it.  Every source file lives in a folder of the table (the pass's
main.c aside): no .c or .h loose in runtime/.

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
  --runtime-sources RUNTIME_DIR          the same for the runtime (any of the
  --runtime-objects OBJ_DIR              four options together)
With the sources given, an object whose source file is gone (a build
folder from before a file moved) is not looked at.

Exit 0 when clean; 1 with one line per violation ("file: error: ...").
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys

# Folder -> rank, per tree.  Lower ranks are used by higher ones.  Equal
# ranks are peers that must not use each other.
TREES = {
    "pass": {
        "noun": "stage",
        "readme": "pass/README.md",
        "loose_ok": True,  # main.c, directly under pass/, is the top
        "stages": {
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
        },
    },
    "runtime": {
        "noun": "layer",
        "readme": "runtime/README.md",
        "loose_ok": False,
        "stages": {
            "base": 0,    # status, sizes, config, counters, the trace writer, profile
            "device": 1,  # backend interface, sim and CUDA backends, VMM queue, costs
            "memory": 2,  # chunks and their states, pool, host store, registry, small
                          # allocations, arenas, recompute closures, op stack
            "policy": 3,  # eviction choice, budget, arbiter, run-time planner, split
            "api": 4,     # public entry points, summary
        },
    },
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def stage_of(relpath):
    parts = relpath.split(os.sep)
    return parts[0] if len(parts) > 1 else "."


def allowed(stages, src, dst):
    if src == dst:
        return True
    return stages[dst] < stages[src]


def check_sources(tree, root):
    t = TREES[tree]
    stages, noun = t["stages"], t["noun"]
    errors = []
    # every header of the tree by its bare name: a bare include of one is an
    # include without its folder
    headers = set()
    for dirpath, _, files in os.walk(root):
        headers.update(f for f in files if f.endswith(".h"))
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            src = stage_of(rel)
            if src == "." and not t["loose_ok"]:
                errors.append(f"{path}: error: {name} is loose in {tree}/: put it in a {noun} "
                              f"folder ({t['readme']})")
                continue
            if src not in stages:
                errors.append(f"{path}: error: folder '{src}' is not a {noun} "
                              f"(add it to TREES in scripts/check_layers.py and {t['readme']})")
                continue
            text = open(path, encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                if "/" not in inc:
                    if inc in headers or inc.endswith("_impl.h"):
                        errors.append(f"{path}:{line}: error: include \"{inc}\" without its "
                                      f"{noun} folder (write \"{noun.upper()}/{inc}\")")
                    continue  # a header outside the tree (tidal.h, a generated one)
                dst = inc.split("/")[0]
                if dst not in stages:
                    continue
                if not allowed(stages, src, dst):
                    kind = "a peer" if stages[dst] == stages[src] else "a higher"
                    errors.append(f"{path}:{line}: error: {noun} '{src}' includes \"{inc}\" "
                                  f"of {kind} {noun} '{dst}'")
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


def orders(stages, root):
    """Stage -> [(row, [file patterns])] for each stage whose README lists its
    files from the bottom up (a markdown table after ORDER_MARK)."""
    out = {}
    for stage in stages:
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
    """(defined, used): defined maps a symbol to its nm kind (T: code)."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = {}, set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBR":
            defined[f[2]] = f[1]
        elif len(f) == 2 and f[0] == "U":
            used.add(f[1])
    return defined, used


def check_objects(tree, objdir, root=None):
    t = TREES[tree]
    stages, noun = t["stages"], t["noun"]
    unit = units(root) if root else {}
    order = orders(stages, root) if root else {}
    objs = {}
    for dirpath, _, files in os.walk(objdir):
        for name in files:
            if name.endswith(".c.o"):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, objdir)[:-len(".o")]
                if root and not os.path.exists(os.path.join(root, rel)):
                    continue  # stale: its source moved or went
                objs[rel] = symbols(path)
    if not objs:
        return [f"{objdir}: error: no object files found (build first)"]
    owner, kind = {}, {}
    for rel, (defined, _) in objs.items():
        for s, k in defined.items():
            owner[s] = rel
            kind[s] = k

    def use(sym):
        return f"calls {sym}()" if kind[sym] == "T" else f"uses {sym}"

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
                    errors.append(f"{rel}: error: {use(sym)} in {dst_rel}, which {readme} "
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
            if src in stages and dst in stages and not allowed(stages, src, dst):
                errors.append(f"{rel}: error: {noun} '{src}' {use(sym)} in {dst_rel} "
                              f"({noun} '{dst}')")
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
    ap.add_argument("--runtime-sources", help="the runtime/ folder")
    ap.add_argument("--runtime-objects", help="the folder holding libtidal's .c.o files")
    a = ap.parse_args()
    if not (a.sources or a.objects or a.runtime_sources or a.runtime_objects):
        ap.error("give --sources, --objects, --runtime-sources and/or --runtime-objects")
    errors, checked = [], []
    for tree, srcs, objs in (("pass", a.sources, a.objects),
                             ("runtime", a.runtime_sources, a.runtime_objects)):
        if srcs:
            errors += check_sources(tree, srcs)
        if objs:
            errors += check_objects(tree, objs, srcs)
        if srcs or objs:
            checked.append(f"the {tree}'s {TREES[tree]['noun']}s")
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} violation(s)")
        return 1
    print(f"check_layers: {' and '.join(checked)} depend one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
