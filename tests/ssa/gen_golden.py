#!/usr/bin/env python3
"""gen_golden.py - authoring tool (not run by the tests): writes the inputs
of the server-side apply golden cases, testdata/ssa/<case>/case.json, and the
oracle's answers, expected.json.

Every case is one request (apply or update) against a live object. Cases
come from scenarios: chains of requests that start from nothing, each run
through the reference oracle, whose answer (object + managedFields) becomes
the next request's live object, with what the API server adds (uid,
creationTimestamp, resourceVersion; never owned). So every live object and
every managedFields entry in a case was computed by the oracle, none written
by hand. The steps a scenario names are written as cases.

Usage (from the repository root, the oracle built):
    python3 tests/ssa/gen_golden.py ORACLE [SHARED_DIR]
It removes the case directories it does not write (stale cases), writes
testdata/ssa/schemas/widgets.definitions.json from widgets.crd.yaml, and
prints the number of cases. It also writes expected-smd-v4.4.2.json where
the API server (SMD v4.4.2) orders a merged list otherwise than the oracle
(mergeorder.py). Check the result with the ctest tests ssa.golden_oracle and
ssa.merge_order (SMP_UPDATE_GOLDEN=1 rewrites expected.json, and
expected-smd-v4.4.2.json, only).
"""
import copy
import json
import os
import shutil
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssalib import (SERVER_META, Program, crd_definitions, delp, dumps, getp, live_from,  # noqa: E402
                    merged_swagger, partial, setp, skeleton, without_managed)
import mergeorder  # noqa: E402

SERVER_UID = SERVER_META["uid"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "testdata", "ssa")


class Gen:
    def __init__(self, oracle, shared):
        self.shared = shared
        self.oracle_path = oracle
        self.programs = {}
        self.cases = {}

    def program(self, schema):
        if schema not in self.programs:
            if schema:
                with open(os.path.join(OUT, "schemas", schema + ".definitions.json")) as f:
                    defs = json.load(f)
                sw = merged_swagger(self.shared, defs, "/tmp/ssa-gen-%s-%d.json" % (schema, os.getpid()))
            else:
                sw = os.path.join(self.shared, "openapi", "kubernetes-1.36.swagger.json")
            self.programs[schema] = Program([self.oracle_path, "-swagger", sw])
        return self.programs[schema]

    def record(self, name, case, answer, schema, note):
        if name in self.cases:
            raise SystemExit("duplicate case name %s" % name)
        self.cases[name] = (case, answer, schema, note)

    def write(self):
        keep = set(self.cases)
        for d in os.listdir(OUT):
            p = os.path.join(OUT, d)
            if os.path.isfile(os.path.join(p, "case.json")) and d not in keep:
                shutil.rmtree(p)
        for name, (case, answer, schema, note) in sorted(self.cases.items()):
            d = os.path.join(OUT, name)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "case.json"), "w", encoding="utf-8") as f:
                f.write(dumps(case))
            with open(os.path.join(d, "expected.json"), "w", encoding="utf-8") as f:
                f.write(dumps(answer))
            with open(os.path.join(d, "note"), "w", encoding="utf-8") as f:
                f.write(note.strip() + "\n")
            dp = os.path.join(d, "definitions")
            if schema:
                with open(dp, "w") as f:
                    f.write(schema + "\n")
            elif os.path.exists(dp):
                os.remove(dp)

    def close(self):
        for p in self.programs.values():
            p.close()


class Scenario:
    """A chain of requests against one object."""

    def __init__(self, gen, prefix, schema=""):
        self.gen, self.prefix, self.schema = gen, prefix, schema
        self.live = None
        self.n = 0

    def step(self, name, manager, config, op="apply", force=False, record=True,
             expect=None, note="", live="current"):
        """Runs one request; name=None (or record=False) runs it without
        writing a case. expect: 'ok', 'conflict' or 'error' (checked, so
        that a scenario does what its name says)."""
        lv = self.live if live == "current" else live
        case = {"id": "", "live": copy.deepcopy(lv), "config": copy.deepcopy(config),
                "manager": manager, "force": force, "op": op}
        self.n += 1
        cname = "%s-%02d-%s" % (self.prefix, self.n, name) if name else None
        case["id"] = cname or "%s-%02d" % (self.prefix, self.n)
        ans = self.gen.program(self.schema).ask(case)
        got = "ok" if ans["ok"] else ("conflict" if ans["conflicts"] else "error")
        if ans["error"].startswith("panic:"):
            raise SystemExit("%s: oracle panic: %s" % (case["id"], ans["error"]))
        if expect and got != expect:
            raise SystemExit("%s: expected %s, oracle said %s: %s" % (case["id"], expect, got, ans["error"]))
        if cname and record:
            self.gen.record(cname, case, ans, self.schema, note or name.replace("-", " "))
        if ans["ok"]:
            self.live = live_from(ans, lv)
        return ans

    def apply(self, name, manager, config, **kw):
        return self.step(name, manager, config, op="apply", **kw)

    def update(self, name, manager, config, **kw):
        return self.step(name, manager, config, op="update", **kw)

    def edited(self, path, value=None, delete=False, keep_managed=False):
        """The live object with one change: the body of an update (kubectl
        edit sends managedFields back, kubectl replace -f does not)."""
        o = copy.deepcopy(self.live) if keep_managed else without_managed(self.live)
        if delete:
            delp(o, path)
        else:
            setp(o, path, value)
        return o


# ------------------------------------------------------------------ objects

def deployment():
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{
                    "name": "app", "image": "nginx:1.25",
                    "ports": [{"containerPort": 80, "name": "http"}],
                    "env": [{"name": "MODE", "value": "prod"}, {"name": "LOG", "value": "info"}],
                    "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}},
                }]},
            },
        },
    }


def statefulset():
    return {
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "data"},
        "spec": {
            "serviceName": "db", "replicas": 1,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{
                    "name": "db", "image": "postgres:16",
                    "ports": [{"containerPort": 5432, "name": "pg"}],
                    "volumeMounts": [{"name": "data", "mountPath": "/data"},
                                     {"name": "run", "mountPath": "/run/pg"}],
                }], "volumes": [{"name": "run", "emptyDir": {}}]},
            },
            "volumeClaimTemplates": [{
                "metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            }],
        },
    }


def daemonset():
    return {
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "kube-system"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {
                    "containers": [{"name": "agent", "image": "agent:1",
                                    "volumeMounts": [{"name": "logs", "mountPath": "/var/log"}]}],
                    "tolerations": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"}],
                    "volumes": [{"name": "logs", "hostPath": {"path": "/var/log"}}],
                },
            },
        },
    }


def job():
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "migrate", "namespace": "default"},
        "spec": {
            "backoffLimit": 4, "completions": 1,
            "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "task", "image": "migrate:2", "args": ["--all", "--verbose"]}],
            }},
        },
    }


