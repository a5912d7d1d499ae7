/*
 * smp_diff.c - creating strategic merge patches: the reference's diffMaps,
 * diffLists, CreateThreeWayMergePatch and MergingMapsHaveConflicts, plus
 * its test helper sortMergeListsByName.
 *
 * Lists of maps are paired the way the reference pairs them: both sides
 * sorted by the "%v" text of their merge key and walked together, so the
 * order of deletions in a patch is the reference's. Map keys are looked up
 * through an index when the maps are large.
 */
#include "merge/smp_core.h"

#include <stdlib.h>
#include <string.h>

typedef struct dopts {
	bool set_element_order;
	bool ignore_changes;   /* IgnoreChangesAndAdditions */
	bool ignore_deletions;
	bool build_retain_keys;
} dopts;

static int diff_maps(sctx *c, smp_value **out, const smp_value *orig, const smp_value *mod,
                     const smp_stype *t, dopts o);

static smp_value *dcopy(sctx *c, const smp_value *v)
{
	smp_value *r;

	if (c->ref_copies)
		return (smp_value *)v; /* never written: see smp_sm_diff3 */
	r = smpv_copy(c->a, v);
	if (!r)
		smp__snomem(c);
	return r;
}

/* Adds key to a patch being built: the keys come from one map, so they are
 * unique and need no lookup. A patch that is only read during the
 * operation (ref_copies) references the input's key instead of a copy. */
static int pset(sctx *c, smp_value *patch, const char *key, size_t klen, smp_value *v)
{
	if (!v)
		return SMP_ENOMEM;
	if (c->ref_copies)
		return smpv_map_add(c->a, patch, key, klen, v) ? smp__snomem(c) : 0;
	return smpv_map_add_copy(c->a, patch, key, klen, v) ? smp__snomem(c) : 0;
}

/* The merge key as a map key of the patch: one copy per arena and key
 * (every element of a list gets it), or the schema's string itself in a
 * patch that is only read during the operation. NULL when out of memory. */
static const char *mk_key(sctx *c, const char *mk, size_t *len)
{
	*len = strlen(mk);
	if (c->ref_copies)
		return mk;
	if (c->mkc_src != mk || c->mkc_arena != c->a) {
		char *k = smp_arena_strndup(c->a, mk, *len);
		if (!k)
			return NULL;
		c->mkc_src = mk;
		c->mkc_arena = c->a;
		c->mkc = k;
	}
	return c->mkc;
}

/* patchValue[mergeKey] = value: the sub-patch may hold the key already
 * (when the values differ only in type); one scan per list element. */
static int pset_replace(sctx *c, smp_value *patch, const char *mk, smp_value *v)
{
	ptrdiff_t i;
	size_t klen;
	const char *key = mk_key(c, mk, &klen);

	if (!v || !key)
		return smp__snomem(c);
	i = smpv_map_find(patch, key, klen);
	if (i >= 0) {
		patch->u.map.items[i].val = v;
		return 0;
	}
	return smpv_map_add(c->a, patch, key, klen, v) ? smp__snomem(c) : 0;
}

static int pset_prefixed(sctx *c, smp_value *patch, const char *prefix, const char *key,
                         size_t klen, smp_value *v)
{
	size_t pn = strlen(prefix);
	char *k = smp_arena_alloc(c->a, pn + 1 + klen + 1);

	if (!k || !v)
		return smp__snomem(c);
	memcpy(k, prefix, pn);
	k[pn] = '/';
	memcpy(k + pn + 1, key, klen);
	k[pn + 1 + klen] = '\0';
	return smpv_map_add(c->a, patch, k, pn + 1 + klen, v) ? smp__snomem(c) : 0;
}

/* ---- lists ---- */

/* The merge-key value of element i, with the reference's errors. */
static int elem_mk(sctx *c, const smp_value *e, const char *mk, const smp_value **out)
{
	if (e->type != SMP_MAP)
		return smp__err_bad_arg_type(c, "map[string]interface {}", e);
	*out = smp__mk_value(e, mk);
	if (!*out)
		return smp__err_no_merge_key(c, e, mk);
	return 0;
}

static int skey_cmp(const smp_skey *a, const smp_skey *b)
{
	size_t n = a->n < b->n ? a->n : b->n;
	int r = n ? memcmp(a->s, b->s, n) : 0;
	if (r)
		return r;
	return a->n < b->n ? -1 : a->n > b->n;
}

/* Insertion sort of idx by keys within a budget of moves (a few per
 * element); false when the budget runs out or two keys are equal (idx is
 * then in some order: the caller starts again). */
static bool sort_distinct(size_t *idx, const smp_skey *keys, size_t n)
{
	size_t budget = 8 * n + 64;

	for (size_t i = 1; i < n; i++) {
		size_t x = idx[i], j = i;
		int r;
		while (j > 0 && (r = skey_cmp(&keys[idx[j - 1]], &keys[x])) >= 0) {
			if (r == 0 || budget-- == 0)
				return false;
			idx[j] = idx[j - 1];
			j--;
		}
		if (j > 0 && skey_cmp(&keys[idx[j - 1]], &keys[x]) == 0)
			return false;
		idx[j] = x;
	}
	return true;
}

/* sortMergeListsByNameArray(list, ..., recurse=false) for maps: indices of
 * the elements in the order of the "%v" text of their merge key. *kv_out
 * gets each element's merge-key value (NULL: not a map, or no key), looked
 * up once here for every later use. */
