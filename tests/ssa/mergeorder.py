#!/usr/bin/env python3
"""mergeorder.py - the one documented order difference between the reference
oracle (structured-merge-diff v4.1.2) and the API server (SMD v4.4.2 in
Kubernetes 1.32, the same code in v6) in a server-side apply: the order of
the items of a merged associative list (list-type map or set).

v4.1.2 keeps the live object's items in their order and puts the applied
configuration's new items last. v4.4.2 walks both lists side by side: the
items only the live object has keep their order and come as the walk
reaches them, the configuration's items come in the configuration's order
(typed/merge.go, visitListItems). Only
the order differs: the items themselves and every field set are the same;
and since an apply that changes nothing gets no new time (SMD compares the
objects in order), a reorder that is the only change gives the applier's
entry a new time under v4.4.2 and none under v4.1.2.

adjust() computes the server's answer from the oracle's: the lists that
v4.4.2 orders differently are put in its order (items found by their keys,
as SMD does: the kind's OpenAPI schema read the way schemaconv reads it),
and the time as above. Nothing else changes; the engine's answer is then
compared with it exactly. chains.py does this for every accepted apply of
the differential test; the golden cases keep the oracle's expected.json and,
where v4.4.2's order differs, get the adjusted answer beside it
(expected-smd-v4.4.2.json, which ssa_check compares with instead):

    mergeorder.py golden CASES_DIR SHARED_DIR   checks those files (ctest
        ssa.merge_order); with SMP_UPDATE_GOLDEN=1 it rewrites them.
    mergeorder.py answers REQUESTS ANSWERS SHARED_DIR   prints the server's
        answers (JSON Lines) to the oracle's ANSWERS of the requests in
        REQUESTS (bench/ssa.sh compares smpatch's with them).

docs/DIFFERENCES.md ("Server-side apply") lists the difference. The
model's order was checked against SMD v4.4.2 itself (random lists, a Go
program built from the module; not part of the tests).
"""
import copy
import decimal
import json
import re
import os
import sys
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssalib import KUBE_SWAGGER, dumps  # noqa: E402

DERIVED = "expected-smd-v4.4.2.json"
# The oracle's clock (its -time default) and the key defaults it patches
# in, as the server's models have them (the oracle's README).
BASE_TIME = "2024-01-01T00:00:00Z"
KEY_DEFAULTS = {"io.k8s.api.core.v1.ContainerPort": {"protocol": "TCP"},
                "io.k8s.api.core.v1.ServicePort": {"protocol": "TCP"}}
REASON = ("the items of a merged associative list (list-type map or set): SMD v4.4.2 "
          "(Kubernetes >= 1.27) orders them as the configuration does, v4.1.2 (the oracle) "
          "keeps the live order and puts new items last; compared with the oracle's answer "
          "put in v4.4.2's order")


# ------------------------------------------------------------------ schema

class Types:
    """The kinds' schemas of one OpenAPI v2 document."""

    def __init__(self, swagger):
        self.defs = swagger["definitions"]
        self.kinds = {}
        for name, d in self.defs.items():
            gvks = d.get("x-kubernetes-group-version-kind") or []
            if len(gvks) == 1:
                g = gvks[0]
                av = "%s/%s" % (g["group"], g["version"]) if g["group"] else g["version"]
                self.kinds[(av, g["kind"])] = name

    def resolve(self, node, name=None):
        """(schema node, definition name) behind $refs."""
        while isinstance(node, dict) and "$ref" in node:
            name = node["$ref"].split("/")[-1]
            node = self.defs.get(name)
        return node, name

    def root(self, obj):
        if not isinstance(obj, dict):
            return None, None
        name = self.kinds.get((obj.get("apiVersion"), obj.get("kind")))
        return (self.defs[name], name) if name else (None, None)


def list_keys(node):
    """None for an atomic list, [] for a set, the key fields of a
    list-type map (schemaconv: the list-type, else the patch strategy)."""
    lt = node.get("x-kubernetes-list-type")
    if lt == "atomic":
        return None
    if lt == "set":
        return []
    if lt == "map":
        return list(node.get("x-kubernetes-list-map-keys") or [])
    if "merge" in (node.get("x-kubernetes-patch-strategy") or "").split(","):
        k = node.get("x-kubernetes-patch-merge-key")
        return [k] if k else []
    return None


def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def item_pe(item, keys, defaults):
    """SMD's path element of a list item (hashable), or None."""
    if not keys:
        return None if isinstance(item, (dict, list)) or item is None else ("v", canon(item))
    if not isinstance(item, dict):
        return None
    kv = []
    for k in sorted(keys):
        if k in item:
            kv.append((k, canon(item[k])))
        elif k in defaults:
            kv.append((k, canon(defaults[k])))
        else:
            return None
    return ("k", tuple(kv))


