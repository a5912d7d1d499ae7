#!/usr/bin/env python3
"""cluster_gen.py - a reproducible cluster dump for the cluster-scale benchmark.

    cluster_gen.py OUTDIR APPS

Writes, for APPS applications (a Deployment, a Service and a ConfigMap each,
spread over 50 namespaces):

  OUTDIR/config/NS/APP-{deployment,service,configmap}.yaml
                     one configuration file per object, as a Git repository
                     of an application set holds them
  OUTDIR/configs.yaml  the same documents as one stream (what `convert` reads
                     for the reference time; not read by apply)
  OUTDIR/live.json   the cluster as one List (what `kubectl get -A -o json`
                     returns, compact as the API server sends it): every applied
                     object as the server stores it (uid, resourceVersion,
                     generation, creationTimestamp, managedFields, the
                     last-applied annotation, defaults, status), plus objects
                     no configuration refers to (a Pod for every fourth app)
  OUTDIR/expected.txt  how many objects apply must report created, configured
                     and unchanged

Of the configurations, 10 % differ from what was last applied (image tag,
replicas, a ConfigMap value, a new env var) and 2 % of the applications are
new (nothing live). The only randomness is a fixed-seed generator, so a size
always gives the same bytes.
"""
import json
import os
import random
import sys

LA = "kubectl.kubernetes.io/last-applied-configuration"
NAMESPACES = 50


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    # Quote what YAML would read as something else than this string.
    if (s == "" or s[0] in "!&*{}[]|>'\"%@`#,?:-" or ": " in s or " #" in s
            or s.lower() in ("true", "false", "yes", "no", "on", "off", "null", "~", "y", "n")
            or s.replace(".", "", 1).replace("e", "", 1).lstrip("+-").isdigit()):
        return json.dumps(s)
    return s


def yaml_lines(v, ind, out):
    pad = "  " * ind
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out.append(f"{pad}{k}:")
                yaml_lines(x, ind + 1 if isinstance(x, dict) else ind, out)
            elif isinstance(x, dict):
                out.append(f"{pad}{k}: {{}}")
            elif isinstance(x, list):
                out.append(f"{pad}{k}: []")
            else:
                out.append(f"{pad}{k}: {yaml_scalar(x)}")
    else:
        for x in v:
            if isinstance(x, dict) and x:
                sub = []
                yaml_lines(x, ind + 1, sub)
                first = sub[0][len(pad) + 2:]
                out.append(f"{pad}- {first}")
                out.extend(sub[1:])
            else:
                out.append(f"{pad}- {yaml_scalar(x)}")


def to_yaml(obj):
    out = []
    yaml_lines(obj, 0, out)
    return "\n".join(out) + "\n"


def configs(app, ns, rnd, changed):
    """The three configurations of one application; `changed` alters them."""
    labels = {"app": app, "team": f"team-{rnd.randrange(20)}"}
    tag = f"1.{rnd.randrange(40)}.{rnd.randrange(10)}"
    env = [{"name": f"VAR_{k}", "value": f"value-{app}-{k}"} for k in range(3)]
    replicas = 2 + rnd.randrange(3)
    data = {f"key{k}.properties": f"setting.{k}={app}-{rnd.randrange(1000)}" for k in range(4)}
    if changed:
        which = rnd.randrange(4)
        if which == 0:
            tag += "-rc1"
        elif which == 1:
            replicas += 1
        elif which == 2:
            data["key2.properties"] += "-changed"
        else:
            env.append({"name": "FEATURE_FLAG", "value": "on"})
    deploy = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": app, "namespace": ns, "labels": dict(labels)},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": app}},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {
                    "containers": [{
                        "name": "app",
                        "image": f"registry.example.com/{app}:{tag}",
                        "ports": [{"name": "http", "containerPort": 8080}],
                        "env": env,
                        "resources": {"requests": {"cpu": "250m", "memory": "128Mi"},
                                      "limits": {"cpu": "1", "memory": "256Mi"}},
                        "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}},
                        "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
                    }],
                    "volumes": [{"name": "config", "configMap": {"name": f"{app}-config"}}],
                },
            },
        },
    }
    service = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": app, "namespace": ns, "labels": dict(labels)},
        "spec": {"selector": {"app": app},
                 "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
    }
    cm = {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": f"{app}-config", "namespace": ns, "labels": dict(labels)},
        "data": data,
    }
    return [deploy, service, cm]


def last_applied(cfg):
    """What kubectl writes into the annotation: compact JSON, sorted keys."""
    c = json.loads(json.dumps(cfg))
    c["metadata"].setdefault("annotations", {})
    return json.dumps(c, sort_keys=True, separators=(",", ":")) + "\n"


def server_meta(cfg, rnd, gen):
    m = json.loads(json.dumps(cfg["metadata"]))
    m["annotations"] = {LA: last_applied(cfg)}
    m["uid"] = "%08x-%04x-4%03x-8%03x-%012x" % (
        rnd.getrandbits(32), rnd.getrandbits(16), rnd.getrandbits(12),
        rnd.getrandbits(12), rnd.getrandbits(48))
    m["resourceVersion"] = str(100000 + rnd.randrange(900000))
    if gen:
        m["generation"] = gen
    m["creationTimestamp"] = "2026-01-01T00:00:00Z"
    m["managedFields"] = [{
        "apiVersion": cfg["apiVersion"], "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, f"f:{LA}": {}},
                                    "f:labels": {".": {}, "f:app": {}, "f:team": {}}}},
        "manager": "kubectl-client-side-apply", "operation": "Update",
        "time": "2026-01-01T00:00:00Z"}]
    return m


