#!/usr/bin/env python3
"""check_trace.py - validates a TIDAL_TRACE file (Note [trace format]).

Usage: check_trace.py TRACE [--ops N] [--need NAME ...] [--actions S,P,D,R,F]

Checks that the file is JSON in Chrome's trace-event object format (what
Perfetto opens): {"traceEvents": [...]}, every event has a phase, a numeric
ts (microseconds, >= 0), pid and tid; "B"/"E" slices nest per track with
non-decreasing time; "X" slices have dur >= 0; async "b"/"e" pairs match;
counters ("C") carry numeric args and include resident, host and budget
bytes; resident bytes never exceed the budget.  --ops N: exactly N op
slices on the compute track (recompute slices aside).  --need NAME: some
event has that name.  --actions S,P,D,R,F: exactly that many swap-out
slices, prefetch slices, drop instants (drop, drop_recomputable),
recompute slices and fault instants (fault, fault_exchange) - one event per
counted action (docs/runtime-api.md, "Trace").  Exits 1 with a message on
the first problem."""
import json
import sys


def fail(msg):
    print("check_trace: " + msg)
    sys.exit(1)


def main(argv):
    path, ops, need, actions = argv[1], None, [], None
    i = 2
    while i < len(argv):
        if argv[i] == "--ops":
            ops = int(argv[i + 1]); i += 2
        elif argv[i] == "--need":
            need.append(argv[i + 1]); i += 2
        elif argv[i] == "--actions":
            actions = [int(x) for x in argv[i + 1].split(",")]; i += 2
        else:
            fail("unknown argument " + argv[i])
    with open(path) as f:
        try:
            doc = json.load(f)
        except json.JSONDecodeError as e:
            fail("%s: not JSON: %s" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("no traceEvents array at the top level")
    stacks, last_ts, async_open = {}, {}, {}
    counters = {}
    names = set()
    op_slices = 0
    budget = None
    acted = [0, 0, 0, 0, 0]  # swap-outs, prefetches, drops, recomputes, faults
    for n, ev in enumerate(doc["traceEvents"]):
        where = "event %d (%s)" % (n, json.dumps(ev)[:120])
        for key in ("ph", "pid", "tid"):
            if key not in ev:
                fail(where + ": no " + key)
        ph = ev["ph"]
        if ph == "M":
            continue
        ts = ev.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            fail(where + ": ts is not a time")
        names.add(ev.get("name"))
        track = (ev["pid"], ev["tid"])
        name = ev.get("name") or ""
        if ph in ("X", "b") and ev["tid"] == 2:
            acted[0] += 1
        elif ph in ("X", "b") and ev["tid"] == 3:
            acted[1] += 1
        elif ph == "i" and name.startswith("drop"):
            acted[2] += 1
        elif ph == "B" and ev["tid"] == 1 and name == "recompute":
            acted[3] += 1
        elif ph == "i" and name.startswith("fault"):
            acted[4] += 1
        if ph in ("B", "E"):
            if ts < last_ts.get(track, 0):
                fail(where + ": time goes backwards on its track")
            last_ts[track] = ts
            st = stacks.setdefault(track, [])
            if ph == "B":
                st.append(ev.get("name"))
                if ev["tid"] == 1 and ev.get("name") != "recompute":
                    op_slices += 1
            elif not st:
                fail(where + ": E without B")
            else:
                st.pop()
        elif ph == "X":
            if not isinstance(ev.get("dur"), (int, float)) or ev["dur"] < 0:
                fail(where + ": X without a duration")
        elif ph in ("b", "e"):
            key = (ev.get("cat"), ev.get("id"))
            if ph == "b":
                async_open[key] = async_open.get(key, 0) + 1
            elif async_open.get(key, 0) == 0:
                fail(where + ": async end without begin")
            else:
                async_open[key] -= 1
        elif ph == "C":
            args = ev.get("args")
            if not args or not all(isinstance(v, (int, float)) for v in args.values()):
                fail(where + ": counter without numeric args")
            counters[ev["name"]] = args
            if ev["name"] == "budget bytes":
                budget = args["bytes"]
            if ev["name"] == "resident bytes" and budget is not None and args["bytes"] > budget:
                fail(where + ": resident bytes above the budget %d" % budget)
        elif ph == "i":
            pass
        else:
            fail(where + ": unknown phase " + ph)
    for track, st in stacks.items():
        if st:
            fail("track %s: slices left open: %s" % (track, st))
    for c in ("resident bytes", "host bytes", "budget bytes"):
        if c not in counters:
            fail("no '%s' counter" % c)
    if ops is not None and op_slices != ops:
        fail("%d op slices on the compute track, expected %d" % (op_slices, ops))
    for name in need:
        if name not in names:
            fail("no event named '%s'" % name)
    if actions is not None and acted != actions:
        fail("action events (swap-outs, prefetches, drops, recomputes, faults) %s, counted %s"
             % (acted, actions))
    print("check_trace: ok: %d events, %d op slices" % (len(doc["traceEvents"]), op_slices))


if __name__ == "__main__":
    main(sys.argv)
