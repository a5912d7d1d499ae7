/*
 * smp_order.c - the order of merged lists, as the reference's
 * normalizeElementOrder, normalizeSliceOrder and partition* functions give
 * it (k8s.io/apimachinery strategicpatch): the lists the merge builds
 * (vlist), indices over order lists, the stable sorts by position, and the
 * interleaving of patch and server items. Used by smp_apply.c.
 */
#include "merge/smp_core.h"

#include <stdint.h>
#include <string.h>

int smp__vl_reserve(sctx *c, vlist *l, size_t need)
{
	size_t ncap = l->cap ? l->cap * 2 : 8;
	smp_value **nv;

	if (need <= l->cap)
		return 0;
	if (ncap < need)
		ncap = need;
	if (ncap > SIZE_MAX / sizeof(*nv))
		return smp__snomem(c);
	nv = sc_alloc(c, ncap * sizeof(*nv));
	if (!nv)
		return smp__snomem(c);
	if (l->n)
		memcpy(nv, l->v, l->n * sizeof(*nv));
	l->v = nv;
	l->cap = ncap;
	return 0;
}

int smp__vl_from_list(sctx *c, vlist *l, const smp_value *list)
{
	memset(l, 0, sizeof(*l));
	if (!list || list->type != SMP_LIST)
		return 0;
	for (size_t i = 0; i < list->u.list.len; i++)
		if (vl_push(c, l, list->u.list.items[i]))
			return SMP_ENOMEM;
	return 0;
}

smp_value *smp__vl_to_list(sctx *c, const vlist *l)
{
	smp_value *r = smpv_list(c->a, l->n);

	if (!r) {
		smp__snomem(c);
		return NULL;
	}
	for (size_t i = 0; i < l->n; i++)
		r->u.list.items[i] = l->v[i];
	r->u.list.len = l->n;
	return r;
}

/* What index() compares: the merge-key value for maps, the item itself
 * otherwise. */
static const smp_value *order_key(const smp_value *item, const char *mk, bool maps)
{
	return maps ? smp__mk_value(item, mk) : item;
}

/* Index over an order list, built once per list and shared by partition,
 * normalize_slice_order and the interleaving. Maps without the merge key
 * are left out: partition skips them (findMapInSliceBasedOnKeyValue), and
 * the others validate the merge keys before looking anything up. */
static int build_order_index(sctx *c, smp_vindex *ix, const vlist *order, const char *mk,
                             bool maps)
{
	if (sc_vindex(c, ix, order->n))
		return smp__snomem(c);
	for (size_t i = 0; i < order->n; i++) {
		const smp_value *key = maps && order->k ? order->k[i] : order_key(order->v[i], mk, maps);
		if (key)
			smp_vindex_add(ix, key, i);
	}
	return 0;
}

static int validate_merge_keys(sctx *c, const char *mk, const vlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const smp_value *m = l->v[i];
		if (l->k && l->k[i])
			continue; /* a map with the key (its value is known) */
		if (m->type != SMP_MAP)
			return smp__err_bad_arg_type(c, "map[string]interface {}", m);
		if (!smp__mk_value(m, mk))
			return smp__err_no_merge_key(c, m, mk);
	}
	return 0;
}

bool smp__is_delete_item(const smp_value *m)
{
	return smpv_is_str(smp__mget(m, DIRECTIVE_MARKER), "delete");
}

/* normalizeSliceOrder with the index over `order` given. `l_checked`: the
 * items of l are known to be maps with the merge key (partition checked
 * them), so only `order` needs validating. */
static int nso_ix(sctx *c, vlist *l, const vlist *order, const smp_vindex *ix, const char *mk,
                  bool maps, bool l_checked)
{
	vlist keep = {0}, del = {0};
	const smp_value **kk = NULL; /* merge keys of keep, when l came with them */
	size_t hint = 0;
	long *keys;
	int rc;

	if (maps) {
		if ((!l_checked && (rc = validate_merge_keys(c, mk, l))) ||
		    (rc = validate_merge_keys(c, mk, order)))
			return rc;
		if (l_checked && l->k && !(kk = sc_alloc(c, (l->n + 1) * sizeof(*kk))))
			return smp__snomem(c);
		for (size_t i = 0; i < l->n; i++) {
			bool d = smp__is_delete_item(l->v[i]);
			if (!d && kk)
				kk[keep.n] = l->k[i];
			if ((rc = vl_push(c, d ? &del : &keep, l->v[i])))
				return rc;
		}
	} else {
		keep = *l;
		keep.k = NULL;
	}
	keys = sc_alloc(c, (keep.n + 1) * sizeof(*keys));
	if (!keys)
		return smp__snomem(c);
	for (size_t i = 0; i < keep.n; i++)
		keys[i] = smp_vindex_find_next(ix, kk ? kk[i] : order_key(keep.v[i], mk, maps),
		                               &hint);
	smp_go_stable_by_index((void **)keep.v, keys, keep.n);
	for (size_t i = 0; i < del.n; i++)
		if ((rc = vl_push(c, &keep, del.v[i])))
			return rc;
	*l = keep;
	return 0;
}

