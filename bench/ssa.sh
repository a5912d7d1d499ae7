#!/usr/bin/env bash
# bench/ssa.sh BUILD_DIR - server-side apply: smpatch against the reference
# oracle (../shared/oracle-ssa, the structured-merge-diff code the API server
# runs), on the same inputs in the same run. Prints the tables and updates
# its section of bench/RESULTS.md. Called by `make bench-ssa`; not part of
# `make test`.
#
# The request: a Deployment of N containers x 100 env vars, or a ConfigMap of
# N keys, created by a server-side apply of bench/gen.c's last.json (the
# oracle computes the live object and its managedFields), then re-applied by
# the same manager with new.json (10 % of the values changed, 5 % removed,
# 5 % added). The oracle's answer, put in the API server's list order by
# tests/ssa/mergeorder.py (SMD v4.4.2 orders merged lists otherwise than
# the oracle's v4.1.2), is what smpatch's must equal. smpatch answers through tests/ssa/ssa_driver, which speaks the
# oracle's JSON Lines protocol over the public API, so both sides do the same
# work per call: decode the request, apply, encode the answer.
#
# Time per call = (median time of a run with the request) - (median time of
# a run with no request), so neither the program's start nor the oracle's
# schema load (0.3 s or more) counts. CPU time (user + system) is the
# measure of the targets (competing processes on a shared machine inflate
# wall times); wall times are shown too.
# Targets (issue 12): smpatch >= 20x faster than the oracle on the largest
# inputs; time(2n) / time(n) <= 2.2 for smpatch.
# Environment knobs:
#   SSA_BENCH_REPS=5     runs of smpatch per input (and of the empty runs)
#   SSA_BENCH_OREPS=2    runs of the oracle per input (about 20 s a call at
#                        the largest sizes)
#   SSA_BENCH_FAMILIES="deploy configmap"   SSA_BENCH_SIZES=3 (smallest first)
#   SSA_ORACLE=PATH      an oracle built elsewhere (else BUILD_DIR/ssa-oracle,
#                        built with tests/ssa/oracle_build.sh when missing)
#   SSA_BENCH_NO_RESULTS=1   do not touch bench/RESULTS.md
#   SSA_BENCH_DRIVER=PATH    another program of the protocol in place of
#                        ssa_driver (to check the bench itself)
# Exit status: 0 when every answer matched the oracle's, 1 otherwise (missed
# targets are reported, not fatal), 77 when the oracle or the driver is
# missing.
TAG=bench-ssa
. "$(dirname "$0")/lib.sh"
OUT=$BENCH/out/ssa
RUNS=$OUT/runs
SHARED=${SMP_SHARED_DIR:-$ROOT/../shared}
SWAGGER=$SHARED/openapi/kubernetes-1.36.swagger.json
DRIVER=${SSA_BENCH_DRIVER:-$BUILD/tests/ssa/ssa_driver}
CHECK=$BUILD/tests/ssa/ssa_check
ORACLE=${SSA_ORACLE:-$BUILD/ssa-oracle}
REPS=${SSA_BENCH_REPS:-5}
OREPS=${SSA_BENCH_OREPS:-2}
FAMILIES=${SSA_BENCH_FAMILIES:-deploy configmap}
NSIZES=${SSA_BENCH_SIZES:-3}
declare -A FAMILY_SIZES=([deploy]="250 500 1000" [configmap]="25000 50000 100000")

# ---- tools ---------------------------------------------------------------

for t in "$DRIVER" "$CHECK"; do
	[ -x "$t" ] || { echo "bench-ssa: $t missing: build first (make bench-ssa does)" >&2; exit 77; }
done
if [ ! -x "$ORACLE" ]; then
	echo "bench-ssa: building the oracle into $ORACLE" >&2
	sh "$ROOT/tests/ssa/oracle_build.sh" "$SHARED" "$ORACLE" >&2
	[ -x "$ORACLE" ] || { echo "bench-ssa: no oracle: nothing to compare with" >&2; exit 77; }
fi
[ -f "$SWAGGER" ] || { echo "bench-ssa: $SWAGGER missing" >&2; exit 77; }
mkdir -p "$OUT"
build_tools gen runner ssa_prep
ORACLE_CMD=("$ORACLE" -swagger "$SWAGGER")
DRIVER_CMD=("$DRIVER")

