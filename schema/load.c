/*
 * load.c - schemas from OpenAPI v2 / v3 documents and CRD manifests.
 *
 * The document is parsed into a value tree, turned into smp_stype graphs in
 * the schema's arena, then dropped. Every definition gets its smp_stype
 * before any is filled, so a $ref is just a pointer to the target's slot:
 * recursive types need no recursion across definitions, and the loader's own
 * recursion is bounded by the nesting of one definition. Definitions that
 * are only a $ref (or an allOf wrapper around one) are copied from their
 * target afterwards, in dependency order, which is where reference cycles
 * are found. See schema.h for how each OpenAPI construct is represented.
 */
#include "schema/schema.h"
#include "codec/depth.h"
#include "regex/regex.h"
#include "cel/cel.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SRC_V2, SRC_V3, SRC_CRD };

#define LD_MAX_WRAP 16     /* allOf wrappers around one schema */
#define LD_PATH_MAX 480

enum { OV_LIST_TYPE = 1, OV_KEYS = 2, OV_MAP_TYPE = 4 };

/* Type-level x-kubernetes-* values of one schema node. */
typedef struct ld_overlay {
	uint8_t has;      /* OV_* */
	uint8_t set, clear; /* SMP_SFLAG_* */
	const char *list_type;
	const char *const *keys;
	const char *map_type;
} ld_overlay;

/* dst = copy of src, renamed (name != NULL) and overlaid. */
typedef struct ld_fixup {
	smp_stype *dst;
	const smp_stype *src;
	const char *name;
	ld_overlay ov;
} ld_fixup;

enum { ST_NEW, ST_BUSY, ST_DONE };

typedef struct ld_slot {
	const char *name;
	size_t nlen;
	const smp_value *node;
	smp_stype *type;
	size_t target;          /* alias: slot of the $ref target */
	const smp_value *inner; /* alias: the node holding the $ref */
	uint8_t state;
	bool alias;
} ld_slot;

typedef struct loader {
	smp_schema *s;
	smp_arena *a;
	smp_error *err;
	const char *file;
	int src;
	const char *prefix;     /* "#/definitions/", "#/components/schemas/", NULL */
	ld_slot *slots;
	size_t nslots;
	uint32_t *htab;         /* slot index + 1, open addressing */
	size_t hmask;
	ld_fixup *fix;
	size_t nfix, capfix;
	smp_def_entry *defs;
	size_t ndefs, capdefs;
	smp_gvk_entry *kinds;
	size_t nkinds, capkinds;
	smp_sdefault *dflts;    /* nodes' `default` values (CRDs and v3) */
	size_t ndflts, capdflts;
	smp_svalid *valids;     /* CRD nodes' value validations (own their regexes) */
	size_t nvalids, capvalids;
	char path[LD_PATH_MAX];
	size_t pathlen;
	unsigned depth;
	const smp_stype *any;
	uint8_t tflags;         /* flags every new type gets */
} loader;

/* ---- errors and paths ---- */

static const char *vtype_name(const smp_value *v)
{
	switch (v ? v->type : SMP_NULL) {
	case SMP_BOOL:
		return "a boolean";
	case SMP_INT:
	case SMP_FLOAT:
		return "a number";
	case SMP_STRING:
		return "a string";
	case SMP_LIST:
		return "a list";
	case SMP_MAP:
		return "a map";
	default:
		return "null";
	}
}

static int ld_fail(loader *L, const smp_value *at, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static int ld_fail(loader *L, const smp_value *at, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = smp_err_setv(L->err, SMP_ESCHEMA, L->file, at ? at->line : 0,
	                  at ? at->col : 0, L->path[0] ? L->path : NULL, fmt, ap);
	va_end(ap);
	return rc;
}

static int ld_oom(loader *L)
{
	return smp_err_set(L->err, SMP_ENOMEM, L->file, 0, 0, NULL, "out of memory");
}

/* Appends "/seg" (JSON pointer escaping) to the path; returns the old
 * length for ld_pop. A path too long to keep ends in "...". */
static size_t ld_push(loader *L, const char *seg, size_t len)
{
	size_t old = L->pathlen, n = old;

	/* Stated bound: lets gcc -O3 see every write below stays in the array. */
	if (n >= LD_PATH_MAX - 1)
		return old;
	if (n + 2 < LD_PATH_MAX)
		L->path[n++] = '/';
	for (size_t i = 0; i < len && n + 5 < LD_PATH_MAX; i++) {
		if (seg[i] == '~' || seg[i] == '/') {
			L->path[n++] = '~';
			L->path[n++] = seg[i] == '~' ? '0' : '1';
		} else {
			L->path[n++] = seg[i];
		}
	}
	if (n + 5 >= LD_PATH_MAX && n >= 3)
		memcpy(L->path + n - 3, "...", 3);
	L->path[n] = '\0';
	L->pathlen = n;
	return old;
}

static size_t ld_pushs(loader *L, const char *seg)
{
	return ld_push(L, seg, strlen(seg));
}

static void ld_pop(loader *L, size_t old)
{
	L->pathlen = old;
	L->path[old] = '\0';
}

/* ---- small helpers ---- */

static const smp_value *mget(const smp_value *m, const char *key)
{
	return m && m->type == SMP_MAP ? smpv_map_get(m, key) : NULL;
}

static const char *ld_str(loader *L, const smp_value *v)
{
	return smp_arena_strndup(L->a, v->u.s.ptr, v->u.s.len);
}

static smp_stype *ld_new_type(loader *L)
{
	smp_stype *t = smp_arena_alloc(L->a, sizeof(*t));

	if (t) {
		memset(t, 0, sizeof(*t));
		t->flags = L->tflags;
	}
	return t;
}

/* Reads an optional string member; *out stays NULL when absent. */
static int get_str(loader *L, const smp_value *node, const char *key, const char **out)
{
	const smp_value *v = mget(node, key);
	size_t old;
	int rc;

	*out = NULL;
	if (!v)
		return SMP_OK;
	if (v->type != SMP_STRING || memchr(v->u.s.ptr, '\0', v->u.s.len)) {
		old = ld_pushs(L, key);
		rc = ld_fail(L, v, "%s must be a string, not %s", key, vtype_name(v));
		ld_pop(L, old);
		return rc;
	}
	*out = ld_str(L, v);
	return *out ? SMP_OK : ld_oom(L);
}

static int get_bool(loader *L, const smp_value *node, const char *key, int *out)
{
	const smp_value *v = mget(node, key);
	size_t old;
	int rc;

	*out = -1;
	if (!v)
		return SMP_OK;
	if (v->type != SMP_BOOL) {
		old = ld_pushs(L, key);
		rc = ld_fail(L, v, "%s must be a boolean, not %s", key, vtype_name(v));
		ld_pop(L, old);
		return rc;
	}
	*out = v->u.b;
	return SMP_OK;
}

/* ---- overlays: type-level extensions ---- */

/* The Kubernetes extensions of one schema node (x-kubernetes-list-type,
 * -list-map-keys, -map-type, -patch-strategy, -patch-merge-key,
 * -preserve-unknown-fields, -int-or-string, -embedded-resource, nullable,
 * default) into *ov, each checked for its type. */
static int read_overlay(loader *L, const smp_value *n, ld_overlay *ov)
{
	const smp_value *keys = mget(n, "x-kubernetes-list-map-keys");
	const char *s;
	int b, rc;
	static const struct { const char *key; uint8_t flag; } bools[] = {
		{"x-kubernetes-preserve-unknown-fields", SMP_SFLAG_PRESERVE_UNKNOWN},
		{"x-kubernetes-int-or-string", SMP_SFLAG_INT_OR_STRING},
		{"x-kubernetes-embedded-resource", SMP_SFLAG_EMBEDDED},
	};

	if ((rc = get_str(L, n, "x-kubernetes-list-type", &s)))
		return rc;
	if (s) {
		ov->list_type = s;
		ov->has |= OV_LIST_TYPE;
	}
	if ((rc = get_str(L, n, "x-kubernetes-map-type", &s)))
		return rc;
	if (s) {
		ov->map_type = s;
		ov->has |= OV_MAP_TYPE;
	}
	if (keys) {
		const char **arr;
		size_t old = ld_pushs(L, "x-kubernetes-list-map-keys");

		if (keys->type != SMP_LIST) {
			rc = ld_fail(L, keys, "x-kubernetes-list-map-keys must be a list of strings, not %s",
			             vtype_name(keys));
			ld_pop(L, old);
			return rc;
		}
		arr = smp_arena_alloc(L->a, (keys->u.list.len + 1) * sizeof(*arr));
		if (!arr)
			return ld_oom(L);
		for (size_t i = 0; i < keys->u.list.len; i++) {
			const smp_value *k = keys->u.list.items[i];

			if (k->type != SMP_STRING) {
				rc = ld_fail(L, k, "x-kubernetes-list-map-keys must be a list of strings, not contain %s",
				             vtype_name(k));
				ld_pop(L, old);
				return rc;
			}
			if (!(arr[i] = ld_str(L, k)))
				return ld_oom(L);
		}
		arr[keys->u.list.len] = NULL;
		ld_pop(L, old);
		ov->keys = arr;
		ov->has |= OV_KEYS;
	}
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		if ((rc = get_bool(L, n, bools[i].key, &b)))
			return rc;
		if (b == 1) {
			ov->set |= bools[i].flag;
			ov->clear &= (uint8_t)~bools[i].flag;
		} else if (b == 0) {
			ov->clear |= bools[i].flag;
			ov->set &= (uint8_t)~bools[i].flag;
		}
	}
	return SMP_OK;
}

