/*
 * changes.c - the changed fields between two versions of an object, one
 * entry per field, for tools and reviews (`smpatch apply -o changes`):
 * list items are addressed by their merge key (`containers[name=web]`),
 * primitive merge lists by value (`finalizers[=a]`), other lists by index;
 * Secret values are masked.
 */
#include "apply_int.h"
#include "codec/codec.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cctx {
	smp_arena *a;
	smp_value *list;   /* the result */
	smp_buf path;
	bool mask;         /* a Secret: mask data and stringData */
	bool no_mf;        /* leave metadata.managedFields out */
	int rc;
} cctx;

static smp_value *masked(cctx *c, const smp_value *v)
{
	if (smp_value_type(v) == SMP_MAP) {
		smp_value *m = smpv_map(c->a, v->u.map.len);
		if (!m)
			return NULL;
		for (uint32_t i = 0; i < v->u.map.len; i++)
			if (smpv_map_add(c->a, m, v->u.map.items[i].key, v->u.map.items[i].klen,
			                 smpv_str_ref(c->a, "***", 3)))
				return NULL;
		return m;
	}
	return smpv_str_ref(c->a, "***", 3);
}

/* A copied Secret `v` (NULL: nothing) with its data and stringData masked. */
static void mask_secret(cctx *c, smp_value *v)
{
	for (int k = 0; v && k < 2; k++) {
		const char *key = k ? "stringData" : "data";
		ptrdiff_t i = smpv_map_find(v, key, strlen(key));
		if (i >= 0)
			v->u.map.items[i].val = masked(c, v->u.map.items[i].val);
	}
}

static bool path_is_secret(cctx *c)
{
	const char *p = c->path.ptr ? c->path.ptr : "";

	return c->mask && (strncmp(p, "data", 4) == 0 || strncmp(p, "stringData", 10) == 0);
}

static void emit(cctx *c, const char *op, const smp_value *from, const smp_value *to)
{
	smp_value *m, *fv = NULL, *tv = NULL, *pv;
	bool secret = path_is_secret(c);

	if (c->rc)
		return;
	m = smpv_map(c->a, 4);
	pv = smpv_str(c->a, c->path.ptr ? c->path.ptr : "", c->path.len);
	if (from)
		fv = secret ? masked(c, from) : smpv_copy(c->a, from);
	if (to)
		tv = secret ? masked(c, to) : smpv_copy(c->a, to);
	if (!m || !pv || (from && !fv) || (to && !tv) || c->path.oom ||
	    smpv_map_add(c->a, m, "path", 4, pv) ||
	    smpv_map_add(c->a, m, "op", 2, smpv_str_ref(c->a, op, strlen(op))) ||
	    (fv && smpv_map_add(c->a, m, "from", 4, fv)) ||
	    (tv && smpv_map_add(c->a, m, "to", 2, tv)) || smpv_list_add(c->a, c->list, m))
		c->rc = SMP_ENOMEM;
}

static void push_key(cctx *c, const char *k, size_t n)
{
	bool plain = n > 0;

	for (size_t i = 0; i < n && plain; i++)
		if (k[i] == '.' || k[i] == '[' || k[i] == ']' || k[i] == '"' || k[i] == '\\')
			plain = false;
	if (plain) {
		if (c->path.len)
			smp_buf_putc(&c->path, '.');
		smp_buf_put(&c->path, k, n);
		return;
	}
	/* A key with dots (app.kubernetes.io/name): ["..."] */
	smp_buf_puts(&c->path, "[\"");
	for (size_t i = 0; i < n; i++) {
		if (k[i] == '"' || k[i] == '\\')
			smp_buf_putc(&c->path, '\\');
		smp_buf_putc(&c->path, k[i]);
	}
	smp_buf_puts(&c->path, "\"]");
}

static void pop(cctx *c, size_t len)
{
	c->path.len = len;
	if (c->path.ptr)
		c->path.ptr[len] = '\0';
}

static void scalar_text(smp_buf *b, const smp_value *v)
{
	char num[40];

	switch (smp_value_type(v)) {
	case SMP_STRING:
		smp_buf_put(b, v->u.s.ptr, v->u.s.len);
		break;
	case SMP_INT:
		smp_buf_printf(b, "%lld", (long long)v->u.i);
		break;
	case SMP_FLOAT:
		smp_buf_put(b, num, smp_format_float(num, v->u.f));
		break;
	case SMP_BOOL:
		smp_buf_puts(b, v->u.b ? "true" : "false");
		break;
	default:
		smp_buf_puts(b, "null");
		break;
	}
}