static int sort_by_mk(sctx *c, const smp_value *l, const char *mk, size_t **idx_out,
                      smp_skey **keys_out, const smp_value ***kv_out, bool *distinct)
{
	size_t n = l->u.list.len;
	size_t *idx = sc_alloc(c, (n + 1) * sizeof(*idx));
	smp_skey *keys = sc_alloc(c, (n + 1) * sizeof(*keys));
	const smp_value **kv = sc_alloc(c, (n + 1) * sizeof(*kv));
	bool ascending = true;
	int rc;

	if (!idx || !keys || !kv)
		return smp__snomem(c);
	for (size_t i = 0; i < n; i++) {
		const smp_value *e = l->u.list.items[i];
		if (i + 4 < n && l->u.list.items[i + 4]->type == SMP_MAP)
			PREFETCH(l->u.list.items[i + 4]->u.map.items);
		idx[i] = i;
		kv[i] = smp__mk_value(e, mk);
		if ((rc = smp__gov_key(c, kv[i], &keys[i])))
			return rc;
		if (i && ascending && skey_cmp(&keys[i - 1], &keys[i]) >= 0)
			ascending = false;
	}
	/* Keys already strictly increasing (lists kept sorted by name, as
	 * generated objects often are): every sort leaves them as they are.
	 * Distinct keys have one sorted order, whatever the algorithm: nearly
	 * sorted lists get an insertion sort; only keys that come twice (ties,
	 * whose order is Go's pdqsort's) or many moves take the exact port. */
	*distinct = true;
	if (!ascending && !sort_distinct(idx, keys, n)) {
		*distinct = false; /* (not known) */
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		if (smp_go_sort_keys(idx, keys, n))
			return smp__snomem(c);
	}
	*idx_out = idx;
	*keys_out = keys;
	*kv_out = kv;
	return 0;
}

static smp_value *delete_directive(sctx *c, const char *mk, const smp_value *mv)
{
	smp_value *m = smpv_map(c->a, 2), *cv = dcopy(c, mv), *d;
	size_t klen;
	const char *key = mk_key(c, mk, &klen);

	d = smpv_str_ref(c->a, "delete", 6);
	if (!m || !cv || !d || !key || smpv_map_add(c->a, m, key, klen, cv) ||
	    smpv_map_add(c->a, m, DIRECTIVE_MARKER, strlen(DIRECTIVE_MARKER), d)) {
		smp__snomem(c);
		return NULL;
	}
	return m;
}

/* okv/mkv: the merge-key values of orig's and mod's elements (sort_by_mk).
 * *apos_out: for each patch item, the position of the mod element it came
 * from; *mod_distinct: mod's merge keys are known to be distinct. */
static int diff_lists_of_maps(sctx *c, vlist *patch, vlist *dels, const smp_value *orig,
                              const smp_value *mod, const smp_stype *t, const char *mk,
                              dopts o, const smp_value ***okv_out, const smp_value ***mkv_out,
                              long **apos_out, bool *mod_distinct)
{
	size_t *oi_idx, *mi_idx, oi = 0, mi = 0, on = orig->u.list.len, mn = mod->u.list.len;
	smp_skey *okeys, *mkeys;
	const smp_value **okv, **mkv;
	long *apos = sc_alloc(c, (mn + 1) * sizeof(*apos));
	bool odistinct;
	int rc;

	if (!apos)
		return smp__snomem(c);
	if ((rc = sort_by_mk(c, orig, mk, &oi_idx, &okeys, &okv, &odistinct)) ||
	    (rc = sort_by_mk(c, mod, mk, &mi_idx, &mkeys, &mkv, mod_distinct)))
		return rc;
	*okv_out = okv;
	*mkv_out = mkv;
	*apos_out = apos;
	while (oi < on || mi < mn) {
		const smp_value *oe = NULL, *me = NULL, *ov = NULL, *mv = NULL;
		int cmp = 0;
		if (oi < on) {
			oe = orig->u.list.items[oi_idx[oi]];
			/* (a NULL key: elem_mk reports why) */
			if (!(ov = okv[oi_idx[oi]]) && (rc = elem_mk(c, oe, mk, &ov)))
				return rc;
		}
		if (mi < mn) {
			me = mod->u.list.items[mi_idx[mi]];
			if (!(mv = mkv[mi_idx[mi]]) && (rc = elem_mk(c, me, mk, &mv)))
				return rc;
		}
		if (oe && me)
			cmp = skey_cmp(&okeys[oi_idx[oi]], &mkeys[mi_idx[mi]]);
		if (oe && me && cmp == 0) {
			smp_value *pv;
			size_t pl = smp__spush_elem(c, mk, mv, mi_idx[mi]);
			if ((rc = diff_maps(c, &pv, oe, me, t, o)))
				return rc;
			smp__spop(c, pl);
			if (pv->u.map.len > 0) {
				apos[patch->n] = (long)mi_idx[mi];
				if ((rc = pset_replace(c, pv, mk, dcopy(c, mv))) ||
				    (rc = vl_push(c, patch, pv)))
					return rc;
			}
			oi++;
			mi++;
		} else if (!oe || cmp > 0) {
			if (!o.ignore_changes) {
				smp_value *cv = dcopy(c, me);
				apos[patch->n] = (long)mi_idx[mi];
				if (!cv || (rc = vl_push(c, patch, cv)))
					return SMP_ENOMEM;
			}
			mi++;
		} else {
			if (!o.ignore_deletions) {
				smp_value *d = delete_directive(c, mk, ov);
				if (!d || (rc = vl_push(c, dels, d)))
					return SMP_ENOMEM;
			}
			oi++;
		}
	}
	return 0;
}

/* The reference sorts the original list in place here (sortScalars on the
 * caller's slice); *sorted_orig gets that sorted view, which diffLists then
 * compares with modified. */
static int diff_lists_of_scalars(sctx *c, vlist *add, vlist *del, vlist *sorted_orig,
                                 const smp_value *orig, const smp_value *mod, dopts o)
{
	vlist os, ms;
	size_t oi = 0, mi = 0;
	smp_skey ok, mkk;
	int rc;

	if ((rc = smp__vl_from_list(c, &os, orig)) || (rc = smp__vl_from_list(c, &ms, mod)))
		return rc;
	if ((rc = smp__sort_scalars(c, os.v, os.n)) || (rc = smp__sort_scalars(c, ms.v, ms.n)))
		return rc;
	while (oi < os.n || mi < ms.n) {
		int cmp = 0;
		if (oi < os.n && (rc = smp__gov_key(c, os.v[oi], &ok)))
			return rc;
		if (mi < ms.n && (rc = smp__gov_key(c, ms.v[mi], &mkk)))
			return rc;
		if (oi < os.n && mi < ms.n)
			cmp = skey_cmp(&ok, &mkk);
		if (oi < os.n && mi < ms.n && cmp == 0) {
			oi++;
			mi++;
		} else if (oi >= os.n || cmp > 0) {
			if (!o.ignore_changes) {
				smp_value *cv = dcopy(c, ms.v[mi]);
				if (!cv || (rc = vl_push(c, add, cv)))
					return SMP_ENOMEM;
			}
			mi++;
		} else {
			if (!o.ignore_deletions) {
				smp_value *cv = dcopy(c, os.v[oi]);
				if (!cv || (rc = vl_push(c, del, cv)))
					return SMP_ENOMEM;
			}
			oi++;
		}
	}
	del->n = smp__dedup_scalars(c, del->v, del->n);
	*sorted_orig = os;
	return 0;
}

