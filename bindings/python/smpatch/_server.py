"""What the API server does with an object: the stored form, field
validation, server-side apply and its field ownership, kubectl's migration
of client-side ownership, Status answers and DeleteOptions bodies
(smp_stored_form, smp_object_validate, smp_ssa_*, smp_status_from_error,
smp_delete_options_build of smpatch.h)."""
import collections
import ctypes

from . import _errors as E
from . import _native as n
from . import _values as V
from ._api import _Inputs, _result, _schema_handle

# smp_stored_options.flags
_STORED_NO_DEFAULTS, _STORED_NO_QUANTITIES, _STORED_KEEP_UNKNOWN = 1, 2, 4
VALIDATE_MODES = {"strict": 0, "warn": 1, "ignore": 2}
PROPAGATIONS = {"background": 0, "foreground": 1, "orphan": 2}

Problem = collections.namedtuple("Problem", "text path type_error")
Problem.__doc__ = """One field validation problem: the server's text
(`unknown field "spec.foo"`), its JSON path, and whether it is a decoding
(type) problem, which fails in every mode."""

Conflict = collections.namedtuple("Conflict", "manager operation api_version subresource path")
Conflict.__doc__ = """A field an apply would take from another manager
(smp_ssa_conflict): path as the server prints it (".spec.replicas")."""


def _text(b):
    return b.decode("utf-8", "surrogateescape") if b is not None else None


def stored_form(obj, *, schema=None, defaults=True, quantities=True, keep_unknown=False):
    """`obj` as the API server stores it (what kubectl apply --dry-run=server
    shows): the server's defaults (defaults=False leaves them out), every
    quantity in the text the server writes (quantities=False leaves them as
    written), fields the kind's type lacks dropped (keep_unknown=True keeps
    them). Custom resources whose CRD `schema` holds are pruned and
    defaulted as apiextensions-apiserver does; others come back unchanged.
    Raises InvalidObjectError for a bad quantity (err.path names it)."""
    o = n.StoredOptions()
    o.version = 2
    o.flags = ((0 if defaults else _STORED_NO_DEFAULTS) |
               (0 if quantities else _STORED_NO_QUANTITIES) |
               (_STORED_KEEP_UNKNOWN if keep_unknown else 0))
    o.schema = _schema_handle(schema)
    with _Inputs() as ins:
        d = ins.add(obj, "<object>")
        out = n.doc_p()
        e = n.Error()
        rc = n.smp_stored_form(ctypes.byref(out), V.root(d), ctypes.byref(o), ctypes.byref(e))
        return _result(rc, out, e)


def check_object(obj, *, live=None, schema=None):
    """The API server's own validation of `obj`, what a create writes (an
    update of `live`, the live object, with it): the Status it answers (a
    dict: every cause in the server's order and words) when it refuses the
    object, else None (also when the rules cannot word what they find as
    the server does). Decoding (validate()) comes first at the server and
    is not part of this. Raises InvalidObjectError when the object does
    not decode (a bad quantity)."""
    o = n.CheckOptions()
    o.version = 1
    o.schema = _schema_handle(schema)
    with _Inputs() as ins:
        d = ins.add(obj, "<object>")
        if live is not None:
            o.live = V.root(ins.add(live, "<live>"))
        out = n.doc_p()
        e = n.Error()
        rc = n.smp_object_check(ctypes.byref(out), V.root(d), ctypes.byref(o), ctypes.byref(e))
        if rc == E.EINVALOBJ and out.value:
            return _result(0, out, e)
        E.check(rc, e)
        return None


class Validation(V.Handle):
    """What validate() found: a sequence of Problem, and the server's answer
    in a mode (check())."""

    _what = "validation"

    def _free(self, ptr):
        n.smp_validation_free(ptr)

    def __len__(self):
        return n.smp_validation_count(self._handle())

    def __getitem__(self, i):
        if not 0 <= i < len(self):
            raise IndexError(i)
        h = self._handle()
        return Problem(_text(n.smp_validation_text(h, i)), _text(n.smp_validation_path(h, i)),
                       bool(n.smp_validation_is_type_error(h, i)))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def check(self, mode="strict"):
        """Raises the error the server answers in `mode` ("strict", kubectl's
        --validate default; "warn"; "ignore"): InvalidObjectError with its
        message. In "warn" mode returns the texts kubectl prints after
        "Warning: " (unknown fields); else []."""
        m = V._choice(VALIDATE_MODES, mode, "mode")
        e = n.Error()
        E.check(n.smp_validation_error(self._handle(), m, ctypes.byref(e)), e)
        return [p.text for p in self if not p.type_error] if mode == "warn" else []


