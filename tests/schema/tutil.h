/*
 * tutil.h - small helpers shared by the schema tests (CHECK is ../check.h):
 * the reference data, loading schemas, describing types.
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

/* Parses the Kubernetes swagger document of the reference data directory
 * into *doc. Returns 0; SKIP, saying so, when the data is not available;
 * 1, saying why, when the document does not parse. */
static inline int t_parse_swagger(smp_doc **doc)
{
	const char *dir = t_shared();
	char path[4096];
	smp_error err;

	if (!dir) {
		fprintf(stderr, "SKIP: SMP_SHARED_DIR with the reference data is not available\n");
		return SKIP;
	}
	snprintf(path, sizeof(path), "%s/openapi/kubernetes-1.36.swagger.json", dir);
	if (smp_doc_parse_file(doc, path, NULL, &err)) {
		fprintf(stderr, "%s: %s\n", path, err.message);
		return 1;
	}
	return 0;
}

/* Loads the schema file dir/sub/name; NULL, with the error printed and one
 * failure counted, when it does not load. */
static inline smp_schema *t_load_file(const char *dir, const char *sub, const char *name)
{
	char path[4096], msg[2048];
	smp_schema *s = NULL;
	smp_error err;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	if (smp_schema_load_file(&s, path, &err)) {
		smp_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "loading %s: %s\n", path, msg);
		failures++;
		return NULL;
	}
	return s;
}

/* Loads the schema document text of len bytes, named name in errors; NULL,
 * one failure counted, when it does not load. */
static inline smp_schema *t_load_text(const char *text, size_t len, const char *name)
{
	smp_schema *s = NULL;
	smp_error err;
	int rc = smp_schema_load(&s, text, len, name, &err);

	CHECK(rc == 0, "%s: %s", name, err.message);
	return s;
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