def cronjob():
    return {
        "apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "backup", "namespace": "default"},
        "spec": {
            "schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid",
            "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "OnFailure",
                "containers": [{"name": "task", "image": "backup:1", "command": ["/bin/backup", "--full"]}],
            }}}},
        },
    }


def pod():
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "dns", "namespace": "default", "labels": {"app": "dns"}},
        "spec": {"containers": [{
            "name": "app", "image": "coredns:1.11",
            "ports": [{"containerPort": 53, "name": "dns-tcp"},
                      {"containerPort": 53, "protocol": "UDP", "name": "dns"}],
        }]},
    }


def service():
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "dns", "namespace": "default"},
        "spec": {
            "selector": {"app": "dns"},
            "ports": [{"name": "dns-tcp", "port": 53, "targetPort": 53},
                      {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53}],
        },
    }


def configmap():
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "settings", "namespace": "default"},
            "data": {"mode": "a", "extra.conf": "x=1\ny=2\n", "LEVEL": "3"}}


def secret():
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "creds", "namespace": "default"}, "type": "Opaque",
            "data": {"user": "YWRtaW4=", "password": "czNjcjN0"}}


def serviceaccount():
    return {"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "builder", "namespace": "ci"},
            "automountServiceAccountToken": True,
            "imagePullSecrets": [{"name": "registry"}]}


def ingress():
    return {
        "apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "ingressClassName": "nginx",
            "tls": [{"hosts": ["web.example.com"], "secretName": "web-tls"}],
            "rules": [{"host": "web.example.com", "http": {"paths": [{
                "path": "/", "pathType": "Prefix",
                "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}],
        },
    }


def networkpolicy():
    return {
        "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "podSelector": {"matchLabels": {"app": "web"}},
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "frontend"}}}],
                         "ports": [{"protocol": "TCP", "port": 80}]}],
            "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}],
        },
    }


def role():
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "reader", "namespace": "default", "labels": {"tier": "rbac"}},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}


def clusterrole():
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "monitoring"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"}}]},
            "rules": [{"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get"]}]}


def rolebinding():
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "reader", "namespace": "default", "annotations": {"owner": "team-a"}},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "builder", "namespace": "ci"}]}


def clusterrolebinding():
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": "monitoring", "labels": {"team": "obs"}},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "monitoring"},
            "subjects": [{"kind": "Group", "name": "sre", "apiGroup": "rbac.authorization.k8s.io"}]}


def pdb():
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}},
                     "unhealthyPodEvictionPolicy": "AlwaysAllow"}}


def hpa():
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                     "minReplicas": 2, "maxReplicas": 5,
                     "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]}}


def pvc():
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                     "resources": {"requests": {"storage": "1Gi"}}}}


def namespace():
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "team-a", "labels": {"env": "dev"}, "annotations": {"owner": "alice"}}}


def widget():
    return {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w1", "namespace": "default"},
            "spec": {"replicas": 2, "size": "large", "ratio": 0.5, "enabled": True,
                     "members": [{"name": "alice", "role": "owner", "weight": 3},
                                 {"name": "bob", "role": "dev"}],
                     "endpoints": [{"port": 53, "protocol": "TCP", "name": "dns-tcp"},
                                   {"port": 53, "protocol": "UDP", "name": "dns"}],
                     "tags": ["blue", "fast"], "sizes": [1, 2],
                     "args": ["--a", "--b"],
                     "settings": {"color": "blue"},
                     "selector": {"app": "w"},
                     "config": {"mode": "auto", "limits": {"cpu": "1"}},
                     "template": {"image": "w", "tag": "1"}}}


# Per kind: the base configuration and three fields the generic scenarios
# move around: a scalar (with another value), an optional field of the base
# (dropped, shared) and an extra field (added by someone else).
# C = containers[name=...] selector steps.
def C(name):
    return {"name": name}