def validate(obj, *, schema=None):
    """Checks `obj` as the API server decodes it with strict field
    validation: every field its kind's type lacks, and the first value of
    a wrong type (`schema`: CRDs or OpenAPI, searched before the built-in
    tables). Returns a Validation (empty when all is well)."""
    with _Inputs() as ins:
        d = ins.add(obj, "<object>")
        out = ctypes.c_void_p()
        e = n.Error()
        E.check(n.smp_object_validate(ctypes.byref(out), V.root(d), _schema_handle(schema),
                                      ctypes.byref(e)), e)
    v = Validation.__new__(Validation)
    v._ptr = out.value
    return v


def validate_meta(obj):
    """Checks metadata as kubectl decodes it (types of names, labels,
    annotations, timestamps, ...): raises InvalidObjectError with kubectl's
    message, err.path naming the value."""
    with _Inputs() as ins:
        d = ins.add(obj, "<object>")
        e = n.Error()
        E.check(n.smp_object_validate_meta(V.root(d), ctypes.byref(e)), e)


def validate_labels(labels, path="metadata.labels"):
    """Checks a whole labels map by the API server's rules: raises
    InvalidObjectError on the first bad entry (`metadata.labels: Invalid
    value: "-x": ...`)."""
    with _Inputs() as ins:
        d = ins.add(labels, "<labels>")
        e = n.Error()
        E.check(n.smp_labels_validate(V.root(d), path.encode(), ctypes.byref(e)), e)


class SsaResult(V.Handle):
    """What one server-side apply or update stores: .object (with its
    managedFields), .managed_fields, .changed, .warning."""

    _what = "server-side apply result"

    def _free(self, ptr):
        n.smp_ssa_result_free(ptr)

    @property
    def object(self):
        return V.to_python(n.smp_ssa_result_object(self._handle()))

    @property
    def managed_fields(self):
        return V.to_python(n.smp_ssa_result_managed_fields(self._handle()))

    @property
    def changed(self):
        return bool(n.smp_ssa_result_changed(self._handle()))

    @property
    def warning(self):
        return _text(n.smp_ssa_result_warning(self._handle()))


def _conflicts(ptr):
    lst = ctypes.POINTER(n.SsaConflict)()
    count = n.smp_ssa_result_conflicts(ptr, ctypes.byref(lst))
    return [Conflict(*(_text(getattr(lst[i], f)) for f in Conflict._fields))
            for i in range(count)]


def _ssa(fn, live, config, manager, force, schema, now):
    o = n.SsaOptions()
    o.version = 2
    o.manager = manager.encode() if manager is not None else None
    o.force = bool(force)
    o.schema = _schema_handle(schema)
    o.now = now.encode() if now is not None else None
    with _Inputs() as ins:
        lv = ins.add(live, "<live>")
        cf = ins.add(config, "<config>")
        out = ctypes.c_void_p()
        e = n.Error()
        rc = fn(ctypes.byref(out), V.root(lv), V.root(cf), ctypes.byref(o), ctypes.byref(e))
    res = SsaResult.__new__(SsaResult)
    res._ptr = out.value
    if rc == E.ECONFLICT and res._ptr:
        err = E.from_struct(e)
        err.conflicts = _conflicts(res._ptr)
        res.close()
        raise err
    if rc:
        res.close()
        E.check(rc, e)
    return res


