/*
 * v3_equiv_test.c - the Kubernetes document rewritten as OpenAPI v3 (refs
 * under #/components/schemas/, property refs wrapped in allOf as the API
 * server's v3 documents do) loads to the same kinds, scopes and metadata for
 * every field of every definition as the built-in tables.
 */
#include "tutil.h"

/* Rewrites refs and wraps property refs that have siblings in allOf. */
static void to_v3(smp_arena *a, smp_value *v)
{
	if (v->type == SMP_LIST) {
		for (size_t i = 0; i < v->u.list.len; i++)
			to_v3(a, v->u.list.items[i]);
		return;
	}
	if (v->type != SMP_MAP)
		return;
	for (size_t i = 0; i < v->u.map.len; i++)
		to_v3(a, v->u.map.items[i].val);
	{
		ptrdiff_t r = smpv_map_find(v, "$ref", 4);
		const char *pre = "#/definitions/";
		smp_value *ref, *inner, *list;
		char buf[512];

		if (r < 0)
			return;
		ref = v->u.map.items[r].val;
		if (ref->type != SMP_STRING || strncmp(ref->u.s.ptr, pre, strlen(pre)) != 0)
			return;
		snprintf(buf, sizeof(buf), "#/components/schemas/%s", ref->u.s.ptr + strlen(pre));
		ref = smpv_str(a, buf, strlen(buf));
		if (v->u.map.len == 1) {
			v->u.map.items[r].val = ref;
			return;
		}
		inner = smpv_map(a, 1);
		smpv_map_add(a, inner, "$ref", 4, ref);
		list = smpv_list(a, 1);
		smpv_list_add(a, list, inner);
		v->u.map.items[r].key = "allOf";
		v->u.map.items[r].klen = 5;
		v->u.map.items[r].val = list;
	}
}

static void compare(const smp_stype *a, const smp_stype *b, const char *path, int depth)
{
	char da[1024], db[1024], sub[1024];

	t_describe(da, sizeof(da), a, SMP_SFLAG_OPENAPI_V3);
	t_describe(db, sizeof(db), b, SMP_SFLAG_OPENAPI_V3);
	if (strcmp(da, db) != 0) {
		fprintf(stderr, "%s:\n  v2 %s\n  v3 %s\n", path, da, db);
		failures++;
		return;
	}
	if (depth > 1)
		return;
	for (uint32_t i = 0; i < a->nfields; i++) {
		const smp_sfield *fa = &a->fields[i], *fb = &b->fields[i];

		snprintf(sub, sizeof(sub), "%s.%s", path, fa->name);
		CHECK_STR(fa->name, fb->name);
		CHECK(fa->strategy == fb->strategy);
		CHECK_STR(fa->merge_key, fb->merge_key);
		compare(fa->type, fb->type, sub, depth + 1);
	}
	if (a->elem && b->elem) {
		snprintf(sub, sizeof(sub), "%s[]", path);
		compare(a->elem, b->elem, sub, depth + 1);
	}
}

int main(void)
{
	const smp_schema *b = smp_schema_builtin();
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *text = NULL;
	size_t len = 0;
	smp_doc *doc = NULL;
	smp_schema *s = NULL;
	smp_error err;
	smp_value *root, *comp;
	ptrdiff_t i;
	int rc = t_parse_swagger(&doc);

	if (rc)
		return rc;
	root = doc->roots[0];
	i = smpv_map_find(root, "definitions", 11);
	CHECK(i >= 0);
	if (i < 0)
		return 1;
	to_v3(&doc->arena, root->u.map.items[i].val);
	comp = smpv_map(&doc->arena, 1);
	smpv_map_add(&doc->arena, comp, "schemas", 7, root->u.map.items[i].val);
	root->u.map.items[i].key = "components";
	root->u.map.items[i].klen = 10;
	root->u.map.items[i].val = comp;
	i = smpv_map_find(root, "swagger", 7);
	CHECK(i >= 0);
	root->u.map.items[i].key = "openapi";
	root->u.map.items[i].klen = 7;
	root->u.map.items[i].val = smpv_str(&doc->arena, "3.0.0", 5);
	CHECK(smp_print(&text, &len, root, &po, &err) == 0);
	CHECK(strstr(text, "\"allOf\":[{\"$ref\":\"#/components/schemas/") != NULL);
	if (smp_schema_load(&s, text, len, "v3.json", &err)) {
		fprintf(stderr, "v3 load: %s (at %s)\n", err.message, err.path);
		return 1;
	}
	CHECK(s->ndefs == b->ndefs);
	for (size_t k = 0; k < s->ndefs && k < b->ndefs; k++) {
		CHECK_STR(s->defs[k].name, b->defs[k].name);
		compare(b->defs[k].type, s->defs[k].type, b->defs[k].name, 0);
		CHECK((s->defs[k].type->flags & SMP_SFLAG_OPENAPI_V3) != 0);
	}
	/* Every kind of the document is in the tables, the same; the tables'
	 * other kinds are the legacy ones (see gen_tables.c), whose types are
	 * definitions of the document. */
	{
		size_t nlegacy = 0;

		for (size_t k = 0; k < b->nkinds; k++) {
			const smp_gvk_entry *e = &b->kinds[k], *f;
			char av[256];
			const smp_stype *d = NULL;

			snprintf(av, sizeof(av), "%s%s%s", e->group, e->group[0] ? "/" : "",
			         e->version);
			f = smp_schema_find_kind(s, av, e->kind, true);
			if (!f) {
				nlegacy++;
				CHECK(strstr(e->version, "alpha") || strstr(e->version, "beta"));
				CHECK(smp_schema_definition(&d, s, e->type->name, &err) == 0);
				continue;
			}
			CHECK_STR(f->type->name, e->type->name);
			CHECK(f->namespaced == e->namespaced);
		}
		CHECK(nlegacy + s->nkinds == b->nkinds);
		CHECK(nlegacy == 73);
	}
	printf("%zu definitions and %zu kinds identical in v2 and v3\n", s->ndefs, s->nkinds);
	smp_free(text);
	smp_schema_free(s);
	smp_doc_free(doc);
	return failures ? 1 : 0;
}