def live_of(cfg, rnd):
    """The object as the server stores it after applying cfg."""
    o = json.loads(json.dumps(cfg))
    kind = o["kind"]
    if kind == "Deployment":
        o["metadata"] = server_meta(cfg, rnd, 1)
        spec = o["spec"]
        spec.update({"progressDeadlineSeconds": 600, "revisionHistoryLimit": 10,
                     "strategy": {"type": "RollingUpdate",
                                  "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}})
        tspec = spec["template"]["spec"]
        tspec.update({"dnsPolicy": "ClusterFirst", "restartPolicy": "Always",
                      "schedulerName": "default-scheduler", "securityContext": {},
                      "terminationGracePeriodSeconds": 30})
        for c in tspec["containers"]:
            c["imagePullPolicy"] = "IfNotPresent"
            c["terminationMessagePath"] = "/dev/termination-log"
            c["terminationMessagePolicy"] = "File"
            for p in c["ports"]:
                p["protocol"] = "TCP"
            c["readinessProbe"].update({"failureThreshold": 3, "periodSeconds": 10,
                                        "successThreshold": 1, "timeoutSeconds": 1})
            c["readinessProbe"]["httpGet"]["scheme"] = "HTTP"
        for v in tspec["volumes"]:
            v["configMap"]["defaultMode"] = 420
        r = spec["replicas"]
        o["status"] = {"availableReplicas": r, "observedGeneration": 1, "readyReplicas": r,
                       "replicas": r, "updatedReplicas": r,
                       "conditions": [{"type": "Available", "status": "True",
                                       "reason": "MinimumReplicasAvailable",
                                       "lastTransitionTime": "2026-01-01T00:00:10Z",
                                       "lastUpdateTime": "2026-01-01T00:00:10Z",
                                       "message": "Deployment has minimum availability."}]}
    elif kind == "Service":
        o["metadata"] = server_meta(cfg, rnd, 0)
        spec = o["spec"]
        ip = "10.%d.%d.%d" % (rnd.randrange(96, 112), rnd.randrange(256), rnd.randrange(1, 255))
        spec.update({"clusterIP": ip, "clusterIPs": [ip], "internalTrafficPolicy": "Cluster",
                     "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                     "sessionAffinity": "None", "type": "ClusterIP"})
        for p in spec["ports"]:
            p["protocol"] = "TCP"
        o["status"] = {"loadBalancer": {}}
    else:
        o["metadata"] = server_meta(cfg, rnd, 0)
    return o


def pod_of(deploy, rnd, k):
    """A Pod of the Deployment: live, referred to by no configuration."""
    app = deploy["metadata"]["name"]
    ns = deploy["metadata"]["namespace"]
    spec = json.loads(json.dumps(deploy["spec"]["template"]["spec"]))
    spec["nodeName"] = f"node-{rnd.randrange(100)}"
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"{app}-5d4f8b7c9-{k:05x}", "namespace": ns,
                     "labels": {"app": app, "pod-template-hash": "5d4f8b7c9"},
                     "uid": "%032x" % rnd.getrandbits(128),
                     "resourceVersion": str(rnd.randrange(1000000)),
                     "creationTimestamp": "2026-01-01T00:00:05Z"},
        "spec": spec,
        "status": {"phase": "Running", "podIP": "10.244.%d.%d" % (rnd.randrange(256), rnd.randrange(256)),
                   "hostIP": "192.168.0.%d" % rnd.randrange(256),
                   "startTime": "2026-01-01T00:00:05Z"},
    }


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cluster_gen.py OUTDIR APPS")
    out, apps = sys.argv[1], int(sys.argv[2])
    rnd = random.Random(0x736D7061 ^ apps)
    items, stream = [], []
    counts = {"created": 0, "configured": 0, "unchanged": 0}
    for i in range(apps):
        app, ns = f"app-{i:05d}", f"ns-{i % NAMESPACES:02d}"
        state = rnd.random()
        new = state < 0.02
        changed = 0.02 <= state < 0.12
        seed = rnd.getrandbits(64)
        cfgs = configs(app, ns, random.Random(seed), False)
        if changed:
            cfgs = configs(app, ns, random.Random(seed), True)
            old = configs(app, ns, random.Random(seed), False)
        else:
            old = cfgs
        d = os.path.join(out, "config", ns)
        os.makedirs(d, exist_ok=True)
        for cfg, o in zip(cfgs, old):
            text = to_yaml(cfg)
            name = f"{app}-{cfg['kind'].lower()}.yaml"
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            stream.append(text)
            if new:
                counts["created"] += 1
            else:
                items.append(live_of(o, rnd))
                counts["configured" if cfg != o else "unchanged"] += 1
        if not new and i % 4 == 0:
            items.append(pod_of(old[0], rnd, i))
    with open(os.path.join(out, "configs.yaml"), "w") as f:
        f.write("---\n".join(stream))
    with open(os.path.join(out, "live.json"), "w") as f:
        json.dump({"apiVersion": "v1", "items": items, "kind": "List",
                   "metadata": {"resourceVersion": ""}}, f, separators=(",", ":"))
        f.write("\n")
    with open(os.path.join(out, "expected.txt"), "w") as f:
        for k in ("created", "configured", "unchanged"):
            f.write(f"{k} {counts[k]}\n")


if __name__ == "__main__":
    main()
