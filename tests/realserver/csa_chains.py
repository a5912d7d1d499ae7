#!/usr/bin/env python3
"""csa_chains.py REALSERVER SMPATCH SOURCE_DIR - judged suite (b):
client-side apply chains run by real kubectl on the real API server.

For each object of testdata/manifests and each fuller generated object
(gen_objects.py), a chain of `kubectl apply` steps: the create; the same
configuration again; an edit (a label added, an annotation changed); a
drift by another writer (`kubectl label`, manager kubectl-label) and the
edited configuration again (client-side apply keeps what it never set);
the annotation removed from the configuration. Before each step smpatch
plans it from the object read back from the server (`kubectl get -o json
--show-managed-fields`): after it, the stored object (read back again)
must equal `smpatch apply --dry-run=server -o json --show-managed-fields`
modulo judge.MASK, and `smpatch apply -o diff` must be empty exactly when
the server's object did not change (its content: managedFields and the
mask aside, as -o diff shows it). smpatch is given
the time the server wrote into the step's managedFields entry
($SMPATCH_NOW; times are masked, they order the entries).

Then `kubectl apply --prune -l` of a labelled set (a member dropped: pruned;
a member's configuration out of the selector: not applied, its live object
pruned), each step's requests (the proxy's record: patches, creates, the
DELETEs' bodies) against smpatch's -o patch lines and the stored objects
against -o json; and `--overwrite=false` after a drift by kubectl patch: the
same configuration accepted, a changed one refused by both with kubectl's
conflict and the object left as it was.
"""
import copy
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import judge  # noqa: E402
import stored  # noqa: E402


def content(obj):
    """The object as -o diff compares it: without managedFields, and without
    what the server rewrites on every write (resourceVersion, generation
    aside, the mask)."""
    o = judge.masked(obj)
    (o.get("metadata") or {}).pop("managedFields", None)
    return json.dumps(o, sort_keys=True)


def run_smpatch(program, cfg, live, now, *args):
    """smpatch apply of cfg against live (a file, or None)."""
    return judge.smpatch(program, "apply", "-f", cfg, *(["--live", live] if live else []),
                         *args, now=now)


def steps_of(obj):
    """The chain's configurations, and whether a drift comes before each."""
    c0 = copy.deepcopy(obj)
    c1 = copy.deepcopy(obj)
    md = c1.setdefault("metadata", {})
    md.setdefault("labels", {})["judge.example.com/step"] = "edit"
    md.setdefault("annotations", {})["judge.example.com/note"] = "edited"
    c2 = copy.deepcopy(c1)
    del c2["metadata"]["annotations"]["judge.example.com/note"]
    if not c2["metadata"]["annotations"]:
        del c2["metadata"]["annotations"]
    steps = [("create", c0, False), ("again", c0, False), ("edit", c1, False),
             ("drift", c1, True), ("remove", c2, False)]
    spec = obj.get("spec") or {}
    if obj["kind"] == "Service" and not spec.get("clusterIP") and \
            spec.get("type", "ClusterIP") in ("ClusterIP", "NodePort"):
        # a change of type: the registry drops the node ports and the
        # traffic policy that ClusterIP no longer needs
        c3, c4 = copy.deepcopy(c2), copy.deepcopy(c2)
        c3["spec"]["type"] = "NodePort"
        c4["spec"]["type"] = "ClusterIP"
        c4["spec"].pop("externalTrafficPolicy", None)
        steps += [("nodeport", c3, False), ("clusterip", c4, False)]
    return steps


