/*
 * smp_meta.c - what strategic apply and diff share: the schema lookups of
 * PatchMetaFromOpenAPI, document paths for errors, the reference's error
 * texts, and its list helpers (element type check, deduplication, sorting).
 */
#include "merge/smp_core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void smp__sctx_init(sctx *c, smp_arena *a, smp_arena *tmp, smp_error *err)
{
	memset(c, 0, sizeof(*c));
	c->a = a;
	c->tmp = tmp;
	c->err = err;
}

int smp__sfail(sctx *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	smp_err_setv(c->err, code, NULL, 0, 0, c->path, fmt, ap);
	va_end(ap);
	return code;
}

int smp__snomem(sctx *c)
{
	return smp__sfail(c, SMP_ENOMEM, "out of memory");
}

/* Appends to the path; what does not fit is dropped but still counted, so
 * that spop restores the right length. */
static void sappend(sctx *c, const char *s, size_t n)
{
	size_t room = sizeof(c->path) - 1;

	if (c->plen < room) {
		size_t k = n < room - c->plen ? n : room - c->plen;
		memcpy(c->path + c->plen, s, k);
		c->path[c->plen + k] = '\0';
	}
	c->plen += n;
}

size_t smp__spush_key(sctx *c, const char *key, size_t klen)
{
	size_t old = c->plen;

	if (c->plen)
		sappend(c, ".", 1);
	sappend(c, key, klen);
	return old;
}

size_t smp__spush_elem(sctx *c, const char *mk, const smp_value *mkval, size_t index)
{
	size_t old = c->plen;
	char num[32];

	sappend(c, "[", 1);
	if (mk && *mk && mkval && mkval->type == SMP_STRING) {
		/* the common case, without formatting */
		sappend(c, mk, strlen(mk));
		sappend(c, "=", 1);
		sappend(c, mkval->u.s.ptr, mkval->u.s.len > 64 ? 64 : mkval->u.s.len);
	} else if (mk && *mk && mkval && mkval->type == SMP_INT) {
		sappend(c, mk, strlen(mk));
		snprintf(num, sizeof(num), "=%lld", (long long)mkval->u.i);
		sappend(c, num, strlen(num));
	} else if (mk && *mk && mkval && (mkval->type == SMP_BOOL || mkval->type == SMP_NULL)) {
		/* "%v" without a heap buffer, as for strings and integers */
		const char *t = mkval->type == SMP_NULL ? "<nil>" : mkval->u.b ? "true" : "false";
		sappend(c, mk, strlen(mk));
		sappend(c, "=", 1);
		sappend(c, t, strlen(t));
	} else if (mk && *mk && mkval) {
		/* Floats, lists, maps: rare (the reference panics on the last
		 * two), formatted by smp_gofmt_v into a heap buffer. */
		smp_buf b;
		smp_buf_init(&b);
		smp_gofmt_v(&b, mkval);
		sappend(c, mk, strlen(mk));
		sappend(c, "=", 1);
		if (b.ptr)
			sappend(c, b.ptr, b.len > 64 ? 64 : b.len);
		smp_buf_release(&b);
	} else {
		snprintf(num, sizeof(num), "%zu", index);
		sappend(c, num, strlen(num));
	}
	sappend(c, "]", 1);
	return old;
}

void smp__spop(sctx *c, size_t len)
{
	c->plen = len;
	if (len < sizeof(c->path))
		c->path[len] = '\0';
}

/* ---- schema lookups ---- */

static const char *type_label(const smp_stype *t)
{
	if (t->name)
		return t->name;
	return t->type_name ? t->type_name : "object";
}

/* A type below which lookups succeed without metadata: the v2 Arbitrary
 * (no type, no properties) and preserve-unknown-fields objects. An ANY read
 * from a v3 document is not: PatchMetaFromOpenAPIV3 fails below a schema
 * without properties. */
