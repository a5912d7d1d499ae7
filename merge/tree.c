/*
 * tree.c - whole value trees: the deep copy the merge works on, and
 * equality as JSON compares (1 equals 1.0).
 */
#include "merge/merge.h"
#include "codec/depth.h"

#include <stdlib.h>
#include <string.h>

/* ---- deep copy for the merge ---- */

/*
 * smpv_copy allocates node by node and copies every key. Copying a whole
 * document (smp_patch_apply's target) this way is most of that call's time.
 * Here the children of a map or list get their nodes in one block, and map
 * keys, which a parsed document shares between maps (one copy per distinct
 * key), are copied once per distinct source pointer through a small
 * direct-mapped cache. The result is the same tree (values, keys, order,
 * source positions).
 */
#define KCACHE 512

#if defined(__GNUC__)
#define TC_PREFETCH(p) __builtin_prefetch(p)
#else
#define TC_PREFETCH(p) ((void)(p))
#endif

typedef struct tcopy {
	smp_arena *a;
	struct {
		const char *src;
		size_t klen;
		const char *dst;
	} kc[KCACHE];
} tcopy;

static const char *tc_key(tcopy *t, const char *key, size_t klen)
{
	size_t h = (size_t)(((uintptr_t)key >> 3) * 0x9e3779b97f4a7c15ull >> 55) & (KCACHE - 1);
	char *k;

	if (t->kc[h].src == key && t->kc[h].klen == klen)
		return t->kc[h].dst;
	k = smp_arena_strndup(t->a, key, klen);
	if (k) {
		t->kc[h].src = key;
		t->kc[h].klen = klen;
		t->kc[h].dst = k;
	}
	return k;
}

/* A patch map whose scalar values the merge will put in place of the
 * target's: no directive keys (they all start with '$'). Only small ones
 * (each key of the target map is looked for among them): the large values
 * worth skipping sit under the few top-level keys (the last-applied
 * annotation), not in maps of thousands of keys. */
static bool tc_plain_patch(const smp_value *p)
{
	if (!p || p->type != SMP_MAP || p->u.map.len == 0 || p->u.map.len > 8)
		return false;
	for (size_t i = 0; i < p->u.map.len; i++)
		if (p->u.map.items[i].klen && p->u.map.items[i].key[0] == '$')
			return false;
	return true;
}

/* Fills *d (already a copy of *s's struct) with copies of what s points
 * to. p: the strategic patch's map at the same place, or NULL (see
 * smp_tree_copy_for_patch). Returns false on allocation failure. */
static bool tc_fill(tcopy *t, smp_value *d, const smp_value *s, unsigned depth,
                    const smp_value *p)
{
	size_t n;
	smp_value *kids;

	switch (s->type) {
	case SMP_STRING: {
		char *str = smp_arena_alloc(t->a, (size_t)s->u.s.len + 1);
		if (!str)
			return false;
		if (s->u.s.len)
			memcpy(str, s->u.s.ptr, s->u.s.len);
		str[s->u.s.len] = '\0';
		d->u.s.ptr = str;
		return true;
	}
	case SMP_LIST:
	case SMP_MAP:
		break;
	default:
		return true;
	}
	if (depth > SMP_DEPTH_MERGE) {
		/* deeper than the merge goes: smpv_copy's plain recursion */
		smp_value *c = smpv_copy(t->a, s);
		if (!c)
			return false;
		*d = *c;
		return true;
	}
	n = s->type == SMP_LIST ? s->u.list.len : s->u.map.len;
	if (n == 0) {
		if (s->type == SMP_LIST)
			d->u.list.items = NULL, d->u.list.cap = 0;
		else
			d->u.map.items = NULL, d->u.map.cap = 0;
		return true;
	}
	kids = smp_arena_alloc(t->a, n * sizeof(*kids));
	if (!kids)
		return false;
	if (s->type == SMP_LIST) {
		smp_value **items = smp_arena_alloc(t->a, n * sizeof(*items));
		if (!items)
			return false;
		for (size_t i = 0; i < n; i++) {
			const smp_value *e = s->u.list.items[i];
			if (i + 4 < n)
				TC_PREFETCH(s->u.list.items[i + 4]);
			kids[i] = *e;
			items[i] = &kids[i];
			if (!tc_fill(t, &kids[i], e, depth + 1, NULL))
				return false;
		}
		d->u.list.items = items;
		d->u.list.cap = d->u.list.len;
	} else {
		smp_member *items = smp_arena_alloc(t->a, n * sizeof(*items));
		const smp_value *pm = tc_plain_patch(p) ? p : NULL;
		if (!items)
			return false;
		for (size_t i = 0; i < n; i++) {
			const smp_member *m = &s->u.map.items[i];
			const smp_value *pv = NULL;
			if (i + 2 < n)
				TC_PREFETCH(s->u.map.items[i + 2].val);
			items[i].key = tc_key(t, m->key, m->klen);
			items[i].klen = m->klen;
			if (!items[i].key)
				return false;
			kids[i] = *m->val;
			items[i].val = &kids[i];
			if (pm) {
				ptrdiff_t j = smpv_map_find(pm, m->key, m->klen);
				if (j >= 0)
					pv = pm->u.map.items[j].val;
			}
			if (pv && pv->type != SMP_MAP && pv->type != SMP_LIST) {
				/* The merge replaces (or, for null, deletes) this value
				 * without reading more than its type: an empty node of
				 * that type stands in for the copy. */
				if (kids[i].type == SMP_STRING) {
					kids[i].u.s.ptr = "";
					kids[i].u.s.len = 0;
				} else if (kids[i].type == SMP_LIST) {
					kids[i].u.list.items = NULL;
					kids[i].u.list.len = kids[i].u.list.cap = 0;
				} else if (kids[i].type == SMP_MAP) {
					kids[i].u.map.items = NULL;
					kids[i].u.map.len = kids[i].u.map.cap = 0;
				}
				continue;
			}
			if (!tc_fill(t, &kids[i], m->val, depth + 1,
			             pv && pv->type == SMP_MAP ? pv : NULL))
				return false;
		}
		d->u.map.items = items;
		d->u.map.cap = d->u.map.len;
	}
	return true;
}