static void apply_overlay(smp_stype *t, const ld_overlay *ov)
{
	if (ov->has & OV_LIST_TYPE)
		t->list_type = ov->list_type;
	if (ov->has & OV_KEYS)
		t->list_map_keys = ov->keys;
	if (ov->has & OV_MAP_TYPE)
		t->map_type = ov->map_type;
	t->flags = (uint8_t)((t->flags | ov->set) & ~ov->clear);
}

static bool overlay_empty(const ld_overlay *ov)
{
	return !ov->has && !ov->set && !ov->clear;
}

static int add_fixup(loader *L, smp_stype *dst, const smp_stype *src, const char *name,
                     const ld_overlay *ov)
{
	if (L->nfix == L->capfix) {
		size_t cap = L->capfix ? 2 * L->capfix : 64;
		ld_fixup *f = realloc(L->fix, cap * sizeof(*f));

		if (!f)
			return ld_oom(L);
		L->fix = f;
		L->capfix = cap;
	}
	L->fix[L->nfix].dst = dst;
	L->fix[L->nfix].src = src;
	L->fix[L->nfix].name = name;
	L->fix[L->nfix].ov = *ov;
	L->nfix++;
	return SMP_OK;
}

static void run_fixup(const ld_fixup *f)
{
	*f->dst = *f->src;
	if (f->name)
		f->dst->name = f->name;
	apply_overlay(f->dst, &f->ov);
}

/* ---- definitions index ---- */

static size_t slot_find(const loader *L, const char *name, size_t len)
{
	size_t h;

	if (!L->htab)
		return (size_t)-1;
	h = (size_t)smp_hash_bytes(name, len) & L->hmask;
	for (;; h = (h + 1) & L->hmask) {
		uint32_t e = L->htab[h];

		if (!e)
			return (size_t)-1;
		if (L->slots[e - 1].nlen == len && memcmp(L->slots[e - 1].name, name, len) == 0)
			return e - 1;
	}
}

/* Resolves a $ref string to a slot index (or fails naming it). */
static int resolve_ref(loader *L, const smp_value *ref, size_t *out)
{
	size_t plen, old, i, n = 0;
	char *name;
	int rc;

	old = ld_pushs(L, "$ref");
	if (ref->type != SMP_STRING) {
		rc = ld_fail(L, ref, "$ref must be a string, not %s", vtype_name(ref));
		goto out;
	}
	if (!L->prefix) {
		rc = ld_fail(L, ref, "$ref is not allowed in a CustomResourceDefinition schema");
		goto out;
	}
	plen = strlen(L->prefix);
	if (ref->u.s.len < plen || memcmp(ref->u.s.ptr, L->prefix, plen) != 0) {
		rc = ld_fail(L, ref, "unsupported $ref \"%.*s\": only %s... references are followed",
		             (int)(ref->u.s.len > 200 ? 200 : ref->u.s.len), ref->u.s.ptr, L->prefix);
		goto out;
	}
	/* Undo JSON pointer escaping (~1 is '/', ~0 is '~'). */
	name = malloc(ref->u.s.len - plen + 1);
	if (!name) {
		rc = ld_oom(L);
		goto out;
	}
	for (i = plen; i < ref->u.s.len; i++) {
		char c = ref->u.s.ptr[i];

		if (c == '~' && i + 1 < ref->u.s.len && (ref->u.s.ptr[i + 1] == '0' ||
		                                           ref->u.s.ptr[i + 1] == '1'))
			c = ref->u.s.ptr[++i] == '0' ? '~' : '/';
		name[n++] = c;
	}
	*out = slot_find(L, name, n);
	free(name);
	if (*out == (size_t)-1) {
		rc = ld_fail(L, ref, "$ref \"%.*s\" names no definition in the document",
		             (int)(ref->u.s.len > 200 ? 200 : ref->u.s.len), ref->u.s.ptr);
		goto out;
	}
	rc = SMP_OK;
out:
	ld_pop(L, old);
	return rc;
}

/* ---- schema nodes ---- */

static bool is_wrapper(const smp_value *n)
{
	return mget(n, "allOf") && !mget(n, "$ref") && !mget(n, "type") &&
	       !mget(n, "properties");
}

/* Follows allOf wrappers from node: chain[0] = node, chain[*nchain - 1] =
 * the inner node. Leaves the path at the inner node. */
static int unwrap(loader *L, const smp_value *node, const smp_value **chain, size_t *nchain)
{
	size_t n = 0;

	chain[n++] = node;
	while (is_wrapper(node)) {
		const smp_value *all = mget(node, "allOf");

		ld_pushs(L, "allOf");
		if (all->type != SMP_LIST || all->u.list.len == 0)
			return ld_fail(L, all, "allOf must be a non-empty list, not %s",
			               all->type == SMP_LIST ? "an empty list" : vtype_name(all));
		ld_pushs(L, "0");
		node = all->u.list.items[0];
		if (node->type != SMP_MAP)
			return ld_fail(L, node, "a schema must be a map, not %s", vtype_name(node));
		if (n == LD_MAX_WRAP)
			return ld_fail(L, node, "more than %d nested allOf wrappers", LD_MAX_WRAP);
		chain[n++] = node;
	}
	*nchain = n;
	return SMP_OK;
}

static int parse_into(loader *L, smp_stype *t, const smp_value *n);

/* The type of a schema node: a definition's type for a $ref, else a new one. */
static int parse_type(loader *L, const smp_value *node, const smp_stype **out)
{
	const smp_value *chain[LD_MAX_WRAP + 1], *inner, *ref;
	size_t nchain, saved = L->pathlen, i;
	ld_overlay ov = {0};
	smp_stype *t;
	int rc;

	*out = NULL;
	if (node->type != SMP_MAP)
		return ld_fail(L, node, "a schema must be a map, not %s", vtype_name(node));
	if (++L->depth > SMP_DEPTH_SCHEMA_LOAD) {
		rc = smp_err_set(L->err, SMP_ELIMIT, L->file, node->line, node->col, L->path,
		                 "schema nested deeper than %d levels", SMP_DEPTH_SCHEMA_LOAD);
		goto out;
	}
	if ((rc = unwrap(L, node, chain, &nchain)))
		goto out;
	inner = chain[nchain - 1];
	ref = mget(inner, "$ref");
	if (ref) {
		size_t slot;

		if ((rc = resolve_ref(L, ref, &slot)))
			goto out;
		/* Inner first, so that outer wrappers win. */
		for (i = nchain; i-- > 0;)
			if ((rc = read_overlay(L, chain[i], &ov)))
				goto out;
		if (overlay_empty(&ov)) {
			*out = L->slots[slot].type;
		} else {
			if (!(t = ld_new_type(L))) {
				rc = ld_oom(L);
				goto out;
			}
			if ((rc = add_fixup(L, t, L->slots[slot].type, NULL, &ov)))
				goto out;
			*out = t;
		}
		goto out;
	}
	if (!(t = ld_new_type(L))) {
		rc = ld_oom(L);
		goto out;
	}
	if ((rc = parse_into(L, t, inner)))
		goto out;
	for (i = nchain - 1; i-- > 0;)
		if ((rc = read_overlay(L, chain[i], &ov)))
			goto out;
	apply_overlay(t, &ov);
	*out = t;
out:
	L->depth--;
	ld_pop(L, saved);
	return rc;
}

