"""Apply plans: what `kubectl apply -f` does to many objects (smp_plan_*)."""
import collections.abc
import ctypes

from . import _api as A
from . import _errors as E
from . import _native as n
from . import _values as V

ACTIONS = ("create", "configure", "unchanged", "prune", "error")
_PATCH_TYPES = ("strategic", "merge", "json")


class PlanOptions(ctypes.Structure):
    """struct smp_plan_options (version 1)."""
    _fields_ = [
        ("version", ctypes.c_uint),
        ("schema", ctypes.c_void_p),
        ("default_namespace", ctypes.c_char_p),
        ("enforce_namespace", ctypes.c_bool),
        ("overwrite", ctypes.c_bool),
        ("selector", ctypes.c_void_p),
        ("field_selector", ctypes.c_void_p),
        ("prune", ctypes.c_bool),
        ("prune_all", ctypes.c_bool),
        ("prune_allowlist", ctypes.POINTER(ctypes.c_char_p)),
        ("prune_allowlist_len", ctypes.c_size_t),
        ("cluster_scoped", ctypes.POINTER(ctypes.c_char_p)),
        ("cluster_scoped_len", ctypes.c_size_t),
    ]


class ObjectRef(ctypes.Structure):
    """struct smp_object_ref."""
    _fields_ = [("api_version", ctypes.c_char_p), ("kind", ctypes.c_char_p),
                ("ns", ctypes.c_char_p), ("name", ctypes.c_char_p)]


class DiffOptions(ctypes.Structure):
    """struct smp_plan_diff_options (version 1)."""
    _fields_ = [("version", ctypes.c_uint), ("show_managed_fields", ctypes.c_bool),
                ("color", ctypes.c_bool), ("live_prefix", ctypes.c_char_p),
                ("merged_prefix", ctypes.c_char_p)]


_P = ctypes.c_void_p
_ERR = n.err_p
_F = {}


def _declare():
    """The smp_plan_* functions; None when the library predates them."""
    c_int, c_size_t = ctypes.c_int, ctypes.c_size_t
    c_char_p, c_uint = ctypes.c_char_p, ctypes.c_uint
    table = [
        ("smp_plan_new", c_int, ctypes.POINTER(_P), ctypes.POINTER(PlanOptions), _ERR),
        ("smp_plan_free", None, _P),
        ("smp_plan_add_config", c_int, _P, _P, c_char_p, _ERR),
        ("smp_plan_add_live", c_int, _P, _P, c_char_p, _ERR),
        ("smp_plan_add_error", c_int, _P, _ERR),
        ("smp_plan_compute", c_int, _P, _ERR),
        ("smp_plan_count", c_size_t, _P),
        ("smp_plan_entry_at", _P, _P, c_size_t),
        ("smp_plan_entry_action", c_int, _P),
        ("smp_plan_entry_patch_type", c_int, _P),
        ("smp_plan_entry_content_type", c_char_p, _P),
        ("smp_plan_entry_patch", _P, _P),
        ("smp_plan_entry_object", _P, _P),
        ("smp_plan_entry_live", _P, _P),
        ("smp_plan_entry_config", _P, _P),
        ("smp_plan_entry_file", c_char_p, _P),
        ("smp_plan_entry_ref", None, ctypes.POINTER(ObjectRef), _P),
        ("smp_plan_entry_warning_count", c_size_t, _P),
        ("smp_plan_entry_warning", c_char_p, _P, c_size_t),
        ("smp_plan_entry_error", _ERR, _P),
        ("smp_plan_entry_error_detail", c_char_p, _P),
        ("smp_plan_entry_status", c_int, ctypes.POINTER(_P), ctypes.POINTER(c_size_t), _P,
         c_uint, _ERR),
        ("smp_plan_entry_diff", c_int, ctypes.POINTER(_P), ctypes.POINTER(c_size_t), _P,
         ctypes.POINTER(DiffOptions), _ERR),
    ]
    for name, restype, *argtypes in table:
        f = n.optional(name, restype, *argtypes)
        if f is None:
            return False
        _F[name] = f
    return True


AVAILABLE = _declare()


def _need():
    if not AVAILABLE:
        raise E.make(E.EINVAL, "this libsmpatch has no plan API (smp_plan_*): "
                     "smpatch.apply needs a newer library")


def _text(b):
    return b.decode("utf-8", "surrogateescape") if b is not None else None


def _taken_text(buf, size):
    try:
        return ctypes.string_at(buf.value, size.value).decode("utf-8", "surrogateescape")
    finally:
        n.smp_free(buf)


