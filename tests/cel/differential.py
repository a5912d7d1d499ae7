#!/usr/bin/env python3
"""differential.py ORACLE RUNNER CORPUS... - cel/ against cel-go as
Kubernetes 1.32's API server configures it for CRD rules (ORACLE:
tests/cel/oracle, `make cel-oracle`): each corpus line ({"expr", "self"}:
an expression and, optionally, the document bound to `self`) goes to the
oracle, whose answer (a value, or an evaluation error) becomes the
expectation the runner (tests/cel/cel_conformance.c) checks cel/ against.
An expression the oracle does not compile is a broken corpus line (the
server refuses such a rule). Nothing is expected by hand.
"""
import json
import os
import subprocess
import sys


def tagged(v):
    """A plain JSON value as the runner's tagged value (as a document
    decodes: integral numbers are ints)."""
    if v is None:
        return {"null": None}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"double": v}
    if isinstance(v, str):
        return {"string": v}
    if isinstance(v, list):
        return {"list": [tagged(x) for x in v]}
    return {"map": [[{"string": k}, tagged(x)] for k, x in v.items()]}


def main():
    oracle, runner, corpora = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not os.path.exists(oracle):
        msg = "the CEL oracle is not built (make cel-oracle needs Go)"
        if os.environ.get("CI") == "true":
            print("FAIL: %s (CI=true: the oracle must run)" % msg)
            return 1
        print("SKIP: " + msg)
        return 77
    lines = []
    for c in corpora:
        with open(c) as f:
            lines += [json.loads(x) for x in f if x.strip() and not x.startswith("#")]
    req = "".join(json.dumps({"expr": x["expr"], "self": x.get("self")}) + "\n" for x in lines)
    o = subprocess.run([oracle], input=req, capture_output=True, text=True)
    answers = [json.loads(a) for a in o.stdout.splitlines()]
    if o.returncode != 0 or len(answers) != len(lines):
        print("the oracle failed: %s" % o.stderr[-2000:])
        return 1
    broken, cases = [], []
    for x, a in zip(lines, answers):
        if "compile" in a or "value" not in a and "error" not in a:
            broken.append("%s: %s" % (x["expr"], a))
            continue
        case = {"expr": x["expr"], "bindings": {}}
        if "self" in x:
            case["bindings"]["self"] = tagged(x["self"])
        case["want"] = a["value"] if "value" in a else {"error": True}
        cases.append(case)
    r = subprocess.run([runner], input="".join(json.dumps(c) + "\n" for c in cases),
                       capture_output=True, text=True)
    got = r.stdout.splitlines()
    if r.returncode != 0 or len(got) != len(cases):
        print("the runner failed: %s" % r.stderr[-2000:])
        return 1
    bad = [(c["expr"], g) for c, g in zip(cases, got) if g != "ok"]
    for e, g in bad:
        print("DIFFER %s: %s" % (e, g))
    for b in broken:
        print("BROKEN corpus line (the oracle does not compile it): " + b)
    print("cel differential: %d/%d agree with cel-go" % (len(cases) - len(bad), len(cases)))
    return 1 if bad or broken else 0


if __name__ == "__main__":
    sys.exit(main())
