#!/bin/sh
# pip_test.sh SOURCE_DIR PYTHON - the Python package as a user installs it
# (docs/PYTHON.md, "Installing"), from a copy of the source tree's files
# that git tracks, each step in a clean virtual environment (no system
# site packages, no PYTHONPATH, no SMPATCH_LIBRARY, no LD_LIBRARY_PATH):
#   1. `pip install SOURCE` builds libsmpatch with CMake (scikit-build-core,
#      from PyPI) and puts it inside the package: import smpatch and an
#      apply work, the library loaded from the venv;
#   2. `python -m build` makes an sdist and, from it, a wheel, which
#      `auditwheel show` reports consistent with a manylinux tag (every
#      library it needs but the system's is inside);
#   3. that wheel installed into another clean venv runs docs/PYTHON.md's
#      examples (doctest).
# Needs PyPI (pip's index); without it: skipped (77), failed when CI=true.
src=$1 py=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
skip() { echo "SKIP: $1"; [ "${CI:-}" = true ] && exit 1; exit 77; }
fail() { [ -f "$tmp/log" ] && tail -40 "$tmp/log"; echo "FAIL: $1"; exit 1; }
"$py" -c 'import venv, ensurepip' 2>/dev/null ||
	skip "$py has no venv or ensurepip (make deps installs python3-venv)"
venv() { "$py" -m venv "$1" >"$tmp/log" 2>&1 || fail "$py -m venv $1"; }
clean_env() { env -u PYTHONPATH -u SMPATCH_LIBRARY -u LD_LIBRARY_PATH -u LD_PRELOAD \
	PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"; }

# the tracked files only: what a clone holds (no build trees)
mkdir "$tmp/src" && (cd "$src" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) |
	(cd "$tmp/src" && tar xf -) || fail "copying the source tree"
[ -f "$tmp/src/pyproject.toml" ] || fail "no pyproject.toml at the root"

venv "$tmp/v1"
clean_env "$tmp/v1/bin/python" -m pip download -q -d "$tmp/probe" --no-deps pip \
	>"$tmp/log" 2>&1 || skip "PyPI is not reachable"
clean_env "$tmp/v1/bin/python" -m pip install -q "$tmp/src" >"$tmp/log" 2>&1 ||
	fail "pip install SOURCE"
want=$(sed -n 's/^project(smpatch VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
out=$(cd "$tmp" && clean_env "$tmp/v1/bin/python" -c '
import os, smpatch
print(os.path.realpath(smpatch._native.lib._name))
print(smpatch.version(), smpatch.__version__)
plan = smpatch.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
                      "data": {"k": "2"}},
                     {"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": "a", "namespace": "default"}, "data": {"k": "1"}})
print(plan[0].status)
') || fail "import smpatch after pip install SOURCE"
lib=$(echo "$out" | sed -n 1p)
case $lib in
"$tmp"/v1/lib/python3*/site-packages/smpatch/libsmpatch.so.1) ;;
*) fail "the library was loaded from $lib, not from the installed package" ;;
esac
[ "$(echo "$out" | sed -n 2p)" = "$want $want" ] || fail "version: $(echo "$out" | sed -n 2p), want $want"
[ "$(echo "$out" | sed -n 3p)" = "configmap/a configured" ] ||
	fail "apply printed: $(echo "$out" | sed -n 3p)"
echo "ok: pip install SOURCE: smpatch $want, its library inside the package"

clean_env "$tmp/v1/bin/python" -m pip install -q build auditwheel >"$tmp/log" 2>&1 ||
	fail "pip install build auditwheel"
clean_env "$tmp/v1/bin/python" -m build --outdir "$tmp/dist" "$tmp/src" >"$tmp/log" 2>&1 ||
	fail "python -m build"
whl=$(ls "$tmp"/dist/smpatch-*.whl) || fail "no wheel"
ls "$tmp"/dist/smpatch-*.tar.gz >/dev/null 2>&1 || fail "no sdist"
clean_env "$tmp/v1/bin/auditwheel" show "$whl" >"$tmp/show" 2>&1 || { cat "$tmp/show"; fail "auditwheel show"; }
tr '\n' ' ' <"$tmp/show" | grep -q 'is consistent with the following platform tag: "manylinux_' ||
	{ cat "$tmp/show"; fail "auditwheel show: not consistent with a manylinux tag"; }
"$py" -c 'import sys, zipfile; n = zipfile.ZipFile(sys.argv[1]).namelist()
sys.exit(not {"smpatch/libsmpatch.so.1", "smpatch/libyaml-0.so.2", "smpatch/libre2.so.9",
              "smpatch/py.typed",
              "smpatch/__init__.pyi"} <= set(n))' "$whl" ||
	fail "the wheel lacks the library, libyaml, RE2 or the type hints"
echo "ok: python -m build: $(basename "$whl"); auditwheel: $(grep -o 'manylinux_[0-9_a-z]*' "$tmp/show" | head -1)"

venv "$tmp/v2"
clean_env "$tmp/v2/bin/python" -m pip install -q "$whl" >"$tmp/log" 2>&1 || fail "pip install the wheel"
(cd "$src/examples/apply" && clean_env "$tmp/v2/bin/python" -m doctest "$src/docs/PYTHON.md") ||
	fail "docs/PYTHON.md's examples with the installed wheel"
echo "ok: the wheel in a clean venv runs docs/PYTHON.md"
