/*
 * smp_apply.c - applying a strategic merge patch: the reference's mergeMap,
 * mergeSlice and their helpers (k8s.io/apimachinery strategicpatch, v0.36
 * semantics), rewritten over our value tree.
 *
 * The target is deep-copied into the result arena first and then changed in
 * place (smp_sm_apply_inplace skips the copy: its caller gives up the
 * target); patch values are copied when they are taken, so the patch is
 * never written. Maps being changed keep deleted entries as tombstones
 * (val == NULL) until the end of mergeMap; large maps get a key index, and
 * list elements are matched through a hash index on merge-key values.
 */
#include "merge/smp_core.h"

#include <stdlib.h>
#include <string.h>

/* Prefetches the bytes of string value v (when v is one, already cached). */
static inline void prefetch_str(const smp_value *v)
{
	if (v && v->type == SMP_STRING)
		PREFETCH(v->u.s.ptr);
}

/* ---- a map being changed ---- */

/* Lookups go by position hint first (patch keys usually come in the
 * map's order), then, decided on the first miss: a map of more than 16
 * keys whose keys are sorted (as Go and kubectl print them) is searched by
 * galloping, with the keys added since in a small hash index; other maps
 * get a key index. Keys are unique (the parser keeps the last of
 * duplicates; we add a key only after a lookup missed), so the key at the
 * hint is the one an index would find. */
enum { WM_NONE, WM_SORTED, WM_HASH };

typedef struct wmap {
	smp_value *m;
	int mode;
	size_t n0;         /* entries when the map was taken (sorted prefix) */
	size_t hint;
	smp_kindex ix;     /* WM_HASH */
	smp_vindex tail;   /* WM_SORTED: keys added since (as string values) */
	size_t tail_max;
} wmap;

static void wm_init(wmap *w, smp_value *m, size_t patch_len)
{
	w->m = m;
	w->mode = WM_NONE;
	w->n0 = m->u.map.len;
	w->hint = 0;
	/* At most 2 additions per patch entry (a $setElementOrder directive
	 * and its list); more would switch to WM_HASH. */
	w->tail_max = 2 * patch_len + 4;
}

static bool wm_to_hash(sctx *c, wmap *w)
{
	if (smp_kindex_init(&w->ix, c->tmp, w->m))
		return false;
	w->mode = WM_HASH;
	return true;
}

static bool wm_tail_add(sctx *c, wmap *w, size_t i)
{
	smp_value *k;

	if (w->tail.n >= w->tail.max)
		return wm_to_hash(c, w);
	k = smp_arena_alloc(c->tmp, sizeof(*k));
	if (!k)
		return false;
	memset(k, 0, sizeof(*k));
	k->type = SMP_STRING;
	k->u.s.ptr = w->m->u.map.items[i].key;
	k->u.s.len = w->m->u.map.items[i].klen;
	smp_vindex_add(&w->tail, k, i);
	return true;
}

/* Entry index of key (live or tombstone), or -1. Out of memory while
 * building a structure falls back to a linear scan (still correct). */
static long wm_lookup(sctx *c, wmap *w, const char *key, size_t klen)
{
	const smp_value *m = w->m;
	const smp_member *it = m->u.map.items;
	size_t h = w->hint, n = m->u.map.len;
	long r = -1;

	if (h < n && it[h].klen == klen && memcmp(it[h].key, key, klen) == 0 &&
	    !(w->mode == WM_HASH && w->ix.dup)) {
		w->hint = h + 1;
		return (long)h;
	}
	if (w->mode == WM_NONE) {
		if (w->n0 > 16 && smp_keys_sorted(m, w->n0) &&
		    !smp_vindex_init(&w->tail, c->tmp, w->tail_max)) {
			w->mode = WM_SORTED;
			for (size_t i = w->n0; i < n; i++)
				if (!wm_tail_add(c, w, i))
					return (long)smpv_map_find(m, key, klen);
		} else if (!wm_to_hash(c, w)) {
			return (long)smpv_map_find(m, key, klen);
		}
	}
	if (w->mode == WM_SORTED) {
		r = smp_sorted_find(m, w->n0, key, klen, h < w->n0 ? h : w->n0);
		if (r < 0 && w->tail.n) {
			smp_value k;
			memset(&k, 0, sizeof(k));
			k.type = SMP_STRING;
			k.u.s.ptr = key;
			k.u.s.len = klen;
			r = smp_vindex_find(&w->tail, &k);
		}
	} else if (w->mode == WM_HASH) {
		r = smp_kindex_find(&w->ix, key, klen);
	}
	if (r >= 0)
		w->hint = (size_t)r + 1;
	return r;
}

/* Entry index of a live key, or -1. */
static long wm_find(sctx *c, wmap *w, const char *key, size_t klen)
{
	long i = wm_lookup(c, w, key, klen);
	return (i >= 0 && w->m->u.map.items[i].val) ? i : -1;
}

static int wm_set(sctx *c, wmap *w, const char *key, size_t klen, smp_value *val)
{
	long i = wm_lookup(c, w, key, klen);

	if (i >= 0) {
		w->m->u.map.items[i].val = val;
		return 0;
	}
	if (smpv_map_add_copy(c->a, w->m, key, klen, val))
		return smp__snomem(c);
	if (w->mode == WM_HASH && smp_kindex_added(&w->ix))
		return smp__snomem(c);
	if (w->mode == WM_SORTED && !wm_tail_add(c, w, w->m->u.map.len - 1))
		return smp__snomem(c);
	return 0;
}

static void wm_del(sctx *c, wmap *w, const char *key, size_t klen)
{
	long i = wm_lookup(c, w, key, klen);
	if (i >= 0)
		w->m->u.map.items[i].val = NULL;
}

static void wm_compact(smp_value *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->u.map.len; i++)
		if (m->u.map.items[i].val)
			m->u.map.items[k++] = m->u.map.items[i];
	m->u.map.len = k;
}

/* ---- copies of patch values ---- */

/* A copy of v in the result arena (NULL and ENOMEM recorded on failure). */
static smp_value *raw_copy(sctx *c, const smp_value *v)
{
	smp_value *r = smpv_copy(c->a, v);
	if (!r)
		smp__snomem(c);
	return r;
}

/* discardNullValuesFromPatch (when discard) followed by removeDirectives
 * (when strip), on a copy. *keep is false when the value itself is a map
 * carrying $patch. */
static smp_value *copy_clean(sctx *c, const smp_value *v, bool discard, bool strip,
                             bool *keep, unsigned depth)
{
	return smp_tree_copy_clean(c->a, v, discard, strip, keep, depth, SMP_DEPTH_MERGE, c->path,
	                           c->err);
}

/* ---- merging ---- */

/* What merge_set_element_order hands merge_slice for a list it is going to
 * order by a $setElementOrder list. */