/* normalizeSliceOrder: stable sort of l by position in order; items marked
 * $patch: delete go last. */
int smp__normalize_slice_order(sctx *c, vlist *l, const vlist *order, const char *mk,
                                       bool maps)
{
	smp_vindex ix;
	int rc;

	if ((rc = build_order_index(c, &ix, order, mk, maps)))
		return rc;
	return nso_ix(c, l, order, &ix, mk, maps, false);
}

/* normalizeElementOrder + mergeSortedSlice over the two halves partition
 * gave. `pix` is partition's index over patch_order when it ran with the
 * same `maps` (NULL: built here). */
int smp__normalize_element_order(sctx *c, vlist *out, vlist *patch, vlist *server,
                                         const vlist *patch_order, const vlist *server_order,
                                         const char *mk, bool maps, const smp_vindex *pix)
{
	smp_vindex pbuf, ix;
	/* Given the caller's index, partition ran with the same `maps` and
	 * checked every item of patch and server. */
	bool checked = pix != NULL;
	size_t i = 0, j = 0, hs = 0, hp = 0;
	long li = -1, ri = -1;
	bool have_li = false, have_ri = false;
	int rc;

	if (!pix) {
		if ((rc = build_order_index(c, &pbuf, patch_order, mk, maps)))
			return rc;
		pix = &pbuf;
	}
	if ((rc = nso_ix(c, patch, patch_order, pix, mk, maps, checked)))
		return rc;
	/* With no server-only items the index over server_order is not needed
	 * (nso_ix still validates the lists). */
	if (server->n && (rc = build_order_index(c, &ix, server_order, mk, maps)))
		return rc;
	if ((rc = nso_ix(c, server, server_order, &ix, mk, maps, checked)))
		return rc;
	memset(out, 0, sizeof(*out));
	/* Each item is looked up once, in list order (the hints keep that a
	 * sequential walk when the lists line up). */
	while (i < server->n && j < patch->n) {
		if (!have_li) {
			li = smp_vindex_find_next(&ix, order_key(server->v[i], mk, maps), &hs);
			have_li = true;
		}
		if (!have_ri) {
			ri = smp_vindex_find_next(&ix, order_key(patch->v[j], mk, maps), &hp);
			have_ri = true;
		}
		if (li >= 0 && ri >= 0 && li < ri) {
			rc = vl_push(c, out, server->v[i++]);
			have_li = false;
		} else {
			rc = vl_push(c, out, patch->v[j++]);
			have_ri = false;
		}
		if (rc)
			return rc;
	}
	while (i < server->n)
		if ((rc = vl_push(c, out, server->v[i++])))
			return rc;
	while (j < patch->n)
		if ((rc = vl_push(c, out, patch->v[j++])))
			return rc;
	return 0;
}

/* partitionPrimitivesByPresentInList / partitionMapsByPresentInList. The
 * index over `by` is left in *ix for normalize_element_order. */
int smp__partition(sctx *c, const vlist *merged, const vlist *by, const char *mk, bool maps,
                           vlist *in, vlist *out, smp_vindex *ix)
{
	size_t hint = 0;
	int rc;

	memset(in, 0, sizeof(*in));
	memset(out, 0, sizeof(*out));
	if (maps) {
		for (size_t i = 0; i < merged->n && i == 0; i++)
			for (size_t k = 0; k < by->n; k++)
				if (by->v[k]->type != SMP_MAP)
					return smp__sfail(c, SMP_EPATCH, "value for key %zu is not a map", k);
	}
	if ((rc = build_order_index(c, ix, by, mk, maps)) ||
	    (rc = smp__vl_reserve(c, in, merged->n)) || (rc = smp__vl_reserve(c, out, merged->n)))
		return rc;
	/* Both halves keep their merge keys for normalize_slice_order. */
	if (maps && merged->n &&
	    (!(in->k = sc_alloc(c, merged->n * sizeof(*in->k))) ||
	     !(out->k = sc_alloc(c, merged->n * sizeof(*out->k)))))
		return smp__snomem(c);
	for (size_t i = 0; i < merged->n; i++) {
		const smp_value *v = merged->v[i];
		const smp_value *key = v;
		if (maps) {
			if (v->type != SMP_MAP)
				return smp__err_bad_arg_type(c, "map[string]interface {}", v);
			key = smp__mk_value(v, mk);
			if (!key)
				return smp__err_no_merge_key(c, v, mk);
		}
		vlist *half = smp_vindex_find_next(ix, key, &hint) >= 0 ? in : out;
		if (maps)
			half->k[half->n] = key;
		rc = vl_push(c, half, merged->v[i]);
		if (rc)
			return rc;
	}
	return 0;
}
