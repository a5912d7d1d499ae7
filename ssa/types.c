/*
 * types.c - SSA's view of a schema type, as kube-openapi's schemaconv
 * derives SMD's schema from the OpenAPI document the API server serves.
 *
 * - An object with properties is a struct (SMD map with fields);
 *   x-kubernetes-map-type atomic/granular sets its relationship (granular
 *   by default). With x-kubernetes-preserve-unknown-fields (also inherited
 *   by inline subschemas) other keys are of the deduced type, else they
 *   are errors.
 * - `type: object` without properties is a map of its additionalProperties
 *   (deduced when absent); x-kubernetes-map-type as above.
 * - A list: x-kubernetes-list-type atomic/set/map (+ list-map-keys); else
 *   patch strategy merge(,retainKeys) is associative, keyed by the merge
 *   key when there is one (a set otherwise); else atomic.
 * - Scalars: integer and number are numeric, booleans boolean, strings
 *   string unless they have a format (int-or-string, date-time, ...: the
 *   untyped scalar), Quantity untyped.
 * - No type at all: deduced (any scalar, atomic lists, granular maps of
 *   deduced). RawExtension: untyped atomic.
 * - A reference resolves to the named definition itself: x-kubernetes-*
 *   written beside a $ref are ignored (schemaconv uses the name only), and
 *   inheritance of preserve-unknown-fields stops there.
 * - Key defaults: ContainerPort.protocol and ServicePort.protocol default
 *   to "TCP" for keying (the server's models carry +default="TCP", the
 *   published document does not).
 *
 * Types are made lazily, one node per slot (a field of a struct, the
 * element of a list or map), so a walk pays for the types it meets once.
 */
#include "ssa/ssa.h"

#include <string.h>

ssa_type ssa_type_none;

static ssa_type *new_type(ssa_ctx *c)
{
	ssa_type *t = ssa_talloc(c, sizeof(*t));

	if (t)
		memset(t, 0, sizeof(*t));
	return t;
}

