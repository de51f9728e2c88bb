"""sim_launchkernel.py TWIN - the sim twin of test/samples/launchkernel
(kernels launched through cudaLaunchKernel's argument array, run by
simcuda through the kernel's host twin) with no budget and at half of its
memory: both runs check their result against the host's arithmetic
("ok: ..."), print the same per-step sums as each other, and the half run
moves relocatable units (swapped out and in, relocated_bytes > 0), so the
launches read the TIDAL_AT addresses of the rewrite's array copy, not the
program's stable ones (which fault on the sim)."""
import os
import subprocess
import sys
import tempfile


def run(twin, budget, tmp):
    stats = os.path.join(tmp, "stats")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIDAL_")}
    env.update(TIDAL_DEVICE="sim", TIDAL_CHUNK="64K", SIMCUDA_STATS_FILE=stats)
    if budget:
        env["TIDAL_BUDGET"] = budget
    p = subprocess.run([twin, "4"], env=env, capture_output=True, text=True)
    tag = budget or "no budget"
    if p.returncode != 0 or "ok:" not in p.stdout:
        sys.exit(f"FAIL: {tag}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    with open(stats) as f:
        st = dict((k, int(v)) for k, v in (line.split() for line in f))
    steps = [l for l in p.stdout.splitlines() if l.startswith("step ")]
    return steps, st


def main():
    twin = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        full, _ = run(twin, None, tmp)
        half, st = run(twin, "50%", tmp)
    if full != half or len(full) != 4:
        sys.exit("FAIL: the per-step sums differ:\n" + "\n".join(full) + "\n--\n" + "\n".join(half))
    if st["total.swapped_out_bytes"] == 0 or st["total.relocated_bytes"] == 0:
        sys.exit(f"FAIL: nothing moved at 50%: {st}")
    print(f"ok: 4 steps equal; at 50%: {st['total.swapped_out_bytes']} bytes swapped out, "
          f"{st['total.relocated_bytes']} relocated")


if __name__ == "__main__":
    main()
