# bench/lib.sh - sourced by the bench scripts (run.sh, cluster.sh, ssa.sh)
# with the script's arguments: their common setup (BUILD from the first
# argument, ROOT, BENCH, BIN, CC, CFLAGS, START, LOAD_START, failures) and
# the helpers they share. The script sets TAG (its prefix of messages), OUT
# (its output folder) and RUNS (the folder of the runner's records).
# shellcheck shell=bash

set -u
export LC_ALL=C

BUILD=${1:-build}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
BENCH=$ROOT/bench
BIN=$BENCH/out/bin
CC=${CC:-cc}
CFLAGS="-std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Werror"
START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
failures=0

fail() {
	echo "$TAG: FAIL: $*" >&2
	failures=$((failures + 1))
}

# ---- tools -----------------------------------------------------------------

# build_tool NAME: compiles bench/NAME.c into $BIN/NAME with the flags it
# needs (runner: wait4 and friends; jsoncmp and ssa_prep: cJSON; driver and
# schema_load: the library of $BUILD, through the public header).
build_tool() {
	# shellcheck disable=SC2046 # word splitting of the flags is intended
	case $1 in
	runner) $CC $CFLAGS -D_GNU_SOURCE -o "$BIN/runner" "$BENCH/runner.c" ;;
	jsoncmp | ssa_prep)
		$CC $CFLAGS -D_POSIX_C_SOURCE=200809L $(pkg-config --cflags libcjson 2>/dev/null) \
			-o "$BIN/$1" "$BENCH/$1.c" $(pkg-config --libs libcjson 2>/dev/null || echo -lcjson) ;;
	driver | schema_load)
		$CC $CFLAGS -D_POSIX_C_SOURCE=200809L -I"$ROOT/include" -o "$BIN/$1" "$BENCH/$1.c" \
			"$BUILD/libsmpatch.a" $(pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml) -lm ;;
	*) $CC $CFLAGS -D_POSIX_C_SOURCE=200809L -o "$BIN/$1" "$BENCH/$1.c" ;;
	esac
}

# build_tools NAME...: build_tool of each in turn; the run ends at the first
# that does not build.
build_tools() {
	local t
	mkdir -p "$BIN"
	for t in "$@"; do
		build_tool "$t" || { echo "$TAG: cannot build the bench tools" >&2; exit 1; }
	done
}

# ---- inputs ----------------------------------------------------------------

# sizes_of FAMILY: the first $NSIZES sizes of FAMILY_SIZES[FAMILY] (the
# script's table), smallest first.
sizes_of() {
	echo "${FAMILY_SIZES[$1]:-}" | tr ' ' '\n' | head -n "$NSIZES" | tr '\n' ' '
}

# inputs: the key (FAMILY-SIZE) of every input of $FAMILIES, in the order
# of the tables.
inputs() {
	local fam n
	for fam in $FAMILIES; do
		for n in $(sizes_of "$fam"); do
			echo "$fam-$n"
		done
	done
}

# each_step FUNC: FUNC FAMILY N1 N2 for each step from one size of a family
# of $FAMILIES to the next (FUNC keeps its variables local: these are ours).
each_step() {
	local fam prev n
	for fam in $FAMILIES; do
		prev=
		for n in $(sizes_of "$fam"); do
			[ -z "$prev" ] || "$1" "$fam" "$prev" "$n"
			prev=$n
		done
	done
}

# unit_of FAMILY: what a family's size counts.
unit_of() {
	case $1 in
	deploy) echo "containers x 100 env" ;;
	configmap) echo "keys" ;;
	pod) echo "volumes" ;;
	list) echo "Services" ;;
	esac
}

# ---- figures ---------------------------------------------------------------

# median: the median of the numbers on stdin, one a line.
median() {
	sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# col NAME N: the median of column N of $RUNS/NAME, the runner's lines
# "wall_ms rss_kib status cpu_ms" of one measured command.
col() { cut -d' ' -f"$2" "$RUNS/$1" | median; }

# worst NAME: the highest exit status in $RUNS/NAME, so that one failure shows.
worst() { cut -d' ' -f3 "$RUNS/$1" | sort -g | tail -n 1; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.1f", a / b }'; }

# growth G WHICH: scores a growth ratio G (time(2n) / time(n), "-" when not
# measured) against the target 2.2: WHICH_MAX keeps the largest, WHICH_BAD
# counts those above, and MARK is " **!**" after one above, else empty.
growth() {
	local -n bad=${2}_BAD max=${2}_MAX
	MARK=
	[ "$1" = - ] && return 0
	if awk -v g="$1" 'BEGIN { exit !(g > 2.2) }'; then
		bad=$((bad + 1))
		MARK=" **!**"
	fi
	max=$(awk -v g="$1" -v m="$max" 'BEGIN { print (g > m) ? g : m }')
}

# ---- output ----------------------------------------------------------------

# table_head COLUMN...: the head of a Markdown table, the first two columns
# (input and size) aligned left, the figures right.
table_head() {
	local c line="|" rule="|---|---|"
	for c in "$@"; do line="$line $c |"; done
	for c in "${@:3}"; do rule="$rule---:|"; done
	echo "$line"
	echo "$rule"
}

# correctness PASS_TEXT: the targets' line on the outputs' correctness.
correctness() {
	if [ "$failures" -gt 0 ]; then
		echo "- **FAIL** correctness: $failures mismatch(es) or failure(s), see the run's stderr."
	else
		echo "- **PASS** correctness: $1"
	fi
}

# show_results TABLES TARGETS: prints both and the run's duration, which
# stays in ELAPSED (seconds).
show_results() {
	cat "$1"
	echo
	cat "$2"
	ELAPSED=$(($(date +%s) - START))
	echo
	echo "$TAG: finished in ${ELAPSED}s"
}

# results_section NAME: stdin becomes bench/RESULTS.md's section between
# <!-- NAME:begin --> and <!-- NAME:end -->, in place of the one there (run.sh
# keeps it when it rewrites the file) or, the first time, before the history.
results_section() {
	local sec=$OUT/section.md
	{
		echo "<!-- $1:begin -->"
		cat
		echo "<!-- $1:end -->"
	} >"$sec"
	awk -v sec="$sec" -v begin="<!-- $1:begin -->" -v end="<!-- $1:end -->" '
		function put() { while ((getline l < sec) > 0) print l; done = 1 }
		index($0, begin) == 1 { skip = 1; put(); next }
		index($0, end) == 1 { skip = 0; next }
		skip { next }
		!done && /^## History/ { put(); print "" }
		{ print }
		END { if (!done) { print ""; put() } }
	' "$BENCH/RESULTS.md" >"$BENCH/RESULTS.md.new" && mv "$BENCH/RESULTS.md.new" "$BENCH/RESULTS.md"
	echo "$TAG: updated bench/RESULTS.md"
}

# finish: the run's exit, 1 after any failure.
finish() {
	[ "$failures" -eq 0 ] || { echo "$TAG: $failures FAILURE(S)" >&2; exit 1; }
	exit 0
}
