#!/bin/sh
# The committed schema/builtin_tables.c equals a fresh generation.
# usage: tables_fresh.sh GENERATOR SHARED_DIR COMMITTED_FILE OUTPUT_DIR
gen=$1 shared=$2 committed=$3 outdir=$4
doc="$shared/openapi/kubernetes-1.36.swagger.json"
if [ ! -f "$doc" ]; then
	echo "SKIP: $doc is not available"
	exit 77
fi
out="$outdir/builtin_tables.fresh.c"
"$gen" "$doc" "$out" || exit 1
if ! cmp -s "$out" "$committed"; then
	echo "FAIL: $committed differs from a fresh generation; run 'make schema' and commit it"
	diff "$committed" "$out" | head -20
	exit 1
fi
echo "ok: committed tables equal a fresh generation"
