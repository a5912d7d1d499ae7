/*
 * stored_crd_test.c - smp_stored_form of custom resources with the schema
 * of their CRD (apply/stored_crd.c), one table case per rule. Each
 * expectation is written from apiextensions-apiserver's code, cited in the
 * case (pkg/apiserver/schema/...; customresource_handler.go for the order:
 * prune, drop non-nullable nulls, ObjectMeta, then defaults), never from
 * this library's output. kubectl cannot check them offline: `kubectl patch
 * --local` and `apply --dry-run=client` neither prune nor default custom
 * resources (that happens in the API server only).
 */
#include "smpatch.h"

#include "../check.h"

#include <stdio.h>
#include <string.h>

/* The same kind published in an OpenAPI v3 document (as /openapi/v3 gives
 * a CRD's schema: defaults and nullable included). */
static const char openapi_v3[] =
	"{\"openapi\":\"3.0.0\",\"components\":{\"schemas\":{\"com.example.v1.Gadget\":{"
	"\"type\":\"object\",\"x-kubernetes-group-version-kind\":[{\"group\":\"example.com\","
	"\"version\":\"v1\",\"kind\":\"Gadget\"}],\"properties\":{\"apiVersion\":{\"type\":"
	"\"string\"},\"kind\":{\"type\":\"string\"},\"metadata\":{\"type\":\"object\"},"
	"\"spec\":{\"type\":\"object\",\"properties\":{\"size\":{\"type\":\"integer\","
	"\"default\":4},\"label\":{\"type\":\"string\",\"nullable\":true}}}}}}}}";

#define W1 "apiVersion: example.com/v1, kind: Widget, metadata: {name: w}"

enum { OPENAPI = 1 << 8 }; /* the case uses the OpenAPI v3 schema */

