#!/usr/bin/env python3
"""kdiff.py - exploratory differential tester: smpatch vs kubectl.

Not run by ctest (the committed regression test is kubectl_diff.sh + the C
comparer over testdata/kubectl-diff). Generates random targets of built-in
kinds and patches that exercise the strategic-merge-patch directives, JSON
merge patches, JSON patches, three-way apply triples and codec inputs, runs
both tools and reports every case where they disagree.

usage: kdiff.py SMPATCH MODE COUNT SEED OUTDIR
  MODE: smp | smp2 | merge | json | two | three | apply | convert | kapply | kapply-noover
    smp, smp2      random strategic patches (smp2: mutated target + directives anywhere)
    merge, json    JSON merge patch / JSON Patch (KDIFF_BAD_OPS=0: valid ops only)
    two            kubectl patch ORIG (smpatch diff ORIG MOD) must give MOD
    three, apply   kubectl patch LIVE (our three-way patch) == our result + invariants
    convert        smpatch convert vs kubectl's reading of tricky YAML
    kapply[-noover] real kubectl apply against fakeapi.py vs smpatch apply -o patch
Failing cases are written to OUTDIR/<mode>-<n>/ (target.yaml, patch.yaml,
type, smpatch.out, kubectl.out).
"""
import copy
import json
import os
import random
import subprocess
import sys
import tempfile

SMP = sys.argv[1]
MODE = sys.argv[2]
COUNT = int(sys.argv[3])
SEED = int(sys.argv[4])
OUT = sys.argv[5]
R = random.Random(SEED)

# ---------------------------------------------------------------- values
WORDS = ["a", "b", "c", "nginx", "redis", "web", "x", "y", "z", "app", "db"]


def word():
    return R.choice(WORDS) + R.choice(["", "1", "2", "-x"])


def scalar():
    k = R.random()
    if k < 0.5:
        return word()
    if k < 0.7:
        return R.randint(0, 100)
    if k < 0.8:
        return R.choice([True, False])
    if k < 0.85:
        return R.choice([1.5, 0.25, 3.0e10])
    return R.choice(["1", "true", "no", "", "0x1F", "1e3"])


def labels(n=None):
    n = R.randint(0, 3) if n is None else n
    return {("k" + str(i) if R.random() < 0.7 else "app.kubernetes.io/" + word()): word() for i in range(n)}


def meta(name=None, ns=True):
    m = {"name": name or word()}
    if ns and R.random() < 0.5:
        m["namespace"] = R.choice(["default", "prod"])
    if R.random() < 0.7:
        m["labels"] = labels(R.randint(1, 3))
    if R.random() < 0.4:
        m["annotations"] = {"note/" + word(): word() for _ in range(R.randint(1, 2))}
    if R.random() < 0.4:
        m["finalizers"] = R.sample(["f1", "f2", "kubernetes.io/pvc", "foo/bar", "f3"], R.randint(1, 3))
    if R.random() < 0.15:
        m["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": word(), "uid": "u" + str(i)}
                                for i in range(R.randint(1, 2))]
    return m


def container(name):
    c = {"name": name, "image": word() + ":" + str(R.randint(1, 3))}
    if R.random() < 0.6:
        c["ports"] = [{"containerPort": p, "protocol": R.choice(["TCP", "UDP"])}
                      for p in R.sample([80, 443, 8080, 9090, 53], R.randint(1, 3))]
        if R.random() < 0.3:
            c["ports"][0]["name"] = "http"
    if R.random() < 0.6:
        c["env"] = [{"name": n, "value": word()} for n in R.sample(["A", "B", "C", "D", "PATH"], R.randint(1, 4))]
        if R.random() < 0.3:
            c["env"][0] = {"name": c["env"][0]["name"],
                           "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}
    if R.random() < 0.5:
        c["volumeMounts"] = [{"name": v, "mountPath": "/" + v} for v in R.sample(["data", "cfg", "tmp", "logs"], R.randint(1, 3))]
    if R.random() < 0.4:
        c["resources"] = {"limits": {"cpu": R.choice(["100m", "1", 2]), "memory": "64Mi"},
                          "requests": {"cpu": "50m"}}
    if R.random() < 0.3:
        c["args"] = [word() for _ in range(R.randint(1, 3))]
    if R.random() < 0.2:
        c["command"] = ["sh", "-c", word()]
    if R.random() < 0.2:
        c["securityContext"] = {"runAsUser": 1000, "capabilities": {"add": ["NET_ADMIN"]}}
    if R.random() < 0.2:
        c["livenessProbe"] = R.choice([{"httpGet": {"path": "/", "port": 80}},
                                       {"exec": {"command": ["true"]}},
                                       {"tcpSocket": {"port": 80}}])
    return c


def volume(name):
    return R.choice([
        {"name": name, "emptyDir": {}},
        {"name": name, "emptyDir": {"medium": "Memory"}},
        {"name": name, "configMap": {"name": word(), "items": [{"key": "k", "path": "p"}]}},
        {"name": name, "secret": {"secretName": word()}},
        {"name": name, "hostPath": {"path": "/var/" + word(), "type": "Directory"}},
        {"name": name, "persistentVolumeClaim": {"claimName": word()}},
    ])


def podspec():
    names = R.sample(["nginx", "redis", "side", "app", "proxy"], R.randint(1, 3))
    s = {"containers": [container(n) for n in names]}
    if R.random() < 0.3:
        s["initContainers"] = [container("init" + str(i)) for i in range(R.randint(1, 2))]
    if R.random() < 0.6:
        s["volumes"] = [volume(v) for v in R.sample(["data", "cfg", "tmp", "logs"], R.randint(1, 3))]
    if R.random() < 0.3:
        s["imagePullSecrets"] = [{"name": n} for n in R.sample(["reg1", "reg2", "reg3"], R.randint(1, 2))]
    if R.random() < 0.3:
        s["tolerations"] = [{"key": "k" + str(i), "operator": "Exists", "effect": "NoSchedule"} for i in range(R.randint(1, 2))]
    if R.random() < 0.2:
        s["hostAliases"] = [{"ip": "10.0.0." + str(i), "hostnames": [word()]} for i in range(1, R.randint(2, 3))]
    if R.random() < 0.3:
        s["nodeSelector"] = labels(R.randint(1, 2))
    if R.random() < 0.2:
        s["topologySpreadConstraints"] = [{"topologyKey": t, "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}
                                          for t in R.sample(["zone", "host"], R.randint(1, 2))]
    if R.random() < 0.2:
        s["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In", "values": ["x", "y"]}]}]}}}
    if R.random() < 0.2:
        s["restartPolicy"] = R.choice(["Always", "OnFailure", "Never"])
    if R.random() < 0.2:
        s["securityContext"] = {"fsGroup": 2000, "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]}
    if R.random() < 0.1:
        s["dnsConfig"] = {"nameservers": ["1.1.1.1"], "options": [{"name": "ndots", "value": "2"}]}
    return s


def template():
    lab = labels(R.randint(1, 2))
    return lab, {"metadata": {"labels": lab}, "spec": podspec()}


def obj_deployment():
    lab, t = template()
    s = {"replicas": R.randint(1, 5), "selector": {"matchLabels": lab}, "template": t}
    if R.random() < 0.5:
        s["strategy"] = R.choice([{"type": "Recreate"},
                                  {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}}])
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(), "spec": s}


