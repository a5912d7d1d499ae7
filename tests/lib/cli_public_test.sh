#!/bin/sh
# cli_public_test.sh SOURCE_DIR
# The program is a client of the library like any other: cli/ includes only
# smpatch.h and its own headers, never a module's internal header, and calls
# no internal (non-SMP_API) smp_/smpv_ function.
src=$1
fail=0
bad=$(grep -nE '#include "(codec|schema|merge|apply)/|#include "(value|codec|schema|merge|apply_int)\.h"' "$src"/cli/*.c "$src"/cli/*.h)
if [ -n "$bad" ]; then
	echo "FAIL: cli/ includes internal headers:"
	echo "$bad"
	fail=1
fi
api=$(grep '^SMP_API' "$src/include/smpatch.h" | sed 's/(.*//' | grep -o '[A-Za-z_][A-Za-z0-9_]*$' | sort -u)
used=$(cat "$src"/cli/*.c "$src"/cli/*.h | grep -oE '\bsmpv?_[a-z0-9_]+[ ]*\(' | tr -d ' (' | sort -u)
for f in $used; do
	echo "$api" | grep -qx "$f" && continue
	# the CLI's own static helpers may be named smp_... too: accept those defined in cli/
	grep -qE "^[a-z].*[ *]$f\(" "$src"/cli/*.c && continue
	echo "FAIL: cli/ calls $f, which is not part of the public API"
	fail=1
done
[ $fail = 0 ] && echo "ok: cli/ uses only smpatch.h ($(echo "$used" | wc -w) library functions called)"
exit $fail