/* diffLists: the add/change list, the primitive deletion list and the
 * $setElementOrder list (each may come back empty). */
static int diff_lists(sctx *c, vlist *add, vlist *del, smp_value **order,
                      const smp_value *orig, const smp_value *mod, const smp_stype *t,
                      const char *mk, dopts o)
{
	smp_type kind;
	vlist modl;
	int rc;

	memset(add, 0, sizeof(*add));
	memset(del, 0, sizeof(*del));
	*order = NULL;
	if (orig->u.list.len == 0) {
		if (mod->u.list.len == 0 || o.ignore_changes)
			return 0;
		/* The reference adds the whole list unchecked, and its apply
		 * then refuses items of different types (its first check, with
		 * the apply's message) and map items without the merge key:
		 * refuse that patch here, as diffLists would for a non-empty
		 * original. Lists of scalars merge. */
		bool maps = false;
		if ((rc = smp__slice_elem_type(c, orig, mod, &kind)))
			return rc;
		for (size_t i = 0; *mk && i < mod->u.list.len; i++)
			maps = maps || mod->u.list.items[i]->type == SMP_MAP;
		for (size_t i = 0; maps && i < mod->u.list.len; i++) {
			const smp_value *kv;
			if ((rc = elem_mk(c, mod->u.list.items[i], mk, &kv)))
				return rc;
		}
		for (size_t i = 0; i < mod->u.list.len; i++) {
			smp_value *cv = dcopy(c, mod->u.list.items[i]);
			if (!cv || (rc = vl_push(c, add, cv)))
				return SMP_ENOMEM;
		}
		return 0;
	}
	if ((rc = smp__slice_elem_type(c, orig, mod, &kind)))
		return rc;
	if ((rc = smp__vl_from_list(c, &modl, mod)))
		return rc;
	if (kind == SMP_MAP) {
		vlist dels = {0};
		bool same = orig->u.list.len == mod->u.list.len;
		const smp_value **okv = NULL, **mkv = NULL;
		long *apos = NULL;
		bool mod_distinct = false, plain = true;
		if ((rc = diff_lists_of_maps(c, add, &dels, orig, mod, t, mk, o, &okv, &mkv, &apos,
		                             &mod_distinct)))
			return rc;
		/* normalizeSliceOrder(add, mod): every item came from a mod element
		 * (the walk checked they all have the key); with mod's keys
		 * distinct, an item's first position there is its element's, and
		 * with no "$patch: delete" item (those go last) the stable sort by
		 * those positions is the answer, without an index over mod. */
		for (size_t i = 0; plain && i < add->n; i++)
			plain = !smpv_is_str(smp__mget(add->v[i], DIRECTIVE_MARKER), "delete");
		if (mod_distinct && plain && !c->general) {
			smp_go_stable_by_index((void **)add->v, apos, add->n);
		} else {
			modl.k = mkv; /* the order list's merge keys are known */
			if ((rc = smp__normalize_slice_order(c, add, &modl, mk, true)))
				return rc;
		}
		/* isOrderSame */
		for (size_t i = 0; same && i < mod->u.list.len; i++) {
			const smp_value *a = okv[i], *b = mkv[i];
			if ((!a && (rc = elem_mk(c, orig->u.list.items[i], mk, &a))) ||
			    (!b && (rc = elem_mk(c, mod->u.list.items[i], mk, &b))))
				return rc;
			same = smpv_equal(a, b);
		}
		for (size_t i = 0; i < dels.n; i++)
			if ((rc = vl_push(c, add, dels.v[i])))
				return rc;
		if (o.set_element_order &&
		    ((!o.ignore_changes && (add->n > 0 || !same)) ||
		     (!o.ignore_deletions && add->n > 0)) && mod->u.list.len > 0) {
			smp_value *l = smpv_list(c->a, mod->u.list.len);
			if (!l)
				return smp__snomem(c);
			for (size_t i = 0; i < mod->u.list.len; i++) {
				smp_value *m = smpv_map(c->a, 1), *cv;
				const smp_value *mv = mkv[i];
				cv = mv ? dcopy(c, mv) : smpv_null(c->a);
				size_t klen;
				const char *key = mk_key(c, mk, &klen);
				if (!m || !cv || !key || smpv_map_add(c->a, m, key, klen, cv) ||
				    smpv_list_add(c->a, l, m))
					return smp__snomem(c);
			}
			*order = l;
		}
		return 0;
	}
	if (*mk && !smpv_equal(orig, mod)) {
		/* The schema merges this list by key, but its items are not maps.
		 * The reference's diff takes them for scalars and emits a patch
		 * that its own apply (and ours) refuses; refuse it here instead,
		 * with an error naming the list. */
		return smp__sfail(c, SMP_EPATCH,
		                   "cannot diff: the list is merged by the key \"%s\" but holds a %s, "
		                   "not a map",
		                   mk, smp_go_type_name(orig->u.list.items[0]));
	}
	vlist sorted;
	if ((rc = diff_lists_of_scalars(c, add, del, &sorted, orig, mod, o)))
		return rc;
	if ((rc = smp__normalize_slice_order(c, add, &modl, "", false)))
		return rc;
	/* reflect.DeepEqual(original, modified) sees the original sorted. */
	bool same = sorted.n == mod->u.list.len;
	for (size_t i = 0; same && i < sorted.n; i++)
		same = smpv_equal(sorted.v[i], mod->u.list.items[i]);
	if (o.set_element_order && ((!o.ignore_deletions && del->n > 0) ||
	                            (!o.ignore_changes && !same)) &&
	    mod->u.list.len > 0) {
		*order = dcopy(c, mod);
		if (!*order)
			return SMP_ENOMEM;
	}
	return 0;
}