class Entry(collections.abc.Mapping):
    """One object of a plan. Attributes (also its keys as a mapping):

    action        "create", "configure", "unchanged", "prune" or "error"
    patch_type    "strategic" or "merge" ("strategic" for prune and error)
    content_type  the request's Content-Type, None for prune and error
    patch         the request body: the object (create), the patch
                  (configure), {} (unchanged); None for prune and error
    object        the object as it will be; None for prune and error
    live          the live object before, or None
    config        the configuration as given, or None
    file          the file (name) the configuration came from, or ""
    api_version, kind, namespace, name   what the entry is about
    warnings      kubectl's warnings for the object (list of str)
    error         an smpatch.Error for an "error" entry, else None (as a
                  mapping value: its fields as a dict)
    error_detail  more about a conflict (several lines), or None
    status        kubectl's status line ("deployment.apps/web configured")

    entry.diff() is the entry as `kubectl diff` shows it (Secret values
    masked); entry.status_line(dry_run=True) adds kubectl's suffix.
    """

    _KEYS = ("action", "patch_type", "content_type", "patch", "object", "live", "config",
             "file", "api_version", "kind", "namespace", "name", "warnings", "error",
             "error_detail", "status")

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

    @property
    def action(self):
        return ACTIONS[_F["smp_plan_entry_action"](self._h())]

    @property
    def patch_type(self):
        return _PATCH_TYPES[_F["smp_plan_entry_patch_type"](self._h())]

    @property
    def content_type(self):
        return _text(_F["smp_plan_entry_content_type"](self._h()))

    @property
    def patch(self):
        return self._value("smp_plan_entry_patch")

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
    def file(self):
        return _text(_F["smp_plan_entry_file"](self._h())) or ""

    def _ref(self):
        r = ObjectRef()
        _F["smp_plan_entry_ref"](ctypes.byref(r), self._h())
        return r

    @property
    def api_version(self):
        return _text(self._ref().api_version)

    @property
    def kind(self):
        return _text(self._ref().kind)

    @property
    def namespace(self):
        return _text(self._ref().ns)

    @property
    def name(self):
        return _text(self._ref().name)

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
        return _text(_F["smp_plan_entry_error_detail"](self._h()))

    def status_line(self, *, dry_run=False, server_dry_run=False):
        """kubectl's line for the entry, with " (dry run)" or " (server dry run)"."""
        buf, size, e = ctypes.c_void_p(), ctypes.c_size_t(), n.Error()
        flags = (1 if dry_run else 0) | (2 if server_dry_run else 0)
        E.check(_F["smp_plan_entry_status"](ctypes.byref(buf), ctypes.byref(size), self._h(),
                                            flags, ctypes.byref(e)), e)
        return _taken_text(buf, size)

    @property
    def status(self):
        return self.status_line()

    def diff(self, *, color=False, show_managed_fields=False, live_prefix=None,
             merged_prefix=None):
        """The live object against the result as `kubectl diff` shows it
        (unified, YAML, Secret data masked); "" when nothing changes."""
        o = DiffOptions(1, bool(show_managed_fields), bool(color),
                        live_prefix.encode() if live_prefix else None,
                        merged_prefix.encode() if merged_prefix else None)
        buf, size, e = ctypes.c_void_p(), ctypes.c_size_t(), n.Error()
        E.check(_F["smp_plan_entry_diff"](ctypes.byref(buf), ctypes.byref(size), self._h(),
                                          ctypes.byref(o), ctypes.byref(e)), e)
        return _taken_text(buf, size)

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
        return "<smpatch.Entry %s>" % (self.status_line() if self.action != "error"
                                       else "error: %s" % self.error)


