/*
 * load_test.c - the conformance schemas (OpenAPI v2 and v3) load and give
 * the same metadata for every field; the Go-struct quirks are represented
 * as schema.h documents.
 */
#include "tutil.h"

static smp_schema *load(const char *dir, const char *file)
{
	return t_load_file(dir, "conformance/schemas", file);
}

/* Walks a type and everything below it (named types once), comparing the
 * two schemas' views: every field's strategy, merge key and type. */
static void compare(const smp_stype *a, const smp_stype *b, const char *path, int depth)
{
	char da[1024], db[1024], sub[1024];

	t_describe(da, sizeof(da), a, SMP_SFLAG_OPENAPI_V3);
	t_describe(db, sizeof(db), b, SMP_SFLAG_OPENAPI_V3);
	if (strcmp(da, db) != 0) {
		fprintf(stderr, "%s: v2 %s\n%s: v3 %s\n", path, da, path, db);
		failures++;
		return;
	}
	if (depth > 3)
		return;
	for (uint32_t i = 0; i < a->nfields; i++) {
		const smp_sfield *fa = &a->fields[i], *fb = &b->fields[i];

		snprintf(sub, sizeof(sub), "%s.%s", path, fa->name);
		CHECK_STR(fa->name, fb->name);
		if (fa->strategy != fb->strategy)
			fprintf(stderr, "%s: strategy %u vs %u\n", sub, fa->strategy, fb->strategy),
			failures++;
		CHECK_STR(fa->merge_key, fb->merge_key);
		compare(fa->type, fb->type, sub, depth + 1);
	}
	if (a->elem && b->elem) {
		snprintf(sub, sizeof(sub), "%s[]", path);
		compare(a->elem, b->elem, sub, depth + 1);
	}
}

static const smp_sfield *field(const smp_stype *t, const char *name)
{
	const smp_sfield *f = smp_stype_field(t, name, strlen(name));

	if (!f) {
		fprintf(stderr, "no field %s\n", name);
		failures++;
	}
	return f;
}

static void check_merge_item(const smp_schema *s, bool v3)
{
	const smp_stype *mi = NULL, *rk = NULL;
	const smp_sfield *f;
	smp_error err;

	CHECK(smp_schema_kind(&mi, s, "fake-group/some-version", "mergeItem", &err) == 0);
	CHECK(smp_schema_definition(&rk, s, "retainKeysMergeItem", &err) == 0);
	if (!mi || !rk)
		return;
	CHECK(mi->kind == SMP_SKIND_OBJECT && mi->nfields == 13);
	CHECK_STR(mi->name, "mergeItem");
	if ((f = field(mi, "mergingList"))) {
		CHECK(f->strategy == SMP_STRATEGY_MERGE);
		CHECK_STR(f->merge_key, "name");
		CHECK(f->type->kind == SMP_SKIND_LIST && f->type->elem == mi);
		CHECK(f->type->name == NULL);
	}
	if ((f = field(mi, "nonMergingList")))
		CHECK(f->strategy == 0 && !f->merge_key && f->type->elem == mi);
	if ((f = field(mi, "mergingIntList"))) {
		CHECK(f->strategy == SMP_STRATEGY_MERGE && !f->merge_key);
		CHECK(f->type->elem->kind == SMP_SKIND_PRIMITIVE);
		CHECK_STR(f->type->elem->type_name, "integer");
		CHECK_STR(f->type->elem->format, "int32");
	}
	/* A reference with patch metadata, used as a list in the data. */
	if ((f = field(mi, "mergeItemPtr"))) {
		CHECK(f->type == mi);
		CHECK(f->strategy == SMP_STRATEGY_MERGE);
		CHECK_STR(f->merge_key, "name");
	}
	if ((f = field(mi, "simpleMap"))) {
		CHECK(f->type->kind == SMP_SKIND_MAP);
		CHECK(f->type->elem->kind == SMP_SKIND_PRIMITIVE);
		CHECK(!(f->type->flags & SMP_SFLAG_NO_PROPERTIES));
	}
	if ((f = field(mi, "replacingItem"))) {
		CHECK(f->strategy == SMP_STRATEGY_REPLACE);
		CHECK_STR(f->type->name, "io.k8s.apimachinery.pkg.runtime.RawExtension");
		CHECK(f->type->kind == SMP_SKIND_OBJECT);
	}
	if ((f = field(mi, "retainKeysMap"))) {
		CHECK(f->strategy == SMP_STRATEGY_RETAIN_KEYS);
		CHECK(f->type == rk);
	}
	if ((f = field(mi, "retainKeysMergingList"))) {
		CHECK(f->strategy == (SMP_STRATEGY_MERGE | SMP_STRATEGY_RETAIN_KEYS));
		CHECK_STR(f->merge_key, "name");
	}
	/* No type: Arbitrary. v3 marks it so the engine can tell. */
	if ((f = field(mi, "jsonItem"))) {
		CHECK(f->type->kind == SMP_SKIND_ANY);
		CHECK(!!(f->type->flags & SMP_SFLAG_OPENAPI_V3) == v3);
	}
	/* Malformed ("additionalProperties": "object", no type): Arbitrary. */
	if ((f = field(rk, "simpleMap")))
		CHECK(f->type->kind == SMP_SKIND_ANY);
	CHECK(!smp_schema_kind_namespaced(s, "fake-group/some-version", "mergeItem", NULL));
}

int main(void)
{
	const char *dir = t_shared();
	smp_schema *v2, *v3, *p2, *p3, *strict;
	const smp_stype *a, *b;
	smp_error err;

	if (!dir) {
		fprintf(stderr, "SKIP: SMP_SHARED_DIR with the reference data is not available\n");
		return SKIP;
	}
	v2 = load(dir, "swagger-merge-item.json");
	v3 = load(dir, "swagger-merge-item-v3.json");
	strict = load(dir, "swagger-merge-item.strict.json");
	p2 = load(dir, "swagger-precision-item.json");
	p3 = load(dir, "swagger-precision-item-v3.json");
	if (v2 && v3) {
		check_merge_item(v2, false);
		check_merge_item(v3, true);
		for (size_t i = 0; i < v2->ndefs; i++) {
			CHECK(i < v3->ndefs);
			if (i >= v3->ndefs)
				break;
			CHECK_STR(v2->defs[i].name, v3->defs[i].name);
			compare(v2->defs[i].type, v3->defs[i].type, v2->defs[i].name, 0);
		}
		CHECK(v2->ndefs == 3 && v3->ndefs == 3);
		CHECK(v2->nkinds == 2 && v3->nkinds == 2);
	}
	if (v2 && strict) {
		for (size_t i = 0; i < v2->ndefs && i < strict->ndefs; i++)
			compare(v2->defs[i].type, strict->defs[i].type, v2->defs[i].name, 0);
	}
	if (p2 && p3) {
		CHECK(smp_schema_kind(&a, p2, "fake-group/some-version", "precisionItem", &err) == 0);
		CHECK(smp_schema_kind(&b, p3, "fake-group/some-version", "precisionItem", &err) == 0);
		if (a && b) {
			compare(a, b, "precisionItem", 0);
			CHECK(a->nfields == 5);
			CHECK_STR(smp_stype_field(a, "float64", 7)->type->format, "float64");
		}
	}
	smp_schema_free(v2);
	smp_schema_free(v3);
	smp_schema_free(strict);
	smp_schema_free(p2);
	smp_schema_free(p3);
	return check_status();
}