def obj_daemonset():
    lab, t = template()
    s = {"selector": {"matchLabels": lab}, "template": t}
    if R.random() < 0.6:
        s["updateStrategy"] = R.choice([{"type": "OnDelete"},
                                        {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}}])
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta(), "spec": s}


def obj_statefulset():
    lab, t = template()
    s = {"serviceName": word(), "selector": {"matchLabels": lab}, "template": t, "replicas": 2}
    if R.random() < 0.6:
        s["updateStrategy"] = R.choice([{"type": "OnDelete"},
                                        {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}])
    if R.random() < 0.5:
        s["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta(), "spec": s}


def obj_pod():
    o = {"apiVersion": "v1", "kind": "Pod", "metadata": meta(), "spec": podspec()}
    if R.random() < 0.3:
        o["status"] = {"phase": "Running", "conditions": [{"type": t, "status": "True"} for t in R.sample(["Ready", "Initialized", "PodScheduled"], 2)],
                       "podIPs": [{"ip": "10.1.0." + str(i)} for i in range(1, 3)]}
    return o


def obj_job():
    _, t = template()
    t["spec"]["restartPolicy"] = "Never"
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(),
            "spec": {"backoffLimit": R.randint(0, 6), "template": t}}


def obj_cronjob():
    _, t = template()
    t["spec"]["restartPolicy"] = "OnFailure"
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(),
            "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": t}}}}


def obj_service():
    ports = [{"name": n, "port": p, "targetPort": R.choice([p, "http", 8080]), "protocol": "TCP"}
             for n, p in zip(["http", "https", "metrics"], R.sample([80, 443, 9090, 8080], R.randint(1, 3)))]
    s = {"selector": labels(R.randint(1, 2)), "ports": ports, "type": R.choice(["ClusterIP", "NodePort", "LoadBalancer"])}
    if R.random() < 0.3:
        s["externalIPs"] = ["1.2.3.4"]
    if R.random() < 0.3:
        s["sessionAffinity"] = "ClientIP"
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta(), "spec": s}


def obj_configmap():
    o = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(),
         "data": {word(): str(scalar()) for _ in range(R.randint(0, 4))}}
    if R.random() < 0.2:
        o["binaryData"] = {"bin": "AAEC"}
    return o


def obj_secret():
    return {"apiVersion": "v1", "kind": "Secret", "metadata": meta(), "type": "Opaque",
            "data": {word(): "YWJj" for _ in range(R.randint(1, 3))},
            **({"stringData": {"p": "q"}} if R.random() < 0.3 else {})}


def obj_ingress():
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta(),
            "spec": {"ingressClassName": "nginx",
                     "tls": [{"hosts": ["a.example.com"], "secretName": "tls"}],
                     "rules": [{"host": h + ".example.com", "http": {"paths": [
                         {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}
                         for h in R.sample(["a", "b", "c"], R.randint(1, 2))]}}


def obj_netpol():
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta(),
            "spec": {"podSelector": {"matchLabels": labels(1)}, "policyTypes": ["Ingress"],
                     "ingress": [{"from": [{"podSelector": {"matchLabels": labels(1)}}],
                                  "ports": [{"protocol": "TCP", "port": 80}]}]}}


def obj_role(kind="Role"):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta(ns=(kind == "Role")),
            "rules": [{"apiGroups": [""], "resources": R.sample(["pods", "services", "configmaps"], 2), "verbs": ["get", "list"]}
                      for _ in range(R.randint(1, 2))]}


def obj_sa():
    o = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta()}
    if R.random() < 0.7:
        o["secrets"] = [{"name": n} for n in R.sample(["t1", "t2", "t3"], R.randint(1, 3))]
    if R.random() < 0.5:
        o["imagePullSecrets"] = [{"name": "reg"}]
    return o


def obj_pvc():
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta(),
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "std",
                     "resources": {"requests": {"storage": R.choice(["1Gi", "10Gi"])}}}}


def obj_node():
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta(ns=False),
            "spec": {"podCIDR": "10.0.0.0/24", "taints": [{"key": "k", "effect": "NoSchedule"}]},
            "status": {"addresses": [{"type": t, "address": a} for t, a in
                                     R.sample([("InternalIP", "10.0.0.1"), ("Hostname", "n1"), ("ExternalIP", "1.2.3.4")], 2)],
                       "conditions": [{"type": "Ready", "status": "True"}, {"type": "DiskPressure", "status": "False"}],
                       "capacity": {"cpu": "4", "memory": "8Gi"}}}


def obj_namespace():
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(ns=False),
            "spec": {"finalizers": ["kubernetes"]}}


