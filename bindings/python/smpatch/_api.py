"""Parsing, printing, patches, diffs, schemas and selectors."""
import ctypes

from . import _errors as E
from . import _native as n
from . import _values as V

PATCH_TYPES = {"strategic": 0, "merge": 1, "json": 2}


def version():
    """The C library's version ("1.0.0")."""
    return n.smp_version().decode()


def parse(text, *, filename=None, format="auto", allow_duplicate_keys=False):
    """Every document of YAML or JSON text (str or bytes), as Python values.

    The text reads as kubectl reads it (docs/CODEC.md): YAML 1.1 scalars,
    anchors and merge keys expanded, empty documents skipped. `filename`
    names the input in errors; `format` is "auto", "yaml" or "json".
    Raises ParseError (with file, line, column), LimitError.
    """
    with V.parse_text(text, filename, format, allow_duplicate_keys) as d:
        return [V.to_python(d.root(i)) for i in range(d.count())]


def parse_file(path, *, format="auto", allow_duplicate_keys=False):
    """parse() on a file's contents ("-" is standard input). InputOutputError
    when it cannot be read."""
    with V.parse_file(path, format, allow_duplicate_keys) as d:
        return [V.to_python(d.root(i)) for i in range(d.count())]


def dump(value, output="yaml", *, sort_keys=False, go_escape=False):
    """A value as text: output "yaml" (block style, ends with a newline),
    "json" (compact) or "json-indent" (kubectl -o json's layout). `value` is
    a Python value, or YAML/JSON text of one document."""
    with V.one(value, "<value>") as d:
        return V.printed(d.root(0), output, sort_keys, go_escape)


class Schema(V.Handle):
    """A set of type definitions: the built-in Kubernetes tables
    (Schema.builtin()), or an OpenAPI v2/v3 document or CRDs loaded with
    Schema(text) / Schema.load_file(path). Freed when collected (or close())."""

    def __init__(self, text, *, filename=None):
        data = V._bytes(text)
        out = ctypes.c_void_p()
        e = n.Error()
        name = filename.encode("utf-8", "surrogateescape") if filename else None
        E.check(n.smp_schema_load(ctypes.byref(out), data, len(data), name,
                                  ctypes.byref(e)), e)
        self._ptr = out.value
        self._owned = True

    @classmethod
    def load_file(cls, path):
        out = ctypes.c_void_p()
        e = n.Error()
        E.check(n.smp_schema_load_file(ctypes.byref(out),
                                       path.encode("utf-8", "surrogateescape"),
                                       ctypes.byref(e)), e)
        return cls._wrap(out.value, True)

    @classmethod
    def builtin(cls):
        """The built-in tables (static: never freed)."""
        return cls._wrap(n.smp_schema_builtin(), False)

    @classmethod
    def _wrap(cls, ptr, owned):
        s = cls.__new__(cls)
        s._ptr = ptr
        s._owned = owned
        return s

    _what = "schema"

    def _free(self, ptr):
        if getattr(self, "_owned", False):
            n.smp_schema_free(ptr)

    def has_kind(self, api_version, kind):
        """Whether the schema defines apiVersion + kind ("apps/v1", "Deployment")."""
        out = ctypes.c_void_p()
        e = n.Error()
        return n.smp_schema_kind(ctypes.byref(out), self._handle(), api_version.encode(),
                                 kind.encode(), ctypes.byref(e)) == 0

    def namespaced(self, api_version, kind):
        """True (namespaced), False (cluster-scoped) or None (the schema does not say)."""
        known = ctypes.c_bool()
        r = n.smp_schema_kind_namespaced(self._handle(), api_version.encode(), kind.encode(),
                                         ctypes.byref(known))
        return bool(r) if known.value else None

    def field(self, path="", *, api_version=None, kind=None, definition=None):
        """What the engine uses for one field below a kind (api_version and
        kind) or a definition: a dict with path, type, strategy (a list of
        "merge", "replace", "retainKeys"), merge_key, list_type,
        list_map_keys, map_type, format, preserve_unknown, definition and
        fields (the name and property names of the field's object type, or
        of its items' for a list), as `smpatch explain` says it. path is dotted ("spec.template.spec.containers.ports"); list
        items are stepped through. Raises SchemaError for an unknown kind,
        definition or segment."""
        root = ctypes.c_void_p()
        e = n.Error()
        if definition is not None:
            rc = n.smp_schema_definition(ctypes.byref(root), self._handle(), definition.encode(),
                                         ctypes.byref(e))
        elif api_version is not None and kind is not None:
            rc = n.smp_schema_kind(ctypes.byref(root), self._handle(), api_version.encode(),
                                   kind.encode(), ctypes.byref(e))
        else:
            raise E.make(E.EINVAL, "field() needs api_version and kind, or definition")
        E.check(rc, e)
        fi = n.FieldInfo()
        E.check(n.smp_schema_field(ctypes.byref(fi), root.value, path.encode(),
                                   ctypes.byref(e)), e)
        return _field_dict(fi, path)

    def resource(self, api_version, kind):
        """The resource name ("deployments"), or None when the schema does not say."""
        r = n.smp_schema_kind_resource(self._handle(), api_version.encode(), kind.encode())
        return r.decode() if r is not None else None


