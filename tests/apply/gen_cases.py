#!/usr/bin/env python3
"""Authoring tool (not run by the tests): writes the inputs of the golden
cases under testdata/apply/<case>/ -- config files, live objects, args.

Live objects are built here, independently of smpatch: the previous
configuration with its namespace filled in, the last-applied annotation
encoded the way kubectl encodes it (Go's encoding/json: sorted keys, compact,
<>& escaped, trailing newline, "annotations":{} kept), the fields the API
server adds (uid, resourceVersion, defaults, status) and the changes other
actors made (kubectl scale, controllers). Expected outputs are then made
with SMP_UPDATE_GOLDEN=1 and reviewed by hand.

Usage: python3 tests/apply/gen_cases.py testdata/apply
"""
import copy
import json
import os
import sys

import yaml

LA = "kubectl.kubernetes.io/last-applied-configuration"
CLUSTER_KINDS = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume",
                 "CustomResourceDefinition", "StorageClass", "Node", "APIService"}


def go_json(v):
    s = json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def with_ns(cfg, ns="default"):
    c = copy.deepcopy(cfg)
    if c["kind"] not in CLUSTER_KINDS:
        c.setdefault("metadata", {})
        if not c["metadata"].get("namespace"):
            c["metadata"]["namespace"] = ns
    return c


def encode(cfg):
    c = copy.deepcopy(cfg)
    md = c.setdefault("metadata", {})
    ann = md.get("annotations")
    ann = dict(ann) if isinstance(ann, dict) else {}
    ann.pop(LA, None)
    md["annotations"] = ann
    return go_json(c) + "\n"


SERVER_MD = {"creationTimestamp": "2026-11-20T10:00:00Z", "generation": 1,
             "resourceVersion": "4711", "uid": "0b6e0c1e-9a3c-4f0e-8c5e-1f2a3b4c5d6e"}


def container_defaults(c):
    c.setdefault("imagePullPolicy", "IfNotPresent")
    c.setdefault("resources", {})
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    for p in c.get("ports", []):
        p.setdefault("protocol", "TCP")


def pod_spec_defaults(s):
    for c in s.get("containers", []):
        container_defaults(c)
    s.setdefault("dnsPolicy", "ClusterFirst")
    s.setdefault("restartPolicy", "Always")
    s.setdefault("schedulerName", "default-scheduler")
    s.setdefault("securityContext", {})
    s.setdefault("terminationGracePeriodSeconds", 30)


def server_defaults(o):
    k = o["kind"]
    if k == "Deployment":
        s = o.setdefault("spec", {})
        s.setdefault("replicas", 1)
        s.setdefault("progressDeadlineSeconds", 600)
        s.setdefault("revisionHistoryLimit", 10)
        s.setdefault("strategy", {"type": "RollingUpdate",
                                  "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
        pod_spec_defaults(s.setdefault("template", {}).setdefault("spec", {}))
        o["metadata"].setdefault("annotations", {})["deployment.kubernetes.io/revision"] = "1"
        o["status"] = {"observedGeneration": 1, "replicas": s["replicas"],
                       "readyReplicas": s["replicas"], "availableReplicas": s["replicas"],
                       "updatedReplicas": s["replicas"]}
    elif k == "Service":
        s = o.setdefault("spec", {})
        s.setdefault("clusterIP", "10.96.12.34")
        s.setdefault("clusterIPs", ["10.96.12.34"])
        s.setdefault("type", "ClusterIP")
        s.setdefault("sessionAffinity", "None")
        for p in s.get("ports", []):
            p.setdefault("protocol", "TCP")
            p.setdefault("targetPort", p.get("port"))
        o["status"] = {"loadBalancer": {}}
    elif k == "Pod":
        pod_spec_defaults(o.setdefault("spec", {}))
        o["status"] = {"phase": "Running"}


def live_from(cfg, ns="default", annotate=True, defaults=True):
    o = with_ns(cfg, ns)
    md = o.setdefault("metadata", {})
    ann = md.get("annotations")
    ann = dict(ann) if isinstance(ann, dict) else {}
    if annotate:
        ann[LA] = encode(o)
    md["annotations"] = ann
    for k, v in SERVER_MD.items():
        md.setdefault(k, v)
    if not md["annotations"]:
        del md["annotations"]
    if defaults:
        server_defaults(o)
    drop_nulls(o)
    return o


def drop_nulls(v):
    if isinstance(v, dict):
        for k in [k for k, x in v.items() if x is None]:
            del v[k]
        for x in v.values():
            drop_nulls(x)
    elif isinstance(v, list):
        for x in v:
            drop_nulls(x)


def deploy(name="nginx-deployment", image="nginx:1.14.2", replicas=None, labels=None,
           extra_spec=None, containers=None, ns=None, min_ready=None):
    labels = labels or {"app": "nginx"}
    c = containers or [{"name": "nginx", "image": image, "ports": [{"containerPort": 80}]}]
    spec = {"selector": {"matchLabels": dict(labels)}}
    if replicas is not None:
        spec["replicas"] = replicas
    if min_ready is not None:
        spec["minReadySeconds"] = min_ready
    spec["template"] = {"metadata": {"labels": dict(labels)}, "spec": {"containers": c}}
    if extra_spec:
        spec.update(extra_spec)
    md = {"name": name}
    if ns:
        md["namespace"] = ns
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md, "spec": spec}


def cm(name, data, labels=None, ns=None, annotations=None):
    md = {"name": name}
    if ns:
        md["namespace"] = ns
    if labels:
        md["labels"] = labels
    if annotations is not None:
        md["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}


def widget(name, spec, labels=None):
    md = {"name": name}
    if labels:
        md["labels"] = labels
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": md, "spec": spec}


WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {
                               "type": "object",
                               "x-kubernetes-preserve-unknown-fields": True}}}]}}


