#!/usr/bin/env bash
# bench/validate.sh BUILD_DIR - `smpatch validate` of a tree of one-object
# files (bench/cluster_gen.py's configuration tree: 10,000 applications make
# 30,000 files) against reading and printing the same documents
# (`smpatch convert -o json` of them as one stream), in the same run.
#
# Not part of `make test`. Environment knobs:
#   BENCH_VALIDATE_APPS="10000"   applications (3 files each)
#   BENCH_VALIDATE_REPS=3         repetitions (the median counts)
#   BENCH_NO_RESULTS=1            do not touch bench/RESULTS.md
# Target (issue 31, item 5), reported PASS/FAIL, never fatal: validate's
# wall time <= 1.2x convert's.
# Exit status: 1 when an output is wrong (a verdict other than valid, or
# runs that disagree), else 0.
TAG=bench/validate
. "$(dirname "$0")/lib.sh"
OUT=$BENCH/out/cluster
RUNS=$BENCH/out/validate/runs
SMPATCH=$BUILD/smpatch
APPS=${BENCH_VALIDATE_APPS:-10000}
REPS=${BENCH_VALIDATE_REPS:-3}

[ -x "$SMPATCH" ] || { echo "$TAG: $SMPATCH missing: build first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "$TAG: python3 is needed for the generator" >&2; exit 1; }
mkdir -p "$BIN" "$OUT"
if [ ! -x "$BIN/runner" ] || [ "$BENCH/runner.c" -nt "$BIN/runner" ]; then
	build_tool runner || { echo "$TAG: cannot build bench/runner.c" >&2; exit 1; }
fi

# the inputs: cluster.sh's (cached under bench/out/cluster/)
d=$OUT/apps-$APPS
if [ ! -f "$d/expected.txt" ] || [ "$BENCH/cluster_gen.py" -nt "$d/expected.txt" ]; then
	echo "$TAG: generating $APPS applications" >&2
	rm -rf "$d"
	nice python3 "$BENCH/cluster_gen.py" "$d" "$APPS" || { echo "$TAG: generator failed" >&2; exit 1; }
fi

rm -rf "$RUNS"
mkdir -p "$RUNS"
# the inputs in the page cache first, for both programs alike
find "$d/config" -type f -exec cat {} + >/dev/null
cat "$d/configs.yaml" >/dev/null
for r in $(seq 1 "$REPS"); do
	"$BIN/runner" "$RUNS/validate.out" "$RUNS/validate.err" -- \
		"$SMPATCH" validate -R -f "$d/config" -o json --no-progress >>"$RUNS/validate"
	if [ "$r" = 1 ]; then
		cp "$RUNS/validate.out" "$RUNS/validate.first"
	elif ! cmp -s "$RUNS/validate.out" "$RUNS/validate.first"; then
		fail "run $r printed other verdicts than run 1"
	fi
	"$BIN/runner" /dev/null "$RUNS/convert.err" -- \
		"$SMPATCH" convert -o json "$d/configs.yaml" >>"$RUNS/convert"
done
[ "$(worst validate)" = 0 ] || fail "validate exited $(worst validate) ($(head -c 300 "$RUNS/validate.err"))"
[ "$(worst convert)" = 0 ] || fail "convert exited $(worst convert)"
nfiles=$(find "$d/config" -type f | wc -l)
nvalid=$(grep -c '"status":"valid"' "$RUNS/validate.first")
[ "$nvalid" = "$nfiles" ] || fail "$nvalid objects valid of $nfiles files"

bytes=$(find "$d/config" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
vw=$(col validate 1) vc=$(col validate 4) vr=$(col validate 2)
cw=$(col convert 1) cc=$(col convert 4) cr=$(col convert 2)
ratio=$(awk -v a="$vw" -v c="$cw" 'BEGIN { printf "%.2f", a / c }')
verdict=$(awk -v x="$ratio" 'BEGIN { print (x <= 1.2) ? "PASS" : "FAIL" }')
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
TABLE=$BENCH/out/validate/validate.md
{
	echo "| files | input MB | validate ms (CPU) | convert ms (CPU) | time ratio | peak RSS MiB (validate / convert) |"
	echo "|---|---|---|---|---|---|"
	printf '| %s | %.1f | %.0f (%.0f) | %.0f (%.0f) | %s %s | %.1f / %.1f |\n' "$nfiles" \
		"$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$vw" "$vc" "$cw" "$cc" "$ratio" \
		"$verdict" "$(awk -v r="$vr" 'BEGIN { print r / 1024 }')" \
		"$(awk -v r="$cr" 'BEGIN { print r / 1024 }')"
	echo
	echo "Target: validate's wall time <= 1.2x convert's (the same documents as one stream)."
	echo "Medians of $REPS runs; load average $LOAD_START at the start, $LOAD_END at the end; $(nproc) cores."
} >"$TABLE"
cat "$TABLE"
if [ "${BENCH_NO_RESULTS:-0}" != 1 ] && [ "$failures" = 0 ]; then
	echo "$TAG: table in $TABLE (copy it to bench/RESULTS.md by hand with the machine's name)" >&2
fi
[ "$failures" = 0 ]
