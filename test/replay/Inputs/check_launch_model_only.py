# Checks replay-profile-launch-model-only.test's three reports (see there).
import json
import sys

v1, v2, mo = (json.load(open(p)) for p in sys.argv[1:4])
ok = v1["ok"] and v2["ok"] and mo["ok"]
ok = ok and v1["checksums_match"] is True and not v1["cost_only"] and mo["cost_only"] is True
u1, u2 = v1["modelled_time_steady_unmanaged_s"], v2["modelled_time_steady_unmanaged_s"]
m1, m2 = v1["modelled_time_steady_managed_s"], v2["modelled_time_steady_managed_s"]
ops = v1["ops_per_iteration"]
# the unmanaged run keeps launch_s; the managed host pays ~1 ms per op
ok = ok and u1 == u2 and m2 > m1 + 0.5 * ops * 1e-3
# The same figures with and without the data.  Relocated runs vary by a
# fault or so between two runs of the same command (docs/limitations.md:
# not found yet), so figures agree within 2% (a count within 2, bytes
# within 2%, seconds within 2% or 1 ms), not to the bit as on chunks.
def close(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, bool) or not isinstance(a, (int, float)):
        return a == b
    slack = 0.02 * max(abs(a), abs(b))
    return abs(a - b) <= (max(slack, 2) if isinstance(a, int) and isinstance(b, int) else max(slack, 1e-3))


for k in ("modelled_time_steady_unmanaged_s", "modelled_time_steady_managed_s",
          "modelled_overhead_steady", "vmm_calls_per_iteration", "steady_breakdown",
          "peak_managed_bytes", "swapped_out_bytes", "prefetched_bytes"):
    if not close(v2[k], mo[k]):
        print("differs:", k, v2[k], mo[k])
        ok = False
print(u1, u2, m1, m2, ops, mo["modelled_overhead_steady"])
sys.exit(0 if ok else 1)
