/*
 * walk_test.c - checks the built-in tables against the swagger document,
 * read independently of the loader: every definition with
 * x-kubernetes-group-version-kind is reachable by each of its GVKs, every
 * property with x-kubernetes-patch-strategy has that strategy and merge key,
 * and every list type / map keys / map type written on a property is there.
 */
#include "tutil.h"

static unsigned strategy_bits(const char *s)
{
	unsigned bits = 0;
	char buf[64];
	char *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "merge") == 0)
			bits |= SMP_STRATEGY_MERGE;
		else if (strcmp(tok, "replace") == 0)
			bits |= SMP_STRATEGY_REPLACE;
		else if (strcmp(tok, "retainKeys") == 0)
			bits |= SMP_STRATEGY_RETAIN_KEYS;
		else
			return 0xff;
	}
	return bits;
}

static const char *str_at(const smp_value *m, const char *key)
{
	return smp_value_string(smp_map_get(m, key), NULL);
}

int main(void)
{
	const smp_schema *b = smp_schema_builtin();
	smp_doc *doc = NULL;
	smp_error err;
	const smp_value *defs;
	size_t ngvk_defs = 0, nstrategic = 0, nlisttype = 0;
	int rc = t_parse_swagger(&doc);

	if (rc)
		return rc;
	defs = smp_map_get(smp_doc_root(doc, 0), "definitions");
	CHECK(smp_value_type(defs) == SMP_MAP);
	for (size_t i = 0; i < smp_value_len(defs); i++) {
		const char *name = smp_map_key(defs, i, NULL);
		const smp_value *def = smp_map_value(defs, i);
		const smp_value *gvks = smp_map_get(def, "x-kubernetes-group-version-kind");
		const smp_value *props = smp_map_get(def, "properties");
		const smp_stype *t = NULL;

		if (smp_schema_definition(&t, b, name, &err) || !t) {
			fprintf(stderr, "definition %s missing\n", name);
			failures++;
			continue;
		}
		if (gvks)
			ngvk_defs++;
		for (size_t j = 0; j < smp_value_len(gvks); j++) {
			const smp_value *g = smp_list_get(gvks, j);
			const char *group = str_at(g, "group"), *version = str_at(g, "version");
			const char *kind = str_at(g, "kind");
			char av[256];
			const smp_stype *k = NULL;

			snprintf(av, sizeof(av), "%s%s%s", group && *group ? group : "",
			         group && *group ? "/" : "", version);
			if (smp_schema_kind(&k, b, av, kind, &err) || !k) {
				fprintf(stderr, "kind %s %s missing\n", av, kind);
				failures++;
			} else if (strcmp(k->name, name) != 0 && gvks && smp_value_len(gvks) == 1) {
				fprintf(stderr, "kind %s %s is %s, expected %s\n", av, kind, k->name, name);
				failures++;
			}
		}
		for (size_t j = 0; j < smp_value_len(props); j++) {
			const char *pname = smp_map_key(props, j, NULL);
			const smp_value *p = smp_map_value(props, j);
			const char *ps = str_at(p, "x-kubernetes-patch-strategy");
			const char *mk = str_at(p, "x-kubernetes-patch-merge-key");
			const char *lt = str_at(p, "x-kubernetes-list-type");
			const char *mt = str_at(p, "x-kubernetes-map-type");
			const smp_value *keys = smp_map_get(p, "x-kubernetes-list-map-keys");
			const smp_sfield *f = smp_stype_field(t, pname, strlen(pname));

			if (!f) {
				fprintf(stderr, "%s.%s missing\n", name, pname);
				failures++;
				continue;
			}
			if (ps) {
				nstrategic++;
				if (f->strategy != strategy_bits(ps)) {
					fprintf(stderr, "%s.%s: strategy %u, document says %s\n", name,
					        pname, f->strategy, ps);
					failures++;
				}
			} else {
				CHECK(f->strategy == 0);
			}
			if (!(mk == f->merge_key || (mk && f->merge_key && !strcmp(mk, f->merge_key)))) {
				fprintf(stderr, "%s.%s: merge key %s, document says %s\n", name, pname,
				        f->merge_key ? f->merge_key : "(none)", mk ? mk : "(none)");
				failures++;
			}
			if (lt) {
				nlisttype++;
				CHECK_STR(f->type->list_type, lt);
			}
			if (mt)
				CHECK_STR(f->type->map_type, mt);
			for (size_t k = 0; k < smp_value_len(keys); k++)
				CHECK(f->type->list_map_keys &&
				      !strcmp(f->type->list_map_keys[k],
				              smp_value_string(smp_list_get(keys, k), NULL)));
		}
	}
	printf("%zu kinds' definitions, %zu strategic fields, %zu list types checked\n",
	       ngvk_defs, nstrategic, nlisttype);
	CHECK(ngvk_defs == 193);
	CHECK(nstrategic == 72);
	smp_doc_free(doc);
	return check_status();
}
