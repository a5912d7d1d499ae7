/*
 * schema.c - lookups over a schema: kinds, definitions, fields.
 *
 * The same code serves the static built-in tables and loaded schemas: both
 * keep kinds sorted by (group, version, kind), definitions and fields sorted
 * by name, so every lookup is a binary search.
 */
#include "schema/schema.h"
#include "regex/regex.h"
#include "cel/cel.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const smp_stype smp_stype_any = { .kind = SMP_SKIND_ANY };
const smp_stype smp_stype_implicit_string = {
	.kind = SMP_SKIND_PRIMITIVE, .type_name = "string"
};

const smp_schema *smp_schema_builtin(void)
{
	return &smp_builtin_schema;
}

void smp_schema_free(smp_schema *schema)
{
	if (!schema || !schema->owned)
		return;
	for (size_t i = 0; i < schema->nvalids; i++) {
		smp_regex_free((smp_regex *)schema->valids[i].re);
		for (uint32_t j = 0; j < schema->valids[i].ncrules; j++) {
			cel_program_free((cel_program *)schema->valids[i].crules[j].rule);
			cel_program_free((cel_program *)schema->valids[i].crules[j].message_expression);
		}
	}
	smp_arena_release(&schema->arena);
	free(schema);
}

/* Compares `len` bytes of a (no NUL inside) with the C string b, in
 * strcmp order. */
