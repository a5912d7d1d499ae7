"""Apply plans: what `kubectl apply -f` (client-side or server-side) and
`kubectl replace` do to many objects (smp_plan_* of smpatch.h).

The binding knows no struct layout of the plan API: options are made by
smp_plan_options_new() and set by name, entries are read through functions.
"""
import collections.abc
import ctypes
import os

from . import _api as A
from . import _errors as E
from . import _native as n
from . import _values as V

# smp_apply_action, in its order
ACTIONS = ("create", "configure", "unchanged", "prune", "conflict", "error")
_PATCH_TYPES = ("strategic", "merge", "json")
_MODES = ("client-side", "server-side", "replace", "create")
_CONTENT_TYPES = ("application/strategic-merge-patch+json", "application/merge-patch+json")

_P = ctypes.c_void_p
_ERR = n.err_p
_F = {}
# int (*smp_plan_fn)(const smp_plan_entry *, void *)
_RUN_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


def _declare():
    """The smp_plan_* functions; False when the library predates them."""
    c_int, c_size_t, c_bool = ctypes.c_int, ctypes.c_size_t, ctypes.c_bool
    c_char_p, c_uint = ctypes.c_char_p, ctypes.c_uint
    table = [
        ("smp_plan_options_new", c_int, ctypes.POINTER(_P)),
        ("smp_plan_options_free", None, _P),
        ("smp_plan_options_set_bool", c_int, _P, c_char_p, c_bool),
        ("smp_plan_options_set_string", c_int, _P, c_char_p, c_char_p),
        ("smp_plan_options_set_int", c_int, _P, c_char_p, ctypes.c_int64),
        ("smp_plan_options_set_handle", c_int, _P, c_char_p, _P),
        ("smp_plan_options_set_list", c_int, _P, c_char_p, ctypes.POINTER(c_char_p), c_size_t),
        ("smp_plan_new", c_int, ctypes.POINTER(_P), _P, _ERR),
        ("smp_plan_free", None, _P),
        ("smp_plan_add_config", c_int, _P, _P, c_char_p, _ERR),
        ("smp_plan_add_live", c_int, _P, _P, c_char_p, _ERR),
        ("smp_plan_add_live_file", c_int, _P, c_char_p, _ERR),
        ("smp_plan_add_error", c_int, _P, _ERR),
        ("smp_plan_compute", c_int, _P, _ERR),
        ("smp_plan_run", c_int, _P, _RUN_FN, _P, _ERR),
        ("smp_plan_count", c_size_t, _P),
        ("smp_plan_summary_key", c_char_p, c_size_t),
        ("smp_plan_summary", c_int, _P, ctypes.POINTER(c_size_t), c_size_t, _ERR),
        ("smp_plan_summary_line", c_int, ctypes.POINTER(_P), ctypes.POINTER(c_size_t),
         ctypes.POINTER(c_size_t), _ERR),
        ("smp_plan_entry_at", _P, _P, c_size_t),
        ("smp_plan_entry_action", c_int, _P),
        ("smp_plan_entry_applyset_parent", c_bool, _P),
        ("smp_plan_entry_label", c_char_p, _P),
        ("smp_plan_entry_api_version", c_char_p, _P),
        ("smp_plan_entry_kind", c_char_p, _P),
        ("smp_plan_entry_namespace", c_char_p, _P),
        ("smp_plan_entry_name", c_char_p, _P),
        ("smp_plan_entry_config", _P, _P),
        ("smp_plan_entry_live", _P, _P),
        ("smp_plan_entry_object", _P, _P),
        ("smp_plan_entry_patch", _P, _P),
        ("smp_plan_entry_patch_type", c_int, _P),
        ("smp_plan_entry_request_count", c_size_t, _P),
        ("smp_plan_request_method", c_char_p, _P, c_size_t),
        ("smp_plan_request_content_type", c_char_p, _P, c_size_t),
        ("smp_plan_request_field_manager", c_char_p, _P, c_size_t),
        ("smp_plan_request_force", c_bool, _P, c_size_t),
        ("smp_plan_request_body", _P, _P, c_size_t),
        ("smp_plan_entry_warning_count", c_size_t, _P),
        ("smp_plan_entry_warning", c_char_p, _P, c_size_t),
        ("smp_plan_entry_error", _ERR, _P),
        ("smp_plan_entry_error_detail", c_char_p, _P),
        ("smp_plan_entry_status", _P, _P),
        ("smp_plan_entry_delete_options", _P, _P),
        ("smp_plan_entry_changes", c_int, ctypes.POINTER(_P), _P, c_uint, _ERR),
        ("smp_plan_entry_status_line", c_int, ctypes.POINTER(_P), ctypes.POINTER(c_size_t), _P,
         c_uint, _ERR),
        ("smp_plan_entry_diff", c_int, ctypes.POINTER(_P), ctypes.POINTER(c_size_t), _P,
         c_uint, _ERR),
        ("smp_plan_entry_diff_sides", c_int, ctypes.POINTER(_P), ctypes.POINTER(c_size_t),
         ctypes.POINTER(_P), ctypes.POINTER(c_size_t), _P, c_uint, _ERR),
        ("smp_plan_entry_diff_name", c_size_t, c_char_p, c_size_t, _P),
        ("smp_plan_config_count", c_size_t, _P),
    ]
    for name, restype, *argtypes in table:
        f = n.optional(name, restype, *argtypes)
        if f is None:
            return False
        _F[name] = f
    return True