static int handle_slice_diff(sctx *c, smp_value *patch, const char *key, size_t klen,
                             const smp_value *ov, const smp_value *mv, const smp_stype *t,
                             dopts o)
{
	pmeta m;
	int rc = smp__lookup_slice(c, t, key, klen, &m);

	if (rc)
		return smpv_equal(ov, mv) ? 0 : rc;
	if (m.merge) {
		vlist add, del;
		smp_value *order;
		o.build_retain_keys = m.retain;
		if ((rc = diff_lists(c, &add, &del, &order, ov, mv, m.sub, m.mk, o)))
			return rc;
		if (add.n > 0 && (rc = pset(c, patch, key, klen, smp__vl_to_list(c, &add))))
			return rc;
		if (del.n > 0 && (rc = pset_prefixed(c, patch, DELETE_FROM_PRIMITIVE_PREFIX, key, klen,
		                                     smp__vl_to_list(c, &del))))
			return rc;
		if (order && (rc = pset_prefixed(c, patch, SET_ELEMENT_ORDER_PREFIX, key, klen, order)))
			return rc;
		return 0;
	}
	if (!o.ignore_changes && !smpv_equal(ov, mv))
		return pset(c, patch, key, klen, dcopy(c, mv));
	return 0;
}

static int handle_map_diff(sctx *c, smp_value *patch, const char *key, size_t klen,
                           const smp_value *ov, const smp_value *mv, const smp_stype *t,
                           dopts o)
{
	pmeta m;
	smp_value *pv;
	int rc = smp__lookup_struct(c, t, key, klen, &m);

	if (rc)
		return smpv_equal(ov, mv) ? 0 : rc;
	o.build_retain_keys = m.retain;
	if (m.replace)
		return o.ignore_changes ? 0 : pset(c, patch, key, klen, dcopy(c, mv));
	if ((rc = diff_maps(c, &pv, ov, mv, m.sub, o)))
		return rc;
	if (pv->u.map.len > 0)
		return pset(c, patch, key, klen, pv);
	return 0;
}

/* Key lookups for diff_maps. Configuration, last-applied and live object
 * nearly always list keys in the same order, so the key after the last one
 * found is tried first: the walks stay sequential (cache-friendly, no
 * random probes into a table the size of the map). Only when that fails is
 * the map looked at once: keys in strictly increasing byte order (what Go
 * and kubectl print) are searched from the hint by galloping; other maps
 * get a hash index. Map keys are unique (the parser keeps the last of
 * duplicates, the engine never adds a key twice), so the key at the hint is
 * the one the index would find; if an index finds duplicates anyway, the
 * hints are no longer trusted. */
typedef struct lazy_ix {
	const smp_value *map;
	smp_kindex ix;
	enum { LIX_NONE, LIX_SORTED, LIX_HASH } mode;
	size_t hint;
} lazy_ix;

static void lix_init(lazy_ix *l, const smp_value *map)
{
	l->map = map;
	l->mode = LIX_NONE;
	l->hint = 0;
}

/* Entry index of key or -1; -2 when out of memory. */
static long lix_find(sctx *c, lazy_ix *l, const char *key, size_t klen)
{
	const smp_value *m = l->map;
	const smp_member *it = m->u.map.items;
	size_t h = l->hint, n = m->u.map.len;
	long r;

	if (h < n && !(l->mode == LIX_HASH && l->ix.dup) && it[h].klen == klen &&
	    memcmp(it[h].key, key, klen) == 0) {
		l->hint = h + 1;
		return (long)h;
	}
	if (l->mode == LIX_NONE) {
		l->mode = smp_keys_sorted(m, n) ? LIX_SORTED : LIX_HASH;
		if (l->mode == LIX_HASH && smp_kindex_init(&l->ix, c->tmp, m))
			return -2;
	}
	if (l->mode == LIX_SORTED) {
		r = smp_sorted_find(m, n, key, klen, h);
		if (r >= 0)
			l->hint = (size_t)r + 1;
		return r;
	}
	r = smp_kindex_find(&l->ix, key, klen);
	if (r >= 0)
		l->hint = (size_t)r + 1;
	return r;
}

/* updatePatchIfMissing and hasAdditionalNewField: each key of orig that
 * mod lacks is a null in the patch (unless deletions are ignored);
 * *additional when one of them held a value. seen[i]: a key of mod found
 * orig's entry i (an index of orig that met duplicate keys asks an index
 * of mod instead). */
static int missing_keys(sctx *c, smp_value *patch, const smp_value *orig, const smp_value *mod,
                        const bool *seen, const lazy_ix *oix, dopts o, bool *additional)
{
	smp_kindex mix;
	bool mix_built = false;

	for (size_t i = 0; i < orig->u.map.len; i++) {
		const smp_member *e = &orig->u.map.items[i];

		if (seen[i])
			continue;
		if (oix->mode == LIX_HASH && oix->ix.dup) {
			if (!mix_built && smp_kindex_init(&mix, c->tmp, mod))
				return smp__snomem(c);
			mix_built = true;
			if (smp_kindex_find(&mix, e->key, e->klen) >= 0)
				continue;
		}
		if (e->val->type != SMP_NULL)
			*additional = true;
		if (!o.ignore_deletions) {
			smp_value *n = smpv_null(c->a);

			if (!n || smpv_map_add_copy(c->a, patch, e->key, e->klen, n))
				return smp__snomem(c);
		}
	}
	return 0;
}

/* $retainKeys: the non-null keys of modified, sorted (the patch says
 * something, or original has more keys to clear). */