def dump(objs):
    return "---\n".join(yaml.safe_dump(o, sort_keys=False, default_flow_style=False)
                        for o in objs)


CASES = {}


def case(name, config, live=None, args="", files=None, stdin=None, command=None):
    CASES[name] = dict(config=config, live=live, args=args, files=files or {},
                       stdin=stdin, command=command)


# ---- the nginx walk-through ----
simple = deploy(min_ready=5)
update = deploy(image="nginx:1.16.1")
scaled = live_from(simple)
scaled["spec"]["replicas"] = 2  # kubectl scale writes the live object only
scaled["status"].update(replicas=2, readyReplicas=2, availableReplicas=2, updatedReplicas=2)
case("nginx-1-create", [simple])
case("nginx-2-scaled-reapply", [simple], [scaled])
case("nginx-3-update", [update], [scaled])
after = live_from(update)  # the state after step 3, as the server stores it
after["spec"]["replicas"] = 2
case("nginx-4-reapply-unchanged", [update], [after])

# ---- maps ----
base = cm("settings", {"mode": "fast", "level": "3"}, labels={"app": "web"})
case("map-add-key", [cm("settings", {"mode": "fast", "level": "3", "color": "blue"},
                        labels={"app": "web", "tier": "cache"})], [live_from(base)])
case("map-remove-key", [cm("settings", {"mode": "fast"}, labels={"app": "web"})],
     [live_from(base)])
lv = live_from(base)
lv["metadata"]["annotations"]["owner"] = "team-a"  # added by someone else
lv["metadata"]["labels"]["extra"] = "kept"
case("map-live-only-keys-kept", [cm("settings", {"mode": "slow", "level": "3"},
                                    labels={"app": "web"})], [lv])
case("map-change-value", [cm("settings", {"mode": "fast", "level": "4"}, labels={"app": "web"})],
     [live_from(base)])

# ---- lists merged by key ----
two = deploy(containers=[{"name": "nginx", "image": "nginx:1.14.2"},
                         {"name": "sidecar", "image": "busybox:1.36"}])
one = deploy(containers=[{"name": "nginx", "image": "nginx:1.14.2"}])
case("containers-add", [two], [live_from(one)])
case("containers-remove", [one], [live_from(two)])
lv = live_from(one)
lv["spec"]["template"]["spec"]["containers"][0]["args"] = ["--verbose"]
lv["spec"]["template"]["spec"]["containers"].append(
    {"name": "injected", "image": "proxy:1", "imagePullPolicy": "IfNotPresent",
     "resources": {}, "terminationMessagePath": "/dev/termination-log",
     "terminationMessagePolicy": "File"})
case("containers-live-only-kept",
     [deploy(containers=[{"name": "nginx", "image": "nginx:1.15"}])], [lv])
