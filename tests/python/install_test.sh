#!/bin/sh
# install_test.sh BUILD_DIR PYTHON PYDIR LIBDIR
# Installs the library and the Python package into a temporary tree
# (DESTDIR + --prefix, as make install does) and imports the package from
# there, neither SMPATCH_LIBRARY nor LD_LIBRARY_PATH set: it must find the
# library installed beside it.
build=$1 py=$2 pydir=$3 libdir=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for c in lib python; do
	DESTDIR=$tmp/dest cmake --install "$build" --prefix /opt/smp --component $c \
		>"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "FAIL: cmake --install --component $c"; exit 1; }
done
p=$tmp/dest/opt/smp
for f in "$pydir/smpatch/__init__.py" "$pydir/smpatch/_native.py" "$pydir/smpatch/_install.py"; do
	[ -f "$p/$f" ] || { echo "FAIL: not installed: $f"; exit 1; }
done
if find "$p/$pydir" -name '__pycache__' | grep -q .; then
	echo "FAIL: compiled files installed"; exit 1
fi
out=$(cd "$tmp" && env -u SMPATCH_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$p/$pydir" \
	PYTHONDONTWRITEBYTECODE=1 "$py" -c '
import os, smpatch, smpatch._native as n
print(os.path.realpath(n._installed_library()))
print(smpatch.patch({"a": {"b": 1}}, {"a": {"c": 2}}, type="merge"))
') || { echo "FAIL: the installed package does not work"; exit 1; }
want="$(realpath "$p/$libdir/libsmpatch.so.1")
{'a': {'b': 1, 'c': 2}}"
if [ "$out" != "$want" ]; then
	printf 'FAIL: the installed package printed\n%s\nwant\n%s\n' "$out" "$want"
	exit 1
fi
echo "ok: the package installed in $pydir finds $libdir/libsmpatch.so.1 beside it"