smp_value *smp_tree_copy_for_patch(smp_arena *a, const smp_value *v, const smp_value *patch)
{
	tcopy *t;
	smp_value *r;

	if (!v)
		return NULL;
	t = calloc(1, sizeof(*t));
	r = smp_arena_alloc(a, sizeof(*r));
	if (!t || !r) {
		free(t);
		return NULL;
	}
	t->a = a;
	*r = *v;
	if (!tc_fill(t, r, v, 0, patch))
		r = NULL;
	free(t);
	return r;
}

smp_value *smp_tree_copy(smp_arena *a, const smp_value *v)
{
	return smp_tree_copy_for_patch(a, v, NULL);
}


smp_value *smp_tree_copy_clean(smp_arena *a, const smp_value *v, bool drop_nulls, bool strip,
                               bool *keep, unsigned depth, unsigned max_depth,
                               const char *path, smp_error *err)
{
	bool list = v->type == SMP_LIST;
	smp_value *r;

	*keep = true;
	if (depth > max_depth) {
		smp__err_path(err, SMP_ELIMIT, path, "document nested too deeply");
		return NULL;
	}
	if (v->type != SMP_MAP && !list) {
		r = smpv_copy(a, v);
		goto done;
	}
	if (strip && !list) {
		const smp_value *d = smpv_map_get(v, "$patch");
		if (d && !(drop_nulls && d->type == SMP_NULL)) {
			*keep = false;
			return NULL;
		}
	}
	if (!(r = list ? smpv_list(a, v->u.list.len) : smpv_map(a, v->u.map.len)))
		goto done;
	for (size_t i = 0; i < (list ? v->u.list.len : v->u.map.len); i++) {
		const smp_member *e = list ? NULL : &v->u.map.items[i];
		const smp_value *x = list ? v->u.list.items[i] : e->val;
		smp_value *cv;
		bool k;

		if (!list && drop_nulls && x->type == SMP_NULL)
			continue; /* a list's null items stay */
		cv = smp_tree_copy_clean(a, x, drop_nulls, strip, &k, depth + 1, max_depth, path,
		                         err);
		if (!cv && k)
			return NULL;
		if (k && (list ? smpv_list_add(a, r, cv)
		               : smpv_map_add_copy(a, r, e->key, e->klen, cv))) {
			r = NULL;
			goto done;
		}
	}
done:
	if (!r)
		smp__err_path(err, SMP_ENOMEM, path, "out of memory");
	return r;
}

static bool is_number(const smp_value *v)
{
	return v->type == SMP_INT || v->type == SMP_FLOAT;
}

bool smp_json_value_equal(const smp_value *x, const smp_value *y)
{
	if (is_number(x) && is_number(y)) {
		if (x->type == SMP_INT && y->type == SMP_INT)
			return x->u.i == y->u.i;
		return smp_value_float(x) == smp_value_float(y);
	}
	if (x->type != y->type)
		return false;
	if (x->type == SMP_LIST) {
		if (x->u.list.len != y->u.list.len)
			return false;
		for (size_t i = 0; i < x->u.list.len; i++)
			if (!smp_json_value_equal(x->u.list.items[i], y->u.list.items[i]))
				return false;
		return true;
	}
	if (x->type == SMP_MAP) {
		if (x->u.map.len != y->u.map.len)
			return false;
		for (size_t i = 0; i < x->u.map.len; i++) {
			const smp_member *e = &x->u.map.items[i];
			const smp_member *f = &y->u.map.items[i];
			ptrdiff_t j = (ptrdiff_t)i;
			/* Same position first: the maps nearly always share their order. */
			if (f->klen != e->klen || memcmp(f->key, e->key, e->klen) != 0)
				j = smpv_map_find(y, e->key, e->klen);
			if (j < 0 || !smp_json_value_equal(e->val, y->u.map.items[j].val))
				return false;
		}
		return true;
	}
	return smpv_equal(x, y);
}
