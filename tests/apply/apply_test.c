/*
 * apply_test.c - the apply workflow through the library: annotation bytes
 * (checked against strings encoded independently, as Go's encoding/json
 * writes them), namespace defaulting, create, unchanged, configure, the
 * missing-annotation warning, preconditions, conflicts and limits.
 */
#include "tutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *json_of(const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *out = NULL;

	po.sort_keys = true;
	if (smp_print(&out, NULL, v, &po, NULL))
		return NULL;
	return out;
}

/* Checks case i: the annotation text `config` encodes to, for apply
 * (smp_last_applied_encode) or, with `set`, for set-last-applied in
 * namespace ns (smp_set_last_applied_encode), is `want`, length included. */
static void check_encode(bool set, const char *ns, size_t i, const char *config,
                         const char *want)
{
	const char *what = set ? "set encode" : "encode";
	smp_doc *d = parse_json(config);
	char *out = NULL;
	size_t len = 0;
	smp_error err;
	int rc;

	if (!d)
		return;
	rc = set ? smp_set_last_applied_encode(&out, &len, smp_doc_root(d, 0), ns, &err)
	         : smp_last_applied_encode(&out, &len, smp_doc_root(d, 0), &err);
	CHECK(rc == 0, "%s %zu: %d %s", what, i, rc, err.message);
	if (!rc) {
		CHECK(out && strcmp(out, want) == 0 && len == strlen(want),
		      "%s %zu:\n got %s\nwant %s", what, i, out ? out : "", want);
	}
	smp_free(out);
	smp_doc_free(d);
}

static void test_encode(void)
{
	static const struct { const char *config, *want; } cases[] = {
		{"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"},\"data\":{\"b\":\"1\",\"a\":\"2\"}}",
		 "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"2\",\"b\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"x\"}}\n"},
		/* the annotation itself is removed, others kept; <>& escaped */
		{"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"old\",\"z\":\"<&>\"}}}",
		 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{\"z\":\"\\u003c\\u0026\\u003e\"},\"name\":\"x\"}}\n"},
		/* an emptied map stays {} */
		{"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"old\"}}}",
		 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"x\"}}\n"},
		/* nulls are kept in the annotation; no metadata at all gets one */
		{"{\"kind\":\"Thing\",\"apiVersion\":\"x/v1\",\"spec\":{\"n\":null,\"i\":12345678901234,\"f\":1.5,\"t\":true}}",
		 "{\"apiVersion\":\"x/v1\",\"kind\":\"Thing\",\"metadata\":{\"annotations\":{}},\"spec\":{\"f\":1.5,\"i\":12345678901234,\"n\":null,\"t\":true}}\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_encode(false, NULL, i, cases[i].config, cases[i].want);
}

static const smp_value *ann(const smp_value *obj, const char *key)
{
	return smp_map_get(smp_map_get(smp_map_get(obj, "metadata"), "annotations"), key);
}

static void test_create(void)
{
	smp_doc *d = parse_json("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
	                    "\"spec\":{\"minReadySeconds\":null,\"replicas\":2}}");
	smp_apply_result *res = NULL;
	smp_error err;
	int rc;

	if (!d)
		return;
	rc = smp_apply_object(&res, NULL, smp_doc_root(d, 0), NULL, &err);
	CHECK(rc == 0, "create: %s", err.message);
	if (!rc) {
		const smp_value *obj = smp_apply_result_object(res);
		const char *la = smp_value_string(ann(obj, SMP_LAST_APPLIED_ANNOTATION), NULL);
		CHECK(smp_apply_result_action(res) == SMP_ACTION_CREATE, "action");
		CHECK(smp_apply_result_patch_type(res) == SMP_PATCH_STRATEGIC, "patch type");
		CHECK(smp_apply_result_patch(res) == obj, "create sends the object");
		CHECK(smp_value_at(obj, "spec.minReadySeconds") == NULL, "null field sent");
		CHECK(la && strcmp(la, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":"
		                       "{\"annotations\":{},\"name\":\"web\",\"namespace\":\"default\"},"
		                       "\"spec\":{\"minReadySeconds\":null,\"replicas\":2}}\n") == 0,
		      "annotation %s", la ? la : "(none)");
		CHECK(smp_value_string(smp_value_at(obj, "metadata.namespace"), NULL) &&
		      strcmp(smp_value_string(smp_value_at(obj, "metadata.namespace"), NULL),
		             "default") == 0, "namespace defaulted");
		CHECK(smp_apply_result_warning(res) == NULL, "warning on create");
	}
	smp_apply_result_free(res);
	smp_doc_free(d);
}

static void test_namespaces(void)
{
	smp_doc *d = parse_json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\"}}");
	smp_doc *c = parse_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\",\"namespace\":\"prod\"}}");
	smp_doc *u = parse_json("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"}}");
	smp_apply_options ao = SMP_APPLY_OPTIONS_INIT;
	smp_apply_result *res = NULL;
	smp_error err;
	int rc;

	if (!d || !c || !u)
		goto out;
	CHECK(strcmp(smp_apply_namespace(smp_doc_root(d, 0), NULL), "") == 0, "cluster-scoped");
	CHECK(strcmp(smp_apply_namespace(smp_doc_root(c, 0), NULL), "prod") == 0, "own namespace");
	CHECK(strcmp(smp_apply_namespace(smp_doc_root(u, 0), NULL), "default") == 0,
	      "unknown kinds count as namespaced");
	ao.default_namespace = "staging";
	CHECK(strcmp(smp_apply_namespace(smp_doc_root(u, 0), &ao), "staging") == 0, "-n");
	rc = smp_apply_object(&res, NULL, smp_doc_root(d, 0), &ao, &err);
	CHECK(rc == 0 && !smp_value_at(smp_apply_result_object(res), "metadata.namespace"),
	      "namespace added to a cluster-scoped object");
	smp_apply_result_free(res);
	res = NULL;
	ao.enforce_namespace = true;
	rc = smp_apply_object(&res, NULL, smp_doc_root(c, 0), &ao, &err);
	CHECK(rc == SMP_EINVALOBJ && strstr(err.message, "the namespace from the provided object "
	                                    "\"prod\" does not match the namespace \"staging\""),
	      "enforced namespace: %d %s", rc, err.message);
	smp_apply_result_free(res);
