/*
 * merge.h - the merge engine's internals (strategic merge patch, JSON merge
 * patch, JSON Patch). The public entry points are in smpatch.h ("Patches");
 * these are the same operations on a caller-chosen arena and schema type,
 * for patch.c and the tests.
 *
 * Every function here reads its inputs (const) and builds its result in
 * arena `a`: inputs are never modified and may be shared between threads
 * (the one exception, smp_sm_apply_inplace, takes its target non-const).
 */
#ifndef SMP_MERGE_H
#define SMP_MERGE_H

#include "codec/value.h"
#include "schema/schema.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- strategic merge patch (smp_apply.c, smp_diff.c) ---- */

/* StrategicMergePatchUsingLookupPatchMeta: `target` NULL or null means {}.
 * `root` is the schema type of the document (NULL: no metadata at all). */
int smp_sm_apply(smp_value **out, smp_arena *a, const smp_value *target,
                 const smp_value *patch, const smp_stype *root, smp_error *err);

/* The same without the copy: `target` (NULL, null or a map) must live in
 * arena `a` and is changed in place; *out may be it or a new map. On error
 * `target` is left half-changed (maps may hold tombstones, val == NULL):
 * the caller must throw it away. `patch` must not share nodes with it. */
int smp_sm_apply_inplace(smp_value **out, smp_arena *a, smp_value *target,
                         const smp_value *patch, const smp_stype *root, smp_error *err);

/* smp_sm_apply for tests that check the fast paths give the results and
 * errors of the general algorithm: with `general` every fast path is off;
 * *fast (may be NULL) gets the number of lists a fast path handled. */
int smp_sm_apply_test(smp_value **out, smp_arena *a, const smp_value *target,
                      const smp_value *patch, const smp_stype *root, bool general,
                      unsigned *fast, smp_error *err);

/* CreateTwoWayMergePatchUsingLookupPatchMeta (NULL inputs mean {}). */
int smp_sm_diff2(smp_value **out, smp_arena *a, const smp_value *original,
                 const smp_value *modified, const smp_stype *root, smp_error *err);

/* CreateThreeWayMergePatch with kubectl's preconditions (apiVersion, kind,
 * metadata.name unchanged). SMP_ECONFLICT / SMP_EPRECOND. */
int smp_sm_diff3(smp_value **out, smp_arena *a, const smp_value *original,
                 const smp_value *modified, const smp_value *current,
                 const smp_stype *root, bool overwrite, smp_error *err);

/* smp_sm_diff3 with the merge's fast paths off when `general` (tests). */
int smp_sm_diff3_test(smp_value **out, smp_arena *a, const smp_value *original,
                      const smp_value *modified, const smp_value *current,
                      const smp_stype *root, bool overwrite, bool general, smp_error *err);

/* MergingMapsHaveConflicts. Returns 0 and sets *conflict, or an error. */
int smp_sm_conflicts(bool *conflict, const smp_value *left, const smp_value *right,
                     const smp_stype *root, smp_error *err);

/* The reference's test helper sortMergeListsByName (kept for the
 * conformance suite smp-sort): sorts every merging list by its merge key. */
int smp_sm_sort_merge_lists(smp_value **out, smp_arena *a, const smp_value *doc,
                            const smp_stype *root, smp_error *err);

/* ---- JSON merge patch, RFC 7386 (jmp.c) ---- */

/* MergePatch (evanphx/json-patch v4 for objects; RFC 7386 at the top level
 * for a non-object patch). */
int smp_jmp_apply(smp_value **out, smp_arena *a, const smp_value *target,
                  const smp_value *patch, smp_error *err);
/* CreateMergePatch (numbers compared as the reference's float64 would,
 * except that two integers compare exactly). */
int smp_jmp_diff2(smp_value **out, smp_arena *a, const smp_value *original,
                  const smp_value *modified, smp_error *err);
/* CreateThreeWayJSONMergePatch with kubectl's preconditions. */
int smp_jmp_diff3(smp_value **out, smp_arena *a, const smp_value *original,
                  const smp_value *modified, const smp_value *current, smp_error *err);
