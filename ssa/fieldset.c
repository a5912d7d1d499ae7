/*
 * fieldset.c - sets of field paths (SMD's fieldpath.Set) and FieldsV1.
 *
 * A set is a trie: each node holds its entries sorted by path element,
 * one entry per element, telling whether the path ending there is a member
 * and pointing to the node of longer paths (NULL when none). Lookups are
 * binary searches (through a hash index for the walks that look up a
 * large node's entries one by one: ssa_set_find_c); union, intersection
 * and the differences walk two sorted arrays side by side, so each costs
 * the size of its inputs. Nodes are
 * immutable once built and shared between sets (as SMD shares subtrees).
 * Invariant: an entry is a member or has a non-empty child.
 */
#include "ssa/ssa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ssa_set_empty(const ssa_set *s)
{
	return !s || s->n == 0;
}

ptrdiff_t ssa_set_find(const ssa_set *s, const ssa_pe *pe)
{
	size_t lo = 0, hi = s ? s->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = ssa_pe_cmp(pe, &s->e[mid].pe);

		if (r == 0)
			return (ptrdiff_t)mid;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* Sets of this many entries get a hash index on their first
 * ssa_set_find_c. */
#define SET_INDEX_MIN 16

ptrdiff_t ssa_set_find_c(ssa_ctx *c, const ssa_set *s, const ssa_pe *pe)
{
	if (!s || s->n < SET_INDEX_MIN)
		return ssa_set_find(s, pe);
	if (!s->slots) {
		/* the set is the call's (arena), only its index is added */
		ssa_set *w = (ssa_set *)s;
		size_t cap = 32;

		while (cap < (size_t)s->n * 2)
			cap *= 2;
		if (cap > UINT32_MAX || !(w->slots = ssa_alloc(c, cap * sizeof(*w->slots))))
			return ssa_set_find(s, pe);
		memset(w->slots, 0, cap * sizeof(*w->slots));
		w->mask = (uint32_t)(cap - 1);
		for (uint32_t i = 0; i < s->n; i++) {
			size_t h = ssa_pe_hash(&s->e[i].pe) & w->mask;

			while (w->slots[h])
				h = (h + 1) & w->mask;
			w->slots[h] = i + 1;
		}
	}
	for (size_t h = ssa_pe_hash(pe) & s->mask; s->slots[h]; h = (h + 1) & s->mask)
		if (ssa_pe_eq(&s->e[s->slots[h] - 1].pe, pe))
			return (ptrdiff_t)s->slots[h] - 1;
	return -1;
}

static ssa_set *new_set(ssa_ctx *c, size_t cap)
{
	ssa_set *s = ssa_alloc(c, sizeof(*s));

	if (!s)
		return NULL;
	s->n = 0;
	s->mask = 0;
	s->slots = NULL;
	s->e = cap ? ssa_alloc(c, cap * sizeof(ssa_ent)) : NULL;
	if (cap && !s->e)
		return NULL;
	return s;
}

/* NULL for an empty result. */
static ssa_set *finish(ssa_set *s)
{
	return s && s->n ? s : NULL;
}

ssa_set *ssa_set_union(ssa_ctx *c, const ssa_set *a, const ssa_set *b)
{
	size_t i = 0, j = 0;
	ssa_set *o;

	if (ssa_set_empty(a))
		return (ssa_set *)b;
	if (ssa_set_empty(b))
		return (ssa_set *)a;
	if (!(o = new_set(c, (size_t)a->n + b->n)))
		return NULL;
	while (i < a->n || j < b->n) {
		int r = i >= a->n ? 1 : j >= b->n ? -1 : ssa_pe_cmp(&a->e[i].pe, &b->e[j].pe);

		if (r < 0) {
			o->e[o->n++] = a->e[i++];
		} else if (r > 0) {
			o->e[o->n++] = b->e[j++];
		} else {
			ssa_ent *e = &o->e[o->n++];

			*e = a->e[i];
			e->member = a->e[i].member || b->e[j].member;
			if (a->e[i].child && b->e[j].child) {
				e->child = ssa_set_union(c, a->e[i].child, b->e[j].child);
				if (!e->child)
					return NULL;
			} else if (!e->child) {
				e->child = b->e[j].child;
			}
			i++;
			j++;
		}
	}
	return o;
}

ssa_set *ssa_set_intersection(ssa_ctx *c, const ssa_set *a, const ssa_set *b)
{
	size_t i = 0, j = 0;
	ssa_set *o;

	if (ssa_set_empty(a) || ssa_set_empty(b))
		return NULL;
	if (!(o = new_set(c, a->n < b->n ? a->n : b->n)))
		return NULL;
	while (i < a->n && j < b->n) {
		int r = ssa_pe_cmp(&a->e[i].pe, &b->e[j].pe);

		if (r < 0) {
			i++;
		} else if (r > 0) {
			j++;
		} else {
			ssa_ent e = a->e[i];

			e.member = a->e[i].member && b->e[j].member;
			e.child = NULL;
			if (a->e[i].child && b->e[j].child) {
				e.child = ssa_set_intersection(c, a->e[i].child, b->e[j].child);
				if (c->rc)
					return NULL;
			}
			if (e.member || e.child)
				o->e[o->n++] = e;
			i++;
			j++;
		}
	}
	return finish(o);
}

/* SMD's Difference (recursive = false) and RecursiveDifference. */
static ssa_set *diff(ssa_ctx *c, const ssa_set *a, const ssa_set *b, bool recursive)
{
	size_t i = 0, j = 0;
	ssa_set *o;

	if (ssa_set_empty(a))
		return NULL;
	if (ssa_set_empty(b))
		return (ssa_set *)a;
	if (!(o = new_set(c, a->n)))
		return NULL;
	while (i < a->n) {
		int r = j >= b->n ? -1 : ssa_pe_cmp(&a->e[i].pe, &b->e[j].pe);

		if (r > 0) {
			j++;
			continue;
		}
		ssa_ent e = a->e[i];

		if (r == 0) {
			const ssa_ent *f = &b->e[j];

			e.member = e.member && !f->member;
			if (recursive && f->member)
				e.child = NULL;
			else if (e.child && f->child)
				e.child = diff(c, e.child, f->child, recursive);
			if (c->rc)
				return NULL;
			j++;
		}
		if (e.member || e.child)
			o->e[o->n++] = e;
		i++;
	}
	return finish(o);
}

ssa_set *ssa_set_difference(ssa_ctx *c, const ssa_set *a, const ssa_set *b)
{
	return diff(c, a, b, false);
}

ssa_set *ssa_set_recursive_difference(ssa_ctx *c, const ssa_set *a, const ssa_set *b)
{
	return diff(c, a, b, true);
}

ssa_set *ssa_set_ensure_named(ssa_ctx *c, const ssa_set *s, ssa_type *t)
{
	ssa_set *o;

	/* Below a type without struct fields nothing is ever added. */
	if (ssa_set_empty(s) || !t || t == &ssa_type_none || t->deduced ||
	    (t->scalar && !t->has_list && !t->has_map))
		return (ssa_set *)s;
	if (!(o = new_set(c, s->n)))
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		ssa_ent e = s->e[i];

		if (e.child) {
			ssa_type *ct = NULL;
			bool declared = false;

			if (e.pe.kind == SSA_PE_FIELD && t->has_map) {
				ct = ssa_type_field(c, t, e.pe.u.name, e.pe.n, &declared);
				if (declared)
					e.member = true;
			} else if (e.pe.kind == SSA_PE_KEY && t->has_list) {
				ct = ssa_type_elem(c, t);
			}
			if (c->rc)
				return NULL;
			if (ct)
				e.child = ssa_set_ensure_named(c, e.child, ct);
			if (c->rc)
				return NULL;
		}
		o->e[o->n++] = e;
	}
	return o;
}

