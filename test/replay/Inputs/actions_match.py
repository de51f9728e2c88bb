"""Every executed action is in the trace and the timeline, with the text's
counts (issue 22).

usage: actions_match.py TRACE.json REPORT.json TIMELINE.svg

REPORT is `tidal replay --format json`: its steady_actions are the chunks
the last iteration swapped out, prefetched, dropped, recomputed and
faulted.  In TRACE (the same run's --trace), the events between the last
iteration's begin and end (file order: the runtime writes them as it acts)
must count the same: swap_out slices on the D2H track, prefetch slices on
the H2D track, drop/drop_recomputable instants, recompute slices,
fault/fault_exchange instants.  The timeline's legend ("drop (5)") must say
the same numbers.  And the run must have dropped something: the gpt
sample's plan drops every iteration (its trace had no drop event)."""
import json
import re
import sys

TID_COMPUTE, TID_D2H, TID_H2D, TID_RUNTIME, TID_ITER = 1, 2, 3, 4, 5


def kind(e):
    tid, ph, name = e.get("tid"), e.get("ph"), e.get("name", "")
    if tid == TID_D2H and ph in ("X", "b"):
        return "swap_out"
    if tid == TID_H2D and ph in ("X", "b"):
        return "prefetch"
    if tid == TID_COMPUTE and ph == "B" and name == "recompute":
        return "recompute"
    if tid == TID_RUNTIME and ph == "i" and name.startswith("drop"):
        return "drop"
    if tid == TID_RUNTIME and ph == "i" and name.startswith("fault"):
        return "fault"
    return None


def main():
    ev = json.load(open(sys.argv[1]))["traceEvents"]
    rep = json.load(open(sys.argv[2]))
    svg = open(sys.argv[3]).read()
    spans, begin = [], None
    for i, e in enumerate(ev):
        if e.get("tid") == TID_ITER and e.get("ph") == "B":
            begin = i
        elif e.get("tid") == TID_ITER and e.get("ph") == "E" and begin is not None:
            spans.append((begin, i))
            begin = None
    if not spans:
        sys.exit("the trace has no complete iteration")
    b, end = spans[-1]
    counts = {k: 0 for k in ("swap_out", "prefetch", "drop", "recompute", "fault")}
    for e in ev[b + 1:end]:
        k = kind(e)
        if k:
            counts[k] += 1
    text = rep["steady_actions"]
    legend_names = {"swap_out": "swap-out", "prefetch": "prefetch", "drop": "drop",
                    "recompute": "recompute", "fault": "fault"}
    errs = []
    for k, n in counts.items():
        if text[k] != n:
            errs.append(f"{k}: the report says {text[k]}, the trace has {n}")
        m = re.search(r">%s \((\d+)\)<" % re.escape(legend_names[k]), svg)
        if not m or int(m.group(1)) != text[k]:
            errs.append(f"{k}: the timeline's legend says {m.group(1) if m else 'nothing'}, "
                        f"the report {text[k]}")
    if counts["drop"] == 0:
        errs.append("no drop in the last iteration")
    if errs:
        sys.exit("; ".join(errs))
    print("last iteration:", counts)


main()