out:
	smp_doc_free(d);
	smp_doc_free(c);
	smp_doc_free(u);
}

static void test_rejects(void)
{
	static const struct { const char *config; int rc; const char *msg; } cases[] = {
		{"{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"}}", SMP_EINVALOBJ, "Object 'Kind' is missing"},
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}", SMP_EINVALOBJ, "Object 'apiVersion' is missing"},
		{"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{}}", SMP_EINVALOBJ, "resource name may not be empty"},
		{"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"generateName\":\"x-\"}}", SMP_EINVALOBJ,
		 "cannot use generate name with apply"},
		{"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"b c\"}}}",
		 SMP_EINVALOBJ, "configmap/x: metadata.labels: Invalid value: \"b c\": a valid label must be"},
		{"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"template\":"
		 "{\"metadata\":{\"labels\":{\"_a\":\"b\"}}}}}", SMP_EINVALOBJ,
		 "deployment.apps/x: spec.template.metadata.labels: Invalid value: \"_a\": name part must"},
		{"[1]", SMP_EINVAL, "must be an object"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		smp_doc *d = parse_json(cases[i].config);
		smp_apply_result *res = NULL;
		smp_error err;
		int rc;

		if (!d)
			continue;
		rc = smp_apply_object(&res, NULL, smp_doc_root(d, 0), NULL, &err);
		CHECK(rc == cases[i].rc && !res, "reject %zu: rc %d", i, rc);
		CHECK(rc == 0 || strstr(err.message, cases[i].msg), "reject %zu: %s", i, err.message);
		smp_apply_result_free(res);
		smp_doc_free(d);
	}
}

/* Annotations of exactly 262144 bytes pass, one more fails. */
static void test_limit(void)
{
	static const char tmpl[] = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\","
	                           "\"annotations\":{\"k\":\"%s\"}}}";
	/* total = len("k") + len(value) + len(LA key) + len(LA value) */
	const char *base_la = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":"
	                      "{\"k\":\"\"},\"name\":\"x\",\"namespace\":\"default\"}}\n";
	size_t fixed = 1 + strlen(SMP_LAST_APPLIED_ANNOTATION) + strlen(base_la);
	/* the value appears twice: in the annotation k and inside the JSON */
	size_t n = (SMP_ANNOTATIONS_MAX_BYTES - fixed) / 2;
	size_t extra = (SMP_ANNOTATIONS_MAX_BYTES - fixed) % 2;
	char *val = malloc(n + 2), *json = malloc(n + sizeof(tmpl) + 8);

	if (!val || !json) {
		failures++;
		goto out;
	}
	for (int round = 0; round < 2; round++) {
		size_t len = n + (round ? 1 : 0);
		smp_doc *d;
		smp_apply_result *res = NULL;
		smp_error err;
		int rc;

		memset(val, 'v', len);
		val[len] = '\0';
		sprintf(json, tmpl, val);
		d = parse_json(json);
		if (!d)
			continue;
		rc = smp_apply_object(&res, NULL, smp_doc_root(d, 0), NULL, &err);
		if (round == 0)
			CHECK(rc == 0, "at the limit (%zu spare): %s", extra, err.message);
		else
			CHECK(rc == SMP_EINVALOBJ && strstr(err.message, "configmap/x: The ConfigMap \"x\" "
			      "is invalid: metadata.annotations: Too long: may not be more than 262144 bytes"),
			      "over the limit: %d %s", rc, err.message);
		smp_apply_result_free(res);
		smp_doc_free(d);
	}
out:
	free(val);
	free(json);
}

