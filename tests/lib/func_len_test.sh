#!/bin/sh
# func_len_test.sh SOURCE_DIR [MAX]
# No hand-written function of the library (codec/, schema/, merge/, ssa/,
# apply/) or of the command line (cli/) is longer than MAX lines (150): a
# function that long is several steps that want their own names (the
# generated schema/builtin_tables.c aside); and every static function over
# 40 lines has a comment right above it saying what it does (the others
# are declared, with theirs, in a header). A function runs from its first
# line at column 0 to the `}` at column 0 that ends it.
src=$1 max=${2:-150}
fail=0
for f in "$src"/codec/*.c "$src"/schema/*.c "$src"/merge/*.c "$src"/ssa/*.c \
	"$src"/apply/*.c "$src"/cli/*.c; do
	case $f in */schema/builtin_tables.c) continue ;; esac
	awk -v max="$max" -v cmax=40 -v file="$f" '
		# a `{` at column 0 opens the body of the signature above, the
		# `}` at column 0 closes it
		/^\{/ && start { body = 1; prevline = $0; next }
		/^\}/ && body {
			n = NR - start + 1
			if (n > max) {
				printf "%s:%d: %d lines (over %d): %s\n", file, start, n, max, name
				bad = 1
			}
			if (n > cmax && isstatic && !cmt) {
				printf "%s:%d: %d lines, no comment above it: %s\n", file, start, n, name
				bad = 1
			}
			start = 0; body = 0; prevline = $0; next
		}
		!body && /^[a-z_][^;]*\(/ && !/;[ \t]*$/ && !/^static const/ {
			start = NR; name = $0; isstatic = ($0 ~ /^static /)
			cmt = (prevline ~ /\*\/[ \t]*$/ || prevline ~ /^\/\//)
		}
		{ if (!body) prevline = $0 }
		END { exit bad }
	' "$f" || fail=1
done
[ $fail = 0 ] && echo "ok: no hand-written function over $max lines, a comment on every static one over 40"
exit $fail
