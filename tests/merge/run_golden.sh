#!/bin/sh
# run_golden.sh SMPATCH CASEDIR - one golden case of `smpatch diff` / `smpatch patch`.
#
# CASEDIR holds: cmd (the arguments after "smpatch", one per line; file
# names are relative to CASEDIR), the input files, optionally stdin, and the
# expected stdout, stderr and exit (the exit code). With SMP_UPDATE_GOLDEN=1
# the expected files are rewritten from what the program does now.
smpatch=$1
dir=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 1

set --
while IFS= read -r line || [ -n "$line" ]; do
	set -- "$@" "$line"
done < cmd

if [ -f stdin ]; then
	"$smpatch" "$@" < stdin > "$tmp/stdout" 2> "$tmp/stderr"
else
	"$smpatch" "$@" < /dev/null > "$tmp/stdout" 2> "$tmp/stderr"
fi
echo $? > "$tmp/exit"

if [ "$SMP_UPDATE_GOLDEN" = 1 ]; then
	cp "$tmp/stdout" stdout && cp "$tmp/stderr" stderr && cp "$tmp/exit" exit
	echo "updated $dir"
	exit 0
fi
status=0
for f in exit stdout stderr; do
	if [ ! -f "$f" ]; then
		echo "missing expected file $dir/$f (run with SMP_UPDATE_GOLDEN=1)"
		status=1
	elif ! cmp -s "$f" "$tmp/$f"; then
		echo "--- $f differs (expected, got):"
		diff -u "$f" "$tmp/$f"
		status=1
	fi
done
exit $status
