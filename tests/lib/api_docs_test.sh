#!/bin/sh
# api_docs_test.sh SOURCE_DIR
# Every ```c block in docs/API.md is one of examples/*.c verbatim (so the
# documented code is the code the lib_example_* and lib_install tests
# compile and run), and every example appears there.
src=$1
doc=$src/docs/API.md
[ -f "$doc" ] || { echo "FAIL: $doc missing"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
	/^```c$/ { n++; f = sprintf("%s/block%03d.c", dir, n); inb = 1; start[n] = NR; next }
	/^```/ && inb { inb = 0; close(f); next }
	inb { print > f }
	END { if (inb) { print "unterminated code block at line " start[n]; exit 1 } }
' "$doc" || { echo "FAIL: $doc"; exit 1; }
fail=0 nblocks=0
for b in "$tmp"/block*.c; do
	[ -e "$b" ] || break
	nblocks=$((nblocks + 1))
	found=
	for ex in "$src"/examples/*.c; do
		cmp -s "$b" "$ex" && found=$ex
	done
	if [ -z "$found" ]; then
		echo "FAIL: a C block in API.md is not one of examples/*.c verbatim:"
		head -5 "$b" | sed 's/^/    /'
		for ex in "$src"/examples/*.c; do
			[ "$(head -3 "$b")" = "$(head -3 "$ex")" ] && diff -u "$ex" "$b" | head -30
		done
		fail=1
	fi
done
for ex in "$src"/examples/*.c; do
	found=
	for b in "$tmp"/block*.c; do
		cmp -s "$b" "$ex" && found=1
	done
	[ -n "$found" ] || { echo "FAIL: examples/$(basename "$ex") is not shown in API.md"; fail=1; }
done
# Every public function is mentioned somewhere in API.md.
for fn in $(grep '^SMP_API' "$src/include/smpatch.h" | sed 's/(.*//' | grep -o '[a-z_0-9]*$'); do
	grep -q "$fn" "$doc" || { echo "FAIL: $fn is not mentioned in API.md"; fail=1; }
done
# Every SMP_API declaration in the header is documented where it is
# declared: right after a comment, or in a group of declarations that
# follows one.
undocumented=$(awk '
	/^SMP_API/ && prev !~ /\*\/[ \t]*$/ && prev !~ /^SMP_API/ && !cont { print FILENAME ":" NR ": " $0 }
	/^SMP_API/ { cont = ($0 !~ /;[ \t]*$/) ; prev = $0; next }
	cont { if ($0 ~ /;[ \t]*$/) cont = 0; next }
	$0 != "" { prev = $0 }
' "$src/include/smpatch.h")
if [ -n "$undocumented" ]; then
	echo "FAIL: SMP_API declarations without a comment:"
	echo "$undocumented"
	fail=1
fi
# API.md is generated from API.md.in with the examples and their expected
# output (tests/lib/gen_api_md.py): it must be up to date.
if command -v python3 >/dev/null 2>&1; then
	python3 "$src/tests/lib/gen_api_md.py" "$src" "$tmp/API.md" &&
		if ! diff -u "$doc" "$tmp/API.md"; then
			echo "FAIL: docs/API.md is stale: run python3 tests/lib/gen_api_md.py"
			fail=1
		fi
fi
[ $fail = 0 ] && echo "ok: $nblocks C blocks in API.md, each an example compiled by the tests"
exit $fail