def prune_chain(srv, program, tmp):
    """kubectl apply --prune -l: a labelled set in its own namespace, then
    the set without one member (pruned), then one member's configuration
    out of the selector (not applied; its live object, still labelled,
    pruned). Each step: smpatch's
    -o patch lines (actions; a prune's DeleteOptions, which kubectl sends
    as the DELETE's body) against the requests the proxy recorded, and the
    stored objects against -o json. (agree, total, problems)."""
    ns = "prune-judge"
    srv.ensure_namespace(ns)

    def cm(name, sel=True, v="1"):
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": ns,
                             "labels": {"judge.example.com/set": "prune" if sel else "other"}},
                "data": {"v": v}}
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": ns, "labels": {"judge.example.com/set": "prune"}},
           "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}
    steps = [("prune first", [cm("a"), cm("b"), dep]),
             ("prune second", [cm("a", v="2"), dep]),
             # a's configuration leaves the selector: not applied, and as
             # its live object still matches, pruned
             ("prune third", [cm("a", sel=False, v="3"), dep])]
    every = [cm("a"), cm("b"), dep]
    cfgp, livep = os.path.join(tmp, "prune.json"), os.path.join(tmp, "prune-live.json")
    agree = total = 0
    for step, objs in steps:
        before = srv.read_back(every, tmp)
        with open(livep, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "List", "items": before}, f)
        with open(cfgp, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "List", "items": objs}, f)
        mark = srv.mark()
        rc, _, err = srv.kubectl("apply", "--prune", "-l", "judge.example.com/set=prune",
                                 "-n", ns, "-f", cfgp)
        sent = [r for r in srv.recorded(mark) if r["method"] != "GET"]
        prc, pout, perr = run_smpatch(program, cfgp, livep, None, "--prune", "-l",
                                      "judge.example.com/set=prune", "-n", ns, "-o", "patch")
        total += 1
        problems = []
        if rc != 0 or prc != 0:
            problems.append("kubectl exits %d (%s), smpatch %d (%s)" % (
                rc, err.strip()[:200], prc, perr.strip()[:200]))
        else:
            lines = [json.loads(ln) for ln in pout.splitlines() if ln.strip()]
            want = []
            for ln in lines:
                if ln["action"] == "prune":
                    # kubectl's body; smpatch adds the live object's uid and
                    # resourceVersion as preconditions (docs/CLI.md)
                    opts = dict(ln["deleteOptions"])
                    opts.pop("preconditions", None)
                    want.append(("DELETE", ln["name"], opts))
                elif ln["action"] != "unchanged":
                    want.append(("POST" if ln["action"] == "create" else "PATCH", ln["name"],
                                 ln["patch"]))
            got = [(r["method"], r["path"].rsplit("/", 1)[-1] if r["method"] != "POST"
                    else (r["body"] or {}).get("metadata", {}).get("name"), r["body"])
                   for r in sent]
            if sorted(json.dumps(w, sort_keys=True) for w in want) != \
                    sorted(json.dumps(g, sort_keys=True) for g in got):
                problems.append("requests: smpatch %s, kubectl %s" % (
                    judge.short(want, 400), judge.short(got, 400)))
            src, sout, serr = run_smpatch(program, cfgp, livep, None, "--prune", "-l",
                                          "judge.example.com/set=prune", "-n", ns,
                                          "--dry-run=server", "-o", "json")
            pred = {}
            for v in judge.json_stream(sout) if src == 0 else []:
                for o in v.get("items", [v]) if v.get("kind") == "List" else [v]:
                    pred[(o["kind"], o["metadata"]["name"])] = o
            pruned = {ln["name"] for ln in lines if ln["action"] == "prune"}
            for o in every:
                with open(cfgp, "w") as f:
                    json.dump(o, f)
                rc2, out2, _ = srv.kubectl("get", "-f", cfgp, "-o", "json", "--ignore-not-found")
                k = (o["kind"], o["metadata"]["name"])
                there = rc2 == 0 and out2.strip()
                if k[1] in pruned:
                    if there:
                        problems.append("%s/%s: predicted pruned, still stored" % k)
                elif there and any(x["metadata"]["name"] == k[1] and x["kind"] == k[0]
                                   for x in objs):
                    problems += ["%s/%s%s" % (k[0], k[1], d) for d in judge.differences(
                        judge.masked(json.loads(out2)), judge.masked(pred.get(k, {})))][:4]
        if problems:
            print("DIFFER %s: %s" % (step, "; ".join(problems)))
        else:
            agree += 1
    return agree, total