static bool free_form(const smp_stype *t)
{
	if (t->kind == SMP_SKIND_ANY)
		return !(t->flags & SMP_SFLAG_OPENAPI_V3) || (t->flags & SMP_SFLAG_PRESERVE_UNKNOWN);
	return (t->flags & SMP_SFLAG_PRESERVE_UNKNOWN) && t->nfields == 0 &&
	       t->kind != SMP_SKIND_LIST && t->kind != SMP_SKIND_PRIMITIVE;
}

static int meta_from_field(sctx *c, const smp_sfield *f, pmeta *m)
{
	unsigned st = f->strategy;

	m->retain = (st & SMP_STRATEGY_RETAIN_KEYS) != 0;
	m->merge = (st & SMP_STRATEGY_MERGE) != 0;
	m->replace = (st & SMP_STRATEGY_REPLACE) != 0;
	if (m->merge && m->replace)
		return smp__sfail(c, SMP_ESCHEMA, "unexpected patch strategy: [merge replace] for field %s",
		                   f->name);
	m->mk = f->merge_key ? f->merge_key : "";
	return 0;
}

/* kindItem/sliceItem: find the property `key` of the object type t. */
static int find_field(sctx *c, const smp_stype *t, const char *key, size_t klen,
                      bool slice, const smp_sfield **out)
{
	*out = NULL;
	switch (t->kind) {
	case SMP_SKIND_ANY:
		return smp__sfail(c, SMP_ESCHEMA, "unable to find api field \"%.*s\": the schema has no "
		                   "properties", (int)klen, key);
	case SMP_SKIND_OBJECT:
		*out = smp_stype_field(t, key, klen);
		if (!*out) {
			if (t->flags & SMP_SFLAG_NO_PROPERTIES)
				return smp__sfail(c, SMP_ESCHEMA, "unable to find api field \"%.*s\" in %s: "
				                   "expected %s, but got map", (int)klen, key, type_label(t),
				                   slice ? "slice" : "kind");
			return smp__sfail(c, SMP_ESCHEMA, "unable to find api field \"%.*s\" in %s",
			                   (int)klen, key, type_label(t));
		}
		return 0;
	case SMP_SKIND_MAP:
		return smp__sfail(c, SMP_ESCHEMA, "unable to find api field \"%.*s\": expected %s, but got map",
		                   (int)klen, key, slice ? "slice" : "kind");
	case SMP_SKIND_LIST:
		return smp__sfail(c, SMP_ESCHEMA, "unable to find api field \"%.*s\": %s", (int)klen, key,
		                   slice ? "expected visit kind first, then visit array"
		                         : "expected kind, but got slice");
	default:
		return smp__sfail(c, SMP_ESCHEMA, "unable to find api field \"%.*s\": expected %s, but got "
		                   "primitive", (int)klen, key, slice ? "slice" : "kind");
	}
}

int smp__lookup_struct(sctx *c, const smp_stype *t, const char *key, size_t klen, pmeta *m)
{
	const smp_sfield *f;
	int rc;

	memset(m, 0, sizeof(*m));
	m->mk = "";
	if (!t || free_form(t))
		return 0;
	rc = find_field(c, t, key, klen, false, &f);
	if (rc)
		return rc;
	rc = meta_from_field(c, f, m);
	if (rc)
		return rc;
	m->sub = f->type && !free_form(f->type) ? f->type : NULL;
	return 0;
}

int smp__lookup_slice(sctx *c, const smp_stype *t, const char *key, size_t klen, pmeta *m)
{
	const smp_sfield *f;
	const smp_stype *ft;
	int rc;

	memset(m, 0, sizeof(*m));
	m->mk = "";
	if (!t || free_form(t))
		return 0;
	rc = find_field(c, t, key, klen, true, &f);
	if (rc)
		return rc;
	rc = meta_from_field(c, f, m);
	if (rc)
		return rc;
	ft = f->type;
	if (!ft || free_form(ft))
		return 0;
	switch (ft->kind) {
	case SMP_SKIND_ANY:
		m->sub = ft; /* v3: lookups below it fail */
		return 0;
	case SMP_SKIND_LIST:
		m->sub = ft->elem && !free_form(ft->elem) ? ft->elem : NULL;
		return 0;
	case SMP_SKIND_OBJECT:
		/* A reference with list metadata (the reference's mergeItemPtr):
		 * the elements have the referenced type. */
		m->sub = ft;
		m->object_as_list = true;
		return 0;
	case SMP_SKIND_MAP:
		return smp__sfail(c, SMP_ESCHEMA, "field \"%.*s\": expected slice, but got map", (int)klen,
		                   key);
	default:
		return smp__sfail(c, SMP_ESCHEMA, "field \"%.*s\": expected slice, but got primitive",
		                   (int)klen, key);
	}
}