static const struct {
	const char *name;
	unsigned flags; /* SMP_STORED_* | OPENAPI */
	const char *in, *want;
} cases[] = {
	/* defaulting.Default: a property's default when absent, deep-copied;
	 * Default recurses into the value it set (config.timeout), and the
	 * default was pruned by PruneDefaults (config.extra; a v1 CRD's
	 * validation, ValidateDefaults, would refuse it, a v1beta1 one not). */
	{"defaults of object properties, inside defaults, pruned",
	 0,
	 "{" W1 ", spec: {}}",
	 "{" W1 ", spec: {replicas: 1, mode: fast, level: low, surge: 25%,"
	 " config: {enabled: true, timeout: 30}}}"},
	/* defaulting.Default on []interface{} (each item with s.Items) and on
	 * additionalProperties values (s.AdditionalProperties.Structural),
	 * with the items' default for a null item (isNonNullableNull) and
	 * additionalProperties' default for a null value (not dropped first:
	 * PruneNonNullableNullsWithoutDefaults keeps nulls that have one). */
	{"defaults in list items and additionalProperties values",
	 0,
	 "{" W1 ", spec: {items: [{name: a}, {name: b, weight: 1}], tags: [x, null],"
	 " limits: {cpu: {}, mem: {max: 3}}, counts: {a: null, b: 2}}}",
	 "{" W1 ", spec: {items: [{name: a, weight: 5}, {name: b, weight: 1}],"
	 " tags: [x, none], limits: {cpu: {max: 100}, mem: {max: 3}},"
	 " counts: {a: 7, b: 2}, replicas: 1, mode: fast, level: low, surge: 25%,"
	 " config: {enabled: true, timeout: 30}}}"},
	/* pruning.prune: a field that is neither a property nor under
	 * additionalProperties is deleted, at any depth (a `type: object`
	 * without properties keeps nothing); the root is pruned as an
	 * embedded resource (PruneWithOptions with isResourceRoot), so its
	 * apiVersion, kind and metadata are skipped. */
	{"unknown fields are pruned at any depth",
	 SMP_STORED_NO_DEFAULTS,
	 "{" W1 ", extra: 1, spec: {bogus: 1, items: [{name: a, bogus: 2}],"
	 " limits: {cpu: {max: 1, bogus: 3}}, anything: {a: 1}},"
	 " status: {phase: Running, bogus: 4}}",
	 "{" W1 ", spec: {items: [{name: a}], limits: {cpu: {max: 1}}, anything: {}},"
	 " status: {phase: Running}}"},
	/* pruning.skipPrune below x-kubernetes-preserve-unknown-fields:
	 * unknown fields stay, properties are still pruned (prune) and
	 * defaulted (Default follows s.Properties); fields with no schema get
	 * neither defaults nor null pruning. */
	{"preserve-unknown-fields keeps unknown fields, not known ones' unknowns",
	 0,
	 "{" W1 ", spec: {mode: slow, replicas: 2, level: high, surge: 1, config: {},"
	 " free: {x: {y: 1, z: null}, known: {a: s, zzz: 1}}}}",
	 "{" W1 ", spec: {mode: slow, replicas: 2, level: high, surge: 1,"
	 " config: {timeout: 30}, free: {x: {y: 1, z: null}, known: {a: s, b: 2}}}}"},
	/* PruneNonNullableNullsWithoutDefaults drops note (not nullable, no
	 * default); comment and level are nullable, so their nulls stay and
	 * Default does not replace them (isNonNullableNull is false); replicas
	 * is not nullable and has a default, so Default replaces its null. */
	{"nullable: nulls dropped, kept or defaulted",
	 0,
	 "{" W1 ", spec: {note: null, comment: null, level: null, replicas: null,"
	 " mode: null, surge: 3, config: null}}",
	 "{" W1 ", spec: {comment: null, level: null, replicas: 1, mode: fast, surge: 3,"
	 " config: {enabled: true, timeout: 30}}}"},
	/* x-kubernetes-int-or-string: a scalar, which prune, Default and
	 * PruneNonNullableNullsWithoutDefaults leave as it is (their default
	 * case); its default applies like any other (surge). */
	{"int-or-string values kept as they are",
	 0,
	 "{" W1 ", spec: {port: \"8080\", surge: 30%, replicas: 1, mode: fast,"
	 " level: low, config: {}}}",
	 "{" W1 ", spec: {port: \"8080\", surge: 30%, replicas: 1, mode: fast,"
	 " level: low, config: {timeout: 30}}}"},
	{"int-or-string: an int stays an int",
	 SMP_STORED_NO_DEFAULTS,
	 "{" W1 ", spec: {port: 80, surge: 2}}",
	 "{" W1 ", spec: {port: 80, surge: 2}}"},
	/* x-kubernetes-embedded-resource: prune skips its apiVersion, kind and
	 * metadata (metaFields) and prunes the rest by its schema (child.other,
	 * child.spec.y) or keeps it (template preserves unknown fields);
	 * objectmeta.coerce round-trips its metadata through metav1.ObjectMeta
	 * (GetObjectMeta/SetObjectMeta: unknown fields dropped, omitempty
	 * zeros not written, a null label read as "") and removes a zero
	 * creationTimestamp. */
	{"embedded resources: apiVersion, kind, metadata as ObjectMeta",
	 SMP_STORED_NO_DEFAULTS,
	 "{" W1 ", spec: {template: {apiVersion: v1, kind: Pod, metadata: {name: p,"
	 " bogus: 1, labels: {a: null, b: c}, creationTimestamp: null}, spec: {any: 1}},"
	 " child: {apiVersion: x.io/v1, kind: K, metadata: {name: c, generation: 0,"
	 " finalizers: [], namespace: \"\"}, spec: {x: \"1\", y: 2}, other: 1}}}",
	 "{" W1 ", spec: {template: {apiVersion: v1, kind: Pod, metadata: {name: p,"
	 " labels: {a: \"\", b: c}}, spec: {any: 1}},"
	 " child: {apiVersion: x.io/v1, kind: K, metadata: {name: c}, spec: {x: \"1\"}}}}"},
	/* unstructuredSchemaCoercer.apply: the root's metadata goes through
	 * GetObjectMeta and SetObjectMeta (json.Unmarshal into ObjectMeta and
	 * the unstructured converter): unknown fields dropped at any depth,
	 * omitempty zeros not written, OwnerReference's apiVersion, kind, name
	 * and uid always written (no omitempty), its nil pointers not. */
	{"root metadata is ObjectMeta",
	 0,
	 "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: \"\","
	 " nmae: x, labels: {}, annotations: {a: b}, ownerReferences: [{kind: K, name: o,"
	 " bogus: 1, controller: null, blockOwnerDeletion: true}]}}",
	 "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, annotations: {a: b},"
	 " ownerReferences: [{kind: K, name: o, blockOwnerDeletion: true, apiVersion: \"\","
	 " uid: \"\"}]}}"},
	/* unstructuredDefaulter.Default and unstructuredSchemaCoercer.apply
	 * take structuralSchemas[gvk.Version]: v2's defaults, v2's pruning;
	 * then the CRD stores v1: converted to it (v1's pruning drops flavor),
	 * read back with v1's defaults (mode) and converted back (v2's pruning
	 * drops mode), as realserver.custom shows the server doing. */
	{"the object's apiVersion picks the version's schema, then the storage version's",
	 0,
	 "{apiVersion: example.com/v2, kind: Widget, metadata: {name: w},"
	 " spec: {mode: fast}}",
	 "{apiVersion: example.com/v2, kind: Widget, metadata: {name: w},"
	 " spec: {replicas: 3}}"},
	/* A version that is not served has no schema (the server answers 404):
	 * the object comes back as it is, like any kind the schema lacks. */
	{"a version that is not served: unchanged",
	 0,
	 "{apiVersion: example.com/v3, kind: Widget, metadata: {name: w}, spec: {x: null}}",
	 "{apiVersion: example.com/v3, kind: Widget, metadata: {name: w}, spec: {x: null}}"},
	/* structural.NewStructural: additionalProperties: true gives a
	 * StructuralOrBool without a schema, so prune keeps the keys and
	 * prunes their values with a nil schema (maps lose every field). */
	{"additionalProperties: true keeps keys, not the fields of their values",
	 0,
	 "{" W1 ", spec: {open: {a: 1, b: {c: 1}}, replicas: 1, mode: fast, level: low,"
	 " surge: 1, config: {}}}",
	 "{" W1 ", spec: {open: {a: 1, b: {}}, replicas: 1, mode: fast, level: low,"
	 " surge: 1, config: {timeout: 30}}}"},
	{"KEEP_UNKNOWN: no pruning; NO_DEFAULTS: no defaults",
	 SMP_STORED_KEEP_UNKNOWN | SMP_STORED_NO_DEFAULTS,
	 "{" W1 ", extra: 1, spec: {bogus: 1, note: null}}",
	 "{" W1 ", extra: 1, spec: {bogus: 1}}"},
	/* Built-in kinds go by the built-in tables, whatever the schema. */
	{"a built-in kind with a schema given",
	 0,
	 "{apiVersion: v1, kind: Secret, metadata: {name: s}}",
	 "{apiVersion: v1, kind: Secret, metadata: {name: s}, type: Opaque}"},
	/* The same rules with a schema read from an OpenAPI v3 document: the
	 * declared metadata ({type: object}) is skipped at the root by prune
	 * and left to the ObjectMeta round trip. */
	{"openapi v3: defaults, nullable, pruning",
	 OPENAPI,
	 "{apiVersion: example.com/v1, kind: Gadget, metadata: {name: g, bogus: 1},"
	 " spec: {label: null, extra: 1}}",
	 "{apiVersion: example.com/v1, kind: Gadget, metadata: {name: g},"
	 " spec: {label: null, size: 4}}"},
};

