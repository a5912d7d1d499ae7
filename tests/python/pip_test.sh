#!/bin/sh
# pip_test.sh SOURCE_DIR PYTHON LIBSMPATCH
# `pip install ./bindings/python` the offline way these machines allow: a
# venv of Debian's python3 that sees the system's setuptools and wheel
# (--system-site-packages), pip install --no-index --no-build-isolation of a
# copy of bindings/python; then, with no PYTHONPATH, the installed package
# runs the worked example of docs/PYTHON.md (doctest) and finds the library
# through SMPATCH_LIBRARY.
src=$1 py=$2 lib=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$py" -c 'import venv, setuptools' 2>/dev/null ||
	{ echo "SKIP: $py has no venv or setuptools (make deps installs python3-venv python3-setuptools)"; exit 77; }
"$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; echo "FAIL: $py -m venv"; exit 1; }
cp -r "$src/bindings/python" "$tmp/pkg"
rm -rf "$tmp/pkg/__pycache__" "$tmp/pkg/smpatch/__pycache__"
if ! env -u PYTHONPATH "$tmp/venv/bin/python" -m pip install --no-index --no-build-isolation \
	--disable-pip-version-check -q "$tmp/pkg" >"$tmp/log" 2>&1; then
	cat "$tmp/log"
	echo "FAIL: pip install --no-index --no-build-isolation ./bindings/python"
	exit 1
fi
cd "$src/examples/apply" || exit 1
where=$(env -u PYTHONPATH SMPATCH_LIBRARY="$lib" PYTHONDONTWRITEBYTECODE=1 \
	"$tmp/venv/bin/python" -c 'import smpatch; print(smpatch.__file__, smpatch.version())') ||
	{ echo "FAIL: the installed package does not import"; exit 1; }
case $where in
"$tmp/venv/"*) ;;
*) echo "FAIL: smpatch was imported from $where, not from the venv"; exit 1 ;;
esac
want=$(sed -n 's/^version = "\(.*\)"/\1/p' "$src/bindings/python/pyproject.toml")
[ "${where##* }" = "$want" ] ||
	{ echo "FAIL: the library is ${where##* }, pyproject.toml says $want"; exit 1; }
if ! env -u PYTHONPATH SMPATCH_LIBRARY="$lib" PYTHONDONTWRITEBYTECODE=1 \
	"$tmp/venv/bin/python" -m doctest "$src/docs/PYTHON.md"; then
	echo "FAIL: docs/PYTHON.md's example in the venv"
	exit 1
fi
echo "ok: pip installed bindings/python into a venv; docs/PYTHON.md runs there ($where)"
