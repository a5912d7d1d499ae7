#!/usr/bin/env python3
"""kubectl_flows.py REALSERVER SMPATCH SOURCE_DIR - judged suite (d):
kubectl create, replace, client-side apply on an object created without
it, the migration to server-side apply and back, and ApplySet, run by real
kubectl 1.32 on the real API server.

For each object of testdata/manifests and each fuller generated object
(gen_objects.py), one chain of kubectl commands, each printing the object
it wrote (-o json --show-managed-fields):
  create    kubectl create (manager kubectl-create)
  replace   kubectl replace of the object edited (a label, an annotation)
  apply     kubectl apply of another edit: an object without the
            last-applied annotation (kubectl warns and patches it in)
  migrate   kubectl apply --server-side of a third edit: the server lets the
            manager kubectl take what the annotation says it applied, and
            kubectl moves the client-side entries into its own
  ssa       kubectl apply --server-side without the annotation it added
  back      kubectl apply again, client-side, of that configuration
Before each step smpatch plans it from the object before it (the previous
answer): `smpatch create|replace|apply --dry-run=server -o json
--show-managed-fields` must print what the server answered, modulo
judge.MASK, and refuse exactly what the server refused.

ApplySet: three objects and a parent Secret (then a ConfigMap parent,
server-side) applied with KUBECTL_APPLYSET=true kubectl apply --prune
--applyset, then again with one object edited and one dropped: every
member, the parent (its labels, annotations and managedFields) and the
pruned object's absence must be what `smpatch apply --prune --applyset`
predicts from the objects read back before the step.
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


def edited(obj, step):
    """obj with the step's label and note annotation."""
    c = copy.deepcopy(obj)
    md = c.setdefault("metadata", {})
    md.setdefault("labels", {})["judge.example.com/step"] = step
    md.setdefault("annotations", {})["judge.example.com/note"] = step
    return c


def without_note(obj):
    c = copy.deepcopy(obj)
    anns = c["metadata"]["annotations"]
    del anns["judge.example.com/note"]
    if not anns:
        del c["metadata"]["annotations"]
    return c


# (step, kubectl arguments, smpatch arguments) of a chain; the configuration
# of each is made by CONFIGS from the object
STEPS = [
    ("create", ["create"], ["create"]),
    ("replace", ["replace"], ["replace"]),
    ("apply", ["apply"], ["apply"]),
    ("migrate", ["apply", "--server-side"], ["apply", "--server-side"]),
    ("ssa", ["apply", "--server-side"], ["apply", "--server-side"]),
    ("back", ["apply"], ["apply"]),
]
CONFIGS = {
    "create": lambda o: o,
    "replace": lambda o: edited(o, "replace"),
    "apply": lambda o: edited(o, "apply"),
    "migrate": lambda o: edited(o, "migrate"),
    "ssa": lambda o: without_note(edited(o, "migrate")),
    "back": lambda o: without_note(edited(o, "migrate")),
}


def compare(stored_obj, predicted):
    return judge.differences(judge.masked(stored_obj), judge.masked(predicted))


def untimed(v):
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if k != "time"}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


def recorded_writes(srv, mark):
    """The writes kubectl sent since `mark` (the proxy's record):
    (method, content type, fieldManager, body) each."""
    out = []
    for r in srv.recorded(mark):
        if r["method"] == "GET":
            continue
        fm = [q.split("=", 1)[1] for q in r["query"].split("&") if q.startswith("fieldManager=")]
        out.append((r["method"], r["contentType"], fm[0] if fm else None, r["body"]))
    return out


def planned_writes(line):
    """The writes smpatch's -o patch line says kubectl sends, as
    recorded_writes gives them."""
    if line.get("requests"):
        return [(x["method"], x["patchType"], x["fieldManager"], x["patch"])
                for x in line["requests"]]
    if line["action"] == "unchanged" and line["patchType"] != "application/apply-patch+yaml":
        return []
    fm = line.get("fieldManager", "kubectl-client-side-apply")
    if line["action"] == "create" and line["patchType"] == "application/json":
        return [("POST", "application/json", fm, line["patch"])]
    return [("PATCH", line["patchType"], fm, line["patch"])]


