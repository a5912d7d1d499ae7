#!/usr/bin/env python3
"""chains.py - the differential test of server-side apply: random chains of
apply and update requests, every step run through the reference oracle and
through the engine's driver (tests/ssa/ssa_driver), the answers compared by
ssa_check (the comparison of the golden cases).

usage: chains.py ORACLE DRIVER SSA_CHECK SHARED_DIR CASES_DIR OUT_DIR
environment: SSA_CHAINS_COUNT (default 2000), SSA_CHAINS_SEED (default 1),
SSA_CHAINS_KINDS (default "deploy svc cm widget": the kinds chains may use)

A chain is one object (a Deployment, Service, ConfigMap or Widget, the
custom resource of testdata/ssa/schemas) and 3 to 9 requests by several
managers, the first an apply, or (a quarter of the chains) a create by a
plain write (an update of nothing: kubectl create, a controller's POST);
then appliers (kubectl, helm, argocd; force now and then) that re-apply
configurations drifting from their last one (fields kept, changed, dropped,
added), updaters (kubectl-edit, controllers, client-side apply, a
request without a manager) that send the whole object with a few edits, and
kubectl's own applies (the ApplySet parent's metadata by kubectl-applyset;
the last-applied annotation alone by kubectl-last-applied, as its
migration from client-side apply sends it). A
few requests are invalid on purpose (no manager, a wrong type, a duplicate
or missing key). All chains advance together, one round per step: the
step's live object is the oracle's previous answer (plus the fields the API
server adds), so both programs always see the same input.

Steps that fall under a documented version difference between the oracle
(structured-merge-diff v4.1.2) and Kubernetes 1.36 are still run through
both programs (the driver must answer them; those in MUST_ACCEPT it must
accept) but not compared; each such filter is listed in EXCLUSIONS, with
its reason, and in docs/DIFFERENCES.md. One difference is compared all the
same: where SMD v4.4.2 orders a merged associative list otherwise than
v4.1.2, the engine's answer is compared with the oracle's put in v4.4.2's
order (mergeorder.py; ADJUSTMENTS), and the chain goes on from that answer,
as the server would store it.
Disagreements are written to OUT_DIR/<step id>.json (the request, both
answers, ssa_check's verdict) as reproducers.

Exit: 0 every compared step agrees, 1 a disagreement (or a driver failure),
77 skipped (no oracle or no driver here).
"""
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssalib import (KUBE_SWAGGER, delp, getp, line, live_from,  # noqa: E402
                    merged_swagger, setp, skeleton, without_managed)
import mergeorder  # noqa: E402

# Documented version differences: steps tagged with one of these are run but
# not compared (docs/DIFFERENCES.md has the same list).
EXCLUSIONS = {
    "dup-keys-update": "an update body with duplicate keys in an associative list: "
                       "SMD >= v4.4 (Kubernetes >= 1.27) accepts it and treats the duplicated "
                       "items atomically, and so does the engine (SMD v4.4.2); the oracle's "
                       "v4.1.2 rejects the request",
    "last-applied-conflicts": mergeorder.LAST_APPLIED_CONFLICTS,
    "before-first-apply": "an apply onto a live object without managedFields: the API server "
                          "first records its fields as an update by before-first-apply from "
                          "the zero value of its kind (skipNonAppliedManager), and the apply "
                          "may conflict with them; the oracle has no such layer and no Go "
                          "zero values, the real API server judges these (tests/realserver)",
}
# Excluded steps whose answer is still known in part: the engine must
# accept these (the oracle's refusal is the version difference).
MUST_ACCEPT = {"dup-keys-update"}
# Documented version differences the test still compares: steps tagged with
# one of these are compared with the oracle's answer adjusted to what the
# server answers (docs/DIFFERENCES.md has the same list).
ADJUSTMENTS = {"merge-order": mergeorder.REASON,
               "untracked-update": mergeorder.UNTRACKED_REASON,
               "last-applied-updated": mergeorder.LAST_APPLIED_REASON}