_STRATEGIES = ("merge", "replace", "retainKeys")  # SMP_STRATEGY_* bits, in order


def _field_dict(fi, path):
    """A struct smp_field_info as a dict (plus the property names)."""
    def s(b):
        return b.decode() if b is not None else None
    keys = []
    if fi.list_map_keys:
        i = 0
        while fi.list_map_keys[i] is not None:
            keys.append(fi.list_map_keys[i].decode())
            i += 1
    fields = []
    t = fi.stype
    if t and n.smp_stype_kind(t) == 3:  # SMP_SKIND_LIST: its items' type
        t = n.smp_stype_elem(t)
    if t and n.smp_stype_kind(t) == 1:  # SMP_SKIND_OBJECT
        one = n.FieldInfo()
        e = n.Error()
        for i in range(n.smp_stype_field_count(t)):
            if n.smp_stype_field_at(ctypes.byref(one), t, i, ctypes.byref(e)) == 0:
                fields.append(one.path.decode())
    return {
        "path": path, "type": s(fi.type),
        "strategy": [name for bit, name in enumerate(_STRATEGIES) if fi.strategy & (1 << bit)],
        "merge_key": s(fi.merge_key), "list_type": s(fi.list_type),
        "list_map_keys": keys or None, "map_type": s(fi.map_type), "format": s(fi.format),
        "preserve_unknown": bool(fi.preserve_unknown),
        "definition": s(n.smp_stype_name(t)) if t else None,
        "fields": fields,
    }


def _str_of(value, key):
    """A string member of a map value, or None (read in place, no copy)."""
    s = n.smp_value_string(n.smp_map_get(value, key), None) if value else None
    return s.decode("utf-8", "surrogateescape") if s is not None else None


def _stype(schema, definition, docs):
    """The strategic root type as `smpatch patch --openapi/--definition`
    chooses it: None lets the library look the kind up in the built-in
    tables (which refuse kinds kubectl has no Go types for)."""
    if schema is None and definition is None:
        return None
    s = schema if schema is not None else Schema.builtin()
    if not isinstance(s, Schema):
        raise TypeError("schema must be a smpatch.Schema, not %s" % type(s).__name__)
    out = ctypes.c_void_p()
    e = n.Error()
    where = "the schema" if schema is not None else "the built-in tables"
    if definition is not None:
        if n.smp_schema_definition(ctypes.byref(out), s._handle(), definition.encode(),
                                   ctypes.byref(e)):
            raise E.make(E.ESCHEMA, "no definition %s in %s" % (definition, where))
        return out.value
    for d in docs:
        root = V.root(d)
        av, kind = _str_of(root, b"apiVersion"), _str_of(root, b"kind")
        if av is None or kind is None:
            continue
        if n.smp_schema_kind(ctypes.byref(out), s._handle(), av.encode(), kind.encode(),
                             ctypes.byref(e)):
            raise E.make(E.ESCHEMA, "no strategic merge schema for %s %s in the schema; for "
                         "custom resources use type=\"merge\"" % (av, kind))
        return out.value
    raise E.make(E.ESCHEMA, "a strategic merge patch needs the document's apiVersion and "
                 "kind, or schema= and definition=; otherwise use type=\"merge\"")


def _patch_options(type, overwrite, schema, definition, docs):
    o = n.PatchOptions()
    o.version = 1
    o.type = V._choice(PATCH_TYPES, type, "type")
    o.overwrite = bool(overwrite)
    if o.type == 0:
        o.stype = _stype(schema, definition, docs)
    return o


class _Inputs:
    """Docs made for one call, freed at its end whatever happens."""

    def __init__(self):
        self.docs = []

    def __enter__(self):
        return self

    def add(self, obj, name):
        d = V.one(obj, name)
        self.docs.append(d)
        return d

    def __exit__(self, *exc):
        for d in self.docs:
            if d is not None:
                d.close()


def _result(rc, out, e):
    doc = V.Doc(out.value)
    with doc:
        E.check(rc, e)
        return V.to_python(doc.root(0))


