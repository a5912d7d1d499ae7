#!/bin/sh
# oracle_build.sh SHARED_DIR OUT - the ctest fixture of the server-side apply
# checks: builds the reference oracle (SHARED_DIR/oracle-ssa, a Go program;
# its build.sh apt-installs the Debian Go packages it needs when they are
# missing) into OUT, once: a build newer than its sources is kept.
# SSA_ORACLE=PATH uses an oracle built elsewhere instead.
# Exit 0 when OUT is ready, 77 (skip, with the reason) when it cannot be
# built here; the tests that need it then skip too.
set -u
shared=$1
out=$2
src=$shared/oracle-ssa
if [ -n "${SSA_ORACLE:-}" ]; then
	if [ -x "$SSA_ORACLE" ]; then
		ln -sf "$SSA_ORACLE" "$out" && echo "oracle: using SSA_ORACLE=$SSA_ORACLE" && exit 0
	fi
	echo "SKIP: SSA_ORACLE=$SSA_ORACLE is not an executable"
	rm -f "$out"
	exit 77
fi
if [ ! -f "$src/build.sh" ]; then
	echo "SKIP: $src/build.sh not found: the oracle checks of server-side apply skip"
	rm -f "$out"
	exit 77
fi
if [ -x "$out" ] && [ ! -L "$out" ] && [ -z "$(find "$src" -newer "$out" -type f 2>/dev/null)" ]; then
	echo "oracle: $out is up to date"
	exit 0
fi
rm -f "$out"
if bash "$src/build.sh" "$out" >"$out.log" 2>&1 && [ -x "$out" ]; then
	echo "oracle: built $out"
	exit 0
fi
tail -n 20 "$out.log"
echo "SKIP: the oracle could not be built here (log: $out.log): the oracle checks skip"
rm -f "$out"
exit 77
