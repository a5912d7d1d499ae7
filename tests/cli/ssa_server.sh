#!/bin/sh
# ssa_server.sh FAKE_APISERVER ORACLE SHARED_DIR SMPATCH
# The stand-in API server's server-side mode (fake_apiserver STATE PORT
# ORACLE): every write computed by the server-side apply reference, so that
# kubectl 1.32 runs its follow-up requests against real replies. Checked
# here with kubectl itself:
# - kubectl apply (client-side) creates a ConfigMap: a POST as
#   kubectl-client-side-apply, stored with that manager's Update entry;
# - kubectl apply --server-side of a new configuration (one key dropped, one
#   added) migrates it as kubectl 1.32 does: an apply as kubectl, an apply as
#   kubectl-last-applied keeping the annotation, a JSON patch replacing
#   /metadata/managedFields and /metadata/resourceVersion, the apply again;
#   the dropped key is gone and kubectl-client-side-apply owns nothing;
#   smpatch apply --server-side of the same configuration against the
#   object as it was lists the same four requests with -o patch (methods,
#   content types, managers, bodies; the JSON patch's resourceVersion and
#   the entries' times aside, which only the server knows) and gives the
#   same stored object and managedFields with -o json; the same for a
#   Deployment (a container and an env var dropped, one added), after a
#   first attempt changing an image that kubectl-client-side-apply owns
#   conflicts in both;
# - another manager changing kubectl's field: the 409 conflict kubectl
#   reports ("conflict with "kubectl": .data.a"); an empty --field-manager=:
#   the server's 422; kubectl create: a POST as kubectl-create, and the
#   second one AlreadyExists.
# Skips (77) without kubectl, the oracle or the swagger document.
fake=$1 oracle=$2 shared=$3 smpatch=$4
. "$(cd "$(dirname "$0")" && pwd)/standin_ssa.sh"
cm() { # NAME KEY=VALUE...: a ConfigMap in default
	n=$1
	shift
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: default\ndata:\n' "$n"
	for kv in "$@"; do printf '  %s: "%s"\n' "${kv%%=*}" "${kv#*=}"; done
}
fail=0
# smpatch's plan of CONFIG against $tmp/before.json (the object before
# kubectl's apply): -o patch and -o json into $tmp/state/smpatch.*
smpatch_plan() { # CONFIG
	SMPATCH_NOW=2024-01-01T00:00:09Z "$smpatch" apply --server-side -f "$1" \
		--live "$tmp/before.json" -o patch >"$tmp/state/smpatch.patch" 2>/dev/null ||
		{ echo "FAIL: smpatch apply --server-side -f $1 -o patch"; fail=1; }
	SMPATCH_NOW=2024-01-01T00:00:09Z "$smpatch" apply --server-side -f "$1" \
		--live "$tmp/before.json" -o json --show-managed-fields >"$tmp/state/smpatch.json" \
		2>/dev/null || { echo "FAIL: smpatch apply --server-side -f $1 -o json"; fail=1; }
}
check() { # WHAT: python3 reads requests.jsonl and objects.json; exit 1 fails
	what=$1
	shift
	if ! python3 - "$tmp/state" "$@"; then
		echo "FAIL: $what"
		fail=1
	else
		echo "ok   $what"
	fi
}

cm cm a=1 b=2 >"$tmp/v1.yaml"
cm cm a=1 c=3 >"$tmp/v2.yaml"
k apply -f "$tmp/v1.yaml" >/dev/null || { echo "FAIL: kubectl apply (client-side)"; exit 1; }
wc -l <"$tmp/state/requests.jsonl" >"$tmp/state/mark"
check "client-side create: POST as kubectl-client-side-apply, its Update entry" <<'EOF'
import json, sys
st = sys.argv[1]
reqs = [json.loads(l) for l in open(st + "/requests.jsonl")]
posts = [r for r in reqs if r["method"] == "POST"]
assert len(posts) == 1 and "fieldManager=kubectl-client-side-apply" in posts[0]["query"], posts
obj = json.load(open(st + "/objects.json"))["items"][0]
mf = obj["metadata"]["managedFields"]
assert [(m["manager"], m["operation"]) for m in mf] == [("kubectl-client-side-apply", "Update")], mf
assert obj["data"] == {"a": "1", "b": "2"}, obj["data"]
EOF