/* keepOrDeleteNullInObj. */
int smp_jmp_keep_or_delete_null(smp_value **out, smp_arena *a, const smp_value *map,
                                bool keep_null, smp_error *err);

/* SMP_ECONFLICT with both sides (compact JSON) in the message. */
int smp_conflict_error(smp_error *err, const smp_value *patch, const smp_value *changed);

/* mergepatch.HasConflicts. */
bool smp_has_conflicts(const smp_value *a, const smp_value *b);

/* Equality as the JSON libraries kubectl uses see it (json-patch's
 * matchesValue, RFC 6902 "test"): numbers compare by value (1 == 1.0),
 * everything else as smpv_equal. */
bool smp_json_value_equal(const smp_value *x, const smp_value *y);

/* ---- JSON Patch, RFC 6902 (jsonpatch.c) ---- */

int smp_jsonpatch_apply(smp_value **out, smp_arena *a, const smp_value *target,
                        const smp_value *ops, smp_error *err);

/* ---- helpers shared by the files above (gofmt.c) ---- */

/* Appends v formatted like Go's fmt "%v" of the decoded JSON value. */
void smp_gofmt_v(smp_buf *b, const smp_value *v);
/* Like "%s": strings as is, other values as %!s(type=...). */
void smp_gofmt_s(smp_buf *b, const smp_value *v);
/* The Go type name of a decoded value ("string", "int64",
 * "map[string]interface {}", ...). */
const char *smp_go_type_name(const smp_value *v);

/* Sorts idx[0..n) by keys (bytewise) exactly as Go's sort.Sort (pdqsort)
 * does with the reference's "a <= b" Less, ties included (up to 12
 * elements, an insertion sort that reverses them). */
typedef struct smp_skey {
	const char *s;
	size_t n;
} smp_skey;
int smp_go_sort_keys(size_t *idx, const smp_skey *keys, size_t n);

/* sort.SliceStable with the comparator "ki < kj when both are >= 0, else
 * true" over precomputed integer keys (-1 = not found): Go's insertion
 * sort blocks and SymMerge, so even the inconsistent case matches. */
void smp_go_stable_by_index(void **items, long *keys, size_t n);

/* Open-addressing index from a value (equality as smpv_equal) to the first
 * position it was added at. Strings and integers hash 8 bytes per step;
 * each entry keeps its hash, compared before the values. */
struct smp_vindex_ent {
	const smp_value *key;
	size_t pos;
	uint64_t hash;
};
typedef struct smp_vindex {
	size_t cap;              /* power of two */
	uint32_t *slot;          /* entry + 1; 0 = empty */
	struct smp_vindex_ent *ent; /* in the order added */
	size_t n, max;
	bool dup;                /* some add found its key there already */
} smp_vindex;

int smp_vindex_init(smp_vindex *ix, smp_arena *a, size_t max_entries);
/* Adds key at position pos unless an equal key is there already. */
void smp_vindex_add(smp_vindex *ix, const smp_value *key, size_t pos);
/* First position of key, or -1. */
long smp_vindex_find(const smp_vindex *ix, const smp_value *key);
/* The same with a position hint for lookups that usually come in the order
 * the keys were added: *hint is an entry number (start with 0), tried first
 * (no hashing) when the index has no duplicate keys; on success it is set
 * to the entry after the one found. */
long smp_vindex_find_next(const smp_vindex *ix, const smp_value *key, size_t *hint);

/* The same with the key's hash given (smp_vindex_hash), for keys looked up
 * in more than one index. */
uint64_t smp_vindex_hash(const smp_value *key);
void smp_vindex_add_h(smp_vindex *ix, const smp_value *key, uint64_t hash, size_t pos);
long smp_vindex_find_h(const smp_vindex *ix, const smp_value *key, uint64_t hash);

/* Sets ix up in `mem`, smp_vindex_bytes(max_entries) bytes, 8-aligned
 * (for callers with their own scratch memory). */
size_t smp_vindex_bytes(size_t max_entries);
void smp_vindex_init_at(smp_vindex *ix, void *mem, size_t max_entries);

