#!/bin/sh
# applyset_server.sh FAKE_APISERVER ORACLE SHARED_DIR SMPATCH
# kubectl 1.32's ApplySet (KUBECTL_APPLYSET=true kubectl apply --prune
# --applyset=...) against the stand-in API server's server-side mode
# (every write computed by the server-side apply reference), and smpatch's
# plan of the same step against the objects as they were, through the
# Python binding (applyset_check.py: the same writes in the same order,
# the same stored objects, the parent's included) and the program (-o
# patch: the same bodies, the parent's lines marked):
# - client-side, a Secret parent created: its apply as kubectl-applyset
#   (the ID kubectl hashes, the tooling, the kinds), the members labelled;
# - client-side again without the Deployment: pruned by membership, the
#   parent's kinds narrowed after the prune;
# - server-side, a ConfigMap parent, then one member dropped;
# - another manager owning the parent's tooling annotation: kubectl's
#   conflict, warning and retry with force;
# - what kubectl refuses before writing anything: a parent of another tool,
#   the part-of label in a configuration, a resource that cannot be a
#   parent, no -n for a namespaced parent; the same messages.
# Skips (77) without kubectl, the oracle, the swagger document or python3.
fake=$1 oracle=$2 shared=$3 smpatch=$4
here=$(cd "$(dirname "$0")" && pwd)
# a sanitized library needs its runtime preloaded into python3 alone
py_preload=${LD_PRELOAD:-}
unset LD_PRELOAD
py() { if [ -n "$py_preload" ]; then LD_PRELOAD=$py_preload python3 "$@"; else python3 "$@"; fi; }
. "$here/standin_ssa.sh"
export KUBECTL_APPLYSET=true
# kubectl writes its own version as the tooling: smpatch is told the same
tooling=kubectl/$(kubectl version --client -o json | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])')
fail=0
cm() { # NAME KEY=VALUE...: a ConfigMap
	n=$1
	shift
	printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n' "$n"
	for kv in "$@"; do printf '  %s: "%s"\n' "${kv%%=*}" "${kv#*=}"; done
}
deploy() { # NAME IMAGE
	printf -- '---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n' "$1"
	printf '  selector:\n    matchLabels: {app: %s}\n  template:\n    metadata:\n' "$1"
	printf '      labels: {app: %s}\n    spec:\n      containers:\n      - name: app\n' "$1"
	printf '        image: %s\n' "$2"
}
# step WHAT MODE APPLYSET FILE [kubectl flags...]: kubectl's apply, then
# smpatch's plan of it against the objects before, compared
step() {
	what=$1 mode=$2 set=$3 file=$4
	shift 4
	cp "$tmp/state/objects.json" "$tmp/before.json"
	mark=0
	[ -f "$tmp/state/requests.jsonl" ] && mark=$(wc -l <"$tmp/state/requests.jsonl")
	flags=
	[ "$mode" = server-side ] && flags=--server-side
	if ! k apply -n default --prune --applyset="$set" $flags -f "$file" "$@" >/dev/null \
		2>"$tmp/k.err"; then
		echo "FAIL: $what: kubectl: $(head -3 "$tmp/k.err")"
		fail=1
		return
	fi
	opts=$(printf '{"mode":"%s","namespace":"default","enforce_namespace":true,"prune":true,"applyset":"%s","applyset_tooling":"%s","now":"2024-01-01T00:00:09Z"}' \
		"$mode" "$set" "$tooling")
	if ! py "$here/applyset_check.py" "$tmp/state" "$mark" "$tmp/before.json" "$opts" \
		"$file" >"$tmp/check.out" 2>&1; then
		echo "FAIL: $what: $(cat "$tmp/check.out")"
		fail=1
		return
	fi
	# the program: the same bodies, kubectl's warnings, the parents marked
	SMPATCH_NOW=2024-01-01T00:00:09Z "$smpatch" apply -n default --prune --applyset="$set" \
		--applyset-tooling "$tooling" $flags -f "$file" --live "$tmp/before.json" -o patch \
		>"$tmp/s.patch" 2>"$tmp/s.err" || { echo "FAIL: $what: smpatch: $(head -3 "$tmp/s.err")"; fail=1; return; }
	if ! python3 - "$tmp/state" "$mark" "$tmp/s.patch" <<'PY'
import json, sys
st, mark, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
reqs = [json.loads(l) for l in open(st + "/requests.jsonl")][mark:]
want = [r["body"] for r in reqs if r["method"] not in ("GET", "DELETE")]
lines = [json.loads(l) for l in open(out)]
got = []
for l in lines:
    if l["action"] == "prune" or (l["action"] == "unchanged" and
                                  l["patchType"] != "application/apply-patch+yaml"):
        continue  # DELETE bodies aside; client-side unchanged sends nothing
    got += [r["patch"] for r in l["requests"]] if "requests" in l else [l["patch"]]
assert got == want, "bodies:\n smpatch %s\n kubectl %s" % (got, want)
assert lines[0].get("role") == "applyset-parent" and lines[-1].get("role") == "applyset-parent"
assert sum(1 for l in lines if "role" in l) == 2, lines
PY
	then
		echo "FAIL: $what: smpatch apply -o patch"
		fail=1
		return
	fi
	echo "ok   $what: $(cat "$tmp/check.out")"
}

