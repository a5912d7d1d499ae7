#!/bin/sh
# run_golden.sh SMPATCH CASE_DIR - one golden case of `smpatch apply` (or of
# the command in CASE_DIR/command): runs it in the case directory for every
# output mode and compares stdout, stderr and the exit code byte for byte
# with CASE_DIR/expected/<mode>.{out,err,code}. With SMP_UPDATE_GOLDEN=1 the
# expected files are rewritten instead (review them with git diff).
set -u
bin=$1
dir=$2
cd "$dir" || { echo "no case directory $dir"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ -f command ]; then modes=run; else modes="patch yaml json diff name"; fi
fail=0
for m in $modes; do
	if [ -f command ]; then
		eval "set -- $(cat command)"
	else
		eval "set -- apply $(cat args) -o $m"
	fi
	if [ -f stdin ]; then
		"$bin" "$@" <stdin >"$tmp/$m.out" 2>"$tmp/$m.err"
	else
		"$bin" "$@" </dev/null >"$tmp/$m.out" 2>"$tmp/$m.err"
	fi
	echo $? >"$tmp/$m.code"
	if [ "${SMP_UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p expected
		for k in out err code; do cp "$tmp/$m.$k" "expected/$m.$k"; done
		continue
	fi
	for k in code out err; do
		if [ ! -f "expected/$m.$k" ]; then
			echo "$dir: missing expected/$m.$k (run with SMP_UPDATE_GOLDEN=1)"
			fail=1
		elif ! cmp -s "expected/$m.$k" "$tmp/$m.$k"; then
			echo "$dir: -o $m: $k differs:"
			diff -u "expected/$m.$k" "$tmp/$m.$k" | head -40
			fail=1
		fi
	done
done
exit $fail