def _run(fn, values, names, kinds, type, overwrite, schema, definition):
    """fn(&out, root..., &options, &err) on `values` (read as one document
    each, named `names` in errors), the strategic type looked up from the
    documents at the positions `kinds`, in that order; its result."""
    with _Inputs() as ins:
        docs = [ins.add(v, name) for v, name in zip(values, names)]
        o = _patch_options(type, overwrite, schema, definition, [docs[i] for i in kinds])
        out = n.doc_p()
        e = n.Error()
        rc = fn(ctypes.byref(out), *[V.root(d) for d in docs], ctypes.byref(o), ctypes.byref(e))
        return _result(rc, out, e)


def patch(target, patch, *, type="strategic", schema=None, definition=None):
    """Applies `patch` to `target` as the API server does, and returns the
    result. type: "strategic" (default), "merge" (RFC 7386) or "json"
    (RFC 6902: `patch` is the list of operations). For strategic patches
    the kind comes from target's (then patch's) apiVersion/kind, looked up
    in the built-in tables, or in `schema`; `definition` names a type
    instead ("io.k8s.api.core.v1.PodSpec"). target None means {}.
    Arguments are Python values or YAML/JSON text of one document.
    Raises PatchError (err.path names the field), SchemaError, ..."""
    return _run(n.smp_patch_apply, (target, patch), ("<target>", "<patch>"), (0, 1), type,
                True, schema, definition)


def diff(original, modified, *, type="strategic", schema=None, definition=None):
    """Two-way diff: the patch ("strategic" or "merge") that turns
    `original` into `modified`; {} when they are alike. None means {}."""
    return _run(n.smp_diff_two_way, (original, modified), ("<original>", "<modified>"),
                (1, 0), type, True, schema, definition)


def diff3(original, modified, current, *, type="strategic", overwrite=True, schema=None,
          definition=None):
    """Three-way diff as kubectl apply computes it: `original` the last
    applied configuration, `modified` the new configuration, `current` the
    live object. With overwrite=False a change that conflicts with one made
    to the live object raises ConflictError; a patch that would change
    apiVersion, kind or metadata.name raises PreconditionError."""
    return _run(n.smp_diff_three_way, (original, modified, current),
                ("<original>", "<modified>", "<current>"), (1, 0, 2), type, overwrite, schema,
                definition)


def has_conflicts(a, b):
    """Whether two patches touch some field differently (mergepatch.HasConflicts)."""
    with _Inputs() as ins:
        x = ins.add(a, "<a>")
        y = ins.add(b, "<b>")
        return bool(n.smp_patch_has_conflicts(V.root(x), V.root(y)))


class _SelectorBase(V.Handle):
    _what = "selector"
    _parse = None  # the C parser of the text (smp_selector_parse, ...)

    def __init__(self, text=""):
        out = ctypes.c_void_p()
        e = n.Error()
        E.check(type(self)._parse(ctypes.byref(out), text.encode("utf-8"), ctypes.byref(e)), e)
        self._ptr = out.value
        self.text = text

    def _free(self, ptr):
        n.smp_selector_free(ptr)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.text)


class Selector(_SelectorBase):
    """A label selector: Selector("app=web,tier in (a,b)"), as kubectl -l
    reads it. Raises InvalidArgumentError (column = the token at fault)."""

    _parse = staticmethod(n.smp_selector_parse)

    @classmethod
    def from_object(cls, obj, *, node_selector=False):
        """From a LabelSelector object ({"matchLabels": ..., "matchExpressions":
        ...}); node_selector=True reads a node selector term (Gt, Lt)."""
        s = cls.__new__(cls)
        s.text = None
        out = ctypes.c_void_p()
        e = n.Error()
        with _Inputs() as ins:
            d = ins.add(obj, "<selector>")
            E.check(n.smp_selector_from_object(ctypes.byref(out), V.root(d),
                                               bool(node_selector), ctypes.byref(e)), e)
        s._ptr = out.value
        return s

    def matches(self, labels):
        """Whether a labels map (dict, or None for no labels) is selected."""
        with _Inputs() as ins:
            d = ins.add(labels, "<labels>")
            return bool(n.smp_selector_matches(self._handle(), V.root(d)))

    @property
    def empty(self):
        """True when the selector selects everything."""
        return bool(n.smp_selector_is_empty(self._handle()))