# ------------------------------------------------------------------ orders

def order_v41(lpes, rpes):
    """v4.1.2: the live items, then the configuration's new ones."""
    seen = set(lpes)
    return list(lpes) + [p for p in rpes if p not in seen]


def order_v442(lpes, rpes):
    """v4.4.2's visitListItems (typed/merge.go), its loop as it is: the
    merged items' path elements in order (live duplicates as SMD keeps
    them)."""
    lset, rset = set(lpes), set(rpes)
    shared = iter([p for p in rpes if p in lset])
    nxt = next(shared, None)
    merged, out = set(), []
    li, ri, ln, rn = 0, 0, len(lpes), len(rpes)
    while li < ln or ri < rn:
        if li < ln and ri < rn:
            pe = lpes[li]
            if pe == rpes[ri]:
                merged.add(pe)
                out.append(pe)
                li, ri = li + 1, ri + 1
                nxt = next(shared, None)
                continue
            if pe in rset and nxt is not None and nxt != pe:
                li += 1
                continue
        if li < ln:
            pe = lpes[li]
            if pe not in rset:
                out.append(pe)
                li += 1
                continue
            if pe in merged:
                li += 1
        if ri < rn:
            pe = rpes[ri]
            merged.add(pe)
            out.append(pe)
            ri += 1
            if nxt == pe:
                nxt = next(shared, None)
    return out


# ------------------------------------------------------------------ the walk

def _reorder(types, node, name, live, cfg, ans, paths, path):
    """Puts the lists of ans (the merge of live and cfg, pruned) that v4.4.2
    orders otherwise in its order; appends their paths to `paths`."""
    node, name = types.resolve(node, name)
    if not isinstance(node, dict):
        node = {}  # untyped: maps granular, lists atomic
    if isinstance(live, dict) and isinstance(cfg, dict) and isinstance(ans, dict):
        if node.get("x-kubernetes-map-type") == "atomic":
            return
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        for k in cfg:
            if k in live and k in ans:
                sub = props.get(k, extra if isinstance(extra, dict) else None)
                _reorder(types, sub, None, live[k], cfg[k], ans[k], paths, path + [k])
        return
    if not (isinstance(live, list) and isinstance(cfg, list) and isinstance(ans, list)):
        return
    keys = list_keys(node)
    if keys is None:
        return
    inode, iname = types.resolve(node.get("items") or {})
    defaults = KEY_DEFAULTS.get(iname, {})
    lpes = [item_pe(x, keys, defaults) for x in live]
    rpes = [item_pe(x, keys, defaults) for x in cfg]
    apes = [item_pe(x, keys, defaults) for x in ans]
    if None in lpes or None in rpes or None in apes or len(set(apes)) != len(apes):
        return  # not what an accepted apply leaves: compared as the oracle answers
    pos = {}
    for i, pe in enumerate(order_v442(lpes, rpes)):
        pos.setdefault(pe, i)
    if any(pe not in pos for pe in apes):
        return
    at = dict(zip(apes, ans))
    want = sorted(apes, key=lambda pe: pos[pe])
    if want != apes:
        ans[:] = [at[pe] for pe in want]
        paths.append(path)
    if len(set(lpes)) != len(lpes):
        return
    lat, rat = dict(zip(lpes, live)), dict(zip(rpes, cfg))
    for pe in apes:
        if pe in lat and pe in rat:
            step = {k: json.loads(v) for k, v in pe[1]} if pe[0] == "k" else {"": json.loads(pe[1])}
            _reorder(types, inode, iname, lat[pe], rat[pe], at[pe], paths, path + [step])


def _epoch(t):
    if not t:
        return 0
    return int(datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp())


def _now(live):
    """The oracle's time for this request: one second after the latest
    time among the live entries, or the base time."""
    t = _epoch(BASE_TIME)
    for e in ((live or {}).get("metadata") or {}).get("managedFields") or []:
        if e.get("time") and _epoch(e["time"]) >= t:
            t = _epoch(e["time"]) + 1
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sort_entries(entries):
    """apimachinery's sortEncodedManagedFields, as the oracle sorts."""
    entries.sort(key=lambda e: (e.get("operation", ""), _epoch(e.get("time")), e.get("manager", ""),
                                e.get("apiVersion", ""), e.get("subresource", "")))