{ cm a k=1; deploy web nginx:1.25; } >"$tmp/m1.yaml"
{ cm a k=2; } >"$tmp/m2.yaml"
step "client-side, a new Secret parent" client-side myset "$tmp/m1.yaml"
step "client-side, the Deployment pruned by membership" client-side myset "$tmp/m2.yaml"
{ cm b x=1; cm c y=1; } >"$tmp/s1.yaml"
{ cm b x=2; } >"$tmp/s2.yaml"
step "server-side, a new ConfigMap parent" server-side configmaps/cset "$tmp/s1.yaml"
step "server-side, one member pruned" server-side configmaps/cset "$tmp/s2.yaml"
# another manager takes the parent's tooling annotation: kubectl's first
# apply of the parent conflicts, it warns and applies again with force
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cset\n  annotations:\n    applyset.kubernetes.io/tooling: kubectl/v0.0.1\n' >"$tmp/other.yaml"
k apply -n default --server-side --field-manager=other --force-conflicts -f "$tmp/other.yaml" \
	>/dev/null || { echo "FAIL: the other manager's apply"; fail=1; }
step "server-side, the tooling taken by another manager: the retry with force" server-side \
	configmaps/cset "$tmp/s2.yaml"
if ! grep -q 'Warning: failed to update ApplySet: Apply failed with 1 conflict: conflict with "other"' \
	"$tmp/s.err" || ! grep -q 'ApplySet field manager kubectl-applyset should own these fields. Retrying with conflicts forced.' "$tmp/s.err"; then
	echo "FAIL: the retry's warning: $(cat "$tmp/s.err")"
	fail=1
fi

# What kubectl refuses before it writes anything (the label already set:
# after the parent's first apply), with the same message from smpatch.
# refused MESSAGE ARGS...: `kubectl apply ARGS` and `smpatch apply ARGS`
refused() {
	msg=$1
	shift
	if k apply "$@" >/dev/null 2>"$tmp/k.err"; then
		echo "FAIL: kubectl apply $*: accepted"
		fail=1
	elif ! grep -qF -e "$msg" "$tmp/k.err"; then
		echo "FAIL: kubectl apply $*: $(cat "$tmp/k.err") (expected: $msg)"
		fail=1
	elif "$smpatch" apply "$@" --live "$tmp/state/objects.json" >"$tmp/s.out" 2>"$tmp/s.err" ||
		! grep -qF -e "$msg" "$tmp/s.err" || [ -s "$tmp/s.out" ]; then
		echo "FAIL: smpatch apply $*: $(cat "$tmp/s.err") (expected: $msg, no output)"
		fail=1
	else
		echo "ok   refused as kubectl: $msg"
	fi
}
refused "--applyset requires --prune" -n default --applyset=myset -f "$tmp/m2.yaml"
refused "--all is incompatible with --applyset" -n default --prune --all --applyset=myset \
	-f "$tmp/m2.yaml"
refused "--selector is incompatible with --applyset" -n default --prune -l a=b --applyset=myset \
	-f "$tmp/m2.yaml"
refused "namespace is required to use namespace-scoped ApplySet" --prune --applyset=myset \
	-f "$tmp/m2.yaml"
refused 'resource "apps/v1, Resource=deployments" is not permitted as an ApplySet parent' \
	-n default --prune --applyset=deployments.apps/x -f "$tmp/m2.yaml"
refused 'invalid parent reference "configmaps/": name cannot be blank' -n default --prune \
	--applyset=configmaps/ -f "$tmp/m2.yaml"
{ printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n  labels:\n'
  printf '    applyset.kubernetes.io/part-of: mine\n'; } >"$tmp/labelled.yaml"
refused 'ApplySet label "applyset.kubernetes.io/part-of" already set in input data' -n default \
	--prune --applyset=myset -f "$tmp/labelled.yaml"
# parents written into the stand-in's store: one of another tool, and a
# custom resource whose CRD is labelled a parent type (its ID checked by
# the one kubectl wants, as the oracle has no schema to write it with)
cat >"$tmp/crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  labels: {applyset.kubernetes.io/is-parent-type: "true"}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
YAML
k create -f "$tmp/crd.yaml" >/dev/null || { echo "FAIL: kubectl create of the CRD"; fail=1; }
python3 - "$tmp/state/objects.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
ann = {"applyset.kubernetes.io/contains-group-kinds": ""}
o["items"] += [
    {"apiVersion": "v1", "kind": "Secret", "metadata": {
        "name": "helmset", "namespace": "default", "uid": "u-helm",
        "annotations": dict(ann, **{"applyset.kubernetes.io/tooling": "helm/v3"})}},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {
        "name": "w1", "namespace": "default", "uid": "u-w1",
        "labels": {"applyset.kubernetes.io/id": "wrong"},
        "annotations": dict(ann, **{"applyset.kubernetes.io/tooling": "kubectl/v1.0.0"})}}]
json.dump(o, open(sys.argv[1], "w"))
PY
refused 'ApplySet parent object "secrets./helmset" already exists and is managed by tooling "helm" instead of "kubectl"' \
	-n default --prune --applyset=helmset -f "$tmp/m2.yaml"
refused 'ApplySet parent object "widgets.example.com/w1" exists and has incorrect value for label "applyset.kubernetes.io/id" (got: wrong, want: applyset-w2F6avP12iMc0NtLfxidFikyF8plpeYCClrtAeRJ0Ko-v1)' \
	-n default --prune --applyset=widgets.example.com/w1 -f "$tmp/m2.yaml"
refused "custom resource ApplySet parents cannot be created automatically" -n default --prune \
	--applyset=widget.example.com/w2 -f "$tmp/m2.yaml"
exit $fail