static int cmp_field(const void *a, const void *b)
{
	return strcmp(((const smp_sfield *)a)->name, ((const smp_sfield *)b)->name);
}

/* Patch strategy and merge key written on a property. */
static int field_meta(loader *L, const smp_value *prop, smp_sfield *f)
{
	const smp_value *ps = mget(prop, "x-kubernetes-patch-strategy");
	const smp_value *mk = mget(prop, "x-kubernetes-patch-merge-key");
	size_t old;
	bool ok;
	int rc = SMP_OK;

	if (ps) {
		old = ld_pushs(L, "x-kubernetes-patch-strategy");
		if (ps->type != SMP_STRING)
			rc = ld_fail(L, ps, "x-kubernetes-patch-strategy must be a string, not %s",
			             vtype_name(ps));
		else if (f->strategy = (uint8_t)smp_strategy_parse(ps->u.s.ptr, ps->u.s.len, &ok), !ok)
			rc = ld_fail(L, ps, "unknown patch strategy \"%.*s\" (expected merge, replace, retainKeys or merge,retainKeys)",
			             (int)(ps->u.s.len > 100 ? 100 : ps->u.s.len), ps->u.s.ptr);
		ld_pop(L, old);
		if (rc)
			return rc;
	}
	if (mk) {
		old = ld_pushs(L, "x-kubernetes-patch-merge-key");
		if (mk->type != SMP_STRING || memchr(mk->u.s.ptr, '\0', mk->u.s.len))
			rc = ld_fail(L, mk, "x-kubernetes-patch-merge-key must be a string, not %s",
			             vtype_name(mk));
		else if (!(f->merge_key = ld_str(L, mk)))
			rc = ld_oom(L);
		ld_pop(L, old);
	}
	return rc;
}

static int parse_fields(loader *L, smp_stype *t, const smp_value *props)
{
	size_t n = props->u.map.len, saved = L->pathlen;
	smp_sfield *fields;
	int rc = SMP_OK;

	fields = smp_arena_alloc(L->a, (n ? n : 1) * sizeof(*fields));
	if (!fields)
		return ld_oom(L);
	ld_pushs(L, "properties");
	for (size_t i = 0; i < n; i++) {
		const smp_member *m = &props->u.map.items[i];
		size_t old = ld_push(L, m->key, m->klen);

		memset(&fields[i], 0, sizeof(fields[i]));
		if (memchr(m->key, '\0', m->klen)) {
			rc = ld_fail(L, m->val, "property name contains a NUL byte");
			break;
		}
		if (!(fields[i].name = smp_arena_strndup(L->a, m->key, m->klen))) {
			rc = ld_oom(L);
			break;
		}
		if ((rc = parse_type(L, m->val, &fields[i].type)))
			break;
		if ((rc = field_meta(L, m->val, &fields[i])))
			break;
		ld_pop(L, old);
	}
	ld_pop(L, saved);
	if (rc)
		return rc;
	qsort(fields, n, sizeof(*fields), cmp_field);
	t->fields = fields;
	t->nfields = (uint32_t)n;
	return SMP_OK;
}

/* Adds apiVersion, kind and metadata (the built-in ObjectMeta) to an
 * object that lacks them: CRD roots and embedded resources. */
static int add_object_meta(loader *L, smp_stype *t)
{
	static const char *const names[] = {"apiVersion", "kind", "metadata"};
	const smp_stype *meta = NULL;
	smp_sfield *fields;
	size_t n = 0;

	if (t->kind != SMP_SKIND_OBJECT) {
		/* A free-form object (preserve-unknown-fields) becomes an object
		 * with just these, still preserving unknown fields. */
		if (!(t->kind == SMP_SKIND_ANY ||
		      (t->kind == SMP_SKIND_MAP && (t->flags & SMP_SFLAG_NO_PROPERTIES))))
			return SMP_OK;
		t->kind = SMP_SKIND_OBJECT;
		t->type_name = "object";
		t->elem = NULL;
		t->flags = (uint8_t)((t->flags | SMP_SFLAG_PRESERVE_UNKNOWN) & ~SMP_SFLAG_NO_PROPERTIES);
		t->nfields = 0;
	}
	if (smp_schema_definition(&meta, smp_schema_builtin(),
	                          "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", NULL))
		meta = L->any;
	fields = smp_arena_alloc(L->a, (t->nfields + 3) * sizeof(*fields));
	if (!fields)
		return ld_oom(L);
	if (t->nfields)
		memcpy(fields, t->fields, t->nfields * sizeof(*fields));
	n = t->nfields;
	for (size_t i = 0; i < 3; i++) {
		if (smp_stype_field(t, names[i], strlen(names[i])))
			continue;
		memset(&fields[n], 0, sizeof(fields[n]));
		fields[n].name = names[i];
		fields[n].type = i == 2 ? meta : &smp_stype_implicit_string;
		n++;
	}
	qsort(fields, n, sizeof(*fields), cmp_field);
	t->fields = fields;
	t->nfields = (uint32_t)n;
	return SMP_OK;
}

/* The formats apiextensions keeps (StripUnsupportedFormatsPostProcess's
 * supportedFormats), "-"s removed as go-openapi normalises them. */
static const char *supported_format(loader *L, const smp_value *f)
{
	static const char *const known[] = {
		"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid",
		"uuid3", "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn",
		"hexcolor", "rgbcolor", "byte", "password", "date", "duration", "datetime",
	};
	char norm[32];
	size_t n = 0;

	if (!f || f->type != SMP_STRING)
		return NULL;
	for (uint32_t i = 0; i < f->u.s.len; i++) {
		if (f->u.s.ptr[i] == '-')
			continue;
		if (n + 1 >= sizeof(norm))
			return NULL;
		norm[n++] = f->u.s.ptr[i];
	}
	norm[n] = '\0';
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(norm, known[i]) == 0)
			return known[i];
	return NULL;
}

/* Whether an anyOf is the int-or-string idiom ([{type: integer}, {type:
 * string}], controller-gen's), which any integer or string satisfies. */
static bool int_or_string_anyof(const smp_value *any)
{
	bool in = false, st = false;

	if (any->type != SMP_LIST || any->u.list.len != 2)
		return false;
	for (uint32_t i = 0; i < 2; i++) {
		const smp_value *b = any->u.list.items[i], *tv = mget(b, "type");

		if (!b || b->type != SMP_MAP || b->u.map.len != 1 || !tv || tv->type != SMP_STRING)
			return false;
		in |= tv->u.s.len == 7 && memcmp(tv->u.s.ptr, "integer", 7) == 0;
		st |= tv->u.s.len == 6 && memcmp(tv->u.s.ptr, "string", 6) == 0;
	}
	return in && st;
}

/* Frees what an svalid owns (its regex and programs): on failures before
 * the schema owns them. */
static void svalid_free(smp_svalid *v)
{
	smp_regex_free((smp_regex *)v->re);
	for (uint32_t j = 0; j < v->ncrules; j++) {
		cel_program_free((cel_program *)v->crules[j].rule);
		cel_program_free((cel_program *)v->crules[j].message_expression);
	}
}

/* The x-kubernetes-validations of a node compiled (smp_srule). Entries of
 * the wrong shape are skipped (the server refuses such a CRD). */