/* The three-way paths (need the merge engine). */
static void test_three_way(void)
{
	smp_doc *cfg = parse_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},"
	                      "\"data\":{\"a\":\"1\"}}");
	smp_doc *cfg2 = parse_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},"
	                       "\"data\":{\"b\":\"2\"}}");
	smp_doc *bare = parse_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
	                       "\"namespace\":\"default\",\"uid\":\"u\"},\"data\":{\"a\":\"1\",\"z\":\"9\"}}");
	smp_apply_result *created = NULL, *res = NULL;
	smp_apply_options ao = SMP_APPLY_OPTIONS_INIT;
	smp_error err;
	char *s;
	int rc;

	if (!cfg || !cfg2 || !bare)
		goto out;
	if (smp_apply_object(&created, NULL, smp_doc_root(cfg, 0), NULL, &err)) {
		CHECK(0, "create: %s", err.message);
		goto out;
	}
	/* live = what was created: re-applying is a no-op */
	rc = smp_apply_object(&res, smp_apply_result_object(created), smp_doc_root(cfg, 0), NULL, &err);
	CHECK(rc == 0 && smp_apply_result_action(res) == SMP_ACTION_UNCHANGED, "unchanged: %d %s",
	      rc, rc ? err.message : "");
	if (!rc) {
		s = json_of(smp_apply_result_patch(res));
		CHECK(s && strcmp(s, "{}") == 0, "unchanged patch %s", s ? s : "");
		free(s);
	}
	smp_apply_result_free(res);
	res = NULL;
	/* a changed key: a is deleted (in the annotation), b added */
	rc = smp_apply_object(&res, smp_apply_result_object(created), smp_doc_root(cfg2, 0), NULL, &err);
	CHECK(rc == 0 && smp_apply_result_action(res) == SMP_ACTION_CONFIGURE, "configure: %d %s",
	      rc, rc ? err.message : "");
	if (!rc) {
		s = json_of(smp_value_at(smp_apply_result_object(res), "data"));
		CHECK(s && strcmp(s, "{\"b\":\"2\"}") == 0, "configured data %s", s ? s : "");
		free(s);
		s = json_of(smp_value_at(smp_apply_result_patch(res), "data"));
		CHECK(s && strcmp(s, "{\"a\":null,\"b\":\"2\"}") == 0, "patch data %s", s ? s : "");
		free(s);
	}
	smp_apply_result_free(res);
	res = NULL;
	/* --overwrite=false: the annotation itself conflicts */
	ao.overwrite = false;
	rc = smp_apply_object(&res, smp_apply_result_object(created), smp_doc_root(cfg2, 0), &ao, &err);
	CHECK(rc == SMP_ECONFLICT, "overwrite=false conflict: %d", rc);
	smp_apply_result_free(res);
	res = NULL;
	rc = smp_apply_object(&res, smp_apply_result_object(created), smp_doc_root(cfg, 0), &ao, &err);
	CHECK(rc == 0 && smp_apply_result_action(res) == SMP_ACTION_UNCHANGED,
	      "overwrite=false unchanged: %d", rc);
	smp_apply_result_free(res);
	res = NULL;
	/* no annotation: the warning, nothing deleted (z stays) */
	rc = smp_apply_object(&res, smp_doc_root(bare, 0), smp_doc_root(cfg2, 0), NULL, &err);
	CHECK(rc == 0, "missing annotation: %s", rc ? err.message : "");
	if (!rc) {
		const char *w = smp_apply_result_warning(res);
		CHECK(w && strcmp(w, "Warning: resource configmaps/c is missing the "
		                     "kubectl.kubernetes.io/last-applied-configuration annotation which "
		                     "is required by kubectl apply. kubectl apply should only be used on "
		                     "resources created declaratively by either kubectl create "
		                     "--save-config or kubectl apply. The missing annotation will be "
		                     "patched automatically.") == 0, "warning %s", w ? w : "(none)");
		s = json_of(smp_value_at(smp_apply_result_object(res), "data"));
		CHECK(s && strcmp(s, "{\"a\":\"1\",\"b\":\"2\",\"z\":\"9\"}") == 0, "data %s", s ? s : "");
		free(s);
	}
	smp_apply_result_free(res);
