/*
 * fuzz_test.c - random mutations of schema documents (types swapped, keys
 * renamed to schema keywords, $refs pointed elsewhere) load or fail
 * cleanly; whatever loads can be walked. Deterministic (fixed seed); the
 * sanitizer build is where it earns its keep.
 */
#include "tutil.h"

#include "../merge/rng.h"

static const char *const keys[] = {
	"$ref", "allOf", "type", "properties", "items", "additionalProperties", "format",
	"x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-list-type",
	"x-kubernetes-list-map-keys", "x-kubernetes-map-type", "x-kubernetes-int-or-string",
	"x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
	"x-kubernetes-group-version-kind", "definitions", "components", "schemas", "spec",
	"openAPIV3Schema", "versions",
};
static const char *const strs[] = {
	"#/definitions/mergeItem", "#/components/schemas/mergeItem", "#/definitions/nope",
	"#/components/schemas/retainKeysMergeItem", "object", "array", "string", "integer",
	"merge", "merge,retainKeys", "retainKeys", "replace", "bogus", "map", "set", "atomic",
	"int-or-string", "", "#/definitions/io.k8s.apimachinery.pkg.runtime.RawExtension",
};

typedef struct { smp_value **v; size_t n, cap; } vec;

static void collect(vec *out, smp_value *v)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 256;
		out->v = realloc(out->v, out->cap * sizeof(*out->v));
		if (!out->v)
			exit(3);
	}
	out->v[out->n++] = v;
	if (v->type == SMP_LIST)
		for (size_t i = 0; i < v->u.list.len; i++)
			collect(out, v->u.list.items[i]);
	else if (v->type == SMP_MAP)
		for (size_t i = 0; i < v->u.map.len; i++)
			collect(out, v->u.map.items[i].val);
}

static void mutate(smp_doc *doc, smp_value *v, vec *all)
{
	smp_arena *a = &doc->arena;
	const char *s;

	switch (pick(9)) {
	case 0: /* rename a key to a schema keyword */
		if (v->type == SMP_MAP && v->u.map.len) {
			smp_member *m = &v->u.map.items[pick((unsigned)v->u.map.len)];
			const char *k = keys[pick(sizeof(keys) / sizeof(keys[0]))];

			if (smpv_map_find(v, k, strlen(k)) < 0) {
				m->key = k;
				m->klen = strlen(k);
			}
		}
		break;
	case 1:
		s = strs[pick(sizeof(strs) / sizeof(strs[0]))];
		v->type = SMP_STRING;
		v->u.s.ptr = s;
		v->u.s.len = strlen(s);
		break;
	case 2:
		v->type = SMP_INT;
		v->u.i = (int64_t)pick(5) - 1;
		break;
	case 3:
		v->type = SMP_BOOL;
		v->u.b = pick(2);
		break;
	case 4:
		*v = *smpv_list(a, 0);
		break;
	case 5:
		*v = *smpv_map(a, 0);
		break;
	case 6: /* graft another node here (may create odd sharing, never cycles) */
	{
		smp_value *o = all->v[pick((unsigned)all->n)];

		*v = *smpv_copy(a, o);
		break;
	}
	case 7: /* add a keyword with a random string */
		if (v->type == SMP_MAP) {
			const char *k = keys[pick(sizeof(keys) / sizeof(keys[0]))];

			s = strs[pick(sizeof(strs) / sizeof(strs[0]))];
			if (smpv_map_find(v, k, strlen(k)) < 0)
				smpv_map_add(a, v, k, strlen(k), smpv_str(a, s, strlen(s)));
		}
		break;
	default:
		v->type = SMP_NULL;
		break;
	}
}

/* Walks a loaded schema: every field of every definition, two levels deep. */
static void walk(const smp_schema *s)
{
	for (size_t i = 0; i < s->ndefs; i++) {
		const smp_stype *t = s->defs[i].type;
		smp_field_info fi;
		char path[512];

		for (uint32_t j = 0; j < t->nfields; j++) {
			const smp_stype *ft = t->fields[j].type;

			snprintf(path, sizeof(path), "%s", t->fields[j].name);
			if (strchr(path, '.'))
				continue;
			smp_schema_field(&fi, t, path, NULL);
			for (uint32_t k = 0; ft->kind == SMP_SKIND_OBJECT && k < ft->nfields; k++) {
				snprintf(path, sizeof(path), "%s.%s", t->fields[j].name,
				         ft->fields[k].name);
				smp_schema_field(&fi, t, path, NULL);
			}
		}
	}
}

int main(void)
{
	const char *dir = t_shared();
	const char *seeds[] = {"swagger-merge-item-v3.json", "swagger-merge-item.strict.json",
	                       "swagger-precision-item.json"};
	unsigned loaded = 0, failed = 0;
	/* SMP_FUZZ_ITERS=N runs longer, for a hunt by hand. */
	int iters = getenv("SMP_FUZZ_ITERS") ? atoi(getenv("SMP_FUZZ_ITERS")) : 400;

	if (!dir) {
		fprintf(stderr, "SKIP: SMP_SHARED_DIR with the reference data is not available\n");
		return SKIP;
	}
	for (size_t sd = 0; sd < sizeof(seeds) / sizeof(seeds[0]); sd++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/conformance/schemas/%s", dir, seeds[sd]);
		for (int it = 0; it < iters; it++) {
			smp_doc *doc = NULL;
			smp_schema *s = NULL;
			smp_print_options po = SMP_PRINT_OPTIONS_INIT;
			smp_error err;
			char *text = NULL;
			size_t len = 0;
			vec all = {0};
			int nmut = 1 + (int)pick(4);

			if (smp_doc_parse_file(&doc, path, NULL, &err)) {
				fprintf(stderr, "%s: %s\n", path, err.message);
				return 1;
			}
			collect(&all, doc->roots[0]);
			for (int m = 0; m < nmut; m++)
				mutate(doc, all.v[1 + pick((unsigned)all.n - 1)], &all);
			free(all.v);
			if (smp_print(&text, &len, doc->roots[0], &po, &err) == 0) {
				int rc = smp_schema_load(&s, text, len, "fuzz.json", &err);

				if (rc == 0) {
					loaded++;
					walk(s);
				} else {
					failed++;
					CHECK(s == NULL);
					CHECK(rc == SMP_ESCHEMA || rc == SMP_EPARSE || rc == SMP_ELIMIT);
					CHECK(err.message[0] != '\0');
				}
				smp_schema_free(s);
				smp_free(text);
			}
			smp_doc_free(doc);
		}
	}
	printf("%u mutants loaded, %u rejected\n", loaded, failed);
	CHECK(loaded > 0 && failed > 0);
	return failures ? 1 : 0;
}
