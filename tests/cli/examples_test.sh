#!/bin/sh
# examples_test.sh SMPATCH SOURCE_DIR
# Every example of README.md and docs/CLI.md runs as written from the
# repository root with smpatch on the PATH:
#   - in ```sh blocks, each line that starts with `smpatch ` runs (with sh;
#     a `# ... exit N` comment on the line is its expected exit status, else 0);
#   - in ```console blocks, each `$ smpatch ...` line runs and what follows,
#     up to the next `$ ` line or the end of the block, is its expected
#     output (standard error, then standard output), exit 0;
#   - a line of another block that starts with `smpatch ` and has no
#     placeholder (CAPITALS, [options], a|b) is an unmarked example: a failure.
smpatch=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/home" && ln -s "$smpatch" "$tmp/bin/smpatch"
fail=0 n=0
bad() { echo "FAIL: $*"; fail=1; }

# Writes the examples of a Markdown file as records: "run|FILE:LINE|CODE|CMD"
# and, for console examples, "out|FILE:LINE|0|CMD" followed by the expected
# output lines prefixed with ">".
extract() {
	awk -v f="$1" '
	function flush() { if (pending) { print "end"; pending = 0 } }
	/^```/ {
		if (!inblock) { inblock = 1; kind = substr($0, 4); next }
		flush(); inblock = 0; next
	}
	!inblock { next }
	kind == "sh" && /^smpatch / {
		code = 0
		if (match($0, /#.*exit [0-9]/)) { c = substr($0, RSTART, RLENGTH); code = substr(c, length(c)) }
		printf "run|%s:%d|%s|%s\n", f, NR, code, $0; next
	}
	kind == "console" && /^\$ / {
		flush()
		printf "out|%s:%d|0|%s\n", f, NR, substr($0, 3); pending = 1; next
	}
	kind == "console" && pending { print ">" $0; next }
	kind != "sh" && kind != "console" && /^(\$ )?smpatch / {
		line = $0; sub(/#.*/, "", line)
		if (line !~ /[A-Z][A-Z]/ && line !~ /[][|]/ && line !~ /\.\.\./)
			printf "unmarked|%s:%d|0|%s\n", f, NR, $0
	}
	END { flush() }
	' "$src/$1"
}
{ extract README.md; extract docs/CLI.md; } >"$tmp/examples"

cd "$src" || exit 1
while IFS= read -r rec; do
	case $rec in
	run\|* | out\|* | unmarked\|*) ;;
	">"*) printf '%s\n' "${rec#>}" >>"$tmp/want"; continue ;;
	end)
		if ! cmp -s "$tmp/want" "$tmp/got"; then
			bad "$where: the output shown is not what '$cmd' prints:"
			diff -u "$tmp/want" "$tmp/got" | head -20
		fi
		continue ;;
	esac
	type=${rec%%|*} rest=${rec#*|}
	where=${rest%%|*} rest=${rest#*|}
	want=${rest%%|*} cmd=${rest#*|}
	if [ "$type" = unmarked ]; then
		bad "$where: '$cmd' looks like an example outside a sh or console block"
		continue
	fi
	n=$((n + 1))
	: >"$tmp/want"
	if [ "$type" = out ]; then
		# standard error first, then standard output, as the page shows them
		HOME=$tmp/home PATH="$tmp/bin:$PATH" sh -c "$cmd" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
		rc=$?
		cat "$tmp/stderr" "$tmp/stdout" >"$tmp/got"
	else
		HOME=$tmp/home PATH="$tmp/bin:$PATH" sh -c "$cmd" >"$tmp/got" 2>&1 </dev/null
		rc=$?
	fi
	if [ "$rc" != "$want" ]; then
		bad "$where: '$cmd' exited $rc, want $want"
		head -5 "$tmp/got"
	fi
done <"$tmp/examples"
[ $n -ge 20 ] || bad "only $n examples found in README.md and docs/CLI.md"
[ $fail = 0 ] && echo "ok: $n examples of README.md and docs/CLI.md run as written"
exit $fail
