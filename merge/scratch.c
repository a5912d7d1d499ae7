/*
 * scratch.c - scratch memory with marks: the merge's temporary arrays are
 * taken from growing chunks and given back by resetting to a mark.
 */
#include "merge/merge.h"

#include <stdlib.h>
#include <string.h>

/* ---- scratch memory with marks ---- */

struct smp_mscratch_chunk {
	smp_mscratch_chunk *next;
	size_t size;             /* bytes of data, a multiple of 8 */
	max_align_t data[];
};

#define SCRATCH_FIRST (64u << 10)
#define SCRATCH_MAX (1u << 20)

void smp_mscratch_init(smp_mscratch *s)
{
	s->first = s->cur = NULL;
	s->p = s->end = NULL;
}

void smp_mscratch_free(smp_mscratch *s)
{
	smp_mscratch_chunk *c = s->first;

	while (c) {
		smp_mscratch_chunk *next = c->next;
		free(c);
		c = next;
	}
	smp_mscratch_init(s);
}

static void scratch_use(smp_mscratch *s, smp_mscratch_chunk *c)
{
	s->cur = c;
	s->p = (char *)c->data;
	s->end = s->p + c->size;
}

void *smp_mscratch_alloc_slow(smp_mscratch *s, size_t n)
{
	smp_mscratch_chunk *c, *after = s->cur;
	size_t need, size;

	if (n > SIZE_MAX / 2)
		return NULL;
	need = (n + 7) & ~(size_t)7;
	if (s->cur && need <= (size_t)(s->end - s->p)) {
		void *r = s->p; /* exact fit */
		s->p += need;
		return r;
	}
	/* The chunks after cur are free (given back by a reset): take the
	 * next one if it is large enough. */
	if (after && after->next && after->next->size >= need) {
		scratch_use(s, after->next);
	} else {
		size = after ? after->size * 2 : SCRATCH_FIRST;
		if (size > SCRATCH_MAX)
			size = SCRATCH_MAX;
		if (size < need)
			size = need;
		if (size > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		if (after) {
			c->next = after->next;
			after->next = c;
		} else {
			c->next = s->first;
			s->first = c;
		}
		scratch_use(s, c);
	}
	void *r = s->p;
	s->p += need;
	return r;
}

void smp_mscratch_reset(smp_mscratch *s, smp_mmark m)
{
	if (!m.c) {
		/* Marked while empty: back to the start of the first chunk. */
		if (s->first)
			scratch_use(s, s->first);
		return;
	}
	s->cur = m.c;
	s->p = m.p;
	s->end = (char *)m.c->data + m.c->size;
}