static int compile_rules(loader *L, smp_svalid *v)
{
	const smp_value *list = v->rules;
	smp_srule *r = smp_arena_alloc(L->a, list->u.list.len * sizeof(*r));

	if (!r)
		return ld_oom(L);
	memset(r, 0, list->u.list.len * sizeof(*r));
	v->crules = r;
	for (uint32_t i = 0; i < list->u.list.len; i++) {
		const smp_value *e = list->u.list.items[i], *x;
		cel_program *p = NULL;
		char msg[8];
		int rc;

		if (!e || e->type != SMP_MAP || !(x = mget(e, "rule")) || x->type != SMP_STRING)
			continue;
		if (!(r[v->ncrules].text = ld_str(L, x)))
			return ld_oom(L);
		rc = cel_compile(&p, x->u.s.ptr, x->u.s.len, msg, sizeof(msg));
		if (rc == -2)
			return ld_oom(L);
		r[v->ncrules].rule = p;
		r[v->ncrules].uses_old_self = p && cel_program_uses(p, "oldSelf");
		v->ncrules++; /* owned from here */
		if ((x = mget(e, "message")) && x->type == SMP_STRING &&
		    !(r[v->ncrules - 1].message = ld_str(L, x)))
			return ld_oom(L);
		if ((x = mget(e, "reason")) && x->type == SMP_STRING &&
		    !(r[v->ncrules - 1].reason = ld_str(L, x)))
			return ld_oom(L);
		if ((x = mget(e, "fieldPath")) && x->type == SMP_STRING &&
		    !(r[v->ncrules - 1].field_path = ld_str(L, x)))
			return ld_oom(L);
		if ((x = mget(e, "optionalOldSelf")) && x->type == SMP_BOOL)
			r[v->ncrules - 1].optional_old_self = x->u.b;
		if ((x = mget(e, "messageExpression")) && x->type == SMP_STRING) {
			rc = cel_compile(&p, x->u.s.ptr, x->u.s.len, msg, sizeof(msg));
			if (rc == -2)
				return ld_oom(L);
			r[v->ncrules - 1].message_expression = rc ? NULL : p;
			r[v->ncrules - 1].bad = rc != 0;
		}
	}
	return SMP_OK;
}

/* A CRD node's value validations into the side table (schema.h's
 * smp_svalid): nothing when it has none. Keys of the wrong type are
 * skipped (the server refuses such a CRD). */
static int node_validations(loader *L, smp_stype *t, const smp_value *n)
{
	static const struct { const char *key; uint32_t bit; size_t off; } counts[] = {
		{"maxLength", SMP_SV_MAX_LENGTH, offsetof(smp_svalid, max_length)},
		{"minLength", SMP_SV_MIN_LENGTH, offsetof(smp_svalid, min_length)},
		{"maxItems", SMP_SV_MAX_ITEMS, offsetof(smp_svalid, max_items)},
		{"minItems", SMP_SV_MIN_ITEMS, offsetof(smp_svalid, min_items)},
		{"maxProperties", SMP_SV_MAX_PROPS, offsetof(smp_svalid, max_props)},
		{"minProperties", SMP_SV_MIN_PROPS, offsetof(smp_svalid, min_props)},
	};
	static const char *const composition[] = {"allOf", "oneOf", "not"};
	smp_svalid v;
	const smp_value *x;
	bool any = false;

	memset(&v, 0, sizeof(v));
	v.type = t;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if ((x = mget(n, counts[i].key)) && x->type == SMP_INT) {
			*(int64_t *)((char *)&v + counts[i].off) = x->u.i;
			v.has |= counts[i].bit;
		}
	if ((x = mget(n, "exclusiveMaximum")) && x->type == SMP_BOOL && x->u.b)
		v.has |= SMP_SV_EXCL_MAX;
	if ((x = mget(n, "exclusiveMinimum")) && x->type == SMP_BOOL && x->u.b)
		v.has |= SMP_SV_EXCL_MIN;
	if ((x = mget(n, "uniqueItems")) && x->type == SMP_BOOL && x->u.b)
		v.has |= SMP_SV_UNIQUE;
	for (size_t i = 0; i < sizeof(composition) / sizeof(composition[0]); i++)
		if (mget(n, composition[i]))
			v.has |= SMP_SV_COMPOSITION;
	if ((x = mget(n, "anyOf")) && !int_or_string_anyof(x))
		v.has |= SMP_SV_COMPOSITION;
#define NUM(key, dst)                                                                   \
	if ((x = mget(n, key)) && (x->type == SMP_INT || x->type == SMP_FLOAT) &&        \
	    !(v.dst = smpv_copy(L->a, x)))                                                \
		return ld_oom(L);
	NUM("maximum", maximum)
	NUM("minimum", minimum)
	NUM("multipleOf", multiple_of)
#undef NUM
	if ((x = mget(n, "enum")) && x->type == SMP_LIST && x->u.list.len &&
	    !(v.enums = smpv_copy(L->a, x)))
		return ld_oom(L);
	if ((x = mget(n, "required")) && x->type == SMP_LIST && x->u.list.len &&
	    !(v.required = smpv_copy(L->a, x)))
		return ld_oom(L);
	if ((x = mget(n, "x-kubernetes-validations")) && x->type == SMP_LIST && x->u.list.len &&
	    !(v.rules = smpv_copy(L->a, x)))
		return ld_oom(L);
	if (v.rules) {
		int rc = compile_rules(L, &v);

		if (rc) {
			svalid_free(&v);
			return rc;
		}
	}
	v.format = supported_format(L, mget(n, "format"));
	if ((x = mget(n, "pattern")) && x->type == SMP_STRING && x->u.s.len &&
	    !memchr(x->u.s.ptr, '\0', x->u.s.len)) {
		smp_regex *re;
		char msg[8];
		int rc;

		if (!(v.pattern = ld_str(L, x))) {
			svalid_free(&v);
			return ld_oom(L);
		}
		rc = smp_regex_compile(&re, x->u.s.ptr, x->u.s.len, msg, sizeof(msg));
		if (rc == -2) {
			svalid_free(&v);
			return ld_oom(L);
		}
		if (rc)
			v.has |= SMP_SV_BAD_PATTERN;
		v.re = re;
	}
	any = v.has || v.maximum || v.minimum || v.multiple_of || v.enums || v.required ||
	      v.rules || v.format || v.pattern;
	if (!any)
		return SMP_OK;
	if (L->nvalids == L->capvalids) {
		size_t cap = L->capvalids ? 2 * L->capvalids : 16;
		smp_svalid *d = realloc(L->valids, cap * sizeof(*d));

		if (!d) {
			svalid_free(&v);
			return ld_oom(L);
		}
		L->valids = d;
		L->capvalids = cap;
	}
	L->valids[L->nvalids++] = v;
	return SMP_OK;
}

/* What the stored form of custom resources needs from a CRD or v3 node
 * (schema.h): nullable, an additionalProperties boolean, and a copy of a
 * non-null `default` in the side table. v2 documents and the merge engine
 * do not use them. Values of the wrong type are ignored here, as they were
 * before the loader read these keys. */
static int node_extras(loader *L, smp_stype *t, const smp_value *n)
{
	const smp_value *nv = mget(n, "nullable"), *ap = mget(n, "additionalProperties");
	const smp_value *dv = mget(n, "default");

	int rc;

	if (L->src == SRC_V2)
		return SMP_OK;
	if (L->src == SRC_CRD && (rc = node_validations(L, t, n)))
		return rc;
	if (nv && nv->type == SMP_BOOL && nv->u.b)
		t->flags |= SMP_SFLAG_NULLABLE;
	if (t->kind == SMP_SKIND_MAP && ap && ap->type == SMP_BOOL)
		t->flags |= SMP_SFLAG_AP_BOOL;
	if (!dv || dv->type == SMP_NULL)
		return SMP_OK;
	if (L->ndflts == L->capdflts) {
		size_t cap = L->capdflts ? 2 * L->capdflts : 16;
		smp_sdefault *d = realloc(L->dflts, cap * sizeof(*d));

		if (!d)
			return ld_oom(L);
		L->dflts = d;
		L->capdflts = cap;
	}
	L->dflts[L->ndflts].type = t;
	if (!(L->dflts[L->ndflts].value = smpv_copy(L->a, dv)))
		return ld_oom(L);
	L->ndflts++;
	return SMP_OK;
}

