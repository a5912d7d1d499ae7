/*
 * crd_test.c - CustomResourceDefinition manifests (YAML stream and JSON) as
 * schema sources: served versions become kinds, with list types and keys,
 * map types, int-or-string, preserved unknown fields, embedded resources,
 * and apiVersion/kind/metadata added to the root.
 */
#include "tutil.h"

static const smp_field_info *field(const smp_stype *root, const char *path)
{
	static smp_field_info fi;
	smp_error err;

	if (smp_schema_field(&fi, root, path, &err)) {
		fprintf(stderr, "%s: %s\n", path, err.message);
		failures++;
		memset(&fi, 0, sizeof(fi));
		fi.stype = &smp_stype_any;
	}
	return &fi;
}

static smp_schema *load(const char *dir, const char *name)
{
	return t_load_file(dir, "testdata/schema", name);
}

int main(int argc, char **argv)
{
	smp_schema *w, *g;
	const smp_stype *t = NULL, *meta = NULL;
	const smp_field_info *fi;
	smp_error err;
	bool known;

	if (argc != 2) {
		fprintf(stderr, "usage: schema_crd_test SOURCE_DIR\n");
		return 2;
	}
	w = load(argv[1], "widgets-crd.yaml");
	g = load(argv[1], "gizmos-crd.json");
	if (!w || !g)
		return 1;

	CHECK(w->nkinds == 2 && w->ndefs == 2);
	CHECK(smp_schema_kind(&t, w, "example.com/v1alpha1", "Widget", &err) == SMP_ESCHEMA);
	CHECK(smp_schema_kind(&t, w, "example.com/v1", "Widget", &err) == 0);
	CHECK(smp_schema_kind_namespaced(w, "example.com/v1", "Widget", &known) && known);
	CHECK_STR(smp_schema_kind_resource(w, "example.com/v1", "Widget"), "widgets");
	CHECK(!smp_schema_kind_namespaced(w, "example.com/v1", "Gadget", &known) && known);
	CHECK(smp_schema_definition(&t, w, "com.example.v1.Widget", &err) == 0);
	CHECK(smp_schema_kind(&t, w, "example.com/v1", "Widget", &err) == 0);
	if (!t)
		return 1;
	CHECK_STR(t->name, "com.example.v1.Widget");
	CHECK(t->flags & SMP_SFLAG_OPENAPI_V3);

	fi = field(t, "spec.parts");
	CHECK_STR(fi->type, "array");
	CHECK_STR(fi->list_type, "map");
	CHECK(fi->list_map_keys && !strcmp(fi->list_map_keys[0], "name") &&
	      !strcmp(fi->list_map_keys[1], "kind") && !fi->list_map_keys[2]);
	CHECK(fi->strategy == 0 && !fi->merge_key);
	fi = field(t, "spec.parts.count");
	CHECK_STR(fi->type, "integer");
	CHECK_STR(fi->format, "int32");
	CHECK_STR(field(t, "spec.tags")->list_type, "set");
	CHECK_STR(field(t, "spec.steps")->list_type, "atomic");
	fi = field(t, "spec.selector");
	CHECK_STR(fi->type, "map");
	CHECK_STR(fi->map_type, "atomic");
	fi = field(t, "spec.port");
	CHECK_STR(fi->type, "string");
	CHECK_STR(fi->format, "int-or-string");
	CHECK(fi->stype->flags & SMP_SFLAG_INT_OR_STRING);
	CHECK_STR(field(t, "spec.created")->format, "date-time");
	fi = field(t, "spec.extra");
	CHECK(fi->preserve_unknown);
	CHECK(fi->stype->kind == SMP_SKIND_MAP);
	CHECK_STR(field(t, "spec.extra.anything.below")->type, "any");
	/* Embedded resources get apiVersion, kind and metadata. */
	fi = field(t, "spec.template");
	CHECK(fi->preserve_unknown && (fi->stype->flags & SMP_SFLAG_EMBEDDED));
	CHECK(fi->stype->kind == SMP_SKIND_OBJECT);
	CHECK_STR(field(t, "spec.template.kind")->type, "string");
	CHECK_STR(field(t, "spec.template.metadata.labels")->type, "map");
	CHECK_STR(field(t, "spec.template.spec.whatever")->type, "any");
	/* The root gets them too, metadata being the built-in ObjectMeta. */
	CHECK(smp_schema_definition(&meta, smp_schema_builtin(),
	                            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", &err) == 0);
	CHECK(field(t, "metadata")->stype == meta);
	CHECK_STR(field(t, "metadata.finalizers")->list_type, "set");
	CHECK_STR(field(t, "apiVersion")->type, "string");
	CHECK_STR(field(t, "status.conditions")->list_type, "map");
	CHECK(smp_schema_field(&(smp_field_info){0}, t, "spec.nope", &err) == SMP_ESCHEMA);
	CHECK(strstr(err.message, "\"nope\"") != NULL);

	/* A preserve-unknown-fields root without properties. */
	CHECK(smp_schema_kind(&t, w, "example.com/v1", "Gadget", &err) == 0);
	if (t) {
		CHECK(t->kind == SMP_SKIND_OBJECT && (t->flags & SMP_SFLAG_PRESERVE_UNKNOWN));
		CHECK_STR(field(t, "spec.anything")->type, "any");
		CHECK(field(t, "metadata")->stype == meta);
	}

	/* JSON manifest, two served versions with different list types. */
	CHECK(g->nkinds == 2);
	CHECK(!smp_schema_kind_namespaced(g, "tools.example.org/v1", "Gizmo", &known) && known);
	CHECK(smp_schema_kind(&t, g, "tools.example.org/v1", "Gizmo", &err) == 0);
	if (t) {
		fi = field(t, "spec.ports");
		CHECK_STR(fi->list_type, "map");
		CHECK(fi->list_map_keys && !strcmp(fi->list_map_keys[1], "protocol"));
	}
	CHECK(smp_schema_kind(&t, g, "tools.example.org/v2", "Gizmo", &err) == 0);
	if (t)
		CHECK_STR(field(t, "spec.ports")->list_type, "set");
	CHECK(smp_schema_definition(&t, g, "org.example.tools.v2.Gizmo", &err) == 0);

	/* A List of CRDs, a v1beta1 CRD (one schema for all versions under
	 * spec.validation) and a version without a schema. */
	{
		static const char list[] =
			"apiVersion: v1\nkind: List\nitems:\n"
			"- apiVersion: apiextensions.k8s.io/v1beta1\n"
			"  kind: CustomResourceDefinition\n"
			"  spec:\n"
			"    group: old.example.com\n"
			"    version: v1beta1\n"
			"    scope: Namespaced\n"
			"    names: {kind: Old}\n"
			"    validation:\n"
			"      openAPIV3Schema:\n"
			"        properties:\n"
			"          spec:\n"
			"            properties:\n"
			"              items: {type: array, items: {type: string}, x-kubernetes-list-type: set}\n"
			"- apiVersion: apiextensions.k8s.io/v1\n"
			"  kind: CustomResourceDefinition\n"
			"  spec:\n"
			"    group: free.example.com\n"
			"    scope: Cluster\n"
			"    names: {kind: Free}\n"
			"    versions:\n"
			"    - {name: v1, served: true, storage: true}\n";
		smp_schema *l = t_load_text(list, sizeof(list) - 1, "list.yaml");

		if (l) {
			CHECK(l->nkinds == 2);
			CHECK(smp_schema_kind(&t, l, "old.example.com/v1beta1", "Old", &err) == 0);
			if (t)
				CHECK_STR(field(t, "spec.items")->list_type, "set");
			CHECK(smp_schema_kind_namespaced(l, "old.example.com/v1beta1", "Old", &known) &&
			      known);
			CHECK(smp_schema_kind(&t, l, "free.example.com/v1", "Free", &err) == 0);
			if (t) {
				CHECK(t->flags & SMP_SFLAG_PRESERVE_UNKNOWN);
				CHECK_STR(field(t, "spec.x.y")->type, "any");
				CHECK(field(t, "metadata")->stype == meta);
			}
		}
		smp_schema_free(l);
	}

	smp_schema_free(w);
	smp_schema_free(g);
	return check_status();
}
