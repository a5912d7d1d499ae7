/*
 * index.c - the lookups that keep list and map matching linear: a hash
 * index of values (merge keys, set elements), a hash index of a map's keys,
 * and binary search in maps whose keys are sorted.
 */
#include "merge/merge.h"

#include <string.h>

/* ---- value index ---- */

int smp_vindex_init(smp_vindex *ix, smp_arena *a, size_t max_entries)
{
	size_t cap = 8;

	while (cap < 2 * max_entries + 2)
		cap *= 2;
	ix->cap = cap;
	ix->n = 0;
	ix->max = max_entries;
	ix->dup = false;
	ix->slot = smp_arena_alloc(a, cap * sizeof(uint32_t));
	ix->ent = smp_arena_alloc(a, (max_entries + 1) * sizeof(*ix->ent));
	if (!ix->slot || !ix->ent)
		return SMP_ENOMEM;
	memset(ix->slot, 0, cap * sizeof(uint32_t));
	return 0;
}

static const smp_value null_value = {.type = SMP_NULL};

static uint64_t vmix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

/* Hash of a byte string, 8 bytes per step; a tail after at least one full
 * word is read as the (overlapping) last 8 bytes, so no byte loop there. */
static uint64_t shash(const char *key, size_t len)
{
	const unsigned char *p = (const unsigned char *)key;
	size_t n = len;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	if (n < 8) {
		w = (uint64_t)n << 56;
		for (size_t i = 0; i < n; i++)
			w ^= (uint64_t)p[i] << (8 * i);
		return vmix((h ^ vmix(w)) * 0x100000001b3ull);
	}
	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		h = (h ^ vmix(w)) * 0x100000001b3ull;
	}
	if (n) {
		memcpy(&w, p + n - 8, 8);
		h = (h ^ vmix(w + 1)) * 0x100000001b3ull;
	}
	return vmix(h);
}

/* Merge keys are nearly always strings or integers: hash those 8 bytes per
 * step (the generic smpv_hash takes one byte per step); anything else goes
 * to smpv_hash. Values of different types are never equal, so mixing the
 * hash functions by type keeps "equal => same hash". */
static uint64_t vhash(const smp_value *k)
{
	if (k->type == SMP_STRING)
		return shash(k->u.s.ptr, k->u.s.len);
	if (k->type == SMP_INT)
		return vmix((uint64_t)k->u.i * 0x9e3779b97f4a7c15ull + 4);
	return smpv_hash(k);
}

static bool vequal(const smp_value *a, const smp_value *b)
{
	if (a->type == SMP_STRING && b->type == SMP_STRING)
		return a->u.s.len == b->u.s.len && memcmp(a->u.s.ptr, b->u.s.ptr, a->u.s.len) == 0;
	return smpv_equal(a, b);
}

uint64_t smp_vindex_hash(const smp_value *key)
{
	return vhash(key ? key : &null_value);
}

void smp_vindex_add(smp_vindex *ix, const smp_value *key, size_t pos)
{
	smp_vindex_add_h(ix, key, smp_vindex_hash(key), pos);
}

void smp_vindex_add_h(smp_vindex *ix, const smp_value *key, uint64_t h, size_t pos)
{
	size_t s;

	if (!key)
		key = &null_value;
	s = h & (ix->cap - 1);
	while (ix->slot[s]) {
		const struct smp_vindex_ent *e = &ix->ent[ix->slot[s] - 1];
		if (e->hash == h && vequal(e->key, key)) {
			ix->dup = true;
			return;
		}
		s = (s + 1) & (ix->cap - 1);
	}
	if (ix->n >= ix->max)
		return; /* callers size the index; never reached */
	ix->ent[ix->n].key = key;
	ix->ent[ix->n].pos = pos;
	ix->ent[ix->n].hash = h;
	ix->slot[s] = (uint32_t)(++ix->n);
}

static long vfind_h(const smp_vindex *ix, const smp_value *key, uint64_t h, size_t *entry)
{
	size_t s = h & (ix->cap - 1);

	while (ix->slot[s]) {
		const struct smp_vindex_ent *e = &ix->ent[ix->slot[s] - 1];
		if (e->hash == h && vequal(e->key, key)) {
			*entry = ix->slot[s] - 1;
			return (long)e->pos;
		}
		s = (s + 1) & (ix->cap - 1);
	}
	return -1;
}

static long vfind(const smp_vindex *ix, const smp_value *key, size_t *entry)
{
	return vfind_h(ix, key, vhash(key), entry);
}

long smp_vindex_find_h(const smp_vindex *ix, const smp_value *key, uint64_t h)
{
	size_t e;

	return vfind_h(ix, key ? key : &null_value, h, &e);
}

long smp_vindex_find(const smp_vindex *ix, const smp_value *key)
{
	size_t e;

	return vfind(ix, key ? key : &null_value, &e);
}

long smp_vindex_find_next(const smp_vindex *ix, const smp_value *key, size_t *hint)
{
	size_t e = *hint;
	long r;

	if (!key)
		key = &null_value;
	/* Without duplicates an equal key at the hinted entry is the answer. */
	if (!ix->dup && e < ix->n && vequal(ix->ent[e].key, key)) {
		*hint = e + 1;
		return (long)ix->ent[e].pos;
	}
	r = vfind(ix, key, &e);
	if (r >= 0)
		*hint = e + 1;
	return r;
}

/* ---- map key index ---- */

#define KINDEX_LINEAR 16