class FieldSelector(_SelectorBase):
    """A field selector: FieldSelector("metadata.name=web,spec.replicas!=1")."""

    _parse = staticmethod(n.smp_field_selector_parse)

    def matches(self, obj):
        """Whether an object is selected (an absent field reads as "")."""
        with _Inputs() as ins:
            d = ins.add(obj, "<object>")
            return bool(n.smp_field_selector_matches(self._handle(), V.root(d)))


def validate_label(key, value=None):
    """Checks a label key (and value) by the Kubernetes rules; raises
    InvalidObjectError naming every rule broken."""
    e = n.Error()
    E.check(n.smp_label_validate_key(key.encode("utf-8"), ctypes.byref(e)), e)
    if value is not None:
        E.check(n.smp_label_validate_value(value.encode("utf-8"), ctypes.byref(e)), e)


def patch_is_empty(patch):
    """Whether a patch changes nothing ({} or only empty directives)."""
    with _Inputs() as ins:
        d = ins.add(patch, "<patch>")
        return d is None or bool(n.smp_patch_is_empty(V.root(d)))


def _taken(rc, buf, size, e):
    """The text of a call that returned an smp_free()-owned buffer."""
    text = V.taken_text(buf, size)
    E.check(rc, e)
    return text


def last_applied(config, *, set_namespace=None, as_set=False):
    """The last-applied-configuration annotation kubectl writes for
    `config`: as kubectl apply writes it (the annotation itself left out,
    annotations {} kept), or with as_set=True as `kubectl apply
    set-last-applied` writes it (its own annotations kept; metadata.namespace
    set to set_namespace when the object names none). Compact JSON, sorted
    keys, Go escaping, a final newline."""
    with _Inputs() as ins:
        d = ins.add(config, "<config>")
        buf, size, e = ctypes.c_void_p(), ctypes.c_size_t(), n.Error()
        if as_set:
            ns = set_namespace.encode() if set_namespace else None
            rc = n.smp_set_last_applied_encode(ctypes.byref(buf), ctypes.byref(size), V.root(d),
                                               ns, ctypes.byref(e))
        else:
            rc = n.smp_last_applied_encode(ctypes.byref(buf), ctypes.byref(size), V.root(d),
                                           ctypes.byref(e))
        return _taken(rc, buf, size, e)


def object_ref(obj):
    """The name kubectl prints for an object: "deployment.apps/nginx"."""
    with _Inputs() as ins:
        d = ins.add(obj, "<object>")
        size = n.smp_apply_object_ref(None, 0, V.root(d))
        buf = ctypes.create_string_buffer(size + 1)
        n.smp_apply_object_ref(buf, size + 1, V.root(d))
        return buf.value.decode("utf-8", "surrogateescape")


def changes(before, after, *, schema=None, mask_secrets=True):
    """Every changed field from `before` to `after` (either may be None):
    a list of {"path", "op", "from", "to"} in sorted key order, items of a
    keyed list as [name=web]; a Secret's values "***" unless
    mask_secrets=False."""
    o = n.ChangesOptions()
    o.version = 1
    o.schema = _schema_handle(schema)
    o.flags = 0 if mask_secrets else 1
    with _Inputs() as ins:
        a = ins.add(before, "<before>")
        b = ins.add(after, "<after>")
        out, e = n.doc_p(), n.Error()
        rc = n.smp_changes(ctypes.byref(out), V.root(a), V.root(b), ctypes.byref(o),
                           ctypes.byref(e))
        return _result(rc, out, e)


def duplicate_merge_keys(obj, *, schema=None):
    """The warnings for lists merged by a key that hold two items with the
    same key (client-side apply cannot tell them apart): a list of texts."""
    with _Inputs() as ins:
        d = ins.add(obj, "<object>")
        out, e = n.doc_p(), n.Error()
        rc = n.smp_duplicate_merge_keys(ctypes.byref(out), V.root(d), _schema_handle(schema),
                                        ctypes.byref(e))
        return _result(rc, out, e)


def text_diff(a, b, *, left="a", right="b", color=False):
    """A unified diff of two texts as GNU diff -u makes it, headed
    "diff -u -N LEFT RIGHT"; "" when they are equal."""
    x, y = V._bytes(a), V._bytes(b)
    buf, size, e = ctypes.c_void_p(), ctypes.c_size_t(), n.Error()
    rc = n.smp_text_diff(ctypes.byref(buf), ctypes.byref(size), left.encode(), x, len(x),
                         right.encode(), y, len(y), 2 if color else 0, ctypes.byref(e))
    return _taken(rc, buf, size, e)


def _schema_handle(schema):
    if schema is None:
        return None
    if not isinstance(schema, Schema):
        raise TypeError("schema must be a smpatch.Schema, not %s" % type(schema).__name__)
    return schema._handle()