/* ---- small helpers ---- */

const smp_value *smp__mget(const smp_value *map, const char *key)
{
	if (!map || map->type != SMP_MAP)
		return NULL;
	return smpv_map_get(map, key);
}

bool smp__has_prefix(const char *key, size_t klen, const char *prefix)
{
	size_t n = strlen(prefix);
	return klen >= n && memcmp(key, prefix, n) == 0;
}

const smp_value *smp__mk_value(const smp_value *item, const char *mk)
{
	if (!item || item->type != SMP_MAP)
		return NULL;
	/* Called for every list element, often several times. */
	for (size_t i = 0; i < item->u.map.len; i++)
		if (mk_key_is(&item->u.map.items[i], mk))
			return item->u.map.items[i].val;
	return NULL;
}

int smp__gov_key(sctx *c, const smp_value *v, smp_skey *out)
{
	smp_buf b;

	if (v && v->type == SMP_STRING) {
		out->s = v->u.s.ptr;
		out->n = v->u.s.len;
		return 0;
	}
	smp_buf_init(&b);
	smp_gofmt_v(&b, v);
	if (b.oom) {
		smp_buf_release(&b);
		return smp__snomem(c);
	}
	out->s = smp_arena_strndup(c->tmp, b.ptr ? b.ptr : "", b.len);
	out->n = b.len;
	smp_buf_release(&b);
	return out->s ? 0 : smp__snomem(c);
}

/* Errors carry the values as Go prints them, shortened to fit one line. */
static void put_short(smp_buf *b, const smp_value *v, bool s_verb)
{
	smp_buf t;

	smp_buf_init(&t);
	if (s_verb)
		smp_gofmt_s(&t, v);
	else
		smp_gofmt_v(&t, v);
	if (t.ptr)
		smp_buf_put(b, t.ptr, t.len > 200 ? 200 : t.len);
	if (t.len > 200)
		smp_buf_puts(b, "...");
	smp_buf_release(&t);
}

static int fail_buf(sctx *c, int code, smp_buf *b)
{
	int rc = b->oom ? smp__snomem(c) : smp__sfail(c, code, "%s", b->ptr ? b->ptr : "");
	smp_buf_release(b);
	return rc;
}

int smp__err_no_merge_key(sctx *c, const smp_value *m, const char *mk)
{
	smp_buf b;

	smp_buf_init(&b);
	smp_buf_puts(&b, "map: ");
	put_short(&b, m, false);
	smp_buf_printf(&b, " does not contain declared merge key: %s", mk);
	return fail_buf(c, SMP_EPATCH, &b);
}

int smp__err_bad_arg_type(sctx *c, const char *expected, const smp_value *actual)
{
	return smp__sfail(c, SMP_EPATCH, "expected a %s, but received a %s", expected,
	                   smp_go_type_name(actual));
}

int smp__err_bad_patch_type(sctx *c, const smp_value *t, const smp_value *m)
{
	smp_buf b;

	smp_buf_init(&b);
	smp_buf_puts(&b, "unknown patch type: ");
	put_short(&b, t, true);
	smp_buf_puts(&b, " in map: ");
	put_short(&b, m, false);
	return fail_buf(c, SMP_EPATCH, &b);
}

