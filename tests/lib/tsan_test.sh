#!/bin/sh
# tsan_test.sh SOURCE_DIR SUB_BUILD_DIR C_COMPILER [SMP_SHARED_DIR]
# Builds the library and the thread tests (thread_test.c, plan_thread_test.c)
# with -fsanitize=thread in a sub-build (kept between runs, so later runs are
# incremental) and runs them under ThreadSanitizer: any data race fails. The
# sub-build takes SMP_WERROR (ON or OFF) from the environment.
src=$1 dir=$2 cc=$3 shared=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Can this compiler and kernel run TSan programs at all?
printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' >"$tmp/t.c"
if ! "$cc" -fsanitize=thread -pthread -o "$tmp/t" "$tmp/t.c" >"$tmp/log" 2>&1; then
	echo "SKIP: $cc cannot build with -fsanitize=thread:"; cat "$tmp/log"
	exit 77
fi
if ! "$tmp/t" >"$tmp/log" 2>&1; then
	echo "SKIP: ThreadSanitizer programs do not run here:"; cat "$tmp/log"
	exit 77
fi

flags=-fsanitize=thread
cmake -S "$src" -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
	-DCMAKE_SHARED_LINKER_FLAGS="$flags" -DSMP_SHARED_DIR="$shared" \
	-DSMP_WERROR="${SMP_WERROR:-OFF}" \
	>"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; echo "FAIL: configuring the TSan build"; exit 1; }
cmake --build "$dir" --target lib_thread_test lib_plan_thread_test -j 2 >"$tmp/build.log" 2>&1 ||
	{ tail -40 "$tmp/build.log"; echo "FAIL: building the TSan thread test"; exit 1; }

TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
	"$dir/tests/lib/lib_plan_thread_test" "$src/examples" 8 10
prc=$?
[ $prc = 0 ] || { echo "FAIL: the plans' thread test exited with $prc under ThreadSanitizer (66: a data race)"; exit 1; }
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
	"$dir/tests/lib/lib_thread_test" "$shared" 8 1000
rc=$?
case $rc in
0) echo "ok: no data race reported by ThreadSanitizer" ;;
77) echo "SKIP (loaded-schema part): built-in part race-free" ;;
66) echo "FAIL: ThreadSanitizer reported a data race" ;;
*) echo "FAIL: thread test exited with $rc under ThreadSanitizer" ;;
esac
exit $rc