static smp_doc *parse_yaml(const char *text)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	smp_error err;

	po.format = SMP_FORMAT_YAML;
	if (smp_doc_parse(&doc, text, strlen(text), &po, &err)) {
		fprintf(stderr, "bad test YAML %s: %s\n", text, err.message);
		failures++;
		return NULL;
	}
	return doc;
}

static void test_cases(const smp_schema *s, const smp_schema *v3)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i < n; i++) {
		smp_doc *in = parse_yaml(cases[i].in), *want = parse_yaml(cases[i].want);
		smp_doc *got = NULL;
		smp_stored_options o = SMP_STORED_OPTIONS_INIT;
		smp_error err;

		o.flags = cases[i].flags & ~(unsigned)OPENAPI;
		o.schema = cases[i].flags & OPENAPI ? v3 : s;
		if (in && want) {
			if (smp_stored_form(&got, smp_doc_root(in, 0), &o, &err) == 0) {
				const smp_value *g = smp_doc_root(got, 0);
				if (!smp_value_equal(g, smp_doc_root(want, 0))) {
					char *t = NULL;
					smp_print(&t, NULL, g, NULL, NULL);
					CHECK(0, "%s: got %s", cases[i].name, t ? t : "?");
					smp_free(t);
				}
			} else {
				CHECK(0, "%s: %s", cases[i].name, err.message);
			}
		}
		smp_doc_free(in);
		smp_doc_free(want);
		smp_doc_free(got);
	}
	printf("stored crd: %zu cases\n", n);
}

/* A version 1 options struct (no schema field) is read as such: custom
 * resources come back unchanged; the result outlives the schema. */
static void test_options(const smp_schema *s)
{
	struct {
		unsigned version, flags;
	} v1 = {1, 0};
	smp_doc *in = parse_yaml("{" W1 ", spec: {bogus: 1}}"), *got = NULL;
	smp_stored_options o = SMP_STORED_OPTIONS_INIT;

	if (!in)
		return;
	CHECK(smp_stored_form(&got, smp_doc_root(in, 0), (const smp_stored_options *)(void *)&v1,
	                      NULL) == 0 &&
	              smp_value_at(smp_doc_root(got, 0), "spec.bogus") != NULL,
	      "version 1 options");
	smp_doc_free(got);
	got = NULL;
	o.schema = s;
	CHECK(smp_stored_form(&got, smp_doc_root(in, 0), &o, NULL) == 0 &&
	              smp_value_at(smp_doc_root(got, 0), "spec.bogus") == NULL &&
	              smp_value_int(smp_value_at(smp_doc_root(got, 0), "spec.replicas")) == 1,
	      "version 2 options");
	smp_doc_free(got);
	smp_doc_free(in);
}

/* argv[1]: testdata/schema/stored-crd.yaml, the CRD of the cases: v1
 * (storage) holds a node for every rule; v2 has other defaults; v3 is not
 * served. */
int main(int argc, char **argv)
{
	smp_schema *s = NULL, *v3 = NULL;
	smp_error err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s stored-crd.yaml\n", argv[0]);
		return 2;
	}
	if (smp_schema_load_file(&s, argv[1], &err) ||
	    smp_schema_load(&v3, openapi_v3, strlen(openapi_v3), "v3.json", &err)) {
		fprintf(stderr, "schema: %s\n", err.message);
		return 1;
	}
	test_cases(s, v3);
	test_options(s);
	smp_schema_free(s);
	smp_schema_free(v3);
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