static int add_retain_keys(sctx *c, smp_value *patch, const smp_value *mod)
{
	vlist retain = {0};
	smp_value *l;
	int rc;

	for (size_t i = 0; i < mod->u.map.len; i++) {
		const smp_member *e = &mod->u.map.items[i];
		smp_value *k;

		if (e->val->type == SMP_NULL)
			continue;
		k = smpv_str(c->a, e->key, e->klen);
		if (!k || vl_push(c, &retain, k))
			return smp__snomem(c);
	}
	if (retain.n == 0)
		return 0;
	if ((rc = smp__sort_scalars(c, retain.v, retain.n)))
		return rc;
	l = smp__vl_to_list(c, &retain);
	if (!l || smpv_map_add(c->a, patch, RETAIN_KEYS_DIRECTIVE, strlen(RETAIN_KEYS_DIRECTIVE), l))
		return smp__snomem(c);
	return 0;
}

/* diffMaps: the patch that turns orig into mod under the type t, key by
 * key (a nested map or list by its own diff, $patch compared as a value,
 * a value of another type replaced whole), then the keys mod lacks
 * (nulls) and $retainKeys where the schema asks for it. */
static int diff_maps(sctx *c, smp_value **out, const smp_value *orig, const smp_value *mod,
                     const smp_stype *t, dopts o)
{
	/* Most maps compared have no difference: the patch is built in a local
	 * value and gets its node in c->a only when it is not empty (or is the
	 * result of the whole diff); an empty nested patch is the operation's
	 * shared empty map, which callers only test for emptiness. */
	smp_value patch_v, *patch = &patch_v;
	bool top = c->depth == 0;
	lazy_ix oix;
	bool *seen;      /* orig entries some key of mod found */
	smp_mmark mark;
	int rc = 0;

	*out = NULL;
	if (++c->depth > SMP_DEPTH_MERGE) {
		c->depth--;
		return smp__sfail(c, SMP_ELIMIT, "document nested too deeply");
	}
	/* scratch taken from here on is given back on return (the patch
	 * lives in c->a; lookup indices in c->tmp) */
	mark = sc_mark(c);
	memset(&patch_v, 0, sizeof(patch_v));
	patch_v.type = SMP_MAP;
	seen = sc_alloc(c, orig->u.map.len + 1);
	if (!seen) {
		rc = smp__snomem(c);
		goto out;
	}
	memset(seen, 0, orig->u.map.len + 1);
	lix_init(&oix, orig);
	for (size_t i = 0; i < mod->u.map.len; i++) {
		const smp_member *e = &mod->u.map.items[i];
		const smp_value *mv = e->val, *ov;
		long oi;
		size_t pl;

		oi = lix_find(c, &oix, e->key, e->klen);
		if (oi == -2) {
			rc = smp__snomem(c);
			goto out;
		}
		if (oi >= 0)
			seen[oi] = true;
		if (oi < 0) {
			if (!o.ignore_changes && (rc = pset(c, patch, e->key, e->klen, dcopy(c, mv))))
				goto out;
			continue;
		}
		ov = orig->u.map.items[oi].val;
		pl = smp__spush_key(c, e->key, e->klen);
		if (e->klen == 6 && memcmp(e->key, DIRECTIVE_MARKER, 6) == 0) {
			if (ov->type != SMP_STRING || mv->type != SMP_STRING) {
				rc = smp__sfail(c, SMP_EPATCH, "invalid value for special key: %s", DIRECTIVE_MARKER);
				goto out;
			}
			if (!smpv_equal(ov, mv) && (rc = pset(c, patch, e->key, e->klen, dcopy(c, mv))))
				goto out;
			smp__spop(c, pl);
			continue;
		}
		if (ov->type != mv->type) {
			if (!o.ignore_changes && (rc = pset(c, patch, e->key, e->klen, dcopy(c, mv))))
				goto out;
			smp__spop(c, pl);
			continue;
		}
		switch (ov->type) {
		case SMP_MAP:
			rc = handle_map_diff(c, patch, e->key, e->klen, ov, mv, t, o);
			break;
		case SMP_LIST: {
			smp_mmark lm = sc_mark(c);
			rc = handle_slice_diff(c, patch, e->key, e->klen, ov, mv, t, o);
			sc_reset(c, lm);
			break;
		}
		default:
			if (!o.ignore_changes && !smpv_equal(ov, mv))
				rc = pset(c, patch, e->key, e->klen, dcopy(c, mv));
			break;
		}
		if (rc)
			goto out;
		smp__spop(c, pl);
	}
	/* updatePatchIfMissing and hasAdditionalNewField; $retainKeys */
	bool additional = false;
	if ((rc = missing_keys(c, patch, orig, mod, seen, &oix, o, &additional)) ||
	    (o.build_retain_keys && (patch->u.map.len > 0 || additional) &&
	     (rc = add_retain_keys(c, patch, mod))))
		goto out;
	if (patch_v.u.map.len == 0 && !top) {
		if (!c->empty_map && !(c->empty_map = smpv_map(c->a, 0))) {
			rc = smp__snomem(c);
			goto out;
		}
		*out = c->empty_map;
	} else {
		smp_value *r = smpv_map(c->a, 0);
		if (!r) {
			rc = smp__snomem(c);
			goto out;
		}
		r->u = patch_v.u;
		*out = r;
	}
out:
	sc_reset(c, mark);
	c->depth--;
	return rc;
}

/* ---- conflicts (MergingMapsHaveConflicts) ---- */

static int field_conflicts(sctx *c, bool *res, const smp_value *l, const smp_value *r,
                           const smp_stype *t, bool replace, bool merge, const char *mk);

/* mergingMapsHaveConflicts for two maps: a key both set differently
 * (directives compared as values, nested maps and lists by their own
 * rules). */
static int maps_conflict(sctx *c, bool *res, const smp_value *l, const smp_value *r,
                         const smp_stype *t)
{
	smp_kindex rix;
	int rc;

	if (smp_kindex_init(&rix, c->tmp, r))
		return smp__snomem(c);
	for (size_t i = 0; i < l->u.map.len; i++) {
		const smp_member *e = &l->u.map.items[i];
		long ri;
		pmeta m;
		size_t pl;

		if ((e->klen == 6 && memcmp(e->key, DIRECTIVE_MARKER, 6) == 0) ||
		    (e->klen == 11 && memcmp(e->key, RETAIN_KEYS_DIRECTIVE, 11) == 0))
			continue;
		ri = smp_kindex_find(&rix, e->key, e->klen);
		if (ri < 0)
			continue;
		pl = smp__spush_key(c, e->key, e->klen);
		memset(&m, 0, sizeof(m));
		m.mk = "";
		if (e->val->type == SMP_LIST)
			rc = smp__lookup_slice(c, t, e->key, e->klen, &m);
		else if (e->val->type == SMP_MAP)
			rc = smp__lookup_struct(c, t, e->key, e->klen, &m);
		else
			rc = 0;
		if (rc) {
			*res = true;
			return rc;
		}
		if ((rc = field_conflicts(c, res, e->val, r->u.map.items[ri].val, m.sub, m.replace,
		                          m.merge, m.mk)))
			return rc;
		if (*res)
			return 0;
		smp__spop(c, pl);
	}
	*res = false;
	return 0;
}

