/*
 * tutil.h - small helpers shared by the schema tests (CHECK is ../check.h).
 */
#ifndef SMP_TESTS_SCHEMA_TUTIL_H
#define SMP_TESTS_SCHEMA_TUTIL_H

#include "schema/schema.h"

#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIP 77

/* The reference data directory, or NULL (the test then skips). */
static inline const char *t_shared(void)
{
	const char *d = getenv("SMP_SHARED_DIR");
	static char buf[4096];
	FILE *f;

	if (!d || !*d)
		return NULL;
	snprintf(buf, sizeof(buf), "%s/openapi/kubernetes-1.36.swagger.json", d);
	f = fopen(buf, "rb");
	if (!f)
		return NULL;
	fclose(f);
	return d;
}

/* One line describing a type's own metadata (not its fields); `mask`
 * flags are left out. Named types print as their name only when `deep`
 * is false. */
static inline void t_describe(char *buf, size_t size, const smp_stype *t, unsigned mask)
{
	size_t n = 0;

	n += (size_t)snprintf(buf + n, size - n, "kind=%d flags=%u name=%s type=%s format=%s",
	                      t->kind, t->flags & ~mask, t->name ? t->name : "-",
	                      t->type_name ? t->type_name : "-", t->format ? t->format : "-");
	if (n < size)
		n += (size_t)snprintf(buf + n, size - n, " nfields=%u list=%s map=%s keys=",
		                      t->nfields, t->list_type ? t->list_type : "-",
		                      t->map_type ? t->map_type : "-");
	for (const char *const *k = t->list_map_keys; k && *k && n < size; k++)
		n += (size_t)snprintf(buf + n, size - n, "%s,", *k);
	if (t->elem && n < size)
		snprintf(buf + n, size - n, " elem=(%s %s %s)", t->elem->name ? t->elem->name : "-",
		         t->elem->type_name ? t->elem->type_name : "-",
		         t->elem->kind == SMP_SKIND_ANY ? "any" : "");
}

#endif
