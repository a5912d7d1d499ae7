#!/bin/sh
# no_flags_test.sh SOURCE_DIR
# The library's messages name no command-line flags (the CLI adds its own
# hints, cli/common.c): no string literal of codec/ schema/ merge/ apply/
# ssa/ holds an option such as --type, --namespace or -o. kubectl's own
# warning about `kubectl create --save-config` is kubectl's advice, quoted.
src=$1
fail=0
for d in codec schema merge apply ssa; do
	[ -d "$src/$d" ] || continue
	# string literals of the C files: text between double quotes on a line
	grep -n -o '"\([^"\\]\|\\.\)*"' "$src/$d"/*.c 2>/dev/null |
		grep -E -- "(^|[ '(=])--[a-z][a-z-]*|[ '(]-[a-zA-Z] " |
		grep -v -- 'kubectl create --save-config' >"${TMPDIR:-/tmp}/no_flags.$$"
	if [ -s "${TMPDIR:-/tmp}/no_flags.$$" ]; then
		echo "FAIL: $d/ messages name command-line flags:"
		cat "${TMPDIR:-/tmp}/no_flags.$$"
		fail=1
	fi
	rm -f "${TMPDIR:-/tmp}/no_flags.$$"
done
[ $fail = 0 ] && echo "ok: no library message names a command-line flag"
exit $fail
