"""Rewrites every .cu under test/rewrite (and its Inputs/) with --plan auto
(half budget) and --plan none, and compiles each distinct output with
`nvcc -c -arch=sm_90 -I<src>/include`, two nvcc processes at a time.

A file whose test expects tidal rewrite to fail carries the marker line
`// tidal-test: expect-error` and is skipped.  Lit's CHECK lines are blanked
first, as the tests themselves do (a rewriter echoes its input).

usage: nvcc_all.py --tidal T --nvcc N --src SRC --stubs DIR --out DIR
Prints one line per file and mode, then "compiled N outputs of M files";
exits 1 on the first rewrite or compile failure (with its output)."""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

MARKER = "// tidal-test: expect-error"
MODES = [("auto", ["--plan", "auto", "--budget", "50%"]), ("none", ["--plan", "none"])]
NVCC_JOBS = 2  # the CI machine has 2 cores


def main():
    ap = argparse.ArgumentParser()
    for a in ("--tidal", "--nvcc", "--src", "--stubs", "--out"):
        ap.add_argument(a, required=True)
    o = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(glob.glob(os.path.join(here, "*.cu")) +
                   glob.glob(os.path.join(here, "Inputs", "*.cu")))
    os.makedirs(o.out, exist_ok=True)
    stubflags = ["-nocudainc", "-nocudalib", "-I" + o.stubs, "-include", "cuda.h"]
    outputs = {}  # rewritten text -> path (identical outputs compile once)
    n_files = 0
    for f in files:
        text = open(f).read()
        if MARKER in text:
            print(f"skip {os.path.relpath(f, here)} (expects an error)")
            continue
        n_files += 1
        base = os.path.splitext(os.path.relpath(f, here).replace(os.sep, "_"))[0]
        blank = os.path.join(o.out, base + ".in.cu")
        with open(blank, "w") as w:
            w.write(re.sub(r"// *CHECK[-A-Z]*:.*", "//", text))
        for mode, args in MODES:
            out = os.path.join(o.out, f"{base}.{mode}.cu")
            r = subprocess.run([o.tidal, "rewrite", blank, "-o", out] + args + ["--"] + stubflags,
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL rewrite {base} --plan {mode}:\n{r.stdout}{r.stderr}")
                return 1
            rewritten = open(out).read()
            # the header names the input path; compare the rest
            key = rewritten.split("*/", 1)[-1]
            dup = key in outputs
            print(f"rewrite {base} --plan {mode}" + (" (same as another output)" if dup else ""))
            if not dup:
                outputs[key] = out

    def compile_one(path):
        obj = os.path.splitext(path)[0] + ".o"
        r = subprocess.run([o.nvcc, "-c", "-arch=sm_90", "-I" + os.path.join(o.src, "include"),
                            path, "-o", obj], capture_output=True, text=True)
        return path, r

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(NVCC_JOBS) as ex:
        for path, r in ex.map(compile_one, sorted(outputs.values())):
            if r.returncode != 0:
                failed += 1
                print(f"FAIL nvcc {os.path.basename(path)}:\n{r.stdout}{r.stderr}")
            else:
                print(f"nvcc ok {os.path.basename(path)}")
    print(f"compiled {len(outputs) - failed} outputs of {n_files} files")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