AVAILABLE = _declare()

# smpatch.h's flags
_LINE_DRY_RUN, _LINE_SERVER_DRY_RUN = 1, 2
_DIFF_MANAGED_FIELDS, _DIFF_COLOR, _DIFF_NO_MASK = 1, 2, 4


def _need():
    if not AVAILABLE:
        raise E.make(E.EINVAL, "this libsmpatch has no plan API (smp_plan_*): "
                     "smpatch.apply needs a newer library")


def _text(b):
    return b.decode("utf-8", "surrogateescape") if b is not None else None


class Entry(collections.abc.Mapping):
    """One object of a plan. Attributes (also its keys as a mapping):

    action        "create", "configure", "unchanged", "prune", "conflict"
                  or "error"
    applyset_parent  True for the ApplySet's parent (the applyset option):
                  its apply before the configurations and after the prune
    patch_type    "strategic" or "merge" (client-side; "strategic" otherwise)
    content_type  the Content-Type of what `smpatch apply -o patch` shows
                  (the patch type's for unchanged), None for prune and failures
    patch         that body: client-side the object (create), the patch
                  (configure), {} (unchanged); server-side and replace the
                  configuration with its namespace; None for prune and failures
    patch_json    the same as the JSON text `smpatch apply -o patch` prints
    requests      the requests kubectl sends, in order: dicts of method,
                  content_type, field_manager, force, body
    object        the object as it will be; None for prune and failures
    live          the live object before, or None
    config        the configuration as given, or None
    file          the file (label) the configuration came from, or ""
    api_version, kind, namespace, name   what the entry is about
    warnings      kubectl's warning lines for the object (list of str)
    error         an smpatch.Error for a "conflict" or "error" entry, else
                  None (as a mapping value: its fields as a dict)
    error_detail  more about a conflict (several lines), or None
    server_status the metav1.Status the server answers a failed object, or
                  None
    delete_options  a prune's DeleteOptions with the live object's
                  preconditions, or None
    status        kubectl's status line ("deployment.apps/web configured"),
                  None for failures

    entry.diff() is the entry as `kubectl diff` shows it (Secret values
    masked); entry.status_line(dry_run=True) adds kubectl's suffix.
    """

    _KEYS = ("action", "applyset_parent", "patch_type", "content_type", "patch", "requests", "object", "live",
             "config", "file", "api_version", "kind", "namespace", "name", "warnings",
             "error", "error_detail", "server_status", "delete_options", "status")

    def __init__(self, plan, ptr):
        self._plan = plan  # keeps the C plan, which owns the entry, alive
        self._e = ptr
        self._cache = {}

    def _h(self):
        self._plan._handle()  # the plan owns the entry: not after its close()
        return self._e

    def _value(self, fn):
        if fn not in self._cache:
            self._cache[fn] = V.to_python(_F[fn](self._h()))
        return self._cache[fn]

    def _str(self, fn):
        return _text(_F[fn](self._h()))

    @property
    def action(self):
        return ACTIONS[_F["smp_plan_entry_action"](self._h())]

    @property
    def failed(self):
        return self.action in ("conflict", "error")

    @property
    def applyset_parent(self):
        return bool(_F["smp_plan_entry_applyset_parent"](self._h()))

    @property
    def patch_type(self):
        return _PATCH_TYPES[_F["smp_plan_entry_patch_type"](self._h())]

    @property
    def content_type(self):
        e, act = self._h(), self.action
        if act in ("prune", "conflict", "error"):
            return None
        if _F["smp_plan_entry_request_count"](e):
            return _text(_F["smp_plan_request_content_type"](e, 0))
        return _CONTENT_TYPES[_F["smp_plan_entry_patch_type"](e) == 1]

    @property
    def patch(self):
        return self._value("smp_plan_entry_patch")

    @property
    def patch_json(self):
        p = _F["smp_plan_entry_patch"](self._h())
        return V.printed(p, "json", sort_keys=True, go_escape=True) if p else None

    @property
    def requests(self):
        e = self._h()
        return [{"method": _text(_F["smp_plan_request_method"](e, i)),
                 "content_type": _text(_F["smp_plan_request_content_type"](e, i)),
                 "field_manager": _text(_F["smp_plan_request_field_manager"](e, i)),
                 "force": bool(_F["smp_plan_request_force"](e, i)),
                 "body": V.to_python(_F["smp_plan_request_body"](e, i))}
                for i in range(_F["smp_plan_entry_request_count"](e))]

    @property
    def object(self):
        return self._value("smp_plan_entry_object")

    @property
    def live(self):
        return self._value("smp_plan_entry_live")

    @property
    def config(self):
        return self._value("smp_plan_entry_config")

    @property
    def server_status(self):
        return self._value("smp_plan_entry_status")

    @property
    def delete_options(self):
        return self._value("smp_plan_entry_delete_options")

    def changes(self, *, mask_secrets=True):
        """Every changed field, as `smpatch apply -o changes` lists them:
        dicts of path, op ("add", "remove", "replace"), from, to."""
        out, e = ctypes.c_void_p(), n.Error()
        E.check(_F["smp_plan_entry_changes"](ctypes.byref(out), self._h(),
                                             0 if mask_secrets else 1, ctypes.byref(e)), e)
        try:
            return V.to_python(n.smp_doc_root(out, 0))
        finally:
            n.smp_doc_free(out)

    @property
    def file(self):
        return self._str("smp_plan_entry_label") or ""

    @property
    def api_version(self):
        return self._str("smp_plan_entry_api_version")

    @property
    def kind(self):
        return self._str("smp_plan_entry_kind")

    @property
    def namespace(self):
        return self._str("smp_plan_entry_namespace")

    @property
    def name(self):
        return self._str("smp_plan_entry_name")

    @property
    def warnings(self):
        count = _F["smp_plan_entry_warning_count"](self._h())
        return [_text(_F["smp_plan_entry_warning"](self._h(), i)) for i in range(count)]

    @property
    def error(self):
        p = _F["smp_plan_entry_error"](self._h())
        return E.from_struct(p.contents) if p else None

    @property
    def error_detail(self):
        return self._str("smp_plan_entry_error_detail")

    def status_line(self, *, dry_run=False, server_dry_run=False):
        """kubectl's line for the entry, with " (dry run)" or " (server dry
        run)"; None for a failed entry."""
        if self.failed:
            return None
        buf, size, e = ctypes.c_void_p(), ctypes.c_size_t(), n.Error()
        flags = (_LINE_DRY_RUN if dry_run else 0) | (_LINE_SERVER_DRY_RUN if server_dry_run else 0)
        E.check(_F["smp_plan_entry_status_line"](ctypes.byref(buf), ctypes.byref(size),
                                                 self._h(), flags, ctypes.byref(e)), e)
        return V.taken_text(buf, size)

    @property
    def status(self):
        return self.status_line()

    def diff(self, *, color=False, show_managed_fields=False, mask_secrets=True):
        """The live object against the result as `kubectl diff` shows it
        (unified, YAML, Secret data and stringData masked); "" when nothing
        changes."""
        flags = ((_DIFF_COLOR if color else 0) |
                 (_DIFF_MANAGED_FIELDS if show_managed_fields else 0) |
                 (0 if mask_secrets else _DIFF_NO_MASK))
        buf, size, e = ctypes.c_void_p(), ctypes.c_size_t(), n.Error()
        E.check(_F["smp_plan_entry_diff"](ctypes.byref(buf), ctypes.byref(size), self._h(),
                                          flags, ctypes.byref(e)), e)
        return V.taken_text(buf, size)

    def diff_sides(self, *, show_managed_fields=False, mask_secrets=True):
        """The two YAML texts `kubectl diff` writes into its live/ and
        merged/ directories for the entry (KUBECTL_EXTERNAL_DIFF's files):
        (live, merged), None for a side that does not exist."""
        flags = ((_DIFF_MANAGED_FIELDS if show_managed_fields else 0) |
                 (0 if mask_secrets else _DIFF_NO_MASK))
        a, asz, b, bsz = _P(), ctypes.c_size_t(), _P(), ctypes.c_size_t()
        e = n.Error()
        rc = _F["smp_plan_entry_diff_sides"](ctypes.byref(a), ctypes.byref(asz), ctypes.byref(b),
                                             ctypes.byref(bsz), self._h(), flags, ctypes.byref(e))
        live = V.taken_text(a, asz) if a.value else None
        merged = V.taken_text(b, bsz) if b.value else None
        E.check(rc, e)
        return live, merged

    @property
    def diff_name(self):
        """The file name kubectl diff gives the entry in both directories
        ("apps.v1.Deployment.prod.web")."""
        size = _F["smp_plan_entry_diff_name"](None, 0, self._h())
        buf = ctypes.create_string_buffer(size + 1)
        _F["smp_plan_entry_diff_name"](buf, size + 1, self._h())
        return buf.value.decode("utf-8", "surrogateescape")

    # Mapping: entry["action"], dict(entry), json.dumps(dict(entry)).
    def __getitem__(self, key):
        if key not in self._KEYS:
            raise KeyError(key)
        v = getattr(self, key)
        if key == "error" and v is not None:
            v = {"code": v.code, "message": v.message, "file": v.file, "line": v.line,
                 "column": v.column, "path": v.path}
        return v

    def __iter__(self):
        return iter(self._KEYS)

    def __len__(self):
        return len(self._KEYS)

    def __repr__(self):
        return "<smpatch.Entry %s>" % (self.status if not self.failed
                                       else "%s: %s" % (self.action, self.error))


