#!/usr/bin/env python3
"""stored.py REALSERVER SMPATCH SOURCE_DIR - judged suite (a): the
stored form of built-in kinds.

Every object of testdata/manifests, examples/ and the golden cases'
configurations (testdata/apply, testdata/ssa-cli), and the generated objects
of gen_objects.py, is created by real kubectl 1.32 (`kubectl apply`) on the
real API server and read back (`kubectl get -o json --show-managed-fields`);
`smpatch apply --dry-run=server -o json --show-managed-fields` of the same
file must print the same object, modulo judge.MASK. An object the server
refuses is counted apart (suite refusals.py judges refusals); one smpatch
refuses and the server accepts is a disagreement. Kinds the server does not
serve (custom resources without their CRD) are left out.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402
import gen_objects  # noqa: E402

SKIP_NAMES = ("live", "expected", "args", "note", "env", "stdin", "kubeconfig")


def source_files(src):
    """The YAML and JSON files that may hold configurations."""
    roots = [os.path.join(src, "testdata", "manifests"), os.path.join(src, "examples"),
             os.path.join(src, "testdata", "apply"), os.path.join(src, "testdata", "ssa-cli")]
    out = []
    for root in roots:
        for d, dirs, files in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x != "expected")
            for f in sorted(files):
                if f.endswith((".yaml", ".yml", ".json")) and not f.startswith(SKIP_NAMES):
                    out.append(os.path.join(d, f))
    return out


def objects_of(program, path):
    """The objects of a file as smpatch reads them (none when it does not read)."""
    rc, out, _ = judge.smpatch(program, "convert", "-o", "json", path)
    if rc != 0 or not out.strip():
        return []
    items = []
    for v in judge.json_stream(out):
        if isinstance(v, list):
            items += v
        elif isinstance(v, dict):
            items += v.get("items", []) if v.get("kind") == "List" else [v]
    return [o for o in items if isinstance(o, dict) and o.get("apiVersion") and o.get("kind")
            and isinstance(o.get("metadata"), dict) and o["metadata"].get("name")]


def chain_objects(program, src):
    """The objects the chain suites (csa_chains.py, kubectl_flows.py) take
    through their steps, as (where, object): those of testdata/manifests and
    the fully filled generated ones, Namespaces first so that each exists
    before what goes into it."""
    objs = []
    for path in source_files(src):
        if os.sep + "manifests" + os.sep in path:
            objs += [(os.path.relpath(path, src), o) for o in objects_of(program, path)]
    objs += [("generated:" + n, o) for n, o in gen_objects.objects() if "-full" in n]
    return sorted(objs, key=lambda x: x[1]["kind"] != "Namespace")


def key(o):
    m = o.get("metadata", {})
    return (o.get("apiVersion"), o.get("kind"), m.get("namespace", ""), m.get("name"))


def judge_object(srv, program, obj, tmp, tally, again):
    """Creates obj with kubectl and compares the stored object with smpatch's;
    `again`: an object of the same kind and name comes later."""
    path = os.path.join(tmp, "obj.json")
    with open(path, "w") as f:
        json.dump(obj, f)
    ns = obj["metadata"].get("namespace")
    srv.ensure_namespace(ns)
    mark = srv.mark()
    rc, out, err = srv.kubectl("apply", "-f", path, "-o", "json", "--show-managed-fields")
    if rc != 0:
        if "no matches for kind" in err or "ensure CRDs are installed" in err:
            tally["not served"] += 1
            return None
        tally["refused"] += 1
        server = srv.refusal(mark)
        src = judge.smpatch(program, "apply", "-f", path, "--dry-run=server", "-o", "patch")
        predicted = [json.loads(line).get("status") for line in src[1].splitlines()
                     if line.startswith("{")]
        predicted = [p for p in predicted if p]
        print("REFUSED %s/%s %s: %s" % (obj["kind"], obj["metadata"]["name"],
                                        "(predicted)" if predicted else "",
                                        " ".join(err.split())[:300]))
        if not predicted:
            return None
        tally["refused, predicted"] += 1
        if server is None:
            return None  # kubectl refused it before any write
        # a refusal smpatch predicts carries the server's Status
        diffs = judge.differences(judge.canon_status(server), judge.canon_status(predicted[-1]))
        return ("refused with another Status: " + "; ".join(diffs[:4])) if diffs else ""
    try:
        stored = json.loads(out)
        prc, pout, perr = judge.smpatch(program, "apply", "-f", path, "--dry-run=server",
                                        "-o", "json", "--show-managed-fields")
        if prc != 0:
            return "smpatch refuses what the server stores: " + perr.strip()
        predicted = json.loads(pout)
        diffs = judge.differences(judge.masked(stored), judge.masked(predicted))
        return "; ".join(diffs[:6]) + (" (+%d)" % (len(diffs) - 6) if len(diffs) > 6 else "") \
            if diffs else ""
    finally:
        # A deleted namespace stays Terminating (no controller finalizes
        # it), so namespaces are kept.
        if obj["kind"] == "CustomResourceDefinition" and again:
            # gone before the next CRD of the same name (its finalizer runs)
            srv.kubectl("delete", "-f", path, "--wait=true", "--timeout=60s")
        elif obj["kind"] != "Namespace":
            srv.kubectl("delete", "-f", path, "--wait=false")


def main():
    realserver, program, src, started = judge.suite_args(__doc__)
    objs, seen = [], set()
    for path in source_files(src):
        for o in objects_of(program, path):
            k = (key(o), json.dumps(o, sort_keys=True))
            if k not in seen:
                seen.add(k)
                objs.append((os.path.relpath(path, src), o))
    for name, o in gen_objects.objects():
        objs.append(("generated:" + name, o))
    # Namespaces first, once each, so that each is created by its own
    # object before anything is put into it.
    names = set()
    nss = []
    for where, o in objs:
        if o["kind"] == "Namespace" and o["metadata"]["name"] not in names:
            names.add(o["metadata"]["name"])
            nss.append((where, o))
    objs = nss + [(w, o) for w, o in objs if o["kind"] != "Namespace"]
    tally = {"not served": 0, "refused": 0, "refused, predicted": 0}
    agree = total = 0
    with judge.Server(realserver) as srv, tempfile.TemporaryDirectory() as tmp:
        later = {}
        for _, o in objs:
            later[(o["kind"], o["metadata"]["name"])] = later.get((o["kind"], o["metadata"]["name"]), 0) + 1
        for where, o in objs:
            k = (o["kind"], o["metadata"]["name"])
            later[k] -= 1
            res = judge_object(srv, program, o, tmp, tally, later[k] > 0)
            if res is None:
                continue
            total += 1
            if res == "":
                agree += 1
            else:
                print("DIFFER %s %s/%s %s: %s" % (where, o["kind"], o["metadata"].get("namespace", ""),
                                                o["metadata"]["name"], res))
    print("objects: %d read, %d not served (custom kinds), %d refused by the server "
          "(%d of them refused by smpatch too)" % (len(objs), tally["not served"], tally["refused"],
                                                   tally["refused, predicted"]))
    judge.report("stored", agree, total, started)


if __name__ == "__main__":
    main()
