#!/usr/bin/env python3
"""cache_same.py DRIVER CASES_DIR - every golden case of server-side apply
(those of the built-in kinds), in one stream through tests/ssa/ssa_driver
twice: its calls sharing one smp_ssa_cache (the default: the types compiled
by one case are the next's, and so is its scratch memory), then each call on
its own (-nocache). The answers must be the same bytes, and every case must
be answered. Exit 0 when so, 1 otherwise."""
import json
import os
import subprocess
import sys


def main():
    driver, cases = sys.argv[1], sys.argv[2]
    lines = []
    for d in sorted(os.listdir(cases)):
        cdir = os.path.join(cases, d)
        if not os.path.isfile(os.path.join(cdir, "case.json")) or \
                os.path.isfile(os.path.join(cdir, "definitions")):
            continue
        with open(os.path.join(cdir, "case.json"), encoding="utf-8") as f:
            lines.append(json.dumps(json.load(f), separators=(",", ":")))
    # twice over, so that every kind is met again with its types cached
    stream = ("\n".join(lines + lines) + "\n").encode()
    shared = subprocess.run([driver], input=stream, capture_output=True, check=True).stdout
    alone = subprocess.run([driver, "-nocache"], input=stream, capture_output=True,
                           check=True).stdout
    got = shared.decode().splitlines()
    if len(got) != 2 * len(lines):
        print("FAIL: %d answers to %d cases" % (len(got), 2 * len(lines)))
        return 1
    if shared != alone:
        a, b = shared.decode().splitlines(), alone.decode().splitlines()
        i = next(i for i in range(len(a)) if i >= len(b) or a[i] != b[i])
        print("FAIL: case line %d answered otherwise with the cache: %s" % (i, a[i][:300]))
        return 1
    if got[:len(lines)] != got[len(lines):]:
        print("FAIL: a case answered otherwise the second time")
        return 1
    print("%d golden cases, twice over: the same answers with a shared cache and without"
          % len(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