out:
	smp_apply_result_free(created);
	smp_doc_free(cfg);
	smp_doc_free(cfg2);
	smp_doc_free(bare);
}

/* set-last-applied's annotation (editor.GetApplyPatch), diff finding F16. */
static void test_set_encode(void)
{
	static const struct { const char *config, *ns, *want; } cases[] = {
		{"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"},\"data\":{\"a\":\"<\"}}",
		 "default",
		 "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"\\u003c\"},\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\",\"namespace\":\"default\"}}\n"},
		/* its own annotations, a last-applied one too, kept as they are */
		{"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"namespace\":\"prod\","
		 "\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"old\"}}}", "default",
		 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"old\"},\"name\":\"x\",\"namespace\":\"prod\"}}\n"},
		/* cluster-scoped: no namespace; nulls kept */
		{"{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\",\"labels\":null}}", "",
		 "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"labels\":null,\"name\":\"n\"}}\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_encode(true, cases[i].ns, i, cases[i].config, cases[i].want);
}

/* A configuration whose annotation alone is over the limit is refused in
 * every path; errors of the three-way patch still come first. */
static void test_limit_early(void)
{
	size_t n = SMP_ANNOTATIONS_MAX_BYTES + 10;
	char *big = malloc(n + 1), *cfg_json = malloc(n + 256), *live_json = malloc(4 * n + 512);
	char *enc = NULL, *esc = NULL;
	smp_doc *cfg = NULL, *ns_cfg = NULL, *live = NULL;
	size_t len = 0, j = 0;
	smp_error err;

	if (!big || !cfg_json || !live_json) {
		failures++;
		goto out;
	}
	memset(big, 'x', n);
	big[n] = '\0';
	sprintf(cfg_json, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b\"},"
	        "\"data\":{\"big\":\"%s\"}}", big);
	cfg = parse_json(cfg_json);
	sprintf(cfg_json, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b\","
	        "\"namespace\":\"default\"},\"data\":{\"big\":\"%s\"}}", big);
	ns_cfg = parse_json(cfg_json);
	if (!cfg || !ns_cfg || smp_last_applied_encode(&enc, &len, smp_doc_root(ns_cfg, 0), &err))
		goto out;
	esc = malloc(2 * len + 1);
	if (!esc)
		goto out;
	for (size_t i = 0; i < len; i++) {
		if (enc[i] == '"' || enc[i] == '\n')
			esc[j++] = '\\';
		esc[j++] = enc[i] == '\n' ? 'n' : enc[i];
	}
	esc[j] = '\0';
	for (int round = 0; round < 5; round++) {
		smp_apply_result *res = NULL;
		smp_apply_options ao = SMP_APPLY_OPTIONS_INIT;
		const char *la = round == 1 || round == 4 ? "{}" : esc;
		/* (a changed apiVersion is no precondition on the strategic
		 * path: kubectl sends it) */
		const char *name = round == 3 ? "c" : "b";
		int rc;

		/* 0: create; 1: configure; 2: unchanged; 3: name changed;
		 * 4: conflict (--overwrite=false) */
		sprintf(live_json, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
		        "\"namespace\":\"default\",\"annotations\":{\"" SMP_LAST_APPLIED_ANNOTATION
		        "\":\"%s\"}},\"data\":{\"big\":\"%s\"}}", name, la, big);
		smp_doc_free(live);
		live = round ? parse_json(live_json) : NULL;
		ao.overwrite = round != 4;
		rc = smp_apply_object(&res, live ? smp_doc_root(live, 0) : NULL, smp_doc_root(cfg, 0),
		                      &ao, &err);
		if (round == 3)
			CHECK(rc == SMP_EPRECOND, "round 3: %d %s", rc, err.message);
		else if (round == 4)
			CHECK(rc == SMP_ECONFLICT, "round 4: %d", rc);
		else
			CHECK(rc == SMP_EINVALOBJ && strstr(err.message, "Too long: may not be more than"),
			      "round %d: %d %s", round, rc, err.message);
		CHECK(!res, "round %d: a result", round);
		smp_apply_result_free(res);
	}
out:
	free(big);
	free(cfg_json);
	free(live_json);
	free(esc);
	smp_free(enc);
	smp_doc_free(cfg);
	smp_doc_free(ns_cfg);
	smp_doc_free(live);
}

/* The patch type kubectl apply picks (in its scheme or not, diff finding
 * F7) and the resource name of the missing-annotation warning (from the
 * built-in tables; guessed for unknown kinds as UnsafeGuessKindToResource). */
static void test_kinds(void)
{
	static const struct {
		const char *av, *kind;
		smp_patch_type want;
		const char *resource;
	} cases[] = {
		{"apps/v1", "Deployment", SMP_PATCH_STRATEGIC, "deployments"},
		{"extensions/v1beta1", "Deployment", SMP_PATCH_STRATEGIC, "deployments"},
		{"v1", "Endpoints", SMP_PATCH_STRATEGIC, "endpoints"},
		{"networking.k8s.io/v1", "NetworkPolicy", SMP_PATCH_STRATEGIC, "networkpolicies"},
		{"networking.k8s.io/v1", "IngressClass", SMP_PATCH_STRATEGIC, "ingressclasses"},
		{"internal.apiserver.k8s.io/v1alpha1", "StorageVersion", SMP_PATCH_STRATEGIC,
		 "storageversions"},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", SMP_PATCH_MERGE,
		 "customresourcedefinitions"},
		{"apiregistration.k8s.io/v1", "APIService", SMP_PATCH_MERGE, "apiservices"},
		/* known to the server document only through meta kinds */
		{"imagepolicy.k8s.io/v1alpha1", "ImageReview", SMP_PATCH_MERGE, "imagereviews"},
		/* unknown kinds: guessed */
		{"example.com/v1", "Policy", SMP_PATCH_MERGE, "policies"},
		{"example.com/v1", "Address", SMP_PATCH_MERGE, "addresses"},
		{"example.com/v1", "GatewayEndpoints", SMP_PATCH_MERGE, "gatewayendpoints"},
		{"example.com/v1", "Widget", SMP_PATCH_MERGE, "widgets"},
	};
	char json[512], want[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		smp_doc *cfg, *live;
		smp_apply_result *res = NULL;
		smp_error err;
		const char *w;
		int rc;

		snprintf(json, sizeof(json), "{\"apiVersion\":\"%s\",\"kind\":\"%s\","
		         "\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"b\"}}}",
		         cases[i].av, cases[i].kind);
		cfg = parse_json(json);
		snprintf(json, sizeof(json), "{\"apiVersion\":\"%s\",\"kind\":\"%s\","
		         "\"metadata\":{\"name\":\"x\"}}", cases[i].av, cases[i].kind);
		live = parse_json(json);
		if (!cfg || !live) {
			smp_doc_free(cfg);
			smp_doc_free(live);
			continue;
		}
		rc = smp_apply_object(&res, smp_doc_root(live, 0), smp_doc_root(cfg, 0), NULL, &err);
		CHECK(rc == 0, "%s %s: %s", cases[i].av, cases[i].kind, err.message);
		if (!rc) {
			CHECK(smp_apply_result_patch_type(res) == cases[i].want, "%s %s: patch type %d",
			      cases[i].av, cases[i].kind, (int)smp_apply_result_patch_type(res));
			w = smp_apply_result_warning(res);
			snprintf(want, sizeof(want), "Warning: resource %s/x is missing",
			         cases[i].resource);
			CHECK(w && strncmp(w, want, strlen(want)) == 0, "%s %s: warning %s",
			      cases[i].av, cases[i].kind, w ? w : "(none)");
		}
		smp_apply_result_free(res);
		smp_doc_free(cfg);
		smp_doc_free(live);
	}
	CHECK(smp_schema_kind_resource(smp_schema_builtin(), "v1", "Endpoints") &&
	      strcmp(smp_schema_kind_resource(smp_schema_builtin(), "v1", "Endpoints"),
	             "endpoints") == 0, "Endpoints resource");
	CHECK(!smp_schema_kind_resource(smp_schema_builtin(), "v1", "PodList"), "lists have none");
	CHECK(!smp_schema_kind_resource(NULL, "v1", "Pod"), "NULL schema");
}