# ---- inputs --------------------------------------------------------------

# prepare DIR FAMILY N: DIR/apply.jsonl (the request), DIR/empty.jsonl.
prepare() {
	local d=$1
	"$BIN/gen" "$d" "$2" "$3" || return 1
	"$BIN/ssa_prep" case create - "$d/last.json" kubectl >"$d/create.jsonl" &&
		"${ORACLE_CMD[@]}" <"$d/create.jsonl" >"$d/create.out" &&
		"$BIN/ssa_prep" live "$d/create.out" >"$d/live-ssa.json" &&
		"$BIN/ssa_prep" case apply "$d/live-ssa.json" "$d/new.json" kubectl >"$d/apply.jsonl" &&
		: >"$d/empty.jsonl"
}

# ---- measuring -----------------------------------------------------------

# measure NAME IN OUT CMD...: one run with stdin IN; appends "wall rss status cpu".
measure() {
	local name=$1 in=$2 out=$3
	shift 3
	"$BIN/runner" "$out" "$out.err" -- sh -c 'exec "$@" <"$0"' "$in" "$@" >>"$RUNS/$name"
}
# med NAME COLUMN: the median of one column (1 wall, 4 cpu); worst status with 3.
med() {
	[ -s "$RUNS/$1" ] || { echo -; return; }
	if [ "$2" = 3 ]; then worst "$1"; else col "$1" "$2"; fi
}
sub() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else { d = a - b; if (d < 0.1) d = 0.1; printf "%.1f", d } }'; }
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1e6 }'; }

rm -rf "$RUNS"
mkdir -p "$RUNS"
declare -A OCPU OWALL SCPU SWALL INMB
for key in $(inputs); do
	d=$OUT/$key
	echo "bench-ssa: $key" >&2
	prepare "$d" "${key%-*}" "${key##*-}" || { fail "$key: cannot prepare the inputs"; continue; }
	INMB[$key]=$(mb "$d/apply.jsonl")
	# Interleaved, so that drifts in machine load hit both alike.
	for r in $(seq 1 "$REPS"); do
		measure "$key.s1" "$d/apply.jsonl" "$d/smpatch.out" "${DRIVER_CMD[@]}"
		measure "$key.s0" "$d/empty.jsonl" "$d/smpatch0.out" "${DRIVER_CMD[@]}"
		if [ "$r" -le "$OREPS" ]; then
			measure "$key.o1" "$d/apply.jsonl" "$d/oracle.out" "${ORACLE_CMD[@]}"
			measure "$key.o0" "$d/empty.jsonl" "$d/oracle0.out" "${ORACLE_CMD[@]}"
		fi
	done
	for p in s1 s0 o1 o0; do
		[ "$(med "$key.$p" 3)" = 0 ] || fail "$key: a run ($p) exited $(med "$key.$p" 3): $(head -c 300 "$d/smpatch.out.err" "$d/oracle.out.err" 2>/dev/null)"
	done
	# The oracle is SMD v4.1.2; the API server (v4.4.2) orders merged
	# lists otherwise: compare with the server's answer (mergeorder.py).
	python3 "$ROOT/tests/ssa/mergeorder.py" answers "$d/apply.jsonl" "$d/oracle.out" "$SHARED" \
		>"$d/server.out" || fail "$key: mergeorder.py could not adjust the oracle's answer"
	"$CHECK" cmp "$d/server.out" "$d/smpatch.out" >"$d/cmp.txt" ||
		fail "$key: smpatch's answer differs from the oracle's: $(cut -f3 "$d/cmp.txt" | head -c 400)"
	grep -q '"ok":true' "$d/oracle.out" || fail "$key: the oracle rejected the request"
	SCPU[$key]=$(sub "$(med "$key.s1" 4)" "$(med "$key.s0" 4)")
	SWALL[$key]=$(sub "$(med "$key.s1" 1)" "$(med "$key.s0" 1)")
	OCPU[$key]=$(sub "$(med "$key.o1" 4)" "$(med "$key.o0" 4)")
	OWALL[$key]=$(sub "$(med "$key.o1" 1)" "$(med "$key.o0" 1)")
