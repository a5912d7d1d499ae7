#!/usr/bin/env bash
# bench/cluster.sh BUILD_DIR - cluster-scale plans: `smpatch apply -o patch`,
# `apply -o diff` and `apply --server-side -o patch` of a whole application set
# against a cluster dump, against reading and printing the same inputs with
# `smpatch convert`, in the same run.
#
# Called by `make bench` after bench/run.sh; not part of `make test`. Inputs
# come from bench/cluster_gen.py (fixed seed; cached under bench/out/cluster/).
# Environment knobs:
#   BENCH_CLUSTER_SIZES="2500 5000 10000 20000 31450"   applications (3
#                     configured objects each; 31,450 make a dump of 100,000
#                     live objects)
#   BENCH_CLUSTER_REPS=3                          repetitions (the median counts)
#   BENCH_CLUSTER_MODES="patch patch1 diff ssa"  the apply modes measured
#                     (patch1: -o patch with --jobs 1, one core; its output
#                     must be patch's, byte for byte)
#   BENCH_NO_RESULTS=1                            do not touch bench/RESULTS.md
# Targets (issue 22), reported PASS/FAIL, never fatal: peak RSS <= 4x the input
# bytes; wall time <= 1.0x convert's from 10,000 apps on; growth per doubling
# <= 2.1x (between sizes that are not a doubling apart, the growth is scaled
# to one: (t2/t1)^(1/log2(n2/n1))); each mode.
# Exit status: 1 when an output is wrong (counts of created/configured/
# unchanged objects differ from the generator's, or runs disagree), else 0.
TAG=bench/cluster
. "$(dirname "$0")/lib.sh"
OUT=$BENCH/out/cluster
RUNS=$OUT/runs
SMPATCH=$BUILD/smpatch
SIZES=${BENCH_CLUSTER_SIZES:-2500 5000 10000 20000 31450}
REPS=${BENCH_CLUSTER_REPS:-3}
MODES=${BENCH_CLUSTER_MODES:-patch patch1 diff ssa}

[ -x "$SMPATCH" ] || { echo "bench/cluster: $SMPATCH missing: build first (make bench does)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench/cluster: python3 is needed for the generator" >&2; exit 1; }
mkdir -p "$BIN" "$OUT"
if [ ! -x "$BIN/runner" ] || [ "$BENCH/runner.c" -nt "$BIN/runner" ]; then
	build_tool runner || { echo "bench/cluster: cannot build bench/runner.c" >&2; exit 1; }
fi

# ---- inputs ----------------------------------------------------------------

# A size's inputs are regenerated when the generator changed since.
for n in $SIZES; do
	d=$OUT/apps-$n
	if [ ! -f "$d/expected.txt" ] || [ "$BENCH/cluster_gen.py" -nt "$d/expected.txt" ]; then
		echo "bench/cluster: generating $n applications" >&2
		rm -rf "$d"
		nice python3 "$BENCH/cluster_gen.py" "$d" "$n" || { echo "bench/cluster: generator failed" >&2; exit 1; }
	fi
done

# ---- measuring ---------------------------------------------------------------

# The runner appends "wall_ms rss_kib status cpu_ms" to $RUNS/NAME.
rm -rf "$RUNS"
mkdir -p "$RUNS"

# mode_cmd MODE DIR: the smpatch command line of an apply mode.
mode_args() {
	case $1 in
	patch) echo "apply -R -f $2/config --live $2/live.json -o patch" ;;
	patch1) echo "apply -R -f $2/config --live $2/live.json -o patch --jobs 1" ;;
	diff) echo "apply -R -f $2/config --live $2/live.json -o diff" ;;
	ssa) echo "apply --server-side -R -f $2/config --live $2/live.json -o patch" ;;
	esac
}
# The exit code a mode ends with on these inputs (diff: differences found).
mode_ok() { case $1 in diff) echo 1 ;; *) echo 0 ;; esac; }

export SMPATCH_NOW=2026-01-01T00:00:00Z
for n in $SIZES; do
	d=$OUT/apps-$n
	# The inputs in the page cache first: the first run would read them
	# from the disk, and the programs compared would not read alike.
	find "$d/config" -type f -exec cat {} + >/dev/null
	cat "$d/configs.yaml" "$d/live.json" >/dev/null
	for r in $(seq 1 "$REPS"); do
		for m in $MODES; do
			# shellcheck disable=SC2046
			"$BIN/runner" "$RUNS/$m-$n.out" "$RUNS/$m-$n.err" -- \
				"$SMPATCH" $(mode_args "$m" "$d") >>"$RUNS/$m-$n"
			if [ "$r" = 1 ]; then
				cp "$RUNS/$m-$n.out" "$RUNS/$m-$n.first"
			elif ! cmp -s "$RUNS/$m-$n.out" "$RUNS/$m-$n.first"; then
				fail "apps-$n: $m run $r printed another plan than run 1"
			fi
		done
		"$BIN/runner" /dev/null "$RUNS/convc-$n.err" -- \
			"$SMPATCH" convert -o json "$d/configs.yaml" >>"$RUNS/convc-$n"
		"$BIN/runner" /dev/null "$RUNS/convl-$n.err" -- \
			"$SMPATCH" convert -o json "$d/live.json" >>"$RUNS/convl-$n"
	done
	case " $MODES " in *" patch "*" patch1 "*)
		cmp -s "$RUNS/patch-$n.first" "$RUNS/patch1-$n.first" ||
			fail "apps-$n: --jobs 1 printed another plan than the default" ;;
	esac
	for m in $MODES; do
		[ "$(worst "$m-$n")" = "$(mode_ok "$m")" ] ||
			fail "apps-$n: $m exited $(worst "$m-$n") ($(head -c 300 "$RUNS/$m-$n.err"))"
	done
	for k in convc convl; do
		[ "$(worst "$k-$n")" = 0 ] || fail "apps-$n: $k exited $(worst "$k-$n") ($(head -c 300 "$RUNS/$k-$n.err"))"
	done
	# The client-side plan must say what the generator knows: so many
	# created, configured and unchanged objects.
	case " $MODES " in *" patch "*)
		for a in created:create configured:configure unchanged:unchanged; do
			want=$(awk -v k="${a%%:*}" '$1 == k { print $2 }' "$d/expected.txt")
			got=$(grep -c "\"action\":\"${a#*:}\"" "$RUNS/patch-$n.first")
			[ "$want" = "$got" ] || fail "apps-$n: $got objects ${a%%:*}, the generator made $want"
		done ;;
	esac