def ssa_apply(live, config, *, manager, force=False, schema=None, now=None):
    """A server-side apply of `config` onto `live` (None: a create), as
    the API server's structured-merge-diff computes it: an SsaResult.
    Raises ConflictError (its .conflicts a list of Conflict) when another
    manager owns a field set to another value and not force;
    InvalidObjectError for a config the server refuses. `now`: the RFC
    3339 time written into changed entries (default: the wall clock)."""
    return _ssa(n.smp_ssa_apply, live, config, manager, force, schema, now)


def ssa_update(live, obj, *, manager=None, schema=None, now=None):
    """The field ownership after a write that is not an apply (PUT,
    kubectl edit, replace, client-side apply) of the whole object `obj`:
    an SsaResult. `manager` None records "unknown"."""
    return _ssa(n.smp_ssa_update, live, obj, manager, False, schema, now)


def upgrade_managed_fields(managed_fields, csa_managers, manager, *, subresource=""):
    """kubectl's migration of client-side ownership (client-go's
    csaupgrade.UpgradeManagedFields, each of `csa_managers` in turn): the
    new managedFields list, or None when nothing changes (kubectl then
    sends no patch). `subresource` is client-go's Subresource option: only
    entries of that subresource ("" the main resource) take part."""
    if n.smp_ssa_upgrade_subresource is None:
        raise E.make(E.EINVAL, "this libsmpatch predates smp_ssa_upgrade_subresource")
    names = [m.encode() for m in csa_managers]
    arr = (ctypes.c_char_p * max(len(names), 1))(*names)
    with _Inputs() as ins:
        d = ins.add(managed_fields, "<managedFields>")
        out = n.doc_p()
        e = n.Error()
        rc = n.smp_ssa_upgrade_subresource(ctypes.byref(out), V.root(d), arr, len(names),
                                           manager.encode(), subresource.encode(),
                                           ctypes.byref(e))
        if rc == 0 and not out.value:
            return None
        return _result(rc, out, e)


def fields_owners(managed_fields, operation, path):
    """client-go's csaupgrade.FindFieldsOwners for one field: the managers
    of the entries of `operation` ("Apply" or "Update") that own the field
    at `path` (map keys: ["metadata", "annotations", NAME])."""
    keys = [p.encode() for p in path]
    arr = (ctypes.c_char_p * max(len(keys), 1))(*keys)
    op = operation.encode()
    with _Inputs() as ins:
        d = ins.add(managed_fields, "<managedFields>")
        count = n.smp_ssa_fields_owners(None, 0, V.root(d), op, arr, len(keys))
        owners = (ctypes.c_char_p * max(count, 1))()
        n.smp_ssa_fields_owners(owners, count, V.root(d), op, arr, len(keys))
        return [_text(owners[i]) for i in range(count)]


def status(error, obj=None):
    """The metav1.Status the API server answers for `error` (an
    smpatch.Error) about `obj` (may be None): 422 Invalid with causes, 400
    BadRequest, 409 Conflict, ..., in the server's field order."""
    if not isinstance(error, E.Error):
        raise TypeError("error must be a smpatch.Error, not %s" % type(error).__name__)
    se = E.to_struct(error)
    with _Inputs() as ins:
        d = ins.add(obj, "<object>")
        out = n.doc_p()
        e = n.Error()
        rc = n.smp_status_from_error(ctypes.byref(out), ctypes.byref(se), V.root(d),
                                     ctypes.byref(e))
        return _result(rc, out, e)


def delete_options(live, *, cascade="background", grace_period=None):
    """The DeleteOptions body for deleting (pruning) `live`, with the live
    object's uid and resourceVersion as preconditions, and whether it has
    them (a live object without a uid gets none): (body, preconditions)."""
    o = n.DeleteOptions()
    o.version = 1
    o.propagation = V._choice(PROPAGATIONS, cascade, "cascade")
    o.grace_period_seconds = -1 if grace_period is None else int(grace_period)
    pre = ctypes.c_bool()
    with _Inputs() as ins:
        d = ins.add(live, "<live>")
        out = n.doc_p()
        e = n.Error()
        rc = n.smp_delete_options_build(ctypes.byref(out), ctypes.byref(pre), V.root(d),
                                        ctypes.byref(o), ctypes.byref(e))
        return _result(rc, out, e), bool(pre.value)
