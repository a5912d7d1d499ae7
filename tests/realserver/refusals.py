#!/usr/bin/env python3
"""refusals.py REALSERVER SMPATCH SOURCE_DIR - judged suite (e): refusals.

A catalogue of objects the API server refuses (CATALOGUE below, and the
objects of testdata/ the server refuses, which stored.py finds) is applied
by real kubectl 1.32 through the real server's recording proxy, so that the
server's raw metav1.Status is at hand; `smpatch apply --dry-run=server
-o patch` of the same file must refuse it with the same Status (code,
reason, message, details and causes, compared as JSON values), and
`smpatch validate -o json` must give the same verdict (invalid with that
Status, exit 1; valid, exit 0, where apply predicts no refusal). A refusal
smpatch does not predict yet is listed (the count goes to docs/TESTING.md);
smpatch refusing what the server accepts, or predicting another Status, is
a disagreement. Prints `refusals: agree/total` over the refusals smpatch
predicts and the accepted objects of the catalogue.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402


def cm(name, **meta):
    md = {"name": name}
    md.update(meta)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": {"a": "1"}}


def deploy(name, containers, **spec):
    s = {"selector": {"matchLabels": {"app": name}},
         "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}}}
    s.update(spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": s}


def svc(name, ports, **spec):
    s = {"selector": {"app": "x"}, "ports": ports}
    s.update(spec)
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": s}


C = {"name": "c", "image": "nginx"}

# (name, object): what the server refuses, one reason each where possible.
CATALOGUE = [
    ("name-uppercase", cm("Bad")),
    ("name-underscore", cm("bad_name")),
    ("name-too-long", cm("a" * 254)),
    ("label-key-dash", cm("l1", labels={"-x": "y"})),
    ("label-value-dash", cm("l2", labels={"x": "-y"})),
    ("label-value-long", cm("l3", labels={"x": "v" * 64})),
    ("label-prefix-upper", cm("l4", labels={"Example.COM/x": "y"})),
    ("annotation-key-bad", cm("a1", annotations={"bad key": "v"})),
    ("annotations-too-large", cm("a2", annotations={"big": "x" * (256 * 1024)})),
    ("deployment-no-containers", deploy("d1", [])),
    ("container-no-name", deploy("d2", [{"image": "nginx"}])),
    ("container-no-image", deploy("d3", [{"name": "c"}])),
    ("container-name-repeated", deploy("d4", [C, dict(C)])),
    ("selector-mismatch", dict(deploy("d5", [C]), spec=dict(deploy("d5", [C])["spec"],
                                                           selector={"matchLabels": {"x": "y"}}))),
    ("replicas-negative", deploy("d6", [C], replicas=-1)),
    ("quantity-invalid", deploy("d7", [dict(C, resources={"limits": {"cpu": "lots"}})])),
    ("quantity-requests-over-limits",
     deploy("d8", [dict(C, resources={"limits": {"cpu": "1"}, "requests": {"cpu": "2"}})])),
    ("replicas-string", deploy("d9", [C], replicas="three")),
    ("unknown-field", deploy("d10", [dict(C, imagePullPolicyy="Always")])),
    ("unknown-field-top", dict(cm("u1"), extra=1)),
    ("container-port-range", deploy("d11", [dict(C, ports=[{"containerPort": 70000}])])),
    ("container-port-zero", deploy("d12", [dict(C, ports=[{"containerPort": 0}])])),
    ("service-port-range", svc("s1", [{"port": 0}])),
    ("service-port-name-missing", svc("s2", [{"port": 80}, {"port": 81}])),
    ("service-port-repeated", svc("s3", [{"name": "a", "port": 80}, {"name": "b", "port": 80}])),
    ("service-port-name-repeated", svc("s4", [{"name": "a", "port": 80}, {"name": "a", "port": 81}])),
    ("service-type-unknown", svc("s5", [{"port": 80}], type="Bogus")),
    ("env-name-empty", deploy("d13", [dict(C, env=[{"name": "", "value": "x"}])])),
    ("restart-policy-never", deploy("d14", [C], template={
        "metadata": {"labels": {"app": "d14"}},
        "spec": {"containers": [C], "restartPolicy": "Never"}})),
    ("configmap-key-bad", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "k1"},
                           "data": {"bad key": "v"}}),
    ("secret-data-not-base64", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s1"},
                                "data": {"a": "not base64!"}}),
    ("namespace-missing", dict(cm("n1"), metadata={"name": "n1", "namespace": "nowhere"})),
]


def canon(v):
    return json.dumps(v, sort_keys=True)


def main():
    realserver, program, src, started = judge.suite_args(__doc__)
    agree = total = 0
    unpredicted = []
    with judge.Server(realserver) as srv, tempfile.TemporaryDirectory() as tmp:
        for name, obj in CATALOGUE:
            path = os.path.join(tmp, name + ".json")
            with open(path, "w") as f:
                json.dump(obj, f)
            n = srv.mark()
            rc, out, err = srv.kubectl("apply", "-f", path)
            server = srv.refusal(n) if rc != 0 else None
            prc, pout, perr = judge.smpatch(program, "apply", "-f", path, "--dry-run=server",
                                            "-o", "patch")
            predicted = None
            for line in pout.splitlines():
                e = json.loads(line)
                if e.get("status"):
                    predicted = e["status"]
            if rc == 0:
                srv.kubectl("delete", "-f", path, "--wait=false")
            # smpatch validate gives the same verdict: invalid with the
            # predicted Status (exit 1), else valid (exit 0)
            vrc, vout, verr = judge.smpatch(program, "validate", "-f", path, "-o", "json")
            verdicts = [json.loads(line) for line in vout.splitlines()]
            want = ("invalid", 1) if predicted is not None else ("valid", 0)
            if len(verdicts) != 1 or (verdicts[0].get("status"), vrc) != want or \
                    canon(verdicts[0].get("refusal")) != canon(predicted):
                print("DIFFER %s: smpatch validate says %s (exit %d), apply predicts %s" % (
                    name, vout.strip()[:300] or verr.strip()[:300], vrc,
                    canon(predicted)[:300]))
                total += 1
                continue
            if server is None and rc != 0:
                print("FAIL %s: kubectl failed before any write: %s" % (name, err.strip()[:300]))
                total += 1
                continue
            if server is None:
                total += 1
                if predicted is None and prc == 0:
                    agree += 1
                else:
                    print("DIFFER %s: the server accepts it, smpatch refuses: %s" %
                          (name, (perr or pout).strip()[:300]))
                continue
            if predicted is None:
                unpredicted.append((name, server.get("reason"), server.get("message", "")))
                continue
            total += 1
            if canon(server) == canon(predicted):
                agree += 1
            else:
                print("DIFFER %s:\n  server    %s\n  predicted %s" % (name, canon(server),
                                                                   canon(predicted)))
    for name, reason, msg in unpredicted:
        print("NOT PREDICTED %s: %s: %s" % (name, reason, msg[:200]))
    print("refusals: %d predicted with the server's Status, %d not predicted yet, "
          "of %d objects" % (agree, len(unpredicted), len(CATALOGUE)))
    judge.report("refusals", agree, total, started)


if __name__ == "__main__":
    main()