int smp_name_cmp(const char *a, size_t len, const char *b)
{
	/* Byte by byte: names are short, and this is the typed walks' inner
	 * loop (a strlen and a memcmp call cost more). The order is
	 * memcmp's, then the shorter first; b's NUL ends b. */
	for (size_t i = 0; i < len; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

		if (!y)
			return 1;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return b[len] ? -1 : 0;
}

const smp_sfield *smp_stype_field(const smp_stype *t, const char *name, size_t len)
{
	size_t lo = 0, hi;

	if (!t || t->kind != SMP_SKIND_OBJECT || !name)
		return NULL;
	hi = t->nfields;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = smp_name_cmp(name, len, t->fields[mid].name);

		if (c == 0)
			return &t->fields[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The entry for type t in a side table sorted by type address (the
 * type's pointer is the entry's first member): binary search, NULL when
 * none. */
static const void *side_find(const void *base, size_t n, size_t size, const smp_stype *t)
{
	size_t lo = 0, hi = n;
	uintptr_t key = (uintptr_t)t;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *at = (const char *)base + mid * size;
		uintptr_t k = (uintptr_t) * (const smp_stype *const *)at;

		if (k == key)
			return at;
		if (key < k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const smp_svalid *smp_stype_valid(const smp_schema *s, const smp_stype *t)
{
	return s && t ? side_find(s->valids, s->nvalids, sizeof(*s->valids), t) : NULL;
}

const smp_value *smp_stype_default(const smp_schema *s, const smp_stype *t)
{
	const smp_sdefault *d = s && t ? side_find(s->defaults, s->ndefaults,
	                                           sizeof(*s->defaults), t)
	                               : NULL;

	return d ? d->value : NULL;
}

void smp_split_api_version(const char *api_version, const char **group,
                           size_t *glen, const char **version, size_t *vlen)
{
	const char *slash = api_version ? strrchr(api_version, '/') : NULL;

	if (!api_version) {
		*group = *version = "";
		*glen = *vlen = 0;
	} else if (!slash) {
		*group = "";
		*glen = 0;
		*version = api_version;
		*vlen = strlen(api_version);
	} else {
		*group = api_version;
		*glen = (size_t)(slash - api_version);
		*version = slash + 1;
		*vlen = strlen(slash + 1);
	}
}

/* Orders kind entries against (group, version, kind); version NULL compares
 * only the group. */
static int cmp_gvk(const smp_gvk_entry *e, const char *g, size_t glen,
                   const char *v, size_t vlen, const char *k)
{
	int c = -smp_name_cmp(g, glen, e->group);

	if (c || !v)
		return c;
	c = -smp_name_cmp(v, vlen, e->version);
	if (c || !k)
		return c;
	return strcmp(e->kind, k);
}

/* First index whose entry is not below (g, v, k). */
static size_t lower_bound(const smp_schema *s, const char *g, size_t glen,
                          const char *v, size_t vlen, const char *k)
{
	size_t lo = 0, hi = s->nkinds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_gvk(&s->kinds[mid], g, glen, v, vlen, k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const smp_gvk_entry *smp_schema_find_kind(const smp_schema *s, const char *api_version,
                                          const char *kind, bool exact_version)
{
	const char *g, *v;
	size_t glen, vlen, i;

	if (!s || !api_version || !kind)
		return NULL;
	smp_split_api_version(api_version, &g, &glen, &v, &vlen);
	i = lower_bound(s, g, glen, v, vlen, kind);
	if (i < s->nkinds && cmp_gvk(&s->kinds[i], g, glen, v, vlen, kind) == 0)
		return &s->kinds[i];
	if (exact_version)
		return NULL;
	/* Any version of the group: the group's range is contiguous. */
	for (i = lower_bound(s, g, glen, NULL, 0, NULL);
	     i < s->nkinds && cmp_gvk(&s->kinds[i], g, glen, NULL, 0, NULL) == 0; i++)
		if (strcmp(s->kinds[i].kind, kind) == 0)
			return &s->kinds[i];
	return NULL;
}

int smp_schema_kind(const smp_stype **out, const smp_schema *schema,
                    const char *api_version, const char *kind, smp_error *err)
{
	const smp_gvk_entry *e;

	if (out)
		*out = NULL;
	if (!out || !schema || !api_version || !kind)
		return smp__err(err, SMP_EINVAL, "smp_schema_kind: NULL argument");
	e = smp_schema_find_kind(schema, api_version, kind, true);
	if (!e) {
		const smp_gvk_entry *other = smp_schema_find_kind(schema, api_version, kind, false);

		if (other)
			return smp__err(err, SMP_ESCHEMA,
			                "unknown kind %s in apiVersion %s (the schema has %s%s%s)",
			                kind, api_version, other->group,
			                other->group[0] ? "/" : "", other->version);
		return smp__err(err, SMP_ESCHEMA,
		                "unknown kind %s in apiVersion %s", kind, api_version);
	}
	*out = e->type;
	return SMP_OK;
}

int smp_schema_definition(const smp_stype **out, const smp_schema *schema,
                          const char *name, smp_error *err)
{
	size_t lo = 0, hi;

	if (out)
		*out = NULL;
	if (!out || !schema || !name)
		return smp__err(err, SMP_EINVAL, "smp_schema_definition: NULL argument");
	hi = schema->ndefs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, schema->defs[mid].name);

		if (c == 0) {
			*out = schema->defs[mid].type;
			return SMP_OK;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return smp__err(err, SMP_ESCHEMA, "unknown definition \"%s\"", name);
}

bool smp_schema_kind_namespaced(const smp_schema *schema, const char *api_version,
                                const char *kind, bool *known)
{
	const smp_gvk_entry *e = smp_schema_find_kind(schema, api_version, kind, true);

	if (known)
		*known = e && e->namespaced >= 0;
	return e && e->namespaced > 0;
}

const char *smp_schema_kind_resource(const smp_schema *schema, const char *api_version,
                                     const char *kind)
{
	const smp_gvk_entry *e = smp_schema_find_kind(schema, api_version, kind, true);
	const char *g, *v;
	size_t glen, vlen;

	if (e && e->resource)
		return e->resource;
	if (!schema || !api_version || !kind)
		return NULL;
	/* Another version of the group: the resource name is the same. */
	smp_split_api_version(api_version, &g, &glen, &v, &vlen);
	for (size_t i = lower_bound(schema, g, glen, NULL, 0, NULL);
	     i < schema->nkinds && cmp_gvk(&schema->kinds[i], g, glen, NULL, 0, NULL) == 0; i++)
		if (schema->kinds[i].resource && strcmp(schema->kinds[i].kind, kind) == 0)
			return schema->kinds[i].resource;
	return NULL;
}

/* Splits a Kubernetes version "v<major>[(alpha|beta)<minor>]": rank 3 GA,
 * 2 beta, 1 alpha, 0 not such a version. */
static int kube_version(const char *v, unsigned long *major, unsigned long *minor)
{
	char *end;

	*major = *minor = 0;
	if (v[0] != 'v' || !isdigit((unsigned char)v[1]))
		return 0;
	*major = strtoul(v + 1, &end, 10);
	if (!*end)
		return 3;
	for (int rank = 2; rank >= 1; rank--) {
		const char *word = rank == 2 ? "beta" : "alpha";
		size_t n = strlen(word);

		if (strncmp(end, word, n) == 0 && isdigit((unsigned char)end[n])) {
			char *e2;

			*minor = strtoul(end + n, &e2, 10);
			return *e2 ? 0 : rank;
		}
	}
	return 0;
}

int smp_version_priority(const char *a, const char *b)
{
	unsigned long ma, na, mb, nb;
	int ra = kube_version(a, &ma, &na), rb = kube_version(b, &mb, &nb);

	if (ra != rb)
		return ra > rb ? 1 : -1;
	if (ra == 0)
		return -strcmp(a, b);
	if (ma != mb)
		return ma > mb ? 1 : -1;
	if (na != nb)
		return na > nb ? 1 : -1;
	return 0;
}

const smp_gvk_entry *smp_schema_find_resource(const smp_schema *s, const char *group,
                                              const char *resource)
{
	const smp_gvk_entry *best = NULL;
	size_t glen = strlen(group);

	if (!s || !resource || !*resource)
		return NULL;
	for (size_t i = lower_bound(s, group, glen, NULL, 0, NULL);
	     i < s->nkinds && cmp_gvk(&s->kinds[i], group, glen, NULL, 0, NULL) == 0; i++) {
		const smp_gvk_entry *e = &s->kinds[i];

		if (!(e->resource && strcasecmp(e->resource, resource) == 0) &&
		    strcasecmp(e->kind, resource) != 0)
			continue;
		if (!best || smp_version_priority(e->version, best->version) > 0)
			best = e;
	}
	return best;
}

unsigned smp_strategy_parse(const char *s, size_t len, bool *ok)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{"merge", SMP_STRATEGY_MERGE},
		{"replace", SMP_STRATEGY_REPLACE},
		{"retainKeys", SMP_STRATEGY_RETAIN_KEYS},
	};
	unsigned bits = 0;
	size_t i = 0;

	*ok = false;
	while (i <= len) {
		size_t j = i, n;
		bool found = false;

		while (j < len && s[j] != ',')
			j++;
		for (n = 0; n < sizeof(names) / sizeof(names[0]); n++)
			if (strlen(names[n].name) == j - i &&
			    memcmp(names[n].name, s + i, j - i) == 0) {
				bits |= names[n].bit;
				found = true;
			}
		if (!found)
			return 0;
		i = j + 1;
	}
	*ok = true;
	return bits;
}

static const char *type_word(const smp_stype *t)
{
	switch (t->kind) {
	case SMP_SKIND_OBJECT:
		return "object";
	case SMP_SKIND_MAP:
		return "map";
	case SMP_SKIND_LIST:
		return "array";
	case SMP_SKIND_PRIMITIVE:
		return t->type_name ? t->type_name : "any";
	default:
		return "any";
	}
}

static void fill_info(smp_field_info *out, const char *path, const smp_sfield *f,
                      const smp_stype *t)
{
	out->path = path;
	out->type = type_word(t);
	out->strategy = f ? f->strategy : 0;
	out->merge_key = f ? f->merge_key : NULL;
	out->list_type = t->list_type;
	out->list_map_keys = t->list_map_keys;
	out->map_type = t->map_type;
	out->format = t->format;
	out->preserve_unknown = (t->flags & SMP_SFLAG_PRESERVE_UNKNOWN) != 0;
	out->stype = t;
}

int smp_schema_field(smp_field_info *out, const smp_stype *root,
                     const char *dotted_path, smp_error *err)
{
	const smp_stype *t = root;
	const smp_sfield *f = NULL;
	const char *p = dotted_path ? dotted_path : "";

	if (out)
		memset(out, 0, sizeof(*out));
	if (!out || !root)
		return smp__err(err, SMP_EINVAL, "smp_schema_field: NULL argument");
	while (*p) {
		const char *end = strchr(p, '.');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t done = (size_t)(p - dotted_path) + len;

		if (len == 0)
			return smp__err_path(err, SMP_EINVAL, dotted_path,
			                     "empty segment in field path \"%s\"", dotted_path);
		/* Lists are stepped through: a field path names no index. A list
		 * may hold itself (items: {$ref: self}), so the steps are bounded. */
		for (int steps = 0; t->kind == SMP_SKIND_LIST; steps++) {
			if (steps == 64)
				return smp__err(err, SMP_ESCHEMA,
				                "field \"%.*s\" does not exist: lists nest without end (at %.*s)",
				                (int)len, p, (int)done, dotted_path);
			t = t->elem;
		}
		f = NULL;
		if (t->kind == SMP_SKIND_OBJECT) {
			f = smp_stype_field(t, p, len);
			if (f)
				t = f->type;
			else if (t->flags & SMP_SFLAG_PRESERVE_UNKNOWN)
				t = &smp_stype_any;
			else if (t->name)
				return smp__err(err, SMP_ESCHEMA,
				                "field \"%.*s\" does not exist in %s (at %.*s)",
				                (int)len, p, t->name, (int)done, dotted_path);
			else if (p == dotted_path)
				return smp__err(err, SMP_ESCHEMA,
				                "field \"%.*s\" does not exist (at %.*s)",
				                (int)len, p, (int)done, dotted_path);
			else
				return smp__err(err, SMP_ESCHEMA,
				                "field \"%.*s\" does not exist in %.*s (at %.*s)",
				                (int)len, p, (int)(p - dotted_path - 1), dotted_path,
				                (int)done, dotted_path);
		} else if (t->kind == SMP_SKIND_MAP) {
			t = t->elem; /* the segment is a key of the map */
		} else if (t->kind == SMP_SKIND_PRIMITIVE) {
			return smp__err(err, SMP_ESCHEMA,
			                "field \"%.*s\" does not exist: a %s has no fields (at %.*s)",
			                (int)len, p, type_word(t), (int)done, dotted_path);
		}
		/* ANY: anything below is ANY too. */
		p += len;
		if (*p == '.')
			p++;
	}
	fill_info(out, dotted_path ? dotted_path : "", f, t);
	return SMP_OK;
}

smp_skind smp_stype_kind(const smp_stype *t)
{
	return t ? (smp_skind)t->kind : SMP_SKIND_ANY;
}

const char *smp_stype_name(const smp_stype *t)
{
	return t ? t->name : NULL;
}

const smp_stype *smp_stype_elem(const smp_stype *t)
{
	return t && (t->kind == SMP_SKIND_LIST || t->kind == SMP_SKIND_MAP) ? t->elem : NULL;
}

size_t smp_stype_field_count(const smp_stype *t)
{
	return t && t->kind == SMP_SKIND_OBJECT ? t->nfields : 0;
}

int smp_stype_field_at(smp_field_info *out, const smp_stype *t, size_t i, smp_error *err)
{
	if (out)
		memset(out, 0, sizeof(*out));
	if (!out || !t)
		return smp__err(err, SMP_EINVAL, "smp_stype_field_at: NULL argument");
	if (i >= smp_stype_field_count(t))
		return smp__err(err, SMP_EINVAL,
		                "smp_stype_field_at: no property %zu (the type has %zu)", i,
		                smp_stype_field_count(t));
	fill_info(out, t->fields[i].name, &t->fields[i], t->fields[i].type);
	return SMP_OK;
}