int smp__err_list_types(sctx *c, const smp_value *l1, const smp_value *l2)
{
	smp_buf b;

	smp_buf_init(&b);
	smp_buf_puts(&b, "list element types are not identical: [");
	put_short(&b, l1, false);
	smp_buf_putc(&b, ' ');
	put_short(&b, l2, false);
	smp_buf_putc(&b, ']');
	return fail_buf(c, SMP_EPATCH, &b);
}

int smp__slice_elem_type(sctx *c, const smp_value *l1, const smp_value *l2, smp_type *kind)
{
	const smp_value *lists[2] = {l1, l2};
	bool have = false;
	smp_type prev = SMP_NULL;

	for (int k = 0; k < 2; k++) {
		const smp_value *l = lists[k];
		if (!l || l->type != SMP_LIST)
			continue;
		for (size_t i = 0; i < l->u.list.len; i++) {
			smp_type t = l->u.list.items[i]->type;
			/* the first touch of each element: start the misses early */
			if (i + 8 < l->u.list.len)
				PREFETCH(l->u.list.items[i + 8]);
			if (!have) {
				if (t == SMP_LIST)
					return smp__sfail(c, SMP_EPATCH, "lists of lists are not supported");
				prev = t;
				have = true;
			} else if (t != prev) {
				return smp__err_list_types(c, l1, l2);
			}
		}
	}
	if (!have)
		return smp__sfail(c, SMP_EPATCH, "no elements in any of the given slices");
	/* A null element has no Go type; the reference cannot handle it. */
	if (prev == SMP_NULL)
		return smp__err_list_types(c, l1, l2);
	*kind = prev;
	return 0;
}

size_t smp__dedup_scalars(sctx *c, smp_value **s, size_t n)
{
	smp_vindex ix;
	uint32_t *count;
	size_t distinct = 0, len;
	long *ord;

	if (n < 2)
		return n;
	if (sc_vindex(c, &ix, n))
		goto slow;
	count = sc_alloc(c, n * sizeof(*count));
	ord = sc_alloc(c, n * sizeof(*ord));
	if (!count || !ord)
		goto slow;
	for (size_t i = 0; i < n; i++) {
		long o = smp_vindex_find(&ix, s[i]);
		if (o < 0) {
			o = (long)distinct++;
			smp_vindex_add(&ix, s[i], (size_t)o);
			count[o] = 0;
		}
		count[o]++;
	}
	if (distinct == n)
		return n;
	/* The reference's swap-with-last loop; the counts only let it skip
	 * values without duplicates and stop once a value's are gone. */
	len = n - 1;
	for (size_t i = 0; i < len; i++) {
		long o = smp_vindex_find(&ix, s[i]);
		if (count[o] < 2)
			continue;
		for (size_t j = i + 1; j <= len && count[o] > 1; j++) {
			if (smpv_equal(s[i], s[j])) {
				s[j] = s[len];
				len--;
				j--;
				count[o]--;
			}
		}
	}
	return len + 1;
slow:
	len = n - 1;
	for (size_t i = 0; i < len; i++)
		for (size_t j = i + 1; j <= len; j++)
			if (smpv_equal(s[i], s[j])) {
				s[j] = s[len];
				len--;
				j--;
			}
	return len + 1;
}

int smp__sort_scalars(sctx *c, smp_value **s, size_t n)
{
	smp_skey *keys;
	size_t *idx;
	smp_value **copy;
	int rc;

	if (n < 2)
		return 0;
	keys = sc_alloc(c, n * sizeof(*keys));
	idx = sc_alloc(c, n * sizeof(*idx));
	copy = sc_alloc(c, n * sizeof(*copy));
	if (!keys || !idx || !copy)
		return smp__snomem(c);
	for (size_t i = 0; i < n; i++) {
		rc = smp__gov_key(c, s[i], &keys[i]);
		if (rc)
			return rc;
		idx[i] = i;
		copy[i] = s[i];
	}
	if (smp_go_sort_keys(idx, keys, n))
		return smp__snomem(c);
	for (size_t i = 0; i < n; i++)
		s[i] = copy[idx[i]];
	return 0;
}
