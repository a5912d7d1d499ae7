#!/bin/sh
# kubectl_diff.sh SMPATCH JSON_CMP CASES_DIR [FAKE_APISERVER] [CASE|PATTERN...]
#
# Differential regression test: smpatch against kubectl on the curated
# cases of testdata/kubectl-diff (found by tests/cli/kdiff.py). Each case
# directory holds a file `type` and inputs:
#   strategic|merge|json  target.yaml patch.yaml:
#       smpatch patch -o json --type T target patch
#       kubectl patch --local -f target --type T --patch-file patch -o json
#       must give the same JSON value, or both must reject the patch
#       (kubectl non-zero <=> smpatch exit 3 or 4).
#   convert  target.yaml (a custom kind):
#       smpatch convert -o json target  vs
#       kubectl patch --local -f target --type merge -p '{}' -o json
#   three  live.yaml last.yaml config.yaml:
#       P = smpatch diff -o json --current live last config; then
#       smpatch patch live P  must equal  kubectl patch --local -f live P.
#   apply  config.yaml (or config.json) [live.yaml] [args]: kubectl apply runs against
#       FAKE_APISERVER (a loopback stand-in serving live.yaml, recording the
#       request); the request kubectl sends (PATCH body and content type, or
#       the POST body of a create, or nothing when unchanged) must equal
#       what `smpatch apply -f config.yaml --live live.yaml -o patch` reports,
#       byte for byte (the body is the last member of the -o patch line;
#       kubectl ends a POST body with a newline), since read as values the
#       texts 0 and -0 are the same.
#       `args` holds extra flags for both (e.g. --overwrite=false),
#       `smpatch-args` flags for smpatch only (e.g. --schema crd.yaml; it
#       runs in the case directory).
#   set-last-applied  config.yaml live.yaml: the annotation that
#       `kubectl apply set-last-applied -f config.yaml` writes (its request to
#       FAKE_APISERVER) must equal the one `smpatch last-applied set` puts
#       on the object.
#   edit  original.yaml modified.yaml: `kubectl edit -f original.yaml` against
#       FAKE_APISERVER (serving original), with an editor that writes
#       modified, sends the two-way patch; it must equal
#       `smpatch diff original modified` (--type merge for custom kinds: file
#       `merge`).
#   prune  config.yaml objects.yaml args: kubectl apply ARGS (e.g. --prune -l
#       app=x) against FAKE_APISERVER serving objects.yaml (live objects
#       with uids) must print the same status lines (created, configured,
#       unchanged, pruned) as `smpatch apply --live objects.yaml ARGS`.
#   view-last-applied  config.yaml live.yaml: `kubectl apply view-last-applied
#       -o yaml` and `-o json` (against FAKE_APISERVER) must print exactly the
#       bytes `smpatch last-applied view --live live.yaml` prints.
# A file `note` says what the case is about. A file `xfail` (its first line
# names the open finding) marks a known discrepancy: the case is then
# expected to differ (XFAIL) and fails the test when it starts to agree
# (XPASS: delete the xfail file). A file `stricter` (convert cases) marks a
# deliberate divergence: kubectl must accept, smpatch must exit 3 with the
# first line of `stricter` in its message. Skips (77) without kubectl.
smpatch=$1
case $smpatch in /*) ;; *) smpatch=$PWD/$smpatch ;; esac
cmp=$2
root=$3
case $root in /*) ;; *) root=$PWD/$root ;; esac
shift 3
fake=
case ${1-} in
*/*) fake=$1; shift ;;
esac
if ! command -v kubectl > /dev/null 2>&1; then
	echo "kubectl is not on PATH: kubectl differential test skipped"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# kubectl must not read the user's configuration nor write its caches
