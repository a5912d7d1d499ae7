/*
 * typed.c - walks of a value and its SSA type together, as SMD's typed
 * package does them (v4.1.2 semantics, quirks included; duplicate list
 * keys as v4.4.2 takes them, see lgroups):
 *
 *   validate     AsTyped: scalar kinds, undeclared fields, list keys,
 *                duplicates (unless allowed)
 *   to_set       ToFieldSet: every leaf, list item, null or empty map,
 *                and undeclared key, atomic lists/maps as one leaf; a
 *                repeated list element alone
 *   merge        Merge: the right side wins at leaves; list order: left
 *                items (merged), then new right items
 *   compare      Compare: removed / modified / added sets; repeated list
 *                elements by their element path
 *   remove       RemoveItems: emptied maps and lists become null
 *   reconcile    ReconcileFieldSetWithSchema (atomic types collapse sets)
 *
 * A value's atom is deduced from the value where the type allows several
 * (SMD's deduceAtom); maps come before scalars, scalars before lists. Sets
 * are built bottom-up, each node's entries sorted once. Map keys and list
 * keys are looked up through hash indexes beyond a few entries, so every
 * walk is linear in its input (plus sorting); a list's keys are built once
 * per call and shared by the walks (lgroups_get).
 */
#include "ssa/ssa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A_NONE = 0, A_MAP, A_SCALAR, A_LIST };

static int atom_full(const ssa_type *t)
{
	if (!t)
		return A_NONE;
	if (t->has_map)
		return A_MAP;
	if (t->scalar)
		return A_SCALAR;
	if (t->has_list)
		return A_LIST;
	return A_NONE;
}

static int deduce(const ssa_type *t, const smp_value *v)
{
	if (t && v) {
		switch (v->type) {
		case SMP_BOOL:
		case SMP_INT:
		case SMP_FLOAT:
		case SMP_STRING:
			if (t->scalar)
				return A_SCALAR;
			break;
		case SMP_LIST:
			if (t->has_list)
				return A_LIST;
			break;
		case SMP_MAP:
			if (t->has_map)
				return A_MAP;
			break;
		default:
			break;
		}
	}
	return atom_full(t);
}

static const char *type_word(const smp_value *v)
{
	switch (v->type) {
	case SMP_NULL: return "null";
	case SMP_BOOL: return "bool";
	case SMP_INT: return "int64";
	case SMP_FLOAT: return "float64";
	case SMP_STRING: return "string";
	case SMP_LIST: return "list";
	default: return "map";
	}
}

/* ---------------------------------------------------------------- errors */

typedef struct walk {
	ssa_ctx *c;
	const char *what;       /* error prefix */
	ssa_pe *path;           /* SSA_MAX_DEPTH + 1 elements */
	size_t depth;
	bool dups;              /* validate: duplicate list keys are allowed */
} walk;

static int walk_init(walk *w, ssa_ctx *c, const char *what)
{
	w->c = c;
	w->what = what;
	w->depth = 0;
	w->dups = false;
	w->path = malloc((SSA_MAX_DEPTH + 2) * sizeof(*w->path));
	return w->path ? 0 : ssa_oom(c);
}

static void walk_done(walk *w)
{
	free(w->path);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(walk *w, const char *fmt, ...)
{
	smp_buf path, msg;
	va_list ap;
	char tmp[SMP_ERROR_MESSAGE_MAX];

	if (w->c->rc)
		return w->c->rc;
	smp_buf_init(&path);
	smp_buf_init(&msg);
	ssa_path_print(&path, w->path, w->depth);
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	smp_buf_printf(&msg, "%s: ", w->what);
	if (path.len)
		smp_buf_printf(&msg, "%s: ", path.ptr);
	smp_buf_puts(&msg, tmp);
	w->c->rc = smp_err_set(w->c->err, SMP_EINVALOBJ, NULL, 0, 0, path.len ? path.ptr : NULL,
	                       "%s", msg.ptr ? msg.ptr : tmp);
	smp_buf_release(&path);
	smp_buf_release(&msg);
	return w->c->rc;
}

static int too_deep(walk *w)
{
	if (w->c->rc)
		return w->c->rc;
	w->c->rc = smp_err_set(w->c->err, SMP_ELIMIT, NULL, 0, 0, NULL,
	                       "%s: nesting deeper than %d levels", w->what, SSA_MAX_DEPTH);
	return w->c->rc;
}

static int push(walk *w, const ssa_pe *pe)
{
	if (w->depth >= SSA_MAX_DEPTH)
		return too_deep(w);
	w->path[w->depth++] = *pe;
	return 0;
}

static void pop(walk *w)
{
	w->depth--;
}

/* ---------------------------------------------------------------- indexes */

/* Open-addressing index of a map's keys (only built for larger maps). */
typedef struct kidx {
	const smp_value *m;
	uint32_t *slots;
	size_t mask;
} kidx;

#define KIDX_MIN 9

static int kidx_build(ssa_ctx *c, kidx *x, const smp_value *m)
{
	size_t n = m ? m->u.map.len : 0, cap = 16;

	x->m = m;
	x->slots = NULL;
	x->mask = 0;
	if (n < KIDX_MIN)
		return 0;
	while (cap < n * 2)
		cap *= 2;
	if (!(x->slots = ssa_alloc(c, cap * sizeof(*x->slots))))
		return SMP_ENOMEM;
	memset(x->slots, 0, cap * sizeof(*x->slots));
	x->mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		const smp_member *e = &m->u.map.items[i];
		size_t h = smp_hash_bytes(e->key, e->klen) & x->mask;

		while (x->slots[h])
			h = (h + 1) & x->mask;
		x->slots[h] = (uint32_t)(i + 1);
	}
	return 0;
}

static const smp_value *kidx_get(const kidx *x, const char *k, size_t kn)
{
	const smp_value *m = x->m;

	if (!m)
		return NULL;
	if (!x->slots) {
		for (size_t i = 0; i < m->u.map.len; i++)
			if (m->u.map.items[i].klen == kn && memcmp(m->u.map.items[i].key, k, kn) == 0)
				return m->u.map.items[i].val;
		return NULL;
	}
	for (size_t h = smp_hash_bytes(k, kn) & x->mask;; h = (h + 1) & x->mask) {
		uint32_t s = x->slots[h];

		if (!s)
			return NULL;
		if (m->u.map.items[s - 1].klen == kn && memcmp(m->u.map.items[s - 1].key, k, kn) == 0)
			return m->u.map.items[s - 1].val;
	}
}

/* A set of path elements (the first insertion wins), hashed beyond a few. */
typedef struct pidx {
	ssa_pe *pe;
	uint32_t *slots;
	uint32_t *hash; /* with slots: each element's hash (hash_pe) */
	size_t n, mask;
} pidx;

static int pidx_init(ssa_ctx *c, pidx *x, size_t n)
{
	size_t cap = 16;

	x->n = 0;
	x->slots = NULL;
	x->hash = NULL;
	x->mask = 0;
	if (!(x->pe = ssa_alloc(c, (n ? n : 1) * sizeof(*x->pe))))
		return SMP_ENOMEM;
	if (n >= KIDX_MIN) {
		while (cap < n * 2)
			cap *= 2;
		if (!(x->slots = ssa_alloc(c, cap * sizeof(*x->slots))) ||
		    !(x->hash = ssa_alloc(c, n * sizeof(*x->hash))))
			return SMP_ENOMEM;
		memset(x->slots, 0, cap * sizeof(*x->slots));
		x->mask = cap - 1;
	}
	return 0;
}

/* ssa_pe_hash in 32 bits, never 0 (0: not computed yet). */
static uint32_t hash_pe(const ssa_pe *pe)
{
	uint64_t h = ssa_pe_hash(pe);

	return (uint32_t)(h ^ h >> 32) | 1u;
}

/* Index of pe, whose hash_pe is *hash (computed here when 0 and needed),
 * or -1; *slot: where the hash index would put it. */
