/*
 * ssa.h - server-side apply internals (field ownership).
 *
 * The room follows structured-merge-diff (SMD) v4.1.2, the library the API
 * server drives, and v4.4.2 (Kubernetes 1.27 to 1.32) where duplicate
 * keys in associative lists are concerned (accepted in an update's object
 * and in live objects, recorded by their element alone), one concern per
 * file:
 *
 *   context.c   one call's state (ssa_ctx): arena, error, out of memory
 *   types.c     SSA's view of a schema type (kube-openapi schemaconv rules)
 *   pathelem.c  path elements: order, equality, hashing, printing, FieldsV1 keys
 *   fieldset.c  sets of paths (a trie with sorted, binary-searched children),
 *               union/intersection/difference, FieldsV1 read and write
 *   typed.c     walks of a value and its type together: validate, field set,
 *               merge, compare, remove items, reconcile a set with the schema
 *   update.c    SMD's Updater: apply, update, prune, conflicts
 *   manager.c   apimachinery's managedFields pipeline and the public API
 *   csaupgrade.c  client-go's csaupgrade (kubectl's migration)
 *
 * Each file calls only the files above it in this list.
 *
 * Everything of one call lives in one scratch arena (ssa_ctx.arena) and is
 * released at once; values built here reference the caller's values and
 * are deep-copied into the result at the end. Walks recurse, bounded by
 * SSA_MAX_DEPTH (SMP_ELIMIT beyond it).
 */
#ifndef SMP_SSA_H
#define SMP_SSA_H

#include "smpatch.h"
#include "codec/value.h"
#include "schema/schema.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nesting accepted in values, field sets and FieldsV1 documents. */
#define SSA_MAX_DEPTH SMP_DEFAULT_MAX_DEPTH

/* ---------------------------------------------------------------- types */

enum { SSA_SC_NONE = 0, SSA_SC_NUMERIC, SSA_SC_STRING, SSA_SC_BOOLEAN, SSA_SC_UNTYPED };
enum { SSA_REL_SEPARABLE = 0, SSA_REL_ATOMIC, SSA_REL_ASSOCIATIVE };

typedef struct ssa_ctx ssa_ctx;
typedef struct ssa_type ssa_type;

/* One SMD atom: any combination of a scalar, a list and a map. */
struct ssa_type {
	uint8_t scalar;      /* SSA_SC_*; NONE when the atom has no scalar */
	bool has_list, has_map;
	uint8_t list_rel;    /* ATOMIC or ASSOCIATIVE */
	uint8_t map_rel;     /* SEPARABLE or ATOMIC */
	bool deduced;        /* the untyped deduced type */
	/* SMD's isUntypedDeducedMap: a map without fields whose element type is
	 * deduced or an inline untyped scalar; reconcile leaves it alone. */
	bool reconcile_skip;
	/* list */
	uint32_t nkeys;
	const char *const *keys;        /* list-map keys (associative with keys) */
	const uint32_t *key_lens;
	const smp_value **key_defaults; /* nkeys entries (NULL = no default), or NULL */
	ssa_type *elem;                 /* list element type, resolved lazily */
	const smp_stype *elem_src;
	bool elem_inherit;
	/* map: struct fields (sorted by strcmp) and the type of other keys */
	const smp_sfield *fields;
	uint32_t nfields;
	ssa_type **field_types;         /* resolved lazily, parallel to fields */
	/* the fields last found, by the address of the key looked up (a
	 * document's keys repeat at the same address): a guess, checked */
	uint32_t memo[8];
	bool field_inherit;             /* inline fields inherit preserve-unknown */
	ssa_type *map_elem;             /* NULL: undeclared keys are errors */
	const smp_stype *map_elem_src;  /* MAP: the additionalProperties type */
	bool map_elem_inherit;
};

/* The type of `kind` in the schema `s`: a root definition. NULL on ENOMEM. */
ssa_type *ssa_type_root(ssa_ctx *c, const smp_schema *s, const smp_stype *t);
/* The list element type (never NULL unless ENOMEM). */
ssa_type *ssa_type_elem(ssa_ctx *c, ssa_type *t);
/* The type of map key `k`: the struct field's, else the element type, else
 * NULL (undeclared). *declared tells whether k is a struct field. */