def same_writes(planned, sent):
    """The differences between smpatch's requests and kubectl's (the JSON
    patch's resourceVersion, the server's next one, and times aside)."""
    if len(planned) != len(sent):
        return ["smpatch plans %d requests, kubectl sent %d: %s" % (
            len(planned), len(sent), [w[:3] for w in sent])]
    out = []
    for i, (a, b) in enumerate(zip(planned, sent)):
        if a[1] == "application/json-patch+json" and isinstance(a[3], list) and \
                isinstance(b[3], list):
            a = a[:3] + ([dict(o, value="") if o.get("path") == "/metadata/resourceVersion"
                          else o for o in a[3]],)
            b = b[:3] + ([dict(o, value="") if o.get("path") == "/metadata/resourceVersion"
                          else o for o in b[3]],)
        if untimed(list(a)) != untimed(list(b)):
            out.append("request %d: smpatch %s, kubectl %s" % (
                i + 1, judge.short(list(a[:3]) + [a[3]], 300), judge.short(list(b[:3]) + [b[3]], 300)))
    return out


def chain(srv, program, obj, tmp, tally, ref):
    """Runs the chain of one object; False when the server refused its
    creation (the other suites judge that)."""
    cfgp, livep = os.path.join(tmp, "config.json"), os.path.join(tmp, "live.json")
    live = None
    for step, kargs, sargs in STEPS:
        cfg = CONFIGS[step](obj)
        with open(cfgp, "w") as f:
            json.dump(cfg, f)
        if live is not None:
            with open(livep, "w") as f:
                json.dump(live, f)
        mark = srv.mark()
        rc, out, err = srv.kubectl(*kargs, "-f", cfgp, "-o", "json", "--show-managed-fields")
        if rc != 0 and step == "create":
            return False
        where = "%s %s" % (ref, step)
        answer = json.loads(out) if rc == 0 and out.strip() else None
        now = judge.newest_time(answer) if answer else None
        live_args = ["--live", livep] if live is not None else []
        prc, pout, perr = judge.smpatch(program, *sargs, "-f", cfgp, *live_args,
                                        "--dry-run=server", "-o", "json",
                                        "--show-managed-fields", now=now)
        problems = []
        if rc != 0:
            if prc == 0:
                # not predicted yet (docs/TESTING.md lists them); the object
                # stays as it was
                tally.unpredicted.append("%s: %s" % (where, err.strip().splitlines()[0][:200]))
                continue
            if prc not in (3, 4):
                problems.append("smpatch exits %d: %s" % (prc, perr.strip()[:200]))
            tally.check(where, problems)  # both refuse; refusals.py judges the Status
            continue
        if prc != 0:
            problems.append("smpatch exits %d: %s" % (prc, perr.strip()[:300]))
        else:
            problems += compare(answer, json.loads(pout))
        if sargs[0] == "apply":
            # the requests themselves, as the recording proxy saw kubectl's
            qrc, qout, qerr = judge.smpatch(program, *sargs, "-f", cfgp, *live_args,
                                            "-o", "patch", now=now)
            if qrc != 0:
                problems.append("smpatch -o patch exits %d: %s" % (qrc, qerr.strip()[:200]))
            else:
                problems += same_writes(planned_writes(json.loads(qout)),
                                        recorded_writes(srv, mark))
        tally.check(where, problems)
        live = answer
    return True


def applyset_members(ns):
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "settings", "namespace": ns}, "data": {"mode": "a"}}
    sec = {"apiVersion": "v1", "kind": "Secret",
           "metadata": {"name": "token", "namespace": ns}, "stringData": {"t": "x"}}
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": ns, "labels": {"app": "web"}},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "web",
                                                          "image": "nginx:1.25"}]}}}}
    return cm, sec, dep