def obj_hpa():
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta(),
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                     "minReplicas": 1, "maxReplicas": R.randint(2, 10),
                     "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}}


def obj_pdb():
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta(),
            "spec": {R.choice(["minAvailable", "maxUnavailable"]): R.choice([1, "50%"]),
                     "selector": {"matchLabels": labels(1)}}}


def obj_widget():
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta(),
            "spec": {"size": R.randint(1, 9), "tags": [word() for _ in range(R.randint(0, 3))],
                     "items": [{"name": word(), "v": scalar()} for _ in range(R.randint(0, 3))],
                     "nested": {"a": {"b": word(), "c": [1, 2]}, "d": scalar()}},
            "status": {"phase": word()}}


def obj_crd():
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com", **({"finalizers": ["a", "b"]} if R.random() < 0.5 else {})},
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"},
                     "scope": "Namespaced",
                     "versions": [{"name": v, "served": True, "storage": v == "v1",
                                   "schema": {"openAPIV3Schema": {"type": "object",
                                                                  "x-kubernetes-preserve-unknown-fields": True}}}
                                  for v in R.sample(["v1", "v2", "v1beta1"], R.randint(1, 3))]}}


def obj_old_deployment():
    o = obj_deployment()
    o["apiVersion"] = "extensions/v1beta1"
    return o


def obj_old_cronjob():
    o = obj_cronjob()
    o["apiVersion"] = "batch/v1beta1"
    return o


KAPPLY_EXTRA = [obj_crd, obj_old_deployment, obj_old_cronjob]

KINDS = [obj_widget, obj_deployment, obj_deployment, obj_daemonset, obj_statefulset, obj_pod, obj_pod, obj_job, obj_cronjob,
         obj_service, obj_service, obj_configmap, obj_secret, obj_ingress, obj_netpol, obj_role,
         lambda: obj_role("ClusterRole"), obj_sa, obj_pvc, obj_node, obj_namespace, obj_hpa, obj_pdb]

# merge lists by field name (approximation of the schema, good enough to aim)
MERGE_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name", "volumes": "name",
              "env": "name", "imagePullSecrets": "name", "volumeMounts": "mountPath", "hostAliases": "ip",
              "conditions": "type", "addresses": "type", "topologySpreadConstraints": "topologyKey",
              "ownerReferences": "uid", "secrets": "name", "podIPs": "ip"}
PRIM_MERGE = {"finalizers"}
RETAIN = {"volumes", "strategy", "updateStrategy"}  # retainKeys fields


def merge_key(path, field, lst):
    if field == "ports":
        return "port" if any("port" in e for e in lst if isinstance(e, dict)) and "containers" not in path else "containerPort"
    return MERGE_KEYS.get(field)


# ------------------------------------------------------------- patches
def rand_patch_map(tgt, path, depth):
    p = {}
    if not isinstance(tgt, dict):
        return p
    keys = list(tgt.keys())
    R.shuffle(keys)
    for k in keys[:R.randint(0, max(1, len(keys)))]:
        v = tgt[k]
        r = R.random()
        if k in ("apiVersion", "kind") and depth == 0:
            continue
        if k == "name" and path == ["metadata"]:
            continue
        if r < 0.12:
            p[k] = None
        elif r < 0.2:
            p[k] = scalar()
        elif isinstance(v, dict):
            sub = rand_patch_map(v, path + [k], depth + 1)
            if k in RETAIN and R.random() < 0.5:
                rk = list(set(list(v.keys())[:R.randint(0, len(v))]) | set(x for x in sub if not x.startswith("$")))
                if R.random() < 0.1 and rk:
                    rk.pop()  # may miss a patched key: invalid
                sub["$retainKeys"] = sorted(rk)
            if R.random() < 0.06:
                sub["$patch"] = R.choice(["replace", "delete", "merge", "bogus"])
            if sub or R.random() < 0.2:
                p[k] = sub
        elif isinstance(v, list):
            lp = rand_patch_list(v, path + [k], k, depth, p)
            if lp is not None:
                p[k] = lp
        elif r < 0.5:
            p[k] = scalar()
    # add new keys
    if R.random() < 0.3:
        p["new" + word()] = R.choice([scalar(), {"a": scalar()}, [scalar()]])
    if R.random() < 0.1:
        p[R.choice(["$patch", "$retainKeys", "$deleteFromPrimitiveList/x", "$bogus"])] = R.choice(["replace", ["a"], "x"])
    return p


def rand_patch_list(v, path, field, depth, parent):
    key = merge_key(path, field, v)
    if field in PRIM_MERGE:
        r = R.random()
        if r < 0.3:
            parent["$deleteFromPrimitiveList/" + field] = R.sample(v + ["zz"], R.randint(1, len(v)))
            return [] if R.random() < 0.3 else None
        new = [R.choice(v + ["fnew", "f9"]) for _ in range(R.randint(0, 3))]
        if R.random() < 0.5:
            order = list(dict.fromkeys(v + new))
            R.shuffle(order)
            if R.random() < 0.3:
                order = order[:-1]
            parent["$setElementOrder/" + field] = order
        return new
    if key and all(isinstance(e, dict) for e in v):
        out = []
        for e in v:
            if key not in e:
                continue
            r = R.random()
            if r < 0.15:
                out.append({key: e[key], "$patch": "delete"})
            elif r < 0.55:
                sub = rand_patch_map(e, path + ["[]"], depth + 1)
                sub[key] = e[key]
                if field == "volumes" and R.random() < 0.3:
                    sub["$retainKeys"] = sorted(set(x for x in sub if not x.startswith("$")) | {"name"})
                out.append(sub)
        if R.random() < 0.4:
            new = copy.deepcopy(R.choice(v)) if v else {}
            if key == "containerPort" or key == "port":
                new[key] = R.choice([7000, 7001, 80])
            elif key == "ip":
                new[key] = "10.9.9." + str(R.randint(1, 3))
            else:
                new[key] = R.choice(["newone", "A", "data", "/data", "zone", "Ready"]) if key != "mountPath" else "/new"
            if R.random() < 0.1:
                del new[key]  # element without its merge key
            out.append(new)
        if R.random() < 0.08:
            out.append({"$patch": R.choice(["replace", "delete", "merge"])})
        if R.random() < 0.05:
            out.append(out[-1] if out else {key: "dup"})  # duplicate
        if R.random() < 0.35:
            keys = [e[key] for e in v if key in e] + [e[key] for e in out if isinstance(e, dict) and key in e and e.get("$patch") != "delete"]
            keys = list(dict.fromkeys(keys))
            R.shuffle(keys)
            if R.random() < 0.2 and keys:
                keys = keys[1:]
            parent["$setElementOrder/" + field] = [{key: k} for k in keys]
        if not out and R.random() < 0.7:
            return None
        return out
    # atomic / primitive lists
    r = R.random()
    if r < 0.3:
        return None
    if r < 0.5:
        return []
    if r < 0.6:
        return [scalar() for _ in range(2)] if R.random() < 0.5 else [[1], [2]]
    return copy.deepcopy(v[:max(1, len(v) - 1)]) if v else [scalar()]