ssa_type *ssa_type_field(ssa_ctx *c, ssa_type *t, const char *k, size_t klen,
                         bool *declared);
/* The type of keys that are not struct fields, or NULL (they are errors). */
ssa_type *ssa_type_map_elem(ssa_ctx *c, ssa_type *t);
/* The empty atom (no scalar, list or map): what SMD resolves an empty
 * TypeRef to. */
extern ssa_type ssa_type_none;

/* ---------------------------------------------------------------- paths */

enum { SSA_PE_FIELD = 0, SSA_PE_KEY, SSA_PE_VALUE, SSA_PE_INDEX };

typedef struct ssa_kv {
	const char *name;
	uint32_t nlen;
	const smp_value *val;
} ssa_kv;

/* A path element. Its storage (names, key arrays, values) belongs to the
 * call's arena or to the values it was made from. */
typedef struct ssa_pe {
	uint8_t kind;
	uint32_t n;  /* FIELD: name length; KEY: number of key fields */
	union {
		const char *name;     /* FIELD */
		const ssa_kv *keys;   /* KEY, sorted by name */
		const smp_value *val; /* VALUE */
		int64_t index;        /* INDEX */
	} u;
} ssa_pe;

/* SMD value.Compare (numbers compare numerically, 1 == 1.0); its Equals
 * and a hash consistent with it are codec's smpv_equal_numeric and
 * smpv_hash_numeric. */
int ssa_value_cmp(const smp_value *a, const smp_value *b);
int ssa_pe_cmp(const ssa_pe *a, const ssa_pe *b);
bool ssa_pe_eq(const ssa_pe *a, const ssa_pe *b);
uint64_t ssa_pe_hash(const ssa_pe *pe);
/* Sorts a key's n pairs by name as Go's sort.SliceStable leaves them. */
void ssa_kv_sort(ssa_kv *kv, size_t n);
/* Appends the element as SMD prints it in paths: .name, [k="v",n=1], [=v], [3]. */
void ssa_pe_print(smp_buf *b, const ssa_pe *pe);
/* Appends the FieldsV1 key of the element (f:name, k:{...}, v:..., i:N),
 * exactly as SMD serializes it (inner JSON with HTML escaping). */
void ssa_pe_fieldsv1_key(smp_buf *b, const ssa_pe *pe);
/* Parses a FieldsV1 key. 0, SMP_EINVAL (malformed, message in msg) or
 * 1 for an element type this version does not know (SMD skips those). */
int ssa_pe_parse_key(ssa_ctx *c, ssa_pe *out, const char *s, size_t n, char *msg,
                     size_t msgsize);
/* Appends s as a JSON string literal the way jsoniter (HTML escaping)
 * writes it. */
void ssa_json_put_string_html(smp_buf *b, const char *s, size_t n);
/* Appends v as compact JSON with sorted keys (jsoniter WriteVal). */
void ssa_json_put_value(smp_buf *b, const smp_value *v, bool html);

/* ---------------------------------------------------------------- sets */

typedef struct ssa_set ssa_set;

typedef struct ssa_ent {
	ssa_pe pe;
	bool member;     /* the path itself is in the set */
	ssa_set *child;  /* paths below it; NULL or non-empty */
} ssa_ent;

/* Sorted by pe; immutable once built, shared between sets. The empty set
 * may be NULL. `slots` is a hash index of the entries that ssa_set_find_c
 * adds to a large set on its first lookup (NULL until then). */
struct ssa_set {
	ssa_ent *e;
	uint32_t n, mask;
	uint32_t *slots;
};

bool ssa_set_empty(const ssa_set *s);
/* Index of pe in s, or -1 (binary search). */
ptrdiff_t ssa_set_find(const ssa_set *s, const ssa_pe *pe);
/* The same through a hash index, built on the first lookup of a large set
 * (for walks that look up most of a set's entries, one by one). */
ptrdiff_t ssa_set_find_c(ssa_ctx *c, const ssa_set *s, const ssa_pe *pe);
/* The set operations of SMD's fieldpath.Set, with the same results (also
 * where they are not plain set algebra: Difference leaves a child whose
 * parent is a member of b). NULL results are empty sets; *err set on
 * ENOMEM. */
