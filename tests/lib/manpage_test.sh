#!/bin/sh
# manpage_test.sh smpatch.1 - the man page renders without a groff warning.
man=$1
command -v groff >/dev/null 2>&1 || { echo "SKIP: groff not installed"; exit 77; }
[ -f "$man" ] || { echo "FAIL: $man missing"; exit 1; }
err=$(groff -man -ww -z -Tutf8 "$man" 2>&1)
if [ -n "$err" ]; then
	echo "FAIL: groff warnings for $man:"
	echo "$err"
	exit 1
fi
head -1 "$man" | grep -q '^\.TH SMPATCH 1 ' || { echo "FAIL: no '.TH SMPATCH 1' header"; exit 1; }
echo "ok: $man renders cleanly ($(groff -man -Tutf8 "$man" 2>/dev/null | wc -l) lines)"
