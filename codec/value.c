/*
 * value.c - arena, value constructors, equality, hashing, errors, buffers.
 */
/* mmap's MAP_ANONYMOUS and madvise are outside strict POSIX. */
#define _DEFAULT_SOURCE 1
#include "value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- arena ---- */

#define ARENA_FIRST_BLOCK 4096u
#define ARENA_MAX_BLOCK (1u << 20)
/* Blocks from this size on are mapped directly, 2 MiB aligned, and marked
 * for transparent huge pages where the kernel has them: a 25 MB tree then
 * costs a dozen page faults instead of six thousand. */
#define ARENA_HUGE_MIN ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static smp_arena_block *block_map(size_t total)
{
#if defined(MAP_ANONYMOUS)
	size_t len = (total + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (len < total || len > SIZE_MAX - HUGE_PAGE)
		return NULL;
	/* Map one huge page more and trim to a 2 MiB boundary. */
	char *p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	size_t lead = (HUGE_PAGE - ((uintptr_t)p & (HUGE_PAGE - 1))) & (HUGE_PAGE - 1);
	if (lead)
		munmap(p, lead);
	if (HUGE_PAGE - lead)
		munmap(p + lead + len, HUGE_PAGE - lead);
	p += lead;
#if defined(MADV_HUGEPAGE)
	/* Only advice: ignored (EINVAL) where there are no huge pages. */
	madvise(p, len, MADV_HUGEPAGE);
#endif
	smp_arena_block *b = (smp_arena_block *)(void *)p;
	b->mapped = len;
	return b;
#else
	(void)total;
	return NULL;
#endif
}

/* A new block with `bsize` bytes of room (the size hint, when set and
 * larger, is used up here). NULL on ENOMEM. */
static smp_arena_block *block_new(smp_arena *a, size_t bsize)
{
	smp_arena_block *b = NULL;
	size_t want = bsize;

	if (a->hint > bsize)
		bsize = a->hint;
	a->hint = 0;
	for (;;) {
		if (bsize <= SIZE_MAX - sizeof(*b) - HUGE_PAGE) {
			if (bsize >= ARENA_HUGE_MIN)
				b = block_map(sizeof(*b) + bsize);
			if (!b && (b = malloc(sizeof(*b) + bsize)))
				b->mapped = 0;
		}
		if (b || bsize == want)
			break;
		/* No address space for the hinted size (a strict overcommit
		 * policy): what was asked for is enough. */
		bsize = want;
	}
	if (!b)
		return NULL;
	b->size = bsize;
	b->off = 0;
	return b;
}

static void block_free(smp_arena_block *b)
{
#if defined(MAP_ANONYMOUS)
	if (b->mapped) {
		munmap(b, b->mapped);
		return;
	}
#endif
	free(b);
}

void smp_arena_hint(smp_arena *a, size_t bytes)
{
	a->hint = bytes;
}

void smp_arena_init(smp_arena *a)
{
	a->head = NULL;
	a->big = NULL;
	a->block_size = ARENA_FIRST_BLOCK;
	a->used = 0;
	a->hint = 0;
}

void smp_arena_release(smp_arena *a)
{
	smp_arena_block *b = a->head;

	while (b) {
		smp_arena_block *prev = b->prev;
		block_free(b);
		b = prev;
	}
	a->head = NULL;
	a->used = 0;
}

void smp_arena_reset(smp_arena *a, size_t keep_max)
{
	smp_arena_block *b = a->head, *keep = NULL;

	while (b) {
		smp_arena_block *prev = b->prev;

		if (b->size <= keep_max && (!keep || b->size > keep->size)) {
			if (keep)
				block_free(keep);
			keep = b;
		} else {
			block_free(b);
		}
		b = prev;
	}
	if (keep) {
		keep->prev = NULL;
		keep->off = 0;
	}
	a->head = keep;
	a->big = NULL;
	a->used = 0;
	a->hint = 0;
}

void *smp_arena_alloc(smp_arena *a, size_t size)
{
	smp_arena_block *b = a->head;
	/* 8-byte granules, as value.h promises: a 40-byte smp_value takes 40. */
	size_t need = (size + 7u) & ~(size_t)7u;

	if (need < size)
		return NULL;
	if (!b || b->size - b->off < need) {
		size_t bsize = a->block_size;
		/* Large requests get a block of their own so small blocks stay dense. */
		if (need > bsize / 4) {
			bsize = need;
		} else if (a->block_size < ARENA_MAX_BLOCK) {
			a->block_size *= 2;
		}
		smp_arena_block *nb = block_new(a, bsize);
		if (!nb)
			return NULL;
		if (b && need == nb->size && b->size - b->off > 64) {
			/* Keep the partly used block on top: slip the big one under it. */
			nb->prev = b->prev;
			b->prev = nb;
			nb->off = need;
			a->used += need;
			return (char *)nb->data;
		}
		nb->prev = b;
		a->head = b = nb;
	}
	void *p = (char *)b->data + b->off;
	b->off += need;
	a->used += need;
	return p;
}

void *smp_arena_reserve(smp_arena *a, size_t min, size_t *avail)
{
	smp_arena_block *b = a->head;

	min = (min + 7u) & ~(size_t)7u;
	if (!b || b->size - b->off < min) {
		size_t bsize = a->block_size;
		if (min > bsize / 4)
			bsize = min;
		else if (a->block_size < ARENA_MAX_BLOCK)
			a->block_size *= 2;
		smp_arena_block *nb = block_new(a, bsize);
		if (!nb)
			return NULL;
		nb->prev = b;
		a->head = b = nb;
	}
	*avail = b->size - b->off;
	return (char *)b->data + b->off;
}

void smp_arena_commit(smp_arena *a, size_t n)
{
	smp_arena_block *b = a->head;
	size_t need = (n + 7u) & ~(size_t)7u;

	/* Block sizes and offsets are multiples of 8: need fits when n did. */
	b->off += need;
	a->used += need;
}

/* The block that links to the big block (NULL: a->head is the big block). */
static smp_arena_block *big_owner(smp_arena *a)
{
	return a->head == a->big ? NULL : a->head;
}

void *smp_arena_big_begin(smp_arena *a, size_t cap)
{
	smp_arena_block *nb;

	cap = (cap + 7u) & ~(size_t)7u;
	if (cap > SIZE_MAX - sizeof(*nb) || !(nb = malloc(sizeof(*nb) + cap)))
		return NULL;
	/* malloc'ed (not block_new): resized with realloc. */
	nb->mapped = 0;
	nb->size = cap;
	nb->off = 0;
	if (a->head) {
		/* Under the current block, which keeps its free space. */
		nb->prev = a->head->prev;
		a->head->prev = nb;
	} else {
		nb->prev = NULL;
		a->head = nb;
	}
	a->big = nb;
	return nb->data;
}

void *smp_arena_big_resize(smp_arena *a, size_t cap)
{
	smp_arena_block *owner = big_owner(a), *nb;

	cap = (cap + 7u) & ~(size_t)7u;
	if (cap > SIZE_MAX - sizeof(*nb) || !(nb = realloc(a->big, sizeof(*nb) + cap)))
		return NULL;
	nb->size = cap;
	if (owner)
		owner->prev = nb;
	else
		a->head = nb;
	a->big = nb;
	return nb->data;
}

void *smp_arena_big_end(smp_arena *a, size_t n)
{
	size_t need = (n + 7u) & ~(size_t)7u;
	smp_arena_block *b = a->big;

	/* Shrinking in place is the usual outcome; if realloc fails the
	 * block just stays larger. */
	if (need < b->size) {
		void *d = smp_arena_big_resize(a, need ? need : 8);
		(void)d;
		b = a->big;
	}
	b->off = b->size;
	a->used += b->size;
	a->big = NULL;
	return b->data;
}

char *smp_arena_strndup(smp_arena *a, const char *s, size_t len)
{
	char *p = smp_arena_alloc(a, len + 1);

	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* ---- documents ---- */

smp_doc *smp_doc_alloc(void)
{
	smp_doc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	smp_arena_init(&d->arena);
	return d;
}

int smp_doc_push_root(smp_doc *doc, smp_value *v)
{
	if (doc->nroots == doc->cap) {
		size_t ncap = doc->cap ? doc->cap * 2 : 4;
		smp_value **n = realloc(doc->roots, ncap * sizeof(*n));
		if (!n)
			return SMP_ENOMEM;
		doc->roots = n;
		doc->cap = ncap;
	}
	doc->roots[doc->nroots++] = v;
	return 0;
}

void smp_doc_free(smp_doc *doc)
{
	if (!doc)
		return;
	smp_arena_release(&doc->arena);
	free(doc->roots);
	free(doc);
}

int smp_doc_new(smp_doc **out, smp_error *err)
{
	*out = smp_doc_alloc();
	if (!*out)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	return 0;
}

int smp_doc_add_copy(const smp_value **out, smp_doc *doc, const smp_value *v,
                     smp_error *err)
{
	smp_value *c = smpv_copy(&doc->arena, v);

	if (out)
		*out = NULL;
	if (!c || smp_doc_push_root(doc, c))
		return smp__err(err, SMP_ENOMEM, "out of memory");
	if (out)
		*out = c;
	return 0;
}

size_t smp_doc_count(const smp_doc *doc)
{
	return doc ? doc->nroots : 0;
}

const smp_value *smp_doc_root(const smp_doc *doc, size_t i)
{
	return doc && i < doc->nroots ? doc->roots[i] : NULL;
}

/* ---- constructors ---- */

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(smp_value) == 24, "smp_value is 24 bytes on 64-bit targets");
#endif

static smp_value *new_value(smp_arena *a, smp_type t)
{
	smp_value *v = smp_arena_alloc(a, sizeof(*v));

	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = t;
	return v;
}

smp_value *smpv_null(smp_arena *a) { return new_value(a, SMP_NULL); }

smp_value *smpv_bool(smp_arena *a, bool b)
{
	smp_value *v = new_value(a, SMP_BOOL);
	if (v)
		v->u.b = b;
	return v;
}

smp_value *smpv_int(smp_arena *a, int64_t i)
{
	smp_value *v = new_value(a, SMP_INT);
	if (v)
		v->u.i = i;
	return v;
}

smp_value *smpv_float(smp_arena *a, double f)
{
	smp_value *v = new_value(a, SMP_FLOAT);
	if (v)
		v->u.f = f;
	return v;
}

smp_value *smpv_str_ref(smp_arena *a, const char *s, size_t len)
{
	smp_value *v = len <= SMPV_LEN_MAX ? new_value(a, SMP_STRING) : NULL;
	if (v) {
		v->u.s.ptr = s;
		v->u.s.len = len;
	}
	return v;
}

smp_value *smpv_str(smp_arena *a, const char *s, size_t len)
{
	char *c = len <= SMPV_LEN_MAX ? smp_arena_strndup(a, s, len) : NULL;
	return c ? smpv_str_ref(a, c, len) : NULL;
}

smp_value *smpv_list(smp_arena *a, size_t cap_hint)
{
	smp_value *v = cap_hint <= SMPV_LEN_MAX ? new_value(a, SMP_LIST) : NULL;

	if (v && cap_hint) {
		v->u.list.items = smp_arena_alloc(a, cap_hint * sizeof(smp_value *));
		if (!v->u.list.items)
			return NULL;
		v->u.list.cap = (uint32_t)cap_hint;
	}
	return v;
}

smp_value *smpv_map(smp_arena *a, size_t cap_hint)
{
	smp_value *v = cap_hint <= SMPV_LEN_MAX ? new_value(a, SMP_MAP) : NULL;

	if (v && cap_hint) {
		v->u.map.items = smp_arena_alloc(a, cap_hint * sizeof(smp_member));
		if (!v->u.map.items)
			return NULL;
		v->u.map.cap = (uint32_t)cap_hint;
	}
	return v;
}

static int grow(smp_arena *a, void **items, uint32_t *cap, size_t len, size_t elem)
{
	size_t ncap = *cap ? (size_t)*cap * 2 : 4;
	void *n;

	if (ncap > SMPV_LEN_MAX)
		ncap = SMPV_LEN_MAX;
	if (len >= SMPV_LEN_MAX || ncap > SIZE_MAX / elem)
		return SMP_ENOMEM;
	n = smp_arena_alloc(a, ncap * elem);
	if (!n)
		return SMP_ENOMEM;
	if (len)
		memcpy(n, *items, len * elem);
	*items = n;
	*cap = (uint32_t)ncap;
	return 0;
}

int smpv_list_add(smp_arena *a, smp_value *list, smp_value *item)
{
	if (list->u.list.len == list->u.list.cap &&
	    grow(a, (void **)&list->u.list.items, &list->u.list.cap, list->u.list.len,
	         sizeof(smp_value *)))
		return SMP_ENOMEM;
	list->u.list.items[list->u.list.len++] = item;
	return 0;
}

int smpv_map_add(smp_arena *a, smp_value *map, const char *key, size_t klen,
                 smp_value *val)
{
	smp_member *m;

	if (map->u.map.len == map->u.map.cap &&
	    grow(a, (void **)&map->u.map.items, &map->u.map.cap, map->u.map.len,
	         sizeof(smp_member)))
		return SMP_ENOMEM;
	m = &map->u.map.items[map->u.map.len++];
	m->key = key;
	m->klen = klen;
	m->val = val;
	return 0;
}

int smpv_map_add_copy(smp_arena *a, smp_value *map, const char *key, size_t klen,
                      smp_value *val)
{
	char *k = smp_arena_strndup(a, key, klen);
	return k ? smpv_map_add(a, map, k, klen, val) : SMP_ENOMEM;
}

ptrdiff_t smpv_map_find(const smp_value *map, const char *key, size_t klen)
{
	if (!map || map->type != SMP_MAP)
		return -1;
	for (size_t i = 0; i < map->u.map.len; i++) {
		const smp_member *m = &map->u.map.items[i];
		if (m->klen == klen && memcmp(m->key, key, klen) == 0)
			return (ptrdiff_t)i;
	}
	return -1;
}

smp_value *smpv_map_get(const smp_value *map, const char *key)
{
	ptrdiff_t i = smpv_map_find(map, key, strlen(key));
	return i < 0 ? NULL : map->u.map.items[i].val;
}

const char *smpv_map_str(const smp_value *map, const char *key)
{
	const smp_value *v = smpv_map_get(map, key);

	return v && v->type == SMP_STRING ? v->u.s.ptr : NULL;
}

void smpv_map_remove(smp_value *map, size_t i)
{
	if (i >= map->u.map.len)
		return;
	memmove(&map->u.map.items[i], &map->u.map.items[i + 1],
	        (map->u.map.len - i - 1) * sizeof(smp_member));
	map->u.map.len--;
}

smp_value *smpv_copy(smp_arena *a, const smp_value *v)
{
	smp_value *c;

	if (!v)
		return NULL;
	switch (v->type) {
	case SMP_STRING:
		c = smpv_str(a, v->u.s.ptr, v->u.s.len);
		break;
	case SMP_LIST:
		c = smpv_list(a, v->u.list.len);
		if (!c)
			return NULL;
		for (size_t i = 0; i < v->u.list.len; i++) {
			smp_value *e = smpv_copy(a, v->u.list.items[i]);
			if (!e)
				return NULL;
			c->u.list.items[i] = e;
		}
		c->u.list.len = v->u.list.len;
		break;
	case SMP_MAP:
		c = smpv_map(a, v->u.map.len);
		if (!c)
			return NULL;
		for (size_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			char *k = smp_arena_strndup(a, m->key, m->klen);
			smp_value *e = smpv_copy(a, m->val);
			if (!k || !e)
				return NULL;
			c->u.map.items[i].key = k;
			c->u.map.items[i].klen = m->klen;
			c->u.map.items[i].val = e;
		}
		c->u.map.len = v->u.map.len;
		break;
	default:
		c = new_value(a, v->type);
		if (c)
			c->u = v->u;
		break;
	}
	if (c) {
		c->line = v->line;
		c->col = v->col;
	}
	return c;
}

bool smpv_is_str(const smp_value *v, const char *s)
{
	size_t n = strlen(s);
	return v && v->type == SMP_STRING && v->u.s.len == n && memcmp(v->u.s.ptr, s, n) == 0;
}

/* ---- a map's members in key order ---- */

static int member_cmp(const smp_member *a, const smp_member *b);

static int key_cmp(const void *x, const void *y)
{
	return member_cmp(*(const smp_member *const *)x, *(const smp_member *const *)y);
}

static int member_cmp(const smp_member *a, const smp_member *b)
{
	size_t n = a->klen < b->klen ? a->klen : b->klen;
	int c = memcmp(a->key, b->key, n);

	if (c)
		return c;
	return a->klen < b->klen ? -1 : a->klen > b->klen;
}

int smp_sorted_members(const smp_member ***out, const smp_value *map, bool sort)
{
	size_t n = map->u.map.len;
	const smp_member **v;
	bool sorted = true;

	*out = NULL;
	if (!sort || n < 2)
		return 0;
	/* Maps are often in order already (kubectl's output always is). */
	for (size_t i = 1; i < n && sorted; i++)
		sorted = member_cmp(&map->u.map.items[i - 1], &map->u.map.items[i]) <= 0;
	if (sorted)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return SMP_ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = &map->u.map.items[i];
	qsort(v, n, sizeof(*v), key_cmp);
	*out = v;
	return 0;
}

/* ---- hashing ---- */

uint64_t smp_hash_bytes(const char *p, size_t n)
{
	/* FNV-1a, 64-bit: short keys dominate, and it needs no state. */
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* smpv_hash, or with `numeric` smpv_hash_numeric: ints and floats hashed
 * by their value as a double, so that 1 and 1.0 hash alike. */
static uint64_t hash(const smp_value *v, bool numeric)
{
	uint64_t h;

	if (!v)
		return 0x9e3779b97f4a7c15ull;
	switch (v->type) {
	case SMP_NULL:
		return 1;
	case SMP_BOOL:
		return v->u.b ? 2 : 3;
	case SMP_INT:
		if (!numeric)
			return smp_hash_mix((uint64_t)v->u.i ^ 4);
		/* fall through */
	case SMP_FLOAT: {
		uint64_t bits;
		double f = v->type == SMP_INT ? (double)v->u.i : v->u.f;
		if (f == 0.0)
			f = 0.0; /* -0 == 0 */
		memcpy(&bits, &f, sizeof(bits));
		return smp_hash_mix(bits ^ 5);
	}
	case SMP_STRING:
		return smp_hash_bytes(v->u.s.ptr, v->u.s.len);
	case SMP_LIST:
		h = 6;
		for (size_t i = 0; i < v->u.list.len; i++)
			h = smp_hash_mix(h * 31 + hash(v->u.list.items[i], numeric));
		return h;
	case SMP_MAP:
		/* Order-independent: sum of per-entry hashes. */
		h = 7;
		for (size_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			h += smp_hash_mix(smp_hash_bytes(m->key, m->klen) * 31 + hash(m->val, numeric));
		}
		return h;
	}
	return 0;
}

uint64_t smpv_hash(const smp_value *v)
{
	return hash(v, false);
}

uint64_t smpv_hash_numeric(const smp_value *v)
{
	return hash(v, true);
}

/* ---- equality ---- */

static bool equal(const smp_value *a, const smp_value *b, bool numeric);

/* The index in map b of the member named like x: through `slots` (a hash
 * index of b's keys, `mask` its size - 1) when there is one, else a scan. */
static ptrdiff_t member_in(const smp_value *b, const smp_member *x, const size_t *slots,
                           size_t mask)
{
	if (!slots)
		return smpv_map_find(b, x->key, x->klen);
	for (size_t s = smp_hash_bytes(x->key, x->klen) & mask; slots[s] != SIZE_MAX;
	     s = (s + 1) & mask) {
		const smp_member *y = &b->u.map.items[slots[s]];
		if (y->klen == x->klen && memcmp(y->key, x->key, x->klen) == 0)
			return (ptrdiff_t)slots[s];
	}
	return -1;
}

/* Two maps hold the same keys with equal values, whatever their order:
 * pairwise while the keys are in the same order (the usual case), then
 * each key looked up in b: a scan for a few, through a hash index of b's
 * keys for more (a scan again when there is no memory for the index). */
static bool map_equal(const smp_value *a, const smp_value *b, bool numeric)
{
	size_t n = a->u.map.len, i = 0, cap = 16, *slots = NULL;
	bool eq = true;

	if (n != b->u.map.len)
		return false;
	for (; i < n; i++) {
		const smp_member *x = &a->u.map.items[i], *y = &b->u.map.items[i];
		if (x->klen != y->klen || memcmp(x->key, y->key, x->klen) != 0)
			break;
		if (!equal(x->val, y->val, numeric))
			return false;
	}
	if (n - i > 16) {
		while (cap < 2 * n)
			cap *= 2;
		if ((slots = malloc(cap * sizeof(*slots)))) {
			for (size_t k = 0; k < cap; k++)
				slots[k] = SIZE_MAX;
			for (size_t k = 0; k < n; k++) {
				const smp_member *y = &b->u.map.items[k];
				size_t s = smp_hash_bytes(y->key, y->klen) & (cap - 1);
				while (slots[s] != SIZE_MAX)
					s = (s + 1) & (cap - 1);
				slots[s] = k;
			}
		}
	}
	for (; i < n && eq; i++) {
		ptrdiff_t j = member_in(b, &a->u.map.items[i], slots, cap - 1);
		eq = j >= 0 && equal(a->u.map.items[i].val, b->u.map.items[j].val, numeric);
	}
	free(slots);
	return eq;
}

/* smpv_equal, or with `numeric` smpv_equal_numeric. */
static bool equal(const smp_value *a, const smp_value *b, bool numeric)
{
	if (a == b)
		return true;
	if (!a || !b)
		return false;
	if (numeric && (a->type == SMP_FLOAT || b->type == SMP_FLOAT) &&
	    (a->type == SMP_INT || a->type == SMP_FLOAT) &&
	    (b->type == SMP_INT || b->type == SMP_FLOAT))
		return (a->type == SMP_INT ? (double)a->u.i : a->u.f) ==
		       (b->type == SMP_INT ? (double)b->u.i : b->u.f);
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case SMP_NULL:
		return true;
	case SMP_BOOL:
		return a->u.b == b->u.b;
	case SMP_INT:
		return a->u.i == b->u.i;
	case SMP_FLOAT:
		return a->u.f == b->u.f;
	case SMP_STRING:
		return a->u.s.len == b->u.s.len &&
		       memcmp(a->u.s.ptr, b->u.s.ptr, a->u.s.len) == 0;
	case SMP_LIST:
		if (a->u.list.len != b->u.list.len)
			return false;
		for (size_t i = 0; i < a->u.list.len; i++)
			if (!equal(a->u.list.items[i], b->u.list.items[i], numeric))
				return false;
		return true;
	case SMP_MAP:
		return map_equal(a, b, numeric);
	}
	return false;
}

bool smpv_equal(const smp_value *a, const smp_value *b)
{
	return equal(a, b, false);
}

bool smpv_equal_numeric(const smp_value *a, const smp_value *b)
{
	return equal(a, b, true);
}

/* ---- public accessors ---- */

smp_type smp_value_type(const smp_value *v) { return v ? v->type : SMP_NULL; }
bool smp_value_bool(const smp_value *v) { return v && v->type == SMP_BOOL && v->u.b; }
int64_t smp_value_int(const smp_value *v) { return v && v->type == SMP_INT ? v->u.i : 0; }

double smp_value_float(const smp_value *v)
{
	if (v && v->type == SMP_FLOAT)
		return v->u.f;
	if (v && v->type == SMP_INT)
		return (double)v->u.i;
	return 0.0;
}

const char *smp_value_string(const smp_value *v, size_t *len)
{
	if (!v || v->type != SMP_STRING) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = v->u.s.len;
	return v->u.s.ptr;
}

size_t smp_value_len(const smp_value *v)
{
	if (!v)
		return 0;
	if (v->type == SMP_LIST)
		return v->u.list.len;
	if (v->type == SMP_MAP)
		return v->u.map.len;
	return 0;
}

const smp_value *smp_list_get(const smp_value *list, size_t i)
{
	return list && list->type == SMP_LIST && i < list->u.list.len ? list->u.list.items[i]
	                                                               : NULL;
}

const char *smp_map_key(const smp_value *map, size_t i, size_t *len)
{
	if (!map || map->type != SMP_MAP || i >= map->u.map.len) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = map->u.map.items[i].klen;
	return map->u.map.items[i].key;
}

const smp_value *smp_map_value(const smp_value *map, size_t i)
{
	return map && map->type == SMP_MAP && i < map->u.map.len ? map->u.map.items[i].val
	                                                          : NULL;
}

const smp_value *smp_map_get(const smp_value *map, const char *key)
{
	return key ? smpv_map_get(map, key) : NULL;
}

const smp_value *smp_value_at(const smp_value *v, const char *path)
{
	const char *p = path;

	if (!path)
		return v;
	while (v && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		ptrdiff_t i = smpv_map_find(v, p, n);
		v = i < 0 ? NULL : v->u.map.items[i].val;
		p += n;
		if (*p == '.')
			p++;
	}
	return v;
}

unsigned smp_value_line(const smp_value *v) { return v ? v->line : 0; }
unsigned smp_value_column(const smp_value *v) { return v ? v->col : 0; }

bool smp_value_equal(const smp_value *a, const smp_value *b) { return smpv_equal(a, b); }

void smp_free(void *ptr) { free(ptr); }

const char *smp_version(void) { return SMP_VERSION_STRING; }

/* ---- errors ---- */

const char *smp_strerror(int code)
{
	switch (code) {
	case SMP_OK: return "success";
	case SMP_EINVAL: return "invalid argument";
	case SMP_EPARSE: return "invalid document";
	case SMP_EPATCH: return "invalid patch";
	case SMP_ESCHEMA: return "schema error";
	case SMP_ECONFLICT: return "conflict";
	case SMP_EPRECOND: return "precondition failed";
	case SMP_ENOMEM: return "out of memory";
	case SMP_ELIMIT: return "limit exceeded";
	case SMP_EIO: return "input/output error";
	case SMP_EINVALOBJ: return "invalid object";
	case SMP_EINTERNAL: return "internal error";
	}
	return "unknown error";
}

static void copy_trunc(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size)
		n = size - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

int smp_err_setv(smp_error *err, int code, const char *file, unsigned line,
                 unsigned col, const char *path, const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	/* One line: a message never carries a newline. */
	for (char *p = err->message; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	copy_trunc(err->file, sizeof(err->file), file);
	err->line = line;
	err->column = col;
	copy_trunc(err->path, sizeof(err->path), path);
	return code;
}

int smp_err_set(smp_error *err, int code, const char *file, unsigned line,
                unsigned col, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	smp_err_setv(err, code, file, line, col, path, fmt, ap);
	va_end(ap);
	return code;
}

int smp__err(smp_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	smp_err_setv(err, code, NULL, 0, 0, NULL, fmt, ap);
	va_end(ap);
	return code;
}

int smp__err_path(smp_error *err, int code, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	smp_err_setv(err, code, NULL, 0, 0, path, fmt, ap);
	va_end(ap);
	return code;
}

/* snprintf at buf+*n (clamped to size); *n counts what was wanted. */
static void fmt_append(char *buf, size_t size, size_t *n, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static void fmt_append(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;
	size_t at = *n < size ? *n : size;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(size > at ? buf + at : NULL, size > at ? size - at : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n += (size_t)k;
}

/* No allocation: an out-of-memory error must still be printable. */
void smp_error_prefix(smp_error *err, const char *prefix)
{
	size_t pl, ml, cap;

	if (!err || !prefix)
		return;
	pl = strlen(prefix);
	ml = strnlen(err->message, sizeof(err->message) - 1);
	cap = sizeof(err->message) - 1;
	if (pl >= cap)
		return;
	if (pl + ml > cap)
		ml = cap - pl;
	memmove(err->message + pl, err->message, ml);
	memcpy(err->message, prefix, pl);
	err->message[pl + ml] = '\0';
}

size_t smp_error_format(char *buf, size_t size, const smp_error *err)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	if (err->file[0]) {
		fmt_append(buf, size, &n, "%s", err->file);
		if (err->line) {
			fmt_append(buf, size, &n, ":%u", err->line);
			if (err->column)
				fmt_append(buf, size, &n, ":%u", err->column);
		}
		fmt_append(buf, size, &n, ": ");
	}
	fmt_append(buf, size, &n, "%s", err->message[0] ? err->message : smp_strerror(err->code));
	if (err->path[0] && !strstr(err->message, err->path))
		fmt_append(buf, size, &n, " (at %s)", err->path);
	return n;
}

/* ---- buffers ---- */

void smp_buf_init(smp_buf *b)
{
	b->ptr = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

void smp_buf_release(smp_buf *b)
{
	free(b->ptr);
	smp_buf_init(b);
}

/* The capacity that holds element n: *cap doubled (from first) until it
 * does; 0 on overflow. */
static size_t grown_cap(size_t cap, size_t n, size_t elem, size_t first)
{
	size_t ncap = cap ? cap : first;

	while (ncap <= n) {
		if (ncap > SIZE_MAX / 2)
			return 0;
		ncap *= 2;
	}
	return ncap > SIZE_MAX / elem ? 0 : ncap;
}

bool smp_grow_slow(void **arr, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t ncap;
	void *g;

	if (!(ncap = grown_cap(*cap, n, elem, first)) || !(g = realloc(*arr, ncap * elem)))
		return false;
	*arr = g;
	*cap = ncap;
	return true;
}

bool smp_grow_arena_slow(smp_arena *a, void **arr, size_t *cap, size_t n, size_t elem,
                         size_t first)
{
	size_t ncap;
	void *g;

	if (!(ncap = grown_cap(*cap, n, elem, first)) || !(g = smp_arena_alloc(a, ncap * elem)))
		return false;
	if (n)
		memcpy(g, *arr, n * elem);
	*arr = g;
	*cap = ncap;
	return true;
}

bool smp_buf_reserve(smp_buf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->len + extra + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;
		while (ncap < b->len + extra + 1) {
			if (ncap > SIZE_MAX / 2) {
				b->oom = true;
				return false;
			}
			ncap *= 2;
		}
		char *n = realloc(b->ptr, ncap);
		if (!n) {
			b->oom = true;
			return false;
		}
		b->ptr = n;
		b->cap = ncap;
	}
	return true;
}

void smp_buf_put(smp_buf *b, const char *s, size_t n)
{
	if (!smp_buf_reserve(b, n))
		return;
	if (n)
		memcpy(b->ptr + b->len, s, n);
	b->len += n;
	b->ptr[b->len] = '\0';
}

void smp_buf_puts(smp_buf *b, const char *s) { smp_buf_put(b, s, strlen(s)); }

void smp_buf_putc(smp_buf *b, char c)
{
	if (!smp_buf_reserve(b, 1))
		return;
	b->ptr[b->len++] = c;
	b->ptr[b->len] = '\0';
}

void smp_buf_printf(smp_buf *b, const char *fmt, ...)
{
	va_list ap, ap2;
	int n;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n >= 0 && smp_buf_reserve(b, (size_t)n)) {
		vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

char *smp_buf_detach(smp_buf *b, size_t *len)
{
	char *p;

	if (b->oom) {
		smp_buf_release(b);
		return NULL;
	}
	if (!b->ptr && !smp_buf_reserve(b, 0))
		return NULL;
	p = b->ptr;
	if (len)
		*len = b->len;
	smp_buf_init(b);
	return p;
}
