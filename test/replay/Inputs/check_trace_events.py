#!/usr/bin/env python3
"""check_trace_events.py TRACE.json REPORT.json: the trace is Chrome
trace-event JSON with "traceEvents"; it has "ph":"C" counter events for
resident bytes, and exactly one compute slice per op the replay ran
(ops per iteration x iterations, from replay's JSON report), besides
replay's own setup slices; the "resident by group" counter names the
groups; the sim's "host_wait" instants name a known reason, and those in
the last iteration's slice add up to the report's steady host wait (the
trace says where the modelled host time went).  Exit 1 with the reason
otherwise."""
import json
import sys

trace = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
ev = trace.get("traceEvents")
if not isinstance(ev, list) or not ev:
    sys.exit("no traceEvents list")
counters = [e for e in ev if e.get("ph") == "C" and e.get("name") == "resident bytes"]
if not counters or not all("bytes" in e.get("args", {}) for e in counters):
    sys.exit("no resident-bytes counter events")
groups = [e for e in ev if e.get("ph") == "C" and e.get("name") == "resident by group"]
want = {"parameters", "optimizer state", "gradients", "activations", "other"}
if not groups or set(groups[-1]["args"]) != want:
    sys.exit("no resident-by-group counter with the five groups")
slices = [e for e in ev if e.get("ph") == "B" and e.get("tid") == 1
          and e.get("name") != "recompute" and not e.get("name", "").startswith("replay: ")]
expect = report["ops_per_iteration"] * report["iterations"]
if len(slices) != expect:
    sys.exit(f"{len(slices)} op slices, expected {expect}")
ends = [e for e in ev if e.get("ph") == "E" and e.get("tid") == 1]
if len(ends) < len(slices):
    sys.exit("unclosed op slices")
for e in ev:
    if "ts" in e and not isinstance(e["ts"], (int, float)):
        sys.exit("a timestamp is not a number")
WHY = {"event", "mark", "host-synchronous op", "device sync", "program sync", "timing event",
       "vmm worker"}
waits = [e for e in ev if e.get("name") == "host_wait"]
for e in waits:
    if e.get("args", {}).get("why") not in WHY or not e["args"].get("us", 0) > 0:
        sys.exit(f"a host_wait with no known reason or no time: {e}")
its = [e for e in ev if e.get("ph") == "B" and e.get("name", "").startswith("iteration ")]
if not its:
    sys.exit("no iteration slices")
lo = its[-1]["ts"]
hi = max(e["ts"] for e in ev if e.get("ph") == "E" and e.get("tid") == its[-1]["tid"])
got = sum(e["args"]["us"] for e in waits if lo <= e["ts"] < hi) / 1e6
want = report["steady_breakdown"]["host_wait_s"]
if abs(got - want) > 0.005 * want + 1e-7 * (len(waits) + 1):
    sys.exit(f"the last iteration's host_wait events add up to {got} s, the report says {want} s")
print(f"ok: {len(ev)} events, {len(slices)} op slices, {len(counters)} resident counters")
