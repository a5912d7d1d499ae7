"""The binding's surface against the header (include/smpatch.h): every
public C function has a wrapper or a reason in docs/PYTHON.md ("What is not
wrapped"), and every struct the binding declares with ctypes has the
header's layout (tests/python/layout.c prints it, SMP_LAYOUT_PROGRAM).
"""
import ast
import ctypes
import glob
import inspect
import os
import re
import subprocess
import unittest

import smpatch
from smpatch import _native

SRC = os.environ.get("SMP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def read(*parts):
    with open(os.path.join(SRC, *parts), encoding="utf-8") as f:
        return f.read()


def public_functions():
    """The functions include/smpatch.h exports (SMP_API declarations)."""
    return set(re.findall(r"^SMP_API\b[^;(]*?\b(smp_\w+)\s*\(", read("include", "smpatch.h"),
                          re.M))


def wrapped():
    """The C functions the package declares: their names as strings."""
    names = set()
    for path in glob.glob(os.path.join(SRC, "bindings", "python", "smpatch", "*.py")):
        with open(path, encoding="utf-8") as f:
            names |= set(re.findall(r"""["'](smp_\w+)["']""", f.read()))
    return names - set(_native.STRUCTS)  # struct names, not functions


def reasons():
    """docs/PYTHON.md's "What is not wrapped" table: {function: reason}."""
    text = read("docs", "PYTHON.md")
    m = re.search(r"^## What is not wrapped\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return {}
    out = {}
    for row in re.findall(r"^\|(.+)\|(.+)\|\s*$", m.group(1), re.M):
        for fn in re.findall(r"`(smp_\w+)`", row[0]):
            out[fn] = row[1].strip()
    return out


class EveryFunction(unittest.TestCase):
    def test_header_is_read(self):
        fns = public_functions()
        self.assertIn("smp_doc_parse", fns)
        self.assertIn("smp_ssa_upgrade_subresource", fns)
        self.assertGreater(len(fns), 150)

    def test_wrapped_or_a_reason(self):
        fns, have, why = public_functions(), wrapped(), reasons()
        missing = sorted(f for f in fns if f not in have and f not in why)
        self.assertEqual(missing, [], "public C functions with neither a Python wrapper nor "
                         "a reason in docs/PYTHON.md's \"What is not wrapped\"")
        both = sorted(f for f in why if f in have)
        self.assertEqual(both, [], "wrapped, yet listed as not wrapped")
        stale = sorted(f for f in why if f not in fns)
        self.assertEqual(stale, [], "listed as not wrapped, but not in smpatch.h")
        self.assertEqual([f for f, r in why.items() if len(r) < 15], [], "reasons too short")

    def test_declared_functions_exist(self):
        lib = _native.lib
        for f in sorted(wrapped()):
            if f in public_functions():
                self.assertTrue(hasattr(lib, f), f)
        self.assertEqual(sorted(wrapped() - public_functions()), [],
                         "the binding names functions the header lacks")


class StructLayout(unittest.TestCase):
    def test_ctypes_structs_follow_the_header(self):
        prog = os.environ.get("SMP_LAYOUT_PROGRAM")
        if not prog:
            self.fail("SMP_LAYOUT_PROGRAM not set (tests/python/CMakeLists.txt sets it)")
        # the sanitized tree preloads its runtime for Python; the program links its own
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        lines = subprocess.run([prog], capture_output=True, text=True, check=True,
                               env=env).stdout
        header = {}
        for line in lines.splitlines():
            name, what, value = line.split()
            header[(name, what)] = int(value)
        for cname, cls in _native.STRUCTS.items():
            self.assertEqual(ctypes.sizeof(cls), header[(cname, "size")], cname)
            fields = [f[0] for f in cls._fields_]
            self.assertEqual(sorted(fields),
                             sorted(k[0].split(".", 1)[1] for k in header
                                    if k[1] == "offset" and k[0].startswith(cname + ".")),
                             cname)
            for f in fields:
                self.assertEqual(getattr(cls, f).offset, header[(cname + "." + f, "offset")],
                                 cname + "." + f)
        declared = {re.sub(r"\W", "", m) for m in
                    re.findall(r"class (\w+)\(ctypes\.Structure\)", read(
                        "bindings", "python", "smpatch", "_native.py"))}
        self.assertEqual(declared, {c.__name__ for c in _native.STRUCTS.values()},
                         "every ctypes struct is in _native.STRUCTS")


def _params(args):
    """The parameter names and kinds of an ast.arguments, as inspect
    names them (self/cls left out)."""
    out = [(a.arg, "POSITIONAL_OR_KEYWORD") for a in args.posonlyargs + args.args]
    if args.vararg:
        out.append((args.vararg.arg, "VAR_POSITIONAL"))
    out += [(a.arg, "KEYWORD_ONLY") for a in args.kwonlyargs]
    if args.kwarg:
        out.append((args.kwarg.arg, "VAR_KEYWORD"))
    return [p for p in out if p[0] not in ("self", "cls")]


def _runtime_params(fn):
    sig = inspect.signature(fn)
    return [(p.name, p.kind.name) for p in sig.parameters.values()
            if p.name not in ("self", "cls")]


class TypeHints(unittest.TestCase):
    def test_stub_signatures_are_the_functions(self):
        pkg = os.path.dirname(smpatch.__file__)
        with open(os.path.join(pkg, "__init__.pyi"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        checked = 0
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.assertEqual(_params(node.args), _runtime_params(getattr(smpatch, node.name)),
                                 node.name)
                checked += 1
            elif isinstance(node, ast.ClassDef):
                cls = getattr(smpatch, node.name)
                for m in node.body:
                    if not isinstance(m, ast.FunctionDef):
                        continue
                    where = "%s.%s" % (node.name, m.name)
                    attr = inspect.getattr_static(cls, m.name)
                    if any(isinstance(d, ast.Name) and d.id == "property"
                           for d in m.decorator_list):
                        self.assertIsInstance(attr, property, where)
                    elif any(isinstance(d, ast.Name) and d.id == "overload"
                             for d in m.decorator_list) or m.name.startswith("__") and \
                            m.name != "__init__" or issubclass(cls, tuple):
                        self.assertTrue(hasattr(cls, m.name), where)
                    elif not issubclass(cls, BaseException):
                        self.assertEqual(_params(m.args), _runtime_params(getattr(cls, m.name)),
                                         where)
                    checked += 1
        self.assertGreater(checked, 100)

    def test_py_typed_and_stubs(self):
        pkg = os.path.dirname(smpatch.__file__)
        self.assertTrue(os.path.exists(os.path.join(pkg, "py.typed")))
        stub = os.path.join(pkg, "__init__.pyi")
        self.assertTrue(os.path.exists(stub))
        with open(stub, encoding="utf-8") as f:
            text = f.read()
        for name in smpatch.__all__:
            self.assertRegex(text, r"(?m)^(def|class) %s\b|^%s\s*:" % (name, name), name)


if __name__ == "__main__":
    unittest.main(verbosity=1)