typedef struct sorder {
	vlist view;             /* out: the Go alias view of orig, when computed */
	const smp_value *order; /* the $setElementOrder list, or NULL */
	const smp_value *const *okk; /* its items' merge-key values */
	bool usable;            /* every order element is a map with the merge key */
	bool ordered;           /* out: the result is already in its final order */
} sorder;

static int merge_slice(sctx *c, smp_value **out, smp_value *orig, const smp_value *patch,
                       const smp_stype *elem, const char *mk, bool is_delete_list,
                       sorder *so);

static int merge_slice_handler(sctx *c, smp_value **out, smp_value *orig,
                               const smp_value *patch, const pmeta *m, bool is_delete_list,
                               sorder *so)
{
	/* Delete lists are handled the same way whatever the strategy. */
	if (m->merge || is_delete_list)
		return merge_slice(c, out, orig, patch, m->sub, m->mk, is_delete_list, so);
	*out = raw_copy(c, patch);
	return *out ? 0 : SMP_ENOMEM;
}

/* The merge-key value of item (NULL when it is not a map or has none), and
 * whether it has a $patch key. */
static const smp_value *mk_scan(const smp_value *item, const char *mk, bool *directive)
{
	const smp_value *r = NULL;

	*directive = false;
	if (item->type != SMP_MAP)
		return NULL;
	for (size_t i = 0; i < item->u.map.len; i++) {
		const smp_member *e = &item->u.map.items[i];
		if (!r && mk_key_is(e, mk))
			r = e->val; /* the first, as mk_value */
		if (e->klen == sizeof(DIRECTIVE_MARKER) - 1 &&
		    memcmp(e->key, DIRECTIVE_MARKER, e->klen) == 0)
			*directive = true;
	}
	return r;
}

/*
 * The usual case of a list with $setElementOrder, ordered directly.
 * mergeSlice orders the merged list by the patch (partition and
 * normalizeElementOrder), and mergePatchIntoOriginal then orders that by
 * the $setElementOrder list: items present there by their first position in
 * it (a stable sort), the others (server-only items) interleaved by their
 * position in the original list. When
 *  - every merged item is a map with the merge key and without $patch
 *    (so none is a delete item, which would go last),
 *  - every one is found in the order list (no server-only items), no two
 *    with the same key,
 *  - and the validations those steps make would pass (the order list and
 *    the original list consist of maps with the merge key: checked by the
 *    caller and merge_slice, given as `usable` and `orig_keyed`),
 * the stable sort has no ties, so the result is the merged items by first
 * position in the order list, whatever order mergeSlice gave them. That is
 * a walk over the order list, looking each key up in merge_slice's index
 * of the merged items (`ix`, by merge keys as they were before merging;
 * with the position hint, a sequential walk when the lists line up),
 * taking each item the first time its key comes: the result is complete
 * when every item was taken (a key twice in the merged list leaves one
 * behind). mkeys/mdir: what mk_scan gave for merged items not changed since
 * (NULL: the item was merged into or copied; its key is checked against
 * the index's).
 *
 * Returns FO_ORDERED with the result in *out (or *rc set when out of
 * memory). FO_ANY_ORDER when the only obstacle is server-only items: the
 * keys are distinct (no key twice in the index, and every item not taken is
 * an original one not merged into: items merged into or added carry a
 * patch item's key, which the order list has), so the caller's ordering
 * sorts the items in the order list by distinct positions in it and the
 * server-only ones by distinct positions in the original list, and
 * interleaves the two: none of it depends on the order mergeSlice gave
 * them, which can be skipped. FO_GENERAL otherwise (nothing changed).
 *
 * One more shape is placed directly (the merge of a three-way diff's
 * deletions and changes): no original item is in the order list, the
 * original list is the caller's view of it (`plain`: no deletion
 * directives in the patch) and its keys are distinct. The items taken are
 * then all added ones, which the original list does not have, so the
 * interleaving puts all of them (sorted by the order list) before the
 * original items, which come in their own order (distinct positions),
 * except that those with "$patch: delete" go last. Original items with a
 * $patch key are allowed in that shape only.
 */
enum { FO_GENERAL, FO_ORDERED, FO_ANY_ORDER };

/* The merged list put in the order $setElementOrder gives without the
 * general normalizeElementOrder, when every element can be placed by its
 * merge key (see the comment above). */
static int fast_order(sctx *c, smp_value **out, const vlist *merged, const smp_vindex *ix,
                      const smp_value *const *mkeys, const bool *mdir, const char *mk,
                      const sorder *so, size_t nserver, bool plain, int *rc)
{
	size_t m = so->order->u.list.len, n = merged->n, hint = 0, taken = 0;
	const smp_value **cur;
	smp_value **res;
	bool *used, any_dir = false, orig_taken = false;
	smp_value *r;

	*rc = 0;
	*out = NULL;
	if (!so->usable)
		return FO_GENERAL;
	cur = sc_alloc(c, (n + 1) * sizeof(*cur));
	res = sc_alloc(c, (n + 1) * sizeof(*res));
	used = sc_alloc(c, n + 1);
	if (!cur || !res || !used)
		return FO_GENERAL; /* the general path reports it */
	memset(used, 0, n + 1);
	for (size_t i = 0; i < n; i++) {
		bool directive = mkeys[i] && mdir[i];
		cur[i] = mkeys[i] ? mkeys[i] : mk_scan(merged->v[i], mk, &directive);
		if (!cur[i] || (directive && !mkeys[i]))
			return FO_GENERAL;
		any_dir |= directive;
	}
	for (size_t k = 0; k < m && taken < n; k++) {
		long p = smp_vindex_find_next(ix, so->okk[k], &hint);
		if (p < 0 || used[p])
			continue;
		/* the index has the key from before merging */
		if ((!mkeys[p] && !smpv_equal(cur[p], so->okk[k])) || (mkeys[p] && mdir[p]))
			return FO_GENERAL;
		used[p] = true;
		orig_taken |= (size_t)p < nserver;
		res[taken++] = merged->v[p];
	}
	if (taken < n) {
		if (ix->dup)
			return FO_GENERAL;
		for (size_t i = 0; i < n; i++)
			if (!used[i] && !mkeys[i])
				return FO_GENERAL;
		if (orig_taken || !plain) {
			/* (server-only items with $patch: their order is mergeSlice's) */
			return any_dir ? FO_GENERAL : FO_ANY_ORDER;
		}
		/* untaken: original items (i < nserver), in their order; the
		 * deletion directives after the others */
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < n; i++)
				if (!used[i] && (mdir[i] && smp__is_delete_item(merged->v[i])) == (pass == 1))
					res[taken++] = merged->v[i];
	}
	r = smpv_list(c->a, n);
	if (!r) {
		*rc = smp__snomem(c);
		return FO_ORDERED;
	}
	if (n) /* an empty list has no items array */
		memcpy(r->u.list.items, res, n * sizeof(*res));
	r->u.list.len = n;
	*out = r;
	return FO_ORDERED;
}