/* smp_display_objects: managedFields and kubectl diff's Secret masker. */
static void test_display(void)
{
	static const struct {
		const char *before, *after;
		unsigned flags;
		const char *want_before, *want_after; /* NULL: no document */
	} cases[] = {
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"managedFields\":[{}]}}", NULL, 0,
		 "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"}}", NULL},
		{NULL, "{\"kind\":\"ConfigMap\",\"metadata\":{\"managedFields\":[{}]}}",
		 SMP_DISPLAY_MANAGED_FIELDS, NULL,
		 "{\"kind\":\"ConfigMap\",\"metadata\":{\"managedFields\":[{}]}}"},
		/* equal -> ***, changed -> before/after, one side only -> *** */
		{"{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}}",
		 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"a\":\"1\",\"b\":\"9\",\"d\":\"4\"}}",
		 SMP_DISPLAY_MASK_SECRETS,
		 "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"***\",\"b\":\"*** (before)\",\"c\":\"***\"},\"kind\":\"Secret\"}",
		 "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"***\",\"b\":\"*** (after)\",\"d\":\"***\"},\"kind\":\"Secret\"}"},
		/* any group with version v1 (the Masker looks at version and kind) */
		{NULL, "{\"apiVersion\":\"x.io/v1\",\"kind\":\"Secret\",\"data\":{\"k\":\"v\"}}",
		 SMP_DISPLAY_MASK_SECRETS, NULL,
		 "{\"apiVersion\":\"x.io/v1\",\"data\":{\"k\":\"***\"},\"kind\":\"Secret\"}"},
		{NULL, "{\"apiVersion\":\"v2\",\"kind\":\"Secret\",\"data\":{\"k\":\"v\"}}",
		 SMP_DISPLAY_MASK_SECRETS, NULL,
		 "{\"apiVersion\":\"v2\",\"data\":{\"k\":\"v\"},\"kind\":\"Secret\"}"},
		{NULL, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"k\":\"v\"}}",
		 SMP_DISPLAY_MASK_SECRETS, NULL,
		 "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"v\"},\"kind\":\"ConfigMap\"}"},
		/* a pruned Secret (no result) is masked too */
		{"{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"k\":\"v\"}}", NULL,
		 SMP_DISPLAY_MASK_SECRETS,
		 "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"***\"},\"kind\":\"Secret\"}", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		smp_doc *b = cases[i].before ? parse_json(cases[i].before) : NULL;
		smp_doc *a = cases[i].after ? parse_json(cases[i].after) : NULL;
		smp_doc *bo = NULL, *ao = NULL;
		smp_error err;
		char *s;
		int rc = smp_display_objects(&bo, &ao, b ? smp_doc_root(b, 0) : NULL,
		                             a ? smp_doc_root(a, 0) : NULL, cases[i].flags, &err);

		CHECK(rc == 0, "display %zu: %s", i, err.message);
		CHECK(!bo == !cases[i].want_before && !ao == !cases[i].want_after, "display %zu docs", i);
		if (bo && cases[i].want_before) {
			s = json_of(smp_doc_root(bo, 0));
			CHECK(s && strcmp(s, cases[i].want_before) == 0, "display %zu before: %s", i, s);
			free(s);
		}
		if (ao && cases[i].want_after) {
			s = json_of(smp_doc_root(ao, 0));
			CHECK(s && strcmp(s, cases[i].want_after) == 0, "display %zu after: %s", i, s);
			free(s);
		}
		/* the inputs are untouched */
		if (b) {
			s = json_of(smp_doc_root(b, 0));
			CHECK(s && !strstr(s, "***"), "display %zu: input changed", i);
			free(s);
		}
		smp_doc_free(bo);
		smp_doc_free(ao);
		smp_doc_free(b);
		smp_doc_free(a);
	}
	{
		smp_doc *a = parse_json("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":null}");
		smp_doc *ao = NULL;
		smp_error err;
		int rc = smp_display_objects(NULL, &ao, NULL, a ? smp_doc_root(a, 0) : NULL,
		                             SMP_DISPLAY_MASK_SECRETS, &err);

		CHECK(rc == SMP_EINVALOBJ && !ao && strstr(err.message, "<nil> is of the type <nil>"),
		      "null data: %d %s", rc, err.message);
		rc = smp_display_objects(NULL, NULL, NULL, a ? smp_doc_root(a, 0) : NULL, 0, &err);
		CHECK(rc == SMP_EINVAL, "NULL output: %d", rc);
		smp_doc_free(a);
	}
}