pdep = deploy(containers=[{"name": "web", "image": "web:1",
                           "ports": [{"containerPort": 80, "name": "http"},
                                     {"containerPort": 443, "name": "https"}]}])
case("ports-merge-by-containerport",
     [deploy(containers=[{"name": "web", "image": "web:1",
                          "ports": [{"containerPort": 443, "name": "tls"},
                                    {"containerPort": 8080, "name": "metrics"}]}])],
     [live_from(pdep)])
edep = deploy(containers=[{"name": "web", "image": "web:1",
                           "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}])
case("env-merge-by-name",
     [deploy(containers=[{"name": "web", "image": "web:1",
                          "env": [{"name": "B", "value": "20"}, {"name": "C", "value": "3"}]}])],
     [live_from(edep)])
case("containers-reorder",
     [deploy(containers=[{"name": "sidecar", "image": "busybox:1.36"},
                         {"name": "nginx", "image": "nginx:1.14.2"}])], [live_from(two)])

# ---- replaced lists ----
adep = deploy(containers=[{"name": "app", "image": "app:1", "args": ["--a", "--b"]}])
case("args-replaced",
     [deploy(containers=[{"name": "app", "image": "app:1", "args": ["--b", "--c"]}])],
     [live_from(adep)])
case("args-removed", [deploy(containers=[{"name": "app", "image": "app:1"}])],
     [live_from(adep)])
tdep = deploy(extra_spec=None)
tdep["spec"]["template"]["spec"]["tolerations"] = [{"key": "a", "operator": "Exists"}]
t2 = copy.deepcopy(tdep)
t2["spec"]["template"]["spec"]["tolerations"] = [{"key": "b", "operator": "Exists",
                                                   "effect": "NoSchedule"}]
case("tolerations-replaced", [t2], [live_from(tdep)])

# ---- primitive merge lists ----
fin = cm("guarded", {"k": "v"})
fin["metadata"]["finalizers"] = ["example.com/a", "example.com/b"]
fin2 = copy.deepcopy(fin)
fin2["metadata"]["finalizers"] = ["example.com/b", "example.com/c"]
lv = live_from(fin)
lv["metadata"]["finalizers"].append("kubernetes.io/controller")
case("finalizers-merge", [fin2], [lv])

# ---- retainKeys ----
vdep = deploy(containers=[{"name": "app", "image": "app:1"}])
vdep["spec"]["template"]["spec"]["volumes"] = [{"name": "data", "emptyDir": {}},
                                               {"name": "conf", "configMap": {"name": "c1"}}]
v2 = copy.deepcopy(vdep)
v2["spec"]["template"]["spec"]["volumes"] = [{"name": "data",
                                              "persistentVolumeClaim": {"claimName": "pvc"}},
                                             {"name": "conf", "configMap": {"name": "c2"}}]
case("volumes-retainkeys", [v2], [live_from(vdep)])
s2 = deploy(extra_spec={"strategy": {"type": "Recreate"}})
case("strategy-retainkeys", [s2], [live_from(deploy())])

# ---- custom resources: JSON merge patch ----
w1 = widget("gadget", {"size": 3, "colors": ["red", "green"], "opts": {"a": 1, "b": 2}},
            labels={"app": "toys"})
w2 = widget("gadget", {"size": 4, "colors": ["blue"], "opts": {"a": 1}}, labels={"app": "toys"})
case("crd-create", [w1], args="--schema crd.yaml", files={"crd.yaml": [WIDGET_CRD]})
lv = live_from(w1)
lv["status"] = {"ready": True}
lv["spec"]["fromController"] = "x"
case("crd-merge-patch", [w2], [lv], args="--schema crd.yaml", files={"crd.yaml": [WIDGET_CRD]})
case("crd-unchanged", [w1], [live_from(w1)], args="--schema crd.yaml",
     files={"crd.yaml": [WIDGET_CRD]})
case("unknown-kind-no-schema", [w2], [live_from(w1)])

CLUSTER_CRD = copy.deepcopy(WIDGET_CRD)
CLUSTER_CRD["metadata"]["name"] = "globes.example.com"
CLUSTER_CRD["spec"]["scope"] = "Cluster"
CLUSTER_CRD["spec"]["names"] = {"plural": "globes", "singular": "globe", "kind": "Globe"}
case("crd-cluster-scoped", [{"apiVersion": "example.com/v1", "kind": "Globe",
                             "metadata": {"name": "earth"}, "spec": {"radius": 6371}},
                            widget("gadget", {"size": 1})],
     args="--schema crd.yaml --schema crd2.yaml",
     files={"crd.yaml": [WIDGET_CRD], "crd2.yaml": [CLUSTER_CRD]})

# ---- the same object twice: the second sees the first's result ----
case("duplicate-config", [cm("twice", {"k": "1"}), cm("twice", {"k": "2"}),
                          cm("live-twice", {"k": "1", "x": "z"}), cm("live-twice", {"k": "1"})],
     [live_from(cm("live-twice", {"k": "0"}))])

# ---- bad input ----
case("config-parse-error", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n")
case("config-missing-name", [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {},
                              "data": {"a": "b"}}])
case("usage-unknown-option", [cm("a", {"k": "1"})], args="--bogus")

# ---- missing annotation ----
case("missing-annotation", [cm("settings", {"mode": "fast"}, labels={"app": "web"})],
     [live_from(base, annotate=False)])
case("missing-annotation-deployment", [update], [live_from(simple, annotate=False)])

# ---- namespaces ----
case("namespace-default", [cm("plain", {"a": "b"})])
case("namespace-flag", [cm("plain", {"a": "b"}), cm("fixed", {"a": "b"}, ns="staging")],
     [live_from(cm("plain", {"a": "x"}), ns="staging")], args="-n staging")
case("namespace-mismatch", [cm("fixed", {"a": "b"}, ns="prod")], args="-n staging")
case("namespace-match-by-namespace",
     [cm("same", {"a": "1"}, ns="team-a"), cm("same", {"a": "2"}, ns="team-b")],
     [live_from(cm("same", {"a": "1"}, ns="team-a"))])
case("cluster-scoped",
     [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a",
                                                            "labels": {"env": "dev"}}},
      {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
       "metadata": {"name": "reader"},
       "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}],
     [live_from({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})])

# ---- prune ----
pa = cm("a", {"k": "1"}, labels={"app": "shop"})
pb = cm("b", {"k": "2"}, labels={"app": "shop"})
pc = cm("c", {"k": "3"}, labels={"app": "shop"})
pother = cm("d", {"k": "4"}, labels={"app": "blog"})
pnoann = live_from(cm("e", {"k": "5"}, labels={"app": "shop"}), annotate=False)
pns = live_from(cm("f", {"k": "6"}, labels={"app": "shop"}), ns="elsewhere")
olddep = deploy(name="old-web", labels={"app": "shop"})
olddep["metadata"]["labels"] = {"app": "shop"}
pdeploy = live_from(olddep)
case("prune", [pa, pb],
     [live_from(pa), live_from(pc), live_from(pother), pnoann, pns, pdeploy,
      live_from(widget("wid", {"x": 1}, labels={"app": "shop"}))],
     args="--prune -l app=shop")
case("prune-without-selector", [pa], [live_from(pc)], args="--prune")
# --all and --prune-allowlist (diff finding F17)
psa = {"apiVersion": "v1", "kind": "ServiceAccount",
       "metadata": {"name": "old-sa", "labels": {"app": "shop"}}}
pcr = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
       "metadata": {"name": "old-role", "labels": {"app": "shop"}}, "rules": []}
prune_live = [live_from(pa), live_from(pc), live_from(pother), pnoann, pns, pdeploy,
              live_from(psa), live_from(pcr),
              live_from(widget("wid", {"x": 1}, labels={"app": "shop"}))]
case("prune-all", [pa, pb], prune_live, args="--prune --all")
case("prune-allowlist", [pa, pb], prune_live,
     args="--prune -l app=shop --prune-allowlist=core/v1/ServiceAccount "
          "--prune-allowlist rbac.authorization.k8s.io/v1/ClusterRole "
          "--prune-allowlist apps/v1/Deployment")
case("prune-allowlist-custom-kind", [pa], prune_live,
     args="--prune --all --prune-allowlist=example.com/v1/Widget --schema crd.yaml",
     files={"crd.yaml": [WIDGET_CRD]})
case("prune-all-with-selector", [pa], [live_from(pc)], args="--prune --all -l app=shop")
case("prune-allowlist-bad-format", [pa], [live_from(pc)],
     args="--prune --all --prune-allowlist=ConfigMap")
case("prune-allowlist-unknown-kind", [pa], [live_from(pc)],
     args="--prune --all --prune-allowlist=example.com/v1/Widget")

# ---- --overwrite=false ----
case("overwrite-false-conflict", [update], [scaled], args="--overwrite=false")
case("overwrite-false-unchanged", [simple], [live_from(simple)], args="--overwrite=false")
lv = live_from(base)
lv["data"]["mode"] = "edited-live"
case("overwrite-false-live-edit", [cm("settings", {"mode": "slow", "level": "3"},
                                      labels={"app": "web"})], [lv], args="--overwrite=false")

case("overwrite-false-missing-annotation", [cm("settings", {"mode": "fast", "level": "3"},
                                               labels={"app": "web"})],
     [live_from(base, annotate=False)], args="--overwrite=false")

# ---- invalid labels and selectors ----
case("invalid-label-key", [cm("ok", {"a": "b"}), cm("bad", {"a": "b"}, labels={"-tier": "x"})])
case("invalid-label-value", [deploy(labels={"app": "nginx_"})])
case("invalid-label-prefix", [cm("bad", {"a": "b"}, labels={"Example.COM/tier": "x"})])
# a null label is no label (dropped on create, deletes in a patch): not validated (F18)
case("labels-null-create", [cm("nl", {"a": "b"}, labels={"gone": None, "-bad": None, "app": "x"})])
case("labels-null-deletes", [cm("nl", {"a": "b"}, labels={"gone": None, "app": "x"})],
     [live_from(cm("nl", {"a": "b"}, labels={"gone": "yes", "app": "x"}))])
case("bad-selector-syntax", [pa], args="-l 'app in (shop'")
case("bad-selector-key", [pa], args="-l 'app,-x=1'")
case("selector-filters-configs", [pa, pother, pb], args="-l 'app in (blog),!missing'")
case("field-selector", [pa, pb, cm("a", {"k": "1"}, ns="other")],
     args="--field-selector metadata.name=a,metadata.namespace=default")

case("field-selector-not-equal", [pa, pb, pc], args="--field-selector 'metadata.name!=b,data.k!=3'")
case("bad-field-selector", [pa], args="--field-selector 'metadata.name=a,metadata.namespace'")

# ---- inputs ----
case("list-expansion", [{"apiVersion": "v1", "kind": "List", "items": [pa, pb]}])
case("multi-doc-stream", "---\n# empty documents are skipped\n---\n" + dump([pa]) +
     "---\n---\n" + dump([pb]))
case("directory", None, args="-f conf", files={"conf/a.yaml": [pa], "conf/b.json": [pb],
                                                "conf/skip.txt": "not: applied\n",
                                                "conf/sub/c.yaml": [pc]})
case("directory-recursive", None, args="-f conf -R",
     files={"conf/a.yaml": [pa], "conf/sub/c.yml": [pc], "conf/sub/deeper/d.json": [pother]})
case("stdin-config", None, args="-f -", stdin=[pa, pb])
case("live-as-list", [pa, pb], {"apiVersion": "v1", "kind": "List",
                                "items": [live_from(pa), live_from(cm("b", {"k": "old"},
                                                                       labels={"app": "shop"}))],
                                "metadata": {"resourceVersion": ""}})
v1beta = live_from(deploy())
v1beta["apiVersion"] = "apps/v1beta2"
case("group-match-version-changed", [deploy()], [v1beta])

# ---- annotation encoding ----
case("create-drops-nulls", [cm("nulls", {"a": "b"}, annotations={"note": None}),
                            dict(deploy(), spec=dict(deploy()["spec"], minReadySeconds=None))])
case("annotation-escaping", [cm("html", {"page": "<b>a & b</b>", "uni": "caf\u00e9 \u2028"},
                                 annotations={"link": "<a href='x'>&amp;</a>"})])
case("annotations-emptied", [cm("emptied", {"a": "b"}, annotations={})],
     [live_from(cm("emptied", {"a": "b"}, annotations={"old": "x"}))])
big = cm("big", {"a": "b"}, annotations={"blob": "x" * 140000})
case("annotation-too-large", [cm("small", {"a": "b"}), big])
case("annotation-near-limit", [cm("near", {"a": "b"}, annotations={"blob": "y" * 130000})])

# ---- services and mixes ----
svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
       "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]}}
svc2 = copy.deepcopy(svc)
svc2["spec"]["ports"] = [{"name": "http", "port": 80, "targetPort": 8080},
                         {"name": "metrics", "port": 9090}]
case("service-ports", [svc2], [live_from(svc)])
case("mixed-actions", [pa, pb, update, svc], [live_from(pa), live_from(cm("b", {"k": "0"},
                                                                         labels={"app": "shop"})),
                                              scaled])

# ---- kinds the API server knows but kubectl's scheme does not (diff finding F7):
# kubectl apply sends a JSON merge patch, so lists are replaced wholesale
# (the server's finalizer is dropped; a strategic patch would have kept it).
def gizmo_crd(versions, finalizers=None):
    md = {"name": "gizmos.example.com"}
    if finalizers:
        md["finalizers"] = finalizers
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": md,
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
                     "versions": [{"name": v, "served": True, "storage": v == versions[-1],
                                   "schema": {"openAPIV3Schema": {
                                       "type": "object",
                                       "properties": {"spec": {"type": "object",
                                                               "x-kubernetes-preserve-unknown-fields": True}}}}}
                                  for v in versions]}}


