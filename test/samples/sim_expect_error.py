#!/usr/bin/env python3
"""sim_expect_error.py - a sim twin run that must end with a clear error.

  sim_expect_error.py --env K=V ... --status N --message TEXT -- PROGRAM ARGS...

Runs PROGRAM with TIDAL_DEVICE=sim and the given variables; passes when it
exits with status N (not a signal: a crash fails) and TEXT is in its
stderr.  Used for issue 23's host-store reproducers: a full host store is
TIDAL_ERR_BUDGET ("host store full"), never a SIGSEGV."""
import argparse
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--status", type=int, required=True)
    ap.add_argument("--message", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    env = dict(os.environ, TIDAL_DEVICE="sim")
    for kv in a.env:
        k, v = kv.split("=", 1)
        env[k] = v
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace", timeout=250)
    if p.returncode < 0:
        sys.exit("FAIL: %s died of signal %d\n%s" % (cmd[0], -p.returncode, p.stderr[-2000:]))
    if p.returncode != a.status:
        sys.exit("FAIL: exit status %d, expected %d\n%s" % (p.returncode, a.status,
                                                             p.stderr[-2000:]))
    if a.message not in p.stderr:
        sys.exit("FAIL: '%s' not in stderr:\n%s" % (a.message, p.stderr[-2000:]))
    print("ok: exit %d with '%s'" % (p.returncode, a.message))


if __name__ == "__main__":
    main()
