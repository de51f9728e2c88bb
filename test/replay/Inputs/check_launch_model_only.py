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
for k in ("modelled_time_steady_unmanaged_s", "modelled_time_steady_managed_s",
          "modelled_overhead_steady", "vmm_calls_per_iteration", "steady_breakdown",
          "peak_managed_bytes", "swapped_out_bytes", "prefetched_bytes"):
    ok = ok and v2[k] == mo[k]
print(u1, u2, m1, m2, ops, mo["modelled_overhead_steady"])
sys.exit(0 if ok else 1)