ssa_set *ssa_set_union(ssa_ctx *c, const ssa_set *a, const ssa_set *b);
ssa_set *ssa_set_intersection(ssa_ctx *c, const ssa_set *a, const ssa_set *b);
ssa_set *ssa_set_difference(ssa_ctx *c, const ssa_set *a, const ssa_set *b);
ssa_set *ssa_set_recursive_difference(ssa_ctx *c, const ssa_set *a, const ssa_set *b);
ssa_set *ssa_set_ensure_named(ssa_ctx *c, const ssa_set *s, ssa_type *t);
/* A set holding one path (a copy of the elements). */
ssa_set *ssa_set_from_path(ssa_ctx *c, const ssa_pe *path, size_t n);
/* Builds a set from entries in any order (merges duplicates); takes e. */
ssa_set *ssa_set_build(ssa_ctx *c, ssa_ent *e, size_t n);
/* The number of member paths of s (SMD's Set.Size). */
size_t ssa_set_count(const ssa_set *s);
/* The member paths of s as SMD's ConflictsFromManagers leaves them: Go
 * slices that share a prefix's backing array, so a later path can
 * overwrite the tail of an earlier one (the server prints them so). */
int ssa_set_iterate_go(ssa_ctx *c, const ssa_set *s,
                       int (*fn)(void *ctx, const ssa_pe *path, size_t n), void *fctx);
/* FieldsV1 text of s (the server's bytes). */
void ssa_set_to_fieldsv1(smp_buf *b, const ssa_set *s);
/* FieldsV1 as a value tree (a map whose keys are FieldsV1 keys), in `a`. */
smp_value *ssa_set_to_value(ssa_ctx *c, smp_arena *a, const ssa_set *s);
/* Reads a fieldsV1 value (a map; null = empty). SMP_EINVAL with msg. */
int ssa_set_from_value(ssa_ctx *c, ssa_set **out, const smp_value *v, char *msg,
                       size_t msgsize);
/* Prints a path as SMD does (.spec.ports[port=53,protocol="UDP"]). */
void ssa_path_print(smp_buf *b, const ssa_pe *path, size_t n);

/* ---------------------------------------------------------------- typed */

typedef struct ssa_cmp {
	ssa_set *removed, *modified, *added;
} ssa_cmp;

/* SMD AsTyped / Validate: 0 or SMP_EINVALOBJ with the first error (path
 * and message, prefixed by `what`). With allow_dups (SMD v4.4.2's
 * typed.AllowDuplicates: the server types an update's new object and
 * every live object so), items of an associative list may share a key. */
int ssa_validate(ssa_ctx *c, const smp_value *v, ssa_type *t, const char *what,
                 bool allow_dups);
/* ToFieldSet of a validated value; with `named`, also what
 * EnsureNamedFieldsAreMembers adds (struct fields that have children).
 * A list element several items share is in the set alone, with nothing
 * below it (SMD v4.4.2). */
int ssa_to_set(ssa_ctx *c, ssa_set **out, const smp_value *v, ssa_type *t, bool named);
/* Merge (rhs wins at leaves): *out may be NULL (nothing). lhs (the live
 * object) may repeat list elements, rhs may not. */
int ssa_merge(ssa_ctx *c, const smp_value **out, const smp_value *lhs,
              const smp_value *rhs, ssa_type *t);
/* Compare: what rhs removed, modified and added; list elements repeated
 * on either side are compared as SMD v4.4.2 does (typed.c,
 * compare_items). */
int ssa_compare(ssa_ctx *c, ssa_cmp *out, const smp_value *lhs, const smp_value *rhs,
                ssa_type *t);
/* RemoveItems: never NULL on success (a null value for "nothing"). */
int ssa_remove_items(ssa_ctx *c, const smp_value **out, const smp_value *v,
                     ssa_type *t, const ssa_set *items);
/* What SMD's Updater.prune removes from `merged` (as a set for
 * ssa_remove_items; NULL: nothing): of the paths at or below the members
 * of `l` (the applier's last set, read as EnsureNamedFieldsAreMembers
 * makes it: declared struct fields with paths below are members) that no
 * manager owns (`owners`: the managers' sets, the applier's new one
 * included), those that are in l; in one walk of `merged`, without the
 * update.go's three field sets of whole objects (docs/SSA.md). */