static ptrdiff_t pidx_slot(const pidx *x, const ssa_pe *pe, uint32_t *hash, size_t *slot)
{
	size_t h = 0;

	if (!x->slots) {
		for (size_t i = 0; i < x->n; i++)
			if (ssa_pe_eq(&x->pe[i], pe))
				return (ptrdiff_t)i;
	} else {
		if (!*hash)
			*hash = hash_pe(pe);
		for (h = *hash & x->mask; x->slots[h]; h = (h + 1) & x->mask) {
			uint32_t i = x->slots[h] - 1;

			if (x->hash[i] == *hash && ssa_pe_eq(&x->pe[i], pe))
				return i;
		}
	}
	*slot = h;
	return -1;
}

/* Index of element e of y in x, or -1 (y's hash of it reused). */
static ptrdiff_t pidx_find_of(const pidx *x, const pidx *y, size_t e)
{
	uint32_t hash = y->hash ? y->hash[e] : 0;
	size_t h;

	return pidx_slot(x, &y->pe[e], &hash, &h);
}

/* Index of pe, or -1 after inserting it. */
static ptrdiff_t pidx_add(pidx *x, const ssa_pe *pe)
{
	uint32_t hash = 0;
	size_t h;
	ptrdiff_t i = pidx_slot(x, pe, &hash, &h);

	if (i < 0) {
		x->pe[x->n] = *pe;
		if (x->slots) {
			x->hash[x->n] = hash;
			x->slots[h] = (uint32_t)x->n + 1;
		}
		x->n++;
	}
	return i;
}

/* ---------------------------------------------------------------- list items */

/* SMD's listItemToPathElement. 0, or non-zero with *msg set (the item is
 * not addressable), or SMP_ENOMEM. */
static int item_pe(ssa_ctx *c, ssa_pe *pe, const ssa_type *t, size_t i, const smp_value *item,
                   const char **msg, char *buf, size_t bufsize)
{
	memset(pe, 0, sizeof(*pe));
	if (t->list_rel != SSA_REL_ASSOCIATIVE) {
		pe->kind = SSA_PE_INDEX;
		pe->u.index = (int64_t)i;
		return 0;
	}
	if (t->nkeys) {
		ssa_kv *kv;

		if (item->type == SMP_NULL) {
			*msg = "associative list with keys may not have a null element";
			return 1;
		}
		if (item->type != SMP_MAP) {
			*msg = "associative list with keys may not have non-map elements";
			return 1;
		}
		if (!(kv = ssa_alloc(c, t->nkeys * sizeof(*kv))))
			return SMP_ENOMEM;
		for (uint32_t k = 0; k < t->nkeys; k++) {
			size_t kl = t->key_lens[k];
			ptrdiff_t j = smpv_map_find(item, t->keys[k], kl);

			kv[k].name = t->keys[k];
			kv[k].nlen = (uint32_t)kl;
			if (j >= 0) {
				kv[k].val = item->u.map.items[j].val;
			} else if (t->key_defaults && t->key_defaults[k]) {
				kv[k].val = t->key_defaults[k];
			} else {
				snprintf(buf, bufsize,
				         "associative list with keys has an element that omits key "
				         "field \"%s\" (and doesn't have default value)",
				         t->keys[k]);
				*msg = buf;
				return 1;
			}
		}
		ssa_kv_sort(kv, t->nkeys);
		pe->kind = SSA_PE_KEY;
		pe->n = t->nkeys;
		pe->u.keys = kv;
		return 0;
	}
	switch (item->type) {
	case SMP_MAP:
		*msg = "associative list without keys has an element that's a map type";
		return 1;
	case SMP_LIST:
		*msg = "not supported: associative list with lists as elements";
		return 1;
	case SMP_NULL:
		*msg = "associative list without keys has an element that's an explicit null";
		return 1;
	default:
		pe->kind = SSA_PE_VALUE;
		pe->u.val = item;
		return 0;
	}
}

/* The items of a list grouped by path element, as SMD v4.4.2 indexes them
 * where duplicates are allowed (typed.AllowDuplicates): x holds each
 * distinct element once; per item, el[i] is its element (LG_NONE: it has
 * none) and nxt[i] the next item with the same element (LG_NONE: the
 * last); per element, cnt[e] its items and head[e] the first of them. A
 * list whose every item has an element of its own (the usual case) is
 * `dense`: element e is item e, and those arrays are not made (the lg_*
 * accessors answer for them). */
#define LG_NONE UINT32_MAX

typedef struct lgroups {
	pidx x;
	const smp_value *list;
	bool dense;
	uint32_t *el, *nxt, *cnt, *head;
	size_t bad; /* the first item without an element, or SIZE_MAX */
	size_t dup; /* the first item that repeats an element, or SIZE_MAX */
} lgroups;

static inline uint32_t lg_el(const lgroups *g, size_t i)
{
	return g->dense ? (uint32_t)i : g->el[i];
}

static inline uint32_t lg_cnt(const lgroups *g, uint32_t e)
{
	return g->dense ? 1 : g->cnt[e];
}

static inline uint32_t lg_head(const lgroups *g, uint32_t e)
{
	return g->dense ? e : g->head[e];
}

static inline uint32_t lg_nxt(const lgroups *g, uint32_t i)
{
	return g->dense ? LG_NONE : g->nxt[i];
}

/* The first item of element e. */
static inline const smp_value *lg_val(const lgroups *g, uint32_t e)
{
	return g->list->u.list.items[lg_head(g, e)];
}

/* Leaves the dense form at item i (the first without an element of its
 * own): the arrays, filled for the items before it. 0 or SMP_ENOMEM. */
static int lgroups_spread(ssa_ctx *c, lgroups *g, size_t i, size_t n, uint32_t **tail)
{
	g->el = ssa_alloc(c, n * sizeof(*g->el));
	g->nxt = ssa_alloc(c, n * sizeof(*g->nxt));
	g->cnt = ssa_alloc(c, n * sizeof(*g->cnt));
	g->head = ssa_alloc(c, n * sizeof(*g->head));
	*tail = ssa_alloc(c, n * sizeof(**tail));
	if (!g->el || !g->nxt || !g->cnt || !g->head || !*tail)
		return SMP_ENOMEM;
	for (size_t k = 0; k < i; k++) {
		g->el[k] = g->head[k] = (*tail)[k] = (uint32_t)k;
		g->nxt[k] = LG_NONE;
		g->cnt[k] = 1;
	}
	g->dense = false;
	return 0;
}

/* Groups the items of list v (not NULL) of type t. Items without a path
 * element are left out (g->bad says which came first; item_pe tells why).
 * 0 or SMP_ENOMEM. */
static int lgroups_build(ssa_ctx *c, lgroups *g, const ssa_type *t, const smp_value *v)
{
	size_t n = v->u.list.len;
	uint32_t *tail = NULL;

	g->list = v;
	g->dense = true;
	g->el = g->nxt = g->cnt = g->head = NULL;
	g->bad = g->dup = SIZE_MAX;
	if (pidx_init(c, &g->x, n))
		return SMP_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const smp_value *item = v->u.list.items[i];
		const char *msg = NULL;
		char buf[256];
		ptrdiff_t e;
		ssa_pe pe;
		int rc;

		if ((rc = item_pe(c, &pe, t, i, item, &msg, buf, sizeof(buf)))) {
			if (rc < 0)
				return rc;
			if (g->dense && lgroups_spread(c, g, i, n, &tail))
				return SMP_ENOMEM;
			g->el[i] = g->nxt[i] = LG_NONE;
			if (g->bad == SIZE_MAX)
				g->bad = i;
			continue;
		}
		e = pidx_add(&g->x, &pe);
		if (g->dense && e < 0)
			continue; /* element i is item i */
		if (g->dense && lgroups_spread(c, g, i, n, &tail))
			return SMP_ENOMEM;
		g->nxt[i] = LG_NONE;
		if (e < 0) {
			e = (ptrdiff_t)g->x.n - 1;
			g->cnt[e] = 0;
			g->head[e] = (uint32_t)i;
		} else {
			g->nxt[tail[e]] = (uint32_t)i;
			if (g->dup == SIZE_MAX)
				g->dup = i;
		}
		g->el[i] = (uint32_t)e;
		g->cnt[e]++;
		tail[e] = (uint32_t)i;
	}
	return 0;
}

