#!/usr/bin/env python3
"""check_svg.py SVG [--budget] [--bands N]: the file is well-formed XML whose
root is <svg>; with --budget it has the budget path; with --bands N it has N
resident-memory bands (stacked groups).  Exit 1 with a reason otherwise."""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
path = sys.argv[1]
root = ET.parse(path).getroot()
if root.tag != NS + "svg":
    sys.exit(f"{path}: root is {root.tag}, not svg")
paths = list(root.iter(NS + "path"))
if "--budget" in sys.argv and not any(p.get("class") == "budget" for p in paths):
    sys.exit(f"{path}: no budget line")
if "--bands" in sys.argv:
    want = int(sys.argv[sys.argv.index("--bands") + 1])
    got = sum(1 for p in paths if p.get("class") == "band")
    if got != want:
        sys.exit(f"{path}: {got} bands, expected {want}")
print(f"{path}: ok ({len(paths)} paths)")
