#!/usr/bin/env python3
"""probe_legacy.py - the patch metadata of the legacy kinds, as kubectl knows it.

usage: probe_legacy.py SWAGGER GEN_TABLES_C OUTPUT   (kubectl on PATH)

The built-in tables give each legacy kind (an API version kubectl 1.32
compiles in but the OpenAPI document no longer serves: policy/v1beta1
PodDisruptionBudget, extensions/v1beta1 Deployment, ...; the `legacy[]`
table of gen_tables.c) the schema of the kind it became. Their patch
metadata did drift (policy/v1 marks spec.selector `replace`; policy/v1beta1
merges it). kubectl 1.32 carries the old Go types, so it is the reference:
for every field of the new schema that lies in the group's own types (core/v1
and apimachinery types are shared by every version and are not walked into),
this asks `kubectl patch --local --type strategic` at the OLD version what it
does with that field:

  list of objects   target [{zzk: t}], patch [{zzk: p}]: kubectl's error
                    "does not contain declared merge key: K" names the merge
                    key; two items after it: merge on K; one: replace.
  list of scalars   target [t], patch [p]: [t, p] merge, [p] replace.
  object or map     target {zz1: t}, patch {zz2: p}: both kept: merge; only
                    zz2: replace.

Fields are probed level by level (a field below a replaced list or object
does not matter), all fields of a level in one kubectl call. Where the answer
differs from the document's metadata for that field, OUTPUT (a C include,
read by gen_tables.c) gets a line {group, version, kind, path, strategy,
merge key}. retainKeys does not show in an applied patch (the $retainKeys
directive is obeyed whatever the schema), so the document's retainKeys bit
is kept as it is. Fields that only the old version has are not walked (the
document does not describe them); smpatch treats them as schema-less there.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SWAGGER, GEN_C, OUT = sys.argv[1:4]
defs = json.load(open(SWAGGER))["definitions"]


def legacy_table():
    src = open(GEN_C).read()
    body = src[src.index("} legacy[] = {"):]
    body = body[:body.index("};")]
    return re.findall(r'\{"([^"]*)", "([^"]*)", "([^"]*)", "([^"]*)"\}', body)


def find_def(group, version, kind):
    for name, t in defs.items():
        for x in t.get("x-kubernetes-group-version-kind", []):
            if (x["group"], x["version"], x["kind"]) == (group, version, kind):
                return name
    return None


def shared(name):
    return name.startswith("io.k8s.api.core.") or name.startswith("io.k8s.apimachinery.")


def resolve(prop):
    """(schema, definition name or None) of a property."""
    if "$ref" in prop:
        name = prop["$ref"].split("/")[-1]
        return defs[name], name
    if "allOf" in prop and prop["allOf"] and "$ref" in prop["allOf"][0]:
        name = prop["allOf"][0]["$ref"].split("/")[-1]
        return defs[name], name
    return prop, None


def shape(t):
    """'object' (properties), 'map', 'list', 'scalar'."""
    if "properties" in t:
        return "object"
    typ = t.get("type")
    if typ == "object":
        return "map"
    if typ == "array":
        return "list"
    return "scalar"


class Field:
    def __init__(self, path, prop, parent):
        self.path = path              # tuple of field names
        self.parent = parent          # Field or None
        self.prop = prop
        self.t, self.defname = resolve(prop)
        self.shape = shape(self.t)
        self.item = None
        if self.shape == "list":
            self.item, self.itemdef = resolve(self.t.get("items", {}))
            self.item_shape = shape(self.item)
        self.id = "f%d" % id(self)
        self.result = None            # ('merge', key|None) | ('replace',)
        self.key = None               # merge key learned from kubectl's error

    def doc_meta(self):
        strat = self.prop.get("x-kubernetes-patch-strategy", "")
        return strat, self.prop.get("x-kubernetes-patch-merge-key")


def children(f):
    """Fields below f that belong to the group's own types."""
    if f.shape == "object":
        t, defname = f.t, f.defname
    elif f.shape == "list" and f.item_shape == "object":
        t, defname = f.item, f.itemdef
    else:
        return []
    if defname and shared(defname):
        return []
    out = []
    for name, prop in sorted(t.get("properties", {}).items()):
        c = Field(f.path + (name,), prop, f if f.path else None)
        if c.shape != "scalar" and len(c.path) < 12:
            out.append(c)
    return out


def probe_value(f, side):
    tag = "%s-%s" % (side, f.id)
    if f.shape == "list":
        if f.item_shape == "object":
            item = {"zzk": tag}
            if f.key:
                item[f.key] = tag
            return [item]
        typ = f.item.get("type")
        if typ == "integer" or typ == "number":
            return [1 if side == "t" else 2]
        if typ == "boolean":
            return [side == "t"]
        return [tag]
    return {("zz1" if side == "t" else "zz2"): tag}


def ancestors(f):
    """The fields above f, outermost first."""
    chain = []
    a = f.parent
    while a is not None:
        chain.append(a)
        a = a.parent
    chain.reverse()
    return chain


def put(doc, f, value):
    """Puts value at f's path in doc; list ancestors get one item whose merge
    key has the same value in target and patch, so they merge."""
    cur = doc
    for a in ancestors(f):
        name = a.path[-1]
        if a.shape == "list":
            if name not in cur:
                cur[name] = [{a.key: "same"}]
            cur = cur[name][0]
        else:
            cur = cur.setdefault(name, {})
    cur[f.path[-1]] = value


