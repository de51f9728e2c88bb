#!/usr/bin/env python3
"""Generated deep and large CUDA programs (docs/limitations.md, "Input size").

    gen.py KIND N > FILE.cu

KIND (N is the size):
  sum       a training loop computing `int t = s+s+...;` (N terms)
  ifs       N nested unbraced `if (argc > k)` around a launch
  blocks    N nested blocks `{ { ... } }` around a launch (clang needs
            -fbracket-depth=M, M > N, past 256)
  kbody     a kernel whose body is `y[i] = x[i] + x[i] + ...` (N terms)
  launches  N launch statements in the training loop
  nest2     N nested 2-trip loops around one launch (2^N ops per iteration)
  nest      three nested N-trip loops around one launch (N^3 ops)
  parens    `int t = ((...(s)...));` N levels (clang's bracket limit applies)
  calls     a chain of N functions, each calling the next, the last launching

Used by the lit tests under test/pass/deep-*, the fuzz script (fuzz.py) and
bench/opsites_scaling.sh.  Inputs parse with the stub headers (%stubflags).
"""
import sys

KERNEL = "__global__ void k(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = 0.f; }\n"
MAIN = ("int main(int argc, char **argv) {\n  float *p;\n  cudaMalloc((void **)&p, 256);\n"
        "  int s = argc;\n#pragma tidal train\n  for (int step = 0; step < 3; step++) {\n%s\n  }\n  return 0;\n}\n")


def gen(kind, n):
    if kind == "sum":
        return KERNEL + MAIN % ("    int t = " + "+".join(["s"] * n) + ";\n    k<<<1, 64>>>(p, t);")
    if kind == "ifs":
        return KERNEL + MAIN % ("".join("    if (argc > %d)\n" % i for i in range(n)) +
                                "    k<<<1, 64>>>(p, 64);")
    if kind == "blocks":
        return KERNEL + MAIN % ("    " + "{" * n + " k<<<1, 64>>>(p, 64); " + "}" * n)
    if kind == "kbody":
        return ("__global__ void k(const float *x, float *y) {\n  int i = threadIdx.x;\n  y[i] = " +
                " + ".join(["x[i]"] * n) + ";\n}\n" +
                MAIN.replace("cudaMalloc((void **)&p, 256);",
                             "cudaMalloc((void **)&p, 256);\n  float *q;\n  cudaMalloc((void **)&q, 256);")
                % "    k<<<1, 64>>>(p, q);")
    if kind == "launches":
        return KERNEL + MAIN % "\n".join("    k<<<1, 64>>>(p, 64);" for _ in range(n))
    if kind in ("nest2", "nest"):
        body = "k<<<1, 64>>>(p, 64);"
        levels = n if kind == "nest2" else 3
        trips = 2 if kind == "nest2" else n
        for i in range(levels):
            body = "for (int i%d = 0; i%d < %d; i%d++) {\n%s\n}" % (i, i, trips, i, body)
        return KERNEL + MAIN % ("    " + body)
    if kind == "parens":
        return KERNEL + MAIN % ("    int t = " + "(" * n + "s" + ")" * n + ";\n    k<<<1, 64>>>(p, t);")
    if kind == "calls":
        fns = "void f%d(float *p) { k<<<1, 64>>>(p, 64); }\n" % (n - 1)
        for i in range(n - 2, -1, -1):
            fns += "void f%d(float *p) { f%d(p); }\n" % (i, i + 1)
        return KERNEL + fns + MAIN % "    f0(p);"
    raise SystemExit("gen.py: unknown kind '%s'" % kind)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sys.stdout.write(gen(sys.argv[1], int(sys.argv[2])))
