#!/bin/sh
# valgrind_test.sh SMPATCH EXAMPLE_THREEWAY EXAMPLE_APPLY THREAD_TEST APPLY_EXAMPLE_DIR SHARED
#                  PLAN_TEST EXAMPLE_PLAN
# A small representative apply under valgrind memcheck: no invalid access,
# no use of uninitialised memory, no leak (definite, indirect or possible);
# the plans in every mode, their unit test and the streaming example too.
smpatch=$1 threeway=$2 apply=$3 threads=$4 dir=$5 shared=$6 plantest=$7 plan=$8
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible"
# valgrind 3.19 cannot read the DWARF 5 that clang 14 writes by default.
if valgrind -q "$threeway" 2>&1 >/dev/null | grep -q "debuginfo reader: Possibly corrupted"; then
	echo "SKIP: this valgrind cannot read the binaries' debug info (clang DWARF 5?);"
	echo "      build with gcc or -gdwarf-4 to run it"
	exit 77
fi
fail=0
run() { # WANT_EXIT CMD...
	want=$1
	shift
	$vg "$@" >/dev/null
	rc=$?
	if [ $rc = 99 ]; then
		echo "FAIL: valgrind found errors in: $*"
		fail=1
	elif [ $rc != "$want" ]; then
		echo "FAIL: exit $rc (want $want) under valgrind: $*"
		fail=1
	else
		echo "ok: $*"
	fi
}
run 0 "$threeway"
run 0 "$apply"
run 0 "$smpatch" apply -f "$dir/web.yaml" --live "$dir/live.yaml"
run 0 "$smpatch" apply -f "$dir/web.yaml" --live "$dir/live.yaml" -o yaml
run 1 "$smpatch" apply -f "$dir/web.yaml" --live "$dir/live.yaml" -o diff
run 0 "$smpatch" diff --current "$dir/live.yaml" "$dir/live.yaml" "$dir/web.yaml"
run 0 "$plantest"
run 0 "$plan" "$dir/web.yaml" "$dir/live.yaml"
site=$dir/../site ssa=$dir/../ssa
run 0 "$smpatch" apply -f "$site/config" -R --live "$site/live.yaml" --prune -l app=web -o json
run 4 "$smpatch" apply --server-side -f "$ssa/web.yaml" --live "$ssa/live.yaml" -o yaml
run 1 "$smpatch" replace -f "$ssa/web.yaml" --live "$ssa/live.yaml" -o diff
# A few concurrent runs (valgrind serialises threads; it still checks them).
$vg "$threads" "$shared" 4 20 >/dev/null
rc=$?
case $rc in
0|77) echo "ok: thread test (4 x 20)" ;;
99) echo "FAIL: valgrind found errors in the thread test"; fail=1 ;;
*) echo "FAIL: thread test exited $rc under valgrind"; fail=1 ;;
esac
exit $fail