def get(doc, f):
    cur = doc
    for a in ancestors(f):
        cur = cur.get(a.path[-1])
        if isinstance(cur, list):
            cur = next(i for i in cur if i.get(a.key) == "same")
    return cur.get(f.path[-1])


def kubectl(api_version, kind, target, patch, tmp):
    obj = {"apiVersion": api_version, "kind": kind,
           "metadata": {"name": "probe", "namespace": "default"}}
    obj.update(target)
    path = os.path.join(tmp, "target.json")
    with open(path, "w") as fh:
        json.dump(obj, fh)
    r = subprocess.run(["kubectl", "patch", "--local", "-f", path, "--type", "strategic",
                        "-p", json.dumps(patch), "-o", "json"],
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def probe_level(api_version, kind, fields, tmp, absent):
    """Sets .result of every field (all in one call, again after each merge key
    kubectl names)."""
    by_id = {f.id: f for f in fields}
    fields = list(fields)
    while True:
        target, patch = {}, {}
        for f in fields:
            put(target, f, probe_value(f, "t"))
            put(patch, f, probe_value(f, "p"))
        rc, out, err = kubectl(api_version, kind, target, patch, tmp)
        if rc == 0:
            break
        m = re.search(r'unable to find api field in struct \w+ for the json field "([^"]+)"', err)
        if m:
            # A field only the new version has (SubjectAccessReviewSpec.groups
            # was .group in v1beta1): kubectl rejects it; not probed.
            gone = [f for f in fields if f.path[-1] == m.group(1)]
            if not gone:
                sys.exit("probe_legacy: %s %s: kubectl failed: %s" % (api_version, kind, err.strip()))
            for f in gone:
                f.result = ("absent",)
                fields.remove(f)
            absent.extend(gone)
            if not fields:
                return
            continue
        m = re.search(r"map\[(.*?)\] does not contain declared merge key: (\S+)", err)
        ids = re.findall(r"[tp]-(f\d+)", m.group(1)) if m else []
        if not ids or by_id[ids[0]].key:
            sys.exit("probe_legacy: %s %s: kubectl failed: %s" % (api_version, kind, err.strip()))
        by_id[ids[0]].key = m.group(2)
    res = json.loads(out)
    for f in fields:
        v = get(res, f)
        if f.shape == "list":
            if len(v) == 2:
                f.result = ("merge", f.key)
            elif len(v) == 1:
                f.result = ("replace",)
            else:
                sys.exit("probe_legacy: %s %s %s: unexpected %r" % (api_version, kind,
                                                                     ".".join(f.path), v))
        else:
            f.result = ("merge", None) if "zz1" in v else ("replace",)


def expected(f):
    """The document's metadata in probe_level's terms."""
    strat, key = f.doc_meta()
    parts = set(strat.split(",")) if strat else set()
    if f.shape == "list":
        if "merge" in parts:
            return ("merge", key if f.item_shape == "object" else None)
        return ("replace",)
    return ("replace",) if "replace" in parts else ("merge", None)


def main():
    lines, gone = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for group, version, kind, target in legacy_table():
            tg, tv = target.split("/") if "/" in target else ("", target)
            root = find_def(tg, tv, kind)
            if root is None:
                sys.exit("probe_legacy: no %s %s in the document" % (target, kind))
            top = Field((), {"$ref": "#/definitions/" + root}, None)
            level = [c for c in children(top) if c.path[0] not in ("metadata",)]
            av = group + "/" + version
            while level:
                absent = []
                probe_level(av, kind, level, tmp, absent)
                for f in absent:
                    gone.append("%s %s %s" % (av, kind, ".".join(f.path)))
                nxt = []
                for f in level:
                    if f.result == ("absent",):
                        continue
                    if os.environ.get("PROBE_DEBUG"):  # every answer, on stderr
                        print(av, kind, ".".join(f.path), f.result, expected(f), file=sys.stderr)
                    if f.result != expected(f):
                        strat, _ = f.doc_meta()
                        keep = ["retainKeys"] if "retainKeys" in strat else []
                        s = ["merge"] if f.result[0] == "merge" and f.shape == "list" else []
                        if f.result[0] == "replace" and f.shape != "list":
                            s = ["replace"]
                        lines.append((group, version, kind, ".".join(f.path),
                                      ",".join(s + keep),
                                      f.result[1] if f.result[0] == "merge" else None))
                    below = f.result[0] == "merge" and (f.shape != "list" or f.key)
                    if below:
                        nxt.extend(children(f))
                level = nxt
            print("probe_legacy: %s %s done" % (av, kind), file=sys.stderr)
    ver = subprocess.run(["kubectl", "version", "--client", "-o", "json"],
                         capture_output=True, text=True).stdout
    kver = json.loads(ver)["clientVersion"]["gitVersion"] if ver else "?"
    with open(OUT, "w") as fh:
        fh.write("/* Generated by schema/probe_legacy.py from kubectl %s (`kubectl patch\n"
                 " * --local` at each legacy version) and %s: the fields whose patch\n"
                 " * metadata differs from the document's. Do not edit; rerun it.\n"
                 " * {group, version, kind, path, strategy, merge key} */\n"
                 % (re.sub(r"-.*", "", kver), os.path.basename(SWAGGER)))
        for g in gone:
            fh.write("/* not in the old version (kubectl rejects a list or object there): %s */\n"
                     % g)
        for g, v, k, p, s, key in sorted(lines):
            fh.write('{"%s", "%s", "%s", "%s", "%s", %s},\n'
                     % (g, v, k, p, s, '"%s"' % key if key else "NULL"))


main()
