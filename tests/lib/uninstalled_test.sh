#!/bin/sh
# uninstalled_test.sh BUILD_DIR SOURCE_DIR EXPECTED_DIR [SANITIZER_FLAGS]
# The build tree's smpatch.pc serves uninstalled: examples/ builds against
# the build tree through pkg-config (PKG_CONFIG_PATH=BUILD_DIR, with
# examples/Makefile as a user runs it), shared and static, and the programs
# run without LD_LIBRARY_PATH (from the source tree: the run path finds
# the library), printing EXPECTED/NAME.out for the arguments of
# EXPECTED/NAME.args if any. SMP_WERROR=ON in the environment makes the
# examples' warnings errors.
build=$1 src=$2 expected=$3 san=$4
werror=
[ "${SMP_WERROR:-OFF}" = ON ] && werror=-Werror
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
. "$(dirname "$0")/examples_pc.sh"
export PKG_CONFIG_PATH="$build"
unset LD_LIBRARY_PATH

pc=$(pkg-config --cflags --libs smpatch) || { bad "pkg-config smpatch failed"; exit 1; }
case $pc in *"-I$src/include"*) ;; *) bad "pkg-config --cflags lacks -I$src/include: $pc" ;; esac
[ "$(pkg-config --modversion smpatch)" = "$("$build/smpatch" --version | cut -d' ' -f2)" ] ||
	bad "pkg-config --modversion differs from smpatch --version"
case $(pkg-config --static --libs smpatch) in *-lyaml*) ;; *) bad "--static --libs lacks -lyaml" ;; esac

examples=$(sed -n 's/^EXAMPLES *:= *//p' "$src/examples/Makefile")
[ -n "$examples" ] || { bad "no EXAMPLES in examples/Makefile"; exit 1; }
for kind in shared static; do
	d=$tmp/$kind
	build_examples $kind "$d" || { bad "PKG_CONFIG_PATH=BUILD make -C examples ($kind) failed"; continue; }
	for ex in $examples; do
		check_linkage "$d/bin/$ex" $kind $kind
		if [ $kind = shared ]; then
			readelf -d "$d/bin/$ex" | grep -E 'R(UN)?PATH' | grep -qF "[$build]" ||
				bad "$ex ($kind) has no run path to $build"
		fi
		[ -f "$expected/$ex.out" ] || continue # built only
		run_example "$d/bin/$ex" $ex $kind
	done
done
[ $fail = 0 ] && echo "ok: examples/ ($(echo $examples | wc -w) programs) built against the build tree with pkg-config, shared and static"
exit $fail