ssa_set *ssa_set_from_path(ssa_ctx *c, const ssa_pe *path, size_t n)
{
	ssa_set *child = NULL;

	for (size_t k = n; k-- > 0;) {
		ssa_set *s = new_set(c, 1);

		if (!s)
			return NULL;
		s->e[0].pe = path[k];
		s->e[0].member = k == n - 1;
		s->e[0].child = child;
		s->n = 1;
		child = s;
	}
	return child;
}

static int ent_cmp(const void *x, const void *y)
{
	return ssa_pe_cmp(&((const ssa_ent *)x)->pe, &((const ssa_ent *)y)->pe);
}

ssa_set *ssa_set_build(ssa_ctx *c, ssa_ent *e, size_t n)
{
	ssa_set *s;
	size_t k = 0;
	bool sorted = true;

	if (n == 0)
		return NULL;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = ssa_pe_cmp(&e[i - 1].pe, &e[i].pe) < 0;
	if (!sorted) {
		qsort(e, n, sizeof(*e), ent_cmp);
		for (size_t i = 0; i < n; i++) {
			if (k && ssa_pe_eq(&e[k - 1].pe, &e[i].pe)) {
				e[k - 1].member = e[k - 1].member || e[i].member;
				e[k - 1].child = ssa_set_union(c, e[k - 1].child, e[i].child);
				if (c->rc)
					return NULL;
				continue;
			}
			e[k++] = e[i];
		}
		n = k;
	}
	if (!(s = ssa_alloc(c, sizeof(*s))))
		return NULL;
	s->e = e;
	s->n = (uint32_t)n;
	s->mask = 0;
	s->slots = NULL;
	return s;
}

