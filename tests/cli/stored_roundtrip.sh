#!/bin/sh
# stored_roundtrip.sh SMPATCH MANIFESTS_DIR
# Quiet diffs on real projects' manifests (testdata/manifests): each file is
# applied to nothing with --dry-run=server (the objects as the API server
# stores them after the create: its defaults, canonical quantities, the
# last-applied annotation), then the same file is applied again to those
# stored objects. Nothing changed, so kubectl diff shows nothing: -o diff
# must be empty (exit 0) and -o changes print no line. (kubectl may still
# send a patch: metrics-server's Deployment gets {"spec":{"strategy":
# {"$retainKeys":["rollingUpdate"]}}} every time, as its strategy names no
# type; the server defaults the type again, and the stored object is the
# same.)
smpatch=$1 root=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for f in $(find "$root" -name '*.yaml' | sort); do
	n=$((n + 1))
	name=${f#"$root"/}
	if ! "$smpatch" apply -f "$f" --dry-run=server -o yaml --validate=false \
		>"$tmp/stored.yaml" 2>"$tmp/err"; then
		echo "FAIL $name: the stored form: $(head -2 "$tmp/err")"; fail=1; continue
	fi
	"$smpatch" apply -f "$f" --live "$tmp/stored.yaml" -o diff >"$tmp/diff" 2>"$tmp/err"
	rc=$?
	if [ $rc != 0 ] || [ -s "$tmp/diff" ]; then
		echo "FAIL $name: -o diff exit $rc against its own stored form:"; head -20 "$tmp/diff"
		fail=1
	fi
	"$smpatch" apply -f "$f" --live "$tmp/stored.yaml" -o changes >"$tmp/changes" 2>"$tmp/err"
	if [ -s "$tmp/changes" ]; then
		echo "FAIL $name: -o changes against its own stored form:"; head -5 "$tmp/changes"
		fail=1
	fi
done
[ $n -ge 10 ] || { echo "FAIL: only $n manifests under $root"; exit 1; }
[ $fail = 0 ] && echo "ok: $n manifests: no diff, no change against their stored form"
exit $fail