/* The call's cache of list groups (ssa_ctx.lists): one lgroups per list
 * value and type, so that the validation, the merge, the comparison, the
 * field sets and the pruning of one call build each list's keys once.
 * Values are not changed during a call, and its arena frees nothing, so a
 * list's address names it for the whole call. Open addressing, malloc'ed
 * (ssa_ctx_release frees it), grown at half full. */
typedef struct lslot {
	const smp_value *v;
	const ssa_type *t;
	lgroups *g;
} lslot;

typedef struct lcache {
	size_t n, mask;
	lslot s[];
} lcache;

static size_t lslot_hash(const smp_value *v, const ssa_type *t)
{
	return (size_t)smp_hash_mix((uint64_t)(uintptr_t)v ^ ((uint64_t)(uintptr_t)t << 1));
}

/* Doubles the table (or makes the first). 0 or SMP_ENOMEM. */
static int lcache_grow(ssa_ctx *c)
{
	lcache *old = c->lists, *nc;
	size_t cap = old ? (old->mask + 1) * 2 : 64;

	if (!(nc = calloc(1, sizeof(*nc) + cap * sizeof(nc->s[0]))))
		return SMP_ENOMEM;
	nc->mask = cap - 1;
	for (size_t i = 0; old && i <= old->mask; i++) {
		size_t h;

		if (!old->s[i].v)
			continue;
		for (h = lslot_hash(old->s[i].v, old->s[i].t) & nc->mask; nc->s[h].v;
		     h = (h + 1) & nc->mask)
			;
		nc->s[h] = old->s[i];
		nc->n++;
	}
	free(old);
	c->lists = nc;
	return 0;
}

/* The groups of list v (not NULL) of type t, built on first use. NULL on
 * ENOMEM (recorded). */
static const lgroups *lgroups_get(ssa_ctx *c, const ssa_type *t, const smp_value *v)
{
	lcache *lc = c->lists;
	lgroups *g;
	size_t h;

	if (!lc || (lc->n + 1) * 2 > lc->mask + 1) {
		if (lcache_grow(c)) {
			ssa_oom(c);
			return NULL;
		}
		lc = c->lists;
	}
	for (h = lslot_hash(v, t) & lc->mask; lc->s[h].v; h = (h + 1) & lc->mask)
		if (lc->s[h].v == v && lc->s[h].t == t)
			return lc->s[h].g;
	if (!(g = ssa_alloc(c, sizeof(*g))) || lgroups_build(c, g, t, v)) {
		ssa_oom(c);
		return NULL;
	}
	lc->s[h] = (lslot){v, t, g};
	lc->n++;
	return g;
}

/* Whether the items of element le in l and of element re in r are equal
 * one to one, in order (SMD compares lists of duplicates so). */
static bool lgroups_same(const lgroups *lg, const smp_value *l, uint32_t le, const lgroups *rg,
                         const smp_value *r, uint32_t re)
{
	uint32_t i = lg_head(lg, le), j = lg_head(rg, re);

	if (lg_cnt(lg, le) != lg_cnt(rg, re))
		return false;
	for (; i != LG_NONE && j != LG_NONE; i = lg_nxt(lg, i), j = lg_nxt(rg, j))
		if (!smpv_equal_numeric(l->u.list.items[i], r->u.list.items[j]))
			return false;
	return i == LG_NONE && j == LG_NONE;
}

static void pe_text(char *buf, size_t size, const ssa_pe *pe)
{
	smp_buf b;

	smp_buf_init(&b);
	ssa_pe_print(&b, pe);
	snprintf(buf, size, "%s", b.ptr ? b.ptr : "");
	smp_buf_release(&b);
}

/* ---------------------------------------------------------------- validate */

static int scalar_check(walk *w, uint8_t sc, const smp_value *v, const char *prefix)
{
	if (!v || v->type == SMP_NULL)
		return 0;
	switch (sc) {
	case SSA_SC_NUMERIC:
		if (v->type != SMP_INT && v->type != SMP_FLOAT)
			return fail(w, "%sexpected numeric (int or float), got %s", prefix, type_word(v));
		break;
	case SSA_SC_STRING:
		if (v->type != SMP_STRING)
			return fail(w, "%sexpected string, got %s", prefix, type_word(v));
		break;
	case SSA_SC_BOOLEAN:
		if (v->type != SMP_BOOL)
			return fail(w, "%sexpected boolean, got %s", prefix, type_word(v));
		break;
	}
	return 0;
}

/* SMD's validation of a value against its type: scalars of the right
 * kind, maps and lists where declared, associative lists with their key
 * fields and (unless w->dups) no duplicate keys; the first error with its
 * path. */
static int validate(walk *w, const smp_value *v, ssa_type *t)
{
	ssa_ctx *c = w->c;
	int rc;

	switch (deduce(t, v)) {
	case A_MAP:
		if (v->type == SMP_NULL)
			return 0;
		if (v->type != SMP_MAP)
			return fail(w, "expected map, got %s", type_word(v));
		for (size_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			ssa_pe pe = {.kind = SSA_PE_FIELD, .n = (uint32_t)m->klen, .u.name = m->key};
			bool declared;
			ssa_type *ft = ssa_type_field(c, t, m->key, m->klen, &declared);

			if (c->rc)
				return c->rc;
			if ((rc = push(w, &pe)))
				return rc;
			if (!ft)
				return fail(w, "field not declared in schema");
			if ((rc = validate(w, m->val, ft)))
				return rc;
			pop(w);
		}
		return 0;
	case A_SCALAR:
		return scalar_check(w, t->scalar, v, "");
	case A_LIST: {
		ssa_type *et;

		if (v->type == SMP_NULL)
			return 0;
		if (v->type != SMP_LIST)
			return fail(w, "expected list, got %s", type_word(v));
		if (!(et = ssa_type_elem(c, t)))
			return ssa_oom(c);
		/* an associative list's keys: built once for the call */
		const lgroups *g = NULL;

		if (t->list_rel == SSA_REL_ASSOCIATIVE && !(g = lgroups_get(c, t, v)))
			return c->rc;
		for (size_t i = 0; i < v->u.list.len; i++) {
			const smp_value *item = v->u.list.items[i];
			ssa_pe pe;

			if (g && lg_el(g, i) == LG_NONE) {
				const char *msg = NULL;
				char buf[256];

				if (item_pe(c, &pe, t, i, item, &msg, buf, sizeof(buf)) < 0)
					return ssa_oom(c);
				return fail(w, "element %zu: %s", i, msg);
			}
			if (g && !w->dups && lg_head(g, lg_el(g, i)) != i) {
				char buf[256];

				pe_text(buf, sizeof(buf), &g->x.pe[lg_el(g, i)]);
				return fail(w, "duplicate entries for key %s", buf);
			}
			if (g)
				pe = g->x.pe[lg_el(g, i)];
			else
				pe = (ssa_pe){.kind = SSA_PE_INDEX, .u.index = (int64_t)i};
			if ((rc = push(w, &pe)) || (rc = validate(w, item, et)))
				return rc;
			pop(w);
		}
		return 0;
	}
	default:
		return fail(w, "schema error: invalid atom");
	}
}

int ssa_validate(ssa_ctx *c, const smp_value *v, ssa_type *t, const char *what,
                 bool allow_dups)
{
	walk w;
	int rc;

	if ((rc = walk_init(&w, c, what)))
		return rc;
	w.dups = allow_dups;
	rc = validate(&w, v, t);
	walk_done(&w);
	return rc;
}

/* ---------------------------------------------------------------- to set */

/* SMD's ToFieldSet of one node (with `named`, EnsureNamedFieldsAreMembers
 * too): the paths below it into *out, and in *self whether the node
 * itself is a leaf path (a scalar, an atomic map or list). */
