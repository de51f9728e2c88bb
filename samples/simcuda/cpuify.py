"""cpuify.py IN OUT - turns a `tidal rewrite` output into C that simcuda.h
runs on the CPU: each `kernel<<<grid, block>>>(args)` becomes
`SIMCUDA_LAUNCH(grid, block, kernel(args))`, and each
`cudaLaunchKernel((const void *)kernel, dim3(grid), dim3(block), args, 0, 0)`
becomes `simcuda_launch_argv((grid), (block), simcuda_argv_kernel, (args))`,
where simcuda_argv_kernel, written on the line of the kernel's closing
brace, calls the kernel with `*(T_i *)args[i]` for each parameter i of type
T_i: the values the array points to when the launch runs, as the CUDA
runtime reads them.  Nothing else changes (the op sites, access
declarations, iteration markers and plan calls stay the rewriter's, byte for
byte), and newlines are kept, so the rewriter's #line directives still point
into the original source.

Only launches with exactly two configuration arguments (no shared memory,
no stream; for cudaLaunchKernel, 0 for both), 1-D, of a kernel defined
before the launch, are accepted; anything else is an error naming its
line, since simcuda has nothing to run it with."""
import re
import sys


def matching(text, i, open_ch, close_ch):
    """Index just past the bracket closing the one at text[i]."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced " + open_ch)


def split_top(text):
    """Splits at commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def cpuify(src, path):
    out, pos = [], 0
    for m in re.finditer(r"([A-Za-z_]\w*)\s*<<<", src):
        if m.start() < pos:
            continue
        line = src.count("\n", 0, m.start()) + 1
        end_cfg = src.find(">>>", m.end())
        cfg = split_top(src[m.end():end_cfg])
        if end_cfg < 0 or len(cfg) != 2:
            sys.exit(f"{path}:{line}: error: simcuda runs <<<grid, block>>> launches only")
        j = end_cfg + 3
        while src[j].isspace():
            j += 1
        if src[j] != "(":
            sys.exit(f"{path}:{line}: error: expected the kernel's arguments")
        args_end = matching(src, j, "(", ")")
        out.append(src[pos:m.start()])
        out.append(f"SIMCUDA_LAUNCH({cfg[0].strip()}, {cfg[1].strip()}, "
                   f"{m.group(1)}{src[j:args_end]})")
        pos = args_end
    out.append(src[pos:])
    return "".join(out)


def param_types(params, path, line):
    """The types of a kernel's parameters, in order ("T name" -> "T")."""
    params = params.strip()
    if params in ("", "void"):
        return []
    types = []
    for p in split_top(params):
        m = re.search(r"([A-Za-z_]\w*)\s*$", p)
        t = p[:m.start()].strip() if m else ""
        if not t or "[" in p:
            sys.exit(f"{path}:{line}: error: simcuda cannot read parameter '{p.strip()}'")
        types.append(t)
    return types


def strip_cast(text):
    """`(const void *)k`, `(void *)k` or `k` -> k, else None."""
    m = re.fullmatch(r"\s*(?:\(\s*(?:const\s+)?void\s*\*\s*\)\s*)?([A-Za-z_]\w*)\s*", text)
    return m.group(1) if m else None


def dim(text, path, line):
    """`dim3(x)` -> x (1-D only), or the expression itself."""
    t = text.strip()
    m = re.match(r"dim3\s*\(", t)
    if m:
        end = matching(t, m.end() - 1, "(", ")")
        inner = split_top(t[m.end():end - 1])
        if end != len(t) or len(inner) != 1:
            sys.exit(f"{path}:{line}: error: simcuda runs 1-D grids and blocks only")
        return inner[0].strip()
    return t


def launch_kernel(src, path):
    """cudaLaunchKernel calls -> simcuda_launch_argv, with a trampoline per
    kernel launched so after the kernel's definition."""
    out, pos, tramps = [], 0, {}
    for m in re.finditer(r"\bcudaLaunchKernel\s*\(", src):
        if m.start() < pos:
            continue
        line = src.count("\n", 0, m.start()) + 1
        end = matching(src, m.end() - 1, "(", ")")
        args = split_top(src[m.end():end - 1])
        if len(args) == 4:
            args += ["0", "0"]
        name = strip_cast(args[0]) if len(args) == 6 else None
        if not name or args[4].strip() != "0" or args[5].strip() not in ("0", "NULL", "nullptr"):
            sys.exit(f"{path}:{line}: error: simcuda runs cudaLaunchKernel(kernel, grid, block, "
                     "args, 0, 0) only")
        tramps.setdefault(name, line)
        out.append(src[pos:m.start()])
        out.append(f"simcuda_launch_argv(({dim(args[1], path, line)}), ({dim(args[2], path, line)}), "
                   f"simcuda_argv_{name}, ({args[3].strip()}))")
        pos = end
    out.append(src[pos:])
    src = "".join(out)
    for name, use_line in tramps.items():
        d = re.search(r"__global__\s+void\s+" + name + r"\s*\(", src)
        if not d:
            sys.exit(f"{path}:{use_line}: error: simcuda: kernel '{name}' is not defined here")
        dline = src.count("\n", 0, d.start()) + 1
        pend = matching(src, d.end() - 1, "(", ")")
        types = param_types(src[d.end():pend - 1], path, dline)
        body = pend
        while src[body].isspace():
            body += 1
        if src[body] != "{":
            sys.exit(f"{path}:{dline}: error: simcuda: kernel '{name}' has no body here")
        close = matching(src, body, "{", "}")
        if src.count("\n", 0, close) + 1 > use_line:
            sys.exit(f"{path}:{use_line}: error: simcuda: kernel '{name}' is defined after "
                     "its cudaLaunchKernel")
        call = ", ".join(f"*({t} *)a[{i}]" for i, t in enumerate(types))
        tramp = (f" static void simcuda_argv_{name}(void **a) {{ (void)a; {name}({call}); }}")
        src = src[:close] + tramp + src[close:]
    return src


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cpuify.py IN OUT")
    src = open(sys.argv[1]).read()
    res = launch_kernel(cpuify(src, sys.argv[1]), sys.argv[1])
    if res.count("\n") != src.count("\n"):
        sys.exit(f"{sys.argv[1]}: error: internal: line count changed")
    with open(sys.argv[2], "w") as f:
        f.write(res)


if __name__ == "__main__":
    main()
