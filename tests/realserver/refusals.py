#!/usr/bin/env python3
"""refusals.py REALSERVER SMPATCH SOURCE_DIR - judged suite (e): refusals.

A catalogue of objects the API server refuses (CATALOGUE below) and of
updates it refuses (UPDATES: the live object is created first) is applied
by real kubectl 1.32 through the real server's recording proxy, so that the
server's raw metav1.Status is at hand; `smpatch apply --dry-run=server
-o patch` of the same file (with `--live` and the live object as the server
stores it for an update) must refuse it with the same Status (code,
reason, message, details and causes, compared as JSON values, the causes
the server lists in Go's map order as a set: judge.canon_status), and
`smpatch validate -o json` must give the same verdict (invalid with that
Status, exit 1; valid, exit 0, where apply predicts no refusal). A refusal
smpatch does not predict yet is listed (the count goes to
docs/TESTING.md); smpatch refusing what the server accepts, or predicting
another Status, is a disagreement. stored.py judges the same way the
objects of testdata/ the server refuses. Prints `refusals: agree/total`
over the refusals smpatch predicts and the accepted objects.
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


def sts(name, containers, **spec):
    s = {"serviceName": name, "selector": {"matchLabels": {"app": name}},
         "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}}}
    s.update(spec)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name}, "spec": s}


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
    # more of each kind's rules
    ("configmap-key-dotdot", dict(cm("k2"), data={"..a": "1", ".": "2"})),
    ("configmap-key-in-both", dict(cm("k3"), data={"a": "1"}, binaryData={"a": "AQ=="})),
    ("configmap-binary-not-base64", dict(cm("k4"), binaryData={"b": "AAE=-e"})),
    ("secret-tls-keys-missing", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t1"},
                                 "type": "kubernetes.io/tls", "data": {"tls.crt": "AA=="}}),
    ("secret-basic-auth-empty", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t2"},
                                 "type": "kubernetes.io/basic-auth"}),
    ("secret-key-bad", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t3"},
                        "stringData": {"a b": "x"}}),
    ("service-name-uppercase", svc("Svc", [{"port": 80}])),
    ("service-affinity-unknown", svc("s6", [{"port": 80}], sessionAffinity="Sticky")),
    ("service-affinity-timeout", svc("s7", [{"port": 80}], sessionAffinity="ClientIP",
                                     sessionAffinityConfig={"clientIP": {"timeoutSeconds": 0}})),
    ("service-external-ip-loopback", svc("s8", [{"port": 80}], externalIPs=["127.0.0.1", "x"])),
    ("service-node-port-cluster-ip", svc("s9", [{"port": 80, "nodePort": 30080}])),
    ("service-family-policy-unknown", svc("s10", [{"port": 80}], ipFamilyPolicy="Both")),
    ("service-families-unknown", svc("s11", [{"port": 80}], ipFamilies=["IPv5"])),
    ("service-lb-kubelet-port", svc("s12", [{"port": 10250}], type="LoadBalancer")),
    ("service-headless-node-port", svc("s13", [{"port": 80}], type="NodePort", clusterIP="None")),
    ("service-traffic-policy-cluster-ip", svc("s14", [{"port": 80}], externalTrafficPolicy="Local")),
    ("service-internal-policy-unknown", svc("s15", [{"port": 80}], internalTrafficPolicy="Near")),
    ("service-port-name-upper", svc("s16", [{"name": "Web", "port": 80}, {"name": "b", "port": 81}])),
    ("service-target-port-name-bad", svc("s17", [{"port": 80, "targetPort": "Web--x"}])),
    ("service-protocol-unknown", svc("s18", [{"port": 80, "protocol": "HTTP"}])),
    ("service-node-port-repeated", svc("s19", [{"name": "a", "port": 80, "nodePort": 30001},
                                               {"name": "b", "port": 81, "nodePort": 30001}],
                                       type="NodePort")),
    ("container-name-uppercase", deploy("d15", [dict(C, name="Web")])),
    ("container-port-name-bad", deploy("d16", [dict(C, ports=[{"containerPort": 80, "name": "Z"}])])),
    ("container-port-name-repeated", deploy("d17", [dict(C, ports=[
        {"containerPort": 80, "name": "web"}, {"containerPort": 81, "name": "web"}])])),
    ("container-protocol-unknown", deploy("d18", [dict(C, ports=[{"containerPort": 80,
                                                                  "protocol": "HTTP"}])])),
    ("env-value-and-value-from", deploy("d19", [dict(C, env=[{"name": "A", "value": "x", "valueFrom": {
        "configMapKeyRef": {"name": "c", "key": "k"}}}])])),
    ("env-value-from-none", deploy("d20", [dict(C, env=[{"name": "A", "valueFrom": {}}])])),
    ("env-value-from-bad-key", deploy("d21", [dict(C, env=[{"name": "A", "valueFrom": {
        "secretKeyRef": {"name": "S", "key": "a b"}}}])])),
    ("env-name-equals", deploy("d22", [dict(C, env=[{"name": "A=B", "value": "x"}])])),
    ("volume-mount-not-found", deploy("d23", [dict(C, volumeMounts=[{"name": "v", "mountPath": "/v"}])])),
    ("volume-name-repeated", deploy("d24", [dict(C, volumeMounts=[{"name": "v", "mountPath": "/v"},
                                                                  {"name": "v", "mountPath": "/v"}])],
                                    template={"metadata": {"labels": {"app": "d24"}}, "spec": {
                                        "containers": [dict(C, volumeMounts=[
                                            {"name": "v", "mountPath": "/v"},
                                            {"name": "v", "mountPath": "/v"}])],
                                        "volumes": [{"name": "v", "emptyDir": {}},
                                                    {"name": "v", "emptyDir": {}}]}})),
    ("image-pull-policy-unknown", deploy("d25", [dict(C, imagePullPolicy="Sometimes")])),
    ("termination-message-policy-unknown", deploy("d26", [dict(C, terminationMessagePolicy="Log")])),
    ("request-negative", deploy("d27", [dict(C, resources={"requests": {"memory": "-1Mi"}})])),
    ("dns-policy-unknown", deploy("d28", [C], template={
        "metadata": {"labels": {"app": "d28"}},
        "spec": {"containers": [C], "dnsPolicy": "Google"}})),
    ("template-label-bad", deploy("d29", [C], template={
        "metadata": {"labels": {"app": "d29", "x": "-y"}}, "spec": {"containers": [C]}})),
    ("selector-empty", dict(deploy("d30", [C]), spec=dict(deploy("d30", [C])["spec"],
                                                          selector={"matchLabels": {}}))),
    ("selector-missing", dict(deploy("d31", [C]), spec={
        "template": {"metadata": {"labels": {"app": "d31"}}, "spec": {"containers": [C]}}})),
    ("strategy-unknown", deploy("d32", [C], strategy={"type": "BlueGreen"})),
    ("strategy-recreate-rolling", deploy("d33", [C], strategy={"type": "Recreate",
                                                                "rollingUpdate": {"maxSurge": 1}})),
    ("max-surge-bad", deploy("d34", [C], strategy={"type": "RollingUpdate",
                                                   "rollingUpdate": {"maxSurge": "25%x"}})),
    ("progress-deadline-short", deploy("d35", [C], minReadySeconds=10, progressDeadlineSeconds=5)),
    ("min-ready-negative", deploy("d36", [C], minReadySeconds=-1)),
    ("active-deadline-in-deployment", deploy("d37", [C], template={
        "metadata": {"labels": {"app": "d37"}},
        "spec": {"containers": [C], "activeDeadlineSeconds": 30}})),
    ("ephemeral-in-template", deploy("d38", [C], template={
        "metadata": {"labels": {"app": "d38"}},
        "spec": {"containers": [C], "ephemeralContainers": [{"name": "e", "image": "busybox"}]}})),
    ("hostname-bad", deploy("d39", [C], template={
        "metadata": {"labels": {"app": "d39"}},
        "spec": {"containers": [C], "hostname": "Host_1"}})),
    ("several-errors", deploy("d40", [{"name": "a"}, {"name": "a", "image": "x",
                                                       "ports": [{"containerPort": 0}]}],
                              replicas=-2)),
    ("name-dots-service", svc("a.b", [{"port": 80}])),
    ("label-two-slashes", cm("l5", labels={"a/b/c": "y"})),
    ("annotation-key-upper-prefix", cm("a3", annotations={"Example.com/x": "y", "bad key": "z"})),
    ("labels-several", cm("l6", labels={"-a": "-b", "c": "d" * 70})),
    ("max-unavailable-over-100", deploy("d41", [C], strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "120%"}})),
    ("rolling-update-both-zero", deploy("d42", [C], strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "0%"}})),
    ("replicaset-no-selector", {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                "metadata": {"name": "rs1"}, "spec": {"template": {
                                    "metadata": {"labels": {"app": "rs1"}},
                                    "spec": {"containers": [{"name": "c"}]}}}}),
    ("replicaset-restart-never", {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                  "metadata": {"name": "rs2"}, "spec": {
                                      "replicas": -1, "selector": {"matchLabels": {"app": "rs2"}},
                                      "template": {"metadata": {"labels": {"app": "rs2"}},
                                                   "spec": {"containers": [C],
                                                            "restartPolicy": "Never"}}}}),
    ("daemonset-no-selector", {"apiVersion": "apps/v1", "kind": "DaemonSet",
                               "metadata": {"name": "ds2"}, "spec": {"template": {
                                   "metadata": {"labels": {"app": "ds2"}},
                                   "spec": {"containers": [C]}}}}),
    ("daemonset-mismatch-and-container", {"apiVersion": "apps/v1", "kind": "DaemonSet",
                                          "metadata": {"name": "ds3"}, "spec": {
                                              "selector": {"matchLabels": {"app": "x"}},
                                              "template": {"metadata": {"labels": {"app": "ds3"}},
                                                           "spec": {"containers": [
                                                               {"name": "C", "image": "x"}]}}}}),
    ("daemonset-strategy-unknown", {"apiVersion": "apps/v1", "kind": "DaemonSet",
                                    "metadata": {"name": "ds4"}, "spec": {
                                        "selector": {"matchLabels": {"app": "ds4"}},
                                        "updateStrategy": {"type": "Sometimes"},
                                        "template": {"metadata": {"labels": {"app": "ds4"}},
                                                     "spec": {"containers": [C]}}}}),
    ("daemonset-surge-and-unavailable", {"apiVersion": "apps/v1", "kind": "DaemonSet",
                                         "metadata": {"name": "ds5"}, "spec": {
                                             "selector": {"matchLabels": {"app": "ds5"}},
                                             "updateStrategy": {"type": "RollingUpdate",
                                                                "rollingUpdate": {
                                                                    "maxUnavailable": 1,
                                                                    "maxSurge": "10%"}},
                                             "template": {"metadata": {"labels": {"app": "ds5"}},
                                                          "spec": {"containers": [C]}}}}),
    ("daemonset-both-zero", {"apiVersion": "apps/v1", "kind": "DaemonSet",
                             "metadata": {"name": "ds6"}, "spec": {
                                 "selector": {"matchLabels": {"app": "ds6"}},
                                 "updateStrategy": {"type": "RollingUpdate",
                                                    "rollingUpdate": {"maxUnavailable": 0}},
                                 "template": {"metadata": {"labels": {"app": "ds6"}},
                                              "spec": {"containers": [C],
                                                       "activeDeadlineSeconds": 5}}}}),
    ("statefulset-template-label-bad", {"apiVersion": "apps/v1", "kind": "StatefulSet",
                                        "metadata": {"name": "ss1"}, "spec": {
                                            "serviceName": "ss1",
                                            "selector": {"matchLabels": {"app": "ss1"}},
                                            "template": {"metadata": {"labels": {
                                                "app": "ss1", "x": "-y"}},
                                                "spec": {"containers": [C]}}}}),
    ("statefulset-name-dots", sts("a.b", [C])),
    ("statefulset-pod-policy-unknown", sts("ss2", [C], podManagementPolicy="Random")),
    ("statefulset-no-selector", dict(sts("ss3", [C]), spec={
        "serviceName": "ss3", "template": {"metadata": {"labels": {"app": "ss3"}},
                                           "spec": {"containers": [C]}}})),
    ("statefulset-strategy-unknown", sts("ss4", [C], updateStrategy={"type": "Sometimes"})),
    ("statefulset-on-delete-rolling", sts("ss5", [C], updateStrategy={
        "type": "OnDelete", "rollingUpdate": {"partition": 1}})),
    ("statefulset-retention-unknown", sts("ss6", [C], persistentVolumeClaimRetentionPolicy={
        "whenDeleted": "Keep"})),
    ("statefulset-partition-negative", sts("ss7", [C], replicas=-1, updateStrategy={
        "type": "RollingUpdate", "rollingUpdate": {"partition": -1, "maxUnavailable": 0}})),
    ("statefulset-container-no-image", sts("ss8", [{"name": "c"}])),
    ("daemonset-label-bad", {"apiVersion": "apps/v1", "kind": "DaemonSet",
                             "metadata": {"name": "ds1", "labels": {"x": "-y"}},
                             "spec": {"selector": {"matchLabels": {"app": "ds1"}}, "template": {
                                 "metadata": {"labels": {"app": "ds1"}},
                                 "spec": {"containers": [C]}}}}),
]

# (name, live object, new object): updates the server refuses (the live
# object is created first; smpatch is given it as the server stores it)
UPDATES = [
    ("update-label-bad", cm("u2"), cm("u2", labels={"x": "-y"})),
    ("update-deployment-label-bad", deploy("u3", [C]),
     dict(deploy("u3", [C]), metadata={"name": "u3", "labels": {"x": "-y"}})),
    ("update-selector-changed", deploy("u4", [C]),
     dict(deploy("u4", [C]), spec=dict(deploy("u4", [C])["spec"],
                                       selector={"matchLabels": {"app": "u4", "v": "2"}},
                                       template={"metadata": {"labels": {"app": "u4", "v": "2"}},
                                                 "spec": {"containers": [C]}}))),
    ("update-secret-type", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "u5"},
                            "type": "Opaque", "data": {"a": "AA=="}},
     {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "u5"},
      "type": "example.com/other", "data": {"a": "AA=="}}),
    ("update-immutable-configmap", dict(cm("u6"), immutable=True),
     dict(cm("u6"), immutable=True, data={"a": "2"})),
    ("update-service-port-name", svc("u7", [{"port": 80}]),
     svc("u7", [{"port": 80, "name": "Web"}])),
    ("update-container-image-removed", deploy("u8", [C]), deploy("u8", [{"name": "c"}])),
    ("update-replicaset-selector", {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                    "metadata": {"name": "u9"}, "spec": {
                                        "replicas": 0, "selector": {"matchLabels": {"app": "u9"}},
                                        "template": {"metadata": {"labels": {"app": "u9"}},
                                                     "spec": {"containers": [C]}}}},
     {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "u9",
                                                                   "labels": {"x": "-y"}},
      "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "u9", "v": "2"}},
               "template": {"metadata": {"labels": {"app": "u9", "v": "2"}},
                            "spec": {"containers": [C]}}}}),
    ("update-statefulset-label", sts("u11", [C], replicas=0),
     dict(sts("u11", [C], replicas=0), metadata={"name": "u11", "labels": {"x": "-y"}})),
    ("update-statefulset-service-name", sts("u12", [C], replicas=0),
     sts("u12", [C], replicas=0, serviceName="other")),
    ("update-daemonset-label", {"apiVersion": "apps/v1", "kind": "DaemonSet",
                                "metadata": {"name": "u10"}, "spec": {
                                    "selector": {"matchLabels": {"app": "u10"}},
                                    "template": {"metadata": {"labels": {"app": "u10"}},
                                                 "spec": {"containers": [C]}}}},
     {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "u10",
                                                                  "labels": {"-x": "y"}},
      "spec": {"selector": {"matchLabels": {"app": "u10"}},
               "template": {"metadata": {"labels": {"app": "u10"}},
                            "spec": {"containers": [dict(C, image="nginx:2")]}}}}),
]


def canon(v):
    return json.dumps(judge.canon_status(v), sort_keys=True)


def judge_write(srv, program, name, path, livep):
    """Applies the file `path` with kubectl (onto the live object stored at
    livep, or a create) and judges smpatch's prediction of it, and `smpatch
    validate`'s verdict. Returns "agree", "differ" (printed) or the
    server's refusal smpatch does not predict yet."""
    live = ["--live", livep] if livep else []
    n = srv.mark()
    rc, out, err = srv.kubectl("apply", "-f", path)
    server = srv.refusal(n) if rc != 0 else None
    prc, pout, perr = judge.smpatch(program, "apply", "-f", path, *live, "--dry-run=server",
                                    "-o", "patch")
    predicted = None
    for line in pout.splitlines():
        e = json.loads(line)
        if e.get("status"):
            predicted = e["status"]
    if rc == 0 or livep:
        srv.kubectl("delete", "-f", path, "--wait=false")
    # smpatch validate gives the same verdict: invalid with the predicted
    # Status (exit 1), else valid (exit 0)
    vrc, vout, verr = judge.smpatch(program, "validate", "-f", path, *live, "-o", "json")
    verdicts = [json.loads(line) for line in vout.splitlines()]
    want = ("invalid", 1) if predicted is not None else ("valid", 0)
    if len(verdicts) != 1 or (verdicts[0].get("status"), vrc) != want or \
            canon(verdicts[0].get("refusal")) != canon(predicted):
        print("DIFFER %s: smpatch validate says %s (exit %d), apply predicts %s" % (
            name, vout.strip()[:300] or verr.strip()[:300], vrc, canon(predicted)[:300]))
        return "differ"
    if server is None and rc != 0:
        print("FAIL %s: kubectl failed before any write: %s" % (name, err.strip()[:300]))
        return "differ"
    if server is None:
        if predicted is None and prc == 0:
            return "agree"
        print("DIFFER %s: the server accepts it, smpatch refuses: %s" %
              (name, (perr or pout).strip()[:300]))
        return "differ"
    if predicted is None:
        return server
    if canon(server) == canon(predicted):
        return "agree"
    print("DIFFER %s:\n  server    %s\n  predicted %s" % (name, canon(server), canon(predicted)))
    return "differ"


def main():
    realserver, program, src, started = judge.suite_args(__doc__)
    agree = total = 0
    unpredicted = []
    with judge.Server(realserver) as srv, tempfile.TemporaryDirectory() as tmp:
        cases = [(name, None, obj) for name, obj in CATALOGUE] + UPDATES
        for name, live, obj in cases:
            path = os.path.join(tmp, name + ".json")
            livep = os.path.join(tmp, name + ".live.json") if live else None
            with open(path, "w") as f:
                json.dump(obj, f)
            if live:
                # the live object as the server stores it
                with open(livep, "w") as f:
                    json.dump(live, f)
                rc, out, err = srv.kubectl("apply", "-f", livep, "-o", "json")
                if rc != 0:
                    print("FAIL %s: the live object is refused: %s" % (name, err.strip()[:300]))
                    total += 1
                    continue
                with open(livep, "w") as f:
                    f.write(out)
            got = judge_write(srv, program, name, path, livep)
            if isinstance(got, dict):
                unpredicted.append((name, got.get("reason"), got.get("message", "")))
                continue
            total += 1
            agree += got == "agree"
    for name, reason, msg in unpredicted:
        print("NOT PREDICTED %s: %s: %s" % (name, reason, msg[:200]))
    print("refusals: %d agree (predicted with the server's Status, or accepted by both), "
          "%d not predicted yet, of %d objects and %d updates" % (
              agree, len(unpredicted), len(CATALOGUE), len(UPDATES)))
    judge.report("refusals", agree, total, started)


if __name__ == "__main__":
    main()
