"""smpatch: kubectl apply's strategic merge patch, offline, in Python.

A ctypes binding (standard library only) over libsmpatch, the C library of
the smpatch program. The library is found through the SMPATCH_LIBRARY
environment variable (a path), else the loader's usual search
(LD_LIBRARY_PATH, ld.so.cache, the system directories), else where
`make install` put it beside this package. See docs/PYTHON.md.

smpatch.apply() computes what `kubectl apply -f` does to many objects (the
plan API of libsmpatch, smp_plan_*; a library without it raises
InvalidArgumentError there and nowhere else); entries are "create",
"configure", "unchanged", "prune", "conflict" or "error", client-side,
server-side (server_side=True) or for kubectl replace (mode="replace").

Values go in as Python objects (dict, list, str, int, float, bool, None) or
as YAML/JSON text of one document, and come out as Python objects. Every
failure raises smpatch.Error (or a subclass named for its code) carrying
code, message, file, line, column and path.
"""
from ._errors import (EINTERNAL, EINVAL, EINVALOBJ, EIO, ELIMIT, ENOMEM, EPARSE, EPATCH,
                      EPRECOND, ESCHEMA, ECONFLICT, ConflictError, Error, InputOutputError,
                      InvalidArgumentError, InvalidObjectError, LimitError, ParseError,
                      PatchError, PreconditionError, SchemaError)
from ._api import (FieldSelector, Schema, Selector, changes, diff, diff3, dump,
                   duplicate_merge_keys, has_conflicts, last_applied, object_ref, parse,
                   parse_file, patch, patch_is_empty, text_diff, validate_label, version)
from ._plan import Entry, Plan, apply
from ._quantity import Quantity
from ._server import (Conflict, Problem, SsaResult, Validation, check_object, delete_options,
                      fields_owners, ssa_apply, ssa_update, status, stored_form,
                      upgrade_managed_fields, validate, validate_labels, validate_meta)

__version__ = version()

__all__ = [
    "parse", "parse_file", "dump", "patch", "diff", "diff3", "has_conflicts",
    "Schema", "Selector", "FieldSelector", "validate_label", "version",
    "patch_is_empty", "changes", "duplicate_merge_keys", "last_applied", "object_ref",
    "text_diff", "apply", "Plan", "Entry", "Quantity",
    "stored_form", "check_object", "validate", "Validation", "Problem", "validate_meta",
    "validate_labels",
    "ssa_apply", "ssa_update", "SsaResult", "Conflict", "upgrade_managed_fields",
    "fields_owners", "status", "delete_options",
    "Error", "InvalidArgumentError", "ParseError", "PatchError", "SchemaError",
    "ConflictError", "PreconditionError", "LimitError", "InputOutputError",
    "InvalidObjectError",
    "EINVAL", "EPARSE", "EPATCH", "ESCHEMA", "ECONFLICT", "EPRECOND", "ENOMEM", "ELIMIT",
    "EIO", "EINVALOBJ", "EINTERNAL",
]
