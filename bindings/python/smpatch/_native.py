"""The C library: finding it and declaring the functions the binding calls.

Only ctypes: no compiled extension, so the package works with any build of
libsmpatch of the same major version, installed or in a build tree.
"""
import ctypes
import ctypes.util
import os

SONAME_MAJOR = 1  # libsmpatch.so.1: the project's major version


def _installed_library():
    """The library installed with this package (`make install` records its
    place relative to the package), or None."""
    try:
        from . import _install  # written by `make install`
    except ImportError:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _install.LIBRARY))


def _bundled_library():
    """The library a pip-built package carries inside itself (pyproject.toml,
    cmake/Wheel.cmake), or None."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "libsmpatch.so.%d" % SONAME_MAJOR)
    return path if os.path.exists(path) else None


def _candidates():
    bundled = _bundled_library()
    names = [bundled] if bundled else []
    names.append("libsmpatch.so.%d" % SONAME_MAJOR)
    found = ctypes.util.find_library("smpatch")
    if found and found not in names:
        names.append(found)
    installed = _installed_library()
    if installed:
        names.append(installed)
    return names


def load():
    """SMPATCH_LIBRARY (a path) when set, else the library inside this
    package (pip install), else the loader's search (its paths,
    LD_LIBRARY_PATH, ld.so.cache), else the library `make install` put
    beside this package."""
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


class StoredOptions(ctypes.Structure):
    """struct smp_stored_options (version 2)."""
    _fields_ = [
        ("version", c_uint),
        ("flags", c_uint),
        ("schema", c_void_p),
    ]


class CheckOptions(ctypes.Structure):
    """struct smp_check_options (version 1)."""
    _fields_ = [
        ("version", c_uint),
        ("live", value_p),
        ("schema", c_void_p),
    ]


class SsaOptions(ctypes.Structure):
    """struct smp_ssa_options (version 2)."""
    _fields_ = [
        ("version", c_uint),
        ("manager", c_char_p),
        ("force", c_bool),
        ("schema", c_void_p),
        ("now", c_char_p),
        ("cache", c_void_p),
    ]


class SsaConflict(ctypes.Structure):
    """struct smp_ssa_conflict."""
    _fields_ = [
        ("manager", c_char_p),
        ("operation", c_char_p),
        ("api_version", c_char_p),
        ("subresource", c_char_p),
        ("path", c_char_p),
    ]


class ChangesOptions(ctypes.Structure):
    """struct smp_changes_options (version 1)."""
    _fields_ = [
        ("version", c_uint),
        ("schema", c_void_p),
        ("flags", c_uint),
    ]


class DeleteOptions(ctypes.Structure):
    """struct smp_delete_options (version 1)."""
    _fields_ = [
        ("version", c_uint),
        ("propagation", c_int),
        ("grace_period_seconds", ctypes.c_int64),
    ]


class FieldInfo(ctypes.Structure):
    """struct smp_field_info."""
    _fields_ = [
        ("path", c_char_p),
        ("type", c_char_p),
        ("strategy", c_uint),
        ("merge_key", c_char_p),
        ("list_type", c_char_p),
        ("list_map_keys", POINTER(c_char_p)),
        ("map_type", c_char_p),
        ("format", c_char_p),
        ("preserve_unknown", c_bool),
        ("stype", c_void_p),
    ]


# Every struct above, by its C name: tests/python/layout.c prints the
# header's layout of each, which the tests compare with these.
STRUCTS = {
    "smp_error": Error, "smp_parse_options": ParseOptions,
    "smp_print_options": PrintOptions, "smp_patch_options": PatchOptions,
    "smp_stored_options": StoredOptions, "smp_ssa_options": SsaOptions,
    "smp_check_options": CheckOptions,
    "smp_ssa_conflict": SsaConflict, "smp_changes_options": ChangesOptions,
    "smp_delete_options": DeleteOptions, "smp_field_info": FieldInfo,
}

c_char_pp = POINTER(c_char_p)
smp_patch_is_empty = _fn("smp_patch_is_empty", c_bool, value_p)
smp_stored_form = _fn("smp_stored_form", c_int, POINTER(doc_p), value_p,
                      POINTER(StoredOptions), err_p)
smp_object_check = _fn("smp_object_check", c_int, POINTER(doc_p), value_p,
                       POINTER(CheckOptions), err_p)
smp_object_validate = _fn("smp_object_validate", c_int, POINTER(c_void_p), value_p, c_void_p,
                          err_p)
smp_validation_count = _fn("smp_validation_count", c_size_t, c_void_p)
smp_validation_text = _fn("smp_validation_text", c_char_p, c_void_p, c_size_t)
smp_validation_path = _fn("smp_validation_path", c_char_p, c_void_p, c_size_t)
smp_validation_is_type_error = _fn("smp_validation_is_type_error", c_bool, c_void_p, c_size_t)
smp_validation_error = _fn("smp_validation_error", c_int, c_void_p, c_int, err_p)
smp_validation_free = _fn("smp_validation_free", None, c_void_p)
smp_object_validate_meta = _fn("smp_object_validate_meta", c_int, value_p, err_p)
smp_labels_validate = _fn("smp_labels_validate", c_int, value_p, c_char_p, err_p)

smp_quantity_parse = _fn("smp_quantity_parse", c_int, POINTER(c_void_p), c_char_p, c_size_t,
                         err_p)
smp_quantity_from_value = _fn("smp_quantity_from_value", c_int, POINTER(c_void_p), value_p,
                              c_char_p, err_p)
smp_quantity_round_up = _fn("smp_quantity_round_up", c_int, POINTER(c_void_p), c_void_p, c_int,
                            err_p)
smp_quantity_free = _fn("smp_quantity_free", None, c_void_p)
smp_quantity_string = _fn("smp_quantity_string", c_char_p, c_void_p, POINTER(c_size_t))
smp_quantity_format_of = _fn("smp_quantity_format_of", c_int, c_void_p)
smp_quantity_sign = _fn("smp_quantity_sign", c_int, c_void_p)
smp_quantity_cmp = _fn("smp_quantity_cmp", c_int, c_void_p, c_void_p)
smp_quantity_scaled_value = _fn("smp_quantity_scaled_value", c_bool, POINTER(ctypes.c_int64),
                                c_void_p, c_int)

smp_ssa_apply = _fn("smp_ssa_apply", c_int, POINTER(c_void_p), value_p, value_p,
                    POINTER(SsaOptions), err_p)
smp_ssa_update = _fn("smp_ssa_update", c_int, POINTER(c_void_p), value_p, value_p,
                     POINTER(SsaOptions), err_p)
# after 1.0.0: None with an older library
smp_ssa_upgrade_subresource = optional("smp_ssa_upgrade_subresource", c_int, POINTER(doc_p),
                                       value_p, c_char_pp, c_size_t, c_char_p, c_char_p, err_p)
smp_ssa_fields_owners = _fn("smp_ssa_fields_owners", c_size_t, c_char_pp, c_size_t, value_p,
                            c_char_p, c_char_pp, c_size_t)
smp_ssa_result_free = _fn("smp_ssa_result_free", None, c_void_p)
smp_ssa_result_object = _fn("smp_ssa_result_object", value_p, c_void_p)
smp_ssa_result_managed_fields = _fn("smp_ssa_result_managed_fields", value_p, c_void_p)
smp_ssa_result_changed = _fn("smp_ssa_result_changed", c_bool, c_void_p)
smp_ssa_result_conflicts = _fn("smp_ssa_result_conflicts", c_size_t, c_void_p,
                               POINTER(POINTER(SsaConflict)))
smp_ssa_result_message = _fn("smp_ssa_result_message", c_char_p, c_void_p)
smp_ssa_result_warning = _fn("smp_ssa_result_warning", c_char_p, c_void_p)

smp_status_from_error = _fn("smp_status_from_error", c_int, POINTER(doc_p), err_p, value_p,
                            err_p)
smp_delete_options_build = _fn("smp_delete_options_build", c_int, POINTER(doc_p),
                               POINTER(c_bool), value_p, POINTER(DeleteOptions), err_p)
smp_duplicate_merge_keys = _fn("smp_duplicate_merge_keys", c_int, POINTER(doc_p), value_p,
                               c_void_p, err_p)
smp_changes = _fn("smp_changes", c_int, POINTER(doc_p), value_p, value_p,
                  POINTER(ChangesOptions), err_p)
smp_last_applied_encode = _fn("smp_last_applied_encode", c_int, POINTER(c_void_p),
                              POINTER(c_size_t), value_p, err_p)
smp_set_last_applied_encode = _fn("smp_set_last_applied_encode", c_int, POINTER(c_void_p),
                                  POINTER(c_size_t), value_p, c_char_p, err_p)
smp_apply_object_ref = _fn("smp_apply_object_ref", c_size_t, c_char_p, c_size_t, value_p)
smp_text_diff = _fn("smp_text_diff", c_int, POINTER(c_void_p), POINTER(c_size_t), c_char_p,
                    c_char_p, c_size_t, c_char_p, c_char_p, c_size_t, c_uint, err_p)
smp_schema_field = _fn("smp_schema_field", c_int, POINTER(FieldInfo), c_void_p, c_char_p, err_p)
smp_stype_kind = _fn("smp_stype_kind", c_int, c_void_p)
smp_stype_name = _fn("smp_stype_name", c_char_p, c_void_p)
smp_stype_elem = _fn("smp_stype_elem", c_void_p, c_void_p)
smp_stype_field_count = _fn("smp_stype_field_count", c_size_t, c_void_p)
smp_stype_field_at = _fn("smp_stype_field_at", c_int, POINTER(FieldInfo), c_void_p, c_size_t,
                         err_p)