static int to_set(walk *w, const smp_value *v, ssa_type *t, ssa_set **out, bool *self,
                  bool named)
{
	ssa_ctx *c = w->c;
	ssa_ent *e;
	size_t n = 0;
	int rc;

	*out = NULL;
	*self = false;
	if (w->depth >= SSA_MAX_DEPTH)
		return too_deep(w);
	switch (deduce(t, v)) {
	case A_MAP:
		if (t->map_rel == SSA_REL_ATOMIC) {
			*self = true;
			return 0;
		}
		if (v->type != SMP_MAP || v->u.map.len == 0)
			return 0;
		if (!(e = ssa_alloc(c, v->u.map.len * sizeof(*e))))
			return SMP_ENOMEM;
		w->depth++;
		for (size_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			bool declared, member;
			ssa_type *ft = ssa_type_field(c, t, m->key, m->klen, &declared);
			ssa_set *child = NULL;

			if (c->rc)
				return c->rc;
			member = false;
			if (ft && (rc = to_set(w, m->val, ft, &child, &member, named)))
				return rc;
			if (m->val->type == SMP_NULL ||
			    (m->val->type == SMP_MAP && m->val->u.map.len == 0) || !declared ||
			    (named && child))
				member = true;
			if (!member && !child)
				continue;
			e[n].pe.kind = SSA_PE_FIELD;
			e[n].pe.n = (uint32_t)m->klen;
			e[n].pe.u.name = m->key;
			e[n].member = member;
			e[n].child = child;
			n++;
		}
		w->depth--;
		break;
	case A_SCALAR:
		*self = true;
		return 0;
	case A_LIST: {
		ssa_type *et;
		const lgroups *g;

		if (t->list_rel == SSA_REL_ATOMIC) {
			*self = true;
			return 0;
		}
		if (v->type != SMP_LIST || v->u.list.len == 0)
			return 0;
		if (!(et = ssa_type_elem(c, t)) ||
		    !(e = ssa_alloc(c, v->u.list.len * sizeof(*e))))
			return SMP_ENOMEM;
		if (!(g = lgroups_get(c, t, v)))
			return c->rc;
		w->depth++;
		for (size_t i = 0; i < v->u.list.len; i++) {
			uint32_t el = lg_el(g, i);
			bool member;
			ssa_set *child = NULL;

			if (el == LG_NONE)
				continue; /* validated values have none */
			/* SMD v4.4.2: an element several items share is in the set
			 * once, without anything below it */
			if (lg_cnt(g, el) > 1 && lg_head(g, el) != i)
				continue;
			if (lg_cnt(g, el) == 1 &&
			    (rc = to_set(w, v->u.list.items[i], et, &child, &member, named)))
				return rc;
			e[n].pe = g->x.pe[el];
			e[n].member = true;
			e[n].child = child;
			n++;
		}
		w->depth--;
		break;
	}
	default:
		return 0;
	}
	if (n && !(*out = ssa_set_build(c, e, n)))
		return c->rc ? c->rc : SMP_ENOMEM;
	return 0;
}

int ssa_to_set(ssa_ctx *c, ssa_set **out, const smp_value *v, ssa_type *t, bool named)
{
	walk w;
	bool self;
	int rc;

	*out = NULL;
	if ((rc = walk_init(&w, c, "field set")))
		return rc;
	rc = to_set(&w, v, t, out, &self, named);
	walk_done(&w);
	return rc ? (c->rc ? c->rc : rc) : 0;
}

/* ---------------------------------------------------------------- merge, compare */

enum { R_REMOVED = 0, R_MODIFIED, R_ADDED };

typedef struct mres {
	const smp_value *out;  /* merge: the result, NULL for none */
	ssa_set *set[3];       /* compare: the sets below this node */
	bool self[3];          /* compare: this node's path is in the set */
} mres;

/* Entries of the compare sets under construction: one stack per set, a
 * node's entries on top until the node is done (nothing is allocated for
 * the many nodes that did not change). */
/* Pushes an entry on the malloc'ed stack *e (*n entries, room for *cap).
 * 0 or SMP_ENOMEM (recorded in c). */
static int ent_push(ssa_ctx *c, ssa_ent **e, size_t *n, size_t *cap, const ssa_pe *pe,
                    bool member, ssa_set *child)
{
	if (!smp_grow((void **)e, cap, *n, sizeof(**e), 64))
		return ssa_oom(c);
	(*e)[*n] = (ssa_ent){*pe, member, child};
	(*n)++;
	return 0;
}

typedef struct estack {
	ssa_ent *e;
	size_t n, cap;
} estack;

typedef struct mwalk {
	walk w;
	bool compare;
	estack st[3];
	/* merge: the children of the nodes being merged, a node's on top */
	smp_member *kids;
	size_t nkids, kids_cap;
} mwalk;

static int kid_push(mwalk *mw, const char *k, size_t kn, const smp_value *v)
{
	if (!smp_grow((void **)&mw->kids, &mw->kids_cap, mw->nkids, sizeof(*mw->kids), 256))
		return ssa_oom(mw->w.c);
	mw->kids[mw->nkids].key = k;
	mw->kids[mw->nkids].klen = kn;
	mw->kids[mw->nkids].val = (smp_value *)v;
	mw->nkids++;
	return 0;
}

static int mnode(mwalk *mw, const smp_value *lhs, const smp_value *rhs, ssa_type *t,
                 mres *res);

typedef struct ments {
	size_t mark[3];
} ments;

static void ments_init(mwalk *mw, ments *m)
{
	for (int k = 0; k < 3; k++)
		m->mark[k] = mw->st[k].n;
}

static int ments_add(mwalk *mw, const ssa_pe *pe, const mres *r)
{
	for (int k = 0; k < 3; k++)
		if (r->self[k] || r->set[k]) {
			estack *st = &mw->st[k];
			int rc = ent_push(mw->w.c, &st->e, &st->n, &st->cap, pe, r->self[k],
			                  r->set[k]);

			if (rc)
				return rc;
		}
	return 0;
}

static int ments_finish(mwalk *mw, ments *m, mres *res)
{
	ssa_ctx *c = mw->w.c;

	for (int k = 0; k < 3; k++) {
		size_t n = mw->st[k].n - m->mark[k];
		ssa_ent *e;

		if (!n)
			continue;
		if (!(e = ssa_alloc(c, n * sizeof(*e))))
			return SMP_ENOMEM;
		memcpy(e, mw->st[k].e + m->mark[k], n * sizeof(*e));
		mw->st[k].n = m->mark[k];
		if (!(res->set[k] = ssa_set_build(c, e, n)))
			return c->rc ? c->rc : SMP_ENOMEM;
	}
	return 0;
}

static void leaf(mwalk *mw, const smp_value *lhs, const smp_value *rhs, mres *res)
{
	if (!mw->compare) {
		res->out = rhs ? rhs : lhs;
		return;
	}
	if (!lhs)
		res->self[R_ADDED] = true;
	else if (!rhs)
		res->self[R_REMOVED] = true;
	else if (!smpv_equal_numeric(rhs, lhs))
		res->self[R_MODIFIED] = true;
}

/* v when it is of type `type`, else NULL (a side of a merge that is
 * something else counts as absent). */
static const smp_value *typed_as(const smp_value *v, smp_type type)
{
	return v && v->type == type ? v : NULL;
}

/* SMD's merge (or comparison) of two maps: every key of either side
 * through mnode, the result built only when something differs. */
