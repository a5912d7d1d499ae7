#!/usr/bin/env python3
"""fakeapi.py - a minimal Kubernetes API server on 127.0.0.1 for exploring
what `kubectl apply` sends (exploratory; not run by ctest).

usage: fakeapi.py PORT STATE_DIR
STATE_DIR/live.json is the live object returned by GET (404 when the file is
absent); every PATCH/POST body is written to STATE_DIR/request.json with its
content type in STATE_DIR/request.type. Discovery covers a few built-in
kinds and example.com/v1 widgets. Serves until killed; loopback only.
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

PORT = int(sys.argv[1])
STATE = sys.argv[2]

RES = {
    # group/version -> [(resource, kind, namespaced)]
    "v1": [("configmaps", "ConfigMap", True), ("services", "Service", True), ("pods", "Pod", True),
           ("secrets", "Secret", True), ("serviceaccounts", "ServiceAccount", True),
           ("namespaces", "Namespace", False), ("nodes", "Node", False),
           ("persistentvolumeclaims", "PersistentVolumeClaim", True),
           ("endpoints", "Endpoints", True), ("persistentvolumes", "PersistentVolume", False),
           ("replicationcontrollers", "ReplicationController", True)],
    "apps/v1": [("deployments", "Deployment", True), ("daemonsets", "DaemonSet", True),
                ("statefulsets", "StatefulSet", True), ("replicasets", "ReplicaSet", True)],
    "batch/v1": [("jobs", "Job", True), ("cronjobs", "CronJob", True)],
    "policy/v1": [("poddisruptionbudgets", "PodDisruptionBudget", True)],
    "networking.k8s.io/v1": [("ingresses", "Ingress", True), ("networkpolicies", "NetworkPolicy", True)],
    "rbac.authorization.k8s.io/v1": [("roles", "Role", True), ("clusterroles", "ClusterRole", False)],
    "autoscaling/v2": [("horizontalpodautoscalers", "HorizontalPodAutoscaler", True)],
    "example.com/v1": [("widgets", "Widget", True)],
    "apiextensions.k8s.io/v1": [("customresourcedefinitions", "CustomResourceDefinition", False)],
    "apiregistration.k8s.io/v1": [("apiservices", "APIService", False)],
    "extensions/v1beta1": [("deployments", "Deployment", True), ("ingresses", "Ingress", True)],
    "batch/v1beta1": [("cronjobs", "CronJob", True)],
}
VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"]


def resource_list(gv):
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
            "resources": [{"name": r, "singularName": "", "namespaced": ns, "kind": k, "verbs": VERBS}
                          for r, k, ns in RES[gv]]}


def group_list():
    groups = {}
    for gv in RES:
        if "/" in gv:
            g, v = gv.split("/")
            groups.setdefault(g, []).append(v)
    return {"kind": "APIGroupList", "apiVersion": "v1",
            "groups": [{"name": g, "versions": [{"groupVersion": g + "/" + v, "version": v} for v in vs],
                        "preferredVersion": {"groupVersion": g + "/" + vs[0], "version": vs[0]}}
                       for g, vs in groups.items()]}


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        if os.environ.get("FAKEAPI_LOG"):
            sys.stderr.write("%s %s\n" % (self.command, self.path))

    def send(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def not_found(self):
        self.send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                        "reason": "NotFound", "code": 404, "message": "not found"})

    def live(self):
        p = os.path.join(STATE, "live.json")
        if not os.path.exists(p):
            return None
        with open(p) as f:
            return json.load(f)

    def objects(self):
        p = os.path.join(STATE, "objects.json")
        if not os.path.exists(p):
            return None
        with open(p) as f:
            return json.load(f)

    def resolve(self, path):
        """path -> (gv, resource, namespace, name) or None"""
        parts = path.strip("/").split("/")
        if parts[0] == "api":
            gv, rest = parts[1], parts[2:]
        elif parts[0] == "apis" and len(parts) >= 3:
            gv, rest = parts[1] + "/" + parts[2], parts[3:]
        else:
            return None
        ns = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            ns, rest = rest[1], rest[2:]
        if not rest:
            return None
        return gv, rest[0], ns, rest[1] if len(rest) > 1 else None

    def kind_of(self, gv, res):
        for r, k, nsd in RES.get(gv, []):
            if r == res:
                return k
        return None

    def do_DELETE(self):
        with open(os.path.join(STATE, "deleted.log"), "a") as f:
            f.write(self.path.split("?")[0] + "\n")
        return self.send(200, {"kind": "Status", "apiVersion": "v1", "status": "Success"})

    def serve_objects(self, path, objs):
        from urllib.parse import urlparse, parse_qs
        q = parse_qs(urlparse(self.path).query)
        r = self.resolve(path)
        if not r:
            return self.not_found()
        gv, res, ns, name = r
        kind = self.kind_of(gv, res)
        sel = q.get("labelSelector", [""])[0]
        match = []
        for o in objs:
            if o.get("apiVersion") != gv or o.get("kind") != kind:
                continue
            if ns is not None and o["metadata"].get("namespace") != ns:
                continue
            if name is not None:
                if o["metadata"]["name"] == name:
                    return self.send(200, o)
                continue
            labels = o["metadata"].get("labels") or {}
            ok = True
            for term in [t for t in sel.split(",") if t]:
                if term.startswith("!"):
                    ok = ok and term[1:] not in labels
                elif "!=" in term:
                    k, v = term.split("!=", 1)
                    ok = ok and labels.get(k) != v
                elif "=" in term:
                    k, v = term.split("=", 1)
                    k = k.rstrip("=")
                    ok = ok and labels.get(k) == v.lstrip("=")
                else:
                    ok = ok and term in labels
            if ok:
                match.append(o)
        if name is not None:
            return self.not_found()
        return self.send(200, {"kind": kind + "List", "apiVersion": gv,
                               "metadata": {"resourceVersion": "1"}, "items": match})

    def do_GET(self):
        path = self.path.split("?")[0].rstrip("/")
        if path == "/api":
            return self.send(200, {"kind": "APIVersions", "versions": ["v1"],
                                   "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]})
        if path == "/apis":
            return self.send(200, group_list())
        if path == "/api/v1":
            return self.send(200, resource_list("v1"))
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == "apis" and parts[2] + "/" + parts[3] in RES:
            return self.send(200, resource_list(parts[2] + "/" + parts[3]))
        if path.startswith("/version"):
            return self.send(200, {"major": "1", "minor": "32", "gitVersion": "v1.32.0"})
        if path.startswith("/openapi"):
            return self.not_found()
        objs = self.objects()
        if objs is not None:
            return self.serve_objects(path, objs)
        obj = self.live()
        if obj is not None and path.endswith("/" + obj["metadata"]["name"]):
            return self.send(200, obj)
        return self.not_found()

    def record(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with open(os.path.join(STATE, "request.json"), "wb") as f:
            f.write(body)
        with open(os.path.join(STATE, "request.type"), "w") as f:
            f.write(self.command + " " + self.headers.get("Content-Type", "") + "\n")
        with open(os.path.join(STATE, "requests.log"), "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path.split("?")[0],
                                "type": self.headers.get("Content-Type", "").split(";")[0],
                                "body": json.loads(body) if body else None}) + "\n")
        return body

    def do_PATCH(self):
        self.record()
        objs = self.objects()
        if objs is not None:
            return self.serve_objects(self.path.split("?")[0].rstrip("/"), objs)
        obj = self.live()
        return self.send(200, obj if obj else {})

    def do_POST(self):
        body = self.record()
        return self.send(201, json.loads(body))

    def do_PUT(self):
        self.do_POST()


HTTPServer(("127.0.0.1", PORT), H).serve_forever()
