#!/bin/sh
# One golden case of `smpatch explain`: testdata/explain/<case>/
#   args    the arguments after "explain", one per line; @TESTDATA@ is the
#           testdata directory, @SHARED@ the reference data directory
#   stdout  expected standard output (byte for byte)
#   stderr  expected standard error (byte for byte)
#   exit    expected exit code
# With SMP_UPDATE_GOLDEN=1 the expected files are rewritten instead.
# usage: explain_golden.sh SMPATCH CASE_DIR TESTDATA_DIR SHARED_DIR
smpatch=$1 case=$2 testdata=$3 shared=$4
[ -f "$case/args" ] || { echo "FAIL: $case/args missing"; exit 1; }
if grep -q '@SHARED@' "$case/args" && [ ! -d "$shared/conformance" ]; then
	echo "SKIP: the reference data ($shared) is not available"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Arguments one per line, substituted, passed without word splitting.
set --
while IFS= read -r a || [ -n "$a" ]; do
	a=$(printf '%s' "$a" | sed -e "s|@TESTDATA@|$testdata|g" -e "s|@SHARED@|$shared|g")
	set -- "$@" "$a"
done < "$case/args"
"$smpatch" explain "$@" >"$tmp/stdout" 2>"$tmp/stderr"
echo $? >"$tmp/exit"
# Paths in messages are shown relative to the data directories.
sed -i -e "s|$testdata|@TESTDATA@|g" -e "s|$shared|@SHARED@|g" "$tmp/stderr"
if [ "$SMP_UPDATE_GOLDEN" = 1 ]; then
	cp "$tmp/stdout" "$tmp/stderr" "$tmp/exit" "$case/"
	echo "updated $case"
	exit 0
fi
rc=0
for f in stdout stderr exit; do
	if ! cmp -s "$tmp/$f" "$case/$f"; then
		echo "FAIL: $f differs from $case/$f"
		diff "$case/$f" "$tmp/$f" | head -30
		rc=1
	fi
done
[ $rc = 0 ] && echo "ok"
exit $rc
