/*
 * plan_summary.c - a plan's summary: how many objects each action takes
 * and how many fields change (smp_plan_summary*), as `smpatch apply
 * --summary` prints it and Python's Plan.summary() returns it.
 */
#include "plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[SMP_PLAN_SUMMARY_COUNT] = {
	"objects", "create", "configure", "unchanged", "prune", "conflict", "error", "changes",
};

const char *smp_plan_summary_key(size_t i)
{
	return i < SMP_PLAN_SUMMARY_COUNT ? keys[i] : NULL;
}

int smp_plan_summary_add(size_t *counts, size_t n, const smp_plan_entry *e, smp_error *err)
{
	static const size_t slot[] = {
		[SMP_ACTION_CREATE] = SMP_PLAN_SUMMARY_CREATE,
		[SMP_ACTION_CONFIGURE] = SMP_PLAN_SUMMARY_CONFIGURE,
		[SMP_ACTION_UNCHANGED] = SMP_PLAN_SUMMARY_UNCHANGED,
		[SMP_ACTION_PRUNE] = SMP_PLAN_SUMMARY_PRUNE,
		[SMP_ACTION_CONFLICT] = SMP_PLAN_SUMMARY_CONFLICT,
		[SMP_ACTION_ERROR] = SMP_PLAN_SUMMARY_ERROR,
	};
	smp_apply_action act;
	smp_doc *d = NULL;
	size_t k;
	int rc;

	if (!counts || !e || n > SMP_PLAN_SUMMARY_COUNT)
		return smp__err(err, SMP_EINVAL, "smp_plan_summary_add: bad arguments");
	if (smp_plan_entry_applyset_parent(e))
		return 0;
	act = smp_plan_entry_action(e);
	k = (size_t)act < sizeof(slot) / sizeof(slot[0]) ? slot[act] : SMP_PLAN_SUMMARY_ERROR;
	if (n > SMP_PLAN_SUMMARY_OBJECTS)
		counts[SMP_PLAN_SUMMARY_OBJECTS]++;
	if (k < n)
		counts[k]++;
	if (n <= SMP_PLAN_SUMMARY_CHANGES || act == SMP_ACTION_CONFLICT || act == SMP_ACTION_ERROR)
		return 0;
	if ((rc = smp_plan_entry_changes(&d, e, 0, err)))
		return rc;
	counts[SMP_PLAN_SUMMARY_CHANGES] += smp_value_len(smp_doc_root(d, 0));
	smp_doc_free(d);
	return 0;
}

int smp_plan_summary(const smp_plan *plan, size_t *counts, size_t n, smp_error *err)
{
	int rc;

	if (!plan || !counts || n > SMP_PLAN_SUMMARY_COUNT)
		return smp__err(err, SMP_EINVAL, "smp_plan_summary: bad arguments");
	memset(counts, 0, n * sizeof(*counts));
	for (size_t i = 0; i < smp_plan_count(plan); i++)
		if ((rc = smp_plan_summary_add(counts, n, smp_plan_entry_at(plan, i), err)))
			return rc;
	return 0;
}

int smp_plan_summary_line(char **out, size_t *len, const size_t *counts, smp_error *err)
{
	const size_t *c = counts;
	char buf[512];
	int n;

	if (out)
		*out = NULL;
	if (!out || !counts)
		return smp__err(err, SMP_EINVAL, "smp_plan_summary_line: bad arguments");
	n = snprintf(buf, sizeof(buf),
	             "%zu object%s: %zu to create, %zu to configure, %zu unchanged, %zu to prune, "
	             "%zu conflict%s, %zu error%s; %zu field%s changed",
	             c[SMP_PLAN_SUMMARY_OBJECTS], c[SMP_PLAN_SUMMARY_OBJECTS] == 1 ? "" : "s",
	             c[SMP_PLAN_SUMMARY_CREATE], c[SMP_PLAN_SUMMARY_CONFIGURE],
	             c[SMP_PLAN_SUMMARY_UNCHANGED], c[SMP_PLAN_SUMMARY_PRUNE],
	             c[SMP_PLAN_SUMMARY_CONFLICT], c[SMP_PLAN_SUMMARY_CONFLICT] == 1 ? "" : "s",
	             c[SMP_PLAN_SUMMARY_ERROR], c[SMP_PLAN_SUMMARY_ERROR] == 1 ? "" : "s",
	             c[SMP_PLAN_SUMMARY_CHANGES], c[SMP_PLAN_SUMMARY_CHANGES] == 1 ? "" : "s");
	if (n < 0 || (size_t)n >= sizeof(buf) || !(*out = malloc((size_t)n + 1)))
		return smp__err(err, SMP_ENOMEM, "out of memory");
	memcpy(*out, buf, (size_t)n + 1);
	if (len)
		*len = (size_t)n;
	return 0;
}
