#!/bin/sh
# func_len_test.sh SOURCE_DIR [MAX]
# No function of the command line (cli/*.c) is longer than MAX lines (150):
# the program is a reader of files and a printer of the library's results,
# and a function that long is a job that wants its own name. A function
# runs from its first line at column 0 to the `}` at column 0 that ends it.
src=$1 max=${2:-150}
fail=0
for f in "$src"/cli/*.c; do
	awk -v max="$max" -v file="$f" '
		/^[a-z_][^;]*\(/ && !/;[ \t]*$/ && !/^static const/ { start = NR; name = $0; next }
		/^\{/ && start { body = 1; next }
		/^\}/ && body {
			n = NR - start + 1
			if (n > max) { printf "%s:%d: %d lines: %s\n", file, start, n, name; bad = 1 }
			start = 0; body = 0
		}
		END { exit bad }
	' "$f" || fail=1
done
[ $fail = 0 ] && echo "ok: no function in cli/ over $max lines"
exit $fail
