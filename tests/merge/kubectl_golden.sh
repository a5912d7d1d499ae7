#!/bin/sh
# kubectl_golden.sh SMPATCH TESTDATA_DIR - differential check against kubectl.
#
# For every golden case of testdata/patch that succeeds with a strategic
# patch on a built-in kind (no --openapi, --definition or --type), the
# object that `kubectl patch --local --type strategic` makes from the same
# target and patch must equal what `smpatch patch` makes (compared as JSON
# values). For diff cases the patch is ours: it is applied to ORIGINAL (two-
# way) or CURRENT (three-way) by both tools; a two-way result must also equal
# MODIFIED. Skips (77) when kubectl is not on PATH.
smpatch=$1
root=$2
if ! command -v kubectl > /dev/null 2>&1; then
	echo "kubectl is not on PATH: differential test skipped"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 na=0

canon() { # FILE -> canonical JSON on stdout
	"$smpatch" convert -o json --sort-keys "$1"
}

same() { # A B LABEL
	canon "$1" > "$tmp/a.json" 2> "$tmp/err" || { echo "  cannot read $1"; return 1; }
	canon "$2" > "$tmp/b.json" 2>> "$tmp/err" || { echo "  cannot read $2"; return 1; }
	if ! cmp -s "$tmp/a.json" "$tmp/b.json"; then
		echo "  $3 differ:"
		diff -u "$tmp/a.json" "$tmp/b.json" | head -40
		return 1
	fi
	return 0
}

for dir in "$root"/*/; do
	name=$(basename "$dir")
	[ -f "$dir/args" ] && [ -f "$dir/expected/code" ] || continue
	code=$(cat "$dir/expected/code")
	eval "set -- $(tr '\n' ' ' < "$dir/args")"
	verb=$1
	shift
	current= files= ok=1
	while [ $# -gt 0 ]; do
		case $1 in
		--openapi*|--definition*|--type*|-t|--help|-h) ok=0 ;;
		--current) current=$2; shift ;;
		--current=*) current=${1#--current=} ;;
		-o) shift ;;
		--overwrite*|--exit-code|-o*) ;;
		*) files="$files $1" ;;
		esac
		shift
	done
	# shellcheck disable=SC2086
	set -- $files
	if [ $ok = 0 ] || [ $# -ne 2 ] || { [ "$code" != 0 ] && [ "$code" != 1 ]; }; then
		na=$((na + 1))
		continue
	fi
	a=$dir/$1
	b=$dir/$2
	[ "$1" = - ] && a=$dir/stdin
	case $verb in
	patch)
		target=$a
		patch=$b
		;;
	diff)
		if ! "$smpatch" diff -o json ${current:+--current "$dir/$current"} "$a" "$b" \
			> "$tmp/patch.json" 2> "$tmp/err"; then
			[ $? -eq 1 ] || { echo "FAIL $name: smpatch diff: $(cat "$tmp/err")"; fail=$((fail + 1)); continue; }
		fi
		patch=$tmp/patch.json
		target=$a
		[ -n "$current" ] && target=$dir/$current
		;;
	*)
		na=$((na + 1))
		continue
		;;
	esac
	if ! kubectl patch --local -f "$target" --type strategic --patch-file "$patch" -o json \
		> "$tmp/kubectl.json" 2> "$tmp/err"; then
		echo "FAIL $name: kubectl refused: $(cat "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	if ! "$smpatch" patch -o json "$target" "$patch" > "$tmp/smpatch.json" 2> "$tmp/err"; then
		echo "FAIL $name: smpatch patch: $(cat "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	if ! same "$tmp/kubectl.json" "$tmp/smpatch.json" "kubectl and smpatch results"; then
		echo "FAIL $name"
		fail=$((fail + 1))
		continue
	fi
	if [ "$verb" = diff ] && [ -z "$current" ] &&
		! same "$b" "$tmp/smpatch.json" "MODIFIED and apply(ORIGINAL, diff)"; then
		echo "FAIL $name"
		fail=$((fail + 1))
		continue
	fi
	echo "PASS $name"
	pass=$((pass + 1))
done
echo "kubectl differential: $pass passed, $fail failed, $na not applicable (errors, --type, --openapi)"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