def sprinkle(p, depth=0):
    """Adds random directives anywhere in a patch (kubectl judges them)."""
    if isinstance(p, dict):
        out = {k: sprinkle(v, depth + 1) for k, v in p.items()}
        if depth == 0:
            out.pop("$patch", None)
        for k, v in list(out.items()):
            if isinstance(v, list) and R.random() < 0.3:
                if v and all(isinstance(e, dict) for e in v):
                    key = next((kk for kk in ("name", "containerPort", "mountPath", "port", "ip", "type", "uid", "topologyKey") if kk in v[0]), None)
                    if key:
                        order = [{key: e[key]} for e in v if key in e]
                        R.shuffle(order)
                        if order and R.random() < 0.3:
                            order.pop()
                        out["$setElementOrder/" + k] = order
                elif v and not any(isinstance(e, (dict, list)) for e in v):
                    if R.random() < 0.5:
                        order = list(v)
                        R.shuffle(order)
                        out["$setElementOrder/" + k] = order
                    else:
                        out["$deleteFromPrimitiveList/" + k] = R.sample(v, max(1, len(v) // 2))
        if depth > 0 and R.random() < 0.08:
            out["$patch"] = R.choice(["replace", "delete", "replace", "merge"])
        if depth > 0 and R.random() < 0.08:
            keys = [k for k in out if not k.startswith("$")]
            out["$retainKeys"] = R.sample(keys, len(keys)) if R.random() < 0.7 else keys[:-1]
        return out
    if isinstance(p, list):
        out = [sprinkle(e, depth + 1) for e in p]
        if out and all(isinstance(e, dict) for e in out) and R.random() < 0.15:
            e = dict(R.choice(out))
            e = {k: v for k, v in e.items() if k in ("name", "containerPort", "mountPath", "port", "ip", "type", "uid")}
            e["$patch"] = "delete"
            out.append(e)
        if out and all(isinstance(e, dict) for e in out) and R.random() < 0.05:
            out.append({"$patch": "replace"})
        return out
    return p


def mutate_obj(o, depth=0):
    """A random modification of o (for three-way and merge)."""
    if isinstance(o, dict):
        n = {}
        for k, v in o.items():
            if depth > 0 and R.random() < 0.1 and k not in ("name", "containerPort", "mountPath", "port", "ip", "type", "uid", "topologyKey"):
                continue
            if k in ("apiVersion", "kind") or (k == "name" and depth == 1):
                n[k] = v
                continue
            n[k] = mutate_obj(v, depth + 1) if R.random() < 0.6 else copy.deepcopy(v)
        if depth > 0 and R.random() < 0.15:
            n["x" + word()] = word()
        return n
    if isinstance(o, list):
        l = [mutate_obj(e, depth + 1) if R.random() < 0.5 else copy.deepcopy(e) for e in o if R.random() > 0.15 or len(o) == 1]
        if l and R.random() < 0.2:
            R.shuffle(l)
        if l and R.random() < 0.15 and not isinstance(l[0], dict):
            l.append(str(scalar()) if isinstance(l[0], str) else l[0])
        return l
    if R.random() < 0.3:
        if isinstance(o, str):
            return o + "x"
        if isinstance(o, bool):
            return not o
        if isinstance(o, int):
            return o + 1
        return scalar()
    return o


def merge_patch(o):
    if not isinstance(o, dict) or R.random() < 0.1:
        return scalar() if R.random() < 0.5 else copy.deepcopy(o)
    p = {}
    for k, v in o.items():
        r = R.random()
        if k in ("apiVersion", "kind"):
            continue
        if r < 0.15:
            p[k] = None
        elif r < 0.45:
            p[k] = merge_patch(v)
    if R.random() < 0.3:
        p["n" + word()] = R.choice([{"a": None, "b": 1}, None, [1, None], scalar()])
    return p


def json_patch(o):
    ops = []
    paths = []

    def walk(v, pth):
        paths.append(pth)
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, pth + "/" + k.replace("~", "~0").replace("/", "~1"))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, pth + "/" + str(i))
    walk(o, "")
    for _ in range(R.randint(1, 4)):
        pth = R.choice(paths[1:]) if len(paths) > 1 else "/x"
        op = R.choice(["add", "remove", "replace", "move", "copy", "test", "add-dash", "bad"] if BAD_OPS else
                      ["add", "remove", "replace", "move", "copy", "test", "add-dash", "test-ok"])
        if op == "test-ok":
            v = o
            try:
                for t in pth.split("/")[1:]:
                    t = t.replace("~1", "/").replace("~0", "~")
                    v = v[int(t)] if isinstance(v, list) else v[t]
            except (KeyError, IndexError, ValueError, TypeError):
                continue
            ops.append({"op": "test", "path": pth, "value": copy.deepcopy(v)})
            continue
        if op == "add":
            ops.append({"op": "add", "path": pth if R.random() < 0.5 else pth.rsplit("/", 1)[0] + "/new" + word(), "value": scalar()})
        elif op == "add-dash":
            ops.append({"op": "add", "path": pth + "/-", "value": scalar()})
        elif op == "remove":
            ops.append({"op": "remove", "path": pth})
        elif op == "replace":
            ops.append({"op": "replace", "path": pth, "value": R.choice([scalar(), {"q": 1}, []])})
        elif op in ("move", "copy"):
            ops.append({"op": op, "from": pth, "path": R.choice(paths[1:]).rsplit("/", 1)[0] + "/m" + word()})
        elif op == "test":
            ops.append({"op": "test", "path": pth, "value": scalar()})
        else:
            ops.append(R.choice([{"op": "nope", "path": pth}, {"op": "add", "path": "a/b", "value": 1},
                                 {"op": "remove", "path": "/nonexistent/x"}, {"op": "add", "path": pth + "/~2"},
                                 {"op": "replace", "path": "/metadata/nonexist", "value": 1}]))
    return ops