/* Scratch memory released to a mark: the merge engine takes its per-list
 * indices and arrays here and gives them back after each list, so the
 * thousands of lists of a large document reuse the same (already faulted
 * in) pages instead of growing an arena. Chunks are kept until
 * smp_mscratch_free. Not thread-safe (one per operation). */
typedef struct smp_mscratch_chunk smp_mscratch_chunk;
typedef struct smp_mscratch {
	smp_mscratch_chunk *first, *cur;
	char *p, *end;           /* free part of cur */
} smp_mscratch;
typedef struct smp_mmark {
	smp_mscratch_chunk *c;
	char *p;
} smp_mmark;

void smp_mscratch_init(smp_mscratch *s);
void smp_mscratch_free(smp_mscratch *s);
void *smp_mscratch_alloc_slow(smp_mscratch *s, size_t n);

/* n bytes, 8-aligned, uninitialised; NULL on allocation failure. */
static inline void *smp_mscratch_alloc(smp_mscratch *s, size_t n)
{
	/* Chunk sizes are multiples of 8, so n < room rounds up within it
	 * (and an empty scratch, p == end == NULL, takes the slow path). */
	if (n < (size_t)(s->end - s->p)) {
		void *r = s->p;
		s->p += (n + 7) & ~(size_t)7;
		return r;
	}
	return smp_mscratch_alloc_slow(s, n);
}

static inline smp_mmark smp_mscratch_mark(const smp_mscratch *s)
{
	smp_mmark m = {s->cur, s->p};
	return m;
}

/* Gives back everything allocated since m (taken from the same s). */
void smp_mscratch_reset(smp_mscratch *s, smp_mmark m);

/* Index of a map's keys (linear scan when small). */
typedef struct smp_kindex {
	const smp_value *map;
	smp_arena *arena;        /* where the slots live */
	uint64_t *slot;          /* entry + 1 | hash >> 32 << 32; 0 = empty */
	size_t cap;              /* 0 = no index (small map): scan */
	bool dup;                /* the map has a key twice (seen while indexing) */
} smp_kindex;

int smp_kindex_init(smp_kindex *ix, smp_arena *a, const smp_value *map);
/* Keeps the index current after smpv_map_add to the indexed map. */
int smp_kindex_added(smp_kindex *ix);
long smp_kindex_find(const smp_kindex *ix, const char *key, size_t klen);

/* A copy of v in arena a without the map members whose value is null
 * (drop_nulls: json-patch's pruneNulls, the reference's
 * discardNullValuesFromPatch) and, with strip, without the maps that carry
 * $patch (removeDirectives; *keep false, NULL returned, when v itself is
 * one). At most max_depth levels below `depth`. On failure NULL with *keep
 * true: SMP_ENOMEM or SMP_ELIMIT in err, with `path` (NULL: none). */
smp_value *smp_tree_copy_clean(smp_arena *a, const smp_value *v, bool drop_nulls, bool strip,
                               bool *keep, unsigned depth, unsigned max_depth,
                               const char *path, smp_error *err);

/* Deep copy into arena a, like smpv_copy (same values, keys, order and
 * source positions), faster for large trees: a node's children share one
 * block, and a key is copied once per distinct source key pointer. NULL
 * when out of memory. */
smp_value *smp_tree_copy(smp_arena *a, const smp_value *v);

/* The same for a target about to be patched in place by `patch` (a map, or
 * NULL for a full copy): where the patch has, at the same path of maps and
 * in a small map (up to 8 keys) without directive keys, a scalar or null
 * for a key, the
 * target's value there is not copied but stands in as an empty node of its
 * type (the merge replaces or deletes it unread). Only for that merge. */
smp_value *smp_tree_copy_for_patch(smp_arena *a, const smp_value *v, const smp_value *patch);

/* True when the first n keys of map are in strictly increasing byte order
 * (as Go and kubectl print maps; strictly: no key twice). */
bool smp_keys_sorted(const smp_value *map, size_t n);
/* Entry of key among the first n (sorted) entries of map, or -1; searches
 * forward from entry `hint` by galloping when the key lies after it. */
long smp_sorted_find(const smp_value *map, size_t n, const char *key, size_t klen, size_t hint);

#endif