int ssa_prune_set(ssa_ctx *c, ssa_set **out, const smp_value *merged, ssa_type *t,
                  const ssa_set *l, const ssa_set *const *owners, size_t nowners);
/* ReconcileFieldSetWithSchema: *out = NULL when nothing changes. */
int ssa_reconcile(ssa_ctx *c, ssa_set **out, const ssa_set *s, ssa_type *t);

/* ---------------------------------------------------------------- context */

/* The roots a cache keeps: the kinds a caller's calls apply, one compiled
 * type each per schema (more kinds than this: the oldest is made again). */
#define SSA_CACHE_ROOTS 64

/* What a smp_ssa_cache keeps from one call to the next (one thread at a
 * time): the compiled types, which grow as walks meet them, and a
 * finished call's scratch memory for the next call. */
struct smp_ssa_cache {
	smp_arena types;
	ssa_type *deduced, *untyped_atomic;
	struct {
		const smp_schema *schema;
		const smp_stype *t;
		ssa_type *type;
	} roots[SSA_CACHE_ROOTS];
	size_t nroots, next;
	smp_arena spare;     /* blocks of the last call's scratch arena */
};

struct ssa_ctx {
	smp_arena arena;     /* everything of the call */
	smp_arena *tarena;   /* where types go: the cache's, else `arena` */
	smp_ssa_cache *cache; /* NULL: none */
	smp_error *err;
	int rc;              /* first failure (sticky) */
	void *lists;         /* typed.c's list groups (malloc'ed) */
	smp_value *null_value;
	const smp_schema *schema; /* where type names resolve */
	ssa_type *deduced, *untyped_atomic;
};

/* A call's context; with a cache (may be NULL), its types and scratch
 * memory come from the cache. */
void ssa_ctx_init(ssa_ctx *c, smp_error *err, smp_ssa_cache *cache);
/* Ends the call: its scratch memory is freed, or kept by its cache. */
void ssa_ctx_release(ssa_ctx *c);
/* Records SMP_ENOMEM (once) and returns it. */
int ssa_oom(ssa_ctx *c);
/* Arena allocation; on failure records SMP_ENOMEM and returns NULL. */
static inline void *ssa_alloc(ssa_ctx *c, size_t size)
{
	void *p = smp_arena_alloc_fast(&c->arena, size ? size : 1);

	if (!p)
		ssa_oom(c);
	return p;
}

/* Arena allocation of a type's memory; on failure records SMP_ENOMEM and
 * returns NULL. */
static inline void *ssa_talloc(ssa_ctx *c, size_t size)
{
	void *p = smp_arena_alloc(c->tarena, size ? size : 1);

	if (!p)
		ssa_oom(c);
	return p;
}

/* ---------------------------------------------------------------- managers */

/* One manager's set, keyed by its identifier (JSON of manager, operation,
 * apiVersion for updates, subresource: apimachinery's
 * BuildManagerIdentifier). */
typedef struct ssa_manager {
	char *id;            /* arena; NUL-terminated */
	const char *name, *operation, *api_version, *subresource;
	const char *time;    /* NULL = none */
	ssa_set *set;
	bool applied;
	bool present;        /* false once deleted */
} ssa_manager;

typedef struct ssa_managers {
	ssa_manager *m;
	size_t n, cap;
} ssa_managers;

ssa_manager *ssa_managers_get(ssa_managers *ms, const char *id);
ssa_manager *ssa_managers_put(ssa_ctx *c, ssa_managers *ms, const char *id);

/* Updater (update.c). `managers` is changed in place. *conflicts receives
 * the conflicting sets by manager (only when it returns SMP_ECONFLICT). */
typedef struct ssa_conflicts {
	ssa_manager *m;  /* manager records (id, name, operation, ...) */
	ssa_set **sets;
	size_t n;
} ssa_conflicts;

int ssa_updater_apply(ssa_ctx *c, const smp_value **out_obj, bool *changed,
                      const smp_value *live, const smp_value *config, ssa_type *t,
                      const char *version, ssa_managers *ms, const char *manager,
                      bool force, ssa_conflicts *conflicts);
int ssa_updater_update(ssa_ctx *c, ssa_cmp *cmp_out, const smp_value *live,
                       const smp_value *obj, ssa_type *t, const char *version,
                       ssa_managers *ms, const char *manager);

#endif
