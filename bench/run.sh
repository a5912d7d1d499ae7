#!/usr/bin/env bash
# bench/run.sh BUILD_DIR - smpatch against kubectl, as whole processes and
# in-process; prints the tables and regenerates bench/RESULTS.md.
#
# Called by `make bench` after the build. Not part of `make test`.
# Environment knobs (defaults keep the whole run well under 10 minutes on a
# 2-core machine):
#   BENCH_REPS=9      whole-process repetitions of each smpatch command
#   BENCH_KREPS=3     repetitions of kubectl (slow: seconds per large input)
#   BENCH_DREPS=5     in-process repetitions (driver)
#   BENCH_FAMILIES="deploy configmap pod list"   subset for quick runs
#   BENCH_SIZES=4     how many of the 4 sizes per family (smallest first)
#   BENCH_NO_RESULTS=1   do not rewrite bench/RESULTS.md
#   BENCH_NO_KUBECTL=1   behave as if kubectl were not installed
# Exit status: 0 when every output matched, 1 on any mismatch or failure
# (the tables are still printed). Missed targets are reported, not fatal.
TAG=bench
. "$(dirname "$0")/lib.sh"
OUT=$BENCH/out
RUNS=$OUT/runs
SMPATCH=$BUILD/smpatch
REPS=${BENCH_REPS:-9}
KREPS=${BENCH_KREPS:-3}
DREPS=${BENCH_DREPS:-5}
FAMILIES=${BENCH_FAMILIES:-deploy configmap pod list}
NSIZES=${BENCH_SIZES:-4}

# Sizes double at each step; the largest are the issue's: 1000 containers x
# 100 env vars (a 5.8 MB config), 200,000 keys, 10,000 volumes (issue 4 asks for
# lists of 10,000 elements: two such merge lists, volumes and volumeMounts), 10,000 objects.
declare -A FAMILY_SIZES=(
	[deploy]="125 250 500 1000"
	[configmap]="25000 50000 100000 200000"
	[pod]="1250 2500 5000 10000"
	[list]="1250 2500 5000 10000"
)

# ---- tools ---------------------------------------------------------------

[ -x "$SMPATCH" ] || SMPATCH=$BUILD/cli/smpatch
if [ ! -x "$SMPATCH" ] || [ ! -f "$BUILD/libsmpatch.a" ]; then
	echo "bench: $BUILD/smpatch (or cli/smpatch) or libsmpatch.a missing: build first (make bench does)" >&2
	exit 1
fi
if [ ! -x /usr/bin/time ]; then
	echo "bench: installing GNU time (Debian package 'time')" >&2
	if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
	$SUDO apt-get install -y -qq time >/dev/null 2>&1 ||
		{ $SUDO apt-get update -qq && $SUDO apt-get install -y -qq time; } >/dev/null 2>&1 ||
		echo "bench: could not install 'time'; RSS still comes from wait4 in runner" >&2
fi
HAVE_KUBECTL=0
if [ -z "${BENCH_NO_KUBECTL:-}" ] && command -v kubectl >/dev/null 2>&1; then
	HAVE_KUBECTL=1
	KUBECTL_VERSION=$(kubectl version --client 2>/dev/null | head -n 1)
else
	KUBECTL_VERSION="not installed (kubectl columns skipped)"
	echo "bench: kubectl not found: kubectl columns are skipped" >&2
fi

mkdir -p "$RUNS"
build_tools gen runner jsoncmp
rm -f "$BIN/driver"
build_tool driver || fail "cannot build bench/driver.c against $BUILD/libsmpatch.a: no in-process timings"
build_tool schema_load || fail "cannot build bench/schema_load.c"
SWAGGER=${BENCH_SWAGGER:-$ROOT/../shared/openapi/kubernetes-1.36.swagger.json}

# ---- inputs --------------------------------------------------------------