KINDS = [
    ("deploy", deployment, "", (["spec", "replicas"], 5),
     ["spec", "template", "spec", "containers", C("app"), "env", C("LOG")],
     (["spec", "minReadySeconds"], 10)),
    ("sts", statefulset, "", (["spec", "replicas"], 3),
     ["spec", "template", "spec", "containers", C("db"), "volumeMounts", {"mountPath": "/run/pg"}],
     (["spec", "podManagementPolicy"], "Parallel")),
    ("ds", daemonset, "", (["spec", "template", "spec", "containers", C("agent"), "image"], "agent:2"),
     ["spec", "template", "spec", "tolerations"],
     (["spec", "updateStrategy", "rollingUpdate", "maxUnavailable"], 2)),
    ("job", job, "", (["spec", "backoffLimit"], 6),
     ["spec", "template", "spec", "containers", C("task"), "args"],
     (["spec", "ttlSecondsAfterFinished"], 100)),
    ("cronjob", cronjob, "", (["spec", "schedule"], "0 * * * *"),
     ["spec", "jobTemplate", "spec", "template", "spec", "containers", C("task"), "command"],
     (["spec", "suspend"], True)),
    ("pod", pod, "", (["spec", "containers", C("app"), "image"], "coredns:1.12"),
     ["spec", "containers", C("app"), "ports", {"name": "dns"}],
     (["spec", "nodeSelector"], {"disk": "ssd"})),
    ("svc", service, "", (["spec", "ports", {"port": 53, "protocol": "UDP"}, "targetPort"], 5353),
     ["spec", "ports", {"name": "dns-tcp"}],
     (["spec", "sessionAffinity"], "ClientIP")),
    ("cm", configmap, "", (["data", "mode"], "b"), ["data", "extra.conf"],
     (["data", "new-key"], "v")),
    ("secret", secret, "", (["data", "password"], "bmV3"), ["data", "user"],
     (["metadata", "annotations", "rotated"], "yes")),
    ("sa", serviceaccount, "", (["automountServiceAccountToken"], False), ["imagePullSecrets"],
     (["secrets"], [{"name": "token"}])),
    ("ingress", ingress, "", (["spec", "ingressClassName"], "traefik"), ["spec", "tls"],
     (["spec", "defaultBackend", "service"], {"name": "fallback", "port": {"number": 8080}})),
    ("netpol", networkpolicy, "", (["spec", "podSelector"], {"matchLabels": {"app": "api"}}),
     ["spec", "egress"], (["spec", "policyTypes"], ["Ingress", "Egress"])),
    ("role", role, "", (["rules"], [{"apiGroups": [""], "resources": ["pods", "services"], "verbs": ["get", "list", "watch"]}]),
     ["metadata", "labels", "tier"], (["metadata", "annotations", "reviewed"], "true")),
    ("clusterrole", clusterrole, "", (["rules"], [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]}]), ["aggregationRule"],
     (["metadata", "labels", "rbac.example.com/aggregate-to-view"], "true")),
    ("rolebinding", rolebinding, "", (["subjects"], [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]),
     ["metadata", "annotations", "owner"], (["metadata", "labels", "audit"], "on")),
    ("crb", clusterrolebinding, "", (["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}), ["metadata", "labels", "team"],
     (["metadata", "annotations", "ticket"], "OPS-1")),
    ("pdb", pdb, "", (["spec", "minAvailable"], "50%"), ["spec", "unhealthyPodEvictionPolicy"],
     (["metadata", "labels", "tier"], "web")),
    ("hpa", hpa, "", (["spec", "maxReplicas"], 10), ["spec", "metrics"],
     (["spec", "behavior", "scaleDown", "stabilizationWindowSeconds"], 300)),
    ("pvc", pvc, "", (["spec", "resources", "requests", "storage"], "2Gi"), ["spec", "storageClassName"],
     (["metadata", "labels", "backup"], "daily")),
    ("ns", namespace, "", (["metadata", "labels", "env"], "prod"), ["metadata", "annotations", "owner"],
     (["spec", "finalizers"], ["kubernetes"])),
    ("crd", widget, "widgets", (["spec", "replicas"], 4), ["spec", "members", C("bob")],
     (["spec", "settings", "shape"], "round")),
]


def generic(gen, prefix, make, schema, scalar, opt, extra):
    """The same story on every kind: create, re-apply, change, drop, share,
    conflict and force, updates by other managers, and an empty apply."""
    base = make()
    spath, sval = scalar
    epath, evalue = extra
    kind = base["kind"]
    optval = getp(base, opt)
    assert optval is not None, (prefix, opt)
    dropped = copy.deepcopy(base)
    delp(dropped, opt)
    changed = copy.deepcopy(base)
    setp(changed, spath, sval)

    def fresh(tag):
        s = Scenario(gen, "%s-%s" % (prefix, tag), schema)
        return s

    s = fresh("basic")
    s.apply("create", "kubectl", base, expect="ok", note="%s created by a server-side apply (no live object)" % kind)
    s.apply("noop-reapply", "kubectl", base, expect="ok",
            note="the same configuration applied again: object, entries and time unchanged")
    s.apply("change", "kubectl", changed, expect="ok",
            note="the applier changes %s: new value, same fields, a new time" % ".".join(map(str, spath)))
    s.apply("drop-owned", "kubectl", dropped, expect="ok",
            note="the applier no longer applies a field only it owned: the field is removed")
    s.apply("empty-apply", "kubectl", skeleton(base), expect="ok",
            note="the applier applies only apiVersion/kind/name: every field it alone owned is removed")

    s = fresh("share")
    s.apply(None, "kubectl", base, expect="ok")
    s.apply("second-same", "helm", partial(base, opt, optval), expect="ok",
            note="a second applier applies a field with the value it already has: no conflict, both own it")
    s.apply("drop-shared", "kubectl", dropped, expect="ok",
            note="the first applier drops the shared field: it stays, the second applier still owns it")
    s.apply("second-drops-too", "helm", partial(base, epath, evalue), expect="ok",
            note="the second applier now applies something else: the field nobody applies any more is removed")

    s = fresh("conflict")
    s.apply(None, "kubectl", base, expect="ok")
    s.apply("conflict", "helm", partial(base, spath, sval), expect="conflict",
            note="a second applier sets a field the first owns to another value: conflict with \"kubectl\"")
    s.apply("force", "helm", partial(base, spath, sval), force=True, expect="ok",
            note="the same with force: the second applier takes the field")
    s.apply("reapply-conflict", "kubectl", base, expect="conflict",
            note="the first applier re-applies its old value: conflict with \"helm\"")
    s.apply("reapply-force", "kubectl", base, force=True, expect="ok",
            note="the first applier takes it back with force")

    s = fresh("update")
    s.apply(None, "kubectl", base, expect="ok")
    s.update("edit", "kubectl-edit", s.edited(spath, sval, keep_managed=True), expect="ok",
             note="kubectl edit changes a field the applier owns: the updater owns it now (updates never conflict)")
    s.apply("apply-conflict", "kubectl", base, expect="conflict",
            note="the applier re-applies its value: conflict with \"kubectl-edit\" using %s" % base["apiVersion"])
    s.apply("apply-force", "kubectl", base, force=True, expect="ok",
            note="with force the applier takes the field back from the updater")

    s = fresh("controller")
    s.apply(None, "kubectl", base, expect="ok")
    s.update("add", "controller", s.edited(epath, evalue), expect="ok",
             note="a controller's update adds a field nobody applies")
    s.apply("reapply", "kubectl", base, expect="ok",
            note="the applier re-applies: no conflict, the controller's field is kept")
    s.apply("second-applier-same", "helm", partial(base, spath, getp(base, spath)), expect="ok",
            note="another applier applies the value the field already has: shared ownership, no conflict")


def list_scenarios(gen):
    d = deployment()
    cpath = ["spec", "template", "spec", "containers"]
    app = cpath + [C("app")]

    # containers by name
    s = Scenario(gen, "list-containers")
    s.apply(None, "kubectl", d, expect="ok")
    sidecar = {"name": "sidecar", "image": "envoy:1.30", "args": ["--log-level", "info"]}
    s.apply("second-adds-container", "mesh", partial(d, cpath + [C("sidecar")], sidecar), expect="ok",
            note="a second applier adds a container: an item of its own in the list keyed by name")
    s.apply("first-reapply", "kubectl", d, expect="ok",
            note="the first applier re-applies its one container: the sidecar stays")
    two = copy.deepcopy(d)
    two["spec"]["template"]["spec"]["containers"].append({"name": "worker", "image": "worker:1"})
    s.apply("first-adds-worker", "kubectl", two, expect="ok", note="the first applier adds a second container")
    rev = copy.deepcopy(two)
    rev["spec"]["template"]["spec"]["containers"].reverse()
    s.apply("reorder", "kubectl", rev, expect="ok", note="the first applier lists its containers in the other order")
    s.apply("drop-worker", "kubectl", d, expect="ok", note="the first applier drops the worker container: removed")
    s.apply("mesh-image-conflict", "mesh", partial(d, app + ["image"], "nginx:1.26"), expect="conflict",
            note="the second applier sets the image of the first's container: conflict at containers[name=\"app\"].image")
    s.apply("mesh-drops-sidecar", "mesh", skeleton(d), expect="ok",
            note="the second applier applies nothing: its container is removed")

    # env by name
    s = Scenario(gen, "list-env")
    s.apply(None, "kubectl", d, expect="ok")
    s.apply("other-adds-env", "vault", partial(d, app + ["env", C("SECRET")], {"name": "SECRET", "value": "s"}),
            expect="ok", note="another applier adds an env var to a container it does not otherwise set")
    s.apply("other-same-env", "vault", partial(d, app + ["env", C("MODE")], {"name": "MODE", "value": "prod"}),
            expect="ok", note="it then applies another env var with the live value (and drops SECRET)")
    d2 = copy.deepcopy(d)
    delp(d2, app + ["env", C("MODE")])
    s.apply("first-drops-shared-env", "kubectl", d2, expect="ok", note="the first applier drops MODE, still owned by vault: kept")
    s.apply("env-value-conflict", "vault", partial(d, app + ["env", C("LOG")], {"name": "LOG", "value": "debug"}),
            expect="conflict", note="vault sets LOG, owned by kubectl, to another value")
    s.apply("env-valuefrom", "kubectl", partial(d, app + ["env", C("LOG")],
                                                {"name": "LOG", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "log"}}}),
            expect="ok", note="the first applier switches LOG from value to valueFrom (and drops everything else)")

    # volumes and volumeMounts
    s = Scenario(gen, "list-volumes")
    v = copy.deepcopy(d)
    v["spec"]["template"]["spec"]["volumes"] = [{"name": "cache", "emptyDir": {}},
                                                {"name": "cfg", "configMap": {"name": "web-cfg", "items": [{"key": "a", "path": "a.conf"}]}}]
    v["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = [
        {"name": "cache", "mountPath": "/cache"}, {"name": "cfg", "mountPath": "/etc/web", "readOnly": True}]
    s.apply("create", "kubectl", v, expect="ok", note="volumes (by name) and volumeMounts (by mountPath), an empty emptyDir")
    v2 = copy.deepcopy(v)
    setp(v2, ["spec", "template", "spec", "volumes", C("cache")], {"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}})
    s.apply("volume-fields", "kubectl", v2, expect="ok", note="fields added inside a volume source")
    v3 = copy.deepcopy(v2)
    setp(v3, ["spec", "template", "spec", "volumes", C("cache")], {"name": "cache", "hostPath": {"path": "/tmp/cache"}})
    s.apply("volume-source-change", "kubectl", v3, expect="ok", note="the volume changes its source type: emptyDir fields removed")
    s.apply("other-adds-volume", "backup", partial(d, ["spec", "template", "spec", "volumes", C("snap")],
                                                    {"name": "snap", "persistentVolumeClaim": {"claimName": "snap"}}),
            expect="ok", note="another applier adds a volume")
    v4 = copy.deepcopy(v3)
    delp(v4, ["spec", "template", "spec", "volumes", C("cfg")])
    delp(v4, app + ["volumeMounts", {"mountPath": "/etc/web"}])
    s.apply("drop-volume", "kubectl", v4, expect="ok", note="the first applier drops a volume and its mount")
    s.apply("items-atomic-conflict", "backup", partial(d, ["spec", "template", "spec", "volumes", C("cache")],
                                                         {"name": "cache", "hostPath": {"path": "/srv"}}),
            expect="conflict", note="the other applier changes the hostPath of the first's volume")

    # container ports: containerPort + protocol, 53/TCP and 53/UDP are two items
    p = pod()
    ports = ["spec", "containers", C("app"), "ports"]
    s = Scenario(gen, "ports-container")
    s.apply("create", "kubectl", p, expect="ok",
            note="53/TCP (protocol omitted, keyed as TCP) and 53/UDP: two items of the list keyed by containerPort+protocol")
    s.apply("udp-name-conflict", "dns-operator", partial(p, ports + [{"name": "dns"}], {"containerPort": 53, "protocol": "UDP", "name": "dns-udp"}),
            expect="conflict", note="another applier renames the UDP port: conflict at ports[containerPort=53,protocol=\"UDP\"].name")
    s.apply("udp-same", "dns-operator", partial(p, ports + [{"name": "dns"}], {"containerPort": 53, "protocol": "UDP", "name": "dns"}),
            expect="ok", note="the same item with the same values: shared")
    p2 = copy.deepcopy(p)
    delp(p2, ports + [{"name": "dns"}])
    s.apply("drop-shared-udp", "kubectl", p2, expect="ok", note="the first applier drops 53/UDP; the operator still owns it: kept")
    s.apply("operator-tcp-explicit", "dns-operator", partial(p, ports + [{"name": "dns-tcp"}],
                                                               {"containerPort": 53, "protocol": "TCP", "name": "dns-tcp"}),
            expect="ok", note="the operator applies 53 with protocol TCP written out: the same item as the defaulted one")
    s.apply("operator-drops-all", "dns-operator", skeleton(p), expect="ok",
            note="the operator applies nothing: 53/UDP (only its own now) is removed, 53/TCP kept (kubectl owns it)")
    p3 = copy.deepcopy(p)
    p3["spec"]["containers"][0]["ports"].append({"containerPort": 53, "protocol": "SCTP", "name": "dns-sctp"})
    s.apply("sctp-added", "kubectl", p3, expect="ok", note="a third item, 53/SCTP")

    # Service ports: port + protocol
    sv = service()
    sports = ["spec", "ports"]
    s = Scenario(gen, "ports-service")
    s.apply("create", "kubectl", sv, expect="ok", note="a Service with 53/TCP and 53/UDP")
    s.apply("udp-target-conflict", "helm", partial(sv, sports + [{"name": "dns"}], {"port": 53, "protocol": "UDP", "targetPort": 5353}),
            expect="conflict", note="conflict at .spec.ports[port=53,protocol=\"UDP\"].targetPort")
    s.apply("udp-target-force", "helm", partial(sv, sports + [{"name": "dns"}], {"port": 53, "protocol": "UDP", "targetPort": 5353}),
            force=True, expect="ok", note="forced: helm owns the UDP item's targetPort, and shares its keys")
    sv2 = copy.deepcopy(sv)
    sv2["spec"]["ports"].append({"name": "metrics", "port": 9153, "targetPort": "metrics"})
    s.apply("named-targetport", "kubectl", sv2, expect="conflict",
            note="the first applier adds a port with a named targetPort but still sets the UDP targetPort: conflict with helm")
    s.apply("named-targetport-force", "kubectl", sv2, force=True, expect="ok", note="the same with force")
    s.update("ip-allocated", "kube-apiserver", s.edited(["spec", "clusterIP"], "10.96.0.10"), expect="ok",
             note="an update sets clusterIP and clusterIPs (what the allocator does)")
    s.apply("selector-atomic", "kubectl", partial(sv2, ["spec", "selector"], {"app": "dns", "tier": "edge"}), expect="ok",
            note="Service selector is an atomic map: owned as one field; ports no longer applied are removed")

    # finalizers: a set
    cm = configmap()
    s = Scenario(gen, "set-finalizers")
    fa = copy.deepcopy(cm)
    fa["metadata"]["finalizers"] = ["example.com/a"]
    s.apply("create", "kubectl", fa, expect="ok", note="finalizers is a set: items are v:\"...\"")
    s.apply("second-adds", "operator", partial(cm, ["metadata", "finalizers"], ["example.com/b"]), expect="ok",
            note="a second applier adds its finalizer: both are kept")
    s.apply("second-shares", "operator", partial(cm, ["metadata", "finalizers"], ["example.com/b", "example.com/a"]), expect="ok",
            note="the second applier also applies the first's finalizer: shared (sets never conflict)")
    s.apply("first-drops", "kubectl", cm, expect="ok", note="the first applier drops its finalizer, shared: kept")
    s.apply("second-drops-one", "operator", partial(cm, ["metadata", "finalizers"], ["example.com/a"]), expect="ok",
            note="the second applier drops b: removed")
    s.update("deleted", "kube-controller-manager", s.edited(["metadata", "finalizers"], delete=True), expect="ok",
             note="an update removes every finalizer: the appliers' ownership goes too")

    # args: atomic
    j = job()
    args = ["spec", "template", "spec", "containers", C("task"), "args"]
    s = Scenario(gen, "atomic-args")
    s.apply(None, "kubectl", j, expect="ok")
    s.apply("same-args", "ci", partial(j, args, ["--all", "--verbose"]), expect="ok",
            note="another applier applies the same args: shared, the list is one field")
    s.apply("other-args-conflict", "ci", partial(j, args, ["--all"]), expect="conflict",
            note="another applier applies different args: conflict on the whole list")
    s.apply("reordered-conflict", "ci", partial(j, args, ["--verbose", "--all"]), expect="conflict",
            note="the same items in another order differ: atomic lists compare as a whole")
    j2 = copy.deepcopy(j)
    delp(j2, args)
    s.apply("first-drops-shared", "kubectl", j2, expect="ok", note="the first applier drops args: ci still owns them, kept")
    s.apply("ci-changes", "ci", partial(j, args, ["--dry-run"]), expect="ok", note="now only ci owns them: it may change them")
    s.update("edit-args", "kubectl-edit", s.edited(args, ["--one"]), expect="ok", note="an update replaces the atomic list")

    # labels granular vs spec.selector atomic
    s = Scenario(gen, "labels-selector")
    s.apply(None, "kubectl", d, expect="ok")
    s.apply("other-label", "argocd", partial(d, ["metadata", "labels", "argocd.argoproj.io/instance"], "web"), expect="ok",
            note="labels is a granular map: another applier owns one key")
    s.apply("first-reapply", "kubectl", d, expect="ok", note="the first applier's labels do not touch argocd's key")
    s.apply("selector-conflict", "argocd", partial(d, ["spec", "selector"], {"matchLabels": {"app": "web", "tier": "fe"}}),
            expect="conflict", note="spec.selector is atomic: adding a key conflicts on .spec.selector as a whole")
    s.apply("selector-same", "argocd", partial(d, ["spec", "selector"], {"matchLabels": {"app": "web"}}), expect="ok",
            note="the same selector: shared, owned as one field (f:selector: {})")
    s.apply("label-same-key-conflict", "argocd", partial(d, ["metadata", "labels", "app"], "web2"), expect="conflict",
            note="a label key owned by the first applier, another value")
    s.apply("template-label", "argocd", partial(d, ["spec", "template", "metadata", "labels", "version"], "v2"), expect="ok",
            note="a template label added by the second applier (and it drops the selector)")

    # nested structs
    s = Scenario(gen, "nested")
    s.apply(None, "kubectl", d, expect="ok")
    s.apply("requests-by-vpa", "vpa", partial(d, app + ["resources", "requests"], {"cpu": "250m", "memory": "128Mi"}),
            expect="ok", note="another applier sets resources.requests inside the first's container")
    s.apply("limits-conflict", "vpa", partial(d, app + ["resources", "limits", "cpu"], "1"), expect="conflict",
            note="limits.cpu owned by kubectl")
    sc = copy.deepcopy(d)
    setp(sc, app + ["securityContext"], {"runAsNonRoot": True, "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}})
    setp(sc, ["spec", "template", "spec", "affinity"], {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}}})
    s.apply("deep-structs", "kubectl", sc, expect="ok", note="securityContext and affinity, nested structs with atomic lists inside")
    s.update("hpa-scales", "kube-controller-manager", s.edited(["spec", "replicas"], 7), expect="ok",
             note="a controller changes replicas")
    sc2 = copy.deepcopy(sc)
    setp(sc2, ["spec", "template", "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
               "nodeSelectorTerms", 0, "matchExpressions", 0, "values"], ["a"])
    del sc2["spec"]["replicas"]
    s.apply("drop-replicas", "kubectl", sc2, expect="ok",
            note="the applier stops applying replicas (the controller owns the value now) and narrows an atomic list")
    s.apply("vpa-leaves", "vpa", skeleton(d), expect="ok", note="the second applier applies nothing: requests removed")

    # the StatefulSet's volumeClaimTemplates: atomic
    st = statefulset()
    s = Scenario(gen, "sts-claims")
    s.apply(None, "kubectl", st, expect="ok")
    s.apply("claim-size-conflict", "resizer", partial(st, ["spec", "volumeClaimTemplates"], [{
        "metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}}}]),
            expect="conflict", note="volumeClaimTemplates is atomic: any change conflicts on the whole list")
    s.update("partition", "rollout-controller", s.edited(["spec", "updateStrategy"], {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}),
             expect="ok", note="a controller sets updateStrategy.rollingUpdate.partition")
    s.apply("reapply", "kubectl", st, expect="ok", note="re-apply: the controller's fields stay")

    # Ingress rules: atomic
    ing = ingress()
    s = Scenario(gen, "ingress-rules")
    s.apply(None, "kubectl", ing, expect="ok")
    s.apply("add-rule-conflict", "cert-manager", partial(ing, ["spec", "rules"], ing["spec"]["rules"] + [{"host": "api.example.com", "http": {"paths": [{
        "path": "/", "pathType": "Prefix", "backend": {"service": {"name": "api", "port": {"number": 80}}}}]}}]),
            expect="conflict", note="rules is atomic: another applier adding a rule conflicts on .spec.rules")
    s.apply("annotation", "cert-manager", partial(ing, ["metadata", "annotations", "cert-manager.io/cluster-issuer"], "le"), expect="ok",
            note="an annotation instead: no conflict")
    ing2 = copy.deepcopy(ing)
    ing2["spec"]["rules"][0]["http"]["paths"].append({"path": "/api", "pathType": "Exact",
                                                       "backend": {"service": {"name": "api", "port": {"name": "http"}}}})
    s.apply("first-adds-path", "kubectl", ing2, expect="ok", note="the owner of the rules adds a path: the list is replaced")

    # NetworkPolicy ingress: atomic, podSelector atomic
    np = networkpolicy()
    s = Scenario(gen, "netpol-rules")
    s.apply(None, "kubectl", np, expect="ok")
    s.apply("ingress-conflict", "policy-bot", partial(np, ["spec", "ingress"], [{"from": [{"namespaceSelector": {}}]}]),
            expect="conflict", note="ingress rules are atomic")
    s.apply("ingress-force", "policy-bot", partial(np, ["spec", "ingress"], [{"from": [{"namespaceSelector": {}}]}]),
            force=True, expect="ok", note="forced: an empty namespaceSelector {} is a value")
    s.apply("podselector-conflict", "policy-bot", partial(np, ["spec", "podSelector"], {"matchExpressions": [{"key": "app", "operator": "Exists"}]}),
            expect="conflict", note="podSelector is an atomic struct")

    # RBAC
    r = role()
    s = Scenario(gen, "rbac-role")
    s.apply(None, "kubectl", r, expect="ok")
    s.apply("rules-conflict", "aggregator", partial(r, ["rules"], r["rules"] + [{"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]}]),
            expect="conflict", note="Role rules are atomic")
    s.apply("rules-same", "aggregator", partial(r, ["rules"], r["rules"]), expect="ok", note="the same rules: shared")
    rb = rolebinding()
    s = Scenario(gen, "rbac-binding")
    s.apply(None, "kubectl", rb, expect="ok")
    s.apply("roleref-conflict", "other", partial(rb, ["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "writer"}),
            expect="conflict", note="roleRef is an atomic struct: conflict at .roleRef")
    s.apply("subjects-conflict", "other", partial(rb, ["subjects"], [{"kind": "ServiceAccount", "name": "other", "namespace": "ci"}]),
            expect="conflict", note="subjects are atomic")

    # ConfigMap data: a granular map with keys of any spelling
    s = Scenario(gen, "cm-keys")
    c = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "odd", "namespace": "default",
                                                                "labels": {"app.kubernetes.io/name": "odd", "example.com/tier": "x"}},
         "data": {"a.b": "dots", "with-dash": "1", "under_score": "2", "UPPER": "3", "key\"quote": "q", "k\\back": "b",
                  "ünï": "unicode", "": "empty key"},
         "binaryData": {"blob": "AAEC"}}
    s.apply("create", "kubectl", c, expect="ok", note="map keys with dots, slashes, quotes, backslashes, non-ASCII and an empty key in FieldsV1")
    s.apply("other-key", "tool", partial(c, ["data", "tool.yaml"], "a: 1\n"), expect="ok", note="another applier owns one key")
    c2 = copy.deepcopy(c)
    del c2["data"]["key\"quote"]
    del c2["binaryData"]
    s.apply("drop-keys", "kubectl", c2, expect="ok", note="keys dropped: removed (binaryData emptied)")
    s.update("edit-value", "kubectl-edit", s.edited(["data", "a.b"], "changed"), expect="ok", note="an update changes a value")
    s.apply("conflict-escaped", "tool", partial(c, ["data", "a.b"], "tool's"), expect="conflict",
            note="conflict path with a dotted key")

    # values of every JSON type, nulls, empty containers
    s = Scenario(gen, "values")
    cm0 = configmap()
    s.apply(None, "kubectl", cm0, expect="ok")
    e = copy.deepcopy(cm0)
    e["metadata"]["labels"] = {}
    e["metadata"]["annotations"] = {"a": ""}
    s.apply("empty-map-and-string", "kubectl", e, expect="ok", note="an empty labels map and an empty string value are applied")
    n = copy.deepcopy(cm0)
    n["data"]["mode"] = None
    s.apply("null-value", "kubectl", n, expect="ok", note="a null value in the applied configuration")
    s.apply("other-null", "tool", partial(cm0, ["data", "LEVEL"], None), expect="conflict",
            note="another applier sets an owned key to null: a different value, a conflict")

    dd = copy.deepcopy(d)
    s = Scenario(gen, "empty-lists")
    setp(dd, app + ["args"], [])
    setp(dd, app + ["env"], [])
    s.apply("create", "kubectl", dd, expect="ok", note="empty atomic and associative lists in the configuration")
    setp(dd, app + ["args"], ["x"])
    setp(dd, app + ["env"], [{"name": "A", "value": "1"}])
    s.apply("fill", "kubectl", dd, expect="ok", note="the lists filled")
    delp(dd, app + ["env"])
    s.apply("drop-assoc", "kubectl", dd, expect="ok", note="the associative list no longer applied: its items are removed")


def more_list_scenarios(gen):
    d = deployment()
    tpl = ["spec", "template", "spec"]
    s = Scenario(gen, "more-lists")
    m = copy.deepcopy(d)
    setp(m, tpl + ["hostAliases"], [{"ip": "10.0.0.1", "hostnames": ["db"]}, {"ip": "10.0.0.2", "hostnames": ["cache", "redis"]}])
    setp(m, tpl + ["topologySpreadConstraints"], [
        {"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 1},
        {"topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 2}])
    setp(m, tpl + ["initContainers"], [{"name": "app", "image": "init:1"}])
    setp(m, tpl + ["tolerations"], [{"key": "gpu", "operator": "Exists"}])
    m["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "0a1b"}]
    s.apply("create", "kubectl", m, expect="ok",
            note="hostAliases (key ip), topologySpreadConstraints (keys topologyKey+whenUnsatisfiable), an init container named like a container, tolerations (atomic), ownerReferences (key uid)")
    s.apply("spread-conflict", "scheduler-tuner", partial(d, tpl + ["topologySpreadConstraints", {"whenUnsatisfiable": "ScheduleAnyway"}],
                                                           {"topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 5}),
            expect="conflict", note="conflict inside an item keyed by two strings")
    s.apply("hostalias-added", "dns-tool", partial(d, tpl + ["hostAliases", {"ip": "10.0.0.3"}], {"ip": "10.0.0.3", "hostnames": ["extra"]}),
            expect="ok", note="another applier adds a host alias; hostnames is atomic")
    s.apply("init-image-conflict", "dns-tool", partial(d, tpl + ["initContainers", C("app")], {"name": "app", "image": "init:2"}),
            expect="conflict", note="the init container app, not the container app")
    s.apply("toleration-conflict", "dns-tool", partial(d, tpl + ["tolerations"], [{"key": "spot", "operator": "Exists"}]),
            expect="conflict", note="tolerations are atomic")
    s.update("owner-added", "kube-controller-manager", s.edited(["metadata", "ownerReferences", {"uid": "9f8e"}],
                                                                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "9f8e", "controller": True}),
             expect="ok", note="a controller adds an owner reference (key uid)")
    s.apply("reapply", "kubectl", m, expect="ok", note="the applier re-applies: the controller's owner reference stays")

    s = Scenario(gen, "apply-meta")
    s.apply(None, "kubectl", d, expect="ok")
    mf = copy.deepcopy(d)
    mf["metadata"]["managedFields"] = []
    s.apply("managedfields-empty-list", "kubectl", mf, expect="error",
            note="managedFields: [] in an applied configuration is not nil: rejected")
    mf["metadata"]["managedFields"] = None
    s.apply("managedfields-null", "kubectl", mf, expect="ok", note="managedFields: null is nil: accepted, a no-op")
    rv = copy.deepcopy(d)
    rv["metadata"]["resourceVersion"] = "1000"
    rv["metadata"]["uid"] = SERVER_UID
    s.apply("server-fields-in-config", "kubectl", rv, expect="ok",
            note="resourceVersion and uid in the configuration: never owned")


def manager_scenarios(gen):
    d = deployment()
    app = ["spec", "template", "spec", "containers", C("app")]

    s = Scenario(gen, "mgr-csa")
    s.update("create-client-side", "kubectl-client-side-apply", d, expect="ok", live=None,
             note="created by client-side apply: an Update entry for kubectl-client-side-apply owning every field")
    changed = copy.deepcopy(d)
    changed["spec"]["replicas"] = 4
    setp(changed, app + ["image"], "nginx:1.27")
    s.apply("ssa-conflicts", "kubectl", changed, expect="conflict",
            note="the first server-side apply over client-side apply's fields: conflicts using apps/v1")
    s.apply("ssa-force", "kubectl", changed, force=True, expect="ok", note="with --force-conflicts")
    s.apply("ssa-old-values", "kubectl", d, expect="ok",
            note="back to the old values: the forced fields are kubectl's alone now, the rest shared: no conflict")

    s = Scenario(gen, "mgr-three")
    s.apply(None, "kubectl", d, expect="ok")
    s.apply("helm-label", "helm", partial(d, ["metadata", "labels", "helm.sh/chart"], "web-1.0"), expect="ok", note="second applier")
    s.update("edit", "kubectl-edit", s.edited(["spec", "replicas"], 9), expect="ok", note="an updater")
    s.apply("argocd-conflicts", "argocd", partial(d, ["spec", "replicas"], 1, ["metadata", "labels", "helm.sh/chart"], "x"),
            expect="conflict", note="a third applier conflicts with an applier and an updater: conflicts sorted by manager")
    s.apply("argocd-force", "argocd", partial(d, ["spec", "replicas"], 1, ["metadata", "labels", "helm.sh/chart"], "x"),
            force=True, expect="ok", note="forced: both lose the fields; helm's entry becomes empty and goes")
    s.apply("multi-conflict", "kubectl", partial(d, ["spec", "replicas"], 2, ["metadata", "labels", "helm.sh/chart"], "y",
                    ["spec", "minReadySeconds"], 5),
            expect="conflict", note="conflicts with argocd (replicas, label); minReadySeconds is new and free")

    s = Scenario(gen, "mgr-same-name")
    s.apply(None, "tool", d, expect="ok")
    s.update("update-same-name", "tool", s.edited(["spec", "replicas"], 3), expect="ok",
             note="the same manager name with operation Update is another owner: two entries")
    s.apply("apply-conflicts-own-update", "tool", d, expect="conflict",
            note="its Apply conflicts with its own Update entry (using apps/v1)")

    s = Scenario(gen, "mgr-unknown")
    s.apply(None, "kubectl", d, expect="ok")
    s.update("no-manager", "", s.edited(["spec", "replicas"], 3), expect="ok", note="an update without a field manager is recorded as \"unknown\"")
    s.apply("conflict-unknown", "kubectl", d, expect="conflict", note="conflict with \"unknown\"")

    s = Scenario(gen, "mgr-update-create")
    s.update("create", "kubectl-create", d, expect="ok", note="kubectl create: an Update creates the object, the entry owns every field")
    s.update("noop-update", "kubectl-create", without_managed(s.live), expect="ok",
             note="an update that changes nothing: no new time")
    s.update("other-changes", "kubectl-edit", s.edited(app + ["image"], "nginx:2"), expect="ok",
             note="another updater changes one field: it moves")
    s.update("remove-field", "kubectl-edit", s.edited(app + ["env"], delete=True), expect="ok",
             note="an update removes a list: nobody owns its items any more")

    s = Scenario(gen, "mgr-managedfields")
    s.apply(None, "kubectl", d, expect="ok")
    s.update(None, "kubectl-edit", s.edited(["spec", "replicas"], 3), expect="ok")
    body = s.edited(["spec", "replicas"], 4)
    body["metadata"]["managedFields"] = []
    s.update("reset", "kubectl-edit", body, expect="ok",
             note="an update with managedFields: [] resets the ownership; only the updater's change is recorded")
    s.apply(None, "kubectl", d, expect="ok", force=True)
    body = s.edited(["spec", "replicas"], 6, keep_managed=True)
    mf = body["metadata"]["managedFields"]
    body["metadata"]["managedFields"] = [e for e in mf if e["manager"] != "kubectl-edit"]
    s.update("replaced-entries", "operator", body, expect="ok",
             note="an update carrying its own managedFields (one entry dropped): they replace the live ones")

    s = Scenario(gen, "mgr-time")
    s.apply(None, "a", partial(d, ["spec", "replicas"], 1), expect="ok")
    s.apply(None, "b", partial(d, ["metadata", "labels", "b"], "1"), expect="ok")
    s.apply("third", "c", partial(d, ["metadata", "labels", "c"], "1"), expect="ok",
            note="three appliers: entries sorted by operation, time, manager")
    s.apply("a-noop", "a", partial(d, ["spec", "replicas"], 1), expect="ok", note="a re-applies unchanged: its time stays")
    s.apply("a-again", "a", partial(d, ["spec", "replicas"], 2), expect="ok", note="a changes: its time is the newest")
    s.apply("new-noop-applier", "d", partial(d, ["spec", "replicas"], 2), expect="ok",
            note="a new applier that changes nothing: its entry has no time and sorts first")


def error_scenarios(gen):
    d = deployment()
    app = ["spec", "template", "spec", "containers", C("app")]
    s = Scenario(gen, "err")
    s.apply(None, "kubectl", d, expect="ok")
    s.apply("no-manager", "", d, expect="error", note="an apply without a field manager is rejected")
    m = copy.deepcopy(d)
    m["metadata"]["managedFields"] = [{"manager": "x", "operation": "Apply", "apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {}}]
    s.apply("managedfields-in-config", "kubectl", m, expect="error", note="managedFields in an applied configuration")
    dup = copy.deepcopy(d)
    dup["spec"]["template"]["spec"]["containers"].append({"name": "app", "image": "x"})
    s.apply("duplicate-container", "kubectl", dup, expect="error", note="two containers named app")
    dup = copy.deepcopy(d)
    getp(dup, app)["env"].append({"name": "MODE", "value": "x"})
    s.apply("duplicate-env", "kubectl", dup, expect="error", note="two env vars named MODE")
    dup = copy.deepcopy(d)
    getp(dup, app)["ports"] = [{"containerPort": 53}, {"containerPort": 53, "protocol": "TCP"}]
    s.apply("duplicate-port-defaulted", "kubectl", dup, expect="error", note="53 and 53/TCP are the same key")
    dup = copy.deepcopy(d)
    dup["metadata"]["finalizers"] = ["a", "a"]
    s.apply("duplicate-set-item", "kubectl", dup, expect="error", note="a set with the same value twice")
    mk = copy.deepcopy(d)
    mk["spec"]["template"]["spec"]["containers"].append({"image": "noname"})
    s.apply("missing-key", "kubectl", mk, expect="error", note="a container without its key field name")
    mk = copy.deepcopy(d)
    getp(mk, app)["ports"] = [{"name": "http"}]
    s.apply("missing-port-key", "kubectl", mk, expect="error", note="a port without containerPort")
    w = copy.deepcopy(d)
    w["spec"]["replicas"] = "two"
    s.apply("wrong-scalar", "kubectl", w, expect="error", note="replicas is an integer")
    w = copy.deepcopy(d)
    w["spec"]["template"]["spec"]["containers"] = {"name": "app"}
    s.apply("map-for-list", "kubectl", w, expect="error", note="a map where a list is expected")
    w = copy.deepcopy(d)
    w["metadata"]["labels"] = ["app"]
    s.apply("list-for-map", "kubectl", w, expect="error", note="a list where a map is expected")
    w = copy.deepcopy(d)
    w["spec"]["paused"] = 1
    s.apply("int-for-bool", "kubectl", w, expect="error", note="an integer where a boolean is expected")
    w = copy.deepcopy(d)
    w["kind"] = "StatefulSet"
    s.apply("kind-mismatch", "kubectl", w, expect="error", note="the configuration's kind differs from the live object's")
    w = copy.deepcopy(d)
    w["apiVersion"] = "apps/v1beta2"
    s.apply("version-mismatch", "kubectl", w, expect="error", note="the configuration's apiVersion differs from the live object's")
    w = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}}
    s.apply("unknown-kind", "kubectl", w, expect="error", live=None, note="a kind without a schema")
    w = copy.deepcopy(d)
    w["spec"]["replicas"] = "two"
    s.update("update-wrong-scalar", "kubectl-edit", w, expect="error", note="an update body of the wrong type is rejected too")
    s.apply("still-fine", "kubectl", d, expect="ok", note="after the rejected requests the object is unchanged: a no-op")


def crd_scenarios(gen):
    w = widget()
    s = Scenario(gen, "crd-lists", "widgets")
    s.apply(None, "kubectl", w, expect="ok")
    s.apply("member-added", "team", partial(w, ["spec", "members", C("carol")], {"name": "carol", "role": "dev"}),
            expect="ok", note="x-kubernetes-list-type: map keyed by name: another applier adds an item")
    s.apply("member-conflict", "team", partial(w, ["spec", "members", C("alice")], {"name": "alice", "role": "admin"}),
            expect="conflict", note="conflict at .spec.members[name=\"alice\"].role")
    s.apply("endpoint-udp-conflict", "team", partial(w, ["spec", "endpoints", {"name": "dns"}], {"port": 53, "protocol": "UDP", "name": "udp"}),
            expect="conflict", note="composite keys port+protocol in a CRD")
    s.apply("tags-set", "team", partial(w, ["spec", "tags"], ["green", "blue"]), expect="ok",
            note="x-kubernetes-list-type: set: tags merge, blue is shared (and team's other fields go)")
    s.apply("sizes-set", "team", partial(w, ["spec", "sizes"], [3, 1]), expect="ok", note="a set of integers: v:3")
    s.apply("args-atomic-conflict", "team", partial(w, ["spec", "args"], ["--c"]), expect="conflict",
            note="a list without x-kubernetes-list-type is atomic")
    s.apply("steps-atomic", "team", partial(w, ["spec", "steps"], [{"name": "a", "run": "x"}]), expect="ok",
            note="x-kubernetes-list-type: atomic list of objects, new owner")
    s.apply("selector-atomic-conflict", "team", partial(w, ["spec", "selector", "zone"], "a"), expect="conflict",
            note="x-kubernetes-map-type: atomic: a new key conflicts on the whole map")
    s.apply("settings-granular", "team", partial(w, ["spec", "settings", "shape"], "round"), expect="ok",
            note="a map of strings (additionalProperties) is granular")
    s.apply("template-atomic-conflict", "team", partial(w, ["spec", "template", "tag"], "2"), expect="conflict",
            note="an atomic struct")
    s.apply("config-nested", "team", partial(w, ["spec", "config", "limits", "memory"], "1Gi"), expect="ok",
            note="a nested struct is granular")
    s.apply("extra-free-form", "team", partial(w, ["spec", "extra"], {"any": {"deep": [1, {"x": True}]}, "n": 1.25}), expect="ok",
            note="x-kubernetes-preserve-unknown-fields: untyped content")
    s.apply("extra-change", "team", partial(w, ["spec", "extra"], {"any": {"deep": [2]}}), expect="ok",
            note="the untyped content changes; its list is atomic")
    w2 = copy.deepcopy(w)
    delp(w2, ["spec", "members", C("bob")])
    w2["spec"]["tags"] = ["fast"]
    w2["spec"]["ratio"] = 0.75
    s.apply("first-drops", "kubectl", w2, expect="ok", note="the first applier drops bob and blue (blue still team's)")
    s.update("status", "controller", s.edited(["status", "phase"], "Ready"), expect="ok", note="a controller writes status (no subresource here)")
    s.apply("wrong-type", "kubectl", partial(w, ["spec", "members"], [{"name": "x", "weight": "heavy"}]), expect="error",
            note="a string where the CRD says integer")
    s.apply("missing-key", "kubectl", partial(w, ["spec", "endpoints"], [{"port": 80, "name": "http"}]), expect="error",
            note="an endpoint without protocol (no default in this CRD)")
    s.apply("duplicate-key", "kubectl", partial(w, ["spec", "members"], [{"name": "x"}, {"name": "x"}]), expect="error",
            note="duplicate keys in a CRD's map list")


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    oracle = sys.argv[1]
    shared = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "..", "shared")
    with open(os.path.join(OUT, "schemas", "widgets.crd.yaml")) as f:
        crd = yaml.safe_load(f)
    with open(os.path.join(OUT, "schemas", "widgets.definitions.json"), "w") as f:
        f.write(dumps(crd_definitions(crd)))
    gen = Gen(oracle, shared)
    try:
        for k in KINDS:
            generic(gen, *k)
        list_scenarios(gen)
        more_list_scenarios(gen)
        manager_scenarios(gen)
        error_scenarios(gen)
        crd_scenarios(gen)
    finally:
        gen.close()
    gen.write()
    mergeorder.golden(OUT, shared, True)
    print("%d cases written to %s" % (len(gen.cases), OUT))


if __name__ == "__main__":
    main()