/* sliceOfMapsToMapOfMaps: keyed by "%s" of the merge key, last one wins. */
static int slice_to_map(sctx *c, smp_value **out, const smp_value *l, const char *mk)
{
	smp_value *m = smpv_map(c->tmp, l->u.list.len);
	smp_kindex ix;

	if (!m || smp_kindex_init(&ix, c->tmp, m))
		return smp__snomem(c);
	for (size_t i = 0; i < l->u.list.len; i++) {
		const smp_value *e = l->u.list.items[i], *mv;
		smp_buf b;
		long at;
		if (e->type != SMP_MAP)
			return smp__sfail(c, SMP_EPATCH, "invalid element type in merging list");
		mv = smp__mk_value(e, mk);
		if (!mv)
			return smp__sfail(c, SMP_EPATCH, "cannot find merge key `%s` in merging list element",
			                   mk);
		smp_buf_init(&b);
		smp_gofmt_s(&b, mv);
		if (b.oom)
			return smp__snomem(c);
		at = smp_kindex_find(&ix, b.ptr ? b.ptr : "", b.len);
		if (at >= 0) {
			m->u.map.items[at].val = (smp_value *)e;
		} else if (smpv_map_add_copy(c->tmp, m, b.ptr ? b.ptr : "", b.len, (smp_value *)e) ||
		           smp_kindex_added(&ix)) {
			smp_buf_release(&b);
			return smp__snomem(c);
		}
		smp_buf_release(&b);
	}
	*out = m;
	return 0;
}

/* mergingMapsHaveConflicts for two lists: merged lists of maps by merge
 * key, merged scalars as sets, others element by element. */
static int slices_conflict(sctx *c, bool *res, const smp_value *l, const smp_value *r,
                           const smp_stype *t, bool merge, const char *mk)
{
	smp_type kind;
	int rc = smp__slice_elem_type(c, l, r, &kind);

	if (rc) {
		*res = true;
		return rc;
	}
	if (merge) {
		smp_value *lm, *rm;
		if (kind != SMP_MAP) {
			*res = false;
			return 0;
		}
		if ((rc = slice_to_map(c, &lm, l, mk)) || (rc = slice_to_map(c, &rm, r, mk))) {
			*res = true;
			return rc;
		}
		smp_kindex rix;
		if (smp_kindex_init(&rix, c->tmp, rm))
			return smp__snomem(c);
		for (size_t i = 0; i < lm->u.map.len; i++) {
			long ri = smp_kindex_find(&rix, lm->u.map.items[i].key, lm->u.map.items[i].klen);
			if (ri < 0)
				continue;
			if ((rc = field_conflicts(c, res, lm->u.map.items[i].val, rm->u.map.items[ri].val,
			                          t, false, false, "")) || *res)
				return rc;
		}
		*res = false;
		return 0;
	}
	if (l->u.list.len != r->u.list.len) {
		*res = true;
		return 0;
	}
	vlist ll, rl;
	if ((rc = smp__vl_from_list(c, &ll, l)) || (rc = smp__vl_from_list(c, &rl, r)))
		return rc;
	if (kind != SMP_MAP) {
		ll.n = smp__dedup_scalars(c, ll.v, ll.n);
		rl.n = smp__dedup_scalars(c, rl.v, rl.n);
		if ((rc = smp__sort_scalars(c, ll.v, ll.n)) || (rc = smp__sort_scalars(c, rl.v, rl.n)))
			return rc;
		if (c->patch_lists_mutable) {
			/* deduplicateAndSortScalars works in place on the patch's
			 * slice, and the reference then marshals that patch: its
			 * list comes out deduplicated-and-sorted in front, with the
			 * swapped-out tail behind (same length). */
			smp_value *lm = (smp_value *)l;
			for (size_t i = 0; i < lm->u.list.len; i++)
				lm->u.list.items[i] = ll.v[i];
		}
		if (ll.n != rl.n) {
			*res = true;
			return 0;
		}
	}
	for (size_t i = 0; i < ll.n; i++)
		if ((rc = field_conflicts(c, res, ll.v[i], rl.v[i], t, false, false, "")) || *res)
			return rc;
	*res = false;
	return 0;
}

/* Whether one field's two values conflict: different types, different
 * scalars, or (recursively) maps and lists that do. */
static int field_conflicts(sctx *c, bool *res, const smp_value *l, const smp_value *r,
                           const smp_stype *t, bool replace, bool merge, const char *mk)
{
	int rc;

	if (++c->depth > SMP_DEPTH_MERGE) {
		c->depth--;
		return smp__sfail(c, SMP_ELIMIT, "document nested too deeply");
	}
	switch (l->type) {
	case SMP_MAP: {
		const smp_value *lm, *rm;
		if (r->type != SMP_MAP) {
			*res = true;
			rc = 0;
			break;
		}
		lm = smp__mget(l, DIRECTIVE_MARKER);
		rm = smp__mget(r, DIRECTIVE_MARKER);
		if ((lm || rm) && (!lm || !rm || !smpv_equal(lm, rm))) {
			*res = true;
			rc = 0;
			break;
		}
		if (replace) {
			*res = false;
			rc = 0;
			break;
		}
		rc = maps_conflict(c, res, l, r, t);
		break;
	}
	case SMP_LIST:
		if (r->type != SMP_LIST) {
			*res = true;
			rc = 0;
			break;
		}
		rc = slices_conflict(c, res, l, r, t, merge, mk);
		break;
	default:
		*res = !smpv_equal(l, r);
		rc = 0;
		break;
	}
	c->depth--;
	return rc;
}