static int merge_map(mwalk *mw, const smp_value *lhs, const smp_value *rhs, ssa_type *t,
                     mres *res, bool *is_leaf)
{
	ssa_ctx *c = mw->w.c;
	const smp_value *l = typed_as(lhs, SMP_MAP), *r = typed_as(rhs, SMP_MAP);
	size_t ln = smp_value_len(l), rn = smp_value_len(r);
	smp_value *out = NULL;
	kidx li, ri;
	ments me;
	int rc;

	if (t->map_rel == SSA_REL_ATOMIC || (ln == 0 && rn == 0)) {
		*is_leaf = true;
		leaf(mw, lhs, rhs, res);
		return 0;
	}
	size_t mark = mw->nkids;
	/* The merged map is often one of the two (a re-apply, or a config
	 * that changes nothing below): then no new map is made. */
	bool same_l = l != NULL, same_r = r != NULL;

	if (kidx_build(c, &ri, r) || kidx_build(c, &li, l))
		return ssa_oom(c);
	ments_init(mw, &me);
	for (size_t pass = 0; pass < 2; pass++) {
		const smp_value *src = pass ? r : l;

		for (size_t i = 0; src && i < src->u.map.len; i++) {
			const smp_member *m = &src->u.map.items[i];
			const smp_value *lv, *rv;
			ssa_pe pe = {.kind = SSA_PE_FIELD, .n = (uint32_t)m->klen, .u.name = m->key};
			bool declared;
			ssa_type *ft;
			mres cr;

			if (pass == 0) {
				lv = m->val;
				rv = kidx_get(&ri, m->key, m->klen);
			} else {
				if (kidx_get(&li, m->key, m->klen))
					continue;
				lv = NULL;
				rv = m->val;
			}
			ft = ssa_type_field(c, t, m->key, m->klen, &declared);
			if (c->rc)
				return c->rc;
			if ((rc = push(&mw->w, &pe)))
				return rc;
			if (!ft)
				return fail(&mw->w, "schema error: invalid atom: inlined");
			if ((rc = mnode(mw, lv, rv, ft, &cr)))
				return rc;
			pop(&mw->w);
			if (mw->compare) {
				if ((rc = ments_add(mw, &pe, &cr)))
					return rc;
				continue;
			}
			same_l = same_l && cr.out && cr.out == lv;
			same_r = same_r && cr.out && cr.out == rv;
			if (cr.out && (rc = kid_push(mw, m->key, m->klen, cr.out)))
				return rc;
		}
	}
	if (mw->compare)
		return ments_finish(mw, &me, res);
	if (same_r) {
		res->out = r;
	} else if (same_l) {
		res->out = l;
	} else if (mw->nkids > mark) {
		size_t n = mw->nkids - mark;

		if (!(out = smpv_map(&c->arena, n)))
			return ssa_oom(c);
		memcpy(out->u.map.items, mw->kids + mark, n * sizeof(smp_member));
		out->u.map.len = (uint32_t)n;
		res->out = out;
	}
	mw->nkids = mark;
	return 0;
}

/* A list's items grouped by path element (lgroups_build) for a merge or a
 * comparison, failing as SMD does on the first item without an element
 * and, where duplicates are not allowed (a merge's right side: the
 * applied configuration), on the first repeated one. */
static int list_index(mwalk *mw, const lgroups **gp, const ssa_type *t, const smp_value *v,
                      const char *side, bool dups_ok)
{
	/* what an absent list groups to */
	static const lgroups none = {.dense = true, .bad = SIZE_MAX, .dup = SIZE_MAX};
	ssa_ctx *c = mw->w.c;
	const char *msg = NULL;
	char buf[256];
	const lgroups *g;
	ssa_pe pe;

	if (!(*gp = g = v ? lgroups_get(c, t, v) : &none))
		return c->rc;
	if (g->bad != SIZE_MAX && (dups_ok || g->bad < g->dup)) {
		if (item_pe(c, &pe, t, g->bad, v->u.list.items[g->bad], &msg, buf, sizeof(buf)) < 0)
			return ssa_oom(c);
		return fail(&mw->w, "%selement %zu: %s", side, g->bad, msg ? msg : "");
	}
	if (!dups_ok && g->dup != SIZE_MAX) {
		pe_text(buf, sizeof(buf), &g->x.pe[lg_el(g, g->dup)]);
		return fail(&mw->w, "%sduplicate entries for key %s", side, buf);
	}
	return 0;
}

/* SMD v4.4.2's comparison of two lists' items (compareWalker.
 * visitListItems), element by element: one to one where neither side
 * repeats the element; else the element's own path alone: modified when
 * both sides repeat it and their items differ (in order), removed when
 * only the old side does (the one new item, if any, compared with
 * nothing), added when only the new side does (the one old item, if any,
 * compared with nothing). The entries go on the compare stacks. */
static int compare_items(mwalk *mw, const lgroups *lg, const smp_value *l, const lgroups *rg,
                         const smp_value *r, ssa_type *et)
{
	size_t nl = lg->x.n, nr = rg->x.n;
	int rc;

	for (size_t k = 0; k < nl + nr; k++) {
		ptrdiff_t le = k < nl ? (ptrdiff_t)k : -1, re = k < nl ? -1 : (ptrdiff_t)(k - nl);
		const ssa_pe *pe = le >= 0 ? &lg->x.pe[le] : &rg->x.pe[re];
		uint32_t lc, rc1;
		mres cr;

		if (le >= 0)
			re = pidx_find_of(&rg->x, &lg->x, (size_t)le);
		else if (pidx_find_of(&lg->x, &rg->x, (size_t)re) >= 0)
			continue; /* compared with the left's elements */
		lc = le >= 0 ? lg_cnt(lg, le) : 0;
		rc1 = re >= 0 ? lg_cnt(rg, re) : 0;
		memset(&cr, 0, sizeof(cr));
		if (!(lc > 1 && rc1 > 1) && (lc == 1 || rc1 == 1)) {
			if ((rc = push(&mw->w, pe)) ||
			    (rc = mnode(mw, lc == 1 ? lg_val(lg, le) : NULL, rc1 == 1 ? lg_val(rg, re) : NULL,
			                et, &cr)))
				return rc;
			pop(&mw->w);
		}
		if (lc > 1 && rc1 > 1)
			cr.self[R_MODIFIED] = !lgroups_same(lg, l, (uint32_t)le, rg, r, (uint32_t)re);
		else if (lc > 1)
			cr.self[R_REMOVED] = true;
		else if (rc1 > 1)
			cr.self[R_ADDED] = true;
		if ((rc = ments_add(mw, pe, &cr)))
			return rc;
	}
	return 0;
}

/* Where SMD v4.4.2's merge of two lists' items stands (mergingWalker.
 * visitListItems): per left element its right one (rm) and per right
 * element its left one (lm), LG_NONE where the other side lacks it; the
 * right elements already merged; and the queue of shared elements in the
 * right's order: `next` the one wanted now (LG_NONE: none left), `sq` the
 * right item where the search for the one after it resumes. */
typedef struct morder {
	uint32_t *rm, *lm;
	bool *merged;
	size_t sq, rn;
	uint32_t next;
} morder;

/* Takes the next shared element off the queue (SMD's sharedOrder). */
static void morder_pop(morder *o, const lgroups *rg)
{
	o->next = LG_NONE;
	while (o->sq < o->rn) {
		uint32_t re = lg_el(rg, o->sq++);

		if (o->lm[re] != LG_NONE) {
			o->next = re;
			return;
		}
	}
}

static int morder_init(ssa_ctx *c, morder *o, const lgroups *lg, const lgroups *rg, size_t rn)
{
	size_t nl = lg->x.n, nr = rg->x.n;

	o->rm = ssa_alloc(c, (nl ? nl : 1) * sizeof(*o->rm));
	o->lm = ssa_alloc(c, (nr ? nr : 1) * sizeof(*o->lm));
	o->merged = ssa_alloc(c, nr ? nr : 1);
	if (!o->rm || !o->lm || !o->merged)
		return SMP_ENOMEM;
	memset(o->merged, 0, nr ? nr : 1);
	for (size_t j = 0; j < nr; j++)
		o->lm[j] = LG_NONE;
	for (size_t e = 0; e < nl; e++) {
		ptrdiff_t j = pidx_find_of(&rg->x, &lg->x, e);

		o->rm[e] = j >= 0 ? (uint32_t)j : LG_NONE;
		if (j >= 0)
			o->lm[j] = (uint32_t)e;
	}
	o->sq = 0;
	o->rn = rn;
	morder_pop(o, rg);
	return 0;
}

/* One merged item onto the kids stack. */
static int merge_item(mwalk *mw, const ssa_pe *pe, const smp_value *lv, const smp_value *rv,
                      ssa_type *et)
{
	mres cr;
	int rc;

	if ((rc = push(&mw->w, pe)) || (rc = mnode(mw, lv, rv, et, &cr)))
		return rc;
	pop(&mw->w);
	return cr.out ? kid_push(mw, NULL, 0, cr.out) : 0;
}

/* Right element re merged with the left's item of its element: none where
 * the left lacks it or repeats it (SMD merges a repeated element's new item
 * with null, replacing all the old ones). */
static int merge_right(mwalk *mw, const lgroups *lg, const lgroups *rg, morder *o, uint32_t re,
                       ssa_type *et)
{
	uint32_t le = o->lm[re];
	const smp_value *lv = le != LG_NONE && lg_cnt(lg, le) == 1 ? lg_val(lg, le) : NULL;

	o->merged[re] = true;
	return merge_item(mw, &rg->x.pe[re], lv, lg_val(rg, re), et);
}

