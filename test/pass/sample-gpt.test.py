# Summarises `tidal graph --format json` of samples/gpt for sample-gpt.test.
import json
import re
import sys

d = json.load(open(sys.argv[1]))
loop = d["loop"]
print("loop", loop["function"], loop["reason"].split(":")[0],
      "forward-then-backward" if "forward-then-backward" in loop["reason"] else "")
print("ops", len(d["ops"]), "unrolled", d["unrolled_ops"], "unresolved",
      sum(1 for op in d["ops"] for a in op["accesses"] if a["tensor"] < 0))
phases = []
for op in d["ops"]:
    if op["phase"] not in phases:
        phases.append(op["phase"])
print("phases", " ".join(phases))
for c in d["candidates"]:
    # strip the owning struct ("model.acts.ln1[l=0]" -> "acts.ln1[l=0]")
    name = c["instance"] or d["tensors"][c["tensor"]]["name"]
    print("candidate", re.sub(r"^model\.", "", name))
layers = {m.group(1) for c in d["candidates"] if c["instance"]
          for m in [re.search(r"\[l=(\d+)\]", c["instance"])] if m}
print("layers", len(layers))
