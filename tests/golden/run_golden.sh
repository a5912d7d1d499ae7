#!/bin/sh
# run_golden.sh SMPATCH CASE_DIR - one golden case of the smpatch command line.
#
# The one layout of every golden case, testdata/<area>/<case>/:
#   args             the command line after the program name, shell words
#                    (`apply -f config.yaml --live live.yaml -o json`); lines
#                    are joined by spaces; it runs in the case directory
#   args.NAME        instead of args, for several runs over the same inputs:
#                    each is compared with expected/NAME/
#   env              optional: KEY=VALUE lines added to the environment (the
#                    value is expanded as in double quotes)
#   stdin            optional: fed to standard input (else /dev/null)
#   <input files>    whatever the command line names
#   expected/stdout expected/stderr expected/code   byte for byte; code is
#                    the exit status
# In args and env, $SMP_TESTDATA is the testdata directory and $SMP_SHARED
# the shared reference data (environment SMP_SHARED_DIR, else ../shared
# beside the checkout); in the outputs they read @TESTDATA@ and @SHARED@, so
# the expected files do not depend on the machine. A case that names
# $SMP_SHARED is skipped (exit 77) when the reference data is absent.
# With SMP_UPDATE_GOLDEN=1 the expected files are rewritten instead of
# compared: review them with git diff.
set -u
bin=$1
dir=$2
case $bin in /*) ;; */*) bin=$(pwd)/$bin ;; esac
cd "$dir" || { echo "FAIL: no case directory $dir"; exit 1; }
# The testdata directory: the nearest parent of that name (areas may nest).
SMP_TESTDATA=$(pwd)
while [ "${SMP_TESTDATA##*/}" != testdata ] && [ -n "$SMP_TESTDATA" ]; do
	SMP_TESTDATA=${SMP_TESTDATA%/*}
done
[ -n "$SMP_TESTDATA" ] || SMP_TESTDATA=$(cd ../.. && pwd)
SMP_SHARED=${SMP_SHARED_DIR:-$SMP_TESTDATA/../../shared}
export SMP_TESTDATA SMP_SHARED

runs=
[ -f args ] && runs=args
for f in args.*; do
	[ -f "$f" ] && runs="$runs $f"
done
if [ -z "$runs" ]; then
	echo "FAIL: $dir has no args file"
	exit 1
fi
if cat $runs env 2>/dev/null | grep -q 'SMP_SHARED' && [ ! -d "$SMP_SHARED" ]; then
	echo "SKIP: the shared reference data ($SMP_SHARED) is not available"
	exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# run ARGS_FILE OUT_DIR: one run, its stdout, stderr and code into OUT_DIR.
run() {
	out=$2
	mkdir -p "$out"
	(
		if [ -f env ]; then
			while IFS= read -r kv || [ -n "$kv" ]; do
				case $kv in '' | '#'*) continue ;; esac
				eval "export ${kv%%=*}=\"${kv#*=}\""
			done <env
		fi
		eval "set -- $(tr '\n' ' ' <"$1")"
		if [ -f stdin ]; then
			exec "$bin" "$@" <stdin >"$out/stdout" 2>"$out/stderr"
		else
			exec "$bin" "$@" </dev/null >"$out/stdout" 2>"$out/stderr"
		fi
	)
	echo $? >"$out/code"
	for f in stdout stderr; do
		grep -qF -e "$SMP_TESTDATA" -e "$SMP_SHARED" "$out/$f" || continue
		LC_ALL=C sed -e "s|$SMP_TESTDATA|@TESTDATA@|g" -e "s|$SMP_SHARED|@SHARED@|g" \
			"$out/$f" >"$out/$f.sed" && mv "$out/$f.sed" "$out/$f"
	done
}

fail=0
for a in $runs; do
	case $a in
	args) want=expected got=$tmp/out ;;
	*) want=expected/${a#args.} got=$tmp/${a#args.} ;;
	esac
	run "$a" "$got"
	if [ "${SMP_UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p "$want"
		cp "$got/stdout" "$got/stderr" "$got/code" "$want/" || fail=1
		echo "updated $dir/$want"
		continue
	fi
	for f in code stdout stderr; do
		if [ ! -f "$want/$f" ]; then
			echo "FAIL: $dir/$want/$f missing (run with SMP_UPDATE_GOLDEN=1)"
			fail=1
		elif ! cmp -s "$want/$f" "$got/$f"; then
			echo "FAIL: $a: $f differs from $want/$f (-expected +actual):"
			diff -u "$want/$f" "$got/$f" | head -n 60
			fail=1
		fi
	done
done
exit $fail
