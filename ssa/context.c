/*
 * context.c - the state of one server-side apply call (ssa_ctx): its
 * scratch arena, where its error goes, and the out-of-memory report every
 * file of ssa/ makes through it; and the cache (smp_ssa_cache) that a
 * caller making many calls keeps between them. The lowest file of ssa/:
 * it calls none of the others.
 */
#include "ssa.h"

#include <stdlib.h>
#include <string.h>

/* The scratch memory a cache keeps from one call to the next: enough for
 * the usual object, not a huge one's. */
#define SPARE_MAX ((size_t)8 << 20)

smp_ssa_cache *smp_ssa_cache_new(void)
{
	smp_ssa_cache *k = calloc(1, sizeof(*k));

	if (k) {
		smp_arena_init(&k->types);
		smp_arena_init(&k->spare);
	}
	return k;
}

void smp_ssa_cache_free(smp_ssa_cache *k)
{
	if (!k)
		return;
	smp_arena_release(&k->types);
	smp_arena_release(&k->spare);
	free(k);
}

void ssa_ctx_init(ssa_ctx *c, smp_error *err, smp_ssa_cache *cache)
{
	memset(c, 0, sizeof(*c));
	c->cache = cache;
	if (cache) {
		c->arena = cache->spare; /* the call's, until it ends */
		smp_arena_init(&cache->spare);
		c->tarena = &cache->types;
		c->deduced = cache->deduced;
		c->untyped_atomic = cache->untyped_atomic;
	} else {
		smp_arena_init(&c->arena);
		c->tarena = &c->arena;
	}
	c->err = err;
	c->null_value = smpv_null(&c->arena);
	if (!c->null_value)
		ssa_oom(c);
}

void ssa_ctx_release(ssa_ctx *c)
{
	if (c->cache) {
		smp_arena_reset(&c->arena, SPARE_MAX);
		c->cache->spare = c->arena;
	} else {
		smp_arena_release(&c->arena);
	}
	smp_arena_init(&c->arena);
	free(c->lists);
	c->lists = NULL;
}

int ssa_oom(ssa_ctx *c)
{
	if (!c->rc)
		c->rc = smp_err_set(c->err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	return SMP_ENOMEM;
}