class _Streamed(Entry):
    """An entry of Plan.run(): valid during the callback only."""

    def _h(self):
        if self._e is None:
            raise E.make(E.EINVAL, "a streamed entry is valid during its callback only")
        return Entry._h(self)


class _Options(V.Handle):
    """smp_plan_options, made and set through the library's functions."""
    _what = "plan options"

    def __init__(self):
        out = ctypes.c_void_p()
        if _F["smp_plan_options_new"](ctypes.byref(out)):
            raise E.make(E.ENOMEM, "out of memory")
        self._ptr = out.value
        self._keep = []  # what the options reference

    def _free(self, ptr):
        _F["smp_plan_options_free"](ptr)

    def _set(self, fn, name, *value):
        if _F[fn](self._handle(), name.encode(), *value):
            raise E.make(E.EINVAL, "bad plan option %s=%r" % (name, value))

    def bool(self, name, value):
        self._set("smp_plan_options_set_bool", name, bool(value))

    def string(self, name, value):
        if value is not None:
            b = value.encode()
            self._keep.append(b)
            self._set("smp_plan_options_set_string", name, b)

    def handle(self, name, obj):
        if obj is not None:
            self._keep.append(obj)
            self._set("smp_plan_options_set_handle", name, obj._handle())

    def list(self, name, values):
        values = [v.encode() for v in (values or ())]
        if values:
            arr = (ctypes.c_char_p * len(values))(*values)
            self._keep.append(arr)
            self._set("smp_plan_options_set_list", name, arr, len(values))