/* Fills t from a schema node that is not a reference. */
static int parse_into(loader *L, smp_stype *t, const smp_value *n)
{
	const smp_value *tv = mget(n, "type"), *props = mget(n, "properties");
	const char *tname = NULL, *format;
	ld_overlay own = {0};
	size_t old;
	int rc;

	t->flags |= L->tflags;
	if (tv) {
		if (tv->type == SMP_LIST && tv->u.list.len == 1)
			tv = tv->u.list.items[0];
		if (tv->type != SMP_STRING || memchr(tv->u.s.ptr, '\0', tv->u.s.len)) {
			old = ld_pushs(L, "type");
			if (tv->type == SMP_LIST)
				rc = ld_fail(L, tv, "a type list must hold exactly one type");
			else
				rc = ld_fail(L, tv, "type must be a string, not %s", vtype_name(tv));
			ld_pop(L, old);
			return rc;
		}
		if (!(tname = ld_str(L, tv)))
			return ld_oom(L);
	}
	if (props && props->type != SMP_MAP) {
		old = ld_pushs(L, "properties");
		rc = ld_fail(L, props, "properties must be a map, not %s", vtype_name(props));
		ld_pop(L, old);
		return rc;
	}
	if ((rc = get_str(L, n, "format", &format)))
		return rc;
	if ((rc = read_overlay(L, n, &own)))
		return rc;
	t->format = format;

	if (props && (!tname || strcmp(tname, "object") == 0)) {
		t->kind = SMP_SKIND_OBJECT;
		t->type_name = "object";
		if ((rc = parse_fields(L, t, props)))
			return rc;
	} else if (!tname) {
		if (own.set & SMP_SFLAG_INT_OR_STRING) {
			t->kind = SMP_SKIND_PRIMITIVE;
			t->type_name = "string";
		} else {
			t->kind = SMP_SKIND_ANY;
		}
	} else if (strcmp(tname, "object") == 0) {
		const smp_value *ap = mget(n, "additionalProperties");

		t->kind = SMP_SKIND_MAP;
		t->type_name = "object";
		if (ap && ap->type == SMP_MAP) {
			old = ld_pushs(L, "additionalProperties");
			rc = parse_type(L, ap, &t->elem);
			ld_pop(L, old);
			if (rc)
				return rc;
		} else if (!ap || ap->type == SMP_BOOL) {
			t->elem = L->any;
			t->flags |= SMP_SFLAG_NO_PROPERTIES;
		} else {
			old = ld_pushs(L, "additionalProperties");
			rc = ld_fail(L, ap, "additionalProperties must be a schema or a boolean, not %s",
			             vtype_name(ap));
			ld_pop(L, old);
			return rc;
		}
	} else if (strcmp(tname, "array") == 0) {
		const smp_value *items = mget(n, "items");

		t->kind = SMP_SKIND_LIST;
		t->type_name = "array";
		t->elem = L->any;
		old = ld_pushs(L, "items");
		if (items && items->type == SMP_LIST && items->u.list.len == 1) {
			ld_pushs(L, "0");
			items = items->u.list.items[0];
		}
		if (items && items->type == SMP_MAP)
			rc = parse_type(L, items, &t->elem);
		else if (items && L->src == SRC_V2)
			rc = ld_fail(L, items, "items must be a schema, not %s", vtype_name(items));
		else if (items && items->type != SMP_LIST)
			rc = ld_fail(L, items, "items must be a schema, not %s", vtype_name(items));
		ld_pop(L, old);
		if (rc)
			return rc;
	} else if (strcmp(tname, "string") == 0 || strcmp(tname, "integer") == 0 ||
	           strcmp(tname, "number") == 0 || strcmp(tname, "boolean") == 0) {
		t->kind = SMP_SKIND_PRIMITIVE;
		t->type_name = tname;
	} else if (L->src == SRC_V2) {
		old = ld_pushs(L, "type");
		rc = ld_fail(L, tv, "unknown type \"%s\"", tname);
		ld_pop(L, old);
		return rc;
	} else {
		t->kind = SMP_SKIND_ANY; /* v3 reads unknown types as arbitrary */
		t->type_name = tname;
	}
	apply_overlay(t, &own);
	if (format && strcmp(format, "int-or-string") == 0)
		t->flags |= SMP_SFLAG_INT_OR_STRING;
	if ((t->flags & SMP_SFLAG_INT_OR_STRING) && !t->format)
		t->format = "int-or-string";
	if ((rc = node_extras(L, t, n)))
		return rc;
	if ((t->flags & SMP_SFLAG_EMBEDDED) && L->src == SRC_CRD)
		return add_object_meta(L, t);
	return SMP_OK;
}

/* ---- collected definitions and kinds ---- */

static int add_def(loader *L, const char *name, const smp_stype *type)
{
	if (L->ndefs == L->capdefs) {
		size_t cap = L->capdefs ? 2 * L->capdefs : 64;
		smp_def_entry *d = realloc(L->defs, cap * sizeof(*d));

		if (!d)
			return ld_oom(L);
		L->defs = d;
		L->capdefs = cap;
	}
	L->defs[L->ndefs].name = name;
	L->defs[L->ndefs].type = type;
	L->ndefs++;
	return SMP_OK;
}

static int add_kind(loader *L, const char *group, const char *version, const char *kind,
                    const smp_stype *type, int namespaced)
{
	if (L->nkinds == L->capkinds) {
		size_t cap = L->capkinds ? 2 * L->capkinds : 64;
		smp_gvk_entry *k = realloc(L->kinds, cap * sizeof(*k));

		if (!k)
			return ld_oom(L);
		L->kinds = k;
		L->capkinds = cap;
	}
	L->kinds[L->nkinds].group = group;
	L->kinds[L->nkinds].version = version;
	L->kinds[L->nkinds].kind = kind;
	L->kinds[L->nkinds].type = type;
	L->kinds[L->nkinds].namespaced = (int8_t)namespaced;
	L->kinds[L->nkinds].resource = NULL;
	L->kinds[L->nkinds].kubectl_scheme = false;
	L->kinds[L->nkinds].storage_version = NULL;
	L->kinds[L->nkinds].status_subresource = false;
	L->kinds[L->nkinds].crd_schema = L->kinds[L->nkinds].cel_rules = false;
	L->kinds[L->nkinds].scale_spec = L->kinds[L->nkinds].scale_status = NULL;
	L->nkinds++;
	return SMP_OK;
}

static int cmp_def(const void *a, const void *b)
{
	return strcmp(((const smp_def_entry *)a)->name, ((const smp_def_entry *)b)->name);
}

/* Orders the entries of a side table (smp_sdefault, smp_svalid) by their
 * first member, the type's address. */
static int cmp_type_first(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const smp_stype *const *)a;
	uintptr_t y = (uintptr_t) * (const smp_stype *const *)b;

	return x < y ? -1 : x > y;
}

static int cmp_kind(const void *a, const void *b)
{
	const smp_gvk_entry *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	if (!c)
		c = strcmp(x->version, y->version);
	if (!c)
		c = strcmp(x->kind, y->kind);
	if (!c && x->type->name && y->type->name)
		c = strcmp(x->type->name, y->type->name);
	return c;
}

/* Reads {group, version, kind} (all strings; group may be absent). */
static int read_gvk(loader *L, const smp_value *m, const char **g, const char **v,
                    const char **k)
{
	int rc;

	if (m->type != SMP_MAP)
		return ld_fail(L, m, "x-kubernetes-group-version-kind entries must be maps, not %s",
		               vtype_name(m));
	if ((rc = get_str(L, m, "group", g)) || (rc = get_str(L, m, "version", v)) ||
	    (rc = get_str(L, m, "kind", k)))
		return rc;
	if (!*v || !*k)
		return ld_fail(L, m, "x-kubernetes-group-version-kind entry without %s",
		               *v ? "kind" : "version");
	if (!*g)
		*g = "";
	return SMP_OK;
}

static int def_kinds(loader *L, const smp_value *node, const smp_stype *type)
{
	const smp_value *gvk = mget(node, "x-kubernetes-group-version-kind");
	size_t old, n;
	int rc = SMP_OK;

	if (!gvk)
		return SMP_OK;
	old = ld_pushs(L, "x-kubernetes-group-version-kind");
	if (gvk->type == SMP_MAP) {
		const char *g, *v, *k;

		if (!(rc = read_gvk(L, gvk, &g, &v, &k)))
			rc = add_kind(L, g, v, k, type, -1);
	} else if (gvk->type == SMP_LIST) {
		n = gvk->u.list.len;
		for (size_t i = 0; i < n && !rc; i++) {
			const char *g, *v, *k;
			char idx[24];
			size_t o2;

			snprintf(idx, sizeof(idx), "%zu", i);
			o2 = ld_pushs(L, idx);
			if (!(rc = read_gvk(L, gvk->u.list.items[i], &g, &v, &k)))
				rc = add_kind(L, g, v, k, type, -1);
			ld_pop(L, o2);
		}
	} else {
		rc = ld_fail(L, gvk, "x-kubernetes-group-version-kind must be a list, not %s",
		             vtype_name(gvk));
	}
	ld_pop(L, old);
	return rc;
}

/* Scope from the document's paths: a kind is namespaced when some operation
 * on it has a path under /namespaces/{namespace}/, cluster-scoped when it
 * only has other paths. The resource name (plural) comes from the plain
 * paths of the kind's own group and version. Malformed paths are not schema
 * data: skipped. */