static bool is_scalar(const smp_value *v)
{
	smp_type t = smp_value_type(v);

	return t != SMP_MAP && t != SMP_LIST;
}

static void diff(cctx *c, const smp_value *b, const smp_value *a, const smp_stype *t,
                 const smp_sfield *f, int depth);

/* The changes between two maps, keys in sorted order: added, removed,
 * and nested values compared (maps and lists by their rules, scalars by
 * value). */
static void diff_maps(cctx *c, const smp_value *b, const smp_value *a, const smp_stype *t,
                      int depth)
{
	const smp_member **ia = NULL, **ib = NULL;
	size_t i = 0, j = 0;

	if (smp_sorted_members(&ia, a, true) || smp_sorted_members(&ib, b, true)) {
		c->rc = SMP_ENOMEM;
		goto out;
	}
	/* Merge the two sorted key lists. */
	while ((i < a->u.map.len || j < b->u.map.len) && !c->rc) {
		const smp_member *ma = i < a->u.map.len ? smp_member_at(ia, a, i) : NULL;
		const smp_member *mb = j < b->u.map.len ? smp_member_at(ib, b, j) : NULL;
		int cmp;
		size_t pl = c->path.len;
		if (!ma)
			cmp = 1;
		else if (!mb)
			cmp = -1;
		else {
			size_t l = ma->klen < mb->klen ? ma->klen : mb->klen;
			cmp = memcmp(ma->key, mb->key, l);
			if (cmp == 0)
				cmp = ma->klen < mb->klen ? -1 : ma->klen > mb->klen;
		}
		if (c->no_mf && depth == 1 && c->path.len == 8 &&
		    memcmp(c->path.ptr, "metadata", 8) == 0 &&
		    ((cmp <= 0 && ma->klen == 13 && memcmp(ma->key, "managedFields", 13) == 0) ||
		     (cmp >= 0 && mb->klen == 13 && memcmp(mb->key, "managedFields", 13) == 0))) {
			i += cmp <= 0;
			j += cmp >= 0;
			continue;
		}
		if (cmp < 0) {
			push_key(c, ma->key, ma->klen);
			emit(c, "add", NULL, ma->val);
			i++;
		} else if (cmp > 0) {
			push_key(c, mb->key, mb->klen);
			emit(c, "remove", mb->val, NULL);
			j++;
		} else {
			const smp_sfield *f = NULL;
			const smp_stype *ft = NULL;
			if (t && t->kind == SMP_SKIND_OBJECT) {
				f = smp_stype_field(t, ma->key, ma->klen);
				ft = f ? f->type : NULL;
			} else if (t && t->kind == SMP_SKIND_MAP) {
				ft = t->elem;
			}
			push_key(c, ma->key, ma->klen);
			diff(c, mb->val, ma->val, ft, f, depth + 1);
			i++;
			j++;
		}
		pop(c, pl);
	}
out:
	free(ia);
	free(ib);
}

/* The scalar merge key of item, or NULL. */
static const smp_value *item_key(const smp_value *it, const char *mk)
{
	const smp_value *k = smp_value_type(it) == SMP_MAP ? smp_map_get(it, mk) : NULL;

	return k && is_scalar(k) && k->type != SMP_NULL ? k : NULL;
}

/* Whether every item has a distinct scalar key (checked pairwise for short
 * lists, through a sorted copy of the key texts otherwise). */
static bool keys_usable(const smp_value *l, const char *mk)
{
	uint32_t n = l->u.list.len;

	for (uint32_t i = 0; i < n; i++)
		if (!item_key(l->u.list.items[i], mk))
			return false;
	if (n <= 64) {
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = i + 1; j < n; j++)
				if (smpv_equal(item_key(l->u.list.items[i], mk),
				               item_key(l->u.list.items[j], mk)))
					return false;
		return true;
	}
	/* Long lists: hash the keys into a small open-addressing table. */
	{
		size_t cap = 1;
		while (cap < 2 * (size_t)n)
			cap <<= 1;
		long *slot = malloc(cap * sizeof(*slot));
		bool ok = true;
		if (!slot)
			return false;
		for (size_t s = 0; s < cap; s++)
			slot[s] = -1;
		for (uint32_t i = 0; i < n && ok; i++) {
			const smp_value *k = item_key(l->u.list.items[i], mk);
			size_t h = (size_t)smpv_hash(k) & (cap - 1);
			while (slot[h] >= 0) {
				if (smpv_equal(item_key(l->u.list.items[slot[h]], mk), k)) {
					ok = false;
					break;
				}
				h = (h + 1) & (cap - 1);
			}
			slot[h] = (long)i;
		}
		free(slot);
		return ok;
	}
}

