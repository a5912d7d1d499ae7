#!/bin/sh
# exports_test.sh LIBSMPATCH.so HEADER
# The shared library exports exactly the functions smpatch.h declares with
# SMP_API (internal helpers are named smp_* / smpv_* too, but must stay
# hidden), each with the version SMPATCH_1, and its SONAME is libsmpatch.so.1.
lib=$1 hdr=$2
for t in nm readelf; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
[ -f "$lib" ] || { echo "FAIL: $lib missing"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# Declared: the identifier before the '(' on each SMP_API line.
grep '^SMP_API' "$hdr" | sed 's/(.*//' | grep -o '[A-Za-z_][A-Za-z0-9_]*$' |
	sort -u >"$tmp/declared"
# A prototype of an smp_ function at the start of a line without SMP_API is a
# public function someone forgot to export (or an internal one in the header).
if grep -nE '^[a-z][^#(]*[ *]smp_[a-z0-9_]+\(' "$hdr" | grep -v ':SMP_API' |
	grep -v ':typedef' >"$tmp/unmarked"; then
	echo "FAIL: functions declared in $hdr without SMP_API:"
	cat "$tmp/unmarked"
	fail=1
fi
ndecl=$(wc -l <"$tmp/declared")
[ "$ndecl" -gt 0 ] || { echo "FAIL: no SMP_API declarations found in $hdr"; exit 1; }

# Exported: every defined dynamic symbol except the version nodes (type A).
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' >"$tmp/raw"
sed 's/@.*//' "$tmp/raw" | sort -u >"$tmp/exported"

if ! cmp -s "$tmp/declared" "$tmp/exported"; then
	echo "FAIL: exported symbols differ from the SMP_API declarations"
	echo "  exported but not declared (should be hidden):"
	comm -13 "$tmp/declared" "$tmp/exported" | sed 's/^/    /'
	echo "  declared but not exported (missing or hidden):"
	comm -23 "$tmp/declared" "$tmp/exported" | sed 's/^/    /'
	fail=1
fi
# Every export carries the version node of smpatch.map.
if grep -v '@@SMPATCH_1$' "$tmp/raw" >"$tmp/unversioned"; then
	echo "FAIL: exported symbols without version SMPATCH_1:"
	sed 's/^/    /' "$tmp/unversioned"
	fail=1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$soname" != "libsmpatch.so.1" ]; then
	echo "FAIL: SONAME is '$soname', want libsmpatch.so.1"
	fail=1
fi
[ $fail = 0 ] && echo "ok: $ndecl SMP_API functions exported, versioned SMPATCH_1, SONAME $soname"
exit $fail
