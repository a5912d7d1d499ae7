/*
 * plan_sink.c - where a plan's decided entries go: kept in the plan
 * (smp_plan_compute) or handed to the caller's callback and freed
 * (smp_plan_run).
 */
#include "plan_int.h"

#include <string.h>

int smp__plan_emit(smp_plan *p, plan_sink *sink, smp_plan_entry *e, bool keep)
{
	if (e->action == SMP_ACTION_ERROR || e->action == SMP_ACTION_CONFLICT)
		sink->failed++;
	if (!sink->fn) {
		if (!smp_grow((void **)&p->entries, &p->ecap, p->nentries, sizeof(*p->entries), 16)) {
			smp__plan_entry_release(e);
			return SMP_ENOMEM;
		}
		p->entries[p->nentries++] = *e;
		memset(e, 0, sizeof(*e));
		return 0;
	}
	sink->stop = sink->fn(e, sink->user);
	if (!keep)
		smp__plan_entry_release(e);
	return 0;
}
