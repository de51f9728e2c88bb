#!/usr/bin/env python3
"""gen_manpage.py TIDAL TIDAL_NVCC OUT: writes the tidal(1) man page from the
tools' own help texts (`tidal --help`, `tidal CMD --help`, `tidal-nvcc
--tidal-help`), so the page cannot drift from what the tools accept.  Run
at build time (CMake target tidal-man); the output is deterministic (no
date)."""
import re
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return ("\\&" + s) if s.startswith((".", "'")) else s


def commands(top):
    """(name, one-line description) from `tidal --help`."""
    out, on = [], False
    for line in top.splitlines():
        if line.startswith("commands:"):
            on = True
            continue
        if on:
            m = re.match(r"^  (\w+)\s+(.*)$", line)
            if not m:
                break
            out.append((m.group(1), m.group(2)))
    return out


def render_help(text, out):
    """A command's help: usage block, prose, then options as tagged paragraphs."""
    usage, prose, opts = [], [], []
    for line in text.splitlines():
        m = re.match(r"^  (-\S.*?)(?:\s{2,}(.*))?$", line)
        if m:
            opts.append([m.group(1).strip(), m.group(2) or ""])
        elif line.startswith("usage:") or (usage and not prose and line.startswith(" ")):
            usage.append(line[len("usage: "):] if line.startswith("usage:") else line.strip())
        elif opts and line.startswith("    "):
            opts[-1][1] += " " + line.strip()
        elif line.strip() and line.strip() != "options:":
            prose.append(line.strip())
    if usage:
        out.append(".nf")
        out.extend(".B " + esc(u) if i == 0 else esc("    " + u) for i, u in enumerate(usage))
        out.append(".fi")
    if prose:
        out.append(".PP")
        out.append(esc(" ".join(prose)))
    for spec, desc in opts:
        out.append(".TP")
        out.append(".B " + esc(spec))
        out.append(esc(desc))


def main():
    tidal, nvcc, path = sys.argv[1:4]
    version = run([tidal, "--version"]).strip().split()[-1]
    top = run([tidal, "--help"])
    out = [
        '.TH TIDAL 1 "" "tidal %s" "User Commands"' % version,
        ".SH NAME",
        "tidal, tidal\\-nvcc \\- train CUDA C programs in less GPU memory",
        ".SH SYNOPSIS",
        ".B tidal",
        ".I COMMAND FILE.cu",
        "[\\fIoptions\\fR] [\\fB\\-\\-\\fR \\fIclang flags\\fR]",
        ".br",
        ".B tidal\\-nvcc",
        "[\\fInvcc arguments\\fR] [\\fB\\-\\-tidal\\-\\fIoption\\fR...]",
        ".SH DESCRIPTION",
        "tidal analyses a hand\\-written CUDA C training program (its kernels, op "
        "sites and training loop), rewrites it with calls to libtidal, and proves "
        "the memory plan on a CPU simulator. Every run prints a summary line and a "
        "warning for each allocation or pointer it cannot manage.",
        ".SH COMMANDS",
    ]
    for name, desc in commands(top):
        out.append(".SS tidal %s" % name)
        out.append(esc(desc[0].upper() + desc[1:] + "."))
        render_help(run([tidal, name, "--help"]), out)
    out.append(".SH TIDAL\\-NVCC")
    doc = run([nvcc, "--tidal-help"]).splitlines()
    para = []
    for line in doc[1:]:
        m = re.match(r"^  (--tidal-\S+)\s+(.*)$", line)
        if m:
            if para:
                out += [".PP", esc(" ".join(para))]
                para = []
            out += [".TP", ".B " + esc(m.group(1)), esc(m.group(2))]
        elif line.strip():
            para.append(line.strip())
        elif para:
            out += [".PP", esc(" ".join(para))]
            para = []
    if para:
        out += [".PP", esc(" ".join(para))]
    out += [
        ".SH EXIT STATUS",
        ".TP", ".B 0", "success (warnings may have been printed)",
        ".TP", ".B 1", "bad input: a clang\\-style error names the file and line; no output file is written",
        ".TP", ".B 2", "internal error",
        ".SH ENVIRONMENT",
        "The runtime reads TIDAL_* variables (TIDAL_BUDGET, TIDAL_TRACE, TIDAL_STATS, "
        "TIDAL_PLANNER, ...); see docs/runtime\\-api.md.",
        ".SH SEE ALSO",
        "nvcc(1), clang(1); the documents in the docs/ folder of the tidal sources.",
    ]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