static int scope_from_paths(loader *L, const smp_value *paths)
{
	if (!paths || paths->type != SMP_MAP)
		return SMP_OK;
	for (size_t i = 0; i < paths->u.map.len; i++) {
		const smp_member *p = &paths->u.map.items[i];
		bool ns = strstr(p->key, "/namespaces/{namespace}/") != NULL;
		smp_path_res pr = {0};
		bool plain = smp_path_resource(p->key, p->klen, &pr);

		if (p->val->type != SMP_MAP)
			continue;
		for (size_t j = 0; j < p->val->u.map.len; j++) {
			const smp_value *gvk = mget(p->val->u.map.items[j].val,
			                            "x-kubernetes-group-version-kind");
			const smp_value *g = mget(gvk, "group"), *v = mget(gvk, "version"),
			                *k = mget(gvk, "kind");
			smp_gvk_entry key, *e;
			bool same_gv;

			if (!v || v->type != SMP_STRING || !k || k->type != SMP_STRING ||
			    (g && g->type != SMP_STRING))
				continue;
			key.group = g ? g->u.s.ptr : "";
			key.version = v->u.s.ptr;
			key.kind = k->u.s.ptr;
			key.type = &smp_stype_any; /* no name: compares on gvk only */
			e = bsearch(&key, L->kinds, L->nkinds, sizeof(key), cmp_kind);
			if (!e)
				continue;
			/* A subresource path of another group (pods/eviction is
			 * policy/v1 Eviction) does not name the kind's resource. */
			same_gv = plain && strlen(key.group) == pr.gl &&
			          memcmp(key.group, pr.g, pr.gl) == 0 &&
			          strlen(key.version) == pr.vl &&
			          memcmp(key.version, pr.v, pr.vl) == 0;
			/* bsearch may land on any of equal gvks; all share the scope */
			while (e > L->kinds && cmp_kind(e - 1, &key) == 0)
				e--;
			for (; e < L->kinds + L->nkinds && cmp_kind(e, &key) == 0; e++) {
				if (ns)
					e->namespaced = 1;
				else if (e->namespaced < 0)
					e->namespaced = 0;
				if (same_gv && !e->resource &&
				    !(e->resource = smp_arena_strndup(L->a, pr.r, pr.rl)))
					return ld_oom(L);
			}
		}
	}
	return SMP_OK;
}

/* ---- OpenAPI documents ---- */

/* The definitions map: every entry becomes a type. */
static int load_definitions(loader *L, const smp_value *defs)
{
	const smp_value *chain[LD_MAX_WRAP + 1];
	size_t n, cap, *stack = NULL;
	int rc = SMP_OK;

	if (defs->type != SMP_MAP)
		return ld_fail(L, defs, "the definitions must be a map, not %s", vtype_name(defs));
	n = defs->u.map.len;
	if (n >= UINT32_MAX / 4)
		return smp_err_set(L->err, SMP_ELIMIT, L->file, 0, 0, NULL, "too many definitions");
	L->slots = calloc(n ? n : 1, sizeof(*L->slots));
	for (cap = 16; cap < 2 * n; cap *= 2)
		;
	L->htab = calloc(cap, sizeof(*L->htab));
	stack = malloc((n ? n : 1) * sizeof(*stack));
	if (!L->slots || !L->htab || !stack) {
		rc = ld_oom(L);
		goto out;
	}
	L->hmask = cap - 1;
	L->nslots = n;

	/* Every definition gets its type first, so a $ref is a pointer. */
	for (size_t i = 0; i < n; i++) {
		const smp_member *m = &defs->u.map.items[i];
		ld_slot *s = &L->slots[i];
		size_t h = (size_t)smp_hash_bytes(m->key, m->klen) & L->hmask;

		s->nlen = m->klen;
		s->node = m->val;
		if (!(s->name = smp_arena_strndup(L->a, m->key, m->klen)) ||
		    !(s->type = ld_new_type(L))) {
			rc = ld_oom(L);
			goto out;
		}
		s->type->name = s->name;
		while (L->htab[h])
			h = (h + 1) & L->hmask;
		L->htab[h] = (uint32_t)(i + 1);
	}

	/* Fill the real types; note the definitions that are only references. */
	for (size_t i = 0; i < n; i++) {
		ld_slot *s = &L->slots[i];
		size_t old = ld_push(L, s->name, s->nlen), nchain;
		ld_overlay ov = {0};

		if (s->node->type != SMP_MAP) {
			rc = ld_fail(L, s->node, "definition \"%s\" must be a map, not %s", s->name,
			             vtype_name(s->node));
			goto out;
		}
		if ((rc = unwrap(L, s->node, chain, &nchain)))
			goto out;
		s->inner = chain[nchain - 1];
		if (mget(s->inner, "$ref")) {
			s->alias = true;
			if ((rc = resolve_ref(L, mget(s->inner, "$ref"), &s->target)))
				goto out;
		} else {
			if ((rc = parse_into(L, s->type, s->inner)))
				goto out;
			for (size_t j = nchain - 1; j-- > 0;)
				if ((rc = read_overlay(L, chain[j], &ov)))
					goto out;
			apply_overlay(s->type, &ov);
			s->type->name = s->name;
			s->state = ST_DONE;
			if (s->type->kind == SMP_SKIND_PRIMITIVE && !s->type->format &&
			    strcmp(s->name, "io.k8s.apimachinery.pkg.api.resource.Quantity") == 0)
				s->type->format = "quantity";
		}
		if ((rc = def_kinds(L, s->node, s->type)))
			goto out;
		ld_pop(L, old);
	}

	/* Reference-only definitions: copy their targets, deepest first. */
	for (size_t i = 0; i < n; i++) {
		size_t cur = i, depth = 0;

		while (L->slots[cur].alias && L->slots[cur].state != ST_DONE) {
			if (L->slots[cur].state == ST_BUSY) {
				char cyc[256];
				size_t len = 0, from = depth;

				while (from > 0 && stack[from - 1] != cur)
					from--;
				for (size_t j = from ? from - 1 : 0; j < depth && len < sizeof(cyc) - 1; j++)
					len += (size_t)snprintf(cyc + len, sizeof(cyc) - len, "%s -> ",
					                        L->slots[stack[j]].name);
				if (len < sizeof(cyc) - 1)
					snprintf(cyc + len, sizeof(cyc) - len, "%s", L->slots[cur].name);
				ld_push(L, L->slots[cur].name, L->slots[cur].nlen);
				rc = ld_fail(L, L->slots[cur].inner,
				             "$ref cycle never reaches a type: %s", cyc);
				goto out;
			}
			L->slots[cur].state = ST_BUSY;
			stack[depth++] = cur;
			cur = L->slots[cur].target;
		}
		while (depth > 0) {
			ld_slot *s = &L->slots[stack[--depth]];
			ld_fixup f = { s->type, L->slots[s->target].type, s->name, {0} };
			size_t old = ld_push(L, s->name, s->nlen), nchain;

			if ((rc = unwrap(L, s->node, chain, &nchain)))
				goto out;
			for (size_t j = nchain; j-- > 0;)
				if ((rc = read_overlay(L, chain[j], &f.ov)))
					goto out;
			ld_pop(L, old);
			run_fixup(&f);
			s->state = ST_DONE;
		}
	}
	/* Overlaid references, now that every definition is final. */
	for (size_t i = 0; i < L->nfix; i++)
		run_fixup(&L->fix[i]);
	for (size_t i = 0; i < n; i++)
		if ((rc = add_def(L, L->slots[i].name, L->slots[i].type)))
			goto out;
out:
	free(stack);
	return rc;
}

static int load_openapi(loader *L, const smp_value *root)
{
	const smp_value *defs;
	int rc;

	if (L->src == SRC_V2) {
		defs = mget(root, "definitions");
		L->prefix = "#/definitions/";
		ld_pushs(L, "definitions");
	} else {
		const smp_value *comp = mget(root, "components");

		if (comp && comp->type != SMP_MAP) {
			ld_pushs(L, "components");
			return ld_fail(L, comp, "components must be a map, not %s", vtype_name(comp));
		}
		defs = mget(comp, "schemas");
		L->prefix = "#/components/schemas/";
		ld_pushs(L, "components");
		ld_pushs(L, "schemas");
	}
	if (defs && (rc = load_definitions(L, defs)))
		return rc;
	ld_pop(L, 0);
	if (L->nkinds) {
		qsort(L->kinds, L->nkinds, sizeof(*L->kinds), cmp_kind);
		if ((rc = scope_from_paths(L, mget(root, "paths"))))
			return rc;
	}
	return SMP_OK;
}

