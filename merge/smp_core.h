/*
 * smp_core.h - state shared by strategic apply and diff (internal to merge/).
 */
#ifndef SMP_SMP_CORE_H
#define SMP_SMP_CORE_H

#include "merge/merge.h"
#include "codec/depth.h"

#include <stdbool.h>
#include <stddef.h>

#define DIRECTIVE_MARKER "$patch"
#define RETAIN_KEYS_DIRECTIVE "$retainKeys"
#define DELETE_FROM_PRIMITIVE_PREFIX "$deleteFromPrimitiveList"
#define SET_ELEMENT_ORDER_PREFIX "$setElementOrder"

typedef struct sctx {
	smp_arena *a;      /* the result lives here */
	smp_arena *tmp;    /* scratch: indices, sort keys; freed by the caller */
	smp_mscratch *s;    /* scratch given back per list (sc_mark/sc_reset), or NULL */
	smp_error *err;
	bool mpl;          /* MergeOptions.MergeParallelList */
	bool iun;          /* MergeOptions.IgnoreUnmatchedNulls */
	bool patch_lists_mutable; /* conflict check may reorder the patch's lists */
	bool general;      /* fast paths off (tests compare both) */
	unsigned fast;     /* lists a fast path handled (for those tests) */
	smp_value *empty_map; /* diff: the empty nested patch (never written) */
	const char *mkc_src, *mkc; /* diff: merge key mkc_src copied as mkc ... */
	smp_arena *mkc_arena;      /* ... into this arena (mk_key) */
	bool ref_copies;   /* diff: the patch being built is only read, by a merge
	                    * that copies what it takes: reference the inputs'
	                    * values instead of copying them */
	unsigned depth;
	size_t plen;       /* length of path (may exceed what fits) */
	char path[SMP_ERROR_PATH_MAX];
} sctx;

/* The merge walks lists of a large document once or twice: element, member
 * array, key value and key bytes are cache misses one after the other.
 * Prefetching a few elements ahead overlaps them (a third off the time of
 * a 100,000-element patch). */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* What LookupPatchMetadataFor{Struct,Slice} answers. */
typedef struct pmeta {
	const smp_stype *sub; /* NULL: no schema below (lookups succeed, no metadata) */
	bool merge;           /* patchStrategy (retainKeys removed) == "merge" */
	bool replace;         /* ... == "replace" */
	bool retain;          /* retainKeys was among the strategies */
	const char *mk;       /* patchMergeKey, "" when none */
	bool object_as_list;  /* slice lookup on an object-typed field (mergeItemPtr) */
} pmeta;

void smp__sctx_init(sctx *c, smp_arena *a, smp_arena *tmp, smp_error *err);

/* Memory that lives no longer than the list or map being merged: from c->s
 * when the operation has one (given back by sc_reset), else from c->tmp.
 * NULL on allocation failure (no message set). */
static inline void *sc_alloc(sctx *c, size_t n)
{
	return c->s ? smp_mscratch_alloc(c->s, n) : smp_arena_alloc(c->tmp, n);
}

static inline smp_mmark sc_mark(const sctx *c)
{
	smp_mmark m = {NULL, NULL};

	if (c->s)
		m = smp_mscratch_mark(c->s);
	return m;
}

static inline void sc_reset(sctx *c, smp_mmark m)
{
	if (c->s)
		smp_mscratch_reset(c->s, m);
}

/* smp_vindex_init in sc_alloc memory: 0 or SMP_ENOMEM (no message). */
static inline int sc_vindex(sctx *c, smp_vindex *ix, size_t max_entries)
{
	void *mem = sc_alloc(c, smp_vindex_bytes(max_entries));

	if (!mem)
		return SMP_ENOMEM;
	smp_vindex_init_at(ix, mem, max_entries);
	return 0;
}