APPLIERS = ["kubectl", "helm", "argocd"]
UPDATERS = ["kubectl-edit", "kube-controller-manager", "kubectl-client-side-apply", "", "kubectl"]
CREATORS = ["kubectl-create", "kube-controller-manager", "helm", ""]
KEY_FIELDS = {"name", "containerPort", "port", "protocol", "mountPath"}
SERVER_FIELDS = {"uid", "creationTimestamp", "generation", "resourceVersion", "managedFields"}


def C(n):
    return {"name": n}


# ------------------------------------------------------------------ universes
# A kind's universe: slots (path, value generator). A configuration is the
# skeleton plus a subset of the slots, each with a value; list items on a
# path carry the selector's fields (their keys).

def pick(*vals):
    return lambda r: copy.deepcopy(r.choice(vals))


def subset(pool, ordered=False):
    def g(r):
        s = [x for x in pool if r.random() < 0.5] or [r.choice(pool)]
        if not ordered:
            r.shuffle(s)
        return copy.deepcopy(s)
    return g


def port_subset(pool, port="port", keep=0.5, rename=0.0):
    """A slot's value: a shuffled random subset of the port entries of
    `pool`, at most one per (port, protocol) as the API server requires (TCP
    when unset), each kept with chance `keep` and its name, if any, given a
    "2" with chance `rename`; the pool's first entry when none is kept."""
    def g(r):
        out, seen = [], set()
        for p in pool:
            k = (p[port], p.get("protocol", "TCP"))
            if k not in seen and r.random() < keep:
                seen.add(k)
                q = dict(p)
                if rename and "name" in q and r.random() < rename:
                    q["name"] = q["name"] + "2"
                out.append(q)
        r.shuffle(out)
        return out or [dict(pool[0])]
    return g