/* The definition named `name` in the call's schema, or NULL. */
static const smp_stype *find_def(const smp_schema *s, const char *name)
{
	size_t lo = 0, hi = s ? s->ndefs : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(name, s->defs[mid].name);

		if (r == 0)
			return s->defs[mid].type;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static uint8_t map_rel(const char *map_type)
{
	return map_type && strcmp(map_type, "atomic") == 0 ? SSA_REL_ATOMIC
	                                                    : SSA_REL_SEPARABLE;
}

static ssa_type *make_deduced(ssa_ctx *c)
{
	if (!c->deduced) {
		ssa_type *d = new_type(c), *u = new_type(c);

		if (!d || !u)
			return NULL;
		/* SMD's untyped atomic element, and the deduced type over it */
		*u = (ssa_type){.scalar = SSA_SC_UNTYPED, .has_list = true, .has_map = true,
		                .list_rel = SSA_REL_ATOMIC, .map_rel = SSA_REL_ATOMIC,
		                .elem = u, .map_elem = u};
		*d = (ssa_type){.scalar = SSA_SC_UNTYPED, .has_list = true, .has_map = true,
		                .list_rel = SSA_REL_ATOMIC, .map_rel = SSA_REL_SEPARABLE,
		                .elem = u, .map_elem = d, .deduced = true, .reconcile_skip = true};
		c->deduced = d;
		c->untyped_atomic = u;
		if (c->cache) {
			c->cache->deduced = d;
			c->cache->untyped_atomic = u;
		}
	}
	return c->deduced;
}

/* An inline type with an untyped scalar, or an inline free-form one: what
 * SMD's isUntypedDeducedRef accepts as a map's element type. */
static bool untyped_inline(const smp_stype *t)
{
	if (!t || t->name)
		return false;
	if (t->kind == SMP_SKIND_ANY)
		return true;
	if (t->kind != SMP_SKIND_PRIMITIVE)
		return false;
	if (!t->type_name)
		return true;
	if (strcmp(t->type_name, "string") == 0)
		return t->format && t->format[0] && strcmp(t->format, "byte") != 0;
	return strcmp(t->type_name, "integer") != 0 && strcmp(t->type_name, "number") != 0 &&
	       strcmp(t->type_name, "boolean") != 0;
}

static uint8_t scalar_of(const smp_stype *t, const char *def_name)
{
	if (def_name && strcmp(def_name, "io.k8s.apimachinery.pkg.api.resource.Quantity") == 0)
		return SSA_SC_UNTYPED;
	if (!t->type_name)
		return SSA_SC_UNTYPED;
	if (strcmp(t->type_name, "integer") == 0 || strcmp(t->type_name, "number") == 0)
		return SSA_SC_NUMERIC;
	if (strcmp(t->type_name, "boolean") == 0)
		return SSA_SC_BOOLEAN;
	if (strcmp(t->type_name, "string") == 0) {
		if (t->flags & SMP_SFLAG_INT_OR_STRING)
			return SSA_SC_UNTYPED;
		if (!t->format || !t->format[0] || strcmp(t->format, "byte") == 0)
			return SSA_SC_STRING;
	}
	return SSA_SC_UNTYPED;
}

/* Key defaults the server's models have and the document lacks. */
static const char *key_default(const smp_stype *elem, const char *key)
{
	if (!elem || !elem->name || strcmp(key, "protocol") != 0)
		return NULL;
	if (strcmp(elem->name, "io.k8s.api.core.v1.ContainerPort") == 0 ||
	    strcmp(elem->name, "io.k8s.api.core.v1.ServicePort") == 0)
		return "TCP";
	return NULL;
}

static int set_list_keys(ssa_ctx *c, ssa_type *r, const char *const *keys, size_t n,
                         const smp_stype *elem)
{
	const char **k = ssa_talloc(c, (n ? n : 1) * sizeof(*k));
	const smp_value **d = ssa_talloc(c, (n ? n : 1) * sizeof(*d));
	uint32_t *l = ssa_talloc(c, (n ? n : 1) * sizeof(*l));

	if (!k || !d || !l)
		return SMP_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *def = key_default(elem, keys[i]);

		k[i] = keys[i];
		l[i] = (uint32_t)strlen(keys[i]);
		d[i] = NULL;
		if (def && !(d[i] = smpv_str_ref(c->tarena, def, strlen(def))))
			return ssa_oom(c);
	}
	r->keys = k;
	r->key_lens = l;
	r->nkeys = (uint32_t)n;
	r->key_defaults = d;
	return 0;
}

/* The type of a slot holding `t`; `f` is the property for lists (its patch
 * strategy and merge key), `inherit` whether preserve-unknown-fields is
 * inherited from an enclosing inline schema. */