def applyset(srv, tmp, tally, server_side, parent, ns):
    """Two ApplySet steps: three members, then one edited and one dropped.
    The prediction is the plan's, through the Python binding (the parent's
    last entry is the object it becomes; kubectl prints nothing of it)."""
    import smpatch
    srv.ensure_namespace(ns)
    cm, sec, dep = applyset_members(ns)
    dep2 = copy.deepcopy(dep)
    dep2["spec"]["replicas"] = 2
    ptype, _, pname = parent.rpartition("/")
    pobj = {"apiVersion": "v1", "kind": "ConfigMap" if ptype == "configmaps" else "Secret",
            "metadata": {"name": pname, "namespace": ns}}
    mode = ["--server-side"] if server_side else []
    # kubectl writes its own version as the parent's tooling
    _, vout, _ = srv.kubectl("version", "--client", "-o", "json")
    tooling = "kubectl/" + json.loads(vout)["clientVersion"]["gitVersion"]
    for step, objs in (("first", [cm, sec, dep]), ("second", [cm, dep2])):
        ref = "applyset %s%s %s" % (parent, " server-side" if server_side else "", step)
        cfgp = os.path.join(tmp, "set.json")
        with open(cfgp, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "List", "items": objs}, f)
        before = srv.read_back([cm, sec, dep, pobj], tmp)
        rc, _, err = srv.kubectl("apply", *mode, "-n", ns, "--prune", "--applyset=" + parent,
                                 "-f", cfgp, env={"KUBECTL_APPLYSET": "true"})
        if rc != 0:
            tally.check(ref, ["kubectl apply: " + err.strip()[:300]])
            return
        after = srv.read_back([cm, sec, dep, pobj], tmp)
        now = max((judge.newest_time(o) or "" for o in after), default="") or None
        try:
            plan = smpatch.apply(objs, before, server_side=server_side, namespace=ns,
                                 enforce_namespace=True, prune=True, applyset=parent,
                                 applyset_tooling=tooling, stored=True, now=now)
        except smpatch.Error as e:
            tally.check(ref, ["smpatch fails: %s" % e])
            continue
        predicted = {}
        problems = []
        for en in plan:
            if en.action in ("conflict", "error"):
                problems.append("%s/%s: smpatch refuses: %s" % (en.kind, en.name, en.error))
            k = (en.kind, en.namespace or "", en.name)
            predicted[k] = None if en.action == "prune" else en.object
        for o in after:
            k = (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])
            if k not in predicted:
                problems.append("%s/%s: stored, not predicted" % k[::2])
            elif predicted[k] is None:
                problems.append("%s/%s: stored, predicted pruned" % k[::2])
            else:
                problems += ["%s/%s%s" % (k[0], k[2], d) for d in compare(o, predicted[k])]
        stored_keys = {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])
                       for o in after}
        for k, v in predicted.items():
            if k not in stored_keys and v is not None:
                problems.append("%s/%s: pruned by the server, predicted kept" % k[::2])
        tally.check(ref, problems)


def refusals(srv, program, tmp, tally):
    """Writes kubectl's flows get refused: a second create (409
    AlreadyExists) and a server-side apply with an empty field manager (422
    Invalid). smpatch must refuse each with the server's Status, exactly."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "flows-made", "namespace": "default"}, "data": {"x": "1"}}
    cfgp, livep = os.path.join(tmp, "made.json"), os.path.join(tmp, "made-live.json")
    with open(cfgp, "w") as f:
        json.dump(cm, f)
    rc, out, _ = srv.kubectl("create", "-f", cfgp, "-o", "json", "--show-managed-fields")
    with open(livep, "w") as f:
        f.write(out)
    for ref, kargs, sargs in (
            ("refusal: a second kubectl create", ["create"], ["create", "--live", livep]),
            ("refusal: an empty --field-manager=", ["apply", "--server-side", "--field-manager="],
             ["apply", "--server-side", "--field-manager=", "--live", livep])):
        mark = srv.mark()
        krc, _, kerr = srv.kubectl(*kargs, "-f", cfgp)
        status = srv.refusal(mark)
        prc, pout, perr = judge.smpatch(program, *sargs, "-f", cfgp, "-o", "json")
        problems = []
        if krc == 0 or not isinstance(status, dict):
            problems.append("the server accepted it: %s" % kerr.strip()[:200])
        elif prc not in (3, 4):
            problems.append("smpatch exits %d: %s" % (prc, perr.strip()[:200]))
        else:
            problems += judge.status_differences(status, pout)
        tally.check(ref, problems)


def main():
    realserver, program, src, started = judge.suite_args(__doc__)
    objs = stored.chain_objects(program, src)
    tally = judge.Tally()
    refused = 0
    with judge.Server(realserver) as srv, tempfile.TemporaryDirectory() as tmp:
        for where, obj in objs:
            srv.ensure_namespace(obj["metadata"].get("namespace"))
            ref = "%s %s/%s" % (where, obj["kind"], obj["metadata"]["name"])
            if not chain(srv, program, obj, tmp, tally, ref):
                refused += 1
            if obj["kind"] not in ("Namespace", "CustomResourceDefinition"):
                p = os.path.join(tmp, "del.json")
                with open(p, "w") as f:
                    json.dump(obj, f)
                srv.kubectl("delete", "-f", p, "--wait=false")
        refusals(srv, program, tmp, tally)
        applyset(srv, tmp, tally, False, "judge-set", "applyset-judge")
        applyset(srv, tmp, tally, True, "configmaps/judge-set", "applyset-judge-ssa")
    for u in tally.unpredicted:
        print("NOT PREDICTED " + u)
    print("flows: %d objects (%d not created: refused or not served); %d refusals of "
          "later steps not predicted yet" % (len(objs), refused, len(tally.unpredicted)))
    judge.report("kubectl_flows", tally.agree, tally.total, started)


if __name__ == "__main__":
    main()
