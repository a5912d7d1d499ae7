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
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_objects  # noqa: E402
import judge  # noqa: E402
import stored  # noqa: E402


def newest_time(obj):
    mf = (obj.get("metadata") or {}).get("managedFields") or []
    times = [m.get("time") for m in mf if m.get("time")]
    return max(times) if times else None


def content(obj):
    """The object as -o diff compares it: without managedFields, and without
    what the server rewrites on every write (resourceVersion, generation
    aside, the mask)."""
    o = judge.masked(obj)
    (o.get("metadata") or {}).pop("managedFields", None)
    return json.dumps(o, sort_keys=True)


def run_smpatch(program, cfg, live, now, *args):
    env = dict(os.environ)
    if now:
        env["SMPATCH_NOW"] = now
    else:
        env.pop("SMPATCH_NOW", None)
    argv = [program, "apply", "-f", cfg] + (["--live", live] if live else []) + list(args)
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


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


def main():
    realserver, program, src, started = judge.suite_args(__doc__)
    objs = []
    for path in stored.source_files(src):
        if os.sep + "manifests" + os.sep in path:
            objs += [(os.path.relpath(path, src), o) for o in stored.objects_of(program, path)]
    objs += [("generated:" + n, o) for n, o in gen_objects.objects() if "-full" in n]
    agree = total = skipped = 0
    with judge.Server(realserver) as srv, tempfile.TemporaryDirectory() as tmp:
        cfgp, livep = os.path.join(tmp, "config.json"), os.path.join(tmp, "live.json")
        for where, obj in sorted(objs, key=lambda x: x[1]["kind"] != "Namespace"):
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
                                              newest_time(after), "--dry-run=server", "-o", "json",
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
    print("chains: %d objects (%d not created: refused or not served)" % (len(objs), skipped))
    judge.report("csa_chains", agree, total, started)


if __name__ == "__main__":
    main()