/* Error with the current document path. Returns code. */
int smp__sfail(sctx *c, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
int smp__snomem(sctx *c);

/* Document path: push returns the length to restore with spop. */
size_t smp__spush_key(sctx *c, const char *key, size_t klen);
size_t smp__spush_elem(sctx *c, const char *mk, const smp_value *mkval, size_t index);
void smp__spop(sctx *c, size_t len);

int smp__lookup_struct(sctx *c, const smp_stype *t, const char *key, size_t klen, pmeta *m);
int smp__lookup_slice(sctx *c, const smp_stype *t, const char *key, size_t klen, pmeta *m);

/* Member helpers on maps built in our arena. */
const smp_value *smp__mget(const smp_value *map, const char *key);
bool smp__has_prefix(const char *key, size_t klen, const char *prefix);

/* "%v" of a value into a new string in arena tmp (for sorting/keys). */
int smp__gov_key(sctx *c, const smp_value *v, smp_skey *out);

/* Error message helpers with %v of values. */
int smp__err_no_merge_key(sctx *c, const smp_value *m, const char *mk);
int smp__err_bad_arg_type(sctx *c, const char *expected, const smp_value *actual);
int smp__err_bad_patch_type(sctx *c, const smp_value *t, const smp_value *m);
int smp__err_list_types(sctx *c, const smp_value *l1, const smp_value *l2);

/* sliceElementType over up to two lists: *kind gets SMP_MAP, SMP_STRING,
 * ... Errors as the reference (lists of lists, mixed types, no elements). */
int smp__slice_elem_type(sctx *c, const smp_value *l1, const smp_value *l2, smp_type *kind);

/* Value of key mk in map item (NULL when absent or not a map). */
/* Whether map entry e's key is mk (NUL-terminated), compared in place (no
 * strlen, no memcmp call: it runs for every list element). A NUL inside
 * the key stops the loop early (mk has none), so such a key never matches. */
static inline bool mk_key_is(const smp_member *e, const char *mk)
{
	size_t k = 0;

	while (k < e->klen && mk[k] && e->key[k] == mk[k])
		k++;
	return k == e->klen && mk[k] == '\0';
}

const smp_value *smp__mk_value(const smp_value *item, const char *mk);

/* deduplicateScalars, exactly (order included), on an array in place;
 * returns the new length. */
size_t smp__dedup_scalars(sctx *c, smp_value **s, size_t n);

/* sortScalars: sorts by "%v" as Go's sort.Sort. */
int smp__sort_scalars(sctx *c, smp_value **s, size_t n);

/* A growable array of value pointers in the scratch arena. */
typedef struct vlist {
	smp_value **v;
	size_t n, cap;
	const smp_value **k; /* merge-key values parallel to v (partition's halves), or NULL;
	                      * not kept by vl_push */
} vlist;

/* Grows l (doubling, at least to `need`); returns 0 or SMP_ENOMEM. */
int smp__vl_reserve(sctx *c, vlist *l, size_t need);

static inline int vl_push(sctx *c, vlist *l, smp_value *v)
{
	if (l->n == l->cap && smp__vl_reserve(c, l, l->n + 1))
		return SMP_ENOMEM;
	l->v[l->n++] = v;
	return 0;
}
int smp__vl_from_list(sctx *c, vlist *l, const smp_value *list);
smp_value *smp__vl_to_list(sctx *c, const vlist *l);

/* normalizeSliceOrder: stable sort of l by first position in order (merge
 * key values for maps); $patch: delete items go last. */
int smp__normalize_slice_order(sctx *c, vlist *l, const vlist *order, const char *mk, bool maps);

/* Whether a list item is a map with $patch: delete. */
bool smp__is_delete_item(const smp_value *m);

/* partitionPrimitivesByPresentInList / partitionMapsByPresentInList: the
 * items of `merged` present in `by` go to `in`, the others to `out`; the
 * index over `by` is left in *ix for normalize_element_order. */
int smp__partition(sctx *c, const vlist *merged, const vlist *by, const char *mk, bool maps,
                    vlist *in, vlist *out, smp_vindex *ix);

/* normalizeElementOrder + mergeSortedSlice over the two halves partition
 * gave. `pix` is partition's index over patch_order when it ran with the
 * same `maps` (NULL: built here). */
int smp__normalize_element_order(sctx *c, vlist *out, vlist *patch, vlist *server,
                                  const vlist *patch_order, const vlist *server_order,
                                  const char *mk, bool maps, const smp_vindex *pix);

/* mergeMap with c->mpl / c->iun as MergeOptions; `orig` (may be NULL) is
 * changed in place and must live in c->a. */
int smp_merge_map(sctx *c, smp_value **out, smp_value *orig, const smp_value *patch,
                  const smp_stype *t);

#endif
