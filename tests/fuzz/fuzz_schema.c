/*
 * fuzz_schema.c - target (f): OpenAPI v2/v3 documents and CRD manifests.
 * Any bytes loaded as a schema; a failure carries a message and a
 * documented code; whatever loads can be walked (every field of every
 * definition, two levels deep, looked up by path), patched under (each
 * kind, a small strategic patch with directives) and stored (each kind, a
 * small object's stored form with the schema).
 */
#include "fuzz.h"
#include "schema/schema.h"

#include <string.h>

static void walk(const smp_schema *s)
{
	for (size_t i = 0; i < s->ndefs && i < 64; i++) {
		const smp_stype *t = s->defs[i].type;
		const smp_stype *found;
		smp_field_info fi;
		char path[512];

		FUZZ_CHECK(smp_schema_definition(&found, s, s->defs[i].name, NULL) == 0);
		for (uint32_t j = 0; j < t->nfields && j < 64; j++) {
			const smp_stype *ft = t->fields[j].type;

			snprintf(path, sizeof(path), "%s", t->fields[j].name);
			if (strchr(path, '.'))
				continue;
			smp_schema_field(&fi, t, path, NULL);
			for (uint32_t k = 0; ft->kind == SMP_SKIND_OBJECT && k < ft->nfields && k < 64;
			     k++) {
				snprintf(path, sizeof(path), "%s.%s", t->fields[j].name,
				         ft->fields[k].name);
				smp_schema_field(&fi, t, path, NULL);
			}
		}
	}
}

/* Patches a small object under each kind: the strategies the document
 * declared are exercised on lists, maps and directives. */
static void patch_kinds(const smp_schema *s, const smp_doc *ops)
{
	for (size_t i = 0; i < s->nkinds && i < 16; i++) {
		smp_patch_options o = SMP_PATCH_OPTIONS_INIT;
		smp_doc *out = NULL;
		smp_error err;
		int rc;

		o.stype = s->kinds[i].type;
		rc = smp_patch_apply(&out, smp_doc_root(ops, 0), smp_doc_root(ops, 1), &o, &err);
		if (rc)
			fuzz_check_error(rc, &err);
		smp_doc_free(out);
		smp_schema_kind_namespaced(s, "v1", s->kinds[i].kind, NULL);
	}
}

/* The stored form of a small object of each kind with the loaded schema
 * (apply/stored_crd.c: pruning, nulls, ObjectMeta, defaults): only
 * documented codes, and a result that is a map. */
static void store_kinds(const smp_schema *s, const smp_doc *ops)
{
	for (size_t i = 0; i < s->nkinds && i < 16; i++) {
		const smp_gvk_entry *k = &s->kinds[i];
		smp_stored_options o = SMP_STORED_OPTIONS_INIT;
		smp_doc *in = smp_doc_alloc(), *out = NULL;
		smp_value *obj, *av, *kind;
		smp_error err;
		char buf[512];
		int rc;

		FUZZ_CHECK(in != NULL);
		snprintf(buf, sizeof(buf), "%s%s%s", k->group, k->group[0] ? "/" : "", k->version);
		obj = smpv_copy(&in->arena, smp_doc_root(ops, 2));
		av = smpv_str(&in->arena, buf, strlen(buf));
		kind = smpv_str(&in->arena, k->kind, strlen(k->kind));
		FUZZ_CHECK(obj && av && kind && !smp_doc_push_root(in, obj));
		FUZZ_CHECK(!smpv_map_add_copy(&in->arena, obj, "apiVersion", 10, av) &&
		           !smpv_map_add_copy(&in->arena, obj, "kind", 4, kind));
		o.schema = s;
		rc = smp_stored_form(&out, obj, &o, &err);
		if (rc) {
			fuzz_check_error(rc, &err);
			FUZZ_CHECK(out == NULL);
			FUZZ_CHECK(rc == SMP_ELIMIT || rc == SMP_ENOMEM || rc == SMP_EINVALOBJ);
		} else {
			FUZZ_CHECK(smp_value_type(smp_doc_root(out, 0)) == SMP_MAP);
		}
		smp_doc_free(out);
		smp_doc_free(in);
	}
}

static const char ops_text[] =
	"{\"spec\":{\"items\":[{\"name\":\"a\",\"v\":1},{\"name\":\"b\"}],\"m\":{\"x\":1},"
	"\"s\":[\"x\",\"y\"]}}\n---\n"
	"{\"spec\":{\"items\":[{\"name\":\"b\",\"$patch\":\"delete\"},{\"name\":\"c\"}],"
	"\"$setElementOrder/items\":[{\"name\":\"c\"},{\"name\":\"a\"}],"
	"\"m\":{\"$patch\":\"replace\",\"y\":2},\"$deleteFromPrimitiveList/s\":[\"x\"],"
	"\"$retainKeys\":[\"items\",\"m\"]}}\n---\n"
	"{\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":null},\"bogus\":1,"
	"\"ownerReferences\":[{\"kind\":\"K\",\"controller\":null}]},\"spec\":{"
	"\"items\":[{\"name\":\"a\",\"v\":null},null],\"m\":{\"x\":null,\"y\":{}},"
	"\"s\":[\"x\",null],\"n\":null,\"template\":{\"apiVersion\":\"v1\","
	"\"metadata\":null}},\"status\":null,\"extra\":[1,{\"a\":1}]}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smp_schema *s = NULL;
	smp_doc *ops;
	smp_error err;
	int rc;

	rc = smp_schema_load(&s, (const char *)data, size, "fuzz", &err);
	if (rc) {
		fuzz_check_error(rc, &err);
		FUZZ_CHECK(s == NULL);
		FUZZ_CHECK(rc == SMP_EPARSE || rc == SMP_ESCHEMA || rc == SMP_ELIMIT ||
		           rc == SMP_ENOMEM);
		return 0;
	}
	walk(s);
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	po.format = SMP_FORMAT_YAML;
	if (smp_doc_parse(&ops, ops_text, sizeof(ops_text) - 1, &po, &err)) {
		fprintf(stderr, "ops_text: %s\n", err.message);
		abort();
	}
	patch_kinds(s, ops);
	store_kinds(s, ops);
	smp_doc_free(ops);
	smp_schema_free(s);
	return 0;
}