printf 'apiVersion: v1\nkind: Config\n' > "$tmp/kubeconfig"
KUBECONFIG=$tmp/kubeconfig
export KUBECONFIG
url=
if [ -n "$fake" ]; then
	mkdir "$tmp/state"
	"$fake" "$tmp/state" "$tmp/port" &
	server=$!
	i=0
	while [ ! -s "$tmp/port" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# (30 s: a sanitized build on a loaded machine starts slowly)
	[ -s "$tmp/port" ] && url=http://127.0.0.1:$(cat "$tmp/port")
	[ -n "$url" ] || echo "the stand-in API server did not start within 30 s"
fi
pass=0 fail=0 xfail=0
failed=

# CASE arguments may be glob patterns (smp-*), expanded in CASES_DIR
[ $# -eq 0 ] && set -- '*'
for pat in "$@"; do
	shift
	for d in "$root"/$pat; do
		[ -d "$d" ] && set -- "$@" "$(basename "$d")"
	done
done

bad() { # CASE MESSAGE
	if [ -f "$root/$1/xfail" ]; then
		echo "XFAIL $1: $2 ($(head -n 1 "$root/$1/xfail"))"
		xfail=$((xfail + 1))
		return
	fi
	echo "FAIL $1: $2"
	[ -f "$root/$1/note" ] && echo "  ($(head -n 1 "$root/$1/note"))"
	fail=$((fail + 1))
	failed="$failed $1"
}

good() { # CASE
	if [ -f "$root/$1/xfail" ]; then
		echo "XPASS $1: smpatch now agrees with kubectl; delete $1/xfail"
		fail=$((fail + 1))
		failed="$failed $1"
		return
	fi
	pass=$((pass + 1))
}

# compare CASE SMPATCH_RC KUBECTL_RC: outputs are in $tmp/s.out, $tmp/k.out
compare() {
	if [ "$3" -ne 0 ]; then
		case $2 in
		3|4) good "$1"; return ;;
		esac
		bad "$1" "kubectl rejects (exit $3), smpatch exit $2"
		[ -f "$root/$1/xfail" ] || sed 's/^/  kubectl: /' "$tmp/k.err" | head -n 3
		return
	fi
	if [ "$2" -ne 0 ]; then
		bad "$1" "kubectl accepts, smpatch exit $2"
		[ -f "$root/$1/xfail" ] || sed 's/^/  smpatch: /' "$tmp/s.err" | head -n 3
		return
	fi
	if "$cmp" "$tmp/s.out" "$tmp/k.out" smpatch kubectl > "$tmp/cmp" 2>&1; then
		good "$1"
	else
		bad "$1" "results differ"
		[ -f "$root/$1/xfail" ] || head -n 60 "$tmp/cmp"
	fi
}

for name in "$@"; do
	dir=$root/$name
	[ -f "$dir/type" ] || continue
	type=$(cat "$dir/type")
	case $type in
	strategic|merge|json)
		"$smpatch" patch -o json --type "$type" "$dir/target.yaml" "$dir/patch.yaml" \
			> "$tmp/s.out" 2> "$tmp/s.err"
		src=$?
		kubectl patch --local -f "$dir/target.yaml" --type "$type" \
			--patch-file "$dir/patch.yaml" -o json > "$tmp/k.out" 2> "$tmp/k.err"
		krc=$?
		compare "$name" $src $krc
		;;
	convert)
		"$smpatch" convert -o json "$dir/target.yaml" > "$tmp/s.out" 2> "$tmp/s.err"
		src=$?
		kubectl patch --local -f "$dir/target.yaml" --type merge -p '{}' -o json \
			> "$tmp/k.out" 2> "$tmp/k.err"
		krc=$?
		if [ -f "$dir/stricter" ]; then
			# A deliberate divergence (e.g. duplicate keys, issue 2): kubectl
			# accepts, smpatch must exit 3 with the message in `stricter`.
			want=$(head -n 1 "$dir/stricter")
			if [ $krc -eq 0 ] && [ $src -eq 3 ] && grep -qF -- "$want" "$tmp/s.err"; then
				good "$name"
			else
				bad "$name" "stricter on purpose: want kubectl 0 (got $krc), smpatch 3 (got $src) saying '$want': $(head -n 1 "$tmp/s.err")"
			fi
			continue
		fi
		# kubectl rejects some inputs smpatch convert reads (no schema
		# check there): both rejecting or both accepting is what counts.
		[ $src -ne 0 ] && [ $krc -ne 0 ] && src=3
		compare "$name" $src $krc
		;;
	three)
		if ! "$smpatch" diff -o json --current "$dir/live.yaml" "$dir/last.yaml" \
			"$dir/config.yaml" > "$tmp/p.json" 2> "$tmp/s.err"; then
			bad "$name" "smpatch diff failed: $(head -n 1 "$tmp/s.err")"
			continue
		fi
		"$smpatch" patch -o json "$dir/live.yaml" "$tmp/p.json" > "$tmp/s.out" 2> "$tmp/s.err"
		src=$?
		kubectl patch --local -f "$dir/live.yaml" --type strategic \
			--patch-file "$tmp/p.json" -o json > "$tmp/k.out" 2> "$tmp/k.err"
		krc=$?
		compare "$name" $src $krc
		;;
	apply)
		if [ -z "$url" ]; then
			bad "$name" "no fake API server (4th argument)"
			continue
		fi
		args= sargs=
		[ -f "$dir/args" ] && args=$(cat "$dir/args")
		[ -f "$dir/smpatch-args" ] && sargs=$(cat "$dir/smpatch-args")
		config=$dir/config.yaml
		[ -f "$dir/config.json" ] && config=$dir/config.json
		rm -f "$tmp/state/live.json" "$tmp/state/request.json" "$tmp/state/request.type"
		live=
		if [ -f "$dir/live.yaml" ]; then
			live="--live $dir/live.yaml"
			"$smpatch" convert -o json "$dir/live.yaml" > "$tmp/state/live.json"
		fi
		# shellcheck disable=SC2086
		kubectl --server="$url" --cache-dir="$tmp/cache" apply -f "$config" \
			--validate=false $args > "$tmp/k.out" 2> "$tmp/k.err"
		krc=$?
		# shellcheck disable=SC2086
		# both without field validation: the stand-in server has none
		(cd "$dir" && "$smpatch" apply -f "$config" $live -o patch --validate=false $args $sargs) \
			> "$tmp/s.line" 2> "$tmp/s.err"
		src=$?
		if [ $krc -ne 0 ] || [ $src -ne 0 ]; then
			compare "$name" $src $krc
			continue
		fi
		action=$("$cmp" --get action "$tmp/s.line")
		stype=$("$cmp" --get patchType "$tmp/s.line")
		[ "$action" = create ] && stype=application/json
		[ "$action" = unchanged ] && stype=none
		ktype=none
		if [ -f "$tmp/state/request.type" ]; then
			ktype=$(sed 's/^[A-Z]* //; s/;.*//' "$tmp/state/request.type")
		fi
		if [ "$stype" != "$ktype" ]; then
			bad "$name" "kubectl apply sends $ktype, smpatch apply says $stype ($action)"
			continue
		fi
		[ "$ktype" = none ] && { good "$name"; continue; }
		awk '{ i = index($0, ",\"patch\":"); printf "%s", substr($0, i + 9, length($0) - i - 9) }' \
			"$tmp/s.line" > "$tmp/s.body"
		printf '%s' "$(cat "$tmp/state/request.json")" > "$tmp/k.body"
		if cmp -s "$tmp/s.body" "$tmp/k.body"; then
			good "$name"
			continue
		fi
		"$cmp" --get patch "$tmp/s.line" > "$tmp/s.out"
		cp "$tmp/state/request.json" "$tmp/k.out"
		if ! "$cmp" "$tmp/s.out" "$tmp/k.out" > /dev/null 2>&1; then
			compare "$name" 0 0
			continue
		fi
		bad "$name" "the request bodies are equal as values, not byte for byte"
		if [ ! -f "$dir/xfail" ]; then
			# 60 bytes from 20 before the first difference
			at=$(cmp "$tmp/s.body" "$tmp/k.body" 2>&1 | sed -n 's/.* byte \([0-9]*\).*/\1/p')
			at=$((${at:-1} > 20 ? ${at:-1} - 20 : 1))
			echo "  smpatch: ...$(tail -c +$at "$tmp/s.body" | head -c 60)"
			echo "  kubectl: ...$(tail -c +$at "$tmp/k.body" | head -c 60)"
		fi
		;;
	edit)
		if [ -z "$url" ]; then
			bad "$name" "no fake API server (4th argument)"
			continue
		fi
		rm -f "$tmp/state/request.json" "$tmp/state/request.type"
		"$smpatch" convert -o json "$dir/original.yaml" > "$tmp/state/live.json"
		"$smpatch" convert -o json "$dir/modified.yaml" > "$tmp/modified.json"
		printf '#!/bin/sh\ncp "%s" "$1"\n' "$tmp/modified.json" > "$tmp/editor"
		chmod +x "$tmp/editor"
		KUBE_EDITOR=$tmp/editor kubectl --server="$url" --cache-dir="$tmp/cache" edit \
			-f "$dir/original.yaml" -o json --validate=false > "$tmp/k.log" 2> "$tmp/k.err"
		krc=$?
		dtype=strategic
		[ -f "$dir/merge" ] && dtype=merge
		"$smpatch" diff -o json --type $dtype "$dir/original.yaml" "$dir/modified.yaml" \
			> "$tmp/s.out" 2> "$tmp/s.err"
		src=$?
		if [ $krc -ne 0 ] || [ $src -ne 0 ]; then
			compare "$name" $src $krc
			continue
		fi
		if [ ! -f "$tmp/state/request.json" ]; then
			bad "$name" "kubectl edit sent no patch"
			continue
		fi
		cp "$tmp/state/request.json" "$tmp/k.out"
		compare "$name" 0 0
		;;
	prune)
		if [ -z "$url" ]; then
			bad "$name" "no fake API server (4th argument)"
			continue
		fi
		args=$(cat "$dir/args")
		"$smpatch" convert -o json "$dir/objects.yaml" > "$tmp/state/objects.json"
		rm -f "$tmp/state/delete.json"
		# shellcheck disable=SC2086
		kubectl --server="$url" --cache-dir="$tmp/cache" apply -f "$dir/config.yaml" \
			--validate=false $args > "$tmp/k.out" 2> "$tmp/k.err"
		krc=$?
		# shellcheck disable=SC2086
		"$smpatch" apply -f "$dir/config.yaml" --live "$dir/objects.yaml" -o patch --validate=false $args \
			> "$tmp/s.lines" 2> "$tmp/s.err"
		src=$?
		rm -f "$tmp/state/objects.json"
		if [ $krc -ne 0 ] || [ $src -ne 0 ]; then
			compare "$name" $src $krc
			continue
		fi
		status='(created|configured|unchanged|pruned)$'
		grep -E "$status" "$tmp/k.out" | sort > "$tmp/k.st"
		grep -E "$status" "$tmp/s.err" | sort > "$tmp/s.st"
		# the DELETE bodies kubectl sent: smpatch's deleteOptions without
		# the preconditions it adds (as sorted JSON, in any order)
		touch "$tmp/state/delete.json"
		python3 -c 'import json,sys
