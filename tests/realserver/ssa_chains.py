#!/usr/bin/env python3
"""ssa_chains.py REALSERVER SMPATCH SOURCE_DIR - judged suite (c):
server-side apply chains on the real API server.

The chains of the differential test (tests/ssa/chains.py: applies by
several managers, with force now and then, kubectl's own applies, updates
by PUT, creates by POST) of Deployments, Services and ConfigMaps, one
object per chain, are replayed on the real server: each step's request is
sent as kubectl sends it (an apply: PATCH application/apply-patch+yaml with
fieldManager and force; an update: PUT; a create: POST; kubectl's
User-Agent), and smpatch plans the same step through the Python binding
over the library (`smpatch.apply(config, live, mode=..., field_manager=...,
force_conflicts=..., stored=True)`) from the live object as the server
held it before the step (read with GET), given the time the server wrote
into the step's managedFields entry as its clock (times are masked; they
decide the entries' order). The server's answer must be the prediction: the stored object and its
managedFields (modulo judge.MASK), or the same Status for a conflict (409)
or a refusal smpatch predicts. A refusal smpatch does not predict yet (the
server's validation: issue 31) is counted apart; smpatch refusing what the
server accepts is a disagreement. The next step's live object is the
server's. SSA_CHAINS_COUNT chains (default 150; SMP_JUDGE_FULL=1: 1000),
SSA_CHAINS_SEED (default 1).
"""
import copy
import json
import os
import random
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import judge  # noqa: E402

NOW = "2026-01-01T00:00:00Z"


def resource_path(obj):
    av, kind = obj["apiVersion"], obj["kind"]
    ns = obj["metadata"].get("namespace", "default")
    plural = {"Deployment": "deployments", "Service": "services", "ConfigMap": "configmaps"}[kind]
    base = "/api/v1" if av == "v1" else "/apis/" + av
    return "%s/namespaces/%s/%s" % (base, ns, plural), obj["metadata"]["name"]


# kubectl's User-Agent: an update without a field manager is recorded as
# kubectl's, as the plan (mode create and replace) assumes.
KUBECTL_UA = "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd"


def send(srv, case):
    """(status, answer) of the step on the real server."""
    cfg = case["config"]
    coll, name = resource_path(cfg)
    ua = KUBECTL_UA
    q = {}
    if case["manager"]:
        q["fieldManager"] = case["manager"]
    if case["op"] == "apply":
        q["force"] = "true" if case["force"] else "false"
        return srv.request("PATCH", coll + "/" + name, cfg, "application/apply-patch+yaml",
                           urllib.parse.urlencode(q), ua)
    q["fieldValidation"] = "Strict"
    if case["live"] is None:
        return srv.request("POST", coll, cfg, "application/json", urllib.parse.urlencode(q), ua)
    return srv.request("PUT", coll + "/" + name, cfg, "application/json", urllib.parse.urlencode(q),
                       ua)


def canon_status(st):
    """A Status as JSON text for comparison, in judge.canon_status's form
    (the causes the server lists in Go's map order sorted)."""
    return json.dumps(judge.canon_status(st), sort_keys=True)


def newest_time(answer):
    """judge.newest_time of the server's answer, NOW without one."""
    return judge.newest_time(answer) or NOW


def predict(smpatch, case, live, now):
    """The plan's entry for the step."""
    op, mgr = case["op"], case["manager"]
    mode = "server-side" if op == "apply" else "create" if live is None else "replace"
    opts = {"mode": mode, "stored": True, "now": now, "validate": "strict",
            "field_manager": mgr}
    if op == "apply":
        opts["force_conflicts"] = case["force"]
    return smpatch.apply([case["config"]], [live] if live else None, **opts)[0]