crd_live = live_from(gizmo_crd(["v1"]))
crd_live["metadata"]["finalizers"] = ["customresourcecleanup.apiextensions.k8s.io"]
crd_live["spec"]["conversion"] = {"strategy": "None"}
crd_live["status"] = {"acceptedNames": {"kind": "Gizmo", "plural": "gizmos", "singular": "gizmo",
                                        "listKind": "GizmoList"},
                      "storedVersions": ["v1"]}
case("crd-apply-merge-patch", [gizmo_crd(["v1", "v2"], finalizers=["example.com/keep"])],
     [crd_live])
case("crd-apply-create", [gizmo_crd(["v1"])])


def apiservice(prio, skip_tls=None, labels=None):
    spec = {"group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": prio,
            "versionPriority": 100,
            "service": {"name": "metrics-server", "namespace": "kube-system", "port": 443}}
    if skip_tls is not None:
        spec["insecureSkipTLSVerify"] = skip_tls
    md = {"name": "v1beta1.metrics.k8s.io"}
    if labels:
        md["labels"] = labels
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": md,
            "spec": spec}


as_live = live_from(apiservice(100, skip_tls=True, labels={"k8s-app": "metrics-server"}))
as_live["status"] = {"conditions": [{"type": "Available", "status": "True",
                                     "reason": "Passed", "message": "all checks passed",
                                     "lastTransitionTime": "2026-11-20T10:00:05Z"}]}