/* The merged items of two lists, on the kids stack, in SMD v4.4.2's order
 * (the API server's since Kubernetes 1.27): the two lists walked side by
 * side; the items only the left has keep their order and come as the walk
 * reaches them, the right's items come in the right's order (a shared left
 * item that is not the next shared one is passed over, and merged when the
 * right reaches it), new ones just before the shared item that follows
 * them in the right. So the applied order wins for the items it names.
 * v4.1.2 (the oracle) kept the left's order and put new items last. An
 * element the left repeats (SMD v4.4.2 allows that in the live object) is
 * not merged item by item: where the right side has it, its item replaces
 * all of them; else they all stay. */
static int merge_items(mwalk *mw, const lgroups *lg, const smp_value *l, const lgroups *rg,
                       const smp_value *r, ssa_type *et)
{
	size_t ln = l ? l->u.list.len : 0, rn = r ? r->u.list.len : 0, li = 0, ri = 0;
	morder o;
	int rc;

	if (morder_init(mw->w.c, &o, lg, rg, rn))
		return ssa_oom(mw->w.c);
	while (li < ln || ri < rn) {
		uint32_t e = li < ln ? lg_el(lg, li) : LG_NONE;

		if (li < ln && e == LG_NONE) {
			li++; /* list_index refused those */
			continue;
		}
		if (li < ln && ri < rn) {
			uint32_t re = lg_el(rg, ri);

			if (o.rm[e] == re) {
				if ((rc = merge_right(mw, lg, rg, &o, re, et)))
					return rc;
				li++;
				ri++;
				morder_pop(&o, rg);
				continue;
			}
			if (o.rm[e] != LG_NONE && o.next != LG_NONE && o.next != o.rm[e]) {
				li++; /* shared, but not the one wanted now */
				continue;
			}
		}
		if (li < ln) {
			if (o.rm[e] == LG_NONE) {
				if ((rc = merge_item(mw, &lg->x.pe[e], l->u.list.items[li], NULL, et)))
					return rc;
				li++;
				continue;
			}
			if (o.merged[o.rm[e]])
				li++; /* and on to the right's item, as SMD does */
		}
		if (ri < rn) {
			uint32_t re = lg_el(rg, ri++);

			if ((rc = merge_right(mw, lg, rg, &o, re, et)))
				return rc;
			if (o.next == re)
				morder_pop(&o, rg);
		}
	}
	return 0;
}

/* SMD's merge (or comparison) of two lists: associative ones item by
 * key, sets by value (duplicates as SMD v4.4.2 takes them: compare_items,
 * merge_items), atomic ones whole. */
static int merge_list(mwalk *mw, const smp_value *lhs, const smp_value *rhs, ssa_type *t,
                      mres *res, bool *is_leaf)
{
	ssa_ctx *c = mw->w.c;
	const smp_value *l = typed_as(lhs, SMP_LIST), *r = typed_as(rhs, SMP_LIST);
	size_t ln = smp_value_len(l), rn = smp_value_len(r);
	smp_value *out = NULL;
	const lgroups *lg, *rg;
	ments me;
	ssa_type *et;
	int rc;

	if (t->list_rel == SSA_REL_ATOMIC || (ln == 0 && rn == 0)) {
		*is_leaf = true;
		leaf(mw, lhs, rhs, res);
		return 0;
	}
	size_t mark = mw->nkids;

	if (!(et = ssa_type_elem(c, t)))
		return ssa_oom(c);
	/* A comparison takes duplicates on both sides (the server types both
	 * objects with AllowDuplicates), a merge on the live side only. */
	if (mw->compare)
		rc = list_index(mw, &lg, t, l, "lhs: ", true) || list_index(mw, &rg, t, r, "rhs: ", true);
	else
		rc = list_index(mw, &rg, t, r, "rhs: ", false) || list_index(mw, &lg, t, l, "lhs: ", true);
	if (rc)
		return c->rc ? c->rc : SMP_ENOMEM;
	ments_init(mw, &me);
	if (mw->compare) {
		if ((rc = compare_items(mw, lg, l, rg, r, et)))
			return rc;
		return ments_finish(mw, &me, res);
	}
	if ((rc = merge_items(mw, lg, l, rg, r, et)))
		return rc;
	if (mw->nkids > mark) {
		size_t n = mw->nkids - mark;
		bool same_l = n == ln, same_r = n == rn;

		for (size_t i = 0; i < n && (same_l || same_r); i++) {
			same_l = same_l && mw->kids[mark + i].val == l->u.list.items[i];
			same_r = same_r && mw->kids[mark + i].val == r->u.list.items[i];
		}
		if (same_r) {
			res->out = r;
		} else if (same_l) {
			res->out = l;
		} else {
			if (!(out = smpv_list(&c->arena, n)))
				return ssa_oom(c);
			for (size_t i = 0; i < n; i++)
				out->u.list.items[i] = mw->kids[mark + i].val;
			out->u.list.len = (uint32_t)n;
			res->out = out;
		}
	}
	mw->nkids = mark;
	return 0;
}

static int handle(mwalk *mw, int atom, const smp_value *lhs, const smp_value *rhs,
                  ssa_type *t, mres *res, bool *is_leaf)
{
	int rc;

	switch (atom) {
	case A_MAP:
		return merge_map(mw, lhs, rhs, t, res, is_leaf);
	case A_SCALAR:
		if ((rc = scalar_check(&mw->w, t->scalar, lhs, "lhs: ")) ||
		    (rc = scalar_check(&mw->w, t->scalar, rhs, "rhs: ")))
			return rc;
		*is_leaf = true;
		leaf(mw, lhs, rhs, res);
		return 0;
	case A_LIST:
		return merge_list(mw, lhs, rhs, t, res, is_leaf);
	default:
		return fail(&mw->w, "schema error: invalid atom");
	}
}

/* One node of SMD's merge or comparison: by the deduced kinds of both
 * sides, a map, a list or a leaf (rhs wins; compared for the sets of
 * removed, modified and added paths). */
static int mnode(mwalk *mw, const smp_value *lhs, const smp_value *rhs, ssa_type *t,
                 mres *res)
{
	int al = deduce(t, lhs), ar = deduce(t, rhs), rc;
	bool is_leaf = false;

	memset(res, 0, sizeof(*res));
	if (!lhs && !rhs)
		return fail(&mw->w, "at least one of lhs and rhs must be provided");
	/* A validated value compared with itself (the merge shares what the
	 * configuration leaves alone) has no removed, modified or added path. */
	if (mw->compare && lhs == rhs)
		return 0;
	if (!mw->compare && (!lhs || !rhs)) {
		/* A validated value merged with nothing is itself. */
		res->out = lhs ? lhs : rhs;
		return 0;
	}
	if (al != ar && mw->compare) {
		/* SMD handles both atoms; the left one's effects on the sets count,
		 * its merged value does not. */
		mres tmp;
		bool tmp_leaf = false;

		memset(&tmp, 0, sizeof(tmp));
		if ((rc = handle(mw, al, lhs, rhs, t, &tmp, &tmp_leaf)))
			return rc;
		if ((rc = handle(mw, ar, lhs, rhs, t, res, &is_leaf)))
			return rc;
		for (int k = 0; k < 3; k++) {
			res->self[k] = res->self[k] || tmp.self[k];
			res->set[k] = ssa_set_union(mw->w.c, res->set[k], tmp.set[k]);
		}
		if (mw->w.c->rc)
			return mw->w.c->rc;
	} else if ((rc = handle(mw, ar, lhs, rhs, t, res, &is_leaf))) {
		return rc;
	}
	if (!is_leaf && mw->compare) {
		if (!lhs)
			res->self[R_ADDED] = true;
		else if (!rhs)
			res->self[R_REMOVED] = true;
	}
	return 0;
}