class Plan(V.Handle, collections.abc.Sequence):
    """A plan being built and then computed; a sequence of Entry objects.

        plan = smpatch.Plan(namespace="prod", prune=True, selector="app=web")
        plan.add_config(text, file="web.yaml")
        plan.add_live(live_text)
        plan.compute()
        for entry in plan: ...

    mode is "client-side" (kubectl apply), "server-side" (kubectl apply
    --server-side) or "replace" (kubectl replace). smpatch.apply() does all
    of it in one call.
    """

    _what = "plan"

    def __init__(self, *, mode="client-side", field_manager=None, force_conflicts=False,
                 namespace=None, enforce_namespace=False, overwrite=True, selector=None,
                 field_selector=None, prune=False, prune_all=False, prune_allowlist=None,
                 cluster_scoped=None, schema=None, now=None, stored=False, cascade=None,
                 grace_period=None, validate="strict", ignore_fields=None,
                 ignore_managers=None, jobs=None, csa_managers=None, applyset=None,
                 applyset_tooling=None):
        _need()
        self._ptr = None
        self._entries = None
        if mode not in _MODES:
            raise E.make(E.EINVAL, "mode must be one of %s, not %r" % (", ".join(_MODES), mode))
        selector = A.Selector(selector) if isinstance(selector, str) else selector
        field_selector = (A.FieldSelector(field_selector)
                          if isinstance(field_selector, str) else field_selector)
        if isinstance(schema, (str, bytes)):
            schema = A.Schema(schema, filename="<schema>")
        for what, v, cls in (("selector", selector, A.Selector),
                             ("field_selector", field_selector, A.FieldSelector),
                             ("schema", schema, A.Schema)):
            if v is not None and not isinstance(v, cls):
                raise TypeError("%s must be a str or smpatch.%s, not %s"
                                % (what, cls.__name__, type(v).__name__))
        # The plan references the options' strings and handles: they live
        # as long as it does.
        self._options = o = _Options()
        o.string("mode", mode)
        o.string("field_manager", field_manager)
        o.bool("force_conflicts", force_conflicts)
        o.string("default_namespace", namespace)
        o.bool("enforce_namespace", enforce_namespace)
        o.bool("overwrite", overwrite)
        o.handle("selector", selector)
        o.handle("field_selector", field_selector)
        o.handle("schema", schema)
        o.bool("prune", prune)
        o.bool("prune_all", prune_all)
        o.list("prune_allowlist", prune_allowlist)
        o.list("cluster_scoped", cluster_scoped)
        o.list("ignore_fields", ignore_fields)
        o.list("ignore_managers", ignore_managers)
        o.list("csa_managers", csa_managers)
        o.string("applyset", applyset)
        o.string("applyset_tooling", applyset_tooling)
        o.string("now", now)
        o.bool("stored", stored)
        o.string("propagation", cascade)
        o.string("validate", validate if isinstance(validate, str) else
                 ("strict" if validate else "ignore"))
        if grace_period is not None:
            self._options._set("smp_plan_options_set_int", "grace_period_seconds",
                               int(grace_period))
        if jobs is not None:
            self._options._set("smp_plan_options_set_int", "jobs", int(jobs))
        out, e = ctypes.c_void_p(), n.Error()
        E.check(_F["smp_plan_new"](ctypes.byref(out), o._handle(), ctypes.byref(e)), e)
        self._ptr = out.value

    def _free(self, ptr):
        self._entries = None
        _F["smp_plan_free"](ptr)

    def _add(self, fn, obj, file):
        d = V.from_python(obj, file) if not V.is_text(obj) else V.parse_text(obj, file)
        e = n.Error()
        rc = _F[fn](self._handle(), d.ptr, file.encode("utf-8", "surrogateescape"),
                    ctypes.byref(e))
        d.ptr = None  # the plan took the document over, also on failure
        E.check(rc, e)

    def add_config(self, config, *, file="<config>"):
        """Adds configurations: YAML/JSON text (every document; Lists give
        their items) or a Python object. Text that does not parse becomes an
        "error" entry in its place, as kubectl goes on with the other files."""
        try:
            self._add("smp_plan_add_config", config, file)
        except (E.ParseError, E.LimitError, E.InvalidObjectError) as x:
            e = E.to_struct(x)
            E.check(_F["smp_plan_add_error"](self._handle(), ctypes.byref(e)), e)
        return self

    @property
    def config_count(self):
        """The number of configurations added so far (Lists count their
        items; a text that did not parse counts once)."""
        return _F["smp_plan_config_count"](self._handle())

    def add_live(self, live, *, file="<live>"):
        """Adds live objects (as `kubectl get -o yaml` prints them): text or
        a Python object; Lists give their items."""
        self._add("smp_plan_add_live", live, file)
        return self

    def add_live_file(self, path):
        """Adds the live objects of a file by its path without holding them:
        a JSON List (`kubectl get -A -o json`) is indexed item by item and an
        object read again when an entry needs it; anything else is parsed
        whole, as add_live does. The file must not change until the plan is
        freed."""
        e = n.Error()
        E.check(_F["smp_plan_add_live_file"](self._handle(), os.fsencode(path),
                                             ctypes.byref(e)), e)
        return self

    def compute(self):
        """Computes the entries (once). Raises InvalidObjectError "no
        objects passed to apply" when no configuration is left (none given,
        or the label selector keeps none), as kubectl does."""
        e = n.Error()
        E.check(_F["smp_plan_compute"](self._handle(), ctypes.byref(e)), e)
        p = self._ptr
        self._entries = [Entry(self, _F["smp_plan_entry_at"](p, i))
                         for i in range(_F["smp_plan_count"](p))]
        return self

    def run(self, fn):
        """The streaming form of compute(): calls fn(entry) for each entry
        as soon as it is decided; the entry is valid during the call only
        (the plan frees it afterwards: read what you need, e.g.
        dict(entry)). fn returning a true value stops the run. Once per
        plan, instead of compute(); returns the number of entries seen."""
        seen = [0]
        failure = []

        def call(ptr, _user):
            entry = _Streamed(self, ptr)
            try:
                stop = fn(entry)
            except BaseException as x:  # raised again after the C call
                failure.append(x)
                return 1
            finally:
                entry._e = None
            seen[0] += 1
            return 1 if stop else 0

        cb = _RUN_FN(call)
        e = n.Error()
        rc = _F["smp_plan_run"](self._handle(), cb, None, ctypes.byref(e))
        if failure:
            raise failure[0]
        if rc < 0:
            E.check(rc, e)
        return seen[0]

    def _computed(self):
        if self._entries is None:
            raise E.make(E.EINVAL, "the plan is not computed: call compute() first")
        return self._entries

    def __getitem__(self, i):
        return self._computed()[i]

    def __len__(self):
        return len(self._computed())

    def summary(self):
        """The plan's counts, as `smpatch apply --summary` gives them: a dict
        of "objects", "create", "configure", "unchanged", "prune",
        "conflict", "error" (entries, the ApplySet parent's aside) and
        "changes" (changed fields, as .changes() lists them)."""
        keys = []
        while True:
            k = _F["smp_plan_summary_key"](len(keys))
            if k is None:
                break
            keys.append(k.decode())
        self._computed()
        counts, e = (ctypes.c_size_t * len(keys))(), n.Error()
        E.check(_F["smp_plan_summary"](self._handle(), counts, len(keys), ctypes.byref(e)), e)
        return dict(zip(keys, counts))

    def summary_line(self):
        """The summary as --summary prints it: "3 objects: 1 to create, ...;
        7 fields changed"."""
        keys = self.summary()
        counts = (ctypes.c_size_t * len(keys))(*keys.values())
        buf, size, e = ctypes.c_void_p(), ctypes.c_size_t(), n.Error()
        E.check(_F["smp_plan_summary_line"](ctypes.byref(buf), ctypes.byref(size), counts,
                                            ctypes.byref(e)), e)
        return V.taken_text(buf, size)

    @property
    def failed(self):
        """Whether some entry is a conflict or an error."""
        return any(en.failed for en in self._computed())


