#!/bin/sh
# run_golden.sh CONVERT CASEDIR - one golden case of the codec.
#
# CASEDIR holds input.<ext>, optionally `args` (extra convert options), and
# the expected results of `convert -o json` and `convert -o yaml`:
# expected.json, expected.yaml (stdout), expected.err (stderr) and
# expected.exit (exit code; both runs must agree on stderr and exit code).
# When the conversion succeeds, the YAML output read back must give the same
# JSON (round trip), and so must the JSON output when it starts with '{'
# (anything else is read as YAML, as kubectl does). A file `no-roundtrip`
# (holding the reason) skips these checks for inputs that normalise, like -0.
# SMP_UPDATE_GOLDEN=1 rewrites the expected files instead of comparing.
set -u
conv=$1
dir=$2
cd "$dir" || exit 1
input=$(ls input.* 2>/dev/null | head -n 1)
if [ -z "$input" ]; then
	echo "$dir: no input.* file"
	exit 1
fi
args=$(cat args 2>/dev/null || true)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

for mode in json yaml; do
	# $args is split on purpose: it holds options.
	# shellcheck disable=SC2086
	"$conv" -o "$mode" $args "$input" >"$tmp/out.$mode" 2>"$tmp/err.$mode"
	echo $? >"$tmp/exit.$mode"
done

if ! cmp -s "$tmp/exit.json" "$tmp/exit.yaml" || ! cmp -s "$tmp/err.json" "$tmp/err.yaml"; then
	echo "FAIL: -o json and -o yaml disagree on exit code or stderr"
	head -n 5 "$tmp/exit.json" "$tmp/exit.yaml" "$tmp/err.json" "$tmp/err.yaml"
	fail=1
fi

if [ "$(cat "$tmp/exit.json")" = 0 ] && [ ! -f no-roundtrip ]; then
	# shellcheck disable=SC2086
	"$conv" -o json $args "$tmp/out.yaml" >"$tmp/rt.yaml.json" 2>"$tmp/rt.err" || {
		echo "FAIL: YAML output does not read back"; cat "$tmp/rt.err"; fail=1; }
	if ! cmp -s "$tmp/out.json" "$tmp/rt.yaml.json"; then
		echo "FAIL: YAML output read back differs (round trip)"
		diff -u "$tmp/out.json" "$tmp/rt.yaml.json" | head -n 40
		fail=1
	fi
	if [ "$(head -c 1 "$tmp/out.json")" = "{" ]; then
		# shellcheck disable=SC2086
		"$conv" -o json $args "$tmp/out.json" >"$tmp/rt.json.json" 2>"$tmp/rt.err" || {
			echo "FAIL: JSON output does not read back"; cat "$tmp/rt.err"; fail=1; }
	else
		cp "$tmp/out.json" "$tmp/rt.json.json"
	fi
	if ! cmp -s "$tmp/out.json" "$tmp/rt.json.json"; then
		echo "FAIL: JSON output read back differs (round trip)"
		diff -u "$tmp/out.json" "$tmp/rt.json.json" | head -n 40
		fail=1
	fi
fi

if [ "${SMP_UPDATE_GOLDEN:-}" = 1 ]; then
	cp "$tmp/out.json" expected.json
	cp "$tmp/out.yaml" expected.yaml
	cp "$tmp/err.json" expected.err
	cp "$tmp/exit.json" expected.exit
	echo "updated $dir"
	exit $fail
fi

check() {
	if [ ! -f "$1" ]; then
		echo "FAIL: $dir/$1 missing (run with SMP_UPDATE_GOLDEN=1)"
		fail=1
	elif ! cmp -s "$1" "$2"; then
		echo "FAIL: $1 differs"
		diff -u "$1" "$2" | head -n 60
		fail=1
	fi
}
check expected.json "$tmp/out.json"
check expected.yaml "$tmp/out.yaml"
check expected.err "$tmp/err.json"
check expected.exit "$tmp/exit.json"
exit $fail
