#!/bin/sh
# kubectl_threeway.sh SMPATCH SRCDIR COUNT - the three-way patch of
# `smpatch diff --current` against the PATCH body `kubectl apply` really
# sends, for COUNT random Deployments and COUNT random Pods/Services
# (tests/merge/kubectl/gen_*.py). kubectl talks to a fake API server
# (tests/merge/kubectl/fake_apiserver.py) that serves the live object and
# records the patch. kubectl's patch also rewrites the last-applied
# annotation; that entry is taken out before comparing (as JSON values).
# Skips (77) without kubectl or python3.
smpatch=$1
src=$2
count=${3:-10}
for tool in kubectl python3; do
	if ! command -v $tool > /dev/null 2>&1; then
		echo "$tool is not on PATH: three-way differential test skipped"
		exit 77
	fi
done
tmp=$(mktemp -d) || exit 1
cd "$tmp" || exit 1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 "$src/fake_apiserver.py" "$port" live.json patch.out > server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; cd /; rm -rf "$tmp"' EXIT
# wait for the server
for i in 1 2 3 4 5 6 7 8 9 10; do
	python3 -c "import socket; socket.create_connection(('127.0.0.1',$port))" 2>/dev/null && break
	sleep 0.3
done
pass=0 fail=0
for gen in gen_deploy.py gen_pod_service.py; do
	seed=1
	while [ $seed -le "$count" ]; do
		python3 "$src/$gen" $seed
		python3 - <<'PY'
import json
o = json.load(open("o.json")); m = json.load(open("m.json")); live = json.load(open("live.json"))
for d in (o, m, live):
    d["metadata"]["namespace"] = "default"
live["metadata"].setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = json.dumps(o)
json.dump(o, open("o.json", "w")); json.dump(m, open("m.json", "w")); json.dump(live, open("live.json", "w"))
PY
		rm -f patch.out
		kubectl apply -f m.json --server="http://127.0.0.1:$port" --validate=false > kubectl.log 2>&1
		"$smpatch" diff -o json --current live.json o.json m.json > ours.json 2> ours.err
		rc=$?
		python3 - "$gen $seed" "$rc" <<'PY'
import json, os, sys
label, rc = sys.argv[1], int(sys.argv[2])
key = "kubectl.kubernetes.io/last-applied-configuration"
if not os.path.exists("patch.out"):
    log = open("kubectl.log").read()
    if "unchanged" in log and rc == 0 and json.load(open("ours.json")) == {}:
        print("PASS", label, "(unchanged)"); sys.exit(0)
    print("FAIL", label, "kubectl sent no patch:", log.strip()[:300], "smpatch:", open("ours.err").read()[:300]); sys.exit(1)
k = json.load(open("patch.out"))
ann = k.get("metadata", {}).get("annotations", {})
ann.pop(key, None)
if "annotations" in k.get("metadata", {}) and not ann:
    del k["metadata"]["annotations"]
if "metadata" in k and not k["metadata"]:
    del k["metadata"]
if rc != 0:
    print("FAIL", label, "smpatch diff failed:", open("ours.err").read()[:300]); sys.exit(1)
s = json.load(open("ours.json"))
if k != s:
    print("FAIL", label)
    print("  kubectl:", json.dumps(k, sort_keys=True)[:2000])
    print("  smpatch:", json.dumps(s, sort_keys=True)[:2000])
    sys.exit(1)
print("PASS", label)
PY
		if [ $? -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
		seed=$((seed + 1))
	done
done
echo "three-way differential: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