static ssa_type *compile(ssa_ctx *c, const smp_stype *t, const smp_sfield *f, bool inherit)
{
	const char *def_name = NULL;
	ssa_type *r;

	if (!t)
		t = &smp_stype_any;
	if (t->name) {
		const smp_stype *def;

		if (strcmp(t->name, "io.k8s.apimachinery.pkg.runtime.RawExtension") == 0) {
			if (!make_deduced(c))
				return NULL;
			return c->untyped_atomic;
		}
		def_name = t->name;
		def = find_def(c->schema, t->name);
		if (def)
			t = def;
		inherit = false;
	}
	if (t->kind == SMP_SKIND_ANY)
		return make_deduced(c);
	if (!(r = new_type(c)))
		return NULL;
	switch (t->kind) {
	case SMP_SKIND_OBJECT: {
		bool preserve = inherit || (t->flags & SMP_SFLAG_PRESERVE_UNKNOWN);

		r->has_map = true;
		r->map_rel = map_rel(t->map_type);
		r->fields = t->fields;
		r->nfields = t->nfields;
		r->field_inherit = preserve;
		if (t->nfields) {
			r->field_types = ssa_talloc(c, t->nfields * sizeof(*r->field_types));
			if (!r->field_types)
				return NULL;
			memset(r->field_types, 0, t->nfields * sizeof(*r->field_types));
		}
		if (preserve) {
			if (!(r->map_elem = make_deduced(c)))
				return NULL;
			r->reconcile_skip = t->nfields == 0;
		}
		break;
	}
	case SMP_SKIND_MAP:
		r->has_map = true;
		r->map_rel = map_rel(t->map_type);
		r->map_elem_src = t->elem ? t->elem : &smp_stype_any;
		r->map_elem_inherit = inherit;
		r->reconcile_skip = untyped_inline(r->map_elem_src);
		break;
	case SMP_SKIND_LIST: {
		const smp_stype *elem = t->elem ? t->elem : &smp_stype_any;
		const smp_stype *edef = elem;

		if (elem->name && find_def(c->schema, elem->name))
			edef = find_def(c->schema, elem->name);
		r->has_list = true;
		r->list_rel = SSA_REL_ATOMIC;
		r->elem_src = elem;
		r->elem_inherit = inherit;
		if (t->list_type) {
			if (strcmp(t->list_type, "set") == 0) {
				r->list_rel = SSA_REL_ASSOCIATIVE;
			} else if (strcmp(t->list_type, "map") == 0) {
				size_t n = 0;

				r->list_rel = SSA_REL_ASSOCIATIVE;
				while (t->list_map_keys && t->list_map_keys[n])
					n++;
				if (n && set_list_keys(c, r, t->list_map_keys, n, edef))
					return NULL;
			}
		} else if (f && (f->strategy & SMP_STRATEGY_MERGE)) {
			r->list_rel = SSA_REL_ASSOCIATIVE;
			if (f->merge_key && set_list_keys(c, r, &f->merge_key, 1, edef))
				return NULL;
		}
		break;
	}
	default:
		r->scalar = scalar_of(t, def_name);
		break;
	}
	return r;
}

ssa_type *ssa_type_root(ssa_ctx *c, const smp_schema *s, const smp_stype *t)
{
	smp_ssa_cache *k = c->cache;
	ssa_type *r;

	c->schema = s;
	for (size_t i = 0; k && i < k->nroots; i++)
		if (k->roots[i].schema == s && k->roots[i].t == t)
			return k->roots[i].type;
	if ((r = compile(c, t, NULL, false)) && k) {
		/* a new kind: into a free slot, else over the oldest */
		size_t i = k->nroots < SSA_CACHE_ROOTS ? k->nroots++ : k->next++ % SSA_CACHE_ROOTS;

		k->roots[i].schema = s;
		k->roots[i].t = t;
		k->roots[i].type = r;
	}
	return r;
}

ssa_type *ssa_type_elem(ssa_ctx *c, ssa_type *t)
{
	if (!t->elem && t->has_list)
		t->elem = compile(c, t->elem_src, NULL, t->elem_inherit);
	return t->elem;
}

/* The field's type, compiled on first use. */
static ssa_type *field_type(ssa_ctx *c, ssa_type *t, size_t i)
{
	if (!t->field_types[i])
		t->field_types[i] = compile(c, t->fields[i].type, &t->fields[i], t->field_inherit);
	return t->field_types[i];
}

ssa_type *ssa_type_field(ssa_ctx *c, ssa_type *t, const char *k, size_t klen,
                         bool *declared)
{
	/* the walks look up the same keys of a document again and again:
	 * the field found last for a key at this address is tried first */
	uint32_t *memo = &t->memo[((uintptr_t)k >> 3) & 7];
	size_t lo = 0, hi = t->nfields;

	*declared = false;
	if (*memo && *memo <= t->nfields && smp_name_cmp(k, klen, t->fields[*memo - 1].name) == 0) {
		*declared = true;
		return field_type(c, t, *memo - 1);
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = smp_name_cmp(k, klen, t->fields[mid].name);

		if (r == 0) {
			*declared = true;
			*memo = (uint32_t)mid + 1;
			return field_type(c, t, mid);
		}
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return ssa_type_map_elem(c, t);
}

ssa_type *ssa_type_map_elem(ssa_ctx *c, ssa_type *t)
{
	if (!t->map_elem && t->map_elem_src)
		t->map_elem = compile(c, t->map_elem_src, NULL, t->map_elem_inherit);
	return t->map_elem;
}