int smp_sm_conflicts(bool *conflict, const smp_value *left, const smp_value *right,
                     const smp_stype *root, smp_error *err)
{
	smp_arena tmp;
	sctx c;
	int rc;

	smp_arena_init(&tmp);
	smp__sctx_init(&c, &tmp, &tmp, err);
	*conflict = false;
	rc = field_conflicts(&c, conflict, left, right, root, false, false, "");
	smp_arena_release(&tmp);
	return rc;
}

/* ---- entry points ---- */

static const smp_value *as_map(const smp_value *v, smp_arena *a)
{
	if (v && v->type == SMP_MAP)
		return v;
	return smpv_map(a, 0);
}

static int check_map_arg(const smp_value *v, const char *what, smp_error *err)
{
	if (v && v->type != SMP_MAP && v->type != SMP_NULL)
		return smp__err(err, SMP_EPARSE,
		                "invalid JSON document: %s must be a map, not %s", what,
		                smp_go_type_name(v));
	return 0;
}

int smp_sm_diff2(smp_value **out, smp_arena *a, const smp_value *original,
                 const smp_value *modified, const smp_stype *root, smp_error *err)
{
	smp_arena tmp;
	smp_mscratch scr;
	sctx c;
	dopts o = {true, false, false, false};
	int rc;

	*out = NULL;
	if ((rc = check_map_arg(original, "the original", err)) ||
	    (rc = check_map_arg(modified, "the modified document", err)))
		return rc;
	smp_arena_init(&tmp);
	smp_mscratch_init(&scr);
	smp__sctx_init(&c, a, &tmp, err);
	c.s = &scr;
	original = as_map(original, &tmp);
	modified = as_map(modified, &tmp);
	if (!original || !modified)
		rc = smp__snomem(&c);
	else
		rc = diff_maps(&c, out, original, modified, root, o);
	smp_mscratch_free(&scr);
	smp_arena_release(&tmp);
	return rc;
}

/* "At least one of apiVersion, kind and name was changed" (kubectl): the
 * field the patch changes, named in the error's path, or NULL. */
static const char *precondition_broken(const smp_value *patch)
{
	const smp_value *md;

	if (smp__mget(patch, "apiVersion"))
		return "apiVersion";
	if (smp__mget(patch, "kind"))
		return "kind";
	md = smp__mget(patch, "metadata");
	return md && md->type == SMP_MAP && smp__mget(md, "name") ? "metadata.name" : NULL;
}

static void put_compact(smp_buf *b, const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *s = NULL;
	size_t n = 0;

	po.sort_keys = true;
	if (smp_print(&s, &n, v, &po, NULL) == 0) {
		smp_buf_put(b, s, n > 400 ? 400 : n);
		if (n > 400)
			smp_buf_puts(b, "...");
	}
	smp_free(s);
}

int smp_conflict_error(smp_error *err, const smp_value *patch, const smp_value *changed)
{
	smp_buf b;
	int rc;

	smp_buf_init(&b);
	smp_buf_puts(&b, "conflict: patch ");
	put_compact(&b, patch);
	smp_buf_puts(&b, " conflicts with changes made from original to current: ");
	put_compact(&b, changed);
	rc = smp__err(err, SMP_ECONFLICT, "%s", b.ptr ? b.ptr : "conflict");
	smp_buf_release(&b);
	return rc;
}

/* CreateThreeWayMergePatch: the deletions (original to modified) and the
 * changes (current to modified) merged into one patch; with overwrite
 * false, refused when it conflicts with what changed in current since
 * original. */
static int sm_diff3(smp_value **out, smp_arena *a, const smp_value *original,
                    const smp_value *modified, const smp_value *current,
                    const smp_stype *root, bool overwrite, bool general, smp_error *err)
{
	smp_arena tmp;
	smp_mscratch scr;
	sctx c;
	dopts delta_o = {true, false, true, false};
	dopts del_o = {true, true, false, false};
	dopts changed_o = {false, false, false, false};
	smp_value *delta, *dels, *patch, *changed;
	int rc;

	*out = NULL;
	if ((rc = check_map_arg(original, "the original", err)) ||
	    (rc = check_map_arg(modified, "the modified document", err)) ||
	    (rc = check_map_arg(current, "the current object", err)))
		return rc;
	smp_arena_init(&tmp);
	smp_mscratch_init(&scr);
	smp__sctx_init(&c, a, &tmp, err);
	c.s = &scr;
	c.general = general;
	original = as_map(original, &tmp);
	modified = as_map(modified, &tmp);
	current = as_map(current, &tmp);
	if (!original || !modified || !current) {
		rc = smp__snomem(&c);
		goto out;
	}
	/* The delta patch is only read, by the merge below, which copies what
	 * it takes into `a`: it is built in tmp and references modified's
	 * values instead of copying them (a changed 5 MB annotation is then
	 * copied once, not twice). The deletions patch is the merge's target,
	 * changed in place: built in `a`, with copies. */
	c.a = &tmp;
	c.ref_copies = true;
	rc = diff_maps(&c, &delta, current, modified, root, delta_o);
	c.a = a;
	c.ref_copies = false;
	if (rc)
		goto out;
	if ((rc = diff_maps(&c, &dels, original, modified, root, del_o)))
		goto out;
	c.mpl = false;
	c.iun = false;
	smp__spop(&c, 0);
	if ((rc = smp_merge_map(&c, &patch, dels, delta, root)))
		goto out;
	c.patch_lists_mutable = true;
	const char *field = precondition_broken(patch);
	if (field) {
		rc = smp__err_path(err, SMP_EPRECOND, field,
		                   "At least one of apiVersion, kind and name was changed");
		goto out;
	}
	if (!overwrite) {
		bool conflict = false;
		smp__spop(&c, 0);
		if ((rc = diff_maps(&c, &changed, original, current, root, changed_o)))
			goto out;
		smp__spop(&c, 0);
		if ((rc = field_conflicts(&c, &conflict, patch, changed, root, false, false, "")))
			goto out;
		if (conflict) {
			rc = smp_conflict_error(err, patch, changed);
			goto out;
		}
	}
	*out = patch;
out:
	smp_mscratch_free(&scr);
	smp_arena_release(&tmp);
	return rc;
}