def deployment_slots():
    tpl = ["spec", "template", "spec"]
    app = tpl + ["containers", C("app")]
    side = tpl + ["containers", C("sidecar")]
    ports = port_subset([{"containerPort": 80, "name": "http"}, {"containerPort": 80, "protocol": "TCP", "name": "http"},
                         {"containerPort": 53, "protocol": "UDP", "name": "dns"}, {"containerPort": 53, "name": "dns-tcp"},
                         {"containerPort": 9090}], port="containerPort", keep=0.45, rename=0.2)

    def env(n):
        def g(r):
            if r.random() < 0.15:
                return {"name": n, "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": n.lower()}}}
            return {"name": n, "value": r.choice(["1", "2", "on"])}
        return g

    return [
        (["metadata", "labels", "app"], pick("web")),
        (["metadata", "labels", "tier"], pick("fe", "be")),
        (["metadata", "labels", "example.com/team"], pick("a", "b")),
        (["metadata", "annotations", "note"], pick("x", "y", "")),
        (["metadata", "finalizers"], subset(["example.com/a", "example.com/b", "example.com/c"])),
        (["spec", "replicas"], pick(1, 2, 3)),
        (["spec", "minReadySeconds"], pick(0, 5)),
        (["spec", "paused"], pick(True, False)),
        (["spec", "selector"], pick({"matchLabels": {"app": "web"}}, {"matchLabels": {"app": "web", "tier": "fe"}})),
        (["spec", "strategy"], pick({"type": "Recreate"}, {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                                    {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}})),
        (["spec", "template", "metadata", "labels", "app"], pick("web")),
        (["spec", "template", "metadata", "labels", "version"], pick("v1", "v2")),
        (app + ["image"], pick("nginx:1.25", "nginx:1.26")),
        (app + ["args"], pick(["--a"], ["--a", "--b"], ["--b", "--a"], [])),
        (app + ["command"], pick(["/bin/web"], ["/bin/web", "-v"])),
        (app + ["env", C("A")], env("A")),
        (app + ["env", C("B")], env("B")),
        (app + ["env", C("C")], env("C")),
        (app + ["ports"], ports),
        (app + ["resources", "limits", "cpu"], pick("500m", "1")),
        (app + ["resources", "limits", "memory"], pick("256Mi", "1Gi")),
        (app + ["resources", "requests", "cpu"], pick("100m", "250m")),
        (app + ["volumeMounts", {"mountPath": "/cache"}], pick({"mountPath": "/cache", "name": "cache"})),
        (app + ["volumeMounts", {"mountPath": "/etc/cfg"}], pick({"mountPath": "/etc/cfg", "name": "cfg", "readOnly": True})),
        (app + ["securityContext", "runAsNonRoot"], pick(True)),
        (app + ["securityContext", "capabilities", "drop"], pick(["ALL"], ["NET_RAW"])),
        (side + ["image"], pick("envoy:1.30", "envoy:1.31")),
        (side + ["env", C("A")], env("A")),
        (side + ["args"], pick(["--log", "info"], ["--log", "debug"])),
        (tpl + ["volumes", C("cache")], pick({"name": "cache", "emptyDir": {}}, {"name": "cache", "emptyDir": {"medium": "Memory"}})),
        (tpl + ["volumes", C("cfg")], pick({"name": "cfg", "configMap": {"name": "web-cfg"}},
                                           {"name": "cfg", "configMap": {"name": "web-cfg", "items": [{"key": "a", "path": "a"}]}})),
        (tpl + ["tolerations"], pick([{"key": "gpu", "operator": "Exists"}], [{"key": "spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}])),
        (tpl + ["nodeSelector"], pick({"disk": "ssd"}, {"disk": "ssd", "zone": "a"})),
        (tpl + ["imagePullSecrets", C("reg")], pick({"name": "reg"})),
        (tpl + ["securityContext", "fsGroup"], pick(1000, 2000)),
        (tpl + ["terminationGracePeriodSeconds"], pick(30, 60)),
    ]


def service_slots():
    ports = port_subset([{"name": "dns-tcp", "port": 53, "targetPort": 53}, {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                         {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 5353}, {"name": "http", "port": 80, "targetPort": "http"},
                         {"name": "https", "port": 443, "protocol": "TCP", "targetPort": 8443}])
    return [
        (["metadata", "labels", "app"], pick("dns")),
        (["metadata", "labels", "example.com/team"], pick("a", "b")),
        (["metadata", "annotations", "example.com/lb"], pick("internal", "external")),
        (["spec", "type"], pick("ClusterIP", "NodePort")),
        (["spec", "ports"], ports),
        (["spec", "selector"], pick({"app": "dns"}, {"app": "dns", "tier": "edge"})),
        (["spec", "sessionAffinity"], pick("None", "ClientIP")),
        (["spec", "externalIPs"], pick(["10.0.0.1"], ["10.0.0.1", "10.0.0.2"])),
        (["spec", "publishNotReadyAddresses"], pick(True, False)),
    ]


def configmap_slots():
    slots = [(["data", k], pick("1", "2", "x=y\n", "", "été   \"q\" <&>"))
             for k in ["a", "b", "c.conf", "D", "e-f", "g_h", "k\"quote", "back\\slash", "ключ", ""]]
    slots += [
        (["binaryData", "blob"], pick("AAE=", "AgM=")),
        (["metadata", "labels", "app"], pick("cfg")),
        (["metadata", "labels", "app.kubernetes.io/part-of"], pick("x", "y")),
        (["metadata", "annotations", "checksum"], pick("abc", "def")),
        (["metadata", "finalizers"], subset(["example.com/keep", "example.com/audit"])),
        (["immutable"], pick(False)),
    ]
    return slots


def widget_slots():
    s = ["spec"]

    def member(n):
        def g(r):
            m = {"name": n, "role": r.choice(["dev", "owner"])}
            if r.random() < 0.5:
                m["weight"] = r.choice([1, 2])
            if r.random() < 0.3:
                m["labels"] = {"x": r.choice(["1", "2"])}
            return m
        return g

    endpoints = port_subset([{"port": 53, "protocol": "TCP", "name": "dns-tcp"}, {"port": 53, "protocol": "UDP", "name": "dns"},
                             {"port": 53, "protocol": "UDP", "name": "dns", "targetPort": 5353}, {"port": 80, "protocol": "TCP"}])

    return [
        (s + ["replicas"], pick(1, 2, 3)),
        (s + ["size"], pick("small", "large")),
        (s + ["ratio"], pick(0.5, 0.75, 1.25, 1e-7, 2.5e+21)),
        (s + ["enabled"], pick(True, False)),
        (s + ["members", C("alice")], member("alice")),
        (s + ["members", C("bob")], member("bob")),
        (s + ["members", C("carol")], member("carol")),
        (s + ["endpoints"], endpoints),
        (s + ["tags"], subset(["blue", "fast", "green"])),
        (s + ["sizes"], subset([1, 2, 3])),
        (s + ["args"], pick(["--a"], ["--a", "--b"])),
        (s + ["steps"], pick([{"name": "build", "run": "make"}], [{"name": "build", "run": "make"}, {"name": "test"}])),
        (s + ["settings", "color"], pick("blue", "red")),
        (s + ["settings", "shape"], pick("round")),
        (s + ["selector"], pick({"app": "w"}, {"app": "w", "zone": "a"})),
        (s + ["config", "mode"], pick("auto", "manual")),
        (s + ["config", "limits", "cpu"], pick("1", "2")),
        (s + ["config", "limits", "memory"], pick("1Gi")),
        (s + ["template"], pick({"image": "w", "tag": "1"}, {"image": "w", "tag": "2"})),
        (s + ["extra"], pick({"a": 1}, {"a": {"b": [1, 2]}}, {"c": True})),
        (["metadata", "labels", "app"], pick("w")),
        (["metadata", "annotations", "note"], pick("n1", "n2")),
    ]


KINDS = {
    "deploy": ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"}},
               deployment_slots(), ""),
    "svc": ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "dns", "namespace": "default"}},
            service_slots(), ""),
    "cm": ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "default"}},
           configmap_slots(), ""),
    "widget": ({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"}},
               widget_slots(), "widgets"),
}
KIND_WEIGHTS = [("deploy", 40), ("svc", 20), ("cm", 15), ("widget", 25)]