def overwrite_chain(srv, program, tmp):
    """--overwrite=false: a ConfigMap applied, changed by kubectl patch,
    then applied with --overwrite=false unchanged (accepted, unchanged) and
    changed (kubectl's conflict, exit 1: smpatch's exit 4 and the same
    conflict, and the object as it was). (agree, total)."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "overwrite-judge", "namespace": "default"}, "data": {"a": "1"}}
    cfgp, livep = os.path.join(tmp, "ow.json"), os.path.join(tmp, "ow-live.json")
    with open(cfgp, "w") as f:
        json.dump(cm, f)
    srv.kubectl("apply", "-f", cfgp)
    srv.kubectl("patch", "-f", cfgp, "-p", '{"data":{"a":"2"}}')
    agree = total = 0
    for step, cfg in (("overwrite=false same", cm),
                      ("overwrite=false changed", dict(cm, data={"a": "3"}))):
        with open(cfgp, "w") as f:
            json.dump(cfg, f)
        rc, out, _ = srv.kubectl("get", "-f", cfgp, "-o", "json", "--show-managed-fields")
        with open(livep, "w") as f:
            f.write(out)
        before = json.loads(out)
        krc, _, kerr = srv.kubectl("apply", "--overwrite=false", "-f", cfgp)
        prc, _, perr = run_smpatch(program, cfgp, livep, None, "--overwrite=false")
        rc, out, _ = srv.kubectl("get", "-f", cfgp, "-o", "json", "--show-managed-fields")
        after = json.loads(out)
        total += 1
        problems = []
        if (krc == 0) != (prc == 0) or (krc != 0 and prc != 4):
            problems.append("kubectl exits %d, smpatch %d: %s" % (krc, prc, perr.strip()[:300]))
        elif krc != 0:
            # smpatch's conflict detail (after its first line) is kubectl's
            detail = perr.split("\n", 1)[1].strip() if "\n" in perr else ""
            if not detail or detail.replace("\n", "") not in kerr.replace("\n", ""):
                problems.append("the conflict differs: smpatch %s" % judge.short(perr, 300))
            if judge.masked(after) != judge.masked(before):
                problems.append("the refused apply changed the object")
        if problems:
            print("DIFFER %s: %s" % (step, "; ".join(problems)))
        else:
            agree += 1
    return agree, total


def main():
    realserver, program, src, started = judge.suite_args(__doc__)
    objs = stored.chain_objects(program, src)
    agree = total = skipped = 0
    with judge.Server(realserver) as srv, tempfile.TemporaryDirectory() as tmp:
        cfgp, livep = os.path.join(tmp, "config.json"), os.path.join(tmp, "live.json")
        for where, obj in objs:
            srv.ensure_namespace(obj["metadata"].get("namespace"))
            ref = "%s %s/%s" % (where, obj["kind"], obj["metadata"]["name"])
            live = None
            for step, cfg, drift in steps_of(obj):
                if drift and live is not None:
                    with open(cfgp, "w") as f:
                        json.dump(cfg, f)
                    rc, _, err = srv.kubectl("label", "-f", cfgp, "judge.example.com/drift=yes",
                                             "--overwrite")
                    if rc:
                        print("FAIL %s: kubectl label: %s" % (ref, err.strip()))
                        total += 1
                        break
                    rc, out, _ = srv.kubectl("get", "-f", cfgp, "-o", "json",
                                             "--show-managed-fields")
                    live = json.loads(out) if rc == 0 else None
                with open(cfgp, "w") as f:
                    json.dump(cfg, f)
                if live is not None:
                    with open(livep, "w") as f:
                        json.dump(live, f)
                drc, dout, _ = run_smpatch(program, cfgp, livep if live else None, None,
                                           "-o", "diff")
                rc, _, err = srv.kubectl("apply", "-f", cfgp)
                if rc != 0:
                    if step == "create":
                        skipped += 1  # refused or not served: the other suites' matter
                    else:
                        total += 1
                        print("FAIL %s %s: kubectl apply: %s" % (ref, step, err.strip()[:300]))
                    break
                rc, out, err = srv.kubectl("get", "-f", cfgp, "-o", "json", "--show-managed-fields")
                after = json.loads(out)
                prc, pout, perr = run_smpatch(program, cfgp, livep if live else None,
                                              judge.newest_time(after), "--dry-run=server", "-o", "json",
                                              "--show-managed-fields")
                total += 1
                problems = []
                if prc != 0:
                    problems.append("smpatch fails: " + perr.strip()[:300])
                else:
                    d = judge.differences(judge.masked(after), judge.masked(json.loads(pout)))
                    problems += d[:5]
                changed = live is None or content(after) != content(live)
                if (drc == 1) != changed or drc not in (0, 1):
                    problems.append("-o diff exits %d, the server's object %s" % (
                        drc, "changed" if changed else "did not change"))
                if problems:
                    print("DIFFER %s %s: %s" % (ref, step, "; ".join(problems)))
                else:
                    agree += 1
                live = after
            if obj["kind"] not in ("Namespace", "CustomResourceDefinition"):
                with open(cfgp, "w") as f:
                    json.dump(obj, f)
                srv.kubectl("delete", "-f", cfgp, "--wait=false")
        for extra in (prune_chain, overwrite_chain):
            a, t = extra(srv, program, tmp)
            agree += a
            total += t
    print("chains: %d objects (%d not created: refused or not served)" % (len(objs), skipped))
    judge.report("csa_chains", agree, total, started)


if __name__ == "__main__":
    main()