case("apiservice-apply-merge-patch",
     [apiservice(1000, labels={"k8s-app": "metrics-server", "tier": "system"})], [as_live])

# ---- the missing-annotation warning names the real resource (endpoints) ----
ep = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "ext-db"},
      "subsets": [{"addresses": [{"ip": "10.0.0.7"}], "ports": [{"port": 5432}]}]}
case("missing-annotation-endpoints", [ep], [live_from(ep, annotate=False)])
netpol = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
          "metadata": {"name": "deny-all"}, "spec": {"podSelector": {}, "policyTypes": ["Ingress"]}}
netpol2 = copy.deepcopy(netpol)
netpol2["spec"]["policyTypes"] = ["Ingress", "Egress"]
case("missing-annotation-networkpolicy", [netpol2], [live_from(netpol, annotate=False)])

# ---- printed objects: managedFields left out unless --show-managed-fields,
# Secret data masked in -o diff (diff finding F10) ----
MANAGED = [{"apiVersion": "v1", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {".": {}, "f:mode": {}},
                         "f:metadata": {"f:annotations": {".": {}, "f:" + LA: {}}}},
            "manager": "kubectl-client-side-apply", "operation": "Update",
            "time": "2026-11-20T10:00:00Z"}]
mf_live = live_from(cm("tracked", {"mode": "slow"}))
mf_live["metadata"]["managedFields"] = copy.deepcopy(MANAGED)
case("managed-fields-hidden", [cm("tracked", {"mode": "fast"})], [mf_live])
case("managed-fields-shown", [cm("tracked", {"mode": "fast"})], [mf_live],
     args="--show-managed-fields")


