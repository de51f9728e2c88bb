# Checks the two reports of replay-steady-breakdown.test (see there).
import json
import sys

full, half = (json.load(open(p)) for p in sys.argv[1:3])
ok = full["ok"] and half["ok"]
b = full["steady_breakdown"]
ok = ok and all(b[k] == 0 for k in ("host_vmm_s", "device_wait_copies_s", "vmm_calls", "faults"))
# at 100% the host waits only where the sample reads its loss back (a
# cudaMemcpy: Note [host-synchronous ops]) and the device only for the
# launches after it, as in the unmanaged run: the managed step is the
# unmanaged one
step = full["modelled_time_steady_managed_s"]
ok = ok and abs(step - full["modelled_time_steady_unmanaged_s"]) <= 1e-3 * step
ok = ok and b["device_wait_launch_s"] < 0.01 * step
ok = ok and b["host_wait_s"] > 0  # the loss read-back is seen as synchronous
b = half["steady_breakdown"]
ok = ok and b["host_vmm_s"] > 0 and b["vmm_calls"] == half["vmm_calls_per_iteration"]
device = (half["modelled_time_steady_unmanaged_s"] + b["device_wait_launch_s"] +
          b["device_wait_copies_s"])
managed = half["modelled_time_steady_managed_s"]
ok = ok and device > half["modelled_time_steady_unmanaged_s"] and abs(device - managed) <= 0.02 * managed
print(full["steady_breakdown"], b, device, managed)
sys.exit(0 if ok else 1)