def adjust(types, case, answer):
    """The server's (SMD v4.4.2's) answer to an apply, from the oracle's:
    (answer, paths of the reordered lists), or (None, []) when the two
    versions answer alike (anything but an accepted apply onto a live
    object, or no list ordered otherwise)."""
    if case.get("op") != "apply" or not answer.get("ok") or not case.get("live"):
        return None, []
    live, cfg = case["live"], case["config"]
    node, name = types.root(cfg)
    if node is None:
        return None, []
    out = copy.deepcopy(answer)
    paths = []
    _reorder(types, node, name, live, cfg, out["object"], paths, [])
    if not paths:
        return None, []
    if not answer.get("changed"):
        # a reorder that is the only change: v4.4.2 stamps the applier
        now = _now(live)
        for e in out["managedFields"]:
            if e.get("manager") == case["manager"] and e.get("operation") == "Apply" \
                    and not e.get("subresource"):
                e["time"] = now
        _sort_entries(out["managedFields"])
        out["changed"] = True
    return out, paths


UNTRACKED_REASON = ("an update (not an apply) of an object that has a uid, whose managedFields "
                    "as the write decodes them (the body's when not empty, else the live "
                    "object's; an empty list resets them) are empty: the API server's field "
                    "manager does not start tracking it (skipNonAppliedManager: only a create "
                    "or an apply does) and stores the object without managedFields; the "
                    "oracle has no such layer")


def untracked_update(case, answer):
    """The server's answer to an update the field manager leaves untracked
    (UNTRACKED_REASON), from the oracle's, or None when it is tracked."""
    if case.get("op") != "update" or not answer.get("ok") or not case.get("live"):
        return None
    if not (case["live"].get("metadata") or {}).get("uid"):
        return None  # a create: tracked
    sent = (case["config"].get("metadata") or {}).get("managedFields")
    if sent:
        return None
    if sent is None and (case["live"].get("metadata") or {}).get("managedFields"):
        return None
    out = copy.deepcopy(answer)
    (out.get("object", {}).get("metadata") or {}).pop("managedFields", None)
    out["managedFields"] = []
    return out


LA = "kubectl.kubernetes.io/last-applied-configuration"
LAST_APPLIED_REASON = ("an apply by the manager kubectl onto an object that carries the "
                       "last-applied annotation: the API server rewrites the annotation to the "
                       "configuration applied (lastAppliedUpdater: Go's JSON of it without the "
                       "annotation, sorted keys, HTML escaping, a newline at the end), so that "
                       "kubectl's client-side apply can follow; the oracle has no such layer")
LAST_APPLIED_CONFLICTS = ("an apply by the manager kubectl onto an object that carries the "
                          "last-applied annotation, which the oracle refuses with conflicts: the "
                          "API server forgives the conflicts on fields the annotation holds with "
                          "the live values (lastAppliedManager) and may force the apply; the "
                          "oracle has no such layer, the real API server judges these "
                          "(tests/realserver)")


