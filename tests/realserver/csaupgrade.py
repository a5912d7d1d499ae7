#!/usr/bin/env python3
"""csaupgrade.py REALSERVER SMPATCH SOURCE_DIR - kubectl's migration of
client-side ownership (smp_ssa_upgrade_subresource through the Python
binding's upgrade_managed_fields) against client-go v0.32.4's own
csaupgrade.UpgradeManagedFields, which the judge program runs
(`realserver csaupgrade`, tests/realserver/csaupgrade.go). Generated
managedFields lists mix client-side managers, an existing Apply entry,
other managers, two apiVersions, the main resource and the status
subresource, and fieldsV1 that does not decode; each is migrated for the
main resource and for "status" (client-go's Subresource option), with one
or two client-side managers. Compared: the new list (None when nothing
changes), or that both refuse."""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402

import smpatch  # noqa: E402  (PYTHONPATH: the binding over this build)

MANAGERS = ["kubectl-client-side-apply", "before-first-apply", "kubectl", "kube-controller-manager"]
FIELDS = [{"f:data": {"f:a": {}}}, {"f:data": {"f:b": {}}},
          {"f:metadata": {"f:annotations": {".": {}, "f:x": {}}}},
          {"f:metadata": {"f:labels": {"f:app": {}}}, "f:data": {".": {}, "f:a": {}}},
          {"f:status": {"f:phase": {}}}, {}]


def entry(rng):
    e = {"manager": rng.choice(MANAGERS), "operation": rng.choice(["Update", "Update", "Apply"]),
         "apiVersion": rng.choice(["v1", "v1", "v2"]),
         "time": "2024-01-0%dT00:00:00Z" % rng.randint(1, 9), "fieldsType": "FieldsV1",
         "fieldsV1": rng.choice(FIELDS)}
    if rng.random() < 0.3:
        e["subresource"] = "status"
    if rng.random() < 0.03:
        e["fieldsV1"] = {"f:data": {"bad": {}}}  # does not decode
    return e


def cases(n, seed=32):
    rng = random.Random(seed)
    for i in range(n):
        mf = [entry(rng) for _ in range(rng.randint(1, 5))]
        csa = rng.sample(MANAGERS[:2] + ["kube-controller-manager"], rng.randint(1, 2))
        yield {"managedFields": mf, "csaManagers": csa,
               "manager": rng.choice(["kubectl", "kubectl", "helm"]),
               "subresource": rng.choice(["", "status"])}


def main():
    realserver, _, _, started = judge.suite_args(__doc__)
    todo = list(cases(600))
    ans = subprocess.run([realserver, "csaupgrade"], input="".join(json.dumps(c) + "\n"
                                                                    for c in todo),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(ans) == len(todo), "the oracle answered %d of %d" % (len(ans), len(todo))
    tally = judge.Tally()
    kinds = {"changed": 0, "unchanged": 0, "refused": 0}
    for i, (c, line) in enumerate(zip(todo, ans)):
        want = json.loads(line)
        try:
            got = smpatch.upgrade_managed_fields(c["managedFields"], c["csaManagers"], c["manager"],
                                                 subresource=c["subresource"])
            err = None
        except smpatch.Error as x:
            got, err = None, str(x)
        problems = []
        if "error" in want:
            kinds["refused"] += 1
            if err is None:
                problems.append("client-go refuses (%s), smpatch does not" % want["error"])
        elif err is not None:
            problems.append("smpatch refuses: %s" % err)
        elif not want["changed"]:
            kinds["unchanged"] += 1
            if got is not None:
                problems.append("client-go changes nothing, smpatch gives %s" % json.dumps(got))
        else:
            kinds["changed"] += 1
            if got != want["managedFields"]:
                problems.append("got %s, want %s" % (json.dumps(got), json.dumps(want["managedFields"])))
        tally.check("case %d %s" % (i, json.dumps(c)[:300]), problems)
    print("cases: %d changed, %d unchanged, %d refused by client-go" %
          (kinds["changed"], kinds["unchanged"], kinds["refused"]))
    judge.report("csaupgrade", tally.agree, tally.total, started)


if __name__ == "__main__":
    main()