/* Finds the item of `l` whose key equals k (linear from a hint: lists in
 * both versions are usually in the same order, so this stays near O(n)). */
static long find_keyed(const smp_value *l, const char *mk, const smp_value *k, size_t *hint)
{
	uint32_t n = l->u.list.len;

	for (uint32_t s = 0; s < n; s++) {
		uint32_t i = (uint32_t)((*hint + s) % n);
		if (smpv_equal(item_key(l->u.list.items[i], mk), k)) {
			*hint = i + 1;
			return (long)i;
		}
	}
	return -1;
}

static void push_item(cctx *c, const char *mk, const smp_value *k)
{
	smp_buf_putc(&c->path, '[');
	if (mk)
		smp_buf_puts(&c->path, mk);
	smp_buf_putc(&c->path, '=');
	scalar_text(&c->path, k);
	smp_buf_putc(&c->path, ']');
}

/* The changes between two lists: items addressed by merge key when the
 * schema merges them by one, by value for merged scalars (sets), by index
 * otherwise. */
static void diff_lists(cctx *c, const smp_value *b, const smp_value *a, const smp_stype *t,
                       const smp_sfield *f, int depth)
{
	const smp_stype *et = t ? t->elem : NULL;
	const char *mk = f && (f->strategy & SMP_STRATEGY_MERGE) ? f->merge_key : NULL;
	bool by_value = f && (f->strategy & SMP_STRATEGY_MERGE) && !f->merge_key;
	size_t pl = c->path.len, hint = 0;

	if (mk && keys_usable(a, mk) && keys_usable(b, mk)) {
		for (uint32_t i = 0; i < a->u.list.len && !c->rc; i++) {
			const smp_value *it = a->u.list.items[i], *k = item_key(it, mk);
			long j = find_keyed(b, mk, k, &hint);
			push_item(c, mk, k);
			if (j < 0)
				emit(c, "add", NULL, it);
			else
				diff(c, b->u.list.items[j], it, et, NULL, depth + 1);
			pop(c, pl);
		}
		hint = 0;
		for (uint32_t j = 0; j < b->u.list.len && !c->rc; j++) {
			const smp_value *it = b->u.list.items[j], *k = item_key(it, mk);
			if (find_keyed(a, mk, k, &hint) >= 0)
				continue;
			push_item(c, mk, k);
			emit(c, "remove", it, NULL);
			pop(c, pl);
		}
		return;
	}
	if (by_value) {
		bool scalars = true;
		for (uint32_t i = 0; i < a->u.list.len; i++)
			scalars = scalars && is_scalar(a->u.list.items[i]);
		for (uint32_t i = 0; i < b->u.list.len; i++)
			scalars = scalars && is_scalar(b->u.list.items[i]);
		if (scalars) {
			for (uint32_t i = 0; i < a->u.list.len && !c->rc; i++) {
				bool found = false;
				for (uint32_t j = 0; j < b->u.list.len && !found; j++)
					found = smpv_equal(a->u.list.items[i], b->u.list.items[j]);
				if (found)
					continue;
				push_item(c, NULL, a->u.list.items[i]);
				emit(c, "add", NULL, a->u.list.items[i]);
				pop(c, pl);
			}
			for (uint32_t j = 0; j < b->u.list.len && !c->rc; j++) {
				bool found = false;
				for (uint32_t i = 0; i < a->u.list.len && !found; i++)
					found = smpv_equal(a->u.list.items[i], b->u.list.items[j]);
				if (found)
					continue;
				push_item(c, NULL, b->u.list.items[j]);
				emit(c, "remove", b->u.list.items[j], NULL);
				pop(c, pl);
			}
			return;
		}
	}
	/* Atomic lists (and lists whose items cannot be keyed): by index. */
	for (uint32_t i = 0; (i < a->u.list.len || i < b->u.list.len) && !c->rc; i++) {
		smp_buf_printf(&c->path, "[%u]", (unsigned)i);
		if (i >= b->u.list.len)
			emit(c, "add", NULL, a->u.list.items[i]);
		else if (i >= a->u.list.len)
			emit(c, "remove", b->u.list.items[i], NULL);
		else
			diff(c, b->u.list.items[i], a->u.list.items[i], et, NULL, depth + 1);
		pop(c, pl);
	}
}