done

# ---- table -------------------------------------------------------------------

TABLE=$OUT/cluster.md
verdict() { awk -v x="$1" -v lim="$2" 'BEGIN { print (x != "-" && x <= lim) ? "PASS" : "FAIL" }'; }
{
	echo "| mode | apps | objects (config / live) | input MB | apply ms (CPU) | convert ms (CPU) | time ratio | peak RSS MiB (convert) | RSS / input | growth |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$TABLE"
for m in $MODES; do
	prev= prevn=
	for n in $SIZES; do
		d=$OUT/apps-$n
		bytes=$(( $(find "$d/config" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }') + $(stat -c %s "$d/live.json") ))
		nconf=$(find "$d/config" -type f | wc -l)
		nlive=$(grep -o '"kind":"[A-Za-z]*","metadata":{' "$d/live.json" | wc -l)
		aw=$(col "$m-$n" 1) ac=$(col "$m-$n" 4) ar=$(col "$m-$n" 2)
		cw=$(awk -v a="$(col "convc-$n" 1)" -v b="$(col "convl-$n" 1)" 'BEGIN { print a + b }')
		cc=$(awk -v a="$(col "convc-$n" 4)" -v b="$(col "convl-$n" 4)" 'BEGIN { print a + b }')
		cr=$(awk -v a="$(col "convc-$n" 2)" -v b="$(col "convl-$n" 2)" 'BEGIN { print (a > b) ? a : b }')
		ratio=$(awk -v a="$aw" -v c="$cw" 'BEGIN { printf "%.2f", a / c }')
		rss=$(awk -v r="$ar" -v b="$bytes" 'BEGIN { printf "%.2f", r * 1024 / b }')
		growth=-
		[ -n "$prev" ] && growth=$(awk -v a="$aw" -v p="$prev" -v n="$n" -v m="$prevn" \
			'BEGIN { printf "%.2f", exp(log(a / p) * log(2) / log(n / m)) }')
		gv=
		[ "$growth" != - ] && gv=" $(verdict "$growth" 2.1)"
		rv=$(verdict "$ratio" 1.0)
		[ "$n" -lt 10000 ] && rv="(no target)"
		printf '| %s | %s | %s / %s | %.1f | %.0f (%.0f) | %.0f (%.0f) | %s %s | %.1f (%.1f) | %s %s | %s%s |\n' \
			"$m" "$n" "$nconf" "$nlive" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$aw" "$ac" \
			"$cw" "$cc" "$ratio" "$rv" "$(awk -v r="$ar" 'BEGIN { print r / 1024 }')" \
			"$(awk -v r="$cr" 'BEGIN { print r / 1024 }')" "$rss" "$(verdict "$rss" 4)" "$growth" "$gv" >>"$TABLE"
		prev=$aw prevn=$n
	done
done
ELAPSED=$(( $(date +%s) - START ))
{
	echo
	echo "Targets: time ratio (apply wall / convert wall) <= 1.0 from 10,000 apps on, RSS / input <= 4,"
	echo "growth of the apply wall time per doubling <= 2.1 (scaled to a doubling between 20,000 and"
	echo "31,450 apps, the 100,000-object dump), for each mode: patch (client-side -o patch; patch1"
	echo "the same with --jobs 1, on one core; the others use both), diff"
	echo "(-o diff of the stored forms), ssa (--server-side -o patch). Convert reads and prints the"
	echo "same inputs: the configurations as one stream (configs.yaml) and the live List, two"
	echo "processes, times summed."
	echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC'), $REPS repetitions (medians), ${ELAPSED}s; load average"
	echo "at start $LOAD_START, at end $(cut -d' ' -f1-3 /proc/loadavg)."
} >>"$TABLE"
echo
echo "## Cluster-scale plans (bench/cluster.sh)"
echo
cat "$TABLE"

# ---- RESULTS.md ----------------------------------------------------------------

# Its section of bench/RESULTS.md, replaced (see results_section).
if [ -z "${BENCH_NO_RESULTS:-}" ] && [ -f "$BENCH/RESULTS.md" ]; then
	{
		echo "## Cluster-scale plans"
		echo
		echo "\`smpatch apply -R -f config/ --live live.json\` (-o patch, -o diff, --server-side) over bench/cluster_gen.py's dump"
		echo "(N applications: Deployment + Service + ConfigMap, one file each; the live List compact,"
		echo "with server fields, defaults, managedFields, status, and a Pod for every fourth app that"
		echo "no configuration names; 10 % of the configurations changed, 2 % new)."
		echo
		cat "$TABLE"
	} | results_section cluster
fi

finish