/* ---------------------------------------------------------------- size */

size_t ssa_set_count(const ssa_set *s)
{
	size_t n = 0;

	for (size_t i = 0; s && i < s->n; i++)
		n += s->e[i].member + ssa_set_count(s->e[i].child);
	return n;
}

/* ---------------------------------------------------------------- FieldsV1 */

static void emit(smp_buf *b, const ssa_set *s, bool self, smp_buf *key)
{
	bool first = true;

	if (self && !ssa_set_empty(s)) {
		smp_buf_puts(b, "\".\":{}");
		first = false;
	}
	for (size_t i = 0; s && i < s->n; i++) {
		const ssa_ent *e = &s->e[i];

		if (!first)
			smp_buf_putc(b, ',');
		first = false;
		key->len = 0;
		ssa_pe_fieldsv1_key(key, &e->pe);
		if (key->oom)
			b->oom = true;
		ssa_json_put_string_html(b, key->ptr ? key->ptr : "", key->len);
		smp_buf_putc(b, ':');
		smp_buf_putc(b, '{');
		if (e->child)
			emit(b, e->child, e->member, key);
		smp_buf_putc(b, '}');
	}
}

void ssa_set_to_fieldsv1(smp_buf *b, const ssa_set *s)
{
	smp_buf key;

	smp_buf_init(&key);
	smp_buf_putc(b, '{');
	emit(b, s, false, &key);
	smp_buf_putc(b, '}');
	smp_buf_release(&key);
}

/* The FieldsV1 tree of s (`self`: the node is a member too). Every leaf
 * is the one empty map `leaf` (a read-only result: nothing adds to it),
 * and "." the literal, which saves a value and a key per path. */
static smp_value *to_value(ssa_ctx *c, smp_arena *a, const ssa_set *s, bool self,
                           smp_buf *key, smp_value *leaf)
{
	smp_value *m = smpv_map(a, (s ? s->n : 0) + (self ? 1 : 0));

	if (!m)
		goto oom;
	if (self && !ssa_set_empty(s) && smpv_map_add(a, m, ".", 1, leaf))
		goto oom;
	for (size_t i = 0; s && i < s->n; i++) {
		const ssa_ent *e = &s->e[i];
		smp_value *v;

		v = e->child ? to_value(c, a, e->child, e->member, key, leaf) : leaf;
		key->len = 0;
		ssa_pe_fieldsv1_key(key, &e->pe);
		if (key->oom)
			goto oom;
		if (!v || smpv_map_add_copy(a, m, key->ptr ? key->ptr : "", key->len, v))
			goto oom;
	}
	return m;
oom:
	ssa_oom(c);
	return NULL;
}

smp_value *ssa_set_to_value(ssa_ctx *c, smp_arena *a, const ssa_set *s)
{
	smp_value *leaf = smpv_map(a, 0), *v = NULL;
	smp_buf key;

	if (!leaf) {
		ssa_oom(c);
		return NULL;
	}
	smp_buf_init(&key);
	v = to_value(c, a, s, false, &key, leaf);
	smp_buf_release(&key);
	return v;
}

/* SMD's readIterV1: the set below one FieldsV1 node, and whether the node
 * is itself a member (it is when it holds nothing but "."). */
static int from_value(ssa_ctx *c, ssa_set **out, bool *is_member, const smp_value *v,
                      size_t depth, char *msg, size_t msgsize)
{
	ssa_ent *e;
	size_t n = 0;
	int rc;

	*out = NULL;
	*is_member = false;
	if (depth > SSA_MAX_DEPTH) {
		snprintf(msg, msgsize, "fieldsV1 nested too deeply");
		return SMP_ELIMIT;
	}
	if (v->type == SMP_NULL) {
		*is_member = true;
		return 0;
	}
	if (v->type != SMP_MAP) {
		snprintf(msg, msgsize, "ReadMapCB: expect { or n, but found %s",
		         v->type == SMP_LIST ? "[" : v->type == SMP_STRING ? "\"" : "a scalar");
		return SMP_EINVAL;
	}
	if (v->u.map.len == 0 || (v->u.map.len == 1 && v->u.map.items[0].klen == 1 &&
	                          v->u.map.items[0].key[0] == '.')) {
		*is_member = true; /* a leaf ({}) or a member alone ({".":{}}) */
		return 0;
	}
	if (!(e = ssa_alloc(c, v->u.map.len * sizeof(*e))))
		return SMP_ENOMEM;
	for (size_t i = 0; i < v->u.map.len; i++) {
		const smp_member *m = &v->u.map.items[i];
		ssa_set *child;
		bool member;

		if (m->klen == 1 && m->key[0] == '.') {
			*is_member = true;
			continue;
		}
		rc = ssa_pe_parse_key(c, &e[n].pe, m->key, m->klen, msg, msgsize);
		if (rc == 1)
			continue; /* an element type of a later version: dropped */
		if (rc)
			return rc;
		if ((rc = from_value(c, &child, &member, m->val, depth + 1, msg, msgsize)))
			return rc;
		if (!member && !child)
			continue;
		e[n].member = member;
		e[n].child = child;
		n++;
	}
	if (n == 0) {
		*is_member = true;
		return 0;
	}
	if (!(*out = ssa_set_build(c, e, n)))
		return c->rc ? c->rc : SMP_ENOMEM;
	return 0;
}