/*
 * Go slice aliasing. The reference deletes list elements in place
 * (append(s[:k], s[k+1:]...)) and then appends new elements to the same
 * slice, so the caller's view of the original list (its length unchanged)
 * sees the shifted survivors, stale tail entries and, while capacity lasts,
 * the appended elements. mergePatchIntoOriginal orders server-only items by
 * that view, so to order lists as the reference does we replay it. A list
 * decoded by encoding/json was grown by append from empty: its capacity is
 * what growslice gives (interface elements, 16 bytes, malloc size classes).
 */
static size_t go_roundupsize(size_t size)
{
	static const unsigned classes[] = {
		0, 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240,
		256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152,
		1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144,
		6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432,
		19072, 20480, 21760, 24576, 27264, 28672, 32768};

	if (size <= 32768) {
		for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
			if (classes[i] >= size)
				return classes[i];
	}
	return (size + 8191) & ~(size_t)8191;
}

static size_t go_decoded_cap(size_t len)
{
	size_t cap = 0;

	while (cap < len) {
		size_t newlen = cap + 1, newcap = cap, dbl = cap * 2;
		if (newlen > dbl) {
			newcap = newlen;
		} else if (cap < 256) {
			newcap = dbl;
		} else {
			while (newcap < newlen)
				newcap += (newcap + 3 * 256) / 4;
		}
		cap = go_roundupsize(newcap * 16) / 16;
	}
	return cap;
}

/* The caller's view (length L) after deletions (group order, ascending
 * positions) and then merges/appends of the patch elements. */
static int alias_view(sctx *c, vlist *view, const smp_value *orig, const long *dgrp,
                      size_t ndel_keys, const vlist *patch_order, bool replace,
                      const smp_value *const *okeys, const smp_value *const *pkeys)
{
	size_t L = orig->u.list.len, C = go_decoded_cap(L), n, last;
	bool *removed = sc_alloc(c, L + 1);
	size_t *order = sc_alloc(c, (L + 1) * sizeof(size_t));
	size_t *bucket_start = sc_alloc(c, (ndel_keys + 2) * sizeof(size_t));
	const long *grp = dgrp;
	size_t *stale = sc_alloc(c, (L + 1) * sizeof(*stale));
	const smp_value **curk = sc_alloc(c, (L + 1) * sizeof(*curk));
	vlist cur = {0};
	smp_vindex ix;
	int rc;

	memset(view, 0, sizeof(*view));
	if (!removed || !order || !bucket_start || !stale || !curk)
		return smp__snomem(c);
	memset(removed, 0, L + 1);
	memset(bucket_start, 0, (ndel_keys + 2) * sizeof(size_t));
	/* Removal order: by the directive's first position, then ascending. */
	for (size_t i = 0; i < L; i++)
		if (grp[i] >= 0)
			bucket_start[grp[i] + 1]++;
	for (size_t g = 0; g < ndel_keys; g++)
		bucket_start[g + 1] += bucket_start[g];
	size_t nrem = 0;
	for (size_t i = 0; i < L; i++)
		if (grp[i] >= 0)
			order[bucket_start[grp[i]]++] = i, nrem++;
	n = L;
	last = L;
	for (size_t k = 0; k < nrem; k++) {
		size_t r = order[k];
		while (last > 0 && removed[last - 1])
			last--;
		stale[n - 1] = last - 1;
		removed[r] = true;
		n--;
	}
	/* cur (with the merge keys in curk): survivors, then stale entries */
	for (size_t i = 0; i < L; i++)
		if (!removed[i]) {
			curk[cur.n] = okeys[i];
			if ((rc = vl_push(c, &cur, orig->u.list.items[i])))
				return rc;
		}
	for (size_t p = n; p < L; p++) {
		curk[cur.n] = okeys[stale[p]];
		if ((rc = vl_push(c, &cur, orig->u.list.items[stale[p]])))
			return rc;
	}
	/* cur.v[0..L) is now the backing array's visible part. */
	if (!replace) {
		bool realloc = false;
		if (sc_vindex(c, &ix, n + patch_order->n))
			return smp__snomem(c);
		for (size_t i = 0; i < n; i++) {
			const smp_value *mv = curk[i];
			if (mv)
				smp_vindex_add(&ix, mv, i);
		}
		for (size_t i = 0; i < patch_order->n; i++) {
			const smp_value *mv = pkeys[i];
			if (!mv || smp_vindex_find(&ix, mv) >= 0)
				continue; /* merged in place: same key */
			if (!realloc && n < C) {
				if (n < L)
					cur.v[n] = patch_order->v[i];
			} else {
				realloc = true;
			}
			smp_vindex_add(&ix, mv, n);
			n++;
		}
	}
	*view = cur;
	view->n = L;
	return 0;
}

/* mergeSlice for lists of scalars: deleteFromSlice for a
 * $deleteFromPrimitiveList (*done: *out is the result), else the original
 * items then the patch's, repeats dropped, into *merged (and each side's
 * order, for the ordering after). */
static int merge_scalar_slice(sctx *c, smp_value **out, smp_value *orig, const smp_value *patch,
                              bool is_delete_list, vlist *merged, vlist *server_order,
                              vlist *patch_order, bool *done)
{
	int rc;

	if (c->mpl && is_delete_list) {
		/* deleteFromSlice */
		smp_vindex ix;

		if (sc_vindex(c, &ix, patch->u.list.len))
			return smp__snomem(c);
		for (size_t i = 0; i < patch->u.list.len; i++)
			smp_vindex_add(&ix, patch->u.list.items[i], i);
		for (size_t i = 0; i < orig->u.list.len; i++)
			if (smp_vindex_find(&ix, orig->u.list.items[i]) < 0 &&
			    (rc = vl_push(c, merged, orig->u.list.items[i])))
				return rc;
		*out = smp__vl_to_list(c, merged);
		*done = true;
		return *out ? 0 : SMP_ENOMEM;
	}
	if ((rc = smp__vl_from_list(c, server_order, orig)) ||
	    (rc = smp__vl_from_list(c, patch_order, patch)))
		return rc;
	for (size_t i = 0; i < server_order->n; i++)
		if ((rc = vl_push(c, merged, server_order->v[i])))
			return rc;
	for (size_t i = 0; i < patch->u.list.len; i++) {
		smp_value *cv = raw_copy(c, patch->u.list.items[i]);

		if (!cv || vl_push(c, merged, cv))
			return SMP_ENOMEM;
	}
	merged->n = smp__dedup_scalars(c, merged->v, merged->n);
	return 0;
}

/* What mergeSliceWithSpecialElements reads of the patch's items: the
 * ordinary ones (nonspecial, their merge keys in nkeys), the keys of the
 * `$patch: delete` items (del, *ndel of them), whether one says `$patch:
 * replace`; *scalar_keys stays true while every key is a scalar. */
