#!/bin/sh
# header_test.sh COMPILER c|c++ INCLUDE_DIR
# The public header must compile alone, strictly, as C11 and as C++11: once
# as a translation unit of its own, once included twice with every
# ..._OPTIONS_INIT macro used (C++ aggregate initialisation of the options
# structs must not warn either). Warnings fail it when SMP_WERROR=ON is in
# the environment (as in the project's own builds).
cc=$1 lang=$2 inc=$3
werror=
[ "${SMP_WERROR:-OFF}" = ON ] && werror=-Werror
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "SKIP: compiler $cc not found"
	exit 77
fi
hdr=$inc/smpatch.h
[ -f "$hdr" ] || { echo "FAIL: $hdr missing"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

case $lang in
c)	flags="-x c -std=c11 -Wall -Wextra -Wpedantic $werror -Wstrict-prototypes -Wmissing-prototypes -Wshadow"
	ext=c ;;
c++)	flags="-x c++ -std=c++11 -Wall -Wextra -Wpedantic $werror -Wshadow"
	ext=cc ;;
*)	echo "usage: $0 COMPILER c|c++ INCLUDE_DIR"; exit 2 ;;
esac

fail=0
# 1. The header alone.
if ! $cc $flags -fsyntax-only -I"$inc" "$hdr"; then
	echo "FAIL: $hdr does not compile alone as $lang with $cc"
	fail=1
fi

# 2. Included twice (include guard) and every options initialiser used.
inits=$(sed -n 's/^#define \(SMP_[A-Z_]*_OPTIONS_INIT\).*/\1/p' "$hdr")
if [ -z "$inits" ]; then
	echo "FAIL: no SMP_..._OPTIONS_INIT macros found in $hdr"
	fail=1
fi
{
	echo '#include "smpatch.h"'
	echo '#include "smpatch.h"'
	echo 'int main(void)'
	echo '{'
	for m in $inits; do
		# SMP_PATCH_OPTIONS_INIT -> smp_patch_options
		t=$(echo "$m" | sed 's/_INIT$//' | tr 'A-Z' 'a-z')
		echo "	$t v_$t = $m;"
		echo "	(void)v_$t;"
	done
	echo '	smp_error err;'
	echo '	(void)err;'
	echo '	return SMP_OK;'
	echo '}'
} >"$tmp/use.$ext"
if ! $cc $flags -I"$inc" -c -o "$tmp/use.o" "$tmp/use.$ext"; then
	echo "FAIL: using the header as $lang with $cc:"
	cat -n "$tmp/use.$ext"
	fail=1
fi
[ $fail = 0 ] && echo "ok: smpatch.h compiles as $lang with $cc ($(echo $inits | wc -w) options initialisers)"
exit $fail