def go_json(v):
    """Go's encoding/json of a decoded JSON value: sorted keys, compact,
    <, >, &, U+2028 and U+2029 escaped, floats as Go writes them."""
    if isinstance(v, dict):
        return "{" + ",".join(go_json(k) + ":" + go_json(v[k]) for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(go_json(x) for x in v) + "]"
    if isinstance(v, float):
        a = abs(v)
        if a != 0 and (a < 1e-6 or a >= 1e21):
            t = repr(v)  # shortest digits; Go writes e-7 where Python writes e-07
            return re.sub(r"e([+-])0(\d)$", r"e\g<1>\g<2>", t)
        return format(decimal.Decimal(repr(v)).normalize(), "f")
    s = json.dumps(v, ensure_ascii=False)
    for a, b in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                 ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        s = s.replace(a, b)
    return s


def last_applied_updated(case, answer):
    """The server's answer to an apply by kubectl whose result carries the
    last-applied annotation (LAST_APPLIED_REASON), or None when alike."""
    if case.get("op") != "apply" or case.get("manager") != "kubectl" or not answer.get("ok"):
        return None
    anns = ((answer.get("object") or {}).get("metadata") or {}).get("annotations") or {}
    if not isinstance(anns.get(LA), str) or not anns[LA]:
        return None
    cfg = copy.deepcopy(case["config"])
    md = cfg.get("metadata")
    if isinstance(md, dict) and "annotations" in md:
        a = md["annotations"]
        if isinstance(a, dict) and all(isinstance(x, str) for x in a.values()):
            a.pop(LA, None)
        else:
            del md["annotations"]  # unstructured's GetAnnotations reads none
    text = go_json(cfg) + "\n"
    if anns[LA] == text:
        return None
    out = copy.deepcopy(answer)
    out["object"]["metadata"]["annotations"][LA] = text
    out["changed"] = True
    return out


def last_applied_conflicts(case, answer):
    """Whether the step is one the server's lastAppliedManager may answer
    otherwise (LAST_APPLIED_CONFLICTS)."""
    anns = ((case.get("live") or {}).get("metadata") or {}).get("annotations") or {}
    return (case.get("op") == "apply" and case.get("manager") == "kubectl"
            and not case.get("force") and bool(answer.get("conflicts"))
            and isinstance(anns.get(LA), str) and bool(anns[LA]))


def server_answer(types, case, answer):
    """The API server's answer from the oracle's: (answer, tags), the tags
    naming the adjustments made ("untracked-update", "merge-order",
    "last-applied-updated"), or (None, []) when they answer alike."""
    out = untracked_update(case, answer)
    if out is not None:
        return out, ["untracked-update"]
    tags = []
    out, _ = adjust(types, case, answer)
    if out:
        tags.append("merge-order")
    la = last_applied_updated(case, out or answer)
    if la:
        out = la
        tags.append("last-applied-updated")
    return out, tags


def path_text(path):
    """.spec.containers[{"name":"app"}].env; a set item as [{"":VALUE}]."""
    return "".join("[%s]" % canon(p) if isinstance(p, dict) else "." + p for p in path)


# ------------------------------------------------------------------ golden cases

def golden(cases_dir, shared, update):
    """Checks (update: writes) every golden case's expected-smd-v4.4.2.json:
    there exactly where v4.4.2's order differs, holding adjust()'s answer."""
    kube = os.path.join(shared, KUBE_SWAGGER)
    if not os.path.isfile(kube):
        print("SKIP: %s not found (the shared reference data)" % kube)
        return 77
    with open(kube, encoding="utf-8") as f:
        sw = json.load(f)
    types = {"": Types(sw)}
    bad, n = [], 0
    for d in sorted(os.listdir(cases_dir)):
        cdir = os.path.join(cases_dir, d)
        if not os.path.isfile(os.path.join(cdir, "case.json")):
            continue
        schema = ""
        if os.path.isfile(os.path.join(cdir, "definitions")):
            with open(os.path.join(cdir, "definitions")) as f:
                schema = f.read().strip()
        if schema not in types:
            with open(os.path.join(cases_dir, "schemas", schema + ".definitions.json"), encoding="utf-8") as f:
                defs = json.load(f)
            merged = copy.deepcopy(sw)
            merged["definitions"].update(defs)
            types[schema] = Types(merged)
        with open(os.path.join(cdir, "case.json"), encoding="utf-8") as f:
            case = json.load(f)
        with open(os.path.join(cdir, "expected.json"), encoding="utf-8") as f:
            exp = json.load(f)
        out = untracked_update(case, exp)
        paths = []
        if out is None:
            out, paths = adjust(types[schema], case, exp)
            out = last_applied_updated(case, out or exp) or out
        dp = os.path.join(cdir, DERIVED)
        have = None
        if os.path.isfile(dp):
            with open(dp, encoding="utf-8") as f:
                have = f.read()
        want = dumps(out) if out else None
        if out:
            n += 1
            print("%s: %s" % (d, ", ".join(path_text(p) for p in paths) or
                              "untracked update or last-applied annotation"))
        if have == want:
            continue
        if update:
            if want:
                with open(dp, "w", encoding="utf-8") as f:
                    f.write(want)
            else:
                os.remove(dp)
        else:
            bad.append(d)
    print("%d golden cases where the server answers otherwise than the oracle: SMD v4.4.2's "
          "list order, or an untracked update (%s)" % (n, DERIVED))
    if bad:
        print("FAIL: %s missing, stale or not wanted in: %s (SMP_UPDATE_GOLDEN=1 rewrites them)"
              % (DERIVED, ", ".join(bad)))
        return 1
    return 0


def answers(requests, oracle_out, shared):
    """Prints server_answer() of each of the oracle's answers, a JSON line
    each, in the oracle's order; an answer the server gives alike as is."""
    with open(os.path.join(shared, KUBE_SWAGGER), encoding="utf-8") as f:
        types = Types(json.load(f))
    with open(requests, encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    with open(oracle_out, encoding="utf-8") as f:
        outs = [json.loads(line) for line in f if line.strip()]
    if len(cases) != len(outs):
        raise SystemExit("mergeorder: %d requests, %d answers" % (len(cases), len(outs)))
    for case, ans in zip(cases, outs):
        out, _ = server_answer(types, case, ans)
        sys.stdout.write(json.dumps(out or ans, ensure_ascii=False, separators=(",", ":")) + "\n")
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "answers":
        return answers(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) != 4 or sys.argv[1] != "golden":
        raise SystemExit(__doc__)
    return golden(sys.argv[2], sys.argv[3], os.environ.get("SMP_UPDATE_GOLDEN") == "1")


if __name__ == "__main__":
    sys.exit(main())