def apply(config_text, live_text=None, *, server_side=False, field_manager=None,
          force_conflicts=False, config_file="<config>", live_file="<live>", **options):
    """What `kubectl apply -f` does with the configurations in
    `config_text` given the live objects in `live_text`: a computed Plan,
    a list of Entry objects in kubectl's order (configurations in order,
    then prunes). Both are YAML/JSON text (any number of documents, Lists
    expanded), a Python object, or a list of texts and objects.

    server_side=True is `kubectl apply --server-side` (field_manager,
    default "kubectl"; force_conflicts); the live objects then carry their
    metadata.managedFields. Other options: namespace (kubectl -n; default
    "default"), enforce_namespace, overwrite (default True), selector
    (kubectl -l: str or Selector), field_selector, prune, prune_all,
    prune_allowlist (["core/v1/ConfigMap", ...]), cluster_scoped (kinds no
    schema describes that are cluster-scoped: ["ClusterIssuer.cert-manager.io",
    ...]), schema (a Schema or OpenAPI/CRD text), now (RFC 3339 time of the
    managedFields entries), mode ("replace" for kubectl replace), stored
    (the objects and diffs as the API server stores them, as
    --dry-run=server and kubectl diff show them), validate ("strict", the
    default as kubectl's, "warn" or "ignore"), cascade and grace_period
    (a prune's DeleteOptions), ignore_fields (["/spec/replicas",
    "Deployment.apps:spec.template.spec.containers[name=web].image", ...])
    and ignore_managers (["hpa", ...]): left out of .diff(), .changes()
    and the unchanged/configured decision, never out of .patch; applyset
    (kubectl's --applyset, "[RESOURCE][.GROUP]/NAME", with prune=True and
    a namespace with enforce_namespace=True for a Secret or ConfigMap
    parent) and applyset_tooling ("kubectl/v1.32.0" by default): the
    parent's entries have .applyset_parent.

    One object's failure does not stop the others: it is a "conflict" or
    "error" entry.
    """
    options.setdefault("mode", "server-side" if server_side else "client-side")
    plan = Plan(field_manager=field_manager, force_conflicts=force_conflicts, **options)
    configs = config_text if isinstance(config_text, (list, tuple)) else [config_text]
    for c in configs:
        plan.add_config(c, file=config_file)
    if live_text is not None:
        lives = live_text if isinstance(live_text, (list, tuple)) else [live_text]
        for lv in lives:
            plan.add_live(lv, file=live_file)
    return plan.compute()