def secret(name, data, string_data=None):
    o = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "type": "Opaque",
         "data": data}
    if string_data:
        o["stringData"] = string_data
    return o


sec_live = live_from(secret("creds", {"user": "YWRtaW4=", "pass": "czNjcjN0", "old": "eA=="}))
sec_live["metadata"]["managedFields"] = copy.deepcopy(MANAGED)
case("secret-diff-masked",
     [secret("creds", {"user": "YWRtaW4=", "pass": "bjN3cGFzcw==", "token": "dDBr"})], [sec_live])
case("secret-create-masked", [secret("fresh", {"key": "dmFsdWU="})])
case("secret-unchanged-masked", [secret("same", {"key": "dmFsdWU="})],
     [live_from(secret("same", {"key": "dmFsdWU="}))])

# ---- kubectl decodes metadata strictly when it reads -f files (diff finding
# F11): the object is refused with encoding/json's or time.Parse's words; the
# others are still applied; the items of a List are not checked ----
case("meta-annotation-int", dump([cm("ok", {"a": "b"})]) + "---\n" +
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: trap\n"
     "  annotations:\n    enabled: yes\n    port: 8080\ndata:\n  a: b\n")
case("meta-creation-timestamp-date",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dated\n"
     "  creationTimestamp: 2020-01-01\ndata:\n  a: b\n")
