#!/bin/sh
# install_test.sh BUILD_DIR SOURCE_DIR LIBDIR EXPECTED_DIR [SANITIZER_FLAGS]
# Installs the build into a temporary tree (DESTDIR + --prefix, then used
# from wherever it lies: the package files are relocatable), checks every
# installed file, then builds examples/ against it with pkg-config (shared and
# static) and with find_package(smpatch) (shared and static) and runs them,
# comparing the output with the expected files. SMP_WERROR=ON in the
# environment makes the examples' warnings errors.
build=$1 src=$2 libdir=$3 expected=$4 san=$5
werror=
[ "${SMP_WERROR:-OFF}" = ON ] && werror=-Werror
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "$*"; }
bad() { echo "FAIL: $*"; fail=1; }
. "$(dirname "$0")/examples_pc.sh"

DESTDIR=$tmp/dest cmake --install "$build" --prefix /opt/smpatch >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; bad "cmake --install failed"; exit 1; }
p=$tmp/dest/opt/smpatch
[ -d "$p" ] || { bad "DESTDIR/prefix tree $p not created"; exit 1; }

for f in include/smpatch.h "$libdir/libsmpatch.a" "$libdir/libsmpatch.so.1" \
	"$libdir/libsmpatch.so" "$libdir/pkgconfig/smpatch.pc" \
	"$libdir/cmake/smpatch/smpatchConfig.cmake" \
	"$libdir/cmake/smpatch/smpatchConfigVersion.cmake" \
	"$libdir/cmake/smpatch/smpatchTargets.cmake" \
	bin/smpatch bin/kubectl-smpatch share/man/man1/smpatch.1; do
	[ -e "$p/$f" ] || bad "not installed: $f"
done
[ "$(readlink "$p/bin/kubectl-smpatch")" = smpatch ] ||
	bad "bin/kubectl-smpatch is not a link to smpatch"
[ "$(readlink "$p/$libdir/libsmpatch.so.1")" = libsmpatch.so.1.0.0 ] ||
	bad "$libdir/libsmpatch.so.1 does not point at libsmpatch.so.1.0.0"
cmp -s "$src/include/smpatch.h" "$p/include/smpatch.h" || bad "installed header differs"
# Nothing from the build tree may leak into the installed package files.
if grep -rl "$build" "$p/$libdir/pkgconfig" "$p/$libdir/cmake" >/dev/null 2>&1; then
	bad "installed package files mention the build directory"
fi
# The installed static library, like the shared one, defines only the
# SMP_API functions as globals (internal helpers are localized at install).
grep '^SMP_API' "$src/include/smpatch.h" | sed 's/(.*//' | grep -o '[A-Za-z_][A-Za-z0-9_]*$' |
	sort -u >"$tmp/api"
nm -g --defined-only "$p/$libdir/libsmpatch.a" 2>/dev/null | awk 'NF == 3 { print $3 }' |
	sort -u >"$tmp/static-globals"
if ! cmp -s "$tmp/api" "$tmp/static-globals"; then
	bad "installed libsmpatch.a: global symbols differ from the SMP_API functions:"
	diff "$tmp/api" "$tmp/static-globals" | sed -n 's/^> /    extra: /p; s/^< /    missing: /p' | head -20
fi
[ $fail = 0 ] || exit 1
say "ok: installed tree complete ($(find "$p" -type f -o -type l | wc -l) files)"

ver=$("$p/bin/smpatch" --version) || bad "installed smpatch --version failed"
case $ver in "smpatch "[0-9]*) ;; *) bad "smpatch --version printed '$ver'" ;; esac
if command -v kubectl >/dev/null 2>&1; then
	# kubectl finds plugins on PATH: `kubectl smpatch` runs kubectl-smpatch.
	out=$(PATH="$p/bin:$PATH" kubectl smpatch --version 2>&1)
	[ "$out" = "$ver" ] && say "ok: kubectl smpatch --version: $out" ||
		bad "kubectl smpatch --version printed '$out', want '$ver'"
else
	say "note: kubectl not installed; plugin link checked by name only"
fi

examples="parse patch threeway schema apply selector plan"
export PKG_CONFIG_PATH="$p/$libdir/pkgconfig"
pkg-config --cflags --libs smpatch >/dev/null || bad "pkg-config smpatch failed"
pc_static=$(pkg-config --static --libs smpatch)
case $pc_static in *-lyaml*) ;; *) bad "pkg-config --static --libs lacks -lyaml: $pc_static" ;; esac
# examples/Makefile (pkg-config), shared and STATIC=1, in copies of examples/.
for kind in shared static; do
	d=$tmp/pc-$kind
	build_examples $kind "$d" || { bad "make -C examples (pkg-config, $kind) failed"; continue; }
	for ex in $examples; do
		check_linkage "$d/bin/$ex" $kind "pkg-config, $kind"
		run_example "$d/bin/$ex" $ex "pkg-config, $kind" "$p/$libdir"
	done
done

# The same examples through find_package(smpatch).
if CFLAGS="$san" LDFLAGS="$san" cmake -S "$src/examples" -B "$tmp/cm" \
	-DCMAKE_PREFIX_PATH="$p" -DCMAKE_BUILD_TYPE=Release >"$tmp/cm.log" 2>&1 &&
	cmake --build "$tmp/cm" >>"$tmp/cm.log" 2>&1; then
	for ex in $examples; do
		run_example "$tmp/cm/$ex" $ex "find_package, shared" "$p/$libdir"
	done
	run_example "$tmp/cm/threeway-static" threeway "find_package, static" "$p/$libdir"
else
	cat "$tmp/cm.log"
	bad "building examples/ with find_package(smpatch) failed"
fi
exit $fail
