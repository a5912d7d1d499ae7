#!/bin/sh
# output_errors.sh SMPATCH DATADIR - a failed write of the output is one
# message and exit 5, for a streamed output (patch of one object), a
# buffered one (patch of several objects) and stdio's (convert), for every
# command, on a full disk (/dev/full) and on a closed pipe; a patch of
# several objects whose second fails prints nothing at all.
set -u
SMPATCH=$1
DATA=$2
TMP=${TMPDIR:-/tmp}/smp-outerr.$$
mkdir -p "$TMP" || exit 1
trap 'rm -rf "$TMP"' EXIT
fails=0

check_full() {
	name=$1
	shift
	if [ ! -w /dev/full ]; then
		echo "SKIP $name: no /dev/full"
		return
	fi
	"$@" >/dev/full 2>"$TMP/err"
	rc=$?
	judge "$name" "$rc"
}

# judge NAME RC: exit 5 and one error line (apply's status lines, which go
# to stderr as in kubectl, aside).
judge() {
	name=$1
	rc=$2
	lines=$(grep -v -E '^[a-z0-9.]+/[^ ]+ (created|configured|unchanged|pruned)|^Warning:' "$TMP/err" | wc -l)
	if [ "$rc" != 5 ] || [ "$lines" != 1 ] || ! grep -q "writing output" "$TMP/err"; then
		echo "FAIL $name: exit $rc (want 5), $lines stderr line(s) (want 1):"
		cat "$TMP/err"
		fails=$((fails + 1))
	else
		echo "PASS $name"
	fi
}

# check_pipe NAME CMD...: the same when the reader of stdout has gone (the
# command starts after `true` has exited, so every write meets EPIPE).
check_pipe() {
	name=$1
	shift
	{ sleep 1; "$@" 2>"$TMP/err"; echo $? >"$TMP/rc"; } | true
	judge "$name (closed pipe)" "$(cat "$TMP/rc")"
}

# A target big enough that the streamed output spans many writes.
{
	echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{'
	i=0
	while [ $i -lt 20000 ]; do
		printf '"key-%05d":"value number %05d",' $i $i
		i=$((i + 1))
	done
	echo '"last":"x"}}'
} >"$TMP/big.json"
echo '{"data":{"added":"1"}}' >"$TMP/patch.json"

check_full "patch (streamed)" "$SMPATCH" patch -o json "$TMP/big.json" "$TMP/patch.json"
check_full "patch of two objects" "$SMPATCH" patch -o json \
	"$DATA/smp-multi-doc-stream/target.yaml" "$DATA/smp-multi-doc-stream/patch.yaml"
check_full "convert" "$SMPATCH" convert -o json "$TMP/big.json"

# Every command, on a full disk and on a closed pipe.
A=$DATA/../apply/args-removed
for out in yaml json patch diff name; do
	check_full "apply -o $out" "$SMPATCH" apply -f "$A/config.yaml" --live "$A/live.yaml" -o $out
done
check_full "apply (create)" "$SMPATCH" apply -f "$A/config.yaml"
check_full "diff" "$SMPATCH" diff "$A/live.yaml" "$A/config.yaml"
check_full "diff three-way" "$SMPATCH" diff --current "$A/live.yaml" "$A/live.yaml" "$A/config.yaml"
check_full "explain" "$SMPATCH" explain v1 Pod
check_full "explain -o json" "$SMPATCH" explain -o json apps/v1 Deployment spec
check_full "last-applied view" "$SMPATCH" last-applied view -f "$A/live.yaml"
check_full "last-applied set" "$SMPATCH" last-applied set -f "$A/config.yaml" --live "$A/live.yaml"
check_full "version" "$SMPATCH" version
check_full "help" "$SMPATCH" --help
check_full "patch --help" "$SMPATCH" patch --help
check_pipe "convert" "$SMPATCH" convert -o json "$TMP/big.json"
check_pipe "patch" "$SMPATCH" patch -o json "$TMP/big.json" "$TMP/patch.json"
check_pipe "apply" "$SMPATCH" apply -f "$A/config.yaml" --live "$A/live.yaml" -o json
check_pipe "diff" "$SMPATCH" diff "$A/live.yaml" "$A/config.yaml"
check_pipe "explain" "$SMPATCH" explain v1 Pod
check_pipe "last-applied view" "$SMPATCH" last-applied view -f "$A/live.yaml"

# The second object fails: exit 3, nothing on stdout.
"$SMPATCH" patch -o json "$DATA/smp-multi-second-fails/target.yaml" \
	"$DATA/smp-multi-second-fails/patch.yaml" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" != 3 ] || [ -s "$TMP/out" ] || ! grep -q "service/b" "$TMP/err"; then
	echo "FAIL second object fails: exit $rc (want 3), stdout $(wc -c <"$TMP/out") bytes (want 0):"
	cat "$TMP/err"
	fails=$((fails + 1))
else
	echo "PASS second object fails: nothing printed"
fi

# The streamed output equals the buffered one (smpatch convert prints
# through smp_print): same bytes.
echo '{}' >"$TMP/empty.json"
"$SMPATCH" patch -o json "$TMP/big.json" "$TMP/empty.json" >"$TMP/a" &&
	"$SMPATCH" convert -o json --sort-keys "$TMP/big.json" >"$TMP/b" && cmp -s "$TMP/a" "$TMP/b"
if [ $? != 0 ]; then
	echo "FAIL streamed patch output differs from convert's"
	fails=$((fails + 1))
else
	echo "PASS streamed output = convert output ($(wc -c <"$TMP/a") bytes)"
fi
[ "$fails" = 0 ]