int ssa_merge(ssa_ctx *c, const smp_value **out, const smp_value *lhs,
              const smp_value *rhs, ssa_type *t)
{
	mwalk mw;
	mres res;
	int rc;

	*out = NULL;
	if ((rc = walk_init(&mw.w, c, "failed to merge config")))
		return rc;
	mw.compare = false;
	memset(mw.st, 0, sizeof(mw.st));
	mw.kids = NULL;
	mw.nkids = mw.kids_cap = 0;
	rc = mnode(&mw, lhs, rhs, t, &res);
	walk_done(&mw.w);
	free(mw.kids);
	if (!rc)
		*out = res.out;
	return rc;
}

int ssa_compare(ssa_ctx *c, ssa_cmp *out, const smp_value *lhs, const smp_value *rhs,
                ssa_type *t)
{
	mwalk mw;
	mres res;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = walk_init(&mw.w, c, "failed to compare objects")))
		return rc;
	mw.compare = true;
	memset(mw.st, 0, sizeof(mw.st));
	mw.kids = NULL;
	mw.nkids = mw.kids_cap = 0;
	rc = mnode(&mw, lhs, rhs, t, &res);
	walk_done(&mw.w);
	for (int k = 0; k < 3; k++)
		free(mw.st[k].e);
	if (!rc) {
		/* The root's own path is never tracked. */
		out->removed = res.set[R_REMOVED];
		out->modified = res.set[R_MODIFIED];
		out->added = res.set[R_ADDED];
	}
	return rc;
}

/* ---------------------------------------------------------------- remove */

/* SMD's RemoveItems: v without the paths that are members of `items`
 * (containers along the paths rebuilt; one left empty is NULL, stored as
 * null by its parent). */
static int remove_items(walk *w, const smp_value **out, const smp_value *v, ssa_type *t,
                        const ssa_set *items)
{
	ssa_ctx *c = w->c;
	int rc;

	*out = NULL;
	if (w->depth >= SSA_MAX_DEPTH)
		return too_deep(w);
	switch (deduce(t, v)) {
	case A_SCALAR:
		*out = v;
		return 0;
	case A_LIST: {
		smp_value *o;
		ssa_type *et;

		/* associative: the only other relationship, atomic, is whole */
		if (v->type != SMP_LIST || v->u.list.len == 0 || t->list_rel == SSA_REL_ATOMIC)
			return 0;
		const lgroups *g;

		if (!(et = ssa_type_elem(c, t)) || !(o = smpv_list(&c->arena, v->u.list.len)))
			return ssa_oom(c);
		if (!(g = lgroups_get(c, t, v)))
			return c->rc;
		w->depth++;
		for (size_t i = 0; i < v->u.list.len; i++) {
			const smp_value *item = v->u.list.items[i];
			ptrdiff_t j = -1;

			/* an item without a path element is in no set */
			if (lg_el(g, i) != LG_NONE)
				j = ssa_set_find_c(c, items, &g->x.pe[lg_el(g, i)]);
			if (j >= 0 && items->e[j].member)
				continue;
			if (j >= 0 && items->e[j].child) {
				if ((rc = remove_items(w, &item, item, et, items->e[j].child)))
					return rc;
				if (!item)
					item = c->null_value;
			}
			if (smpv_list_add(&c->arena, o, (smp_value *)item))
				return ssa_oom(c);
		}
		w->depth--;
		if (o->u.list.len)
			*out = o;
		return 0;
	}
	case A_MAP: {
		smp_value *o;

		if (v->type != SMP_MAP || v->u.map.len == 0 || t->map_rel == SSA_REL_ATOMIC)
			return 0;
		if (!(o = smpv_map(&c->arena, v->u.map.len)))
			return ssa_oom(c);
		w->depth++;
		for (size_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			ssa_pe pe = {.kind = SSA_PE_FIELD, .n = (uint32_t)m->klen, .u.name = m->key};
			ptrdiff_t j = ssa_set_find_c(c, items, &pe);
			const smp_value *val = m->val;

			if (j >= 0 && items->e[j].member)
				continue;
			if (j >= 0 && items->e[j].child) {
				bool declared;
				ssa_type *ft = ssa_type_field(c, t, m->key, m->klen, &declared);

				if (c->rc)
					return c->rc;
				val = NULL;
				if (ft && (rc = remove_items(w, &val, m->val, ft, items->e[j].child)))
					return rc;
				if (!val)
					val = c->null_value;
			}
			if (smpv_map_add(&c->arena, o, m->key, m->klen, (smp_value *)val))
				return ssa_oom(c);
		}
		w->depth--;
		if (o->u.map.len)
			*out = o;
		return 0;
	}
	default:
		return 0;
	}
}

int ssa_remove_items(ssa_ctx *c, const smp_value **out, const smp_value *v,
                     ssa_type *t, const ssa_set *items)
{
	walk w;
	int rc;

	*out = v;
	if (ssa_set_empty(items))
		return 0; /* SMD rebuilds the value; nothing is removed either way */
	if ((rc = walk_init(&w, c, "remove items")))
		return rc;
	rc = remove_items(&w, out, v, t, items);
	walk_done(&w);
	if (!rc && !*out)
		*out = c->null_value;
	return rc;
}

/* ---------------------------------------------------------------- prune */

/* The walk of ssa_prune_set: the merged object along the removal roots and
 * below them, each manager's set followed alongside; the entries of the
 * set being built on a stack (a node's on top until it is done), so that
 * nothing is allocated for the many paths that stay. */
typedef struct pwalk {
	walk w;
	const ssa_set **own;   /* per depth, the managers' sets below the node */
	size_t nown;
	ssa_ent *st;
	size_t n, cap;
} pwalk;

/* What to_set (named) makes of a node: whether its path is a member, the
 * value `v` of type `t` (NULL: not recursed) under a field that is
 * `declared` (always for list items, which are members). */
static bool named_member(const smp_value *v, ssa_type *t, bool field, bool declared)
{
	if (!field || !declared || v->type == SMP_NULL ||
	    (v->type == SMP_MAP && v->u.map.len == 0) || !t)
		return true;
	switch (deduce(t, v)) {
	case A_SCALAR:
		return true;
	case A_MAP:
		return t->map_rel == SSA_REL_ATOMIC || (v->type == SMP_MAP && v->u.map.len > 0);
	case A_LIST:
		return t->list_rel == SSA_REL_ATOMIC || (v->type == SMP_LIST && v->u.list.len > 0);
	default:
		return false;
	}
}

static int pw_push(pwalk *pw, const ssa_pe *pe, bool member, ssa_set *child)
{
	return ent_push(pw->w.c, &pw->st, &pw->n, &pw->cap, pe, member, child);
}

/* One child of the node at depth d (path element pe, value v, type ct,
 * under a struct field `declared` or a list item): the child's drop set
 * entry. lent: the roots' entry for it (NULL: none); under_l: the node is
 * at or below a root; under_u: below a path that goes. *gone: the child's
 * path goes (it leaves R(p1)). */
static int prune_node(pwalk *pw, const smp_value *v, ssa_type *ct, const ssa_pe *pe,
                      bool field, bool declared, const ssa_ent *lent, bool under_l,
                      bool under_u, bool *gone);

/* Below node v (type t) at depth d: the drop set of its children into
 * *out; *all_gone: v is a non-empty map all of whose fields go. */
