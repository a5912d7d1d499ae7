#!/usr/bin/env python3
"""cli_oracle.py ORACLE SMPATCH SHARED_DIR CASES_DIR

The command-line golden cases of server-side apply and replace
(testdata/ssa-cli) against the reference oracle: every run of a case that
prints the stored objects with their ownership (`-o json
--show-managed-fields`) has its expected output recomputed from the oracle's
answers to the same requests (same live objects, configurations, manager and
force), so the goldens are the oracle's, not smpatch's own. Compared per
configuration, in order: an accepted request's object and managedFields
(the oracle's new times read as the case's
$SMPATCH_NOW, since its clock is logical), a conflict's causes (manager, apiVersion, field)
in the metav1.Status, and that a rejected request is a Failure Status.
Skips (77) without python3's yaml-free parts failing: needs the oracle
(built by the ssa.oracle_build fixture)."""
import copy
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssalib import Program, merged_swagger  # noqa: E402

ORACLE, SMPATCH, SHARED, CASES = sys.argv[1:5]
CLUSTER_KINDS = {"Namespace", "Node", "ClusterRole", "ClusterRoleBinding", "PersistentVolume",
                 "CustomResourceDefinition", "StorageClass"}
# What a PUT keeps of the live object (apply/plan_object.c replace_body).
KEPT = ["uid", "creationTimestamp", "generation", "deletionTimestamp", "deletionGracePeriodSeconds",
        "resourceVersion"]


def docs(text):
    """The JSON documents of a stream (smpatch convert -o json, -o json)."""
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        v, i = dec.raw_decode(text, i)
        out.append(v)


