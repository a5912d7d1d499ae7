/*
 * schemas.h - the schemas the merge targets patch under, chosen by a
 * selector byte: the built-in kind named by the target itself, a handful of
 * built-in kinds, and a small test schema of our own in the shape of the
 * reference's test type (lists merged by a key, lists of scalars merged,
 * replaced lists, maps, retainKeys), loaded once per process.
 */
#ifndef SMP_TESTS_FUZZ_SCHEMAS_H
#define SMP_TESTS_FUZZ_SCHEMAS_H

#include "fuzz.h"

/* Written for these tests (not taken from elsewhere): every patch strategy
 * the engine knows, on one type that refers to itself. */
static const char fuzz_item_schema[] =
	"{\"swagger\":\"2.0\",\"info\":{\"title\":\"fuzz\",\"version\":\"1\"},\"paths\":{},"
	"\"definitions\":{\"item\":{\"type\":\"object\",\"properties\":{"
	"\"name\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"},"
	"\"count\":{\"type\":\"integer\"},\"port\":{\"type\":\"integer\"},"
	"\"size\":{\"type\":\"string\",\"format\":\"int-or-string\"},"
	"\"keyed\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/item\"},"
	"\"x-kubernetes-patch-strategy\":\"merge\",\"x-kubernetes-patch-merge-key\":\"name\"},"
	"\"byPort\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/item\"},"
	"\"x-kubernetes-patch-strategy\":\"merge\",\"x-kubernetes-patch-merge-key\":\"port\"},"
	"\"plain\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/item\"}},"
	"\"ints\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"},"
	"\"x-kubernetes-patch-strategy\":\"merge\"},"
	"\"words\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
	"\"labels\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
	"\"child\":{\"$ref\":\"#/definitions/item\"},"
	"\"retained\":{\"$ref\":\"#/definitions/item\","
	"\"x-kubernetes-patch-strategy\":\"retainKeys\"},"
	"\"retainedList\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/item\"},"
	"\"x-kubernetes-patch-strategy\":\"merge,retainKeys\","
	"\"x-kubernetes-patch-merge-key\":\"name\"},"
	"\"replaced\":{\"$ref\":\"#/definitions/item\","
	"\"x-kubernetes-patch-strategy\":\"replace\"},"
	"\"anything\":{}"
	"}}}}";

/* Loaded on first use and kept for the life of the process. */
static const smp_stype *fuzz_item_type(void)
{
	static smp_schema *s;
	const smp_stype *t = NULL;
	smp_error err;

	if ((!s && smp_schema_load(&s, fuzz_item_schema, sizeof(fuzz_item_schema) - 1,
	                           "fuzz-item", &err)) ||
	    smp_schema_definition(&t, s, "item", &err)) {
		fprintf(stderr, "fuzz schema: %s\n", err.message);
		abort();
	}
	return t;
}

/* sel % 8: 0 the kind the document names (NULL stype), 1-2 the test type,
 * 3-7 built-in kinds. */
static const smp_stype *fuzz_pick_type(uint8_t sel)
{
	static const char *const kinds[][2] = {
		{"v1", "Pod"}, {"apps/v1", "Deployment"}, {"v1", "Service"},
		{"v1", "ConfigMap"}, {"apps/v1", "StatefulSet"},
	};
	const smp_stype *t = NULL;
	unsigned k = sel % 8u;

	if (k == 0)
		return NULL;
	if (k <= 2)
		return fuzz_item_type();
	if (smp_schema_kind(&t, smp_schema_builtin(), kinds[k - 3][0], kinds[k - 3][1], NULL))
		abort();
	return t;
}

#endif
