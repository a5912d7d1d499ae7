/*
 * validate_test.c - field validation as the API server's strict decoding
 * reports it: unknown fields (sigs.k8s.io/json's paths), wrong JSON types
 * (encoding/json's UnmarshalTypeError text), the modes of kubectl's
 * --validate.
 */
#include "tutil.h"

#include <stdio.h>
#include <string.h>

#define DEPLOY(spec)                                                                  \
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"w\"}," \
	"\"spec\":" spec "}"

static const struct {
	const char *name, *obj;
	const char *strict; /* the strict error message, "" for none */
	const char *warn;   /* the warn-mode error, "" for none */
	const char *path;   /* err->path of the strict error */
} cases[] = {
	{"the issue's typo",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"
	 "\"contianers\":[{\"name\":\"c\",\"image\":\"x\"}]}}",
	 "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field "
	 "\"spec.contianers\"",
	 "", "spec.contianers"},
	{"several, in sorted key order, list items by index",
	 DEPLOY("{\"zz\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\","
	        "\"imagee\":\"x\"}]}},\"aa\":{\"b\":1}}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: "
	 "unknown field \"spec.aa\", unknown field "
	 "\"spec.template.spec.containers[1].imagee\", unknown field \"spec.zz\"",
	 "", "spec.aa"},
	{"a string for an int32",
	 DEPLOY("{\"replicas\":\"3\"}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "string into Go struct field DeploymentSpec.spec.replicas of type int32",
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "string into Go struct field DeploymentSpec.spec.replicas of type int32",
	 "spec.replicas"},
	{"a fraction for an int32",
	 DEPLOY("{\"replicas\":1.5}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32",
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32",
	 "spec.replicas"},
	{"int32 overflow",
	 DEPLOY("{\"replicas\":3000000000}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32",
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32",
	 "spec.replicas"},
	{"a bool in a list item, the Go path without indexes",
	 DEPLOY("{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":true}]}}}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "bool into Go struct field Container.spec.template.spec.containers.image of type string",
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "bool into Go struct field Container.spec.template.spec.containers.image of type string",
	 "spec.template.spec.containers[0].image"},
	{"an object for a list",
	 DEPLOY("{\"template\":{\"spec\":{\"containers\":{}}}}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container",
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container",
	 "spec.template.spec.containers"},
	{"a string for a struct",
	 DEPLOY("{\"template\":\"x\"}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "string into Go struct field DeploymentSpec.spec.template of type v1.PodTemplateSpec",
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "string into Go struct field DeploymentSpec.spec.template of type v1.PodTemplateSpec",
	 "spec.template"},
	{"a label value that is a number",
	 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"labels\":"
	 "{\"a\":1}}}",
	 "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal "
	 "number into Go struct field ObjectMeta.metadata.labels of type string",
	 "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal "
	 "number into Go struct field ObjectMeta.metadata.labels of type string",
	 "metadata.labels[a]"},
	{"int-or-string: a bool",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{"
	 "\"ports\":[{\"port\":80,\"targetPort\":true}]}}",
	 "Service in version \"v1\" cannot be handled as a Service: json: cannot unmarshal bool "
	 "into Go value of type int32",
	 "Service in version \"v1\" cannot be handled as a Service: json: cannot unmarshal bool "
	 "into Go value of type int32",
	 "spec.ports[0].targetPort"},
	{"a bad quantity",
	 DEPLOY("{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{"
	        "\"limits\":{\"cpu\":\"1 core\"}}}]}}}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: quantities must match "
	 "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
	 "Deployment in version \"v1\" cannot be handled as a Deployment: quantities must match "
	 "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
	 "spec.template.spec.containers[0].resources.limits[cpu]"},
	{"a decoding error trumps the unknown fields",
	 DEPLOY("{\"aa\":1,\"replicas\":\"x\"}"),
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "string into Go struct field DeploymentSpec.spec.replicas of type int32",
	 "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
	 "string into Go struct field DeploymentSpec.spec.replicas of type int32",
	 "spec.replicas"},
	{"null is always fine; free-form fields take anything",
	 "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
	 "\"metadata\":{\"name\":\"x\",\"labels\":null},\"spec\":{\"versions\":[{\"name\":\"v1\","
	 "\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"default\":{\"a\":[1]}}}}]}}",
	 "", "", ""},
	{"map entries are [key] in unknown-field paths",
	 "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
	 "\"metadata\":{\"name\":\"x\"},\"spec\":{\"versions\":[{\"name\":\"v1\","
	 "\"schema\":{\"openAPIV3Schema\":{\"properties\":{\"spec\":{\"typ\":\"string\"}}}}}]}}",
	 "CustomResourceDefinition in version \"v1\" cannot be handled as a "
	 "CustomResourceDefinition: strict decoding error: unknown field "
	 "\"spec.versions[0].schema.openAPIV3Schema.properties[spec].typ\"",
	 "", "spec.versions[0].schema.openAPIV3Schema.properties[spec].typ"},
	{"a kind no schema knows",
	 "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},"
	 "\"spec\":{\"anything\":1}}",
	 "", "", ""},
	{"a valid deployment",
	 DEPLOY("{\"replicas\":2,\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{"
	        "\"metadata\":{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"a\","
	        "\"image\":\"x\",\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}],"
	        "\"resources\":{\"limits\":{\"cpu\":0.5}}}]}}}"),
	 "", "", ""},
};

static void test_cases(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i < n; i++) {
		smp_doc *d = parse_json(cases[i].obj);
		smp_validation *v = NULL;
		smp_error err;
		int rc;

		if (!d)
			continue;
		rc = smp_object_validate(&v, smp_doc_root(d, 0), NULL, &err);
		CHECK(rc == 0, "%s: rc %d", cases[i].name, rc);
		err.message[0] = '\0';
		err.path[0] = '\0';
		rc = smp_validation_error(v, SMP_VALIDATE_STRICT, &err);
		CHECK(rc == (cases[i].strict[0] ? SMP_EINVALOBJ : 0) &&
		          strcmp(cases[i].strict[0] ? err.message : "", cases[i].strict) == 0,
		      "%s: strict %d %s", cases[i].name, rc, err.message);
		if (rc)
			CHECK(strcmp(err.path, cases[i].path) == 0, "%s: path %s", cases[i].name,
			      err.path);
		rc = smp_validation_error(v, SMP_VALIDATE_WARN, &err);
		CHECK(rc == (cases[i].warn[0] ? SMP_EINVALOBJ : 0) &&
		          strcmp(cases[i].warn[0] ? err.message : "", cases[i].warn) == 0,
		      "%s: warn %d %s", cases[i].name, rc, err.message);
		smp_validation_free(v);
		smp_doc_free(d);
	}
	printf("validate: %zu cases\n", n);
}

/* The texts of WARN's lines, positions, and a CRD schema. */
static void test_details(void)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	const char *y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
	                "  containers: []\n  contianers: []\n";
	const char *crd =
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
		"metadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n"
		"  names:\n    kind: Widget\n    plural: widgets\n  scope: Namespaced\n"
		"  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n"
		"      openAPIV3Schema:\n        type: object\n        properties:\n"
		"          spec:\n            type: object\n            properties:\n"
		"              size:\n                type: integer\n"
		"              extra:\n                type: object\n"
		"                x-kubernetes-preserve-unknown-fields: true\n";
	smp_doc *doc = NULL, *w = NULL;
	smp_schema *schema = NULL;
	smp_validation *v = NULL;
	smp_error err;

	po.format = SMP_FORMAT_YAML;
	if (smp_doc_parse(&doc, y, strlen(y), &po, &err) == 0 &&
	    smp_object_validate(&v, smp_doc_root(doc, 0), NULL, &err) == 0) {
		CHECK(smp_validation_count(v) == 1, "count %zu", smp_validation_count(v));
		CHECK(strcmp(smp_validation_text(v, 0), "unknown field \"spec.contianers\"") == 0,
		      "text %s", smp_validation_text(v, 0));
		CHECK(strcmp(smp_validation_path(v, 0), "spec.contianers") == 0, "path");
		CHECK(!smp_validation_is_type_error(v, 0), "not a type error");
		CHECK(smp_validation_text(v, 1) == NULL, "out of range");
		CHECK(smp_validation_error(v, SMP_VALIDATE_STRICT, &err) == SMP_EINVALOBJ &&
		          err.line == 7 && err.column == 15,
		      "position %u:%u", err.line, err.column);
		CHECK(smp_validation_error(v, SMP_VALIDATE_IGNORE, &err) == 0, "ignore");
	} else {
		CHECK(0, "%s", err.message);
	}
	smp_validation_free(v);
	v = NULL;
	smp_doc_free(doc);

	if (smp_schema_load(&schema, crd, strlen(crd), "crd.yaml", &err) == 0) {
		w = parse_json("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":"
		               "{\"name\":\"w\"},\"spec\":{\"size\":\"big\",\"color\":\"red\","
		               "\"extra\":{\"any\":1}}}");
		if (w && smp_object_validate(&v, smp_doc_root(w, 0), schema, &err) == 0) {
			/* Unknown fields only: a custom resource is not decoded
			 * into Go types (its schema's own checks are not done). */
			CHECK(smp_validation_count(v) == 1, "crd count %zu", smp_validation_count(v));
			CHECK(strcmp(smp_validation_text(v, 0), "unknown field \"spec.color\"") == 0,
			      "crd text %s", smp_validation_text(v, 0));
		}
		smp_validation_free(v);
		smp_doc_free(w);
		smp_schema_free(schema);
	} else {
		CHECK(0, "crd: %s", err.message);
	}
	CHECK(smp_object_validate(&v, NULL, NULL, NULL) == SMP_EINVAL, "NULL");
}

int main(void)
{
	test_cases();
	test_details();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