typedef struct directives {
	vlist nonspecial;
	const smp_value **nkeys;
	smp_vindex del;
	size_t ndel;
	bool replace, any_delete, scalar_keys;
} directives;

static int scan_directives(sctx *c, directives *d, const smp_value *patch, const char *mk)
{
	for (size_t i = 0; i < patch->u.list.len; i++) {
		const smp_value *pe = patch->u.list.items[i], *dv;
		bool dir;
		const smp_value *mv = mk_scan(pe, mk, &dir);
		size_t pl;
		int rc;

		if (mv && (mv->type == SMP_MAP || mv->type == SMP_LIST))
			d->scalar_keys = false;
		if (!dir) {
			d->nkeys[d->nonspecial.n] = mv;
			if ((rc = vl_push(c, &d->nonspecial, (smp_value *)pe)))
				return rc;
			continue;
		}
		dv = smp__mget(pe, DIRECTIVE_MARKER);
		pl = smp__spush_elem(c, mk, mv, i);
		if (smpv_is_str(dv, "delete")) {
			if (!mv)
				return smp__err_no_merge_key(c, pe, mk);
			if (smp_vindex_find(&d->del, mv) < 0)
				smp_vindex_add(&d->del, mv, d->ndel++);
			d->any_delete = true;
		} else if (smpv_is_str(dv, "replace")) {
			d->replace = true;
		} else if (smpv_is_str(dv, "merge")) {
			return smp__sfail(c, SMP_EPATCH, "merging lists cannot yet be specified in the patch");
		} else {
			return smp__err_bad_patch_type(c, dv, pe);
		}
		smp__spop(c, pl);
	}
	return 0;
}

/* mergeSliceWithoutSpecialElements: each ordinary patch item merged into
 * the element of the same merge key (indexed in ix by position in
 * *merged; mkeys[pos] NULL once that element changed), or appended. */
static int merge_by_key(sctx *c, vlist *merged, const vlist *patch_order,
                        const smp_value **nkeys, const smp_value **mkeys, smp_vindex *ix,
                        const char *mk, const smp_stype *elem)
{
	size_t hint = 0;
	int rc;

	for (size_t i = 0; i < patch_order->n; i++) {
		const smp_value *pe = patch_order->v[i];
		const smp_value *mv = nkeys[i];
		long pos;

		if (!mv)
			return smp__err_no_merge_key(c, pe, mk);
		pos = smp_vindex_find_next(ix, mv, &hint);
		if (pos >= 0) {
			size_t pl = smp__spush_elem(c, mk, mv, (size_t)pos);
			smp_value *r;

			if ((rc = smp_merge_map(c, &r, merged->v[pos], pe, elem)))
				return rc;
			smp__spop(c, pl);
			merged->v[pos] = r;
			mkeys[pos] = NULL;
		} else {
			smp_value *cv = raw_copy(c, pe);

			if (!cv || vl_push(c, merged, cv))
				return SMP_ENOMEM;
			mkeys[merged->n - 1] = NULL;
			smp_vindex_add(ix, smp__mk_value(cv, mk), merged->n - 1);
		}
	}
	return 0;
}

/* mergeSlice for lists of maps merged by `mk`: the patch's directives
 * read, the original elements a delete names left out (all of them for a
 * replace), the ordinary patch items merged in by key; then, when the
 * order can be settled here (fast_order), *done with *out the result,
 * else *merged, *server_order and *patch_order for the general ordering.
 * Each merge key is scanned (and hashed) once: okeys/odir of the original
 * elements (odir: has $patch), mkeys/mdir/mhash of merged (NULL: scan
 * again, the element was merged into or copied). */
static int merge_map_slice(sctx *c, smp_value **out, smp_value *orig, const smp_value *patch,
                           const smp_stype *elem, const char *mk, sorder *so, vlist *merged,
                           vlist *server_order, vlist *patch_order, bool *done)
{
	directives d;
	smp_vindex ix;
	long *dgrp = NULL;
	bool orig_keyed, view_later;
	size_t on = orig->u.list.len, pn = patch->u.list.len;
	const smp_value **okeys, **mkeys;
	bool *odir, *mdir;
	uint64_t *ohash = NULL, *mhash;
	int rc, fo;

	if (!mk || !*mk)
		return smp__sfail(c, SMP_EPATCH, "cannot merge lists without merge key for %s",
		                  elem && elem->name ? elem->name : "object");
	memset(&d, 0, sizeof(d));
	d.scalar_keys = true;
	okeys = sc_alloc(c, (on + 1) * sizeof(*okeys));
	d.nkeys = sc_alloc(c, (pn + 1) * sizeof(*d.nkeys));
	mkeys = sc_alloc(c, (on + pn + 1) * sizeof(*mkeys));
	odir = sc_alloc(c, on + 1);
	mdir = sc_alloc(c, on + pn + 1);
	mhash = sc_alloc(c, (on + pn + 1) * sizeof(*mhash));
	if (!okeys || !d.nkeys || !mkeys || !odir || !mdir || !mhash || sc_vindex(c, &d.del, pn))
		return smp__snomem(c);
	if ((rc = scan_directives(c, &d, patch, mk)))
		return rc;
	for (size_t i = 0; i < on; i++) {
		/* (slice_elem_type touched the elements) */
		if (i + 4 < on && orig->u.list.items[i + 4]->type == SMP_MAP)
			PREFETCH(orig->u.list.items[i + 4]->u.map.items);
		okeys[i] = mk_scan(orig->u.list.items[i], mk, &odir[i]);
		PREFETCH(okeys[i]); /* hashed below */
		if (okeys[i] && (okeys[i]->type == SMP_MAP || okeys[i]->type == SMP_LIST))
			d.scalar_keys = false;
	}
	if (d.any_delete) {
		/* Each live element's delete directive (its first position among
		 * them), or -1: for the alias view and server_order (each key
		 * hashed once for this and the index below). */
		dgrp = sc_alloc(c, (on + 1) * sizeof(*dgrp));
		ohash = sc_alloc(c, (on + 1) * sizeof(*ohash));
		if (!dgrp || !ohash)
			return smp__snomem(c);
		for (size_t i = 0; i < on; i++) {
			dgrp[i] = -1;
			if (i + 4 < on)
				prefetch_str(okeys[i + 4]);
			if (okeys[i]) {
				ohash[i] = smp_vindex_hash(okeys[i]);
				dgrp[i] = smp_vindex_find_h(&d.del, okeys[i], ohash[i]);
			}
		}
	}
	/* The alias view is needed only when the general ordering runs; it
	 * reads the merge keys as they were before merging, which the saved
	 * pointers still give when the keys are scalars (merging replaces a
	 * scalar value; it changes maps and lists in place). */
	view_later = so && d.any_delete && d.scalar_keys && !c->general;
	if (so && d.any_delete && !view_later &&
	    (rc = alias_view(c, &so->view, orig, dgrp, d.ndel, &d.nonspecial, d.replace, okeys,
	                     d.nkeys)))
		return rc;
	if (d.replace) {
		for (size_t i = 0; i < d.nonspecial.n; i++) {
			smp_value *cv = raw_copy(c, d.nonspecial.v[i]);

			if (!cv || vl_push(c, server_order, cv))
				return SMP_ENOMEM;
			mkeys[i] = NULL;
		}
	} else {
		for (size_t i = 0; i < on; i++) {
			if (dgrp && dgrp[i] >= 0)
				continue;
			mkeys[server_order->n] = okeys[i];
			mdir[server_order->n] = odir[i];
			if (ohash && okeys[i]) {
				mhash[server_order->n] = ohash[i];
			} else if (okeys[i]) {
				if (i + 4 < on)
					prefetch_str(okeys[i + 4]);
				mhash[server_order->n] = smp_vindex_hash(okeys[i]);
			}
			if ((rc = vl_push(c, server_order, orig->u.list.items[i])))
				return rc;
		}
		*patch_order = d.nonspecial;
	}
	for (size_t i = 0; i < server_order->n; i++)
		if ((rc = vl_push(c, merged, server_order->v[i])))
			return rc;
	if (sc_vindex(c, &ix, merged->n + patch_order->n))
		return smp__snomem(c);
	/* Every original element a map with the merge key (deleted ones
	 * matched a directive by it)? For fast_order. */
	orig_keyed = !d.replace;
	for (size_t i = 0; i < merged->n; i++) {
		if (d.replace) {
			const smp_value *mv = smp__mk_value(merged->v[i], mk);

			if (mv)
				smp_vindex_add(&ix, mv, i);
		} else if (mkeys[i]) {
			smp_vindex_add_h(&ix, mkeys[i], mhash[i], i);
		} else {
			orig_keyed = false;
		}
	}
	if ((rc = merge_by_key(c, merged, patch_order, d.nkeys, mkeys, &ix, mk, elem)))
		return rc;
	fo = FO_GENERAL;
	if (so && so->order && orig_keyed && !c->general)
		fo = fast_order(c, out, merged, &ix, mkeys, mdir, mk, so, server_order->n,
		                !d.any_delete, &rc);
	if (fo == FO_ORDERED) {
		so->ordered = rc == 0;
		c->fast++;
		*done = true;
		return rc;
	}
	if (view_later &&
	    (rc = alias_view(c, &so->view, orig, dgrp, d.ndel, &d.nonspecial, d.replace, okeys,
	                     d.nkeys)))
		return rc;
	if (fo == FO_ANY_ORDER) {
		/* the caller orders it (as it is) */
		*out = smp__vl_to_list(c, merged);
		c->fast++;
		*done = true;
		return *out ? 0 : SMP_ENOMEM;
	}
	return 0;
}