# ------------------------------------------------------------ compare
def strict_eq(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_eq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_eq(x, y) for x, y in zip(a, b))
    return a == b


def run(cmd, stdin=None):
    p = subprocess.run(cmd, capture_output=True, text=True, input=stdin, timeout=60)
    return p.returncode, p.stdout, p.stderr


def name_is_text(path):
    return not path.endswith(".json")


def dump(path, o):
    with open(path, "w") as f:
        if isinstance(o, str) and name_is_text(path):
            f.write(o)
        else:
            json.dump(o, f, indent=1)
            f.write("\n")


BAD_OPS = os.environ.get("KDIFF_BAD_OPS", "1") == "1"
stats = {"ok": 0, "both-reject": 0, "mismatch": 0, "exit": 0}


def record(n, files, typ, out_s, out_k, why):
    d = os.path.join(OUT, "%s-%d-%d" % (MODE, SEED, n))
    os.makedirs(d, exist_ok=True)
    for name, o in files.items():
        dump(os.path.join(d, name), o)
    dump(os.path.join(d, "type"), typ + "\n")
    dump(os.path.join(d, "smpatch.out"), out_s)
    dump(os.path.join(d, "kubectl.out"), out_k)
    dump(os.path.join(d, "why"), why + "\n")
    print("MISMATCH %s: %s" % (d, why), flush=True)


def check_patch(n, target, patch, typ, tmp):
    tf = os.path.join(tmp, "target.json")
    pf = os.path.join(tmp, "patch.json")
    dump(tf, target)
    dump(pf, patch)
    rs, os_, es = run([SMP, "patch", "-o", "json", "--type", typ, tf, pf])
    rk, ok, ek = run(["kubectl", "patch", "--local", "-f", tf, "--type", typ, "--patch-file", pf, "-o", "json"])
    files = {"target.json": target, "patch.json": patch}
    if rk != 0 or rs != 0:
        if rk != 0 and rs in (3, 4):
            stats["both-reject"] += 1
            return
        if rs == 0 and "is missing in" in ek:
            # kubectl's CLI wants apiVersion/kind in the result: not a merge matter
            stats["both-reject"] += 1
            return
        stats["exit"] += 1
        record(n, files, typ, "exit %d\n%s%s" % (rs, os_, es), "exit %d\n%s%s" % (rk, ok, ek), "exit status")
        return
    try:
        js, jk = json.loads(os_), json.loads(ok)
    except ValueError as e:
        stats["exit"] += 1
        record(n, files, typ, os_ + es, ok + ek, "bad json " + str(e))
        return
    if strict_eq(js, jk):
        stats["ok"] += 1
        return
    # Go map order makes some kubectl results vary: ask again before blaming smpatch
    for _ in range(6):
        rk2, ok2, _ = run(["kubectl", "patch", "--local", "-f", tf, "--type", typ, "--patch-file", pf, "-o", "json"])
        if rk2 == 0 and strict_eq(js, json.loads(ok2)):
            stats["kubectl-nondeterministic"] = stats.get("kubectl-nondeterministic", 0) + 1
            return
    stats["mismatch"] += 1
    record(n, files, typ, os_, ok, "output differs")