class Plan(V.Handle, collections.abc.Sequence):
    """A plan being built and then computed; a sequence of Entry objects.

        plan = smpatch.Plan(namespace="prod", prune=True, selector="app=web")
        plan.add_config(text, file="web.yaml")
        plan.add_live(live_text)
        plan.compute()
        for entry in plan: ...

    smpatch.apply() does all of it in one call.
    """

    def __init__(self, *, namespace=None, enforce_namespace=False, overwrite=True,
                 selector=None, field_selector=None, prune=False, prune_all=False,
                 prune_allowlist=None, cluster_scoped=None, schema=None):
        _need()
        self._ptr = None
        self._entries = None
        # The plan references these: they must live as long as it does.
        self._selector = A.Selector(selector) if isinstance(selector, str) else selector
        self._field_selector = (A.FieldSelector(field_selector)
                                if isinstance(field_selector, str) else field_selector)
        if isinstance(schema, (str, bytes)):
            schema = A.Schema(schema, filename="<schema>")
        self._schema = schema
        for what, v, cls in (("selector", self._selector, A.Selector),
                             ("field_selector", self._field_selector, A.FieldSelector),
                             ("schema", self._schema, A.Schema)):
            if v is not None and not isinstance(v, cls):
                raise TypeError("%s must be a str or smpatch.%s, not %s"
                                % (what, cls.__name__, type(v).__name__))
        allow = [s.encode() for s in (prune_allowlist or ())]
        self._allow = (ctypes.c_char_p * max(len(allow), 1))(*allow)
        scoped = [s.encode() for s in (cluster_scoped or ())]
        self._scoped = (ctypes.c_char_p * max(len(scoped), 1))(*scoped)
        self._ns = namespace.encode() if namespace else None
        o = PlanOptions()
        o.version = 1
        o.schema = self._schema._handle() if self._schema is not None else None
        o.default_namespace = self._ns
        o.enforce_namespace = bool(enforce_namespace)
        o.overwrite = bool(overwrite)
        o.selector = self._selector._handle() if self._selector is not None else None
        o.field_selector = (self._field_selector._handle()
                            if self._field_selector is not None else None)
        o.prune = bool(prune)
        o.prune_all = bool(prune_all)
        o.prune_allowlist = self._allow if allow else None
        o.prune_allowlist_len = len(allow)
        o.cluster_scoped = self._scoped if scoped else None
        o.cluster_scoped_len = len(scoped)
        out, e = ctypes.c_void_p(), n.Error()
        E.check(_F["smp_plan_new"](ctypes.byref(out), ctypes.byref(o), ctypes.byref(e)), e)
        self._ptr = out.value

    _what = "plan"

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
            e = n.Error(x.code, x.message.encode("utf-8", "replace")[:1023],
                        x.file.encode()[:511], x.line, x.column, x.path.encode()[:511])
            E.check(_F["smp_plan_add_error"](self._handle(), ctypes.byref(e)), e)
        return self

    def add_live(self, live, *, file="<live>"):
        """Adds live objects (as `kubectl get -o yaml` prints them): text or
        a Python object; Lists give their items."""
        self._add("smp_plan_add_live", live, file)
        return self

    def compute(self):
        """Computes the entries (once). Raises InvalidObjectError "no
        objects passed to apply" when no configuration is left."""
        e = n.Error()
        E.check(_F["smp_plan_compute"](self._handle(), ctypes.byref(e)), e)
        p = self._ptr
        self._entries = [Entry(self, _F["smp_plan_entry_at"](p, i))
                         for i in range(_F["smp_plan_count"](p))]
        return self

    def _computed(self):
        if self._entries is None:
            raise E.make(E.EINVAL, "the plan is not computed: call compute() first")
        return self._entries

    def __getitem__(self, i):
        return self._computed()[i]

    def __len__(self):
        return len(self._computed())

    @property
    def failed(self):
        """Whether some entry is an error."""
        return any(en.action == "error" for en in self._computed())


def apply(config_text, live_text=None, *, config_file="<config>", live_file="<live>",
          **options):
    """What `kubectl apply -f` does with the configurations in
    `config_text` given the live objects in `live_text`: a computed Plan,
    a list of Entry objects in a stable order (configurations in order,
    then prunes). Both are YAML/JSON text (any number of documents, Lists
    expanded), a Python object, or a list of texts and objects.

    Options: namespace (kubectl -n; default "default"), enforce_namespace,
    overwrite (default True), selector (kubectl -l: str or Selector),
    field_selector, prune, prune_all, prune_allowlist (["core/v1/ConfigMap",
    ...]), cluster_scoped (kinds no schema describes that are cluster-scoped:
    ["ClusterIssuer.cert-manager.io", ...]), schema (a Schema or OpenAPI/CRD
    text).

    One object's failure does not stop the others: it is an "error" entry.
    """
    plan = Plan(**options)
    configs = config_text if isinstance(config_text, (list, tuple)) else [config_text]
    for c in configs:
        plan.add_config(c, file=config_file)
    if live_text is not None:
        lives = live_text if isinstance(live_text, (list, tuple)) else [live_text]
        for lv in lives:
            plan.add_live(lv, file=live_file)
    return plan.compute()
