/*
 * context.c - the state of one server-side apply call (ssa_ctx): its
 * scratch arena, where its error goes, and the out-of-memory report every
 * file of ssa/ makes through it. The lowest file of ssa/: it calls none of
 * the others.
 */
#include "ssa.h"

#include <stdlib.h>
#include <string.h>

void ssa_ctx_init(ssa_ctx *c, smp_error *err)
{
	memset(c, 0, sizeof(*c));
	smp_arena_init(&c->arena);
	c->err = err;
	c->null_value = smpv_null(&c->arena);
	if (!c->null_value)
		ssa_oom(c);
}

void ssa_ctx_release(ssa_ctx *c)
{
	smp_arena_release(&c->arena);
	free(c->lists);
	c->lists = NULL;
}

int ssa_oom(ssa_ctx *c)
{
	if (!c->rc)
		c->rc = smp_err_set(c->err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	return SMP_ENOMEM;
}