def check_three(n, tmp, use_apply):
    live = R.choice(KINDS)()
    last = mutate_obj(live)
    last["metadata"]["name"] = live["metadata"]["name"]
    for k in ("apiVersion", "kind"):
        last[k] = live[k]
    if "namespace" in live["metadata"]:
        last["metadata"]["namespace"] = live["metadata"]["namespace"]
    else:
        last["metadata"].pop("namespace", None)
    conf = mutate_obj(last)
    conf["metadata"]["name"] = live["metadata"]["name"]
    for k in ("apiVersion", "kind"):
        conf[k] = live[k]
    if "namespace" in live["metadata"]:
        conf["metadata"]["namespace"] = live["metadata"]["namespace"]
    else:
        conf["metadata"].pop("namespace", None)
    # live has drifted: server-set fields
    live = mutate_obj(live)
    live["metadata"]["name"] = conf["metadata"]["name"]
    for k in ("apiVersion", "kind"):
        live[k] = conf[k]
    if "namespace" in conf["metadata"]:
        live["metadata"]["namespace"] = conf["metadata"]["namespace"]
    else:
        live["metadata"].pop("namespace", None)
    live["metadata"]["uid"] = "abc"
    live["metadata"]["resourceVersion"] = "7"
    files = {"live.json": live, "last.json": last, "config.json": conf}
    for k, v in files.items():
        dump(os.path.join(tmp, k), v)
    L, O, M = (os.path.join(tmp, x) for x in ("live.json", "last.json", "config.json"))
    if use_apply:
        live2 = copy.deepcopy(live)
        no_annotation = R.random() < 0.3
        if no_annotation:
            last = {}  # kubectl: original = nil, nothing is deleted
        else:
            live2["metadata"].setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = json.dumps(last)
        dump(L, live2)
        files["live.json"] = live2
        rs, os_, es = run([SMP, "apply", "-f", M, "--live", L, "-o", "patch"])
        if rs != 0:
            stats["exit"] += 1
            record(n, files, "apply", "exit %d\n%s%s" % (rs, os_, es), "", "smpatch apply failed")
            return
        line = json.loads(os_.splitlines()[0])
        patch = line["patch"]
        ptype = "strategic" if "strategic" in (line["patchType"] or "") else "merge"
        rr, res, er = run([SMP, "apply", "-f", M, "--live", L, "-o", "json"])
        if line["action"] != "configure":
            stats["ok"] += 1
            return
    else:
        custom = live["kind"] == "Widget"
        typ = ["--type", "merge"] if custom else []
        rs, os_, es = run([SMP, "diff", "-o", "json"] + typ + ["--current", L, O, M])
        if rs != 0:
            stats["exit"] += 1
            record(n, files, "three", "exit %d\n%s%s" % (rs, os_, es), "", "smpatch diff failed")
            return
        patch = json.loads(os_) if os_.strip() else {}
        ptype = "merge" if custom else "strategic"
        pf0 = os.path.join(tmp, "p3.json")
        dump(pf0, patch)
        rr, res, er = run([SMP, "patch", "-o", "json", "--type", ptype, L, pf0])
    pf = os.path.join(tmp, "p3.json")
    dump(pf, patch)
    files["patch.json"] = patch
    rk, ok, ek = run(["kubectl", "patch", "--local", "-f", L, "--type", ptype, "--patch-file", pf, "-o", "json"])
    if rk != 0 or rr != 0:
        stats["exit"] += 1
        record(n, files, "three", "exit %d\n%s%s" % (rr, res, er), "exit %d\n%s%s" % (rk, ok, ek), "apply of three-way patch")
        return
    js = json.loads(res)
    if use_apply and isinstance(js, dict) and js.get("kind") == "List":
        js = js["items"][0]
    jk = json.loads(ok)
    if not strict_eq(js, jk):
        stats["mismatch"] += 1
        record(n, files, "three", json.dumps(js, indent=1), ok, "result differs from kubectl patch of our patch")
        return
    # invariants: config values win (for scalars at top two levels of maps)
    why = invariants(conf, last, live, jk)
    if why:
        stats["mismatch"] += 1
        record(n, files, "three", json.dumps(js, indent=1), ok, "invariant: " + why)
        return
    stats["ok"] += 1


def add_nulls(o, depth=0):
    """Sets some map values of a configuration to null (kubectl apply deletes them)."""
    if isinstance(o, dict):
        for k in list(o):
            if R.random() < 0.1 and k not in ("name", "containerPort", "port", "mountPath", "ip", "type"):
                o[k] = None
            else:
                add_nulls(o[k], depth + 1)
    elif isinstance(o, list):
        for e in o:
            add_nulls(e, depth + 1)


def check_kapply(n, tmp, server, overwrite):
    """kubectl apply against fakeapi.py (records the request) vs smpatch apply -o patch."""
    live = R.choice(KINDS + KAPPLY_EXTRA)()
    if "namespace" not in live["metadata"]:
        live["metadata"]["namespace"] = "default"
    if live["kind"] in ("Namespace", "Node", "ClusterRole", "CustomResourceDefinition"):
        live["metadata"].pop("namespace", None)
    last = mutate_obj(live)
    conf = mutate_obj(last)
    for o in (last, conf):
        for k in ("apiVersion", "kind"):
            o[k] = live[k]
        o["metadata"]["name"] = live["metadata"]["name"]
        if "namespace" in live["metadata"]:
            o["metadata"]["namespace"] = live["metadata"]["namespace"]
        else:
            o["metadata"].pop("namespace", None)
        o["metadata"].pop("annotations", None) if R.random() < 0.5 else None
    if R.random() < 0.3:
        add_nulls(conf.get("spec"))
    live = mutate_obj(live)
    for k in ("apiVersion", "kind"):
        live[k] = conf[k]
    live["metadata"]["name"] = conf["metadata"]["name"]
    if "namespace" in conf["metadata"]:
        live["metadata"]["namespace"] = conf["metadata"]["namespace"]
    else:
        live["metadata"].pop("namespace", None)
    live["metadata"]["uid"] = "u1"
    live["metadata"]["resourceVersion"] = "7"
    r = R.random()
    state = server["dir"]
    lp = os.path.join(state, "live.json")
    if r < 0.1:
        if os.path.exists(lp):
            os.unlink(lp)
        livef = None
    else:
        if r < 0.85:
            la = json.dumps(last, sort_keys=True, separators=(",", ":")) + "\n"
            live["metadata"].setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = la
        dump(lp, live)
        livef = lp
    cf = os.path.join(tmp, "config.json")
    dump(cf, conf)
    files = {"live.json": live if livef else {}, "config.json": conf}
    rq = os.path.join(state, "request.json")
    if os.path.exists(rq):
        os.unlink(rq)
    ow = [] if overwrite else ["--overwrite=false"]
    rk, ok, ek = run(["kubectl", "--server=" + server["url"], "apply", "-f", cf, "--validate=false"] + ow)
    cmd = [SMP, "apply", "-f", cf, "-o", "patch"] + ow + (["--live", livef] if livef else [])
    rs, os_, es = run(cmd)
    if rk != 0 or rs != 0:
        if rk != 0 and rs in (3, 4):
            stats["both-reject"] += 1
            return
        stats["exit"] += 1
        record(n, files, "kapply", "exit %d\n%s%s" % (rs, os_, es), "exit %d\n%s%s" % (rk, ok, ek), "exit status")
        return
    line = json.loads(os_.splitlines()[0])
    if not os.path.exists(rq):
        kpatch, ktype = {}, "unchanged"
    else:
        with open(rq) as f:
            kpatch = json.load(f)
        with open(os.path.join(state, "request.type")) as f:
            ktype = f.read().split()[1]
    stype = line["patchType"] or "unchanged"
    if line["action"] == "unchanged":
        stype = "unchanged"
    if line["action"] == "create":
        stype = "application/json"
    if ktype.startswith("application/json"):
        ktype = "application/json"
    if stype != ktype or not strict_eq(norm(line["patch"] if stype != "unchanged" else {}), norm(kpatch)):
        stats["mismatch"] += 1
        record(n, files, "kapply", json.dumps({"type": stype, "patch": line["patch"]}, indent=1, sort_keys=True),
               json.dumps({"type": ktype, "patch": kpatch}, indent=1, sort_keys=True), "apply request differs")
        return
    stats["ok"] += 1


