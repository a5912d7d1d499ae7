#!/bin/sh
# inputs.sh SMPATCH - bad inputs the golden catalogue (testdata/errors) cannot
# hold because git cannot: a FIFO (named pipe) and a file over the input
# limit (1 GiB, kept sparse so the test costs no disk).
#   - a FIFO is read like a file: bad YAML through it is one error naming
#     FIFO:line:col, exit 3; a good document through it applies;
#   - a file over the limit is refused with exit 3 and one line, for
#     convert, patch, apply (-f and --live) and diff, without reading it:
#     where the build allows an address-space limit (not under ASan), the
#     commands run with 256 MiB of address space;
#   - a stream over the limit is refused within the limit plus a constant.
set -u
SMPATCH=$1
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
fail=0
cd "$TMP" || exit 1

# expect NAME CODE PATTERN CMD...: exit CODE, nothing on stdout, one stderr
# line matching PATTERN (grep -E).
expect() {
	name=$1 code=$2 pat=$3
	shift 3
	"$@" >out 2>err
	rc=$?
	if [ "$rc" != "$code" ] || [ -s out ] || [ "$(wc -l <err)" != 1 ] || ! grep -qE "$pat" err; then
		echo "FAIL $name: exit $rc (want $code), stdout $(wc -c <out) bytes, stderr:"
		cat err
		fail=1
	else
		echo "ok   $name: $(cat err)"
	fi
}

printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n' >cm.yaml
printf '{"data":{"k":"w"}}\n' >patch.json

# FIFOs: the writer starts first and blocks until smpatch opens the FIFO.
mkfifo bad.yaml good.yaml || { echo "SKIP: mkfifo failed"; exit 77; }
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [a\n' >bad.yaml &
expect "FIFO with bad YAML (convert)" 3 '^smpatch: bad\.yaml:[0-9]+:[0-9]+: error: invalid YAML' \
	"$SMPATCH" convert bad.yaml
wait
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [a\n' >bad.yaml &
expect "FIFO with bad YAML (apply --live)" 3 '^smpatch: bad\.yaml:[0-9]+:[0-9]+: error: invalid YAML' \
	"$SMPATCH" apply -f cm.yaml --live bad.yaml
wait
cat cm.yaml >good.yaml &
out=$("$SMPATCH" apply -f good.yaml -o name 2>/dev/null)
rc=$?
wait
if [ "$rc" != 0 ] || [ "$out" != configmap/a ]; then
	echo "FAIL FIFO with a good document: exit $rc, stdout '$out'"
	fail=1
else
	echo "ok   FIFO with a good document applies"
fi

# A sparse file one byte over 1 GiB.
truncate -s 1073741825 big.yaml || { echo "SKIP: truncate failed"; exit 77; }
limit=""
if (ulimit -v 262144 && "$SMPATCH" version >/dev/null 2>&1); then
	limit="ulimit -v 262144;"
	echo "(running the over-limit commands with 256 MiB of address space)"
fi
over='^smpatch: big\.yaml: error: input is more than the limit of 1073741824 bytes$'
expect "over the limit: convert" 3 "$over" sh -c "$limit exec \"\$@\"" sh "$SMPATCH" convert big.yaml
expect "over the limit: patch target" 3 "$over" sh -c "$limit exec \"\$@\"" sh "$SMPATCH" patch big.yaml patch.json
expect "over the limit: patch" 3 "$over" sh -c "$limit exec \"\$@\"" sh "$SMPATCH" patch cm.yaml big.yaml
expect "over the limit: apply -f" 3 "$over" sh -c "$limit exec \"\$@\"" sh "$SMPATCH" apply -f big.yaml
expect "over the limit: apply --live" 3 "$over" sh -c "$limit exec \"\$@\"" sh "$SMPATCH" apply -f cm.yaml --live big.yaml
expect "over the limit: diff" 3 "$over" sh -c "$limit exec \"\$@\"" sh "$SMPATCH" diff cm.yaml big.yaml

# A stream over the limit (the commands share one reader, so one command
# stands for all): refused while holding no more than the limit plus a
# constant, checked with an address-space limit of 1 GiB + 96 MiB. Only
# where such a limit works (not under ASan): it reads 1 GiB, some seconds.
if [ -n "$limit" ]; then
	head -c 1200000000 /dev/zero |
		(ulimit -v 1146880 && exec "$SMPATCH" patch - patch.json) >out 2>err
	if [ -s out ] || ! grep -q '^smpatch: <stdin>: error: input is more than the limit of 1073741824 bytes$' err; then
		echo "FAIL stream over the limit:"
		cat err
		fail=1
	else
		echo "ok   stream over the limit: $(cat err)"
	fi
fi
exit $fail
