#!/bin/sh
# runner_test.sh SMPATCH - the golden runner itself: update mode writes what a
# later run accepts, a changed output fails, variants (args.NAME), env,
# stdin, the @TESTDATA@ substitution and the skip without the shared data.
set -u
bin=$1
runner=$(dirname "$0")/run_golden.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # WANT_CODE LABEL CASE [ENV...]
	want=$1 label=$2 case=$3
	shift 3
	env "$@" sh "$runner" "$bin" "$case" >"$tmp/log" 2>&1
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: $label: runner exited $got, expected $want"
		cat "$tmp/log"
		fail=1
	fi
}

c=$tmp/testdata/area/case
mkdir -p "$c"
printf 'a: 1\n' >"$c/in.yaml"
printf 'b: 2\n' >"$c/stdin"
printf 'convert -o json -\n' >"$c/args.stdin"
printf 'convert -o "$FMT" in.yaml\n' >"$c/args.env"
printf 'FMT=json\n' >"$c/env"
printf 'convert "$SMP_TESTDATA/none.yaml"\n' >"$c/args.missing"
check 1 "no expected files" "$c"
check 0 "update mode" "$c" SMP_UPDATE_GOLDEN=1
check 0 "compare after update" "$c"
[ "$(cat "$c/expected/stdin/code")" = 0 ] || { echo "FAIL: stdin/code"; fail=1; }
grep -q '"b": 2' "$c/expected/stdin/stdout" || { echo "FAIL: stdin not read"; fail=1; }
grep -q '"a": 1' "$c/expected/env/stdout" || { echo "FAIL: env not applied"; fail=1; }
grep -q '@TESTDATA@/none.yaml' "$c/expected/missing/stderr" ||
	{ echo "FAIL: testdata path not substituted"; fail=1; }
[ "$(cat "$c/expected/missing/code")" != 0 ] || { echo "FAIL: missing/code"; fail=1; }
printf 'b: 3\n' >"$c/stdin"
check 1 "changed stdout" "$c"
printf 'b: 2\n' >"$c/stdin"
check 0 "compare after restore" "$c"
printf 'a: 1\n' >"$c/in.yaml"
echo 9 >"$c/expected/env/code"
check 1 "changed code" "$c"

p=$tmp/testdata/area/plain
mkdir -p "$p"
printf 'convert -o json "$SMP_TESTDATA/area/case/in.yaml"\n' >"$p/args"
check 0 "update a plain case" "$p" SMP_UPDATE_GOLDEN=1
grep -q '"a": 1' "$p/expected/stdout" || { echo "FAIL: plain args"; fail=1; }
check 0 "compare a plain case" "$p"

s=$tmp/testdata/area/shared
mkdir -p "$s"
printf 'convert "$SMP_SHARED/x.yaml"\n' >"$s/args"
check 77 "skip without shared data" "$s" SMP_SHARED_DIR="$tmp/no-such-dir"
exit $fail