# ------------------------------------------------------------------ chains

class Chain:
    def __init__(self, r, idx, kinds):
        self.r = r
        self.id = idx
        self.kind = r.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        self.skel, self.slots, self.schema = KINDS[self.kind]
        self.steps = r.randint(3, 9)
        self.live = None
        self.last = {}  # applier -> its last configuration (slot index -> value)
        self.pending = None

    def config_of(self, chosen):
        c = copy.deepcopy(self.skel)
        for i in sorted(chosen):
            setp(c, self.slots[i][0], chosen[i])
        if self.r.random() < 0.2:
            self.shuffle_list(c)
        return c

    def shuffle_list(self, obj):
        """Reorders one associative list (item order is the applier's)."""
        cands = []
        self.assoc_lists(obj, [], cands)
        if cands:
            lst = getp(obj, self.r.choice(cands))
            self.r.shuffle(lst)

    def drift(self, prev):
        r = self.r
        n = len(self.slots)
        if prev is None:
            k = r.randint(1, max(2, n // 2))
            return {i: self.slots[i][1](r) for i in r.sample(range(n), k)}
        if r.random() < 0.15:
            return dict(prev)  # the same configuration again
        out = {}
        for i, v in prev.items():
            x = r.random()
            if x < 0.12:
                continue  # dropped
            out[i] = self.slots[i][1](r) if x < 0.3 else v
        for _ in range(r.randint(0, 3)):
            i = r.randrange(n)
            out[i] = self.slots[i][1](r)
        if out and r.random() < 0.03:
            out[r.choice(list(out))] = None  # an explicit null
        return out

    def next_step(self, sid):
        r = self.r
        tags = []
        if self.live is None and r.random() < 0.25:
            # created by a plain write (kubectl create, a controller's POST):
            # an update of nothing, whoever applies later
            config = self.config_of(self.drift(None))
            mgr = r.choice(CREATORS)
            case = {"id": sid, "live": None, "config": config, "manager": mgr, "force": False,
                    "op": "update"}
            self.pending = None
            return case, ["create"]
        if self.live is not None and r.random() < 0.08:
            return self.kubectl_step(sid)
        if self.live is None or r.random() < 0.6:
            mgr = r.choice(APPLIERS)
            chosen = self.drift(self.last.get(mgr))
            config = self.config_of(chosen)
            force = r.random() < 0.25
            x = r.random()
            if x < 0.01:
                mgr_sent = ""
            else:
                mgr_sent = mgr
            if 0.01 <= x < 0.03:
                config = self.invalid(config)
            case = {"id": sid, "live": copy.deepcopy(self.live), "config": config,
                    "manager": mgr_sent, "force": force, "op": "apply"}
            self.pending = (mgr, chosen)
        else:
            mgr = r.choice(UPDATERS)
            body = copy.deepcopy(self.live) if r.random() < 0.2 else without_managed(self.live)
            for _ in range(r.randint(1, 3)):
                self.edit(body)
            md = body.setdefault("metadata", {})
            x = r.random()
            if x < 0.03:
                md["managedFields"] = []  # resets the ownership
            elif x < 0.05 and len(md.get("managedFields") or []) > 1:
                md["managedFields"].pop(r.randrange(len(md["managedFields"])))  # its own entries
            elif x < 0.06 and md.get("managedFields"):
                md["managedFields"][0]["operation"] = "Bogus"  # undecodable: the live ones count
            if r.random() < 0.01 and self.duplicate_item(body):
                tags.append("dup-keys-update")
            case = {"id": sid, "live": copy.deepcopy(self.live), "config": body,
                    "manager": mgr, "force": False, "op": "update"}
            self.pending = None
        return case, tags

    def kubectl_step(self, sid):
        """kubectl's own server-side applies besides the configuration's:
        the ApplySet parent's (a PartialObjectMetadata by kubectl-applyset,
        creationTimestamp null, force on the retry after a conflict), or
        the migration's apply of the last-applied annotation alone as
        kubectl-last-applied."""
        r = self.r
        md = {"name": self.skel["metadata"]["name"],
              "namespace": self.skel["metadata"]["namespace"]}
        if r.random() < 0.6:
            md["creationTimestamp"] = None
            md["labels"] = {"applyset.kubernetes.io/id": r.choice(
                ["applyset-51uXdjs_k8zt9KVdAtPaWnW_O9B-EVzd2Bkztfa9DSA-v1", "applyset-x-v1"])}
            md["annotations"] = {
                "applyset.kubernetes.io/tooling": r.choice(["kubectl/v1.32.4", "kubectl/v1.31.0"]),
                "applyset.kubernetes.io/contains-group-kinds": r.choice(
                    ["", "ConfigMap", "ConfigMap,Deployment.apps"]),
                "applyset.kubernetes.io/additional-namespaces": r.choice(["", "ns1,ns2"])}
            mgr, force, tag = "kubectl-applyset", r.random() < 0.3, "applyset"
        else:
            ann = (((self.live or {}).get("metadata") or {}).get("annotations") or {}).get(
                "kubectl.kubernetes.io/last-applied-configuration")
            md["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration":
                                 ann if ann and r.random() < 0.7 else '{"kind":"%s"}\n' % self.skel["kind"]}
            mgr, force, tag = "kubectl-last-applied", False, "migration"
        config = {"apiVersion": self.skel["apiVersion"], "kind": self.skel["kind"], "metadata": md}
        self.pending = None
        return {"id": sid, "live": copy.deepcopy(self.live), "config": config, "manager": mgr,
                "force": force, "op": "apply"}, [tag]

    def invalid(self, config):
        r = self.r
        k = r.randrange(3)
        if k == 0 and self.kind == "deploy":
            config["spec"] = dict(config.get("spec") or {}, replicas="two")
        elif k == 1 and self.kind == "deploy":
            setp(config, ["spec", "template", "spec", "containers"], [{"name": "dup"}, {"name": "dup"}])
        elif k == 2 and self.kind == "widget":
            setp(config, ["spec", "members"], [{"role": "nameless"}])
        else:
            config.setdefault("metadata", {})["labels"] = ["not", "a", "map"]
        return config

    def edit(self, body):
        r = self.r
        x = r.random()
        if x < 0.45:
            i = r.randrange(len(self.slots))
            path, g = self.slots[i]
            setp(body, path, g(r))
        elif x < 0.65:
            present = [p for p, _ in self.slots if getp(body, p) is not None]
            if present:
                delp(body, r.choice(present))
        elif x < 0.9:
            leaves = []
            self.scalars(body, [], leaves)
            if leaves:
                p, v = r.choice(leaves)
                if isinstance(v, bool):
                    nv = not v
                elif isinstance(v, int):
                    nv = v + 1
                elif isinstance(v, float):
                    nv = v * 2
                else:
                    nv = v + "-e"
                setp(body, p, nv)
        elif x < 0.93:
            self.shuffle_list(body)
        elif x < 0.96:
            self.rename_item(body)
        elif self.kind == "widget":
            setp(body, ["status", "phase"], r.choice(["Ready", "Pending"]))
        else:
            setp(body, ["metadata", "annotations", "controller/seen"], str(r.randint(1, 3)))

    def scalars(self, v, path, out):
        if isinstance(v, dict):
            for k, x in v.items():
                if k in KEY_FIELDS or k in SERVER_FIELDS or (len(path) == 0 and k in ("apiVersion", "kind")):
                    continue
                if path == ["metadata"] and k == "namespace":
                    continue
                self.scalars(x, path + [k], out)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                if isinstance(x, dict) and any(k in x for k in KEY_FIELDS):
                    sel = {k: x[k] for k in x if k in KEY_FIELDS}
                    self.scalars(x, path + [sel], out)
                # items of atomic lists and sets are left alone (a set's
                # value is its key)
        elif v is not None:
            out.append((path, v))

    def rename_item(self, body):
        """Gives an item of an associative list another (unused) name."""
        cands = []
        self.assoc_lists(body, [], cands)
        cands = [p for p in cands if all("name" in x for x in getp(body, p))]
        if cands:
            lst = getp(body, self.r.choice(cands))
            names = {x["name"] for x in lst}
            new = next(n for n in ("Z", "renamed", "other-2", "x9") if n not in names)
            self.r.choice(lst)["name"] = new

    def duplicate_item(self, body):
        """Duplicates an item of an associative list (what a PUT may do)."""
        cands = []
        self.assoc_lists(body, [], cands)
        if not cands:
            return False
        lst = getp(body, self.r.choice(cands))
        lst.append(copy.deepcopy(lst[0]))
        return True

    def assoc_lists(self, v, path, out):
        if isinstance(v, dict):
            for k, x in v.items():
                if k not in ("managedFields",):
                    self.assoc_lists(x, path + [k], out)
        elif isinstance(v, list):
            if v and all(isinstance(x, dict) and any(k in x for k in KEY_FIELDS) for x in v):
                out.append(path)
                for x in v:
                    sel = {k: x[k] for k in x if k in KEY_FIELDS}
                    self.assoc_lists(x, path + [sel], out)

    def advance(self, answer):
        if answer.get("ok"):
            prev = self.live
            self.live = live_from(answer, prev)
            if self.pending:
                mgr, chosen = self.pending
                self.last[mgr] = chosen
        self.pending = None


class Persistent:
    """The oracle, started once per schema (loading the 4 MB document takes
    most of its time) and fed one batch per round; it answers line by line."""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def batch(self, cases, tmp, tag):
        data = "".join(line(c) + "\n" for c in cases).encode("utf-8")
        w = threading.Thread(target=self._write, args=(data,))
        w.start()
        out = [self.p.stdout.readline() for _ in cases]
        w.join()
        pout = os.path.join(tmp, tag + ".out")
        with open(pout, "wb") as f:
            f.writelines(out)
        return (0 if all(out) else 1), pout

    def _write(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        return self.p.wait()


def driver_ok(dlines, i):
    """Whether the driver's answer i accepted the request."""
    try:
        return bool(json.loads(dlines[i]).get("ok"))
    except (IndexError, TypeError, ValueError, AttributeError):
        return False


def run(argv, cases, tmp, tag):
    pin, pout = os.path.join(tmp, tag + ".in"), os.path.join(tmp, tag + ".out")
    with open(pin, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(line(c) + "\n")
    with open(pin, "rb") as fi, open(pout, "wb") as fo:
        st = subprocess.call(argv, stdin=fi, stdout=fo)
    return st, pout


def main():
    if len(sys.argv) != 7:
        raise SystemExit(__doc__)
    oracle, driver, check, shared, cases_dir, out_dir = sys.argv[1:]
    for what, p in (("oracle", oracle), ("driver", driver)):
        if not (os.path.isfile(p) and os.access(p, os.X_OK)):
            print("SKIP: no %s at %s" % (what, p))
            return 77
    kube = os.path.join(shared, KUBE_SWAGGER)
    if not os.path.isfile(kube):
        print("SKIP: %s not found (the shared reference data)" % kube)
        return 77
    count = int(os.environ.get("SSA_CHAINS_COUNT", "2000"))
    seed = int(os.environ.get("SSA_CHAINS_SEED", "1"))
    r = random.Random(seed)
    want = os.environ.get("SSA_CHAINS_KINDS", "deploy svc cm widget").split()
    kinds = [(k, w) for k, w in KIND_WEIGHTS if k in want]
    if not kinds:
        raise SystemExit("SSA_CHAINS_KINDS: none of deploy svc cm widget")
    chains = [Chain(random.Random(r.getrandbits(64)), i, kinds) for i in range(count)]
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        if f.endswith(".json"):
            os.remove(os.path.join(out_dir, f))

    tmp = tempfile.mkdtemp(prefix="ssa-chains.")
    with open(os.path.join(cases_dir, "schemas", "widgets.definitions.json"), encoding="utf-8") as f:
        widgets = merged_swagger(shared, json.load(f), os.path.join(tmp, "widgets-swagger.json"))
    programs = {"": (Persistent([oracle, "-swagger", kube]), [driver]),
                # a custom resource keeps its nulls for its CRD's rules
                # (docs/STORED.md), as SMD leaves them: -raw
                "widgets": (Persistent([oracle, "-swagger", widgets, "-raw"]),
                            [driver, "-swagger", widgets])}
    types = {}
    for schema, path in (("", kube), ("widgets", widgets)):
        with open(path, encoding="utf-8") as f:
            types[schema] = mergeorder.Types(json.load(f))

    stats = Counter()
    failures = []
    rnd = 0
    while True:
        active = [c for c in chains if c.steps > 0]
        if not active:
            break
        rnd += 1
        for schema, (orc, dargv) in programs.items():
            group = [c for c in active if c.schema == schema]
            if not group:
                continue
            cases, tags = [], []
            for c in group:
                case, t = c.next_step("c%d-s%d" % (c.id, rnd))
                cases.append(case)
                tags.append(t)
            st, oout = orc.batch(cases, tmp, "oracle")
            if st != 0:
                print("the oracle failed (exit %d) in round %d" % (st, rnd))
                return 1
            st, dout = run(dargv, cases, tmp, "driver")
            if st != 0:
                print("FAIL: the driver exited with status %d in round %d (%s schema)" % (st, rnd, schema or "built-in"))
                stats["driver failures"] += 1
            with open(oout, encoding="utf-8") as f:
                answers = [json.loads(l) for l in f if l.strip()]
            if len(answers) != len(cases):
                print("the oracle answered %d of %d cases" % (len(answers), len(cases)))
                return 1
            # The server's answer where SMD v4.4.2 orders a merged list
            # otherwise: the expectation, and the chain's next live object.
            for i, (case, ans) in enumerate(zip(cases, answers)):
                adj, why = mergeorder.server_answer(types[schema], case, ans)
                if adj:
                    answers[i] = adj
                    tags[i] += why
                if mergeorder.last_applied_conflicts(case, ans):
                    tags[i].append("last-applied-conflicts")
                if case["op"] == "apply" and case.get("live") and \
                        not (case["live"].get("metadata") or {}).get("managedFields"):
                    tags[i].append("before-first-apply")
            with open(oout, "w", encoding="utf-8") as f:
                f.writelines(line(a) + "\n" for a in answers)
            res = subprocess.run([check, "cmp", oout, dout], stdout=subprocess.PIPE, text=True)
            # one verdict per step: "id<TAB>agree|differ[<TAB>why]", where
            # why may go on over lines (a conflict's message)
            vlines = []
            for l in res.stdout.rstrip("\n").split("\n"):
                if l.startswith('"') or not vlines:
                    vlines.append(l)
                else:
                    vlines[-1] += "\n" + l
            verdicts = [l.split("\t", 2) for l in vlines if l]
            with open(dout, encoding="utf-8", errors="replace") as f:
                dlines = [l for l in f.read().split("\n") if l.strip()]
            for i, (c, case, t, ans) in enumerate(zip(group, cases, tags, answers)):
                v = verdicts[i] if i < len(verdicts) else ["?", "differ", "no answer from the driver"]
                stats["steps"] += 1
                stats[case["op"]] += 1
                if case["op"] == "update" and case["live"] is None:
                    stats["creates by a plain write"] += 1
                for x in ("applyset", "migration"):
                    if x in t:
                        stats[x + " steps"] += 1
                if case["op"] == "apply" and case["force"]:
                    stats["forced applies"] += 1
                if ans["ok"]:
                    stats["accepted"] += 1
                elif ans["conflicts"]:
                    stats["conflicts"] += 1
                else:
                    stats["rejected"] += 1
                if ans["ok"] and not ans.get("changed"):
                    stats["unchanged"] += 1
                for x in t:
                    if x in ADJUSTMENTS:
                        stats["adjusted: " + x] += 1
                excluded = [x for x in t if x in EXCLUSIONS]
                refused = excluded and excluded[0] in MUST_ACCEPT and not driver_ok(dlines, i)
                if excluded and not refused:
                    stats["excluded: " + excluded[0]] += 1
                elif v[1] == "agree" and not refused:
                    stats["agree"] += 1
                else:
                    stats["differ"] += 1
                    verdict = v[2] if len(v) > 2 else v[1]
                    if refused:
                        verdict = "the driver refused a step tagged %s, which it must accept" % excluded[0]
                    rec = {"verdict": verdict, "case": case, "oracle": ans,
                           "driver": dlines[i] if i < len(dlines) else None}
                    if "merge-order" in t:
                        rec["oracle_adjusted"] = "merge-order: the oracle's answer in SMD v4.4.2's list order"
                    for x in ("untracked-update", "last-applied-updated"):
                        if x in t:
                            rec["oracle_adjusted"] = x + ": " + ADJUSTMENTS[x]
                    try:
                        rec["driver"] = json.loads(rec["driver"])
                    except (TypeError, ValueError):
                        pass
                    failures.append(rec)
                    with open(os.path.join(out_dir, case["id"] + ".json"), "w", encoding="utf-8") as f:
                        json.dump(rec, f, indent=2, ensure_ascii=False)
                        f.write("\n")
                c.advance(ans)
                c.steps -= 1

    for orc, _ in programs.values():
        orc.close()
    kinds = Counter(c.kind for c in chains)
    print("%d chains (%s), %d steps in %d rounds, seed %d" % (
        count, ", ".join("%s %d" % kv for kv in sorted(kinds.items())), stats["steps"], rnd, seed))
    for k in ["apply", "update", "creates by a plain write", "applyset steps",
              "migration steps", "forced applies", "accepted", "unchanged", "conflicts",
              "rejected"]:
        print("  %-16s %d" % (k, stats[k]))
    print("  agree            %d" % stats["agree"])
    for k in sorted(stats):
        if k.startswith("excluded: "):
            print("  %s %d  (%s)" % (k, stats[k], EXCLUSIONS[k[10:]]))
    for k in sorted(stats):
        if k.startswith("adjusted: "):
            print("  %s %d  (compared, counted in agree/differ: %s)" % (k, stats[k], ADJUSTMENTS[k[10:]]))
    print("  differ           %d" % stats["differ"])
    for rec in failures[:15]:
        print("DIFFER %s (%s by %r): %s" % (rec["case"]["id"], rec["case"]["op"], rec["case"]["manager"], rec["verdict"][:400]))
    if failures:
        print("reproducers: %s/<step id>.json" % out_dir)
    # The generator must exercise what it claims to: a mix of outcomes.
    bad = []
    n = max(stats["steps"], 1)
    for k, lo in (("update", 0.2), ("conflicts", 0.03), ("rejected", 0.005), ("forced applies", 0.05),
                  ("unchanged", 0.03), ("creates by a plain write", 0.02),
                  ("applyset steps", 0.01), ("migration steps", 0.01)):
        if stats[k] / n < lo:
            bad.append("%s %.1f%% < %.1f%%" % (k, 100.0 * stats[k] / n, 100 * lo))
    if bad and count >= 200:
        print("FAIL: the chains are too uniform: " + ", ".join(bad))
        return 1
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)
    return 1 if failures or stats["driver failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
