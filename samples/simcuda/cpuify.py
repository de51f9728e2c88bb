"""cpuify.py IN OUT - turns a `tidal rewrite` output into C that simcuda.h
runs on the CPU: each `kernel<<<grid, block>>>(args)` becomes
`SIMCUDA_LAUNCH(grid, block, kernel(args))`.  Nothing else changes (the op
sites, access declarations, iteration markers and plan calls stay the
rewriter's, byte for byte), and newlines are kept, so the rewriter's #line
directives still point into the original source.

Only launches with exactly two configuration arguments (no shared memory,
no stream) are accepted; anything else is an error naming its line, since
simcuda has nothing to run it with."""
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


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cpuify.py IN OUT")
    src = open(sys.argv[1]).read()
    res = cpuify(src, sys.argv[1])
    if res.count("\n") != src.count("\n"):
        sys.exit(f"{sys.argv[1]}: error: internal: line count changed")
    with open(sys.argv[2], "w") as f:
        f.write(res)


if __name__ == "__main__":
    main()
