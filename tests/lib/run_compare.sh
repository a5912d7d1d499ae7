#!/bin/sh
# run_compare.sh EXPECTED COMMAND [ARGS...]
# Runs the command; it must exit 0 and print exactly EXPECTED on stdout.
# SMP_UPDATE_GOLDEN=1 rewrites EXPECTED instead (review with git diff).
expected=$1
shift
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
"$@" >"$tmp"
rc=$?
if [ $rc != 0 ]; then
	echo "FAIL: $* exited with $rc"
	exit 1
fi
if [ "${SMP_UPDATE_GOLDEN:-}" = 1 ]; then
	cp "$tmp" "$expected" && echo "updated $expected"
	exit $?
fi
if [ ! -f "$expected" ]; then
	echo "FAIL: $expected missing (SMP_UPDATE_GOLDEN=1 creates it)"
	cat "$tmp"
	exit 1
fi
if ! diff -u "$expected" "$tmp"; then
	echo "FAIL: output differs from $expected"
	exit 1
fi
echo "ok: output matches $expected"
