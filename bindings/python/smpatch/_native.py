"""The C library: finding it and declaring the functions the binding calls.

Only ctypes: no compiled extension, so the package works with any build of
libsmpatch of the same major version, installed or in a build tree.
"""
import ctypes
import ctypes.util
import os

SONAME_MAJOR = 0


def _installed_library():
    """The library installed with this package (`make install` records its
    place relative to the package), or None."""
    try:
        from . import _install  # written by `make install`
    except ImportError:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _install.LIBRARY))


def _candidates():
    names = ["libsmpatch.so.%d" % SONAME_MAJOR]
    found = ctypes.util.find_library("smpatch")
    if found and found not in names:
        names.append(found)
    installed = _installed_library()
    if installed:
        names.append(installed)
    return names


def load():
    """SMPATCH_LIBRARY (a path) when set, else the loader's search (its
    paths, LD_LIBRARY_PATH, ld.so.cache), else the library installed beside
    this package."""
    path = os.environ.get("SMPATCH_LIBRARY")
    if path:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            raise ImportError("smpatch: SMPATCH_LIBRARY=%s cannot be loaded: %s"
                              % (path, e)) from None
    tried = []
    for name in _candidates():
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            tried.append(str(e))
    raise ImportError("smpatch: libsmpatch.so.%d not found (set SMPATCH_LIBRARY to its path): %s"
                   % (SONAME_MAJOR, "; ".join(tried)))


lib = load()

c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_bool = ctypes.c_bool
c_size_t = ctypes.c_size_t
POINTER = ctypes.POINTER


class Error(ctypes.Structure):
    """struct smp_error."""
    _fields_ = [
        ("code", c_int),
        ("message", ctypes.c_char * 1024),
        ("file", ctypes.c_char * 512),
        ("line", c_uint),
        ("column", c_uint),
        ("path", ctypes.c_char * 512),
    ]


class ParseOptions(ctypes.Structure):
    """struct smp_parse_options (version 2)."""
    _fields_ = [
        ("version", c_uint),
        ("format", c_int),
        ("filename", c_char_p),
        ("max_depth", c_size_t),
        ("max_alias_nodes", c_size_t),
        ("max_bytes", c_size_t),
        ("allow_duplicate_keys", c_bool),
        ("map_file", c_bool),
    ]


class PrintOptions(ctypes.Structure):
    """struct smp_print_options (version 1)."""
    _fields_ = [
        ("version", c_uint),
        ("output", c_int),
        ("sort_keys", c_bool),
        ("go_escape", c_bool),
    ]


class PatchOptions(ctypes.Structure):
    """struct smp_patch_options (version 1)."""
    _fields_ = [
        ("version", c_uint),
        ("type", c_int),
        ("stype", c_void_p),
        ("overwrite", c_bool),
    ]


# Opaque handles.
doc_p = c_void_p
value_p = c_void_p
err_p = POINTER(Error)


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


def optional(name, restype, *argtypes):
    """A function a newer library has; None when this one lacks it."""
    try:
        return _fn(name, restype, *argtypes)
    except AttributeError:
        return None


smp_version = _fn("smp_version", c_char_p)
smp_strerror = _fn("smp_strerror", c_char_p, c_int)
smp_error_format = _fn("smp_error_format", c_size_t, c_char_p, c_size_t, err_p)
smp_free = _fn("smp_free", None, c_void_p)

smp_doc_parse = _fn("smp_doc_parse", c_int, POINTER(doc_p), c_char_p, c_size_t,
                    POINTER(ParseOptions), err_p)
smp_doc_parse_file = _fn("smp_doc_parse_file", c_int, POINTER(doc_p), c_char_p,
                         POINTER(ParseOptions), err_p)
smp_doc_free = _fn("smp_doc_free", None, doc_p)
smp_doc_count = _fn("smp_doc_count", c_size_t, doc_p)
smp_doc_root = _fn("smp_doc_root", value_p, doc_p, c_size_t)
smp_print = _fn("smp_print", c_int, POINTER(c_void_p), POINTER(c_size_t), value_p,
                POINTER(PrintOptions), err_p)

smp_schema_builtin = _fn("smp_schema_builtin", c_void_p)
smp_schema_load = _fn("smp_schema_load", c_int, POINTER(c_void_p), c_char_p, c_size_t,
                      c_char_p, err_p)
smp_schema_load_file = _fn("smp_schema_load_file", c_int, POINTER(c_void_p), c_char_p, err_p)
smp_schema_free = _fn("smp_schema_free", None, c_void_p)
smp_schema_kind = _fn("smp_schema_kind", c_int, POINTER(c_void_p), c_void_p, c_char_p,
                      c_char_p, err_p)
smp_schema_definition = _fn("smp_schema_definition", c_int, POINTER(c_void_p), c_void_p,
                            c_char_p, err_p)
smp_schema_kind_namespaced = _fn("smp_schema_kind_namespaced", c_bool, c_void_p, c_char_p,
                                 c_char_p, POINTER(c_bool))
smp_schema_kind_resource = _fn("smp_schema_kind_resource", c_char_p, c_void_p, c_char_p,
                               c_char_p)

smp_patch_apply = _fn("smp_patch_apply", c_int, POINTER(doc_p), value_p, value_p,
                      POINTER(PatchOptions), err_p)
smp_diff_two_way = _fn("smp_diff_two_way", c_int, POINTER(doc_p), value_p, value_p,
                       POINTER(PatchOptions), err_p)
smp_diff_three_way = _fn("smp_diff_three_way", c_int, POINTER(doc_p), value_p, value_p,
                         value_p, POINTER(PatchOptions), err_p)
smp_patch_has_conflicts = _fn("smp_patch_has_conflicts", c_bool, value_p, value_p)

smp_selector_parse = _fn("smp_selector_parse", c_int, POINTER(c_void_p), c_char_p, err_p)
smp_selector_from_object = _fn("smp_selector_from_object", c_int, POINTER(c_void_p), value_p,
                               c_bool, err_p)
smp_field_selector_parse = _fn("smp_field_selector_parse", c_int, POINTER(c_void_p), c_char_p,
                               err_p)
smp_selector_free = _fn("smp_selector_free", None, c_void_p)
smp_selector_matches = _fn("smp_selector_matches", c_bool, c_void_p, value_p)
smp_selector_is_empty = _fn("smp_selector_is_empty", c_bool, c_void_p)
smp_field_selector_matches = _fn("smp_field_selector_matches", c_bool, c_void_p, value_p)
smp_label_validate_key = _fn("smp_label_validate_key", c_int, c_char_p, err_p)
smp_label_validate_value = _fn("smp_label_validate_value", c_int, c_char_p, err_p)

smp_map_get = _fn("smp_map_get", value_p, value_p, c_char_p)
smp_value_string = _fn("smp_value_string", c_char_p, value_p, POINTER(c_size_t))