/* mergeSlice: a list the schema merges, the patch's items merged into
 * the original's (by merge key for maps, as a set for scalars), then put
 * in order (normalizeElementOrder) unless the merge settled it. */
static int merge_slice(sctx *c, smp_value **out, smp_value *orig, const smp_value *patch,
                       const smp_stype *elem, const char *mk, bool is_delete_list,
                       sorder *so)
{
	vlist merged = {0}, server_order = {0}, patch_order = {0}, in, outl, res;
	smp_vindex pix;
	smp_type kind;
	bool maps, done = false;
	int rc;

	if (orig->u.list.len == 0 && patch->u.list.len == 0) {
		*out = orig;
		return 0;
	}
	if (++c->depth > SMP_DEPTH_MERGE)
		return smp__sfail(c, SMP_ELIMIT, "document nested too deeply");
	if ((rc = smp__slice_elem_type(c, orig, patch, &kind)))
		goto out;
	maps = kind == SMP_MAP;
	rc = maps ? merge_map_slice(c, out, orig, patch, elem, mk, so, &merged, &server_order,
	                            &patch_order, &done)
	          : merge_scalar_slice(c, out, orig, patch, is_delete_list, &merged, &server_order,
	                               &patch_order, &done);
	if (rc || done)
		goto out;
	if ((rc = smp__partition(c, &merged, &patch_order, mk, maps, &in, &outl, &pix)))
		goto out;
	if ((rc = smp__normalize_element_order(c, &res, &in, &outl, &patch_order, &server_order, mk,
	                                        maps, &pix)))
		goto out;
	*out = smp__vl_to_list(c, &res);
	rc = *out ? 0 : SMP_ENOMEM;
out:
	c->depth--;
	return rc;
}

static int extract_key(sctx *c, const char *key, size_t klen, const char *prefix,
                       const char **rest, size_t *rlen)
{
	const char *slash = memchr(key, '/', klen);
	size_t pn = strlen(prefix);

	if (!slash || (size_t)(slash - key) != pn || memcmp(key, prefix, pn) != 0) {
		if (strcmp(prefix, DELETE_FROM_PRIMITIVE_PREFIX) == 0)
			return smp__sfail(c, SMP_EPATCH, "invalid patch format of primitive list");
		return smp__sfail(c, SMP_EPATCH, "invalid patch format of setElementOrder list");
	}
	*rest = slash + 1;
	*rlen = klen - pn - 1;
	return 0;
}

/* Whether member e's key is a string of the $retainKeys list indexed in set. */
static bool key_listed(const smp_vindex *set, const smp_member *e)
{
	smp_value key;

	memset(&key, 0, sizeof(key));
	key.type = SMP_STRING;
	key.u.s.ptr = e->key;
	key.u.s.len = e->klen;
	return smp_vindex_find(set, &key) >= 0;
}

/* $retainKeys: keys of the original map the list does not name are
 * dropped (a list that is not one of strings, or that differs from
 * another patch's, is the reference's error). */