for key in $(inputs); do
	"$BIN/gen" "$OUT/$key" "${key%-*}" "${key##*-}" || { echo "bench: gen failed" >&2; exit 1; }
done

# ---- measuring -----------------------------------------------------------

# run NAME OUTFILE CMD...: one measured run, appends "ms rss status" to
# $RUNS/NAME.
run() {
	local name=$1 out=$2
	shift 2
	"$BIN/runner" "$out" "$out.err" -- "$@" >>"$RUNS/$name"
}

# stats NAME -> "median_wall_ms median_rss_kib worst_status median_cpu_ms"
# (worst status: the highest exit status seen, so one failure shows).
stats() {
	[ -s "$RUNS/$1" ] || { echo "- - - -"; return; }
	awk -v m="$(col "$1" 1)" -v r="$(col "$1" 2)" -v s="$(worst "$1")" -v c="$(col "$1" 4)" \
		'BEGIN { printf "%.1f %d %d %.1f\n", m, r, s, c }'
}

fsize() { stat -c %s "$1"; }

# ok_ms NAME -> the median ms when every run exited 0 (or was an expected
# refusal, which smpatch reports after doing all the work), else "-".
ok_ms() {
	local m st
	read -r m _ st _ < <(stats "$1")
	if [ "$st" = 0 ] || [ -n "${NOTE[$1]:-}" ]; then echo "$m"; else echo "-"; fi
}

# cpu_ms NAME -> the median CPU ms (user + system) under the same rule.
cpu_ms() {
	local c st
	read -r _ _ st c < <(stats "$1")
	if [ "$st" = 0 ] || [ -n "${NOTE[$1]:-}" ]; then echo "$c"; else echo "-"; fi
}

# shown NAME -> the median ms, or "failed (exit N)".
shown() {
	local m st
	read -r m _ st _ < <(stats "$1")
	case $st in 0 | -) echo "$m" ;; *) echo "failed (exit $st)" ;; esac
}