def check_kedit(n, tmp, server):
    """kubectl edit (KUBE_EDITOR writes MOD) against fakeapi.py sends the
    two-way patch ORIG -> MOD; it must equal smpatch diff ORIG MOD."""
    orig = R.choice(KINDS)()
    if orig["kind"] in ("Namespace", "Node", "ClusterRole"):
        orig["metadata"].pop("namespace", None)
    else:
        orig["metadata"]["namespace"] = "default"
    orig["metadata"]["uid"] = "u1"
    orig["metadata"]["resourceVersion"] = "5"
    mod = mutate_obj(orig)
    for k in ("apiVersion", "kind"):
        mod[k] = orig[k]
    mod["metadata"]["name"] = orig["metadata"]["name"]
    for k in ("namespace", "uid", "resourceVersion"):
        if k in orig["metadata"]:
            mod["metadata"][k] = orig["metadata"][k]
    if strict_eq(orig, mod):
        # kubectl edit sends nothing for an unchanged object, while the
        # reference diff (like smpatch) still emits replace-strategy maps and
        # the $setElementOrder of unsorted primitive lists
        stats["ok"] += 1
        return
    state = server["dir"]
    dump(os.path.join(state, "live.json"), orig)
    M = os.path.join(tmp, "mod.json")
    dump(M, mod)
    ed = os.path.join(tmp, "editor.sh")
    with open(ed, "w") as f:
        f.write("#!/bin/sh\ncp '%s' \"$1\"\n" % M)
    os.chmod(ed, 0o755)
    rq = os.path.join(state, "request.json")
    if os.path.exists(rq):
        os.unlink(rq)
    env = dict(os.environ, KUBE_EDITOR=ed, KUBECONFIG="/dev/null")
    cmd = ["kubectl", "--server=" + server["url"], "--cache-dir=" + os.path.join(tmp, "cache"), "edit",
           orig["kind"].lower() + "." + (orig["apiVersion"].split("/")[0] if "/" in orig["apiVersion"] else ""),
           orig["metadata"]["name"], "-o", "json", "--validate=false"]
    if cmd[4].endswith("."):
        cmd[4] = cmd[4][:-1]
    if "namespace" in orig["metadata"]:
        cmd += ["-n", "default"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    typ = "merge" if orig["kind"] == "Widget" else "strategic"
    O = os.path.join(tmp, "orig.json")
    dump(O, orig)
    rs, os_, es = run([SMP, "diff", "-o", "json", "--type", typ, O, M])
    files = {"original.json": orig, "modified.json": mod}
    kpatch = None
    if os.path.exists(rq):
        with open(rq) as f:
            kpatch = json.load(f)
    if rs != 0 or (p.returncode != 0 and "Edit cancelled, no changes made" not in p.stderr):
        if p.returncode != 0 and rs in (3, 4):
            stats["both-reject"] += 1
            return
        stats["exit"] += 1
        record(n, files, "kedit", "exit %d\n%s%s" % (rs, os_, es), "exit %d\n%s" % (p.returncode, p.stderr), "exit status")
        return
    spatch = json.loads(os_) if os_.strip() else {}
    if kpatch is None:
        kpatch = {}
    if not strict_eq(norm(spatch), norm(kpatch)):
        stats["mismatch"] += 1
        record(n, files, "kedit", json.dumps(spatch, indent=1, sort_keys=True), json.dumps(kpatch, indent=1, sort_keys=True),
               "two-way patch differs from kubectl edit's")
        return
    stats["ok"] += 1


def check_two(n, tmp):
    """Two-way: P = smpatch diff ORIG MOD; kubectl patch ORIG P must give MOD."""
    orig = R.choice(KINDS)()
    mod = mutate_obj(orig)
    for k in ("apiVersion", "kind"):
        mod[k] = orig[k]
    mod["metadata"]["name"] = orig["metadata"]["name"]
    files = {"original.json": orig, "modified.json": mod}
    O, M, P = (os.path.join(tmp, x) for x in ("original.json", "modified.json", "p2.json"))
    dump(O, orig)
    dump(M, mod)
    typ = "merge" if orig["kind"] == "Widget" else "strategic"
    rs, os_, es = run([SMP, "diff", "-o", "json", "--type", typ, O, M])
    if rs != 0:
        stats["exit"] += 1
        record(n, files, "two", "exit %d\n%s%s" % (rs, os_, es), "", "smpatch diff failed")
        return
    patch = json.loads(os_) if os_.strip() else {}
    dump(P, patch)
    files["patch.json"] = patch
    rk, ok, ek = run(["kubectl", "patch", "--local", "-f", O, "--type", typ, "--patch-file", P, "-o", "json"])
    if rk != 0:
        stats["exit"] += 1
        record(n, files, "two", "", "exit %d\n%s%s" % (rk, ok, ek), "kubectl rejects our two-way patch")
        return
    jk = json.loads(ok)
    # the reference sorts a primitive merge list in place while diffing, so a pure
    # reorder of finalizers yields no $setElementOrder: compare them as sets
    if not strict_eq(norm(jk, True), norm(mod, True)):
        stats["mismatch"] += 1
        record(n, files, "two", json.dumps(mod, indent=1), ok, "kubectl patch of our two-way patch != modified")
        return
    stats["ok"] += 1


def norm(v, sort_prim=False, key=None):
    """Numbers as kubectl prints them (float64 without fraction -> int)."""
    if isinstance(v, dict):
        return {k: norm(x, sort_prim, k) for k, x in v.items()}
    if isinstance(v, list):
        if sort_prim and key in PRIM_MERGE:
            return sorted(set(str(x) for x in v))
        return [norm(x, sort_prim) for x in v]
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        return int(v)
    return v


def invariants(conf, last, live, res, path=""):
    if not isinstance(conf, dict) or not isinstance(res, dict):
        return None
    for k, v in conf.items():
        if path == "" and k == "metadata":
            continue
        if v is None:
            continue
        if k not in res:
            return "config field %s%s missing from result" % (path, k)
        if isinstance(v, dict):
            if k in RETAIN or (path == "spec." and k == "selector"):
                continue  # retainKeys / replace strategy (PDB selector) drop live-only fields
            w = invariants(v, last.get(k, {}) if isinstance(last, dict) and isinstance(last.get(k), dict) else {},
                           live.get(k, {}) if isinstance(live, dict) and isinstance(live.get(k), dict) else {}, res[k], path + k + ".")
            if w:
                return w
        elif not isinstance(v, list) and not strict_eq(v, res[k]) and not (
                isinstance(v, float) and v == res[k]):
            return "config value %s%s=%r, result %r" % (path, k, v, res[k])
    if isinstance(last, dict):
        for k in last:
            if k not in conf and k in res and not (path == "" and k in ("metadata", "status")):
                return "field %s%s removed from config survives" % (path, k)
    if isinstance(live, dict):
        for k in live:
            if k not in conf and (not isinstance(last, dict) or k not in last) and k not in res:
                return "live-only field %s%s lost" % (path, k)
    return None


# ------------------------------------------------------------ convert
TRICKY = ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "True", "FALSE", "~", "null", "Null", "NULL",
          "0o17", "017", "0x1F", "0b101", "1_000", "+1", "-0", "1e3", "1E3", "1.0", ".5", "5.", ".inf", "-.Inf",
          ".nan", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "12:30:00", "1:20", "190:20:30", "0.", "-",
          "'quoted'", '"dq"', "!!str 1", "!!int '7'", "!!float 3", "!!bool yes", "9223372036854775807",
          "9223372036854775808", "-9223372036854775809", "1.7976931348623157e309", "0x_1F", "+.5", "1e", "e1",
          "\"\\u00e9\"", "\"\\x41\"", "\"a\\tb\"", "'it''s'", "&a 1", "[1, 2]", "{}", "[]", "''", '""',
          "0777", "08", "09.5", "1__0", "0b", "0x", "+0x10", "-0x10", "1:2:3.5", "=", "<<"]


