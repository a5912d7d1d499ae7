/*
 * dupkeys.c - lists merged by a key that hold two items with the same key
 * (Service ports 53/TCP and 53/UDP share `port`; two env vars or
 * containers with one name). Client-side apply's strategic merge patch
 * addresses items by that key alone, so kubectl cannot tell such items
 * apart: the next apply merges them into one. Server-side apply keys
 * these lists by all their list-map keys (port and protocol) and has no
 * such problem.
 */
#include "apply_int.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dkctx {
	smp_arena *a;
	smp_value *list;
	smp_buf path;
	int rc;
} dkctx;

static void warn(dkctx *c, const char *mk, const smp_value *l, uint32_t i, uint32_t j)
{
	smp_buf b;
	char *x = NULL, *y = NULL, *k = NULL;
	smp_value *s;

	if (c->rc)
		return;
	smp_buf_init(&b);
	if (smp_print(&x, NULL, l->u.list.items[i], NULL, NULL) ||
	    smp_print(&y, NULL, l->u.list.items[j], NULL, NULL) ||
	    smp_print(&k, NULL, smp_map_get(l->u.list.items[i], mk), NULL, NULL)) {
		c->rc = SMP_ENOMEM;
		goto out;
	}
	smp_buf_printf(&b,
	               "%s: items %u and %u have the same %s %s (%s and %s): the strategic "
	               "merge patch of client-side apply cannot tell them apart and merges them "
	               "into one on the next apply",
	               c->path.ptr ? c->path.ptr : "", (unsigned)i, (unsigned)j, mk, k, x, y);
	s = b.oom ? NULL : smpv_str(c->a, b.ptr, b.len);
	if (!s || smpv_list_add(c->a, c->list, s))
		c->rc = SMP_ENOMEM;
out:
	smp_free(x);
	smp_free(y);
	smp_free(k);
	smp_buf_release(&b);
}

static const smp_value *key_of(const smp_value *it, const char *mk)
{
	const smp_value *k = smp_value_type(it) == SMP_MAP ? smp_map_get(it, mk) : NULL;
	smp_type t = smp_value_type(k);

	return k && t != SMP_MAP && t != SMP_LIST && t != SMP_NULL ? k : NULL;
}

static void walk(dkctx *c, const smp_value *v, const smp_stype *t, const smp_sfield *f,
                 int depth);

/* Items of a list merged by key that repeat a key (which client-side
 * apply cannot tell apart): each reported once with both items. */
static void check_list(dkctx *c, const smp_value *l, const smp_stype *t, const smp_sfield *f,
                       int depth)
{
	const char *mk = f && (f->strategy & SMP_STRATEGY_MERGE) ? f->merge_key : NULL;
	uint32_t n = l->u.list.len;
	size_t pl = c->path.len;

	if (mk && n > 1) {
		/* Each item against the next ones with the same key: an index
		 * of the keys keeps long lists linear. */
		size_t cap = 1;
		while (cap < 2 * (size_t)n)
			cap <<= 1;
		long *slot = malloc(cap * sizeof(*slot));
		if (!slot) {
			c->rc = SMP_ENOMEM;
			return;
		}
		for (size_t s = 0; s < cap; s++)
			slot[s] = -1;
		for (uint32_t j = 0; j < n && !c->rc; j++) {
			const smp_value *k = key_of(l->u.list.items[j], mk);
			size_t h;
			if (!k)
				continue;
			h = (size_t)smpv_hash(k) & (cap - 1);
			while (slot[h] >= 0 && !smpv_equal(key_of(l->u.list.items[slot[h]], mk), k))
				h = (h + 1) & (cap - 1);
			if (slot[h] >= 0)
				warn(c, mk, l, (uint32_t)slot[h], j);
			else
				slot[h] = (long)j;
		}
		free(slot);
	}
	for (uint32_t i = 0; i < n && !c->rc; i++) {
		const smp_value *it = l->u.list.items[i], *k = mk ? key_of(it, mk) : NULL;
		if (k && smp_value_type(k) == SMP_STRING)
			smp_buf_printf(&c->path, "[%s=%s]", mk, smp_value_string(k, NULL));
		else
			smp_buf_printf(&c->path, "[%u]", (unsigned)i);
		walk(c, it, t ? t->elem : NULL, NULL, depth + 1);
		c->path.len = pl;
		if (c->path.ptr)
			c->path.ptr[pl] = '\0';
	}
}

static void walk(dkctx *c, const smp_value *v, const smp_stype *t, const smp_sfield *f,
                 int depth)
{
	if (c->rc || !t || depth > 10000)
		return;
	if (c->path.oom) {
		c->rc = SMP_ENOMEM;
		return;
	}
	if (smp_value_type(v) == SMP_LIST && t->kind == SMP_SKIND_LIST) {
		check_list(c, v, t, f, depth);
		return;
	}
	if (smp_value_type(v) != SMP_MAP || (t->kind != SMP_SKIND_OBJECT && t->kind != SMP_SKIND_MAP))
		return;
	for (uint32_t i = 0; i < v->u.map.len && !c->rc; i++) {
		const smp_member *m = &v->u.map.items[i];
		const smp_sfield *ff = t->kind == SMP_SKIND_OBJECT
		                               ? smp_stype_field(t, m->key, m->klen)
		                               : NULL;
		const smp_stype *ft = t->kind == SMP_SKIND_OBJECT ? (ff ? ff->type : NULL) : t->elem;
		size_t pl = c->path.len;
		if (!ft)
			continue;
		if (pl)
			smp_buf_putc(&c->path, '.');
		smp_buf_put(&c->path, m->key, m->klen);
		walk(c, m->val, ft, ff, depth + 1);
		c->path.len = pl;
		if (c->path.ptr)
			c->path.ptr[pl] = '\0';
	}
}

int smp_duplicate_merge_keys(smp_doc **out, const smp_value *obj, const smp_schema *schema,
                             smp_error *err)
{
	const char *av = smp_value_string(smp_value_at(obj, "apiVersion"), NULL);
	const char *kind = smp_value_string(smp_value_at(obj, "kind"), NULL);
	const smp_gvk_entry *e = NULL;
	smp_doc *doc;
	dkctx c;

	if (out)
		*out = NULL;
	if (!out)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_duplicate_merge_keys: NULL argument");
	doc = smp_doc_alloc();
	if (!doc)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	memset(&c, 0, sizeof(c));
	c.a = &doc->arena;
	c.list = smpv_list(c.a, 0);
	smp_buf_init(&c.path);
	if (av && kind) {
		if (schema)
			e = smp_schema_find_kind(schema, av, kind, true);
		if (!e)
			e = smp_schema_find_kind(&smp_builtin_schema, av, kind, true);
	}
	if (!c.list)
		c.rc = SMP_ENOMEM;
	else if (e)
		walk(&c, obj, e->type, NULL, 0);
	smp_buf_release(&c.path);
	if (c.rc || smp_doc_push_root(doc, c.list)) {
		smp_doc_free(doc);
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	}
	*out = doc;
	return SMP_OK;
}