def read_objects(path):
    p = subprocess.run([SMPATCH, "convert", "-o", "json", path], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit("convert %s: %s" % (path, p.stderr))
    out = []
    for d in docs(p.stdout):
        if isinstance(d, dict) and isinstance(d.get("items"), list) and d.get("kind"):
            out.extend(d["items"])
        elif d is not None:
            out.append(d)
    return out


def group(av):
    return av.split("/")[0] if "/" in av else ""


def ident(o):
    md = o.get("metadata") or {}
    return (group(o.get("apiVersion", "")), o.get("kind"), md.get("namespace", ""), md.get("name"))


def times(mf):
    return {(e.get("manager"), e.get("operation"), e.get("apiVersion")): e.get("time") for e in mf or []}


def oracle_times(mf, live_mf, now):
    """The oracle's managedFields on smpatch's clock: its clock is logical
    (one second after the latest live entry), smpatch's is $SMPATCH_NOW; an
    entry keeps the live entry's time or gets a new one on both."""
    old = times(live_mf)
    out = []
    for e in mf or []:
        e = dict(e)
        if "time" in e and old.get((e.get("manager"), e.get("operation"), e.get("apiVersion"))) != e["time"]:
            e["time"] = now
        out.append(e)
    return out


def cause_message(c):
    m = 'conflict with "%s"' % c["manager"]
    if c.get("operation") == "Update":
        m += " using %s" % c["apiVersion"]
    return m


def applyset_id(ref, ns):
    """kubectl's ApplySet.ID() for a Secret or ConfigMap parent:
    base64url(sha256(name.namespace.kind.group)), unpadded."""
    import base64
    import hashlib
    kind = "Secret"
    if "/" in ref:
        res, ref = ref.split("/", 1)
        kind = {"configmaps": "ConfigMap", "configmap": "ConfigMap"}.get(res.lower(), "Secret")
    digest = hashlib.sha256(("%s.%s.%s." % (ref, ns, kind)).encode()).digest()
    return "applyset-%s-v1" % base64.urlsafe_b64encode(digest).decode().rstrip("=")


def check_run(case, run, prog):
    words = shlex.split(open(os.path.join(case, run)).read().replace("$SMP_TESTDATA", os.path.dirname(CASES)))
    if "--show-managed-fields" not in words or not ("-o" in words and words[words.index("-o") + 1] == "json"):
        return None
    replace = words[0] == "replace"
    create = words[0] == "create"
    now = None
    if os.path.exists(os.path.join(case, "env")):
        for ln in open(os.path.join(case, "env")):
            if ln.startswith("SMPATCH_NOW="):
                now = ln.strip().split("=", 1)[1]
    if not replace and not create and "--server-side" not in words:
        return None
    name = run[5:] if run.startswith("args.") else ""
    exp_dir = os.path.join(case, "expected", name) if name else os.path.join(case, "expected")
    with open(os.path.join(exp_dir, "stdout")) as f:
        got = docs(f.read())
    files, live_path, force, ns, applyset = [], None, False, "default", None
    manager = "kubectl-replace" if replace else "kubectl-create" if create else "kubectl"
    i = 1
    while i < len(words):
        w = words[i]
        if w in ("-f", "--live", "--field-manager", "-n", "--schema", "-o"):
            v = words[i + 1]
            i += 2
            if w == "-f":
                files.append(v)
            elif w == "--live":
                live_path = v
            elif w == "--field-manager":
                manager = v
            elif w == "-n":
                ns = v
            continue
        if w.startswith("--field-manager="):
            # kubectl sends an empty manager of an apply (the server answers
            # 422) and none of a replace (the server names the writer by the
            # User-Agent's product: kubectl)
            manager = w.split("=", 1)[1] or ("kubectl" if replace or create else "")
        if w == "--force-conflicts":
            force = True
        if w.startswith("--applyset="):
            applyset = w.split("=", 1)[1]
        i += 1
    configs = [o for f in files for o in read_objects(os.path.join(case, f))]
    lives = {ident(o): o for o in (read_objects(os.path.join(case, live_path)) if live_path else [])}
    items = got
    if len(got) and isinstance(got[0], dict) and got[0].get("kind") == "List":
        items = got[0]["items"] + got[1:]
    objs = [d for d in items if d.get("kind") != "Status"]
    statuses = [d for d in items if d.get("kind") == "Status"]
    problems = []
    for cfg in configs:
        cfg = copy.deepcopy(cfg)
        md = cfg.setdefault("metadata", {})
        if applyset:
            # kubectl labels every member with its ApplySet's ID (the parent,
            # applied too, is not printed)
            md.setdefault("labels", {})["applyset.kubernetes.io/part-of"] = applyset_id(applyset, ns)
        if cfg.get("kind") not in CLUSTER_KINDS:
            md.setdefault("namespace", ns)
        live = lives.get(ident(cfg))
        if create:
            if live is not None:
                st = statuses.pop(0) if statuses else {}
                if st.get("reason") != "AlreadyExists" or st.get("code") != 409:
                    problems.append("%s: want AlreadyExists, got %s" % (ident(cfg), st))
                continue
        elif not replace and manager == "":
            st = statuses.pop(0) if statuses else {}
            if (st.get("reason") != "Invalid" or st.get("code") != 422 or
                    st.get("details", {}).get("causes", [{}])[0].get("field") != "fieldManager"):
                problems.append("%s: want the 422 for an empty field manager, got %s" % (ident(cfg), st))
            continue
        if replace:
            if live is None:
                st = statuses.pop(0) if statuses else {}
                if st.get("reason") != "NotFound" or st.get("code") != 404:
                    problems.append("%s: want NotFound, got %s" % (ident(cfg), st))
                continue
            if md.get("resourceVersion") and md["resourceVersion"] != live["metadata"].get("resourceVersion"):
                st = statuses.pop(0) if statuses else {}
                if st.get("reason") != "Conflict" or st.get("code") != 409:
                    problems.append("%s: want Conflict, got %s" % (ident(cfg), st))
                continue
            for k in KEPT:
                if k in live["metadata"]:
                    md[k] = live["metadata"][k]
                else:
                    md.pop(k, None)
            if group(cfg["apiVersion"]) != "example.com":
                cfg.pop("status", None)
                if "status" in live:
                    cfg["status"] = live["status"]
        ans = prog.ask({"id": "x", "live": live, "config": cfg, "manager": manager, "force": force,
                        "op": "update" if replace or create else "apply"})
        if ans["ok"]:
            if not objs:
                problems.append("%s: the oracle accepts it, smpatch printed no object" % (ident(cfg),))
                continue
            o = objs.pop(0)
            mf = o.get("metadata", {}).pop("managedFields", None)
            want = ans["object"]
            if o != want:
                problems.append("%s: object differs:\n  smpatch %s\n  oracle  %s" % (
                    ident(cfg), json.dumps(o, sort_keys=True), json.dumps(want, sort_keys=True)))
            lmf = (live or {}).get("metadata", {}).get("managedFields")
            omf = oracle_times(ans["managedFields"], lmf, now)
            if (mf or []) != omf:
                problems.append("%s: managedFields differ:\n  smpatch %s\n  oracle  %s" % (
                    ident(cfg), json.dumps(mf), json.dumps(omf)))
            # the next configuration of the same object sees this one's result
            nxt = copy.deepcopy(o)
            if mf:
                nxt["metadata"]["managedFields"] = mf
            lives[ident(cfg)] = nxt
            continue
        st = statuses.pop(0) if statuses else {}
        if ans["conflicts"]:
            want = [{"reason": "FieldManagerConflict", "message": cause_message(c), "field": c["path"]}
                    for c in ans["conflicts"]]
            have = (st.get("details") or {}).get("causes")
            if st.get("reason") != "Conflict" or st.get("code") != 409 or have != want:
                problems.append("%s: conflicts differ:\n  smpatch %s\n  oracle  %s" % (
                    ident(cfg), json.dumps(st), json.dumps(want)))
        elif (ans["error"] or "").startswith(TYPED + ": "):
            # the field manager's typing error: the API server answers it as
            # an unknown error (500, no reason), naming the object (checked
            # against kube-apiserver v1.32.4, tests/realserver)
            g, _, v = cfg["apiVersion"].rpartition("/")
            md = cfg.get("metadata") or {}
            msg = "%s (%s/%s; %s/%s, Kind=%s): %s" % (
                TYPED, md.get("namespace", "default"), md.get("name", ""), g, v, cfg["kind"],
                ans["error"][len(TYPED) + 2:])
            want = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": msg, "code": 500}
            if st != want:
                problems.append("%s: the oracle rejects it (%s); smpatch printed %s, not %s" % (
                    ident(cfg), ans["error"], json.dumps(st), json.dumps(want)))
        elif st.get("kind") != "Status" or st.get("status") != "Failure" or st.get("code") not in (400, 422):
            problems.append("%s: the oracle rejects it (%s); smpatch printed %s" % (
                ident(cfg), ans["error"], json.dumps(st)))
    if objs or statuses:
        problems.append("smpatch printed more than the oracle answered: %s" % json.dumps(objs + statuses))
    return problems


TYPED = "failed to create typed patch object"


def main():
    if not os.access(ORACLE, os.X_OK):
        print("SKIP: the oracle (%s) is not built" % ORACLE)
        sys.exit(77)
    sw = os.path.join(SHARED, "openapi", "kubernetes-1.36.swagger.json")
    with open(os.path.join(CASES, "..", "ssa", "schemas", "widgets.definitions.json")) as f:
        defs = json.load(f)
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ssa-cli-oracle-%d.json" % os.getpid())
    prog = Program([ORACLE, "-swagger", merged_swagger(SHARED, defs, tmp)])
    checked = failed = 0
    try:
        for name in sorted(os.listdir(CASES)):
            case = os.path.join(CASES, name)
            if not os.path.isdir(case):
                continue
            for run in sorted(os.listdir(case)):
                if run != "args" and not run.startswith("args."):
                    continue
                problems = check_run(case, run, prog)
                if problems is None:
                    continue
                checked += 1
                if problems:
                    failed += 1
                    print("FAIL %s/%s:\n  %s" % (name, run, "\n  ".join(problems)))
    finally:
        prog.close()
        if os.path.exists(tmp):
            os.remove(tmp)
    print("%d runs checked against the oracle, %d differ" % (checked, failed))
    if checked < 10:
        print("FAIL: fewer than 10 runs to check")
        sys.exit(1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
