#!/usr/bin/env python3
"""check_layers.py - the pass's stages depend one way.

pass/ has one folder per stage (pass/README.md).  A file may include or call
files of its own stage and of lower stages, never of a higher stage or of a
peer (rewrite and replay are both fed by plan, and neither knows the other).
Within a stage, files must not call each other in a cycle.

  check_layers.py --sources PASS_DIR     includes (no build needed)
  check_layers.py --objects OBJ_DIR      calls, from the built objects' symbols
                                         (nm): no call to a higher stage or a
                                         peer, no cycle between files

Exit 0 when clean; 1 with one line per violation ("file: error: ...").
"""
import argparse
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


def check_objects(objdir):
    objs = {}
    for dirpath, _, files in os.walk(objdir):
        for name in files:
            if name.endswith(".c.o"):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, objdir)[:-len(".o")]
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
        errors += check_objects(a.objects)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} violation(s)")
        return 1
    print("check_layers: the pass's stages depend one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