cp "$tmp/state/objects.json" "$tmp/before.json"
k apply --server-side -f "$tmp/v2.yaml" >/dev/null || { echo "FAIL: kubectl apply --server-side"; exit 1; }
smpatch_plan "$tmp/v2.yaml"
check "the migration to server-side: kubectl 1.32's four writes, the dropped key gone" "$(cat "$tmp/state/mark")" <<'EOF'
import json, sys
st, mark = sys.argv[1], int(sys.argv[2])
reqs = [json.loads(l) for l in open(st + "/requests.jsonl")][mark:]
writes = [(r["method"], r["contentType"],
           [q.split("=", 1)[1] for q in r["query"].split("&") if q.startswith("fieldManager=")])
          for r in reqs if r["method"] != "GET"]
want = [("PATCH", "application/apply-patch+yaml", ["kubectl"]),
        ("PATCH", "application/apply-patch+yaml", ["kubectl-last-applied"]),
        ("PATCH", "application/json-patch+json", ["kubectl"]),
        ("PATCH", "application/apply-patch+yaml", ["kubectl"])]
assert writes == want, writes
jp = [r["body"] for r in reqs if r["contentType"] == "application/json-patch+json"][0]
assert [(o["op"], o["path"]) for o in jp] == [("replace", "/metadata/managedFields"),
                                             ("replace", "/metadata/resourceVersion")], jp
last = [r["body"] for r in reqs if "kubectl-last-applied" in r["query"]][0]
assert "kubectl.kubernetes.io/last-applied-configuration" in last["metadata"]["annotations"]
obj = json.load(open(st + "/objects.json"))["items"][0]
assert obj["data"] == {"a": "1", "c": "3"}, obj["data"]
mf = obj["metadata"]["managedFields"]
assert [(m["manager"], m["operation"]) for m in mf] == [("kubectl-last-applied", "Apply"),
                                                        ("kubectl", "Apply")], mf
assert mf[1]["fieldsV1"] == {"f:data": {"f:a": {}, "f:c": {}}}, mf[1]
EOF
same_as_kubectl() { # WHAT MARK NAME: smpatch.patch/.json against kubectl's requests since MARK
	check "$1" "$2" "$3" <<'EOF'
import json, sys
st, mark, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def q(query, k):
    return [p.split("=", 1)[1] for p in query.split("&") if p.startswith(k + "=")]
def untimed(v):
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if k != "time"}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v
reqs = [json.loads(l) for l in open(st + "/requests.jsonl")][mark:]
kubectl = [(r["method"], r["contentType"], q(r["query"], "fieldManager")[0], r["body"])
           for r in reqs if r["method"] != "GET"]
line = json.loads(open(st + "/smpatch.patch").read())
ours = [(x["method"], x["patchType"], x["fieldManager"], x["patch"]) for x in line["requests"]]
assert len(ours) == len(kubectl) == 4, (len(ours), len(kubectl))
for i, (a, b) in enumerate(zip(ours, kubectl)):
    if a[1] == "application/json-patch+json":
        # the resourceVersion the server gave after the request before
        a = a[:3] + ([a[3][0], dict(a[3][1], value="")],)
        b = b[:3] + ([b[3][0], dict(b[3][1], value="")],)
    assert untimed(list(a)) == untimed(list(b)), "request %d:\n smpatch %s\n kubectl %s" % (i + 1, a, b)
got = json.load(open(st + "/smpatch.json"))
want = [o for o in json.load(open(st + "/objects.json"))["items"] if o["metadata"]["name"] == name][0]
for o in (got, want):
    for f in ("resourceVersion", "uid", "creationTimestamp"):
        o["metadata"].pop(f, None)
assert untimed(got) == untimed(want), "object:\n smpatch %s\n stored  %s" % (got, want)
EOF
}
same_as_kubectl "smpatch's migration of a ConfigMap: kubectl's four requests and the stored object" \
	"$(cat "$tmp/state/mark")" cm