def main():
    realserver, program, src, started = judge.suite_args(__doc__)
    try:
        import smpatch
    except ImportError as e:
        judge.skip_or_fail("the Python binding does not load: %s" % e)
    sys.path.insert(0, os.path.join(src, "tests", "ssa"))
    import chains  # noqa: E402
    full = os.environ.get("SMP_JUDGE_FULL") == "1"
    count = int(os.environ.get("SSA_CHAINS_COUNT", "1000" if full else "150"))
    seed = int(os.environ.get("SSA_CHAINS_SEED", "1"))
    r = random.Random(seed)
    kinds = [(k, w) for k, w in chains.KIND_WEIGHTS if k != "widget"]
    agree = total = unpredicted = kubectl_refused = 0
    reasons = {}
    missed = []
    with judge.Server(realserver) as srv:
        for i in range(count):
            c = chains.Chain(random.Random(r.getrandbits(64)), i, kinds)
            c.skel = copy.deepcopy(c.skel)
            c.skel["metadata"]["name"] = "%s-%d" % (c.skel["metadata"]["name"], i)
            rnd = 0
            while c.steps > 0:
                rnd += 1
                case, _tags = c.next_step("c%d-s%d" % (i, rnd))
                c.steps -= 1
                cfg = case["config"]
                md = cfg.setdefault("metadata", {}) if isinstance(cfg, dict) else {}
                if isinstance(md, dict):
                    md["name"] = c.skel["metadata"]["name"]
                meta = cfg.get("metadata") if isinstance(cfg, dict) else None
                if any(not isinstance((meta or {}).get(k, {}), dict)
                       for k in ("labels", "annotations")):
                    # kubectl refuses it before sending (the metadata does
                    # not decode into ObjectMeta; smpatch too, with
                    # kubectl's message: tests/cli's differentials)
                    kubectl_refused += 1
                    continue
                coll, name = resource_path(c.skel)
                st, live = srv.request("GET", coll + "/" + name)
                live = live if st == 200 else None
                case["live"] = live
                status, answer = send(srv, case)
                try:
                    e = predict(smpatch, case, live, newest_time(answer))
                except smpatch.Error as err:
                    e = None
                    perr = str(err)
                total += 1
                ok = 200 <= status < 300
                if e is None:
                    if ok:
                        print("DIFFER %s: the server accepts it, smpatch fails: %s" % (case["id"], perr))
                    else:
                        unpredicted += 1
                        total -= 1
                    continue
                failed = e.action in ("error", "conflict")
                if ok and failed:
                    print("DIFFER %s: the server accepts it (%d), smpatch: %s" %
                          (case["id"], status, json.dumps(e.server_status)[:400]))
                elif not ok and not failed:
                    unpredicted += 1
                    total -= 1
                    rs = (answer or {}).get("reason", "?") if isinstance(answer, dict) else "?"
                    reasons[rs] = reasons.get(rs, 0) + 1
                    if isinstance(answer, dict):
                        missed.append("%s: %s" % (case["id"], answer.get("message", "")[:300]))
                elif not ok:
                    if canon_status(answer) == canon_status(e.server_status):
                        agree += 1
                    else:
                        print("DIFFER %s (%s):\n  server    %s\n  predicted %s" % (
                            case["id"], case["op"], json.dumps(answer, sort_keys=True)[:600],
                            json.dumps(e.server_status, sort_keys=True)[:600]))
                else:
                    d = judge.differences(judge.masked(answer), judge.masked(e.object))
                    if not d:
                        agree += 1
                    else:
                        print("DIFFER %s (%s %s by %r): %s" % (
                            case["id"], case["op"], "create" if live is None else "update",
                            case["manager"], "; ".join(d[:5])))
                if ok:
                    # the server's object is the chain's live one, its
                    # resourceVersion as it is
                    c.advance({"ok": True, "object": answer,
                               "managedFields": answer["metadata"].get("managedFields"),
                               "changed": False})
                    c.live = copy.deepcopy(answer)
    for m in missed:
        print("NOT PREDICTED " + m)
    print("steps: %d compared, %d refused by the server and not predicted yet (%s), "
          "%d not sent (kubectl refuses them)" % (
              total, unpredicted, ", ".join("%s %d" % kv for kv in sorted(reasons.items())),
              kubectl_refused))
    judge.report("ssa_chains", agree, total, started)


if __name__ == "__main__":
    main()