done

# ---- tables --------------------------------------------------------------

# growth_row FAMILY N1 N2: the growth table's row of a step, scored by growth.
growth_row() {
	local g
	g=$(ratio "${SCPU[$1-$3]:--}" "${SCPU[$1-$2]:--}")
	growth "$g" GROWTH
	echo "| $1 | $2 -> $3 | $g$MARK | $(ratio "${OCPU[$1-$3]:--}" "${OCPU[$1-$2]:--}") |"
}

TABLES=$OUT/tables.md
TARGETS=$OUT/targets.md
GROWTH_BAD=0
GROWTH_MAX=0
{
	echo "### Server-side apply: time per call, smpatch vs the oracle"
	echo
	echo "Milliseconds per call (a run with the request minus a run without), medians of $REPS smpatch"
	echo "runs and $OREPS oracle runs. request MB: the JSON line (live object with managedFields +"
	echo "configuration). Both answers are compared as the golden cases are (tests/ssa/ssa_check), the oracle's put in the API server's (SMD v4.4.2's) list order first (tests/ssa/mergeorder.py)."
	echo
	table_head input size "request MB" "oracle CPU ms" "smpatch CPU ms" "oracle/smpatch CPU" \
		"oracle wall ms" "smpatch wall ms" "oracle/smpatch wall"
	for key in $(inputs); do
		echo "| ${key%-*} | ${key##*-} $(unit_of "${key%-*}") | ${INMB[$key]:--} | ${OCPU[$key]:--} | ${SCPU[$key]:--} | $(ratio "${OCPU[$key]:--}" "${SCPU[$key]:--}") | ${OWALL[$key]:--} | ${SWALL[$key]:--} | $(ratio "${OWALL[$key]:--}" "${SWALL[$key]:--}") |"
	done
	echo
	echo "### Growth: time(2n) / time(n) per call, CPU (target <= 2.2 for smpatch)"
	echo
	table_head input step smpatch oracle
	each_step growth_row
} >"$TABLES"

{
	echo "### Targets (issue 12)"
	echo
	for key in deploy-1000 configmap-100000; do
		fam=${key%-*}
		if [[ " $FAMILIES " != *" $fam "* ]] || [ -z "${SCPU[$key]:-}" ]; then
			echo "- n/a: $key was not measured."
			continue
		fi
		rc=$(ratio "${OCPU[$key]}" "${SCPU[$key]}")
		rw=$(ratio "${OWALL[$key]}" "${SWALL[$key]}")
		v=FAIL
		awk -v r="$rc" 'BEGIN { exit !(r != "-" && r >= 20) }' && v=PASS
		echo "- **$v** $key: smpatch ${rc}x faster than the oracle per call in CPU time (${rw}x in wall"
		echo "  time; target >= 20x): ${SCPU[$key]} ms vs ${OCPU[$key]} ms."
	done
	v=PASS
	[ "$GROWTH_BAD" -gt 0 ] && v=FAIL
	echo "- **$v** growth: largest time(2n)/time(n) of smpatch $GROWTH_MAX (target <= 2.2), $GROWTH_BAD step(s) above."
	correctness "every smpatch answer equal to the oracle's."
} >"$TARGETS"

show_results "$TABLES" "$TARGETS"

# ---- RESULTS.md ------------------------------------------------------------

# Its section of bench/RESULTS.md, replaced (see results_section).
if [ -z "${SSA_BENCH_NO_RESULTS:-}" ] && [ -f "$BENCH/RESULTS.md" ]; then
	{
		echo "## Server-side apply (bench/ssa.sh, \`make bench-ssa\`)"
		echo
		echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), smpatch git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'),"
		echo "against ../shared/oracle-ssa (structured-merge-diff 4.1.2, the API server's library) on the"
		echo "same inputs in the same run; whole run ${ELAPSED}s, load average at start $LOAD_START, at end"
		echo "$(cut -d' ' -f1-3 /proc/loadavg) (CPU times are the measure: the machine is shared)."
		echo
		sed 's/^### /#### /' "$TARGETS"
		echo
		sed 's/^### /#### /' "$TABLES"
	} | results_section ssa
fi
finish