/* ---- CustomResourceDefinitions ---- */

/* "stable.example.com" -> "com.example.stable", as the API server names
 * CRD definitions. */
static char *reverse_group(loader *L, const char *g)
{
	size_t len = strlen(g), n = 0, end = len;
	char *out = smp_arena_alloc(L->a, len + 1);

	if (!out)
		return NULL;
	while (end > 0) {
		size_t start = end;

		while (start > 0 && g[start - 1] != '.')
			start--;
		if (n)
			out[n++] = '.';
		memcpy(out + n, g + start, end - start);
		n += end - start;
		end = start ? start - 1 : 0;
	}
	out[n] = '\0';
	return out;
}

static int crd_version(loader *L, const char *group, const char *kind, int namespaced,
                       const char *version, const smp_value *schema)
{
	const smp_stype *root = NULL;
	smp_stype *t;
	const char *rg;
	char *name;
	size_t len, nv = L->nvalids;
	bool rules = false;
	int rc;

	if (!(rg = reverse_group(L, group)))
		return ld_oom(L);
	len = strlen(rg) + strlen(version) + strlen(kind) + 3;
	if (!(name = smp_arena_alloc(L->a, len)))
		return ld_oom(L);
	snprintf(name, len, "%s%s%s.%s", rg, rg[0] ? "." : "", version, kind);
	if (schema) {
		if ((rc = parse_type(L, schema, &root)))
			return rc;
		t = (smp_stype *)root; /* CRD schemas have no $ref: the type is ours */
	} else {
		if (!(t = ld_new_type(L)))
			return ld_oom(L);
		t->kind = SMP_SKIND_ANY;
		t->flags |= SMP_SFLAG_PRESERVE_UNKNOWN;
	}
	t->name = name;
	if ((rc = add_object_meta(L, t)))
		return rc;
	if ((rc = add_def(L, name, t)))
		return rc;
	for (size_t i = nv; i < L->nvalids; i++)
		rules |= L->valids[i].rules != NULL;
	if ((rc = add_kind(L, group, version, kind, t, namespaced)))
		return rc;
	L->kinds[L->nkinds - 1].crd_schema = schema != NULL;
	L->kinds[L->nkinds - 1].cel_rules = rules;
	return SMP_OK;
}

/* The scale subresource of a CRD version (or of the whole v1beta1 CRD):
 * its replicas paths on the version's kind. */
static int crd_scale(loader *L, const smp_value *sub)
{
	const smp_value *sc = mget(mget(sub, "subresources"), "scale");
	const smp_value *sp = mget(sc, "specReplicasPath"), *st = mget(sc, "statusReplicasPath");
	smp_gvk_entry *e = &L->kinds[L->nkinds - 1];

	if (!sc)
		return SMP_OK;
	if ((sp && sp->type == SMP_STRING && !(e->scale_spec = ld_str(L, sp))) ||
	    (st && st->type == SMP_STRING && !(e->scale_status = ld_str(L, st))))
		return ld_oom(L);
	return SMP_OK;
}

/* A CustomResourceDefinition: its group, kind, scope and plural, and
 * for each version its openAPIV3Schema (or the CRD-wide one of v1beta1)
 * loaded as a kind. */
static int load_crd(loader *L, const smp_value *crd)
{
	const smp_value *spec = mget(crd, "spec"), *versions, *names, *schema = NULL;
	const char *group, *kind, *scope, *version, *plural = NULL, *storage = NULL;
	size_t old = L->pathlen, first = L->nkinds;
	int namespaced = -1, rc;

	if (!spec || spec->type != SMP_MAP)
		return ld_fail(L, crd, "CustomResourceDefinition without a spec map");
	ld_pushs(L, "spec");
	if ((rc = get_str(L, spec, "group", &group)) || (rc = get_str(L, spec, "scope", &scope)))
		return rc;
	names = mget(spec, "names");
	{
		size_t o2 = ld_pushs(L, "names");

		rc = get_str(L, names, "kind", &kind);
		if (!rc)
			rc = get_str(L, names, "plural", &plural);
		ld_pop(L, o2);
		if (rc)
			return rc;
	}
	if (!group || !kind)
		return ld_fail(L, spec, "CustomResourceDefinition without spec.%s",
		               group ? "names.kind" : "group");
	if (scope)
		namespaced = strcmp(scope, "Namespaced") == 0 ? 1 :
		             strcmp(scope, "Cluster") == 0 ? 0 : -1;
	/* v1beta1: one schema for all versions, under spec.validation. */
	schema = mget(mget(spec, "validation"), "openAPIV3Schema");
	versions = mget(spec, "versions");
	if (versions && versions->type == SMP_LIST && versions->u.list.len) {
		ld_pushs(L, "versions");
		for (size_t i = 0; i < versions->u.list.len; i++) {
			const smp_value *v = versions->u.list.items[i], *vs, *served;
			char idx[24];
			size_t o2;

			snprintf(idx, sizeof(idx), "%zu", i);
			o2 = ld_pushs(L, idx);
			if (v->type != SMP_MAP)
				return ld_fail(L, v, "a version must be a map, not %s", vtype_name(v));
			if ((rc = get_str(L, v, "name", &version)))
				return rc;
			if (!version)
				return ld_fail(L, v, "version without a name");
			served = mget(v, "served");
			if (served && served->type == SMP_BOOL && !served->u.b) {
				ld_pop(L, o2);
				continue;
			}
			if ((mget(v, "storage") && mget(v, "storage")->type == SMP_BOOL && mget(v, "storage")->u.b))
				storage = version;
			vs = mget(mget(v, "schema"), "openAPIV3Schema");
			ld_pushs(L, "schema");
			ld_pushs(L, "openAPIV3Schema");
			if ((rc = crd_version(L, group, kind, namespaced, version, vs ? vs : schema)))
				return rc;
			L->kinds[L->nkinds - 1].status_subresource =
				mget(mget(v, "subresources"), "status") ||
				mget(mget(spec, "subresources"), "status");
			if ((rc = crd_scale(L, mget(mget(v, "subresources"), "scale") ? v : spec)))
				return rc;
			ld_pop(L, o2);
		}
	} else if (versions && versions->type != SMP_LIST) {
		ld_pushs(L, "versions");
		return ld_fail(L, versions, "versions must be a list, not %s", vtype_name(versions));
	} else {
		if ((rc = get_str(L, spec, "version", &version)))
			return rc;
		if (!version)
			return ld_fail(L, spec, "CustomResourceDefinition without versions");
		ld_pushs(L, "validation");
		ld_pushs(L, "openAPIV3Schema");
		if ((rc = crd_version(L, group, kind, namespaced, version, schema)))
			return rc;
		L->kinds[L->nkinds - 1].status_subresource =
			mget(mget(spec, "subresources"), "status") != NULL;
		if ((rc = crd_scale(L, spec)))
			return rc;
	}
	for (size_t i = first; i < L->nkinds; i++) {
		L->kinds[i].resource = plural;
		L->kinds[i].storage_version = storage;
	}
	ld_pop(L, old);
	return SMP_OK;
}

static bool is_kind(const smp_value *root, const char *kind)
{
	const smp_value *k = mget(root, "kind");

	return k && smpv_is_str(k, kind);
}

/* One document of a schema input: an OpenAPI v2 (definitions) or v3
 * (components.schemas) document, a CRD, or a List of CRDs. */