static int prune_below(pwalk *pw, ssa_set **out, const smp_value *v, ssa_type *t,
                       const ssa_set *lsub, bool under_l, bool under_u, bool *all_gone)
{
	ssa_ctx *c = pw->w.c;
	size_t base = pw->n, d = pw->w.depth;
	int rc;

	*out = NULL;
	*all_gone = false;
	if (d >= SSA_MAX_DEPTH)
		return too_deep(&pw->w);
	pw->w.depth++;
	switch (deduce(t, v)) {
	case A_MAP:
		if (t->map_rel == SSA_REL_ATOMIC || v->type != SMP_MAP || !v->u.map.len)
			break;
		*all_gone = true;
		for (size_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			ssa_pe pe = {.kind = SSA_PE_FIELD, .n = (uint32_t)m->klen, .u.name = m->key};
			ptrdiff_t j = ssa_set_find_c(c, lsub, &pe);
			bool declared, gone = false;
			ssa_type *ft;

			if (!under_l && j < 0) {
				*all_gone = false;
				continue;
			}
			ft = ssa_type_field(c, t, m->key, m->klen, &declared);
			if (c->rc)
				return c->rc;
			if ((rc = prune_node(pw, m->val, ft, &pe, true, declared, j >= 0 ? &lsub->e[j] : NULL,
			                     under_l, under_u, &gone)))
				return rc;
			*all_gone = *all_gone && gone;
		}
		break;
	case A_LIST: {
		ssa_type *et;
		const lgroups *g;

		if (t->list_rel == SSA_REL_ATOMIC || v->type != SMP_LIST || !v->u.list.len)
			break;
		if (!(et = ssa_type_elem(c, t)))
			return ssa_oom(c);
		if (!(g = lgroups_get(c, t, v)))
			return c->rc;
		for (size_t i = 0; i < v->u.list.len; i++) {
			uint32_t el = lg_el(g, i);
			const ssa_pe *pe;
			ptrdiff_t j;
			bool gone;

			if (el == LG_NONE)
				continue; /* not in any set */
			/* an element several items share (from a live object) is a
			 * leaf of the field sets (to_set): one node, nothing below */
			if (lg_cnt(g, el) > 1 && lg_head(g, el) != i)
				continue;
			pe = &g->x.pe[el];
			j = ssa_set_find_c(c, lsub, pe);
			if (!under_l && j < 0)
				continue;
			if ((rc = prune_node(pw, v->u.list.items[i], lg_cnt(g, el) > 1 ? NULL : et, pe, false,
			                     true, j >= 0 ? &lsub->e[j] : NULL, under_l, under_u, &gone)))
				return rc;
		}
		break;
	}
	default:
		break;
	}
	pw->w.depth--;
	if (pw->n > base) {
		size_t n = pw->n - base;
		ssa_ent *e = ssa_alloc(c, n * sizeof(*e));

		if (!e)
			return SMP_ENOMEM;
		memcpy(e, pw->st + base, n * sizeof(*e));
		pw->n = base;
		if (!(*out = ssa_set_build(c, e, n)))
			return c->rc ? c->rc : SMP_ENOMEM;
	}
	return 0;
}

static int prune_node(pwalk *pw, const smp_value *v, ssa_type *ct, const ssa_pe *pe,
                      bool field, bool declared, const ssa_ent *lent, bool under_l,
                      bool under_u, bool *gone)
{
	/* prune_below counted the node's depth in: its parent's sets are at
	 * depth - 1, its own at depth */
	size_t d = pw->w.depth - 1, no = pw->nown;
	const ssa_set **own = pw->own + d * no, **sub = pw->own + (d + 1) * no;
	bool owned = false, member, c_under_l, is_u, c_under_u, all_gone = false, drop;
	ssa_set *child = NULL;
	int rc;

	/* EnsureNamedFieldsAreMembers of the managers' sets: a member, or a
	 * declared struct field with paths below it */
	for (size_t k = 0; k < no; k++) {
		ptrdiff_t j = ssa_set_find_c(pw->w.c, own[k], pe);

		sub[k] = j >= 0 ? own[k]->e[j].child : NULL;
		if (j >= 0 && (own[k]->e[j].member || (field && declared && own[k]->e[j].child)))
			owned = true;
	}
	member = named_member(v, ct, field, declared);
	/* the last set as EnsureNamedFieldsAreMembers makes it: a declared
	 * struct field with paths below it is a member too */
	c_under_l = under_l || (lent && (lent->member || (field && declared && lent->child)));
	is_u = c_under_l && member && !owned; /* what the first removal drops */
	c_under_u = under_u || is_u;
	if (ct && (rc = prune_below(pw, &child, v, ct, lent ? lent->child : NULL, c_under_l,
	                            c_under_u, &all_gone)))
		return rc;
	/* an associative list item left with no field is a null item, which
	 * leaves the list's set */
	*gone = is_u || (!field && pe->kind == SSA_PE_KEY && all_gone);
	drop = (c_under_u || *gone) && lent && (lent->member || (field && declared && lent->child)) &&
	       member;
	if (drop || child)
		return pw_push(pw, pe, drop, child);
	return 0;
}

int ssa_prune_set(ssa_ctx *c, ssa_set **out, const smp_value *merged, ssa_type *t,
                  const ssa_set *l, const ssa_set *const *owners, size_t nowners)
{
	pwalk pw;
	bool all_gone;
	int rc;

	*out = NULL;
	if (ssa_set_empty(l))
		return 0;
	memset(&pw, 0, sizeof(pw));
	if ((rc = walk_init(&pw.w, c, "prune")))
		return rc;
	pw.nown = nowners;
	if (!(pw.own = calloc((SSA_MAX_DEPTH + 3) * (nowners ? nowners : 1), sizeof(*pw.own)))) {
		walk_done(&pw.w);
		return ssa_oom(c);
	}
	for (size_t k = 0; k < nowners; k++)
		pw.own[k] = owners[k];
	rc = prune_below(&pw, out, merged, t, l, false, false, &all_gone);
	free(pw.own);
	free(pw.st);
	walk_done(&pw.w);
	return rc ? (c->rc ? c->rc : rc) : 0;
}

/* ---------------------------------------------------------------- reconcile */

typedef struct rwalk {
	walk w;
	ssa_set *remove, *add;
} rwalk;

/* Replaces the set at the current path by its root alone. */
static int collapse(rwalk *r)
{
	ssa_ctx *c = r->w.c;
	ssa_set *p = ssa_set_from_path(c, r->w.path, r->w.depth);

	if (!p)
		return ssa_oom(c);
	r->remove = ssa_set_union(c, r->remove, p);
	r->add = ssa_set_union(c, r->add, p);
	return c->rc;
}

/* ReconcileFieldSetWithSchema: paths below what the schema now makes
 * atomic are folded into it. */
static int reconcile(rwalk *r, const ssa_set *s, ssa_type *t, bool is_atomic)
{
	ssa_ctx *c = r->w.c;
	int rc;

	if (r->w.depth >= SSA_MAX_DEPTH)
		return too_deep(&r->w);
	switch (atom_full(t)) {
	case A_MAP:
		if (t->reconcile_skip)
			return 0;
		if (!is_atomic && t->map_rel == SSA_REL_ATOMIC) {
			if (!ssa_set_empty(s) && r->w.depth > 0)
				return collapse(r);
			return 0;
		}
		break;
	case A_LIST:
		if (!is_atomic && t->list_rel == SSA_REL_ATOMIC && r->w.depth > 0)
			return collapse(r);
		break;
	default:
		return 0;
	}
	for (size_t i = 0; s && i < s->n; i++) {
		const ssa_ent *e = &s->e[i];
		ssa_type *ct = NULL;
		bool declared;

		if (atom_full(t) == A_MAP) {
			if (e->pe.kind == SSA_PE_FIELD)
				ct = ssa_type_field(c, t, e->pe.u.name, e->pe.n, &declared);
			else
				ct = ssa_type_map_elem(c, t);
		} else {
			ct = ssa_type_elem(c, t);
		}
		if (c->rc)
			return c->rc;
		if (!ct)
			continue; /* not in the schema */
		r->w.path[r->w.depth++] = e->pe;
		rc = reconcile(r, e->child, ct, e->member && !e->child);
		r->w.depth--;
		if (rc)
			return rc;
	}
	return 0;
}

int ssa_reconcile(ssa_ctx *c, ssa_set **out, const ssa_set *s, ssa_type *t)
{
	rwalk r;
	int rc;

	*out = NULL;
	if ((rc = walk_init(&r.w, c, "errors reconciling field set with schema")))
		return rc;
	r.remove = r.add = NULL;
	rc = reconcile(&r, s, t, false);
	walk_done(&r.w);
	if (rc)
		return rc;
	if (r.remove || r.add) {
		ssa_set *o = ssa_set_recursive_difference(c, s, r.remove);

		o = ssa_set_union(c, o, r.add);
		if (c->rc)
			return c->rc;
		/* An empty result still replaces the set. */
		if (!o && (o = ssa_alloc(c, sizeof(*o)))) {
			o->e = NULL;
			o->n = 0;
		}
		if (!o)
			return SMP_ENOMEM;
		*out = o;
	}
	return 0;
}