int ssa_set_from_value(ssa_ctx *c, ssa_set **out, const smp_value *v, char *msg,
                       size_t msgsize)
{
	bool member;

	*out = NULL;
	if (!v)
		return 0;
	return from_value(c, out, &member, v, 0, msg, msgsize);
}

/* ---------------------------------------------------------------- Go paths */

/*
 * SMD's Set.Iterate hands its callback append(prefix, pe), and
 * ConflictsFromManagers keeps those slices without copying them: where
 * the prefix slice has spare capacity, later paths overwrite the tail of
 * earlier ones, and the server prints the overwritten paths. This
 * reproduces Go's slices (capacity doubling from 1 for 32-byte elements)
 * to report the same paths.
 */
typedef struct garr {
	ssa_pe *data;
	size_t cap;
} garr;

typedef struct gslice {
	size_t arr, len, cap;
} gslice;

typedef struct giter {
	ssa_ctx *c;
	garr *arrs;
	size_t narrs, arrs_cap;
	gslice *recs;
	size_t nrecs, recs_cap;
} giter;

static int gappend(giter *g, gslice *out, gslice p, const ssa_pe *pe)
{
	if (p.len < p.cap) {
		g->arrs[p.arr].data[p.len] = *pe;
		*out = (gslice){p.arr, p.len + 1, p.cap};
		return 0;
	}
	if (!smp_grow_arena(&g->c->arena, (void **)&g->arrs, &g->arrs_cap, g->narrs,
	                    sizeof(*g->arrs), 16))
		return ssa_oom(g->c);
	{
		size_t cap = p.cap * 2 > p.len + 1 ? p.cap * 2 : p.len + 1;
		garr *a = &g->arrs[g->narrs];

		if (!(a->data = ssa_alloc(g->c, cap * sizeof(ssa_pe))))
			return SMP_ENOMEM;
		a->cap = cap;
		if (p.len)
			memcpy(a->data, g->arrs[p.arr].data, p.len * sizeof(ssa_pe));
		a->data[p.len] = *pe;
		*out = (gslice){g->narrs++, p.len + 1, cap};
	}
	return 0;
}

static int grecord(giter *g, gslice s)
{
	if (!smp_grow_arena(&g->c->arena, (void **)&g->recs, &g->recs_cap, g->nrecs,
	                    sizeof(*g->recs), 16))
		return ssa_oom(g->c);
	g->recs[g->nrecs++] = s;
	return 0;
}

static int giterate(giter *g, const ssa_set *s, gslice prefix, size_t depth)
{
	gslice p;
	int rc;

	if (!s)
		return 0;
	if (depth >= SSA_MAX_DEPTH)
		return SMP_ELIMIT;
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].member && ((rc = gappend(g, &p, prefix, &s->e[i].pe)) || (rc = grecord(g, p))))
			return rc;
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].child && ((rc = gappend(g, &p, prefix, &s->e[i].pe)) ||
		                      (rc = giterate(g, s->e[i].child, p, depth + 1))))
			return rc;
	return 0;
}

int ssa_set_iterate_go(ssa_ctx *c, const ssa_set *s,
                       int (*fn)(void *ctx, const ssa_pe *path, size_t n), void *fctx)
{
	giter g = {c, NULL, 0, 0, NULL, 0, 0};
	gslice empty = {0, 0, 0};
	int rc;

	if ((rc = giterate(&g, s, empty, 0)))
		return rc;
	for (size_t i = 0; i < g.nrecs; i++)
		if ((rc = fn(fctx, g.arrs[g.recs[i].arr].data, g.recs[i].len)))
			return rc;
	return 0;
}