static int load_doc(loader *L, const smp_doc *doc)
{
	const smp_value *root = doc->nroots ? doc->roots[0] : NULL;
	int rc;

	if (!root)
		return smp_err_set(L->err, SMP_ESCHEMA, L->file, 0, 0, NULL,
		                   "empty schema document");
	if (root->type == SMP_MAP && (mget(root, "swagger") || mget(root, "openapi") ||
	                              mget(root, "definitions") || mget(root, "components"))) {
		if (doc->nroots > 1)
			return smp_err_set(L->err, SMP_ESCHEMA, L->file, doc->roots[1]->line,
			                   doc->roots[1]->col, NULL,
			                   "more than one document in an OpenAPI file");
		L->src = mget(root, "swagger") || (!mget(root, "openapi") && mget(root, "definitions")) ?
		         SRC_V2 : SRC_V3;
		return load_openapi(L, root);
	}
	L->src = SRC_CRD;
	for (size_t i = 0; i < doc->nroots; i++) {
		const smp_value *r = doc->roots[i];
		char idx[24];

		snprintf(idx, sizeof(idx), "%zu", i);
		ld_pop(L, 0);
		if (doc->nroots > 1)
			ld_pushs(L, idx);
		if (is_kind(r, "List") && mget(r, "items") && mget(r, "items")->type == SMP_LIST) {
			const smp_value *items = mget(r, "items");

			ld_pushs(L, "items");
			for (size_t j = 0; j < items->u.list.len; j++) {
				size_t old;

				snprintf(idx, sizeof(idx), "%zu", j);
				old = ld_pushs(L, idx);
				if (!is_kind(items->u.list.items[j], "CustomResourceDefinition"))
					return ld_fail(L, items->u.list.items[j],
					               "not a CustomResourceDefinition");
				if ((rc = load_crd(L, items->u.list.items[j])))
					return rc;
				ld_pop(L, old);
			}
		} else if (is_kind(r, "CustomResourceDefinition")) {
			if ((rc = load_crd(L, r)))
				return rc;
		} else {
			return ld_fail(L, r, "not an OpenAPI v2 or v3 document or a CustomResourceDefinition");
		}
	}
	ld_pop(L, 0);
	if (L->nkinds)
		qsort(L->kinds, L->nkinds, sizeof(*L->kinds), cmp_kind);
	return SMP_OK;
}

/* Copies the collected, sorted tables into the arena; drops duplicate
 * kinds (the first definition in name order wins) and definitions. */
static int finish(loader *L)
{
	smp_def_entry *defs;
	smp_gvk_entry *kinds;
	size_t nd = 0, nk = 0;

	if (L->ndefs)
		qsort(L->defs, L->ndefs, sizeof(*L->defs), cmp_def);
	defs = smp_arena_alloc(L->a, (L->ndefs ? L->ndefs : 1) * sizeof(*defs));
	kinds = smp_arena_alloc(L->a, (L->nkinds ? L->nkinds : 1) * sizeof(*kinds));
	if (!defs || !kinds)
		return ld_oom(L);
	for (size_t i = 0; i < L->ndefs; i++) {
		if (nd && strcmp(defs[nd - 1].name, L->defs[i].name) == 0)
			return smp_err_set(L->err, SMP_ESCHEMA, L->file, 0, 0, NULL,
			                   "definition \"%s\" is defined twice", L->defs[i].name);
		defs[nd++] = L->defs[i];
	}
	for (size_t i = 0; i < L->nkinds; i++) {
		const smp_gvk_entry *p = nk ? &kinds[nk - 1] : NULL, *e = &L->kinds[i];

		if (p && !strcmp(p->group, e->group) && !strcmp(p->version, e->version) &&
		    !strcmp(p->kind, e->kind))
			continue;
		kinds[nk++] = *e;
	}
	L->s->defs = defs;
	L->s->ndefs = nd;
	L->s->kinds = kinds;
	L->s->nkinds = nk;
	if (L->ndflts) {
		smp_sdefault *d = smp_arena_alloc(L->a, L->ndflts * sizeof(*d));

		if (!d)
			return ld_oom(L);
		memcpy(d, L->dflts, L->ndflts * sizeof(*d));
		qsort(d, L->ndflts, sizeof(*d), cmp_type_first);
		L->s->defaults = d;
		L->s->ndefaults = L->ndflts;
	}
	if (L->nvalids) {
		/* the schema owns the regexes from here on */
		smp_svalid *v = smp_arena_alloc(L->a, L->nvalids * sizeof(*v));

		if (!v)
			return ld_oom(L);
		memcpy(v, L->valids, L->nvalids * sizeof(*v));
		qsort(v, L->nvalids, sizeof(*v), cmp_type_first);
		L->s->valids = v;
		L->s->nvalids = L->nvalids;
		L->nvalids = 0;
	}
	return SMP_OK;
}

static int parse_any(smp_doc **doc, const char *buf, size_t len, const char *file,
                     smp_error *err)
{
	smp_parse_options opts = SMP_PARSE_OPTIONS_INIT;
	size_t i = 0;
	int rc;

	opts.filename = file;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	if (i < len && buf[i] == '{') {
		/* Strict JSON is the fast path; YAML accepts what Go's YAML-based
		 * readers accept too (a trailing comma, comments). */
		opts.format = SMP_FORMAT_JSON;
		rc = smp_doc_parse(doc, buf, len, &opts, err);
		if (rc != SMP_EPARSE)
			return rc;
		opts.format = SMP_FORMAT_YAML;
		{
			smp_error e2;

			rc = smp_doc_parse(doc, buf, len, &opts, &e2);
			if (rc && rc != SMP_EPARSE && err) /* e.g. ENOMEM: err must match rc */
				*err = e2;
		}
		return rc;
	}
	opts.format = SMP_FORMAT_YAML;
	return smp_doc_parse(doc, buf, len, &opts, err);
}

int smp_schema_load(smp_schema **out, const char *buf, size_t len,
                    const char *filename, smp_error *err)
{
	loader L;
	smp_doc *doc = NULL;
	smp_stype *any_v3;
	int rc;

	if (out)
		*out = NULL;
	if (!out || (!buf && len))
		return smp__err(err, SMP_EINVAL, "smp_schema_load: NULL argument");
	memset(&L, 0, sizeof(L));
	L.err = err;
	L.file = filename ? filename : "<schema>";
	if ((rc = parse_any(&doc, buf ? buf : "", len, L.file, err)))
		return rc;
	if (!(L.s = calloc(1, sizeof(*L.s)))) {
		rc = ld_oom(&L);
		goto out;
	}
	smp_arena_init(&L.s->arena);
	L.s->owned = true;
	L.a = &L.s->arena;
	L.any = &smp_stype_any;
	/* Decide the source first: v3 and CRD types carry a flag. */
	if (doc->nroots && doc->roots[0]->type == SMP_MAP && !mget(doc->roots[0], "swagger") &&
	    (mget(doc->roots[0], "openapi") || !mget(doc->roots[0], "definitions"))) {
		if (!(any_v3 = ld_new_type(&L))) {
			rc = ld_oom(&L);
			goto out;
		}
		any_v3->flags = SMP_SFLAG_OPENAPI_V3;
		L.any = any_v3;
		L.tflags = SMP_SFLAG_OPENAPI_V3;
	}
	if ((rc = load_doc(&L, doc)))
		goto out;
	if ((rc = finish(&L)))
		goto out;
	*out = L.s;
	L.s = NULL;
out:
	smp_schema_free(L.s);
	smp_doc_free(doc);
	free(L.slots);
	free(L.htab);
	free(L.fix);
	free(L.defs);
	free(L.kinds);
	free(L.dflts);
	for (size_t i = 0; i < L.nvalids; i++)
		svalid_free(&L.valids[i]);
	free(L.valids);
	return rc;
}

int smp_schema_load_file(smp_schema **out, const char *path, smp_error *err)
{
	FILE *f = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !path)
		return smp__err(err, SMP_EINVAL, "smp_schema_load_file: NULL argument");
	f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f)
		return smp_err_set(err, SMP_EIO, path, 0, 0, NULL, "cannot open: %s",
		                   strerror(errno));
	for (;;) {
		size_t got;

		if (len == cap) {
			size_t ncap = cap ? 2 * cap : 65536;
			char *nb;

			if (ncap > SMP_DEFAULT_MAX_BYTES + 1)
				ncap = SMP_DEFAULT_MAX_BYTES + 1;
			if (len == ncap) {
				rc = smp_err_set(err, SMP_ELIMIT, path, 0, 0, NULL,
				                 "schema file larger than %zu bytes",
				                 (size_t)SMP_DEFAULT_MAX_BYTES);
				goto out;
			}
			if (!(nb = realloc(buf, ncap))) {
				rc = smp_err_set(err, SMP_ENOMEM, path, 0, 0, NULL, "out of memory");
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f)) {
				rc = smp_err_set(err, SMP_EIO, path, 0, 0, NULL, "read error: %s",
				                 strerror(errno));
				goto out;
			}
			break;
		}
	}
	rc = smp_schema_load(out, buf, len, strcmp(path, "-") == 0 ? "<stdin>" : path, err);
out:
	if (f && f != stdin)
		fclose(f);
	free(buf);
	return rc;
}