/* smp_object_validate_meta: messages checked against kubectl 1.32 (patch
 * --local -f F --type merge -p '{}'; tests/apply golden meta-* cases). */
static void test_validate_meta(void)
{
	static const struct { const char *obj, *msg, *path; } cases[] = {
		{"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"b\"},"
		 "\"generation\":5,\"creationTimestamp\":\"2020-01-01T00:00:00Z\",\"finalizers\":[\"a\",null],\"x\":1}}", NULL, NULL},
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{\"port\":8080}}}",
		 "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string",
		 "metadata.annotations.port"},
		/* sorted order: annotations before labels */
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"labels\":{\"a\":1},\"annotations\":{\"b\":true}}}",
		 "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.annotations of type string",
		 "metadata.annotations.b"},
		/* a timestamp error wins over an earlier type error */
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{\"b\":1},\"deletionTimestamp\":\"2020-02-30T00:00:00Z\"}}",
		 "parsing time \"2020-02-30T00:00:00Z\": day out of range", "metadata.deletionTimestamp"},
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"generation\":1.5}}",
		 "json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64",
		 "metadata.generation"},
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"generation\":5.0}}", NULL, NULL},
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"finalizers\":\"a\"}}",
		 "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string",
		 "metadata.finalizers"},
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"ownerReferences\":[{\"uid\":5}]}}",
		 "json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID",
		 "metadata.ownerReferences[0].uid"},
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"managedFields\":[{\"time\":\"2020-01-01T00:00:00 \"}]}}",
		 "parsing time \"2020-01-01T00:00:00 \" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" \" as \"Z07:00\"",
		 "metadata.managedFields[0].time"},
		{"{\"kind\":\"ConfigMap\",\"metadata\":{\"creationTimestamp\":\"caf\u00e9\"}}",
		 "parsing time \"caf\\xc3\\xa9\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"caf\\xc3\\xa9\" as \"2006\"",
		 "metadata.creationTimestamp"},
		{"{\"kind\":\"ConfigMap\",\"metadata\":[1]}",
		 "json: cannot unmarshal array into Go struct field metadataOnlyObject.metadata of type v1.ObjectMeta",
		 "metadata"},
		{"{\"apiVersion\":7,\"kind\":\"ConfigMap\"}",
		 "json: cannot unmarshal number into Go struct field metadataOnlyObject.apiVersion of type string",
		 "apiVersion"},
	};
	smp_error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		smp_doc *d = parse_json(cases[i].obj);
		int rc;

		if (!d)
			continue;
		memset(&err, 0, sizeof(err));
		rc = smp_object_validate_meta(smp_doc_root(d, 0), &err);
		if (!cases[i].msg) {
			CHECK(rc == 0, "meta %zu: %d %s", i, rc, err.message);
		} else {
			CHECK(rc == SMP_EINVALOBJ && strcmp(err.message, cases[i].msg) == 0,
			      "meta %zu: %d\n got %s\nwant %s", i, rc, err.message, cases[i].msg);
			CHECK(strcmp(err.path, cases[i].path) == 0 && err.line == 1 && err.column > 1,
			      "meta %zu: path %s at %u:%u", i, err.path, err.line, err.column);
		}
		smp_doc_free(d);
	}
	CHECK(smp_object_validate_meta(NULL, &err) == SMP_EINVAL, "NULL");
}