/* A slot holds the entry number + 1 (low 32 bits; 0 = empty) and the high
 * half of the key's hash, compared before the key is touched. */
static void kindex_insert(smp_kindex *ix, size_t i)
{
	const smp_member *e = &ix->map->u.map.items[i];
	uint64_t h = shash(e->key, e->klen), tag = h >> 32;
	size_t s = h & (ix->cap - 1);

	while (ix->slot[s]) {
		if ((ix->slot[s] >> 32) == tag) {
			const smp_member *o = &ix->map->u.map.items[(uint32_t)ix->slot[s] - 1];
			if (o->klen == e->klen && memcmp(o->key, e->key, e->klen) == 0)
				ix->dup = true;
		}
		s = (s + 1) & (ix->cap - 1);
	}
	ix->slot[s] = (tag << 32) | ((uint64_t)i + 1);
}

static int kindex_rebuild(smp_kindex *ix)
{
	size_t cap = 64;
	const smp_value *m = ix->map;

	/* Load at most 1/2 (smp_kindex_added rebuilds beyond): the tags keep
	 * probes short, and a smaller table stays in cache. */
	while (cap < 2 * m->u.map.len + 2)
		cap *= 2;
	ix->slot = smp_arena_alloc(ix->arena, cap * sizeof(*ix->slot));
	if (!ix->slot) {
		ix->cap = 0;
		return SMP_ENOMEM;
	}
	memset(ix->slot, 0, cap * sizeof(*ix->slot));
	ix->cap = cap;
	ix->dup = false;
	for (size_t i = 0; i < m->u.map.len; i++)
		kindex_insert(ix, i);
	return 0;
}

int smp_kindex_init(smp_kindex *ix, smp_arena *a, const smp_value *map)
{
	ix->map = map;
	ix->arena = a;
	ix->slot = NULL;
	ix->cap = 0;
	ix->dup = false;
	if (map && map->type == SMP_MAP && map->u.map.len > KINDEX_LINEAR)
		return kindex_rebuild(ix);
	return 0;
}

int smp_kindex_added(smp_kindex *ix)
{
	const smp_value *m = ix->map;
	size_t i = m->u.map.len - 1;

	if (!ix->cap) {
		if (m->u.map.len > KINDEX_LINEAR)
			return kindex_rebuild(ix);
		return 0;
	}
	if (2 * m->u.map.len > ix->cap)
		return kindex_rebuild(ix);
	kindex_insert(ix, i);
	return 0;
}

long smp_kindex_find(const smp_kindex *ix, const char *key, size_t klen)
{
	const smp_value *m = ix->map;

	if (!m || m->type != SMP_MAP)
		return -1;
	if (!ix->cap)
		return (long)smpv_map_find(m, key, klen);
	uint64_t h = shash(key, klen), tag = h >> 32;
	size_t s = h & (ix->cap - 1);
	while (ix->slot[s]) {
		if ((ix->slot[s] >> 32) == tag) {
			size_t i = (uint32_t)ix->slot[s] - 1;
			const smp_member *e = &m->u.map.items[i];
			if (e->klen == klen && memcmp(e->key, key, klen) == 0)
				return (long)i;
		}
		s = (s + 1) & (ix->cap - 1);
	}
	return -1;
}


/* ---- value index in caller memory ---- */

static size_t vindex_cap(size_t max_entries)
{
	size_t cap = 8;

	while (cap < 2 * max_entries + 2)
		cap *= 2;
	return cap;
}

size_t smp_vindex_bytes(size_t max_entries)
{
	return vindex_cap(max_entries) * sizeof(uint32_t) +
	       (max_entries + 1) * sizeof(struct smp_vindex_ent);
}

void smp_vindex_init_at(smp_vindex *ix, void *mem, size_t max_entries)
{
	size_t cap = vindex_cap(max_entries);

	ix->cap = cap;
	ix->n = 0;
	ix->max = max_entries;
	ix->dup = false;
	/* entries first: they need 8-byte alignment, the slots only 4 */
	ix->ent = mem;
	ix->slot = (uint32_t *)((char *)mem + (max_entries + 1) * sizeof(*ix->ent));
	memset(ix->slot, 0, cap * sizeof(uint32_t));
}


/* ---- maps with sorted keys ---- */

static int kcmp(const smp_member *e, const char *key, size_t klen)
{
	int r = memcmp(e->key, key, e->klen < klen ? e->klen : klen);

	if (r)
		return r;
	return e->klen < klen ? -1 : e->klen > klen;
}

bool smp_keys_sorted(const smp_value *map, size_t n)
{
	const smp_member *it = map->u.map.items;

	for (size_t i = 1; i < n; i++)
		if (kcmp(&it[i - 1], it[i].key, it[i].klen) >= 0)
			return false;
	return true;
}

long smp_sorted_find(const smp_value *map, size_t n, const char *key, size_t klen, size_t hint)
{
	const smp_member *it = map->u.map.items;
	size_t lo = 0, hi = n, step = 1;

	if (hint < n && kcmp(&it[hint], key, klen) < 0) {
		/* Gallop forward from the hint: O(log distance). */
		lo = hint + 1;
		while (lo + step < n && kcmp(&it[lo + step], key, klen) < 0) {
			lo += step + 1;
			step *= 2;
		}
		hi = lo + step < n ? lo + step + 1 : n;
	} else if (hint < n) {
		hi = hint;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (kcmp(&it[mid], key, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= n || kcmp(&it[lo], key, klen) != 0)
		return -1;
	return (long)lo;
}
