# Checks the two reports of replay-steady-breakdown.test (see there).
import json
import sys

full, half = (json.load(open(p)) for p in sys.argv[1:3])
ok = full["ok"] and half["ok"]
b = full["steady_breakdown"]
ok = ok and all(b[k] == 0 for k in ("host_vmm_s", "host_wait_s", "device_wait_launch_s",
                                    "device_wait_copies_s", "vmm_calls", "faults"))
b = half["steady_breakdown"]
ok = ok and b["host_vmm_s"] > 0 and b["vmm_calls"] == half["vmm_calls_per_iteration"]
device = (half["modelled_time_steady_unmanaged_s"] + b["device_wait_launch_s"] +
          b["device_wait_copies_s"])
managed = half["modelled_time_steady_managed_s"]
ok = ok and device > half["modelled_time_steady_unmanaged_s"] and abs(device - managed) <= 0.02 * managed
print(full["steady_breakdown"], b, device, managed)
sys.exit(0 if ok else 1)
