"""applyset_check.py STATE MARK BEFORE OPTIONS_JSON CONFIG...

smpatch's plan of CONFIG... against BEFORE (the stand-in's objects before
kubectl ran), through the Python binding, compared with what kubectl 1.32
did to the stand-in API server (tests/cli/applyset_server.sh): the writes
it sent after line MARK of STATE/requests.jsonl, in order (method, object,
content type, field manager, force, body), and the objects stored after
them in STATE/objects.json (the ApplySet's parent after its last apply,
managedFields included; the members without them in client-side mode,
where smpatch computes none). resourceVersion, uid, creationTimestamp and
the managedFields times are the server's own and left out. Exit 1 with
the first difference.
"""
import json
import sys
import urllib.parse

import smpatch

state, mark, before, options = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
configs = sys.argv[5:]
options = json.loads(options)


def query(q, key):
    v = urllib.parse.parse_qs(q).get(key)
    return v[0] if v else None


def untimed(v):
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if k != "time"}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


def server_owned(o, managed):
    o = json.loads(json.dumps(o))
    md = o.get("metadata", {})
    for f in ("resourceVersion", "uid", "creationTimestamp", "generation"):
        md.pop(f, None)
    if not managed:
        md.pop("managedFields", None)
    return untimed(o)


def fail(msg):
    print(msg)
    sys.exit(1)


reqs = [json.loads(line) for line in open(state + "/requests.jsonl")][mark:]
kubectl = []
for r in reqs:
    if r["method"] == "GET":
        continue
    name = r["path"].rsplit("/", 1)[1] if r["method"] != "POST" else r["body"]["metadata"]["name"]
    kubectl.append((r["method"], name, r["contentType"] if r["method"] != "DELETE" else None,
                    query(r["query"], "fieldManager"),
                    query(r["query"], "force") == "true", r["body"]))

plan = smpatch.Plan(**options)
for c in configs:
    plan.add_config(open(c).read(), file=c)
plan.add_live(open(before).read(), file=before)
plan.compute()
ours = []
for e in plan:
    for r in e.requests:
        ours.append((r["method"], e.name, r["content_type"] if r["method"] != "DELETE" else None,
                     r["field_manager"], r["force"], r["body"]))
if len(ours) != len(kubectl):
    fail("%d writes, kubectl sent %d:\n smpatch %s\n kubectl %s"
         % (len(ours), len(kubectl), [o[:2] for o in ours], [k[:2] for k in kubectl]))
for i, (a, b) in enumerate(zip(ours, kubectl)):
    if a != b:
        fail("write %d:\n smpatch %s\n kubectl %s" % (i + 1, a, b))

stored = {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o
          for o in json.load(open(state + "/objects.json"))["items"]}
parents = [e for e in plan if e.applyset_parent]
if not parents or not plan[0].applyset_parent:
    fail("the parent's first apply is not the first entry")
server_side = options.get("mode") == "server-side"
seen = 0
for e in plan:
    key = (e.kind, e.namespace, e.name)
    if e.action == "prune":
        if key in stored:
            fail("%s pruned by smpatch, still stored after kubectl" % (key,))
        continue
    if e.applyset_parent and e is not parents[-1]:
        continue
    managed = server_side or e.applyset_parent
    got, want = server_owned(e.object, managed), server_owned(stored.get(key), managed)
    if got != want:
        fail("%s:\n smpatch %s\n stored  %s" % (key, got, want))
    seen += 1
print("same %d writes and %d objects as kubectl" % (len(ours), seen))