static void diff(cctx *c, const smp_value *b, const smp_value *a, const smp_stype *t,
                 const smp_sfield *f, int depth)
{
	smp_type tb = smp_value_type(b), ta = smp_value_type(a);

	if (c->rc)
		return;
	if (c->path.oom) {
		c->rc = SMP_ENOMEM;
		return;
	}
	if (tb == SMP_MAP && ta == SMP_MAP && depth < 10000) {
		diff_maps(c, b, a, t, depth);
		return;
	}
	if (tb == SMP_LIST && ta == SMP_LIST && depth < 10000) {
		diff_lists(c, b, a, t, f, depth);
		return;
	}
	if (!smpv_equal(b, a))
		emit(c, "replace", b, a);
}

int smp_changes(smp_doc **out, const smp_value *before, const smp_value *after,
                const smp_changes_options *opts, smp_error *err)
{
	smp_changes_options o = SMP_CHANGES_OPTIONS_INIT;
	const smp_value *obj = after ? after : before;
	const char *av = smp_value_string(smp_value_at(obj, "apiVersion"), NULL);
	const char *kind = smp_value_string(smp_value_at(obj, "kind"), NULL);
	const smp_gvk_entry *e = NULL;
	smp_doc *doc, *mb = NULL, *ma = NULL;
	cctx c;

	if (out)
		*out = NULL;
	if (opts)
		o = *opts;
	if (!out || o.version != SMP_CHANGES_OPTIONS_VERSION)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL, "smp_changes: bad arguments");
	doc = smp_doc_alloc();
	if (!doc)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	memset(&c, 0, sizeof(c));
	c.a = &doc->arena;
	c.list = smpv_list(c.a, 8);
	smp_buf_init(&c.path);
	if (av && kind) {
		if (o.schema)
			e = smp_schema_find_kind(o.schema, av, kind, true);
		if (!e)
			e = smp_schema_find_kind(&smp_builtin_schema, av, kind, true);
	}
	c.mask = !(o.flags & SMP_CHANGES_NO_MASK) && kind && strcmp(kind, "Secret") == 0 && av &&
	         strcmp(av, "v1") == 0;
	c.no_mf = (o.flags & SMP_CHANGES__NO_MANAGED_FIELDS) != 0;
	if (c.mask) {
		/* the Secret's values inside its last-applied annotations too
		 * (smp_display_objects masks them as -o diff shows them); data
		 * that the Masker refuses is left to the path masking below */
		smp_error ignored;

		if (smp_display_objects(before ? &mb : NULL, after ? &ma : NULL, before, after,
		                        SMP_DISPLAY_MANAGED_FIELDS | SMP_DISPLAY_MASK_SECRETS,
		                        &ignored) == 0) {
			before = mb ? smp_doc_root(mb, 0) : before;
			after = ma ? smp_doc_root(ma, 0) : after;
		}
	}
	if (!c.list) {
		c.rc = SMP_ENOMEM;
	} else if (!before && after) {
		/* A new object is one entry; a Secret's data masked. */
		smp_value *v = c.mask || c.no_mf ? NULL : (smp_value *)after;
		if (c.mask || c.no_mf) {
			smp_value *md;
			ptrdiff_t at;

			v = smpv_copy(c.a, after);
			md = v ? smpv_map_get(v, "metadata") : NULL;
			if (c.no_mf && smp_value_type(md) == SMP_MAP &&
			    (at = smpv_map_find(md, "managedFields", 13)) >= 0)
				smpv_map_remove(md, (size_t)at);
		}
		if (c.mask)
			mask_secret(&c, v);
		c.mask = false;
		if (v)
			emit(&c, "add", NULL, v);
		else
			c.rc = SMP_ENOMEM;
	} else if (before && !after) {
		smp_value *v = c.mask ? smpv_copy(c.a, before) : (smp_value *)before;
		if (c.mask)
			mask_secret(&c, v);
		c.mask = false;
		if (v)
			emit(&c, "remove", v, NULL);
		else
			c.rc = SMP_ENOMEM;
	} else if (before && after) {
		diff(&c, before, after, e ? e->type : NULL, NULL, 0);
	}
	smp_buf_release(&c.path);
	smp_doc_free(mb);
	smp_doc_free(ma);
	if (c.rc || smp_doc_push_root(doc, c.list)) {
		smp_doc_free(doc);
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	}
	*out = doc;
	return SMP_OK;
}
