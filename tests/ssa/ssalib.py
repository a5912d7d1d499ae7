"""ssalib.py - shared helpers of the server-side apply test scripts
(gen_golden.py, chains.py): the oracle and driver processes, the live-object
bookkeeping a chain of requests needs, paths into configurations, and the
conversion of a CustomResourceDefinition to the OpenAPI v2 definition the
API server publishes for it.
"""
import copy
import json
import os
import subprocess

KUBE_SWAGGER = "openapi/kubernetes-1.36.swagger.json"
OBJECT_META = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def dumps(v):
    """The golden file format (ssa_check.c writes the same bytes)."""
    return json.dumps(v, indent=2, ensure_ascii=False) + "\n"


def line(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


# ------------------------------------------------------------------ processes

class Program:
    """An oracle-format program driven one line at a time (the oracle
    flushes each answer), or in batches."""

    def __init__(self, argv):
        self.argv = argv
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, encoding="utf-8", bufsize=1)

    def ask(self, case):
        self.p.stdin.write(line(case) + "\n")
        self.p.stdin.flush()
        out = self.p.stdout.readline()
        if not out:
            raise RuntimeError("%s stopped answering" % self.argv[0])
        return json.loads(out)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def run_batch(argv, cases, path_in, path_out):
    """Writes cases as JSON Lines to path_in, runs argv < path_in > path_out;
    returns (exit status, the output's non-empty lines)."""
    with open(path_in, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(line(c) + "\n")
    with open(path_in, "rb") as fi, open(path_out, "wb") as fo:
        st = subprocess.call(argv, stdin=fi, stdout=fo)
    raw = []
    with open(path_out, encoding="utf-8", errors="replace") as f:
        raw = [l for l in f.read().split("\n") if l.strip()]
    return st, raw


# ------------------------------------------------------------------ live objects

SERVER_META = {"uid": "5f0e1d2c-3b4a-4958-8776-a5b4c3d2e1f0",
               "creationTimestamp": "2024-01-01T00:00:00Z", "generation": 1}


def live_from(result, prev_live):
    """The stored object after an accepted request: the answer's object with
    its managedFields, plus what the API server adds (uid, creation time,
    resourceVersion: never owned)."""
    obj = copy.deepcopy(result["object"])
    md = obj.setdefault("metadata", {})
    if prev_live is None:
        for k, v in SERVER_META.items():
            md.setdefault(k, v)
        md["resourceVersion"] = "1000"
    elif result.get("changed"):
        rv = int((prev_live.get("metadata") or {}).get("resourceVersion", "1000"))
        md["resourceVersion"] = str(rv + 1)
    if result["managedFields"]:
        md["managedFields"] = copy.deepcopy(result["managedFields"])
    else:
        md.pop("managedFields", None)
    return obj


def without_managed(obj):
    o = copy.deepcopy(obj)
    (o.get("metadata") or {}).pop("managedFields", None)
    return o


# ------------------------------------------------------------------ paths

def _match(item, sel):
    return isinstance(item, dict) and all(item.get(k) == v for k, v in sel.items())


def getp(obj, path):
    cur = obj
    for step in path:
        if isinstance(step, dict):
            cur = next((x for x in cur if _match(x, step)), None)
        elif isinstance(step, int):
            cur = cur[step]
        else:
            cur = cur.get(step) if isinstance(cur, dict) else None
        if cur is None:
            return None
    return cur


def setp(obj, path, value):
    cur = obj
    for i, step in enumerate(path):
        last = i == len(path) - 1
        if isinstance(step, dict):
            item = next((x for x in cur if _match(x, step)), None)
            if last:
                if item is None:
                    cur.append(copy.deepcopy(value))
                else:
                    cur[cur.index(item)] = copy.deepcopy(value)
                return
            if item is None:
                item = dict(step)
                cur.append(item)
            cur = item
        elif isinstance(step, int):
            if last:
                cur[step] = copy.deepcopy(value)
                return
            cur = cur[step]
        else:
            if last:
                cur[step] = copy.deepcopy(value)
                return
            nxt = path[i + 1]
            if step not in cur or cur[step] is None:
                cur[step] = [] if isinstance(nxt, dict) else {}
            cur = cur[step]


def delp(obj, path):
    parent = getp(obj, path[:-1]) if len(path) > 1 else obj
    step = path[-1]
    if isinstance(step, dict):
        item = next((x for x in parent if _match(x, step)), None)
        parent.remove(item)
    else:
        del parent[step]


def skeleton(obj):
    """apiVersion, kind, metadata.name/namespace of obj: the smallest valid
    applied configuration."""
    md = {"name": obj["metadata"]["name"]}
    if "namespace" in obj["metadata"]:
        md["namespace"] = obj["metadata"]["namespace"]
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": md}


def partial(obj, path, value, *more):
    """A configuration holding only path = value (and further path, value
    pairs); list items on the way carry the selector's fields, which are
    their keys."""
    c = skeleton(obj)
    setp(c, path, value)
    for i in range(0, len(more), 2):
        setp(c, more[i], more[i + 1])
    return c


# ------------------------------------------------------------------ CRDs

def _v2_schema(s):
    """An openAPIV3Schema node as the API server publishes it in OpenAPI v2:
    `nullable` and value validations that v2 cannot hold are dropped; the
    x-kubernetes-* extensions SSA reads are kept."""
    if isinstance(s, dict):
        out = {}
        for k, v in s.items():
            if k in ("nullable", "x-kubernetes-validations", "oneOf", "anyOf", "not"):
                continue
            if k in ("properties",):
                out[k] = {pk: _v2_schema(pv) for pk, pv in v.items()}
            elif k in ("items", "additionalProperties") and isinstance(v, dict):
                out[k] = _v2_schema(v)
            else:
                out[k] = copy.deepcopy(v)
        return out
    return s


def crd_definitions(crd):
    """The OpenAPI v2 definitions the API server publishes for a
    CustomResourceDefinition (apiextensions-apiserver's openapi builder):
    one per served version, named by the reversed group, version and kind,
    with apiVersion and kind strings, metadata as ObjectMeta and
    x-kubernetes-group-version-kind."""
    spec = crd["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    rev = ".".join(reversed(group.split(".")))
    defs = {}
    for ver in spec["versions"]:
        if not ver.get("served", True):
            continue
        s = _v2_schema(ver["schema"]["openAPIV3Schema"])
        props = s.setdefault("properties", {})
        props["apiVersion"] = {"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."}
        props["kind"] = {"type": "string", "description": "Kind is a string value representing the REST resource this object represents."}
        props["metadata"] = {"$ref": OBJECT_META}
        s["type"] = "object"
        s["x-kubernetes-group-version-kind"] = [{"group": group, "kind": kind, "version": ver["name"]}]
        defs["%s.%s.%s" % (rev, ver["name"], kind)] = s
    return defs


def merged_swagger(shared, definitions, out_path):
    """Writes the Kubernetes document plus extra definitions to out_path."""
    with open(os.path.join(shared, KUBE_SWAGGER), encoding="utf-8") as f:
        sw = json.load(f)
    for k, v in definitions.items():
        if k in sw["definitions"]:
            raise ValueError("%s is already a Kubernetes definition" % k)
        sw["definitions"][k] = v
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(sw, f, separators=(",", ":"))
    return out_path