def convert_case():
    lines = ["apiVersion: example.com/v1", "kind: Widget", "metadata:", "  name: w"]
    used = set()
    for i in range(R.randint(3, 10)):
        v = R.choice(TRICKY)
        k = "f%d" % i
        if R.random() < 0.2:
            lines.append("%s: |%s\n  %s\n  %s" % (k, R.choice(["", "-", "+"]), v, v))
        elif R.random() < 0.2:
            lines.append("%s:\n  - %s\n  - %s" % (k, v, R.choice(TRICKY)))
        elif R.random() < 0.1:
            lines.append("%s: %s" % (R.choice(TRICKY), v))
        else:
            lines.append("%s: %s" % (k, v))
    return "\n".join(lines) + "\n"


def check_convert(n, tmp):
    text = convert_case()
    f = os.path.join(tmp, "w.yaml")
    dump(f, text)
    rs, os_, es = run([SMP, "convert", "-o", "json", f])
    rk, ok, ek = run(["kubectl", "patch", "--local", "-f", f, "--type", "merge", "-p", "{}", "-o", "json"])
    files = {"input.yaml": text}
    if rk != 0 or rs != 0:
        if rk != 0 and rs != 0:
            stats["both-reject"] += 1
            return
        stats["exit"] += 1
        record(n, files, "convert", "exit %d\n%s%s" % (rs, os_, es), "exit %d\n%s%s" % (rk, ok, ek), "exit status")
        return
    js, jk = json.loads(os_), json.loads(ok)
    if strict_eq(js, jk):
        stats["ok"] += 1
    else:
        stats["mismatch"] += 1
        record(n, files, "convert", os_, ok, "output differs")


def main():
    os.makedirs(OUT, exist_ok=True)
    server = None
    if MODE in ("kapply", "kapply-noover", "kedit"):
        sdir = tempfile.mkdtemp()
        port = 20000 + SEED % 10000
        proc = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakeapi.py"),
                                 str(port), sdir])
        import time
        time.sleep(0.5)
        server = {"dir": sdir, "url": "http://127.0.0.1:%d" % port, "proc": proc}
    try:
        main2(server)
    finally:
        if server:
            server["proc"].terminate()
            server["proc"].wait()


def main2(server):
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(COUNT):
            if MODE == "smp":
                t = R.choice(KINDS)()
                check_patch(n, t, rand_patch_map(t, [], 0), "strategic", tmp)
            elif MODE == "smp2":
                t = R.choice(KINDS)()
                p = mutate_obj(t)
                if R.random() < 0.5:
                    p = {k: v for k, v in p.items() if R.random() < 0.6 or k == "kind"}
                check_patch(n, t, sprinkle(p), "strategic", tmp)
            elif MODE == "merge":
                t = R.choice(KINDS)()
                check_patch(n, t, merge_patch(t), "merge", tmp)
            elif MODE == "json":
                t = R.choice(KINDS)()
                check_patch(n, t, json_patch(t), "json", tmp)
            elif MODE == "kapply":
                check_kapply(n, tmp, server, True)
            elif MODE == "kapply-noover":
                check_kapply(n, tmp, server, False)
            elif MODE == "kedit":
                check_kedit(n, tmp, server)
            elif MODE == "two":
                check_two(n, tmp)
            elif MODE == "three":
                check_three(n, tmp, False)
            elif MODE == "apply":
                check_three(n, tmp, True)
            elif MODE == "convert":
                check_convert(n, tmp)
    print("%s seed %d: %s" % (MODE, SEED, stats), flush=True)


main()