/* Scopes: cluster-scoped objects lose a namespace; kinds the tables do not
 * know take their scope from smp_scopes (declared, learned from live). */
static void test_scopes(void)
{
	smp_doc *cr = parse_json("{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"r\",\"namespace\":\"kube-system\"}}");
	smp_doc *dep = parse_json("{\"apiVersion\":\"apps/v1beta2\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"}}");
	smp_doc *psp = parse_json("{\"apiVersion\":\"policy/v1beta1\",\"kind\":\"PodSecurityPolicy\",\"metadata\":{\"name\":\"p\",\"namespace\":\"x\"}}");
	smp_doc *g = parse_json("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g\",\"namespace\":\"x\"}}");
	smp_doc *glive = parse_json("{\"apiVersion\":\"example.com/v2\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"other\"}}");
	smp_doc *gns = parse_json("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g\",\"namespace\":\"y\"}}");
	smp_doc *t = parse_json("{\"apiVersion\":\"other.io/v1\",\"kind\":\"Thing\",\"metadata\":{\"name\":\"t\"}}");
	smp_apply_options ao = SMP_APPLY_OPTIONS_INIT;
	smp_apply_result *res = NULL;
	smp_scopes *sc = NULL;
	smp_error err;
	const char *la;
	int rc;

	if (!cr || !dep || !psp || !g || !glive || !gns || !t || smp_scopes_new(&sc))
		goto out;
	rc = smp_apply_object(&res, NULL, smp_doc_root(cr, 0), &ao, &err);
	la = smp_value_string(smp_map_get(smp_value_at(smp_apply_result_object(res),
	                                               "metadata.annotations"),
	                                  SMP_LAST_APPLIED_ANNOTATION), NULL);
	CHECK(rc == 0 && !smp_value_at(smp_apply_result_patch(res), "metadata.namespace"),
	      "cluster-scoped: the namespace is dropped (%d)", rc);
	CHECK(la && !strstr(la, "kube-system"), "and not in the annotation: %s", la ? la : "-");
	CHECK(smp_value_at(smp_doc_root(cr, 0), "metadata.namespace") != NULL, "input untouched");
	smp_apply_result_free(res);
	res = NULL;
	CHECK(smp_apply_kind_scope(smp_doc_root(dep, 0), NULL) == 1, "another version of a kind");
	CHECK(smp_apply_kind_scope(smp_doc_root(psp, 0), NULL) == 0, "removed kind");
	CHECK(strcmp(smp_apply_namespace(smp_doc_root(psp, 0), NULL), "") == 0, "removed kind ns");
	CHECK(smp_apply_kind_scope(smp_doc_root(g, 0), NULL) == -1, "unknown");
	ao.scopes = sc;
	CHECK(smp_apply_kind_scope(smp_doc_root(g, 0), &ao) == -1, "empty set");
	CHECK(smp_scopes_learn(sc, smp_doc_root(glive, 0), &err) == 0, "learn");
	CHECK(smp_apply_kind_scope(smp_doc_root(g, 0), &ao) == 0, "learned from another version");
	CHECK(strcmp(smp_apply_namespace(smp_doc_root(g, 0), &ao), "") == 0, "learned ns");
	CHECK(smp_scopes_learn(sc, smp_doc_root(gns, 0), &err) == 0, "learn namespaced");
	CHECK(smp_apply_kind_scope(smp_doc_root(g, 0), &ao) == 1, "namespaced evidence wins");
	CHECK(smp_scopes_learn(sc, smp_doc_root(glive, 0), &err) == 0 &&
	      smp_apply_kind_scope(smp_doc_root(g, 0), &ao) == 1, "and stays");
	CHECK(smp_scopes_declare(sc, "Gadget.example.com", false, &err) == 0, "declare");
	CHECK(smp_apply_kind_scope(smp_doc_root(g, 0), &ao) == 0, "declared wins over learned");
	CHECK(smp_apply_kind_scope(smp_doc_root(t, 0), &ao) == -1, "other kind");
	CHECK(smp_scopes_declare(sc, "Thing", false, &err) == 0, "declare any group");
	CHECK(smp_apply_kind_scope(smp_doc_root(t, 0), &ao) == 0, "any group");
	CHECK(smp_scopes_get(sc, "v1", "Thing") == 0, "any group, core");
	CHECK(smp_scopes_declare(sc, "Thing.other.io", true, &err) == 0 &&
	      smp_apply_kind_scope(smp_doc_root(t, 0), &ao) == 1, "the group's declaration first");
	rc = smp_apply_object(&res, NULL, smp_doc_root(g, 0), &ao, &err);
	CHECK(rc == 0 && !smp_value_at(smp_apply_result_object(res), "metadata.namespace"),
	      "declared cluster-scoped: namespace dropped");
	smp_apply_result_free(res);
	res = NULL;
	{
		static const char *const bad[] = {"", ".example.com", "Gad-get.x", "Gadget.Example",
		                                  "Gadget.-x", "Gadget.x..y", "1Gadget"};
		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++)
			CHECK(smp_scopes_declare(sc, bad[j], false, &err) == SMP_EINVAL &&
			      strstr(err.message, "invalid kind"), "bad name '%s'", bad[j]);
	}
	CHECK(smp_scopes_declare(NULL, "X", false, &err) == SMP_EINVAL, "NULL set");
	CHECK(smp_scopes_learn(sc, NULL, &err) == SMP_EINVAL, "NULL object");
	CHECK(smp_scopes_get(NULL, "v1", "X") == -1, "NULL get");
	/* Many kinds: the table grows. */
	for (int i = 0; i < 200; i++) {
		char name[32];
		snprintf(name, sizeof(name), "K%d.g%d.io", i, i % 7);
		CHECK(smp_scopes_declare(sc, name, i % 2 == 0, &err) == 0, "declare %s", name);
	}
	for (int i = 0; i < 200; i++) {
		char av[32], kind[16];
		snprintf(av, sizeof(av), "g%d.io/v1", i % 7);
		snprintf(kind, sizeof(kind), "K%d", i);
		CHECK(smp_scopes_get(sc, av, kind) == (i % 2 == 0), "get %s %s", av, kind);
	}
out:
	smp_scopes_free(sc);
	smp_doc_free(cr);
	smp_doc_free(dep);
	smp_doc_free(psp);
	smp_doc_free(g);
	smp_doc_free(glive);
	smp_doc_free(gns);
	smp_doc_free(t);
}

int main(void)
{
	test_encode();
	test_create();
	test_namespaces();
	test_scopes();
	test_rejects();
	test_limit();
	test_three_way();
	test_kinds();
	test_display();
	test_validate_meta();
	test_limit_early();
	test_set_encode();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	puts("apply tests: ok");
	return 0;
}
