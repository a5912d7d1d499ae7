#!/usr/bin/env python3
"""manifests_diff.py SMPATCH FAKE_APISERVER MANIFESTS_DIR

Differential test on real projects' manifests (testdata/manifests, see its
README): every object of every file, applied three times by `kubectl apply`
against the stand-in API server (tests/cli/fake_apiserver.c, which records
the request kubectl sends) and by `smpatch apply -o patch`:

  create     no live object: kubectl POSTs the object; smpatch must plan a
             create with the same body.
  unchanged  the live object is what kubectl created (its POST body, plus
             the fields a server adds: uid, resourceVersion, ...): kubectl
             sends nothing; smpatch must say unchanged.
  modified   the same live object, the file changed (a label added, one
             removed, the last item of a list of objects dropped, two list
             items swapped, a number and a string changed, none of them one
             the server keeps immutable): the PATCH kubectl sends (type and
             body) must be the one smpatch plans.

Bodies are compared as JSON values. Exits 0 when all agree, 1 otherwise, 77
(skip) without kubectl.
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SMP, FAKE, ROOT = (os.path.abspath(a) for a in sys.argv[1:4])

if not shutil.which("kubectl"):
    print("kubectl is not on PATH: manifests differential test skipped")
    sys.exit(77)


def documents(path):
    """The YAML documents of a file, as text (split on `---` lines), without
    the ones holding only comments."""
    docs, cur = [], []
    with open(path) as fh:
        for line in fh:
            if line.rstrip() == "---" or line.startswith("--- "):
                docs.append("".join(cur))
                cur = []
            else:
                cur.append(line)
    docs.append("".join(cur))
    out = []
    for d in docs:
        if any(l.strip() and not l.lstrip().startswith("#") for l in d.splitlines()):
            out.append(d)
    return out


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def ident(obj):
    md = obj.get("metadata") or {}
    return "%s/%s" % (obj.get("kind"), md.get("name"))


def with_server_fields(obj):
    """The object as a server shows it after the create."""
    live = copy.deepcopy(obj)
    md = live.setdefault("metadata", {})
    md.setdefault("uid", "6f1c0e52-0d1b-4c8e-9a57-3b1f0c2d4e5f")
    md.setdefault("resourceVersion", "4711")
    md.setdefault("creationTimestamp", "2026-01-01T00:00:00Z")
    md.setdefault("generation", 1)
    return live


# What a change would make the API server refuse (and smpatch predicts
# that refusal): a workload's selector (immutable) and its template's
# labels (the selector must match them), a Secret's type (immutable) and
# data (base64).
IMMUTABLE = (".spec.selector", ".spec.template.metadata.labels", ".type", ".data")


def mutate(obj):
    """A changed configuration: see the module docstring. Returns (object,
    what changed)."""
    o = copy.deepcopy(obj)
    done = []
    md = o.setdefault("metadata", {})
    labels = md.get("labels")
    if isinstance(labels, dict) and labels:
        first = sorted(labels)[0]
        del labels[first]
        done.append("-label " + first)
    md.setdefault("labels", {})["smpatch.test/changed"] = "yes"
    done.append("+label")
    state = {"objlist": False, "strlist": False, "int": False, "str": False}

    def walk(v, path):
        if isinstance(v, dict):
            for k in list(v):
                if path == "" and k in ("apiVersion", "kind", "metadata"):
                    continue
                if (path + "." + k) in IMMUTABLE and (k != "data" or o.get("kind") == "Secret"):
                    continue  # the API server would refuse the change
                x = v[k]
                p = path + "." + k
                if isinstance(x, bool):
                    continue
                if isinstance(x, int) and not state["int"]:
                    v[k] = x + 1
                    state["int"] = True
                    done.append(p + " +1")
                elif isinstance(x, str) and not state["str"] and k not in ("apiVersion", "kind"):
                    v[k] = x + "-changed"
                    state["str"] = True
                    done.append(p + " changed")
                else:
                    walk(x, p)
        elif isinstance(v, list):
            if len(v) >= 2 and all(isinstance(i, dict) for i in v) and not state["objlist"]:
                v.pop()
                state["objlist"] = True
                done.append(path + " last item dropped")
            elif len(v) >= 2 and all(isinstance(i, str) for i in v) and not state["strlist"]:
                v[0], v[1] = v[1], v[0]
                state["strlist"] = True
                done.append(path + " items 0 and 1 swapped")
            for i, x in enumerate(v):
                walk(x, "%s[%d]" % (path, i))

    walk(o, "")
    return o, ", ".join(done)


def main():
    tmp = tempfile.mkdtemp()
    server = None
    try:
        with open(os.path.join(tmp, "kubeconfig"), "w") as fh:
            fh.write("apiVersion: v1\nkind: Config\n")
        env = dict(os.environ, KUBECONFIG=os.path.join(tmp, "kubeconfig"))
        state = os.path.join(tmp, "state")
        os.mkdir(state)
        portfile = os.path.join(tmp, "port")
        server = subprocess.Popen([FAKE, state, portfile])
        for _ in range(100):
            if os.path.exists(portfile) and os.path.getsize(portfile):
                break
            time.sleep(0.1)
        url = "http://127.0.0.1:" + open(portfile).read().strip()
        kubectl = ["kubectl", "--server=" + url, "--cache-dir=" + os.path.join(tmp, "cache"),
                   "apply", "--validate=false", "-f"]
        live_json = os.path.join(state, "live.json")
        req_json = os.path.join(state, "request.json")
        req_type = os.path.join(state, "request.type")
        passed, failed, projects = 0, [], set()

        def kubectl_apply(path):
            for f in (req_json, req_type):
                if os.path.exists(f):
                    os.remove(f)
            r = run(kubectl + [path], env=env)
            if r.returncode:
                return None, "kubectl failed: " + r.stderr.strip()
            if not os.path.exists(req_type):
                return ("none", None), None
            method, ctype = open(req_type).read().split()[:2]
            return (method + " " + ctype.split(";")[0], json.load(open(req_json))), None

        def smpatch_apply(path, live):
            args = [SMP, "apply", "-f", path, "-o", "patch"]
            if live:
                args += ["--live", live]
            r = run(args)
            if r.returncode:
                return None, "smpatch failed (%d): %s" % (r.returncode, r.stderr.strip())
            line = json.loads(r.stdout)
            action = line["action"]
            if action == "create":
                return ("POST application/json", line["patch"]), None
            if action == "unchanged":
                return ("none", None), None
            return ("PATCH " + line["patchType"], line["patch"]), None

        def check(name, step, path, live):
            nonlocal passed
            k, kerr = kubectl_apply(path)
            s, serr = smpatch_apply(path, live)
            if kerr or serr or k != s:
                failed.append("%s %s" % (name, step))
                print("FAIL %s (%s)" % (name, step))
                for e in (kerr, serr):
                    if e:
                        print("  " + e)
                if k and s and k != s:
                    print("  kubectl: %s %s" % (k[0], json.dumps(k[1], sort_keys=True)))
                    print("  smpatch: %s %s" % (s[0], json.dumps(s[1], sort_keys=True)))
                return None
            passed += 1
            return k

        for project in sorted(os.listdir(ROOT)):
            pdir = os.path.join(ROOT, project)
            if not os.path.isdir(pdir):
                continue
            for fname in sorted(os.listdir(pdir)):
                if not fname.endswith(".yaml"):
                    continue
                for i, doc in enumerate(documents(os.path.join(pdir, fname))):
                    cfg = os.path.join(tmp, "config.yaml")
                    with open(cfg, "w") as fh:
                        fh.write(doc)
                    r = run([SMP, "convert", "-o", "json", cfg])
                    if r.returncode:
                        failed.append("%s/%s#%d" % (project, fname, i))
                        print("FAIL %s/%s#%d: smpatch convert: %s" % (project, fname, i,
                                                                     r.stderr.strip()))
                        continue
                    obj = json.loads(r.stdout)
                    name = "%s/%s %s" % (project, fname, ident(obj))
                    projects.add(project)
                    if os.path.exists(live_json):
                        os.remove(live_json)
                    created = check(name, "create", cfg, None)
                    if not created:
                        continue
                    live = with_server_fields(created[1])
                    with open(live_json, "w") as fh:
                        json.dump(live, fh)
                    check(name, "unchanged", cfg, live_json)
                    mod, what = mutate(obj)
                    mpath = os.path.join(tmp, "modified.json")
                    with open(mpath, "w") as fh:
                        json.dump(mod, fh)
                    check(name, "modified: " + what, mpath, live_json)
        print("manifests differential: %d projects, %d checks agree, %d differ"
              % (len(projects), passed, len(failed)))
        return 1 if failed or not passed else 0
    finally:
        if server:
            server.kill()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


sys.exit(main())