k=sorted(json.dumps(json.loads(l),sort_keys=True) for l in open(sys.argv[1]) if l.strip())
s=[]
for l in open(sys.argv[2]):
    r=json.loads(l)
    if r.get("action")=="prune":
        d=dict(r["deleteOptions"]); d.pop("preconditions",None); s.append(json.dumps(d,sort_keys=True))
sys.exit(0 if sorted(s)==k else 1)' "$tmp/state/delete.json" "$tmp/s.lines"
		drc=$?
		if cmp -s "$tmp/k.st" "$tmp/s.st" && [ $drc = 0 ]; then
			good "$name"
		else
			bad "$name" "apply status lines or DELETE bodies differ"
			[ -f "$dir/xfail" ] || diff "$tmp/s.st" "$tmp/k.st" | sed 's/^/  /' | head -n 20
			[ $drc = 0 ] || sed 's/^/  kubectl DELETE: /' "$tmp/state/delete.json" | head -n 5
		fi
		;;
	view-last-applied)
		if [ -z "$url" ]; then
			bad "$name" "no fake API server (4th argument)"
			continue
		fi
		"$smpatch" convert -o json "$dir/live.yaml" > "$tmp/state/live.json"
		ok=1
		for o in yaml json; do
			kubectl --server="$url" --cache-dir="$tmp/cache" apply view-last-applied \
				-f "$dir/config.yaml" -o $o > "$tmp/k.out" 2> "$tmp/k.err" || ok=0
			"$smpatch" last-applied view -f "$dir/config.yaml" --live "$dir/live.yaml" \
				-o $o > "$tmp/s.out" 2> "$tmp/s.err" || ok=0
			cmp -s "$tmp/k.out" "$tmp/s.out" || ok=0
			[ $ok = 1 ] || break
		done
		if [ $ok = 1 ]; then
			good "$name"
		else
			bad "$name" "view-last-applied -o $o differs"
			[ -f "$dir/xfail" ] || diff "$tmp/s.out" "$tmp/k.out" | head -n 20
		fi
		;;
	set-last-applied)
		if [ -z "$url" ]; then
			bad "$name" "no fake API server (4th argument)"
			continue
		fi
		rm -f "$tmp/state/request.json" "$tmp/state/request.type"
		"$smpatch" convert -o json "$dir/live.yaml" > "$tmp/state/live.json"
		kubectl --server="$url" --cache-dir="$tmp/cache" apply set-last-applied \
			-f "$dir/config.yaml" > "$tmp/k.out" 2> "$tmp/k.err"
		krc=$?
		"$smpatch" last-applied set -f "$dir/config.yaml" --live "$dir/live.yaml" -o json \
			> "$tmp/s.obj" 2> "$tmp/s.err"
		src=$?
		if [ $krc -ne 0 ] || [ $src -ne 0 ]; then
			compare "$name" $src $krc
			continue
		fi
		key=kubectl.kubernetes.io/last-applied-configuration
		"$cmp" --annotation $key "$tmp/state/request.json" > "$tmp/k.ann" 2>&1
		"$cmp" --annotation $key "$tmp/s.obj" > "$tmp/s.ann" 2>&1
		if cmp -s "$tmp/k.ann" "$tmp/s.ann"; then
			good "$name"
		else
			bad "$name" "last-applied annotations differ"
			[ -f "$dir/xfail" ] || { echo "  kubectl: $(head -c 300 "$tmp/k.ann")"; echo "  smpatch: $(head -c 300 "$tmp/s.ann")"; }
		fi
		;;
	*)
		bad "$name" "unknown type '$type'"
		;;
	esac
done

echo "kubectl differential: $pass passed, $fail failed, $xfail known discrepancies (xfail)"
[ $fail -eq 0 ] || { echo "failed cases:$failed"; exit 1; }
exit 0