static int apply_retain_keys(sctx *c, wmap *w, const smp_value *patch, bool *done)
{
	ptrdiff_t ri = smpv_map_find(patch, RETAIN_KEYS_DIRECTIVE, strlen(RETAIN_KEYS_DIRECTIVE));
	const smp_value *rk;
	smp_vindex set;

	if (ri < 0)
		return 0;
	done[ri] = true;
	rk = patch->u.map.items[ri].val;
	if (!c->mpl) {
		long oi = wm_find(c, w, RETAIN_KEYS_DIRECTIVE, strlen(RETAIN_KEYS_DIRECTIVE));
		if (oi >= 0) {
			if (!smpv_equal(w->m->u.map.items[oi].val, rk))
				return smp__sfail(c, SMP_EPATCH, "$retainKeys lists differ: this may happen when "
				                   "calculating the 3-way diff patch");
			return 0;
		}
		smp_value *cv = raw_copy(c, rk);
		return cv ? wm_set(c, w, RETAIN_KEYS_DIRECTIVE, strlen(RETAIN_KEYS_DIRECTIVE), cv)
		          : SMP_ENOMEM;
	}
	if (rk->type != SMP_LIST)
		return smp__sfail(c, SMP_EPATCH, "invalid patch format of retainKeys");
	if (sc_vindex(c, &set, rk->u.list.len))
		return smp__snomem(c);
	for (size_t i = 0; i < rk->u.list.len; i++)
		smp_vindex_add(&set, rk->u.list.items[i], i);
	for (size_t i = 0; i < patch->u.map.len; i++) {
		const smp_member *e = &patch->u.map.items[i];
		if ((ptrdiff_t)i == ri || e->val->type == SMP_NULL ||
		    smp__has_prefix(e->key, e->klen, DELETE_FROM_PRIMITIVE_PREFIX) ||
		    smp__has_prefix(e->key, e->klen, SET_ELEMENT_ORDER_PREFIX))
			continue;
		if (!key_listed(&set, e))
			return smp__sfail(c, SMP_EPATCH, "invalid patch format of retainKeys: "
			                   "field \"%s\" is not in the $retainKeys list", e->key);
	}
	for (size_t i = 0; i < w->m->u.map.len; i++) {
		smp_member *e = &w->m->u.map.items[i];
		if (e->val && !key_listed(&set, e))
			e->val = NULL;
	}
	return 0;
}

/* validatePatchWithSetOrderList. okeys: the merge-key values of the order
 * list's items (NULL where an item is not a map or has none), or NULL to
 * look them up here. */
static int validate_set_order(sctx *c, const smp_value *plist, const smp_value *order,
                              const char *mk, const smp_value *const *okeys)
{
	vlist nondel = {0};
	const smp_value **pk;
	bool *pdir;
	size_t pi = 0, si = 0, m, pn;
	int rc;

	if (!plist || plist->u.list.len == 0 || order->u.list.len == 0)
		return 0;
	pn = plist->u.list.len;
	/* each patch item scanned once: its merge key and whether it has $patch */
	pk = sc_alloc(c, (pn + 1) * sizeof(*pk));
	pdir = sc_alloc(c, pn + 1);
	if (!pk || !pdir)
		return smp__snomem(c);
	for (size_t i = 0; i < pn; i++) {
		smp_value *v = plist->u.list.items[i];
		bool dir = false;
		const smp_value *k = NULL;
		if (*mk) {
			if (v->type != SMP_MAP)
				return smp__err_bad_arg_type(c, "map[string]interface {}", v);
			k = mk_scan(v, mk, &dir);
			if (dir && smp__is_delete_item(v))
				continue;
		} else if (v->type == SMP_MAP) {
			dir = smp__mget(v, DIRECTIVE_MARKER) != NULL;
		}
		pk[nondel.n] = k;
		pdir[nondel.n] = dir;
		if ((rc = vl_push(c, &nondel, v)))
			return rc;
	}
	m = order->u.list.len;
	while (pi < nondel.n && si < m) {
		const smp_value *pv = nondel.v[pi], *ov = order->u.list.items[si];
		bool eq;
		if (pdir[pi]) {
			pi++;
			continue;
		}
		if (!*mk) {
			eq = smpv_equal(pv, ov);
		} else {
			/* pv is a map (checked above) */
			if (ov->type != SMP_MAP)
				return smp__err_bad_arg_type(c, "map[string]interface {}", ov);
			const smp_value *a = pk[pi], *b = okeys ? okeys[si] : smp__mk_value(ov, mk);
			if (okeys && si + 4 < m)
				prefetch_str(okeys[si + 4]);
			if (!a)
				return smp__err_no_merge_key(c, pv, mk);
			if (!b)
				return smp__err_no_merge_key(c, ov, mk);
			eq = smpv_equal(a, b);
		}
		if (eq)
			pi++;
		si++;
	}
	if (pi < nondel.n && si >= m) {
		smp_buf b;
		smp_buf_init(&b);
		smp_buf_puts(&b, "the order in patch list: ");
		smp_gofmt_v(&b, plist);
		smp_buf_printf(&b, " doesn't match %s list: ", SET_ELEMENT_ORDER_PREFIX);
		smp_gofmt_v(&b, order);
		rc = b.oom ? smp__snomem(c) : smp__sfail(c, SMP_EPATCH, "%.600s", b.ptr);
		smp_buf_release(&b);
		return rc;
	}
	return 0;
}

/* The merge keys of a $setElementOrder list's items (NULL for an item
 * without one), looked up once for the validation and fast_order's index;
 * NULL when out of memory. */
static const smp_value **order_keys(sctx *c, const smp_value *order, const char *mk)
{
	size_t on = order->u.list.len;
	const smp_value **okk = sc_alloc(c, on * sizeof(*okk));

	for (size_t k = 0; okk && k < on; k++) {
		const smp_value *ahead = k + 4 < on ? order->u.list.items[k + 4] : NULL;

		if (k + 8 < on)
			PREFETCH(order->u.list.items[k + 8]);
		if (ahead && ahead->type == SMP_MAP)
			PREFETCH(ahead->u.map.items);
		okk[k] = smp__mk_value(order->u.list.items[k], mk);
		PREFETCH(okk[k]); /* compared below */
	}
	return okk;
}

/* mergePatchIntoOriginal: each $setElementOrder list with its list (the
 * patch's, merged into the original's as mergeSlice does, then in the
 * order the directive gives), the keys it settles marked in `done`. */
