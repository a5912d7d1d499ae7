#!/bin/sh
# openapi_check.sh SMPATCH TESTDATA SHARED - with --openapi (the Kubernetes
# OpenAPI document from the shared reference data) the patches of built-in
# kinds must be those of the built-in tables. Skips (77) without the file.
bin=$1 data=$2 doc=$3/openapi/kubernetes-1.36.swagger.json
if [ ! -f "$doc" ]; then
	echo "skip: $doc not found"
	exit 77
fi
fail=0
for c in nginx-3-update volumes-retainkeys strategy-retainkeys finalizers-merge ports-merge-by-containerport; do
	out=$(cd "$data/$c" && eval "set -- $(cat args.patch)" && "$bin" "$@" --openapi "$doc" 2>/dev/null)
	if [ "$out" != "$(cat "$data/$c/expected/patch/stdout")" ]; then
		echo "$c: the patch with --openapi differs from the built-in one"
		fail=1
	fi
done
exit $fail
