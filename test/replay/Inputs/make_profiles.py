# Writes two profiles of every op of a graph (tidal graph --format json):
# 20 us per op, as version 1, and as version 2 with a 1 ms launch column.
import json
import sys

g = json.load(open(sys.argv[1]))
rows = {}
for o in g["ops"]:
    rows[(o["file"].split("/")[-1], o["line"])] = o["label"]
with open(sys.argv[2], "w") as v1, open(sys.argv[3], "w") as v2:
    v1.write("# tidal profile v1\n")
    v2.write("# tidal profile v2\n# file:line\tcount\tmean_seconds\tlaunch_seconds\tlabel\n")
    for (f, line), label in sorted(rows.items()):
        v1.write("%s:%d\t10\t2e-05\t%s\n" % (f, line, label))
        v2.write("%s:%d\t10\t2e-05\t0.001\t%s\n" % (f, line, label))