# The same for a Deployment (associative lists: containers by name, env
# by name): one container and an env var dropped, one added.
deploy() { # FILE IMAGE CONTAINERS ENV...
	f=$1 img=$2 n=$3
	shift 3
	{
		printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\n'
		printf 'spec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n'
		printf '    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n'
		printf '      - name: app\n        image: %s\n        env:\n' "$img"
		for e in "$@"; do printf '        - {name: %s, value: "1"}\n' "$e"; done
		[ "$n" = 2 ] && printf '      - name: sidecar\n        image: busybox:1.36\n'
	} >"$f"
}
deploy "$tmp/d1.yaml" nginx:1.25 2 A B
deploy "$tmp/d2.yaml" nginx:1.25 1 A C
deploy "$tmp/d3.yaml" nginx:1.27 1 A C
k apply -f "$tmp/d1.yaml" >/dev/null || { echo "FAIL: kubectl apply of the Deployment"; exit 1; }
# first, a new image: kubectl-client-side-apply owns it, so the first
# server-side apply conflicts (what users meet on the upgrade), in both
k apply --server-side -f "$tmp/d3.yaml" >/dev/null 2>"$tmp/k.err"
krc=$?
"$smpatch" apply --server-side -f "$tmp/d3.yaml" --live "$tmp/state/objects.json" >/dev/null 2>"$tmp/s.err"
src=$?
want='conflict with "kubectl-client-side-apply" using apps/v1: .spec.template.spec.containers[name="app"].image'
if [ $krc = 0 ] || [ $src != 4 ] || ! grep -qF "$want" "$tmp/k.err" || ! grep -qF "$want" "$tmp/s.err"; then
	echo "FAIL: the upgrade's conflict: kubectl exit $krc, smpatch exit $src: $(head -1 "$tmp/s.err")"
	fail=1
else
	echo "ok   the upgrade's conflict with kubectl-client-side-apply, as kubectl meets it"
fi
wc -l <"$tmp/state/requests.jsonl" >"$tmp/state/mark"
cp "$tmp/state/objects.json" "$tmp/before.json"
k apply --server-side -f "$tmp/d2.yaml" >/dev/null || { echo "FAIL: kubectl apply --server-side of the Deployment"; exit 1; }
smpatch_plan "$tmp/d2.yaml"
same_as_kubectl "smpatch's migration of a Deployment: kubectl's four requests and the stored object" \
	"$(cat "$tmp/state/mark")" web
check "the Deployment after the migration: the sidecar and env B gone" <<'EOF'
import json, sys
objs = {o["metadata"]["name"]: o for o in json.load(open(sys.argv[1] + "/objects.json"))["items"]}
cs = objs["web"]["spec"]["template"]["spec"]["containers"]
assert [c["name"] for c in cs] == ["app"], cs
assert [e["name"] for e in cs[0]["env"]] == ["A", "C"], cs[0]["env"]
EOF

cm cm a=9 >"$tmp/v3.yaml"
if k apply --server-side --field-manager=other -f "$tmp/v3.yaml" >"$tmp/out" 2>"$tmp/err" ||
	! grep -q 'Apply failed with 1 conflict: conflict with "kubectl": .data.a' "$tmp/err"; then
	echo "FAIL: a conflict: $(head -3 "$tmp/err")"
	fail=1
else
	echo "ok   another manager's change of kubectl's field: the 409 conflict"
fi
if k apply --server-side --field-manager= -f "$tmp/v3.yaml" >"$tmp/out" 2>"$tmp/err" ||
	! grep -q 'fieldManager: Required value: is required for apply patch' "$tmp/err"; then
	echo "FAIL: an empty field manager: $(head -3 "$tmp/err")"
	fail=1
else
	echo "ok   an empty --field-manager=: the server's 422"
fi
cm made x=1 >"$tmp/made.yaml"
k create -f "$tmp/made.yaml" >/dev/null || { echo "FAIL: kubectl create"; fail=1; }
if k create -f "$tmp/made.yaml" >"$tmp/out" 2>"$tmp/err" ||
	! grep -q 'AlreadyExists.*configmaps "made" already exists' "$tmp/err"; then
	echo "FAIL: a second create: $(head -3 "$tmp/err")"
	fail=1
fi
check "kubectl create: a POST as kubectl-create, its Update entry" <<'EOF'
import json, sys
st = sys.argv[1]
objs = {o["metadata"]["name"]: o for o in json.load(open(st + "/objects.json"))["items"]}
mf = objs["made"]["metadata"]["managedFields"]
assert [(m["manager"], m["operation"]) for m in mf] == [("kubectl-create", "Update")], mf
assert objs["made"]["metadata"]["uid"] and objs["made"]["metadata"]["resourceVersion"]
assert objs["cm"]["data"] == {"a": "1", "c": "3"}, "a refused write changed the object"
EOF
exit $fail
