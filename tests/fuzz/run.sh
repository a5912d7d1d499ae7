#!/bin/sh
# run.sh BUILD SECONDS TARGET... - runs each libFuzzer target of BUILD
# (configured with -DSMP_FUZZ=ON, see `make fuzz`) for SECONDS, one after
# the other, starting from its committed corpus testdata/fuzz/TARGET. New
# inputs go to BUILD/fuzz/TARGET/corpus (the committed corpus is only
# read), findings to BUILD/fuzz/TARGET/ as crash-*, leak-*, timeout-*,
# oom-* files. Prints one line of figures per target; exits 1 when any
# target found something.
#   FUZZ_ARGS  more libFuzzer flags (e.g. -jobs=2 -workers=2, -dict=FILE)
set -u
BUILD=$1
SECONDS_EACH=$2
shift 2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
failed=""

for t in "$@"; do
	bin=$BUILD/tests/fuzz/fuzz_${t}_libfuzzer
	out=$BUILD/fuzz/$t
	mkdir -p "$out/corpus"
	seeds="$SRC/testdata/fuzz/$t"
	if [ "$t" = codec ]; then
		# Plain documents: the golden inputs of the codec tests.
		seeds="$seeds $SRC/testdata/codec $SRC/testdata/codec-kubectl"
	fi
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	"$bin" -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$out/" \
		${FUZZ_ARGS:-} "$out/corpus" $seeds >"$out/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log" | tail -1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$out/log" | tail -1)
	units=$(ls "$out/corpus" | wc -l)
	if [ "$rc" != 0 ]; then
		grep -A30 -E 'ERROR|runtime error|property broken|Timeout|out-of-memory' "$out/log" | head -60
		echo "FAIL $t: exit $rc after ${execs:-?} executions; reproducer: $(ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-* 2>/dev/null | head -1)"
		failed="$failed $t"
	else
		echo "PASS $t: ${execs:-?} executions in ${SECONDS_EACH}s, $cov, $units new corpus units"
	fi
done
[ -z "$failed" ] || { echo "fuzz: findings in:$failed (logs in $BUILD/fuzz/)"; exit 1; }
