#!/bin/sh
# The committed schema/go_zero.inc equals what tests/schema/gotypes writes from the
# Go types (Go and its module proxy needed: without Go a skip, with CI=true
# a failure).
# usage: go_zero_fresh.sh SOURCE_DIR OUTPUT_DIR
src=$1 outdir=$2
go=$(command -v go || { [ -x /usr/local/go/bin/go ] && echo /usr/local/go/bin/go; })
if [ -z "$go" ]; then
	if [ "$CI" = true ]; then
		echo "FAIL: Go is not installed (CI=true: the check must run)"
		exit 1
	fi
	echo "SKIP: Go is not installed: schema/go_zero.inc is not checked"
	exit 77
fi
out="$outdir/go_zero.fresh.inc"
(cd "$src/tests/schema/gotypes" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly "$go" run .) > "$out" || exit 1
if ! cmp -s "$out" "$src/schema/go_zero.inc"; then
	echo "FAIL: schema/go_zero.inc differs from a fresh generation; run" \
	     "'cd tests/schema/gotypes && go run . > ../../../schema/go_zero.inc'" \
	     "and commit it"
	diff "$src/schema/go_zero.inc" "$out" | head -20
	exit 1
fi
echo "ok: schema/go_zero.inc equals a fresh generation ($(grep -c '^{' "$out") fields)"