static int merge_set_element_order(sctx *c, wmap *w, const smp_value *patch, bool *done,
                                   const smp_stype *t)
{
	smp_kindex pix = {0};
	bool indexed = false;
	int rc;

	for (size_t i = 0; i < patch->u.map.len; i++) {
		const smp_member *e = &patch->u.map.items[i];
		const smp_value *order = e->val, *plist = NULL;
		smp_value *olist = NULL, *mergedv = NULL;
		const char *okey;
		size_t oklen, pl;
		ptrdiff_t pidx;
		long oidx;
		pmeta m;
		vlist merged, in, outl, res, order_l, orig_l;
		sorder so;
		smp_vindex oix;
		smp_type kind;
		bool pmaps;

		if (done[i] || !smp__has_prefix(e->key, e->klen, SET_ELEMENT_ORDER_PREFIX))
			continue;
		done[i] = true;
		/* Everything this list needs in scratch is given back at its end
		 * (the map's own lookup structures live in c->tmp). */
		smp_mmark mark = sc_mark(c);
		if (!indexed) {
			if (smp_kindex_init(&pix, c->tmp, patch))
				return smp__snomem(c);
			indexed = true;
		}
		pl = smp__spush_key(c, e->key, e->klen);
		if (!c->mpl) {
			long ex = wm_find(c, w, e->key, e->klen);
			if (ex >= 0) {
				if (!smpv_equal(w->m->u.map.items[ex].val, order))
					return smp__sfail(c, SMP_EPATCH, "invalid patch format of setElementOrder list");
			} else {
				smp_value *cv = raw_copy(c, order);
				if (!cv || (rc = wm_set(c, w, e->key, e->klen, cv)))
					return SMP_ENOMEM;
			}
		}
		if (order->type != SMP_LIST)
			return smp__err_bad_arg_type(c, "[]interface {}", order);
		if ((rc = extract_key(c, e->key, e->klen, SET_ELEMENT_ORDER_PREFIX, &okey, &oklen)))
			return rc;
		smp__spop(c, pl);
		pl = smp__spush_key(c, okey, oklen);
		oidx = wm_find(c, w, okey, oklen);
		pidx = smp_kindex_find(&pix, okey, oklen);
		if (pidx >= 0 && done[pidx])
			pidx = -1;
		if (oidx >= 0) {
			olist = w->m->u.map.items[oidx].val;
			if (olist->type != SMP_LIST)
				return smp__err_bad_arg_type(c, "[]interface {}", olist);
		}
		if (pidx >= 0) {
			plist = patch->u.map.items[pidx].val;
			if (plist->type != SMP_LIST)
				return smp__err_bad_arg_type(c, "[]interface {}", plist);
		}
		if ((rc = smp__lookup_slice(c, t, okey, oklen, &m)))
			return rc;
		/* Applying, kubectl's Go types answer "not a slice" for a (non-
		 * pointer) struct field; only a list actually present there (the
		 * reference's pointer case, mergeItemPtr) gets past that. OpenAPI
		 * cannot tell pointers, so the three-way merge of two patches
		 * (where neither side need hold the list) lets it through. */
		if (m.object_as_list && !olist && !plist && c->mpl)
			return smp__sfail(c, SMP_EPATCH, "expected slice or array type, but got: struct");
		const smp_value **okk = NULL;
		size_t on = order->u.list.len;
		if (*m.mk && plist && plist->u.list.len && on && !(okk = order_keys(c, order, m.mk)))
			return smp__snomem(c);
		if ((rc = validate_set_order(c, plist, order, m.mk, okk)))
			return rc;
		if (olist && !plist) {
			mergedv = olist;
		} else if (!olist && plist) {
			bool keep;
			mergedv = copy_clean(c, plist, false, true, &keep, c->depth);
			if (!mergedv)
				return c->err ? c->err->code : SMP_ENOMEM;
		} else if (olist && plist) {
			memset(&so, 0, sizeof(so));
			if (m.merge && okk && !c->general) {
				/* for fast_order */
				so.order = order;
				so.okk = okk;
				so.usable = true;
				for (size_t k = 0; k < on && so.usable; k++)
					so.usable = okk[k] != NULL;
			}
			if ((rc = merge_slice_handler(c, &mergedv, olist, plist, &m, false, &so)))
				return rc;
			if (so.ordered) {
				if ((rc = wm_set(c, w, okey, oklen, mergedv)))
					return rc;
				if (pidx >= 0)
					done[pidx] = true;
				smp__spop(c, pl);
				sc_reset(c, mark);
				continue;
			}
		} else {
			smp__spop(c, pl);
			sc_reset(c, mark);
			continue;
		}
		if ((rc = smp__vl_from_list(c, &merged, mergedv)) ||
		    (rc = smp__vl_from_list(c, &order_l, order)) ||
		    (rc = smp__vl_from_list(c, &orig_l, olist)))
			return rc;
		if (olist && plist && so.view.v)
			orig_l = so.view;
		pmaps = *m.mk != '\0';
		if ((rc = smp__partition(c, &merged, &order_l, m.mk, pmaps, &in, &outl, &oix)))
			return rc;
		if ((rc = smp__slice_elem_type(c, olist, plist, &kind)))
			return rc;
		if ((rc = smp__normalize_element_order(c, &res, &in, &outl, &order_l, &orig_l, m.mk,
		                                        kind == SMP_MAP,
		                                        pmaps == (kind == SMP_MAP) ? &oix : NULL)))
			return rc;
		smp_value *lv = smp__vl_to_list(c, &res);
		if (!lv || (rc = wm_set(c, w, okey, oklen, lv)))
			return SMP_ENOMEM;
		if (pidx >= 0)
			done[pidx] = true;
		smp__spop(c, pl);
		sc_reset(c, mark);
	}
	return 0;
}

/* A map patch with `$patch` (at di): replace gives the patch without it,
 * delete an empty map; anything else is the reference's error. */
static int map_directive(sctx *c, smp_value **out, const smp_value *patch, ptrdiff_t di)
{
	const smp_value *d = patch->u.map.items[di].val;
	smp_value *r;

	if (smpv_is_str(d, "replace")) {
		if (!(r = smpv_map(c->a, patch->u.map.len)))
			return smp__snomem(c);
		for (size_t i = 0; i < patch->u.map.len; i++) {
			const smp_member *e = &patch->u.map.items[i];
			smp_value *cv;

			if ((ptrdiff_t)i == di)
				continue;
			cv = raw_copy(c, e->val);
			if (!cv || smpv_map_add_copy(c->a, r, e->key, e->klen, cv))
				return smp__snomem(c);
		}
		*out = r;
		return 0;
	}
	if (smpv_is_str(d, "delete")) {
		*out = smpv_map(c->a, 0);
		return *out ? 0 : smp__snomem(c);
	}
	return smp__err_bad_patch_type(c, d, patch);
}

/* One key of a map patch merged into w (mergeMap's loop body): a
 * $deleteFromPrimitiveList key names its list; null deletes (and, with
 * ignoreUnchanged, is done); a new key or one of another type takes the
 * patch's value (cleaned of directives); a map merges (or is replaced, as
 * the schema says), a list goes to mergeSlice, a scalar is the patch's. */