int smp_sm_diff3(smp_value **out, smp_arena *a, const smp_value *original,
                 const smp_value *modified, const smp_value *current,
                 const smp_stype *root, bool overwrite, smp_error *err)
{
	return sm_diff3(out, a, original, modified, current, root, overwrite, false, err);
}

int smp_sm_diff3_test(smp_value **out, smp_arena *a, const smp_value *original,
                      const smp_value *modified, const smp_value *current,
                      const smp_stype *root, bool overwrite, bool general, smp_error *err)
{
	return sm_diff3(out, a, original, modified, current, root, overwrite, general, err);
}

/* ---- sortMergeListsByName (reference test helper) ---- */

static int sort_map(sctx *c, smp_value **out, const smp_value *m, const smp_stype *t);

/* A list in the reference's sorted order (sortMergeListsByName): maps
 * by merge key, scalars by value, each element sorted within. */
static int sort_array(sctx *c, smp_value **out, const smp_value *l, const smp_stype *t,
                      const char *mk)
{
	smp_type kind;
	vlist v;
	int rc;

	if (l->u.list.len == 0) {
		*out = dcopy(c, l);
		return *out ? 0 : SMP_ENOMEM;
	}
	if ((rc = smp__slice_elem_type(c, l, NULL, &kind)) || (rc = smp__vl_from_list(c, &v, l)))
		return rc;
	if (kind != SMP_MAP) {
		v.n = smp__dedup_scalars(c, v.v, v.n);
		if ((rc = smp__sort_scalars(c, v.v, v.n)))
			return rc;
		for (size_t i = 0; i < v.n; i++)
			if (!(v.v[i] = dcopy(c, v.v[i])))
				return SMP_ENOMEM;
		*out = smp__vl_to_list(c, &v);
		return *out ? 0 : SMP_ENOMEM;
	}
	for (size_t i = 0; i < v.n; i++)
		if ((rc = sort_map(c, &v.v[i], v.v[i], t)))
			return rc;
	smp_value tmpl;
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.type = SMP_LIST;
	tmpl.u.list.items = v.v;
	tmpl.u.list.len = v.n;
	size_t *idx;
	smp_skey *keys;
	const smp_value **kv;
	bool distinct;
	if ((rc = sort_by_mk(c, &tmpl, mk, &idx, &keys, &kv, &distinct)))
		return rc;
	smp_value *r = smpv_list(c->a, v.n);
	if (!r)
		return smp__snomem(c);
	for (size_t i = 0; i < v.n; i++)
		r->u.list.items[i] = v.v[idx[i]];
	r->u.list.len = v.n;
	*out = r;
	return 0;
}

/* A map with its lists sorted as sortMergeListsByName sorts them (the
 * order the conflict check compares in). */
static int sort_map(sctx *c, smp_value **out, const smp_value *m, const smp_stype *t)
{
	smp_value *r = smpv_map(c->a, m->u.map.len);
	int rc;

	if (!r)
		return smp__snomem(c);
	for (size_t i = 0; i < m->u.map.len; i++) {
		const smp_member *e = &m->u.map.items[i];
		smp_value *v = NULL;
		pmeta pm;
		if (e->klen == 11 && memcmp(e->key, RETAIN_KEYS_DIRECTIVE, 11) == 0) {
			vlist l;
			if (e->val->type != SMP_LIST)
				return smp__sfail(c, SMP_EPATCH, "invalid patch format of retainKeys");
			if ((rc = smp__vl_from_list(c, &l, e->val)) || (rc = smp__sort_scalars(c, l.v, l.n)))
				return rc;
			v = smp__vl_to_list(c, &l);
		} else if (smp__has_prefix(e->key, e->klen, DELETE_FROM_PRIMITIVE_PREFIX)) {
			vlist l;
			if (e->val->type != SMP_LIST)
				return smp__sfail(c, SMP_EPATCH, "invalid patch format of primitive list");
			if ((rc = smp__vl_from_list(c, &l, e->val)) || (rc = smp__sort_scalars(c, l.v, l.n)))
				return rc;
			v = smp__vl_to_list(c, &l);
		} else if (smp__has_prefix(e->key, e->klen, SET_ELEMENT_ORDER_PREFIX)) {
			if (e->val->type != SMP_LIST)
				return smp__sfail(c, SMP_EPATCH, "invalid patch format of setElementOrder list");
			v = dcopy(c, e->val);
		} else if (!(e->klen == 6 && memcmp(e->key, DIRECTIVE_MARKER, 6) == 0) &&
		           e->val->type == SMP_MAP) {
			if ((rc = smp__lookup_struct(c, t, e->key, e->klen, &pm)) ||
			    (rc = sort_map(c, &v, e->val, pm.sub)))
				return rc;
		} else if (!(e->klen == 6 && memcmp(e->key, DIRECTIVE_MARKER, 6) == 0) &&
		           e->val->type == SMP_LIST) {
			if ((rc = smp__lookup_slice(c, t, e->key, e->klen, &pm)))
				return rc;
			if (pm.merge)
				rc = sort_array(c, &v, e->val, pm.sub, pm.mk);
			else
				v = dcopy(c, e->val);
			if (rc)
				return rc;
		} else {
			v = dcopy(c, e->val);
		}
		if (!v || smpv_map_add_copy(c->a, r, e->key, e->klen, v))
			return smp__snomem(c);
	}
	*out = r;
	return 0;
}

int smp_sm_sort_merge_lists(smp_value **out, smp_arena *a, const smp_value *doc,
                            const smp_stype *root, smp_error *err)
{
	smp_arena tmp;
	sctx c;
	int rc;

	smp_arena_init(&tmp);
	smp__sctx_init(&c, a, &tmp, err);
	if (!doc || doc->type != SMP_MAP)
		rc = smp__sfail(&c, SMP_EPARSE, "invalid JSON document");
	else
		rc = sort_map(&c, out, doc, root);
	smp_arena_release(&tmp);
	return rc;
}