case("meta-generation-string",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: gen\n  generation: \"5\"\n"
     "spec:\n  selector:\n    matchLabels: {app: gen}\n  template:\n"
     "    metadata:\n      labels: {app: gen}\n    spec:\n"
     "      containers:\n      - {name: app, image: app:1}\n")
case("meta-owner-reference",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\n  ownerReferences:\n"
     "  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n    uid: 1234\n"
     "    controller: \"true\"\ndata:\n  a: b\n", [live_from(cm("owned", {"a": "b"}))])
case("meta-list-items-unchecked",
     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
     "  metadata:\n    name: listed\n    finalizers: [1]\n  data:\n    a: b\n")
case("meta-list-own-metadata",
     "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: 7\nitems:\n"
     "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: listed\n  data:\n    a: b\n")
case("last-applied-meta-error",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    tier: 3\n"
     "data:\n  k: v\n", [live_from(pa)], command="last-applied set -f config.yaml --live live.yaml")

# ---- last-applied command ----
case("last-applied-view", None, [live_from(simple), live_from(pa)],
     command="last-applied view -f live.yaml")
case("last-applied-view-json", None, [live_from(
     cm("html", {"page": "<b>"}, annotations={"k": "v"}))],
     command="last-applied view -o json -f live.yaml")
case("last-applied-view-missing", None, [live_from(pa, annotate=False)],
     command="last-applied view -f live.yaml")
case("last-applied-set", [update], [scaled], command="last-applied set -f config.yaml --live live.yaml")
case("last-applied-set-needs-create", [pa], [live_from(pa, annotate=False)],
     command="last-applied set -f config.yaml --live live.yaml")
case("last-applied-set-create", [pa], [live_from(pa, annotate=False)],
     command="last-applied set -f config.yaml --live live.yaml --create-annotation -o json")


# Every `smpatch apply` case runs in each output mode (args.MODE).
MODES = ("patch", "yaml", "json", "diff", "name")


def write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(content)


def as_text(x):
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        return dump([x])
    return dump(x)


def main(root):
    for name, c in CASES.items():
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        args = c["args"]
        if c["config"] is not None:
            write(os.path.join(d, "config.yaml"), as_text(c["config"]))
            if c["command"] is None and "-f" not in args.split():
                args = ("-f config.yaml " + args).strip()
        if c["live"] is not None:
            write(os.path.join(d, "live.yaml"), as_text(c["live"]))
            if c["command"] is None:
                args = (args + " --live live.yaml").strip()
        for fname, content in c["files"].items():
            p = os.path.join(d, fname)
            if fname.endswith(".json") and not isinstance(content, str):
                write(p, json.dumps(content[0], indent=2) + "\n")
            else:
                write(p, as_text(content))
        if c["stdin"] is not None:
            write(os.path.join(d, "stdin"), as_text(c["stdin"]))
        if c["command"] is not None:
            write(os.path.join(d, "args"), c["command"] + "\n")
        else:
            for mode in MODES:
                write(os.path.join(d, "args." + mode), "apply %s -o %s\n" % (args, mode))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/apply")