static int merge_key(sctx *c, wmap *w, const smp_member *e, const smp_stype *t, bool dollar)
{
	const smp_value *pv = e->val;
	const char *k = e->key;
	size_t klen = e->klen, pl;
	bool is_delete_list = false;
	smp_value *ov, *nv = NULL;
	pmeta m;
	long oi;
	int rc = 0;

	if (dollar && smp__has_prefix(k, klen, DELETE_FROM_PRIMITIVE_PREFIX)) {
		const char *rest;
		size_t rlen;

		if (!c->mpl) {
			smp_value *cv = raw_copy(c, pv);

			return !cv || wm_set(c, w, k, klen, cv) ? SMP_ENOMEM : 0;
		}
		pl = smp__spush_key(c, k, klen);
		if ((rc = extract_key(c, k, klen, DELETE_FROM_PRIMITIVE_PREFIX, &rest, &rlen)))
			return rc;
		smp__spop(c, pl);
		if (rlen) {
			k = rest;
			klen = rlen;
		}
		is_delete_list = true;
	}
	pl = smp__spush_key(c, k, klen);
	if (pv->type == SMP_NULL) {
		wm_del(c, w, k, klen);
		if (c->iun) {
			smp__spop(c, pl);
			return 0;
		}
	}
	oi = wm_find(c, w, k, klen);
	if (oi < 0 || w->m->u.map.items[oi].val->type != pv->type) {
		if (!is_delete_list) {
			bool keep;
			smp_value *cv = copy_clean(c, pv, c->iun, true, &keep, c->depth);

			if (!cv && keep)
				return c->err ? c->err->code : SMP_ENOMEM;
			if (keep)
				rc = wm_set(c, w, k, klen, cv);
			else
				wm_del(c, w, k, klen);
			if (rc)
				return rc;
		}
		smp__spop(c, pl);
		return 0;
	}
	ov = w->m->u.map.items[oi].val;
	switch (pv->type) {
	case SMP_MAP:
		if ((rc = smp__lookup_struct(c, t, k, klen, &m)))
			return rc;
		if (m.replace) {
			nv = raw_copy(c, pv);
			rc = nv ? 0 : SMP_ENOMEM;
		} else {
			rc = smp_merge_map(c, &nv, ov, pv, m.sub);
		}
		break;
	case SMP_LIST: {
		smp_mmark lm = sc_mark(c);

		if ((rc = smp__lookup_slice(c, t, k, klen, &m)))
			return rc;
		rc = merge_slice_handler(c, &nv, ov, pv, &m, is_delete_list, NULL);
		sc_reset(c, lm);
		break;
	}
	default: {
		bool keep;

		nv = copy_clean(c, pv, false, true, &keep, c->depth);
		rc = nv ? 0 : SMP_ENOMEM;
		break;
	}
	}
	if (rc)
		return rc;
	w->m->u.map.items[oi].val = nv;
	smp__spop(c, pl);
	return 0;
}

/* mergeMap: a map patch merged into `orig` (NULL: an empty map) under the
 * type `t`: the map's own `$patch`, then $retainKeys and the
 * $setElementOrder lists (they mark the keys they settle in `done`), then
 * every other key. */
int smp_merge_map(sctx *c, smp_value **out, smp_value *orig, const smp_value *patch,
                  const smp_stype *t)
{
	ptrdiff_t di = -1;
	wmap w;
	bool *done, dollar = false;
	smp_mmark mark;
	int rc = 0;

	/* Every directive key starts with '$': without one (most patch maps)
	 * the directive lookups are skipped. */
	for (size_t i = 0; i < patch->u.map.len && !dollar; i++)
		dollar = patch->u.map.items[i].klen && patch->u.map.items[i].key[0] == '$';
	if (dollar)
		di = smpv_map_find(patch, DIRECTIVE_MARKER, strlen(DIRECTIVE_MARKER));
	*out = NULL;
	if (di >= 0)
		return map_directive(c, out, patch, di);
	if (++c->depth > SMP_DEPTH_MERGE) {
		c->depth--;
		return smp__sfail(c, SMP_ELIMIT, "document nested too deeply");
	}
	/* Scratch taken below (done, the lists' indices) is given back on
	 * return; the wmap's structures live in c->tmp. */
	mark = sc_mark(c);
	if (!orig && !(orig = smpv_map(c->a, patch->u.map.len))) {
		rc = smp__snomem(c);
		goto out;
	}
	if (!(done = sc_alloc(c, patch->u.map.len + 1))) {
		rc = smp__snomem(c);
		goto out;
	}
	wm_init(&w, orig, patch->u.map.len);
	memset(done, 0, patch->u.map.len + 1);
	if (dollar && ((rc = apply_retain_keys(c, &w, patch, done)) ||
	               (rc = merge_set_element_order(c, &w, patch, done, t))))
		goto out;
	for (size_t i = 0; i < patch->u.map.len && !rc; i++)
		if (!done[i])
			rc = merge_key(c, &w, &patch->u.map.items[i], t, dollar);
	if (rc)
		goto out;
	wm_compact(w.m);
	*out = w.m;
out:
	sc_reset(c, mark);
	c->depth--;
	return rc;
}

/* Both entry points: `target` is only read when `inplace` is false; when it
 * is true it lives in `a` and becomes (part of) the result. */
static int sm_apply(smp_value **out, smp_arena *a, const smp_value *target, smp_value *inplace,
                    const smp_value *patch, const smp_stype *root, bool general,
                    unsigned *fast, smp_error *err)
{
	smp_arena tmp;
	smp_mscratch scr;
	sctx c;
	smp_value *orig;
	int rc;

	*out = NULL;
	if (target && target->type != SMP_NULL && target->type != SMP_MAP)
		return smp__err(err, SMP_EPARSE,
		                "invalid JSON document: the object to patch must be a map, not %s",
		                smp_go_type_name(target));
	if (patch && patch->type != SMP_NULL && patch->type != SMP_MAP)
		return smp__err(err, SMP_EPATCH,
		                "invalid JSON document: a strategic merge patch must be a map, not %s",
		                smp_go_type_name(patch));
	smp_arena_init(&tmp);
	smp_mscratch_init(&scr);
	smp__sctx_init(&c, a, &tmp, err);
	c.s = &scr;
	c.general = general;
	c.mpl = true;
	c.iun = true;
	if (!target || target->type != SMP_MAP)
		orig = smpv_map(a, 0);
	else
		orig = inplace ? inplace
		       : general ? smpv_copy(a, target)
		       : smp_tree_copy_for_patch(a, target, patch && patch->type == SMP_MAP ? patch
		                                                                         : NULL);
	if (!orig) {
		rc = smp__snomem(&c);
		goto out;
	}
	if (!patch || patch->type != SMP_MAP) {
		*out = orig;
		rc = 0;
		goto out;
	}
	rc = smp_merge_map(&c, out, orig, patch, root);
out:
	if (fast)
		*fast = c.fast;
	smp_mscratch_free(&scr);
	smp_arena_release(&tmp);
	return rc;
}

int smp_sm_apply(smp_value **out, smp_arena *a, const smp_value *target,
                 const smp_value *patch, const smp_stype *root, smp_error *err)
{
	return sm_apply(out, a, target, NULL, patch, root, false, NULL, err);
}

int smp_sm_apply_test(smp_value **out, smp_arena *a, const smp_value *target,
                      const smp_value *patch, const smp_stype *root, bool general,
                      unsigned *fast, smp_error *err)
{
	return sm_apply(out, a, target, NULL, patch, root, general, fast, err);
}

int smp_sm_apply_inplace(smp_value **out, smp_arena *a, smp_value *target,
                         const smp_value *patch, const smp_stype *root, smp_error *err)
{
	return sm_apply(out, a, target, target, patch, root, false, NULL, err);
}
