#!/bin/sh
# cluster_plan.sh SMPATCH ROOT [LIMIT_KIB]
# Cluster-scale plans (issue 22) on a generated dump (bench/cluster_gen.py,
# 150 applications, one file per object, the live List as `kubectl get -A
# -o json` returns it):
# - the output does not depend on --jobs: 1, 2 and 4 threads print the same
#   bytes (stdout, stderr, exit code) for -o patch, -o diff, --server-side
#   and a prune (--all);
# - the live file indexed without being held (--live FILE) gives what the
#   whole parse gives (--live - reads standard input whole), in each mode;
# - --jobs refuses what is no number of threads (exit 2);
# - with LIMIT_KIB (normal builds only: sanitizers reserve address space),
#   a plan against a dump larger than an address-space limit of LIMIT_KIB
#   succeeds and prints what the same plan prints without the limit, while
#   reading the same dump whole under that limit fails.
smpatch=$1 root=$2 limit=${3:-}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the generator"; exit 0; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
export SMPATCH_NOW=2026-01-01T00:00:00Z
python3 "$root/bench/cluster_gen.py" "$tmp/c" 150 || { echo "FAIL: the generator"; exit 1; }
c=$tmp/c
# for prune: the configurations without every Service of an app ending in 3
cp -r "$c/config" "$c/less"
find "$c/less" -name 'app-*3-service.yaml' -exec rm {} +

# run NAME ARGS...: stdout, stderr and exit code into $tmp/NAME.{out,err,rc}
run() {
	n=$1
	shift
	"$smpatch" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	echo $? >"$tmp/$n.rc"
}
same() {
	for k in out err rc; do
		if ! cmp -s "$tmp/$1.$k" "$tmp/$2.$k"; then
			echo "FAIL $3: $k differs"
			diff "$tmp/$1.$k" "$tmp/$2.$k" | head -5
			fail=1
		fi
	done
}

for mode in patch diff ssa prune; do
	case $mode in
	patch) set -- -o patch ;;
	diff) set -- -o diff ;;
	ssa) set -- --server-side -o patch ;;
	prune) set -- --prune --all -o patch ;;
	esac
	cfg=$c/config
	[ $mode = prune ] && cfg=$c/less
	run "$mode-1" apply -R -f "$cfg" --live "$c/live.json" --jobs 1 "$@"
	run "$mode-2" apply -R -f "$cfg" --live "$c/live.json" --jobs 2 "$@"
	run "$mode-4" apply -R -f "$cfg" --live "$c/live.json" --jobs 4 "$@"
	run "$mode-whole" apply -R -f "$cfg" --live - --jobs 2 "$@" <"$c/live.json"
	same "$mode-1" "$mode-2" "$mode: --jobs 1 and --jobs 2"
	same "$mode-1" "$mode-4" "$mode: --jobs 1 and --jobs 4"
	same "$mode-1" "$mode-whole" "$mode: the live file indexed and read whole"
	[ "$(wc -l <"$tmp/$mode-1.out")" -gt 40 ] || { echo "FAIL $mode: almost no output"; fail=1; }
done
grep -q '"action":"configure"' "$tmp/patch-1.out" || { echo "FAIL: nothing configured"; fail=1; }
grep -q '"action":"prune"' "$tmp/prune-1.out" || { echo "FAIL: nothing pruned"; fail=1; }

for bad in 0 -1 x 2x ""; do
	run bad apply -f "$c/configs.yaml" --jobs "$bad"
	if [ "$(cat "$tmp/bad.rc")" != 2 ] || ! grep -q "invalid value for --jobs" "$tmp/bad.err"; then
		echo "FAIL: --jobs '$bad': exit $(cat "$tmp/bad.rc"), $(cat "$tmp/bad.err")"
		fail=1
	fi
done

if [ -n "$limit" ]; then
	# The dump grows past the limit with ConfigMaps of 64 KiB that no
	# configuration names (big objects, as clusters hold).
	python3 - "$c/live.json" "$tmp/big.json" "$limit" <<'EOF' || { echo "FAIL: big dump"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[3]) * 1024 * 3 // 2
blob = "x" * 65536
i = 0
size = len(json.dumps(d, separators=(",", ":")))
while size < want:
    d["items"].append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "filler-%05d" % i, "namespace": "filler", "uid": "f-%d" % i,
        "resourceVersion": str(i + 1)}, "data": {"blob": blob}})
    size += 65536 + 160
    i += 1
json.dump(d, open(sys.argv[2], "w"), separators=(",", ":"))
EOF
	big=$(stat -c %s "$tmp/big.json")
	[ "$big" -gt $((limit * 1024)) ] || { echo "FAIL: the dump ($big bytes) is not over the limit"; exit 1; }
	run free apply -R -f "$c/config" --live "$tmp/big.json" -o patch
	(ulimit -v "$limit" && "$smpatch" apply -R -f "$c/config" --live "$tmp/big.json" -o patch \
		>"$tmp/limited.out" 2>"$tmp/limited.err"; echo $? >"$tmp/limited.rc")
	if [ "$(cat "$tmp/limited.rc")" != 0 ]; then
		echo "FAIL: under ulimit -v $limit the plan of a $big-byte dump exited $(cat "$tmp/limited.rc"): $(head -c 300 "$tmp/limited.err")"
		fail=1
	fi
	same free limited "the plan under ulimit -v $limit"
	(ulimit -v "$limit" && "$smpatch" apply -R -f "$c/config" --live - -o patch \
		<"$tmp/big.json" >/dev/null 2>"$tmp/whole.err"; echo $? >"$tmp/whole.rc")
	if [ "$(cat "$tmp/whole.rc")" = 0 ]; then
		echo "FAIL: reading the $big-byte dump whole fit under ulimit -v $limit: the limit proves nothing"
		fail=1
	fi
fi
[ $fail = 0 ] && echo "ok: --jobs 1/2/4 and the indexed live file agree in 4 modes${limit:+; a $big-byte dump planned under ulimit -v $limit KiB}"
exit $fail
