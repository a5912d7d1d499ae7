#!/bin/sh
# roundtrip.sh SMPATCH CODEC_DIR - what the golden cases of testdata/codec
# promise beyond their bytes: `convert -o json` and `-o yaml` of one input
# agree on stderr and exit code, and when they succeed the YAML output read
# back gives the same JSON, and so does the JSON output when it starts with
# '{' (anything else is read as YAML, as kubectl does). A file `no-roundtrip`
# (holding the reason) exempts inputs that normalise, like -0.
set -u
bin=$1
root=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for dir in "$root"/*/; do
	dir=${dir%/}
	[ -f "$dir/args.json" ] || continue
	j=$dir/expected/json y=$dir/expected/yaml
	if ! cmp -s "$j/code" "$y/code" || ! cmp -s "$j/stderr" "$y/stderr"; then
		echo "FAIL: $dir: -o json and -o yaml disagree on exit code or stderr"
		fail=1
		continue
	fi
	[ "$(cat "$j/code")" = 0 ] && [ ! -f "$dir/no-roundtrip" ] || continue
	# The options of the JSON run, with the output in place of the input.
	eval "set -- $(tr '\n' ' ' <"$dir/args.json")"
	opts=
	while [ $# -gt 1 ]; do opts="$opts $1"; shift; done
	cp "$j/stdout" "$tmp/out.json"
	cp "$y/stdout" "$tmp/out.yaml"
	for f in out.yaml out.json; do
		[ $f = out.json ] && [ "$(head -c 1 "$tmp/out.json")" != "{" ] && continue
		# shellcheck disable=SC2086
		if ! "$bin" $opts "$tmp/$f" >"$tmp/back.json" 2>"$tmp/err"; then
			echo "FAIL: $dir: the $f output does not read back: $(cat "$tmp/err")"
			fail=1
		elif ! cmp -s "$tmp/out.json" "$tmp/back.json"; then
			echo "FAIL: $dir: the $f output read back differs (round trip)"
			diff -u "$tmp/out.json" "$tmp/back.json" | head -n 40
			fail=1
		fi
	done
	n=$((n + 1))
done
echo "$n cases round-tripped"
[ $n -gt 0 ] || fail=1
exit $fail
