# examples_pc.sh - sourced by install_test.sh and uninstalled_test.sh, which
# build examples/ against an installed tree and against the build tree: a
# copy of examples/ built with its own Makefile (pkg-config finds the
# library through the caller's PKG_CONFIG_PATH), how a program links, and
# one run of it against its expected output. Uses the caller's src,
# expected, tmp, werror, san and bad.

# build_examples KIND DIR: copies examples/ into DIR and builds it there as
# a user does, against the shared library (KIND shared) or the static one
# (static: STATIC=1); on failure prints make's output and returns 1.
build_examples() {
	mkdir -p "$2"
	cp "$src"/examples/*.c "$src/examples/Makefile" "$2/"
	if [ "$1" = static ]; then st=1; else st=0; fi
	make -s -C "$2" CC="${CC:-cc}" CFLAGS="-O2 -Wall -Wextra $werror $san" \
		LDFLAGS="$san" STATIC=$st >"$tmp/make.log" 2>&1 && return 0
	cat "$tmp/make.log"
	return 1
}

# check_linkage BINARY KIND HOW: a shared build needs libsmpatch.so.1, a
# static one does not link libsmpatch dynamically.
check_linkage() {
	if [ "$2" = shared ]; then
		readelf -d "$1" | grep -q 'NEEDED.*\[libsmpatch.so.1\]' ||
			bad "$(basename "$1") ($3) does not need libsmpatch.so.1"
	else
		readelf -d "$1" | grep -q libsmpatch &&
			bad "$(basename "$1") ($3) links libsmpatch dynamically"
	fi
}

# run_example BINARY NAME HOW [LIBDIR]: runs a built example in the source
# tree with the arguments of EXPECTED/NAME.args (paths in the source tree),
# with LIBDIR as LD_LIBRARY_PATH when given; it must exit 0 and print
# EXPECTED/NAME.out.
run_example() {
	args=$(cat "$expected/$2.args" 2>/dev/null)
	# shellcheck disable=SC2086
	(cd "$src" && { [ -z "${4:-}" ] || export LD_LIBRARY_PATH="$4"; } && "$1" $args) \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc != 0 ]; then
		cat "$tmp/err"
		bad "$2 ($3) exited with $rc"
	elif ! diff -u "$expected/$2.out" "$tmp/out"; then
		bad "$2 ($3): output differs from $expected/$2.out"
	else
		echo "ok: $2 ($3)"
	fi
}
