"""Python values in and out of the library's documents.

Python objects go in as JSON text (json.dumps), so they read exactly as the
same JSON given to the smpatch program; values come out as the program's
`-o json` prints them (json.loads), floats as Go's encoding/json writes them.
"""
import ctypes
import json

from . import _errors as E
from . import _native as n

FORMATS = {"auto": 0, "yaml": 1, "json": 2}
OUTPUTS = {"json": 0, "json-indent": 1, "yaml": 2}


class Doc:
    """An smp_doc the binding owns: freed by close(), `with`, or when collected."""

    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ptr

    def close(self):
        if self.ptr:
            n.smp_doc_free(self.ptr)
            self.ptr = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def count(self):
        return n.smp_doc_count(self.ptr)

    def root(self, i=0):
        return n.smp_doc_root(self.ptr, i)


class Handle:
    """A C object the binding owns (schema, selector, plan): freed by
    close() or when collected. Subclasses name it and say how to free it."""

    _ptr = None
    _what = "object"

    def _free(self, ptr):
        raise NotImplementedError

    def close(self):
        if self._ptr:
            self._free(self._ptr)
        self._ptr = None

    def __del__(self):
        self.close()

    def _handle(self):
        if not self._ptr:
            raise E.make(E.EINVAL, "the %s is closed" % self._what)
        return self._ptr


def _choice(table, value, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise E.make(E.EINVAL, "%s must be one of %s, not %r"
                     % (what, ", ".join(sorted(table)), value)) from None


def _bytes(text):
    if isinstance(text, bytes):
        return text
    if isinstance(text, (bytearray, memoryview)):
        return bytes(text)
    return text.encode("utf-8", "surrogateescape")


def parse_options(filename=None, format="auto", allow_duplicate_keys=False):
    o = n.ParseOptions()
    o.version = 2
    o.format = _choice(FORMATS, format, "format")
    o.filename = filename.encode("utf-8", "surrogateescape") if filename else None
    o.allow_duplicate_keys = bool(allow_duplicate_keys)
    return o


def parse_text(text, filename=None, format="auto", allow_duplicate_keys=False):
    """Parses YAML or JSON text (str or bytes) into a new Doc."""
    data = _bytes(text)
    opts = parse_options(filename, format, allow_duplicate_keys)
    out = n.doc_p()
    e = n.Error()
    E.check(n.smp_doc_parse(ctypes.byref(out), data, len(data), ctypes.byref(opts),
                            ctypes.byref(e)), e)
    return Doc(out.value)


def parse_file(path, format="auto", allow_duplicate_keys=False):
    opts = parse_options(None, format, allow_duplicate_keys)
    out = n.doc_p()
    e = n.Error()
    p = path.encode("utf-8", "surrogateescape") if isinstance(path, str) else bytes(path)
    E.check(n.smp_doc_parse_file(ctypes.byref(out), p, ctypes.byref(opts), ctypes.byref(e)), e)
    return Doc(out.value)


def is_text(obj):
    return isinstance(obj, (str, bytes, bytearray, memoryview))


def from_python(obj, name):
    """A Doc holding one root: `obj` itself (dict, list, ...) through JSON."""
    try:
        text = json.dumps(obj, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except ValueError as x:  # NaN and infinities: JSON has none, nor has kubectl
        raise E.make(E.EINVAL, "%s: %s" % (name, x)) from None
    return parse_text(text, filename=name, format="json")


def one(obj, name):
    """A Doc with exactly one root from `obj`: text to parse (YAML or JSON,
    one document) or a Python value; None when `obj` is None."""
    if obj is None:
        return None
    if not is_text(obj):
        return from_python(obj, name)
    d = parse_text(obj, filename=name)
    if d.count() != 1:
        count = d.count()
        d.close()
        raise E.make(E.EPARSE, "%s holds %d documents; give exactly one" % (name, count))
    return d


def root(doc):
    return doc.root(0) if doc is not None else None


def printed(value, output="json", sort_keys=False, go_escape=False):
    """The library's text of one value (smp_print), as str."""
    o = n.PrintOptions()
    o.version = 1
    o.output = _choice(OUTPUTS, output, "output")
    o.sort_keys = bool(sort_keys)
    o.go_escape = bool(go_escape)
    buf = ctypes.c_void_p()
    size = ctypes.c_size_t()
    e = n.Error()
    E.check(n.smp_print(ctypes.byref(buf), ctypes.byref(size), value, ctypes.byref(o),
                        ctypes.byref(e)), e)
    try:
        return ctypes.string_at(buf.value, size.value).decode("utf-8", "surrogateescape")
    finally:
        n.smp_free(buf)


def taken_text(buf, size):
    """The text of a buffer the library allocated (freed here with
    smp_free); "" for a NULL buffer."""
    if not buf.value:
        return ""
    try:
        return ctypes.string_at(buf.value, size.value).decode("utf-8", "surrogateescape")
    finally:
        n.smp_free(buf)


def to_python(value):
    """A library value as Python objects (None for a NULL value)."""
    if not value:
        return None
    return json.loads(printed(value))