rm -f "$RUNS"/*
declare -A MB IN_PATCH IN_DIFF IN_APPLY DRV NOTE

for key in $(inputs); do
	fam=${key%-*}
	d=$OUT/$key
	echo "bench: $key" >&2
	IN_PATCH[$key]=$(($(fsize "$d/live.json") + $(fsize "$d/patch.json")))
	IN_DIFF[$key]=$(($(fsize "$d/live.json") + $(fsize "$d/last.json") + $(fsize "$d/new.json")))
	IN_APPLY[$key]=$(($(fsize "$d/live.json") + $(fsize "$d/new.yaml")))
	MB[$key]=$(awk -v b="$(fsize "$d/live.json")" 'BEGIN { printf "%.2f", b / 1e6 }')
	# Interleaved: each repetition runs every command once, so drifts in
	# machine load hit all of them alike.
	for r in $(seq 1 "$REPS"); do
		# Both patch every item of a List and print one after the other.
		run "$key.patch" "$d/smpatch-patch.json" \
			"$SMPATCH" patch -o json "$d/live.json" "$d/patch.json"
		if [ "$HAVE_KUBECTL" = 1 ] && [ "$r" -le "$KREPS" ]; then
			run "$key.kubectl" "$d/kubectl-patch.json" kubectl patch --local \
				-f "$d/live.json" --type strategic --patch-file "$d/patch.json" -o json
		fi
		if [ "$fam" != list ]; then
			run "$key.diff" "$d/smpatch-diff.json" "$SMPATCH" diff -o json \
				--current "$d/live.json" "$d/last.json" "$d/new.json"
		fi
		run "$key.apply" "$d/smpatch-apply.json" "$SMPATCH" apply -o json \
			-f "$d/new.yaml" --live "$d/live.json"
	done

	# Correctness, every input: outputs compared as JSON values.
	read -r _ _ st _ < <(stats "$key.patch")
	if [ "$st" != 0 ]; then
		fail "$key: smpatch patch exited $st: $(head -c 300 "$d/smpatch-patch.json.err")"
	elif ! "$BIN/jsoncmp" "$d/expected.json" "$d/smpatch-patch.json"; then
		fail "$key: smpatch patch output differs from the expected object(s)"
	fi
	if [ "$HAVE_KUBECTL" = 1 ]; then
		read -r _ _ st _ < <(stats "$key.kubectl")
		if [ "$st" != 0 ]; then
			fail "$key: kubectl patch exited $st: $(head -c 300 "$d/kubectl-patch.json.err")"
		elif ! "$BIN/jsoncmp" "$d/expected.json" "$d/kubectl-patch.json"; then
			fail "$key: kubectl patch output differs from the expected object(s)"
		elif ! "$BIN/jsoncmp" "$d/kubectl-patch.json" "$d/smpatch-patch.json"; then
			fail "$key: smpatch patch and kubectl patch outputs differ"
		fi
	fi
	if [ "$fam" != list ]; then
		read -r _ _ st _ < <(stats "$key.diff")
		if [ "$st" != 0 ]; then
			fail "$key: smpatch diff --current exited $st: $(head -c 300 "$d/smpatch-diff.json.err")"
		elif [ "$HAVE_KUBECTL" = 1 ]; then
			# kubectl applies smpatch's three-way patch to the live
			# object: the result must be the new config over live.
			kubectl patch --local -f "$d/live.json" --type strategic \
				--patch-file "$d/smpatch-diff.json" -o json >"$d/kubectl-diff3.json" \
				2>"$d/kubectl-diff3.json.err" ||
				fail "$key: kubectl rejects smpatch's three-way patch: $(head -c 300 "$d/kubectl-diff3.json.err")"
			"$BIN/jsoncmp" "$d/expected3.json" "$d/kubectl-diff3.json" ||
				fail "$key: live + smpatch three-way patch (applied by kubectl) differs from expected3.json"
		else
			# Without kubectl, smpatch applies its own patch (weaker).
			"$SMPATCH" patch -o json "$d/live.json" "$d/smpatch-diff.json" \
				>"$d/smpatch-diff3.json" 2>"$d/smpatch-diff3.json.err" ||
				fail "$key: smpatch rejects its own three-way patch: $(head -c 300 "$d/smpatch-diff3.json.err")"
			"$BIN/jsoncmp" "$d/expected3.json" "$d/smpatch-diff3.json" ||
				fail "$key: live + smpatch three-way patch differs from expected3.json"
		fi
	fi
	read -r _ _ st _ < <(stats "$key.apply")
	if [ "$fam" = list ]; then want=$d/apply.json; else want=$d/expected.json; fi
	if [ "$st" = 3 ] && [ "$fam" != list ] && grep -qi 'annotation' "$d/smpatch-apply.json.err" &&
		[ "$(fsize "$d/new.json")" -gt 262144 ]; then
		# Over the 262,144-byte annotation limit: the API server would
		# refuse this apply, and smpatch does the same (issue 5).
		NOTE[$key.apply]="refused"
	elif [ "$st" != 0 ]; then
		fail "$key: smpatch apply exited $st: $(head -c 300 "$d/smpatch-apply.json.err")"
	elif ! "$BIN/jsoncmp" "$want" "$d/smpatch-apply.json"; then
		fail "$key: smpatch apply result differs from $(basename "$want")"
	fi

	# In-process timings (and library-level checks).
	if [ ! -x "$BIN/driver" ]; then
		DRV[$key]="- - - - - - - -"
	elif DRV[$key]=$("$BIN/driver" "$d" "$fam" "$DREPS" 2>"$RUNS/$key.driver.err"); then
		:
	else
		DRV[$key]="- - - - - - - -"
		fail "$key: driver: $(head -c 300 "$RUNS/$key.driver.err")"
	fi
done

# Cross-check of the runner's RSS figure with GNU time on the largest
# Deployment (one run each).
TIMECHECK=
big=$OUT/deploy-1000
if [ -x /usr/bin/time ] && [ -f "$big/patch.json" ]; then
	rss_of() {
		/usr/bin/time -v "$@" 2>&1 >/dev/null |
			awk -F': ' '/Maximum resident set size/ { printf "%.1f MiB", $2 / 1024 }'
	}
	TIMECHECK="\`/usr/bin/time -v\` cross-check (deploy-1000, one run): smpatch patch peak RSS"
	TIMECHECK="$TIMECHECK $(rss_of "$SMPATCH" patch -o json "$big/live.json" "$big/patch.json")"
	if [ "$HAVE_KUBECTL" = 1 ]; then
		TIMECHECK="$TIMECHECK, kubectl patch $(rss_of kubectl patch --local -f "$big/live.json" \
			--type strategic --patch-file "$big/patch.json" -o json)"
	fi
	TIMECHECK="$TIMECHECK."
fi

# ---- tables --------------------------------------------------------------

perMB() { awk -v t="$1" -v b="$2" 'BEGIN { if (t == "-" || b <= 0) print "-"; else printf "%.2f", t / (b / 1e6) }'; }
mib() { awk -v k="$1" 'BEGIN { if (k == "-") print "-"; else printf "%.1f", k / 1024 }'; }
fmt() { [ "$1" = "-" ] && echo "-" || awk -v x="$1" 'BEGIN { printf "%.1f", x }'; }

TABLES=$OUT/tables.md
{
	echo "### 1. \`smpatch patch\` vs \`kubectl patch --local --type strategic\` (whole processes)"
	echo
	echo "Medians of $REPS smpatch runs and $KREPS kubectl runs, interleaved: wall time, CPU time"
	echo "(user + system, which competing processes on the shared cores do not inflate) and peak"
	echo "RSS (ru_maxrss, the figure \`/usr/bin/time -v\` reports). MB = size of the live object"
	echo "(compact JSON); ms/MB = smpatch CPU ms per MB of input (live + patch). Both outputs are"
	echo "compared as JSON values (with each other and with the generator's expected object)."
	[ -n "$TIMECHECK" ] && echo "$TIMECHECK"
	echo
	table_head input size "live MB" "smpatch wall ms" "smpatch CPU ms" "kubectl wall ms" "kubectl CPU ms" \
		"kubectl/smpatch wall" "kubectl/smpatch CPU" "smpatch RSS MiB" "kubectl RSS MiB" "RSS ratio" "smpatch ms/MB"
	for key in $(inputs); do
		fam=${key%-*}
		read -r _ srss _ < <(stats "$key.patch")
		read -r _ krss _ < <(stats "$key.kubectl")
		sms=$(ok_ms "$key.patch")
		kms=$(ok_ms "$key.kubectl")
		scpu=$(cpu_ms "$key.patch")
		kcpu=$(cpu_ms "$key.kubectl")
		[ "$HAVE_KUBECTL" = 1 ] || { kms=-; krss=-; kcpu=-; }
		echo "| $fam | ${key##*-} $(unit_of "$fam") | ${MB[$key]} | $(shown "$key.patch") | $scpu | $kms | $kcpu | $(ratio "$kms" "$sms") | $(ratio "$kcpu" "$scpu") | $(mib "$srss") | $(mib "$krss") | $(ratio "$krss" "$srss") | $(perMB "$scpu" "${IN_PATCH[$key]}") |"
	done
	if [ "$HAVE_KUBECTL" = 0 ]; then
		echo
		echo "kubectl is not installed: its columns are skipped."
	fi
	if [[ " $FAMILIES " == *" list "* ]]; then
		echo
		echo "list: the live file is a \`kind: List\`; \`kubectl patch -f\` and \`smpatch patch\` both patch"
		echo "every item and print the results one after the other."
	fi
	echo
	echo "### 2. Three-way diff and apply workflow (whole processes)"
	echo
	echo "\`smpatch diff -o json --current live.json last.json new.json\` and"
	echo "\`smpatch apply -o json -f new.yaml --live live.json\`, medians of $REPS runs. The diff's"
	echo "patch is applied to the live object by kubectl (by smpatch when kubectl is missing) and"
	echo "compared with the expected object;"
	echo "the apply output is compared with the expected objects. ms/MB = CPU ms per MB of all input."
	echo "A List has no single three-way diff (its objects are diffed by \`apply\`). \"refused\":"
	echo "the new config is over the 262,144-byte annotation limit, so smpatch, like the API"
	echo "server, refuses the apply (exit 3); it still encodes the annotation and computes the"
	echo "three-way patch (whose errors come first, as in kubectl) but not the resulting object,"
	echo "so these times cover that part of the work only."
	echo
	table_head input size "diff wall ms" "diff CPU ms" "diff RSS MiB" "diff ms/MB" \
		"apply wall ms" "apply CPU ms" "apply RSS MiB" "apply ms/MB"
	for key in $(inputs); do
		read -r _ drss _ < <(stats "$key.diff")
		read -r ams arss _ < <(stats "$key.apply")
		aval=$(shown "$key.apply")
		[ -n "${NOTE[$key.apply]:-}" ] && aval="$ams (refused)"
		echo "| ${key%-*} | ${key##*-} | $(shown "$key.diff") | $(cpu_ms "$key.diff") | $(mib "$drss") | $(perMB "$(cpu_ms "$key.diff")" "${IN_DIFF[$key]}") | $aval | $(cpu_ms "$key.apply") | $(mib "$arss") | $(perMB "$(cpu_ms "$key.apply")" "${IN_APPLY[$key]}") |"
	done
	echo
	echo "### 3. Library calls alone (in-process, bench/driver.c)"
	echo
	echo "Medians of $DREPS repetitions (at least; small inputs more), thread CPU milliseconds, each"
	echo "repetition started on cold memory and a cold cache. parse3/print3: \`smp_doc_parse\` / \`smp_print\`"
	echo "(compact JSON) of last, new and live together; diff3: \`smp_diff_three_way\` (per object for"
	echo "a List); ratio = diff3 / (parse3 + print3), target <= 2; patch: \`smp_patch_apply\`"
	echo "(copies the target; every item of a List); patch in place: \`smp_patch_apply_doc\`, which"
	echo "\`smpatch patch\` uses;"
	echo "apply: \`smp_apply_object\` (\"refused\": over the 262,144-byte annotation limit; the"
	echo "three-way patch is still computed, the resulting object is not). Each result is checked"
	echo "against the expected document with \`smp_value_equal\`."
	echo
	table_head input size parse3 print3 diff3 "diff3 / (parse3+print3)" patch "patch in place" apply
	for key in $(inputs); do
		read -r p3 pr3 d3 rt pt ap ast ip <<<"${DRV[$key]}"
		[ "$ast" = refused ] && ap="$ap (refused)"
		[ "$ip" = "-1.000" ] && ip=-
		echo "| ${key%-*} | ${key##*-} | $p3 | $pr3 | $d3 | $rt | $pt | $ip | $ap |"
	done
	echo
	echo "### 4. Growth: time(2n) / time(n), target <= 2.2"
	echo
	echo "CPU time medians: whole processes (patch, diff, apply), library calls (lib ...), and"
	echo "kubectl patch for comparison (not a target of ours). Ratios above 2.2 are marked **!**."
	echo
	table_head input step patch diff apply "lib diff3" "lib patch" "lib apply" "kubectl patch"
} >"$TABLES"

# growth_row FAMILY N1 N2: the growth table's row of a step, scored by growth.
growth_row() {
	local pk=$1-$2 key=$1-$3 row="| $1 | $2 -> $3" c g pair
	local d3a pta apa asa d3b ptb apb asb
	for c in patch diff apply; do
		g=$(ratio "$(cpu_ms "$key.$c")" "$(cpu_ms "$pk.$c")")
		# a refused apply does less work than a completed one
		[ "${NOTE[$pk.$c]:-}" = "${NOTE[$key.$c]:-}" ] || g=-
		growth "$g" GROWTH
		row="$row | $g$MARK"
	done
	read -r _ _ d3a _ pta apa asa _ <<<"${DRV[$pk]}"
	read -r _ _ d3b _ ptb apb asb _ <<<"${DRV[$key]}"
	[ "$asa" = "$asb" ] || apb=- # refused vs completed: not comparable
	for pair in "$d3a $d3b" "$pta $ptb" "$apa $apb"; do
		# shellcheck disable=SC2086 # split the pair
		set -- $pair
		g=$(ratio "$2" "$1")
		growth "$g" LGROWTH
		row="$row | $g$MARK"
	done
	echo "$row | $(ratio "$(cpu_ms "$key.kubectl")" "$(cpu_ms "$pk.kubectl")") |"
}

GROWTH_BAD=0 # whole processes
GROWTH_MAX=0
LGROWTH_BAD=0 # library calls in-process
LGROWTH_MAX=0
each_step growth_row >>"$TABLES"

# ---- targets -------------------------------------------------------------

TARGETS=$OUT/targets.md
{
	echo "### Targets (issue 7)"
	echo
	key=deploy-1000
	if [[ " $FAMILIES " == *" deploy "* ]] && [ "$NSIZES" -ge 4 ] && [ "$HAVE_KUBECTL" = 1 ]; then
		read -r sms srss _ < <(stats "$key.patch")
		read -r kms krss _ < <(stats "$key.kubectl")
		sp=$(ratio "$kms" "$sms")
		spc=$(ratio "$(cpu_ms "$key.kubectl")" "$(cpu_ms "$key.patch")")
		rr=$(ratio "$krss" "$srss")
		v1=FAIL
		awk -v s="$sp" -v r="$rr" 'BEGIN { exit !(s >= 30 && r >= 10) }' && v1=PASS
		echo "- **$v1** 5.8 MB Deployment (1000 x 100) patch: ${sp}x faster than kubectl in wall time"
		echo "  (${spc}x in CPU time; target >= 30x), peak RSS $(mib "$srss") MiB vs $(mib "$krss") MiB"
		echo "  = 1/${rr} (target <= 1/10)."
	else
		echo "- n/a: the 5 MB Deployment target needs the deploy family at 4 sizes and kubectl."
	fi
	v2=PASS
	[ "$GROWTH_BAD" -gt 0 ] && v2=FAIL
	echo "- **$v2** growth, whole processes (CPU time): largest time(2n)/time(n) $GROWTH_MAX (target <= 2.2),"
	echo "  $GROWTH_BAD step(s) above."
	v2=PASS
	[ "$LGROWTH_BAD" -gt 0 ] && v2=FAIL
	echo "- **$v2** growth, library calls in-process (thread CPU time; each call starts on cold memory"
	echo "  and a cold cache, see bench/driver.c): largest $LGROWTH_MAX, $LGROWTH_BAD step(s) above 2.2."
	worst_rt=0
	worst_key=-
	for key in $(inputs); do
		read -r _ _ _ rt _ _ _ _ <<<"${DRV[$key]}"
		[ "$rt" = - ] && continue
		if awk -v a="$rt" -v b="$worst_rt" 'BEGIN { exit !(a > b) }'; then
			worst_rt=$rt
			worst_key=$key
		fi
	done
	# Issue 3: the full 4 MB Kubernetes v2 document loads in under 200 ms.
	if [ -f "$SWAGGER" ] && [ -x "$BIN/schema_load" ]; then
		if sl=$("$BIN/schema_load" "$SWAGGER"); then
			v4=FAIL
			awk -v t="$sl" 'BEGIN { exit !(t < 200) }' && v4=PASS
			echo "- **$v4** loading kubernetes-1.36.swagger.json (4 MB, OpenAPI v2): best of 5 ${sl} ms (target < 200 ms)."
		else
			fail "schema_load failed on $SWAGGER"
		fi
	else
		echo "- n/a: schema load time (no $SWAGGER)."
	fi
	v3=PASS
	awk -v w="$worst_rt" 'BEGIN { exit !(w > 2) }' && v3=FAIL
	[ "$worst_key" = - ] && v3="n/a (no in-process figures)"
	echo "- **$v3** three-way diff / (parse + print of the three documents): worst $worst_rt ($worst_key) (target <= 2)."
	if [ "$HAVE_KUBECTL" = 1 ]; then
		correctness "every output equal to kubectl's and to the expected objects."
	else
		correctness "every output equal to the expected objects (kubectl not installed)."
	fi
} >"$TARGETS"

show_results "$TABLES" "$TARGETS"

# ---- RESULTS.md ------------------------------------------------------------

# Which sources the measured build came from: a git checkout (its HEAD, and
# whether the library sources had uncommitted edits) or an exported tree
# with a .git-rev file (git archive HEAD, for a build free of anyone's
# work in progress).
source_rev() {
	local src
	src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)
	[ -n "$src" ] || src=$ROOT
	if [ -f "$src/.git-rev" ]; then
		echo "git $(cut -c1-7 "$src/.git-rev") (exported tree)"
	elif git -C "$src" rev-parse --short HEAD >/dev/null 2>&1; then
		echo "git $(git -C "$src" rev-parse --short HEAD)$(git -C "$src" diff --quiet HEAD -- codec merge schema apply cli include 2>/dev/null || echo ' plus uncommitted edits in the library sources')"
	else
		echo "source $src"
	fi
}

if [ -z "${BENCH_NO_RESULTS:-}" ]; then
	CPU=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
	MEM=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	{
		echo "# smpatch benchmark results"
		echo
		echo "Generated by \`make bench\` (bench/run.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'); do not edit by"
		echo "hand: the history of changes lives in bench/history.md and is appended below."
		echo
		echo "## Machine"
		echo
		echo "- CPU: $CPU, nproc $(nproc)"
		echo "- memory: $MEM; kernel $(uname -r)"
		echo "- compiler: $($CC --version | head -n 1)"
		echo "- smpatch: $("$SMPATCH" --version 2>/dev/null), $(source_rev), build type $(grep -m1 '^CMAKE_BUILD_TYPE' "$BUILD/CMakeCache.txt" 2>/dev/null | cut -d= -f2)"
		echo "- kubectl: $KUBECTL_VERSION"
		echo "- inputs: bench/gen.c (fixed-seed), 10 % values changed, 5 % removed, 5 % added; the live"
		echo "  object carries server-side defaults, status and the last-applied annotation"
		echo "- whole run: ${ELAPSED}s; load average at start $LOAD_START, at end $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "  (the machine is shared: wall times suffer when the load exceeds 2; CPU times much less)"
		echo
		echo "## Results"
		echo
		cat "$TARGETS"
		echo
		cat "$TABLES"
		# bench/cluster.sh's and bench/ssa.sh's sections, kept until they run again.
		if [ -f "$BENCH/RESULTS.md" ]; then
			for sec in cluster ssa; do
				sed -n "/^<!-- $sec:begin -->/,/^<!-- $sec:end -->/p" "$BENCH/RESULTS.md" |
					awk 'NR == 1 { print "" } { print }'
			done
		fi
		if [ -f "$BENCH/history.md" ]; then
			echo
			cat "$BENCH/history.md"
		fi
	} >"$BENCH/RESULTS.md.new" && mv "$BENCH/RESULTS.md.new" "$BENCH/RESULTS.md"
	echo "bench: wrote bench/RESULTS.md"
fi

finish
